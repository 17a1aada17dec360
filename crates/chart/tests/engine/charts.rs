//! Our own small charts (testdata/charts) render exactly as the real Helm engine renders
//! them, with default values and with every `enabled` switch on (expected output made by
//! testdata/make_expected.py).

use crate::common;
use rusty_sdk_chart::Chart;

fn check(name: &str) {
    let chart = Chart::load(&common::testdata().join("charts").join(name)).unwrap();
    common::assert_matches_helm(
        &chart,
        &serde_json::json!({}),
        &common::expected(name, "defaults"),
    );
    let overlay = common::switches(&chart);
    common::assert_matches_helm(&chart, &overlay, &common::expected(name, "switches"));
}

#[test]
fn subcharts_globals_aliases_conditions_tags_and_import_values() {
    check("parent");
}

#[test]
fn define_include_tpl_range_with_variables_files_and_numbers() {
    check("templating");
}

#[test]
fn capabilities_release_chart_objects_and_library_chart() {
    check("capabilities");
}

#[test]
fn hooks_crds_and_lists() {
    check("hooks-crds");
}

#[test]
fn values_schema_json_is_enforced() {
    check("schema");
}

#[test]
fn defaults_breaking_the_schema_fail_like_helm() {
    check("schema-invalid");
}

#[test]
fn set_merge_unset_change_values_and_dot_in_place_like_go_maps() {
    check("mutation");
}

#[test]
fn user_null_reaches_into_subcharts_and_tags_enable_charts() {
    let chart = Chart::load(&common::testdata().join("charts/parent")).unwrap();
    let values = serde_json::json!({"child": {"greeting": null}, "tags": {"optional": true}});
    let out = rusty_sdk_chart::render(&chart, &values, &Default::default()).unwrap();
    let deployment = &out["parent/charts/child/templates/deployment.yaml"];
    assert!(deployment.contains("greeting: \n"), "{deployment}");
    assert!(out.contains_key("parent/charts/extra/templates/secret.yaml"));
}

#[test]
fn one_loaded_chart_renders_many_times_with_different_values() {
    // Parsed template sets are cached per set of enabled templates; reuse must not leak
    // between renders with other subcharts enabled.
    let chart = Chart::load(&common::testdata().join("charts/parent")).unwrap();
    let overlay = common::switches(&chart);
    for _ in 0..2 {
        common::assert_matches_helm(
            &chart,
            &serde_json::json!({}),
            &common::expected("parent", "defaults"),
        );
        common::assert_matches_helm(&chart, &overlay, &common::expected("parent", "switches"));
    }
}

#[test]
fn tpl_of_a_missing_value_fails_like_helm_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("templates")).unwrap();
    std::fs::write(
        dir.path().join("Chart.yaml"),
        "apiVersion: v2\nname: t\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("values.yaml"), "host: null\n").unwrap();
    std::fs::write(
        dir.path().join("templates/ingress.yaml"),
        "kind: Ingress\nrules:\n  - host: {{ tpl .Values.host . | quote }}\n",
    )
    .unwrap();
    let chart = Chart::load(dir.path()).unwrap();
    let err = rusty_sdk_chart::render(&chart, &serde_json::json!({}), &Default::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("t/templates/ingress.yaml:3:"), "{err}");
    assert!(
        err.contains("wrong type for value; expected string; got interface {}"),
        "{err}"
    );
}
