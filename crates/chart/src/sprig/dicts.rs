//! sprig's dict functions. As in Go, `set`, `unset`, `merge` and `mergeOverwrite`
//! change the map they are given in place (every holder of it, `.Values` included,
//! sees the change) and return it; `deepCopy` gives maps nobody else holds.
use std::sync::Arc;

use gotemplate::{MapRef, Result, Value};

use super::args::{self, Dict, Function, at_least, call_error, dict, exact, shared_dict, string};
use super::cast::{empty, strval};

/// The family's template functions. `merge` and `deepCopy` share their bodies with
/// their `must` twins: Go's panic in the one and returned error in the other both stop
/// the render.
pub(crate) const FUNCTIONS: &[Function] = &[
    Function::total(
        "dict",
        "func(...interface {}) map[string]interface {}",
        dict_of,
    ),
    Function::new(
        "get",
        "func(map[string]interface {}, string) interface {}",
        get,
    ),
    Function::new(
        "set",
        "func(map[string]interface {}, string, interface {}) map[string]interface {}",
        set,
    ),
    Function::new(
        "unset",
        "func(map[string]interface {}, string) map[string]interface {}",
        unset,
    ),
    Function::new(
        "hasKey",
        "func(map[string]interface {}, string) bool",
        has_key,
    ),
    Function::new(
        "pluck",
        "func(string, ...map[string]interface {}) []interface {}",
        pluck,
    ),
    Function::new("keys", "func(...map[string]interface {}) []string", keys),
    Function::new(
        "values",
        "func(map[string]interface {}) []interface {}",
        values,
    ),
    Function::new(
        "pick",
        "func(map[string]interface {}, ...string) map[string]interface {}",
        pick,
    ),
    Function::new(
        "omit",
        "func(map[string]interface {}, ...string) map[string]interface {}",
        omit,
    ),
    Function::named(
        "merge",
        "func(map[string]interface {}, ...map[string]interface {}) interface {}",
        merge,
    ),
    Function::named(
        "mustMerge",
        "func(map[string]interface {}, ...map[string]interface {}) (interface {}, error)",
        merge,
    ),
    Function::named(
        "mergeOverwrite",
        "func(map[string]interface {}, ...map[string]interface {}) interface {}",
        merge_overwrite,
    ),
    Function::named(
        "mustMergeOverwrite",
        "func(map[string]interface {}, ...map[string]interface {}) (interface {}, error)",
        merge_overwrite,
    ),
    Function::named("deepCopy", "func(interface {}) interface {}", deep_copy_of),
    Function::named(
        "mustDeepCopy",
        "func(interface {}) (interface {}, error)",
        deep_copy_of,
    ),
    Function::new("dig", "func(...interface {}) (interface {}, error)", dig),
];

/// `dict "k1" v1 "k2" v2 ...`: keys are printed as strings; a missing last value is "".
fn dict_of(a: &[Value]) -> Value {
    let mut out = Dict::new();
    for pair in a.chunks(2) {
        let value = pair.get(1).cloned().unwrap_or_else(|| args::s(""));
        out.insert(strval(&pair[0]).into(), value);
    }
    args::map(out)
}

fn get(a: &[Value]) -> Result<Value> {
    let a = exact("get", a, 2)?;
    let (d, key) = (dict(&a[0])?, string(&a[1])?);
    Ok(d.and_then(|d| d.get(key).cloned())
        .unwrap_or_else(|| args::s("")))
}

fn set(a: &[Value]) -> Result<Value> {
    let a = exact("set", a, 3)?;
    let key = string(&a[1])?;
    let Some(d) = shared_dict(&a[0])? else {
        return Err(call_error("set", "assignment to entry in nil map"));
    };
    d.insert(key.into(), a[2].clone());
    Ok(a[0].clone())
}

fn unset(a: &[Value]) -> Result<Value> {
    let a = exact("unset", a, 2)?;
    let key = string(&a[1])?;
    match shared_dict(&a[0])? {
        Some(d) => {
            d.remove(key);
            Ok(a[0].clone())
        }
        // Go's delete on a nil map does nothing; the result prints as an empty map.
        None => Ok(args::map(Dict::new())),
    }
}

fn has_key(a: &[Value]) -> Result<Value> {
    let a = exact("hasKey", a, 2)?;
    let (d, key) = (dict(&a[0])?, string(&a[1])?);
    Ok(Value::Bool(d.is_some_and(|d| d.contains_key(key))))
}

fn pluck(a: &[Value]) -> Result<Value> {
    let a = at_least("pluck", a, 1)?;
    let key = string(&a[0])?;
    let mut out = Vec::new();
    for d in &a[1..] {
        if let Some(v) = dict(d)?.and_then(|d| d.get(key).cloned()) {
            out.push(v);
        }
    }
    Ok(args::list(out))
}

fn keys(a: &[Value]) -> Result<Value> {
    let mut out = Vec::new();
    for d in a {
        out.extend(
            dict(d)?
                .iter()
                .flat_map(|d| d.keys().map(|k| Value::String(Arc::clone(k)))),
        );
    }
    Ok(args::list(out))
}

fn values(a: &[Value]) -> Result<Value> {
    let d = dict(&exact("values", a, 1)?[0])?;
    Ok(args::list(
        d.map(|d| d.values().cloned().collect()).unwrap_or_default(),
    ))
}

