#!/usr/bin/env bash
# Our Helm reconciler against the Go helm-operator (operator-framework's helm-operator-plugins),
# side by side in one run on one real control plane, with the same watches.yaml and chart.
# Prints figures, not a verdict; docs/benchmarks.md says what each one means.
#
#   scripts/bench-helm-operator.sh [--quick] [--crs N] [--steady SECONDS] [--settle SECONDS]
#                                  [--timeout SECONDS] [--only go|rust] [--keep]
#
#   --quick           a trial run: 100 CRs, 60 s of steady state, 30 s settle (unless given)
#   --crs N           custom resources created for the convergence phase (default 1000)
#   --steady SECONDS  length of the steady-state window (default 300); a multiple of the
#                     reconcile period (1 min) sees every CR requeued equally often
#   --settle SECONDS  most time between convergence and the steady window: it starts as soon
#                     as the operator is quiet (under 1% CPU for 3 s) (default 60; quick 30)
#   --timeout SECONDS bound on the convergence phase of each operator (default 1800)
#   --only go|rust    run one operator only
#   --keep            keep the work folder (project, logs, raw samples) and print its path
#
# What it does: starts the control plane of the cluster tests (crates/runtime's envtest,
# binaries from hack/control-plane.sh), builds the Go helm-operator (hack/helm-operator.sh),
# scaffolds a hybrid project with rusty-sdk whose Helm API uses a chart of one ConfigMap and
# one ServiceAccount (nothing that waits for a pod), builds it in release mode and installs
# its CRD. Then, one operator at a time, each in a namespace of its own, with leader election
# off and metrics on, both as the same cluster-admin ServiceAccount:
#   1. N CRs are created while the operator is stopped; the clock starts when the operator
#      starts and stops when every CR has condition Deployed=True;
#   2. once the operator is quiet (or after --settle s), nothing changes for the steady window;
#   3. once quiet again, three CRs' spec.message change one after another; each latency runs
#      from the patch's acknowledgement to the watch event that shows the new value in that
#      release's ConfigMap;
#   4. processes the operator starts are counted in each phase.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
command_line="$0 $*"

crs="" steady="" settle="" changes=3 timeout=1800 only="" keep=false quick=false
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=true ;;
    --crs) crs="$2"; shift ;;
    --crs=*) crs="${1#*=}" ;;
    --steady) steady="$2"; shift ;;
    --steady=*) steady="${1#*=}" ;;
    --settle) settle="$2"; shift ;;
    --settle=*) settle="${1#*=}" ;;
    --timeout) timeout="$2"; shift ;;
    --timeout=*) timeout="${1#*=}" ;;
    --only) only="$2"; shift ;;
    --only=*) only="${1#*=}" ;;
    --keep) keep=true ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-helm-operator: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if $quick; then crs=${crs:-100} steady=${steady:-60} settle=${settle:-30}
else crs=${crs:-1000} steady=${steady:-300} settle=${settle:-60}; fi
for n in "$crs" "$steady" "$settle" "$timeout"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "bench-helm-operator: $n is not a positive whole number" >&2; exit 2; }
done
case "$only" in "") operators=(go rust) ;; go|rust) operators=("$only") ;;
  *) echo "bench-helm-operator: --only takes go or rust" >&2; exit 2 ;; esac

say() { echo "bench-helm-operator: $*" >&2; }
fail() { say "$*"; exit 1; }
now() { echo "${EPOCHREALTIME/./}"; } # microseconds, without a fork of date

# --- What it needs, built once and cached ------------------------------------------------
assets="$(hack/control-plane.sh)"
go_operator="$(hack/helm-operator.sh)"
say "building rusty-sdk and the control-plane launcher (debug)"
cargo build --quiet --bin rusty-sdk
# The features the runtime's own checks use, so this reuses their build.
cargo build --quiet -p rusty-sdk-runtime --features k8s-openapi/v1_33,chart-engine,envtest --example envtest_serve
target_dir="$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
rusty="$target_dir/debug/rusty-sdk"
launcher="$target_dir/debug/examples/envtest_serve"
kubectl="$assets/kubectl"

work="$(mktemp -d "${TMPDIR:-/tmp}/bench-helm-operator.XXXXXX")"
pids=() # background processes of ours, stopped on exit
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

