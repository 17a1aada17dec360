//! One module per command; each validates its flags, stages changes and applies them.
pub mod alpha;
pub mod bundle_validate;
pub mod create_api;
pub mod create_webhook;
pub mod edit;
pub mod generate_bundle;
pub mod generate_rbac;
pub mod init;
