//! Runtime for operators scaffolded by rusty-sdk: the manager that runs Rust controllers
//! and Helm reconcilers side by side, with health probes, metrics, leader election and
//! namespace scoping.
//!
//! Start with [`Manager`] (its example is a generated `main` in miniature), then
//! [`controller::Runner`], which runs a kube-runtime controller the way the manager
//! expects, and [`helm`] for the Helm reconciler.
//!
//! # Features
//!
//! - `chart-engine`: Helm releases made in process (generated projects turn it on);
//! - `envtest`: the `envtest` module, etcd, kube-apiserver and kube-controller-manager
//!   for integration tests;
//! - `test-support`: the `test_support` module, a scripted API server for unit tests.
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
