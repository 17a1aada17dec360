//! The ClusterServiceVersion's rules: its required fields, name and version, install
//! modes, install strategy, examples (operator-framework/api's CSV validator), and its
//! webhook definitions as OLM reads them when it installs the CSV.
use std::collections::BTreeSet;

use serde_json::Value;

use super::{Bundle, Document, Findings};
use crate::model::names::is_dns_subdomain;

const INSTALL_MODES: [&str; 4] = [
    "OwnNamespace",
    "SingleNamespace",
    "MultiNamespace",
    "AllNamespaces",
];
const WEBHOOK_TYPES: [&str; 3] = [
    "ValidatingAdmissionWebhook",
    "MutatingAdmissionWebhook",
    "ConversionWebhook",
];

/// `spec.customresourcedefinitions.owned` of the CSV.
pub fn owned(csv: &Document) -> Vec<Value> {
    array(&csv.object, "/spec/customresourcedefinitions/owned")
}

/// `spec.install.spec.deployments` of the CSV.
pub fn deployments(csv: &Document) -> Vec<Value> {
    array(&csv.object, "/spec/install/spec/deployments")
}

fn array(value: &Value, pointer: &str) -> Vec<Value> {
    value
        .pointer(pointer)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn text<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
}

pub fn check(csv: &Document, package: Option<&str>, bundle: &Bundle, findings: &mut Findings) {
    let file = &csv.file;
    let object = &csv.object;
    if object["apiVersion"] != "operators.coreos.com/v1alpha1" {
        findings.error(
            file,
            "apiVersion",
            format!(
                "{} is not the CSV's; set it to operators.coreos.com/v1alpha1",
                object["apiVersion"]
            ),
        );
    }
    name_and_version(csv, package, findings);
    if text(object, "/spec/displayName").trim().is_empty() {
        findings.error(
            file,
            "spec.displayName",
            "missing; set the operator's display name (in the base CSV, config/manifests/bases)",
        );
    }
    for (pointer, field) in [
        ("/spec/description", "spec.description"),
        ("/spec/provider/name", "spec.provider.name"),
    ] {
        if text(object, pointer).trim().is_empty() {
            findings.warn(
                file,
                field,
                "empty; OperatorHub shows it, set it in the base CSV (config/manifests/bases)",
            );
        }
    }
    let min_kube = text(object, "/spec/minKubeVersion");
    if min_kube.is_empty() {
        findings.warn(
            file,
            "spec.minKubeVersion",
            "not set; set the oldest Kubernetes version the operator runs on (e.g. 1.31.0)",
        );
    } else if semver::Version::parse(min_kube).is_err() {
        findings.error(
            file,
            "spec.minKubeVersion",
            format!("{min_kube:?} is not a semantic version; write it as 1.31.0"),
        );
    }
    install_modes(csv, findings);
    install_strategy(csv, findings);
    examples(csv, findings);
    annotation_names(csv, findings);
    related_images(csv, findings);
    for (i, entry) in owned(csv).iter().enumerate() {
        let field = format!("spec.customresourcedefinitions.owned[{i}]");
        for key in ["name", "version", "kind"] {
            if entry[key].as_str().is_none_or(str::is_empty) {
                findings.error(
                    file,
                    &format!("{field}.{key}"),
                    "missing; an owned CRD names its CRD (<plural>.<group>), version and kind",
                );
            }
        }
        if entry["name"].as_str().is_some_and(|n| !n.contains('.')) {
            findings.error(
                file,
                &format!("{field}.name"),
                format!("{} is not <plural>.<group>; name the CRD", entry["name"]),
            );
        }
    }
    webhook_definitions(csv, bundle, findings);
}

