//! Load and render the embedded starter chart N times; print median and mean per load
//! and per render (default values, and every switch on).
//!
//! `cargo run --release -p rusty-sdk-chart --example bench_starter -- [N]` (N = 500)
use std::time::{Duration, Instant};

use rusty_sdk_chart::{Chart, RenderOptions, render, starter, switches_overlay};

fn stats(mut samples: Vec<Duration>) -> (f64, f64) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let median = ms(samples[samples.len() / 2]);
    let mean = samples.iter().map(|d| ms(*d)).sum::<f64>() / samples.len() as f64;
    (median, mean)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(500)
        .max(1);
    let dir = std::env::temp_dir().join(format!("bench-starter-{}", std::process::id()));
    for (path, text) in starter::files("mychart") {
        let file = dir.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(file, text)?;
    }
    let opts = RenderOptions::default();
    let empty = serde_json::json!({});
    let (mut loads, mut renders, mut switched) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let start = Instant::now();
        let chart = Chart::load(&dir)?;
        loads.push(start.elapsed());
        let start = Instant::now();
        let out = render(&chart, &empty, &opts)?;
        renders.push(start.elapsed());
        let overlay = switches_overlay(&chart);
        let start = Instant::now();
        let out_on = render(&chart, &overlay, &opts)?;
        switched.push(start.elapsed());
        if out.len() != 8 || out_on.len() != 8 {
            return Err(format!(
                "expected 8 rendered files, got {} and {}",
                out.len(),
                out_on.len()
            )
            .into());
        }
    }
    std::fs::remove_dir_all(&dir)?;
    println!("starter chart, {runs} runs");
    for (label, samples) in [
        ("load (directory)", loads),
        ("render (defaults)", renders),
        ("render (switches on)", switched),
    ] {
        let (median, mean) = stats(samples);
        println!("{label:<22} median {median:.3} ms   mean {mean:.3} ms");
    }
    Ok(())
}
