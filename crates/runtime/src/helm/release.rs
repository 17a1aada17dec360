//! What Helm knows about a release, as `helm status -o json` / `helm history -o json` print it.
use std::collections::BTreeMap;

use serde::Deserialize;

/// `info.status` of a Helm release.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReleaseStatus {
    Deployed,
    Failed,
    Superseded,
    PendingInstall,
    PendingUpgrade,
    PendingRollback,
    Uninstalling,
    Uninstalled,
    #[serde(other)]
    Unknown,
}

impl ReleaseStatus {
    /// Helm's spelling (`pending-install`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ReleaseStatus::Deployed => "deployed",
            ReleaseStatus::Failed => "failed",
            ReleaseStatus::Superseded => "superseded",
            ReleaseStatus::PendingInstall => "pending-install",
            ReleaseStatus::PendingUpgrade => "pending-upgrade",
            ReleaseStatus::PendingRollback => "pending-rollback",
            ReleaseStatus::Uninstalling => "uninstalling",
            ReleaseStatus::Uninstalled => "uninstalled",
            ReleaseStatus::Unknown => "unknown",
        }
    }

    /// A Helm operation holds the release lock (left behind when the operator crashed).
    pub fn is_pending(self) -> bool {
        matches!(
            self,
            ReleaseStatus::PendingInstall
                | ReleaseStatus::PendingUpgrade
                | ReleaseStatus::PendingRollback
        )
    }
}

impl std::fmt::Display for ReleaseStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One revision of a release.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Release {
    pub name: String,
    pub namespace: String,
    /// Revision number, 1 for the first install.
    pub version: u32,
    pub status: ReleaseStatus,
    /// The rendered objects, as one multi-document YAML string.
    pub manifest: String,
    /// The chart's rendered NOTES.txt (empty when it has none).
    pub notes: String,
    /// Helm's description of the last operation ("Install complete", an error, ...).
    pub description: String,
    /// `name-version` of the chart, e.g. `memcached-0.1.0` (empty when unknown).
    pub chart: String,
    pub app_version: String,
    /// When the revision was last changed, when known: `info.last_deployed`, or for an
    /// `uninstalling` revision `info.deleted` (when the uninstall started).
    pub last_changed: Option<std::time::SystemTime>,
    /// The release's own labels (kept on its storage object; see [`OWNER_KIND_LABEL`]).
    pub labels: BTreeMap<String, String>,
}

/// The kind of the custom resource a release belongs to, recorded in the release's labels
/// so that a resource of another kind with the same name never takes it over.
pub const OWNER_KIND_LABEL: &str = "rusty-sdk.io/owner-kind";
/// The API group of that kind (left out when longer than a label value may be).
pub const OWNER_GROUP_LABEL: &str = "rusty-sdk.io/owner-group";

/// The owner labels of a release made for a resource of `kind` in `group`.
pub fn owner_labels(group: &str, kind: &str) -> BTreeMap<String, String> {
    const MAX_LABEL_VALUE: usize = 63;
    let mut labels = BTreeMap::new();
    labels.insert(OWNER_KIND_LABEL.to_string(), kind.to_string());
    if !group.is_empty() && group.len() <= MAX_LABEL_VALUE {
        labels.insert(OWNER_GROUP_LABEL.to_string(), group.to_string());
    }
    labels
}

impl Release {
    /// The `Kind` (and group) of another kind of resource this release was made for, if
    /// it was; releases without owner labels (made by Helm or an older operator) belong
    /// to whoever reconciles them.
    pub fn foreign_owner(&self, group: &str, kind: &str) -> Option<String> {
        let owner_kind = self.labels.get(OWNER_KIND_LABEL)?;
        let owner_group = self.labels.get(OWNER_GROUP_LABEL);
        let same_group = owner_group.is_none_or(|g| g == group);
        if owner_kind == kind && same_group {
            return None;
        }
        Some(match owner_group {
            Some(g) => format!("{owner_kind}.{g}"),
            None => owner_kind.clone(),
        })
    }
}

/// One line of `helm history`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct ReleaseRevision {
    pub revision: u32,
    pub status: ReleaseStatus,
    #[serde(default)]
    pub chart: String,
    #[serde(default)]
    pub app_version: String,
    #[serde(default)]
    pub description: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_belongs_to_the_kind_in_its_labels_or_to_anyone_without_them() {
        let mut release = Release {
            name: "mc".into(),
            namespace: "ns".into(),
            version: 1,
            status: ReleaseStatus::Deployed,
            manifest: String::new(),
            notes: String::new(),
            description: String::new(),
            chart: String::new(),
            app_version: String::new(),
            last_changed: None,
            labels: BTreeMap::new(),
        };
        assert_eq!(
            release.foreign_owner("cache.example.com", "Memcached"),
            None
        );
        release.labels = owner_labels("cache.example.com", "Memcached");
        assert_eq!(
            release.foreign_owner("cache.example.com", "Memcached"),
            None
        );
        assert_eq!(
            release
                .foreign_owner("cache.example.com", "Redis")
                .as_deref(),
            Some("Memcached.cache.example.com")
        );
        assert_eq!(
            release
                .foreign_owner("other.example.com", "Memcached")
                .as_deref(),
            Some("Memcached.cache.example.com")
        );
        let long_group = format!("{}.example.com", "g".repeat(60));
        assert_eq!(
            owner_labels(&long_group, "Memcached").len(),
            1,
            "a group too long for a label value is left out"
        );
    }
}
