//! Time what `generate rbac` and `create api --plugins helm` spend on a chart: loading it
//! and listing every object it can create (the default render, the every-switch render
//! and, when that fails, one render per switch). Median of N runs per chart.
//!
//! `cargo run --release -p rusty-sdk-chart --example bench_objects -- CHART_DIR... [-n N]`
use std::time::Instant;

use rusty_sdk_chart::{Chart, all_objects, switches_overlay};

fn count_switches(v: &serde_json::Value) -> usize {
    match v {
        serde_json::Value::Object(m) => m.values().map(count_switches).sum(),
        _ => 1,
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = 5;
    if let Some(i) = args.iter().position(|a| a == "-n") {
        runs = args
            .get(i + 1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(5)
            .max(1);
        args.drain(i..(i + 2).min(args.len()));
    }
    println!(
        "{:<28}{:>10}{:>10}{:>9}{:>9}{:>8}",
        "chart", "templates", "switches", "objects", "failed", "ms"
    );
    for dir in &args {
        let mut times = Vec::new();
        let (mut templates, mut switches, mut objects, mut failed) = (0, 0, 0, 0);
        for _ in 0..runs {
            let start = Instant::now();
            let chart = Chart::load(std::path::Path::new(dir))?;
            let found = all_objects(&chart)?;
            times.push(start.elapsed().as_secs_f64() * 1000.0);
            templates = chart.templates().len();
            switches = count_switches(&switches_overlay(&chart));
            objects = found.manifests.len();
            failed = found.failed_switches.len();
        }
        times.sort_by(f64::total_cmp);
        let name = std::path::Path::new(dir)
            .file_name()
            .map_or(dir.clone(), |n| n.to_string_lossy().into());
        println!(
            "{name:<28}{templates:>10}{switches:>10}{objects:>9}{failed:>9}{:>8.1}",
            times[times.len() / 2]
        );
    }
    Ok(())
}
