//! What a controller keeps of the objects it watches.
//!
//! A kube-runtime controller caches every object it watches, whole, for as long as it runs.
//! For a kind of this operator's own that is a few objects; for one of Kubernetes' kinds
//! (`ConfigMaps`, Secrets, Pods) it is every object of the cluster, each with its
//! `managedFields` (often larger than the rest of the metadata) and, when it was created by
//! `kubectl apply`, a second copy of itself in the `last-applied-configuration` annotation:
//! 10,000 `ConfigMaps` of 10 KB are over 100 MB. [`controller`] is `Controller::new` with a
//! cache that keeps neither; watch `PartialObjectMeta<K>` instead of `K` and the cache holds
//! metadata alone (kube then asks the API server for metadata only), for controllers that
//! read the rest of an object, when they need it, with a `get`.
use std::fmt::Debug;
use std::hash::Hash;

use kube::Resource;
use kube::api::Api;
use kube::runtime::controller::Controller;
use kube::runtime::{WatchStreamExt, reflector, watcher};
use serde::de::DeserializeOwned;

/// The annotation in which `kubectl apply` (client-side) keeps the whole object it applied.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// A controller of the objects `api` lists and `config` selects, whose cache keeps them
/// without their `managedFields` and `last-applied-configuration` annotation ([`trim`]).
///
/// Server-side apply needs neither (the API server keeps them; a patch sent does not carry
/// them), so a reconcile that reads an object from the cache and applies its changes works as
/// with `Controller::new`. Use [`controller_trimming`] to leave out more.
pub fn controller<K>(api: Api<K>, config: watcher::Config) -> Controller<K>
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::DynamicType: Default + Eq + Hash + Clone + Debug + Unpin,
{
    controller_trimming(api, config, |_| {})
}

/// [`controller`], with `also` called on each object before it is cached: to drop fields the
/// controller never reads, such as a large `status`.
pub fn controller_trimming<K, F>(api: Api<K>, config: watcher::Config, mut also: F) -> Controller<K>
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::DynamicType: Default + Eq + Hash + Clone + Debug + Unpin,
    F: FnMut(&mut K) + Send + 'static,
{
    let (reader, writer) = reflector::store();
    let objects = watcher(api, config)
        .default_backoff()
        .modify(move |obj| {
            trim(obj);
            also(obj);
        })
        .reflect(writer)
        .applied_objects();
    Controller::for_stream(objects, reader)
}

