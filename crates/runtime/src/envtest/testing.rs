//! What a controller's integration test needs beside the control plane: the project's CRDs
//! from their folder, the controller run in the test process as the manager runs it, and
//! a bounded wait for what it does (as kubebuilder's suites use envtest, the controller
//! manager and Gomega's `Eventually`).
use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Client;
use kube::runtime::events::Reporter;
use prometheus_client::registry::Registry;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::context::{ControllerContext, Shutdown, WatchScope};
use crate::metrics::ReconcileMetrics;

/// How often [`eventually`] checks again.
const POLL_INTERVAL: Duration = Duration::from_millis(200);

/// How long [`RunningController::stop`] waits for the controller to return.
const STOP_TIMEOUT: Duration = Duration::from_secs(30);

/// Every `CustomResourceDefinition` in the `.yaml` and `.yml` files of `dir` (not its
/// subfolders), in file-name order, as envtest's `CRDDirectoryPaths` reads them: a
/// project's `config/crd/bases`. A file may hold several documents; empty ones are skipped,
/// and anything that is not a CRD is an error naming its file.
///
/// # Errors
///
/// When `dir` cannot be read, or a file is not YAML or holds anything but a CRD; the
/// error names the file.
pub fn crds_in(dir: &Path) -> anyhow::Result<Vec<CustomResourceDefinition>> {
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read CRD folder {}", dir.display()))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let yaml = path
            .extension()
            .is_some_and(|extension| extension == "yaml" || extension == "yml");
        if yaml && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    let mut crds = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let documents: Vec<serde_json::Value> = serde_saphyr::from_multiple(&text)
            .map_err(|e| anyhow::anyhow!("{}: not valid YAML: {e}", file.display()))?;
        for document in documents.into_iter().filter(serde_json::Value::is_object) {
            let kind = document.get("kind").and_then(serde_json::Value::as_str);
            anyhow::ensure!(
                kind == Some("CustomResourceDefinition"),
                "{}: holds a {} where only CustomResourceDefinitions belong",
                file.display(),
                kind.unwrap_or("document without a kind")
            );
            let crd = serde_json::from_value(document)
                .with_context(|| format!("{}: not a valid CRD", file.display()))?;
            crds.push(crd);
        }
    }
    Ok(crds)
}

/// A controller running in the test process, as the manager runs it: its `run` function
/// gets a [`ControllerContext`] scoped to one namespace, and returns once told to stop.
/// Dropping it stops it too (without waiting).
pub struct RunningController {
    stop: watch::Sender<bool>,
    task: Option<JoinHandle<anyhow::Result<()>>>,
}

impl RunningController {
    /// Start `run` (a controller's `run` function) on the calling tokio runtime, watching
    /// only `namespace` through `client`; `name` is the controller named in its events.
    pub fn start<F, Fut>(name: &str, client: Client, namespace: &str, run: F) -> Self
    where
        F: FnOnce(ControllerContext) -> Fut,
        Fut: Future<Output = anyhow::Result<()>> + Send + 'static,
    {
        let (stop, shutdown): (watch::Sender<bool>, Shutdown) = Shutdown::channel();
        let context = ControllerContext {
            client,
            scope: WatchScope::Namespace(namespace.to_string()),
            metrics: Arc::new(ReconcileMetrics::new(&mut Registry::default())),
            reporter: Reporter {
                controller: name.to_string(),
                instance: None,
            },
            shutdown,
        };
        let task = tokio::spawn(run(context));
        RunningController {
            stop,
            task: Some(task),
        }
    }

    /// Whether the controller has returned (it should not before [`RunningController::stop`]).
    pub fn is_finished(&self) -> bool {
        self.task.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Signal shutdown, as the manager does on SIGTERM, and wait for the controller to
    /// return: its result, or an error when it did not return within 30 seconds.
    ///
    /// # Errors
    ///
    /// The controller's own error, or one saying it did not return within 30 seconds.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        let _ = self.stop.send(true);
        let Some(task) = self.task.take() else {
            return Ok(());
        };
        let abort = task.abort_handle();
        match tokio::time::timeout(STOP_TIMEOUT, task).await {
            Ok(Ok(result)) => result,
            Ok(Err(joined)) => Err(anyhow::anyhow!("the controller panicked: {joined}")),
            Err(_) => {
                abort.abort();
                anyhow::bail!(
                    "the controller did not return within {}s of shutdown",
                    STOP_TIMEOUT.as_secs()
                )
            }
        }
    }
}

