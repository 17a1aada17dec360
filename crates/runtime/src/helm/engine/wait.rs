//! Readiness as Helm 4 waits: the status of an object computed as kstatus computes it
//! (fluxcd/cli-utils v1.2.1, the fork Helm 4.2.3 links), and waits that watch a release's
//! objects until each reaches the status Helm asks for.
//!
//! Helm's `watcher` strategy (pkg/kube/statuswait.go) is what this follows:
//! - [`wait_ready`] (`--wait=watcher`): every object `Current`, paused Deployments skipped;
//!   `Failed` is terminal, so the wait ends as soon as all the others are `Current` and
//!   reports the failed ones. [`wait_ready_with_jobs`] (`--wait-for-jobs`) also needs each
//!   Job `Complete`.
//! - [`wait_hook_complete`] (every strategy, `hookOnly` included): a hook Job until it
//!   completes or fails, a hook Pod until it succeeds or fails; any other kind is done once
//!   created.
//! - [`wait_deleted`]: every object gone (an object already gone when the wait starts
//!   counts as gone).
//!
//! Like Helm's informers, one list-then-watch per kind and namespace (narrowed to the name
//! when the release has one object of that kind there), so a wait costs no polling and
//! ends on the event that completes it. A zero timeout means Helm's default, 30 s.
//!
//! Errors read as Helm's (`resource Deployment/ns/web not ready. status: InProgress,
//! message: Available: 0/1`, then `context deadline exceeded` on a timeout), so users and
//! scripts see the same text whichever of the two ran the release.
use std::fmt;
use std::time::Duration;

use futures::stream::BoxStream;
use futures::{StreamExt, future, stream};
use kube::api::{Api, ApiResource, DynamicObject};
use kube::runtime::{WatchStreamExt, watcher};
use serde_json::Value;

use super::ClusterObject;

/// Helm's `DefaultStatusWatcherTimeout`: what a zero timeout means.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long kstatus gives an unschedulable Pod before it counts as failed.
const SCHEDULE_WINDOW: time::Duration = time::Duration::seconds(15);

/// kstatus' computed status of an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Status {
    InProgress,
    Failed,
    Current,
    Terminating,
    NotFound,
    Unknown,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::InProgress => "InProgress",
            Status::Failed => "Failed",
            Status::Current => "Current",
            Status::Terminating => "Terminating",
            Status::NotFound => "NotFound",
            Status::Unknown => "Unknown",
        })
    }
}

/// A computed status with kstatus' reason (of the `Reconciling` or `Stalled` condition it
/// would add; empty when `Current`) and message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Computed {
    pub status: Status,
    pub reason: String,
    pub message: String,
}

impl Computed {
    fn current(message: impl Into<String>) -> Self {
        Computed {
            status: Status::Current,
            reason: String::new(),
            message: message.into(),
        }
    }

    fn in_progress(reason: impl Into<String>, message: impl Into<String>) -> Self {
        Computed {
            status: Status::InProgress,
            reason: reason.into(),
            message: message.into(),
        }
    }

    fn failed(reason: impl Into<String>, message: impl Into<String>) -> Self {
        Computed {
            status: Status::Failed,
            reason: reason.into(),
            message: message.into(),
        }
    }

    /// Before the first event about an object (or after it could not be read).
    fn unknown(message: impl Into<String>) -> Self {
        Computed {
            status: Status::Unknown,
            reason: String::new(),
            message: message.into(),
        }
    }

    fn not_found() -> Self {
        Computed {
            status: Status::NotFound,
            reason: String::new(),
            message: "Resource not found".into(),
        }
    }
}

/// kstatus' status of `obj`, its kind read from its own `apiVersion` and `kind`.
#[cfg(test)]
pub(crate) fn object_status(obj: &Value) -> Status {
    compute(obj).status
}

/// kstatus' status, reason and message of `obj` (`status.Compute`).
pub(crate) fn compute(obj: &Value) -> Computed {
    let api_version = obj["apiVersion"].as_str().unwrap_or_default();
    let group = api_version.rsplit_once('/').map_or("", |(group, _)| group);
    compute_as(group, obj["kind"].as_str().unwrap_or_default(), obj)
}

/// As [`compute`], for an object of `group`/`kind` (watch and list items may lack both).
fn compute_as(group: &str, kind: &str, obj: &Value) -> Computed {
    // A malformed field makes kstatus' status Unknown, with the error as its message.
    let computed = || -> Result<Computed, String> {
        if let Some(generic) = generic_properties(kind, obj)? {
            return Ok(generic);
        }
        if let Some(by_kind) = kind_rules(group, kind) {
            return by_kind(obj);
        }
        Ok(ready_condition(obj)?.unwrap_or_else(|| Computed::current("Resource is current")))
    };
    computed().unwrap_or_else(Computed::unknown)
}

/// The rules every kind shares: deletion, an unobserved generation, and the
/// `Reconciling`/`Stalled` conditions.
fn generic_properties(kind: &str, obj: &Value) -> Result<Option<Computed>, String> {
    let deletion = optional_str(obj, &["metadata", "deletionTimestamp"])?;
    if deletion.is_some_and(|at| !at.is_empty()) {
        return Ok(Some(Computed {
            status: Status::Terminating,
            reason: String::new(),
            message: "Resource scheduled for deletion".into(),
        }));
    }
    if let (Some(generation), Some(observed)) = (
        optional_int(obj, &["metadata", "generation"])?,
        optional_int(obj, &["status", "observedGeneration"])?,
    ) && generation != observed
    {
        return Ok(Some(Computed::in_progress(
            "LatestGenerationNotObserved",
            format!(
                "{kind} generation is {generation}, but latest observed generation is {observed}"
            ),
        )));
    }
    for c in conditions(obj)? {
        if c.type_ == "Reconciling" && c.status == "True" {
            return Ok(Some(Computed::in_progress(c.reason, c.message)));
        }
        if c.type_ == "Stalled" && c.status == "True" {
            return Ok(Some(Computed::failed(c.reason, c.message)));
        }
    }
    Ok(None)
}

/// A `Ready` condition decides kinds kstatus has no rule for.
fn ready_condition(obj: &Value) -> Result<Option<Computed>, String> {
    for c in conditions(obj)? {
        if c.type_ != "Ready" {
            continue;
        }
        match c.status.as_str() {
            "True" => return Ok(Some(Computed::current("Resource is Ready"))),
            "False" | "Unknown" => return Ok(Some(Computed::in_progress(c.reason, c.message))),
            _ => {}
        }
    }
    Ok(None)
}

type Rule = fn(&Value) -> Result<Computed, String>;

/// kstatus' rule for a built-in kind (any version), if it has one.
fn kind_rules(group: &str, kind: &str) -> Option<Rule> {
    Some(match (group, kind) {
        ("", "Service") => service,
        ("", "Pod") => pod,
        ("", "PersistentVolumeClaim") => pvc,
        ("", "Secret" | "ConfigMap") | ("batch", "CronJob") => always_ready,
        ("apps", "StatefulSet") => stateful_set,
        ("apps" | "extensions", "DaemonSet") => daemon_set,
        ("apps" | "extensions", "Deployment") => deployment,
        ("apps" | "extensions", "ReplicaSet") => replica_set,
        ("policy", "PodDisruptionBudget") => pdb,
        ("batch", "Job") => job,
        ("apiextensions.k8s.io", "CustomResourceDefinition") => crd,
        _ => return None,
    })
}

#[expect(
    clippy::unnecessary_wraps,
    reason = "a `Rule`: the table takes one signature"
)]
fn always_ready(_: &Value) -> Result<Computed, String> {
    Ok(Computed::current("Resource is always ready"))
}

