//! Keeps the objects of a release as the manifest says: recreates deleted objects, patches
//! changed ones back (server-side apply, forced), and adds the owner reference to the custom
//! resource so that changes to them trigger a reconcile. Also tells whether they are gone.
use base64::Engine;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt};
use serde_json::{Map, Value, json};

use super::kinds::{KindCache, KindInfo};
use super::manifest::{ManifestError, ManifestObject, parse_manifest};

const RELEASE_NAME_ANNOTATION: &str = "meta.helm.sh/release-name";
const RELEASE_NAMESPACE_ANNOTATION: &str = "meta.helm.sh/release-namespace";
const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";

/// A release object could not be checked or repaired.
#[derive(Debug, thiserror::Error)]
pub enum DriftError {
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    #[error("cannot resolve kind of {object}: {source}")]
    Discovery { object: String, source: kube::Error },
    #[error("cannot {action} {object}: {}", api_message(.source))]
    Api {
        action: &'static str,
        object: String,
        source: kube::Error,
    },
}

/// The API server's own message for API errors (kube's Display adds a debug dump).
pub(crate) fn api_message(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(status) => format!("{} ({})", status.message, status.reason),
        other => other.to_string(),
    }
}

/// Everything needed to look at the objects of one custom resource's release.
pub(crate) struct ReleaseObjects<'a> {
    pub client: &'a Client,
    pub kinds: &'a KindCache,
    /// The custom resource that owns the release.
    pub owner: &'a DynamicObject,
    /// `apiVersion` and `kind` of the custom resource.
    pub owner_api_version: &'a str,
    pub owner_kind: &'a str,
    pub release_namespace: &'a str,
    pub field_manager: &'a str,
}

/// An object of the release with its resolved kind and namespace.
struct Located {
    object: ManifestObject,
    kind: KindInfo,
    namespace: Option<String>,
}

impl Located {
    fn describe(&self) -> String {
        let api_version = self.object.gvk.api_version();
        match &self.namespace {
            Some(ns) => format!(
                "{api_version} {} {ns}/{}",
                self.object.gvk.kind, self.object.name
            ),
            None => format!(
                "{api_version} {} {}",
                self.object.gvk.kind, self.object.name
            ),
        }
    }

    fn api(&self, client: &Client) -> Api<DynamicObject> {
        match &self.namespace {
            Some(ns) => Api::namespaced_with(client.clone(), ns, &self.kind.resource),
            None => Api::all_with(client.clone(), &self.kind.resource),
        }
    }
}

