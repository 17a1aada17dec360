//! Watches on the objects of the releases. A kube Controller cannot add watches while it
//! runs, so each newly seen kind gets its own metadata watcher task, which maps events back
//! to the owning custom resource and feeds them to the controller's `reconcile_on` stream.
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use futures::channel::mpsc::UnboundedSender;
use futures::{StreamExt, future};
use kube::api::{Api, ApiResource, DynamicObject, PartialObjectMeta};
use kube::runtime::WatchStreamExt;
use kube::runtime::reflector::ObjectRef;
use kube::runtime::watcher::{self, watcher};
use kube::{Client, ResourceExt};

use super::kinds::KindInfo;
use crate::context::{Shutdown, WatchScope};

const RELEASE_NAME_ANNOTATION: &str = "meta.helm.sh/release-name";
const RELEASE_NAMESPACE_ANNOTATION: &str = "meta.helm.sh/release-namespace";

/// Starts one watcher per kind found in release manifests.
pub(crate) struct DependentWatches {
    client: Client,
    scope: WatchScope,
    owner: Arc<ApiResource>,
    trigger: UnboundedSender<ObjectRef<DynamicObject>>,
    shutdown: Shutdown,
    watched: Mutex<HashSet<ApiResource>>,
}

impl DependentWatches {
    pub fn new(
        client: Client,
        scope: WatchScope,
        owner: ApiResource,
        trigger: UnboundedSender<ObjectRef<DynamicObject>>,
        shutdown: Shutdown,
    ) -> Self {
        DependentWatches {
            client,
            scope,
            owner: Arc::new(owner),
            trigger,
            shutdown,
            watched: Mutex::new(HashSet::new()),
        }
    }

    /// Start watching the kinds not watched yet.
    pub fn watch_kinds(&self, kinds: &[KindInfo]) {
        let Ok(mut watched) = self.watched.lock() else {
            return;
        };
        for kind in kinds {
            if watched.insert(kind.resource.clone()) {
                tracing::info!(kind = %kind.resource.kind, api_version = %kind.resource.api_version, "watching dependent resources");
                let api = metadata_api(&self.client, &self.scope, kind);
                tokio::spawn(watch_kind(
                    api,
                    self.owner.clone(),
                    self.trigger.clone(),
                    self.shutdown.clone(),
                ));
            }
        }
    }
}

/// A metadata-only Api for the kind, limited to the scope when the kind is namespaced.
fn metadata_api(client: &Client, scope: &WatchScope, kind: &KindInfo) -> Api<Meta> {
    match (scope.namespace(), kind.namespaced) {
        (Some(ns), true) => Api::namespaced_with(client.clone(), ns, &kind.resource),
        _ => Api::all_with(client.clone(), &kind.resource),
    }
}

/// Forward changes of one kind until shutdown or until the controller is gone.
async fn watch_kind(
    api: Api<Meta>,
    owner: Arc<ApiResource>,
    trigger: UnboundedSender<ObjectRef<DynamicObject>>,
    shutdown: Shutdown,
) {
    let mut filter = ChangeFilter::default();
    // Backoff: a failing watch would otherwise retry in a hot loop.
    let events = watcher(api, watcher::Config::default())
        .default_backoff()
        .take_until(shutdown.wait())
        .filter_map(|event| {
            future::ready(
                event
                    .inspect_err(|e| tracing::debug!(error = %e, "dependent watch error"))
                    .ok(),
            )
        });
    let mut events = std::pin::pin!(events);
    while let Some(event) = events.next().await {
        let Some(object) = filter.triggering(event) else {
            continue;
        };
        if let Some(owner_ref) = owner_of(&object, &owner)
            && trigger.unbounded_send(owner_ref).is_err()
        {
            return;
        }
    }
}

/// Decides which events are worth a reconcile, as operator-sdk's `DependentPredicate`
/// (pkg/predicate/predicate.go): deletions, and updates that change more than status,
/// `resourceVersion` and `managedFields`. The watch sees metadata only, so a spec change
/// shows as a new generation (or any update of kinds without one) and label, annotation,
/// owner reference and finalizer edits are seen directly. Creates are not (Helm made them).
#[derive(Default)]
struct ChangeFilter {
    fingerprints: HashMap<String, u64>,
}

type Meta = PartialObjectMeta<DynamicObject>;

impl ChangeFilter {
    fn triggering(&mut self, event: watcher::Event<Meta>) -> Option<Meta> {
        match event {
            watcher::Event::InitApply(object) => {
                self.remember(&object);
                None
            }
            watcher::Event::Apply(object) => {
                let previous = self.remember(&object);
                let changed = match previous {
                    None => false, // newly created (by Helm): nothing to repair yet
                    Some(previous) => {
                        object.metadata.generation.is_none()
                            || Some(previous) != fingerprint(&object)
                    }
                };
                changed.then_some(object)
            }
            watcher::Event::Delete(object) => {
                if let Some(uid) = object.uid() {
                    self.fingerprints.remove(&uid);
                }
                Some(object)
            }
            watcher::Event::Init | watcher::Event::InitDone => None,
        }
    }

    fn remember(&mut self, object: &Meta) -> Option<u64> {
        let uid = object.uid()?;
        self.fingerprints.insert(uid, fingerprint(object)?)
    }
}

