//! The one place that parses YAML: into `serde_json::Value` the way Helm sees it
//! (map keys become strings, key order kept).
use serde_json::{Map, Number, Value};

/// Parse one YAML document; an empty document is `null`.
pub fn parse(text: &str) -> Result<Value, String> {
    let doc: serde_yaml::Value = serde_yaml::from_str(text).map_err(|e| e.to_string())?;
    Ok(convert(doc))
}

/// Parse every document of a multi-document stream, skipping empty ones.
pub fn parse_all(text: &str) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    for doc in serde_yaml::Deserializer::from_str(text) {
        let value: serde_yaml::Value =
            serde::Deserialize::deserialize(doc).map_err(|e: serde_yaml::Error| e.to_string())?;
        if !value.is_null() {
            out.push(convert(value));
        }
    }
    Ok(out)
}

fn convert(value: serde_yaml::Value) -> Value {
    match value {
        serde_yaml::Value::Null => Value::Null,
        serde_yaml::Value::Bool(b) => Value::Bool(b),
        serde_yaml::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::Number(i.into())
            } else if let Some(u) = n.as_u64() {
                Value::Number(u.into())
            } else {
                n.as_f64()
                    .and_then(Number::from_f64)
                    .map_or(Value::Null, Value::Number)
            }
        }
        serde_yaml::Value::String(s) => Value::String(s),
        serde_yaml::Value::Sequence(items) => {
            Value::Array(items.into_iter().map(convert).collect())
        }
        serde_yaml::Value::Mapping(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                out.insert(key_string(k), convert(v));
            }
            Value::Object(out)
        }
        serde_yaml::Value::Tagged(tagged) => convert(tagged.value),
    }
}

fn key_string(key: serde_yaml::Value) -> String {
    match key {
        serde_yaml::Value::String(s) => s,
        serde_yaml::Value::Bool(b) => b.to_string(),
        serde_yaml::Value::Number(n) => n.to_string(),
        serde_yaml::Value::Null => "null".to_string(),
        other => serde_yaml::to_string(&other)
            .map(|s| s.trim_end().to_string())
            .unwrap_or_default(),
    }
}
