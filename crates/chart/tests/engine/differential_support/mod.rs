//! The case format of the differential test, shared by `tests/differential.rs` and the
//! `render_cases` example: a table `{"base": {path: text}, "cases": [{"id", "files",
//! "values", ...}]}`, where a case's chart is the base chart plus its own files (a file
//! given as a list of numbers is raw bytes, for BOMs and invalid UTF-8).
use std::path::{Path, PathBuf};

use rusty_sdk_chart::RenderOptions;
use serde_json::{Map, Value, json};

fn file_bytes(text: &Value) -> Vec<u8> {
    match text {
        Value::String(s) => s.clone().into_bytes(),
        Value::Array(a) => a
            .iter()
            .filter_map(Value::as_u64)
            .map(|b| u8::try_from(b).expect("a raw byte is a number from 0 to 255"))
            .collect(),
        _ => Vec::new(),
    }
}

/// Writes the chart of `case` as `<root>/c` and returns that directory.
pub fn write_chart(
    root: &Path,
    base: &Map<String, Value>,
    case: &Value,
) -> std::io::Result<PathBuf> {
    let dir = root.join("c");
    let mut files = base.clone();
    if let Some(own) = case["files"].as_object() {
        files.extend(own.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    for (path, text) in &files {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&target, file_bytes(text))?;
    }
    Ok(dir)
}

/// Loads and renders the chart in `dir` as Helm's result shape: `{"output": {path: text}}`
/// or `{"error": message}` (the directory named `CHART`); a panic is `{"panic": message}`.
pub fn render_dir(dir: &Path, values: &Value) -> Value {
    let outcome = std::panic::catch_unwind(|| {
        let chart = rusty_sdk_chart::Chart::load(dir).map_err(|e| helm_load_error(&e))?;
        rusty_sdk_chart::render(&chart, values, &RenderOptions::default())
            .map_err(|e| e.to_string())
    });
    match outcome {
        Ok(Ok(map)) => json!({ "output": map }),
        // The scratch directory's path is not reproducible: name it CHART.
        Ok(Err(message)) => json!({ "error": message.replace(&*dir.to_string_lossy(), "CHART") }),
        Err(payload) => {
            let text = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(ToString::to_string))
                .unwrap_or_default();
            json!({ "panic": text })
        }
    }
}

/// Renders one case of a table in a fresh temporary directory.
pub fn render_case(base: &Map<String, Value>, case: &Value) -> Value {
    let tmp = tempfile::tempdir().expect("temporary directory");
    match write_chart(tmp.path(), base, case) {
        Ok(dir) => render_dir(&dir, &case["values"]),
        Err(e) => json!({ "error": format!("writing the case chart: {e}") }),
    }
}

/// A chart file error as Helm words it. Ours names the chart the file belongs to
/// ("invalid values.yaml in /path: ..."), which Helm's loader leaves out ("cannot load
/// values.yaml: ..."); the message after that prefix must be Helm's.
fn helm_load_error(e: &rusty_sdk_chart::ChartError) -> String {
    match e {
        rusty_sdk_chart::ChartError::InvalidFile { file, message, .. } if file == "values.yaml" => {
            format!("cannot load {file}: {message}")
        }
        other => other.to_string(),
    }
}
