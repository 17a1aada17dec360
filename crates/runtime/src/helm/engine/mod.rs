//! The release engine: Helm releases installed, upgraded, rolled back and uninstalled in
//! process, with Helm 4.2's semantics and storage format, so the `helm` CLI and this engine
//! can take turns on the same release. Written from Helm's documented and observable
//! behaviour (pkg/action, pkg/kube, pkg/storage, pkg/release of helm.sh/helm/v4 v4.2.3).
//!
//! One job per module:
//! - [`record`]: a release as Helm stores it (JSON, gzip, base64), chart included;
//! - [`storage`]: the Secret and `ConfigMap` drivers, history and pruning;
//! - [`sort`]: a render split into CRDs, hooks and the manifest, in Helm's kind order;
//! - [`cluster`]: `.Capabilities` and `lookup` from the live cluster, kinds resolved;
//! - [`wait`]: readiness and hook completion, as Helm 4 waits;
//! - [`apply`]: objects created, applied (server-side or three-way merge), replaced, deleted;
//! - [`hooks`]: hooks of one phase run by weight with their delete policies;
//! - [`actions`]: install, upgrade, rollback and uninstall built from the above.
pub(crate) mod actions;
pub(crate) mod apply;
mod client;
pub(crate) mod cluster;
pub(crate) mod hooks;
pub(crate) mod record;
pub(crate) mod sort;
pub(crate) mod storage;
pub(crate) mod wait;

pub use client::ReleaseEngine;

/// Helm's field manager: the CLI's is the base name of its binary, `helm`. Using the
/// same one lets `helm upgrade --server-side` and this engine take turns without conflicts.
pub(crate) const FIELD_MANAGER: &str = "helm";

/// An object of a release, resolved against the cluster's discovery.
#[derive(Clone, Debug)]
pub(crate) struct ClusterObject {
    pub resource: kube::api::ApiResource,
    /// Whether the kind is namespaced (decides where `namespace` applies).
    pub namespaced: bool,
    /// The namespace it lives in (`None` for cluster-scoped kinds).
    pub namespace: Option<String>,
    pub name: String,
    /// The object as rendered (what gets applied).
    pub body: serde_json::Value,
}

/// Why a release operation failed, worded as Helm words it where Helm has words for it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum EngineError {
    #[error(transparent)]
    Storage(Box<storage::StorageError>),
    #[error(transparent)]
    Apply(#[from] apply::ApplyError),
    #[error(transparent)]
    Wait(#[from] wait::WaitError),
    #[error(transparent)]
    Cluster(#[from] cluster::ClusterError),
    #[error("cannot load chart {path}: {reason}")]
    Chart { path: String, reason: String },
    #[error("{0}")]
    Render(String),
    #[error("unable to build kubernetes objects from release manifest: {0}")]
    Manifest(String),
    #[error("{0}")]
    Update(String),
    #[error("{0}: {1}")]
    Phase(&'static str, Box<EngineError>),
    #[error("{event} hook {path} failed: {reason}")]
    Hook {
        event: &'static str,
        path: String,
        reason: String,
    },
    #[error("cannot re-use a name that is still in use: {0}")]
    NameInUse(String),
    #[error("{0:?} has no deployed releases")]
    NoDeployedReleases(String),
    #[error("another operation (install/upgrade/rollback) is in progress")]
    Pending,
    #[error("release: not found: {0}")]
    NotFound(String),
    #[error("release has no {0} version")]
    NoRevision(u32),
}

impl From<storage::StorageError> for EngineError {
    fn from(error: storage::StorageError) -> Self {
        EngineError::Storage(Box::new(error))
    }
}
