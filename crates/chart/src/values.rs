//! Helm's value coalescing: user values over chart defaults, `null` deletes a default,
//! subcharts see their own section, and `global` flows from parents to subcharts.
use serde_json::{Map, Value};

use crate::chart::Chart;

/// The values a chart renders with (Helm's `CoalesceValues`): `user` over the defaults of
/// `chart` and of every subchart (under the subchart's name), globals copied down.
pub fn coalesce(chart: &Chart, user: &Value) -> Value {
    let mut dest = match user {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    coalesce_chart(chart, &mut dest);
    Value::Object(dest)
}

fn coalesce_chart(chart: &Chart, dest: &mut Map<String, Value>) {
    coalesce_defaults(chart, dest);
    for sub in &chart.dependencies {
        let name = sub.name().to_string();
        let entry = dest
            .entry(name)
            .or_insert_with(|| Value::Object(Map::new()));
        // A null or non-map value for a subchart is left alone here; rendering refuses
        // it (`subchart_sections`), as Helm does.
        let Some(sub_dest) = entry.as_object_mut().map(std::mem::take) else {
            continue;
        };
        let mut sub_dest = sub_dest;
        coalesce_globals(&mut sub_dest, dest);
        coalesce_chart(sub, &mut sub_dest);
        dest.insert(sub.name().to_string(), Value::Object(sub_dest));
    }
}

/// Helm's refusal of a subchart section that is not a map: `type mismatch on <sub>:
/// <value as Go's %t prints it>`, for the coalesced values (a user `null` or scalar in
/// the section's place) and, with `defaults_too`, for a parent's own default
/// (`<sub>: null` too, which Helm's import-values pass merges without dropping), depth
/// first as Helm coalesces.
pub(crate) fn subchart_sections(
    chart: &Chart,
    merged: &Value,
    defaults_too: bool,
) -> Result<(), String> {
    let declares = defaults_too && !chart.metadata.dependencies.is_empty();
    for sub in &chart.dependencies {
        let own_default = chart.values.get(sub.name());
        let section = match (merged.get(sub.name()), own_default) {
            (_, Some(Value::Null)) if declares => &Value::Null,
            (Some(v), _) => v,
            (None, _) => continue,
        };
        if !section.is_object() {
            let shown = gotemplate::fmt::sprintf("%t", &[crate::convert::to_template(section)]);
            return Err(format!("type mismatch on {}: {shown}", sub.name()));
        }
        subchart_sections(sub, section, defaults_too)?;
    }
    Ok(())
}

/// Merge a chart's defaults under the user's values: user keys win, a user `null` deletes.
/// Inside a subchart's section nulls are kept, so they delete the subchart's own defaults.
fn coalesce_defaults(chart: &Chart, dest: &mut Map<String, Value>) {
    let Value::Object(defaults) = &*chart.values else {
        return;
    };
    for (key, default) in defaults {
        match dest.get_mut(key) {
            Some(Value::Null) => {
                dest.remove(key);
            }
            Some(Value::Object(user)) => {
                if let Value::Object(default) = default {
                    let is_subchart = chart.dependencies.iter().any(|d| d.name() == key);
                    coalesce_tables(user, default, is_subchart);
                }
            }
            Some(_) => {}
            None => {
                if !default.is_null() {
                    dest.insert(key.clone(), without_nulls(default));
                }
            }
        }
    }
}

/// A value with its null map entries removed at any map depth; lists are kept as they
/// are. Helm 4 drops these nulls from chart defaults and before schema validation.
pub(crate) fn without_nulls(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Helm's `coalesceTablesFullKey`: fill `dst` with what `src` has and `dst` lacks.
/// Unless `merge`, a `null` in `dst` deletes the key.
pub(crate) fn coalesce_tables(dst: &mut Map<String, Value>, src: &Map<String, Value>, merge: bool) {
    for (key, val) in src {
        match dst.get_mut(key) {
            Some(Value::Null) if !merge => {
                dst.remove(key);
            }
            None => {
                if !val.is_null() {
                    dst.insert(key.clone(), without_nulls(val));
                }
            }
            Some(Value::Object(dv)) => {
                if let Value::Object(sv) = val {
                    coalesce_tables(dv, sv, merge);
                }
            }
            Some(_) => {}
        }
    }
}

/// Copy the parent's `global` into the subchart's; the parent's values win.
fn coalesce_globals(sub: &mut Map<String, Value>, parent: &Map<String, Value>) {
    let mut dest_globals = match sub.get("global") {
        Some(Value::Object(g)) => g.clone(),
        _ => Map::new(),
    };
    if let Some(Value::Object(src_globals)) = parent.get("global") {
        for (key, val) in src_globals {
            match (val, dest_globals.get(key)) {
                (Value::Object(parent_map), Some(Value::Object(sub_map))) => {
                    let mut merged = parent_map.clone();
                    coalesce_tables(&mut merged, sub_map, true);
                    dest_globals.insert(key.clone(), Value::Object(merged));
                }
                (Value::Object(_), Some(_)) => {}
                (_, Some(Value::Object(_))) => {}
                _ => {
                    dest_globals.insert(key.clone(), val.clone());
                }
            }
        }
    }
    sub.insert("global".to_string(), Value::Object(dest_globals));
}

/// Read a dotted path such as `redis.enabled` from values.
pub(crate) fn path_value<'a>(values: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(values, |node, key| {
        node.as_object().and_then(|m| m.get(key))
    })
}

