//! `print` and `println` with Go's float64 text (`1e+06`), joining operands as
//! `fmt.Sprint` does. `printf` is gotmpl's own, which already prints floats as Go does
//! (`%v` → `1e+06`, `%d` → `%!d(float64=1e+06)`).
use gotemplate::{FuncMap, Value};

use super::add;
use crate::gofmt;

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

pub fn funcs() -> FuncMap {
    let mut m = FuncMap::new();
    add(&mut m, "print", |a| Ok(super::string(sprint(a, false))));
    add(&mut m, "println", |a| {
        Ok(super::string(sprint(a, true) + "\n"))
    });
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Render `src` with the chart's print functions (and gotmpl's printf) over `.big`.
    fn render(src: &str) -> String {
        let data = crate::convert::to_template(&serde_json::json!({"big": 1e6}));
        gotemplate::Template::new("t")
            .funcs(funcs())
            .parse(src)
            .unwrap()
            .execute_to_string(&data)
            .unwrap()
    }

    #[test]
    fn floats_print_like_go() {
        assert_eq!(render(r#"{{ printf "%v-%d-%s" .big 3 "x" }}"#), "1e+06-3-x");
        // Go refuses string and integer verbs for a float64, showing its %v text.
        assert_eq!(
            render(r#"{{ printf "%s|%d|%5.1f" .big .big 2.25 }}"#),
            "%!s(float64=1e+06)|%!d(float64=1e+06)|  2.2"
        );
        assert_eq!(
            render(r#"{{ print .big 1.5 "a" .big }}"#),
            "1e+06 1.5a1e+06"
        );
    }
}
