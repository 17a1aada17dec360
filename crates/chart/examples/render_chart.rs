//! Render a chart and print every output file, for comparing with Helm by eye, or with
//! `--json` the output map as JSON (the shape Helm's engine returns), for comparing
//! with the chart corpus.
//!
//! `cargo run -p rusty-sdk-chart --example render_chart -- [--json] <chart dir|tgz> ['{"json":"values"}']`
use std::path::Path;

use rusty_sdk_chart::RenderOptions;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).peekable();
    let as_json = args.next_if(|a| a == "--json").is_some();
    let Some(path) = args.next() else {
        eprintln!("usage: render_chart [--json] <chart dir or .tgz> [values as JSON]");
        std::process::exit(2);
    };
    let values: serde_json::Value = match args.next() {
        Some(json) => serde_json::from_str(&json)?,
        None => serde_json::json!({}),
    };
    let chart = rusty_sdk_chart::Chart::load(Path::new(&path))?;
    let rendered = rusty_sdk_chart::render(&chart, &values, &RenderOptions::default())?;
    if as_json {
        println!("{}", serde_json::to_string(&rendered)?);
        return Ok(());
    }
    for (name, text) in rendered {
        println!("===== {name}");
        print!("{text}");
    }
    Ok(())
}
