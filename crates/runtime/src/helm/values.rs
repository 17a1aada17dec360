//! The values a release is installed with: overrides from watches.yaml applied to the
//! custom resource's spec (Helm `--set` syntax), then the value translator.
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use kube::api::DynamicObject;
use serde_json::{Map, Value};

/// Turns the custom resource (spec already overridden) into chart values; may read the
/// cluster with the client. The default returns `spec`.
pub type ValueTranslator = Arc<
    dyn Fn(DynamicObject, kube::Client) -> BoxFuture<'static, anyhow::Result<Value>> + Send + Sync,
>;

/// Wrap an async function as a [`ValueTranslator`].
pub fn value_translator<F, Fut>(translate: F) -> ValueTranslator
where
    F: Fn(DynamicObject, kube::Client) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = anyhow::Result<Value>> + Send + 'static,
{
    Arc::new(move |obj, client| Box::pin(translate(obj, client)))
}

/// Why the values could not be computed.
#[derive(Debug, thiserror::Error)]
pub enum ValuesError {
    #[error("invalid override {key:?}: {reason}")]
    Override { key: String, reason: String },
    #[error("spec not found")]
    SpecNotFound,
    #[error("spec must be a map")]
    SpecNotAMap,
    #[error("value translator failed: {0:#}")]
    Translator(anyhow::Error),
    #[error("value translator must return a map of values, got {0}")]
    NotAMap(&'static str),
    #[error(transparent)]
    Chart(#[from] super::chart_values::ChartValuesError),
}

/// Apply every override (`key=value`, Helm strvals rules) to `obj.spec`.
pub(crate) fn apply_overrides(
    obj: &mut DynamicObject,
    overrides: &BTreeMap<String, String>,
) -> Result<(), ValuesError> {
    if overrides.is_empty() {
        return Ok(());
    }
    let data = match &mut obj.data {
        Value::Object(map) => map,
        other => {
            *other = Value::Object(Map::new());
            other.as_object_mut().ok_or(ValuesError::SpecNotAMap)?
        }
    };
    let spec = data
        .entry("spec")
        .or_insert_with(|| Value::Object(Map::new()));
    if !spec.is_object() {
        return Err(ValuesError::SpecNotAMap);
    }
    for (key, value) in overrides {
        let path = parse_key(key).map_err(|reason| ValuesError::Override {
            key: key.clone(),
            reason,
        })?;
        set_path(spec, &path, typed_value(value)).map_err(|reason| ValuesError::Override {
            key: key.clone(),
            reason,
        })?;
    }
    Ok(())
}

/// The default translation: `spec` must exist and be a map (helm-operator-plugins).
pub(crate) fn spec_values(obj: &DynamicObject) -> Result<Value, ValuesError> {
    match obj.data.get("spec") {
        None => Err(ValuesError::SpecNotFound),
        Some(Value::Object(spec)) => Ok(Value::Object(spec.clone())),
        Some(_) => Err(ValuesError::SpecNotAMap),
    }
}

/// Check the translator's output is a map.
pub(crate) fn ensure_map(values: Value) -> Result<Value, ValuesError> {
    match values {
        Value::Object(_) => Ok(values),
        Value::Null => Ok(Value::Object(Map::new())),
        Value::Array(_) => Err(ValuesError::NotAMap("a list")),
        Value::String(_) => Err(ValuesError::NotAMap("a string")),
        Value::Number(_) => Err(ValuesError::NotAMap("a number")),
        Value::Bool(_) => Err(ValuesError::NotAMap("a boolean")),
    }
}

/// Helm strvals `typedVal`: true/false/null/integers become typed, anything else (including
/// numbers with a leading zero and floats) stays a string.
fn typed_value(text: &str) -> Value {
    if text.eq_ignore_ascii_case("true") {
        return Value::Bool(true);
    }
    if text.eq_ignore_ascii_case("false") {
        return Value::Bool(false);
    }
    if text.eq_ignore_ascii_case("null") {
        return Value::Null;
    }
    if text == "0" {
        return Value::from(0_i64);
    }
    if !text.starts_with('0')
        && let Ok(number) = text.parse::<i64>()
    {
        return Value::from(number);
    }
    Value::String(text.to_string())
}

#[derive(Debug, PartialEq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// `a.b[0].c`, with `\.` for a literal dot.
fn parse_key(key: &str) -> Result<Vec<Segment>, String> {
    let mut segments = Vec::new();
    let mut name = String::new();
    let mut chars = key.chars();
    let mut after_index = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => name.push(chars.next().ok_or("key ends with a backslash")?),
            '.' => {
                if name.is_empty() && !after_index {
                    return Err("empty key segment".into());
                }
                if !name.is_empty() {
                    segments.push(Segment::Key(std::mem::take(&mut name)));
                }
                after_index = false;
                continue;
            }
            '[' => {
                if !name.is_empty() {
                    segments.push(Segment::Key(std::mem::take(&mut name)));
                } else if segments.is_empty() {
                    return Err("list index without a key".into());
                }
                let digits: String = chars.by_ref().take_while(|c| *c != ']').collect();
                let index = digits
                    .parse::<usize>()
                    .map_err(|_| format!("invalid list index [{digits}]"))?;
                segments.push(Segment::Index(index));
                after_index = true;
                continue;
            }
            other => name.push(other),
        }
        after_index = false;
    }
    if !name.is_empty() {
        segments.push(Segment::Key(name));
    } else if !after_index {
        return Err("empty key segment".into());
    }
    Ok(segments)
}

