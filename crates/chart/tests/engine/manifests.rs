//! Splitting renders into objects, hooks, the switches overlay and `all_objects`.

use crate::common;
use std::collections::BTreeMap;

use rusty_sdk_chart::{Chart, HookKind, all_objects, split_manifests, switches_overlay};
use serde_json::json;

fn rendered(files: &[(&str, &str)]) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn lists_are_expanded_and_notes_and_empty_documents_skipped() {
    let out = split_manifests(&rendered(&[
        (
            "c/templates/list.yaml",
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: b}\n---\n# comment\n---\n\n",
        ),
        ("c/templates/NOTES.txt", "Thanks for installing"),
        ("c/templates/empty.yaml", "\n"),
    ]))
    .unwrap();
    let kinds: Vec<(&str, &str)> = out.iter().map(|m| (m.kind(), m.name())).collect();
    assert_eq!(kinds, [("ConfigMap", "a"), ("Secret", "b")]);
    assert!(
        out.iter()
            .all(|m| m.source == "c/templates/list.yaml" && m.hook.is_none())
    );
}

#[test]
fn hooks_are_told_apart_by_kind() {
    let out = split_manifests(&rendered(&[(
        "c/templates/hooks.yaml",
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n    helm.sh/hook: pre-install, post-upgrade\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: t\n  annotations:\n    helm.sh/hook: test\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\n",
    )]))
    .unwrap();
    assert_eq!(
        out[0].hook,
        Some(vec![HookKind::PreInstall, HookKind::PostUpgrade])
    );
    assert_eq!(out[1].hook, Some(vec![HookKind::Test]));
    assert_eq!(out[2].hook, None);
}

#[test]
fn objects_without_kind_are_errors_naming_the_source() {
    let err = split_manifests(&rendered(&[(
        "c/templates/bad.yaml",
        "metadata:\n  name: x\n",
    )]))
    .unwrap_err();
    assert!(
        err.to_string().starts_with("c/templates/bad.yaml:"),
        "{err}"
    );
}

#[test]
fn switches_overlay_turns_on_boolean_enabled_keys_in_maps_only() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("Chart.yaml"),
        "apiVersion: v2\nname: s\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(
        tmp.path().join("values.yaml"),
        "a:\n  enabled: false\n  deep:\n    enabled: true\nb:\n  enabled: \"no\"\nlist:\n  - enabled: false\nenabled: false\nc: {}\n",
    )
    .unwrap();
    let chart = Chart::load(tmp.path()).unwrap();
    assert_eq!(
        switches_overlay(&chart),
        json!({"a": {"enabled": true, "deep": {"enabled": true}}, "enabled": true})
    );
}

#[test]
fn all_objects_unites_default_and_switched_renders_and_crds() {
    let chart = Chart::load(&common::testdata().join("charts/hooks-crds")).unwrap();
    let all = all_objects(&chart).unwrap().manifests;
    let summary: Vec<(String, String, Option<Vec<HookKind>>)> = all
        .iter()
        .map(|m| (m.kind().to_string(), m.source.clone(), m.hook.clone()))
        .collect();
    let has = |kind: &str, source: &str| summary.iter().any(|(k, s, _)| k == kind && s == source);
    assert!(has(
        "CustomResourceDefinition",
        "hooks-crds/crds/widgets.yaml"
    ));
    assert!(has("Role", "hooks-crds/templates/rbac-list.yaml"));
    assert!(has("ServiceAccount", "hooks-crds/templates/rbac-list.yaml"));
    assert!(has("ConfigMap", "hooks-crds/templates/rbac-list.yaml"));
    // backup.yaml renders only with the switch on; the test pod is a hook.
    let backup = summary
        .iter()
        .find(|(_, s, _)| s == "hooks-crds/templates/backup.yaml")
        .unwrap();
    assert_eq!(backup.2, Some(vec![HookKind::PreDelete]));
    let test_pod = summary.iter().find(|(k, _, _)| k == "Pod").unwrap();
    assert_eq!(test_pod.2, Some(vec![HookKind::Test]));
    // Two Roles from one template count once.
    assert_eq!(summary.iter().filter(|(k, _, _)| k == "Role").count(), 1);
}

#[test]
fn all_objects_tries_switches_one_by_one_when_all_on_fails() {
    let tmp = tempfile::tempdir().unwrap();
    let files = [
        (
            "Chart.yaml",
            "apiVersion: v2\nname: picky\nversion: 0.1.0\n",
        ),
        (
            "values.yaml",
            "a:\n  enabled: false\nb:\n  enabled: false\n",
        ),
        (
            "templates/a.yaml",
            "{{- if .Values.a.enabled }}\n{{- if .Values.b.enabled }}{{ fail \"a and b exclude each other\" }}{{ end }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n{{- end }}\n",
        ),
        (
            "templates/b.yaml",
            "{{- if .Values.b.enabled }}\napiVersion: v1\nkind: Secret\nmetadata:\n  name: b\n{{- end }}\n",
        ),
        (
            "templates/svc.yaml",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n",
        ),
    ];
    for (name, text) in files {
        let path = tmp.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let chart = Chart::load(tmp.path()).unwrap();
    let found = all_objects(&chart).unwrap();
    let kinds: Vec<String> = found
        .manifests
        .iter()
        .map(|m| m.kind().to_string())
        .collect();
    assert_eq!(kinds, ["Service", "ConfigMap", "Secret"]);
    assert!(found.failed_switches.is_empty());
}

#[test]
fn all_objects_names_a_switch_that_fails_on_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    let files = [
        (
            "Chart.yaml",
            "apiVersion: v2\nname: picky\nversion: 0.1.0\n",
        ),
        ("values.yaml", "metrics:\n  monitor:\n    enabled: false\n"),
        (
            "templates/monitor.yaml",
            "{{- if .Values.metrics.monitor.enabled }}{{ required \"metrics.monitor.url is needed\" .Values.metrics.monitor.url }}{{ end }}\n",
        ),
        (
            "templates/svc.yaml",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n",
        ),
    ];
    for (name, text) in files {
        let path = tmp.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let chart = Chart::load(tmp.path()).unwrap();
    let found = all_objects(&chart).unwrap();
    assert_eq!(found.manifests.len(), 1);
    let failed = &found.failed_switches;
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0].switch, "metrics.monitor.enabled");
    assert_eq!(failed[0].templates, ["picky/templates/monitor.yaml"]);
    assert!(
        failed[0].error.contains("metrics.monitor.url is needed"),
        "{}",
        failed[0].error
    );
}
