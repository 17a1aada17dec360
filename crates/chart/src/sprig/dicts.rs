//! sprig's dict functions. Go's `set`, `unset`, `merge` and `mergeOverwrite` change
//! the map they are given; gotmpl's maps are shared immutable values, so these return
//! the changed map instead (charts that use the result, as most do, see the same).
use std::sync::Arc;

use gotmpl::{FuncMap, Result, Value};

use super::args::{self, Dict, add, at_least, call_error, dict, exact, string};
use super::cast::{empty, strval};

pub(crate) fn register(m: &mut FuncMap) {
    add(m, "dict", |a| {
        let mut out = Dict::new();
        for pair in a.chunks(2) {
            let value = pair.get(1).cloned().unwrap_or_else(|| args::s(""));
            out.insert(strval(&pair[0]).into(), value);
        }
        Ok(args::map(out))
    });
    add(m, "get", |a| {
        let a = exact("get", a, 2)?;
        let (d, key) = (dict(&a[0])?, string(&a[1])?);
        Ok(d.and_then(|d| d.get(key))
            .cloned()
            .unwrap_or_else(|| args::s("")))
    });
    add(m, "set", |a| {
        let a = exact("set", a, 3)?;
        let key = string(&a[1])?;
        let Some(d) = dict(&a[0])? else {
            return Err(call_error("set", "assignment to entry in nil map"));
        };
        let mut out = d.clone();
        out.insert(key.into(), a[2].clone());
        Ok(args::map(out))
    });
    add(m, "unset", |a| {
        let a = exact("unset", a, 2)?;
        let key = string(&a[1])?;
        let mut out = dict(&a[0])?.cloned().unwrap_or_default();
        out.remove(key);
        Ok(args::map(out))
    });
    add(m, "hasKey", |a| {
        let a = exact("hasKey", a, 2)?;
        let (d, key) = (dict(&a[0])?, string(&a[1])?);
        Ok(Value::Bool(d.is_some_and(|d| d.contains_key(key))))
    });
    add(m, "pluck", |a| {
        let a = at_least("pluck", a, 1)?;
        let key = string(&a[0])?;
        let mut out = Vec::new();
        for d in &a[1..] {
            if let Some(v) = dict(d)?.and_then(|d| d.get(key)) {
                out.push(v.clone());
            }
        }
        Ok(args::list(out))
    });
    add(m, "keys", |a| {
        let mut out = Vec::new();
        for d in a {
            out.extend(
                dict(d)?
                    .into_iter()
                    .flat_map(|d| d.keys().map(|k| Value::String(Arc::clone(k)))),
            );
        }
        Ok(args::list(out))
    });
    add(m, "values", |a| {
        let d = dict(&exact("values", a, 1)?[0])?;
        Ok(args::list(
            d.map(|d| d.values().cloned().collect()).unwrap_or_default(),
        ))
    });
    add(m, "pick", |a| {
        let a = at_least("pick", a, 1)?;
        let d = dict(&a[0])?;
        let mut out = Dict::new();
        for k in &a[1..] {
            let k = string(k)?;
            if let Some((key, v)) = d.and_then(|d| d.get_key_value(k)) {
                out.insert(Arc::clone(key), v.clone());
            }
        }
        Ok(args::map(out))
    });
    add(m, "omit", |a| {
        let a = at_least("omit", a, 1)?;
        let drop = a[1..].iter().map(string).collect::<Result<Vec<_>>>()?;
        let mut out = dict(&a[0])?.cloned().unwrap_or_default();
        out.retain(|k, _| !drop.contains(&k.as_ref()));
        Ok(args::map(out))
    });
    for (name, overwrite) in [
        ("merge", false),
        ("mustMerge", false),
        ("mergeOverwrite", true),
        ("mustMergeOverwrite", true),
    ] {
        add(m, name, move |a| {
            let a = at_least(name, a, 1)?;
            let mut out = dict(&a[0])?.cloned().unwrap_or_default();
            for src in &a[1..] {
                if let Some(src) = dict(src)? {
                    merge_into(&mut out, src, overwrite);
                }
            }
            Ok(args::map(out))
        });
    }
    for name in ["deepCopy", "mustDeepCopy"] {
        add(m, name, move |a| Ok(exact(name, a, 1)?[0].clone()));
    }
    add(m, "dig", dig);
}

/// mergo.Merge / mergo.MergeWithOverwrite on `map[string]interface{}`: maps merge
/// key by key; otherwise a source value replaces a missing or empty destination
/// value (always, with `overwrite`); nil sources are skipped unless overwriting.
pub fn merge_into(dst: &mut Dict, src: &Dict, overwrite: bool) {
    for (key, sv) in src {
        if matches!(sv, Value::Nil) {
            if overwrite {
                dst.insert(Arc::clone(key), Value::Nil);
            }
            continue;
        }
        if let (Some(Value::Map(dm)), Value::Map(sm)) = (dst.get(key), sv)
            && !dm.is_empty()
        {
            let mut merged = (**dm).clone();
            merge_into(&mut merged, sm, overwrite);
            dst.insert(Arc::clone(key), args::map(merged));
            continue;
        }
        let replace = overwrite || dst.get(key).is_none_or(empty);
        if replace {
            dst.insert(Arc::clone(key), sv.clone());
        }
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
        Value::Map(m) => m,
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
            return Ok(step.clone());
        }
        current = match step {
            Value::Map(m) => m,
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
    }
    Ok(default.clone())
}
