#!/bin/bash
# Runs once when the devcontainer is created: the Rust toolchain rust-toolchain.toml pins
# (with rustfmt and clippy), kind for `make test-e2e`, and rusty-sdk for `make manifests`.
# kubectl, helm and docker come from the devcontainer's features.
set -euo pipefail

rustup toolchain install

case "$(uname -m)" in
  aarch64 | arm64) arch=arm64 ;;
  *) arch=amd64 ;;
esac

if ! command -v kind >/dev/null 2>&1; then
  curl -fsSLo /usr/local/bin/kind "https://kind.sigs.k8s.io/dl/latest/kind-linux-${arch}"
  chmod +x /usr/local/bin/kind
fi

if ! command -v rusty-sdk >/dev/null 2>&1; then
  cargo install rusty-sdk --locked
fi

# kind puts its nodes on the docker network "kind"; make it now that docker is up.
for _ in $(seq 30); do
  docker info >/dev/null 2>&1 && break
  sleep 1
done
docker network inspect kind >/dev/null 2>&1 || docker network create kind >/dev/null

rustc --version
kind version
kubectl version --client
rusty-sdk version
