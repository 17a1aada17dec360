//! unevaluatedProperties and unevaluatedItems, with the results Helm 4.2's validator
//! gives (checked live with the differential run, `schema/uneval-*`).
use super::super::*;
use serde_json::json;

fn errors(schema: &Value, value: &Value) -> Vec<String> {
    validate_json_schema(value, schema)
        .err()
        .unwrap_or_default()
}

#[test]
fn an_unevaluated_property_is_refused() {
    let schema = json!({"properties": {"a": {}}, "unevaluatedProperties": false});
    assert_eq!(errors(&schema, &json!({"b": 2})), ["at '/b': false schema"]);
    assert!(errors(&schema, &json!({"a": 1})).is_empty());
    // A schema value checks each unevaluated property.
    let schema = json!({"properties": {"a": {}}, "unevaluatedProperties": {"type": "string"}});
    assert_eq!(
        errors(&schema, &json!({"a": 1, "b": 2})),
        ["at '/b': got number, want string"]
    );
}

#[test]
fn successful_in_place_subschemas_evaluate() {
    let all = json!({"allOf": [{"properties": {"a": {}}}], "unevaluatedProperties": false});
    assert!(errors(&all, &json!({"a": 1})).is_empty());
    assert_eq!(errors(&all, &json!({"c": 1})), ["at '/c': false schema"]);
    // A failed branch evaluates nothing: anyOf's second branch takes `b` only.
    let any = json!({"anyOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]},
        {"properties": {"b": {}}}], "unevaluatedProperties": false});
    assert_eq!(
        errors(&any, &json!({"a": 1, "b": 1})),
        ["at '/a': false schema"]
    );
    let cond = json!({"if": {"properties": {"a": {"const": 1}}}, "then": {"properties": {"b": {}}},
        "unevaluatedProperties": false});
    assert!(errors(&cond, &json!({"a": 1, "b": 2})).is_empty());
    let refd = json!({"$defs": {"p": {"properties": {"a": {}}}}, "$ref": "#/$defs/p",
        "unevaluatedProperties": false});
    assert!(errors(&refd, &json!({"a": 1})).is_empty());
    // Nested objects have their own annotations.
    let nested =
        json!({"properties": {"o": {"properties": {"a": {}}}}, "unevaluatedProperties": false});
    assert!(errors(&nested, &json!({"o": {"z": 1}})).is_empty());
}

#[test]
fn items_prefix_and_contains_evaluate() {
    let schema = json!({"prefixItems": [{}], "contains": {"const": 5}, "unevaluatedItems": false});
    assert_eq!(
        errors(&schema, &json!([1, 5, 2])),
        ["at '/2': false schema"]
    );
    // 2019-09: a tuple `items`; `contains` does not evaluate there.
    let d2019 = json!({"$schema": "https://json-schema.org/draft/2019-09/schema",
        "items": [{}], "contains": {"const": 5}, "unevaluatedItems": false});
    assert_eq!(errors(&d2019, &json!([1, 5])), ["at '/1': false schema"]);
}

#[test]
fn older_drafts_ignore_the_keywords() {
    let schema = json!({"$schema": "http://json-schema.org/draft-07/schema#",
        "properties": {"a": {}}, "unevaluatedProperties": false});
    assert!(errors(&schema, &json!({"b": 2})).is_empty());
}

#[test]
fn additional_items_without_a_tuple_is_skipped() {
    let schema = json!({"$schema": "https://json-schema.org/draft/2019-09/schema",
        "additionalItems": false, "unevaluatedItems": false});
    assert_eq!(errors(&schema, &json!([1])), ["at '/0': false schema"]);
    let d7 =
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "additionalItems": false});
    assert!(errors(&d7, &json!([1])).is_empty());
}

#[test]
fn dynamic_and_recursive_refs_evaluate_in_values_schemas() {
    let dynamic = json!({"$dynamicAnchor": "m", "properties": {"a": {}, "o": {"$dynamicRef": "#m"}},
        "unevaluatedProperties": false});
    assert_eq!(
        errors(&dynamic, &json!({"o": {"b": 1}})),
        ["at '/o/b': false schema"]
    );
    let evaluates = json!({"$defs": {"p": {"$dynamicAnchor": "p", "properties": {"a": {}}}},
        "$dynamicRef": "#/$defs/p", "unevaluatedProperties": false});
    assert!(errors(&evaluates, &json!({"a": 1})).is_empty());
    let recursive = json!({"$schema": "https://json-schema.org/draft/2019-09/schema",
        "$recursiveAnchor": true, "properties": {"a": {}, "o": {"$recursiveRef": "#"}},
        "unevaluatedProperties": false});
    assert_eq!(
        errors(&recursive, &json!({"o": {"b": 1}})),
        ["at '/o/b': false schema"]
    );
}