#[expect(
    clippy::unnecessary_wraps,
    reason = "a `Rule`: the table takes one signature"
)]
fn stateful_set(obj: &Value) -> Result<Computed, String> {
    if str_field(obj, &["spec", "updateStrategy", "type"], "") == "OnDelete" {
        return Ok(Computed::current(
            "StatefulSet is using the ondelete update strategy",
        ));
    }
    let spec = int_field(obj, &["spec", "replicas"], 1);
    let ready = int_field(obj, &["status", "readyReplicas"], 0);
    let current = int_field(obj, &["status", "currentReplicas"], 0);
    let updated = int_field(obj, &["status", "updatedReplicas"], 0);
    let replicas = int_field(obj, &["status", "replicas"], 0);
    let partition = int_field(
        obj,
        &["spec", "updateStrategy", "rollingUpdate", "partition"],
        -1,
    );
    if spec > replicas {
        return Ok(Computed::in_progress(
            "LessReplicas",
            format!("Replicas: {replicas}/{spec}"),
        ));
    }
    if spec > ready {
        return Ok(Computed::in_progress(
            "LessReady",
            format!("Ready: {ready}/{spec}"),
        ));
    }
    if replicas > spec {
        let extra = replicas - spec;
        return Ok(Computed::in_progress(
            "ExtraPods",
            format!("Pending termination: {extra}"),
        ));
    }
    if partition != -1 {
        let wanted = spec - partition;
        if updated < wanted {
            return Ok(Computed::in_progress(
                "PartitionRollout",
                format!("updated: {updated}/{wanted}"),
            ));
        }
        return Ok(Computed::current(format!(
            "Partition rollout complete. updated: {updated}"
        )));
    }
    if spec > current {
        return Ok(Computed::in_progress(
            "LessCurrent",
            format!("current: {current}/{spec}"),
        ));
    }
    if str_field(obj, &["status", "currentRevision"], "")
        != str_field(obj, &["status", "updateRevision"], "")
    {
        return Ok(Computed::in_progress(
            "RevisionMismatch",
            "Waiting for updated revision to match current",
        ));
    }
    Ok(Computed::current(format!(
        "All replicas scheduled as expected. Replicas: {replicas}"
    )))
}

fn deployment(obj: &Value) -> Result<Computed, String> {
    // Without a progress deadline the Progressing condition is never set to its final reason.
    let mut progressing = int_field(
        obj,
        &["spec", "progressDeadlineSeconds"],
        i64::from(i32::MAX),
    ) == i64::from(i32::MAX);
    let mut available = false;
    for c in conditions(obj)? {
        match c.type_.as_str() {
            "Progressing" if c.reason == "ProgressDeadlineExceeded" => {
                return Ok(Computed::failed(c.reason, "Progress deadline exceeded"));
            }
            "Progressing" if c.status == "True" && c.reason == "NewReplicaSetAvailable" => {
                progressing = true;
            }
            "Available" if c.status == "True" => available = true,
            _ => {}
        }
    }
    let spec = int_field(obj, &["spec", "replicas"], 1);
    let replicas = int_field(obj, &["status", "replicas"], 0);
    let updated = int_field(obj, &["status", "updatedReplicas"], 0);
    let ready = int_field(obj, &["status", "readyReplicas"], 0);
    let available_replicas = int_field(obj, &["status", "availableReplicas"], 0);
    if spec > replicas {
        return Ok(Computed::in_progress(
            "LessReplicas",
            format!("Replicas: {replicas}/{spec}"),
        ));
    }
    if spec > updated {
        return Ok(Computed::in_progress(
            "LessUpdated",
            format!("Updated: {updated}/{spec}"),
        ));
    }
    if replicas > spec {
        let extra = replicas - spec;
        return Ok(Computed::in_progress(
            "ExtraPods",
            format!("Pending termination: {extra}"),
        ));
    }
    if updated > available_replicas {
        return Ok(Computed::in_progress(
            "LessAvailable",
            format!("Available: {available_replicas}/{updated}"),
        ));
    }
    if spec > ready {
        return Ok(Computed::in_progress(
            "LessReady",
            format!("Ready: {ready}/{spec}"),
        ));
    }
    if !progressing {
        return Ok(Computed::in_progress(
            "ReplicaSetNotAvailable",
            "ReplicaSet not Available",
        ));
    }
    if !available {
        return Ok(Computed::in_progress(
            "DeploymentNotAvailable",
            "Deployment not Available",
        ));
    }
    Ok(Computed::current(format!(
        "Deployment is available. Replicas: {replicas}"
    )))
}

fn replica_set(obj: &Value) -> Result<Computed, String> {
    if conditions(obj)?
        .iter()
        .any(|c| c.type_ == "ReplicaFailure" && c.status == "True")
    {
        return Ok(Computed::in_progress(
            "ReplicaFailure",
            "Replica Failure condition. Check Pods",
        ));
    }
    let spec = int_field(obj, &["spec", "replicas"], 1);
    let replicas = int_field(obj, &["status", "replicas"], 0);
    let ready = int_field(obj, &["status", "readyReplicas"], 0);
    let available = int_field(obj, &["status", "availableReplicas"], 0);
    let labelled = int_field(obj, &["status", "fullyLabeledReplicas"], 0);
    if spec > labelled {
        return Ok(Computed::in_progress(
            "LessLabelled",
            format!("Labelled: {labelled}/{spec}"),
        ));
    }
    if spec > available {
        return Ok(Computed::in_progress(
            "LessAvailable",
            format!("Available: {available}/{spec}"),
        ));
    }
    if spec > ready {
        return Ok(Computed::in_progress(
            "LessReady",
            format!("Ready: {ready}/{spec}"),
        ));
    }
    if replicas > spec {
        let extra = replicas - spec;
        return Ok(Computed::in_progress(
            "ExtraPods",
            format!("Pending termination: {extra}"),
        ));
    }
    Ok(Computed::current(format!(
        "ReplicaSet is available. Replicas: {replicas}"
    )))
}

fn daemon_set(obj: &Value) -> Result<Computed, String> {
    // A DaemonSet is only judged once its controller has observed it at all.
    if optional_int(obj, &["metadata", "generation"])?.is_none() {
        return Ok(Computed::in_progress(
            "NoGeneration",
            "DaemonSet metadata.generation not found",
        ));
    }
    if optional_int(obj, &["status", "observedGeneration"])?.is_none() {
        return Ok(Computed::in_progress(
            "NoObservedGeneration",
            "DaemonSet status.observedGeneration not found",
        ));
    }
    let desired = int_field(obj, &["status", "desiredNumberScheduled"], -1);
    let current = int_field(obj, &["status", "currentNumberScheduled"], 0);
    let updated = int_field(obj, &["status", "updatedNumberScheduled"], 0);
    let available = int_field(obj, &["status", "numberAvailable"], 0);
    let ready = int_field(obj, &["status", "numberReady"], 0);
    if desired == -1 {
        return Ok(Computed::in_progress(
            "NoDesiredNumber",
            "Missing .status.desiredNumberScheduled",
        ));
    }
    if desired > current {
        return Ok(Computed::in_progress(
            "LessCurrent",
            format!("Current: {current}/{desired}"),
        ));
    }
    if desired > updated {
        return Ok(Computed::in_progress(
            "LessUpdated",
            format!("Updated: {updated}/{desired}"),
        ));
    }
    if desired > available {
        return Ok(Computed::in_progress(
            "LessAvailable",
            format!("Available: {available}/{desired}"),
        ));
    }
    if desired > ready {
        return Ok(Computed::in_progress(
            "LessReady",
            format!("Ready: {ready}/{desired}"),
        ));
    }
    Ok(Computed::current(format!(
        "All replicas scheduled as expected. Replicas: {desired}"
    )))
}