impl Drop for RunningController {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// Call `check` every 200 ms until it returns `Some`, and return that; an error saying
/// `what` was not so once `timeout` has passed. `check` reads the cluster, so this waits
/// for what a controller does without sleeping for a guessed time.
///
/// # Errors
///
/// When `timeout` passes before `check` returns `Some`; the error names `what`.
pub async fn eventually<T, F, Fut>(what: &str, timeout: Duration, mut check: F) -> anyhow::Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = check().await {
            return Ok(value);
        }
        anyhow::ensure!(
            Instant::now() < deadline,
            "{what}: not so after {}s",
            timeout.as_secs()
        );
        tokio::time::sleep(POLL_INTERVAL).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: { kind: Widget, plural: widgets }
  scope: Namespaced
  versions: [{ name: v1, served: true, storage: true }]
";

    #[test]
    fn crds_come_from_every_yaml_file_of_the_folder_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        let other = CRD
            .replace("widgets", "gadgets")
            .replace("Widget", "Gadget");
        std::fs::write(dir.path().join("b.yaml"), format!("---\n{CRD}---\n")).unwrap();
        std::fs::write(dir.path().join("a.yml"), &other).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not YAML: [").unwrap();
        std::fs::create_dir(dir.path().join("nested.yaml")).unwrap();
        let names: Vec<String> = crds_in(dir.path())
            .unwrap()
            .into_iter()
            .map(|crd| crd.metadata.name.unwrap())
            .collect();
        assert_eq!(names, ["gadgets.example.com", "widgets.example.com"]);
    }

    #[test]
    fn anything_but_a_crd_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("kustomization.yaml"), "resources: []\n").unwrap();
        let error = crds_in(dir.path()).unwrap_err().to_string();
        assert!(error.ends_with("kustomization.yaml: holds a document without a kind where only CustomResourceDefinitions belong"), "{error}");
        let error = crds_in(&dir.path().join("missing"))
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("cannot read CRD folder"), "{error}");
    }

    #[tokio::test(start_paused = true)]
    async fn eventually_returns_the_value_or_says_what_was_not_so() {
        let mut calls = 0;
        let value = eventually("third call", Duration::from_secs(5), || {
            calls += 1;
            let done = (calls == 3).then_some(calls);
            async move { done }
        })
        .await
        .unwrap();
        assert_eq!(value, 3);
        let error = eventually("never", Duration::from_secs(1), || async { None::<()> })
            .await
            .unwrap_err();
        assert_eq!(error.to_string(), "never: not so after 1s");
    }

    #[tokio::test]
    async fn a_running_controller_gets_its_namespace_and_stops_on_shutdown() {
        let (service, _handle) = tower_test::mock::pair::<
            http::Request<kube::client::Body>,
            http::Response<kube::client::Body>,
        >();
        let client = Client::new(service, "default");
        let (seen_tx, seen_rx) = tokio::sync::oneshot::channel();
        let controller = RunningController::start("widgets", client, "ns1", |ctx| async move {
            let _ = seen_tx.send((ctx.scope.clone(), ctx.reporter.controller.clone()));
            ctx.shutdown.wait().await;
            Ok(())
        });
        let (scope, name) = seen_rx.await.unwrap();
        assert_eq!(scope, WatchScope::Namespace("ns1".into()));
        assert_eq!(name, "widgets");
        assert!(!controller.is_finished());
        controller.stop().await.unwrap();

        let (service, _handle) = tower_test::mock::pair::<
            http::Request<kube::client::Body>,
            http::Response<kube::client::Body>,
        >();
        let client = Client::new(service, "default");
        let failing = RunningController::start("widgets", client, "ns1", |_| async {
            anyhow::bail!("cannot list widgets")
        });
        let error = failing.stop().await.unwrap_err();
        assert_eq!(error.to_string(), "cannot list widgets");
    }
}
