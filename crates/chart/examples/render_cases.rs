//! Render the cases of the differential test (format in `tests/engine/differential_support`) with
//! our engine and print one JSON line per case: `{"id", "output": {path: text}}` or
//! `{"id", "error": message}`. Lines are flushed one by one, so that the driver
//! (`testdata/differential/differential.py`) can tell which case crashed or hung the
//! process and resume after it.
//!
//! `cargo run -p rusty-sdk-chart --example render_cases -- <cases.json> [first index]`
use std::io::Write;

use serde_json::Value;

#[path = "../tests/engine/differential_support/mod.rs"]
mod differential_support;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: render_cases <cases.json> [first index]");
        std::process::exit(2);
    };
    let first: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(0);
    let table: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    let base = table["base"].as_object().cloned().unwrap_or_default();
    let cases = table["cases"].as_array().cloned().unwrap_or_default();
    // Panics are caught per case and reported; keep their messages off stderr.
    std::panic::set_hook(Box::new(|_| {}));
    let stdout = std::io::stdout();
    for case in cases.iter().skip(first) {
        let mut result = differential_support::render_case(&base, case);
        result["id"] = case["id"].clone();
        let mut out = stdout.lock();
        writeln!(out, "{result}")?;
        out.flush()?;
    }
    Ok(())
}
