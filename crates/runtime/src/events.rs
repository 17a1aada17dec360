//! Events about the objects a controller reconciles.
use kube::Resource;
use kube::runtime::events::{Event, EventType, Recorder};

/// Publish an event about `obj` (`reason` in `PascalCase`, `note` for people), done by the
/// action `Reconcile`. An event is a notice, not the work: a failure to publish one is
/// logged and never fails a reconcile, nor blocks a deletion.
pub async fn publish<K>(recorder: &Recorder, obj: &K, type_: EventType, reason: &str, note: String)
where
    K: Resource<DynamicType = ()>,
{
    let event = Event {
        type_,
        reason: reason.into(),
        note: Some(note),
        action: "Reconcile".into(),
        secondary: None,
    };
    if let Err(error) = recorder.publish(&event, &obj.object_ref(&())).await {
        let kind = K::kind(&());
        let name = obj.meta().name.as_deref().unwrap_or_default();
        tracing::warn!(%kind, %name, reason, %error, "could not publish an event");
    }
}
