//! The Grafana dashboards of `edit --plugins=grafana/v1-alpha` chart what a running manager
//! exports: the tutorial's hybrid operator (a Helm controller and a Rust controller) runs on
//! the control plane and installs a release, and every metric that a panel or a variable of
//! the dashboards selects has a series on its `/metrics`. A metric renamed in the runtime, or
//! a query with a typo, fails here. The webhook row, which the tutorial lacks, is checked
//! against the runtime's manager serving a project's webhooks.
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use kube::api::PostParams;
use rusty_sdk::selected_metrics;
use rusty_sdk_test_tools::needs;
use serde_json::{Value, json};

use super::hybrid::{MEMCACHED, await_condition, memcached, tutorial_operator};
use super::operator::{Operator, custom};
use super::{cluster, eventually};
use crate::support::{rusty, scaffold, transcript};

/// The names of the samples in a `/metrics` response. A family with no series is not
/// there at all (prometheus-client writes nothing for it, not even its `# TYPE`): the
/// runtime starts its counters at zero so that every charted metric has a series from the
/// controller's start, before the first error or release operation.
fn exported(response: &str) -> BTreeSet<String> {
    let body = response
        .split_once("\r\n\r\n")
        .map_or(response, |(_, body)| body);
    body.lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| line[..line.find(['{', ' ']).unwrap_or(line.len())].to_string())
        .collect()
}

/// Every PromQL text of a dashboard: the panels' queries and the variables'.
fn queries(dashboard: &Value, found: &mut Vec<String>) {
    match dashboard {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("expr" | "definition", Value::String(text)) => found.push(text.clone()),
                    _ => queries(value, found),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| queries(item, found)),
        _ => {}
    }
}

/// The metrics `query` (of `what`) selects, each one `exported` has.
fn assert_exported(query: &str, exported: &BTreeSet<String>, what: &str) -> BTreeSet<String> {
    let names = selected_metrics(query);
    assert!(!names.is_empty(), "{what}: {query} selects no metric");
    for name in &names {
        assert!(
            exported.contains(name),
            "{what}: {query} charts {name}, which the manager does not export; it exports:\n{}",
            exported.iter().cloned().collect::<Vec<_>>().join("\n")
        );
    }
    names
}

#[needs(control_plane, e2e, kubectl)]
#[tokio::test]
async fn every_dashboard_query_names_a_metric_the_manager_exports() {
    let installed = tutorial_operator().await;
    // The dashboards for the tutorial's PROJECT, in a folder of their own: other tests share
    // the installed project.
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(installed.root.join("PROJECT"), dir.path().join("PROJECT")).unwrap();
    let output = rusty(dir.path())
        .args(["edit", "--plugins=grafana/v1-alpha"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        transcript(&output, dir.path())
    );

    let admin = cluster().client().await.unwrap();
    let ns = cluster().create_namespace(&admin, "grafana").await.unwrap();
    let port = crate::e2e::free_port();
    let operator = Operator::start(
        installed,
        &[
            &format!("--namespace={ns}"),
            &format!("--metrics-bind-address=127.0.0.1:{port}"),
            "--metrics-secure=false",
        ],
    );
    let memcacheds = custom(&admin, &ns, MEMCACHED);
    memcacheds
        .create(
            &PostParams::default(),
            &memcached("cache", json!({"replicaCount": 1})),
        )
        .await
        .unwrap();
    await_condition(
        &memcacheds,
        "cache",
        "Deployed",
        "InstallSuccessful",
        &operator,
    )
    .await;
    let scraped = crate::e2e::http_get(port, "/metrics").expect("/metrics answers");
    let exported = exported(&scraped);
    let install = "helm_release_operations_total{controller=\"memcached-controller\",operation=\"install\",result=\"success\"} 1";
    assert!(scraped.contains(install), "no {install} in\n{scraped}");

    let mut checked = BTreeSet::new();
    for file in [
        "grafana/controller-runtime-metrics.json",
        "grafana/controller-resources-metrics.json",
    ] {
        let dashboard: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join(file)).unwrap()).unwrap();
        let mut found = Vec::new();
        queries(&dashboard, &mut found);
        assert!(found.len() >= 5, "{file}: only {} queries", found.len());
        for query in found {
            checked.extend(assert_exported(&query, &exported, file));
        }
    }
    // Every row was checked, the Helm row included.
    for name in [
        "helm_release_operations_total",
        "controller_runtime_reconcile_errors_total",
        "workqueue_depth",
        "process_resident_memory_bytes",
    ] {
        assert!(
            checked.contains(name),
            "no panel charts {name}: {checked:?}"
        );
    }
    operator.stop();
}