#[expect(
    clippy::unnecessary_wraps,
    reason = "a `Rule`: the table takes one signature"
)]
fn pvc(obj: &Value) -> Result<Computed, String> {
    let phase = str_field(obj, &["status", "phase"], "unknown");
    if phase != "Bound" {
        return Ok(Computed::in_progress(
            "NotBound",
            format!("PVC is not Bound. phase: {phase}"),
        ));
    }
    Ok(Computed::current("PVC is Bound"))
}

fn pod(obj: &Value) -> Result<Computed, String> {
    let conditions = conditions(obj)?;
    let has = |type_: &str, status: &str| {
        conditions
            .iter()
            .find(|c| c.type_ == type_ && c.status == status)
    };
    match str_field(obj, &["status", "phase"], "") {
        "Succeeded" => Ok(Computed::current("Pod has completed successfully")),
        "Failed" => Ok(Computed::current("Pod has completed, but not successfully")),
        "Running" => {
            if has("Ready", "True").is_some() {
                return Ok(Computed::current("Pod is Ready"));
            }
            let crash_looping = crash_looping_containers(obj);
            if !crash_looping.is_empty() {
                return Ok(Computed::failed(
                    "ContainerCrashLooping",
                    format!("Containers in CrashLoop state: {}", crash_looping.join(",")),
                ));
            }
            Ok(Computed::in_progress(
                "PodRunningNotReady",
                "Pod is running but is not Ready",
            ))
        }
        "Pending" => match has("PodScheduled", "False") {
            Some(c) if c.reason == "Unschedulable" => {
                if created_within(obj, SCHEDULE_WINDOW) {
                    Ok(Computed::in_progress(
                        "PodNotScheduled",
                        "Pod has not been scheduled",
                    ))
                } else {
                    Ok(Computed::failed(
                        "PodUnschedulable",
                        "Pod could not be scheduled",
                    ))
                }
            }
            _ => Ok(Computed::in_progress(
                "PodPending",
                "Pod is in the Pending phase",
            )),
        },
        "" => Ok(Computed::in_progress(
            "PodNotObserved",
            "Pod phase not available",
        )),
        other => Err(format!("unknown phase {other}")),
    }
}

/// Whether `obj` was created less than `window` ago (an object without a creation time
/// counts as old, as in kstatus).
fn created_within(obj: &Value, window: time::Duration) -> bool {
    obj["metadata"]["creationTimestamp"]
        .as_str()
        .and_then(|at| {
            time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339).ok()
        })
        .is_some_and(|created| time::OffsetDateTime::now_utc() - window < created)
}

fn crash_looping_containers(obj: &Value) -> Vec<&str> {
    obj["status"]["containerStatuses"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|cs| cs["state"]["waiting"]["reason"] == "CrashLoopBackOff")
        .filter_map(|cs| cs["name"].as_str())
        .collect()
}

#[expect(
    clippy::unnecessary_wraps,
    reason = "a `Rule`: the table takes one signature"
)]
fn pdb(_: &Value) -> Result<Computed, String> {
    Ok(Computed::current("AllowedDisruptions has been computed."))
}

fn job(obj: &Value) -> Result<Computed, String> {
    if let Some(finished) = finished_job(obj)? {
        return Ok(finished);
    }
    // kstatus counts a started Job as current: only `--wait-for-jobs` waits for the end.
    if str_field(obj, &["status", "startTime"], "").is_empty() {
        return Ok(Computed::in_progress("JobNotStarted", "Job not started"));
    }
    let succeeded = int_field(obj, &["status", "succeeded"], 0);
    let active = int_field(obj, &["status", "active"], 0);
    let failed = int_field(obj, &["status", "failed"], 0);
    Ok(Computed::current(format!(
        "Job in progress. success:{succeeded}, active: {active}, failed: {failed}"
    )))
}

/// A Job's status once its `Complete` or `Failed` condition is true (the same words in
/// kstatus and in Helm's own Job rule).
fn finished_job(obj: &Value) -> Result<Option<Computed>, String> {
    let parallelism = int_field(obj, &["spec", "parallelism"], 1);
    let completions = int_field(obj, &["spec", "completions"], parallelism);
    for c in conditions(obj)? {
        match (c.type_.as_str(), c.status.as_str()) {
            ("Complete", "True") => {
                let succeeded = int_field(obj, &["status", "succeeded"], 0);
                return Ok(Some(Computed::current(format!(
                    "Job Completed. succeeded: {succeeded}/{completions}"
                ))));
            }
            ("Failed", "True") => {
                let failed = int_field(obj, &["status", "failed"], 0);
                return Ok(Some(Computed::failed(
                    "JobFailed",
                    format!("Job Failed. failed: {failed}/{completions}"),
                )));
            }
            _ => {}
        }
    }
    Ok(None)
}

#[expect(
    clippy::unnecessary_wraps,
    reason = "a `Rule`: the table takes one signature"
)]
fn service(obj: &Value) -> Result<Computed, String> {
    if str_field(obj, &["spec", "type"], "ClusterIP") == "LoadBalancer"
        && str_field(obj, &["spec", "clusterIP"], "").is_empty()
    {
        return Ok(Computed::in_progress(
            "NoIPAssigned",
            "ClusterIP not set. Service type: LoadBalancer",
        ));
    }
    Ok(Computed::current("Service is ready"))
}

fn crd(obj: &Value) -> Result<Computed, String> {
    for c in conditions(obj)? {
        if c.type_ == "NamesAccepted" && c.status == "False" {
            return Ok(Computed::failed(c.reason, c.message));
        }
        if c.type_ == "Established" {
            if c.status == "False" && c.reason != "Installing" {
                return Ok(Computed::failed(c.reason, c.message));
            }
            if c.status == "True" {
                return Ok(Computed::current("CRD is established"));
            }
        }
    }
    Ok(Computed::in_progress("Installing", "Install in progress"))
}

/// Helm's own Job rule for hooks and `--wait-for-jobs` (internal/statusreaders): done only
/// when complete, and no generic rules first.
fn helm_job(obj: &Value) -> Result<Computed, String> {
    Ok(finished_job(obj)?
        .unwrap_or_else(|| Computed::in_progress("JobInProgress", "Job in progress")))
}

/// Helm's own Pod rule for hooks: done when the Pod has run to its end.
fn helm_pod(obj: &Value) -> Computed {
    let name = obj["metadata"]["name"].as_str().unwrap_or_default();
    match str_field(obj, &["status", "phase"], "") {
        "Succeeded" => Computed::current(format!("pod {name} succeeded")),
        "Failed" => Computed::failed("PodFailed", format!("pod {name} failed")),
        _ => Computed::in_progress("PodInProgress", "Pod in progress"),
    }
}

/// One entry of `status.conditions`, its fields empty when absent.
struct Condition {
    type_: String,
    status: String,
    reason: String,
    message: String,
}

/// `status.conditions`; a value of the wrong shape is an error, as in kstatus' decoding.
fn conditions(obj: &Value) -> Result<Vec<Condition>, String> {
    let status = &obj["status"];
    if !(status.is_null() || status.is_object()) {
        return Err("status is not an object".into());
    }
    let list = match &status["conditions"] {
        Value::Null => return Ok(Vec::new()),
        Value::Array(list) => list,
        _ => return Err("status.conditions is not a list".into()),
    };
    list.iter()
        .map(|c| {
            if !c.is_object() {
                return Err("a status condition is not an object".to_string());
            }
            let field = |name: &str| match &c[name] {
                Value::Null => Ok(String::new()),
                Value::String(s) => Ok(s.clone()),
                _ => Err(format!("condition field {name} is not a string")),
            };
            Ok(Condition {
                type_: field("type")?,
                status: field("status")?,
                reason: field("reason")?,
                message: field("message")?,
            })
        })
        .collect()
}

fn field<'a>(obj: &'a Value, path: &[&str]) -> &'a Value {
    path.iter().fold(obj, |v, key| &v[*key])
}