/// Helm's LoadValues: every YAML document of a values file, each a map, merged in
/// order (nested maps merge, anything else replaces), with Helm's error texts.
pub fn load_values(text: &str) -> Result<Value, String> {
    let docs = crate::yaml::parse_all(text).map_err(|e| yaml_conversion_error(&e))?;
    let mut merged = Map::new();
    for doc in docs {
        match doc {
            Value::Object(m) => merge_maps(&mut merged, m),
            other => {
                return Err(format!(
                    "cannot unmarshal yaml document: error unmarshaling JSON: while decoding \
                     JSON: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                    json_kind(&other)
                ));
            }
        }
    }
    Ok(Value::Object(merged))
}

/// Helm's words for a values document that is not valid YAML.
pub(crate) fn yaml_conversion_error(e: &str) -> String {
    format!("cannot unmarshal yaml document: error converting YAML to JSON: {e}")
}

/// encoding/json's name for the kind of JSON value found.
fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Helm's MergeMaps: a map merges into a map, any other value replaces.
fn merge_maps(into: &mut Map<String, Value>, from: Map<String, Value>) {
    for (k, v) in from {
        match (into.get_mut(&k), v) {
            (Some(Value::Object(dst)), Value::Object(src)) => merge_maps(dst, src),
            (_, v) => {
                into.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_of_a_values_file_merge_as_helm_merges_them() {
        let v = load_values("a: 1\nm: {p: 1, q: 2}\n---\nb: 2\nm: {q: 3}\n---\n").unwrap();
        assert_eq!(
            v,
            serde_json::json!({"a": 1, "b": 2, "m": {"p": 1, "q": 3}})
        );
        let err = load_values("a: 1\n---\n- x\n").unwrap_err();
        assert!(
            err.ends_with("cannot unmarshal array into Go value of type map[string]interface {}"),
            "{err}"
        );
    }
    use serde_json::json;

    fn merged(defaults: Value, user: Value) -> Value {
        let files = vec![
            crate::chart::ChartFile {
                name: "Chart.yaml".into(),
                data: b"apiVersion: v2\nname: t\nversion: 0.1.0\n".to_vec(),
            },
            crate::chart::ChartFile {
                name: "values.yaml".into(),
                data: serde_json::to_vec(&defaults).unwrap(),
            },
        ];
        let chart = Chart::from_files(std::path::Path::new("t"), files).unwrap();
        coalesce(&chart, &user)
    }

    #[test]
    fn user_values_win_and_missing_defaults_fill_in() {
        let out = merged(
            json!({"a": 1, "m": {"x": 1, "y": 2}}),
            json!({"a": 5, "m": {"y": 3}}),
        );
        assert_eq!(out, json!({"a": 5, "m": {"x": 1, "y": 3}}));
    }

    #[test]
    fn user_null_deletes_a_default() {
        let out = merged(
            json!({"a": 1, "m": {"x": 1, "y": 2}}),
            json!({"a": null, "m": {"x": null}}),
        );
        assert_eq!(out, json!({"m": {"y": 2}}));
    }

    #[test]
    fn null_defaults_are_dropped_but_user_nulls_for_new_keys_stay() {
        let out = merged(
            json!({"top": null, "m": {"a": null, "b": 1}, "l": [null, {"e": null}]}),
            json!({"extra": null, "m": {"new": null}}),
        );
        assert_eq!(
            out,
            json!({"extra": null, "m": {"new": null, "b": 1}, "l": [null, {"e": null}]})
        );
    }

    #[test]
    fn a_user_scalar_replaces_a_default_map() {
        let out = merged(json!({"m": {"x": 1}}), json!({"m": "flat"}));
        assert_eq!(out, json!({"m": "flat"}));
    }

    #[test]
    fn merged_values_fill_subchart_sections_and_globals() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/charts/parent");
        let chart = Chart::load(&dir).unwrap();
        let merged = chart.merged_values(&json!({"child": {"replicas": 5}}));
        assert_eq!(merged["child"]["replicas"], json!(5));
        assert_eq!(merged["child"]["greeting"], json!("hello from parent"));
        assert_eq!(merged["child"]["global"]["env"], json!("production"));
        assert_eq!(merged["child"]["global"]["region"], json!("eu-west-1"));
        assert_eq!(merged["exportedValue"], json!("from-child-exports"));
        assert!(
            merged.get("extra").is_none(),
            "extra is disabled by its tag"
        );
    }

    /// Helm's words, checked with its engine (the differential table has these too).
    #[test]
    fn a_subchart_section_that_is_not_a_map_is_refused() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/charts/parent");
        let chart = Chart::load(&dir).unwrap();
        let refused = |user: Value| {
            let merged = coalesce(&chart, &user);
            subchart_sections(&chart, &merged, false).unwrap_err()
        };
        assert_eq!(
            refused(json!({"child": 5})),
            "type mismatch on child: %!t(float64=5)"
        );
        assert_eq!(
            refused(json!({"child": "x"})),
            "type mismatch on child: %!t(string=x)"
        );
        assert_eq!(
            refused(json!({"child": true})),
            "type mismatch on child: true"
        );
        assert_eq!(
            refused(json!({"child": [1, "b"]})),
            "type mismatch on child: [%!t(float64=1) %!t(string=b)]"
        );
        let merged = coalesce(&chart, &json!({"child": {"replicas": 2}}));
        assert_eq!(subchart_sections(&chart, &merged, true), Ok(()));
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
}
