//! What every controller gets from the manager: a client, the namespace scope, metrics,
//! an event reporter and the shutdown signal.
use std::future::Future;
use std::hash::Hash;
use std::sync::Arc;

use futures::FutureExt;
use kube::api::Api;
use kube::runtime::events::{Recorder, Reporter};
use kube::runtime::reflector::{Lookup, Store};
use kube::{Client, Resource};
use tokio::sync::watch;

use crate::metrics::ReconcileMetrics;

/// Where controllers watch: the whole cluster, one namespace, or several
/// (`WATCH_NAMESPACE=a,b` / `--namespace a,b`, as operator-sdk reads it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WatchScope {
    AllNamespaces,
    Namespace(String),
    /// Two or more namespaces: each gets its own controller (see
    /// [`ControllerContext::per_namespace`]).
    Namespaces(Vec<String>),
}

impl WatchScope {
    /// Build the scope from an optional, comma-separated list of namespaces; empty means
    /// all namespaces, as `WATCH_NAMESPACE=""` does for operator-sdk. Blank entries and
    /// repeats are dropped.
    pub fn from_namespace(namespace: Option<&str>) -> Self {
        let mut namespaces: Vec<String> = Vec::new();
        for ns in namespace.unwrap_or_default().split(',').map(str::trim) {
            if !ns.is_empty() && !namespaces.iter().any(|known| known == ns) {
                namespaces.push(ns.to_string());
            }
        }
        match namespaces.len() {
            0 => WatchScope::AllNamespaces,
            1 => WatchScope::Namespace(namespaces.remove(0)),
            _ => WatchScope::Namespaces(namespaces),
        }
    }

    /// The namespace, if scoped to exactly one.
    pub fn namespace(&self) -> Option<&str> {
        match self {
            WatchScope::Namespace(ns) => Some(ns),
            WatchScope::AllNamespaces | WatchScope::Namespaces(_) => None,
        }
    }

    /// Each single-namespace scope this scope is made of (itself unless it has several).
    pub fn split(&self) -> Vec<WatchScope> {
        match self {
            WatchScope::Namespaces(list) => {
                list.iter().cloned().map(WatchScope::Namespace).collect()
            }
            other => vec![other.clone()],
        }
    }

    /// An `Api` for a namespaced kind, limited to the scope. A scope of several
    /// namespaces cannot be one `Api`: it gives the cluster-wide one, and controllers
    /// split it first with [`ControllerContext::per_namespace`].
    pub fn namespaced_api<K>(&self, client: Client) -> Api<K>
    where
        K: Resource<Scope = k8s_openapi::NamespaceResourceScope>,
        K::DynamicType: Default,
    {
        match self {
            WatchScope::Namespace(ns) => Api::namespaced(client, ns),
            WatchScope::AllNamespaces | WatchScope::Namespaces(_) => Api::all(client),
        }
    }

    /// An `Api` for an untyped kind, limited to the scope when the kind is namespaced.
    pub fn dynamic_api(
        &self,
        client: Client,
        resource: &kube::discovery::ApiResource,
        namespaced: bool,
    ) -> Api<kube::api::DynamicObject> {
        match (self, namespaced) {
            (WatchScope::Namespace(ns), true) => Api::namespaced_with(client, ns, resource),
            _ => Api::all_with(client, resource),
        }
    }
}

/// A signal that resolves once the manager starts shutting down.
#[derive(Clone, Debug)]
pub struct Shutdown(watch::Receiver<bool>);

impl Shutdown {
    /// A signal and the sender that fires it.
    pub fn channel() -> (watch::Sender<bool>, Shutdown) {
        let (tx, rx) = watch::channel(false);
        (tx, Shutdown(rx))
    }

    /// Resolves when shutdown has begun (or the manager is gone).
    pub async fn wait(mut self) {
        let _ = self.0.wait_for(|down| *down).await;
    }

    /// True once shutdown has begun.
    pub fn is_shutting_down(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves once shutdown has begun while `store` has never been filled; never resolves
    /// if the store was ready by then.
    async fn before_ready<K>(self, store: Store<K>)
    where
        K: Lookup + Clone + 'static,
        K::DynamicType: Eq + Hash + Clone,
    {
        self.wait().await;
        if store.wait_until_ready().now_or_never().is_some() {
            std::future::pending::<()>().await;
        }
    }
}

/// Handed to each controller when the manager starts it.
#[derive(Clone)]
pub struct ControllerContext {
    /// Client for the API server.
    pub client: Client,
    /// The namespaces the manager watches.
    pub scope: WatchScope,
    /// Reconcile metrics shared by every controller of the manager.
    pub metrics: Arc<ReconcileMetrics>,
    /// Identity used when publishing events.
    pub reporter: Reporter,
    /// Fires when the manager shuts down; pass `shutdown.clone().wait()` to
    /// `Controller::graceful_shutdown_on`.
    pub shutdown: Shutdown,
}

impl ControllerContext {
    /// A recorder publishing events as this manager ([`ControllerContext::reporter`]), for
    /// [`crate::events::publish`].
    pub fn recorder(&self) -> Recorder {
        Recorder::new(self.client.clone(), self.reporter.clone())
    }

