//! text/template's predefined functions with Go's semantics: and, or, not, len, index,
//! slice, call, print, printf, println, html, js, urlquery and the comparisons.
use std::fmt::Write;
use std::sync::Arc;

use crate::exec::Slot;
use crate::value::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Builtin {
    And,
    Or,
    Not,
    Len,
    Index,
    Slice,
    Call,
    Print,
    Printf,
    Println,
    Html,
    Js,
    Urlquery,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

pub(crate) fn lookup(name: &str) -> Option<Builtin> {
    use Builtin::{
        And, Call, Eq, Ge, Gt, Html, Index, Js, Le, Len, Lt, Ne, Not, Or, Print, Printf, Println,
        Slice, Urlquery,
    };
    Some(match name {
        "and" => And,
        "or" => Or,
        "not" => Not,
        "len" => Len,
        "index" => Index,
        "slice" => Slice,
        "call" => Call,
        "print" => Print,
        "printf" => Printf,
        "println" => Println,
        "html" => Html,
        "js" => Js,
        "urlquery" => Urlquery,
        "eq" => Eq,
        "ne" => Ne,
        "lt" => Lt,
        "le" => Le,
        "gt" => Gt,
        "ge" => Ge,
        _ => return None,
    })
}

/// Whether `name` is a predefined function.
pub(crate) fn is_builtin(name: &str) -> bool {
    lookup(name).is_some()
}

impl Builtin {
    /// Fixed parameters and whether more may follow, from Go's signatures.
    pub(crate) fn arity(self) -> (usize, bool) {
        use Builtin::{
            And, Call, Eq, Ge, Gt, Html, Index, Js, Le, Len, Lt, Ne, Not, Or, Print, Printf,
            Println, Slice, Urlquery,
        };
        match self {
            And | Or | Index | Slice | Call | Eq | Printf => (1, true),
            Not | Len => (1, false),
            Ne | Lt | Le | Gt | Ge => (2, false),
            Print | Println | Html | Js | Urlquery => (0, true),
        }
    }
}

type R = Result<Slot, String>;

pub(crate) fn call(b: Builtin, args: &[Slot], call_name: &str) -> R {
    use Builtin::{
        And, Call, Eq, Ge, Gt, Html, Index, Js, Le, Len, Lt, Ne, Not, Or, Print, Printf, Println,
        Slice, Urlquery,
    };
    let v = |i: usize| args[i].value();
    let values = || args.iter().map(|s| s.value().clone()).collect::<Vec<_>>();
    match b {
        And | Or => unreachable_logic(),
        Not => Ok(Slot::new(Value::Bool(!v(0).is_truthy()))),
        Len => length(&args[0]).map(|n| Slot::new(Value::from(n))),
        Index => index(&args[0], &args[1..]),
        Slice => slice(&args[0], &args[1..]),
        Call => call_function(&args[0], &args[1..], call_name),
        Print => Ok(Slot::new(Value::string(crate::fmt::sprint(&values())))),
        Println => Ok(Slot::new(Value::string(crate::fmt::sprintln(&values())))),
        Printf => {
            let all = values();
            let format = all[0].as_str().unwrap_or_default().to_string();
            Ok(Slot::new(Value::string(crate::fmt::sprintf(
                &format,
                &all[1..],
            ))))
        }
        Html => Ok(Slot::new(Value::string(html_escape(&eval_args(&values()))))),
        Js => Ok(Slot::new(Value::string(js_escape(&eval_args(&values()))))),
        Urlquery => Ok(Slot::new(Value::string(query_escape(
            &eval_args(&values()),
        )))),
        Eq => eq(&args[0], &args[1..]).map(bool_slot),
        Ne => eq(&args[0], &args[1..2]).map(|t| bool_slot(!t)),
        Lt => lt(&args[0], &args[1]).map(bool_slot),
        Le => le(&args[0], &args[1]).map(bool_slot),
        Gt => le(&args[0], &args[1]).map(|t| bool_slot(!t)),
        Ge => lt(&args[0], &args[1]).map(|t| bool_slot(!t)),
    }
}

fn unreachable_logic() -> R {
    Err("and/or are evaluated by the executor".into())
}

fn bool_slot(b: bool) -> Slot {
    Slot::new(Value::Bool(b))
}

fn length(item: &Slot) -> Result<usize, String> {
    match item.value() {
        Value::Nil if item.is_iface() => Err("len of nil pointer".into()),
        Value::Nil => Err("reflect: call of reflect.Value.Type on zero Value".into()),
        Value::String(s) => Ok(s.len()),
        Value::List(l) => Ok(l.len()),
        Value::Map(m) => Ok(m.len()),
        Value::Object(o) if o.as_list().is_some() => Ok(o.as_list().map_or(0, |l| l.len())),
        other => Err(format!("len of type {}", other.type_name())),
    }
}

/// An index argument as Go's indexArg reads it.
fn index_arg(index: &Value, cap: usize) -> Result<usize, String> {
    let x: i128 = match index {
        Value::Int(i) | Value::Int64(i) => i128::from(*i),
        Value::Uint(u) => i128::from(*u),
        Value::Nil => return Err("cannot index slice/array with nil".into()),
        other => {
            return Err(format!(
                "cannot index slice/array with type {}",
                other.type_name()
            ));
        }
    };
    match usize::try_from(x) {
        Ok(i) if i <= cap => Ok(i),
        _ => Err(format!("index out of range: {x}")),
    }
}

fn index(item: &Slot, indexes: &[Slot]) -> R {
    let mut cur = item.clone();
    if matches!(cur.value(), Value::Nil) {
        return Err("index of untyped nil".into());
    }
    for idx in indexes {
        let idx = idx.value();
        cur = match cur.value() {
            Value::Nil => return Err("index of nil pointer".into()),
            Value::List(l) => {
                let i = index_arg(idx, l.len())?;
                Slot::in_iface(
                    l.get(i)
                        .cloned()
                        .ok_or("reflect: slice index out of range")?,
                )
            }
            Value::Object(o) if o.as_list().is_some() => {
                let l = o.as_list().unwrap_or_default();
                let i = index_arg(idx, l.len())?;
                Slot::new(
                    l.get(i)
                        .cloned()
                        .ok_or("reflect: slice index out of range")?,
                )
            }
            Value::String(s) => {
                let i = index_arg(idx, s.len())?;
                let byte = s
                    .as_bytes()
                    .get(i)
                    .ok_or("reflect: string index out of range")?;
                Slot::new(Value::Uint(u64::from(*byte)))
            }
            Value::Map(m) => {
                let key = match idx {
                    Value::String(k) => k,
                    Value::Nil => return Err("value is nil; should be of type string".into()),
                    other => {
                        return Err(format!(
                            "value has type {}; should be string",
                            other.type_name()
                        ));
                    }
                };
                Slot::in_iface(m.get(key).unwrap_or(Value::Nil))
            }
            other => return Err(format!("can't index item of type {}", other.type_name())),
        };
    }
    Ok(cur)
}

fn slice(item: &Slot, indexes: &[Slot]) -> R {
    let v = item.value();
    if matches!(v, Value::Nil) {
        return Err("slice of untyped nil".into());
    }
    if indexes.len() > 3 {
        return Err(format!("too many slice indexes: {}", indexes.len()));
    }
    let len = match v {
        Value::String(s) => {
            if indexes.len() == 3 {
                return Err("cannot 3-index slice a string".into());
            }
            s.len()
        }
        Value::List(l) => l.len(),
        other => return Err(format!("can't slice item of type {}", other.type_name())),
    };
    let mut idx = [0, len, len];
    for (i, x) in indexes.iter().enumerate() {
        idx[i] = index_arg(x.value(), len)?;
    }
    if idx[0] > idx[1] {
        return Err(format!("invalid slice index: {} > {}", idx[0], idx[1]));
    }
    if indexes.len() == 3 && idx[1] > idx[2] {
        return Err(format!("invalid slice index: {} > {}", idx[1], idx[2]));
    }
    Ok(Slot::new(match v {
        Value::String(s) => {
            let bytes = &s.as_bytes()[idx[0]..idx[1]];
            Value::string(String::from_utf8_lossy(bytes))
        }
        Value::List(l) => Value::List(Arc::from(&l[idx[0]..idx[1]])),
        _ => Value::Nil,
    }))
}

fn call_function(f: &Slot, args: &[Slot], name: &str) -> R {
    match f.value() {
        Value::Nil => Err("call of nil".into()),
        Value::Function(func) => {
            let values: Vec<Value> = args.iter().map(|s| s.value().clone()).collect();
            func(&values).map(Slot::new).map_err(|e| e.to_string())
        }
        other => Err(format!("non-function {name} of type {}", other.type_name())),
    }
}

#[derive(PartialEq, Eq, Clone, Copy)]
enum BasicKind {
    Invalid,
    Bool,
    Int,
    Uint,
    Float,
    Complex,
    String,
}

fn basic_kind(v: &Value) -> BasicKind {
    match v {
        Value::Bool(_) => BasicKind::Bool,
        Value::Int(_) | Value::Int64(_) => BasicKind::Int,
        Value::Uint(_) => BasicKind::Uint,
        Value::Float(_) => BasicKind::Float,
        Value::Complex(..) => BasicKind::Complex,
        Value::String(_) => BasicKind::String,
        _ => BasicKind::Invalid,
    }
}

/// Go's errBadComparison, which names both types.
fn bad_comparison(a: &Value, b: &Value) -> String {
    format!(
        "incompatible types for comparison: {} and {}",
        a.type_name(),
        b.type_name()
    )
}
const BAD_COMPARISON_TYPE: &str = "invalid type for comparison";

fn eq(arg1: &Slot, rest: &[Slot]) -> Result<bool, String> {
    if rest.is_empty() {
        return Err("missing argument for comparison".into());
    }
    let a = arg1.value();
    let k1 = basic_kind(a);
    for arg in rest {
        let b = arg.value();
        let k2 = basic_kind(b);
        #[expect(
            clippy::if_not_else,
            reason = "Go's eq in its order: mixed kinds first"
        )]
        let truth = if k1 != k2 {
            match (a, b) {
                (Value::Int(i) | Value::Int64(i), Value::Uint(u))
                | (Value::Uint(u), Value::Int(i) | Value::Int64(i)) => {
                    *i >= 0 && i.cast_unsigned() == *u
                }
                _ if !matches!(a, Value::Nil) && !matches!(b, Value::Nil) => {
                    return Err(bad_comparison(a, b));
                }
                _ => false,
            }
        } else {
            match (a, b) {
                (Value::Bool(x), Value::Bool(y)) => x == y,
                (Value::Int(x) | Value::Int64(x), Value::Int(y) | Value::Int64(y)) => x == y,
                (Value::Uint(x), Value::Uint(y)) => x == y,
                (Value::Float(x), Value::Float(y)) => x == y,
                (Value::Complex(xr, xi), Value::Complex(yr, yi)) => xr == yr && xi == yi,
                (Value::String(x), Value::String(y)) => x == y,
                (Value::Nil, _) | (_, Value::Nil) => {
                    matches!(a, Value::Nil) == matches!(b, Value::Nil)
                }
                _ => {
                    // Go's canCompare looks at reflect kinds: a []string and a
                    // []interface {} are both slices.
                    if a.kind_name() != b.kind_name() {
                        return Err(format!(
                            "non-comparable types {}: {}, {}: {}",
                            // Go formats the first operand with %s, the second with %v.
                            crate::fmt::sprintf("%s", std::slice::from_ref(a)),
                            a.type_name(),
                            b.type_name(),
                            crate::fmt::sprint_value(b)
                        ));
                    }
                    match (a, b) {
                        (Value::Object(x), Value::Object(y)) if x.as_list().is_none() => {
                            Arc::ptr_eq(x, y)
                        }
                        _ => {
                            // Go formats the value with %s.
                            return Err(format!(
                                "non-comparable type {}: {}",
                                crate::fmt::sprintf("%s", std::slice::from_ref(b)),
                                b.type_name()
                            ));
                        }
                    }
                }
            }
        };
        if truth {
            return Ok(true);
        }
    }
    Ok(false)
}

