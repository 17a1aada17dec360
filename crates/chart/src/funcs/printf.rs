//! `printf`, `print` and `println` with Go's float64 text (`1e+06`). `print` and
//! `println` join operands as `fmt.Sprint` does; `printf` runs gotmpl's own printf
//! (which prints floats as Go does: `%v` → `1e+06`, `%d` → `%!d(float64=1e+06)`)
//! through a one-action template per argument count.
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use gotmpl::{FuncMap, Template, Value};

use super::add;
use crate::gofmt;

const MAX_ARGS: usize = 24;

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
    let template = printf_templates()
        .get(rest.len())
        .and_then(Option::as_ref)
        .ok_or_else(|| super::fail(format!("printf with more than {MAX_ARGS} arguments")))?;
    let mut data: BTreeMap<Arc<str>, Value> = BTreeMap::new();
    data.insert(Arc::from("f"), format.clone());
    for (i, arg) in rest.iter().enumerate() {
        data.insert(Arc::from(format!("a{i}").as_str()), arg.clone());
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
        // Go refuses string and integer verbs for a float64, showing its %v text.
        assert_eq!(
            go_printf(&[
                super::super::string("%s|%d|%5.1f"),
                big.clone(),
                big.clone(),
                Value::Float(2.25)
            ])
            .unwrap(),
            super::super::string("%!s(float64=1e+06)|%!d(float64=1e+06)|  2.2")
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
