//! Status conditions (`metav1.Condition`) with the semantics of apimachinery's
//! `meta.SetStatusCondition`: kube has no such helper (kube-rs#427).
//!
//! A controller owns the conditions of its own types and no other: `status.conditions` is a
//! list keyed by `type` (`x-kubernetes-list-type: map`, `x-kubernetes-list-map-keys: [type]`,
//! as Kubernetes declares `metav1.Condition` lists), and [`owned_conditions`] gives the
//! entries to apply with server-side apply ([`apply_status`]), so that conditions other
//! writers set stay theirs.
use std::fmt;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use kube::Resource;
use kube::api::{Api, Patch, PatchParams};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The status of a condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConditionStatus {
    True,
    False,
    Unknown,
}

impl ConditionStatus {
    /// The API value: `"True"`, `"False"` or `"Unknown"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ConditionStatus::True => "True",
            ConditionStatus::False => "False",
            ConditionStatus::Unknown => "Unknown",
        }
    }
}

impl From<bool> for ConditionStatus {
    fn from(value: bool) -> Self {
        if value {
            ConditionStatus::True
        } else {
            ConditionStatus::False
        }
    }
}

impl fmt::Display for ConditionStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The desired state of one condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionUpdate {
    /// Condition type in CamelCase, e.g. `Available`.
    pub type_: String,
    pub status: ConditionStatus,
    /// Machine-readable reason in CamelCase; the API server rejects an empty one.
    pub reason: String,
    /// Human-readable details.
    pub message: String,
    /// The `.metadata.generation` this condition was computed from.
    pub observed_generation: Option<i64>,
}

impl ConditionUpdate {
    pub fn new(
        type_: impl Into<String>,
        status: ConditionStatus,
        reason: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        ConditionUpdate {
            type_: type_.into(),
            status,
            reason: reason.into(),
            message: message.into(),
            observed_generation: None,
        }
    }

    /// Record the generation the condition reflects.
    #[must_use]
    pub fn observed_generation(mut self, generation: Option<i64>) -> Self {
        self.observed_generation = generation;
        self
    }
}

/// Add or update the condition of `update.type_`, stamping the current time when it is
/// new or its status flips. Returns true when anything changed (so the caller knows
/// whether to write the status).
pub fn set_condition(conditions: &mut Vec<Condition>, update: ConditionUpdate) -> bool {
    set_condition_at(conditions, update, Time(Timestamp::now()))
}

/// [`set_condition`] with an explicit clock, for deterministic tests.
pub fn set_condition_at(
    conditions: &mut Vec<Condition>,
    update: ConditionUpdate,
    now: Time,
) -> bool {
    let status = update.status.as_str();
    let Some(existing) = conditions.iter_mut().find(|c| c.type_ == update.type_) else {
        conditions.push(Condition {
            type_: update.type_,
            status: status.to_string(),
            reason: update.reason,
            message: update.message,
            observed_generation: update.observed_generation,
            last_transition_time: now,
        });
        return true;
    };
    let mut changed = false;
    if existing.status != status {
        existing.status = status.to_string();
        existing.last_transition_time = now;
        changed = true;
    }
    if existing.reason != update.reason {
        existing.reason = update.reason;
        changed = true;
    }
    if existing.message != update.message {
        existing.message = update.message;
        changed = true;
    }
    if existing.observed_generation != update.observed_generation {
        existing.observed_generation = update.observed_generation;
        changed = true;
    }
    changed
}

/// The conditions a controller applies after `updates`, or `None` when they change nothing.
///
/// `current` is the object's `status.conditions` as read; each update is stamped with
/// `generation` (the object's `metadata.generation`, reported as `observedGeneration`) and
/// keeps its `lastTransitionTime` unless its status flips. The result holds the conditions of
/// the updates' types only, in their order: apply exactly these with the controller's field
/// manager. Server-side apply then leaves every other condition to whoever wrote it; a
/// controller that sends every condition it read would take them over and, when they change,
/// overwrite them.
pub fn owned_conditions<'a>(
    current: impl IntoIterator<Item = &'a Condition>,
    generation: Option<i64>,
    updates: impl IntoIterator<Item = ConditionUpdate>,
) -> Option<Vec<Condition>> {
    let mut conditions: Vec<Condition> = current.into_iter().cloned().collect();
    let mut types = Vec::new();
    let mut changed = false;
    for update in updates {
        types.push(update.type_.clone());
        changed |= set_condition(&mut conditions, update.observed_generation(generation));
    }
    changed.then(|| {
        types
            .iter()
            .filter_map(|type_| find_condition(&conditions, type_).cloned())
            .collect()
    })
}