/// An integer field, `default` when absent or not an integer (kstatus' `GetIntField`).
fn int_field(obj: &Value, path: &[&str], default: i64) -> i64 {
    field(obj, path).as_i64().unwrap_or(default)
}

/// A string field, `default` when absent or not a string (kstatus' `GetStringField`).
fn str_field<'a>(obj: &'a Value, path: &[&str], default: &'a str) -> &'a str {
    field(obj, path).as_str().unwrap_or(default)
}

/// An integer field that must be an integer when present.
fn optional_int(obj: &Value, path: &[&str]) -> Result<Option<i64>, String> {
    match field(obj, path) {
        Value::Null => Ok(None),
        v => v
            .as_i64()
            .map(Some)
            .ok_or_else(|| format!("{} is not an integer", path.join("."))),
    }
}

/// A string field that must be a string when present.
fn optional_str<'a>(obj: &'a Value, path: &[&str]) -> Result<Option<&'a str>, String> {
    match field(obj, path) {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        _ => Err(format!("{} is not a string", path.join("."))),
    }
}

/// Which status rules a wait reads objects with (Helm's status readers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reader {
    /// kstatus for every kind (`Wait`, `WaitForDelete`).
    Kstatus,
    /// kstatus, and Helm's Job rule (`WaitWithJobs`).
    KstatusAndJobs,
    /// Helm's Job and Pod rules, every other kind current (`WatchUntilReady`, for hooks).
    Hooks,
}

impl Reader {
    fn read(self, resource: &ApiResource, obj: &Value) -> Computed {
        let (group, kind) = (resource.group.as_str(), resource.kind.as_str());
        let job = group == "batch" && kind == "Job";
        match self {
            Reader::KstatusAndJobs | Reader::Hooks if job => {
                helm_job(obj).unwrap_or_else(Computed::unknown)
            }
            Reader::Hooks if group.is_empty() && kind == "Pod" => helm_pod(obj),
            Reader::Hooks => Computed::current("Resource is current"),
            _ => compute_as(group, kind, obj),
        }
    }
}

/// What a wait waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Goal {
    /// Every object `Current`, except those that `Failed` (terminal: reported at once).
    Current(Reader),
    /// Every object `NotFound` (or never seen: already gone).
    Gone,
}

/// An object a wait did not see reach its goal, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unready {
    pub kind: String,
    /// Empty for cluster-scoped kinds.
    pub namespace: String,
    pub name: String,
    pub status: Status,
    pub message: String,
}

/// Why a wait ended without every object reaching its goal.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WaitError {
    /// Objects not ready (Helm's text: one line per object, then the timeout).
    #[error("{}", lines(.objects, "not ready", *.timed_out))]
    NotReady {
        objects: Vec<Unready>,
        timed_out: bool,
    },
    /// Objects still there when the timeout came.
    #[error("{}", lines(.objects, "still exists", *.timed_out))]
    NotDeleted {
        objects: Vec<Unready>,
        timed_out: bool,
    },
    /// The API server refused to list or watch a kind: nothing can be waited for.
    #[error(
        "cannot watch {resource} in {namespace}: {source}; the operator's role needs list and watch on it to wait"
    )]
    Watch {
        resource: String,
        namespace: String,
        #[source]
        source: kube::Error,
    },
}

fn lines(objects: &[Unready], state: &str, timed_out: bool) -> String {
    let mut out: Vec<String> = objects
        .iter()
        .map(|o| {
            format!(
                "resource {}/{}/{} {state}. status: {}, message: {}",
                o.kind, o.namespace, o.name, o.status, o.message
            )
        })
        .collect();
    if timed_out {
        out.push("context deadline exceeded".into());
    }
    out.join("\n")
}

/// Wait until every object is `Current` (Helm's `--wait=watcher`). A `Failed` object ends
/// the wait as soon as the rest are current, with an error naming it.
pub(crate) async fn wait_ready(
    client: &kube::Client,
    objects: &[ClusterObject],
    timeout: Duration,
) -> Result<(), WaitError> {
    let targets: Vec<&ClusterObject> = objects.iter().filter(|o| !paused(o)).collect();
    watch_until(client, &targets, Goal::Current(Reader::Kstatus), timeout).await
}

/// [`wait_ready`], and every Job complete (Helm's `--wait-for-jobs`).
pub(crate) async fn wait_ready_with_jobs(
    client: &kube::Client,
    objects: &[ClusterObject],
    timeout: Duration,
) -> Result<(), WaitError> {
    let targets: Vec<&ClusterObject> = objects.iter().filter(|o| !paused(o)).collect();
    watch_until(
        client,
        &targets,
        Goal::Current(Reader::KstatusAndJobs),
        timeout,
    )
    .await
}

/// Wait until a hook has run: a Job complete, a Pod succeeded; a failed one is an error
/// naming it. Any other kind is done once created, so it returns at once.
pub(crate) async fn wait_hook_complete(
    client: &kube::Client,
    hook: &ClusterObject,
    timeout: Duration,
) -> Result<(), WaitError> {
    let (group, kind) = (hook.resource.group.as_str(), hook.resource.kind.as_str());
    if !matches!((group, kind), ("batch", "Job") | ("", "Pod")) {
        return Ok(());
    }
    watch_until(client, &[hook], Goal::Current(Reader::Hooks), timeout).await
}

/// Wait until every object is gone (uninstall's wait).
pub(crate) async fn wait_deleted(
    client: &kube::Client,
    objects: &[ClusterObject],
    timeout: Duration,
) -> Result<(), WaitError> {
    let targets: Vec<&ClusterObject> = objects.iter().collect();
    watch_until(client, &targets, Goal::Gone, timeout).await
}

/// Where a wait looks for `object`: a namespaced object without a namespace is in the
/// client's default one (as Helm builds it), a cluster-scoped one in none.
fn namespace_of(client: &kube::Client, object: &ClusterObject) -> Option<String> {
    object.namespaced.then(|| {
        object
            .namespace
            .clone()
            .unwrap_or_else(|| client.default_namespace().to_string())
    })
}

/// Helm does not wait for a paused Deployment: it would never progress.
fn paused(object: &ClusterObject) -> bool {
    object.resource.group == "apps"
        && object.resource.kind == "Deployment"
        && object.body["spec"]["paused"] == true
}

/// The objects of one kind in one namespace: one list-then-watch serves them all.
struct Group {
    resource: ApiResource,
    namespace: Option<String>,
    members: Vec<usize>,
    /// The watch listed once (or stopped: the kind is not served).
    synced: bool,
}

/// What a wait knows of one object.
struct Tracked {
    status: Computed,
    /// Seen since the watch's last (re)list: an object missing from a relist is gone.
    seen: bool,
}

/// The targets grouped by kind and namespace: one watch per group.
fn groups_of(client: &kube::Client, targets: &[&ClusterObject]) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        let namespace = namespace_of(client, t);
        match groups
            .iter_mut()
            .find(|g| g.resource == t.resource && g.namespace == namespace)
        {
            Some(g) => g.members.push(i),
            None => groups.push(Group {
                resource: t.resource.clone(),
                namespace,
                members: vec![i],
                synced: false,
            }),
        }
    }
    groups
}

/// The targets that have not reached `goal`, as a wait's error names them.
fn unready(
    client: &kube::Client,
    targets: &[&ClusterObject],
    tracked: &[Tracked],
    goal: Goal,
) -> Vec<Unready> {
    targets
        .iter()
        .zip(tracked)
        .filter(|(_, t)| match goal {
            Goal::Current(_) => t.status.status != Status::Current,
            Goal::Gone => !matches!(t.status.status, Status::NotFound | Status::Unknown),
        })
        .map(|(o, t)| Unready {
            kind: o.resource.kind.clone(),
            namespace: namespace_of(client, o).unwrap_or_default(),
            name: o.name.clone(),
            status: t.status.status,
            message: t.status.message.clone(),
        })
        .collect()
}

