//! All YAML parsing and printing goes through here, so the archived serde_yaml can be
//! swapped for another crate in one place.
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use serde_yaml::{Mapping, Value};

/// Parse a YAML document into a typed value; the error text is serde_yaml's, with position.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    serde_yaml::from_str(text).map_err(|e| e.to_string())
}

/// Print a value as a YAML document (block style, lists not indented, as go-yaml does).
pub fn to_string<T: Serialize>(value: &T) -> Result<String, String> {
    serde_yaml::to_string(value).map_err(|e| e.to_string())
}

/// Sort every mapping's keys, recursively, so output does not depend on input order.
pub fn sort_keys(value: &mut Value) {
    match value {
        Value::Mapping(map) => {
            let mut entries: Vec<(Value, Value)> = std::mem::take(map).into_iter().collect();
            entries.sort_by_key(|(a, _)| key_text(a));
            for (k, mut v) in entries {
                sort_keys(&mut v);
                map.insert(k, v);
            }
        }
        Value::Sequence(items) => items.iter_mut().for_each(sort_keys),
        _ => {}
    }
}

fn key_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => serde_yaml::to_string(other).unwrap_or_default(),
    }
}