/// Apply `status` to the status subresource of the object `name` with server-side apply
/// as `field_manager`, forcing the fields it sets (a controller owns its status fields).
///
/// Send every status field the controller sets in this one patch: server-side apply
/// removes the fields a manager stops applying. Conditions belong in it as
/// [`owned_conditions`] gives them.
///
/// # Errors
///
/// The API server's error when it refuses the patch (a field manager conflict, RBAC, a
/// schema violation) or cannot be reached.
pub async fn apply_status<K>(
    api: &Api<K>,
    name: &str,
    field_manager: &str,
    status: &impl Serialize,
) -> kube::Result<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + fmt::Debug,
{
    let patch = serde_json::json!({
        "apiVersion": K::api_version(&()),
        "kind": K::kind(&()),
        "status": status,
    });
    let params = PatchParams::apply(field_manager).force();
    api.patch_status(name, &params, &Patch::Apply(patch)).await
}

/// Apply `updates` to `obj`'s conditions as [`owned_conditions`] gives them, in a status
/// that `status` makes of them (with every other status field the controller sets: they go
/// in one apply), with server-side apply as `field_manager` ([`apply_status`]). `current` is
/// the object's `status.conditions` as read. Returns whether anything changed: nothing is
/// sent when nothing did.
///
/// # Errors
///
/// As [`apply_status`], when there is something to send.
pub async fn apply_owned<'a, K, S>(
    api: &Api<K>,
    obj: &K,
    field_manager: &str,
    current: impl IntoIterator<Item = &'a Condition>,
    updates: impl IntoIterator<Item = ConditionUpdate>,
    status: impl FnOnce(Vec<Condition>) -> S,
) -> kube::Result<bool>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + fmt::Debug,
    S: Serialize,
{
    let Some(conditions) = owned_conditions(current, obj.meta().generation, updates) else {
        return Ok(false);
    };
    let name = obj.meta().name.as_deref().unwrap_or_default();
    apply_status(api, name, field_manager, &status(conditions)).await?;
    Ok(true)
}

/// The condition of the given type, if present.
pub fn find_condition<'a>(conditions: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conditions.iter().find(|c| c.type_ == type_)
}

/// True when the condition is present with status `True`.
pub fn is_condition_true(conditions: &[Condition], type_: &str) -> bool {
    find_condition(conditions, type_).is_some_and(|c| c.status == ConditionStatus::True.as_str())
}