fn pick(a: &[Value]) -> Result<Value> {
    let a = at_least("pick", a, 1)?;
    let d = dict(&a[0])?;
    let mut out = Dict::new();
    for k in &a[1..] {
        let k = string(k)?;
        if let Some((key, v)) = d.as_ref().and_then(|d| d.get_key_value(k)) {
            out.insert(Arc::clone(key), v.clone());
        }
    }
    Ok(args::map(out))
}

fn omit(a: &[Value]) -> Result<Value> {
    let a = at_least("omit", a, 1)?;
    let drop = a[1..].iter().map(string).collect::<Result<Vec<_>>>()?;
    let mut out = dict(&a[0])?.map(|d| (*d).clone()).unwrap_or_default();
    out.retain(|k, _| !drop.contains(&k.as_ref()));
    Ok(args::map(out))
}

fn merge(name: &str, a: &[Value]) -> Result<Value> {
    merge_all(name, a, false)
}

fn merge_overwrite(name: &str, a: &[Value]) -> Result<Value> {
    merge_all(name, a, true)
}

/// Every source merged into the first map, in place, which is returned.
fn merge_all(name: &str, a: &[Value], overwrite: bool) -> Result<Value> {
    let a = at_least(name, a, 1)?;
    // A nil destination gets a new map, as mergo's pointer-to-nil-map does.
    let dst = match shared_dict(&a[0])? {
        Some(d) => d.clone(),
        None => MapRef::default(),
    };
    for src in &a[1..] {
        if let Some(src) = dict(src)? {
            merge_into(&dst, &src, overwrite);
        }
    }
    Ok(Value::Map(dst))
}

fn deep_copy_of(name: &str, a: &[Value]) -> Result<Value> {
    match &exact(name, a, 1)?[0] {
        // copystructure asks reflect for the type of the nil it was given.
        Value::Nil => Err(call_error(
            name,
            "reflect: call of reflect.Value.Type on zero Value",
        )),
        v => Ok(deep_copy(v)),
    }
}

/// mergo.Merge / mergo.MergeWithOverwrite on `map[string]interface{}`, in place: maps
/// merge key by key (nested destination maps change in place too); otherwise a source
/// value replaces a missing or empty destination value (always, with `overwrite`); nil
/// sources are skipped unless overwriting.
///
/// No lock is held across the recursion, so a source may share maps with `dst`.
pub fn merge_into(dst: &MapRef, src: &Dict, overwrite: bool) {
    for (key, sv) in src {
        if matches!(sv, Value::Nil) {
            if overwrite {
                dst.insert(Arc::clone(key), Value::Nil);
            }
            continue;
        }
        let current = dst.get(key);
        if let (Some(Value::Map(dm)), Value::Map(sm)) = (&current, sv)
            && !dm.is_empty()
        {
            merge_into(dm, &sm.snapshot(), overwrite);
            continue;
        }
        if overwrite || current.as_ref().is_none_or(empty) {
            dst.insert(Arc::clone(key), sv.clone());
        }
    }
}

/// copystructure.Copy: the same value with every map and list newly made, so that
/// changing the copy never changes the original.
pub fn deep_copy(v: &Value) -> Value {
    match v {
        // A nil map copies as nil; a map keeps its Go type.
        Value::Map(m) if m.is_nil() => Value::Map(m.clone()),
        Value::Map(m) => {
            let copy: MapRef = m
                .snapshot()
                .iter()
                .map(|(k, v)| (Arc::clone(k), deep_copy(v)))
                .collect::<Dict>()
                .into();
            Value::Map(match m.go_type_name() {
                Some(name) => copy.with_type_name(name),
                None => copy,
            })
        }
        Value::List(items) => Value::List(items.iter().map(deep_copy).collect()),
        Value::Object(o) if o.type_name() == "*semver.Version" => {
            super::semver::deep_copied_version()
        }
        other => other.clone(),
    }
}

/// `dig "a" "b" default dict`: the value at the key path, or the default.
fn dig(a: &[Value]) -> Result<Value> {
    if a.len() < 3 {
        return Err(call_error("dig", "dig needs at least three arguments"));
    }
    let (keys, rest) = a.split_at(a.len() - 2);
    let default = &rest[0];
    let mut current = match &rest[1] {
        // Another map type (`map[string]string`) fails sprig's type assertion.
        Value::Map(m) if m.go_type_name().is_none() => m.clone(),
        other => {
            return Err(call_error(
                "dig",
                format!(
                    "interface conversion: interface {{}} is {}, not map[string]interface {{}}",
                    args::go_type(other)
                ),
            ));
        }
    };
    for (i, key) in keys.iter().enumerate() {
        let key = match key {
            Value::String(k) => k,
            other => {
                return Err(call_error(
                    "dig",
                    format!(
                        "interface conversion: interface {{}} is {}, not string",
                        args::go_type(other)
                    ),
                ));
            }
        };
        let Some(step) = current.get(key.as_ref()) else {
            return Ok(default.clone());
        };
        if i + 1 == keys.len() {
            return Ok(step);
        }
        current = match step {
            Value::Map(m) => m,
            other => {
                return Err(call_error(
                    "dig",
                    format!(
                        "interface conversion: interface {{}} is {}, not map[string]interface {{}}",
                        args::go_type(&other)
                    ),
                ));
            }
        };
    }
    Ok(default.clone())
}
