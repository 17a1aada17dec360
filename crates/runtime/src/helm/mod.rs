//! The Helm reconciler: one controller per watches.yaml entry that installs, upgrades,
//! repairs and uninstalls a Helm release per custom resource (helm-operator-plugins
//! semantics; see `Reconciler`).
mod annotations;
mod builder;
mod chart_check;
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
