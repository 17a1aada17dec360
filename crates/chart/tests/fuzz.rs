//! A bounded fuzz run of the chart engine: random charts (templates from the pieces of
//! Go's template language and Helm's functions, YAML values and Chart.yaml, raw bytes)
//! load and render, or fail with an error, each within 2 s, with no panic, abort or
//! stack overflow, and the process stays under 512 MiB. Longer runs with figures:
//! `cargo run --release -p rusty-sdk-chart --example fuzz_charts -- CASES`.
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

mod fuzz_support;

#[test]
fn random_charts_render_or_fail_within_bounds() {
    let mut runner = TestRunner::new(Config {
        cases: 2000,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&fuzz_support::chart_files(), |files| {
        let took = fuzz_support::load_and_render(files, Duration::from_secs(2));
        prop_assert!(took.is_some(), "a chart panicked or took over 2 s");
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let peak = fuzz_support::peak_rss_mib().unwrap_or(0);
    assert!(peak < 512, "peak resident memory {peak} MiB");
}
