//! A validator for the JSON-schema keywords charts and CRDs use, checking in the order
//! and wording Helm's validator (santhosh-tekuri/jsonschema v6) reports: type, const,
//! enum, format (asserted before draft 2019-09), $ref, object keywords (min/maxProperties, required, dependencies, properties,
//! patternProperties, additionalProperties, propertyNames, dependentRequired and
//! dependentSchemas), array keywords (min/maxItems, uniqueItems, items in both the
//! tuple and the 2020-12 `prefixItems` forms, additionalItems, contains), string
//! keywords (min/maxLength, pattern), number bounds and multipleOf, then not, allOf,
//! anyOf, oneOf and if/then/else, then unevaluatedProperties and unevaluatedItems; plus `nullable` and `x-kubernetes-preserve-unknown-fields`
//! for structural CRD schemas. Errors nest as Helm prints them: a failed combinator
//! lists its subschemas' errors indented under it.
use serde_json::{Map, Value};

mod containers;
mod cycles;
mod formats;
mod meta;
mod metaschemas;
mod refs;
mod report;
mod resources;
mod scalars;
#[cfg(test)]
mod tests;
mod uneval;

pub use meta::check_schema;
use refs::local_pointer;
use report::{Failure, count, display, equals, got_kind, quote, type_matches};
use uneval::Uneval;

/// Check `value` against a structural CRD schema. Unknown fields are errors here (the API
/// server would silently drop them), unless the node preserves unknown fields.
///
/// # Errors
///
/// The violations, one message each (`at '<path>': ...`, the errors under it indented),
/// in Helm's validator's words.
pub fn validate_against_schema(value: &Value, schema: &Value) -> Result<(), Vec<String>> {
    run(value, schema, true)
}

/// Check `value` against a values.schema.json (unknown fields allowed unless
/// `additionalProperties: false`), as Helm validates a chart's values.
///
/// # Errors
///
/// A schema that cannot be loaded, as one message, or the violations, one message each
/// (`at '<path>': ...`, the errors under it indented), in Helm's validator's words.
pub fn validate_json_schema(value: &Value, schema: &Value) -> Result<(), Vec<String>> {
    run(value, schema, false)
}

fn run(value: &Value, schema: &Value, structural: bool) -> Result<(), Vec<String>> {
    let v = Validator {
        root: schema,
        structural,
        draft: draft_of(schema),
        checking_schema: false,
        dynamic_root: None,
        depth: 0,
    };
    match v.check(value, schema, &mut Vec::new()) {
        None => Ok(()),
        Some(e) if e.group => Err(e.causes.iter().map(Failure::render).collect()),
        Some(e) => Err(vec![e.render()]),
    }
}

/// The schema draft as a year-like number (4, 6, 7, 2019, 2020), from `$schema`;
/// 2020-12 when absent (a `$schema` Helm does not know is refused before validation).
fn draft_of(schema: &Value) -> u32 {
    metaschemas::draft_of(schema).map_or(2020, |d| d.number)
}

#[derive(Clone, Copy)]
struct Validator<'a> {
    /// The document local `$ref`s point into.
    root: &'a Value,
    structural: bool,
    draft: u32,
    /// Checking a schema against its metaschema: `format` is asserted in every draft
    /// (as Helm's validator compiles the metaschemas), not only before 2019-09.
    checking_schema: bool,
    /// Inside the metaschema documents (checking a schema, or a `$ref` of a schema
    /// naming one): the metaschema where `$dynamicRef` and `$recursiveRef` land.
    dynamic_root: Option<&'a Value>,
    depth: usize,
}

type Obj = Map<String, Value>;

/// A schema object with the keywords it has noted in one pass over it: a check asks for
/// some forty keywords, and most schema objects (the metaschemas' above all) have a few.
#[derive(Clone, Copy)]
struct Keywords<'a> {
    obj: &'a Obj,
    present: u64,
}

impl<'a> Keywords<'a> {
    fn of(obj: &'a Obj) -> Keywords<'a> {
        let present = obj.keys().fold(0, |m, k| m | keyword_bit(k));
        Keywords { obj, present }
    }

    #[inline]
    fn get(&self, keyword: &str) -> Option<&'a Value> {
        let bit = keyword_bit(keyword);
        if bit != 0 && self.present & bit == 0 {
            return None;
        }
        get(self.obj, keyword)
    }
}