impl ReleaseObjects<'_> {
    async fn locate(&self, manifest: &str) -> Result<Vec<Located>, DriftError> {
        let mut located = Vec::new();
        for object in parse_manifest(manifest)? {
            let kind = self
                .kinds
                .resolve(self.client, &object.gvk)
                .await
                .map_err(|source| DriftError::Discovery {
                    object: object.to_string(),
                    source,
                })?;
            let namespace = kind.namespaced.then(|| {
                object
                    .namespace
                    .clone()
                    .unwrap_or_else(|| self.release_namespace.to_string())
            });
            located.push(Located {
                object,
                kind,
                namespace,
            });
        }
        Ok(located)
    }

    /// Recreate missing objects and patch drifted ones. Returns the kinds of the release
    /// (for the dependent watches).
    pub async fn repair(&self, manifest: &str) -> Result<Vec<KindInfo>, DriftError> {
        let located = self.locate(manifest).await?;
        for item in &located {
            self.repair_one(item).await?;
        }
        let mut kinds: Vec<KindInfo> = Vec::new();
        for item in located {
            if !kinds.contains(&item.kind) {
                kinds.push(item.kind);
            }
        }
        Ok(kinds)
    }

    async fn repair_one(&self, item: &Located) -> Result<(), DriftError> {
        let api = item.api(self.client);
        let desired = self.desired(item);
        let api_error = |action, source| DriftError::Api {
            action,
            object: item.describe(),
            source,
        };
        match api.get_opt(&item.object.name).await {
            Err(source) => Err(api_error("get", source)),
            Ok(None) => {
                tracing::info!(object = %item.describe(), "recreating deleted release object");
                let object: DynamicObject = serde_json::from_value(desired)
                    .map_err(|e| api_error("build", kube::Error::SerdeError(e)))?;
                api.create(&PostParams::default(), &object)
                    .await
                    .map(drop)
                    .map_err(|source| api_error("create", source))
            }
            Ok(Some(live)) => {
                let live = serde_json::to_value(&live)
                    .map_err(|e| api_error("read", kube::Error::SerdeError(e)))?;
                if contains(&comparable(&desired), &live) {
                    tracing::debug!(object = %item.describe(), "release object unchanged");
                    return Ok(());
                }
                tracing::info!(object = %item.describe(), "patching drifted release object");
                let params = PatchParams::apply(self.field_manager).force();
                api.patch(&item.object.name, &params, &Patch::Apply(&desired))
                    .await
                    .map(drop)
                    .map_err(|source| api_error("patch", source))
            }
        }
    }

    /// The manifest object with its namespace, Helm's ownership metadata (so a recreated
    /// object still belongs to the release) and the owner reference when one is allowed.
    fn desired(&self, item: &Located) -> Value {
        let mut body = item.object.body.clone();
        let Some(object) = body.as_object_mut() else {
            return body;
        };
        let metadata = object
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(ns) = &item.namespace {
            metadata["namespace"] = json!(ns);
        }
        insert_string(metadata, "labels", MANAGED_BY_LABEL, "Helm");
        insert_string(
            metadata,
            "annotations",
            RELEASE_NAME_ANNOTATION,
            &self.owner.name_any(),
        );
        insert_string(
            metadata,
            "annotations",
            RELEASE_NAMESPACE_ANNOTATION,
            self.release_namespace,
        );
        if self.may_own(item)
            && let Some(reference) = self.owner_reference()
        {
            let references = metadata
                .as_object_mut()
                .map(|m| m.entry("ownerReferences").or_insert_with(|| json!([])));
            if let Some(Value::Array(list)) = references {
                list.retain(|r| r.get("uid") != reference.get("uid"));
                list.push(reference);
            }
        }
        body
    }

    /// Owner references work only inside the owner's namespace (Kubernetes GC rule), and
    /// `helm.sh/resource-policy: keep` objects must survive the owner.
    fn may_own(&self, item: &Located) -> bool {
        item.namespace.as_deref() == Some(self.release_namespace)
            && self.owner.namespace().as_deref() == Some(self.release_namespace)
            && !item.object.kept_on_uninstall()
    }

    fn owner_reference(&self) -> Option<Value> {
        let uid = self.owner.uid()?;
        Some(json!({
            "apiVersion": self.owner_api_version,
            "kind": self.owner_kind,
            "name": self.owner.name_any(),
            "uid": uid,
            "controller": true,
            "blockOwnerDeletion": true,
        }))
    }

    /// Namespaced objects of the manifest that still exist (Helm's `keep` objects excepted),
    /// described for messages. Kinds that no longer exist count as gone; cluster-scoped
    /// objects are not waited for (while their namespace is being deleted nobody else
    /// deletes them, and they would hold the finalizer and the namespace forever).
    pub async fn remaining(&self, manifest: &str) -> Result<Vec<String>, DriftError> {
        let mut remaining = Vec::new();
        for object in parse_manifest(manifest)? {
            if object.kept_on_uninstall() {
                continue;
            }
            let kind = match self.kinds.resolve(self.client, &object.gvk).await {
                Ok(kind) => kind,
                Err(kube::Error::Discovery(_)) => continue,
                Err(source) => {
                    return Err(DriftError::Discovery {
                        object: object.to_string(),
                        source,
                    });
                }
            };
            if !kind.namespaced {
                continue;
            }
            let namespace = Some(
                object
                    .namespace
                    .clone()
                    .unwrap_or_else(|| self.release_namespace.to_string()),
            );
            let item = Located {
                object,
                kind,
                namespace,
            };
            match item.api(self.client).get_opt(&item.object.name).await {
                Ok(None) => {}
                Ok(Some(_)) => remaining.push(item.describe()),
                Err(source) => {
                    return Err(DriftError::Api {
                        action: "get",
                        object: item.describe(),
                        source,
                    });
                }
            }
        }
        Ok(remaining)
    }
}

