//! The embedded starter chart renders byte-identical to Helm's engine (expected output
//! made by `testdata/make_expected.py`), and keeps the values of the Helm tutorial.

use crate::common;
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
fn starter_values_have_the_tutorials_keys_and_defaults() {
    let tmp = tempfile::tempdir().unwrap();
    let chart = Chart::load(&write_starter(tmp.path())).unwrap();
    let values = chart.values();
    // The spec of the tutorial's sample Memcached, less replicaCount (which it sets to 3).
    let tutorial = serde_json::json!({
        "affinity": {},
        "autoscaling": {"enabled": false, "maxReplicas": 100, "minReplicas": 1, "targetCPUUtilizationPercentage": 80},
        "fullnameOverride": "",
        "image": {"pullPolicy": "IfNotPresent", "repository": "nginx", "tag": ""},
        "imagePullSecrets": [],
        "ingress": {"annotations": {}, "className": "", "enabled": false,
            "hosts": [{"host": "chart-example.local", "paths": [{"path": "/", "pathType": "ImplementationSpecific"}]}],
            "tls": []},
        "nameOverride": "", "nodeSelector": {}, "podAnnotations": {}, "podSecurityContext": {},
        "resources": {}, "securityContext": {},
        "service": {"port": 80, "type": "ClusterIP"},
        "serviceAccount": {"annotations": {}, "create": true, "name": ""},
        "tolerations": [],
    });
    for (key, want) in tutorial.as_object().unwrap() {
        let got = &values[key];
        match (want, got) {
            (serde_json::Value::Object(w), serde_json::Value::Object(g)) => {
                for (k, v) in w {
                    assert_eq!(g.get(k), Some(v), "{key}.{k}");
                }
            }
            _ => assert_eq!(got, want, "{key}"),
        }
    }
    assert_eq!(values["replicaCount"], 1);
    assert!(
        starter::files("x")
            .iter()
            .all(|(p, _)| !p.contains("NOTICE"))
    );
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
