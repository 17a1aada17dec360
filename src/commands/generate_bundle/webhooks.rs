//! The CSV's `spec.webhookdefinitions`, as operator-sdk's `generate bundle` writes them.
//!
//! OLM does not install webhook configurations from a bundle: it makes them itself from
//! these definitions, with a Service named `<deploymentName>-service`, a certificate of its
//! own mounted into the deployment at `/tmp/k8s-webhook-server/serving-certs` (where the
//! manager's `--webhook-cert-path` looks) and the `caBundle`s filled in, in the namespace it
//! installs the operator into. So the kustomize tree's webhook configurations, the Service
//! they call, and cert-manager's Certificate and Issuer stay out of the bundle; a CRD's
//! conversion webhook becomes a `ConversionWebhook` definition, whose client config OLM
//! writes into the CRD when it installs the CSV.
use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::kustomize_output::Object;

const VALIDATING: &str = "ValidatingWebhookConfiguration";
const MUTATING: &str = "MutatingWebhookConfiguration";

/// The webhook definitions of the admission webhooks and CRD conversions in `objects`,
/// sorted by generateName (as operator-sdk sorts them).
pub fn definitions(objects: &[Object]) -> Vec<Value> {
    let mut out = Vec::new();
    for config in objects
        .iter()
        .filter(|o| o.kind == VALIDATING || o.kind == MUTATING)
    {
        for webhook in config.object["webhooks"].as_array().into_iter().flatten() {
            out.push(admission(objects, &config.kind, webhook));
        }
    }
    out.extend(conversions(objects));
    out.sort_by(|a, b| a["generateName"].as_str().cmp(&b["generateName"].as_str()));
    out
}

/// One admission webhook of a configuration of kind `kind`.
fn admission(objects: &[Object], kind: &str, webhook: &Value) -> Value {
    let kind = if kind == MUTATING {
        "MutatingAdmissionWebhook"
    } else {
        "ValidatingAdmissionWebhook"
    };
    let mut out = Map::new();
    out.insert("type".into(), json!(kind));
    out.insert("generateName".into(), webhook["name"].clone());
    for field in [
        "rules",
        "failurePolicy",
        "matchPolicy",
        "objectSelector",
        "timeoutSeconds",
        "reinvocationPolicy",
    ] {
        if let Some(value) = webhook.get(field).filter(|v| !v.is_null()) {
            out.insert(field.into(), value.clone());
        }
    }
    out.insert(
        "sideEffects".into(),
        webhook.get("sideEffects").cloned().unwrap_or(json!("None")),
    );
    out.insert(
        "admissionReviewVersions".into(),
        webhook
            .get("admissionReviewVersions")
            .cloned()
            .unwrap_or(json!(["v1"])),
    );
    if let Some(service) = webhook.pointer("/clientConfig/service") {
        served_by(objects, service, &mut out);
    }
    Value::Object(out)
}

/// One definition per (Service, port, path) that CRD conversions call, listing the CRDs.
fn conversions(objects: &[Object]) -> Vec<Value> {
    let mut by_endpoint: BTreeMap<(String, i64, String), (Value, Vec<String>)> = BTreeMap::new();
    for crd in objects
        .iter()
        .filter(|o| o.kind == "CustomResourceDefinition")
    {
        let conversion = &crd.object["spec"]["conversion"];
        let Some(service) = conversion.pointer("/webhook/clientConfig/service") else {
            continue;
        };
        if conversion["strategy"] != "Webhook" {
            continue;
        }
        let key = (
            service["name"].as_str().unwrap_or_default().to_string(),
            service["port"].as_i64().unwrap_or(443),
            service["path"].as_str().unwrap_or("/").to_string(),
        );
        let entry = by_endpoint.entry(key).or_insert_with(|| {
            let versions = conversion
                .pointer("/webhook/conversionReviewVersions")
                .cloned()
                .unwrap_or(json!(["v1"]));
            (
                json!({"service": service, "versions": versions}),
                Vec::new(),
            )
        });
        entry.1.push(crd.name.clone());
    }
    by_endpoint
        .into_values()
        .map(|(endpoint, mut crds)| {
            crds.sort();
            // operator-sdk's name: `c`, the CRDs' plurals, `.kb.io`.
            let plurals: String = crds
                .iter()
                .map(|name| name.split('.').next().unwrap_or_default())
                .collect();
            let mut out = Map::new();
            out.insert("type".into(), json!("ConversionWebhook"));
            out.insert("generateName".into(), json!(format!("c{plurals}.kb.io")));
            out.insert("conversionCRDs".into(), json!(crds));
            out.insert(
                "admissionReviewVersions".into(),
                endpoint["versions"].clone(),
            );
            out.insert("sideEffects".into(), json!("None"));
            served_by(objects, &endpoint["service"], &mut out);
            Value::Object(out)
        })
        .collect()
}