/// Set `value` at `path`, creating maps and lists (padded with nulls) on the way.
fn set_path(target: &mut Value, path: &[Segment], value: Value) -> Result<(), String> {
    let Some((first, rest)) = path.split_first() else {
        *target = value;
        return Ok(());
    };
    let slot = match first {
        Segment::Key(key) => {
            if !target.is_object() {
                *target = Value::Object(Map::new());
            }
            let map = target.as_object_mut().ok_or("not a map")?;
            map.entry(key.clone()).or_insert(Value::Null)
        }
        Segment::Index(index) => {
            if !target.is_array() {
                *target = Value::Array(Vec::new());
            }
            let list = target.as_array_mut().ok_or("not a list")?;
            if *index > 65_536 {
                return Err(format!("list index {index} is too large"));
            }
            if list.len() <= *index {
                list.resize(index + 1, Value::Null);
            }
            &mut list[*index]
        }
    };
    set_path(slot, rest, value)
}

#[cfg(test)]
mod tests {
    use kube::api::ApiResource;
    use serde_json::json;

    use super::*;

    fn cr(data: Value) -> DynamicObject {
        let ar = ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk("c.io", "v1", "M"));
        DynamicObject::new("mc", &ar).data(data)
    }

    fn overrides(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn overrides_follow_helm_set_rules() {
        let mut obj = cr(json!({"spec": {"replicaCount": 1, "image": {"tag": "old"}}}));
        apply_overrides(
            &mut obj,
            &overrides(&[
                ("replicaCount", "3"),
                ("image.tag", "1.6.29"),
                ("image.pullPolicy", "null"),
                ("debug", "TRUE"),
                ("port", "007"),
                ("ratio", "1.5"),
                ("args[1]", "-v"),
                ("nodeSelector.kubernetes\\.io/os", "linux"),
                ("list[0].name", "a"),
            ]),
        )
        .unwrap();
        assert_eq!(
            spec_values(&obj).unwrap(),
            json!({
                "replicaCount": 3,
                "image": {"tag": "1.6.29", "pullPolicy": null},
                "debug": true,
                "port": "007",
                "ratio": "1.5",
                "args": [null, "-v"],
                "nodeSelector": {"kubernetes.io/os": "linux"},
                "list": [{"name": "a"}],
            })
        );
    }

    #[test]
    fn overrides_create_a_missing_spec() {
        let mut obj = cr(json!({}));
        apply_overrides(&mut obj, &overrides(&[("a.b", "0")])).unwrap();
        assert_eq!(spec_values(&obj).unwrap(), json!({"a": {"b": 0}}));
    }

    #[test]
    fn bad_override_keys_are_named() {
        let mut obj = cr(json!({"spec": {}}));
        let error = apply_overrides(&mut obj, &overrides(&[("a..b", "1")])).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid override \"a..b\": empty key segment"
        );
        let error = apply_overrides(&mut obj, &overrides(&[("a[x]", "1")])).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid override \"a[x]\": invalid list index [x]"
        );
        let error = apply_overrides(&mut obj, &overrides(&[("[0]", "1")])).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid override \"[0]\": list index without a key"
        );
    }

    #[test]
    fn spec_must_be_a_map() {
        assert_eq!(
            spec_values(&cr(json!({}))).unwrap_err().to_string(),
            "spec not found"
        );
        assert_eq!(
            spec_values(&cr(json!({"spec": [1]})))
                .unwrap_err()
                .to_string(),
            "spec must be a map"
        );
        assert_eq!(
            ensure_map(json!([1])).unwrap_err().to_string(),
            "value translator must return a map of values, got a list"
        );
        assert_eq!(ensure_map(Value::Null).unwrap(), json!({}));
    }
}
