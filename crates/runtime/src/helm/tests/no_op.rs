//! A deployed starter-chart release that nothing changed: the reconcile reads the release
//! from its Secret, renders the chart in process and checks the objects; no helm process
//! (the binary does not exist) and no write request (the mock refuses anything unscripted).
use std::fmt::Write;
use std::path::Path;
use std::sync::Arc;

use base64::Engine;
use kube::api::{ApiResource, GroupVersionKind};
use kube::runtime::controller::Action;
use serde_json::{Value, json};

use super::api::{Expect, finish, mock_api};
use super::fixtures::*;
use crate::helm::kinds::KindInfo;
use crate::helm::manifest::parse_manifest;
use crate::helm::reconcile::reconcile;
use crate::helm::{Reconciler, ReleaseEngine};

/// `helm create memcached` written to `dir`.
pub fn starter_chart(dir: &Path) -> std::path::PathBuf {
    let chart = dir.join("memcached");
    for (path, text) in rusty_sdk_chart::starter::files("memcached") {
        let file = chart.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    chart
}

/// The manifest Helm stores for an install of the chart with its defaults: one
/// `# Source:` document per template, hooks and NOTES.txt left out, in Helm's kind order.
/// The texts are Helm's own render of the starter chart (crates/chart's expected output,
/// made by Helm v4.2.3 as `mychart`, release `release-name`), renamed to `memcached` and
/// `mc` as Helm names them: the in-process decision is held to Helm's render, not to
/// the engine it runs.
pub fn installed_manifest(chart: &Path) -> String {
    assert!(chart.ends_with("memcached"), "{}", chart.display());
    let helm: Value = serde_json::from_str(include_str!(
        "../../../../chart/testdata/expected/starter/defaults.json"
    ))
    .unwrap();
    let mut manifest = String::new();
    for name in ["serviceaccount.yaml", "service.yaml", "deployment.yaml"] {
        let path = format!("mychart/templates/{name}");
        let text = helm[&path].as_str().unwrap_or_else(|| panic!("{path}"));
        let text = text
            .trim()
            .replace("release-name", "mc")
            .replace("mychart", "memcached");
        assert!(!text.is_empty() && !text.contains("helm.sh/hook"), "{path}");
        writeln!(
            manifest,
            "---\n# Source: memcached/templates/{name}\n{text}"
        )
        .unwrap();
    }
    manifest
}

/// Helm's storage Secret of revision 1 (base64 of gzipped release JSON).
pub fn release_secret(manifest: &str) -> Value {
    let release = json!({"name": "mc", "namespace": "default", "version": 1,
        "info": {"status": "deployed", "description": "Install complete"},
        "chart": {"metadata": {"name": "memcached", "version": "0.1.0", "appVersion": "1.16.0"}},
        "manifest": manifest});
    let stored = crate::helm::release_store::tests::encode(&release.to_string());
    json!({"metadata": {"name": "sh.helm.release.v1.mc.v1", "namespace": "default",
                        "labels": {"owner": "helm", "name": "mc", "status": "deployed", "version": "1"}},
           "type": "helm.sh/release.v1",
           "data": {"release": base64::engine::general_purpose::STANDARD.encode(stored)}})
}

/// The cluster's discovery, read once for the steady-state render's `.Capabilities`
/// (kube-apiserver's version and aggregated discovery, core and named groups).
pub fn discovery() -> Vec<Expect> {
    let configmaps = json!({"resource": "configmaps", "scope": "Namespaced", "verbs": ["get"],
        "responseKind": {"group": "", "version": "v1", "kind": "ConfigMap"}});
    vec![
        Expect::get(
            "/version",
            json!({"major": "1", "minor": "33", "gitVersion": "v1.33.0"}),
        ),
        Expect::get(
            "/api",
            json!({"kind": "APIGroupDiscoveryList", "items": [{"metadata": {},
                "versions": [{"version": "v1", "resources": [configmaps]}]}]}),
        ),
        Expect::get(
            "/apis",
            json!({"kind": "APIGroupDiscoveryList", "items": []}),
        ),
    ]
}

pub const SECRETS_URI: &str =
    "/api/v1/namespaces/default/secrets?&labelSelector=name%3Dmc%2Cowner%3Dhelm";

/// Each object of the manifest as the server returns it: the release's metadata, the owner
/// reference, server fields, a quantity spelled differently.
pub fn live_objects(manifest: &str) -> Vec<(String, Value)> {
    parse_manifest(manifest)
        .unwrap()
        .into_iter()
        .map(|object| {
            let mut body = object.body;
            let metadata = &mut body["metadata"];
            metadata["namespace"] = json!("default");
            metadata["uid"] = json!("obj-uid");
            metadata["resourceVersion"] = json!("7");
            metadata["annotations"] = json!({"meta.helm.sh/release-name": "mc",
                                              "meta.helm.sh/release-namespace": "default"});
            metadata["ownerReferences"] = json!([{"apiVersion": "cache.example.com/v1",
                "kind": "Memcached", "name": "mc", "uid": "cr-uid", "controller": true,
                "blockOwnerDeletion": true}]);
            let uri = match object.gvk.kind.as_str() {
                "Deployment" => format!(
                    "/apis/apps/v1/namespaces/default/deployments/{}",
                    object.name
                ),
                "Service" => format!("/api/v1/namespaces/default/services/{}", object.name),
                _ => format!("/api/v1/namespaces/default/serviceaccounts/{}", object.name),
            };
            (uri, body)
        })
        .collect()
}

/// The context: the release engine, reading Secrets (no helm binary exists to run).
pub fn no_helm_context(
    client: kube::Client,
    chart: &Path,
) -> Arc<crate::helm::settings::ReconcileContext> {
    let helm = Arc::new(ReleaseEngine::with_client(&client));
    let settings = Reconciler::builder(&watch())
        .unwrap()
        .with_chart(chart)
        .with_helm_client(helm)
        .build()
        .unwrap()
        .into_settings();
    let ctx = context_from_settings(client, settings, false);
    let gvk = GroupVersionKind::gvk("", "v1", "ServiceAccount");
    ctx.kinds.insert(
        gvk.clone(),
        KindInfo {
            resource: ApiResource::from_gvk_with_plural(&gvk, "serviceaccounts"),
            namespaced: true,
        },
    );
    ctx
}

#[tokio::test]
async fn a_steady_starter_release_runs_no_helm_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let chart = starter_chart(dir.path());
    let manifest = installed_manifest(&chart);
    let mut script = vec![Expect::get(
        SECRETS_URI,
        json!({"kind": "SecretList", "apiVersion": "v1", "metadata": {},
               "items": [release_secret(&manifest)]}),
    )];
    script.extend(discovery());
    for (uri, live) in live_objects(&manifest) {
        script.push(Expect::get(&uri, live.clone()));
        // the server's dry run leaves each object as it is: nothing is written
        script.push(Expect {
            method: http::Method::PATCH,
            uri: format!("{uri}?&dryRun=All&force=true&fieldManager=helm"),
            body: super::api::BodyCheck::None,
            status: http::StatusCode::OK,
            response: live,
        });
    }
    let (client, api) = mock_api(script);
    let ctx = no_helm_context(client, &chart);
    let cr_value = cr_json(json!({}), true, Some(installed_status_of(&manifest)));
    let action = reconcile(cr(cr_value), ctx).await.unwrap();
    assert_eq!(
        action.action(),
        Action::requeue(std::time::Duration::from_secs(60))
    );
    finish(api).await;
}

