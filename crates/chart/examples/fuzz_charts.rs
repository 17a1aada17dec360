//! A long fuzz run of the chart engine, printing figures: cases run, how many loaded
//! and rendered within the time bound, the slowest case and peak memory.
//!
//! `cargo run --release -p rusty-sdk-chart --example fuzz_charts -- [CASES] [SEED]`
use std::time::{Duration, Instant};

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

#[path = "../tests/fuzz_support/mod.rs"]
mod fuzz_support;

fn main() {
    let mut args = std::env::args().skip(1);
    let cases: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    std::panic::set_hook(Box::new(|_| {}));
    let strategy = fuzz_support::chart_files();
    let (started, limit) = (Instant::now(), Duration::from_secs(2));
    let (mut slowest, mut failures) = (Duration::ZERO, 0usize);
    let mut outcomes = std::collections::BTreeMap::new();
    for _ in 0..cases {
        let Ok(tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        match fuzz_support::load_and_render(tree.current(), limit) {
            Some((outcome, took)) => {
                slowest = slowest.max(took);
                *outcomes.entry(format!("{outcome:?}")).or_insert(0usize) += 1;
            }
            None => failures += 1,
        }
    }
    println!(
        "{cases} random charts in {:.1} s ({outcomes:?}): {failures} panicked or took \
         over {} s; slowest {:.1} ms; peak resident memory {} MiB",
        started.elapsed().as_secs_f64(),
        limit.as_secs(),
        slowest.as_secs_f64() * 1000.0,
        fuzz_support::peak_rss_mib().map_or("?".into(), |m| m.to_string())
    );
    if failures > 0 {
        std::process::exit(1);
    }
}