    /// Run `controller` once per watched namespace, each with a context scoped to that
    /// namespace (once, unchanged, when the scope is all namespaces or one). A watch
    /// cannot span chosen namespaces, and one store fed by several watches would lose
    /// objects whenever one of them relists; separate controllers keep each correct.
    /// Returns the first error; the others keep running until shutdown.
    ///
    /// # Errors
    ///
    /// The first error a controller returns; the others run on until shutdown.
    pub async fn per_namespace<F, Fut>(&self, controller: F) -> anyhow::Result<()>
    where
        F: Fn(ControllerContext) -> Fut,
        Fut: Future<Output = anyhow::Result<()>>,
    {
        let runs = self.scope.split().into_iter().map(|scope| {
            controller(ControllerContext {
                scope,
                ..self.clone()
            })
        });
        futures::future::try_join_all(runs).await.map(|_| ())
    }

    /// Drive a controller's `run(..).for_each(..)` future to its end; `store` is the
    /// controller's own (`Controller::store()`).
    ///
    /// kube-runtime 5 holds a controller's runner until its first list succeeds, and a
    /// graceful shutdown waits for that runner: a controller that could never list (API
    /// server unreachable, RBAC missing) would keep the manager for its whole grace period.
    /// Such a controller has never reconciled, so it stops at once; any other finishes its
    /// reconciles as `graceful_shutdown_on` promises.
    pub async fn drive<K>(&self, store: Store<K>, run: impl Future<Output = ()>)
    where
        K: Lookup + Clone + 'static,
        K::DynamicType: Eq + Hash + Clone,
    {
        tokio::select! {
            () = run => {}
            () = self.shutdown.clone().before_ready(store) => {
                tracing::info!("stopping a controller that never listed its objects");
            }
        }
    }
}

#[cfg(test)]
impl ControllerContext {
    /// A context whose client talks to a tower-test mock API server.
    pub(crate) fn for_tests(
        service: tower_test::mock::Mock<
            http::Request<kube::client::Body>,
            http::Response<kube::client::Body>,
        >,
        scope: WatchScope,
        shutdown: Shutdown,
    ) -> Self {
        ControllerContext {
            client: Client::new(service, "default"),
            scope,
            metrics: Arc::new(ReconcileMetrics::new(
                &mut prometheus_client::registry::Registry::default(),
            )),
            reporter: Reporter {
                controller: "memcached-operator".into(),
                instance: None,
            },
            shutdown,
        }
    }
}

#[cfg(test)]
mod tests {
    use http::{Request, Response};
    use k8s_openapi::api::apps::v1::Deployment;
    use kube::client::Body;

    use super::*;

    #[test]
    fn comma_separated_namespaces_are_several_scopes() {
        let scope = WatchScope::from_namespace(Some(" a, b ,,a,c"));
        assert_eq!(
            scope,
            WatchScope::Namespaces(vec!["a".into(), "b".into(), "c".into()])
        );
        assert_eq!(scope.namespace(), None);
        assert_eq!(
            scope.split(),
            ["a", "b", "c"].map(|ns| WatchScope::Namespace(ns.into()))
        );
        assert_eq!(
            WatchScope::from_namespace(Some("a,")),
            WatchScope::Namespace("a".into())
        );
        assert_eq!(
            WatchScope::from_namespace(Some(",")),
            WatchScope::AllNamespaces
        );
    }

