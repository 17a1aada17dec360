//! Helpers shared by the integration tests: paths to test data and the comparison of
//! our renders with the real Helm engine's expected output.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rusty_sdk_chart::{Chart, RenderOptions, render};
use serde_json::Value;

pub fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

pub fn expected(name: &str, set: &str) -> Value {
    let path = testdata()
        .join("expected")
        .join(name)
        .join(format!("{set}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// The overlay `make_expected.py` uses: every boolean `enabled` set to true.
pub fn switches(chart: &Chart) -> Value {
    rusty_sdk_chart::switches_overlay(chart)
}

/// Render `chart` with `values` and compare with Helm's stored output, file by file.
pub fn assert_matches_helm(chart: &Chart, values: &Value, expected: &Value) {
    let ours = render(chart, values, &RenderOptions::default());
    if let Some(err) = expected.get("error") {
        let err = err.as_str().unwrap();
        let ours_err = ours
            .err()
            .unwrap_or_else(|| panic!("Helm failed with {err}, we rendered"));
        let verdict = crate::corpus_support::compare_errors(err, &ours_err.to_string());
        assert!(
            verdict.passed(),
            "{verdict:?}\nhelm: {err}\nours: {ours_err}"
        );
        return;
    }
    let ours = ours.unwrap_or_else(|e| panic!("render failed: {e}"));
    let theirs: BTreeMap<String, String> = serde_json::from_value(expected.clone()).unwrap();
    let our_keys: Vec<&String> = ours.keys().collect();
    let their_keys: Vec<&String> = theirs.keys().collect();
    assert_eq!(our_keys, their_keys, "rendered file names differ");
    for (name, text) in &theirs {
        assert_eq!(&ours[name], text, "{name} differs from Helm's output");
    }
}
