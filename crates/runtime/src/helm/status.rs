//! `status` of a Helm-managed custom resource: upstream's conditions and `deployedRelease`.
use kube::api::DynamicObject;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::release::Release;

/// Condition types (helm-operator-plugins `conditions`).
pub mod condition_type {
    pub const INITIALIZED: &str = "Initialized";
    pub const DEPLOYED: &str = "Deployed";
    pub const RELEASE_FAILED: &str = "ReleaseFailed";
    pub const IRRECONCILABLE: &str = "Irreconcilable";
    pub const PAUSED: &str = "Paused";
}

/// Condition reasons (helm-operator-plugins `conditions`).
pub mod reason {
    pub const INSTALL_SUCCESSFUL: &str = "InstallSuccessful";
    pub const UPGRADE_SUCCESSFUL: &str = "UpgradeSuccessful";
    pub const UNINSTALL_SUCCESSFUL: &str = "UninstallSuccessful";
    pub const PAUSE_RECONCILE_ANNOTATION_TRUE: &str = "PauseReconcileAnnotationTrue";
    pub const ERROR_GETTING_CLIENT: &str = "ErrorGettingClient";
    pub const ERROR_GETTING_VALUES: &str = "ErrorGettingValues";
    pub const ERROR_GETTING_RELEASE_STATE: &str = "ErrorGettingReleaseState";
    pub const INSTALL_ERROR: &str = "InstallError";
    pub const UPGRADE_ERROR: &str = "UpgradeError";
    pub const RECONCILE_ERROR: &str = "ReconcileError";
    pub const UNINSTALL_ERROR: &str = "UninstallError";
}

/// One status condition, shaped like operator-lib's (reason and message omitted when empty).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HelmCondition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub last_transition_time: String,
}

/// `status.deployedRelease`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeployedRelease {
    pub name: String,
    pub manifest: String,
}

/// Condition status values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    True,
    False,
    Unknown,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::True => "True",
            Status::False => "False",
            Status::Unknown => "Unknown",
        }
    }
}

/// The part of the status this reconciler owns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct HelmStatus {
    pub conditions: Vec<HelmCondition>,
    pub deployed_release: Option<DeployedRelease>,
    /// The generation of the spec the conditions describe.
    pub observed_generation: Option<i64>,
}

/// `status.deployedRelease.manifest` larger than this is replaced by a pointer to
/// `helm get manifest`: a whole release in the resource's status would push it past the
/// API server's object size limit (1.5 MiB in etcd), and every status write would fail.
pub(crate) const MAX_STATUS_MANIFEST: usize = 256 * 1024;
/// Release notes in the `Deployed` message are cut at this many bytes, for the same reason.
pub(crate) const MAX_CONDITION_MESSAGE: usize = 32 * 1024;

/// `text` cut to at most `max` bytes on a character boundary, saying how much was left out.
fn bounded(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[{} more bytes cut]", &text[..end], text.len() - end)
}