/// Every PromQL text of the dashboards `edit --plugins=grafana/v1-alpha` writes for the
/// project at `root`.
fn dashboard_queries(root: &Path) -> BTreeSet<String> {
    let output = rusty(root)
        .args(["edit", "--plugins=grafana/v1-alpha", "-q"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, root));
    let mut found = Vec::new();
    for file in [
        "grafana/controller-runtime-metrics.json",
        "grafana/controller-resources-metrics.json",
    ] {
        let dashboard: Value =
            serde_json::from_str(&std::fs::read_to_string(root.join(file)).unwrap()).unwrap();
        queries(&dashboard, &mut found);
    }
    found.into_iter().collect()
}

/// The webhook row, which the tutorial's operator above (no webhooks) cannot check: the
/// queries a project gains with its defaulting and validating webhooks select metrics that
/// the runtime's manager serving those webhooks exports from its start, before the first
/// request (the manager runs in this process, with the control plane's client).
#[needs(control_plane)]
// Threads of its own for the manager: the scrape below blocks its thread.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_webhook_rows_queries_name_metrics_a_manager_serving_webhooks_exports() {
    use clap::Parser as _;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::core::admission::{AdmissionRequest, AdmissionResponse};
    use rusty_sdk_runtime::webhook::Webhooks;
    use rusty_sdk_runtime::{Manager, ManagerArgs};

    #[derive(clap::Parser)]
    struct Args {
        #[command(flatten)]
        manager: ManagerArgs,
    }

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("hooks");
    scaffold(
        dir.path(),
        &root,
        &[
            "init --plugins rust --domain my.domain --repo github.com/example/hooks",
            "create api --plugins rust --group cache --version v1 --kind Memcached --resource --controller",
        ],
    );
    let without = dashboard_queries(&root);
    scaffold(
        dir.path(),
        &root,
        &[
            "create webhook --group cache --version v1 --kind Memcached --defaulting --programmatic-validation",
        ],
    );
    let row: Vec<String> = dashboard_queries(&root)
        .difference(&without)
        .cloned()
        .collect();
    assert!(!row.is_empty(), "webhooks added no query");

    // The manager serves the webhooks at the paths the project's configurations name.
    let manifests = std::fs::read_to_string(root.join("config/webhook/manifests.yaml")).unwrap();
    let paths: Vec<&str> = manifests
        .lines()
        .filter_map(|line| line.trim().strip_prefix("path: "))
        .collect();
    assert_eq!(paths.len(), 2, "{manifests}");
    let mut webhooks = Webhooks::new();
    for path in &paths {
        webhooks = webhooks.admission(*path, |request: AdmissionRequest<ConfigMap>| async move {
            AdmissionResponse::from(&request)
        });
    }
    let (metrics, webhook) = (crate::e2e::free_port(), crate::e2e::free_port());
    let args = Args::parse_from([
        "dashboards",
        &format!("--metrics-bind-address=127.0.0.1:{metrics}"),
        "--metrics-secure=false",
        "--health-probe-bind-address=0",
        &format!("--webhook-port={webhook}"),
        "--webhook-cert-mode=local",
    ]);
    let client = cluster().client().await.unwrap();
    let mut manager = Manager::with_client("dashboards-webhooks", args.manager, client).unwrap();
    manager.add_webhooks(webhooks);
    let running = tokio::spawn(manager.run_until_stopped());
    let scraped = eventually(
        "the manager's /metrics",
        Duration::from_secs(30),
        || async {
            assert!(!running.is_finished(), "the manager stopped");
            crate::e2e::http_get(metrics, "/metrics").filter(|r| r.starts_with("HTTP/1.1 200"))
        },
    )
    .await;
    running.abort();
    let exported = exported(&scraped);
    for query in &row {
        assert_exported(query, &exported, &format!("the webhook row ({paths:?})"));
    }
}
