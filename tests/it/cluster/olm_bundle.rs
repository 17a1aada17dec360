//! The OLM bundle of a project with defaulting, validation and conversion webhooks, on a
//! real API server: every manifest of bundle/manifests but the CSV is accepted by a
//! server-side dry-run create in the namespace OLM would install into, and so is what OLM
//! makes of the CSV's webhook definitions when it installs it (a webhook configuration per
//! admission definition, calling `<deploymentName>-service` on containerPort at
//! webhookPath, and the CRD's conversion pointed at the same Service). A definition the
//! API server refuses is one `bundle validate` refuses too.
//!
//! OLM's own CRDs are not installed here (they are not part of this repository): the CSV
//! object itself is checked by `bundle validate` alone.
use std::io::Write as _;
use std::path::Path;
use std::process::{Output, Stdio};

use rusty_sdk_test_tools::needs;
use serde_json::{Value, json};

use super::operator::tool_command;
use crate::bundle_validate::{bundled_webhook_project, yaml_file};
use crate::support::{rusty, transcript};

const NAMESPACE: &str = "olm-bundle-dry-run";

/// `object` under a cluster-scoped name no other suite uses: the shared control plane may
/// already have the tutorial's `memcacheds.cache.my.domain` (a create is then refused as
/// `AlreadyExists`, which says nothing about the object). A CRD moves to a group of its own,
/// a webhook configuration takes a prefix; namespaced objects keep their names.
fn unshared(object: &Value) -> Value {
    let mut object = object.clone();
    match object["kind"].as_str() {
        Some("CustomResourceDefinition") => {
            let group = format!("olm-dry-run.{}", object["spec"]["group"].as_str().unwrap());
            let plural = object["spec"]["names"]["plural"]
                .as_str()
                .unwrap()
                .to_string();
            object["metadata"]["name"] = json!(format!("{plural}.{group}"));
            object["spec"]["group"] = json!(group);
        }
        Some("MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration") => {
            if let Some(name) = object["metadata"]["name"].as_str() {
                object["metadata"]["name"] = json!(format!("olm-dry-run-{name}"));
            }
        }
        _ => {}
    }
    object
}

