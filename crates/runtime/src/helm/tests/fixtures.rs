//! The memcached example: a custom resource, its chart's release, the objects on the server.
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::Client;
use kube::api::{ApiResource, DynamicObject, GroupVersionKind};
use kube::runtime::events::Reporter;
use serde_json::{Value, json};

use super::fake_helm::FakeHelm;
use crate::helm::kinds::{KindCache, KindInfo};
use crate::helm::settings::ReconcileContext;
use crate::helm::{DryRun, Reconciler, ReconcilerBuilder, Release, ReleaseStatus, Watch};

/// Condition times stored before the reconcile (kept unless the status flips).
pub const FIXED_TIME: &str = "2026-01-01T00:00:00Z";
pub const CR_URI: &str = "/apis/cache.example.com/v1/namespaces/default/memcacheds/mc?";
pub const STATUS_URI: &str = "/apis/cache.example.com/v1/namespaces/default/memcacheds/mc/status?";
pub const DEPLOYMENT_URI: &str = "/apis/apps/v1/namespaces/default/deployments/mc-memcached";
pub const SERVICE_URI: &str = "/api/v1/namespaces/default/services/mc-memcached";
/// Drift repair applies as Helm does, under Helm's field manager.
pub const DEPLOYMENT_APPLY_URI: &str =
    "/apis/apps/v1/namespaces/default/deployments/mc-memcached?&force=true&fieldManager=helm";
/// The same apply as a dry run: the server's answer tells whether the object drifted.
pub const DEPLOYMENT_CHECK_URI: &str = "/apis/apps/v1/namespaces/default/deployments/mc-memcached?&dryRun=All&force=true&fieldManager=helm";
pub const SERVICE_CHECK_URI: &str =
    "/api/v1/namespaces/default/services/mc-memcached?&dryRun=All&force=true&fieldManager=helm";
/// The owner reference, applied alone under the operator's field manager.
pub const DEPLOYMENT_OWNER_URI: &str =
    "/apis/apps/v1/namespaces/default/deployments/mc-memcached?&fieldManager=memcached-controller";
pub const SERVICE_OWNER_URI: &str =
    "/api/v1/namespaces/default/services/mc-memcached?&fieldManager=memcached-controller";
pub const EVENTS_URI: &str = "/apis/events.k8s.io/v1/namespaces/default/events?";

pub fn watch() -> Watch {
    Watch {
        group: "cache.example.com".into(),
        version: "v1".into(),
        kind: "Memcached".into(),
        chart: PathBuf::from("helm-charts/memcached"),
        watch_dependent_resources: true,
        override_values: BTreeMap::new(),
        reconcile_period: None,
        max_concurrent_reconciles: None,
        selector: LabelSelector::default(),
        dry_run_option: DryRun::Server,
    }
}

pub fn resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("cache.example.com", "v1", "Memcached"),
        "memcacheds",
    )
}

/// The reconcile context, with discovery answers for Deployments and Services cached
/// unless `discover` is set.
pub fn context(
    client: Client,
    helm: Arc<FakeHelm>,
    discover: bool,
    configure: impl FnOnce(ReconcilerBuilder) -> ReconcilerBuilder,
) -> Arc<ReconcileContext> {
    context_with_defaults(client, helm, discover, configure, json!({}))
}

/// As [`context`], with these values as the chart's values.yaml.
pub fn context_with_defaults(
    client: Client,
    helm: Arc<FakeHelm>,
    discover: bool,
    configure: impl FnOnce(ReconcilerBuilder) -> ReconcilerBuilder,
    chart_defaults: Value,
) -> Arc<ReconcileContext> {
    let builder = Reconciler::builder(&watch())
        .unwrap()
        .with_helm_client(helm);
    let settings = configure(builder).build().unwrap().into_settings();
    // The test chart exists only as a name; its values.yaml is what the test says.
    let _ = settings.chart_defaults.set(chart_defaults);
    context_from_settings(client, settings, discover)
}

/// The reconcile context for finished settings (Deployment and Service kinds cached unless
/// `discover`).
pub fn context_from_settings(
    client: Client,
    settings: crate::helm::settings::Settings,
    discover: bool,
) -> Arc<ReconcileContext> {
    let kinds = KindCache::default();
    if !discover {
        for (group, kind, plural) in [
            ("apps", "Deployment", "deployments"),
            ("", "Service", "services"),
        ] {
            let gvk = GroupVersionKind::gvk(group, "v1", kind);
            let resource = ApiResource::from_gvk_with_plural(&gvk, plural);
            kinds.insert(
                gvk,
                KindInfo {
                    resource,
                    namespaced: true,
                },
            );
        }
    }
    let reporter = Reporter {
        controller: "memcached-controller".into(),
        instance: None,
    };
    Arc::new(ReconcileContext {
        reporter,
        field_manager: "memcached-controller".into(),
        client,
        settings,
        resource: resource(),
        kinds,
        dependents: None,
        backoff: crate::helm::reconciler::retry_backoff(),
    })
}

/// The custom resource as the API server returns it.
pub fn cr_json(spec: Value, finalizer: bool, status: Option<Value>) -> Value {
    let mut cr = json!({
        "apiVersion": "cache.example.com/v1",
        "kind": "Memcached",
        "metadata": {"name": "mc", "namespace": "default", "uid": "cr-uid", "generation": 1, "resourceVersion": "10"},
    });
    cr["spec"] = spec;
    if finalizer {
        cr["metadata"]["finalizers"] = json!(["uninstall-helm-release"]);
    }
    if let Some(status) = status {
        cr["status"] = status;
    }
    cr
}

