//! A small validator for the JSON-schema features charts and CRDs use: type, nullable,
//! enum, const, properties, required, additionalProperties, items, bounds, $ref and
//! allOf/anyOf/oneOf, plus `x-kubernetes-preserve-unknown-fields`.
use serde_json::Value;

/// Check `value` against a structural CRD schema. Unknown fields are errors here (the API
/// server would silently drop them), unless the node preserves unknown fields.
pub fn validate_against_schema(value: &Value, schema: &Value) -> Result<(), Vec<String>> {
    run(value, schema, true)
}

/// Check `value` against a values.schema.json (unknown fields allowed unless
/// `additionalProperties: false`).
pub(crate) fn validate_json_schema(value: &Value, schema: &Value) -> Result<(), Vec<String>> {
    run(value, schema, false)
}

fn run(value: &Value, schema: &Value, structural: bool) -> Result<(), Vec<String>> {
    let mut v = Validator {
        root: schema,
        structural,
        errors: Vec::new(),
        depth: 0,
    };
    v.check(value, schema, "");
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(v.errors)
    }
}

struct Validator<'a> {
    root: &'a Value,
    structural: bool,
    errors: Vec<String>,
    depth: usize,
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n)
            if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) =>
        {
            "integer"
        }
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The kind named in messages ("number" for every number, as Helm's validator says).
fn got_kind(v: &Value) -> &'static str {
    match kind(v) {
        "integer" => "number",
        other => other,
    }
}

/// A value as Helm's validator quotes it: strings in single quotes, the rest as JSON.
fn quoted(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{s}'"),
        other => other.to_string(),
    }
}

fn type_matches(want: &str, v: &Value) -> bool {
    let got = kind(v);
    got == want || (want == "number" && got == "integer")
}