fn insert_string(metadata: &mut Value, map: &str, key: &str, value: &str) {
    if let Some(metadata) = metadata.as_object_mut() {
        let entry = metadata.entry(map).or_insert_with(|| json!({}));
        if !entry.is_object() {
            *entry = json!({});
        }
        entry[key] = json!(value);
    }
}

/// Whether everything `desired` sets is set the same way in `live` (the API server adds
/// defaults, status and metadata, which are not drift). Lists must match item by item,
/// except owner references, where the desired ones only need to be present. Values are
/// compared as the server stores them: quantities by amount (`1` = `1000m`, `1Gi` =
/// `1024Mi`), a number equals its decimal string (int-or-string fields).
pub(crate) fn contains(desired: &Value, live: &Value) -> bool {
    contains_at(desired, live, "", "")
}

/// Maps whose values are resource quantities, and keys holding one.
const QUANTITY_MAPS: [&str; 6] = [
    "limits",
    "requests",
    "hard",
    "capacity",
    "allocatable",
    "overhead",
];
const QUANTITY_KEYS: [&str; 2] = ["sizeLimit", "storage"];

fn contains_at(desired: &Value, live: &Value, key: &str, parent: &str) -> bool {
    match (desired, live) {
        (Value::Object(want), Value::Object(have)) => want.iter().all(|(k, v)| match have.get(k) {
            Some(h) => contains_at(v, h, k, key),
            None => v.is_null() || is_empty_collection(v),
        }),
        (Value::Array(want), Value::Array(have)) if key == "ownerReferences" => want
            .iter()
            .all(|w| have.iter().any(|h| contains_at(w, h, "", ""))),
        (Value::Array(want), Value::Array(have)) => {
            want.len() == have.len()
                && want
                    .iter()
                    .zip(have)
                    .all(|(w, h)| contains_at(w, h, "", key))
        }
        (want, have) if QUANTITY_MAPS.contains(&parent) || QUANTITY_KEYS.contains(&key) => {
            match (quantity(want), quantity(have)) {
                (Some(a), Some(b)) => same_amount(a, b),
                _ => want == have,
            }
        }
        (Value::Number(want), Value::Number(have)) => want.as_f64() == have.as_f64(),
        (Value::Number(number), Value::String(text))
        | (Value::String(text), Value::Number(number)) => {
            text.parse::<f64>().ok() == number.as_f64()
        }
        (want, have) => want == have,
    }
}

/// The amount of a Kubernetes quantity (`500m`, `1.5Gi`, `1e3`, `2`), in base units.
fn quantity(value: &Value) -> Option<f64> {
    let text = match value {
        Value::Number(n) => return n.as_f64(),
        Value::String(s) => s.trim(),
        _ => return None,
    };
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let number: f64 = number.parse().ok()?;
    let factor = match suffix {
        "" => 1.0,
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024.0,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        exponent => {
            let exponent = exponent.strip_prefix(['e', 'E'])?;
            10f64.powi(exponent.parse().ok()?)
        }
    };
    Some(number * factor)
}

fn same_amount(a: f64, b: f64) -> bool {
    (a - b).abs() <= f64::EPSILON * a.abs().max(b.abs()) * 4.0
}

/// What the server keeps of the desired object: a Secret's `stringData` is stored as
/// base64 `data` and never read back.
fn comparable(desired: &Value) -> Value {
    let mut body = desired.clone();
    if body.get("kind").and_then(Value::as_str) != Some("Secret") {
        return body;
    }
    let Some(object) = body.as_object_mut() else {
        return body;
    };
    if let Some(Value::Object(strings)) = object.remove("stringData") {
        let data = object.entry("data").or_insert_with(|| json!({}));
        if let Value::Object(data) = data {
            for (key, value) in strings {
                let text = match value {
                    Value::String(text) => text,
                    other => other.to_string(),
                };
                data.insert(
                    key,
                    Value::String(base64::engine::general_purpose::STANDARD.encode(text)),
                );
            }
        }
    }
    body
}

