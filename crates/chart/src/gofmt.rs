//! Go's `fmt` and `strconv` formatting of template values, where it differs from
//! Rust's: `%v` (what `toString`, `cat`, `join` and template output print), `%q`
//! (what `quote` prints), float64 as `strconv.FormatFloat` writes it (`1e+06`, not
//! `1000000`) and `encoding/json` floats. The rules themselves live in the template crate
//! (`gotemplate::fmt`); these are the chart crate's names for the forms it needs.

/// `fmt.Sprint(v)` with Go's float formatting at any depth: the engine's `%v` text.
pub use gotemplate::fmt::sprint_value as sprint;

/// `strconv.FormatFloat(f, 'g', -1, 64)`, which is what `fmt.Sprint(float64)` prints.
pub fn format_float(f: f64) -> String {
    gotemplate::fmt::format_float(f, b'g', -1)
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`.
pub fn format_float_f(f: f64) -> String {
    gotemplate::fmt::format_float(f, b'f', -1)
}

/// `encoding/json`'s float64: 'f' form, or 'e' form below 1e-6 and from 1e21 with a
/// negative exponent's leading zero dropped (`1e-7`); `None` for NaN and ±Inf, which Go
/// refuses.
pub fn json_float(f: f64) -> Option<String> {
    if !f.is_finite() {
        return None;
    }
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        return Some(format_float_f(f));
    }
    let text = gotemplate::fmt::format_float(f, b'e', -1);
    Some(match text.split_once("e-0") {
        Some((mantissa, exp)) => format!("{mantissa}e-{exp}"),
        None => text,
    })
}

/// `strconv.Quote(s)`, which `%q` and sprig's `quote` use.
pub use gotemplate::fmt::quote as go_quote;

#[cfg(test)]
mod tests {
    use super::*;
    use gotemplate::Value;

    #[test]
    fn floats_print_as_go_prints_them() {
        assert_eq!(format_float(1.0), "1");
        assert_eq!(format_float(1.5), "1.5");
        assert_eq!(format_float(100_000.0), "100000");
        assert_eq!(format_float(1e6), "1e+06");
        assert_eq!(format_float(1e-5), "1e-05");
        assert_eq!(format_float(0.0001), "0.0001");
        assert_eq!(format_float(-3.0), "-3");
        assert_eq!(
            format_float(12_345_678_901_234_567_000.0),
            "1.2345678901234567e+19"
        );
        assert_eq!(format_float(123_456_789.0), "1.23456789e+08");
        assert_eq!(format_float(1_234_567.0), "1.234567e+06");
        assert_eq!(format_float_f(1e21), "1000000000000000000000");
        assert_eq!(format_float_f(0.000_123), "0.000123");
    }

    #[test]
    fn values_print_like_go_percent_v() {
        let v = Value::from(vec![
            Value::Int(1),
            Value::from("a"),
            Value::Nil,
            Value::Float(1e6),
        ]);
        assert_eq!(sprint(&v), "[1 a <nil> 1e+06]");
    }

    #[test]
    fn quote_escapes_like_strconv() {
        assert_eq!(
            go_quote("a\"b\\c\n\u{1}\u{a0}é"),
            "\"a\\\"b\\\\c\\n\\x01\\u00a0é\""
        );
        // Unassigned (U+0378) and private-use (U+E000) code points, as Go 1.24 quotes them.
        assert_eq!(go_quote("\u{378}\u{E000}"), "\"\\u0378\\ue000\"");
    }

    #[test]
    fn json_floats_use_fixed_notation_in_range() {
        let json = |f| json_float(f).unwrap_or_default();
        assert_eq!(json(1e6), "1000000");
        assert_eq!(json(0.00001), "0.00001");
        assert_eq!(json(1.5), "1.5");
        assert_eq!(json(1e21), "1e+21");
        assert_eq!(json(1e-7), "1e-7");
        assert_eq!(json(-2.5e-10), "-2.5e-10");
        assert_eq!(json(-0.0), "-0");
        assert_eq!(json_float(f64::NAN), None);
    }
}
