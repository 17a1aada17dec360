//! The check of a schema against its draft's metaschema, with Helm 4.2's messages
//! (each checked with the real engine; more in the differential table).
use serde_json::{Value, json};

use super::check_schema;

const D4: &str = "http://json-schema.org/draft-04/schema#";
const D6: &str = "http://json-schema.org/draft-06/schema#";
const D7: &str = "http://json-schema.org/draft-07/schema#";
const D2019: &str = "https://json-schema.org/draft/2019-09/schema";
const D2020: &str = "https://json-schema.org/draft/2020-12/schema";

fn with_draft(draft: Option<&str>, schema: Value) -> Value {
    match (draft, schema) {
        (Some(url), Value::Object(mut m)) => {
            m.insert("$schema".into(), json!(url));
            Value::Object(m)
        }
        (_, schema) => schema,
    }
}

fn refusal(schema: &Value) -> String {
    check_schema(schema).expect_err("schema accepted")
}

const HEAD: &str = "\"file:///values.schema.json#\" is not valid against metaschema: \
                    jsonschema validation failed with ";

#[test]
fn a_required_that_is_not_a_list_is_refused_in_every_draft() {
    let schema = json!({"type": "object", "properties": {"a": {"required": true}}});
    for (draft, meta) in [
        (D4, "http://json-schema.org/draft-04/schema#"),
        (D6, "http://json-schema.org/draft-06/schema#"),
        (D7, "http://json-schema.org/draft-07/schema#"),
    ] {
        assert_eq!(
            refusal(&with_draft(Some(draft), schema.clone())),
            format!("{HEAD}'{meta}'\n- at '/properties/a/required': got boolean, want array")
        );
    }
    // The 2019-09 and 2020-12 metaschemas are an allOf of vocabularies: every level
    // nests under 'allOf' failed. No `$schema` means 2020-12.
    for (draft, meta) in [
        (Some(D2019), "https://json-schema.org/draft/2019-09/schema#"),
        (Some(D2020), "https://json-schema.org/draft/2020-12/schema#"),
        (None, "https://json-schema.org/draft/2020-12/schema#"),
    ] {
        assert_eq!(
            refusal(&with_draft(draft, schema.clone())),
            format!(
                "{HEAD}'{meta}'\n- at '': 'allOf' failed\n  - at '/properties/a': 'allOf' failed\n    - at '/properties/a/required': got boolean, want array"
            )
        );
    }
}

#[test]
fn unknown_type_names_and_bad_patterns_are_refused() {
    let schema = json!({"$schema": D7, "properties": {"a": {"type": "foo"}}});
    assert_eq!(
        refusal(&schema),
        format!(
            "{HEAD}'{D7}'\n- at '/properties/a/type': 'anyOf' failed\n  - at '/properties/a/type': value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'\n  - at '/properties/a/type': got string, want array"
        )
    );
    let schema = json!({"$schema": D7, "properties": {"a": {"pattern": "(a"}}});
    assert_eq!(
        refusal(&schema),
        format!(
            "{HEAD}'{D7}'\n- at '/properties/a/pattern': '(a' is not valid regex: error parsing regexp: missing closing ): `(a`"
        )
    );
    // Go's regexp has no lookahead.
    let schema = json!({"properties": {"a": {"items": {"pattern": "(?=a)"}}}});
    assert!(refusal(&schema).contains("'(?=a)' is not valid regex: error parsing regexp: invalid or unsupported Perl syntax: `(?=`"));
}

#[test]
fn valid_schemas_pass_in_every_draft() {
    let schema = json!({"type": "object", "required": ["a"], "definitions": {"p": {"type": "integer", "minimum": 0}},
        "properties": {"a": {"type": ["string", "null"], "pattern": "^[\\w-\\.]+$", "minLength": 1, "enum": ["x", null]},
            "n": {"$ref": "#/definitions/p"}, "l": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
            "o": {"type": "object", "additionalProperties": {"type": "number"}, "patternProperties": {"^x-": {}}}},
        "allOf": [{"not": {"required": ["zz"]}}], "dependencies": {"a": ["n"]}});
    for draft in [Some(D4), Some(D6), Some(D7), Some(D2019), Some(D2020), None] {
        assert_eq!(check_schema(&with_draft(draft, schema.clone())), Ok(()));
    }
    for schema in [json!(true), json!(false), json!({})] {
        assert_eq!(check_schema(&schema), Ok(()));
    }
}

#[test]
fn helms_copies_of_the_older_metaschemas_have_their_own_rules() {
    // An empty enum is refused (the published draft 7 metaschema allows it).
    let enum_empty = |d| refusal(&json!({"$schema": d, "properties": {"a": {"enum": []}}}));
    assert!(enum_empty(D7).ends_with("- at '/properties/a/enum': minItems: got 0, want 1"));
    assert!(enum_empty(D4).ends_with("- at '/properties/a/enum': minItems: got 0, want 1"));
    // Draft 6 does not type `examples`.
    assert_eq!(check_schema(&json!({"$schema": D6, "examples": 5})), Ok(()));
    // Nor check patternProperties names: the compiler refuses a bad one, where reached.
    let schema = json!({"$schema": D6, "properties": {"a": {"patternProperties": {"(a": {}}}}});
    assert_eq!(
        refusal(&schema),
        "invalid regex \"(a\" at \"file:///values.schema.json#/properties/a/patternProperties\": error parsing regexp: missing closing ): `(a`"
    );
    let unreached = json!({"$schema": D4, "definitions": {"d": {"patternProperties": {"(a": {}}}}});
    assert_eq!(check_schema(&unreached), Ok(()));
}