fn now() -> String {
    k8s_openapi::jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

impl HelmStatus {
    /// Read the current status; malformed entries are dropped (they get rewritten).
    pub fn from_object(obj: &DynamicObject) -> Self {
        let status = obj.data.get("status");
        let conditions = status
            .and_then(|s| s.get("conditions"))
            .and_then(|c| serde_json::from_value(c.clone()).ok())
            .unwrap_or_default();
        let deployed_release = status
            .and_then(|s| s.get("deployedRelease"))
            .and_then(|d| serde_json::from_value(d.clone()).ok());
        let observed_generation = status
            .and_then(|s| s.get("observedGeneration"))
            .and_then(Value::as_i64);
        HelmStatus {
            conditions,
            deployed_release,
            observed_generation,
        }
    }

    /// Set a condition; the transition time only changes when the status flips.
    pub fn set(&mut self, type_: &str, status: Status, reason: &str, message: impl Into<String>) {
        let message = message.into();
        match self.conditions.iter_mut().find(|c| c.type_ == type_) {
            Some(existing) => {
                if existing.status != status.as_str() {
                    existing.last_transition_time = now();
                }
                existing.status = status.as_str().to_string();
                existing.reason = reason.to_string();
                existing.message = message;
            }
            None => self.conditions.push(HelmCondition {
                type_: type_.to_string(),
                status: status.as_str().to_string(),
                reason: reason.to_string(),
                message,
                last_transition_time: now(),
            }),
        }
    }

    /// Set a condition to True with an error as its message.
    pub fn set_error(&mut self, type_: &str, reason: &str, error: &impl std::fmt::Display) {
        self.set(type_, Status::True, reason, error.to_string());
    }

    pub fn set_unknown(&mut self, type_: &str) {
        self.set(type_, Status::Unknown, "", "");
    }

    pub fn has(&self, type_: &str) -> bool {
        self.conditions.iter().any(|c| c.type_ == type_)
    }

    /// Deployed=True with upstream's reason and message, and `deployedRelease`.
    pub fn set_deployed(&mut self, release: &Release) {
        let (reason, default_message) = if release.version > 1 {
            (
                reason::UPGRADE_SUCCESSFUL,
                "release was successfully upgraded",
            )
        } else {
            (
                reason::INSTALL_SUCCESSFUL,
                "release was successfully installed",
            )
        };
        let message = if release.notes.is_empty() {
            default_message.to_string()
        } else {
            bounded(&release.notes, MAX_CONDITION_MESSAGE)
        };
        self.set(condition_type::DEPLOYED, Status::True, reason, message);
        let manifest = if release.manifest.len() > MAX_STATUS_MANIFEST {
            format!(
                "# The manifest ({} bytes) is larger than the {MAX_STATUS_MANIFEST} bytes kept in status: `helm get manifest {} -n {}` prints it.\n",
                release.manifest.len(),
                release.name,
                release.namespace
            )
        } else {
            release.manifest.clone()
        };
        self.deployed_release = Some(DeployedRelease {
            name: release.name.clone(),
            manifest,
        });
    }

    /// The merge patch that writes this status (`deployedRelease: null` removes it).
    pub fn to_patch(&self) -> Value {
        let mut patch = json!({
            "status": {
                "conditions": self.conditions,
                "deployedRelease": self.deployed_release,
            }
        });
        if let Some(generation) = self.observed_generation {
            patch["status"]["observedGeneration"] = generation.into();
        }
        patch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transition_time_kept_unless_status_flips() {
        let mut status = HelmStatus::default();
        status.set("Deployed", Status::False, "", "");
        status.conditions[0].last_transition_time = "2020-01-01T00:00:00Z".into();
        status.set("Deployed", Status::False, "UninstallSuccessful", "gone");
        assert_eq!(
            status.conditions[0].last_transition_time,
            "2020-01-01T00:00:00Z"
        );
        assert_eq!(status.conditions[0].reason, "UninstallSuccessful");
        status.set("Deployed", Status::True, "InstallSuccessful", "ok");
        assert_ne!(
            status.conditions[0].last_transition_time,
            "2020-01-01T00:00:00Z"
        );
        assert_eq!(status.conditions.len(), 1);
    }

    #[test]
    fn empty_reason_and_message_are_omitted() {
        let mut status = HelmStatus::default();
        status.set("Initialized", Status::True, "", "");
        let patch = status.to_patch();
        let condition = &patch["status"]["conditions"][0];
        assert_eq!(condition["type"], "Initialized");
        assert_eq!(condition["status"], "True");
        assert!(condition.get("reason").is_none());
        assert!(condition.get("message").is_none());
        assert!(
            condition["lastTransitionTime"]
                .as_str()
                .unwrap()
                .ends_with('Z')
        );
        assert_eq!(patch["status"]["deployedRelease"], Value::Null);
    }
}