/// The bit of a keyword the validator reads (0 for any other name).
#[inline]
fn keyword_bit(name: &str) -> u64 {
    match name {
        "$ref" => 1 << 0,
        "type" => 1 << 1,
        "const" => 1 << 2,
        "enum" => 1 << 3,
        "format" => 1 << 4,
        "nullable" => 1 << 5,
        "x-kubernetes-preserve-unknown-fields" => 1 << 6,
        "minProperties" => 1 << 7,
        "maxProperties" => 1 << 8,
        "required" => 1 << 9,
        "dependencies" => 1 << 10,
        "properties" => 1 << 11,
        "patternProperties" => 1 << 12,
        "additionalProperties" => 1 << 13,
        "propertyNames" => 1 << 14,
        "dependentSchemas" => 1 << 15,
        "dependentRequired" => 1 << 16,
        "minItems" => 1 << 17,
        "maxItems" => 1 << 18,
        "uniqueItems" => 1 << 19,
        "items" => 1 << 20,
        "additionalItems" => 1 << 21,
        "prefixItems" => 1 << 22,
        "contains" => 1 << 23,
        "minContains" => 1 << 24,
        "maxContains" => 1 << 25,
        "minLength" => 1 << 26,
        "maxLength" => 1 << 27,
        "pattern" => 1 << 28,
        "minimum" => 1 << 29,
        "maximum" => 1 << 30,
        "exclusiveMinimum" => 1 << 31,
        "exclusiveMaximum" => 1 << 32,
        "multipleOf" => 1 << 33,
        "not" => 1 << 34,
        "allOf" => 1 << 35,
        "anyOf" => 1 << 36,
        "oneOf" => 1 << 37,
        "if" => 1 << 38,
        "then" => 1 << 39,
        "else" => 1 << 40,
        "$recursiveRef" => 1 << 41,
        "$dynamicRef" => 1 << 42,
        "unevaluatedProperties" => 1 << 43,
        "unevaluatedItems" => 1 << 44,
        _ => 0,
    }
}

/// A keyword of a schema object (or a name in `properties`). Most have a handful of
/// entries: a scan of them is cheaper than hashing the name (checking a schema against a
/// metaschema asks for some twenty keywords of every metaschema object it meets).
fn get<'a>(s: &'a Obj, keyword: &str) -> Option<&'a Value> {
    if s.len() <= 16 {
        s.iter().find(|(k, _)| *k == keyword).map(|(_, v)| v)
    } else {
        s.get(keyword)
    }
}

impl<'a> Validator<'a> {
    /// The schema a `$ref` names, with the validator for it (another document when
    /// the reference leaves this one).
    fn resolve(&self, reference: &str) -> Option<(Validator<'a>, &'a Value)> {
        if self.dynamic_root.is_some() && !reference.starts_with('#') {
            // Inside the metaschemas a reference names a sibling document, relative to
            // this one's `$id`: no URL parsing needed.
            let id = self.root.get("$id").and_then(Value::as_str)?;
            let (path, fragment) = reference.split_once('#').unwrap_or((reference, ""));
            let root = metaschemas::sibling(id, path)?;
            return Some((self.in_document(root), root.pointer(fragment)?));
        }
        match local_pointer(self.root, reference) {
            Ok(pointer) => refs::pointed_at(self.root, &pointer).map(|t| (*self, t)),
            // Helm's validator holds the metaschema documents: a `$ref` may name them.
            Err(doc) => {
                let fragment = reference.split_once('#').map_or("", |(_, f)| f);
                let root = metaschemas::document(&doc)?;
                let target = root.pointer(fragment)?;
                Some((self.in_document(root), target))
            }
        }
    }

