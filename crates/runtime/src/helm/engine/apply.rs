//! How the engine writes objects, as Helm 4's kube client does: creation, server-side apply
//! under Helm's field manager, the client-side three-way merge of releases made that way,
//! forced replacement, deletion with background propagation, and Helm's ownership metadata.
use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Map, Value, json};

use super::{ClusterObject, FIELD_MANAGER};

/// Helm's label and annotations on every object of a release (`setMetadataVisitor`).
const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";
const MANAGED_BY_HELM: &str = "Helm";
const RELEASE_NAME_ANNOTATION: &str = "meta.helm.sh/release-name";
const RELEASE_NAMESPACE_ANNOTATION: &str = "meta.helm.sh/release-namespace";
/// The manager a client-side apply by kubectl leaves; Helm upgrades it with its own.
const KUBECTL_CSA_MANAGER: &str = "kubectl-client-side-apply";

/// How a release's objects are written: recorded per release as `apply_method`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ApplyMethod {
    /// `ssa`: server-side apply under [`FIELD_MANAGER`].
    ServerSide,
    /// `csa` (and releases without a method, made by Helm 3): three-way merge patches.
    ClientSide,
}

impl ApplyMethod {
    /// The method a stored `apply_method` names; Helm treats an empty one as client-side.
    pub fn from_record(method: Option<&str>) -> Self {
        match method {
            Some("ssa") => ApplyMethod::ServerSide,
            _ => ApplyMethod::ClientSide,
        }
    }

    pub fn as_record(self) -> &'static str {
        match self {
            ApplyMethod::ServerSide => "ssa",
            ApplyMethod::ClientSide => "csa",
        }
    }
}

/// A write the API server refused, worded as Helm words it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ApplyError {
    #[error("could not get information about the resource {object}: {source}")]
    Get {
        object: String,
        source: Box<kube::Error>,
    },
    #[error("failed to create resource: {object}: {source}")]
    Create {
        object: String,
        source: Box<kube::Error>,
    },
    #[error("conflict occurred while applying object {object}: {source}")]
    Conflict {
        object: String,
        source: Box<kube::Error>,
    },
    #[error("server-side apply failed for object {object}: {source}")]
    Apply {
        object: String,
        source: Box<kube::Error>,
    },
    #[error("cannot patch {object}: {source}")]
    Patch {
        object: String,
        source: Box<kube::Error>,
    },
    #[error("failed to replace object {object}: {source}")]
    Replace {
        object: String,
        source: Box<kube::Error>,
    },
    #[error("failed to delete resource namespace={namespace}, name={name}, kind={kind}: {source}")]
    Delete {
        namespace: String,
        name: String,
        kind: String,
        source: Box<kube::Error>,
    },
    #[error("{object} exists and cannot be imported into the current release: {reason}")]
    Ownership { object: String, reason: String },
}

/// Helm's `resourceString`: `Kind "name" in namespace "ns"`.
pub(crate) fn describe(object: &ClusterObject) -> String {
    format!(
        "{} {:?} in namespace {:?}",
        object.resource.kind,
        object.name,
        object.namespace.as_deref().unwrap_or("")
    )
}

pub(crate) fn api(client: &kube::Client, object: &ClusterObject) -> Api<DynamicObject> {
    match &object.namespace {
        Some(namespace) if object.namespaced => {
            Api::namespaced_with(client.clone(), namespace, &object.resource)
        }
        _ => Api::all_with(client.clone(), &object.resource),
    }
}

/// Label and annotate `body` as belonging to the release (Helm's `setMetadataVisitor`).
pub(crate) fn set_release_metadata(body: &mut Value, release: &str, namespace: &str) {
    let Some(object) = body.as_object_mut() else {
        return;
    };
    let metadata = object
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(metadata) = metadata.as_object_mut() else {
        return;
    };
    let mut set = |field: &str, key: &str, value: &str| {
        let entry = metadata
            .entry(field)
            .or_insert_with(|| Value::Object(Map::new()));
        if !entry.is_object() {
            *entry = Value::Object(Map::new());
        }
        if let Some(map) = entry.as_object_mut() {
            map.insert(key.to_string(), Value::String(value.to_string()));
        }
    };
    set("labels", MANAGED_BY_LABEL, MANAGED_BY_HELM);
    set("annotations", RELEASE_NAME_ANNOTATION, release);
    set("annotations", RELEASE_NAMESPACE_ANNOTATION, namespace);
}

