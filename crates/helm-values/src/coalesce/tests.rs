use serde_json::json;

use super::*;

/// A chart for the tests: a name, defaults, subcharts.
struct TestChart(&'static str, Value, Vec<TestChart>);

impl Chart for TestChart {
    fn name(&self) -> &str {
        self.0
    }

    fn values(&self) -> &Value {
        &self.1
    }

    fn subcharts(&self) -> &[Self] {
        &self.2
    }
}

fn alone(defaults: Value) -> TestChart {
    TestChart("t", defaults, Vec::new())
}

/// The chart `t` of the Helm runs quoted below: parent defaults with a `child`
/// section (`x: null`), the subchart `child` with its own defaults and a global.
fn parent_and_child() -> TestChart {
    TestChart(
        "t",
        json!({"m": {"a": null, "b": 1}, "child": {"x": null, "y": 2}}),
        vec![TestChart(
            "child",
            json!({"x": "childdefault", "z": 3, "global": {"g": 1}}),
            Vec::new(),
        )],
    )
}

#[test]
fn user_values_win_and_missing_defaults_fill_in() {
    let out = coalesce_values(
        &alone(json!({"a": 1, "m": {"x": 1, "y": 2}})),
        &json!({"a": 5, "m": {"y": 3}}),
    );
    assert_eq!(out, json!({"a": 5, "m": {"x": 1, "y": 3}}));
}

#[test]
fn user_null_deletes_a_default() {
    let out = coalesce_values(
        &alone(json!({"a": 1, "m": {"x": 1, "y": 2}})),
        &json!({"a": null, "m": {"x": null}}),
    );
    assert_eq!(out, json!({"m": {"y": 2}}));
}

#[test]
fn null_defaults_are_dropped_but_user_nulls_for_new_keys_stay() {
    let out = coalesce_values(
        &alone(json!({"top": null, "m": {"a": null, "b": 1}, "l": [null, {"e": null}]})),
        &json!({"extra": null, "m": {"new": null}}),
    );
    assert_eq!(
        out,
        json!({"extra": null, "m": {"new": null, "b": 1}, "l": [null, {"e": null}]})
    );
}

#[test]
fn a_user_scalar_replaces_a_default_map() {
    let out = coalesce_values(&alone(json!({"m": {"x": 1}})), &json!({"m": "flat"}));
    assert_eq!(out, json!({"m": "flat"}));
}

/// `helm template r t --set-json 'm={"a":null}'` (Helm v4.2.3) renders
/// `"m":{"a":null,"b":1}`: a null over a default that is null itself stays.
#[test]
fn a_user_null_over_a_null_default_stays() {
    let out = coalesce_values(&parent_and_child(), &json!({"m": {"a": null, "c": null}}));
    assert_eq!(out["m"], json!({"a": null, "c": null, "b": 1}));
}

/// `helm template r t --set-json 'child={"w":1}'` renders the child's values as
/// `{"global":{"g":1},"true":2,"w":1,"z":3}`: with a section given, the parent's defaults
/// for it merge nulls included, and its `x: null` deletes the child's `x`. Without one they
/// are coalesced (nulls dropped) and the child keeps its `x`.
#[test]
fn a_parent_null_in_a_given_subchart_section_deletes_the_subchart_default() {
    let chart = parent_and_child();
    let given = coalesce_values(&chart, &json!({"child": {"w": 1}}));
    assert_eq!(
        given["child"],
        json!({"w": 1, "y": 2, "z": 3, "global": {"g": 1}})
    );
    let not_given = coalesce_values(&chart, &json!({}));
    assert_eq!(
        not_given["child"],
        json!({"y": 2, "x": "childdefault", "z": 3, "global": {"g": 1}})
    );
}

/// `helm template r t --set-json 'child={"global":5}' --set-json 'global={"p":1}'`
/// warns "skipping globals because destination global is not a table" and renders the
/// child's `global` as 5: a global that is not a map is left alone.
#[test]
fn a_subchart_global_that_is_not_a_map_is_left_alone() {
    let out = coalesce_values(
        &parent_and_child(),
        &json!({"child": {"global": 5}, "global": {"p": 1}}),
    );
    assert_eq!(out["child"], json!({"global": 5, "y": 2, "z": 3}));
    let parent_scalar = coalesce_values(&parent_and_child(), &json!({"global": 5}));
    assert_eq!(parent_scalar["child"]["global"], json!({"g": 1}));
}

#[test]
fn parent_globals_win_over_subchart_globals() {
    let mut sub = json!({"global": {"a": "sub", "b": "sub", "m": {"x": 1, "y": 1}}})
        .as_object()
        .cloned()
        .unwrap();
    let parent = json!({"global": {"a": "parent", "m": {"x": 2}}})
        .as_object()
        .cloned()
        .unwrap();
    coalesce_globals(&mut sub, &parent);
    assert_eq!(
        Value::Object(sub),
        json!({"global": {"a": "parent", "b": "sub", "m": {"x": 2, "y": 1}}})
    );
}

/// Merging keeps every null so a later coalescing still deletes the default: what an
/// operator hands Helm's install and upgrade.
#[test]
fn merging_keeps_nulls_for_a_later_coalescing() {
    let chart = alone(
        json!({"replicaCount": 1, "image": {"repository": "memcached", "tag": "1.6"},
                             "service": {"port": 11211}, "extra": "d", "off": null}),
    );
    let user =
        json!({"image": {"tag": "1.7", "pullPolicy": null}, "service": null, "extra": {"a": 1}});
    let merged = merge_values(&chart, &user);
    assert_eq!(
        merged,
        json!({"image": {"tag": "1.7", "pullPolicy": null, "repository": "memcached"},
               "service": null, "extra": {"a": 1}, "replicaCount": 1, "off": null})
    );
    assert_eq!(
        coalesce_values(&chart, &merged),
        coalesce_values(&chart, &user)
    );
    assert_eq!(merge_values(&Defaults(&chart.1), &user), merged);
}

#[test]
fn a_path_reads_through_maps_only() {
    let values = json!({"redis": {"enabled": true, "list": [1]}});
    assert_eq!(path_value(&values, "redis.enabled"), Some(&json!(true)));
    assert_eq!(path_value(&values, "redis.list.0"), None);
}
