//! sprig's defaults.go and reflect.go: default, empty, coalesce, all, any, ternary,
//! the JSON functions, and Go type inspection (typeOf, kindOf, deepEqual).
use gotemplate::{Result, Value};

use super::args::{Function, at_least, boolean, call_error, exact, go_type, s, string};
use super::cast::empty;
use crate::gojson::{self as json, JsonStyle};

/// The family's template functions, with sprig's own Go types; Helm's funcMap replaces
/// `fail`, `toJson`, `mustToJson` and `fromJson` with its own (`funcs::helm`).
pub(crate) const FUNCTIONS: &[Function] = &[
    Function::new(
        "default",
        "func(interface {}, ...interface {}) interface {}",
        default,
    ),
    Function::new("empty", "func(interface {}) bool", is_empty),
    Function::total("coalesce", "func(...interface {}) interface {}", coalesce),
    Function::total("all", "func(...interface {}) bool", all),
    Function::total("any", "func(...interface {}) bool", any),
    Function::new(
        "ternary",
        "func(interface {}, interface {}, bool) interface {}",
        ternary,
    ),
    Function::new("fail", "func(string) (string, error)", fail),
    Function::named("toJson", "func(interface {}) string", to_json),
    Function::named(
        "mustToJson",
        "func(interface {}) (string, error)",
        must_to_json,
    ),
    Function::named("toPrettyJson", "func(interface {}) string", to_json),
    Function::named(
        "mustToPrettyJson",
        "func(interface {}) (string, error)",
        must_to_json,
    ),
    Function::named("toRawJson", "func(interface {}) string", to_json),
    Function::named(
        "mustToRawJson",
        "func(interface {}) (string, error)",
        must_to_json,
    ),
    Function::new("fromJson", "func(string) interface {}", from_json),
    Function::new(
        "mustFromJson",
        "func(string) (interface {}, error)",
        must_from_json,
    ),
    Function::new("typeOf", "func(interface {}) string", type_of),
    Function::new("typeIs", "func(string, interface {}) bool", type_is),
    Function::new(
        "typeIsLike",
        "func(string, interface {}) bool",
        type_is_like,
    ),
    Function::new("kindOf", "func(interface {}) string", kind_of),
    Function::new("kindIs", "func(string, interface {}) bool", kind_is),
    Function::new(
        "deepEqual",
        "func(interface {}, interface {}) bool",
        deep_equal,
    ),
];

/// `default fallback given`: `given` unless it is empty.
fn default(a: &[Value]) -> Result<Value> {
    let a = at_least("default", a, 1)?;
    Ok(match a.get(1) {
        Some(given) if !empty(given) => given.clone(),
        _ => a[0].clone(),
    })
}

fn is_empty(a: &[Value]) -> Result<Value> {
    Ok(Value::Bool(empty(&exact("empty", a, 1)?[0])))
}

fn coalesce(a: &[Value]) -> Value {
    a.iter().find(|v| !empty(v)).cloned().unwrap_or(Value::Nil)
}

fn all(a: &[Value]) -> Value {
    Value::Bool(a.iter().all(|v| !empty(v)))
}

fn any(a: &[Value]) -> Value {
    Value::Bool(a.iter().any(|v| !empty(v)))
}

fn ternary(a: &[Value]) -> Result<Value> {
    let a = exact("ternary", a, 3)?;
    Ok(if boolean(&a[2])? {
        a[0].clone()
    } else {
        a[1].clone()
    })
}

/// Helm's engine reports this error as `execution error at (file:line:col): msg`.
fn fail(a: &[Value]) -> Result<Value> {
    Err(call_error("fail", string(&exact("fail", a, 1)?[0])?))
}

/// The JSON style each JSON function's name asks for.
fn json_style(name: &str) -> JsonStyle {
    match name {
        "toPrettyJson" | "mustToPrettyJson" => JsonStyle {
            pretty: true,
            escape_html: true,
        },
        "toRawJson" | "mustToRawJson" => JsonStyle {
            pretty: false,
            escape_html: false,
        },
        _ => JsonStyle::MARSHAL,
    }
}

/// `toJson` and its pretty and raw forms: "" for a value JSON cannot hold.
pub(crate) fn to_json(name: &str, a: &[Value]) -> Result<Value> {
    Ok(s(
        json::encode(&exact(name, a, 1)?[0], json_style(name)).unwrap_or_default()
    ))
}

/// `mustToJson` and its pretty and raw forms: Go's error for a value JSON cannot hold.
pub(crate) fn must_to_json(name: &str, a: &[Value]) -> Result<Value> {
    let v = &exact(name, a, 1)?[0];
    json::encode(v, json_style(name))
        .map(s)
        .ok_or_else(|| call_error(name, json::unsupported(v)))
}

fn from_json(a: &[Value]) -> Result<Value> {
    Ok(json::decode(string(&exact("fromJson", a, 1)?[0])?).unwrap_or(Value::Nil))
}

fn must_from_json(a: &[Value]) -> Result<Value> {
    json::decode(string(&exact("mustFromJson", a, 1)?[0])?)
        .map_err(|e| call_error("mustFromJson", e))
}

fn type_of(a: &[Value]) -> Result<Value> {
    Ok(s(go_type(&exact("typeOf", a, 1)?[0])))
}

fn type_is(a: &[Value]) -> Result<Value> {
    let a = exact("typeIs", a, 2)?;
    Ok(Value::Bool(string(&a[0])? == go_type(&a[1])))
}

/// `typeIsLike "T" v`: `v` is a `T` or a `*T`.
fn type_is_like(a: &[Value]) -> Result<Value> {
    let a = exact("typeIsLike", a, 2)?;
    let (target, t) = (string(&a[0])?, go_type(&a[1]));
    Ok(Value::Bool(target == t || format!("*{target}") == t))
}

fn kind_of(a: &[Value]) -> Result<Value> {
    Ok(s(exact("kindOf", a, 1)?[0].kind_name()))
}

fn kind_is(a: &[Value]) -> Result<Value> {
    let a = exact("kindIs", a, 2)?;
    Ok(Value::Bool(string(&a[0])? == a[1].kind_name()))
}

fn deep_equal(a: &[Value]) -> Result<Value> {
    let a = exact("deepEqual", a, 2)?;
    Ok(Value::Bool(a[0] == a[1]))
}
