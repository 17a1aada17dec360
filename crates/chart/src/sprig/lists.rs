//! sprig's list functions. Go panics on a non-list argument and the template engine
//! turns the panic into an error; the `must` variants return that error directly.
//! Either way the render stops, so both share one implementation here.
use std::sync::Arc;

use gotemplate::{Result, TemplateError, Value};

use super::args::{self, Function, at_least, call_error, exact, go_index, go_len, int};
use super::cast::{empty, to_int64};

/// The list argument, or sprig's error for other types.
fn items(name: &str, what: &str, v: &Value) -> Result<Arc<[Value]>> {
    if let Some(l) = v.as_list() {
        return Ok(l);
    }
    match v {
        Value::Nil => Err(call_error(
            name,
            "runtime error: invalid memory address or nil pointer dereference",
        )),
        other => Err(call_error(
            name,
            format!("Cannot {what} type {}", other.kind_name()),
        )),
    }
}

/// The family's template functions. Each `mustName` shares its body with `name`: Go's
/// panic in the one and returned error in the other both stop the render.
pub(crate) const FUNCTIONS: &[Function] = &[
    Function::total("list", "func(...interface {}) []interface {}", list),
    Function::total("tuple", "func(...interface {}) []interface {}", list),
    Function::named(
        "push",
        "func(interface {}, interface {}) []interface {}",
        push,
    ),
    Function::named(
        "mustPush",
        "func(interface {}, interface {}) ([]interface {}, error)",
        push,
    ),
    Function::named(
        "append",
        "func(interface {}, interface {}) []interface {}",
        push,
    ),
    Function::named(
        "mustAppend",
        "func(interface {}, interface {}) ([]interface {}, error)",
        push,
    ),
    Function::named(
        "prepend",
        "func(interface {}, interface {}) []interface {}",
        prepend,
    ),
    Function::named(
        "mustPrepend",
        "func(interface {}, interface {}) ([]interface {}, error)",
        prepend,
    ),
    Function::named("first", "func(interface {}) interface {}", first),
    Function::named(
        "mustFirst",
        "func(interface {}) (interface {}, error)",
        first,
    ),
    Function::named("last", "func(interface {}) interface {}", last),
    Function::named("mustLast", "func(interface {}) (interface {}, error)", last),
    Function::named("rest", "func(interface {}) []interface {}", rest),
    Function::named(
        "mustRest",
        "func(interface {}) ([]interface {}, error)",
        rest,
    ),
    Function::named("initial", "func(interface {}) []interface {}", initial),
    Function::named(
        "mustInitial",
        "func(interface {}) ([]interface {}, error)",
        initial,
    ),
    Function::named("reverse", "func(interface {}) []interface {}", reverse),
    Function::named(
        "mustReverse",
        "func(interface {}) ([]interface {}, error)",
        reverse,
    ),
    Function::named("uniq", "func(interface {}) []interface {}", uniq),
    Function::named(
        "mustUniq",
        "func(interface {}) ([]interface {}, error)",
        uniq,
    ),
    Function::named("compact", "func(interface {}) []interface {}", compact),
    Function::named(
        "mustCompact",
        "func(interface {}) ([]interface {}, error)",
        compact,
    ),
    Function::named(
        "without",
        "func(interface {}, ...interface {}) []interface {}",
        without,
    ),
    Function::named(
        "mustWithout",
        "func(interface {}, ...interface {}) ([]interface {}, error)",
        without,
    ),
    Function::named("has", "func(interface {}, interface {}) bool", has),
    Function::named(
        "mustHas",
        "func(interface {}, interface {}) (bool, error)",
        has,
    ),
    Function::named(
        "slice",
        "func(interface {}, ...interface {}) interface {}",
        slice,
    ),
    Function::named(
        "mustSlice",
        "func(interface {}, ...interface {}) (interface {}, error)",
        slice,
    ),
    Function::named("chunk", "func(int, interface {}) [][]interface {}", chunk),
    Function::named(
        "mustChunk",
        "func(int, interface {}) ([][]interface {}, error)",
        chunk,
    ),
    Function::new("concat", "func(...interface {}) interface {}", concat),
];

fn list_of(v: Vec<Value>) -> Value {
    args::list(v)
}

/// `list` and `tuple`: the arguments as a list.
fn list(a: &[Value]) -> Value {
    list_of(a.to_vec())
}

/// `push` and `append`: the list with one more item at the end.
fn push(n: &str, a: &[Value]) -> Result<Value> {
    let a = exact(n, a, 2)?;
    let mut l = items(n, "push on", &a[0])?.to_vec();
    l.push(a[1].clone());
    Ok(list_of(l))
}

fn prepend(n: &str, a: &[Value]) -> Result<Value> {
    let a = exact(n, a, 2)?;
    let mut l = vec![a[1].clone()];
    l.extend_from_slice(&items(n, "prepend on", &a[0])?);
    Ok(list_of(l))
}

