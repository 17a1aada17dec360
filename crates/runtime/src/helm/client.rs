//! How the reconciler talks to Helm: the `HelmClient` trait, its options and errors.
use std::path::Path;

use async_trait::async_trait;

use super::release::{Release, ReleaseRevision};

/// The release a custom resource owns: same name and namespace as the resource.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReleaseTarget {
    pub name: String,
    pub namespace: String,
}

impl ReleaseTarget {
    pub fn new(name: impl Into<String>, namespace: impl Into<String>) -> Self {
        ReleaseTarget {
            name: name.into(),
            namespace: namespace.into(),
        }
    }

    /// Why Helm refuses this name for a release, if it does: Helm's `ValidateReleaseName`
    /// allows at most 53 characters of a DNS subdomain, while a custom resource's name may
    /// have 253, so such a resource can never have a release.
    pub fn invalid_name(&self) -> Option<String> {
        const MAX_RELEASE_NAME: usize = 53;
        let label_ok = |label: &str| {
            let bytes = label.as_bytes();
            let edge = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
            bytes.first().is_some_and(edge)
                && bytes.last().is_some_and(edge)
                && bytes.iter().all(|b| edge(b) || *b == b'-')
        };
        if self.name.len() > MAX_RELEASE_NAME {
            Some(format!(
                "{:?} has {} characters, and Helm allows a release name at most {MAX_RELEASE_NAME}; recreate the resource with a shorter name",
                self.name,
                self.name.len()
            ))
        } else if !self.name.split('.').all(label_ok) {
            Some(format!(
                "{:?} is not a valid Helm release name (lowercase letters, digits, '-' and '.'); recreate the resource with a valid name",
                self.name
            ))
        } else {
            None
        }
    }
}

impl std::fmt::Display for ReleaseTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

/// `helm install` switches the reconciler sets (from install annotations).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstallOptions {
    /// `--no-hooks`
    pub disable_hooks: bool,
    /// `--description`
    pub description: Option<String>,
    /// `--labels`: the release's own labels (kept by later upgrades).
    pub labels: std::collections::BTreeMap<String, String>,
}

/// How a dry-run upgrade renders (`--dry-run=<mode>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DryRun {
    /// Render only, no cluster lookups.
    Client,
    /// Render and validate against the API server (what helm-operator-plugins uses).
    Server,
}

/// `helm upgrade` switches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UpgradeOptions {
    /// `--no-hooks`
    pub disable_hooks: bool,
    /// `--description`
    pub description: Option<String>,
    /// Force the change through: take over conflicting fields (Helm 4, server-side apply),
    /// or replace objects that cannot be patched (Helm 3 `--force`).
    pub force: bool,
    /// `--history-max` (0 = unlimited)
    pub max_history: Option<u32>,
    /// Render the upgrade without changing anything.
    pub dry_run: Option<DryRun>,
    /// `--reset-values`: start from the chart's defaults, never from the previous
    /// release's values, so the values sent are exactly what gets deployed.
    pub reset_values: bool,
    /// `--labels`: merged over the previous revision's labels.
    pub labels: std::collections::BTreeMap<String, String>,
}

/// `helm uninstall` switches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UninstallOptions {
    /// `--no-hooks`
    pub disable_hooks: bool,
    /// `--description`
    pub description: Option<String>,
}

/// `helm rollback` switches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RollbackOptions {
    /// Force the change through: take over conflicting fields (Helm 4, server-side apply),
    /// or replace objects that cannot be patched (Helm 3 `--force`).
    pub force: bool,
    /// `--history-max`
    pub max_history: Option<u32>,
}

/// A Helm operation that failed.
#[derive(Debug, thiserror::Error)]
pub enum HelmError {
    /// The in-process release engine refused or failed the operation.
    #[error("{operation} of release {release} failed: {reason}")]
    Release {
        operation: &'static str,
        release: ReleaseTarget,
        reason: String,
    },
    /// For other implementations of [`HelmClient`].
    #[error("{0}")]
    Other(String),
}

/// Helm operations on one release. The default implementation is the release engine
/// ([`super::ReleaseEngine`]); tests plug in fakes.
#[async_trait]
pub trait HelmClient: Send + Sync {
    /// Install a new release of `chart` with `values`.
    async fn install(
        &self,
        target: &ReleaseTarget,
        chart: &Path,
        values: &serde_json::Value,
        options: &InstallOptions,
    ) -> Result<Release, HelmError>;

    /// Upgrade the release (or render the upgrade when `options.dry_run` is set).
    async fn upgrade(
        &self,
        target: &ReleaseTarget,
        chart: &Path,
        values: &serde_json::Value,
        options: &UpgradeOptions,
    ) -> Result<Release, HelmError>;

    /// Uninstall the release; a release that does not exist is not an error.
    async fn uninstall(
        &self,
        target: &ReleaseTarget,
        options: &UninstallOptions,
    ) -> Result<(), HelmError>;

    /// The latest revision, or `None` when there is no such release.
    async fn get(&self, target: &ReleaseTarget) -> Result<Option<Release>, HelmError>;

    /// All stored revisions, oldest first (empty when there is no such release).
    async fn history(&self, target: &ReleaseTarget) -> Result<Vec<ReleaseRevision>, HelmError>;

    /// Let the client read releases through the API server instead of a subprocess
    /// (called once by the controller before it starts; the default ignores it).
    fn attach_client(&self, _client: &kube::Client) {}

    /// The cluster's `.Capabilities`, when the client knows them (the release engine's
    /// cached discovery), for the in-process steady-state render: with Helm's built-in set
    /// an object gated on an API the cluster gained later would never count as a change.
    /// `None`: the client does not know them (the steady-state render uses the built-ins).
    #[cfg(feature = "chart-engine")]
    async fn capabilities(&self) -> Result<Option<rusty_sdk_chart::Capabilities>, HelmError> {
        Ok(None)
    }

    /// Roll back to `revision` (`None`: the previous one).
    async fn rollback(
        &self,
        target: &ReleaseTarget,
        revision: Option<u32>,
        options: &RollbackOptions,
    ) -> Result<(), HelmError>;
}

#[cfg(test)]
mod tests {
    use super::ReleaseTarget;

    #[test]
    fn release_names_follow_helms_rule() {
        let invalid = |name: &str| ReleaseTarget::new(name, "ns").invalid_name();
        for ok in ["mc", "a", "my-release.v2", &"a".repeat(53)] {
            assert_eq!(invalid(ok), None, "{ok}");
        }
        let long = invalid(&"a".repeat(54)).unwrap();
        assert!(
            long.contains("54 characters") && long.contains("at most 53"),
            "{long}"
        );
        for bad in ["-mc", "mc-", "Mc", "a..b", "a_b", ""] {
            assert!(invalid(bad).is_some(), "{bad:?}");
        }
    }
}
