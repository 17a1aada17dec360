//! The ClusterServiceVersion: the user's base (config/manifests/bases), whose every field is
//! kept, completed with what the kustomize output says (install strategy, permissions,
//! owned CRDs, examples, version).
use serde_json::{Map, Value, json};

use super::{BundleSettings, webhooks};
use crate::commands::bundle_validate;
use crate::kustomize_output::Object;

/// The base `generate bundle` writes when the project has none: the fields a user fills
/// in, and OLM's install modes for the project's scope (its own namespace with
/// `init --namespaced`, else every namespace).
pub fn default_base(package: &str, display: &str, namespaced: bool) -> Value {
    json!({
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {
            "annotations": {"alm-examples": "[]", "capabilities": "Basic Install"},
            "name": format!("{package}.v0.0.0"),
            "namespace": "placeholder",
        },
        "spec": {
            "apiservicedefinitions": {},
            "customresourcedefinitions": {},
            "description": format!("{display} operator"),
            "displayName": display,
            "icon": [{"base64data": "", "mediatype": ""}],
            "install": {"spec": {"deployments": null}, "strategy": ""},
            "installModes": [
                {"supported": namespaced, "type": "OwnNamespace"},
                {"supported": false, "type": "SingleNamespace"},
                {"supported": false, "type": "MultiNamespace"},
                {"supported": !namespaced, "type": "AllNamespaces"},
            ],
            "keywords": [package],
            "links": [{"name": display, "url": format!("https://{package}.domain")}],
            "maintainers": [{"email": "your@email.com", "name": "Maintainer Name"}],
            "maturity": "alpha",
            "provider": {"name": "Provider Name", "url": "https://your.domain"},
            "version": "0.0.0",
        },
    })
}

/// The CSV of the bundle: `base` with the generated fields set.
pub fn build(base: &Value, objects: &[Object], settings: &BundleSettings) -> Value {
    let mut csv = base.clone();
    let accounts = service_accounts(objects, &settings.extra_service_accounts);
    csv["metadata"]["name"] = json!(format!("{}.v{}", settings.package, settings.version));
    // OLM puts the CSV into the operator group's namespace (the base's says `placeholder`).
    csv["metadata"]
        .as_object_mut()
        .map(|m| m.remove("namespace"));
    csv["spec"]["version"] = json!(settings.version);
    // Samples of the versions the CSV owns: those their CRD serves.
    let examples: Vec<&Value> = objects
        .iter()
        .filter(|o| {
            owned_kind(objects, &o.object).is_some_and(|crd| {
                let version = o.object["apiVersion"].as_str().unwrap_or_default();
                let version = version.rsplit_once('/').map_or(version, |(_, v)| v);
                bundle_validate::serves(&crd.object, version)
            })
        })
        .map(|o| &o.object)
        .collect();
    csv["metadata"]["annotations"]["alm-examples"] =
        json!(serde_json::to_string_pretty(&examples).unwrap_or_else(|_| "[]".into()));
    csv["spec"]["customresourcedefinitions"]["owned"] = json!(owned_crds(base, objects));
    let (cluster, namespaced) = permissions(objects, &accounts);
    let cert_secrets = webhooks::certificate_secrets(objects);
    let deployments: Vec<Value> = objects
        .iter()
        .filter(|o| o.kind == "Deployment")
        .map(|o| {
            json!({
                "label": o.object.pointer("/metadata/labels").cloned().unwrap_or(json!({})),
                "name": o.name,
                "spec": for_olm(&o.object["spec"], &cert_secrets),
            })
        })
        .collect();
    let mut install = Map::new();
    if !cluster.is_empty() {
        install.insert("clusterPermissions".into(), json!(cluster));
    }
    install.insert("deployments".into(), json!(deployments));
    if !namespaced.is_empty() {
        install.insert("permissions".into(), json!(namespaced));
    }
    csv["spec"]["install"] = json!({"spec": install, "strategy": "deployment"});
    let definitions = webhooks::definitions(objects);
    match csv["spec"].as_object_mut() {
        Some(spec) if definitions.is_empty() => {
            spec.remove("webhookdefinitions");
        }
        Some(spec) => {
            spec.insert("webhookdefinitions".into(), json!(definitions));
        }
        None => {}
    }
    csv
}

/// A Deployment's spec as OLM runs it: the operator watches the namespaces of its operator
/// group (`WATCH_NAMESPACE` from the `olm.targetNamespaces` annotation OLM puts on the
/// pod, as operator-sdk does), and no volume mounts cert-manager's Secret: OLM mounts the
/// serving certificate of the webhook definitions at the same path.
fn for_olm(spec: &Value, cert_secrets: &[String]) -> Value {
    let mut spec = spec.clone();
    let pod = &mut spec["template"]["spec"];
    let mut dropped = Vec::new();
    if let Some(volumes) = pod.get_mut("volumes").and_then(Value::as_array_mut) {
        volumes.retain(|v| {
            let secret = v.pointer("/secret/secretName").and_then(Value::as_str);
            let keep = secret.is_none_or(|s| !cert_secrets.iter().any(|c| c == s));
            if !keep {
                dropped.push(v["name"].clone());
            }
            keep
        });
        if volumes.is_empty() {
            pod.as_object_mut().map(|p| p.remove("volumes"));
        }
    }
    for container in pod
        .get_mut("containers")
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
    {
        if let Some(mounts) = container
            .get_mut("volumeMounts")
            .and_then(Value::as_array_mut)
        {
            mounts.retain(|m| !dropped.contains(&m["name"]));
            if mounts.is_empty() {
                container.as_object_mut().map(|c| c.remove("volumeMounts"));
            }
        }
        for env in container
            .get_mut("env")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
            .filter(|e| e["name"] == "WATCH_NAMESPACE")
        {
            *env = json!({
                "name": "WATCH_NAMESPACE",
                "valueFrom": {"fieldRef": {"fieldPath": "metadata.annotations['olm.targetNamespaces']"}},
            });
        }
    }
    spec
}

