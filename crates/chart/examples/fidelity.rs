//! Fidelity report: renders every chart of the corpus (`shared/charts-corpus`, next to
//! the repository) with default values and with every switch on, and prints for each
//! whether our output is identical to Helm's, where it first differs, or how the
//! errors disagree; then the totals.
//!
//! `cargo run -p rusty-sdk-chart --example fidelity [chart...]`
#[path = "../tests/engine/corpus_support/mod.rs"]
mod corpus_support;

use corpus_support::{ValueSet, Verdict, cases, corpus_dir};

fn main() {
    let Some(corpus) = corpus_dir() else {
        eprintln!("../shared/charts-corpus not found next to the repository");
        std::process::exit(2);
    };
    let only: Vec<String> = std::env::args().skip(1).collect();
    let (mut identical, mut differs, mut errors, mut panics) = (0, 0, 0, 0);
    for case in cases(&corpus) {
        if !only.is_empty() && !only.contains(&case.chart) {
            continue;
        }
        for set in ValueSet::ALL {
            let label = format!("{:<30} {:<9}", case.chart, set.name());
            let verdict = match case.check(set) {
                Ok(verdict) => verdict,
                Err(e) => {
                    println!("{label} unreadable: {e}");
                    errors += 1;
                    continue;
                }
            };
            match verdict {
                Verdict::Identical => {
                    identical += 1;
                    println!("{label} identical");
                }
                Verdict::Differs(d) => {
                    differs += 1;
                    println!("{label} differs: {d}");
                }
                Verdict::ErrorMismatch(d) => {
                    errors += 1;
                    println!("{label} error mismatch: {d}");
                }
                Verdict::Panicked(p) => {
                    panics += 1;
                    println!("{label} PANIC: {p}");
                }
            }
        }
    }
    let total = identical + differs + errors + panics;
    println!(
        "\n{identical} of {total} identical, {differs} differ, {errors} error mismatches, {panics} panics"
    );
}
