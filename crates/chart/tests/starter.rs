//! The embedded starter chart is what `helm create` writes and renders byte-identical
//! to Helm's engine (expected output made by testdata/make_expected.py).
mod common;

use std::collections::BTreeMap;

use rusty_sdk_chart::{Chart, starter};

fn write_starter(dir: &std::path::Path) -> std::path::PathBuf {
    let root = dir.join("mychart");
    for (path, text) in starter::files("mychart") {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    root
}

#[test]
fn starter_files_equal_helm_create() {
    let path = common::testdata().join("expected/starter-files.json");
    let expected: BTreeMap<String, String> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let ours: BTreeMap<String, String> = starter::files("mychart").into_iter().collect();
    assert_eq!(ours, expected);
}

#[test]
fn starter_renders_like_helm_with_defaults() {
    let tmp = tempfile::tempdir().unwrap();
    let chart = Chart::load(&write_starter(tmp.path())).unwrap();
    common::assert_matches_helm(
        &chart,
        &serde_json::json!({}),
        &common::expected("starter", "defaults"),
    );
}

#[test]
fn starter_renders_like_helm_with_every_switch_on() {
    let tmp = tempfile::tempdir().unwrap();
    let chart = Chart::load(&write_starter(tmp.path())).unwrap();
    let overlay = common::switches(&chart);
    assert_eq!(
        overlay,
        serde_json::json!({"ingress": {"enabled": true}, "httpRoute": {"enabled": true}, "autoscaling": {"enabled": true}})
    );
    common::assert_matches_helm(&chart, &overlay, &common::expected("starter", "switches"));
}
