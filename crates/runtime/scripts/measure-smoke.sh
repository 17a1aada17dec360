#!/usr/bin/env bash
# Build the manager_smoke example in release mode and print its size and idle memory
# (VmRSS a few seconds after start, against an unreachable API server).
# Usage: crates/runtime/scripts/measure-smoke.sh   (honours CARGO_TARGET_DIR)
set -euo pipefail

crate_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
idle_seconds="${IDLE_SECONDS:-5}"
health_port="${HEALTH_PORT:-18981}"

binary="$(cd "$crate_dir" && cargo build --release -p rusty-sdk-runtime --example manager_smoke \
    --message-format=json 2>/dev/null \
    | sed -n 's/.*"executable":"\([^"]*manager_smoke\)".*/\1/p' | tail -n1)"
[ -x "$binary" ] || { echo "could not build the manager_smoke example" >&2; exit 1; }

work="$(mktemp -d)"
trap 'kill -TERM "${pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
cat > "$work/kubeconfig" <<'KUBECONFIG'
apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
users:
- name: nobody
  user: {token: not-a-real-token}
contexts:
- name: nowhere
  context: {cluster: nowhere, user: nobody}
current-context: nowhere
KUBECONFIG

KUBECONFIG="$work/kubeconfig" RUST_LOG=warn "$binary" \
    --health-probe-bind-address="127.0.0.1:$health_port" --metrics-bind-address=0 \
    2>"$work/stderr.log" &
pid=$!

for _ in $(seq 100); do
    curl -fsS "http://127.0.0.1:$health_port/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done
sleep "$idle_seconds"

size=$(stat -c %s "$binary")
rss_kib=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
hwm_kib=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status")
printf 'binary: %s\nsize: %d bytes (%.1f MiB)\n' "$(basename "$binary")" "$size" "$(echo "$size/1048576" | bc -l)"
printf 'idle RSS after %ss: %d KiB (%.1f MiB), peak %d KiB\n' "$idle_seconds" "$rss_kib" "$(echo "$rss_kib/1024" | bc -l)" "$hwm_kib"

kill -TERM "$pid"
start=$(date +%s.%N)
wait "$pid" && status=0 || status=$?
printf 'exit status after SIGTERM: %d (%.1f s)\n' "$status" "$(echo "$(date +%s.%N) - $start" | bc -l)"
pid=""
