//! Our own small charts (testdata/charts) render exactly as the real Helm engine renders
//! them, with default values and with every `enabled` switch on (expected output made by
//! `testdata/make_expected.py`).

use crate::common;
use rusty_sdk_chart::{Chart, RenderOptions};

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
    let out = rusty_sdk_chart::render(&chart, &values, &RenderOptions::default()).unwrap();
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
    let err = rusty_sdk_chart::render(&chart, &serde_json::json!({}), &RenderOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("t/templates/ingress.yaml:3:"), "{err}");
    assert!(
        err.contains("wrong type for value; expected string; got interface {}"),
        "{err}"
    );
}

/// `.Files` is Helm's `engine.files` (a `map[string][]byte` with methods), not a values
/// map: its type prints so, and map functions refuse it as Helm does. `.Template` is a
/// `common.Values`, methods included. Expected texts are Helm v4.2.3's.
#[test]
fn files_and_template_objects_have_helms_types() {
    let chart = |template: &str| {
        let file = |name: &str, data: &str| rusty_sdk_chart::ChartFile {
            name: name.into(),
            data: data.as_bytes().to_vec(),
        };
        Chart::from_files(
            std::path::Path::new("t"),
            vec![
                file("Chart.yaml", "apiVersion: v2\nname: t\nversion: 0.1.0\n"),
                file("files/a.txt", "hi\n"),
                file("templates/t.yaml", template),
            ],
        )
        .unwrap()
    };
    let render = |template: &str| {
        rusty_sdk_chart::render(
            &chart(template),
            &serde_json::json!({}),
            &RenderOptions::default(),
        )
        .map(|out| out["t/templates/t.yaml"].clone())
        .map_err(|e| e.to_string())
    };
    assert_eq!(
        render("{{ typeOf .Files }} {{ printf \"%T\" (.Files.Glob \"files/*\") }} {{ deepCopy .Files | typeOf }}")
            .unwrap(),
        "engine.files engine.files engine.files"
    );
    assert_eq!(
        render("{{ typeOf .Template }} {{ .Template.AsMap | typeOf }} {{ .Template.AsMap.Name }}")
            .unwrap(),
        "common.Values map[string]interface {} t/templates/t.yaml"
    );
    for refused in ["keys .Files", "pluck \"a\" .Files", "merge (dict) .Files"] {
        let err = render(&format!("{{{{ {refused} }}}}")).unwrap_err();
        assert!(
            err.contains(
                "wrong type for value; expected map[string]interface {}; got engine.files"
            ),
            "{refused}: {err}"
        );
    }
}
