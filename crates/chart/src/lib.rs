//! Helm charts read and rendered in Rust.
