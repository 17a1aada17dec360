//! All integration tests compile into this one binary (faster to build and link).
mod support;

mod bundle;
mod cli;
mod conventions;
mod crash;
mod e2e;
mod external;
mod formatting;
mod fuzz;
mod helm_api;
mod helm_chart;
mod hostile;
mod hostile_files;
mod hostile_names;
mod hostile_paths;
mod image;
mod init;
mod namespaced;
mod rbac;
mod rbac_cache;
mod rust_api;
mod shipping;
mod tutorial;
mod webhook;
mod webhook_merge;
mod webhook_storage;