/// metadata.name is `<package>.v<spec.version>`, spec.version a semantic version.
fn name_and_version(csv: &Document, package: Option<&str>, findings: &mut Findings) {
    let file = &csv.file;
    let name = csv.name();
    let version = text(&csv.object, "/spec/version");
    let valid_name = |name: &str| name.len() <= 63 && is_dns_subdomain(name);
    if name.is_empty() || !valid_name(name) {
        findings.error(
            file,
            "metadata.name",
            format!(
                "{name:?} is not a valid CSV name (a DNS-1123 subdomain of at most 63 characters, as it is a label value too); name it <package>.v<version>"
            ),
        );
    }
    if version.is_empty() {
        findings.error(
            file,
            "spec.version",
            "missing; set the operator's semantic version (make bundle VERSION=0.1.0)",
        );
    } else if semver::Version::parse(version).is_err() {
        findings.error(
            file,
            "spec.version",
            format!("{version:?} is not a semantic version; use one like 0.1.0 (make bundle VERSION=0.1.0)"),
        );
    } else if let Some(package) = package {
        let wanted = format!("{package}.v{version}");
        if !name.is_empty() && name != wanted {
            findings.error(
                file,
                "metadata.name",
                format!(
                    "{name:?} is not <package>.v<spec.version> = {wanted:?}; rename it (make bundle does)"
                ),
            );
        }
    }
    let replaces = text(&csv.object, "/spec/replaces");
    if !replaces.is_empty() && !valid_name(replaces) {
        findings.error(
            file,
            "spec.replaces",
            format!("{replaces:?} is not a CSV name; name the CSV this one replaces (<package>.v<version>)"),
        );
    }
}

fn install_modes(csv: &Document, findings: &mut Findings) {
    let file = &csv.file;
    let modes = array(&csv.object, "/spec/installModes");
    if modes.is_empty() {
        findings.error(
            file,
            "spec.installModes",
            "missing; list the four install modes and set supported: true on those the operator supports",
        );
        return;
    }
    let mut seen = BTreeSet::new();
    for (i, mode) in modes.iter().enumerate() {
        let kind = mode["type"].as_str().unwrap_or_default();
        if !INSTALL_MODES.contains(&kind) {
            findings.error(
                file,
                &format!("spec.installModes[{i}].type"),
                format!(
                    "{kind:?} is not an install mode; use one of {}",
                    INSTALL_MODES.join(", ")
                ),
            );
        } else if !seen.insert(kind) {
            findings.error(
                file,
                &format!("spec.installModes[{i}].type"),
                format!("{kind} is listed twice; keep one entry"),
            );
        }
    }
    let supported = |kind: &str| {
        modes
            .iter()
            .any(|m| m["type"] == kind && m["supported"] == true)
    };
    if !INSTALL_MODES.iter().any(|k| supported(k)) {
        findings.error(
            file,
            "spec.installModes",
            "no install mode is supported; set supported: true on at least one (in the base CSV, config/manifests/bases)",
        );
    }
    let converts = array(&csv.object, "/spec/webhookdefinitions")
        .iter()
        .any(|w| {
            w["conversionCRDs"]
                .as_array()
                .is_some_and(|c| !c.is_empty())
        });
    let only_all = supported("AllNamespaces") && INSTALL_MODES[..3].iter().all(|k| !supported(k));
    if converts && !only_all {
        findings.error(
            file,
            "spec.installModes",
            "a conversion webhook needs AllNamespaces as the only supported install mode (a CRD's conversion serves the whole cluster); set AllNamespaces supported and the others not (in the base CSV, config/manifests/bases)",
        );
    }
}

fn install_strategy(csv: &Document, findings: &mut Findings) {
    let file = &csv.file;
    let strategy = text(&csv.object, "/spec/install/strategy");
    if strategy != "deployment" {
        findings.error(
            file,
            "spec.install.strategy",
            format!(
                "{strategy:?}: OLM installs only the \"deployment\" strategy; set it to deployment"
            ),
        );
    }
    let deployments = deployments(csv);
    if deployments.is_empty() {
        findings.error(
            file,
            "spec.install.spec.deployments",
            "empty: the CSV installs no operator; make bundle takes the manager's Deployment from config/manifests",
        );
    }
    let mut names = BTreeSet::new();
    for (i, deployment) in deployments.iter().enumerate() {
        let field = format!("spec.install.spec.deployments[{i}]");
        let name = deployment["name"].as_str().unwrap_or_default();
        if !is_dns_subdomain(name) {
            findings.error(
                file,
                &format!("{field}.name"),
                format!("{name:?} is not a Deployment name (a DNS-1123 subdomain); name it"),
            );
        } else if !names.insert(name) {
            findings.error(
                file,
                &format!("{field}.name"),
                format!("{name:?} names two deployments; give each its own name"),
            );
        }
        for (key, what) in [
            ("selector", "the pods' label selector"),
            ("template", "the pod template"),
        ] {
            if !deployment["spec"][key].is_object() {
                findings.error(
                    file,
                    &format!("{field}.spec.{key}"),
                    format!("missing; a deployment's spec has {what}"),
                );
            }
        }
    }
    for which in ["permissions", "clusterPermissions"] {
        let pointer = format!("/spec/install/spec/{which}");
        for (i, entry) in array(&csv.object, &pointer).iter().enumerate() {
            let field = format!("spec.install.spec.{which}[{i}]");
            if entry["serviceAccountName"]
                .as_str()
                .is_none_or(str::is_empty)
            {
                findings.error(
                    file,
                    &format!("{field}.serviceAccountName"),
                    "missing; name the service account the rules are granted to",
                );
            }
            if !entry["rules"].is_array() {
                findings.error(file, &format!("{field}.rules"), "missing; list the rules");
            }
        }
    }
}

