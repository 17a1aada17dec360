//! Helm's coalescing (helm/helm pkg/chart/common/util/coalesce.go), step for step: the
//! release's values win, maps merge key by key, a chart's defaults fill what is missing,
//! each subchart gets its own section with `global` copied down from its parent.
//!
//! Coalescing (`CoalesceValues`, what a render uses) lets a `null` delete the default it
//! stands over and drops the nulls of chart defaults; merging (`MergeValues`, for values
//! that will be coalesced again later) keeps every `null`. Inside a subchart's section
//! the parent's defaults merge even while coalescing, so a parent's `null` there deletes
//! the subchart's own default, as in Helm.
use serde_json::{Map, Value};

/// A chart as coalescing sees it: its name, its own defaults (values.yaml) and its
/// subcharts, each coalesced into the section named after it.
pub trait Chart {
    /// The chart's name, which is also the key of its section in its parent's values.
    fn name(&self) -> &str;
    /// The chart's defaults; anything but a map has none.
    fn values(&self) -> &Value;
    /// The charts it depends on that are part of the render.
    fn subcharts(&self) -> &[Self]
    where
        Self: Sized;
}

/// A chart known only by its defaults, with no subcharts: what an operator has that reads
/// a chart's values.yaml without loading the chart.
#[derive(Debug, Clone, Copy)]
pub struct Defaults<'a>(pub &'a Value);

impl Chart for Defaults<'_> {
    fn name(&self) -> &'static str {
        ""
    }

    fn values(&self) -> &Value {
        self.0
    }

    fn subcharts(&self) -> &[Self] {
        &[]
    }
}

/// Helm's `CoalesceValues`: `user` over the defaults of `chart` and of every subchart
/// (under the subchart's name), globals copied down; a `null` deletes what it stands over.
///
/// A subchart section that is not a map is left as it is, unfilled; Helm refuses it
/// (`type mismatch on <name>`), which the caller reports in its own words.
pub fn coalesce_values<C: Chart>(chart: &C, user: &Value) -> Value {
    coalesce(chart, user, false)
}

/// Helm's `MergeValues`: as [`coalesce_values`], but every `null` is kept, so that it
/// still deletes its default when the values are coalesced again (by Helm's install or
/// upgrade).
pub fn merge_values<C: Chart>(chart: &C, user: &Value) -> Value {
    coalesce(chart, user, true)
}

fn coalesce<C: Chart>(chart: &C, user: &Value, merge: bool) -> Value {
    let mut dest = match user {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    coalesce_chart(chart, &mut dest, merge);
    Value::Object(dest)
}

/// Helm's `coalesce`: the chart's own defaults, then each subchart in its section.
fn coalesce_chart<C: Chart>(chart: &C, dest: &mut Map<String, Value>, merge: bool) {
    coalesce_defaults(chart, dest, merge);
    for sub in chart.subcharts() {
        let entry = dest
            .entry(sub.name())
            .or_insert_with(|| Value::Object(Map::new()));
        let Some(mut section) = entry.as_object_mut().map(std::mem::take) else {
            continue;
        };
        coalesce_globals(&mut section, dest);
        coalesce_chart(sub, &mut section, merge);
        dest.insert(sub.name().to_string(), Value::Object(section));
    }
}

/// Helm's `coalesceValues`: the chart's defaults under the values in `dest`.
fn coalesce_defaults<C: Chart>(chart: &C, dest: &mut Map<String, Value>, merge: bool) {
    let Value::Object(defaults) = chart.values() else {
        return;
    };
    for (key, default) in defaults {
        match dest.get_mut(key) {
            Some(Value::Null) if !merge => {
                dest.remove(key);
            }
            Some(Value::Object(given)) => {
                let Value::Object(default) = default else {
                    continue;
                };
                // A subchart's section merges: its nulls reach the subchart's defaults.
                if merge || chart.subcharts().iter().any(|sub| sub.name() == key) {
                    coalesce_tables(given, default, true);
                } else {
                    let mut cleaned = default.clone();
                    remove_nulls(&mut cleaned);
                    coalesce_tables(given, &cleaned, false);
                }
            }
            Some(_) => {}
            None if merge => {
                dest.insert(key.clone(), default.clone());
            }
            None => {
                if !default.is_null() {
                    dest.insert(key.clone(), without_nulls(default));
                }
            }
        }
    }
}

/// Helm's `coalesceTablesFullKey`: fill `dst` with what `src` has and `dst` lacks, maps
/// merging at any depth. Unless `merge`, a `null` in `dst` over a value of `src` deletes
/// the key; a `null` over nothing (or over a `null`) stays.
pub fn coalesce_tables(dst: &mut Map<String, Value>, src: &Map<String, Value>, merge: bool) {
    for (key, val) in src {
        match dst.get_mut(key) {
            Some(Value::Null) => {
                if !merge && !val.is_null() {
                    dst.remove(key);
                }
            }
            None => {
                dst.insert(key.clone(), val.clone());
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

/// Helm's `coalesceGlobals`: the parent's `global` copied into the subchart's, the
/// parent's values winning. Either one not being a map leaves the subchart's as it is.
fn coalesce_globals(section: &mut Map<String, Value>, parent: &Map<String, Value>) {
    let mut globals = match section.get("global") {
        None => Map::new(),
        Some(Value::Object(own)) => own.clone(),
        Some(_) => return,
    };
    let none = Map::new();
    let inherited = match parent.get("global") {
        None => &none,
        Some(Value::Object(inherited)) => inherited,
        Some(_) => return,
    };
    for (key, val) in inherited {
        match (val, globals.get(key)) {
            (Value::Object(from_parent), Some(Value::Object(own))) => {
                let mut merged = from_parent.clone();
                coalesce_tables(&mut merged, own, true);
                globals.insert(key.clone(), Value::Object(merged));
            }
            // A map over a scalar, or a scalar over a map: Helm skips the key.
            (Value::Object(_), Some(_)) | (_, Some(Value::Object(_))) => {}
            _ => {
                globals.insert(key.clone(), val.clone());
            }
        }
    }
    section.insert("global".to_string(), Value::Object(globals));
}

/// A value with its null map entries removed at any map depth; lists are kept as they
/// are (Helm's `cleanNilValues`). Helm drops these nulls from chart defaults while
/// coalescing, and from values before schema validation.
pub fn without_nulls(value: &Value) -> Value {
    let mut value = value.clone();
    if let Value::Object(map) = &mut value {
        remove_nulls(map);
    }
    value
}

fn remove_nulls(map: &mut Map<String, Value>) {
    map.retain(|_, v| !v.is_null());
    for v in map.values_mut() {
        if let Value::Object(inner) = v {
            remove_nulls(inner);
        }
    }
}

/// Helm's `Values.PathValue` lookup: a dotted path such as `redis.enabled`, through maps
/// only.
pub fn path_value<'a>(values: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(values, |node, key| {
        node.as_object().and_then(|m| m.get(key))
    })
}

#[cfg(test)]
mod tests;