/// Drop what the API server keeps for clients that update objects whole, and a controller
/// that applies its changes never reads: `managedFields` and the
/// `last-applied-configuration` annotation.
pub fn trim<K: Resource>(obj: &mut K) {
    let meta = obj.meta_mut();
    meta.managed_fields = None;
    if let Some(annotations) = meta.annotations.as_mut() {
        annotations.remove(LAST_APPLIED);
        if annotations.is_empty() {
            meta.annotations = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use futures::StreamExt;
    use http::{Request, Response};
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::client::Body;
    use kube::core::PartialObjectMeta;
    use kube::runtime::controller::Action;
    use kube::{Client, ResourceExt};
    use serde_json::json;

    use super::*;

    fn configmap() -> serde_json::Value {
        json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {
                "name": "big", "namespace": "ns", "resourceVersion": "7",
                "labels": {"app": "web"},
                "annotations": {LAST_APPLIED: "{\"data\":{\"payload\":\"...\"}}", "keep": "me"},
                "managedFields": [{"manager": "kubectl", "operation": "Update",
                    "apiVersion": "v1", "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:data": {"f:payload": {}}}}]
            },
            "data": {"payload": "x".repeat(1024)}
        })
    }

    /// Serves one list of `item` (metadata only when the request asks for it) and leaves
    /// every watch after it unanswered; sends the list request's `Accept` header to `accept`.
    fn serve(
        mut handle: tower_test::mock::Handle<Request<Body>, Response<Body>>,
        item: serde_json::Value,
        accept: tokio::sync::oneshot::Sender<String>,
    ) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let (request, send) = handle.next_request().await.expect("a list request");
            assert!(
                !request
                    .uri()
                    .query()
                    .unwrap_or_default()
                    .contains("watch=true")
            );
            let header = request.headers().get(http::header::ACCEPT);
            let header = header.map(|value| value.to_str().unwrap().to_string());
            let metadata_only = header
                .as_deref()
                .is_some_and(|value| value.contains("PartialObjectMetadata"));
            let _ = accept.send(header.unwrap_or_default());
            let mut item = item;
            let kind = if metadata_only {
                item.as_object_mut().unwrap().remove("data");
                item["apiVersion"] = json!("meta.k8s.io/v1");
                item["kind"] = json!("PartialObjectMetadata");
                "PartialObjectMetadataList"
            } else {
                "ConfigMapList"
            };
            let list = json!({"apiVersion": "v1", "kind": kind,
                "metadata": {"resourceVersion": "7"}, "items": [item]});
            send.send_response(Response::new(Body::from(
                serde_json::to_vec(&list).unwrap(),
            )));
            // Watches stay open: their responses are never sent.
            let mut pending = Vec::new();
            while let Some(request) = handle.next_request().await {
                pending.push(request);
            }
        })
    }

    /// The first object `controller` hands its reconciler.
    async fn first_reconciled<K>(controller: Controller<K>) -> Arc<K>
    where
        K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        K::DynamicType: Default + Eq + Hash + Clone + Debug + Unpin,
    {
        let (seen, mut got) = futures::channel::mpsc::unbounded();
        let run = controller.run(
            move |obj, seen: Arc<futures::channel::mpsc::UnboundedSender<Arc<K>>>| async move {
                seen.unbounded_send(obj).unwrap();
                Ok::<_, kube::Error>(Action::await_change())
            },
            |_, _, _| Action::await_change(),
            Arc::new(seen),
        );
        let run = tokio::spawn(run.for_each(|_| async {}));
        let obj = tokio::time::timeout(Duration::from_secs(10), got.next())
            .await
            .expect("a reconcile within 10 s")
            .unwrap();
        run.abort();
        obj
    }

    #[tokio::test]
    async fn the_cache_keeps_no_managed_fields_nor_last_applied() {
        let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
        let (accept, _) = tokio::sync::oneshot::channel();
        let server = serve(handle, configmap(), accept);
        let api: Api<ConfigMap> = Api::namespaced(Client::new(service, "ns"), "ns");
        let controller = controller(api, watcher::Config::default());
        let store = controller.store();
        let obj = first_reconciled(controller).await;
        assert_eq!(obj.managed_fields(), [], "{obj:?}");
        assert_eq!(obj.annotations().keys().collect::<Vec<_>>(), ["keep"]);
        assert_eq!(obj.labels()["app"], "web");
        assert_eq!(obj.data.as_ref().unwrap()["payload"].len(), 1024);
        let cached = store.state();
        assert_eq!(cached.len(), 1);
        assert_eq!(cached[0].metadata.managed_fields, None);
        server.abort();
    }

    #[tokio::test]
    async fn partial_object_meta_lists_metadata_only_and_caches_it_trimmed() {
        let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
        let (accept, accepted) = tokio::sync::oneshot::channel();
        let server = serve(handle, configmap(), accept);
        let api: Api<PartialObjectMeta<ConfigMap>> =
            Api::namespaced(Client::new(service, "ns"), "ns");
        let controller = controller_trimming(api, watcher::Config::default(), |obj| {
            obj.labels_mut().clear();
        });
        let obj = first_reconciled(controller).await;
        assert_eq!(obj.name_any(), "big");
        assert_eq!(obj.managed_fields(), []);
        assert_eq!(obj.annotations().keys().collect::<Vec<_>>(), ["keep"]);
        assert!(obj.labels().is_empty(), "the extra trim ran: {obj:?}");
        let accept = accepted.await.unwrap();
        assert!(accept.contains("as=PartialObjectMetadataList"), "{accept}");
        server.abort();
    }

    #[test]
    fn trim_leaves_no_empty_annotations() {
        let mut obj: ConfigMap = serde_json::from_value(json!({
            "metadata": {"name": "a", "annotations": {LAST_APPLIED: "{}"}}
        }))
        .unwrap();
        trim(&mut obj);
        assert_eq!(obj.metadata.annotations, None);
    }
}
