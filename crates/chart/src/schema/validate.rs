//! A validator for the JSON-schema keywords charts and CRDs use, checking in the order
//! and wording Helm's validator (santhosh-tekuri/jsonschema v6) reports: type, const,
//! enum, $ref, object keywords (min/maxProperties, required, dependencies, properties,
//! patternProperties, additionalProperties, propertyNames, dependentRequired and
//! dependentSchemas), array keywords (min/maxItems, uniqueItems, items in both the
//! tuple and the 2020-12 `prefixItems` forms, additionalItems, contains), string
//! keywords (min/maxLength, pattern), number bounds and multipleOf, then not, allOf,
//! anyOf, oneOf and if/then/else; plus `nullable` and `x-kubernetes-preserve-unknown-fields`
//! for structural CRD schemas. Errors nest as Helm prints them: a failed combinator
//! lists its subschemas' errors indented under it.
use serde_json::{Map, Value};

/// Check `value` against a structural CRD schema. Unknown fields are errors here (the API
/// server would silently drop them), unless the node preserves unknown fields.
pub fn validate_against_schema(value: &Value, schema: &Value) -> Result<(), Vec<String>> {
    run(value, schema, true)
}

/// Check `value` against a values.schema.json (unknown fields allowed unless
/// `additionalProperties: false`).
pub(crate) fn validate_json_schema(value: &Value, schema: &Value) -> Result<(), Vec<String>> {
    if let Some(url) = remote_reference(schema) {
        // Helm's validator loads every document a reachable `$ref` names before it
        // validates; the chart engine has no network, so a remote schema fails to load,
        // as it does for Helm run offline.
        return Err(vec![format!(
            "failing loading \"{url}\": remote schemas are not fetched"
        )]);
    }
    run(value, schema, false)
}

/// Where Helm's validator places the root schema: its `$id`, or this file URL.
const SCHEMA_URL: &str = "file:///values.schema.json";

fn base_url(root: &Value) -> Option<url::Url> {
    let id = root
        .get("$id")
        .and_then(Value::as_str)
        .unwrap_or(SCHEMA_URL);
    url::Url::parse(id).ok()
}

/// The JSON pointer a `$ref` names inside the root document (`#/a/b`, or the root's own
/// URL with that fragment), or `Err` with the absolute URL of another document.
fn local_pointer(root: &Value, reference: &str) -> Result<String, String> {
    if let Some(fragment) = reference.strip_prefix('#') {
        return Ok(fragment.to_string());
    }
    let Some(base) = base_url(root) else {
        return Err(reference.to_string());
    };
    let Ok(mut target) = base.join(reference) else {
        return Err(reference.to_string());
    };
    let fragment = target.fragment().unwrap_or("").to_string();
    target.set_fragment(None);
    let mut own = base;
    own.set_fragment(None);
    if target == own {
        Ok(fragment)
    } else {
        Err(target.to_string())
    }
}

/// The first document other than the root that a `$ref` reachable from the root (through
/// schema keywords and the local `$ref`s themselves, as Helm's validator compiles them)
/// names. Schemas only under `definitions` and never referenced are not reached.
fn remote_reference(root: &Value) -> Option<String> {
    let mut seen: Vec<*const Value> = Vec::new();
    let mut todo: Vec<&Value> = vec![root];
    while let Some(schema) = todo.pop() {
        let Value::Object(m) = schema else { continue };
        if seen.contains(&(schema as *const Value)) || seen.len() > 100_000 {
            continue;
        }
        seen.push(schema);
        if let Some(Value::String(r)) = m.get("$ref") {
            match local_pointer(root, r) {
                Ok(pointer) => todo.extend(root.pointer(&pointer.replace("%25", "%"))),
                Err(url) => return Some(url),
            }
        }
        for (key, sub) in m {
            match (key.as_str(), sub) {
                (
                    "properties" | "patternProperties" | "dependentSchemas" | "dependencies",
                    Value::Object(subs),
                ) => todo.extend(subs.values()),
                ("allOf" | "anyOf" | "oneOf" | "prefixItems" | "items", Value::Array(subs)) => {
                    todo.extend(subs)
                }
                (
                    "additionalProperties"
                    | "items"
                    | "additionalItems"
                    | "contains"
                    | "propertyNames"
                    | "not"
                    | "if"
                    | "then"
                    | "else"
                    | "unevaluatedProperties"
                    | "unevaluatedItems",
                    Value::Object(_),
                ) => todo.push(sub),
                _ => {}
            }
        }
    }
    None
}

