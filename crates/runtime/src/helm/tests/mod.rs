//! Reconciler tests against a mocked API server (tower-test) and a fake `HelmClient`.
//! Each test lists every API request and every Helm call it expects, in order; anything
//! missing, extra or different fails the test.
pub(super) mod api;
mod builder;
mod fake_helm;
mod fixtures;

mod delete;
mod delete_stuck;
mod dependents;
mod install;
#[cfg(feature = "chart-engine")]
mod no_op;
mod recovery;
mod run;
mod steady_state;
mod values;