/// deploymentName, containerPort, targetPort and webhookPath of a webhook that calls
/// `service` (a client config's service reference): the Deployment whose pods the
/// Service selects, and the Service's port the reference names.
fn served_by(objects: &[Object], service: &Value, out: &mut Map<String, Value>) {
    let name = service["name"].as_str().unwrap_or_default();
    let port = service["port"].as_i64().unwrap_or(443);
    let target = objects
        .iter()
        .find(|o| o.kind == "Service" && o.name == name);
    if let Some(port) = target
        .and_then(|s| s.object.pointer("/spec/ports").and_then(Value::as_array))
        .and_then(|ports| ports.iter().find(|p| p["port"].as_i64() == Some(port)))
    {
        out.insert("containerPort".into(), port["port"].clone());
        if let Some(target_port) = port.get("targetPort") {
            out.insert("targetPort".into(), target_port.clone());
        }
    }
    // Without a Deployment the Service selects, operator-sdk guesses the Service's name
    // without `-service`; `bundle validate` then says that no deployment has that name.
    let deployment = target
        .and_then(|s| selected_deployment(objects, s))
        .unwrap_or_else(|| name.trim_end_matches("-service").to_string());
    out.insert("deploymentName".into(), json!(deployment));
    if let Some(path) = service.get("path") {
        out.insert("webhookPath".into(), path.clone());
    }
}

/// The Deployment whose pod template carries every label of `service`'s selector.
fn selected_deployment(objects: &[Object], service: &Object) -> Option<String> {
    let selector = service.object.pointer("/spec/selector")?.as_object()?;
    if selector.is_empty() {
        return None;
    }
    objects
        .iter()
        .filter(|o| o.kind == "Deployment")
        .find(|d| {
            let labels = &d.object["spec"]["template"]["metadata"]["labels"];
            selector.iter().all(|(k, v)| labels.get(k) == Some(v))
        })
        .map(|d| d.name.clone())
}

/// Whether `object` is something OLM makes from the webhook definitions, so it stays out
/// of the bundle's manifests: a webhook configuration, a Service that a webhook or a CRD
/// conversion calls, or a cert-manager object (OLM issues the serving certificate).
pub fn made_by_olm(objects: &[Object], object: &Object) -> bool {
    if object.kind == VALIDATING || object.kind == MUTATING {
        return true;
    }
    if object.object["apiVersion"]
        .as_str()
        .is_some_and(|v| v.starts_with("cert-manager.io/"))
    {
        return true;
    }
    object.kind == "Service" && webhook_services(objects).any(|name| name == object.name)
}

/// The names of the Services that webhooks and CRD conversions call.
fn webhook_services(objects: &[Object]) -> impl Iterator<Item = &str> {
    objects.iter().flat_map(|o| {
        let services: Vec<&str> = match o.kind.as_str() {
            VALIDATING | MUTATING => o.object["webhooks"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|w| w.pointer("/clientConfig/service/name")?.as_str())
                .collect(),
            "CustomResourceDefinition" => o
                .object
                .pointer("/spec/conversion/webhook/clientConfig/service/name")
                .and_then(Value::as_str)
                .into_iter()
                .collect(),
            _ => Vec::new(),
        };
        services
    })
}

/// The names of the Secrets cert-manager writes the serving certificate into: the CSV's
/// deployment does not mount them (OLM mounts its own certificate at the same path).
pub fn certificate_secrets(objects: &[Object]) -> Vec<String> {
    objects
        .iter()
        .filter(|o| {
            o.kind == "Certificate"
                && o.object["apiVersion"]
                    .as_str()
                    .is_some_and(|v| v.starts_with("cert-manager.io/"))
        })
        .filter_map(|o| o.object.pointer("/spec/secretName")?.as_str())
        .map(str::to_string)
        .collect()
}

/// A CRD as the bundle carries it: without cert-manager's CA injection annotation (OLM
/// writes the conversion's `caBundle` itself).
pub fn without_ca_injection(crd: &mut Value) {
    if let Some(annotations) = crd
        .pointer_mut("/metadata/annotations")
        .and_then(Value::as_object_mut)
    {
        annotations.remove("cert-manager.io/inject-ca-from");
        if annotations.is_empty() {
            crd["metadata"]
                .as_object_mut()
                .map(|m| m.remove("annotations"));
        }
    }
}
