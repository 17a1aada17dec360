#!/usr/bin/env bash
# Prints what a cold CI run costs: the wall time of `.ci/run` on a fresh clone of HEAD with
# an empty target directory and an empty cargo registry, and the peak disk use of each
# (sampled every 5 s), against CI's budget of 25 minutes and 5 GB on 2 cores.
#
#   scripts/measure-ci.sh [--keep]
#
# The clone is made beside this repository (`.ci/run` needs ../shared/charts-corpus) and
# removed afterwards unless --keep. It builds everything from nothing: expect 10 to 20
# minutes and 5 GB of free disk; the load average before and after says whether the
# machine was shared.
set -euo pipefail
cd "$(dirname "$0")/.."
keep=false
[ "${1:-}" = "--keep" ] && keep=true
repo=$PWD
clone=$(mktemp -d "$(dirname "$repo")/.measure-ci.XXXXXX")
cleanup() { $keep || rm -rf "$clone"; }
trap cleanup EXIT
git clone --quiet "$repo" "$clone/rusty-sdk"
# An empty registry, with rustup's cargo and toolchains as they are.
export CARGO_HOME="$clone/cargo-home"
mkdir -p "$CARGO_HOME"

size_gb() { if [ -d "$1" ]; then du -sb "$1" 2>/dev/null | awk '{printf "%.2f", $1 / 1e9}'; else echo 0; fi; }
load() { echo "load average ($1): $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"; }

peaks="$clone/peaks"
echo "0 0" >"$peaks"
sample() {
  while sleep 5; do
    read -r target registry <"$peaks"
    now_target=$(size_gb "$clone/rusty-sdk/target")
    now_registry=$(size_gb "$CARGO_HOME/registry")
    awk -v a="$target" -v b="$now_target" -v c="$registry" -v d="$now_registry" \
      'BEGIN {printf "%s %s\n", (b > a ? b : a), (d > c ? d : c)}' >"$peaks"
  done
}

load "before"
sample &
sampler=$!
start=$(date +%s)
status=0
(cd "$clone/rusty-sdk" && CI=true .ci/run >"$clone/ci.log" 2>&1) || status=$?
end=$(date +%s)
kill "$sampler"
load "after"
read -r target registry <"$peaks"
echo "commit:   $(git -C "$repo" rev-parse --short HEAD)"
echo ".ci/run:  exit $status, $(( (end - start) / 60 )) min $(( (end - start) % 60 )) s (budget 25 min)"
echo "peak disk: target $target GB, registry $registry GB (budget 5 GB together)"
if [ "$status" != 0 ]; then
  keep=true
  echo "the run failed; its log is kept: $clone/ci.log"
fi
