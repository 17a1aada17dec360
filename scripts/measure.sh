#!/usr/bin/env bash
# Prints rusty-sdk's own speed figures: median wall time of init and create api (release
# build, N runs each, fresh directories), and with --cold-build the release build time and
# binary size of a generated hybrid project from an empty target directory, with and
# without the runtime's chart-engine feature.
#
#   scripts/measure.sh [runs] [--cold-build]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-21}
cargo build --release --quiet
# The binary as `cargo install` leaves it: copied with write(2). The linker writes its
# output through a shared mapping, and on Linux such a file sits in the page cache in
# single pages, which a starting process maps one fault at a time (1.3 ms more per flow
# on the development VM, same bytes); a written copy on a disk file system is cached in
# large folios (not on tmpfs: the copy stays next to the build, whatever TMPDIR is).
bin="$PWD/target/measure/rusty-sdk"
mkdir -p target/measure
rm -f "$bin"
cp target/release/rusty-sdk "$bin"
# Each timed flow starts with nothing waiting to be written (the build's output, earlier
# runs' copies): its fsyncs would otherwise wait for other programs' data. `cp -r` does not
# fsync, so nothing waiting changes its time.
sync
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The chart-render cache of this script's own, not the user's.
export RUSTY_SDK_CACHE_DIR="$work/cache"

# median of the millisecond figures given on stdin
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f ms (n=%d, min %.1f, max %.1f)\n", m, NR, a[1], a[NR]}'; }

time_ms() { local start end; start=$(date +%s%N); "$@" >/dev/null 2>&1; end=$(date +%s%N); echo $(( (end - start) / 1000 )) | awk '{printf "%.3f\n", $1/1000}'; }

init_times=(); helm_times=(); rust_times=()
for i in $(seq "$runs"); do
  dir="$work/run$i/memcached-operator"
  init_times+=("$(time_ms "$bin" -q -C "$dir" init --plugins hybrid.helm --domain my.domain --repo github.com/example/memcached-operator)")
  helm_times+=("$(time_ms "$bin" -q -C "$dir" create api --plugins helm --group cache --version v1 --kind Memcached)")
  rust_times+=("$(time_ms "$bin" -q -C "$dir" create api --plugins rust --group cache --version v1 --kind MemcachedBackup --resource --controller)")
done
echo "rusty-sdk $("$bin" version | sed 's/^rusty-sdk version: "\([^"]*\)".*/\1/'), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf 'init --plugins hybrid.helm           median %s\n' "$(printf '%s\n' "${init_times[@]}" | median)"
printf 'create api --plugins helm (starter)  median %s\n' "$(printf '%s\n' "${helm_times[@]}" | median)"
printf 'create api --plugins rust            median %s\n' "$(printf '%s\n' "${rust_times[@]}" | median)"

# The tutorial flow (init, a Helm API, a Rust API, generate rbac) against `cp -r` of the tree
# it leaves, side by side in each run: what the commands cost beyond writing the files. The
# chart-render cache (docs/generate-rbac.md) starts empty in each cold run; in the warm runs
# it holds the starter chart, as it does for anyone who scaffolded before.
flow() {
  local dir=$1
  "$bin" -q -C "$dir" init --plugins hybrid.helm --domain my.domain --repo github.com/example/memcached-operator &&
  "$bin" -q -C "$dir" create api --plugins helm --group cache --version v1 --kind Memcached &&
  "$bin" -q -C "$dir" create api --plugins rust --group cache --version v1 --kind MemcachedBackup --resource --controller &&
  "$bin" -q -C "$dir" generate rbac
}
flow_times=(); cold_times=(); copy_times=()
for i in $(seq "$runs"); do
  dir="$work/flow$i/memcached-operator"
  sync; flow_times+=("$(time_ms flow "$dir")")
  copy_times+=("$(time_ms cp -r "$dir" "$work/copy$i")")
  sync; cold_times+=("$(RUSTY_SDK_CACHE_DIR="$work/cold$i" time_ms flow "$work/coldflow$i/memcached-operator")")
done
flow_median=$(printf '%s\n' "${flow_times[@]}" | median)
cold_median=$(printf '%s\n' "${cold_times[@]}" | median)
copy_median=$(printf '%s\n' "${copy_times[@]}" | median)
printf 'tutorial flow (4 commands)           median %s\n' "$flow_median"
printf 'the same, chart cache empty          median %s\n' "$cold_median"
printf 'cp -r of the tree it writes          median %s\n' "$copy_median"
echo "$flow_median $copy_median" | awk '{printf "ratio flow / cp -r: %.1f (target: at most 4)\n", $1 / $8}'
echo "$cold_median $copy_median" | awk '{printf "ratio flow with an empty chart cache / cp -r: %.1f\n", $1 / $8}'
# The same ratio run by run (each flow against the copy right after it), which a disk that
# slows down or speeds up during the script moves less.
for i in "${!flow_times[@]}"; do echo "${flow_times[$i]} ${copy_times[$i]}" | awk '{printf "%.3f\n", $1 / $2}'; done |
  sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "median of the run-by-run ratios: %.2f (min %.2f, max %.2f)\n", m, a[1], a[NR]}'

if [[ " $* " == *" --cold-build "* ]]; then
  # Release builds from nothing, as generated (the Helm reconciler's in-process render,
  # feature `chart-engine`) and with that feature taken out (helm's dry run decides).
  project="$work/run1/memcached-operator"
  cold_build() { # label, target dir
    local start end
    start=$(date +%s)
    (cd "$project" && CARGO_TARGET_DIR="$2" cargo build --release --quiet)
    end=$(date +%s)
    ls -l "$2/release/memcached-operator" |
      awk -v label="$1" -v secs=$((end - start)) \
        '{printf "cold release build of the tutorial project, %s: %d s, binary %.1f MiB\n", label, secs, $5/1048576}'
  }
  cold_build "with chart-engine" "$work/cold-with"
  sed -i 's/, features = \["chart-engine"\]//' "$project/Cargo.toml"
  grep -q 'features = \["chart-engine"\]' "$project/Cargo.toml" && { echo "could not take chart-engine out" >&2; exit 1; }
  cold_build "without chart-engine" "$work/cold-without"
fi