    #[tokio::test]
    async fn per_namespace_runs_one_controller_per_namespace() {
        let (service, _handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
        let (_tx, shutdown) = Shutdown::channel();
        let scope = WatchScope::from_namespace(Some("a,b"));
        let ctx = ControllerContext::for_tests(service, scope, shutdown);
        let seen = std::sync::Mutex::new(Vec::new());
        ctx.per_namespace(|scoped| {
            seen.lock().unwrap().push(scoped.scope.clone());
            async { Ok(()) }
        })
        .await
        .unwrap();
        assert_eq!(
            *seen.lock().unwrap(),
            [
                WatchScope::Namespace("a".into()),
                WatchScope::Namespace("b".into())
            ]
        );
        let err = ctx
            .per_namespace(|scoped| async move {
                match scoped.scope.namespace() {
                    Some("b") => anyhow::bail!("b failed"),
                    _ => Ok(()),
                }
            })
            .await
            .unwrap_err();
        assert_eq!(err.to_string(), "b failed");
    }

    #[test]
    fn empty_namespace_means_all_namespaces() {
        assert_eq!(WatchScope::from_namespace(None), WatchScope::AllNamespaces);
        assert_eq!(
            WatchScope::from_namespace(Some(" ")),
            WatchScope::AllNamespaces
        );
        assert_eq!(
            WatchScope::from_namespace(Some("ns1")),
            WatchScope::Namespace("ns1".into())
        );
        assert_eq!(WatchScope::Namespace("ns1".into()).namespace(), Some("ns1"));
        assert_eq!(WatchScope::AllNamespaces.namespace(), None);
    }

    /// The path `scope.namespaced_api::<Deployment>()` lists.
    async fn list_path(scope: WatchScope) -> String {
        let (service, mut handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
        let client = Client::new(service, "kubeconfig-default");
        let server = tokio::spawn(async move {
            let (request, send) = handle.next_request().await.expect("a list request");
            let list = serde_json::json!({
                "apiVersion": "apps/v1", "kind": "DeploymentList",
                "metadata": {"resourceVersion": "1"}, "items": []
            });
            send.send_response(Response::new(Body::from(
                serde_json::to_vec(&list).unwrap(),
            )));
            request.uri().path().to_string()
        });
        let api: Api<Deployment> = scope.namespaced_api(client);
        api.list(&kube::api::ListParams::default()).await.unwrap();
        server.await.unwrap()
    }

    #[tokio::test]
    async fn namespaced_api_lists_only_the_watched_namespace() {
        assert_eq!(
            list_path(WatchScope::Namespace("ns1".into())).await,
            "/apis/apps/v1/namespaces/ns1/deployments"
        );
    }

    #[tokio::test]
    async fn unscoped_api_lists_every_namespace() {
        assert_eq!(
            list_path(WatchScope::AllNamespaces).await,
            "/apis/apps/v1/deployments"
        );
    }

    fn context(shutdown: Shutdown) -> ControllerContext {
        let (service, _handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
        ControllerContext::for_tests(service, WatchScope::AllNamespaces, shutdown)
    }

    #[tokio::test(start_paused = true)]
    async fn drive_stops_a_controller_that_never_listed_at_once() {
        let (fire, shutdown) = Shutdown::channel();
        let ctx = context(shutdown);
        let (store, _writer) = kube::runtime::reflector::store::<Deployment>();
        let driven = tokio::spawn(async move { ctx.drive(store, std::future::pending()).await });
        tokio::task::yield_now().await;
        assert!(!driven.is_finished(), "returned before shutdown");
        fire.send(true).unwrap();
        tokio::time::timeout(std::time::Duration::from_millis(1), driven)
            .await
            .expect("a controller that never listed must stop when shutdown begins")
            .unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn drive_lets_a_listed_controller_finish_its_reconciles() {
        let (fire, shutdown) = Shutdown::channel();
        let ctx = context(shutdown);
        let (store, mut writer) = kube::runtime::reflector::store::<Deployment>();
        writer.apply_watcher_event(&kube::runtime::watcher::Event::InitDone);
        let (finish, finished) = tokio::sync::oneshot::channel::<()>();
        let run = async move {
            let _ = finished.await;
        };
        let driven = tokio::spawn(async move { ctx.drive(store, run).await });
        fire.send(true).unwrap();
        // Shutdown has begun, but the run future (its in-flight reconciles) decides when to end.
        tokio::time::sleep(std::time::Duration::from_secs(60)).await;
        assert!(!driven.is_finished(), "drive cut a listed controller short");
        finish.send(()).unwrap();
        tokio::time::timeout(std::time::Duration::from_millis(1), driven)
            .await
            .expect("drive returns once the run future ends")
            .unwrap();
    }

    #[tokio::test]
    async fn shutdown_fires_for_every_clone() {
        let (fire, shutdown) = Shutdown::channel();
        let waiter = tokio::spawn(shutdown.clone().wait());
        assert!(!shutdown.is_shutting_down());
        fire.send(true).unwrap();
        waiter.await.unwrap();
        assert!(shutdown.is_shutting_down());
    }
}
