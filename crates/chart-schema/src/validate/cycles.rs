//! Reference cycles: a schema that, through `$ref`s (and the applicators around them),
//! comes to be applied again to the very value it is being applied to, as
//! `{"allOf": [{"$ref": "#"}, {"$ref": "#"}]}` does. Followed, such a schema branches at
//! every level: the work doubles per level down to the depth limit, which never ends.
//! Helm's validator refuses it at the value, saying the two places resolve to the same
//! schema "causing reference cycle"; so do we, naming the schema.
use std::cell::RefCell;

use serde_json::Value;

thread_local! {
    /// The schemas being applied in place, innermost last: each schema's address and
    /// the length of the value path it is applied at. Along one chain of calls the path
    /// only grows, so entries of equal length are at the same value.
    static APPLYING: RefCell<Vec<(usize, usize)>> = const { RefCell::new(Vec::new()) };
}

/// Run `apply` with `schema` noted as being applied at a value path of `depth` entries;
/// `None` (without running it) when the schema is already being applied there.
pub(super) fn guarded<T>(schema: &Value, depth: usize, apply: impl FnOnce() -> T) -> Option<T> {
    let entry = (std::ptr::from_ref(schema) as usize, depth);
    let entered = APPLYING.with(|a| {
        let mut a = a.borrow_mut();
        if a.iter()
            .rev()
            .take_while(|e| e.1 == depth)
            .any(|e| *e == entry)
        {
            return false;
        }
        a.push(entry);
        true
    });
    if !entered {
        return None;
    }
    let result = apply();
    APPLYING.with(|a| a.borrow_mut().pop());
    Some(result)
}

/// Helm's words for a cycle through `schema`, a schema of the document `root`.
pub(super) fn message(root: &Value, schema: &Value) -> String {
    let at = pointer_of(root, schema).unwrap_or_default();
    format!(
        "both a $ref and the schema it is in resolve to \"file:///values.schema.json#{at}\" causing reference cycle"
    )
}

/// The JSON pointer of `target` (by address) within `root`.
fn pointer_of(root: &Value, target: &Value) -> Option<String> {
    let mut stack = vec![(root, String::new())];
    while let Some((node, at)) = stack.pop() {
        if std::ptr::eq(node, target) {
            return Some(at);
        }
        let escape = |k: &str| k.replace('~', "~0").replace('/', "~1");
        match node {
            Value::Object(map) => {
                stack.extend(map.iter().map(|(k, v)| (v, format!("{at}/{}", escape(k)))));
            }
            Value::Array(items) => {
                stack.extend(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, v)| (v, format!("{at}/{i}"))),
                );
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::validate_json_schema;
    use serde_json::json;

    /// Schemas that apply themselves to the same value are refused at once (the first
    /// one branched twice per level and ran for minutes); recursion into child values is
    /// no cycle. Helm refuses the same schemas, at the same places.
    #[test]
    fn a_schema_applied_again_to_the_same_value_is_a_reference_cycle() {
        let cyclic = [
            (json!({"allOf": [{"$ref": "#"}, {"$ref": "#"}]}), "''"),
            (json!({"$ref": "#"}), "''"),
            (
                json!({"properties": {"a": {"$ref": "#/properties/a"}}}),
                "'/a'",
            ),
            (
                json!({"$defs": {"x": {"anyOf": [{"$ref": "#/$defs/y"}]}, "y": {"$ref": "#/$defs/x"}}, "$ref": "#/$defs/x"}),
                "''",
            ),
        ];
        for (schema, at) in cyclic {
            let errors = validate_json_schema(&json!({"a": 1}), &schema).unwrap_err();
            let text = errors.join("\n");
            assert!(
                text.contains(&format!("at {at}: both"))
                    && text.contains("causing reference cycle"),
                "{schema}: {text}"
            );
        }
        let recursive = json!({"type": "object", "properties": {"a": {"$ref": "#"}}});
        assert!(validate_json_schema(&json!({"a": {"a": {}}}), &recursive).is_ok());
        let tree = json!({"$defs": {"node": {"properties": {"kids": {"items": {"$ref": "#/$defs/node"}}}}}, "$ref": "#/$defs/node"});
        let value = json!({"kids": [{"kids": [{}]}, {"kids": []}]});
        assert!(validate_json_schema(&value, &tree).is_ok());
    }
}
