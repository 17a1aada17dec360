//! The objects of a release manifest (multi-document YAML, `List` kinds expanded).
use std::fmt;

use kube::api::GroupVersionKind;
use serde_json::Value;

/// One object of a release.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ManifestObject {
    pub gvk: GroupVersionKind,
    pub name: String,
    /// `metadata.namespace` as rendered (usually absent: the release namespace applies).
    pub namespace: Option<String>,
    pub body: Value,
}

impl ManifestObject {
    /// `helm.sh/resource-policy: keep`: Helm leaves it behind on uninstall.
    pub fn kept_on_uninstall(&self) -> bool {
        self.body
            .pointer("/metadata/annotations/helm.sh~1resource-policy")
            .and_then(Value::as_str)
            == Some("keep")
    }
}

impl fmt::Display for ManifestObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let api_version = self.gvk.api_version();
        match &self.namespace {
            Some(ns) => write!(f, "{api_version} {} {ns}/{}", self.gvk.kind, self.name),
            None => write!(f, "{api_version} {} {}", self.gvk.kind, self.name),
        }
    }
}

/// A release manifest that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("release manifest is not valid YAML: {0}")]
    Yaml(String),
    #[error("release manifest document #{index} has no {field}")]
    MissingField { index: usize, field: &'static str },
    #[error("release manifest document #{index} has an invalid apiVersion {value:?}")]
    ApiVersion { index: usize, value: String },
}

/// Parse every object of `manifest`, in order.
pub(crate) fn parse_manifest(manifest: &str) -> Result<Vec<ManifestObject>, ManifestError> {
    let documents: Vec<Value> =
        serde_saphyr::from_multiple(manifest).map_err(|e| ManifestError::Yaml(e.to_string()))?;
    let mut objects = Vec::new();
    for (position, document) in documents.into_iter().enumerate() {
        collect(document, position + 1, &mut objects)?;
    }
    Ok(objects)
}

fn collect(
    document: Value,
    index: usize,
    out: &mut Vec<ManifestObject>,
) -> Result<(), ManifestError> {
    if !document.is_object() {
        return Ok(()); // empty documents (comments only) are skipped, as Helm does
    }
    let field = |name: &'static str| {
        document
            .get(name)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .ok_or(ManifestError::MissingField { index, field: name })
    };
    let api_version = field("apiVersion")?;
    let kind = field("kind")?;
    if kind.ends_with("List")
        && let Some(Value::Array(items)) = document.get("items")
    {
        for item in items.clone() {
            collect(item, index, out)?;
        }
        return Ok(());
    }
    let gvk = parse_api_version(&api_version, &kind).ok_or(ManifestError::ApiVersion {
        index,
        value: api_version.clone(),
    })?;
    let metadata = document.get("metadata");
    let name = metadata
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or(ManifestError::MissingField {
            index,
            field: "metadata.name",
        })?
        .to_string();
    let namespace = metadata
        .and_then(|m| m.get("namespace"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    out.push(ManifestObject {
        gvk,
        name,
        namespace,
        body: document,
    });
    Ok(())
}

fn parse_api_version(api_version: &str, kind: &str) -> Option<GroupVersionKind> {
    match api_version.split_once('/') {
        Some((group, version)) if !group.is_empty() && !version.is_empty() => {
            Some(GroupVersionKind::gvk(group, version, kind))
        }
        None => Some(GroupVersionKind::gvk("", api_version, kind)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_documents_lists_and_skips_empty_ones() {
        let manifest = "---\n# Source: c/templates/empty.yaml\n---\n# Source: c/templates/svc.yaml\n\
            apiVersion: v1\nkind: Service\nmetadata:\n  name: mc\n---\n\
            apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: mc\n  namespace: other\n  \
            annotations:\n    helm.sh/resource-policy: keep\n---\n\
            apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n";
        let objects = parse_manifest(manifest).unwrap();
        let names: Vec<String> = objects.iter().map(ToString::to_string).collect();
        assert_eq!(
            names,
            vec![
                "v1 Service mc",
                "apps/v1 Deployment other/mc",
                "v1 ConfigMap a"
            ]
        );
        assert!(!objects[0].kept_on_uninstall());
        assert!(objects[1].kept_on_uninstall());
    }

    #[test]
    fn incomplete_documents_are_errors() {
        let error = parse_manifest("kind: Service\nmetadata: {name: a}\n").unwrap_err();
        assert_eq!(
            error.to_string(),
            "release manifest document #1 has no apiVersion"
        );
        let error = parse_manifest("apiVersion: v1\nkind: Service\n").unwrap_err();
        assert_eq!(
            error.to_string(),
            "release manifest document #1 has no metadata.name"
        );
        let error = parse_manifest("apiVersion: /v1\nkind: S\nmetadata: {name: a}\n").unwrap_err();
        assert_eq!(
            error.to_string(),
            "release manifest document #1 has an invalid apiVersion \"/v1\""
        );
    }
}