/// Each of `spec.relatedImages` names an image reference (operator-framework/api's check:
/// disconnected mirrors copy these images by reference).
fn related_images(csv: &Document, findings: &mut Findings) {
    for (i, related) in array(&csv.object, "/spec/relatedImages").iter().enumerate() {
        let image = related["image"].as_str().unwrap_or_default();
        if let Some(problem) = crate::model::image_ref::problem(image) {
            findings.error(
                &csv.file,
                &format!("spec.relatedImages[{i}].image"),
                format!("{image:?} is not an image reference ({problem}); write <registry>/<name>:<tag> or @sha256:<digest>"),
            );
        }
    }
}

/// The annotations OLM reads by their exact spelling (operator-framework/api's
/// case-sensitive keys): a key spelled in another case is one OLM never sees.
const CASE_SENSITIVE_ANNOTATIONS: [&str; 5] = [
    "olm.operatorGroup",
    "olm.operatorNamespace",
    "olm.targetNamespaces",
    "olm.providedAPIs",
    "olm.skipRange",
];

fn annotation_names(csv: &Document, findings: &mut Findings) {
    let Some(annotations) = csv
        .object
        .pointer("/metadata/annotations")
        .and_then(Value::as_object)
    else {
        return;
    };
    for key in annotations.keys() {
        if let Some(wanted) = CASE_SENSITIVE_ANNOTATIONS
            .iter()
            .find(|wanted| wanted.eq_ignore_ascii_case(key) && *wanted != key)
        {
            findings.error(
                &csv.file,
                &format!("metadata.annotations.{key}"),
                format!("OLM reads this annotation only as {wanted}; rename the key (in the base CSV, config/manifests/bases)"),
            );
        }
    }
}

