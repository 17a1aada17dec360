"""Render template snippets with Helm's real engine for the sprig tests.

Made sprig-expected.json from sprig-cases.json, with helm-python-sdk 0.2.2 (Helm v4.2.3):

    python -m venv venv && venv/bin/pip install helm-python-sdk==0.2.2
    venv/bin/python sprig_oracle.py sprig-cases.json > sprig-expected.json

Input: {"sets": [{"values": {...}, "cases": {"name": "template", ...}}, ...]}. Each case
becomes one template of a scratch chart rendered with its set's values; the output,
{"sets": [...]}, maps each name to the rendered text, or to {"error": message} when
that template fails on its own.
"""
import json, sys, tempfile, pathlib
import helm_python
from helm_python import Chart

def render(cases, values):
    with tempfile.TemporaryDirectory() as d:
        p = pathlib.Path(d) / "c"
        (p / "templates").mkdir(parents=True)
        (p / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
        (p / "values.yaml").write_text("{}\n")
        for i, (name, tpl) in enumerate(cases.items()):
            (p / "templates" / f"t{i}.txt").write_text(tpl)
        with Chart.load(p) as ch:
            try:
                res = ch.render(values, name="release-name", namespace="default")
            except helm_python.HelmError as e:
                return {"error": str(e)}
        return {name: res[f"c/templates/t{i}.txt"] for i, (name, tpl) in enumerate(cases.items())}
def render_set(spec):
    values = spec.get("values", {})
    res = render(spec["cases"], values)
    if "error" not in res:
        return res
    # Some case fails: render each on its own to tell which.
    out = {}
    for name, tpl in spec["cases"].items():
        r = render({name: tpl}, values)
        out[name] = r if "error" in r else r[name]
    return out


spec = json.load(open(sys.argv[1]))
print(json.dumps({"sets": [render_set(s) for s in spec["sets"]]}, indent=1, ensure_ascii=False))
