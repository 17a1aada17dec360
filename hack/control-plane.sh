#!/usr/bin/env bash
# Builds the real control plane the test suite runs against, from published Go modules, and
# prints the folder that holds it (as envtest's KUBEBUILDER_ASSETS does):
#
#   kube-apiserver, kube-controller-manager, kubectl  k8s.io/kubernetes  (hack/control-plane/kube)
#   etcd                                               go.etcd.io/etcd   (hack/control-plane/etcd)
#   helm                                               helm.sh/helm/v4   (hack/control-plane/helm)
#
# The versions are the ones those go.mod files require; go.sum pins every module. Binaries are
# cached per version under ${XDG_CACHE_HOME:-~/.cache}/rusty-sdk/control-plane and reused; a
# second run prints the folder at once. Two runs at once take turns on a lock.
#
#   hack/control-plane.sh          build if needed, print the folder
#   hack/control-plane.sh --check  print the folder if it is built, else fail (no build)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)/control-plane"

fail() { echo "control-plane: $*" >&2; exit 1; }

# The version a wrapper module requires of a module, read from its go.mod (one home).
required() { awk -v m="$2" '$1 == m && $2 ~ /^v/ {print $2; exit} $1 == "require" && $2 == m {print $3; exit}' "$here/$1/go.mod"; }
k8s="$(required kube k8s.io/kubernetes)"
etcd="$(required etcd go.etcd.io/etcd/server/v3)"
helm="$(required helm helm.sh/helm/v4)"
[ -n "$k8s" ] && [ -n "$etcd" ] && [ -n "$helm" ] || fail "cannot read the versions from $here/*/go.mod"

# The folder's name changes with any go.mod or go.sum, so a pin moved by hand rebuilds.
sum="$(cat "$here"/*/go.mod "$here"/*/go.sum | cksum | cut -d' ' -f1)"
root="${RUSTY_SDK_CONTROL_PLANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rusty-sdk/control-plane}"
dir="$root/k8s-$k8s-etcd-$etcd-helm-$helm-$sum"
binaries=(kube-apiserver kube-controller-manager kubectl etcd helm)

built() { [ -f "$dir/.complete" ]; }
if built; then echo "$dir"; exit 0; fi
[ "${1:-}" = "--check" ] && fail "not built yet for k8s $k8s, etcd $etcd, helm $helm; run hack/control-plane.sh"

command -v go >/dev/null 2>&1 ||
  fail "go not found on PATH; install Go 1.24 or newer (https://go.dev/dl) to build kube-apiserver, etcd and helm"

mkdir -p "$root"
exec 9>"$root/.lock"
flock 9
if built; then echo "$dir"; exit 0; fi

staging="$(mktemp -d "$root/.building.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
echo "control-plane: building k8s $k8s, etcd $etcd, helm $helm into $dir (first time only; about 15 minutes on 2 cores)" >&2

# Static, stripped binaries; the version stamps are what `--version` and Helm's kubeVersion
# checks read (without them the API server reports v0.0.0-master).
export CGO_ENABLED=0
# Caches of this build only, removed with it: they hold about 5.5 GB that a second build
# (a version bump) would not reuse enough to pay for the disk.
export GOCACHE="$staging/.go/cache" GOMODCACHE="$staging/.go/mod" GOFLAGS="-modcacherw"
minor="${k8s#v1.}"; minor="${minor%%.*}"
kube_version=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  kube_version+=" -X $pkg.gitVersion=$k8s -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
done
build() { # module ldflags packages...
  local module="$1" ldflags="$2"; shift 2
  (cd "$here/$module" && go build -mod=readonly -trimpath -ldflags="-s -w $ldflags" -o "$staging/" "$@") ||
    fail "go build in hack/control-plane/$module failed (is the Go module proxy reachable? GOPROXY=$(go env GOPROXY))"
}
build kube "$kube_version" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kubectl
build etcd "-X go.etcd.io/etcd/api/v3/version.GitSHA=release" go.etcd.io/etcd/server/v3
# Go names the binary of go.etcd.io/etcd/server/v3 after its folder, `server`.
mv "$staging/server" "$staging/etcd"
build helm "-X helm.sh/helm/v4/internal/version.version=$helm -X helm.sh/helm/v4/internal/version.gitTreeState=clean" helm.sh/helm/v4/cmd/helm

for b in "${binaries[@]}"; do [ -x "$staging/$b" ] || fail "$b missing after the build"; done
rm -rf "$staging/.go"
touch "$staging/.complete"
rm -rf "$dir"
mv "$staging" "$dir"
trap - EXIT
echo "$dir"
