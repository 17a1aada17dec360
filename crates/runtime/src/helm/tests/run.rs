//! `Reconciler::run`: discovery of the custom resource, the selector on the watch, and a
//! clean stop on shutdown.
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::{Request, Response};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::client::Body;
use serde_json::json;

use super::fake_helm::FakeHelm;
use super::fixtures::watch;
use crate::context::{ControllerContext, Shutdown, WatchScope};
use crate::helm::Reconciler;

#[tokio::test]
async fn run_discovers_the_kind_watches_with_the_selector_and_stops_on_shutdown() {
    let (service, mut handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let (stop, shutdown) = Shutdown::channel();
    let seen_by_server = seen.clone();
    // An API server with no Memcached objects; the first list triggers shutdown.
    tokio::spawn(async move {
        while let Some((request, respond)) = handle.next_request().await {
            let uri = request.uri().to_string();
            seen_by_server.lock().unwrap().push(uri.clone());
            let body = if uri.starts_with("/apis/cache.example.com/v1?")
                || uri == "/apis/cache.example.com/v1"
            {
                json!({"kind": "APIResourceList", "groupVersion": "cache.example.com/v1", "resources": [
                    {"name": "memcacheds", "singularName": "memcached", "namespaced": true, "kind": "Memcached",
                     "verbs": ["get", "list", "watch", "patch"]}]})
            } else {
                if uri.contains("watch=true") {
                    let _ = stop.send(true);
                }
                json!({"kind": "MemcachedList", "apiVersion": "cache.example.com/v1",
                       "metadata": {"resourceVersion": "1"}, "items": []})
            };
            respond.send_response(Response::new(Body::from(
                serde_json::to_vec(&body).unwrap(),
            )));
        }
    });
    let ctx = ControllerContext::for_tests(service, WatchScope::Namespace("apps".into()), shutdown);
    let selector = LabelSelector {
        match_labels: Some([("tier".to_string(), "cache".to_string())].into()),
        match_expressions: None,
    };
    let reconciler = Reconciler::builder(&watch())
        .unwrap()
        .with_selector(selector)
        .with_helm_client(Arc::new(FakeHelm::new(vec![])))
        .build()
        .unwrap();
    assert_eq!(reconciler.controller_name(), "memcached-controller");
    let stopped = tokio::time::timeout(Duration::from_secs(5), reconciler.run(ctx)).await;
    let seen = seen.lock().unwrap().clone();
    stopped
        .unwrap_or_else(|_| panic!("run did not stop on shutdown; requests: {seen:?}"))
        .unwrap();
    assert_eq!(seen[0], "/apis/cache.example.com/v1");
    assert!(
        seen[1].starts_with("/apis/cache.example.com/v1/namespaces/apps/memcacheds?")
            && seen[1].contains("labelSelector=tier%3Dcache"),
        "{seen:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn run_stops_on_shutdown_when_the_api_server_never_answers() {
    let (service, mut handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    let (stop, shutdown) = Shutdown::channel();
    // Every request fails, so the custom resources are never listed; the third one
    // (a retried list) triggers shutdown.
    tokio::spawn(async move {
        let mut count = 0;
        while let Some((_request, respond)) = handle.next_request().await {
            count += 1;
            if count == 3 {
                let _ = stop.send(true);
            }
            let mut response = Response::new(Body::from(b"unavailable".to_vec()));
            *response.status_mut() = http::StatusCode::SERVICE_UNAVAILABLE;
            respond.send_response(response);
        }
    });
    let ctx = ControllerContext::for_tests(service, WatchScope::AllNamespaces, shutdown);
    let reconciler = Reconciler::builder(&watch())
        .unwrap()
        .with_helm_client(Arc::new(FakeHelm::new(vec![])))
        .build()
        .unwrap();
    // kube-runtime alone would wait for a first list that never comes.
    tokio::time::timeout(Duration::from_secs(60), reconciler.run(ctx))
        .await
        .expect("run must return once shutdown begins")
        .unwrap();
}

#[tokio::test]
async fn several_watched_namespaces_get_a_watch_each() {
    let (service, mut handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let (stop, shutdown) = Shutdown::channel();
    let seen_by_server = seen.clone();
    tokio::spawn(async move {
        let mut watches = 0;
        while let Some((request, respond)) = handle.next_request().await {
            let uri = request.uri().to_string();
            seen_by_server.lock().unwrap().push(uri.clone());
            let body = if uri == "/apis/cache.example.com/v1" {
                json!({"kind": "APIResourceList", "groupVersion": "cache.example.com/v1", "resources": [
                    {"name": "memcacheds", "singularName": "memcached", "namespaced": true, "kind": "Memcached",
                     "verbs": ["get", "list", "watch", "patch"]}]})
            } else {
                if uri.contains("watch=true") {
                    watches += 1;
                    if watches == 2 {
                        let _ = stop.send(true);
                    }
                }
                json!({"kind": "MemcachedList", "apiVersion": "cache.example.com/v1",
                       "metadata": {"resourceVersion": "1"}, "items": []})
            };
            respond.send_response(Response::new(Body::from(
                serde_json::to_vec(&body).unwrap(),
            )));
        }
    });
    let scope = WatchScope::from_namespace(Some("team-a,team-b"));
    let ctx = ControllerContext::for_tests(service, scope, shutdown);
    let reconciler = Reconciler::builder(&watch())
        .unwrap()
        .with_helm_client(Arc::new(FakeHelm::new(vec![])))
        .build()
        .unwrap();
    let stopped = tokio::time::timeout(Duration::from_secs(5), reconciler.run(ctx)).await;
    let seen = seen.lock().unwrap().clone();
    stopped
        .unwrap_or_else(|_| panic!("run did not stop on shutdown; requests: {seen:?}"))
        .unwrap();
    for ns in ["team-a", "team-b"] {
        let prefix = format!("/apis/cache.example.com/v1/namespaces/{ns}/memcacheds?");
        assert!(
            seen.iter().any(|uri| uri.starts_with(&prefix)),
            "{ns}: {seen:?}"
        );
    }
    assert!(
        !seen
            .iter()
            .any(|uri| uri.starts_with("/apis/cache.example.com/v1/memcacheds")),
        "nothing cluster-wide: {seen:?}"
    );
}

/// A Helm controller feeds controller-runtime's queue metrics: the listed object is an add,
/// its reconcile a unit of work, and the failed reconcile's backoff a retry.
#[tokio::test]
async fn the_controller_reports_workqueue_metrics() {
    let (service, mut handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    let (stop, shutdown) = Shutdown::channel();
    tokio::spawn(async move {
        let mut open_watches = Vec::new();
        while let Some((request, respond)) = handle.next_request().await {
            let uri = request.uri().to_string();
            let (status, body) = if uri == "/apis/cache.example.com/v1" {
                (
                    200,
                    json!({"kind": "APIResourceList", "groupVersion": "cache.example.com/v1", "resources": [
                    {"name": "memcacheds", "singularName": "memcached", "namespaced": true, "kind": "Memcached",
                     "verbs": ["get", "list", "watch", "patch"]}]}),
                )
            } else if request.method() == http::Method::PATCH {
                // Adding the finalizer fails: the reconcile errs and is retried later.
                let _ = stop.send(true);
                (
                    500,
                    json!({"kind": "Status", "status": "Failure", "code": 500, "message": "etcd is down"}),
                )
            } else if uri.contains("watch=true") {
                open_watches.push(respond); // a watch that stays open and quiet
                continue;
            } else {
                (
                    200,
                    json!({"kind": "MemcachedList", "apiVersion": "cache.example.com/v1",
                    "metadata": {"resourceVersion": "1"},
                    "items": [{"apiVersion": "cache.example.com/v1", "kind": "Memcached",
                        "metadata": {"name": "mc", "namespace": "apps", "uid": "u1", "resourceVersion": "1"},
                        "spec": {}}]}),
                )
            };
            let mut response = Response::new(Body::from(serde_json::to_vec(&body).unwrap()));
            *response.status_mut() = http::StatusCode::from_u16(status).unwrap();
            respond.send_response(response);
        }
    });
    let mut registry = prometheus_client::registry::Registry::default();
    let mut ctx =
        ControllerContext::for_tests(service, WatchScope::Namespace("apps".into()), shutdown);
    ctx.metrics = Arc::new(crate::ReconcileMetrics::new(&mut registry));
    let reconciler = Reconciler::builder(&watch())
        .unwrap()
        .with_max_concurrent_reconciles(3)
        .with_helm_client(Arc::new(FakeHelm::new(vec![])))
        .build()
        .unwrap();
    tokio::time::timeout(Duration::from_secs(5), reconciler.run(ctx))
        .await
        .expect("run stops on shutdown")
        .unwrap();
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    let labels = "{name=\"memcached-controller\",controller=\"memcached-controller\"}";
    for line in [
        format!("workqueue_adds_total{labels} 1"),
        format!("workqueue_retries_total{labels} 1"),
        format!("workqueue_queue_duration_seconds_count{labels} 1"),
        format!("workqueue_work_duration_seconds_count{labels} 1"),
        format!("workqueue_unfinished_work_seconds{labels} 0"),
        "controller_runtime_active_workers{controller=\"memcached-controller\"} 0".to_string(),
        "controller_runtime_max_concurrent_reconciles{controller=\"memcached-controller\"} 3"
            .to_string(),
        "controller_runtime_reconcile_total{controller=\"memcached-controller\",result=\"error\"} 1"
            .to_string(),
    ] {
        assert!(text.lines().any(|l| l.starts_with(&line)), "{line} missing in\n{text}");
    }
    // The retry waits for its backoff: not in the queue yet.
    assert!(
        text.contains("workqueue_depth{name=\"memcached-controller\",controller=\"memcached-controller\",priority=\"\"} 0"),
        "{text}"
    );
}
