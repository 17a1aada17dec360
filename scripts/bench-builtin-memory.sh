#!/usr/bin/env bash
# Resident memory of a generated controller for a built-in kind at scale: the ConfigMap
# controller of `create api --group core --version v1 --kind ConfigMap --controller
# --resource=false`, built in release mode, against N ConfigMaps of S KB each on the real
# control plane of the cluster tests. Prints figures, not a verdict (issue 27's goal: under
# 64 MiB for 10,000 ConfigMaps of 10 KB).
#
#   scripts/bench-builtin-memory.sh [--count N] [--size KB] [--controller FILE] [--keep]
#
#   --count N          ConfigMaps created before the controller starts (default 10000)
#   --size KB          size of each ConfigMap's data (default 10)
#   --controller FILE  build with FILE as src/controller/config_map.rs instead of the one
#                      scaffolded (e.g. one scaffolded by an older rusty-sdk, to compare)
#   --keep             keep the work folder (project, logs) and print its path
#
# What it does: starts the control plane (crates/runtime's envtest, binaries from
# hack/control-plane.sh), scaffolds a project with rusty-sdk (this checkout's, debug build)
# with a ConfigMap controller, builds it in release mode against the runtime of the last
# commit (crates/ as committed, not the working tree; its own target folder under target/,
# kept between runs), creates the ConfigMaps with kubectl while the controller is
# stopped, then starts the controller (all namespaces, no leader election, metrics on) and
# waits until its reconcile counter has counted every ConfigMap of the cluster. Then it
# waits for the counter to stand still for 5 s and reads VmHWM (the peak) and VmRSS from
# /proc/<pid>/status.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

count=10000 size=10 keep=false controller=""
while [ $# -gt 0 ]; do
  case "$1" in
    --count) count="$2"; shift ;;
    --count=*) count="${1#*=}" ;;
    --size) size="$2"; shift ;;
    --size=*) size="${1#*=}" ;;
    --controller) controller="$(realpath "$2")"; shift ;;
    --controller=*) controller="$(realpath "${1#*=}")" ;;
    --keep) keep=true ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-builtin-memory: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
for n in "$count" "$size"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "bench-builtin-memory: $n is not a positive whole number" >&2; exit 2; }
done

say() { echo "bench-builtin-memory: $*" >&2; }
fail() { say "$*"; exit 1; }

assets="$(hack/control-plane.sh)"
say "building rusty-sdk and the control-plane launcher (debug)"
cargo build --quiet --bin rusty-sdk
cargo build --quiet -p rusty-sdk-runtime --features k8s-openapi/v1_33,chart-engine,envtest --example envtest_serve
target_dir="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
rusty="$target_dir/debug/rusty-sdk"
launcher="$target_dir/debug/examples/envtest_serve"
kubectl="$assets/kubectl"