/// A hash of the metadata a user can change (everything but `resourceVersion` and
/// `managedFields`, which every write moves).
fn fingerprint(object: &Meta) -> Option<u64> {
    use std::hash::{Hash, Hasher};
    let mut metadata = object.metadata.clone();
    metadata.resource_version = None;
    metadata.managed_fields = None;
    let text = serde_json::to_string(&metadata).ok()?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    Some(hasher.finish())
}

/// The custom resource an object belongs to: its controller owner reference of our kind,
/// or else Helm's release annotations (for objects that cannot carry an owner reference).
fn owner_of(object: &Meta, owner: &ApiResource) -> Option<ObjectRef<DynamicObject>> {
    let by_reference = object.owner_references().iter().find(|r| {
        r.controller == Some(true) && r.api_version == owner.api_version && r.kind == owner.kind
    });
    if let Some(reference) = by_reference {
        let namespace = object.namespace()?;
        return Some(ObjectRef::new_with(&reference.name, owner.clone()).within(&namespace));
    }
    let annotations = object.annotations();
    let name = annotations.get(RELEASE_NAME_ANNOTATION)?;
    let namespace = annotations.get(RELEASE_NAMESPACE_ANNOTATION)?;
    Some(ObjectRef::new_with(name, owner.clone()).within(namespace))
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
    use kube::api::GroupVersionKind;

    use super::*;

    fn owner() -> ApiResource {
        ApiResource::from_gvk(&GroupVersionKind::gvk(
            "cache.example.com",
            "v1",
            "Memcached",
        ))
    }

    fn meta(uid: &str, generation: Option<i64>) -> Meta {
        let mut object = Meta {
            types: None,
            metadata: ObjectMeta {
                name: Some("mc-memcached".into()),
                namespace: Some("default".into()),
                uid: Some(uid.into()),
                generation,
                ..ObjectMeta::default()
            },
            _phantom: std::marker::PhantomData,
        };
        object.metadata.owner_references = Some(vec![OwnerReference {
            api_version: "cache.example.com/v1".into(),
            kind: "Memcached".into(),
            name: "mc".into(),
            uid: "owner".into(),
            controller: Some(true),
            block_owner_deletion: Some(true),
        }]);
        object
    }

    #[test]
    fn owner_reference_maps_to_the_custom_resource() {
        let reference = owner_of(&meta("a", Some(1)), &owner()).unwrap();
        assert_eq!(reference.name, "mc");
        assert_eq!(reference.namespace.as_deref(), Some("default"));
    }

    #[test]
    fn helm_annotations_map_cluster_scoped_objects() {
        let mut object = meta("a", None);
        object.metadata.owner_references = None;
        object.metadata.namespace = None;
        object.metadata.annotations = Some(
            [
                (RELEASE_NAME_ANNOTATION.to_string(), "mc".to_string()),
                (RELEASE_NAMESPACE_ANNOTATION.to_string(), "apps".to_string()),
            ]
            .into(),
        );
        let reference = owner_of(&object, &owner()).unwrap();
        assert_eq!(
            (reference.name.as_str(), reference.namespace.as_deref()),
            ("mc", Some("apps"))
        );
        object.metadata.annotations = None;
        assert!(owner_of(&object, &owner()).is_none());
    }

    #[test]
    fn only_deletes_and_spec_changes_trigger() {
        let mut filter = ChangeFilter::default();
        assert!(
            filter
                .triggering(watcher::Event::InitApply(meta("a", Some(1))))
                .is_none()
        );
        // status-only update: same generation
        assert!(
            filter
                .triggering(watcher::Event::Apply(meta("a", Some(1))))
                .is_none()
        );
        assert!(
            filter
                .triggering(watcher::Event::Apply(meta("a", Some(2))))
                .is_some()
        );
        assert!(
            filter
                .triggering(watcher::Event::Delete(meta("a", Some(2))))
                .is_some()
        );
        // a new object created after startup does not trigger; its later edits do
        assert!(
            filter
                .triggering(watcher::Event::Apply(meta("b", None)))
                .is_none()
        );
        assert!(
            filter
                .triggering(watcher::Event::Apply(meta("b", None)))
                .is_some()
        );
    }

    #[test]
    fn label_annotation_and_owner_edits_trigger_but_resource_version_alone_does_not() {
        let mut filter = ChangeFilter::default();
        let base = meta("a", Some(1));
        assert!(
            filter
                .triggering(watcher::Event::InitApply(base.clone()))
                .is_none()
        );
        let mut bumped = base.clone();
        bumped.metadata.resource_version = Some("99".into());
        bumped.metadata.managed_fields = Some(Vec::new());
        assert!(
            filter
                .triggering(watcher::Event::Apply(bumped.clone()))
                .is_none()
        );
        let mut labelled = bumped.clone();
        labelled.metadata.labels = Some([("team".to_string(), "x".to_string())].into());
        assert!(
            filter
                .triggering(watcher::Event::Apply(labelled.clone()))
                .is_some()
        );
        let mut annotated = labelled.clone();
        annotated.metadata.annotations = Some([("a".to_string(), "b".to_string())].into());
        assert!(
            filter
                .triggering(watcher::Event::Apply(annotated.clone()))
                .is_some()
        );
        let mut orphaned = annotated.clone();
        orphaned.metadata.owner_references = None;
        assert!(
            filter
                .triggering(watcher::Event::Apply(orphaned.clone()))
                .is_some()
        );
        assert!(filter.triggering(watcher::Event::Apply(orphaned)).is_none());
    }
}
