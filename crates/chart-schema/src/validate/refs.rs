//! `$ref`s: which point inside the root schema, and which name another document.

use serde_json::Value;

/// Where Helm's validator places the root schema: its `$id`, or this file URL.
pub(super) const SCHEMA_URL: &str = "file:///values.schema.json";

pub(super) fn base_url(root: &Value) -> Option<url::Url> {
    let id = root
        .get("$id")
        .and_then(Value::as_str)
        .unwrap_or(SCHEMA_URL);
    url::Url::parse(id).ok()
}

/// The JSON pointer a `$ref` names inside the root document (`#/a/b`, or the root's own
/// URL with that fragment), or `Err` with the absolute URL of another document.
pub(super) fn local_pointer(root: &Value, reference: &str) -> Result<String, String> {
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

/// What the JSON pointer `fragment` of a URL names in `root`: percent-encoded (`a%20b` is
/// the key `a b`), or as written when that names nothing.
pub(super) fn pointed_at<'v>(root: &'v Value, fragment: &str) -> Option<&'v Value> {
    let decoded = percent_encoding::percent_decode_str(fragment).decode_utf8_lossy();
    root.pointer(&decoded).or_else(|| root.pointer(fragment))
}

/// The schema of `root` that names itself `name` with `$anchor` or `$dynamicAnchor` (a
/// `$ref`-like keyword's `#name`). Values of keywords that hold no schema are skipped; the
/// walk stops 64 levels down.
pub(super) fn find_anchor<'v>(root: &'v Value, name: &str) -> Option<&'v Value> {
    const DATA: [&str; 4] = ["const", "enum", "default", "examples"];
    let mut stack = vec![(root, 0usize)];
    while let Some((node, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match node {
            Value::Object(obj) => {
                let named = |k| obj.get(k).and_then(Value::as_str) == Some(name);
                if named("$anchor") || named("$dynamicAnchor") {
                    return Some(node);
                }
                Box::new(
                    obj.iter()
                        .filter(|(k, _)| !DATA.contains(&k.as_str()))
                        .map(|(_, v)| v),
                )
            }
            Value::Array(items) => Box::new(items.iter()),
            _ => continue,
        };
        if depth < 64 {
            stack.extend(children.map(|c| (c, depth + 1)));
        }
    }
    None
}

/// What Helm's validator says of the first `$ref` reachable from the root (through schema
/// keywords and the local `$ref`s themselves, as it compiles them) that it cannot follow:
/// one naming another document (the chart engine fetches none, as Helm run offline), or a
/// JSON pointer to a place of this one that is not there. Schemas only under
/// `definitions` and never referenced are not reached.
pub(super) fn unresolvable_reference(root: &Value, reached: &[(&Value, String)]) -> Option<String> {
    reached.iter().find_map(|(schema, _)| {
        let Some(Value::String(reference)) = schema.get("$ref") else {
            return None;
        };
        match local_pointer(root, reference) {
            // The metaschemas are at hand.
            Err(doc) if super::metaschemas::document(&doc).is_some() => None,
            Err(doc) => Some(format!(
                "failing loading \"{doc}\": remote schemas are not fetched"
            )),
            Ok(fragment) => missing_place(root, &fragment),
        }
    })
}

/// Helm's message when the JSON pointer `fragment` names nothing in `root` (an anchor,
/// `#name`, is left to the validator: drafts name them in several ways).
fn missing_place(root: &Value, fragment: &str) -> Option<String> {
    if !(fragment.is_empty() || fragment.starts_with('/')) {
        return None;
    }
    if pointed_at(root, fragment).is_some() {
        return None;
    }
    // The file's URL, even when the schema has an `$id`.
    Some(format!(
        "json-pointer in \"{SCHEMA_URL}#{fragment}\" not found"
    ))
}
