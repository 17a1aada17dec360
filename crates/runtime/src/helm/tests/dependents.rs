//! Dependent watches: deleting a Deployment of a release queues its custom resource.
use std::time::Duration;

use futures::StreamExt;
use http::{Request, Response};
use kube::Client;
use kube::api::{ApiResource, GroupVersionKind};
use kube::client::Body;
use serde_json::json;

use super::fixtures::resource;
use crate::context::{Shutdown, WatchScope};
use crate::helm::dependents::DependentWatches;
use crate::helm::kinds::KindInfo;

fn deployment_metadata(resource_version: &str) -> serde_json::Value {
    json!({
        "apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata",
        "metadata": {
            "name": "mc-memcached", "namespace": "apps", "uid": "dep-uid", "generation": 1,
            "resourceVersion": resource_version,
            "ownerReferences": [{"apiVersion": "cache.example.com/v1", "kind": "Memcached", "name": "mc",
                                 "uid": "cr-uid", "controller": true, "blockOwnerDeletion": true}],
        },
    })
}

#[tokio::test]
async fn deleting_a_release_object_queues_its_owner_once_per_kind_watch() {
    let (service, mut handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    let server = tokio::spawn(async move {
        let mut uris = Vec::new();
        while let Some((request, respond)) = handle.next_request().await {
            let uri = request.uri().to_string();
            let accept = request
                .headers()
                .get("accept")
                .map(|v| v.to_str().unwrap().to_string());
            uris.push((uri.clone(), accept));
            let body = if uri.contains("watch=true") {
                // one watch session: the Deployment is deleted, then the stream ends
                let event = json!({"type": "DELETED", "object": deployment_metadata("11")});
                format!("{event}\n").into_bytes()
            } else {
                let list = json!({"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadataList",
                                  "metadata": {"resourceVersion": "10"}, "items": [deployment_metadata("10")]});
                serde_json::to_vec(&list).unwrap()
            };
            respond.send_response(Response::new(Body::from(body)));
            if uris.len() == 2 {
                return uris;
            }
        }
        uris
    });
    let (trigger, mut triggers) = futures::channel::mpsc::unbounded();
    let (stop, shutdown) = Shutdown::channel();
    let watches = DependentWatches::new(
        Client::new(service, "default"),
        WatchScope::Namespace("apps".into()),
        resource(),
        trigger,
        shutdown,
    );
    let deployments = KindInfo {
        resource: ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk("apps", "v1", "Deployment"),
            "deployments",
        ),
        namespaced: true,
    };
    // the same kind seen twice starts one watcher
    watches.watch_kinds(std::slice::from_ref(&deployments));
    watches.watch_kinds(&[deployments]);
    let queued = tokio::time::timeout(Duration::from_secs(5), triggers.next())
        .await
        .expect("no reconcile was queued")
        .expect("trigger channel closed");
    assert_eq!(queued.name, "mc");
    assert_eq!(queued.namespace.as_deref(), Some("apps"));
    assert_eq!(queued.dyntype, resource());
    let uris = tokio::time::timeout(Duration::from_secs(5), server)
        .await
        .unwrap()
        .unwrap();
    assert!(
        uris[0]
            .0
            .starts_with("/apis/apps/v1/namespaces/apps/deployments?"),
        "{uris:?}"
    );
    assert!(
        uris[0]
            .1
            .as_deref()
            .unwrap_or_default()
            .contains("as=PartialObjectMetadataList"),
        "{uris:?}"
    );
    assert!(uris[1].0.contains("watch=true"), "{uris:?}");
    let _ = stop.send(true);
}
