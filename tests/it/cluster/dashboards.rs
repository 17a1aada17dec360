//! The Grafana dashboards of `edit --plugins=grafana/v1-alpha` chart what a running manager
//! exports: the tutorial's hybrid operator (a Helm controller and a Rust controller) runs on
//! the control plane and installs a release, and every metric that a panel or a variable of
//! the dashboards selects has a series on its `/metrics`. A metric renamed in the runtime, or
//! a query with a typo, fails here.
use std::collections::BTreeSet;

use kube::api::PostParams;
use rusty_sdk::selected_metrics;
use rusty_sdk_test_tools::needs;
use serde_json::{Value, json};

use super::cluster;
use super::hybrid::{MEMCACHED, await_condition, memcached, tutorial_operator};
use super::operator::{Operator, custom};
use crate::support::{rusty, transcript};

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
            let names = selected_metrics(&query);
            assert!(!names.is_empty(), "{file}: {query} selects no metric");
            for name in names {
                assert!(
                    exported.contains(&name),
                    "{file}: {query} charts {name}, which the manager does not export; it exports:\n{}",
                    exported.iter().cloned().collect::<Vec<_>>().join("\n")
                );
                checked.insert(name);
            }
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
