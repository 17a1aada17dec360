//! The two refusals of a values.schema.json that Helm's validator makes outside the
//! metaschema check: an `$id` it cannot parse as a URL (found while it collects the
//! schema's resources, before the metaschema check), and a `patternProperties` name that
//! is not a regular expression (found while it compiles the schemas it reaches, after
//! the check; the draft 7 and later metaschemas already refuse those).

use std::collections::HashSet;
use std::fmt::Write as _;

use serde_json::Value;

use super::formats;
use super::refs::{SCHEMA_URL, local_pointer};

/// Every place where a draft keeps subschemas, as `(keyword, how)`: a schema, a map of
/// schemas, a list of schemas, or either of the last two forms (`items`).
fn subschema_keywords(draft: u32) -> Vec<(&'static str, Holds)> {
    use Holds::{List, Map, One, OneOrList};
    let mut k = vec![
        ("definitions", Map),
        ("not", One),
        ("allOf", List),
        ("anyOf", List),
        ("oneOf", List),
        ("properties", Map),
        ("additionalProperties", One),
        ("patternProperties", Map),
        ("items", OneOrList),
        ("additionalItems", One),
        ("dependencies", Map),
    ];
    if draft >= 6 {
        k.extend([("propertyNames", One), ("contains", One)]);
    }
    if draft >= 7 {
        k.extend([("if", One), ("then", One), ("else", One)]);
    }
    if draft >= 2019 {
        k.extend([
            ("$defs", Map),
            ("dependentSchemas", Map),
            ("unevaluatedProperties", One),
            ("unevaluatedItems", One),
            ("contentSchema", One),
        ]);
    }
    if draft >= 2020 {
        k.push(("prefixItems", List));
    }
    k
}

#[derive(Clone, Copy)]
enum Holds {
    One,
    Map,
    List,
    OneOrList,
}

/// The subschemas directly under `schema`, each with its pointer.
fn children<'a>(schema: &'a Value, at: &str, draft: u32) -> Vec<(&'a Value, String)> {
    let mut out = Vec::new();
    let Value::Object(m) = schema else { return out };
    for (keyword, holds) in subschema_keywords(draft) {
        let Some(v) = m.get(keyword) else { continue };
        let here = format!("{at}/{}", escape(keyword));
        match (holds, v) {
            (Holds::Map, Value::Object(subs)) => out.extend(
                subs.iter()
                    .map(|(k, s)| (s, format!("{here}/{}", escape(k)))),
            ),
            (Holds::List | Holds::OneOrList, Value::Array(subs)) => out.extend(
                subs.iter()
                    .enumerate()
                    .map(|(i, s)| (s, format!("{here}/{i}"))),
            ),
            (Holds::One | Holds::OneOrList, _) => out.push((v, here)),
            _ => {}
        }
    }
    out
}

/// Helm's "error in parsing id" for the first `$id` (`id` in draft 4) of a subschema
/// that is not a URL reference Go can parse.
pub(super) fn unparsable_id(root: &Value, draft: u32) -> Option<String> {
    let id_keyword = if draft == 4 { "id" } else { "$id" };
    let mut todo = vec![(root, String::new())];
    while let Some((schema, at)) = todo.pop() {
        if todo.len() > 1_000_000 {
            break;
        }
        let Value::Object(m) = schema else { continue };
        // Before 2019-09 an id beside `$ref` is ignored.
        let ignored = draft < 2019 && m.contains_key("$ref");
        if let (false, Some(Value::String(id))) = (ignored, m.get(id_keyword)) {
            let url = id.split_once('#').map_or(id.as_str(), |(u, _)| u);
            if let Some(Err(_)) = formats::check("uri-reference", url) {
                return Some(format!(
                    "error in parsing id at \"{SCHEMA_URL}#{}\"",
                    path_escaped(&at)
                ));
            }
        }
        todo.extend(children(schema, &at, draft));
    }
    None
}

/// Helm's "invalid regex" for the first `patternProperties` name that Go's regexp
/// refuses, among the schemas Helm's validator compiles.
pub(super) fn bad_pattern_property(reached: &[(&Value, String)]) -> Option<String> {
    reached.iter().find_map(|(schema, at)| {
        let patterns = schema.get("patternProperties")?.as_object()?;
        patterns.keys().find_map(|name| {
            let Some(Err(why)) = formats::check("regex", name) else {
                return None;
            };
            let quoted = gotemplate::fmt::quote(name);
            let url = format!("{SCHEMA_URL}#{}/patternProperties", path_escaped(at));
            Some(format!("invalid regex {quoted} at \"{url}\": {why}"))
        })
    })
}

/// The schemas Helm's validator compiles, with their pointers: the root and what its
/// keywords and local `$ref`s reach (schemas under `definitions` or `$defs` only when
/// referenced), each once.
pub(super) fn reachable(root: &Value, draft: u32) -> Vec<(&Value, String)> {
    let mut seen: HashSet<*const Value> = HashSet::new();
    let mut out = Vec::new();
    let mut todo = vec![(root, String::new())];
    while let Some((schema, at)) = todo.pop() {
        let Value::Object(m) = schema else { continue };
        if seen.len() > 100_000 || !seen.insert(std::ptr::from_ref(schema)) {
            continue;
        }
        if let Some(Value::String(r)) = m.get("$ref")
            && let Ok(pointer) = local_pointer(root, r)
        {
            let decoded = pointer.replace("%25", "%");
            todo.extend(root.pointer(&decoded).map(|t| (t, decoded)));
        }
        let definitions = [format!("{at}/definitions/"), format!("{at}/$defs/")];
        let subs = children(schema, &at, draft).into_iter();
        todo.extend(subs.filter(|(_, p)| !definitions.iter().any(|d| p.starts_with(d))));
        out.push((schema, at));
    }
    out
}

/// The schemas a local `$ref` reaches at a place where no keyword keeps a schema (under
/// `examples`, say), with their pointers: Helm's validator checks each against the
/// metaschema when it compiles it.
pub(super) fn outside_subschemas<'a>(
    root: &Value,
    draft: u32,
    reached: &'a [(&'a Value, String)],
) -> Vec<(&'a Value, &'a str)> {
    let mut places = HashSet::new();
    let mut todo = vec![(root, String::new())];
    while let Some((schema, at)) = todo.pop() {
        if places.len() > 1_000_000 {
            break;
        }
        todo.extend(children(schema, &at, draft));
        places.insert(at);
    }
    let mut outside: Vec<(&Value, &str)> = Vec::new();
    for (schema, at) in reached {
        let within =
            |(_, o): &(&Value, &str)| at.strip_prefix(o).is_some_and(|rest| rest.starts_with('/'));
        if !places.contains(at) && !outside.iter().any(within) {
            outside.push((schema, at));
        }
    }
    outside
}

/// A JSON pointer token: `~` and `/` escaped.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// A pointer as Helm's validator writes it in a URL: each token escaped as Go's
/// `url.PathEscape` does.
pub(super) fn path_escaped(pointer: &str) -> String {
    let mut out = String::new();
    for b in pointer.bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char);
            }
            b'/' | b'$' | b'&' | b'+' | b'=' | b':' | b'@' => out.push(b as char),
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}
