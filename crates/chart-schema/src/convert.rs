//! values.schema.json (JSON Schema) to a structural OpenAPI v3 schema a CRD accepts:
//! `$ref`s inlined, `type: [X, "null"]` as `nullable`, keywords the API server rejects
//! dropped, a type (or preserve-unknown-fields) on every node, never `properties` with
//! `additionalProperties`, and keys of values.yaml the schema does not name added from
//! the values so every value stays settable.
use serde_json::{Map, Value, json};

use super::infer;

/// Keywords copied as they are (OpenAPI v3 value validations the API server knows).
const KEPT: &[&str] = &[
    "description",
    "title",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "multipleOf",
];

const MAX_DEPTH: usize = 32;

pub fn to_structural(schema: &Value, values: &Value) -> Value {
    let mut out = convert(schema, schema, Some(values), 0);
    if out.get("type").is_none() && out.get("x-kubernetes-preserve-unknown-fields").is_none() {
        out["type"] = json!("object");
    }
    out
}

fn open() -> Value {
    json!({"x-kubernetes-preserve-unknown-fields": true})
}

fn resolve<'a>(root: &'a Value, node: &'a Value) -> &'a Value {
    let mut node = node;
    for _ in 0..MAX_DEPTH {
        match node
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
        {
            Some(pointer) => match root.pointer(pointer) {
                Some(target) => node = target,
                None => return node,
            },
            None => return node,
        }
    }
    node
}

fn convert(root: &Value, node: &Value, values: Option<&Value>, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return open();
    }
    let node = resolve(root, node);
    let Value::Object(s) = node else {
        // `true` or a missing schema: anything.
        return match values {
            Some(v) => infer::infer(v),
            None => open(),
        };
    };
    let mut out = Map::new();
    let mut nullable = s.get("nullable") == Some(&Value::Bool(true));
    let (props_src, mut type_src) = properties_and_type(root, s);
    // anyOf/oneOf: one type when all alternatives agree, else open.
    if type_src.is_none() {
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(alts)) = s.get(key) {
                let (agreed, has_null) = alternatives_type(root, alts);
                nullable |= has_null;
                match agreed {
                    Some(t) => type_src = Some(json!(t)),
                    None => return with_nullable(open(), nullable),
                }
            }
        }
    }
    let mut ty = match type_src {
        Some(Value::String(t)) => Some(t),
        Some(Value::Array(list)) => {
            let names: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
            nullable |= names.contains(&"null");
            let non_null: Vec<&str> = names.into_iter().filter(|t| *t != "null").collect();
            match non_null.as_slice() {
                [one] => Some(one.to_string()),
                [a, b]
                    if (*a == "integer" && *b == "string")
                        || (*a == "string" && *b == "integer") =>
                {
                    out.insert("x-kubernetes-int-or-string".into(), Value::Bool(true));
                    None
                }
                [] => None,
                _ => return with_nullable(open(), nullable),
            }
        }
        _ => None,
    };
    for key in KEPT {
        if let Some(v) = s.get(*key) {
            out.insert((*key).into(), v.clone());
        }
    }
    if let Some(Value::Array(options)) = s.get("enum") {
        nullable |= options.contains(&Value::Null);
        let kept: Vec<Value> = options.iter().filter(|o| !o.is_null()).cloned().collect();
        // An enum without a type gets the type its options share.
        let kinds: Vec<&str> = kept.iter().map(json_type).collect();
        if ty.is_none() && !kinds.is_empty() && kinds.iter().all(|k| *k == kinds[0]) {
            ty = Some(kinds[0].to_string());
        }
        if !kept.is_empty() {
            out.insert("enum".into(), Value::Array(kept));
        }
    }
    let is_object = ty.as_deref() == Some("object")
        || (ty.is_none() && (!props_src.is_empty() || s.contains_key("additionalProperties")));
    let is_array = ty.as_deref() == Some("array") || (ty.is_none() && s.contains_key("items"));
    if is_object {
        out.insert("type".into(), json!("object"));
        object_shape(root, s, &props_src, values, depth, &mut out);
    } else if is_array {
        out.insert("type".into(), json!("array"));
        let item_values = values.and_then(Value::as_array).and_then(|l| l.first());
        let items = match s.get("items") {
            Some(items @ Value::Object(_)) => convert(root, items, item_values, depth + 1),
            _ => item_values.map_or_else(open, infer::infer),
        };
        out.insert("items".into(), items);
    } else if let Some(t) = ty {
        out.insert("type".into(), json!(t));
    } else if !out.contains_key("x-kubernetes-int-or-string") {
        // No type at all: take it from the default value, or leave the node open.
        return with_nullable(values.map_or_else(open, infer::infer), nullable);
    }
    with_nullable(Value::Object(out), nullable)
}