fn lt(arg1: &Slot, arg2: &Slot) -> Result<bool, String> {
    let (a, b) = (arg1.value(), arg2.value());
    let (k1, k2) = (basic_kind(a), basic_kind(b));
    if k1 == BasicKind::Invalid || k2 == BasicKind::Invalid {
        return Err(BAD_COMPARISON_TYPE.into());
    }
    Ok(match (a, b) {
        (Value::Int(i) | Value::Int64(i), Value::Uint(u)) => *i < 0 || i.cast_unsigned() < *u,
        (Value::Uint(u), Value::Int(i) | Value::Int64(i)) => *i >= 0 && *u < i.cast_unsigned(),
        _ if k1 != k2 => return Err(bad_comparison(a, b)),
        (Value::Int(x) | Value::Int64(x), Value::Int(y) | Value::Int64(y)) => x < y,
        (Value::Uint(x), Value::Uint(y)) => x < y,
        (Value::Float(x), Value::Float(y)) => x < y,
        (Value::String(x), Value::String(y)) => x < y,
        // Booleans, complex numbers and whatever else has no order.
        _ => return Err(BAD_COMPARISON_TYPE.into()),
    })
}

fn le(arg1: &Slot, arg2: &Slot) -> Result<bool, String> {
    if lt(arg1, arg2)? {
        return Ok(true);
    }
    eq(arg1, std::slice::from_ref(arg2))
}

/// The text html/js/urlquery escape: one string as is, anything else as fmt.Sprint.
fn eval_args(args: &[Value]) -> String {
    match args {
        [Value::String(s)] => s.to_string(),
        // Go's printableValue shows a missing value as <no value>.
        _ if args.iter().any(|a| matches!(a, Value::Nil)) => {
            let shown: Vec<Value> = args
                .iter()
                .map(|a| match a {
                    Value::Nil => Value::string("<no value>"),
                    other => other.clone(),
                })
                .collect();
            crate::fmt::sprint(&shown)
        }
        _ => crate::fmt::sprint(args),
    }
}

/// Go's template.HTMLEscapeString.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\0' => out.push('\u{FFFD}'),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// Go's template.JSEscapeString.
pub fn js_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if c < ' ' => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c if c.is_ascii() || crate::fmt::is_print(c) => out.push(c),
            c => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
        }
    }
    out
}

/// Go's url.QueryEscape.
pub fn query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(b));
            }
            b' ' => out.push('+'),
            b => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}
