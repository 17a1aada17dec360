//! A bounded fuzz run of the chart engine: random charts (templates from the pieces of
//! Go's template language and Helm's functions, YAML values and Chart.yaml, raw bytes)
//! load and render, or fail with an error, each within 2 s, with no panic, abort or
//! stack overflow, and the process stays under 512 MiB. Longer runs with figures:
//! `cargo run --release -p rusty-sdk-chart --example fuzz_charts -- CASES`.
//!
//! Each run draws a new seed and prints it; `CHART_FUZZ_SEED=<seed>` replays a run.
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

mod fuzz_support;

/// `CHART_FUZZ_SEED`, or a new seed from the clock.
fn seed() -> u64 {
    if let Ok(text) = std::env::var("CHART_FUZZ_SEED") {
        text.trim().parse().unwrap_or_else(|_| {
            panic!("CHART_FUZZ_SEED={text} is not a number; give the seed a failed run printed")
        })
    } else {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("the clock is after 1970");
        now.as_secs() ^ (u64::from(now.subsec_nanos()) << 20)
    }
}

#[test]
fn random_charts_render_or_fail_within_bounds() {
    let seed = seed();
    eprintln!("chart fuzz seed {seed} (replay: CHART_FUZZ_SEED={seed})");
    let mut key = [0; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases: 2000,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &key),
    );
    let result = runner.run(&fuzz_support::chart_files(), |files| {
        let took = fuzz_support::load_and_render(files, Duration::from_secs(2));
        prop_assert!(took.is_some(), "a chart panicked or took over 2 s");
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}\nreplay: CHART_FUZZ_SEED={seed} cargo test -p rusty-sdk-chart --test fuzz");
    }
    let peak = fuzz_support::peak_rss_mib().unwrap_or(0);
    assert!(
        peak < 512,
        "peak resident memory {peak} MiB (CHART_FUZZ_SEED={seed})"
    );
}
