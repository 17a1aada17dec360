//! The controller wrapper against a scripted API server: metrics, backoff, shutdown.
#![expect(clippy::float_cmp, reason = "the samples compared are counts")]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use http::{Request, Response};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::Client;
use kube::client::Body;
use kube::runtime::events::Reporter;
use prometheus_client::registry::Registry;
use serde_json::json;

use super::*;
use crate::context::{Shutdown, WatchScope};
use crate::workqueue::tests::{sample, scrape};

#[derive(Debug, thiserror::Error)]
#[error("could not reach the backend")]
struct Failed(#[source] std::io::Error);

fn config_map(name: &str) -> serde_json::Value {
    json!({"metadata": {"name": name, "namespace": "n", "uid": name, "resourceVersion": "1",
                        "managedFields": [{"manager": "kubectl", "operation": "Update"}]}})
}

/// An API server that lists `ConfigMaps` `requeue`, `wait` and `fail` and a Deployment owned
/// by `wait` (labelled `app=mine`), answers no watch (they stay open), and records the query
/// of every list.
async fn serve(mut handle: tower_test::mock::Handle<Request<Body>, Response<Body>>) -> Vec<String> {
    let mut lists = Vec::new();
    let mut watches = Vec::new();
    while let Some((request, send)) = handle.next_request().await {
        let path = request.uri().path().to_string();
        let query = request.uri().query().unwrap_or_default().to_string();
        if query.contains("watch=true") {
            watches.push(send); // kept open, unanswered
            continue;
        }
        let list = if path.ends_with("/configmaps") {
            json!({"apiVersion": "v1", "kind": "ConfigMapList", "metadata": {"resourceVersion": "1"},
                   "items": [config_map("requeue"), config_map("wait"), config_map("fail")]})
        } else {
            json!({"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadataList",
                   "metadata": {"resourceVersion": "1"},
                   "items": [{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata",
                              "metadata": {"name": "d", "namespace": "n", "labels": {"app": "mine"},
                                           "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap",
                                                                "name": "wait", "uid": "wait", "controller": true}]}}]})
        };
        lists.push(format!("{path}?{query}"));
        send.send_response(Response::new(Body::from(list.to_string().into_bytes())));
    }
    lists
}

