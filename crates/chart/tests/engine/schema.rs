//! CRD schemas from charts: the values of a chart validate against the schema made from
//! them, and values of the wrong shape do not.

use crate::common;
use rusty_sdk_chart::{Chart, crd_schema, starter, validate_against_schema};
use serde_json::json;

fn starter_chart(dir: &std::path::Path) -> Chart {
    for (path, text) in starter::files("memcached") {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    Chart::load(dir).unwrap()
}

#[test]
fn starter_values_validate_against_their_inferred_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let chart = starter_chart(tmp.path());
    let schema = crd_schema(&chart);
    assert_eq!(validate_against_schema(chart.values(), &schema), Ok(()));
    let p = &schema["properties"];
    assert_eq!(p["replicaCount"], json!({"type": "integer"}));
    assert_eq!(
        p["podAnnotations"]["x-kubernetes-preserve-unknown-fields"],
        true
    );
    assert_eq!(p["resources"]["x-kubernetes-preserve-unknown-fields"], true);
    // Things users set that the defaults leave empty stay settable.
    let custom = json!({
        "replicaCount": 3,
        "resources": {"limits": {"cpu": "100m"}},
        "tolerations": [{"key": "k", "operator": "Exists"}],
        "podAnnotations": {"a": "b"},
        "ingress": {"hosts": [{"host": "x", "paths": [{"path": "/", "pathType": "Prefix"}]}]}
    });
    assert_eq!(validate_against_schema(&custom, &schema), Ok(()));
    let wrong = json!({"replicaCount": "three", "image": {"repository": 5}, "bogus": 1});
    let errors = validate_against_schema(&wrong, &schema).unwrap_err();
    assert_eq!(errors.len(), 3, "{errors:?}");
}

#[test]
fn a_values_schema_json_is_converted_and_still_accepts_the_defaults() {
    let chart = Chart::load(&common::testdata().join("charts/schema")).unwrap();
    let schema = crd_schema(&chart);
    assert_eq!(validate_against_schema(chart.values(), &schema), Ok(()));
    assert_eq!(
        schema["properties"]["service"]["properties"]["port"]["maximum"],
        65535
    );
    assert_eq!(
        schema["properties"]["image"]["properties"]["tag"]["nullable"],
        true
    );
    assert!(schema.get("$schema").is_none() && schema.get("definitions").is_none());
    assert!(validate_against_schema(&json!({"service": {"type": "Other"}}), &schema).is_err());
}

#[test]
fn every_node_of_a_generated_schema_is_structural() {
    fn check(node: &serde_json::Value, path: &str) {
        let open = node.get("x-kubernetes-preserve-unknown-fields") == Some(&json!(true))
            || node.get("x-kubernetes-int-or-string") == Some(&json!(true));
        assert!(
            node.get("type").is_some() || open,
            "no type at {path}: {node}"
        );
        assert!(
            !(node.get("properties").is_some() && node.get("additionalProperties").is_some()),
            "properties and additionalProperties at {path}"
        );
        for (k, v) in node
            .get("properties")
            .and_then(|p| p.as_object())
            .into_iter()
            .flatten()
        {
            check(v, &format!("{path}.{k}"));
        }
        if let Some(items) = node.get("items") {
            check(items, &format!("{path}[]"));
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    check(&crd_schema(&starter_chart(tmp.path())), "spec");
    for name in ["schema", "templating", "parent", "capabilities"] {
        let chart = Chart::load(&common::testdata().join("charts").join(name)).unwrap();
        check(&crd_schema(&chart), name);
    }
}
