#!/usr/bin/env bash
# Chart engine speed against Helm's own engine, side by side in one run on this machine:
# Helm v4.2.3's engine (helm-python-sdk) times every corpus chart, then our engine does.
# Usage: scripts/bench-chart.sh [runs] [chart...]
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=../shared/charts-corpus
venv=${HELM_VENV:-target/helm-venv}
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet helm-python-sdk==0.2.2
fi
timings=$(mktemp)
trap 'rm -f "$timings"' EXIT
runs=${1:-11}
shift || true
# Both engines are timed on a machine others may be using: the load average before and
# after says how far to trust the figures (the target is an idle 2-core machine).
load() { echo "load average ($1): $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"; }
cargo build --quiet --release -p rusty-sdk-chart --example bench_corpus
load "before Helm"
"$venv/bin/python" "$corpus/render_oracle.py" --timings "$@" > "$timings"
load "before ours"
HELM_TIMINGS="$timings" target/release/examples/bench_corpus "$runs" "$@"
load "after"