async fn watch_until(
    client: &kube::Client,
    targets: &[&ClusterObject],
    goal: Goal,
    timeout: Duration,
) -> Result<(), WaitError> {
    if targets.is_empty() {
        return Ok(());
    }
    let timeout = if timeout.is_zero() {
        DEFAULT_TIMEOUT
    } else {
        timeout
    };
    let deadline = tokio::time::Instant::now() + timeout;

    let mut groups = groups_of(client, targets);
    let mut tracked: Vec<Tracked> = targets
        .iter()
        .map(|_| Tracked {
            status: Computed::unknown(""),
            seen: false,
        })
        .collect();

    let streams = groups.iter().enumerate().map(|(g, group)| {
        let names: Vec<&str> = group
            .members
            .iter()
            .map(|&i| targets[i].name.as_str())
            .collect();
        watch_group(client, group, &names).map(move |event| (g, event))
    });
    let mut events = stream::select_all(streams);

    let mut timed_out = false;
    loop {
        if groups.iter().all(|g| g.synced) && reached(goal, &tracked) {
            break;
        }
        let (g, event) = match tokio::time::timeout_at(deadline, events.next()).await {
            Err(_) => {
                timed_out = true;
                break;
            }
            // Every watch stopped (kinds not served): nothing more will come.
            Ok(None) => {
                tokio::time::sleep_until(deadline).await;
                timed_out = true;
                break;
            }
            Ok(Some(next)) => next,
        };
        let group = &mut groups[g];
        match event {
            None => group.synced = true,
            Some(Err(e)) => {
                if let Some(source) = forbidden(e) {
                    return Err(WaitError::Watch {
                        resource: group.resource.plural.clone(),
                        namespace: group.namespace.clone().unwrap_or_default(),
                        source,
                    });
                }
                // Anything else is retried by the watch's backoff, as Helm's informers do.
            }
            Some(Ok(event)) => apply(goal, targets, group, &mut tracked, event),
        }
    }

    let objects = unready(client, targets, &tracked, goal);
    if objects.is_empty() && !timed_out {
        return Ok(());
    }
    Err(match goal {
        Goal::Current(_) => WaitError::NotReady { objects, timed_out },
        Goal::Gone => WaitError::NotDeleted { objects, timed_out },
    })
}

/// Whether every object has reached `goal` (Helm's status observer: a failed object is
/// terminal when waiting for `Current`, an unseen one already gone when waiting for
/// deletion).
fn reached(goal: Goal, tracked: &[Tracked]) -> bool {
    tracked.iter().all(|t| match goal {
        Goal::Current(_) => matches!(t.status.status, Status::Current | Status::Failed),
        Goal::Gone => matches!(t.status.status, Status::NotFound | Status::Unknown),
    })
}

/// A failed Job's message with why it failed (its `Failed` condition's reason and
/// message, as `kubectl describe` shows them): Helm's message alone only counts pods.
fn with_failure_detail(message: String, job: &Value) -> String {
    let failed = conditions(job)
        .unwrap_or_default()
        .into_iter()
        .find(|c| c.type_ == "Failed" && c.status == "True");
    match failed {
        Some(c) if !c.message.is_empty() => format!("{message} ({}: {})", c.reason, c.message),
        Some(c) if !c.reason.is_empty() => format!("{message} ({})", c.reason),
        _ => message,
    }
}

/// One event of a group's watch applied to the objects it is about.
fn apply(
    goal: Goal,
    targets: &[&ClusterObject],
    group: &mut Group,
    tracked: &mut [Tracked],
    event: watcher::Event<DynamicObject>,
) {
    let reader = match goal {
        Goal::Current(reader) => reader,
        Goal::Gone => Reader::Kstatus,
    };
    let member = |obj: &DynamicObject| {
        group
            .members
            .iter()
            .copied()
            .find(|&i| obj.metadata.name.as_deref() == Some(targets[i].name.as_str()))
    };
    match event {
        watcher::Event::Init => {
            for &i in &group.members {
                tracked[i].seen = false;
            }
        }
        watcher::Event::InitApply(obj) | watcher::Event::Apply(obj) => {
            if let Some(i) = member(&obj) {
                let value = serde_json::to_value(&obj).unwrap_or(Value::Null);
                let mut status = reader.read(&group.resource, &value);
                if status.status == Status::Failed
                    && group.resource.group == "batch"
                    && group.resource.kind == "Job"
                {
                    status.message = with_failure_detail(status.message, &value);
                }
                tracked[i] = Tracked { status, seen: true };
            }
        }
        watcher::Event::Delete(obj) => {
            if let Some(i) = member(&obj) {
                tracked[i].status = Computed::not_found();
            }
        }
        watcher::Event::InitDone => {
            // Seen before, missing from this list: deleted while the watch was down.
            for &i in &group.members {
                let t = &mut tracked[i];
                if !t.seen && t.status.status != Status::Unknown {
                    t.status = Computed::not_found();
                }
            }
            group.synced = true;
        }
    }
}

/// A group's watch: its events, then `None` when it ends. A kind the API server does not
/// serve (404, e.g. its CRD is gone) ends it, as Helm stops that informer.
fn watch_group(
    client: &kube::Client,
    group: &Group,
    names: &[&str],
) -> BoxStream<'static, Option<watcher::Result<watcher::Event<DynamicObject>>>> {
    let api: Api<DynamicObject> = match &group.namespace {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &group.resource),
        None => Api::all_with(client.clone(), &group.resource),
    };
    let config = match names {
        [name] => watcher::Config::default().fields(&format!("metadata.name={name}")),
        _ => watcher::Config::default(),
    };
    watcher(api, config)
        .default_backoff()
        .take_while(|event| future::ready(!matches!(event, Err(e) if api_code(e) == Some(404))))
        .map(Some)
        .chain(stream::once(future::ready(None)))
        .boxed()
}

fn api_code(e: &watcher::Error) -> Option<u16> {
    match e {
        watcher::Error::InitialListFailed(kube::Error::Api(s))
        | watcher::Error::WatchStartFailed(kube::Error::Api(s))
        | watcher::Error::WatchFailed(kube::Error::Api(s))
        | watcher::Error::WatchError(s) => Some(s.code),
        _ => None,
    }
}

/// The API server's refusal, if `e` is one (fatal for the wait, as in Helm).
fn forbidden(e: watcher::Error) -> Option<kube::Error> {
    match e {
        watcher::Error::InitialListFailed(e)
        | watcher::Error::WatchStartFailed(e)
        | watcher::Error::WatchFailed(e)
            if matches!(&e, kube::Error::Api(s) if s.code == 403) =>
        {
            Some(e)
        }
        watcher::Error::WatchError(s) if s.code == 403 => Some(kube::Error::Api(s)),
        _ => None,
    }
}

/// The waits for the suites on a real control plane (tests/it/cluster/helm_wait.rs), with
/// errors as text. Not an API.
#[doc(hidden)]
pub mod testing {
    use std::time::Duration;

    use kube::api::ApiResource;

    use super::super::ClusterObject;

    /// An object to wait for: cluster-scoped when `namespace` is `None`.
    pub struct Target {
        pub resource: ApiResource,
        pub namespace: Option<String>,
        pub name: String,
        pub body: serde_json::Value,
    }

    fn object(t: &Target) -> ClusterObject {
        ClusterObject {
            resource: t.resource.clone(),
            namespaced: t.namespace.is_some(),
            namespace: t.namespace.clone(),
            name: t.name.clone(),
            body: t.body.clone(),
        }
    }

    fn objects(targets: &[Target]) -> Vec<ClusterObject> {
        targets.iter().map(object).collect()
    }