# A sleep without a fork, for loops that must not add processes of their own.
mkfifo "$work/tick"
exec 7<>"$work/tick"
nap() { read -r -t "$1" -u 7 || true; }

# --- The project: a chart with nothing to wait for, scaffolded and built -------------------
chart="$work/chart"
mkdir -p "$chart/templates"
cat > "$chart/Chart.yaml" <<'EOF'
apiVersion: v2
name: bench
description: One ConfigMap and one ServiceAccount, no pods, for the helm-operator benchmark
type: application
version: 0.1.0
appVersion: "1.0"
EOF
cat > "$chart/values.yaml" <<'EOF'
# Shown in the ConfigMap; the spec-change phase sets it.
message: hello
EOF
cat > "$chart/templates/configmap.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-bench
  labels:
    app.kubernetes.io/instance: {{ .Release.Name }}
data:
  message: {{ .Values.message | quote }}
EOF
cat > "$chart/templates/serviceaccount.yaml" <<'EOF'
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ .Release.Name }}-bench
  labels:
    app.kubernetes.io/instance: {{ .Release.Name }}
EOF

project="$work/bench-operator"
mkdir -p "$project"
say "scaffolding a hybrid project in $project"
(cd "$project" &&
  "$rusty" -q init --plugins=hybrid.helm --domain bench.example --repo github.com/example/bench-operator &&
  "$rusty" -q create api --plugins helm --group cache --version v1 --kind Memcached --helm-chart "$chart") >"$work/scaffold.log" 2>&1 ||
  { cat "$work/scaffold.log" >&2; fail "scaffolding failed"; }
# Its own target folder, kept between runs: a release build of the operator's dependencies.
say "building the operator (release; the first time takes several minutes)"
(cd "$project" && CARGO_TARGET_DIR="$repo/target/bench-helm-operator" cargo build --quiet --release --bin bench-operator) ||
  fail "cargo build --release of the scaffolded operator failed"
rust_operator="$work/bench-operator.bin"
cp "$repo/target/bench-helm-operator/release/bench-operator" "$rust_operator"

# --- The control plane --------------------------------------------------------------------
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
server="$(sed -n 's/^server=//p' "$work/plane.out")"
k() { "$kubectl" --kubeconfig "$admin" --request-timeout=120s "$@"; } # watches call it directly

k apply --server-side -f "$project/config/crd/bases" >/dev/null
k wait --for condition=established --timeout=60s crd/memcacheds.cache.bench.example >/dev/null

# Both operators act as one ServiceAccount bound to cluster-admin. The API server files a
# ServiceAccount's requests under the flow schema `service-accounts`; everything else here
# (this script's kubectl, kube-controller-manager) is an admin and goes under `exempt`. So
# that flow schema's dispatched-request counter is the running operator's requests alone.
k create namespace bench-system >/dev/null
k create serviceaccount operator -n bench-system >/dev/null
k create clusterrolebinding bench-operator --clusterrole=cluster-admin --serviceaccount=bench-system:operator >/dev/null
token="$(k create token operator -n bench-system --duration=24h)"
ca="$(k config view --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')"
operator_kubeconfig="$work/operator.kubeconfig"
cat >"$operator_kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: envtest
  cluster:
    server: $server
    certificate-authority-data: $ca
contexts:
- name: operator
  context:
    cluster: envtest
    user: operator
current-context: operator
users:
- name: operator
  user:
    token: $token
EOF
chmod 600 "$operator_kubeconfig"

# `helm` on the operators' PATH is a wrapper that logs each start, then becomes the real
# helm v4.2.3 (one process either way): a helm started by either operator is counted.
mkdir -p "$work/bin"
cat >"$work/bin/helm" <<EOF
#!/usr/bin/env bash
echo "\${EPOCHREALTIME/./} \$1" >>"$work/helm-execs"
exec "$assets/helm" "\$@"
EOF
chmod +x "$work/bin/helm"
: >"$work/helm-execs"

