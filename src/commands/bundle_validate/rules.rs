//! The rules on a bundle as a whole: its metadata (operator-registry's annotation checks),
//! the kinds OLM installs from a registry+v1 bundle, one CSV, and the CRDs it owns (the
//! bundle validator of operator-framework/api). The CSV's own rules are in `csv_rules`.
use std::collections::BTreeSet;

use serde_json::Value;

use super::{Bundle, Document, Findings, csv_rules};

pub const MEDIATYPE: &str = "operators.operatorframework.io.bundle.mediatype.v1";
pub const MANIFESTS: &str = "operators.operatorframework.io.bundle.manifests.v1";
pub const METADATA: &str = "operators.operatorframework.io.bundle.metadata.v1";
pub const PACKAGE: &str = "operators.operatorframework.io.bundle.package.v1";
pub const CHANNELS: &str = "operators.operatorframework.io.bundle.channels.v1";
pub const DEFAULT_CHANNEL: &str = "operators.operatorframework.io.bundle.channel.default.v1";

/// The kinds OLM installs from a registry+v1 bundle (operator-registry's list).
const SUPPORTED_KINDS: [&str; 22] = [
    "ClusterServiceVersion",
    "CustomResourceDefinition",
    "Secret",
    "ClusterRole",
    "ClusterRoleBinding",
    "ConfigMap",
    "ServiceAccount",
    "Service",
    "Role",
    "RoleBinding",
    "PrometheusRule",
    "ServiceMonitor",
    "PodDisruptionBudget",
    "PriorityClass",
    "VerticalPodAutoscaler",
    "ConsoleYAMLSample",
    "ConsoleQuickStart",
    "ConsoleCLIDownload",
    "ConsoleLink",
    "ConsolePlugin",
    "NetworkPolicy",
    "PodMonitor",
];

pub fn check(bundle: &Bundle, findings: &mut Findings) {
    let package = annotations(bundle, findings);
    dockerfile_labels(bundle, findings);
    size(bundle, findings);
    for document in &bundle.manifests {
        object(document, findings);
    }
    let csvs: Vec<&Document> = bundle
        .manifests
        .iter()
        .filter(|d| d.kind() == "ClusterServiceVersion")
        .collect();
    let manifests = format!("{}/manifests", bundle.dir);
    match csvs.as_slice() {
        [] => findings.error(
            &manifests,
            "",
            "no ClusterServiceVersion; a bundle has exactly one (`make bundle` writes <package>.clusterserviceversion.yaml)",
        ),
        [csv] => {
            csv_rules::check(csv, package.as_deref(), bundle, findings);
            owned_crds(csv, bundle, findings);
            service_accounts(csv, bundle, findings);
        }
        [_, more @ ..] => {
            for extra in more {
                findings.error(
                    &extra.file,
                    "",
                    "a second ClusterServiceVersion; a bundle has exactly one, remove this file",
                );
            }
        }
    }
}

/// The checks of metadata/annotations.yaml; the package name, if it has one.
fn annotations(bundle: &Bundle, findings: &mut Findings) -> Option<String> {
    let document = bundle.annotations.as_ref()?;
    let file = &document.file;
    let Some(map) = document
        .object
        .get("annotations")
        .and_then(Value::as_object)
    else {
        findings.error(
            file,
            "annotations",
            "missing; the file holds the bundle's labels under `annotations:`",
        );
        return None;
    };
    let text = |key: &str| map.get(key).map(|v| v.as_str().unwrap_or_default().trim());
    for (key, wanted) in [
        (MEDIATYPE, "registry+v1"),
        (MANIFESTS, "manifests/"),
        (METADATA, "metadata/"),
    ] {
        match text(key) {
            None => findings.error(file, key, format!("missing; set it to {wanted}")),
            Some(value) if value != wanted => findings.error(
                file,
                key,
                format!(
                    "is {value:?}, but the bundle's layout needs {wanted:?} (its folders are manifests/ and metadata/, its format registry+v1); set it to {wanted}"
                ),
            ),
            Some(_) => {}
        }
    }
    let package = match text(PACKAGE) {
        None | Some("") => {
            findings.error(
                file,
                PACKAGE,
                "missing; set it to the OLM package name (e.g. memcached-operator)",
            );
            None
        }
        Some(name) if !crate::model::names::is_dns_label(name) => {
            findings.error(
                file,
                PACKAGE,
                format!(
                    "{name:?} is not a DNS-1123 label; use lower-case letters, digits and '-' (e.g. memcached-operator)"
                ),
            );
            None
        }
        Some(name) => Some(name.to_string()),
    };
    channels(file, text(CHANNELS), text(DEFAULT_CHANNEL), findings);
    package
}