impl<'a> Validator<'a> {
    fn resolve(&self, reference: &str) -> Option<&'a Value> {
        let pointer = reference.strip_prefix('#')?;
        self.root.pointer(pointer)
    }

    fn check(&mut self, value: &Value, schema: &'a Value, path: &str) {
        let Value::Object(s) = schema else {
            if schema == &Value::Bool(false) {
                self.errors.push(format!("at '{path}': not allowed"));
            }
            return;
        };
        self.depth += 1;
        if self.depth > 64 {
            self.depth -= 1;
            return;
        }
        if let Some(target) = s
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| self.resolve(r))
        {
            self.check(value, target, path);
        }
        let nullable = s.get("nullable") == Some(&Value::Bool(true));
        if value.is_null() && nullable {
            self.depth -= 1;
            return;
        }
        if let Some(t) = s.get("type") {
            let wanted: Vec<&str> = match t {
                Value::String(one) => vec![one.as_str()],
                Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
                _ => vec![],
            };
            if !wanted.is_empty() && !wanted.iter().any(|w| type_matches(w, value)) {
                self.errors.push(format!(
                    "at '{path}': got {}, want {}",
                    got_kind(value),
                    wanted.join(" or ")
                ));
                self.depth -= 1;
                return;
            }
        }
        self.check_values(value, s, path);
        self.check_object(value, s, path);
        if let (Value::Array(items), Some(item_schema)) = (value, s.get("items")) {
            for (i, item) in items.iter().enumerate() {
                self.check(item, item_schema, &format!("{path}/{i}"));
            }
        }
        self.check_combinators(value, s, path);
        self.depth -= 1;
    }

    fn check_values(&mut self, value: &Value, s: &serde_json::Map<String, Value>, path: &str) {
        if let Some(Value::Array(options)) = s.get("enum")
            && !options.contains(value)
        {
            let options: Vec<String> = options.iter().map(quoted).collect();
            self.errors.push(format!(
                "at '{path}': value must be one of {}",
                options.join(", ")
            ));
        }
        if let Some(c) = s.get("const")
            && c != value
        {
            self.errors
                .push(format!("at '{path}': value must be {}", quoted(c)));
        }
        if let Some(n) = value.as_f64() {
            if let Some(min) = s.get("minimum").and_then(Value::as_f64)
                && n < min
            {
                self.errors
                    .push(format!("at '{path}': minimum: got {n}, want {min}"));
            }
            if let Some(max) = s.get("maximum").and_then(Value::as_f64)
                && n > max
            {
                self.errors
                    .push(format!("at '{path}': maximum: got {n}, want {max}"));
            }
        }
        if let Some(text) = value.as_str() {
            let len = text.chars().count() as u64;
            self.bound(path, "minLength", len, s.get("minLength"), |n, m| n < m);
            self.bound(path, "maxLength", len, s.get("maxLength"), |n, m| n > m);
        }
        if let Some(items) = value.as_array() {
            let len = items.len() as u64;
            self.bound(path, "minItems", len, s.get("minItems"), |n, m| n < m);
            self.bound(path, "maxItems", len, s.get("maxItems"), |n, m| n > m);
        }
    }

    fn bound(
        &mut self,
        path: &str,
        keyword: &str,
        got: u64,
        limit: Option<&Value>,
        violated: fn(u64, u64) -> bool,
    ) {
        if let Some(want) = limit.and_then(Value::as_u64)
            && violated(got, want)
        {
            self.errors
                .push(format!("at '{path}': {keyword}: got {got}, want {want}"));
        }
    }

    fn check_object(&mut self, value: &Value, s: &'a serde_json::Map<String, Value>, path: &str) {
        let Value::Object(map) = value else {
            return;
        };
        if let Some(Value::Array(required)) = s.get("required") {
            for key in required.iter().filter_map(Value::as_str) {
                if !map.contains_key(key) {
                    self.errors
                        .push(format!("at '{path}': missing property '{key}'"));
                }
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        let preserve = s.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
        let mut not_allowed = Vec::new();
        for (key, item) in map {
            let item_path = format!("{path}/{key}");
            if let Some(prop) = props.and_then(|p| p.get(key)) {
                self.check(item, prop, &item_path);
                continue;
            }
            match s.get("additionalProperties") {
                Some(Value::Bool(false)) => not_allowed.push(format!("'{key}'")),
                Some(extra @ Value::Object(_)) => self.check(item, extra, &item_path),
                _ if self.structural && !preserve => {
                    self.errors.push(format!(
                        "at '{path}': unknown field '{key}' would be pruned"
                    ));
                }
                _ => {}
            }
        }
        if !not_allowed.is_empty() {
            let names = not_allowed.join(", ");
            self.errors.push(format!(
                "at '{path}': additional properties {names} not allowed"
            ));
        }
    }

    fn check_combinators(
        &mut self,
        value: &Value,
        s: &'a serde_json::Map<String, Value>,
        path: &str,
    ) {
        if let Some(Value::Array(all)) = s.get("allOf") {
            for sub in all {
                self.check(value, sub, path);
            }
        }
        for (key, exactly_one) in [("anyOf", false), ("oneOf", true)] {
            if let Some(Value::Array(options)) = s.get(key) {
                let passing = options
                    .iter()
                    .filter(|o| run(value, &with_root(o, self.root), self.structural).is_ok())
                    .count();
                let ok = if exactly_one {
                    passing == 1
                } else {
                    passing >= 1
                };
                if !ok {
                    self.errors.push(format!(
                        "at '{path}': {key} failed ({passing} of {} schemas match)",
                        options.len()
                    ));
                }
            }
        }
    }
}

/// A sub-schema that can still resolve `$ref`s into the root document.
fn with_root(sub: &Value, root: &Value) -> Value {
    let mut copy = sub.clone();
    if let (Value::Object(m), Value::Object(r)) = (&mut copy, root) {
        for key in ["definitions", "$defs"] {
            if let Some(defs) = r.get(key) {
                m.entry(key.to_string()).or_insert_with(|| defs.clone());
            }
        }
    }
    copy
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Messages as Helm 4.2's validator words them (checked with the real engine).
    #[test]
    fn violations_read_like_helms() {
        let schema = json!({"type": "object", "required": ["must"], "additionalProperties": false,
            "properties": {"e": {"enum": ["a", "b"]}, "n": {"type": "integer", "minimum": 3},
                "s": {"type": "string", "maxLength": 3}, "l": {"type": "array", "minItems": 2, "items": {"type": "string"}},
                "c": {"const": "k"}, "o": {"type": "object", "properties": {"i": {"type": "boolean"}}}}});
        let value = json!({"e": "z", "n": 1, "s": "abcd", "l": [1], "c": "q", "o": {"i": "no"}, "bogus": 1});
        let errors = validate_json_schema(&value, &schema).unwrap_err();
        for wanted in [
            "at '': missing property 'must'",
            "at '/e': value must be one of 'a', 'b'",
            "at '/n': minimum: got 1, want 3",
            "at '/s': maxLength: got 4, want 3",
            "at '/l': minItems: got 1, want 2",
            "at '/l/0': got number, want string",
            "at '/c': value must be 'k'",
            "at '/o/i': got string, want boolean",
            "at '': additional properties 'bogus' not allowed",
        ] {
            assert!(
                errors.iter().any(|e| e == wanted),
                "missing {wanted:?} in {errors:?}"
            );
        }
        assert_eq!(errors.len(), 9);
    }

    #[test]
    fn structural_validation_flags_fields_that_would_be_pruned() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "integer"},
            "open": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "maybe": {"type": "string", "nullable": true}}});
        assert!(
            validate_against_schema(&json!({"a": 1, "open": {"x": [1]}, "maybe": null}), &schema)
                .is_ok()
        );
        let errors = validate_against_schema(&json!({"zzz": 1}), &schema).unwrap_err();
        assert_eq!(errors, ["at '': unknown field 'zzz' would be pruned"]);
    }
}