/// `kubectl create --dry-run=server` of `object` in [`NAMESPACE`], under a name of its own
/// (see [`unshared`]).
fn dry_run_create(object: &Value) -> Output {
    let object = unshared(object);
    let mut child = tool_command("kubectl")
        .args([
            "create",
            "--dry-run=server",
            "-n",
            NAMESPACE,
            "-o",
            "name",
            "-f",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(object.to_string().as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn assert_accepted(what: &str, object: &Value) {
    let output = dry_run_create(object);
    assert!(
        output.status.success(),
        "the API server refused {what}: {}\n{object:#}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The Service OLM makes for a definition's deployment.
fn service_of(definition: &Value) -> Value {
    let deployment = definition["deploymentName"].as_str().unwrap();
    json!({
        "namespace": NAMESPACE,
        "name": format!("{}-service", deployment.replace('.', "-")),
        "path": definition["webhookPath"],
        "port": definition["containerPort"],
    })
}

/// The webhook configuration OLM makes of an admission definition.
fn webhook_configuration(definition: &Value) -> Value {
    let mut webhook = json!({
        "name": definition["generateName"],
        "clientConfig": {"service": service_of(definition)},
    });
    for field in [
        "rules",
        "failurePolicy",
        "matchPolicy",
        "objectSelector",
        "sideEffects",
        "timeoutSeconds",
        "admissionReviewVersions",
        "reinvocationPolicy",
    ] {
        if let Some(value) = definition.get(field) {
            webhook[field] = value.clone();
        }
    }
    let kind = if definition["type"] == "MutatingAdmissionWebhook" {
        "MutatingWebhookConfiguration"
    } else {
        webhook
            .as_object_mut()
            .unwrap()
            .remove("reinvocationPolicy");
        "ValidatingWebhookConfiguration"
    };
    json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": kind,
        "metadata": {"generateName": format!("{}-", definition["generateName"].as_str().unwrap())},
        "webhooks": [webhook],
    })
}

fn csv_path(root: &Path) -> std::path::PathBuf {
    root.join("bundle/manifests/hooked-bundle.clusterserviceversion.yaml")
}

#[needs(control_plane, kubectl)]
#[test]
fn the_bundle_and_what_olm_makes_of_its_webhooks_are_accepted_by_the_api_server() {
    let dir = tempfile::tempdir().unwrap();
    let root = bundled_webhook_project(dir.path());
    let _ = tool_command("kubectl")
        .args(["create", "namespace", NAMESPACE])
        .output()
        .unwrap();

    let manifests: Vec<Value> = std::fs::read_dir(root.join("bundle/manifests"))
        .unwrap()
        .map(|entry| yaml_file(&entry.unwrap().path()))
        .filter(|object| object["kind"] != "ClusterServiceVersion")
        .collect();
    assert!(manifests.len() >= 5, "only {} manifests", manifests.len());
    for object in &manifests {
        assert_accepted(
            &format!("{} {}", object["kind"], object["metadata"]["name"]),
            object,
        );
    }

    let csv = yaml_file(&csv_path(&root));
    let definitions = csv["spec"]["webhookdefinitions"].as_array().unwrap();
    for definition in definitions
        .iter()
        .filter(|d| d["type"] != "ConversionWebhook")
    {
        assert_accepted(
            &format!(
                "the webhook configuration of {}",
                definition["generateName"]
            ),
            &webhook_configuration(definition),
        );
    }
    let conversion = definitions
        .iter()
        .find(|d| d["type"] == "ConversionWebhook")
        .unwrap();
    for name in conversion["conversionCRDs"].as_array().unwrap() {
        let name = name.as_str().unwrap();
        let mut crd = manifests
            .iter()
            .find(|o| o["kind"] == "CustomResourceDefinition" && o["metadata"]["name"] == name)
            .unwrap_or_else(|| panic!("no CRD {name} in the bundle"))
            .clone();
        crd["spec"]["conversion"] = json!({
            "strategy": "Webhook",
            "webhook": {
                "clientConfig": {"service": service_of(conversion)},
                "conversionReviewVersions": conversion["admissionReviewVersions"],
            },
        });
        assert_accepted(&format!("the conversion of {name}"), &crd);
    }

    // Definitions the API server refuses, and `bundle validate` refuses as well.
    let mutating = definitions
        .iter()
        .position(|d| d["type"] == "MutatingAdmissionWebhook")
        .unwrap();
    for (field, value, finding) in [
        ("generateName", json!("mmemcached"), "is not a webhook name"),
        (
            "sideEffects",
            json!("Some"),
            "the API server takes None or NoneOnDryRun",
        ),
        ("admissionReviewVersions", json!(["v2"]), "must list v1"),
    ] {
        let mut definition = definitions[mutating].clone();
        definition[field] = value.clone();
        let output = dry_run_create(&webhook_configuration(&definition));
        assert!(
            !output.status.success(),
            "the API server took {field}: {value}"
        );
        let mut broken = csv.clone();
        broken["spec"]["webhookdefinitions"][mutating] = definition;
        std::fs::write(csv_path(&root), serde_yaml::to_string(&broken).unwrap()).unwrap();
        let output = rusty(&root)
            .args(["bundle", "validate", "bundle"])
            .output()
            .unwrap();
        let text = transcript(&output, &root);
        assert!(
            !output.status.success()
                && text.contains(&format!("spec.webhookdefinitions[{mutating}].{field}: "))
                && text.contains(finding),
            "{field}: {value}\n{text}"
        );
    }
    let _ = tool_command("kubectl")
        .args(["delete", "namespace", NAMESPACE, "--wait=false"])
        .output();
}
