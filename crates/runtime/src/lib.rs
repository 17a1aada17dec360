//! Runtime for operators scaffolded by rusty-sdk: the manager that runs Rust controllers
//! and Helm reconcilers side by side, with health probes, metrics, leader election and
//! namespace scoping.
pub mod args;
pub mod auth;
mod auth_cache;
pub mod cache;
pub mod client_metrics;
pub mod conditions;
pub mod context;
pub mod controller;
#[cfg(feature = "envtest")]
pub mod envtest;
pub mod events;
pub mod finalizer;
pub mod health;
pub mod helm;
pub mod leader;
pub mod logging;
pub mod manager;
pub mod metrics;
pub mod metrics_server;
pub mod process_metrics;
mod run;
mod servers;
mod signals;
#[cfg(feature = "test-support")]
pub mod test_support;
pub mod tls;
pub mod webhook;
pub mod workqueue;

pub use args::{HelmArgs, LogFormat, ManagerArgs, WebhookCertMode};
pub use context::{ControllerContext, Shutdown, WatchScope};
pub use manager::Manager;
pub use metrics::ReconcileMetrics;
pub use workqueue::WorkQueue;
