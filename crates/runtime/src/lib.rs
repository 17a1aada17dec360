//! Runtime for operators scaffolded by rusty-sdk: the manager that runs Rust controllers
//! and Helm reconcilers side by side, with health probes, metrics, leader election and
//! namespace scoping.
pub mod context;
pub mod helm;
pub mod metrics;

pub use context::{ControllerContext, Shutdown, WatchScope};
pub use metrics::ReconcileMetrics;
