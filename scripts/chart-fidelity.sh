#!/usr/bin/env bash
# Compare our chart engine with Helm's on charts of your choice (charts that are not in
# ../shared/charts-corpus). Each chart directory (its dependencies already under
# charts/) is copied into a scratch corpus, rendered by Helm v4.2.3's engine
# (helm-python-sdk 0.2.2, through the corpus's render_oracle.py: default values and every
# boolean `enabled` switch on), then by ours; prints one verdict per render, with the
# first difference, as the fidelity example does for the corpus.
#   scripts/chart-fidelity.sh <chart dir>... [--keep DIR]
# DIFF_VENV names a venv with helm-python-sdk (default target/differential-venv, made if
# missing); --keep DIR keeps the scratch corpus (charts/, expected/) in DIR.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
oracle="$root/../shared/charts-corpus/render_oracle.py"
venv="${DIFF_VENV:-$root/target/differential-venv}"
keep=""
charts=()
while [ $# -gt 0 ]; do
    case "$1" in
        --keep) keep="$2"; shift 2 ;;
        *) charts+=("$1"); shift ;;
    esac
done
if [ ${#charts[@]} -eq 0 ]; then
    echo "usage: $0 <chart dir>... [--keep DIR]" >&2
    exit 2
fi
[ -f "$oracle" ] || { echo "no render_oracle.py at $oracle" >&2; exit 2; }
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -c 'import helm_python' 2>/dev/null ||
    "$venv/bin/pip" install --quiet helm-python-sdk==0.2.2
if [ -n "$keep" ]; then
    scratch="$keep"
    mkdir -p "$scratch"
else
    scratch="$(mktemp -d)"
    trap 'rm -rf "$scratch"' EXIT
fi
mkdir -p "$scratch/charts"
for chart in "${charts[@]}"; do
    [ -f "$chart/Chart.yaml" ] || { echo "$chart: no Chart.yaml" >&2; exit 2; }
    name="$(basename "$(cd "$chart" && pwd)")"
    rm -rf "${scratch:?}/charts/$name"
    cp -rL "$chart" "$scratch/charts/$name"
done
cp "$oracle" "$scratch/render_oracle.py"
"$venv/bin/python" "$scratch/render_oracle.py" 2>/dev/null | sed 's/^/helm: /'
cargo build --quiet --release -p rusty-sdk-chart --example fidelity
CHART_CORPUS="$scratch" "$root/target/release/examples/fidelity"
