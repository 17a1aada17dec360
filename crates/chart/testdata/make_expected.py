#!/usr/bin/env python3
"""Write the expected renders of the chart crate's test charts with the real Helm engine.

The engine is Helm v4.2.3 as a library: helm-python-sdk 0.2.2 from PyPI
(`pip install helm-python-sdk==0.2.2`, import `helm_python`). Run once after changing a
test chart, from any folder:

    python crates/chart/testdata/make_expected.py

It writes, next to this script:

* expected/<chart>/defaults.json   render with no user values
* expected/<chart>/switches.json   render with every boolean `enabled` key of the chart's
                                   values.yaml set to true (any depth of maps, not lists)

for the crate's own starter chart (crates/chart/starter, named "mychart") and every chart
under charts/.
Renders use release name "release-name" and namespace "default" (revision 1, install),
like `helm template`. A failed render is stored as {"error": <Helm's message>}.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import helm_python
from helm_python import Chart

HERE = Path(__file__).resolve().parent
STARTER = HERE.parent / "starter"
CHARTS = HERE / "charts"
EXPECTED = HERE / "expected"


def switches(values: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if not isinstance(values, dict):
        return out
    for key, val in values.items():
        if key == "enabled" and isinstance(val, bool):
            out[key] = True
        elif isinstance(val, dict):
            sub = switches(val)
            if sub:
                out[key] = sub
    return out


def render(chart_dir: Path, values: dict[str, Any]) -> dict[str, Any]:
    # A fresh handle per render: Helm drops disabled subcharts from the loaded chart.
    with Chart.load(chart_dir) as chart:
        try:
            return chart.render(values, name="release-name", namespace="default")
        except helm_python.HelmError as exc:
            return {"error": str(exc)}


def dump(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


def write_chart(name: str, chart_dir: Path) -> None:
    with Chart.load(chart_dir) as chart:
        overlay = switches(chart.values)
    dump(EXPECTED / name / "defaults.json", render(chart_dir, {}))
    dump(EXPECTED / name / "switches.json", render(chart_dir, overlay))
    print(f"{name}: ok")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        # The starter as `create api --kind` writes it: the placeholder named.
        created = Path(tmp) / "mychart"
        for p in sorted(STARTER.rglob("*")):
            if p.is_file():
                target = created / p.relative_to(STARTER)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(p.read_text(encoding="utf-8").replace("<CHARTNAME>", "mychart"), encoding="utf-8")
        write_chart("starter", created)
    for chart_dir in sorted(p for p in CHARTS.iterdir() if (p / "Chart.yaml").is_file()):
        write_chart(chart_dir.name, chart_dir)


if __name__ == "__main__":
    main()