/// OLM unpacks a bundle into one ConfigMap, each file gzipped and base64-encoded: past
/// 1 MiB it cannot (operator-framework/api's bundle size check, with its warning at 85%).
const MAX_STAGED_BYTES: u64 = 1 << 20;

fn size(bundle: &Bundle, findings: &mut Findings) {
    let Some(size) = bundle.staged_bytes else {
        return;
    };
    let shown = |bytes: u64| format!("{}.{} kB", bytes / 1000, bytes % 1000 / 100);
    let what = format!(
        "its files take {} gzipped and base64-encoded, as OLM keeps them in the one ConfigMap it unpacks a bundle into",
        shown(size)
    );
    if size > MAX_STAGED_BYTES {
        findings.error(
            &bundle.dir,
            "",
            format!(
                "{what}, more than the {} it can hold; make the bundle smaller (long CRD descriptions, large ConfigMaps)",
                shown(MAX_STAGED_BYTES)
            ),
        );
    } else if size > MAX_STAGED_BYTES / 100 * 85 {
        findings.warn(
            &bundle.dir,
            "",
            format!("{what}, near the {} it can hold", shown(MAX_STAGED_BYTES)),
        );
    }
}

/// The bundle image's labels say what metadata/annotations.yaml says: each of OLM's keys
/// (`operators.operatorframework.io.*`) in one is in the other with the same value.
fn dockerfile_labels(bundle: &Bundle, findings: &mut Findings) {
    let (Some(dockerfile), Some(annotations)) = (&bundle.dockerfile, &bundle.annotations) else {
        return;
    };
    let Some(map) = annotations.object["annotations"].as_object() else {
        return;
    };
    let olm = |key: &str| key.starts_with("operators.operatorframework.io.");
    let label = |key: &str| {
        dockerfile
            .labels
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    let again = "the image's labels and metadata/annotations.yaml must agree: run make bundle again (it writes both)";
    for (key, value) in map.iter().filter(|(key, _)| olm(key)) {
        let value = match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        match label(key) {
            None => findings.error(
                &dockerfile.file,
                &format!("LABEL {key}"),
                format!(
                    "missing, but {} sets it to {value:?}; {again}",
                    annotations.file
                ),
            ),
            Some(label) if label != value => findings.error(
                &dockerfile.file,
                &format!("LABEL {key}"),
                format!(
                    "is {label:?}, but {} says {value:?}; {again}",
                    annotations.file
                ),
            ),
            Some(_) => {}
        }
    }
    for (key, _) in dockerfile.labels.iter().filter(|(key, _)| olm(key)) {
        if !map.contains_key(key) {
            findings.error(
                &dockerfile.file,
                &format!("LABEL {key}"),
                format!("not in {}; {again}", annotations.file),
            );
        }
    }
}

/// The channels annotation (a comma-separated list) and the default channel, which must be
/// one of them.
fn channels(
    file: &str,
    channels: Option<&str>,
    default_channel: Option<&str>,
    findings: &mut Findings,
) {
    let channels: Vec<&str> = match channels {
        None | Some("") => {
            findings.error(
                file,
                CHANNELS,
                "missing or empty; set it to the channels of the bundle, separated by commas (e.g. alpha)",
            );
            Vec::new()
        }
        Some(list) => {
            let channels: Vec<&str> = list.split(',').map(str::trim).collect();
            if channels.iter().any(|c| c.is_empty()) {
                findings.error(
                    file,
                    CHANNELS,
                    format!(
                        "{list:?} has an empty channel; separate channel names by single commas"
                    ),
                );
            }
            channels
        }
    };
    match default_channel {
        Some("") => findings.error(
            file,
            DEFAULT_CHANNEL,
            "is empty; set it to one of the channels or remove it",
        ),
        Some(default) if !channels.is_empty() && !channels.contains(&default) => {
            findings.error(
                file,
                DEFAULT_CHANNEL,
                format!(
                    "{default:?} is not one of the channels {:?}; add it to {CHANNELS} or pick one of them",
                    channels.join(",")
                ),
            );
        }
        _ => {}
    }
}

/// The rules every file of manifests/ follows.
fn object(document: &Document, findings: &mut Findings) {
    let file = &document.file;
    if document.documents > 1 {
        findings.error(
            file,
            "",
            format!(
                "holds {} YAML documents, but OLM reads only the first; put one object in each file",
                document.documents
            ),
        );
    }
    let kind = document.kind();
    if kind.is_empty() || document.object["apiVersion"].as_str().is_none() {
        findings.error(
            file,
            "kind",
            "missing kind or apiVersion; every manifest is a Kubernetes object",
        );
        return;
    }
    if document.name().is_empty() {
        findings.error(file, "metadata.name", "missing; name the object");
    }
    if !SUPPORTED_KINDS.contains(&kind) {
        let hint = match kind {
            "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration" => {
                "OLM makes webhook configurations from the CSV's spec.webhookdefinitions; describe the webhooks there and remove the file"
            }
            "Certificate" | "Issuer" | "ClusterIssuer" => {
                "OLM issues the webhooks' serving certificate itself; remove the file"
            }
            "Deployment" => {
                "deployments go into the CSV's spec.install.spec.deployments; remove the file"
            }
            "Namespace" => "OLM installs into the namespace of the operator group; remove the file",
            _ => "remove the file, or create the object from the operator",
        };
        findings.error(
            file,
            "kind",
            format!("OLM does not install {kind} objects from a registry+v1 bundle: {hint}"),
        );
    }
    if document
        .object
        .pointer("/metadata/namespace")
        .is_some_and(|n| !n.is_null())
    {
        findings.warn(
            file,
            "metadata.namespace",
            "OLM installs the bundle's objects into the operator group's namespace, whatever this says; remove it",
        );
    }
    if kind == "CustomResourceDefinition" {
        crd(document, findings);
    }
}

/// A CRD's checks (the CRD validator's, those that can be checked without a schema
/// library).
fn crd(document: &Document, findings: &mut Findings) {
    let file = &document.file;
    let crd = &document.object;
    if crd["apiVersion"] != "apiextensions.k8s.io/v1" {
        findings.error(
            file,
            "apiVersion",
            format!(
                "{} is not served since Kubernetes 1.22; write the CRD as apiextensions.k8s.io/v1",
                crd["apiVersion"]
            ),
        );
        return;
    }
    let group = crd["spec"]["group"].as_str().unwrap_or_default();
    let plural = crd["spec"]["names"]["plural"].as_str().unwrap_or_default();
    if group.is_empty() || plural.is_empty() || crd["spec"]["names"]["kind"].as_str().is_none() {
        findings.error(
            file,
            "spec",
            "spec.group, spec.names.plural and spec.names.kind are required",
        );
    } else if document.name() != format!("{plural}.{group}") {
        findings.error(
            file,
            "metadata.name",
            format!(
                "{:?} must be {plural}.{group} (spec.names.plural, '.', spec.group)",
                document.name()
            ),
        );
    }
    let versions = crd["spec"]["versions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if versions.is_empty() {
        findings.error(
            file,
            "spec.versions",
            "empty; a CRD serves at least one version",
        );
    } else if versions.iter().filter(|v| v["storage"] == true).count() != 1 {
        findings.error(
            file,
            "spec.versions",
            "exactly one version must have storage: true",
        );
    }
}

/// The (group, version, kind) of every version of every CRD in manifests.
fn bundle_crd_keys(bundle: &Bundle) -> Vec<(String, String, String, &Document)> {
    let mut keys = Vec::new();
    for document in bundle
        .manifests
        .iter()
        .filter(|d| d.kind() == "CustomResourceDefinition")
    {
        let spec = &document.object["spec"];
        for version in spec["versions"].as_array().into_iter().flatten() {
            keys.push((
                spec["group"].as_str().unwrap_or_default().to_string(),
                version["name"].as_str().unwrap_or_default().to_string(),
                spec["names"]["kind"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                document,
            ));
        }
    }
    keys
}

/// Every owned CRD is in manifests, and every CRD there is owned (a CRD with some
/// version owned counts as owned, as operator-framework/api counts it).
fn owned_crds(csv: &Document, bundle: &Bundle, findings: &mut Findings) {
    let keys = bundle_crd_keys(bundle);
    let mut seen = BTreeSet::new();
    for (group, version, kind, document) in &keys {
        if !seen.insert((group, version, kind)) {
            findings.error(
                &document.file,
                "spec",
                format!("{kind} {group}/{version} is in a second CRD; keep one file per CRD"),
            );
        }
    }
    let owned = csv_rules::owned(csv);
    let mut owned_kinds = BTreeSet::new();
    for (i, entry) in owned.iter().enumerate() {
        let name = entry["name"].as_str().unwrap_or_default();
        let group = name.split_once('.').map_or(name, |(_, g)| g);
        let version = entry["version"].as_str().unwrap_or_default();
        let kind = entry["kind"].as_str().unwrap_or_default();
        if let Some((.., document)) = keys
            .iter()
            .find(|(g, v, k, _)| g == group && v == version && k == kind)
        {
            owned_kinds.insert((group, kind));
            if !serves(&document.object, version) {
                findings.error(
                    &csv.file,
                    &format!("spec.customresourcedefinitions.owned[{i}].version"),
                    format!(
                        "owns {kind} {group}/{version}, which {} does not serve (served is not true), so OLM keeps the CSV Pending (\"CRD version not served\"); serve the version or remove the entry (make bundle owns only served versions)",
                        document.file
                    ),
                );
            }
        } else {
            findings.error(
                &csv.file,
                &format!("spec.customresourcedefinitions.owned[{i}]"),
                format!(
                    "owns {kind} {group}/{version} ({name}), but no CRD in {}/manifests serves it; add the CRD (make manifests, then make bundle) or remove the entry",
                    bundle.dir
                ),
            );
        }
    }
    let mut reported = BTreeSet::new();
    for (group, version, kind, document) in &keys {
        if !owned_kinds.contains(&(group.as_str(), kind.as_str()))
            && reported.insert(&document.file)
        {
            findings.error(
                &document.file,
                "",
                format!(
                    "the CRD of {kind} {group}/{version} is in the bundle but the CSV does not own it; add it to spec.customresourcedefinitions.owned of {} or remove the file",
                    csv.file
                ),
            );
        }
    }
}

/// Whether the CRD `crd` serves `version` (`served: true`; OLM reads a missing one as false).
pub fn serves(crd: &Value, version: &str) -> bool {
    crd.pointer("/spec/versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|v| v["name"] == version && v["served"] == true)
}

/// No ServiceAccount in manifests has the name of a deployment's service account: OLM
/// creates those from the CSV.
fn service_accounts(csv: &Document, bundle: &Bundle, findings: &mut Findings) {
    let deployments = csv_rules::deployments(csv);
    let names: Vec<&str> = deployments
        .iter()
        .filter_map(|d| {
            d.pointer("/spec/template/spec/serviceAccountName")
                .and_then(Value::as_str)
        })
        .collect();
    for document in bundle
        .manifests
        .iter()
        .filter(|d| d.kind() == "ServiceAccount" && names.contains(&d.name()))
    {
        findings.error(
            &document.file,
            "metadata.name",
            format!(
                "the service account {:?} is also the CSV's deployment's, which OLM creates; remove the file",
                document.name()
            ),
        );
    }
}
