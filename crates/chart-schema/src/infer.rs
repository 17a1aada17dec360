//! A structural schema inferred from default values: the type of each default, maps as
//! objects with their keys, and open (`x-kubernetes-preserve-unknown-fields`) wherever
//! the defaults leave the shape unknown (empty maps and lists, nulls, mixed lists).
use serde_json::{Map, Value, json};

/// The schema of a CRD `spec` holding `values`.
pub fn from_values(values: &Value) -> Value {
    match values {
        Value::Object(m) if !m.is_empty() => infer(values),
        _ => open_object(),
    }
}

fn open_object() -> Value {
    json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
}

/// Anything at all (no type is allowed only together with preserve-unknown-fields).
fn anything(nullable: bool) -> Value {
    let mut m = Map::new();
    if nullable {
        m.insert("nullable".into(), Value::Bool(true));
    }
    m.insert(
        "x-kubernetes-preserve-unknown-fields".into(),
        Value::Bool(true),
    );
    Value::Object(m)
}

pub(crate) fn infer(value: &Value) -> Value {
    match value {
        Value::Null => anything(true),
        Value::Bool(_) => json!({"type": "boolean"}),
        Value::Number(n) if n.is_i64() || n.is_u64() => json!({"type": "integer"}),
        Value::Number(_) => json!({"type": "number"}),
        Value::String(_) => json!({"type": "string"}),
        Value::Object(m) if m.is_empty() => open_object(),
        Value::Object(m) => {
            let props: Map<String, Value> = m.iter().map(|(k, v)| (k.clone(), infer(v))).collect();
            json!({"type": "object", "properties": props})
        }
        Value::Array(items) if items.is_empty() => {
            json!({"type": "array", "items": anything(false)})
        }
        Value::Array(items) => {
            let item = items
                .iter()
                .map(infer)
                .reduce(|a, b| merge(&a, &b))
                .unwrap_or_else(|| anything(false));
            json!({"type": "array", "items": item})
        }
    }
}

/// One schema that accepts what either accepts: same types merge (objects take the union
/// of their properties and stay open when the shapes differ), integer+number is number,
/// anything else is left open.
fn merge(a: &Value, b: &Value) -> Value {
    if a == b {
        return a.clone();
    }
    let (ta, tb) = (
        a.get("type").and_then(Value::as_str),
        b.get("type").and_then(Value::as_str),
    );
    match (ta, tb) {
        (Some("integer"), Some("number")) | (Some("number"), Some("integer")) => {
            json!({"type": "number"})
        }
        (Some("object"), Some("object")) => {
            let empty = Map::new();
            let pa = a
                .get("properties")
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            let pb = b
                .get("properties")
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            let mut props = pa.clone();
            let mut differ = pa.len() != pb.len() || pa.keys().any(|k| !pb.contains_key(k));
            for (k, v) in pb {
                let merged = match props.get(k) {
                    Some(existing) => merge(existing, v),
                    None => v.clone(),
                };
                if props.get(k).is_some_and(|e| e != &merged) {
                    differ = true;
                }
                props.insert(k.clone(), merged);
            }
            let open = differ
                || a.get("x-kubernetes-preserve-unknown-fields").is_some()
                || b.get("x-kubernetes-preserve-unknown-fields").is_some();
            let mut out = Map::new();
            out.insert("type".into(), json!("object"));
            if !props.is_empty() {
                out.insert("properties".into(), Value::Object(props));
            }
            if open {
                out.insert(
                    "x-kubernetes-preserve-unknown-fields".into(),
                    Value::Bool(true),
                );
            }
            Value::Object(out)
        }
        (Some("array"), Some("array")) => {
            let items = match (a.get("items"), b.get("items")) {
                (Some(x), Some(y)) => merge(x, y),
                _ => anything(false),
            };
            json!({"type": "array", "items": items})
        }
        _ => {
            let nullable = a.get("nullable").is_some() || b.get("nullable").is_some();
            anything(nullable)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_maps_and_lists_get_types_and_open_spots() {
        let values = json!({
            "replicaCount": 1, "ratio": 0.5, "name": "x", "on": true, "tag": null,
            "annotations": {}, "args": [], "ports": [80, 443],
            "hosts": [{"host": "a", "paths": ["/"]}, {"host": "b", "tls": true}]
        });
        let s = from_values(&values);
        assert_eq!(s["properties"]["replicaCount"], json!({"type": "integer"}));
        assert_eq!(s["properties"]["ratio"], json!({"type": "number"}));
        assert_eq!(
            s["properties"]["tag"],
            json!({"nullable": true, "x-kubernetes-preserve-unknown-fields": true})
        );
        assert_eq!(s["properties"]["annotations"], open_object());
        assert_eq!(
            s["properties"]["args"]["items"],
            json!({"x-kubernetes-preserve-unknown-fields": true})
        );
        assert_eq!(
            s["properties"]["ports"]["items"],
            json!({"type": "integer"})
        );
        let host = &s["properties"]["hosts"]["items"];
        assert_eq!(host["type"], "object");
        assert_eq!(host["x-kubernetes-preserve-unknown-fields"], true);
        assert_eq!(host["properties"]["tls"], json!({"type": "boolean"}));
        assert_eq!(
            host["properties"]["paths"]["items"],
            json!({"type": "string"})
        );
        assert!(
            s.get("default").is_none() && s["properties"]["replicaCount"].get("default").is_none()
        );
    }
}