fn run(value: &Value, schema: &Value, structural: bool) -> Result<(), Vec<String>> {
    let v = Validator {
        root: schema,
        structural,
        draft: draft_of(schema),
        depth: 0,
    };
    match v.check(value, schema, &mut Vec::new()) {
        None => Ok(()),
        Some(e) if e.group => Err(e.causes.iter().map(Failure::render).collect()),
        Some(e) => Err(vec![e.render()]),
    }
}

/// The schema draft as a year-like number (4, 6, 7, 2019, 2020), from `$schema`;
/// 2020-12 when absent or unknown, as in Helm's validator.
fn draft_of(schema: &Value) -> u32 {
    let url = schema.get("$schema").and_then(Value::as_str).unwrap_or("");
    if url.contains("draft-04") {
        4
    } else if url.contains("draft-06") {
        6
    } else if url.contains("draft-07") {
        7
    } else if url.contains("2019-09") {
        2019
    } else {
        2020
    }
}

/// One error: where, what, and the errors under it.
struct Failure {
    at: String,
    message: String,
    causes: Vec<Failure>,
    /// Several errors of one schema together ("validation failed").
    group: bool,
}

impl Failure {
    fn new(path: &[String], message: impl Into<String>) -> Failure {
        Failure {
            at: pointer(path),
            message: message.into(),
            causes: Vec::new(),
            group: false,
        }
    }

    fn with_causes(mut self, causes: Vec<Failure>) -> Failure {
        self.causes = causes;
        self
    }

    /// `at '<path>': <message>` with the causes below it, each indented one step more.
    fn render(&self) -> String {
        let mut out = format!("at {}: {}", quote(&self.at), self.message);
        for cause in &self.causes {
            for (i, line) in cause.render().lines().enumerate() {
                out.push_str("\n  ");
                if i == 0 {
                    out.push_str("- ");
                }
                out.push_str(line);
            }
        }
        out
    }
}

/// A JSON pointer: `/a/b`, with `~` and `/` escaped.
fn pointer(path: &[String]) -> String {
    path.iter()
        .map(|p| format!("/{}", p.replace('~', "~0").replace('/', "~1")))
        .collect()
}

/// A string as Helm's validator quotes it: Go's `%q`, with `"` left bare and `'`
/// escaped, in single quotes.
fn quote(s: &str) -> String {
    let go = gotemplate::fmt::quote(s);
    let inner = &go[1..go.len() - 1];
    format!("'{}'", inner.replace("\\\"", "\"").replace('\'', "\\'"))
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

/// A value in a message: strings quoted, lists and maps as "value", the rest as JSON.
fn display(v: &Value) -> String {
    match v {
        Value::String(s) => quote(s),
        Value::Array(_) | Value::Object(_) => "value".into(),
        other => other.to_string(),
    }
}

fn number(v: &Value) -> String {
    v.to_string()
}

fn type_matches(want: &str, v: &Value) -> bool {
    let got = kind(v);
    got == want || (want == "number" && got == "integer")
}

/// JSON equality with numbers compared by value (1 equals 1.0).
fn equals(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| equals(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| equals(v, w)))
        }
        _ => a == b,
    }
}

/// A schema `pattern` as a regex (Go's RE2 syntax), or None when it does not compile.
fn regex(pattern: &str) -> Option<regex::Regex> {
    crate::sprig::re2::translate(pattern)
        .ok()
        .and_then(|p| regex::Regex::new(&p).ok())
}

/// `n` is a whole multiple of `m` (exactly for integers, to float precision otherwise).
fn is_multiple(n: &Value, m: &Value) -> bool {
    if let (Some(a), Some(b)) = (n.as_i64(), m.as_i64()) {
        return b == 0 || a % b == 0;
    }
    match (n.as_f64(), m.as_f64()) {
        (Some(a), Some(b)) if b != 0.0 => {
            let q = a / b;
            (q - q.round()).abs() <= 1e-9 * q.abs().max(1.0)
        }
        _ => true,
    }
}

struct Validator<'a> {
    root: &'a Value,
    structural: bool,
    draft: u32,
    depth: usize,
}