pub fn cr(json: Value) -> Arc<DynamicObject> {
    Arc::new(serde_json::from_value(json).unwrap())
}

pub fn manifest(replicas: u32) -> String {
    format!(
        "---\n# Source: memcached/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata:\n  \
         name: mc-memcached\n  labels:\n    app.kubernetes.io/name: memcached\nspec:\n  ports:\n    \
         - port: 11211\n  selector:\n    app.kubernetes.io/name: memcached\n---\n\
         # Source: memcached/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  \
         name: mc-memcached\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      \
         app.kubernetes.io/name: memcached\n  template:\n    metadata:\n      labels:\n        \
         app.kubernetes.io/name: memcached\n    spec:\n      containers:\n        - name: memcached\n          \
         image: memcached:1.6.29\n"
    )
}

pub fn release(version: u32, status: ReleaseStatus, replicas: u32) -> Release {
    Release {
        name: "mc".into(),
        namespace: "default".into(),
        version,
        status,
        manifest: manifest(replicas),
        notes: String::new(),
        description: String::new(),
        chart: "memcached-0.1.0".into(),
        app_version: "1.6.29".into(),
        last_changed: None,
        labels: BTreeMap::default(),
    }
}

fn owner_reference() -> Value {
    json!({"apiVersion": "cache.example.com/v1", "kind": "Memcached", "name": "mc", "uid": "cr-uid",
           "controller": true, "blockOwnerDeletion": true})
}

fn helm_metadata(name_labels: Value) -> Value {
    let mut labels = name_labels;
    labels["app.kubernetes.io/managed-by"] = json!("Helm");
    json!({
        "name": "mc-memcached",
        "namespace": "default",
        "labels": labels,
        "annotations": {"meta.helm.sh/release-name": "mc", "meta.helm.sh/release-namespace": "default"},
    })
}

/// What drift repair applies for the Service of the release.
pub fn desired_service() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Service",
        "metadata": helm_metadata(json!({"app.kubernetes.io/name": "memcached"})),
        "spec": {"ports": [{"port": 11211}], "selector": {"app.kubernetes.io/name": "memcached"}},
    })
}

/// What drift repair applies for the Deployment of the release.
pub fn desired_deployment(replicas: u32) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": helm_metadata(json!({})),
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app.kubernetes.io/name": "memcached"}},
            "template": {
                "metadata": {"labels": {"app.kubernetes.io/name": "memcached"}},
                "spec": {"containers": [{"name": "memcached", "image": "memcached:1.6.29"}]},
            },
        },
    })
}

/// The owner reference alone, as drift repair applies it to `kind` (`Service`, `Deployment`).
pub fn owner_patch(api_version: &str, kind: &str) -> Value {
    json!({"apiVersion": api_version, "kind": kind,
           "metadata": {"name": "mc-memcached", "ownerReferences": [owner_reference()]}})
}

/// The object as the server has it: what was applied plus server fields, defaults and the
/// owner reference.
pub fn live(desired: Value) -> Value {
    let mut live = desired;
    live["metadata"]["ownerReferences"] = json!([owner_reference()]);
    live["metadata"]["uid"] = json!("obj-uid");
    live["metadata"]["resourceVersion"] = json!("42");
    live["metadata"]["managedFields"] = json!([]);
    if live["kind"] == "Deployment" {
        live["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] =
            json!("IfNotPresent");
        live["spec"]["strategy"] = json!({"type": "RollingUpdate"});
        live["status"] = json!({"readyReplicas": 3});
    } else {
        live["spec"]["clusterIP"] = json!("10.0.0.7");
        live["spec"]["ports"][0]["protocol"] = json!("TCP");
    }
    live
}

/// As Helm created it: no owner reference yet.
pub fn live_without_owner(desired: Value) -> Value {
    let mut live = live(desired);
    if let Some(metadata) = live["metadata"].as_object_mut() {
        metadata.remove("ownerReferences");
    }
    live
}

/// A condition as the reconciler writes it (empty reason/message omitted).
pub fn condition(type_: &str, status: &str, reason: &str, message: &str, time: &str) -> Value {
    let mut condition = json!({"type": type_, "status": status, "lastTransitionTime": time});
    if !reason.is_empty() {
        condition["reason"] = json!(reason);
    }
    if !message.is_empty() {
        condition["message"] = json!(message);
    }
    condition
}

/// The status of a healthy first install, with stored times.
pub fn installed_status(replicas: u32) -> Value {
    installed_status_of(&manifest(replicas))
}

/// The status of a healthy first install of `manifest`, with stored times.
pub fn installed_status_of(manifest: &str) -> Value {
    json!({
        "conditions": [
            condition("Deployed", "True", "InstallSuccessful", "release was successfully installed", FIXED_TIME),
            condition("Initialized", "True", "", "", FIXED_TIME),
            condition("Irreconcilable", "False", "", "", FIXED_TIME),
            condition("ReleaseFailed", "False", "", "", FIXED_TIME),
        ],
        "deployedRelease": {"name": "mc", "manifest": manifest}, "observedGeneration": 1,
    })
}

pub fn status_patch(status: Value) -> Value {
    let mut patch = json!({});
    patch["status"] = status;
    patch
}

/// The owner labels the reconciler gives every release it makes.
pub fn owner() -> std::collections::BTreeMap<String, String> {
    crate::helm::release::owner_labels("cache.example.com", "Memcached")
}

/// Install options as the reconciler passes them when no annotation says otherwise.
pub fn owned_install() -> crate::helm::InstallOptions {
    crate::helm::InstallOptions {
        labels: owner(),
        ..Default::default()
    }
}