    fn in_document(&self, root: &'a Value) -> Validator<'a> {
        Validator {
            root,
            draft: draft_of(root),
            dynamic_root: self.dynamic_root.or(Some(root)),
            ..*self
        }
    }

    /// The errors of `value` against `schema` at `path`: None when it is valid, one
    /// error, or a group of several.
    fn check(&self, value: &Value, schema: &'a Value, path: &mut Vec<String>) -> Option<Failure> {
        self.check_in_place(value, schema, path, &mut Uneval::default())
    }

    /// `value` against a subschema applied in place (`$ref`, allOf, if ...): when it
    /// succeeds, the properties and items it evaluated leave the caller's `uneval`.
    fn check_in_place(
        &self,
        value: &Value,
        schema: &'a Value,
        path: &mut Vec<String>,
        uneval: &mut Uneval,
    ) -> Option<Failure> {
        let s = match schema {
            Value::Bool(false) => return Some(Failure::new(path, "false schema")),
            Value::Object(s) => s,
            _ => return None,
        };
        // A metaschema walks every level of the schema it checks, several steps each.
        let limit = if self.dynamic_root.is_some() {
            2048
        } else {
            64
        };
        if self.depth > limit {
            return None;
        }
        let deeper = Validator {
            depth: self.depth + 1,
            ..*self
        };
        let depth = path.len();
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            cycles::guarded(schema, depth, || {
                deeper.check_object_schema(value, s, path, uneval)
            })
        })
        .unwrap_or_else(|| Some(Failure::new(path, cycles::message(self.root, schema))))
    }

    fn check_object_schema(
        &self,
        value: &Value,
        obj: &'a Obj,
        path: &mut Vec<String>,
        caller: &mut Uneval,
    ) -> Option<Failure> {
        let s = Keywords::of(obj);
        let mut own = Uneval::of(value, s, self.draft, !caller.is_empty());
        if self.structural && value.is_null() && s.get("nullable") == Some(&Value::Bool(true)) {
            return None;
        }
        let target = s
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| self.resolve(r));
        if let Some((v, target)) = target
            && self.draft < 2019
        {
            // Before 2019-09, `$ref` replaces every keyword beside it, type and format
            // included.
            let failure = v.check_in_place(value, target, path, &mut own);
            if failure.is_none() {
                caller.merge(&own);
            }
            return failure.map(Failure::referenced);
        }
        if let Some(failure) = self.check_value(value, s, path) {
            return Some(failure);
        }
        let mut errors = Vec::new();
        if let Some((v, target)) = target {
            let failure = v.check_in_place(value, target, path, &mut own);
            errors.extend(failure.map(Failure::referenced));
        }
        match value {
            Value::Object(map) => self.check_object(map, s, path, &mut own, &mut errors),
            Value::Array(items) => self.check_array(items, s, path, &mut own, &mut errors),
            Value::String(text) => Self::check_string(text, s, path, &mut errors),
            Value::Number(_) => Self::check_number(value, s, path, &mut errors),
            _ => {}
        }
        self.check_dynamic_refs(value, s, path, &mut own, &mut errors);
        self.check_combinators(value, s, path, &mut own, &mut errors);
        errors.extend(self.unevaluated(value, s, path, &mut own));
        if errors.is_empty() {
            caller.merge(&own);
        }
        match errors.len() {
            0 => None,
            1 => errors.pop(),
            _ => Some(Failure {
                group: true,
                ..Failure::new(path, "validation failed").with_causes(errors)
            }),
        }
    }

    /// The keywords that judge the value whole (`type`, `const`, `enum`, and `format` where
    /// the draft asserts it): the first that fails, which ends the schema's check.
    fn check_value(&self, value: &Value, s: Keywords<'a>, path: &[String]) -> Option<Failure> {
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
            && self.draft >= 6
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
        // Drafts before 2019-09 assert `format` (later ones only annotate), on strings.
        if (self.checking_schema || self.draft < 2019)
            && let (Some(Value::String(name)), Value::String(text)) = (s.get("format"), value)
            && let Some(Err(why)) = formats::check(name, text)
        {
            let message = format!("{} is not valid {name}: {why}", quote(text));
            return Some(Failure::new(path, message));
        }
        None
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

    /// `minX` and `maxX` (Properties, Items, Length) against a count.
    fn bounds(
        path: &[String],
        [min, max]: [&str; 2],
        got: usize,
        s: Keywords,
        errors: &mut Vec<Failure>,
    ) {
        let got64 = got as u64;
        for (keyword, is_min) in [(min, true), (max, false)] {
            let Some(want) = s.get(keyword).and_then(count) else {
                continue;
            };
            if (is_min && got64 < want) || (!is_min && got64 > want) {
                errors.push(Failure::new(
                    path,
                    format!("{keyword}: got {got}, want {want}"),
                ));
            }
        }
    }
}
