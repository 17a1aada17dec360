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

/// The first document other than the root that a `$ref` reachable from the root (through
/// schema keywords and the local `$ref`s themselves, as Helm's validator compiles them)
/// names. Schemas only under `definitions` and never referenced are not reached.
pub(super) fn remote_reference(root: &Value, reached: &[(&Value, String)]) -> Option<String> {
    reached
        .iter()
        .find_map(|(schema, _)| match schema.get("$ref") {
            // The metaschemas are at hand.
            Some(Value::String(r)) => local_pointer(root, r)
                .err()
                .filter(|doc| super::metaschemas::document(doc).is_none()),
            _ => None,
        })
}