#[tokio::test]
#[expect(
    clippy::too_many_lines,
    reason = "one controller's life as a transcript, read top to bottom"
)]
async fn runs_reconciles_with_controller_runtime_metrics_and_stops_on_shutdown() {
    let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    let server = tokio::spawn(serve(handle));
    let mut registry = Registry::default();
    let (fire, shutdown) = Shutdown::channel();
    let ctx = ControllerContext {
        client: Client::new(service, "default"),
        scope: WatchScope::Namespace("n".into()),
        metrics: Arc::new(ReconcileMetrics::new(&mut registry)),
        reporter: Reporter {
            controller: "test".into(),
            instance: None,
        },
        shutdown,
    };
    // Each object once: `wait` also comes back for its Deployment, `fail` for its retry.
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let untrimmed = Arc::new(AtomicUsize::new(0));
    let seen = untrimmed.clone();
    let reconcile = move |cm: Arc<ConfigMap>, _: Arc<()>| {
        counted.fetch_add(1, Ordering::SeqCst);
        if cm.metadata.managed_fields.is_some() {
            seen.fetch_add(1, Ordering::SeqCst);
        }
        async move {
            match cm.metadata.name.as_deref() {
                Some("requeue") => Ok(Action::requeue(Duration::from_secs(600))),
                Some("fail") => Err(Failed(std::io::Error::other("timeout"))),
                _ => Ok(Action::await_change()),
            }
        }
    };
    let objects = ctx.scope.namespaced_api::<ConfigMap>(ctx.client.clone());
    let deployments = ctx.scope.namespaced_api::<Deployment>(ctx.client.clone());
    let runner = Runner::new(&ctx, "cm", objects, watcher::Config::default())
        .owns(deployments, watcher::Config::default().labels("app=mine"))
        .concurrency(2)
        .backoff(Backoff::new(
            Duration::from_secs(30),
            Duration::from_secs(60),
        ));
    let run = tokio::spawn(runner.run(reconcile, Arc::new(())));
    tokio::time::timeout(Duration::from_secs(10), async {
        while calls.load(Ordering::SeqCst) < 3 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("three reconciles");
    assert_eq!(
        untrimmed.load(Ordering::SeqCst),
        0,
        "managedFields are not cached"
    );
    // Let the last one finish before the scrape.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let text = scrape(&registry);
    let total = |result: &str| {
        sample(
            &text,
            &format!("controller_runtime_reconcile_total{{controller=\"cm\",result=\"{result}\"}}"),
        )
    };
    assert_eq!(total("requeue_after"), 1.0, "{text}");
    assert!(total("success") >= 1.0, "{text}");
    assert_eq!(total("error"), 1.0, "{text}");
    assert_eq!(
        sample(
            &text,
            "controller_runtime_reconcile_errors_total{controller=\"cm\"}"
        ),
        1.0
    );
    let queue = "{name=\"cm\",controller=\"cm\"}";
    assert!(
        sample(&text, &format!("workqueue_adds_total{queue}")) >= 3.0,
        "{text}"
    );
    // The requeue after 600 s and the retry after the failure's 30 s.
    assert_eq!(
        sample(&text, &format!("workqueue_retries_total{queue}")),
        2.0
    );
    assert!(
        sample(
            &text,
            &format!("workqueue_work_duration_seconds_count{queue}")
        ) >= 3.0
    );
    assert_eq!(
        sample(
            &text,
            "controller_runtime_max_concurrent_reconciles{controller=\"cm\"}"
        ),
        2.0
    );
    assert_eq!(
        sample(
            &text,
            "controller_runtime_active_workers{controller=\"cm\"}"
        ),
        0.0
    );

    fire.send(true).unwrap();
    tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .expect("the controller stops when the manager shuts down")
        .unwrap()
        .unwrap();
    drop(ctx);
    let lists = server.await.unwrap();
    assert!(
        lists.iter().any(
            |list| list.starts_with("/apis/apps/v1/namespaces/n/deployments?")
                && list.contains("labelSelector=app%3Dmine")
        ),
        "the owned watch lists with its selector: {lists:?}"
    );
}

#[test]
fn backoff_doubles_up_to_its_bound_and_starts_over_after_a_success() {
    let backoff = Backoff::default();
    let delays: Vec<u64> = (0..8).map(|_| backoff.next("n/a").as_secs()).collect();
    assert_eq!(delays, [5, 10, 20, 40, 80, 160, 300, 300]);
    assert_eq!(backoff.next("n/b"), Duration::from_secs(5), "per object");
    backoff.reset("n/a");
    assert_eq!(backoff.next("n/a"), Duration::from_secs(5));
}

#[test]
fn backoff_keeps_a_bounded_number_of_objects() {
    let backoff = Backoff::default();
    for i in 0..=MAX_TRACKED_FAILURES {
        backoff.next(&format!("n/gone-{i}"));
    }
    assert!(
        backoff.tracked() <= MAX_TRACKED_FAILURES,
        "{}",
        backoff.tracked()
    );
}

#[test]
fn errors_are_logged_with_their_sources_once() {
    let error = Failed(std::io::Error::other("timeout"));
    assert_eq!(error_chain(&error), "could not reach the backend: timeout");
    let kube = kube::Error::Service("connection refused".into());
    assert_eq!(error_chain(&kube), kube.to_string());
}

#[test]
fn keys_are_namespace_and_name() {
    let cm: ConfigMap = serde_json::from_value(config_map("a")).unwrap();
    assert_eq!(object_key(&cm), "n/a");
    let mut node = k8s_openapi::api::core::v1::Node::default();
    node.metadata.name = Some("w1".into());
    assert_eq!(object_key(&node), "w1");
}
