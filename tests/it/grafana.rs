//! `edit --plugins=grafana/v1-alpha`: the dashboards and the custom-metrics config, which
//! keys are accepted, re-runs, user edits of config.yaml, and bad entries. Whether the
//! dashboards chart metrics a manager really exports is `cluster::dashboards`.
use std::path::{Path, PathBuf};

use crate::support::{read_tree, rust_api_args, rusty, snapshot_settings, transcript};

const CONFIG: &str = "grafana/custom-metrics/config.yaml";
const CUSTOM: &str = "grafana/custom-metrics/custom-metrics-dashboard.json";

fn run(root: &Path, args: &[&str]) -> std::process::Output {
    rusty(root).args(args).output().unwrap()
}

fn must(root: &Path, args: &[&str]) -> String {
    let output = run(root, args);
    assert!(
        output.status.success(),
        "{args:?}: {}",
        transcript(&output, root)
    );
    transcript(&output, root)
}

fn project(layout: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("dashboards");
    std::fs::create_dir(&root).unwrap();
    must(
        &root,
        &["init", "--plugins", layout, "--domain", "my.domain", "-q"],
    );
    (dir, root)
}

fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn dashboards_per_layout_are_snapshotted_and_recorded_in_project() {
    for layout in ["hybrid.helm", "rust"] {
        let (_dir, root) = project(layout);
        let output = run(&root, &["edit", "--plugins=grafana/v1-alpha"]);
        let short = layout.replace('.', "_");
        snapshot_settings().bind(|| {
            insta::assert_snapshot!(
                format!("grafana_{short}_output"),
                transcript(&output, &root)
            );
            for file in [
                "grafana/controller-runtime-metrics.json",
                "grafana/controller-resources-metrics.json",
                CONFIG,
            ] {
                let name = format!("grafana_{short}__{}", file.replace('/', "__"));
                insta::assert_snapshot!(name, read(&root, file));
            }
        });
        assert!(
            read(&root, "PROJECT").contains("\nplugins:\n  grafana.kubebuilder.io/v1-alpha: {}\n"),
            "{}",
            read(&root, "PROJECT")
        );
        let runtime = read(&root, "grafana/controller-runtime-metrics.json");
        assert_eq!(
            runtime.contains("helm_release_operations_total"),
            layout == "hybrid.helm",
            "the Helm row only where Helm APIs can be"
        );
        assert!(!root.join(CUSTOM).exists(), "no custom metrics listed yet");
    }
}

#[test]
fn a_second_run_and_kubebuilders_key_change_nothing() {
    let (_dir, root) = project("rust");
    must(&root, &["edit", "--plugins=grafana/v1-alpha", "-q"]);
    let before = read_tree(&root);
    let text = must(
        &root,
        &["edit", "--plugins=grafana.kubebuilder.io/v1-alpha"],
    );
    assert!(
        !text.contains("create") && !text.contains("update "),
        "{text}"
    );
    assert_eq!(read_tree(&root), before);
}

#[test]
fn webhooks_get_their_row_once_the_project_has_them() {
    let (_dir, root) = project("rust");
    let api = rust_api_args("cache", "v1", "Memcached");
    must(&root, &api.iter().map(String::as_str).collect::<Vec<_>>());
    must(&root, &["edit", "--plugins=grafana/v1-alpha", "-q"]);
    let runtime = read(&root, "grafana/controller-runtime-metrics.json");
    assert!(!runtime.contains("controller_runtime_webhook_requests_total"));
    must(
        &root,
        &[
            "create",
            "webhook",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
            "--defaulting",
            "-q",
        ],
    );
    must(&root, &["edit", "--plugins=grafana/v1-alpha", "-q"]);
    let runtime = read(&root, "grafana/controller-runtime-metrics.json");
    assert!(runtime.contains("controller_runtime_webhook_requests_total"));
    assert!(runtime.contains("controller_runtime_webhook_latency_seconds_bucket"));
}

#[test]
fn listed_custom_metrics_get_a_dashboard_and_the_users_config_survives() {
    let (_dir, root) = project("rust");
    must(&root, &["edit", "--plugins=grafana/v1-alpha", "-q"]);
    let config = "# my metrics\ncustomMetrics:\n  - metric: backups_total\n    type: counter\n  - metric: backup_duration_seconds\n    type: histogram\n  - metric: queue_size\n    type: gauge\n    unit: short\n";
    std::fs::write(root.join(CONFIG), config).unwrap();
    let text = must(&root, &["edit", "--plugins=grafana/v1-alpha"]);
    assert!(text.contains(&format!("create  {CUSTOM}")), "{text}");
    assert_eq!(read(&root, CONFIG), config, "config.yaml is the user's");
    let dashboard: serde_json::Value = serde_json::from_str(&read(&root, CUSTOM)).unwrap();
    let titles: Vec<&str> = dashboard["panels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["type"] != "row")
        .map(|p| p["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        ["backups_total", "backup_duration_seconds", "queue_size"]
    );
    snapshot_settings()
        .bind(|| insta::assert_snapshot!("grafana_custom_dashboard", read(&root, CUSTOM)));
    // A third run: nothing to change.
    let before = read_tree(&root);
    must(&root, &["edit", "--plugins=grafana/v1-alpha", "-q"]);
    assert_eq!(read_tree(&root), before);
}

#[test]
fn bad_input_is_one_line_and_writes_nothing() {
    let (_dir, root) = project("rust");
    must(&root, &["edit", "--plugins=grafana/v1-alpha", "-q"]);
    for (config, expected) in [
        (
            "customMetrics:\n  - metric: ok_total\n    type: counter\n  - metric: latency\n    type: summary\n",
            "error: grafana/custom-metrics/config.yaml: customMetrics[1] (\"latency\"): type \"summary\" is not counter, gauge or histogram; fix the entry",
        ),
        (
            "customMetrics:\n  - metric: ok_total\n",
            "customMetrics[0] (\"ok_total\"): no type",
        ),
        (
            "customMetrics: {\n",
            "error: grafana/custom-metrics/config.yaml: ",
        ),
    ] {
        std::fs::write(root.join(CONFIG), config).unwrap();
        let before = read_tree(&root);
        let output = run(&root, &["edit", "--plugins=grafana/v1-alpha"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
        assert_eq!(read_tree(&root), before, "{config}");
    }
    let output = run(
        &root,
        &["edit", "--plugins=grafana/v1-alpha", "--output-dir", "x"],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("--output-dir belong to helm/v2-alpha"),
        "{stderr}"
    );
    let empty = tempfile::tempdir().unwrap();
    let output = run(empty.path(), &["edit", "--plugins=grafana/v1-alpha"]);
    assert_ne!(output.status.code(), Some(0));
    assert_eq!(
        read_tree(empty.path()).len(),
        0,
        "nothing written without a project"
    );
}
