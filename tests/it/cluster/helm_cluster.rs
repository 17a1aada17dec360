//! The release engine's view of the cluster (helm/engine/cluster.rs) on the real API server,
//! beside the real helm v4.2.3 looking at the same server: the same `.Capabilities`, the
//! same `lookup` answers and errors, and CRDs showing up after an invalidation.
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use rusty_sdk_runtime::helm::engine_cluster::{self, Cluster};
use rusty_sdk_test_tools::needs;
use serde::Deserialize as _;
use serde_json::{Value, json};

use super::cluster;

/// A chart named `name` with one template, written under `dir`.
fn chart(dir: &Path, name: &str, template: &str) -> std::path::PathBuf {
    super::one_template_chart(dir, name, "out.yaml", template)
}

/// `helm template <chart> --dry-run=server -n <namespace>` on the control plane: its
/// stdout, or its stderr when it fails.
async fn helm_template(chart: &Path, namespace: &str) -> Result<String, String> {
    let args = [
        "template".to_string(),
        "probe".into(),
        chart.display().to_string(),
        "--dry-run=server".into(),
        "--namespace".into(),
        namespace.into(),
        "--kubeconfig".into(),
        cluster().admin_kubeconfig().display().to_string(),
    ];
    tokio::task::spawn_blocking(move || {
        let output = super::operator::tool_command("helm")
            .args(&args)
            .output()
            .unwrap_or_else(|e| panic!("helm could not start: {e}"));
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).into_owned())
        } else {
            Err(String::from_utf8_lossy(&output.stderr).into_owned())
        }
    })
    .await
    .unwrap()
}

/// Our render of `chart` for release `probe` in `namespace`, with the cluster's
/// Capabilities and lookup, as the engine renders.
async fn engine_render(cluster: &Cluster, chart: &Path, namespace: &str) -> Result<String, String> {
    let loaded = rusty_sdk_chart::Chart::load(chart).unwrap();
    let name = loaded.name().to_string();
    let options = rusty_sdk_chart::RenderOptions {
        release_name: "probe".into(),
        namespace: namespace.into(),
        capabilities: cluster.capabilities().await.map_err(|e| e.to_string())?,
        ..Default::default()
    };
    let rendered = cluster
        .render(Arc::new(loaded), json!({}), options)
        .await
        .map_err(|e| e.to_string())?;
    Ok(rendered[&format!("{name}/templates/out.yaml")].clone())
}

/// The `data` of the one ConfigMap a render printed.
fn data_of(text: &str) -> BTreeMap<String, String> {
    for document in serde_yaml::Deserializer::from_str(text) {
        let value = Value::deserialize(document).unwrap();
        if !value.is_null() {
            return serde_json::from_value(value["data"].clone()).unwrap();
        }
    }
    panic!("no object in:\n{text}")
}

const CAPABILITIES: &str = r"apiVersion: v1
kind: ConfigMap
metadata:
  name: capabilities
data:
  version: {{ .Capabilities.KubeVersion.Version | quote }}
  major: {{ .Capabilities.KubeVersion.Major | quote }}
  minor: {{ .Capabilities.KubeVersion.Minor | quote }}
  apiVersions: {{ .Capabilities.APIVersions | toJson | quote }}
";

fn api_versions(data: &BTreeMap<String, String>) -> BTreeSet<String> {
    serde_json::from_str(&data["apiVersions"]).unwrap()
}