fn first(n: &str, a: &[Value]) -> Result<Value> {
    let l = items(n, "find first on", &exact(n, a, 1)?[0])?;
    Ok(l.first().cloned().unwrap_or(Value::Nil))
}

fn last(n: &str, a: &[Value]) -> Result<Value> {
    let l = items(n, "find last on", &exact(n, a, 1)?[0])?;
    Ok(l.last().cloned().unwrap_or(Value::Nil))
}

fn rest(n: &str, a: &[Value]) -> Result<Value> {
    let l = items(n, "find rest on", &exact(n, a, 1)?[0])?;
    Ok(list_of(l.get(1..).unwrap_or_default().to_vec()))
}

fn initial(n: &str, a: &[Value]) -> Result<Value> {
    let l = items(n, "find initial on", &exact(n, a, 1)?[0])?;
    Ok(list_of(l[..l.len().saturating_sub(1)].to_vec()))
}

fn reverse(n: &str, a: &[Value]) -> Result<Value> {
    let l = items(n, "find reverse on", &exact(n, a, 1)?[0])?;
    Ok(list_of(l.iter().rev().cloned().collect()))
}

fn uniq(n: &str, a: &[Value]) -> Result<Value> {
    let l = items(n, "find uniq on", &exact(n, a, 1)?[0])?;
    let mut out: Vec<Value> = Vec::new();
    for v in l.iter() {
        if !out.contains(v) {
            out.push(v.clone());
        }
    }
    Ok(list_of(out))
}

fn compact(n: &str, a: &[Value]) -> Result<Value> {
    let l = items(n, "compact on", &exact(n, a, 1)?[0])?;
    Ok(list_of(l.iter().filter(|v| !empty(v)).cloned().collect()))
}

fn without(n: &str, a: &[Value]) -> Result<Value> {
    let a = at_least(n, a, 1)?;
    let l = items(n, "find without on", &a[0])?;
    Ok(list_of(
        l.iter().filter(|v| !a[1..].contains(v)).cloned().collect(),
    ))
}

fn has(n: &str, a: &[Value]) -> Result<Value> {
    let a = exact(n, a, 2)?;
    if matches!(a[1], Value::Nil) {
        return Ok(Value::Bool(false));
    }
    Ok(Value::Bool(items(n, "find has on", &a[1])?.contains(&a[0])))
}

fn slice(n: &str, a: &[Value]) -> Result<Value> {
    let a = at_least(n, a, 1)?;
    if matches!(a[0], Value::Nil) {
        // reflect.TypeOf(nil).Kind() dereferences a nil Type in sprig.
        return Err(call_error(
            n,
            "runtime error: invalid memory address or nil pointer dereference",
        ));
    }
    let Some(l) = a[0].as_list() else {
        return Err(call_error(
            n,
            format!(
                "list should be type of slice or array but {}",
                a[0].kind_name()
            ),
        ));
    };
    if l.is_empty() {
        return Ok(Value::Nil);
    }
    let start = a.get(1).map_or(0, to_int64);
    let end = a.get(2).map_or(go_len(l.len()), to_int64);
    if start < 0 || end < start || go_index(end) > l.len() {
        return Err(call_error(
            n,
            "reflect.Value.Slice: slice index out of bounds",
        ));
    }
    let part = l[go_index(start)..go_index(end)].to_vec();
    // reflect's Slice keeps the slice's type: a []string stays a []string.
    Ok(match &a[0] {
        Value::Object(o) => Value::typed_slice(o.type_name(), part.into()),
        _ => list_of(part),
    })
}

fn chunk(n: &str, a: &[Value]) -> Result<Value> {
    let a = exact(n, a, 2)?;
    let size = int(&a[0])?;
    let l = items(n, "chunk", &a[1])?;
    if size <= 0 {
        return Err(call_error(n, "runtime error: integer divide by zero"));
    }
    Ok(list_of(
        l.chunks(go_index(size))
            .map(|c| list_of(c.to_vec()))
            .collect(),
    ))
}

fn concat(a: &[Value]) -> Result<Value> {
    let total = a.iter().map(|v| v.as_list().map_or(0, |l| l.len()));
    super::bounds::items("concat", total.fold(0, usize::saturating_add))?;
    let mut out = Vec::new();
    for v in a {
        match v.as_list() {
            Some(l) => out.extend_from_slice(&l),
            // reflect.TypeOf(nil).Kind() dereferences a nil Type in sprig.
            None if matches!(v, Value::Nil) => {
                return Err(call_error(
                    "concat",
                    "runtime error: invalid memory address or nil pointer dereference",
                ));
            }
            None => {
                return Err(TemplateError::Exec(format!(
                    "error calling concat: Cannot concat type {} as list",
                    v.kind_name()
                )));
            }
        }
    }
    Ok(list_of(out))
}
