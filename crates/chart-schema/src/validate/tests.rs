use super::*;
use serde_json::json;

/// Messages as Helm 4.2's validator words them (checked with the real engine).
#[test]
fn violations_read_like_helms() {
    let schema = json!({"type": "object", "required": ["must"], "additionalProperties": false,
        "properties": {"e": {"enum": ["a", "b"]}, "n": {"type": "integer", "minimum": 3},
            "s": {"type": "string", "maxLength": 3}, "l": {"type": "array", "minItems": 2, "items": {"type": "string"}},
            "c": {"const": "k"}, "o": {"type": "object", "properties": {"i": {"type": "boolean"}}}}});
    let value =
        json!({"e": "z", "n": 1, "s": "abcd", "l": [1], "c": "q", "o": {"i": "no"}, "bogus": 1});
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

/// Helm loads every `$ref`d document while compiling the schema; offline a remote one
/// fails to load, and so it does here, before any value is looked at.
#[test]
fn a_remote_reference_fails_to_load() {
    let schema = json!({"properties": {"e": {"$ref": "https://example.invalid/x.json#/a"}}});
    assert_eq!(
        check_schema(&schema),
        Err(
            "failing loading \"https://example.invalid/x.json\": remote schemas are not fetched"
                .into()
        )
    );
    // Only references Helm's validator reaches count: not one in a definition no
    // one uses; and a reference into the schema's own `$id` is local.
    let unused = json!({"definitions": {"x": {"$ref": "https://example.invalid/x.json"}}});
    assert_eq!(check_schema(&unused), Ok(()));
    let own = json!({"$id": "https://example.invalid/dir/s.json", "definitions": {"p": {"type": "integer"}},
        "properties": {"a": {"$ref": "s.json#/definitions/p"},
            "b": {"$ref": "https://example.invalid/dir/s.json#/definitions/p"}}});
    assert_eq!(
        validate_json_schema(&json!({"a": "x", "b": 1}), &own).unwrap_err(),
        ["at '/a': got string, want integer"]
    );
    let local =
        json!({"$defs": {"p": {"type": "integer"}}, "properties": {"e": {"$ref": "#/$defs/p"}}});
    assert!(validate_json_schema(&json!({"e": 1}), &local).is_ok());
}

/// A reachable `$ref` to a place the schema does not have: Helm's validator refuses the
/// schema while compiling it, whatever the values (messages from Helm v4.2.3).
#[test]
fn a_reference_to_a_missing_place_is_refused() {
    for (schema, place) in [
        (json!({"$ref": "#/definitions/nope"}), "#/definitions/nope"),
        (
            json!({"properties": {"b": {"$ref": "#/$defs/x"}}}),
            "#/$defs/x",
        ),
        (
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"a": {"$ref": "#/definitions/x"}}}),
            "#/definitions/x",
        ),
        (
            json!({"$id": "https://example.invalid/s.json", "properties": {"a": {"$ref": "#/definitions/x"}}}),
            "#/definitions/x",
        ),
    ] {
        assert_eq!(
            check_schema(&schema),
            Err(format!(
                "json-pointer in \"file:///values.schema.json{place}\" not found"
            )),
            "{schema}"
        );
    }
    // Escaped and percent-encoded pointers that do name a place, and an unreached one.
    let fine = json!({"$defs": {"a b": {}, "c/d": {}, "x": {"$ref": "#/nope"}},
        "properties": {"p": {"$ref": "#/$defs/a%20b"}, "q": {"$ref": "#/$defs/c~1d"}, "r": {"$ref": "#"}}});
    assert_eq!(check_schema(&fine), Ok(()));
}

/// Found with the metaschema cases of the differential run.
#[test]
fn keywords_as_helms_validator_reads_them() {
    // `const` is not a draft 4 keyword.
    let d4 = json!({"$schema": "http://json-schema.org/draft-04/schema#",
        "properties": {"a": {"const": 1}}});
    assert!(validate_json_schema(&json!({"a": 2}), &d4).is_ok());
    // A whole float is a count.
    let schema = json!({"properties": {"a": {"minLength": 2.0}}});
    assert_eq!(
        validate_json_schema(&json!({"a": "x"}), &schema),
        Err(vec!["at '/a': minLength: got 1, want 2".to_string()])
    );
    // A property name is checked as a value of its own, at ''.
    let schema = json!({"properties": {"o": {"propertyNames": {"maxLength": 1}}}});
    assert_eq!(
        validate_json_schema(&json!({"o": {"ab": 1}}), &schema),
        Err(vec![
            "at '': invalid propertyName 'ab'\n  - at '': maxLength: got 2, want 1".to_string()
        ])
    );
    // Several errors behind a root `$ref` stay under it.
    let schema =
        json!({"$ref": "#/$defs/o", "$defs": {"o": {"required": ["x"], "minProperties": 3}}});
    assert_eq!(
        validate_json_schema(&json!({"a": 1}), &schema),
        Err(vec![
            "at '': validation failed\n  - at '': minProperties: got 1, want 3\n  - at '': missing property 'x'"
                .to_string()
        ])
    );
}

/// Keywords belong to the draft that brought them (checked with Helm's engine).
#[test]
fn later_keywords_are_plain_names_in_earlier_drafts() {
    let with = |draft: &str, sub: Value| json!({"$schema": draft, "properties": {"l": sub}});
    let d7 = "http://json-schema.org/draft-07/schema#";
    let d2020 = "https://json-schema.org/draft/2020-12/schema";
    let required = json!({"dependentRequired": {"a": ["b"]}});
    assert!(validate_json_schema(&json!({"l": {"a": 1}}), &with(d7, required.clone())).is_ok());
    assert!(validate_json_schema(&json!({"l": {"a": 1}}), &with(d2020, required)).is_err());
    let contains = json!({"contains": {"const": 5}, "minContains": 3, "maxContains": 1});
    let three = json!({"l": [5, 1, 5]});
    assert_eq!(
        validate_json_schema(&three, &with(d2020, contains.clone())),
        Err(vec![
            "at '/l': min 3 items required to match contains schema, but matched 2 items at 0 2\n  - at '/l/1': value must be 5".to_string(),
            "at '/l': max 1 items required to match contains schema, but matched 2 items at 0 2".to_string(),
        ])
    );
    // Draft 7 knows `contains` only.
    assert!(validate_json_schema(&three, &with(d7, contains)).is_ok());
    let draft6 = "http://json-schema.org/draft-06/schema#";
    let cond = json!({"if": {"const": 1}, "then": {"const": 2}});
    assert!(validate_json_schema(&json!({"l": 1}), &with(draft6, cond.clone())).is_ok());
    assert!(validate_json_schema(&json!({"l": 1}), &with(d7, cond)).is_err());
}
