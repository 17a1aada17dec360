//! Starts the real control plane the cluster tests use (etcd, kube-apiserver and, when the
//! assets folder has it, kube-controller-manager), prints where to reach it, and keeps it up
//! until SIGTERM or SIGINT; then stops it and removes its data.
//! For scripts that need a cluster, such as scripts/bench-helm-operator.sh.
//!
//! ```sh
//! KUBEBUILDER_ASSETS=$(hack/control-plane.sh) cargo run -p rusty-sdk-runtime \
//!   --features k8s-openapi/v1_33,envtest --example envtest_serve
//! ```
//!
//! Prints, once the API server is ready, `kubeconfig=<admin kubeconfig>`,
//! `server=<URL>` and `assets=<folder>`, one a line, then `ready`.
use std::io::Write as _;

use rusty_sdk_runtime::envtest::ControlPlane;
use tokio::signal::unix::{SignalKind, signal};

fn main() -> anyhow::Result<()> {
    let assets = ControlPlane::assets()?;
    let plane = ControlPlane::start(&assets)?;
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "kubeconfig={}", plane.admin_kubeconfig().display())?;
        writeln!(out, "server={}", plane.server())?;
        writeln!(out, "assets={}", assets.display())?;
        writeln!(out, "ready")?;
        out.flush()?;
    }
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(async {
            let mut term = signal(SignalKind::terminate())?;
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            anyhow::Ok(())
        })?;
    // Dropping the control plane stops its processes and removes its folder.
    drop(plane);
    Ok(())
}