/// The node's own properties with those its allOf members add, and its type (the first
/// member's when it has none).
fn properties_and_type(
    root: &Value,
    s: &Map<String, Value>,
) -> (Map<String, Value>, Option<Value>) {
    let mut props: Map<String, Value> = s
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut type_src = s.get("type").cloned();
    if let Some(Value::Array(all)) = s.get("allOf") {
        for member in all {
            let member = resolve(root, member);
            if let Some(p) = member.get("properties").and_then(Value::as_object) {
                for (k, v) in p {
                    props.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            if type_src.is_none() {
                type_src = member.get("type").cloned();
            }
        }
    }
    (props, type_src)
}

/// The one type every alternative of an anyOf/oneOf names (`null` aside), `None` when
/// they disagree or one names none; and whether `null` is among them.
fn alternatives_type<'a>(root: &'a Value, alts: &'a [Value]) -> (Option<&'a str>, bool) {
    let types: Vec<Option<&str>> = alts
        .iter()
        .map(|a| resolve(root, a).get("type").and_then(Value::as_str))
        .collect();
    let non_null: Vec<&str> = types
        .iter()
        .flatten()
        .copied()
        .filter(|t| *t != "null")
        .collect();
    let has_null = types.contains(&Some("null"));
    let agreed = (!non_null.is_empty()
        && non_null.iter().all(|t| *t == non_null[0])
        && types.iter().all(Option::is_some))
    .then(|| non_null[0]);
    (agreed, has_null)
}

fn object_shape(
    root: &Value,
    s: &Map<String, Value>,
    props_src: &Map<String, Value>,
    values: Option<&Value>,
    depth: usize,
    out: &mut Map<String, Value>,
) {
    let value_map = values.and_then(Value::as_object);
    let mut props = Map::new();
    for (key, sub) in props_src {
        props.insert(
            key.clone(),
            convert(root, sub, value_map.and_then(|m| m.get(key)), depth + 1),
        );
    }
    let additional = s.get("additionalProperties");
    if additional != Some(&Value::Bool(false)) {
        // Keys the chart's defaults have but the schema does not name stay settable.
        for (key, v) in value_map.into_iter().flatten() {
            if !props.contains_key(key) && additional.is_none_or(|a| !a.is_object()) {
                props.insert(key.clone(), infer::infer(v));
            }
        }
    }
    let has_pattern = s.contains_key("patternProperties");
    match additional {
        Some(extra @ Value::Object(_)) if props.is_empty() => {
            out.insert(
                "additionalProperties".into(),
                convert(root, extra, None, depth + 1),
            );
        }
        Some(Value::Object(_) | Value::Bool(true)) => {
            out.insert(
                "x-kubernetes-preserve-unknown-fields".into(),
                Value::Bool(true),
            );
        }
        _ if props.is_empty() || has_pattern => {
            out.insert(
                "x-kubernetes-preserve-unknown-fields".into(),
                Value::Bool(true),
            );
        }
        _ => {}
    }
    if !props.is_empty() {
        out.insert("properties".into(), Value::Object(props));
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn with_nullable(mut schema: Value, nullable: bool) -> Value {
    if nullable && let Value::Object(m) = &mut schema {
        m.insert("nullable".into(), Value::Bool(true));
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_schema_becomes_structural() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"port": {"type": "integer", "minimum": 1, "maximum": 65535}},
            "type": "object",
            "required": ["image"],
            "properties": {
                "port": {"$ref": "#/definitions/port"},
                "tag": {"type": ["string", "null"]},
                "mode": {"enum": ["a", "b", null]},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "extra": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": true},
                "size": {"type": ["integer", "string"]},
                "image": {"type": "object", "const": {"x": 1}, "properties": {"repo": {"type": "string"}}, "additionalProperties": false}
            }
        });
        let values = json!({"port": 80, "unlisted": {"k": "v"}, "image": {"repo": "nginx"}});
        let s = to_structural(&schema, &values);
        let p = &s["properties"];
        assert_eq!(
            p["port"],
            json!({"type": "integer", "minimum": 1, "maximum": 65535})
        );
        assert_eq!(p["tag"], json!({"type": "string", "nullable": true}));
        assert_eq!(
            p["mode"],
            json!({"enum": ["a", "b"], "type": "string", "nullable": true})
        );
        assert_eq!(
            p["labels"],
            json!({"type": "object", "additionalProperties": {"type": "string"}})
        );
        assert_eq!(p["extra"]["x-kubernetes-preserve-unknown-fields"], true);
        assert!(p["extra"].get("additionalProperties").is_none());
        assert_eq!(p["size"], json!({"x-kubernetes-int-or-string": true}));
        assert_eq!(
            p["unlisted"],
            json!({"type": "object", "properties": {"k": {"type": "string"}}})
        );
        assert!(
            s.get("$schema").is_none()
                && s.get("required").is_none()
                && p["image"].get("const").is_none()
        );
    }
}