type Obj = Map<String, Value>;

impl<'a> Validator<'a> {
    fn resolve(&self, reference: &str) -> Option<&'a Value> {
        let pointer = local_pointer(self.root, reference).ok()?;
        let decoded = pointer.replace("%25", "%");
        self.root.pointer(&decoded)
    }

    /// The errors of `value` against `schema` at `path`: None when it is valid, one
    /// error, or a group of several.
    fn check(&self, value: &Value, schema: &'a Value, path: &mut Vec<String>) -> Option<Failure> {
        let s = match schema {
            Value::Bool(false) => return Some(Failure::new(path, "false schema")),
            Value::Object(s) => s,
            _ => return None,
        };
        if self.depth > 64 {
            return None;
        }
        let deeper = Validator {
            depth: self.depth + 1,
            ..*self
        };
        deeper.check_object_schema(value, s, path)
    }

    fn check_object_schema(
        &self,
        value: &Value,
        s: &'a Obj,
        path: &mut Vec<String>,
    ) -> Option<Failure> {
        if self.structural && value.is_null() && s.get("nullable") == Some(&Value::Bool(true)) {
            return None;
        }
        if let Some(t) = s.get("type") {
            let wanted: Vec<&str> = match t {
                Value::String(one) => vec![one.as_str()],
                Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
                _ => vec![],
            };
            if !wanted.is_empty() && !wanted.iter().any(|w| type_matches(w, value)) {
                // Helm's validator names the wanted types in its own fixed order.
                const ORDER: [&str; 7] = [
                    "null", "boolean", "number", "integer", "string", "array", "object",
                ];
                let names: Vec<&str> = ORDER.into_iter().filter(|k| wanted.contains(k)).collect();
                return Some(Failure::new(
                    path,
                    format!("got {}, want {}", got_kind(value), names.join(" or ")),
                ));
            }
        }
        if let Some(c) = s.get("const")
            && !equals(c, value)
        {
            let message = match c {
                Value::Array(_) | Value::Object(_) => "'const' failed".to_string(),
                other => format!("value must be {}", display(other)),
            };
            return Some(Failure::new(path, message));
        }
        if let Some(Value::Array(options)) = s.get("enum")
            && !options.iter().any(|o| equals(o, value))
        {
            let message = if options.iter().any(|o| o.is_array() || o.is_object()) {
                "'enum' failed".to_string()
            } else if options.len() == 1 {
                format!("value must be {}", display(&options[0]))
            } else {
                let all: Vec<String> = options.iter().map(display).collect();
                format!("value must be one of {}", all.join(", "))
            };
            return Some(Failure::new(path, message));
        }
        let mut errors = Vec::new();
        if let Some(target) = s
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| self.resolve(r))
        {
            let failure = self.check(value, target, path);
            if self.draft < 2019 {
                // Before 2019-09, `$ref` replaces every keyword beside it.
                return failure;
            }
            errors.extend(failure);
        }
        match value {
            Value::Object(map) => self.check_object(map, s, path, &mut errors),
            Value::Array(items) => self.check_array(items, s, path, &mut errors),
            Value::String(text) => self.check_string(text, s, path, &mut errors),
            Value::Number(_) => self.check_number(value, s, path, &mut errors),
            _ => {}
        }
        self.check_combinators(value, s, path, &mut errors);
        match errors.len() {
            0 => None,
            1 => errors.pop(),
            _ => Some(Failure {
                group: true,
                ..Failure::new(path, "validation failed").with_causes(errors)
            }),
        }
    }

    /// `value` against a subschema at a deeper path.
    fn check_at(
        &self,
        value: &Value,
        schema: &'a Value,
        path: &mut Vec<String>,
        key: &str,
    ) -> Option<Failure> {
        path.push(key.to_string());
        let failure = self.check(value, schema, path);
        path.pop();
        failure
    }

    /// `min<what>` and `max<what>` (Properties, Items, Length) against a count.
    fn bounds(&self, path: &[String], what: &str, got: usize, s: &Obj, errors: &mut Vec<Failure>) {
        let limit = |keyword: &str| s.get(keyword).and_then(Value::as_u64);
        let got64 = got as u64;
        for (keyword, violated) in [
            (
                format!("min{what}"),
                limit(&format!("min{what}")).filter(|&m| got64 < m),
            ),
            (
                format!("max{what}"),
                limit(&format!("max{what}")).filter(|&m| got64 > m),
            ),
        ] {
            if let Some(want) = violated {
                errors.push(Failure::new(
                    path,
                    format!("{keyword}: got {got}, want {want}"),
                ));
            }
        }
    }

    fn check_object(
        &self,
        map: &Obj,
        s: &'a Obj,
        path: &mut Vec<String>,
        errors: &mut Vec<Failure>,
    ) {
        self.bounds(path, "Properties", map.len(), s, errors);
        let missing_of = |names: &Value| -> Vec<String> {
            names
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter(|k| !map.contains_key(*k))
                .map(quote)
                .collect()
        };
        if let Some(required) = s.get("required") {
            let missing = missing_of(required);
            match missing.len() {
                0 => {}
                1 => errors.push(Failure::new(
                    path,
                    format!("missing property {}", missing[0]),
                )),
                _ => errors.push(Failure::new(
                    path,
                    format!("missing properties {}", missing.join(", ")),
                )),
            }
        }
        if let Some(Value::Object(deps)) = s.get("dependencies") {
            for (key, d) in deps {
                self.dependent(map, key, d, path, errors);
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        let patterns: Vec<(regex::Regex, &'a Value)> = s
            .get("patternProperties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(p, sch)| regex(p).map(|re| (re, sch)))
            .collect();
        let preserve = s.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
        let mut not_allowed = Vec::new();
        for (key, item) in map {
            let mut evaluated = false;
            if let Some(prop) = props.and_then(|p| p.get(key)) {
                evaluated = true;
                errors.extend(self.check_at(item, prop, path, key));
            }
            for (re, sch) in &patterns {
                if re.is_match(key) {
                    evaluated = true;
                    errors.extend(self.check_at(item, sch, path, key));
                }
            }
            if evaluated {
                continue;
            }
            match s.get("additionalProperties") {
                Some(Value::Bool(false)) => not_allowed.push(key.as_str()),
                Some(extra @ Value::Object(_)) => {
                    errors.extend(self.check_at(item, extra, path, key))
                }
                None if self.structural && !preserve => {
                    errors.push(Failure::new(
                        path,
                        format!("unknown field '{key}' would be pruned"),
                    ));
                }
                _ => {}
            }
        }
        if !not_allowed.is_empty() {
            // Helm's validator lists them in map order, which for these is sorted.
            not_allowed.sort_unstable();
            let names: Vec<String> = not_allowed.into_iter().map(quote).collect();
            errors.push(Failure::new(
                path,
                format!("additional properties {} not allowed", names.join(", ")),
            ));
        }
        if self.draft == 4 {
            return;
        }
        if let Some(names) = s.get("propertyNames") {
            for key in map.keys() {
                if let Some(e) = self.check(&Value::String(key.clone()), names, &mut Vec::new()) {
                    let causes = if e.group { e.causes } else { vec![e] };
                    let causes = causes
                        .into_iter()
                        .map(|c| Failure {
                            at: pointer(path),
                            ..c
                        })
                        .collect();
                    errors.push(
                        Failure::new(path, format!("invalid propertyName {}", quote(key)))
                            .with_causes(causes),
                    );
                }
            }
        }
        if self.draft == 6 {
            return;
        }
        if let Some(Value::Object(deps)) = s.get("dependentSchemas") {
            for (key, d) in deps {
                self.dependent(map, key, d, path, errors);
            }
        }
        if let Some(Value::Object(deps)) = s.get("dependentRequired") {
            for (key, d) in deps {
                if d.is_array() {
                    self.dependent(map, key, d, path, errors);
                }
            }
        }
    }

    /// `dependencies`, `dependentRequired` and `dependentSchemas` for one key: when the
    /// object has `key`, the names it then needs or the schema it must then meet.
    fn dependent(
        &self,
        map: &Obj,
        key: &str,
        deps: &'a Value,
        path: &mut Vec<String>,
        errors: &mut Vec<Failure>,
    ) {
        if !map.contains_key(key) {
            return;
        }
        if let Value::Array(names) = deps {
            let missing: Vec<String> = names
                .iter()
                .filter_map(Value::as_str)
                .filter(|k| !map.contains_key(*k))
                .map(quote)
                .collect();
            if !missing.is_empty() {
                errors.push(Failure::new(
                    path,
                    format!(
                        "properties {} required, if {} exists",
                        missing.join(", "),
                        quote(key)
                    ),
                ));
            }
        } else if let Some(e) = self.check(&Value::Object(map.clone()), deps, path) {
            errors.push(e);
        }
    }

    fn check_array(
        &self,
        items: &[Value],
        s: &'a Obj,
        path: &mut Vec<String>,
        errors: &mut Vec<Failure>,
    ) {
        self.bounds(path, "Items", items.len(), s, errors);
        if s.get("uniqueItems") == Some(&Value::Bool(true)) {
            'outer: for i in 0..items.len() {
                for j in i + 1..items.len() {
                    if equals(&items[i], &items[j]) {
                        errors.push(Failure::new(
                            path,
                            format!("items at {i} and {j} are equal"),
                        ));
                        break 'outer;
                    }
                }
            }
        }
        // Items past the evaluated ones are numbered from 0 again, as in Helm's
        // validator.
        let rest =
            |from: usize, sch: &'a Value, path: &mut Vec<String>, errors: &mut Vec<Failure>| {
                for (i, item) in items.iter().skip(from).enumerate() {
                    errors.extend(self.check_at(item, sch, path, &i.to_string()));
                }
            };
        if self.draft < 2020 {
            let evaluated = match s.get("items") {
                Some(Value::Array(tuple)) => {
                    for (i, (item, sch)) in items.iter().zip(tuple).enumerate() {
                        errors.extend(self.check_at(item, sch, path, &i.to_string()));
                    }
                    tuple.len().min(items.len())
                }
                Some(sch) => {
                    rest(0, sch, path, errors);
                    items.len()
                }
                None => 0,
            };
            match s.get("additionalItems") {
                Some(Value::Bool(false)) if evaluated != items.len() => errors.push(Failure::new(
                    path,
                    format!(
                        "last {} additionalItem(s) not allowed",
                        items.len() - evaluated
                    ),
                )),
                Some(sch @ Value::Object(_)) => rest(evaluated, sch, path, errors),
                _ => {}
            }
        } else {
            let prefix = s.get("prefixItems").and_then(Value::as_array);
            let evaluated = prefix.map_or(0, |p| p.len().min(items.len()));
            for (i, (item, sch)) in items.iter().zip(prefix.into_iter().flatten()).enumerate() {
                errors.extend(self.check_at(item, sch, path, &i.to_string()));
            }
            if let Some(sch) = s.get("items") {
                rest(evaluated, sch, path, errors);
            }
        }
        if let Some(contains) = s.get("contains") {
            let mut failures = Vec::new();
            let mut matched = 0;
            for (i, item) in items.iter().enumerate() {
                match self.check_at(item, contains, path, &i.to_string()) {
                    Some(e) => failures.push(e),
                    None => matched += 1,
                }
            }
            if matched == 0 && s.get("minContains").is_none() {
                errors.push(
                    Failure::new(path, "no items match contains schema").with_causes(failures),
                );
            }
        }
    }

    fn check_string(&self, text: &str, s: &'a Obj, path: &[String], errors: &mut Vec<Failure>) {
        let len = text.chars().count();
        self.bounds(path, "Length", len, s, errors);
        if let Some(pattern) = s.get("pattern").and_then(Value::as_str)
            && let Some(re) = regex(pattern)
            && !re.is_match(text)
        {
            errors.push(Failure::new(
                path,
                format!("{} does not match pattern {}", quote(text), quote(pattern)),
            ));
        }
    }

    fn check_number(&self, value: &Value, s: &'a Obj, path: &[String], errors: &mut Vec<Failure>) {
        let Some(n) = value.as_f64() else { return };
        let got = number(value);
        // Draft 4 spells exclusive bounds as booleans beside minimum and maximum.
        let exclusive = |key: &str| s.get(key) == Some(&Value::Bool(true));
        if let Some(min) = s.get("minimum").filter(|m| m.is_number()) {
            let m = min.as_f64().unwrap_or(f64::NAN);
            if exclusive("exclusiveMinimum") && n <= m {
                errors.push(Failure::new(
                    path,
                    format!("exclusiveMinimum: got {got}, want {}", number(min)),
                ));
            } else if n < m {
                errors.push(Failure::new(
                    path,
                    format!("minimum: got {got}, want {}", number(min)),
                ));
            }
        }
        if let Some(max) = s.get("maximum").filter(|m| m.is_number()) {
            let m = max.as_f64().unwrap_or(f64::NAN);
            if exclusive("exclusiveMaximum") && n >= m {
                errors.push(Failure::new(
                    path,
                    format!("exclusiveMaximum: got {got}, want {}", number(max)),
                ));
            } else if n > m {
                errors.push(Failure::new(
                    path,
                    format!("maximum: got {got}, want {}", number(max)),
                ));
            }
        }
        if let Some(min) = s.get("exclusiveMinimum").filter(|m| m.is_number())
            && n <= min.as_f64().unwrap_or(f64::NAN)
        {
            errors.push(Failure::new(
                path,
                format!("exclusiveMinimum: got {got}, want {}", number(min)),
            ));
        }
        if let Some(max) = s.get("exclusiveMaximum").filter(|m| m.is_number())
            && n >= max.as_f64().unwrap_or(f64::NAN)
        {
            errors.push(Failure::new(
                path,
                format!("exclusiveMaximum: got {got}, want {}", number(max)),
            ));
        }
        if let Some(m) = s.get("multipleOf").filter(|m| m.is_number())
            && !is_multiple(value, m)
        {
            errors.push(Failure::new(
                path,
                format!("multipleOf: got {got}, want {}", number(m)),
            ));
        }
    }

    fn check_combinators(
        &self,
        value: &Value,
        s: &'a Obj,
        path: &mut Vec<String>,
        errors: &mut Vec<Failure>,
    ) {
        if let Some(not) = s.get("not")
            && self.check(value, not, path).is_none()
        {
            errors.push(Failure::new(path, "'not' failed"));
        }
        if let Some(Value::Array(all)) = s.get("allOf") {
            let failures: Vec<Failure> = all
                .iter()
                .filter_map(|sub| self.check(value, sub, path))
                .collect();
            if !failures.is_empty() {
                errors.push(Failure::new(path, "'allOf' failed").with_causes(failures));
            }
        }
        if let Some(Value::Array(any)) = s.get("anyOf") {
            let mut failures = Vec::new();
            let matched = any.iter().any(|sub| match self.check(value, sub, path) {
                Some(e) => {
                    failures.push(e);
                    false
                }
                None => true,
            });
            if !matched {
                errors.push(Failure::new(path, "'anyOf' failed").with_causes(failures));
            }
        }
        if let Some(Value::Array(one)) = s.get("oneOf") {
            let mut failures = Vec::new();
            let mut matched: Option<usize> = None;
            for (i, sub) in one.iter().enumerate() {
                match (self.check(value, sub, path), matched) {
                    (Some(e), None) => failures.push(e),
                    (Some(_), Some(_)) => {}
                    (None, None) => matched = Some(i),
                    (None, Some(first)) => {
                        errors.push(Failure::new(
                            path,
                            format!("'oneOf' failed, subschemas {first}, {i} matched"),
                        ));
                        break;
                    }
                }
            }
            if matched.is_none() {
                errors
                    .push(Failure::new(path, "'oneOf' failed, none matched").with_causes(failures));
            }
        }
        if let Some(cond) = s.get("if") {
            let branch = if self.check(value, cond, path).is_none() {
                s.get("then")
            } else {
                s.get("else")
            };
            if let Some(b) = branch {
                errors.extend(self.check(value, b, path));
            }
        }
    }
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
            // Two errors of one schema nest under it.
            "at '/l': validation failed\n  - at '/l': minItems: got 1, want 2\n  - at '/l/0': got number, want string",
            "at '/c': value must be 'k'",
            "at '/o/i': got string, want boolean",
            "at '': additional properties 'bogus' not allowed",
        ] {
            assert!(
                errors.iter().any(|e| e == wanted),
                "missing {wanted:?} in {errors:?}"
            );
        }
        assert_eq!(errors.len(), 8);
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

    /// Keywords past the basic ones, worded and nested as Helm 4.2 prints them
    /// (each checked with the real engine; the differential table holds them too).
    #[test]
    fn further_keywords_read_like_helms() {
        let one = |schema: Value, value: Value| {
            validate_json_schema(&value, &schema)
                .unwrap_err()
                .join("\n")
        };
        assert_eq!(
            one(
                json!({"properties": {"s": {"pattern": "^[a-z]+$"}}}),
                json!({"s": "ABC"})
            ),
            "at '/s': 'ABC' does not match pattern '^[a-z]+$'"
        );
        // Go's RE2 syntax: `-` and an escaped `.` inside a class.
        let schema = json!({"properties": {"s": {"pattern": "^[\\w-\\.]+$"}}});
        assert!(validate_json_schema(&json!({"s": "a-b.c"}), &schema).is_ok());
        let schema = json!({"patternProperties": {"^x-": {"type": "string"}},
            "additionalProperties": false});
        assert!(validate_json_schema(&json!({"x-a": "s"}), &schema).is_ok());
        assert_eq!(
            one(schema, json!({"x-a": 1})),
            "at '/x-a': got number, want string"
        );
        assert_eq!(
            one(
                json!({"propertyNames": {"pattern": "^[a-z]+$"}}),
                json!({"A": 1})
            ),
            "at '': invalid propertyName 'A'\n  - at '': 'A' does not match pattern '^[a-z]+$'"
        );
        assert_eq!(
            one(
                json!({"properties": {"p": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}),
                json!({"p": true})
            ),
            "at '/p': 'oneOf' failed, none matched\n  - at '/p': got boolean, want string\n  - at '/p': got boolean, want integer"
        );
        assert_eq!(
            one(
                json!({"if": {"properties": {"a": {"const": true}}}, "then": {"required": ["b"]}}),
                json!({"a": true})
            ),
            "at '': missing property 'b'"
        );
        assert_eq!(
            one(
                json!({"properties": {"l": {"uniqueItems": true}}}),
                json!({"l": [1, 2, 1.0]})
            ),
            "at '/l': items at 0 and 2 are equal"
        );
        assert_eq!(
            one(
                json!({"properties": {"n": {"multipleOf": 2, "exclusiveMinimum": 3}}}),
                json!({"n": 3})
            ),
            "at '/n': exclusiveMinimum: got 3, want 3\nat '/n': multipleOf: got 3, want 2"
        );
        assert_eq!(
            one(
                json!({"required": ["z"], "properties": {"n": {"multipleOf": 2, "exclusiveMinimum": 3}}}),
                json!({"n": 3})
            ),
            "at '': missing property 'z'\nat '/n': validation failed\n  - at '/n': exclusiveMinimum: got 3, want 3\n  - at '/n': multipleOf: got 3, want 2"
        );
        assert!(
            validate_json_schema(
                &json!({"n": 1.0}),
                &json!({"properties": {"n": {"enum": [1]}}})
            )
            .is_ok()
        );
    }

    /// Helm loads every `$ref`d document before validating; offline a remote one fails
    /// to load, and so it does here, before any value is looked at.
    #[test]
    fn a_remote_reference_fails_to_load() {
        let schema = json!({"properties": {"e": {"$ref": "https://example.invalid/x.json#/a"}}});
        let errors = validate_json_schema(&json!({}), &schema).unwrap_err();
        assert_eq!(
            errors,
            ["failing loading \"https://example.invalid/x.json\": remote schemas are not fetched"]
        );
        // Only references Helm's validator reaches count: not one in a definition no
        // one uses; and a reference into the schema's own `$id` is local.
        let unused = json!({"definitions": {"x": {"$ref": "https://example.invalid/x.json"}}});
        assert!(validate_json_schema(&json!({}), &unused).is_ok());
        let own = json!({"$id": "https://example.invalid/dir/s.json", "definitions": {"p": {"type": "integer"}},
            "properties": {"a": {"$ref": "s.json#/definitions/p"},
                "b": {"$ref": "https://example.invalid/dir/s.json#/definitions/p"}}});
        assert_eq!(
            validate_json_schema(&json!({"a": "x", "b": 1}), &own).unwrap_err(),
            ["at '/a': got string, want integer"]
        );
        let local = json!({"$defs": {"p": {"type": "integer"}}, "properties": {"e": {"$ref": "#/$defs/p"}}});
        assert!(validate_json_schema(&json!({"e": 1}), &local).is_ok());
    }
}