/// Helm's `checkOwnership`: why `live` cannot be adopted by the release, if it cannot.
pub(crate) fn ownership_problem(live: &Value, release: &str, namespace: &str) -> Option<String> {
    let field = |path: &str, key: &str| {
        live.pointer(path)
            .and_then(|m| m.get(key))
            .and_then(Value::as_str)
    };
    let require = |actual: Option<&str>, key: &str, wanted: &str| match actual {
        None => Some(format!("missing key {key:?}: must be set to {wanted:?}")),
        Some(actual) if actual != wanted => Some(format!(
            "key {key:?} must equal {wanted:?}: current value is {actual:?}"
        )),
        Some(_) => None,
    };
    let problems: Vec<String> = [
        require(
            field("/metadata/labels", MANAGED_BY_LABEL),
            MANAGED_BY_LABEL,
            MANAGED_BY_HELM,
        )
        .map(|e| format!("label validation error: {e}")),
        require(
            field("/metadata/annotations", RELEASE_NAME_ANNOTATION),
            RELEASE_NAME_ANNOTATION,
            release,
        )
        .map(|e| format!("annotation validation error: {e}")),
        require(
            field("/metadata/annotations", RELEASE_NAMESPACE_ANNOTATION),
            RELEASE_NAMESPACE_ANNOTATION,
            namespace,
        )
        .map(|e| format!("annotation validation error: {e}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!problems.is_empty()).then(|| format!("invalid ownership metadata; {}", problems.join("; ")))
}

/// Writes objects of one release with one method.
pub(crate) struct Applier<'a> {
    pub client: &'a kube::Client,
    pub method: ApplyMethod,
    /// Server-side apply takes over fields other managers own.
    pub force_conflicts: bool,
    /// Replace objects (PUT) instead of patching them (`--force-replace`).
    pub force_replace: bool,
}

impl Applier<'_> {
    /// The live object, `None` when it does not exist.
    pub async fn get(&self, object: &ClusterObject) -> Result<Option<Value>, ApplyError> {
        match api(self.client, object).get_opt(&object.name).await {
            Ok(found) => Ok(found.map(|o| serde_json::to_value(o).unwrap_or(Value::Null))),
            Err(source) => Err(ApplyError::Get {
                object: describe(object),
                source: Box::new(source),
            }),
        }
    }

    /// Create an object that does not exist (server-side: an apply, as Helm's `Create`).
    pub async fn create(&self, object: &ClusterObject) -> Result<(), ApplyError> {
        match self.method {
            ApplyMethod::ServerSide => self.apply(object).await,
            ApplyMethod::ClientSide => {
                let body: DynamicObject = from_body(&object.body);
                let params = PostParams {
                    field_manager: Some(FIELD_MANAGER.into()),
                    ..PostParams::default()
                };
                api(self.client, object)
                    .create(&params, &body)
                    .await
                    .map(drop)
                    .map_err(|source| ApplyError::Create {
                        object: describe(object),
                        source: Box::new(source),
                    })
            }
        }
    }

    /// Bring an existing object to `target`; `original` is what the previous revision
    /// rendered for it (`None` when it was not part of it, e.g. adopted).
    pub async fn update(
        &self,
        original: Option<&Value>,
        live: &Value,
        target: &ClusterObject,
        upgrade_client_side_manager: bool,
    ) -> Result<(), ApplyError> {
        if self.force_replace {
            return self.replace(live, target).await;
        }
        match self.method {
            ApplyMethod::ServerSide => {
                if upgrade_client_side_manager {
                    self.upgrade_managed_fields(live, target).await?;
                }
                self.apply(target).await
            }
            ApplyMethod::ClientSide => {
                let original = original.unwrap_or(live);
                let patch = three_way_merge_patch(original, &target.body, live);
                if patch.as_object().is_some_and(Map::is_empty) {
                    return Ok(());
                }
                let params = PatchParams {
                    field_manager: Some(FIELD_MANAGER.into()),
                    ..PatchParams::default()
                };
                api(self.client, target)
                    .patch(&target.name, &params, &Patch::Merge(&patch))
                    .await
                    .map(drop)
                    .map_err(|source| ApplyError::Patch {
                        object: describe(target),
                        source: Box::new(source),
                    })
            }
        }
    }

    async fn apply(&self, object: &ClusterObject) -> Result<(), ApplyError> {
        let mut params = PatchParams::apply(FIELD_MANAGER);
        params.force = self.force_conflicts;
        api(self.client, object)
            .patch(&object.name, &params, &Patch::Apply(&object.body))
            .await
            .map(drop)
            .map_err(|source| {
                let object = describe(object);
                let source = Box::new(source);
                match source.as_ref() {
                    kube::Error::Api(status) if status.code == 409 => {
                        ApplyError::Conflict { object, source }
                    }
                    _ => ApplyError::Apply { object, source },
                }
            })
    }

    /// PUT the target over the live object (its resourceVersion carried over).
    async fn replace(&self, live: &Value, target: &ClusterObject) -> Result<(), ApplyError> {
        let mut body = target.body.clone();
        if let (Some(version), Some(metadata)) = (
            live.pointer("/metadata/resourceVersion").cloned(),
            body.get_mut("metadata").and_then(Value::as_object_mut),
        ) {
            metadata.insert("resourceVersion".into(), version);
        }
        let params = PostParams {
            field_manager: Some(FIELD_MANAGER.into()),
            ..PostParams::default()
        };
        api(self.client, target)
            .replace(&target.name, &params, &from_body(&body))
            .await
            .map(drop)
            .map_err(|source| ApplyError::Replace {
                object: describe(target),
                source: Box::new(source),
            })
    }

    /// Hand the fields a client-side apply (`Update` entries of Helm or kubectl) owns to
    /// Helm's server-side manager, so the first server-side apply of a release made by
    /// Helm 3 can remove what the new chart drops (Helm's `csaupgrade`).
    async fn upgrade_managed_fields(
        &self,
        live: &Value,
        target: &ClusterObject,
    ) -> Result<(), ApplyError> {
        let Some(entries) = live
            .pointer("/metadata/managedFields")
            .and_then(Value::as_array)
        else {
            return Ok(());
        };
        let Some(upgraded) = upgraded_managed_fields(entries) else {
            return Ok(());
        };
        let resource_version = live
            .pointer("/metadata/resourceVersion")
            .cloned()
            .unwrap_or(Value::Null);
        let patch = json!([
            {"op": "test", "path": "/metadata/resourceVersion", "value": resource_version},
            {"op": "replace", "path": "/metadata/managedFields", "value": upgraded},
        ]);
        let patch: json_patch::Patch = serde_json::from_value(patch).unwrap_or_default();
        api(self.client, target)
            .patch(
                &target.name,
                &PatchParams::default(),
                &Patch::<()>::Json(patch),
            )
            .await
            .map(drop)
            .map_err(|source| ApplyError::Patch {
                object: describe(target),
                source: Box::new(source),
            })
    }

    /// Delete with background propagation; an object already gone is no error.
    pub async fn delete(&self, object: &ClusterObject) -> Result<(), ApplyError> {
        match api(self.client, object)
            .delete(&object.name, &DeleteParams::background())
            .await
        {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
            Err(source) => Err(ApplyError::Delete {
                namespace: object.namespace.clone().unwrap_or_default(),
                name: object.name.clone(),
                kind: object.resource.kind.clone(),
                source: Box::new(source),
            }),
        }
    }
}

fn from_body(body: &Value) -> DynamicObject {
    // A rendered object always has apiVersion, kind and metadata.name (checked when the
    // manifest was sorted); the fallback only guards the type conversion.
    serde_json::from_value(body.clone()).unwrap_or_else(|_| DynamicObject {
        types: None,
        metadata: kube::api::ObjectMeta::default(),
        data: body.clone(),
    })
}

/// The managed fields with every client-side (`Update`) entry of Helm or kubectl merged
/// into Helm's `Apply` entry; `None` when there is nothing to upgrade.
fn upgraded_managed_fields(entries: &[Value]) -> Option<Vec<Value>> {
    let is_csa = |entry: &Value| {
        let manager = entry.get("manager").and_then(Value::as_str);
        entry.get("operation").and_then(Value::as_str) == Some("Update")
            && entry.get("subresource").is_none()
            && matches!(manager, Some(m) if m == FIELD_MANAGER || m == KUBECTL_CSA_MANAGER)
    };
    let is_ssa = |entry: &Value| {
        entry.get("manager").and_then(Value::as_str) == Some(FIELD_MANAGER)
            && entry.get("operation").and_then(Value::as_str) == Some("Apply")
    };
    if !entries.iter().any(is_csa) {
        return None;
    }
    let mut fields = Value::Object(Map::new());
    let mut template: Option<Value> = None;
    for entry in entries.iter().filter(|e| is_csa(e) || is_ssa(e)) {
        if let Some(set) = entry.get("fieldsV1") {
            union_fields(&mut fields, set);
        }
        if template.is_none() || is_ssa(entry) {
            template = Some(entry.clone());
        }
    }
    let mut merged = template?;
    if let Some(map) = merged.as_object_mut() {
        map.insert("manager".into(), FIELD_MANAGER.into());
        map.insert("operation".into(), "Apply".into());
        map.insert("fieldsType".into(), "FieldsV1".into());
        map.insert("fieldsV1".into(), fields);
    }
    let mut out: Vec<Value> = entries
        .iter()
        .filter(|e| !is_csa(e) && !is_ssa(e))
        .cloned()
        .collect();
    out.push(merged);
    Some(out)
}

/// The union of two `fieldsV1` sets (nested maps whose leaves are `{}`).
fn union_fields(into: &mut Value, from: &Value) {
    let (Some(into), Some(from)) = (into.as_object_mut(), from.as_object()) else {
        return;
    };
    for (key, value) in from {
        match into.get_mut(key) {
            Some(existing) => union_fields(existing, value),
            None => {
                into.insert(key.clone(), value.clone());
            }
        }
    }
}

/// A JSON merge patch taking `live` to `modified`, deleting what `original` had and
/// `modified` dropped, and leaving alone what other writers added (the three-way merge
/// of Helm's client-side apply; lists are replaced whole, as merge patches do).
pub(crate) fn three_way_merge_patch(original: &Value, modified: &Value, live: &Value) -> Value {
    let mut patch = Map::new();
    let empty = Map::new();
    let modified_map = modified.as_object().unwrap_or(&empty);
    let original_map = original.as_object().unwrap_or(&empty);
    let live_map = live.as_object().unwrap_or(&empty);
    for (key, wanted) in modified_map {
        match live_map.get(key) {
            Some(current) if current == wanted => {}
            Some(current) if current.is_object() && wanted.is_object() => {
                let nested = three_way_merge_patch(
                    original_map.get(key).unwrap_or(&Value::Null),
                    wanted,
                    current,
                );
                if nested.as_object().is_some_and(|m| !m.is_empty()) {
                    patch.insert(key.clone(), nested);
                }
            }
            _ => {
                patch.insert(key.clone(), wanted.clone());
            }
        }
    }
    for key in original_map.keys() {
        if !modified_map.contains_key(key) && live_map.contains_key(key) {
            patch.insert(key.clone(), Value::Null);
        }
    }
    Value::Object(patch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_merge_patch_keeps_what_others_added_and_drops_what_the_chart_dropped() {
        let original = json!({"data": {"a": "1", "gone": "x"}, "metadata": {"labels": {"l": "1"}}});
        let modified = json!({"data": {"a": "2", "new": "y"}, "metadata": {"labels": {"l": "1"}}});
        let live = json!({"data": {"a": "1", "gone": "x", "theirs": "z"},
            "metadata": {"labels": {"l": "1", "injected": "t"}, "uid": "u"}});
        let patch = three_way_merge_patch(&original, &modified, &live);
        assert_eq!(patch, json!({"data": {"a": "2", "new": "y", "gone": null}}));
    }

    #[test]
    fn an_unchanged_object_needs_no_patch() {
        let object = json!({"spec": {"replicas": 1, "list": [1, 2]}});
        let live = json!({"spec": {"replicas": 1, "list": [1, 2], "defaulted": true}});
        assert_eq!(three_way_merge_patch(&object, &object, &live), json!({}));
    }

    #[test]
    fn ownership_is_checked_as_helm_words_it() {
        let live = json!({"metadata": {"labels": {"app.kubernetes.io/managed-by": "Helm"},
            "annotations": {"meta.helm.sh/release-name": "other"}}});
        assert_eq!(
            ownership_problem(&live, "mine", "ns").unwrap(),
            "invalid ownership metadata; annotation validation error: key \"meta.helm.sh/release-name\" must equal \"mine\": current value is \"other\"; annotation validation error: missing key \"meta.helm.sh/release-namespace\": must be set to \"ns\""
        );
        let mut owned = json!({"metadata": {}});
        set_release_metadata(&mut owned, "mine", "ns");
        assert_eq!(ownership_problem(&owned, "mine", "ns"), None);
    }

    #[test]
    fn client_side_fields_move_to_helms_apply_entry() {
        let entries = vec![
            json!({"manager": "helm", "operation": "Update", "apiVersion": "v1",
                "fieldsType": "FieldsV1", "fieldsV1": {"f:data": {"f:a": {}}}}),
            json!({"manager": "kube-controller-manager", "operation": "Update",
                "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {}}}),
        ];
        let upgraded = upgraded_managed_fields(&entries).unwrap();
        assert_eq!(upgraded.len(), 2);
        assert_eq!(upgraded[0]["manager"], "kube-controller-manager");
        assert_eq!(upgraded[1]["operation"], "Apply");
        assert_eq!(upgraded[1]["fieldsV1"], json!({"f:data": {"f:a": {}}}));
        assert_eq!(upgraded_managed_fields(&upgraded), None);
    }
}