#[tokio::test]
async fn a_changed_spec_is_left_to_the_release_engine() {
    // replicaCount differs from the release: the in-process check cannot say "unchanged",
    // so the engine's dry-run upgrade decides; it reads the history first (here: gone
    // meanwhile, so the reconcile fails and says so).
    let dir = tempfile::tempdir().unwrap();
    let chart = starter_chart(dir.path());
    let manifest = installed_manifest(&chart);
    let secrets = |items: Vec<Value>| json!({"kind": "SecretList", "apiVersion": "v1", "metadata": {}, "items": items});
    let mut script = vec![Expect::get(
        SECRETS_URI,
        secrets(vec![release_secret(&manifest)]),
    )];
    script.extend(discovery());
    script.extend([
        Expect::get(SECRETS_URI, secrets(vec![])),
        // the status records the error
        Expect {
            method: http::Method::PATCH,
            uri: STATUS_URI.into(),
            body: super::api::BodyCheck::None,
            status: http::StatusCode::OK,
            response: cr_json(json!({}), true, None),
        },
    ]);
    let (client, api) = mock_api(script);
    let ctx = no_helm_context(client, &chart);
    let cr_value = cr_json(
        json!({"replicaCount": 2}),
        true,
        Some(installed_status_of(&manifest)),
    );
    let error = reconcile(cr(cr_value), ctx).await.unwrap_err().to_string();
    assert_eq!(
        error,
        "upgrade of release default/mc failed: \"mc\" has no deployed releases"
    );
    finish(api).await;
}
