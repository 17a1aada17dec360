//! What Helm knows about a release, as `helm status -o json` / `helm history -o json` print it.
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

/// The JSON shape of a Helm 3 release (only the parts used).
#[derive(Deserialize)]
pub(crate) struct ReleaseJson {
    name: String,
    #[serde(default)]
    namespace: String,
    version: u32,
    #[serde(default)]
    info: InfoJson,
    #[serde(default)]
    manifest: String,
    #[serde(default)]
    chart: Option<ChartJson>,
}

#[derive(Deserialize)]
struct InfoJson {
    #[serde(default = "unknown_status")]
    status: ReleaseStatus,
    #[serde(default)]
    notes: String,
    #[serde(default)]
    description: String,
}

impl Default for InfoJson {
    fn default() -> Self {
        InfoJson {
            status: ReleaseStatus::Unknown,
            notes: String::new(),
            description: String::new(),
        }
    }
}

fn unknown_status() -> ReleaseStatus {
    ReleaseStatus::Unknown
}

#[derive(Deserialize)]
struct ChartJson {
    #[serde(default)]
    metadata: ChartMetadataJson,
}

#[derive(Deserialize, Default)]
struct ChartMetadataJson {
    #[serde(default)]
    name: String,
    #[serde(default)]
    version: String,
    #[serde(default, rename = "appVersion")]
    app_version: String,
}

impl From<ReleaseJson> for Release {
    fn from(json: ReleaseJson) -> Self {
        let metadata = json.chart.map(|c| c.metadata).unwrap_or_default();
        let chart = match (metadata.name.is_empty(), metadata.version.is_empty()) {
            (false, false) => format!("{}-{}", metadata.name, metadata.version),
            _ => metadata.name,
        };
        Release {
            name: json.name,
            namespace: json.namespace,
            version: json.version,
            status: json.info.status,
            manifest: json.manifest,
            notes: json.info.notes,
            description: json.info.description,
            chart,
            app_version: metadata.app_version,
        }
    }
}
