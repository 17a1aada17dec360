//! What every controller gets from the manager: a client, the namespace scope, metrics,
//! an event reporter and the shutdown signal.
use std::sync::Arc;

use kube::api::Api;
use kube::runtime::events::Reporter;
use kube::{Client, Resource};
use tokio::sync::watch;

use crate::metrics::ReconcileMetrics;

/// Where controllers watch: the whole cluster, or one namespace (`WATCH_NAMESPACE` / `--namespace`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WatchScope {
    AllNamespaces,
    Namespace(String),
}

impl WatchScope {
    /// Build the scope from an optional namespace; an empty string means all namespaces,
    /// as `WATCH_NAMESPACE=""` does for operator-sdk.
    pub fn from_namespace(namespace: Option<&str>) -> Self {
        match namespace.map(str::trim) {
            None | Some("") => WatchScope::AllNamespaces,
            Some(ns) => WatchScope::Namespace(ns.to_string()),
        }
    }

    /// The namespace, if scoped to one.
    pub fn namespace(&self) -> Option<&str> {
        match self {
            WatchScope::AllNamespaces => None,
            WatchScope::Namespace(ns) => Some(ns),
        }
    }

    /// An `Api` for a namespaced kind, limited to the scope.
    pub fn namespaced_api<K>(&self, client: Client) -> Api<K>
    where
        K: Resource<Scope = k8s_openapi::NamespaceResourceScope>,
        K::DynamicType: Default,
    {
        match self {
            WatchScope::AllNamespaces => Api::all(client),
            WatchScope::Namespace(ns) => Api::namespaced(client, ns),
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

#[cfg(test)]
mod tests {
    use http::{Request, Response};
    use k8s_openapi::api::apps::v1::Deployment;
    use kube::client::Body;

    use super::*;

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
        api.list(&Default::default()).await.unwrap();
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
