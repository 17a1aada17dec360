//! The Helm reconciler: one controller per watches.yaml entry that installs, upgrades,
//! repairs and uninstalls a Helm release per custom resource.
//!
//! ```no_run
//! # async fn start(ctx: rusty_sdk_runtime::ControllerContext) -> anyhow::Result<()> {
//! use rusty_sdk_runtime::helm;
//! for watch in helm::load_watches(std::path::Path::new("watches.yaml"))? {
//!     let reconciler = helm::Reconciler::builder(&watch)?.build()?;
//!     reconciler.run(ctx.clone()).await?;
//! }
//! # Ok(()) }
//! ```
//!
//! Semantics follow helm-operator-plugins (`pkg/reconciler`): finalizer
//! `uninstall-helm-release`; install when there is no release; upgrade when the server-side
//! dry-run manifest differs or the release failed or was superseded; otherwise repair drift
//! of every object of the release; conditions `Initialized`, `Deployed`, `ReleaseFailed`,
//! `Irreconcilable` (and `Paused`) with upstream's reasons; `status.deployedRelease`;
//! one `ValueOverridden` Warning event per override value; requeue after the reconcile period
//! (annotation `helm.sdk.operatorframework.io/reconcile-period` wins).
//!
//! Differences from upstream, on purpose:
//! - Owner references are added by the drift-repair step (server-side apply of each
//!   manifest object), which runs after every install, upgrade and unchanged reconcile,
//!   instead of a Helm post-renderer; Helm 3 and 4 differ there. Objects outside the
//!   resource's namespace and `helm.sh/resource-policy: keep` objects get none; their
//!   changes are still mapped back through Helm's `meta.helm.sh/release-*` annotations.
//! - On delete the finalizer stays until every object of the release returns 404
//!   (operator-sdk#4401); the resource is requeued meanwhile.
//! - A release stuck in `pending-install` is uninstalled and installed again;
//!   `pending-upgrade`/`pending-rollback` is rolled back to the last good revision
//!   (helm-operator-plugins#462).
//! - The label selector is honoured on the watch and in the reconcile.
//! - Values are not coalesced with the chart's defaults here: `helm` does that itself.
//!   Override values get `$VAR` expansion but no Go template rendering.
//! - Helm's release Secrets are not watched (the CLI does not set owner references on them).
mod annotations;
mod backoff;
mod builder;
mod chart_check;
mod chart_values;
mod client;
mod dependents;
mod drift;
mod duration;
mod env;
mod finalizer;
mod helm_cli;
mod hooks;
mod kinds;
mod manifest;
mod reconcile;
mod reconciler;
mod recovery;
mod release;
mod release_actions;
mod release_store;
mod settings;
mod status;
mod uninstall;
mod values;
mod watches;

#[cfg(test)]
mod tests;

pub use annotations::{
    AnnotationEffect, HelmAnnotation, PAUSE_RECONCILE_ANNOTATION, RECONCILE_PERIOD_ANNOTATION,
};
pub use builder::{BuildError, ReconcilerBuilder};
pub use chart_check::ChartProblem;
pub use client::{
    DryRun, HelmClient, HelmError, InstallOptions, ReleaseTarget, RollbackOptions,
    UninstallOptions, UpgradeOptions,
};
pub use drift::DriftError;
pub use duration::{DurationError, parse_go_duration};
pub use env::expand_env;
pub use finalizer::UNINSTALL_FINALIZER;
pub use helm_cli::HelmCli;
pub use hooks::{PostHook, PreHook};
pub use manifest::ManifestError;
pub use reconcile::ReconcileError;
pub use reconciler::Reconciler;
pub use release::{Release, ReleaseRevision, ReleaseStatus};
pub use status::{DeployedRelease, HelmCondition, condition_type, reason};
pub use values::{ValueTranslator, ValuesError};
pub use watches::{EntryProblem, Watch, WatchesError, load_watches};
