#!/usr/bin/env python3
"""Live differential run: render generated cases with Helm's engine and with ours.

Run through ../../../../scripts/differential.sh, which makes the venv with
helm-python-sdk 0.2.2 (Helm v4.2.3) and builds our runner. By hand:

    python differential.py --ours <render_cases binary> [--random N] [--seed S]
        [--report diffs.json] [--update-table]

Prints a summary; writes every difference (case, Helm's result, ours) to the report.
With --update-table, regression.json (the table tests/engine/differential.rs checks) is
rewritten with every differing case plus a sample of agreeing ones, each with Helm's
result as the expectation.
"""
import argparse
import json
import re
import random
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gen_cases  # noqa: E402

TABLE = HERE / "regression.json"
CASE_TIMEOUT = 20  # seconds for one case on our side before it counts as a hang


def write_chart(root, base, case):
    files = dict(base)
    files.update(case["files"])
    d = Path(root) / "c"
    for path, text in files.items():
        p = d / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(bytes(text) if isinstance(text, list) else text.encode())
    return d


ADDRESS = re.compile(r"0x[0-9a-f]{9,12}\b")


def without_addresses(v):
    if isinstance(v, str):
        return ADDRESS.sub("0xADDRESS", v)
    if isinstance(v, dict):
        return {k: without_addresses(x) for k, x in v.items()}
    return v


def helm_render(base, case):
    import helm_python
    from helm_python import Chart
    with tempfile.TemporaryDirectory() as root:
        d = write_chart(root, base, case)
        try:
            with Chart.load(d) as ch:
                return {"output": ch.render(case["values"], name="release-name", namespace="default")}
        except helm_python.HelmError as e:
            # The scratch directory's path is not reproducible: name it CHART.
            return {"error": str(e).replace(str(d), "CHART")}
        except UnicodeDecodeError:
            # helm-python-sdk cannot hand back output that is not UTF-8 (a binary
            # file printed raw); such a case cannot be compared.
            return None


def ours_render(binary, table_path, n):
    """Runs our runner, resuming after a case that crashes or hangs it."""
    results, start = [], 0
    while start < n:
        proc = subprocess.Popen([binary, table_path, str(start)], stdout=subprocess.PIPE, text=True)
        got = 0
        try:
            for line in iter(proc.stdout.readline, ""):
                results.append(json.loads(line))
                got += 1
            proc.wait(timeout=CASE_TIMEOUT)
            crash = f"crash: exit status {proc.returncode}" if start + got < n else None
        except subprocess.TimeoutExpired:
            proc.kill()
            crash = "hang"
        if start + got < n:
            results.append({"crash": crash or "crash"})
            got += 1
        start += got
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True, help="path of the render_cases example binary")
    ap.add_argument("--random", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--report", default="differential-report.json")
    ap.add_argument("--update-table", action="store_true")
    ap.add_argument("--agreeing-sample", type=int, default=250)
    ap.add_argument("--only", help="only the cases whose id starts with this prefix")
    ap.add_argument("--add-to-table", action="store_true",
                    help="add the compared cases (all of them, with Helm's result) to "
                         "regression.json, replacing cases of the same id")
    a = ap.parse_args()

    cases = (gen_cases.hand_cases() + gen_cases.chart_cases() + gen_cases.schema_cases()
             + gen_cases.random_cases(a.random, a.seed))
    if a.only:
        cases = [c for c in cases if c["id"].startswith(a.only)]
    base = gen_cases.BASE
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"base": base, "cases": cases}, f, ensure_ascii=False)
    print(f"rendering {len(cases)} cases with Helm ...", file=sys.stderr)
    helm = [helm_render(base, c) for c in cases]
    print("rendering with ours ...", file=sys.stderr)
    ours = ours_render(a.ours, f.name, len(cases))
    Path(f.name).unlink()

    diffs, agree, skipped = [], [], 0
    for c, h, o in zip(cases, helm, ours):
        if h is None:
            skipped += 1
            continue
        o = {k: v for k, v in o.items() if k != "id"}
        # Go prints a pointer inside a map as its address, which differs on every run.
        h, o = without_addresses(h), without_addresses(o)
        (agree if h == o else diffs).append((c, h, o))
    crashes = sum(1 for _, _, o in diffs if "crash" in o or "panic" in o)
    print(f"cases compared: {len(cases) - skipped} ({skipped} with output Helm's binding cannot "
          f"decode skipped); differences: {len(diffs)} "
          f"(Helm error/ours ok: {sum(1 for _, h, o in diffs if 'error' in h and 'output' in o)}, "
          f"Helm ok/ours error: {sum(1 for _, h, o in diffs if 'output' in h and 'error' in o)}, "
          f"panics/crashes/hangs: {crashes})")
    Path(a.report).write_text(json.dumps(
        [{"case": c, "helm": h, "ours": o} for c, h, o in diffs], indent=1, ensure_ascii=False))
    print(f"report: {a.report}")

    if a.update_table:
        sample = random.Random(a.seed).sample(agree, min(a.agreeing_sample, len(agree)))
        keep = sorted(diffs + sample, key=lambda t: t[0]["id"])
        table = {"base": base, "cases": [dict(c, helm=h) for c, h, _ in keep]}
        TABLE.write_text(json.dumps(table, indent=0, ensure_ascii=False) + "\n")
        print(f"regression table: {len(keep)} cases ({len(diffs)} differing) -> {TABLE.name}")

    if a.add_to_table:
        table = json.loads(TABLE.read_text())
        fresh = {c["id"]: dict(c, helm=h) for c, h, _ in agree + diffs}
        kept = [c for c in table["cases"] if c["id"] not in fresh]
        table["cases"] = sorted(kept + list(fresh.values()), key=lambda c: c["id"])
        TABLE.write_text(json.dumps(table, indent=0, ensure_ascii=False) + "\n")
        print(f"regression table: {len(fresh)} cases added or replaced -> {TABLE.name}")


if __name__ == "__main__":
    main()