work="$(mktemp -d "${TMPDIR:-/tmp}/bench-builtin-memory.XXXXXX")"
pids=()
plane_pid=""
cleanup() {
  local status=$?
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  if [ -n "$plane_pid" ] && kill -0 "$plane_pid" 2>/dev/null; then
    kill -TERM "$plane_pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$plane_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$plane_pid" 2>/dev/null || true
  fi
  if $keep; then say "kept $work"; else rm -rf "$work"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- The project ------------------------------------------------------------------------
project="$work/cm-operator"
mkdir -p "$project"
say "scaffolding a project with a ConfigMap controller in $project"
# The runtime as committed: the working tree may hold someone's unfinished change.
runtime_src="$repo/target/bench-builtin-memory/runtime-src"
rm -rf "$runtime_src" && mkdir -p "$runtime_src"
git archive HEAD crates | tar -x -C "$runtime_src"
(cd "$project" &&
  "$rusty" -q init --plugins rust --domain bench.example --repo github.com/example/cm-operator \
    --runtime-path "$runtime_src/crates/runtime" &&
  "$rusty" -q create api --group core --version v1 --kind ConfigMap --controller --resource=false) \
  >"$work/scaffold.log" 2>&1 || { cat "$work/scaffold.log" >&2; fail "scaffolding failed"; }
if [ -n "$controller" ]; then cp "$controller" "$project/src/controller/config_map.rs"; fi
say "building the operator (release; the first time takes several minutes)"
(cd "$project" && CARGO_TARGET_DIR="$repo/target/bench-builtin-memory" cargo build --quiet --release --bin cm-operator) ||
  fail "cargo build --release of the scaffolded operator failed"
operator="$work/cm-operator.bin"
cp "$repo/target/bench-builtin-memory/release/cm-operator" "$operator"

# --- The control plane and the ConfigMaps -------------------------------------------------
say "starting the control plane"
KUBEBUILDER_ASSETS="$assets" "$launcher" >"$work/plane.out" 2>"$work/plane.log" </dev/null &
plane_pid=$!
for _ in $(seq 360); do
  grep -qx ready "$work/plane.out" 2>/dev/null && break
  kill -0 "$plane_pid" 2>/dev/null || { cat "$work/plane.log" >&2; fail "the control plane did not start"; }
  sleep 0.5
done
grep -qx ready "$work/plane.out" || fail "the control plane was not ready in 180 s"
admin="$(sed -n 's/^kubeconfig=//p' "$work/plane.out")"
k() { "$kubectl" --kubeconfig "$admin" "$@"; }

k create namespace bench >/dev/null
say "creating $count ConfigMaps of $size KB in namespace bench"
manifests="$work/configmaps"
mkdir -p "$manifests"
# Four files, created in parallel; each has its own payload (random base64, so nothing
# shares or compresses it), exactly size KB in one key.
for part in 0 1 2 3; do
  # 768 random bytes are 1,024 base64 characters (no truncating `head`, whose early exit
  # would fail the pipe under pipefail).
  payload="$(head -c $((size * 768)) /dev/urandom | base64 -w0)"
  for i in $(seq $((part + 1)) 4 "$count"); do
    printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bench-%d\n  labels:\n    app.kubernetes.io/part-of: bench\ndata:\n  payload: %s\n' "$i" "$payload"
  done >"$manifests/$part.yaml"
done
creators=()
for f in "$manifests"/*.yaml; do k create -n bench -f "$f" >/dev/null & creators+=($!); done
for c in "${creators[@]}"; do wait "$c" || fail "creating the ConfigMaps failed"; done
total="$(k get configmaps -A --no-headers | wc -l)"
say "$total ConfigMaps in the cluster"

# --- The controller -----------------------------------------------------------------------
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
metrics="$(free_port)" health="$(free_port)"
reconciled() {
  curl -fsS "http://127.0.0.1:$metrics/metrics" 2>/dev/null |
    awk '/^controller_runtime_reconcile_total\{/ && /controller="configmap"/ {n += $NF} END {printf "%d\n", n}'
}
status_kb() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }

say "starting the controller"
t0="${EPOCHREALTIME/./}"
KUBECONFIG="$admin" RUST_LOG=info NO_COLOR=1 "$operator" --leader-elect=false \
  --metrics-bind-address="127.0.0.1:$metrics" --metrics-secure=false \
  --health-probe-bind-address="127.0.0.1:$health" >"$work/operator.log" 2>&1 &
pid=$!
pids+=("$pid")
done_at=""
for _ in $(seq 6000); do
  kill -0 "$pid" 2>/dev/null || { tail -30 "$work/operator.log" >&2; fail "the controller exited"; }
  n="$(reconciled || echo 0)"
  if [ "${n:-0}" -ge "$total" ]; then done_at="${EPOCHREALTIME/./}"; break; fi
  sleep 0.1
done
[ -n "$done_at" ] || fail "only $(reconciled) of $total ConfigMaps reconciled in 600 s"
# Settled: no reconcile for 5 s (the resync period is minutes away).
last="$(reconciled)"
for _ in $(seq 120); do
  sleep 5
  now="$(reconciled)"
  [ "$now" = "$last" ] && break
  last="$now"
done
hwm="$(status_kb "$pid" VmHWM)" rss="$(status_kb "$pid" VmRSS)"
lines="$(wc -l <"$project/src/controller/config_map.rs")"

printf '\nbuilt-in kind at scale: %s\n' "$0 --count $count --size $size${controller:+ --controller $controller}"
printf '  commit                      %s%s\n' "$(git rev-parse --short HEAD)" "$(git diff --quiet HEAD -- templates/api/builtin || echo ' (+ uncommitted template changes)')"
printf '  ConfigMaps in the cluster   %d (%d of %d KB)\n' "$total" "$count" "$size"
printf '  reconciled                  %d in %.1f s from start\n' "$last" "$(awk -v a="$t0" -v b="$done_at" 'BEGIN {print (b - a) / 1e6}')"
printf '  VmHWM (peak resident)       %.1f MiB\n' "$(awk -v k="$hwm" 'BEGIN {print k / 1024}')"
printf '  VmRSS (resident, settled)   %.1f MiB\n' "$(awk -v k="$rss" 'BEGIN {print k / 1024}')"
printf '  controller file             %d lines\n' "$lines"
printf '  log lines "reconciling"     %s (at info level)\n' "$(grep -c 'reconciling' "$work/operator.log" || true)"