# --- Measuring ----------------------------------------------------------------------------
tck="$(getconf CLK_TCK)"
# CPU ticks of the process itself and of its reaped children: "self children".
cpu_ticks() {
  local stat rest
  read -r stat <"/proc/$1/stat"
  rest="${stat##*) }" # past the command name, which may hold spaces
  set -- $rest
  echo "$(( ${12} + ${13} )) $(( ${14} + ${15} ))"
}
status_kb() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
# Requests the API server dispatched for the operator's ServiceAccount, and all it served.
api_counts() { # file to keep the scrape in
  k get --raw /metrics | tee "$1" | awk '
    /^apiserver_flowcontrol_dispatched_requests_total\{/ && /flow_schema="service-accounts"/ {sa += $NF}
    /^apiserver_request_total\{/ {all += $NF}
    END {printf "%d %d\n", sa, all}'
}
# Children of the operator and the resident memory of it and them, sampled every 100 ms
# without forking: "<sample> <phase> <pid|operator> <VmRSS kB>" lines.
sample() {
  local pid=$1 out=$2 n=0 phase f c kids key value rest
  while [ -d "/proc/$pid" ]; do
    n=$((n + 1))
    read -r phase <"$work/phase" || true
    kids=""
    for f in /proc/"$pid"/task/*/children; do
      c=""
      read -r c <"$f" 2>/dev/null || true
      kids+=" $c"
    done
    for c in operator $kids; do
      local p=$c
      [ "$c" = operator ] && p=$pid
      value=0
      { while read -r key value rest; do [ "$key" = VmRSS: ] && break; value=0; done <"/proc/$p/status"; } 2>/dev/null || true
      echo "$n $phase $c ${value:-0}"
    done >>"$out"
    nap 0.1
  done
}
# Wait until the operator is quiet: under 1% of a core (itself and its children) over 3 s,
# sampled every 0.5 s. Sets quiet_at to the start of those 3 s, or to "" after `max` s.
wait_quiet() {
  local pid=$1 max=$2 history=() total end=$(( ${EPOCHREALTIME/./} + $2 * 1000000 ))
  quiet_at=""
  while [ "${EPOCHREALTIME/./}" -lt "$end" ]; do
    set -- $(cpu_ticks "$pid")
    history+=("$(( $1 + $2 ))")
    total=${#history[@]}
    if [ "$total" -ge 7 ] && [ $(( history[total - 1] - history[total - 7] )) -lt "$(( 3 * tck / 100 ))" ]; then
      quiet_at=$(( ${EPOCHREALTIME/./} - 3000000 ))
      return
    fi
    nap 0.5
  done
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# Reads "<name> <Deployed status>" lines of a watch and writes the time at which all `want`
# CRs have Deployed=True.
count_deployed() {
  local want=$1 out=$2 name value count=0
  declare -A state
  while read -r name value; do
    [ -n "$name" ] || continue
    if [ "$value" = True ] && [ "${state[$name]:-}" != True ]; then count=$((count + 1)); fi
    if [ "$value" != True ] && [ "${state[$name]:-}" = True ]; then count=$((count - 1)); fi
    state[$name]=$value
    if [ "$count" -ge "$want" ]; then echo "${EPOCHREALTIME/./}" >"$out"; break; fi
  done
  cat >/dev/null # keep reading until the watch is stopped
}

deployed_count() {
  k get memcacheds -n "$1" \
    -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Deployed")].status}{"\n"}{end}' | grep -c '^True$' || true
}

declare -A result
run_operator() {
  local which=$1 ns="bench-$1" metrics health pid log="$work/$1.log" t0 t1
  metrics="$(free_port)" health="$(free_port)"
  k create namespace "$ns" >/dev/null
  say "$which: creating $crs Memcacheds in $ns"
  local manifests="$work/$which-crs"
  mkdir -p "$manifests"
  for i in $(seq "$crs"); do
    printf -- '---\napiVersion: cache.bench.example/v1\nkind: Memcached\nmetadata:\n  name: bench-%d\nspec:\n  message: hello\n' "$i" >>"$manifests/$((i % 4)).yaml"
  done
  local creators=()
  for f in "$manifests"/*.yaml; do k create -n "$ns" -f "$f" >/dev/null & creators+=($!); done
  for c in "${creators[@]}"; do wait "$c" || fail "$which: creating the Memcacheds failed"; done

  echo converge >"$work/phase"
  : >"$work/$which-deployed"
  # custom-columns, not jsonpath: a watch's jsonpath sees the first list as one object.
  "$kubectl" --kubeconfig "$admin" get memcacheds -n "$ns" -w --no-headers \
    -o custom-columns='NAME:.metadata.name,DEPLOYED:.status.conditions[?(@.type=="Deployed")].status' \
    > >(count_deployed "$crs" "$work/$which-deployed") 2>"$work/$which-watch.log" &
  local watcher=$!
  pids+=("$watcher")
  # Give the watch its initial list (every CR without a condition) before the clock starts.
  nap 2

  say "$which: starting the operator; converging $crs CRs"
  local helm_home="$work/$which-helm-home"
  local env=(KUBECONFIG="$operator_kubeconfig" PATH="$work/bin:$PATH" NO_COLOR=1
    HELM_CACHE_HOME="$helm_home/cache" HELM_CONFIG_HOME="$helm_home/config" HELM_DATA_HOME="$helm_home/data")
  t0="${EPOCHREALTIME/./}"
  if [ "$which" = go ]; then
    (cd "$project" && exec env "${env[@]}" WATCH_NAMESPACE="$ns" "$go_operator" run \
      --watches-file=watches.yaml --leader-elect=false \
      --metrics-bind-address="127.0.0.1:$metrics" --health-probe-bind-address="127.0.0.1:$health") >"$log" 2>&1 &
  else
    (cd "$project" && exec env "${env[@]}" RUST_LOG=info "$rust_operator" \
      --watches-file=watches.yaml --leader-elect=false --namespace="$ns" \
      --metrics-bind-address="127.0.0.1:$metrics" --metrics-secure=false \
      --health-probe-bind-address="127.0.0.1:$health") >"$log" 2>&1 &
  fi
  pid=$!
  pids+=("$pid")
  sample "$pid" "$work/$which-samples" &
  pids+=("$!")

  local deadline=$(( $(now) + timeout * 1000000 ))
  while [ ! -s "$work/$which-deployed" ]; do
    kill -0 "$pid" 2>/dev/null || { tail -30 "$log" >&2; fail "$which: the operator exited during convergence"; }
    # Should the API server end the watch, count by listing (to 2 s) instead.
    if ! kill -0 "$watcher" 2>/dev/null && [ "$(deployed_count "$ns")" -eq "$crs" ]; then
      echo "${EPOCHREALTIME/./}" >"$work/$which-deployed"
      break
    fi
    if [ "$(now)" -gt "$deadline" ]; then
      tail -30 "$log" >&2
      fail "$which: $(deployed_count "$ns") of $crs CRs Deployed after ${timeout}s (raise --timeout?)"
    fi
    if kill -0 "$watcher" 2>/dev/null; then nap 0.1; else nap 2; fi
  done
  t1="$(cat "$work/$which-deployed")"
  local c1 hwm1
  c1="$(cpu_ticks "$pid")" hwm1="$(status_kb "$pid" VmHWM)"
  [ "$(deployed_count "$ns")" -eq "$crs" ] || fail "$which: the watch saw all Deployed but a list does not"
  curl -fsS "http://127.0.0.1:$metrics/metrics" >/dev/null || fail "$which: metrics do not answer on 127.0.0.1:$metrics"
  result[$which.converge_s]="$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", (b - a) / 1e6}')"
  result[$which.converge_cpu]="$c1"
  result[$which.converge_hwm]="$hwm1"

  # Work goes on after the last Deployed (status writes, a second reconcile of each CR).
  # The steady window starts once the operator is quiet, or after --settle seconds.
  echo settle >"$work/phase"
  wait_quiet "$pid" "$settle"
  if [ -n "$quiet_at" ]; then
    result[$which.quiet_s]="$(awk -v a="$t1" -v b="$quiet_at" 'BEGIN {v = (b - a) / 1e6; printf "%.1f", v < 0 ? 0 : v}')"
  else
    result[$which.quiet_s]=">$(awk -v a="$t1" -v b="${EPOCHREALTIME/./}" 'BEGIN {printf "%.0f", (b - a) / 1e6}') (busy)"
  fi
  result[$which.settle_cpu]="$(cpu_ticks "$pid")"
  echo 5 >"/proc/$pid/clear_refs" # resets VmHWM to the current RSS
  local c2 c3 api2 api3 s0 s1
  echo steady >"$work/phase"
  s0="$(now)"; c2="$(cpu_ticks "$pid")"; api2="$(api_counts "$work/$which-metrics-0")"
  nap "$steady"
  kill -0 "$pid" 2>/dev/null || { tail -30 "$log" >&2; fail "$which: the operator exited in steady state"; }
  s1="$(now)"; c3="$(cpu_ticks "$pid")"; api3="$(api_counts "$work/$which-metrics-1")"
  result[$which.steady_cpu]="$c2 $c3"
  result[$which.steady_api]="$api2 $api3"
  result[$which.steady_hwm]="$(status_kb "$pid" VmHWM)"
  result[$which.steady_window]="$s0 $s1"

  # Spec changes, each timed to the watch event that shows it in the release's ConfigMap:
  # once the operator is quiet (or after --settle s), one CR after another.
  echo settle >"$work/phase"
  wait_quiet "$pid" "$settle"
  result[$which.change_quiet]="${quiet_at:+yes}"
  echo change >"$work/phase"
  local c4 c5 p0="" latencies=() n cr value seen cm_watch at
  c4="$(cpu_ticks "$pid")"
  for n in $(seq "$(( crs < changes ? crs : changes ))"); do
    cr="bench-$n" value="changed-$n-${EPOCHREALTIME/./}" seen="$work/$which-seen-$n"
    : >"$seen"
    "$kubectl" --kubeconfig "$admin" get configmap "$cr-bench" -n "$ns" -w --no-headers -o custom-columns=MESSAGE:.data.message \
      > >(while IFS= read -r line; do printf '%s %s\n' "${EPOCHREALTIME/./}" "$line"; done >>"$seen") 2>/dev/null &
    cm_watch=$!
    pids+=("$cm_watch")
    for _ in $(seq 100); do [ -s "$seen" ] && break; nap 0.1; done
    [ -s "$seen" ] || fail "$which: no ConfigMap $cr-bench to watch"
    k patch memcached "$cr" -n "$ns" --type merge -p "{\"spec\":{\"message\":\"$value\"}}" >/dev/null
    at="${EPOCHREALTIME/./}"
    p0="${p0:-$at}"
    deadline=$(( at + 120000000 ))
    until grep -q " $value\$" "$seen"; do
      [ "${EPOCHREALTIME/./}" -lt "$deadline" ] || { tail -30 "$log" >&2; fail "$which: ConfigMap $cr-bench did not show the change in 120 s"; }
      nap 0.01
    done
    latencies+=("$(awk -v a="$at" -v v="$value" '$2 == v {printf "%.0f\n", ($1 - a) / 1e3; exit}' "$seen")")
    kill "$cm_watch" 2>/dev/null || true
    nap 1
  done
  # The rest of the last reconcile (status, release record) is part of this phase too.
  nap 2
  c5="$(cpu_ticks "$pid")"
  result[$which.change_ms]="$(printf '%s\n' "${latencies[@]}" | sort -n | awk '{a[NR] = $1} END {printf "%d (%d-%d)", a[int((NR + 1) / 2)], a[1], a[NR]}')"
  result[$which.change_cpu]="$c4 $c5"
  result[$which.windows]="$t0 $t1 $s0 $s1 $p0 ${EPOCHREALTIME/./}"

  echo stop >"$work/phase"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; nap 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  kill "$watcher" 2>/dev/null || true
  say "$which: done"
}

versions_go="$("$go_operator" --version 2>&1 | head -1)"
versions_helm="$("$assets/helm" version --short 2>/dev/null)"
versions_k8s="$(k version -o json 2>/dev/null | sed -n 's/.*"gitVersion": "\([^"]*\)".*/\1/p' | tail -1)"
versions_rust="$(rustc --version)"
commit="$(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- crates/runtime || echo '+changes')"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"

for which in "${operators[@]}"; do run_operator "$which"; done

# --- The table ----------------------------------------------------------------------------
secs() { awk -v t="$1" -v h="$tck" 'BEGIN {printf "%.2f", t / h}'; }
mib() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
delta() { echo $(( $2 - $1 )); }
# Helm starts (from the wrapper's log) and distinct child processes sampled, between times.
execs_between() { awk -v a="$1" -v b="$2" '$1 >= a && $1 < b' "$work/helm-execs" | wc -l; }
children_in() { awk -v p="$2" '$2 == p && $3 != "operator" {print $3}' "$work/$1-samples" 2>/dev/null | sort -u | wc -l; }
# The largest sum of the operator's and its children's RSS in one sample of a phase.
peak_total_kb() {
  awk -v p="$2" '$2 == p {sum[$1] += $4} END {m = 0; for (s in sum) if (sum[s] > m) m = sum[s]; print m}' "$work/$1-samples" 2>/dev/null
}

row() { printf '%-58s' "$1"; shift; for v in "$@"; do printf ' %22s' "$v"; done; printf '\n'; }
rowf() { # label, then a function of (operator, args...) giving each cell
  local label=$1 f=$2 w cells=()
  shift 2
  for w in "${operators[@]}"; do cells+=("$("$f" "$w" "$@")"); done
  row "$label" "${cells[@]}"
}

c_converge_s() { echo "${result[$1.converge_s]}"; }
c_converge_cpu() { set -- ${result[$1.converge_cpu]}; echo "$(secs "$1") + $(secs "$2")"; }
c_converge_rss() { echo "$(mib "${result[$1.converge_hwm]}") / $(mib "$(peak_total_kb "$1" converge)")"; }
c_quiet_s() { echo "${result[$1.quiet_s]}"; }
c_settle_cpu() { set -- ${result[$1.settle_cpu]}; echo "$(secs "$1") + $(secs "$2")"; }
c_steady_cpu() { set -- ${result[$1.steady_cpu]}; echo "$(secs $(( $3 - $1 ))) + $(secs $(( $4 - $2 )))"; }
c_steady_api() { set -- ${result[$1.steady_api]}; echo "$(( $3 - $1 ))"; }
c_steady_all() { set -- ${result[$1.steady_api]}; echo "$(( $4 - $2 ))"; }
c_steady_rss() { mib "${result[$1.steady_hwm]}"; }
c_change_ms() { # marked when the operator never went quiet before the changes
  local v="${result[$1.change_ms]}"
  [ -n "${result[$1.change_quiet]}" ] || v+=" busy"
  echo "$v"
}
c_change_cpu() { set -- ${result[$1.change_cpu]}; echo "$(secs $(( $3 - $1 ))) + $(secs $(( $4 - $2 )))"; }
c_procs() {
  local w=$1 phase=$2 a b
  set -- ${result[$w.windows]}
  case "$phase" in converge) a=$1 b=$2 ;; steady) a=$3 b=$4 ;; change) a=$5 b=$6 ;; esac
  echo "$(execs_between "$a" "$b") / $(children_in "$w" "$phase")"
}