#[needs(control_plane, helm)]
#[tokio::test]
async fn capabilities_are_the_ones_helm_discovers_on_the_same_server() {
    let client = cluster().client().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let chart = chart(dir.path(), "capabilities", CAPABILITIES);
    // Other suites install CRDs on the shared server meanwhile: compare only when our two
    // discoveries around helm's agree, so that helm saw the same set.
    for _attempt in 0..5 {
        let before = Cluster::new(client.clone());
        let ours = data_of(&engine_render(&before, &chart, "default").await.unwrap());
        let helm = data_of(&helm_template(&chart, "default").await.unwrap());
        let after = Cluster::new(client.clone()).capabilities().await.unwrap();
        if api_versions(&ours) != after.api_versions.iter().cloned().collect() {
            continue;
        }
        for field in ["version", "major", "minor"] {
            assert_eq!(ours[field], helm[field], "KubeVersion.{field}");
        }
        assert!(helm["version"].starts_with("v1."), "{}", helm["version"]);
        let (ours, helm) = (api_versions(&ours), api_versions(&helm));
        assert_eq!(
            ours.difference(&helm).collect::<Vec<_>>(),
            Vec::<&String>::new(),
            "listed by us only"
        );
        assert_eq!(
            helm.difference(&ours).collect::<Vec<_>>(),
            Vec::<&String>::new(),
            "listed by helm only"
        );
        // What Helm lists: group versions, kinds and subresources' kinds alike.
        for expected in [
            "v1",
            "apps/v1",
            "v1/ConfigMap",
            "apps/v1/Scale",
            "v1/Eviction",
        ] {
            assert!(helm.contains(expected), "helm lists no {expected}");
        }
        return;
    }
    panic!("the server's APIs kept changing around helm's discovery");
}

fn crd(plural: &str, kind: &str, scope: &str) -> CustomResourceDefinition {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.helmcluster.rusty.dev")},
        "spec": {
            "group": "helmcluster.rusty.dev",
            "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind},
            "scope": scope,
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object",
                    "x-kubernetes-preserve-unknown-fields": true}}}]
        }
    }))
    .unwrap()
}

#[needs(control_plane)]
#[tokio::test]
async fn crds_installed_later_appear_after_invalidation_or_when_their_kind_is_asked_for() {
    let client = cluster().client().await.unwrap();
    // A lifetime no test outlasts: only invalidation and unknown kinds refresh.
    let engine = Cluster::with_ttl(client.clone(), Duration::from_secs(3600));
    let before = engine.capabilities().await.unwrap();
    assert!(
        !before
            .api_versions
            .contains(&"helmcluster.rusty.dev/v1".to_string())
    );

    cluster()
        .install_crds(&client, &[crd("widgets", "Widget", "Namespaced")])
        .await
        .unwrap();
    let cached = engine.capabilities().await.unwrap();
    assert_eq!(
        cached.api_versions, before.api_versions,
        "within its lifetime"
    );
    engine.invalidate();
    let after = engine.capabilities().await.unwrap().api_versions;
    for expected in [
        "helmcluster.rusty.dev/v1",
        "helmcluster.rusty.dev/v1/Widget",
    ] {
        assert!(
            after.contains(&expected.to_string()),
            "no {expected} in {after:?}"
        );
    }

    // A kind the cached discovery lacks is looked for again before it counts as missing.
    cluster()
        .install_crds(&client, &[crd("gizmos", "Gizmo", "Cluster")])
        .await
        .unwrap();
    let gizmo = json!({"apiVersion": "helmcluster.rusty.dev/v1", "kind": "Gizmo",
                       "metadata": {"name": "g"}});
    let resolved = engine_cluster::resolve(&engine, gizmo.clone(), "release-ns")
        .await
        .unwrap();
    assert_eq!(resolved.resource.plural, "gizmos");
    assert!(!resolved.namespaced);
    assert_eq!(resolved.namespace, None);
    assert_eq!(resolved.body, gizmo);

    let widget = json!({"apiVersion": "helmcluster.rusty.dev/v1", "kind": "Widget",
                        "metadata": {"name": "w"}});
    let resolved = engine_cluster::resolve(&engine, widget, "release-ns")
        .await
        .unwrap();
    assert!(resolved.namespaced);
    assert_eq!(resolved.namespace.as_deref(), Some("release-ns"));
    assert_eq!(resolved.body["metadata"]["namespace"], "release-ns");

    let missing = json!({"apiVersion": "helmcluster.rusty.dev/v1", "kind": "Doohickey",
                         "metadata": {"name": "d"}});
    let error = engine_cluster::resolve(&engine, missing, "release-ns")
        .await
        .unwrap_err();
    // helm v4.2.3 printed this (after `unable to build kubernetes objects from release
    // manifest: `) for an object of a kind no CRD defines.
    assert_eq!(
        error,
        "resource mapping not found for name: \"d\" namespace: \"\" from \"\": no matches for kind \"Doohickey\" in version \"helmcluster.rusty.dev/v1\"\nensure CRDs are installed first"
    );
}

