//! Keeps the objects of a release as the manifest says: recreates deleted objects and
//! applies changed ones back, and adds the owner reference to the custom resource so that
//! changes to them trigger a reconcile. Also tells whether they are gone.
//!
//! Repairs are server-side applies under Helm's own field manager (`helm`, as Helm 4's CLI
//! applies), so every field of the release keeps one owner: the next `helm upgrade` or
//! rollback neither conflicts with the operator nor leaves behind keys a new chart drops.
//! Whether an object drifted is the API server's answer, not ours: the same apply as a dry
//! run, compared with the live object, so defaults and the server's spelling of values
//! (quantities, int-or-string) are never mistaken for drift. The owner reference is applied
//! apart, under the operator's field manager, where Helm's applies never touch it.
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use kube::{Client, ResourceExt};
use serde_json::{Map, Value, json};

use super::kinds::{KindCache, KindInfo};

/// The field manager Helm 4's CLI applies with (helm's cmd/helm sets `kube.ManagedFieldsManager`).
pub(crate) const HELM_FIELD_MANAGER: &str = "helm";
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
        Ok(kinds_of(located))
    }

    /// Give every object of a release that was just installed or upgraded its owner
    /// reference, without checking for drift.
    pub async fn own_all(&self, manifest: &str) -> Result<Vec<KindInfo>, DriftError> {
        let located = self.locate(manifest).await?;
        for item in &located {
            let api = item.api(self.client);
            self.own(item, &api, None)
                .await
                .map_err(|source| DriftError::Api {
                    action: "set the owner reference of",
                    object: item.describe(),
                    source,
                })?;
        }
        Ok(kinds_of(located))
    }

    async fn repair_one(&self, item: &Located) -> Result<(), DriftError> {
        let api = item.api(self.client);
        let name = &item.object.name;
        let desired = self.desired(item);
        let api_error = |action, source| DriftError::Api {
            action,
            object: item.describe(),
            source,
        };
        let apply = PatchParams::apply(HELM_FIELD_MANAGER).force();
        let live = api
            .get_opt(name)
            .await
            .map_err(|source| api_error("get", source))?;
        match &live {
            None => {
                tracing::info!(object = %item.describe(), "recreating deleted release object");
                api.patch(name, &apply, &Patch::Apply(&desired))
                    .await
                    .map_err(|source| api_error("create", source))?;
            }
            Some(live) => {
                let would_be = api
                    .patch(name, &apply.clone().dry_run(), &Patch::Apply(&desired))
                    .await
                    .map_err(|source| api_error("check", source))?;
                if same_object(&would_be, live) {
                    tracing::debug!(object = %item.describe(), "release object unchanged");
                } else {
                    tracing::info!(object = %item.describe(), "patching drifted release object");
                    api.patch(name, &apply, &Patch::Apply(&desired))
                        .await
                        .map_err(|source| api_error("patch", source))?;
                }
            }
        }
        self.own(item, &api, live.as_ref())
            .await
            .map_err(|source| api_error("set the owner reference of", source))
    }

    /// Apply the owner reference alone, under the operator's field manager, unless `live`
    /// already has it.
    async fn own(
        &self,
        item: &Located,
        api: &Api<DynamicObject>,
        live: Option<&DynamicObject>,
    ) -> Result<(), kube::Error> {
        if !self.may_own(item) {
            return Ok(());
        }
        let Some(reference) = self.owner_reference() else {
            return Ok(());
        };
        let owned = live.is_some_and(|live| {
            live.owner_references()
                .iter()
                .any(|r| Some(r.uid.as_str()) == reference["uid"].as_str())
        });
        if owned {
            return Ok(());
        }
        let body = json!({
            "apiVersion": item.object.gvk.api_version(),
            "kind": item.object.gvk.kind,
            "metadata": {"name": item.object.name, "ownerReferences": [reference]},
        });
        api.patch(
            &item.object.name,
            &PatchParams::apply(self.field_manager),
            &Patch::Apply(&body),
        )
        .await
        .map(drop)
    }

    /// The manifest object with its namespace and Helm's ownership metadata, as Helm
    /// applies it (so a recreated object still belongs to the release).
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

/// Whether the server's answer to a dry-run apply is the live object: only bookkeeping
/// (field ownership, the resource version) may differ.
fn same_object(would_be: &DynamicObject, live: &DynamicObject) -> bool {
    let comparable = |object: &DynamicObject| {
        let mut object = object.clone();
        object.metadata.managed_fields = None;
        object.metadata.resource_version = None;
        object
    };
    comparable(would_be) == comparable(live)
}

/// The kinds of the release's objects, each once, in manifest order.
fn kinds_of(located: Vec<Located>) -> Vec<KindInfo> {
    let mut kinds: Vec<KindInfo> = Vec::new();
    for item in located {
        if !kinds.contains(&item.kind) {
            kinds.push(item.kind);
        }
    }
    kinds
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(value: Value) -> DynamicObject {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn bookkeeping_is_not_drift() {
        let live = object(json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "s", "resourceVersion": "7", "managedFields": [{"manager": "kubectl"}]},
            "spec": {"ports": [{"port": 80}]}}));
        let would_be = object(json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "s", "resourceVersion": "8", "managedFields": [{"manager": "helm"}]},
            "spec": {"ports": [{"port": 80}]}}));
        assert!(same_object(&would_be, &live));
    }

    #[test]
    fn a_changed_field_label_or_annotation_is_drift() {
        let live = json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": "s", "labels": {"a": "1"}}, "spec": {"ports": [{"port": 80}]}});
        for change in [
            json!({"spec": {"ports": [{"port": 81}]}}),
            json!({"metadata": {"name": "s", "labels": {"a": "2"}}}),
            json!({"metadata": {"name": "s", "labels": {"a": "1"}, "annotations": {"b": "c"}}}),
        ] {
            let mut would_be = live.clone();
            json_patch::merge(&mut would_be, &change);
            assert!(
                !same_object(&object(would_be), &object(live.clone())),
                "{change}"
            );
        }
    }
}
