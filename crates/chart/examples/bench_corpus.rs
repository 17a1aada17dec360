//! Render speed against Helm's own engine: renders every corpus chart
//! (`shared/charts-corpus`, next to the repository) with default values several times
//! and prints our median next to Helm's (testdata/helm-timings.json), with the ratio.
//!
//! `cargo run --release -p rusty-sdk-chart --example bench_corpus [runs] [chart...]`
//!
//! Helm's figures come from `HELM_TIMINGS`, the output of `render_oracle.py --timings`
//! (`chart<TAB>ms ms` lines) taken in the same run on the same machine, as
//! `scripts/bench-chart.sh` does; without it, from the stored testdata/helm-timings.json.
//!
//! Like Helm's figures, each timed render uses a freshly loaded chart and the load is
//! not timed, so parsing the templates counts. A second column shows repeat renders of
//! one loaded chart, which reuse its parsed templates (what an operator reconciling
//! the same chart sees).
#[path = "../tests/engine/corpus_support/mod.rs"]
mod corpus_support;

use std::time::Instant;

use rusty_sdk_chart::{Chart, RenderOptions};

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        f64::midpoint(xs[n / 2 - 1], xs[n / 2])
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runs: usize = std::env::args()
        .nth(1)
        .map(|r| r.parse())
        .transpose()?
        .unwrap_or(11);
    let only: Vec<String> = std::env::args().skip(2).collect();
    let Some(corpus) = corpus_support::corpus_dir() else {
        eprintln!("../shared/charts-corpus not found next to the repository");
        std::process::exit(2);
    };
    let timings_path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/helm-timings.json");
    let timings: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(timings_path)?)?;
    let mut helm = timings["median_ms"].clone();
    if let Ok(path) = std::env::var("HELM_TIMINGS") {
        let live = std::fs::read_to_string(&path)?;
        let mut map = serde_json::Map::new();
        for line in live.lines() {
            if let Some((chart, ms)) = line.split_once('\t') {
                let ms: f64 = ms.trim_end_matches(" ms").trim().parse()?;
                map.insert(chart.to_string(), ms.into());
            }
        }
        helm = serde_json::Value::Object(map);
        println!("Helm's figures: {path} (this run)");
    } else {
        // Stored figures were timed on another machine: the ratios mean little here.
        println!(
            "Helm's figures: testdata/helm-timings.json, stored from another machine, not this run (scripts/bench-chart.sh times both here)"
        );
    }
    println!(
        "{:<30} {:>10} {:>10} {:>8} {:>10}",
        "chart", "ours ms", "helm ms", "speedup", "repeat ms"
    );
    let (mut ours_total, mut helm_total, mut log_sum, mut count) = (0.0, 0.0, 0.0, 0);
    for case in corpus_support::cases(&corpus) {
        if !only.is_empty() && !only.contains(&case.chart) {
            continue;
        }
        let values = serde_json::json!({});
        let opts = RenderOptions::default();
        // One untimed render warms process-wide caches (regexes, allocator), as Helm's
        // process is warm when it is timed.
        let ok = rusty_sdk_chart::render(&Chart::load(&case.chart_dir)?, &values, &opts).is_ok();
        let mut samples = Vec::with_capacity(runs);
        for _ in 0..runs {
            let chart = Chart::load(&case.chart_dir)?;
            let start = Instant::now();
            let _ = std::hint::black_box(rusty_sdk_chart::render(&chart, &values, &opts));
            samples.push(start.elapsed().as_secs_f64() * 1000.0);
        }
        let chart = Chart::load(&case.chart_dir)?;
        let repeat = median(
            (0..runs)
                .map(|_| {
                    let start = Instant::now();
                    let _ = std::hint::black_box(rusty_sdk_chart::render(&chart, &values, &opts));
                    start.elapsed().as_secs_f64() * 1000.0
                })
                .collect(),
        );
        let ours = median(samples);
        let Some(theirs) = helm[&case.chart].as_f64() else {
            println!(
                "{:<30} {:>10.3} {:>10} {:>8} {repeat:>10.3}",
                case.chart, ours, "-", "-"
            );
            continue;
        };
        let ratio = theirs / ours;
        (ours_total, helm_total, log_sum, count) = (
            ours_total + ours,
            helm_total + theirs,
            log_sum + ratio.ln(),
            count + 1,
        );
        let mark = if ok { "" } else { "  (our render fails)" };
        println!(
            "{:<30} {:>10.3} {:>10.2} {:>7.1}x {repeat:>10.3}{mark}",
            case.chart, ours, theirs, ratio
        );
    }
    println!(
        "\ntotal of medians: ours {ours_total:.1} ms, helm {helm_total:.1} ms: {:.1}x faster; geometric mean of per-chart speedups {:.1}x over {count} charts",
        helm_total / ours_total,
        (log_sum / f64::from(count)).exp()
    );
    Ok(())
}
