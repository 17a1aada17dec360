//! Suites on a real control plane: etcd, kube-apiserver and kube-controller-manager built by
//! `hack/control-plane.sh` and started once for this test binary by the runtime's
//! `envtest` module. Every test works in namespaces of its own and reads its results back
//! from the API server; nothing here is mocked.
use std::future::Future;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use rusty_sdk_runtime::envtest::ControlPlane;

mod control_plane;
mod dashboards;
mod generated_tests;
mod hardening;
mod helm_classes;
mod helm_cluster;
mod helm_differential;
mod helm_flags;
mod helm_sort;
mod helm_storage;
mod helm_wait;
mod hybrid;
mod leader;
mod olm_bundle;
mod operator;
mod rbac_corpus;
mod rust_controllers;
mod webhooks;

/// Held by each suite that installs the corpus's charts: some make cluster-scoped objects
/// with fixed names (`IngressClass` nginx, `APIServices`, CRDs) two such suites would fight over.
pub static CORPUS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The folder of control-plane binaries the test build found.
pub fn assets() -> PathBuf {
    PathBuf::from(rusty_sdk_test_tools::path!(control_plane))
}

/// The control plane this test binary shares, started on first use.
pub fn cluster() -> &'static ControlPlane {
    static CLUSTER: OnceLock<Result<ControlPlane, String>> = OnceLock::new();
    CLUSTER
        .get_or_init(|| ControlPlane::start(&assets()).map_err(|e| format!("{e:#}")))
        .as_ref()
        .unwrap_or_else(|e| panic!("the control plane did not start: {e}"))
}

/// Poll `check` until it returns `Some` (the runtime's `envtest::eventually`), failing the
/// test with `what` after `timeout`.
pub async fn eventually<T, F, Fut>(what: &str, timeout: Duration, check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    rusty_sdk_runtime::envtest::eventually(what, timeout, check)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Wait until `api` no longer has `name` (deleted, finalizers done), failing the test with
/// `what` after `timeout`.
pub async fn await_gone<K>(api: &kube::Api<K>, name: &str, what: &str, timeout: Duration)
where
    K: Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    eventually(what, timeout, || {
        let api = api.clone();
        async move { api.get_opt(name).await.unwrap().is_none().then_some(()) }
    })
    .await;
}

/// The condition `type_` of a custom resource's status, if set.
pub fn condition<'a>(
    cr: &'a kube::api::DynamicObject,
    type_: &str,
) -> Option<&'a serde_json::Value> {
    cr.data["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == type_)
}

/// A chart named `name` with one template `templates/<file>`, written under `dir`.
pub fn one_template_chart(
    dir: &std::path::Path,
    name: &str,
    file: &str,
    template: &str,
) -> PathBuf {
    let root = dir.join(name);
    std::fs::create_dir_all(root.join("templates")).unwrap();
    std::fs::write(
        root.join("Chart.yaml"),
        format!("apiVersion: v2\nname: {name}\nversion: 0.1.0\n"),
    )
    .unwrap();
    std::fs::write(root.join("templates").join(file), template).unwrap();
    root
}
