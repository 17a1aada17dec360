//! The chart engine's integration tests, in one test binary: each would otherwise link the
//! whole engine again (about 20 MB on disk and a link step apiece). The fuzz run stays in
//! its own binary, where it measures the peak memory of nothing but itself.
#![expect(
    clippy::unwrap_used,
    reason = "a test binary: helpers fail the test as its tests do (clippy.toml)"
)]
mod charts;
mod common;
mod corpus;
mod corpus_support;
mod differential;
mod differential_support;
mod hostile;
mod load;
mod lookup;
mod manifests;
mod schema;
mod starter;
