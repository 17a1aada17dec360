//! The Helm reconciler: one controller per watches.yaml entry that installs, upgrades,
//! repairs and uninstalls a Helm release per custom resource.
//!
//! ```no_run
//! # async fn start(ctx: rusty_sdk_runtime::ControllerContext) -> anyhow::Result<()> {
//! use rusty_sdk_runtime::helm;
//! # let flags = rusty_sdk_runtime::HelmArgs::default();
//! for watch in helm::load_watches(&flags.watches_file)? {
//!     let reconciler = helm::Reconciler::builder(&watch)?.with_flag_defaults(&flags).build()?;
//!     reconciler.run(ctx.clone()).await?;
//! }
//! # Ok(()) }
//! ```
//!
//! Semantics follow helm-operator-plugins (`pkg/reconciler`): finalizer
//! `uninstall-helm-release`; install when there is no release; upgrade when the dry-run
//! manifest differs or the release failed or was superseded; otherwise repair drift of every
//! object of the release; conditions `Initialized`, `Deployed`, `ReleaseFailed`,
//! `Irreconcilable` (and `Paused`) with upstream's reasons; `status.deployedRelease`; one
//! `ValueOverridden` Warning event per override value.
//!
//! Values: overrides on the spec, then the value translator, then merged with the chart's
//! values.yaml by Helm's rules (`MergeValues`, which keeps a spec's `null` so that Helm's own
//! coalescing deletes that default; upstream calls `chartutil.CoalesceValues`), and upgrades pass
//! `--reset-values`: an emptied spec deploys the chart's defaults, never the previous
//! release's values. Override values get `$VAR` expansion but no Go template rendering.
//!
//! Defaults as operator-sdk's: requeue every minute (the annotation
//! `helm.sdk.operatorframework.io/reconcile-period`, then watches.yaml `reconcilePeriod`, then
//! the `--reconcile-period` flag win; zero: never); `maxConcurrentReconciles` (else
//! `--max-concurrent-reconciles`) = four per CPU (operator-sdk: one), shared by every watched
//! namespace; 10 revisions kept. The flags are [`crate::HelmArgs`], applied by
//! [`ReconcilerBuilder::with_flag_defaults`]. `dryRunOption` is accepted and has no effect: every
//! render, the deciding dry run included, sees the cluster (`lookup`, `.Capabilities`).
//!
//! Failed upgrades: rolled back only when the upgrade recorded a revision (upstream's
//! `pkg/client/actionclient.go`), to the revision that was deployed, with
//! force unless `helm.sdk.operatorframework.io/rollback-force: "false"` (taking over
//! conflicting fields; replacing objects only for releases made client-side);
//! `ReconcilerBuilder::with_failure_rollback(false)` leaves them failed.
//!
//! Deletion: an uninstall, then the finalizer stays until every namespaced object of the
//! release is gone (operator-sdk#4401), at most 5 minutes after the deletion
//! (`with_uninstall_wait_timeout`); cluster-scoped objects are not waited for. A release
//! Helm no longer has (its Secrets went with the namespace) lets go at once, and one that
//! cannot be read is uninstalled anyway. Annotations: `uninstall-wait: "false"` skips the
//! wait; `uninstall-ignore-failure: "true"` (ours) removes the finalizer even when the
//! uninstall fails.
//!
//! Dependents: one metadata watch per kind of the releases. Deletions, and updates that
//! change more than `resourceVersion`/`managedFields` (generation, labels, annotations,
//! owner references, finalizers) trigger a reconcile, like operator-sdk's
//! `DependentPredicate`. Drift is judged on what the server stores: quantities by amount,
//! int-or-string by value, Secret `stringData` as `data`, server defaults ignored; an
//! unchanged object is logged at debug only.
//!
//! Helm: releases are made in process by the release engine ([`ReleaseEngine`], module
//! `engine`), with Helm 4.2's semantics and storage format (Secrets, or `ConfigMaps` when
//! `HELM_DRIVER=configmap`): the `helm` CLI and the operator can take turns on a release.
//! Each release's labels name its resource's kind (`rusty-sdk.io/owner-kind`,
//! `rusty-sdk.io/owner-group`); a resource of another kind with the same name is refused.
//! A revision left `pending-*` or `uninstalling` is taken over once it is older than any
//! operation (6 minutes).
//!
//! Steady state: a deployed release is rendered in process with the values Helm would get
//! and the cluster's `.Capabilities`; when it yields exactly the release's objects, the
//! reconcile only checks those objects, with no write. A chart calling `lookup`, one the
//! engine cannot render (logged once per controller) or any difference goes to the
//! engine's dry-run upgrade, which decides.
//!
//! Metrics: controller-runtime's `controller_runtime_reconcile_total` (results `success`,
//! `requeue_after`, `error`), `_errors_total`, `_time_seconds`, `_active_workers`,
//! `_max_concurrent_reconciles`, and the `workqueue_*` family (`depth`, `adds_total`,
//! `retries_total`, `queue_duration_seconds`, `work_duration_seconds`,
//! `unfinished_work_seconds`, `longest_running_processor_seconds`), labelled with the
//! controller's name; the queue is followed from the controller's triggers
//! ([`crate::workqueue`]).
//!
//! Differences from upstream, on purpose:
//! - Owner references are added by the drift-repair step (server-side apply of each
//!   manifest object), which runs after every install, upgrade and unchanged reconcile,
//!   instead of a Helm post-renderer; Helm 3 and 4 differ there. Objects outside the
//!   resource's namespace and `helm.sh/resource-policy: keep` objects get none; their
//!   changes are still mapped back through Helm's `meta.helm.sh/release-*` annotations.
//! - Deletion waits for the release's objects by default (upstream only with
//!   `uninstall-wait: "true"`).
//! - A release stuck in `pending-install` is uninstalled and installed again;
//!   `pending-upgrade`/`pending-rollback` is rolled back to the last good revision
//!   (helm-operator-plugins#462).
//! - The label selector is honoured on the watch and in the reconcile.
//! - Helm's release Secrets are not watched (the CLI does not set owner references on them).
mod annotations;
mod builder;
mod chart_check;
mod chart_values;
mod client;
mod dependents;
mod drift;
pub(crate) mod duration;
#[cfg(feature = "chart-engine")]
mod engine;
mod env;
mod finalizer;
mod hooks;
#[cfg(feature = "chart-engine")]
mod in_process;
mod kinds;
mod manifest;
mod metered;
mod reconcile;
mod reconciler;
mod recovery;
mod release;
mod release_actions;
// Read by the release engine (and tests of stored releases); an operator without it has
// no stored release to read.
#[cfg(any(feature = "chart-engine", test))]
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
#[cfg(feature = "chart-engine")]
pub use engine::ReleaseEngine;
#[cfg(feature = "chart-engine")]
#[doc(hidden)]
pub use engine::cluster::testing as engine_cluster;
#[cfg(feature = "chart-engine")]
#[doc(hidden)]
pub use engine::sort::testing as engine_sort;
#[cfg(feature = "chart-engine")]
#[doc(hidden)]
pub use engine::storage::testing as engine_storage;
#[cfg(feature = "chart-engine")]
#[doc(hidden)]
pub use engine::wait::testing as engine_wait;
pub use env::expand_env;
pub use finalizer::UNINSTALL_FINALIZER;
pub use hooks::{PostHook, PreHook};
pub use manifest::ManifestError;
pub use reconcile::ReconcileError;
pub use reconciler::Reconciler;
#[doc(hidden)]
pub use reconciler::Standalone;
pub use release::{
    OWNER_GROUP_LABEL, OWNER_KIND_LABEL, Release, ReleaseRevision, ReleaseStatus, owner_labels,
};
pub use status::{DeployedRelease, HelmCondition, condition_type, reason};
pub use values::{ValueTranslator, ValuesError};
pub use watches::{EntryProblem, Watch, WatchesError, load_watches};
