//! The Helm reconciler: one controller per watches.yaml entry that installs, upgrades,
//! repairs and uninstalls a Helm release per custom resource.
mod chart_check;
mod duration;
mod env;
mod watches;

pub use chart_check::ChartProblem;
pub use duration::{DurationError, parse_go_duration};
pub use env::expand_env;
pub use watches::{EntryProblem, Watch, WatchesError, load_watches};
mod client;
mod helm_cli;
mod release;

pub use client::{
    DryRun, HelmClient, HelmError, InstallOptions, ReleaseTarget, RollbackOptions,
    UninstallOptions, UpgradeOptions,
};
pub use helm_cli::HelmCli;
pub use release::{Release, ReleaseRevision, ReleaseStatus};
