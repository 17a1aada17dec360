//! A finalizer only where a controller has cleanup to do.
//!
//! A finalizer keeps an object until its controller removes it: while the operator is
//! uninstalled, crash-looping or removed together with its CRDs, every object that carries
//! one stays in `Terminating`, and its namespace with it. Objects the controller owns go
//! with their owner through owner references, without a finalizer, so controllers
//! (kubebuilder's and kube-rs's alike) add one only when they release something outside
//! the cluster. [`reconcile`] is kube's [`finalizer`](kube::runtime::finalizer::finalizer)
//! behind that switch.
use std::error::Error as StdError;
use std::fmt::Debug;
use std::sync::Arc;

use futures::{TryFuture, TryFutureExt};
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::controller::Action;
pub use kube::runtime::finalizer::{Error, Event};
use kube::{Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Reconcile `obj` with its finalizer `name` when `cleanup` is on, without one when off.
///
/// With `cleanup` on this is kube's finalizer helper: the finalizer is added before the
/// first [`Event::Apply`], and [`Event::Cleanup`] runs once the object is being deleted;
/// the finalizer goes when it succeeds.
///
/// With `cleanup` off no finalizer is added and [`Event::Cleanup`] never comes:
/// [`Event::Apply`] runs while the object lives, and nothing runs once it is being
/// deleted (what it owns goes by owner reference). A finalizer `name` still on the object
/// (left by a version of the controller that had cleanup on) is removed, so that the
/// object does not wait for a cleanup nobody will run.
///
/// # Errors
///
/// [`Error::ApplyFailed`] or [`Error::CleanupFailed`] with `reconcile`'s error, and
/// kube-runtime's other [`Error`]s when the finalizer cannot be added or removed.
///
/// # Examples
///
/// ```no_run
/// use std::sync::Arc;
///
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kube::runtime::controller::Action;
/// use kube::{Api, Client, ResourceExt};
/// use rusty_sdk_runtime::finalizer::{self, Event};
///
/// /// On when the controller releases something outside the cluster on deletion.
/// const CLEANUP: bool = false;
///
/// async fn reconcile(
///     obj: Arc<ConfigMap>,
///     client: Client,
/// ) -> Result<Action, finalizer::Error<kube::Error>> {
///     let api: Api<ConfigMap> = Api::namespaced(client, &obj.namespace().unwrap_or_default());
///     finalizer::reconcile(&api, "example.com/cleanup", CLEANUP, obj, |event| async move {
///         match event {
///             Event::Apply(_live) => Ok::<_, kube::Error>(Action::await_change()),
///             Event::Cleanup(_deleted) => Ok(Action::await_change()),
///         }
///     })
///     .await
/// }
/// ```
pub async fn reconcile<K, ReconcileFut>(
    api: &Api<K>,
    name: &str,
    cleanup: bool,
    obj: Arc<K>,
    reconcile: impl FnOnce(Event<K>) -> ReconcileFut,
) -> Result<Action, Error<ReconcileFut::Error>>
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
    ReconcileFut: TryFuture<Ok = Action>,
    ReconcileFut::Error: StdError + 'static,
{
    if cleanup {
        return kube::runtime::finalizer::finalizer(api, name, obj, reconcile).await;
    }
    if let Some(index) = obj.finalizers().iter().position(|f| f == name) {
        let path = format!("/metadata/finalizers/{index}");
        // `test` first: the list may have changed since it was read, and the patch must
        // then fail (and the next reconcile try again) rather than remove another's.
        let patch: json_patch::Patch = serde_json::from_value(serde_json::json!([
            {"op": "test", "path": path, "value": name},
            {"op": "remove", "path": path},
        ]))
        .map_err(|_| Error::InvalidFinalizer)?;
        let object = obj.meta().name.as_deref().ok_or(Error::UnnamedObject)?;
        api.patch::<K>(object, &PatchParams::default(), &Patch::Json(patch))
            .await
            .map_err(Error::RemoveFinalizer)?;
        // The patch changes the object, which brings another reconcile.
        return Ok(Action::await_change());
    }
    if obj.meta().deletion_timestamp.is_some() {
        return Ok(Action::await_change());
    }
    TryFutureExt::into_future(reconcile(Event::Apply(obj)))
        .await
        .map_err(Error::ApplyFailed)
}

#[cfg(test)]
mod tests {
    use http::{Request, Response};
    use k8s_openapi::api::core::v1::ConfigMap;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use k8s_openapi::jiff::Timestamp;
    use kube::Client;
    use kube::client::Body;
    use serde_json::Value;

    use super::*;

    const FINALIZER: &str = "example.com/finalizer";
    const PATH: &str = "/api/v1/namespaces/testns/configmaps/test";

    #[derive(Debug, thiserror::Error)]
    #[error("reconcile failed")]
    struct Failed;

    fn object(finalizers: &[&str], deleting: bool) -> Arc<ConfigMap> {
        let mut obj = ConfigMap::default();
        obj.metadata.name = Some("test".into());
        obj.metadata.namespace = Some("testns".into());
        obj.metadata.finalizers = Some(finalizers.iter().map(|f| (*f).to_string()).collect());
        if deleting {
            obj.metadata.deletion_timestamp = Some(Time(Timestamp::now()));
        }
        Arc::new(obj)
    }

    /// Run `reconcile` with cleanup off against a mock API server; returns the result, the
    /// events the closure got, and the requests (method, path, JSON body).
    async fn run(obj: Arc<ConfigMap>) -> (Result<Action, String>, Vec<String>, Vec<Value>) {
        let (service, mut handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
        let api = Api::<ConfigMap>::namespaced(Client::new(service, "testns"), "testns");
        let served = tokio::spawn(async move {
            let mut requests = Vec::new();
            while let Some((request, send)) = handle.next_request().await {
                let line = format!("{} {}", request.method(), request.uri().path());
                let bytes = request.into_body().collect_bytes().await.unwrap();
                let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                requests.push(serde_json::json!({"request": line, "body": body}));
                let answer = serde_json::to_vec(&ConfigMap::default()).unwrap();
                send.send_response(Response::new(Body::from(answer)));
            }
            requests
        });
        let mut events = Vec::new();
        let result = reconcile(&api, FINALIZER, false, obj, |event| {
            events.push(match event {
                Event::Apply(_) => "apply".to_string(),
                Event::Cleanup(_) => "cleanup".to_string(),
            });
            async { Ok::<_, Failed>(Action::requeue(std::time::Duration::from_secs(60))) }
        })
        .await
        .map_err(|e| e.to_string());
        drop(api);
        (result, events, served.await.unwrap())
    }

    #[tokio::test]
    async fn without_cleanup_a_new_object_gets_no_finalizer() {
        let (result, events, requests) = run(object(&[], false)).await;
        assert_eq!(
            result,
            Ok(Action::requeue(std::time::Duration::from_secs(60)))
        );
        assert_eq!(events, ["apply"]);
        assert!(requests.is_empty(), "{requests:?}");
    }

    #[tokio::test]
    async fn without_cleanup_a_deleted_object_is_let_go() {
        let (result, events, requests) = run(object(&["someone.else/keep"], true)).await;
        assert_eq!(result, Ok(Action::await_change()));
        assert!(events.is_empty(), "{events:?}");
        assert!(requests.is_empty(), "{requests:?}");
    }

    #[tokio::test]
    async fn a_finalizer_left_by_an_earlier_version_is_removed() {
        for deleting in [false, true] {
            let (result, events, requests) =
                run(object(&["someone.else/keep", FINALIZER], deleting)).await;
            assert_eq!(result, Ok(Action::await_change()));
            assert!(events.is_empty(), "{events:?}");
            assert_eq!(requests.len(), 1, "{requests:?}");
            assert_eq!(requests[0]["request"], format!("PATCH {PATH}"));
            assert_eq!(
                requests[0]["body"],
                serde_json::json!([
                    {"op": "test", "path": "/metadata/finalizers/1", "value": FINALIZER},
                    {"op": "remove", "path": "/metadata/finalizers/1"},
                ])
            );
        }
    }
}
