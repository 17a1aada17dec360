#!/usr/bin/env bash
# Builds the Go helm-operator that scripts/bench-helm-operator.sh measures our Helm
# reconciler against, from published Go modules, and prints the binary's path:
#
#   helm-operator  github.com/operator-framework/helm-operator-plugins  (hack/helm-operator)
#
# Its root package is the operator-sdk `helm-operator` binary (`helm-operator run
# --watches-file ...`). The version is the one hack/helm-operator/go.mod requires; go.sum
# pins every module. The binary is cached per version under
# ${XDG_CACHE_HOME:-~/.cache}/rusty-sdk/helm-operator and reused; a second run prints the
# path at once. Two runs at once take turns on a lock.
#
#   hack/helm-operator.sh          build if needed, print the binary's path
#   hack/helm-operator.sh --check  print the path if it is built, else fail (no build)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)/helm-operator"
module=github.com/operator-framework/helm-operator-plugins

fail() { echo "helm-operator: $*" >&2; exit 1; }

version="$(awk -v m="$module" '$1 == m && $2 ~ /^v/ {print $2; exit} $1 == "require" && $2 == m {print $3; exit}' "$here/go.mod")"
[ -n "$version" ] || fail "cannot read the version of $module from $here/go.mod"

# The folder's name changes with go.mod or go.sum, so a pin moved by hand rebuilds.
sum="$(cat "$here/go.mod" "$here/go.sum" | cksum | cut -d' ' -f1)"
root="${RUSTY_SDK_HELM_OPERATOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rusty-sdk/helm-operator}"
dir="$root/helm-operator-plugins-$version-$sum"
binary="$dir/helm-operator"

built() { [ -f "$dir/.complete" ] && [ -x "$binary" ]; }
if built; then echo "$binary"; exit 0; fi
[ "${1:-}" = "--check" ] && fail "not built yet for $module $version; run hack/helm-operator.sh"

command -v go >/dev/null 2>&1 ||
  fail "go not found on PATH; install Go 1.25 or newer (https://go.dev/dl) to build the helm-operator"

mkdir -p "$root"
exec 9>"$root/.lock"
flock 9
if built; then echo "$binary"; exit 0; fi

staging="$(mktemp -d "$root/.building.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
echo "helm-operator: building $module $version into $dir (first time only; about 5 minutes on 2 cores)" >&2

# A static, stripped binary with the version stamps its release build sets (it logs them
# at start). Caches of this build only, removed with it, as hack/control-plane.sh does.
export CGO_ENABLED=0
export GOCACHE="$staging/.go/cache" GOMODCACHE="$staging/.go/mod" GOFLAGS="-modcacherw"
stamp="-X $module/internal/version.GitVersion=$version -X $module/internal/version.GitCommit=$version"
(cd "$here" && go build -mod=readonly -trimpath -ldflags="-s -w $stamp" -o "$staging/helm-operator" "$module") ||
  fail "go build in hack/helm-operator failed (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY))"

[ -x "$staging/helm-operator" ] || fail "helm-operator missing after the build"
rm -rf "$staging/.go"
touch "$staging/.complete"
rm -rf "$dir"
mv "$staging" "$dir"
trap - EXIT
echo "$binary"