const LOOKUPS: &str = r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: lookups
data:
  configMap: {{ lookup "v1" "ConfigMap" .Release.Namespace "settings" | toJson | quote }}
  secret: {{ lookup "v1" "Secret" .Release.Namespace "credentials" | toJson | quote }}
  namespace: {{ lookup "v1" "Namespace" "ignored-for-cluster-scoped" .Release.Namespace | toJson | quote }}
  list: {{ lookup "v1" "ConfigMap" .Release.Namespace "" | toJson | quote }}
  missing: {{ lookup "v1" "ConfigMap" .Release.Namespace "nothing" | toJson | quote }}
  unknownKind: {{ lookup "v1" "Nothing" .Release.Namespace "x" | toJson | quote }}
  types: {{ printf "%T %T %T" (lookup "v1" "Namespace" "" .Release.Namespace).metadata (lookup "v1" "ConfigMap" .Release.Namespace "").items (lookup "v1" "ConfigMap" .Release.Namespace "nothing") | quote }}
  secretValue: {{ (lookup "v1" "Secret" .Release.Namespace "credentials").data.password | b64dec | quote }}
"#;

#[needs(control_plane, helm)]
#[tokio::test]
async fn lookup_returns_what_helms_lookup_returns() {
    let client = cluster().client().await.unwrap();
    let namespace = cluster()
        .create_namespace(&client, "helm-lookup")
        .await
        .unwrap();
    let config_map: ConfigMap = serde_json::from_value(json!({
        "metadata": {"name": "settings", "labels": {"app": "probe"}},
        "data": {"mode": "fast", "replicas": "3"}
    }))
    .unwrap();
    Api::<ConfigMap>::namespaced(client.clone(), &namespace)
        .create(&PostParams::default(), &config_map)
        .await
        .unwrap();
    let secret: Secret = serde_json::from_value(json!({
        "metadata": {"name": "credentials"},
        "type": "Opaque",
        "stringData": {"password": "s3cr3t"}
    }))
    .unwrap();
    Api::<Secret>::namespaced(client.clone(), &namespace)
        .create(&PostParams::default(), &secret)
        .await
        .unwrap();

    let dir = tempfile::tempdir().unwrap();
    let chart = chart(dir.path(), "lookups", LOOKUPS);
    let engine = Cluster::new(client.clone());
    let helm = data_of(&helm_template(&chart, &namespace).await.unwrap());
    let ours = data_of(&engine_render(&engine, &chart, &namespace).await.unwrap());
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        helm.keys().collect::<Vec<_>>()
    );
    for (key, helm_value) in &helm {
        let (mut ours, mut helm) = (ours[key].clone(), helm_value.clone());
        if key == "list" {
            // A list's resourceVersion is the store's at the time of listing, which other
            // suites move on between the two renders.
            let unversioned = |text: &str| {
                let mut list: Value = serde_json::from_str(text).unwrap();
                list["metadata"]
                    .as_object_mut()
                    .unwrap()
                    .remove("resourceVersion");
                list.to_string()
            };
            (ours, helm) = (unversioned(&ours), unversioned(&helm));
        }
        assert_eq!(ours, helm, "{key}");
    }
    // The comparison is about something: the objects were found.
    assert_eq!(helm["secretValue"], "s3cr3t");
    assert!(helm["list"].contains("\"settings\""), "{}", helm["list"]);
    assert_eq!(helm["missing"], "{}");
}

#[needs(control_plane, helm)]
#[tokio::test]
async fn a_lookup_of_an_api_the_server_lacks_fails_as_helms_does() {
    let client = cluster().client().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let chart = chart(
        dir.path(),
        "lookupfail",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  x: {{ lookup \"absent.rusty.dev/v1\" \"Foo\" \"default\" \"x\" | toJson | quote }}\n",
    );
    let helm = helm_template(&chart, "default").await.unwrap_err();
    let ours = engine_render(&Cluster::new(client), &chart, "default")
        .await
        .unwrap_err();
    let helm_error = helm
        .lines()
        .find_map(|line| line.strip_prefix("Error: "))
        .unwrap_or_else(|| panic!("no error line in helm's output:\n{helm}"));
    assert_eq!(ours, helm_error);
    assert!(ours.contains("absent.rusty.dev/v1, Kind=Foo"), "{ours}");
}