/// Remove the condition of the given type; returns true when one was removed.
pub fn remove_condition(conditions: &mut Vec<Condition>, type_: &str) -> bool {
    let before = conditions.len();
    conditions.retain(|c| c.type_ != type_);
    conditions.len() != before
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> Time {
        Time(Timestamp::from_second(seconds).unwrap())
    }

    fn available(status: ConditionStatus, reason: &str) -> ConditionUpdate {
        ConditionUpdate::new("Available", status, reason, "Deployment is ready")
    }

    #[test]
    fn new_condition_is_added_with_the_current_time() {
        let mut conditions = Vec::new();
        assert!(set_condition_at(
            &mut conditions,
            available(ConditionStatus::True, "Reconciling").observed_generation(Some(3)),
            at(100),
        ));
        assert_eq!(
            conditions,
            vec![Condition {
                type_: "Available".into(),
                status: "True".into(),
                reason: "Reconciling".into(),
                message: "Deployment is ready".into(),
                observed_generation: Some(3),
                last_transition_time: at(100),
            }]
        );
    }

    #[test]
    fn same_status_keeps_the_transition_time() {
        let mut conditions = Vec::new();
        set_condition_at(
            &mut conditions,
            available(ConditionStatus::True, "A"),
            at(100),
        );
        assert!(set_condition_at(
            &mut conditions,
            available(ConditionStatus::True, "B"),
            at(200)
        ));
        assert_eq!(conditions[0].reason, "B");
        assert_eq!(conditions[0].last_transition_time, at(100));
    }

    #[test]
    fn identical_update_reports_no_change() {
        let mut conditions = Vec::new();
        set_condition_at(
            &mut conditions,
            available(ConditionStatus::True, "A"),
            at(100),
        );
        let before = conditions.clone();
        assert!(!set_condition_at(
            &mut conditions,
            available(ConditionStatus::True, "A"),
            at(200)
        ));
        assert_eq!(conditions, before);
    }

    #[test]
    fn status_flip_changes_the_transition_time() {
        let mut conditions = Vec::new();
        set_condition_at(
            &mut conditions,
            available(ConditionStatus::True, "A"),
            at(100),
        );
        assert!(set_condition_at(
            &mut conditions,
            available(ConditionStatus::False, "A"),
            at(200)
        ));
        assert_eq!(conditions[0].status, "False");
        assert_eq!(conditions[0].last_transition_time, at(200));
        assert_eq!(conditions.len(), 1);
    }

    #[test]
    fn observed_generation_alone_is_a_change() {
        let mut conditions = Vec::new();
        let update = available(ConditionStatus::True, "A");
        set_condition_at(
            &mut conditions,
            update.clone().observed_generation(Some(1)),
            at(100),
        );
        assert!(set_condition_at(
            &mut conditions,
            update.observed_generation(Some(2)),
            at(200)
        ));
        assert_eq!(conditions[0].observed_generation, Some(2));
        assert_eq!(conditions[0].last_transition_time, at(100));
    }

    #[test]
    fn find_is_true_and_remove() {
        let mut conditions = Vec::new();
        set_condition(&mut conditions, available(ConditionStatus::True, "A"));
        set_condition(
            &mut conditions,
            ConditionUpdate::new("Degraded", ConditionStatus::False, "Healthy", ""),
        );
        assert!(is_condition_true(&conditions, "Available"));
        assert!(!is_condition_true(&conditions, "Degraded"));
        assert!(!is_condition_true(&conditions, "Progressing"));
        assert_eq!(
            find_condition(&conditions, "Degraded").unwrap().reason,
            "Healthy"
        );
        assert!(find_condition(&conditions, "Progressing").is_none());

        assert!(remove_condition(&mut conditions, "Available"));
        assert!(!remove_condition(&mut conditions, "Available"));
        assert_eq!(conditions.len(), 1);
        assert_eq!(conditions[0].type_, "Degraded");
    }

    #[test]
    fn owned_conditions_are_the_updated_types_only() {
        let mut current = Vec::new();
        set_condition_at(
            &mut current,
            ConditionUpdate::new(
                "Backed",
                ConditionStatus::True,
                "ByHand",
                "another writer's",
            ),
            at(50),
        );
        set_condition_at(
            &mut current,
            available(ConditionStatus::True, "A").observed_generation(Some(1)),
            at(100),
        );
        // The same condition of the same generation: nothing to apply.
        let same = owned_conditions(&current, Some(1), [available(ConditionStatus::True, "A")]);
        assert_eq!(same, None);
        // A new generation: the controller's condition alone, its transition time kept.
        let owned = owned_conditions(&current, Some(2), [available(ConditionStatus::True, "A")])
            .expect("a new generation is a change");
        assert_eq!(owned.len(), 1, "{owned:?}");
        assert_eq!(owned[0].type_, "Available");
        assert_eq!(owned[0].observed_generation, Some(2));
        assert_eq!(owned[0].last_transition_time, at(100));
        // Several types, in the updates' order, the new one added.
        let progressing = ConditionUpdate::new("Progressing", ConditionStatus::False, "Done", "");
        let owned = owned_conditions(
            &current,
            Some(1),
            [progressing, available(ConditionStatus::True, "A")],
        )
        .unwrap();
        let types: Vec<&str> = owned.iter().map(|c| c.type_.as_str()).collect();
        assert_eq!(types, ["Progressing", "Available"]);
    }

    #[test]
    fn status_strings_match_the_api() {
        assert_eq!(ConditionStatus::from(true).to_string(), "True");
        assert_eq!(ConditionStatus::from(false).as_str(), "False");
        assert_eq!(ConditionStatus::Unknown.as_str(), "Unknown");
    }

    #[tokio::test]
    async fn apply_owned_sends_the_owned_conditions_only_when_they_change() {
        use http::{Request, Response};
        use k8s_openapi::api::core::v1::ConfigMap;
        use kube::client::Body;

        let (service, mut handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
        let api: Api<ConfigMap> = Api::namespaced(kube::Client::new(service, "n"), "n");
        let mut obj = ConfigMap::default();
        obj.metadata.name = Some("a".into());
        obj.metadata.generation = Some(3);
        let mut current = Vec::new();
        set_condition(
            &mut current,
            available(ConditionStatus::True, "Done").observed_generation(Some(3)),
        );
        set_condition(
            &mut current,
            ConditionUpdate::new("Other", ConditionStatus::True, "Theirs", ""),
        );
        let status = |conditions| serde_json::json!({ "conditions": conditions, "phase": "x" });
        let same = [available(ConditionStatus::True, "Done")];
        let unchanged = apply_owned(&api, &obj, "me", &current, same, status).await;
        assert!(!unchanged.unwrap(), "nothing changed, nothing sent");

        let server = tokio::spawn(async move {
            let (request, send) = handle.next_request().await.expect("a status patch");
            let uri = request.uri().clone();
            let body = request.into_body().collect_bytes().await.unwrap();
            send.send_response(Response::new(Body::from(b"{}".to_vec())));
            (
                uri,
                serde_json::from_slice::<serde_json::Value>(&body).unwrap(),
            )
        });
        let flipped = [available(ConditionStatus::False, "Broken")];
        let changed = apply_owned(&api, &obj, "me", &current, flipped, status).await;
        assert!(changed.unwrap());
        let (uri, body) = server.await.unwrap();
        assert_eq!(uri.path(), "/api/v1/namespaces/n/configmaps/a/status");
        let query = uri.query().unwrap_or_default();
        assert!(
            query.contains("fieldManager=me") && query.contains("force=true"),
            "{query}"
        );
        let conditions = body["status"]["conditions"].as_array().unwrap();
        let types: Vec<&serde_json::Value> = conditions.iter().map(|c| &c["type"]).collect();
        assert_eq!(types, ["Available"], "only the owned condition: {body}");
        assert_eq!(conditions[0]["reason"], "Broken");
        assert_eq!(conditions[0]["observedGeneration"], 3);
        assert_eq!(body["status"]["phase"], "x", "the status the closure made");
    }
}
