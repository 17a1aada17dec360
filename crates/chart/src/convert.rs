//! Conversions between JSON values (how values are stored) and template values.
//! Numbers become float64, as Helm's values are after YAML/JSON decoding.
use std::collections::BTreeMap;
use std::sync::Arc;

use gotemplate::Value;

/// A JSON value as template data; every number becomes a float64 like in Helm.
pub fn to_template(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => Value::String(Arc::from(s.as_str())),
        serde_json::Value::Array(items) => Value::List(items.iter().map(to_template).collect()),
        serde_json::Value::Object(map) => Value::Map(
            map.iter()
                .map(|(k, v)| (Arc::from(k.as_str()), to_template(v)))
                .collect(),
        ),
    }
}

/// An object read from the API server as template data, as Go's unstructured decoding
/// makes it: integers are `int64`, other numbers `float64` (what `lookup` returns).
pub fn unstructured_to_template(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Int64(i),
            None => Value::Float(n.as_f64().unwrap_or(0.0)),
        },
        serde_json::Value::Array(items) => {
            Value::List(items.iter().map(unstructured_to_template).collect())
        }
        serde_json::Value::Object(map) => Value::Map(
            map.iter()
                .map(|(k, v)| (Arc::from(k.as_str()), unstructured_to_template(v)))
                .collect(),
        ),
        other => to_template(other),
    }
}

/// Build a template map from string keys.
pub fn map(entries: impl IntoIterator<Item = (&'static str, Value)>) -> Value {
    let m: BTreeMap<Arc<str>, Value> = entries
        .into_iter()
        .map(|(k, v)| (Arc::from(k), v))
        .collect();
    Value::Map(m.into())
}

/// A template string value.
pub fn string(s: &str) -> Value {
    Value::String(Arc::from(s))
}
