//! Load and render the embedded starter chart N times; print median and mean per load
//! and per render: the first render of a loaded chart (parses its templates), then
//! renders that reuse the parsed templates (defaults again, and every switch on).
//!
//! `cargo run --release -p rusty-sdk-chart --example bench_starter -- [N]` (N = 500)
use std::time::{Duration, Instant};

use rusty_sdk_chart::{Chart, RenderOptions, render, starter, switches_overlay};

#[expect(
    clippy::cast_precision_loss,
    reason = "a count of samples, far below the 2^52 an f64 holds exactly"
)]
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
    let (mut loads, mut cold, mut warm, mut switched) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let start = Instant::now();
        let chart = Chart::load(&dir)?;
        loads.push(start.elapsed());
        let start = Instant::now();
        let first = render(&chart, &empty, &opts)?;
        cold.push(start.elapsed());
        let start = Instant::now();
        let again = render(&chart, &empty, &opts)?;
        warm.push(start.elapsed());
        let overlay = switches_overlay(&chart);
        let start = Instant::now();
        let on = render(&chart, &overlay, &opts)?;
        switched.push(start.elapsed());
        if first != again || first.len() != 8 || on.len() != 8 {
            return Err("unexpected render output".into());
        }
    }
    std::fs::remove_dir_all(&dir)?;
    println!("starter chart, {runs} runs");
    let results = [
        ("load (directory)", loads),
        ("first render (parse)", cold),
        ("render again", warm),
        ("render, switches on", switched),
    ];
    for (label, samples) in results {
        let (median, mean) = stats(samples);
        println!("{label:<22} median {median:.3} ms   mean {mean:.3} ms");
    }
    Ok(())
}