    pub async fn wait_ready(
        client: &kube::Client,
        targets: &[Target],
        timeout: Duration,
    ) -> Result<(), String> {
        super::wait_ready(client, &objects(targets), timeout)
            .await
            .map_err(|e| e.to_string())
    }

    pub async fn wait_ready_with_jobs(
        client: &kube::Client,
        targets: &[Target],
        timeout: Duration,
    ) -> Result<(), String> {
        super::wait_ready_with_jobs(client, &objects(targets), timeout)
            .await
            .map_err(|e| e.to_string())
    }

    pub async fn wait_hook_complete(
        client: &kube::Client,
        target: &Target,
        timeout: Duration,
    ) -> Result<(), String> {
        super::wait_hook_complete(client, &object(target), timeout)
            .await
            .map_err(|e| e.to_string())
    }

    pub async fn wait_deleted(
        client: &kube::Client,
        targets: &[Target],
        timeout: Duration,
    ) -> Result<(), String> {
        super::wait_deleted(client, &objects(targets), timeout)
            .await
            .map_err(|e| e.to_string())
    }

    /// kstatus' status and message of an object, as text (`Current: Resource is Ready`).
    pub fn status_of(obj: &serde_json::Value) -> String {
        let computed = super::compute(obj);
        format!("{}: {}", computed.status, computed.message)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// An object of `api_version`/`kind` named `test`: `generation` 1 unless `rest` sets
    /// its own metadata, then `rest`'s `spec` and `status`.
    fn object(api_version: &str, kind: &str, rest: Value) -> Value {
        let mut obj = json!({
            "apiVersion": api_version,
            "kind": kind,
            "metadata": { "name": "test", "namespace": "qual", "generation": 1 },
        });
        if let (Some(obj), Value::Object(rest)) = (obj.as_object_mut(), rest) {
            obj.extend(rest);
        }
        obj
    }

    fn deployment_status(replicas: i64, progressing: &str, available: &str) -> Value {
        json!({
            "observedGeneration": 1,
            "replicas": replicas, "updatedReplicas": replicas,
            "readyReplicas": replicas, "availableReplicas": replicas,
            "conditions": [
                { "type": "Progressing", "status": progressing, "reason": "NewReplicaSetAvailable" },
                { "type": "Available", "status": available },
            ],
        })
    }

    /// kstatus' own test cases (`status_compute_test.go`): object, status, reason.
    #[expect(
        clippy::too_many_lines,
        reason = "kstatus' table of cases, kept whole to read beside the Go file"
    )]
    fn kstatus_cases() -> Vec<(&'static str, Value, Status, &'static str)> {
        use Status::*;
        let now = time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default();
        let unschedulable = json!({ "phase": "Pending", "conditions": [
            { "type": "PodScheduled", "status": "False", "reason": "Unschedulable" }] });
        let sts = |current: i64, ready: i64, replicas: i64| {
            json!({ "spec": { "replicas": 4 }, "status": { "observedGeneration": 1,
                "currentReplicas": current, "readyReplicas": ready, "replicas": replicas } })
        };
        let ds = |generation: i64, available: i64, ready: i64| {
            json!({
                "metadata": { "name": "test", "generation": generation },
                "status": { "observedGeneration": 1, "desiredNumberScheduled": 4,
                    "currentNumberScheduled": 4, "updatedNumberScheduled": 4,
                    "numberAvailable": available, "numberReady": ready },
            })
        };
        let rs = |available: i64, ready: i64, failure: &str| {
            json!({ "spec": { "replicas": 4 }, "status": { "observedGeneration": 1,
                "replicas": 4, "readyReplicas": ready, "availableReplicas": available,
                "fullyLabeledReplicas": 4,
                "conditions": [{ "type": "ReplicaFailure", "status": failure }] } })
        };
        let crd_conditions = |conditions: Value| json!({ "status": { "conditions": conditions } });
        vec![
            (
                "podNoStatus",
                object("v1", "Pod", json!({})),
                InProgress,
                "PodNotObserved",
            ),
            (
                "podReady",
                object(
                    "v1",
                    "Pod",
                    json!({ "status": { "phase": "Running",
                    "conditions": [{ "type": "Ready", "status": "True" }] } }),
                ),
                Current,
                "",
            ),
            (
                "podCompletedSuccessfully",
                object(
                    "v1",
                    "Pod",
                    json!({ "status": { "phase": "Succeeded",
                    "conditions": [{ "type": "Ready", "status": "False", "reason": "PodCompleted" }] } }),
                ),
                Current,
                "",
            ),
            (
                "podCompletedFailed",
                object("v1", "Pod", json!({ "status": { "phase": "Failed" } })),
                Current,
                "",
            ),
            (
                "podBeingScheduled",
                object(
                    "v1",
                    "Pod",
                    json!({
                        "metadata": { "name": "test", "generation": 1, "creationTimestamp": now },
                        "status": unschedulable,
                    }),
                ),
                InProgress,
                "PodNotScheduled",
            ),
            (
                "podUnschedulable",
                object("v1", "Pod", json!({ "status": unschedulable })),
                Failed,
                "PodUnschedulable",
            ),
            (
                "podCrashLooping",
                object(
                    "v1",
                    "Pod",
                    json!({ "status": { "phase": "Running",
                    "containerStatuses": [{ "name": "nginx",
                        "state": { "waiting": { "reason": "CrashLoopBackOff" } } }] } }),
                ),
                Failed,
                "ContainerCrashLooping",
            ),
            (
                "pvcNoStatus",
                object("v1", "PersistentVolumeClaim", json!({})),
                InProgress,
                "NotBound",
            ),
            (
                "pvcBound",
                object(
                    "v1",
                    "PersistentVolumeClaim",
                    json!({ "status": { "phase": "Bound" } }),
                ),
                Current,
                "",
            ),
            (
                "stsNoStatus",
                object("apps/v1", "StatefulSet", json!({})),
                InProgress,
                "LessReplicas",
            ),
            (
                "stsBadStatus",
                object(
                    "apps/v1",
                    "StatefulSet",
                    json!({ "status": { "observedGeneration": 1, "currentReplicas": 1 } }),
                ),
                InProgress,
                "LessReplicas",
            ),
            (
                "stsOK",
                object("apps/v1", "StatefulSet", sts(4, 4, 4)),
                Current,
                "",
            ),
            (
                "stsLessReady",
                object("apps/v1", "StatefulSet", sts(4, 2, 4)),
                InProgress,
                "LessReady",
            ),
            (
                "stsLessCurrent",
                object("apps/v1", "StatefulSet", sts(2, 4, 4)),
                InProgress,
                "LessCurrent",
            ),
            (
                "stsExtraPods",
                object("apps/v1", "StatefulSet", sts(4, 4, 8)),
                InProgress,
                "ExtraPods",
            ),
            (
                "dsNoStatus",
                object("apps/v1", "DaemonSet", json!({})),
                InProgress,
                "NoObservedGeneration",
            ),
            (
                "dsBadStatus",
                object(
                    "apps/v1",
                    "DaemonSet",
                    json!({ "status": { "observedGeneration": 1, "currentReplicas": 1 } }),
                ),
                InProgress,
                "NoDesiredNumber",
            ),
            (
                "dsOK",
                object("apps/v1", "DaemonSet", ds(1, 4, 4)),
                Current,
                "",
            ),
            (
                "dsDifferentGeneration",
                object("apps/v1", "DaemonSet", ds(2, 4, 4)),
                InProgress,
                "LatestGenerationNotObserved",
            ),
            (
                "dsLessReady",
                object("apps/v1", "DaemonSet", ds(1, 4, 2)),
                InProgress,
                "LessReady",
            ),
            (
                "dsLessAvailable",
                object("apps/v1", "DaemonSet", ds(1, 2, 4)),
                InProgress,
                "LessAvailable",
            ),
            (
                "depNoStatus",
                object("apps/v1", "Deployment", json!({})),
                InProgress,
                "LessReplicas",
            ),
            (
                "depOK",
                object(
                    "apps/v1",
                    "Deployment",
                    json!({ "status": deployment_status(1, "True", "True") }),
                ),
                Current,
                "",
            ),
            (
                "depNotProgressing",
                object(
                    "apps/v1",
                    "Deployment",
                    json!({
                        "spec": { "progressDeadlineSeconds": 45 },
                        "status": deployment_status(1, "False", "True"),
                    }),
                ),
                InProgress,
                "ReplicaSetNotAvailable",
            ),
            (
                "depNoProgressDeadlineSeconds",
                object(
                    "apps/v1",
                    "Deployment",
                    json!({ "status": { "observedGeneration": 1,
                    "replicas": 1, "updatedReplicas": 1, "readyReplicas": 1, "availableReplicas": 1,
                    "conditions": [{ "type": "Available", "status": "True" }] } }),
                ),
                Current,
                "",
            ),
            (
                "depNotAvailable",
                object(
                    "apps/v1",
                    "Deployment",
                    json!({ "status": deployment_status(1, "True", "False") }),
                ),
                InProgress,
                "DeploymentNotAvailable",
            ),
            (
                "rsNoStatus",
                object("apps/v1", "ReplicaSet", json!({})),
                InProgress,
                "LessLabelled",
            ),
            (
                "rsOK",
                object("apps/v1", "ReplicaSet", rs(4, 4, "False")),
                Current,
                "",
            ),
            (
                "rsLessAvailable",
                object("apps/v1", "ReplicaSet", rs(2, 4, "False")),
                InProgress,
                "LessAvailable",
            ),
            (
                "rsLessReady",
                object("apps/v1", "ReplicaSet", rs(4, 2, "False")),
                InProgress,
                "LessReady",
            ),
            (
                "rsReplicaFailure",
                object("apps/v1", "ReplicaSet", rs(4, 4, "True")),
                InProgress,
                "ReplicaFailure",
            ),
            (
                "pdbNotObserved",
                object(
                    "policy/v1beta1",
                    "PodDisruptionBudget",
                    json!({
                        "metadata": { "name": "test", "generation": 2 },
                        "status": { "observedGeneration": 1 },
                    }),
                ),
                InProgress,
                "LatestGenerationNotObserved",
            ),
            (
                "pdbObserved",
                object(
                    "policy/v1",
                    "PodDisruptionBudget",
                    json!({ "status": { "observedGeneration": 1 } }),
                ),
                Current,
                "",
            ),
            (
                "crNoStatus",
                object("something/v1", "MyCR", json!({})),
                Current,
                "",
            ),
            (
                "crMismatchStatusGeneration",
                object(
                    "something/v1",
                    "MyCR",
                    json!({
                        "metadata": { "name": "test", "generation": 2 },
                        "status": { "observedGeneration": 1 },
                    }),
                ),
                InProgress,
                "LatestGenerationNotObserved",
            ),
            (
                "crReady",
                object(
                    "something/v1",
                    "MyCR",
                    json!({ "status": { "conditions": [
                    { "type": "Ready", "status": "True", "message": "All looks ok", "reason": "AllOk" }] } }),
                ),
                Current,
                "",
            ),
            (
                "crNotReady",
                object(
                    "something/v1",
                    "MyCR",
                    json!({ "status": { "observedGeneration": 1, "conditions": [
                    { "type": "Ready", "status": "False", "reason": "NotReadyYet" }] } }),
                ),
                InProgress,
                "NotReadyYet",
            ),
            (
                "crNoCondition",
                object(
                    "something/v1",
                    "MyCR",
                    json!({ "status": { "conditions": [
                    { "type": "SomeCondition", "status": "False" }] } }),
                ),
                Current,
                "",
            ),
            (
                "jobNoStatus",
                object("batch/v1", "Job", json!({})),
                InProgress,
                "JobNotStarted",
            ),
            (
                "jobComplete",
                object(
                    "batch/v1",
                    "Job",
                    json!({ "status": { "succeeded": 1, "active": 0,
                    "conditions": [{ "type": "Complete", "status": "True" }] } }),
                ),
                Current,
                "",
            ),
            (
                "jobFailed",
                object(
                    "batch/v1",
                    "Job",
                    json!({ "spec": { "completions": 4 },
                    "status": { "succeeded": 3, "failed": 1,
                        "conditions": [{ "type": "Failed", "status": "True", "reason": "JobFailed" }] } }),
                ),
                Failed,
                "JobFailed",
            ),
            (
                "jobInProgress",
                object(
                    "batch/v1",
                    "Job",
                    json!({ "spec": { "completions": 10, "parallelism": 2 },
                    "status": { "startTime": "2019-06-04T01:17:13Z", "succeeded": 3, "failed": 1, "active": 2,
                        "conditions": [{ "type": "Failed", "status": "False" },
                                       { "type": "Complete", "status": "False" }] } }),
                ),
                Current,
                "",
            ),
            (
                "cronjobNoStatus",
                object("batch/v1", "CronJob", json!({})),
                Current,
                "",
            ),
            (
                "cronjobWithStatus",
                object("batch/v1", "CronJob", json!({ "status": null })),
                Current,
                "",
            ),
            (
                "serviceDefault",
                object("v1", "Service", json!({})),
                Current,
                "",
            ),
            (
                "serviceNodePort",
                object("v1", "Service", json!({ "spec": { "type": "NodePort" } })),
                Current,
                "",
            ),
            (
                "serviceLBok",
                object(
                    "v1",
                    "Service",
                    json!({ "spec": { "type": "LoadBalancer", "clusterIP": "1.2.3.4" } }),
                ),
                Current,
                "",
            ),
            (
                "serviceLBnok",
                object(
                    "v1",
                    "Service",
                    json!({ "spec": { "type": "LoadBalancer" } }),
                ),
                InProgress,
                "NoIPAssigned",
            ),
            (
                "crdNoConditions",
                object(
                    "apiextensions.k8s.io/v1",
                    "CustomResourceDefinition",
                    json!({}),
                ),
                InProgress,
                "Installing",
            ),
            (
                "crdInstalling",
                object(
                    "apiextensions.k8s.io/v1",
                    "CustomResourceDefinition",
                    crd_conditions(json!([
                    { "type": "NamesAccepted", "status": "True", "reason": "NoConflicts" },
                    { "type": "Established", "status": "False", "reason": "Installing" }])),
                ),
                InProgress,
                "Installing",
            ),
            (
                "crdNamesNotAccepted",
                object(
                    "apiextensions.k8s.io/v1",
                    "CustomResourceDefinition",
                    crd_conditions(json!([
                    { "type": "NamesAccepted", "status": "False", "reason": "SomeReason" }])),
                ),
                Failed,
                "SomeReason",
            ),
            (
                "crdEstablished",
                object(
                    "apiextensions.k8s.io/v1",
                    "CustomResourceDefinition",
                    crd_conditions(json!([
                    { "type": "NamesAccepted", "status": "True", "reason": "NoConflicts" },
                    { "type": "Established", "status": "True", "reason": "InitialNamesAccepted" }])),
                ),
                Current,
                "",
            ),
        ]
    }

    #[test]
    fn statuses_are_kstatus_statuses() {
        let mut wrong = Vec::new();
        for (name, obj, status, reason) in kstatus_cases() {
            let computed = compute(&obj);
            if (computed.status, computed.reason.as_str()) != (status, reason) {
                wrong.push(format!(
                    "{name}: {} ({}), kstatus says {status} ({reason})",
                    computed.status, computed.reason
                ));
            }
            assert_eq!(object_status(&obj), computed.status, "{name}");
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn generic_rules_come_before_kind_rules() {
        let deleting = object(
            "apps/v1",
            "Deployment",
            json!({
                "metadata": { "name": "test", "generation": 1, "deletionTimestamp": "2026-11-27T10:00:00Z" },
                "status": deployment_status(1, "True", "True"),
            }),
        );
        assert_eq!(
            compute(&deleting),
            Computed {
                status: Status::Terminating,
                reason: String::new(),
                message: "Resource scheduled for deletion".into()
            }
        );
        let unobserved = object(
            "apps/v1",
            "Deployment",
            json!({
                "metadata": { "name": "web", "generation": 3 },
                "status": deployment_status(1, "True", "True"),
            }),
        );
        assert_eq!(
            compute(&unobserved).message,
            "Deployment generation is 3, but latest observed generation is 1"
        );
        let stalled = object(
            "example.com/v1",
            "Widget",
            json!({ "status": { "conditions": [
            { "type": "Stalled", "status": "True", "reason": "Broken", "message": "gave up" },
            { "type": "Ready", "status": "True" }] } }),
        );
        assert_eq!(compute(&stalled), Computed::failed("Broken", "gave up"));
        let reconciling = object(
            "example.com/v1",
            "Widget",
            json!({ "status": { "conditions": [
            { "type": "Reconciling", "status": "True", "reason": "Working", "message": "busy" }] } }),
        );
        assert_eq!(
            compute(&reconciling),
            Computed::in_progress("Working", "busy")
        );
        let deadline = object(
            "apps/v1",
            "Deployment",
            json!({ "status": { "observedGeneration": 1,
            "conditions": [{ "type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded" }] } }),
        );
        assert_eq!(compute(&deadline).status, Status::Failed);
    }

    #[test]
    fn messages_name_the_counts_a_user_waits_for() {
        let fresh = object(
            "apps/v1",
            "Deployment",
            json!({ "status": { "observedGeneration": 1,
            "replicas": 1, "updatedReplicas": 1 } }),
        );
        assert_eq!(compute(&fresh).message, "Available: 0/1");
        let ready = object(
            "apps/v1",
            "Deployment",
            json!({ "status": deployment_status(2, "True", "True"),
            "spec": { "replicas": 2 } }),
        );
        assert_eq!(
            compute(&ready).message,
            "Deployment is available. Replicas: 2"
        );
        let partitioned = object(
            "apps/v1",
            "StatefulSet",
            json!({
            "spec": { "replicas": 3, "updateStrategy": { "rollingUpdate": { "partition": 2 } } },
            "status": { "replicas": 3, "readyReplicas": 3, "updatedReplicas": 0 } }),
        );
        assert_eq!(
            compute(&partitioned),
            Computed::in_progress("PartitionRollout", "updated: 0/1")
        );
    }

    #[test]
    fn malformed_fields_make_the_status_unknown() {
        let bad_conditions = object(
            "example.com/v1",
            "Widget",
            json!({ "status": { "conditions": "yes" } }),
        );
        assert_eq!(compute(&bad_conditions).status, Status::Unknown);
        let bad_generation = object(
            "apps/v1",
            "Deployment",
            json!({
            "metadata": { "name": "test", "generation": "one" } }),
        );
        assert_eq!(compute(&bad_generation).status, Status::Unknown);
        let odd_phase = object("v1", "Pod", json!({ "status": { "phase": "Sleeping" } }));
        assert_eq!(
            compute(&odd_phase),
            Computed::unknown("unknown phase Sleeping")
        );
    }

    fn resource(group: &str, kind: &str) -> ApiResource {
        ApiResource {
            group: group.into(),
            version: "v1".into(),
            api_version: if group.is_empty() {
                "v1".into()
            } else {
                format!("{group}/v1")
            },
            kind: kind.into(),
            plural: format!("{}s", kind.to_lowercase()),
        }
    }

    #[test]
    fn hooks_wait_for_jobs_and_pods_to_finish() {
        let job = resource("batch", "Job");
        let started = object(
            "batch/v1",
            "Job",
            json!({ "status": { "startTime": "2026-11-27T10:00:00Z", "active": 1 } }),
        );
        // kstatus counts a started Job as current; a hook waits for its end.
        assert_eq!(Reader::Kstatus.read(&job, &started).status, Status::Current);
        assert_eq!(
            Reader::Hooks.read(&job, &started),
            Computed::in_progress("JobInProgress", "Job in progress")
        );
        assert_eq!(
            Reader::KstatusAndJobs.read(&job, &started).status,
            Status::InProgress
        );
        let failed = object(
            "batch/v1",
            "Job",
            json!({ "status": { "failed": 2,
            "conditions": [{ "type": "Failed", "status": "True", "reason": "BackoffLimitExceeded" }] } }),
        );
        assert_eq!(
            Reader::Hooks.read(&job, &failed),
            Computed::failed("JobFailed", "Job Failed. failed: 2/1")
        );

        let pod = resource("", "Pod");
        let running = object(
            "v1",
            "Pod",
            json!({ "status": { "phase": "Running",
            "conditions": [{ "type": "Ready", "status": "True" }] } }),
        );
        assert_eq!(Reader::Kstatus.read(&pod, &running).status, Status::Current);
        assert_eq!(
            Reader::Hooks.read(&pod, &running).status,
            Status::InProgress
        );
        let done = object("v1", "Pod", json!({ "status": { "phase": "Succeeded" } }));
        assert_eq!(
            Reader::Hooks.read(&pod, &done),
            Computed::current("pod test succeeded")
        );
        let crashed = object("v1", "Pod", json!({ "status": { "phase": "Failed" } }));
        assert_eq!(Reader::Hooks.read(&pod, &crashed).status, Status::Failed);

        let config = object("v1", "ConfigMap", json!({}));
        assert_eq!(
            Reader::Hooks
                .read(&resource("", "ConfigMap"), &config)
                .status,
            Status::Current
        );
    }

    #[test]
    fn paused_deployments_are_not_waited_for() {
        let deployment = |body: Value| ClusterObject {
            resource: resource("apps", "Deployment"),
            namespaced: true,
            namespace: Some("qual".into()),
            name: "web".into(),
            body,
        };
        assert!(paused(&deployment(json!({ "spec": { "paused": true } }))));
        assert!(!paused(&deployment(json!({ "spec": { "paused": false } }))));
        assert!(!paused(&deployment(json!({ "spec": {} }))));
    }

    #[test]
    fn a_failed_object_ends_the_wait_but_an_unseen_one_does_not() {
        let goal = Goal::Current(Reader::Kstatus);
        let tracked = |statuses: &[Status]| -> Vec<Tracked> {
            statuses
                .iter()
                .map(|&status| Tracked {
                    status: Computed {
                        status,
                        reason: String::new(),
                        message: String::new(),
                    },
                    seen: true,
                })
                .collect()
        };
        assert!(reached(goal, &tracked(&[Status::Current, Status::Failed])));
        assert!(!reached(
            goal,
            &tracked(&[Status::Current, Status::Unknown])
        ));
        assert!(!reached(
            goal,
            &tracked(&[Status::Current, Status::NotFound])
        ));
        assert!(reached(
            Goal::Gone,
            &tracked(&[Status::NotFound, Status::Unknown])
        ));
        assert!(!reached(
            Goal::Gone,
            &tracked(&[Status::NotFound, Status::Terminating])
        ));
    }

    #[test]
    fn errors_read_as_helms() {
        let error = WaitError::NotReady {
            objects: vec![Unready {
                kind: "Deployment".into(),
                namespace: "apps".into(),
                name: "web".into(),
                status: Status::InProgress,
                message: "Available: 0/1".into(),
            }],
            timed_out: true,
        };
        assert_eq!(
            error.to_string(),
            "resource Deployment/apps/web not ready. status: InProgress, message: Available: 0/1\n\
             context deadline exceeded"
        );
    }
}
