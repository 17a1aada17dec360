//! `lookup` with a cluster behind it (a fake one here, serving objects read from a real
//! API server). The expected texts are what the real helm v4.2.3 rendered with
//! `helm template --dry-run=server` for the same templates over the same objects.
use std::path::Path;
use std::sync::{Arc, Mutex};

use rusty_sdk_chart::{Chart, Lookup, RenderOptions, render};
use serde_json::{Value, json};

/// A cluster of fixed objects that records every call.
#[derive(Default)]
struct FakeCluster {
    calls: Mutex<Vec<[String; 4]>>,
}

/// The `ConfigMap` and `Deployment` as the API server returned them (metadata trimmed).
fn config_map() -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"a": "1"},
           "metadata": {"name": "cm1", "namespace": "default", "resourceVersion": "210"}})
}

fn deployment() -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
      "metadata": {"name": "d", "namespace": "default", "generation": 1},
      "spec": {"progressDeadlineSeconds": 600, "replicas": 3, "revisionHistoryLimit": 10,
        "selector": {"matchLabels": {"app": "d"}},
        "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}, "type": "RollingUpdate"},
        "template": {"metadata": {"labels": {"app": "d"}}, "spec": {
          "containers": [{"image": "nginx", "imagePullPolicy": "Always", "name": "nginx", "resources": {},
            "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}],
          "dnsPolicy": "ClusterFirst", "restartPolicy": "Always", "schedulerName": "default-scheduler",
          "securityContext": {}, "terminationGracePeriodSeconds": 30}}}})
}

impl Lookup for FakeCluster {
    fn lookup(
        &self,
        api_version: &str,
        kind: &str,
        namespace: &str,
        name: &str,
    ) -> Result<Value, String> {
        self.calls
            .lock()
            .unwrap()
            .push([api_version, kind, namespace, name].map(String::from));
        match (api_version, kind, name) {
            ("v1", "ConfigMap", "cm1") => Ok(config_map()),
            ("v1", "ConfigMap", "") => Ok(json!({"apiVersion": "v1", "kind": "ConfigMapList",
                "metadata": {"resourceVersion": "210"}, "items": [config_map()]})),
            ("apps/v1", "Deployment", "d") => Ok(deployment()),
            ("nope.example.com/v1", _, _) => Err(
                "unable to get apiresource from unstructured: nope.example.com/v1, Kind=Foo: \
                 the server could not find the requested resource"
                    .into(),
            ),
            // A provider may say "not there" with null as well as with {}.
            ("v1", "Secret", _) => Ok(Value::Null),
            _ => Ok(json!({})),
        }
    }
}

fn render_with(
    dir: &Path,
    source: &str,
    lookup: Option<Arc<dyn Lookup>>,
) -> Result<String, String> {
    std::fs::create_dir_all(dir.join("templates")).unwrap();
    std::fs::write(
        dir.join("Chart.yaml"),
        "apiVersion: v2\nname: lk\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(dir.join("templates/a.yaml"), source).unwrap();
    let chart = Chart::load(dir).map_err(|e| e.to_string())?;
    let opts = RenderOptions {
        lookup,
        ..RenderOptions::default()
    };
    render(&chart, &json!({}), &opts)
        .map(|out| out["lk/templates/a.yaml"].clone())
        .map_err(|e| e.to_string())
}

const TEMPLATE: &str = r#"  a: {{ (lookup "v1" "ConfigMap" "default" "cm1").data.a | quote }}
  absent: {{ if not (lookup "v1" "ConfigMap" "default" "nope") }}"absent"{{ end }}
  replicasType: {{ printf "%T" (lookup "apps/v1" "Deployment" "default" "d").spec.replicas | quote }}
  replicasPlus: {{ (lookup "apps/v1" "Deployment" "default" "d").spec.replicas | add 1 | quote }}
  replicasPrintf: {{ printf "%d %v" (lookup "apps/v1" "Deployment" "default" "d").spec.replicas (lookup "apps/v1" "Deployment" "default" "d").spec.progressDeadlineSeconds | quote }}
  names: {{ range (lookup "v1" "ConfigMap" "default" "").items }}{{ .metadata.name }}/{{ .kind }}/{{ .apiVersion }},{{ end }}
  listKind: {{ (lookup "v1" "ConfigMap" "default" "").kind }}
  missingType: {{ printf "%T" (lookup "v1" "ConfigMap" "default" "nope") | quote }}
  strategy: {{ (lookup "apps/v1" "Deployment" "default" "d").spec.strategy | toYaml | quote }}
  strategyJson: {{ (lookup "apps/v1" "Deployment" "default" "d").spec.strategy | toJson | quote }}
  template: {{ (lookup "apps/v1" "Deployment" "default" "d").spec.template.spec | toJson | quote }}
"#;

/// helm v4.2.3's output for TEMPLATE over the same objects.
const HELM_OUTPUT: &str = r#"  a: "1"
  absent: "absent"
  replicasType: "int64"
  replicasPlus: "4"
  replicasPrintf: "3 600"
  names: cm1/ConfigMap/v1,
  listKind: ConfigMapList
  missingType: "map[string]interface {}"
  strategy: "rollingUpdate:\n  maxSurge: 25%\n  maxUnavailable: 25%\ntype: RollingUpdate"
  strategyJson: "{\"rollingUpdate\":{\"maxSurge\":\"25%\",\"maxUnavailable\":\"25%\"},\"type\":\"RollingUpdate\"}"
  template: "{\"containers\":[{\"image\":\"nginx\",\"imagePullPolicy\":\"Always\",\"name\":\"nginx\",\"resources\":{},\"terminationMessagePath\":\"/dev/termination-log\",\"terminationMessagePolicy\":\"File\"}],\"dnsPolicy\":\"ClusterFirst\",\"restartPolicy\":\"Always\",\"schedulerName\":\"default-scheduler\",\"securityContext\":{},\"terminationGracePeriodSeconds\":30}"
"#;

#[test]
fn objects_lists_and_absent_objects_read_as_helm_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let cluster = Arc::new(FakeCluster::default());
    let out = render_with(dir.path(), TEMPLATE, Some(cluster.clone())).unwrap();
    assert_eq!(out, HELM_OUTPUT);
    // Every argument reaches the cluster as written, the empty name of a list included.
    let calls = cluster.calls.lock().unwrap();
    assert!(calls.contains(&["v1", "ConfigMap", "default", ""].map(String::from)));
    assert!(calls.contains(&["apps/v1", "Deployment", "default", "d"].map(String::from)));
}

