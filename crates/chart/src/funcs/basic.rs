//! The handful of sprig functions `helm create` charts need, so the starter chart renders
//! on its own. The full sprig library (`crate::sprig`) overrides every one of them.
use std::collections::BTreeMap;
use std::sync::Arc;

use gotmpl::{FuncMap, Value};

use super::{add, arg, int_arg, strval};

/// sprig's `empty`: nil, false, 0, "" and empty collections.
pub(crate) fn is_empty(v: &Value) -> bool {
    match v {
        Value::Nil => true,
        Value::Bool(b) => !b,
        Value::Int(i) => *i == 0,
        Value::Uint(u) => *u == 0,
        Value::Float(f) => *f == 0.0,
        Value::String(s) => s.is_empty(),
        Value::List(l) => l.is_empty(),
        Value::Map(m) => m.is_empty(),
        _ => false,
    }
}

fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn indent(n: i64, s: &str) -> String {
    let pad = " ".repeat(usize::try_from(n).unwrap_or(0));
    format!("{pad}{}", s.replace('\n', &format!("\n{pad}")))
}

pub fn funcs() -> FuncMap {
    let mut m = FuncMap::new();
    add(&mut m, "default", |a| {
        // `default d given`; a missing `given` counts as empty.
        let given = arg(a, 1);
        Ok(if a.len() < 2 || is_empty(given) {
            arg(a, 0).clone()
        } else {
            given.clone()
        })
    });
    add(&mut m, "empty", |a| Ok(Value::Bool(is_empty(arg(a, 0)))));
    add(&mut m, "trunc", |a| {
        let n = int_arg(arg(a, 0));
        let s = strval(arg(a, 1));
        let len = s.len() as i64;
        let out = if n < 0 && len + n > 0 {
            s.get((len + n) as usize..).unwrap_or(&s).to_string()
        } else if n >= 0 && len > n {
            s.get(..n as usize).unwrap_or(&s).to_string()
        } else {
            s
        };
        Ok(super::string(out))
    });
    add(&mut m, "trimSuffix", |a| {
        let (suffix, s) = (strval(arg(a, 0)), strval(arg(a, 1)));
        Ok(super::string(s.strip_suffix(suffix.as_str()).unwrap_or(&s)))
    });
    add(&mut m, "trimPrefix", |a| {
        let (prefix, s) = (strval(arg(a, 0)), strval(arg(a, 1)));
        Ok(super::string(s.strip_prefix(prefix.as_str()).unwrap_or(&s)))
    });
    add(&mut m, "trim", |a| {
        Ok(super::string(strval(arg(a, 0)).trim()))
    });
    add(&mut m, "upper", |a| {
        Ok(super::string(strval(arg(a, 0)).to_uppercase()))
    });
    add(&mut m, "lower", |a| {
        Ok(super::string(strval(arg(a, 0)).to_lowercase()))
    });
    add(&mut m, "replace", |a| {
        Ok(super::string(
            strval(arg(a, 2)).replace(&strval(arg(a, 0)), &strval(arg(a, 1))),
        ))
    });
    add(&mut m, "quote", |a| {
        let parts: Vec<String> = a
            .iter()
            .filter(|v| !matches!(v, Value::Nil))
            .map(|v| go_quote(&strval(v)))
            .collect();
        Ok(super::string(parts.join(" ")))
    });
    add(&mut m, "squote", |a| {
        let parts: Vec<String> = a
            .iter()
            .filter(|v| !matches!(v, Value::Nil))
            .map(|v| format!("'{}'", strval(v)))
            .collect();
        Ok(super::string(parts.join(" ")))
    });
    add(&mut m, "contains", |a| {
        Ok(Value::Bool(strval(arg(a, 1)).contains(&strval(arg(a, 0)))))
    });
    add(&mut m, "hasPrefix", |a| {
        Ok(Value::Bool(
            strval(arg(a, 1)).starts_with(&strval(arg(a, 0))),
        ))
    });
    add(&mut m, "hasSuffix", |a| {
        Ok(Value::Bool(strval(arg(a, 1)).ends_with(&strval(arg(a, 0)))))
    });
    add(&mut m, "first", |a| match arg(a, 0) {
        Value::List(l) => Ok(l.first().cloned().unwrap_or(Value::Nil)),
        _ => Ok(Value::Nil),
    });
    add(&mut m, "indent", |a| {
        Ok(super::string(indent(
            int_arg(arg(a, 0)),
            &strval(arg(a, 1)),
        )))
    });
    add(&mut m, "nindent", |a| {
        Ok(super::string(format!(
            "\n{}",
            indent(int_arg(arg(a, 0)), &strval(arg(a, 1)))
        )))
    });
    add(&mut m, "toString", |a| Ok(super::string(strval(arg(a, 0)))));
    add(&mut m, "int", |a| Ok(Value::Int(int_arg(arg(a, 0)))));
    add(&mut m, "list", |a| {
        Ok(Value::List(a.iter().cloned().collect()))
    });
    add(&mut m, "dict", |a| {
        let mut map: BTreeMap<Arc<str>, Value> = BTreeMap::new();
        for pair in a.chunks(2) {
            let key = strval(&pair[0]);
            map.insert(
                Arc::from(key.as_str()),
                pair.get(1).cloned().unwrap_or(Value::Nil),
            );
        }
        Ok(Value::Map(gotmpl::MapRef::new(map)))
    });
    add(&mut m, "hasKey", |a| match arg(a, 0) {
        Value::Map(map) => Ok(Value::Bool(map.contains_key(strval(arg(a, 1)).as_str()))),
        _ => Ok(Value::Bool(false)),
    });
    add(&mut m, "ternary", |a| {
        Ok(if arg(a, 2).is_truthy() {
            arg(a, 0).clone()
        } else {
            arg(a, 1).clone()
        })
    });
    add(&mut m, "join", |a| match arg(a, 1) {
        Value::List(l) => Ok(super::string(
            l.iter()
                .map(strval)
                .collect::<Vec<_>>()
                .join(&strval(arg(a, 0))),
        )),
        other => Ok(super::string(strval(other))),
    });
    add(&mut m, "add1", |a| Ok(Value::Int(int_arg(arg(a, 0)) + 1)));
    add(&mut m, "base", |a| {
        let path = strval(arg(a, 0));
        let trimmed = path.trim_end_matches('/');
        Ok(super::string(match trimmed.rsplit('/').next() {
            _ if path.is_empty() => ".",
            _ if trimmed.is_empty() => "/",
            Some(b) => b,
            None => trimmed,
        }))
    });
    m
}
