#!/usr/bin/env bash
# Live differential test of our chart engine against Helm's (helm-python-sdk 0.2.2 bundles
# Helm v4.2.3's engine). Makes a venv (DIFF_VENV, default target/differential-venv),
# builds our runner and compares every generated case. Arguments go to differential.py:
#   scripts/differential.sh [--random N] [--seed S] [--report FILE] [--update-table]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${DIFF_VENV:-$root/target/differential-venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -c 'import helm_python' 2>/dev/null ||
    "$venv/bin/pip" install --quiet helm-python-sdk==0.2.2
cargo build --quiet -p rusty-sdk-chart --example render_cases
exec "$venv/bin/python" "$root/crates/chart/testdata/differential/differential.py" \
    --ours "$root/target/debug/examples/render_cases" "$@"
