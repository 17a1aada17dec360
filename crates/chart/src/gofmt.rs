//! Go's `fmt` and `strconv` formatting of template values, where it differs from
//! Rust's: `%v` (what `toString`, `cat`, `join` and template output print), `%q`
//! (what `quote` prints), float64 as `strconv.FormatFloat` writes it (`1e+06`, not
//! `1000000`) and `encoding/json` floats. The one home of this logic in the crate.
use std::fmt::Write;

/// `fmt.Sprint(v)` with Go's float formatting at any depth: the engine's `%v` text.
pub use gotemplate::fmt::sprint_value as sprint;

/// Shortest digits and decimal exponent of `f` (f = 0.d1d2d3... × 10^dp), `f` finite.
fn shortest_digits(f: f64) -> (String, i32) {
    // Rust's `{:e}` is the shortest round-trip representation, like Go's.
    let s = format!("{:e}", f.abs());
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    (digits, exp + 1)
}

fn special(f: f64) -> Option<String> {
    if f.is_nan() {
        Some("NaN".into())
    } else if f.is_infinite() {
        Some(if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        })
    } else {
        None
    }
}

fn exp_form(digits: &str, dp: i32, neg: bool, two_digit_exp: bool) -> String {
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    out.push_str(&digits[..1]);
    if digits.len() > 1 {
        out.push('.');
        out.push_str(&digits[1..]);
    }
    let exp = dp - 1;
    out.push('e');
    out.push(if exp < 0 { '-' } else { '+' });
    if two_digit_exp {
        out.push_str(&format!("{:02}", exp.abs()));
    } else {
        out.push_str(&exp.abs().to_string());
    }
    out
}

fn fixed_form(digits: &str, dp: i32, neg: bool) -> String {
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if dp <= 0 {
        out.push_str("0.");
        out.push_str(&"0".repeat((-dp) as usize));
        out.push_str(digits);
    } else if dp as usize >= digits.len() {
        out.push_str(digits);
        out.push_str(&"0".repeat(dp as usize - digits.len()));
    } else {
        out.push_str(&digits[..dp as usize]);
        out.push('.');
        out.push_str(&digits[dp as usize..]);
    }
    out
}

/// `strconv.FormatFloat(f, 'g', -1, 64)`, which is what `fmt.Sprint(float64)` prints.
pub fn format_float(f: f64) -> String {
    if let Some(s) = special(f) {
        return s;
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let (digits, dp) = shortest_digits(f);
    // With the shortest precision Go switches to %e from exponent 6 on (1e+06).
    let exp = dp - 1;
    if !(-4..6).contains(&exp) {
        exp_form(&digits, dp, f < 0.0, true)
    } else {
        fixed_form(&digits, dp, f < 0.0)
    }
}

/// A decoded YAML or JSON number as Go prints it: an integer as it is, a float64 as
/// [`format_float`] (`1.10` is "1.1", `1e6` is "1e+06").
pub fn number_text(n: &serde_json::Number) -> String {
    match n.as_f64() {
        Some(f) if !(n.is_i64() || n.is_u64()) => format_float(f),
        _ => n.to_string(),
    }
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`.
pub fn format_float_f(f: f64) -> String {
    if let Some(s) = special(f) {
        return s;
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let (digits, dp) = shortest_digits(f);
    fixed_form(&digits, dp, f < 0.0)
}

/// `encoding/json`'s float64: 'f' form, or 'e' form below 1e-6 and from 1e21 with the
/// exponent's leading zero dropped (`1e-7`); `None` for NaN and ±Inf, which Go refuses.
pub fn json_float(f: f64) -> Option<String> {
    if !f.is_finite() {
        return None;
    }
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        return Some(format_float_f(f));
    }
    let (digits, dp) = shortest_digits(f);
    Some(exp_form(&digits, dp, f < 0.0, false))
}

/// Whether Go's `strconv.IsPrint` holds, closely enough for quoting: letters, marks,
/// numbers, punctuation, symbols and the ASCII space.
fn go_is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(c, '\u{AD}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}')
}

/// `strconv.Quote(s)`, which `%q` and sprig's `quote` use.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if go_is_print(c) => out.push(c),
            c if (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use gotemplate::Value;

    #[test]
    fn floats_print_as_go_prints_them() {
        assert_eq!(format_float(1.0), "1");
        assert_eq!(format_float(1.5), "1.5");
        assert_eq!(format_float(100000.0), "100000");
        assert_eq!(format_float(1e6), "1e+06");
        assert_eq!(format_float(1e-5), "1e-05");
        assert_eq!(format_float(0.0001), "0.0001");
        assert_eq!(format_float(-3.0), "-3");
        assert_eq!(
            format_float(12345678901234567000.0),
            "1.2345678901234567e+19"
        );
        assert_eq!(format_float(123456789.0), "1.23456789e+08");
        assert_eq!(format_float(1234567.0), "1.234567e+06");
        assert_eq!(format_float_f(1e21), "1000000000000000000000");
        assert_eq!(format_float_f(0.000123), "0.000123");
        let number = |text: &str| number_text(&serde_json::from_str(text).unwrap());
        assert_eq!(number("1.10"), "1.1");
        assert_eq!(number("1e6"), "1e+06");
        assert_eq!(number("18446744073709551615"), "18446744073709551615");
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
