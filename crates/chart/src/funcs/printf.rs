//! `printf`, `print` and `println` with Go's float64 text (`1e+06`): gotmpl's builtins
//! print floats the Rust way. `printf` hands `%v` float arguments over as Go's text and
//! then runs gotmpl's own printf (through a one-action template per argument count).
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use gotmpl::{FuncMap, Template, Value};

use super::add;
use crate::gofmt;

const MAX_ARGS: usize = 24;

fn has_float(v: &Value) -> bool {
    match v {
        Value::Float(_) => true,
        Value::List(items) => items.iter().any(has_float),
        Value::Map(m) => m.snapshot().values().any(has_float),
        _ => false,
    }
}

/// `fmt.Sprint`: operands joined, with a space between two that are not strings.
fn sprint(args: &[Value], spaces: bool) -> String {
    let mut out = String::new();
    for (i, arg) in args.iter().enumerate() {
        let is_str = |v: &Value| matches!(v, Value::String(_));
        if i > 0 && (spaces || (!is_str(&args[i - 1]) && !is_str(arg))) {
            out.push(' ');
        }
        match arg {
            Value::String(s) => out.push_str(s),
            Value::Nil => out.push_str("<nil>"),
            other => out.push_str(&gofmt::sprint(other)),
        }
    }
    out
}

/// Which argument each plain `%v` (no `+`, `#` or precision) of `format` consumes.
fn plain_v_args(format: &str) -> Vec<usize> {
    let chars: Vec<char> = format.chars().collect();
    let (mut i, mut next_arg, mut out) = (0, 0usize, Vec::new());
    while i < chars.len() {
        if chars[i] != '%' {
            i += 1;
            continue;
        }
        i += 1;
        let mut plain = true;
        while i < chars.len() && "+-# 0".contains(chars[i]) {
            plain &= chars[i] != '+' && chars[i] != '#';
            i += 1;
        }
        let mut take_star = |i: &mut usize| {
            if chars.get(*i) == Some(&'*') {
                next_arg += 1;
                *i += 1;
            } else {
                while chars.get(*i).is_some_and(char::is_ascii_digit) {
                    *i += 1;
                }
            }
        };
        take_star(&mut i);
        if chars.get(i) == Some(&'.') {
            plain = false;
            i += 1;
            take_star(&mut i);
        }
        if chars.get(i) == Some(&'[') {
            let close = chars[i..].iter().position(|c| *c == ']').map(|p| i + p);
            let index: Option<usize> =
                close.and_then(|c| chars[i + 1..c].iter().collect::<String>().parse().ok());
            match (close, index) {
                (Some(c), Some(n)) if n >= 1 => {
                    next_arg = n - 1;
                    i = c + 1;
                }
                _ => return out,
            }
        }
        match chars.get(i) {
            Some('%') | None => {}
            Some(verb) => {
                if *verb == 'v' && plain {
                    out.push(next_arg);
                }
                next_arg += 1;
            }
        }
        i += 1;
    }
    out
}

/// One `{{ printf .f .a0 … }}` template per argument count, to reach gotmpl's printf.
fn printf_templates() -> &'static [Option<Template>] {
    static TEMPLATES: OnceLock<Vec<Option<Template>>> = OnceLock::new();
    TEMPLATES.get_or_init(|| {
        (0..=MAX_ARGS)
            .map(|n| {
                let args: String = (0..n).map(|i| format!(" .a{i}")).collect();
                Template::new("printf")
                    .parse(&format!("{{{{ printf .f{args} }}}}"))
                    .ok()
            })
            .collect()
    })
}

fn go_printf(args: &[Value]) -> Result<Value, gotmpl::TemplateError> {
    let Some((format, rest)) = args.split_first() else {
        return Err(super::fail(
            "wrong number of args for printf: want at least 1 got 0",
        ));
    };
    let mut rest: Vec<Value> = rest.to_vec();
    if let Value::String(f) = format {
        for i in plain_v_args(f) {
            if let Some(arg) = rest.get_mut(i).filter(|a| has_float(a)) {
                *arg = super::string(gofmt::sprint(arg));
            }
        }
    }
    let template = printf_templates()
        .get(rest.len())
        .and_then(Option::as_ref)
        .ok_or_else(|| super::fail(format!("printf with more than {MAX_ARGS} arguments")))?;
    let mut data: BTreeMap<Arc<str>, Value> = BTreeMap::new();
    data.insert(Arc::from("f"), format.clone());
    for (i, arg) in rest.into_iter().enumerate() {
        data.insert(Arc::from(format!("a{i}").as_str()), arg);
    }
    template
        .execute_to_string(&Value::Map(gotmpl::MapRef::new(data)))
        .map(super::string)
}

pub fn funcs() -> FuncMap {
    let mut m = FuncMap::new();
    add(&mut m, "printf", go_printf);
    add(&mut m, "print", |a| Ok(super::string(sprint(a, false))));
    add(&mut m, "println", |a| {
        Ok(super::string(sprint(a, true) + "\n"))
    });
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_v_verbs_are_found() {
        assert_eq!(plain_v_args("%v %d %s %v"), [0, 3]);
        assert_eq!(plain_v_args("%% %+v %.2v %5v %[1]v"), [2, 0]);
        assert_eq!(plain_v_args("%*d %v"), [2]);
    }

    #[test]
    fn floats_print_like_go() {
        let big = Value::Float(1e6);
        assert_eq!(
            go_printf(&[
                super::super::string("%v-%d-%s"),
                big.clone(),
                Value::Int(3),
                super::super::string("x")
            ])
            .unwrap(),
            super::super::string("1e+06-3-x")
        );
        assert_eq!(
            sprint(
                &[
                    big.clone(),
                    Value::Float(1.5),
                    super::super::string("a"),
                    big
                ],
                false
            ),
            "1e+06 1.5a1e+06"
        );
    }
}