names=()
for w in "${operators[@]}"; do
  case "$w" in go) names+=("Go helm-operator") ;; rust) names+=("rusty-sdk operator") ;; esac
done
echo
echo "helm-operator benchmark: $crs CRs, ${steady} s steady state"
echo "command:  $command_line"
echo "machine:  $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); load $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
echo "versions: $versions_go; rusty-sdk $commit ($versions_rust); helm $versions_helm (behind the wrapper); kube-apiserver $versions_k8s"
echo "chart:    one ConfigMap + one ServiceAccount per release; both operators at their defaults"
echo "          (reconcile period 1m, concurrent reconciles: Go one per core, ours four per core, no wait),"
echo "          as one cluster-admin ServiceAccount"
echo
row "" "${names[@]}"
rowf "1. converge: wall time, start to all Deployed (s)" c_converge_s
rowf "   CPU s: operator + its reaped children" c_converge_cpu
rowf "   peak RSS MiB: operator (VmHWM) / + children (sampled)" c_converge_rss
rowf "   busy after the last Deployed for (s)" c_quiet_s
rowf "   CPU s from start until then: operator + children" c_settle_cpu
rowf "2. steady ${steady} s: CPU s: operator + children" c_steady_cpu
rowf "   API requests by the operator (APF service-accounts)" c_steady_api
rowf "   API requests, all clients (apiserver_request_total)" c_steady_all
rowf "   peak RSS MiB (VmHWM reset before the window)" c_steady_rss
rowf "3. spec change to ConfigMap updated, ms: median (min-max)" c_change_ms
rowf "   CPU s of those $changes changes: operator + children" c_change_cpu
rowf "4. processes started (helm execs / children seen): converge" c_procs converge
rowf "   steady" c_procs steady
rowf "   spec change" c_procs change
