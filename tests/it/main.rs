//! All integration tests compile into this one binary (faster to build and link).
// Lints of the floor that do not fit transcript-style tests (the rest of it holds here).
#![allow(
    clippy::unwrap_used,
    reason = "a failed unwrap, in a test or its helpers, is a failed test"
)]
#![allow(
    clippy::too_many_lines,
    reason = "a scenario is read top to bottom as one transcript"
)]
#![allow(
    clippy::needless_pass_by_value,
    reason = "object builders take their json! parts by value, as callers write them"
)]
#![allow(
    clippy::format_collect,
    reason = "expected output is built as the tool prints it, one formatted piece per item"
)]
mod support;

mod alpha;
mod alpha_update;
mod bundle;
mod bundle_validate;
mod check_the_checks;
mod cli;
mod cluster;
mod controllers;
mod conventions;
mod crash;
mod e2e;
mod external;
mod formatting;
mod fuzz;
mod grafana;
mod helm_api;
mod helm_chart;
mod hostile;
mod hostile_files;
mod hostile_names;
mod hostile_paths;
mod image;
mod init;
mod kubebuilder_replay;
mod namespaced;
mod rbac;
mod rbac_cache;
mod rust_api;
mod shipping;
mod tutorial;
mod webhook;
mod webhook_kinds;
mod webhook_merge;
mod webhook_storage;
