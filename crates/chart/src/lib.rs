//! Helm charts read and rendered in Rust.
pub mod sprig;