/// `{}` / `[]` in a manifest are dropped by the API server.
fn is_empty_collection(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(list) => list.is_empty(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_defaults_are_not_drift() {
        let desired = json!({"spec": {"replicas": 3, "template": {"spec": {"containers": [
            {"name": "mc", "image": "memcached:1.6"}]}}}, "metadata": {"labels": {}}});
        let live = json!({"spec": {"replicas": 3, "strategy": {}, "template": {"spec": {"containers": [
            {"name": "mc", "image": "memcached:1.6", "imagePullPolicy": "IfNotPresent"}]}}},
            "status": {"readyReplicas": 3}, "metadata": {"uid": "1"}});
        assert!(contains(&desired, &live));
    }

    #[test]
    fn changed_values_and_lists_are_drift() {
        let desired = json!({"spec": {"replicas": 3, "ports": [{"port": 80}]}});
        assert!(!contains(
            &desired,
            &json!({"spec": {"replicas": 1, "ports": [{"port": 80}]}})
        ));
        assert!(!contains(
            &desired,
            &json!({"spec": {"replicas": 3, "ports": [{"port": 80}, {"port": 81}]}})
        ));
        assert!(!contains(
            &desired,
            &json!({"spec": {"ports": [{"port": 80}]}})
        ));
    }

    #[test]
    fn equal_quantities_and_int_or_string_are_not_drift() {
        let desired = json!({"spec": {"containers": [{"resources": {
            "limits": {"cpu": 1, "memory": "1Gi"},
            "requests": {"cpu": "1000m", "memory": "1024Mi", "ephemeral-storage": "1e3"}}}],
            "volumes": [{"emptyDir": {"sizeLimit": "0.5Gi"}}],
            "ports": [{"port": "80", "targetPort": 8080}]}});
        let live = json!({"spec": {"containers": [{"resources": {
            "limits": {"cpu": "1", "memory": "1Gi"},
            "requests": {"cpu": "1", "memory": "1Gi", "ephemeral-storage": "1k"}}}],
            "volumes": [{"emptyDir": {"sizeLimit": "512Mi"}}],
            "ports": [{"port": 80, "targetPort": "8080"}]}});
        assert!(contains(&desired, &live));
        let more = json!({"spec": {"containers": [{"resources": {"limits": {"cpu": "1001m"}}}]}});
        assert!(!contains(&more, &live));
        // outside quantity maps, strings are compared as strings
        let env = json!({"env": [{"name": "CPU", "value": "1000m"}]});
        assert!(!contains(
            &env,
            &json!({"env": [{"name": "CPU", "value": "1"}]})
        ));
    }

    #[test]
    fn secret_string_data_is_compared_as_data() {
        let desired =
            json!({"kind": "Secret", "stringData": {"password": "hunter2", "port": 5432}});
        let live =
            json!({"kind": "Secret", "data": {"password": "aHVudGVyMg==", "port": "NTQzMg=="}});
        assert!(contains(&comparable(&desired), &live));
        let changed =
            json!({"kind": "Secret", "data": {"password": "b3RoZXI=", "port": "NTQzMg=="}});
        assert!(!contains(&comparable(&desired), &changed));
    }

    #[test]
    fn owner_references_only_need_to_be_present() {
        let desired = json!({"metadata": {"ownerReferences": [{"uid": "a", "controller": true}]}});
        let live = json!({"metadata": {"ownerReferences": [{"uid": "z"}, {"uid": "a", "controller": true, "kind": "M"}]}});
        assert!(contains(&desired, &live));
        assert!(!contains(
            &desired,
            &json!({"metadata": {"ownerReferences": [{"uid": "z"}]}})
        ));
    }
}