/// alm-examples (or olm.examples, which OLM reads when alm-examples is absent) is a JSON
/// list of objects, each of a kind the CSV owns.
fn examples(csv: &Document, findings: &mut Findings) {
    let file = &csv.file;
    let annotations = csv.object.pointer("/metadata/annotations");
    let key = ["alm-examples", "olm.examples"]
        .into_iter()
        .find(|key| annotations.and_then(|a| a.get(key)).is_some())
        .unwrap_or("alm-examples");
    let field = &format!("metadata.annotations.{key}");
    let Some(text) = annotations.and_then(|a| a.get(key)).and_then(Value::as_str) else {
        findings.warn(
            file,
            field,
            "missing; add a sample of each owned kind (config/samples)",
        );
        return;
    };
    let examples: Vec<Value> = if text.trim().is_empty() {
        Vec::new()
    } else {
        match serde_json::from_str(text) {
            Ok(examples) => examples,
            Err(e) => {
                findings.error(
                    file,
                    field,
                    format!("not a JSON list of objects ({e}); fix it"),
                );
                return;
            }
        }
    };
    let owned: BTreeSet<(String, String, String)> = owned(csv)
        .iter()
        .map(|o| {
            let name = o["name"].as_str().unwrap_or_default();
            (
                name.split_once('.').map_or("", |(_, g)| g).to_string(),
                o["version"].as_str().unwrap_or_default().to_string(),
                o["kind"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let mut given = BTreeSet::new();
    for example in &examples {
        let api_version = example["apiVersion"].as_str().unwrap_or_default();
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        let kind = example["kind"].as_str().unwrap_or_default();
        let key = (group.to_string(), version.to_string(), kind.to_string());
        if !owned.contains(&key) {
            findings.error(
                file,
                field,
                format!(
                    "an example of {kind} {api_version}, which the CSV does not own; remove the sample or own its CRD"
                ),
            );
        }
        given.insert(key);
    }
    for (group, version, kind) in owned.difference(&given) {
        findings.warn(
            file,
            field,
            format!("no example of {kind} {group}/{version}; add a sample to config/samples"),
        );
    }
}

/// The webhook definitions, as OLM reads them when it installs the CSV.
fn webhook_definitions(csv: &Document, bundle: &Bundle, findings: &mut Findings) {
    let file = &csv.file;
    let deployments: Vec<String> = deployments(csv)
        .iter()
        .filter_map(|d| d["name"].as_str().map(str::to_string))
        .collect();
    let owned = owned(csv);
    let mut names = BTreeSet::new();
    for (i, definition) in array(&csv.object, "/spec/webhookdefinitions")
        .iter()
        .enumerate()
    {
        let field = |key: &str| format!("spec.webhookdefinitions[{i}].{key}");
        let kind = definition["type"].as_str().unwrap_or_default();
        if !WEBHOOK_TYPES.contains(&kind) {
            findings.error(
                file,
                &field("type"),
                format!(
                    "{kind:?} is not a webhook type; use one of {}",
                    WEBHOOK_TYPES.join(", ")
                ),
            );
            continue;
        }
        let admission = kind != "ConversionWebhook";
        let name = definition["generateName"].as_str().unwrap_or_default();
        // The API server names admission webhooks by a domain of at least three parts.
        let name_ok = is_dns_subdomain(name) && (!admission || name.split('.').count() >= 3);
        if !name_ok {
            findings.error(
                file,
                &field("generateName"),
                format!(
                    "{name:?} is not a webhook name: a DNS-1123 subdomain of at least three parts (e.g. vmemcached-v1.kb.io)"
                ),
            );
        } else if !names.insert((kind, name)) {
            findings.error(
                file,
                &field("generateName"),
                format!("{name:?} names two {kind}s; give each its own name"),
            );
        }
        let deployment = definition["deploymentName"].as_str().unwrap_or_default();
        if !deployments.iter().any(|d| d == deployment) {
            findings.error(
                file,
                &field("deploymentName"),
                format!(
                    "{deployment:?} names no deployment of spec.install.spec.deployments ({}); name the Deployment that serves the webhook",
                    deployments.join(", ")
                ),
            );
        }
        how_the_api_server_calls(file, i, definition, admission, findings);
        if admission {
            admission_rules(file, &field("rules"), definition, findings);
        } else {
            conversion(
                csv,
                bundle,
                &owned,
                &field("conversionCRDs"),
                definition,
                findings,
            );
        }
    }
}

/// How the API server calls the webhook of definition `i`: its ports and path, the review
/// versions it sends, what it may retry and what it does on failure.
fn how_the_api_server_calls(
    file: &str,
    i: usize,
    definition: &Value,
    admission: bool,
    findings: &mut Findings,
) {
    let field = |key: &str| format!("spec.webhookdefinitions[{i}].{key}");
    for key in ["containerPort", "targetPort"] {
        if let Some(port) = definition.get(key).and_then(Value::as_i64)
            && !(1..=65535).contains(&port)
        {
            findings.error(
                file,
                &field(key),
                format!("{port} is not a port (1 to 65535)"),
            );
        }
    }
    let path = definition["webhookPath"].as_str().unwrap_or_default();
    if !path.starts_with('/') {
        findings.error(
            file,
            &field("webhookPath"),
            format!(
                "{path:?}: set the path the manager serves this webhook on ({}); without it OLM calls /",
                if admission {
                    "the webhook's path in config/webhook/manifests.yaml"
                } else {
                    "/convert for rusty-sdk's conversion webhooks"
                }
            ),
        );
    }
    let versions = array(definition, "/admissionReviewVersions");
    if !versions.iter().any(|v| v == "v1" || v == "v1beta1") {
        findings.error(
            file,
            &field("admissionReviewVersions"),
            "must list v1 (or v1beta1), the review versions the API server sends; set [v1]",
        );
    }
    let side_effects = definition["sideEffects"].as_str().unwrap_or_default();
    if !matches!(side_effects, "None" | "NoneOnDryRun") {
        findings.error(
            file,
            &field("sideEffects"),
            format!("{side_effects:?}: the API server takes None or NoneOnDryRun; set None"),
        );
    }
    if let Some(policy) = definition["failurePolicy"].as_str()
        && !matches!(policy, "Fail" | "Ignore")
    {
        findings.error(
            file,
            &field("failurePolicy"),
            format!("{policy:?}: use Fail or Ignore"),
        );
    }
}

/// OLM refuses webhooks on every group, on its own group, and on webhook configurations.
fn admission_rules(file: &str, field: &str, definition: &Value, findings: &mut Findings) {
    let rules = array(definition, "/rules");
    if rules.is_empty() {
        findings.warn(
            file,
            field,
            "empty: the webhook is never called; list the resources and operations it handles",
        );
    }
    for rule in &rules {
        let groups = array(rule, "/apiGroups");
        let resources = array(rule, "/resources");
        let refused = if groups.iter().any(|g| g == "*") {
            Some("every API group (*)")
        } else if groups.iter().any(|g| g == "operators.coreos.com") {
            Some("OLM's own group operators.coreos.com")
        } else if groups.iter().any(|g| g == "admissionregistration.k8s.io")
            && resources.iter().any(|r| {
                r == "*"
                    || r == "MutatingWebhookConfiguration"
                    || r == "ValidatingWebhookConfiguration"
            })
        {
            Some("webhook configurations")
        } else {
            None
        };
        if let Some(what) = refused {
            findings.error(
                file,
                field,
                format!("OLM refuses a webhook on {what}; name the API groups the webhook handles"),
            );
        }
    }
}

/// A conversion webhook lists CRDs the CSV owns, in every version they serve, whose
/// manifests ask for webhook conversion.
fn conversion(
    csv: &Document,
    bundle: &Bundle,
    owned: &[Value],
    field: &str,
    definition: &Value,
    findings: &mut Findings,
) {
    let file = &csv.file;
    let crds = array(definition, "/conversionCRDs");
    if crds.is_empty() {
        findings.error(
            file,
            field,
            "empty; list the CRDs (<plural>.<group>) whose versions this webhook converts",
        );
    }
    for name in crds.iter().map(|c| c.as_str().unwrap_or_default()) {
        let Some(crd) = bundle
            .manifests
            .iter()
            .find(|d| d.kind() == "CustomResourceDefinition" && d.name() == name)
        else {
            findings.error(
                file,
                field,
                format!(
                    "{name:?} is not a CRD in {}/manifests; add it or remove it from the list",
                    bundle.dir
                ),
            );
            continue;
        };
        if !owned.iter().any(|o| o["name"] == name) {
            findings.error(
                file,
                field,
                format!("{name:?} is not owned by the CSV; OLM converts only owned CRDs, add it to spec.customresourcedefinitions.owned"),
            );
            continue;
        }
        if crd.object.pointer("/spec/conversion/strategy") != Some(&Value::from("Webhook")) {
            findings.error(
                &crd.file,
                "spec.conversion.strategy",
                "not Webhook, but the CSV's conversion webhook converts this CRD; set spec.conversion.strategy: Webhook (make manifests writes it for a CRD with a conversion webhook)",
            );
        }
        if crd.object.pointer("/spec/preserveUnknownFields") == Some(&Value::Bool(true)) {
            findings.error(
                &crd.file,
                "spec.preserveUnknownFields",
                "true, but OLM sets up a conversion webhook only for CRDs that prune; set it to false",
            );
        }
        for version in array(&crd.object, "/spec/versions") {
            let version = version["name"].as_str().unwrap_or_default();
            if super::rules::serves(&crd.object, version)
                && !owned
                    .iter()
                    .any(|o| o["name"] == name && o["version"] == version)
            {
                findings.error(
                    file,
                    "spec.customresourcedefinitions.owned",
                    format!(
                        "lists no {version} of {name}, which its conversion webhook converts; own every version the CRD serves (make bundle does)"
                    ),
                );
            }
        }
    }
}
