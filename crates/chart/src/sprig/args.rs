//! Argument checking with Go text/template's rules: a Go function parameter of type
//! `string`, `int` or `bool` accepts only a value of that type, and the error names
//! the expected and the actual Go type just as Go's template engine does.
use std::collections::BTreeMap;
use std::sync::Arc;

use gotemplate::{FuncMap, MapRef, Result, TemplateError, Value};

/// Register a sprig function.
pub(crate) fn add(
    map: &mut FuncMap,
    name: &str,
    f: impl Fn(&[Value]) -> Result<Value> + Send + Sync + 'static,
) {
    map.insert(name.to_string(), Arc::new(f));
}

/// A template function as Helm's `funcMap` lists it: the name templates call, the Go
/// type reflection shows for it (what the engine checks arguments against before the
/// call) and the named function that does the work.
pub(crate) struct Function {
    pub name: &'static str,
    pub go_type: &'static str,
    pub body: Body,
}

/// The Rust function behind a template function.
#[derive(Clone, Copy)]
pub(crate) enum Body {
    /// Needs only its arguments.
    Args(fn(&[Value]) -> Result<Value>),
    /// Needs only its arguments and cannot fail.
    Total(fn(&[Value]) -> Value),
    /// Shared by several template names (a function and its `must` twin, aliases), so
    /// it is told the name it was called by: Go's errors name it.
    Named(fn(&'static str, &[Value]) -> Result<Value>),
    /// A Go `func(string) string`: the one string argument is checked here.
    String(fn(&str) -> String),
    /// A Go `func(string, string) T`: both string arguments are checked here.
    Strings2(fn(&str, &str) -> Value),
}

impl Function {
    /// A function whose body needs only its arguments.
    pub(crate) const fn new(
        name: &'static str,
        go_type: &'static str,
        body: fn(&[Value]) -> Result<Value>,
    ) -> Self {
        Function {
            name,
            go_type,
            body: Body::Args(body),
        }
    }

    /// A function that cannot fail.
    pub(crate) const fn total(
        name: &'static str,
        go_type: &'static str,
        body: fn(&[Value]) -> Value,
    ) -> Self {
        Function {
            name,
            go_type,
            body: Body::Total(body),
        }
    }

    /// A function whose body is shared with other names and told the one it was
    /// called by.
    pub(crate) const fn named(
        name: &'static str,
        go_type: &'static str,
        body: fn(&'static str, &[Value]) -> Result<Value>,
    ) -> Self {
        Function {
            name,
            go_type,
            body: Body::Named(body),
        }
    }

    /// A Go `func(string) string`.
    pub(crate) const fn string(name: &'static str, body: fn(&str) -> String) -> Self {
        Function {
            name,
            go_type: "func(string) string",
            body: Body::String(body),
        }
    }

    /// A Go function of two `string` parameters, of type `go_type`.
    pub(crate) const fn strings2(
        name: &'static str,
        go_type: &'static str,
        body: fn(&str, &str) -> Value,
    ) -> Self {
        Function {
            name,
            go_type,
            body: Body::Strings2(body),
        }
    }
}

/// Register every function of a family's table.
pub(crate) fn add_all(map: &mut FuncMap, table: &[Function]) {
    for function in table {
        match function.body {
            Body::Args(body) => add(map, function.name, body),
            Body::Total(body) => add(map, function.name, move |args| Ok(body(args))),
            Body::Named(body) => {
                let name = function.name;
                add(map, name, move |args| body(name, args));
            }
            Body::String(body) => {
                let name = function.name;
                add(map, name, move |args| {
                    Ok(s(body(string(&exact(name, args, 1)?[0])?)))
                });
            }
            Body::Strings2(body) => {
                let name = function.name;
                add(map, name, move |args| {
                    let args = exact(name, args, 2)?;
                    Ok(body(string(&args[0])?, string(&args[1])?))
                });
            }
        }
    }
}

/// An error raised inside a function, worded like Go's `error calling NAME: ...`.
pub(crate) fn call_error(name: &str, message: impl std::fmt::Display) -> TemplateError {
    TemplateError::Exec(format!("error calling {name}: {message}"))
}

/// Go's type name for a template value, as `%T` and type errors print it.
pub(crate) fn go_type(v: &Value) -> String {
    v.type_name()
}

/// Exactly `n` arguments, or Go's "wrong number of args" error.
pub(crate) fn exact<'a>(name: &str, args: &'a [Value], n: usize) -> Result<&'a [Value]> {
    if args.len() != n {
        return Err(TemplateError::Exec(format!(
            "wrong number of args for {name}: want {n} got {}",
            args.len()
        )));
    }
    Ok(args)
}

/// At least `n` arguments (variadic Go functions).
pub(crate) fn at_least<'a>(name: &str, args: &'a [Value], n: usize) -> Result<&'a [Value]> {
    if args.len() < n {
        return Err(TemplateError::Exec(format!(
            "wrong number of args for {name}: want at least {n} got {}",
            args.len()
        )));
    }
    Ok(args)
}

fn wrong_type(expected: &str, v: &Value) -> TemplateError {
    match v {
        Value::Nil => TemplateError::Exec(format!("invalid value; expected {expected}")),
        _ => TemplateError::Exec(format!(
            "wrong type for value; expected {expected}; got {}",
            go_type(v)
        )),
    }
}

/// A Go `string` parameter.
pub(crate) fn string(v: &Value) -> Result<&str> {
    match v {
        Value::String(s) => Ok(s),
        _ => Err(wrong_type("string", v)),
    }
}

/// A Go `int` parameter: template integer constants and integer results only; a
/// float64 (every number from values.yaml) is refused as Go refuses it.
pub(crate) fn int(v: &Value) -> Result<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Uint(u) => i64::try_from(*u).map_err(|_| wrong_type("int", v)),
        _ => Err(wrong_type("int", v)),
    }
}

/// A Go `bool` parameter.
pub(crate) fn boolean(v: &Value) -> Result<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        _ => Err(wrong_type("bool", v)),
    }
}

/// A Go `len`, which is an `int` (lengths fit in one on every target we build for).
pub(crate) fn go_len(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A Go `int` used as an index or count: callers have checked it is not negative (a
/// negative one would be 0) and it fits the address space, or the slice it indexes
/// refuses it.
pub(crate) fn go_index(i: i64) -> usize {
    usize::try_from(i.max(0)).unwrap_or(usize::MAX)
}

/// The map type every sprig dict function takes.
pub(crate) type Dict = BTreeMap<Arc<str>, Value>;

/// A Go `map[string]interface{}` parameter to read: its entries as they are now; nil is
/// an empty (nil) map as in Go.
pub(crate) fn dict(v: &Value) -> Result<Option<Arc<Dict>>> {
    Ok(shared_dict(v)?.map(MapRef::snapshot))
}

/// A Go `map[string]interface{}` parameter to change in place (Go maps are references).
pub(crate) fn shared_dict(v: &Value) -> Result<Option<&MapRef>> {
    match v {
        Value::Map(m) => Ok(Some(m)),
        Value::Nil => Ok(None),
        _ => Err(wrong_type("map[string]interface {}", v)),
    }
}

/// A string value.
pub(crate) fn s(text: impl Into<Arc<str>>) -> Value {
    Value::String(text.into())
}

/// A list value.
pub(crate) fn list(items: Vec<Value>) -> Value {
    Value::List(items.into())
}

/// A map value.
pub(crate) fn map(entries: Dict) -> Value {
    Value::Map(MapRef::new(entries))
}