#[test]
fn ids_schema_urls_and_references() {
    let schema = json!({"$schema": D7, "properties": {"a": {"$id": "http://a b"}}});
    assert_eq!(
        refusal(&schema),
        "error in parsing id at \"file:///values.schema.json#/properties/a\""
    );
    // A metaschema Helm does not hold would be fetched; offline that fails.
    assert_eq!(
        refusal(&json!({"$schema": "https://example.invalid/s#"})),
        "failing loading \"https://example.invalid/s\": remote schemas are not fetched"
    );
    // Spellings of the known ones.
    for url in [
        "http://json-schema.org/draft-07/schema",
        "https://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-07/schema#/definitions",
    ] {
        assert!(refusal(&json!({"$schema": url, "minLength": -1})).contains(&format!("'{D7}'")));
    }
    // Several errors behind a `$ref` stay together under it.
    let schema = json!({"$schema": D4, "properties": {"a": {"exclusiveMaximum": "x"}}});
    assert_eq!(
        refusal(&schema),
        format!(
            "{HEAD}'{D4}'\n- at '/properties/a': validation failed\n  - at '/properties/a': properties 'maximum' required, if 'exclusiveMaximum' exists\n  - at '/properties/a/exclusiveMaximum': got string, want boolean"
        )
    );
}

#[test]
fn dynamic_references_of_later_drafts_are_followed() {
    // `dependencies` in the 2020-12 metaschema: a schema ($dynamicRef) or a list of
    // names ($ref into the validation vocabulary).
    let schema = json!({"dependencies": {"b": [1]}});
    assert_eq!(
        refusal(&schema),
        format!(
            "{HEAD}'{D2020}#'\n- at '/dependencies/b': 'anyOf' failed\n  - at '/dependencies/b': got array, want boolean or object\n  - at '/dependencies/b/0': got number, want string"
        )
    );
    let schema = json!({"$schema": D2019, "$defs": {"x": {"minContains": -1}}});
    assert_eq!(
        refusal(&schema),
        format!(
            "{HEAD}'{D2019}#'\n- at '': 'allOf' failed\n  - at '/$defs/x': 'allOf' failed\n    - at '/$defs/x/minContains': minimum: got -1, want 0"
        )
    );
    assert_eq!(check_schema(&json!({"$recursiveAnchor": "x"})), Ok(()));
}

#[test]
fn deep_schemas_are_checked_without_exhausting_the_stack() {
    // As deep as values.schema.json can be (its parser stops at 128 levels), in every
    // draft, with the error at the bottom.
    for draft in [D4, D7, D2019, D2020] {
        for keyword in ["items", "not", "additionalProperties"] {
            let text = format!(
                "{{\"$schema\": \"{draft}\", {}\"minLength\": -1{}}}",
                format!("\"{keyword}\": {{").repeat(120),
                "}".repeat(120)
            );
            let schema: Value = serde_json::from_str(&text).unwrap();
            let r = refusal(&schema);
            let tail = &r[r.len().saturating_sub(200)..];
            assert!(
                r.contains("minimum: got -1, want 0"),
                "{draft} {keyword}: {tail}"
            );
        }
    }
}

#[test]
fn references_to_other_places_and_to_the_metaschemas() {
    // A part of the file no keyword keeps a schema in is checked on its own, once a
    // `$ref` names it.
    let schema =
        json!({"examples": [{"minLength": -1}], "properties": {"a": {"$ref": "#/examples/0"}}});
    assert_eq!(
        refusal(&schema),
        format!(
            "\"file:///values.schema.json#/examples/0\" is not valid against metaschema: jsonschema validation failed with '{D2020}#'\n- at '': 'allOf' failed\n  - at '/minLength': minimum: got -1, want 0"
        )
    );
    assert_eq!(
        check_schema(&json!({"examples": [{"minLength": -1}]})),
        Ok(())
    );
    // The metaschemas are at hand for values too: not a remote document.
    let schema = json!({"properties": {"a": {"$ref": D2020}}});
    assert_eq!(check_schema(&schema), Ok(()));
    let value = json!({"a": {"properties": {"b": {"minLength": -1}}}});
    assert_eq!(
        super::super::validate_json_schema(&value, &schema),
        Err(vec!["at '/a': 'allOf' failed\n  - at '/a/properties/b': 'allOf' failed\n    - at '/a/properties/b/minLength': minimum: got -1, want 0".to_string()])
    );
}

#[test]
fn repeated_items_are_found_in_linear_time_and_named_as_helm_names_them() {
    // The first item equal to an earlier one, with the earliest it equals.
    let schema = json!({"$schema": D7, "properties": {"a": {"enum": [0, 1, 2, 1, 0]}}});
    assert!(refusal(&schema).ends_with("- at '/properties/a/enum': items at 1 and 3 are equal"));
    let schema = json!({"properties": {"a": {"required": ["x", "y", "x"]}}});
    assert!(refusal(&schema).ends_with("items at 0 and 2 are equal"));
    // A long enum (Helm's draft 7 wants its values unique; one equals another in value
    // only).
    let mut values: Vec<Value> = (0..200_000).map(|i| json!(i)).collect();
    assert_eq!(
        check_schema(&json!({"$schema": D7, "properties": {"a": {"enum": values.clone()}}})),
        Ok(())
    );
    values.push(json!(199_999.0));
    assert!(
        refusal(&json!({"$schema": D7, "properties": {"a": {"enum": values}}}))
            .ends_with("items at 199999 and 200000 are equal")
    );
}
