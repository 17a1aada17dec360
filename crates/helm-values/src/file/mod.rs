//! Values files: Helm's `LoadValues` (every YAML document of the file, merged, with Helm's
//! error texts) and the `values.yaml` of a chart directory or a `helm package` archive,
//! read without loading the rest of the chart.
use std::fs::File;
use std::io::Read;
use std::path::Path;

use flate2::read::GzDecoder;
use serde_json::{Map, Value};

/// values.yaml files larger than this are refused (charts keep them in kilobytes).
const MAX_VALUES_BYTES: u64 = 16 * 1024 * 1024;

/// Why a chart's values.yaml could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The chart or its values.yaml could not be opened or read.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// values.yaml is larger than charts' values files are.
    #[error("values.yaml is larger than {MAX_VALUES_BYTES} bytes")]
    TooLarge,
    /// values.yaml is not a values file, in Helm's words.
    #[error("values.yaml: {0}")]
    Invalid(String),
}

/// The defaults of a chart directory or packaged chart (`.tgz`), read from its
/// values.yaml as Helm reads it; `{}` when it has none.
///
/// # Errors
///
/// [`ReadError`] when the chart cannot be read, its values.yaml is larger than 16 MiB, or
/// is not UTF-8 YAML whose documents are maps.
pub fn read_chart_values(chart: &Path) -> Result<Value, ReadError> {
    let data = if chart.is_dir() {
        read_dir_values(chart)?
    } else {
        read_archive_values(chart)?
    };
    let Some(data) = data else {
        return Ok(Value::Object(Map::new()));
    };
    let text =
        crate::yaml::utf8_text(&data).map_err(|e| ReadError::Invalid(yaml_conversion_error(&e)))?;
    load_values(text).map_err(ReadError::Invalid)
}

fn read_dir_values(chart: &Path) -> Result<Option<Vec<u8>>, ReadError> {
    let path = chart.join("values.yaml");
    if !path.is_file() {
        return Ok(None);
    }
    read_bounded(File::open(path)?).map(Some)
}

/// `<top>/values.yaml` of a `helm package` archive.
fn read_archive_values(chart: &Path) -> Result<Option<Vec<u8>>, ReadError> {
    let mut archive = tar::Archive::new(GzDecoder::new(File::open(chart)?));
    for entry in archive.entries()? {
        let entry = entry?;
        let path = entry.path()?.into_owned();
        let mut parts = path.components();
        if let (Some(_), Some(name), None) = (parts.next(), parts.next(), parts.next())
            && name.as_os_str() == "values.yaml"
        {
            return read_bounded(entry).map(Some);
        }
    }
    Ok(None)
}

fn read_bounded(reader: impl Read) -> Result<Vec<u8>, ReadError> {
    let mut data = Vec::new();
    reader.take(MAX_VALUES_BYTES + 1).read_to_end(&mut data)?;
    if data.len() as u64 > MAX_VALUES_BYTES {
        return Err(ReadError::TooLarge);
    }
    Ok(data)
}

/// Helm's `LoadValues`: every YAML document of a values file, each a map, merged in
/// order (nested maps merge, anything else replaces).
///
/// # Errors
///
/// Helm's words for text that is not YAML or a document that is not a map.
pub fn load_values(text: &str) -> Result<Value, String> {
    let docs = crate::yaml::parse_all(text).map_err(|e| yaml_conversion_error(&e))?;
    let mut merged = Map::new();
    for doc in docs {
        match doc {
            Value::Object(m) => merge_maps(&mut merged, m),
            other => {
                return Err(format!(
                    "cannot unmarshal yaml document: error unmarshaling JSON: while decoding \
                     JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                    json_kind(&other)
                ));
            }
        }
    }
    Ok(Value::Object(merged))
}

/// Helm's words for a values document that is not valid YAML.
pub fn yaml_conversion_error(e: &str) -> String {
    format!("cannot unmarshal yaml document: error converting YAML to JSON: {e}")
}

/// encoding/json's name for the kind of JSON value found.
fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Helm's `MergeMaps`: a map merges into a map, any other value replaces.
fn merge_maps(into: &mut Map<String, Value>, from: Map<String, Value>) {
    for (k, v) in from {
        match (into.get_mut(&k), v) {
            (Some(Value::Object(dst)), Value::Object(src)) => merge_maps(dst, src),
            (_, v) => {
                into.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests;