#[test]
fn a_null_answer_is_an_empty_map() {
    let dir = tempfile::tempdir().unwrap();
    let source = r#"{{ printf "%T %d" (lookup "v1" "Secret" "default" "s") (len (lookup "v1" "Secret" "default" "s")) }}"#;
    let out = render_with(dir.path(), source, Some(Arc::new(FakeCluster::default())));
    assert_eq!(out.as_deref(), Ok("map[string]interface {} 0"));
}

#[test]
fn a_cluster_error_fails_the_render_in_helms_words() {
    let dir = tempfile::tempdir().unwrap();
    let source = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: out\ndata:\n  x: {{ lookup \"nope.example.com/v1\" \"Foo\" \"default\" \"x\" | toJson | quote }}\n";
    let err = render_with(dir.path(), source, Some(Arc::new(FakeCluster::default())))
        .expect_err("the lookup error must fail the render");
    // helm v4.2.3 printed this after `Error: `.
    assert_eq!(
        err,
        "template: lk/templates/a.yaml:6:8: executing \"lk/templates/a.yaml\" at <lookup \"nope.example.com/v1\" \"Foo\" \"default\" \"x\">: error calling lookup: unable to get apiresource from unstructured: nope.example.com/v1, Kind=Foo: the server could not find the requested resource"
    );
}

#[test]
fn without_a_cluster_lookup_finds_nothing_and_each_render_keeps_its_own_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let source =
        r#"{{ with lookup "v1" "ConfigMap" "default" "cm1" }}{{ .data.a }}{{ else }}none{{ end }}"#;
    assert_eq!(render_with(dir.path(), source, None).as_deref(), Ok("none"));
    // The same chart (and its parsed templates) rendered with a cluster, then without.
    let chart = Chart::load(dir.path()).unwrap();
    let with = RenderOptions {
        lookup: Some(Arc::new(FakeCluster::default())),
        ..RenderOptions::default()
    };
    let rendered = render(&chart, &json!({}), &with).unwrap();
    assert_eq!(rendered["lk/templates/a.yaml"], "1");
    let rendered = render(&chart, &json!({}), &RenderOptions::default()).unwrap();
    assert_eq!(rendered["lk/templates/a.yaml"], "none");
}

#[test]
fn options_compare_and_print_with_a_provider() {
    let cluster: Arc<dyn Lookup> = Arc::new(FakeCluster::default());
    let a = RenderOptions {
        lookup: Some(cluster.clone()),
        ..RenderOptions::default()
    };
    assert_eq!(a, a.clone());
    assert_ne!(a, RenderOptions::default());
    let other = RenderOptions {
        lookup: Some(Arc::new(FakeCluster::default())),
        ..RenderOptions::default()
    };
    assert_ne!(a, other);
    assert!(format!("{a:?}").contains("lookup: Some"));
}