/// The service accounts the CSV carries, which OLM creates: each deployment's (`default`
/// when it names none, as operator-sdk counts it) and those of `--extra-service-accounts`.
pub fn service_accounts(objects: &[Object], extra: &[String]) -> Vec<String> {
    let mut accounts: Vec<String> = objects
        .iter()
        .filter(|o| o.kind == "Deployment")
        .map(|o| {
            o.object
                .pointer("/spec/template/spec/serviceAccountName")
                .and_then(Value::as_str)
                .unwrap_or("default")
                .to_string()
        })
        .collect();
    accounts.extend(extra.iter().cloned());
    accounts.sort();
    accounts.dedup();
    accounts
}

/// The CRD of the project that `object` is an instance of (a sample), if any.
pub fn owned_kind<'a>(objects: &'a [Object], object: &Value) -> Option<&'a Object> {
    let api_version = object["apiVersion"].as_str()?;
    let (group, version) = api_version.split_once('/')?;
    let kind = object["kind"].as_str()?;
    objects
        .iter()
        .filter(|o| o.kind == "CustomResourceDefinition")
        .find(|crd| {
            crd.object["spec"]["group"] == group
                && crd.object["spec"]["names"]["kind"] == kind
                && crd.object["spec"]["versions"]
                    .as_array()
                    .is_some_and(|vs| vs.iter().any(|v| v["name"] == version))
        })
}

/// Every served version of every CRD, with the base's entry for it (display name,
/// description, descriptors the user wrote) kept, else the schema's description.
fn owned_crds(base: &Value, objects: &[Object]) -> Vec<Value> {
    let edited = base
        .pointer("/spec/customresourcedefinitions/owned")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut owned = Vec::new();
    for crd in objects
        .iter()
        .filter(|o| o.kind == "CustomResourceDefinition")
    {
        let kind = crd.object["spec"]["names"]["kind"].clone();
        // OLM keeps a CSV that owns a version its CRD does not serve Pending.
        for version in crd.object["spec"]["versions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|v| v["served"] == true)
        {
            let entry = edited
                .iter()
                .find(|e| e["name"] == crd.name.as_str() && e["version"] == version["name"]);
            let mut out = entry.cloned().unwrap_or_else(|| {
                json!({
                    "description": version
                        .pointer("/schema/openAPIV3Schema/description")
                        .cloned()
                        .unwrap_or(json!("")),
                    "displayName": kind,
                })
            });
            out["kind"] = kind.clone();
            out["name"] = json!(crd.name);
            out["version"] = version["name"].clone();
            owned.push(out);
        }
    }
    owned
}

/// The rules bound to each of `accounts`, one entry per account that has any, sorted by
/// account as operator-sdk sorts them: (clusterPermissions, permissions). A
/// `ClusterRoleBinding` grants cluster-wide; a `RoleBinding`, to a Role or a `ClusterRole`, in
/// the operator's namespace.
fn permissions(objects: &[Object], accounts: &[String]) -> (Vec<Value>, Vec<Value>) {
    let rules_of = |kind: &str, name: &str| -> Vec<Value> {
        objects
            .iter()
            .find(|o| o.kind == kind && o.name == name)
            .and_then(|o| o.object["rules"].as_array().cloned())
            .unwrap_or_default()
    };
    let (mut cluster, mut namespaced) = (Vec::new(), Vec::new());
    for account in accounts {
        let (mut cluster_rules, mut namespaced_rules) = (Vec::new(), Vec::new());
        for binding in objects.iter().filter(|o| bound_to(o, account)) {
            let role_kind = binding.object["roleRef"]["kind"].as_str().unwrap_or("");
            let role = binding.object["roleRef"]["name"].as_str().unwrap_or("");
            let rules = rules_of(role_kind, role);
            if binding.kind == "ClusterRoleBinding" {
                cluster_rules.extend(rules);
            } else {
                namespaced_rules.extend(rules);
            }
        }
        for (rules, out) in [
            (cluster_rules, &mut cluster),
            (namespaced_rules, &mut namespaced),
        ] {
            if !rules.is_empty() {
                out.push(json!({"rules": rules, "serviceAccountName": account}));
            }
        }
    }
    (cluster, namespaced)
}

/// A binding of the service account `sa`.
pub fn bound_to(object: &Object, sa: &str) -> bool {
    matches!(object.kind.as_str(), "RoleBinding" | "ClusterRoleBinding")
        && object.object["subjects"].as_array().is_some_and(|s| {
            s.iter()
                .any(|s| s["kind"] == "ServiceAccount" && s["name"] == sa)
        })
}

/// Roles that the CSV's permissions already carry (bound to one of `accounts`).
pub fn consumed_role(objects: &[Object], object: &Object, accounts: &[String]) -> bool {
    matches!(object.kind.as_str(), "Role" | "ClusterRole")
        && objects
            .iter()
            .filter(|o| accounts.iter().any(|sa| bound_to(o, sa)))
            .any(|b| {
                b.object["roleRef"]["kind"] == object.kind.as_str()
                    && b.object["roleRef"]["name"] == object.name.as_str()
            })
}
