//! Go's `fmt` and `strconv` formatting of template values: `%v` (what `toString`,
//! `cat` and `join` print), `%q` (what `quote` prints) and float64 the way Go writes it
//! (`1e+06`, not `1000000`).
use std::fmt::Write;

use gotmpl::Value;

/// `fmt.Sprintf("%v", v)`.
pub fn go_sprint(v: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, v);
    out
}

fn write_value(out: &mut String, v: &Value) {
    match v {
        Value::Nil => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Uint(u) => {
            let _ = write!(out, "{u}");
        }
        Value::Float(f) => out.push_str(&format_float_g(*f)),
        Value::String(s) => out.push_str(s),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Map(m) => {
            out.push_str("map[");
            for (i, (k, item)) in m.snapshot().iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                write_value(out, item);
            }
            out.push(']');
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

/// The shortest decimal digits of `f` and its decimal exponent, so that
/// `f = 0.d1d2d3... × 10^point`.
fn shortest_digits(f: f64) -> (String, i32) {
    // Rust's `{:e}` prints the shortest round-tripping digits, like Go's 'g' -1.
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    (digits, exp + 1)
}

fn special(f: f64) -> Option<&'static str> {
    if f.is_nan() {
        Some("NaN")
    } else if f == f64::INFINITY {
        Some("+Inf")
    } else if f == f64::NEG_INFINITY {
        Some("-Inf")
    } else {
        None
    }
}

/// `strconv.FormatFloat(f, 'g', -1, 64)`, which `%v` uses for float64.
pub fn format_float_g(f: f64) -> String {
    if let Some(s) = special(f) {
        return s.to_string();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let (digits, point) = shortest_digits(f);
    let exp = point - 1;
    if !(-4..6).contains(&exp) {
        format_e(f.is_sign_negative(), &digits, exp)
    } else {
        format_f(f.is_sign_negative(), &digits, point)
    }
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`.
pub fn format_float_f(f: f64) -> String {
    if let Some(s) = special(f) {
        return s.to_string();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let (digits, point) = shortest_digits(f);
    format_f(f.is_sign_negative(), &digits, point)
}

/// `strconv.FormatFloat(f, 'e', -1, 64)`.
pub fn format_float_e(f: f64) -> String {
    if let Some(s) = special(f) {
        return s.to_string();
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0e+00"
        } else {
            "0e+00"
        }
        .to_string();
    }
    let (digits, point) = shortest_digits(f);
    format_e(f.is_sign_negative(), &digits, point - 1)
}

fn format_e(neg: bool, digits: &str, exp: i32) -> String {
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    out.push_str(&digits[..1]);
    if digits.len() > 1 {
        out.push('.');
        out.push_str(&digits[1..]);
    }
    let sign = if exp < 0 { '-' } else { '+' };
    let _ = write!(out, "e{sign}{:02}", exp.abs());
    out
}

fn format_f(neg: bool, digits: &str, point: i32) -> String {
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', point.unsigned_abs() as usize));
        out.push_str(digits);
    } else {
        let point = point as usize;
        if digits.len() <= point {
            out.push_str(digits);
            out.extend(std::iter::repeat_n('0', point - digits.len()));
        } else {
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        }
    }
    out
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

    #[test]
    fn floats_print_like_go() {
        assert_eq!(format_float_g(1e6), "1e+06");
        assert_eq!(format_float_g(123456.0), "123456");
        assert_eq!(format_float_g(1234567.0), "1.234567e+06");
        assert_eq!(format_float_g(0.0001), "0.0001");
        assert_eq!(format_float_g(0.00001), "1e-05");
        assert_eq!(format_float_g(3.0), "3");
        assert_eq!(format_float_g(-2.5), "-2.5");
        assert_eq!(format_float_f(1e21), "1000000000000000000000");
        assert_eq!(format_float_f(0.000123), "0.000123");
        assert_eq!(format_float_e(1e21), "1e+21");
    }

    #[test]
    fn values_print_like_go_percent_v() {
        let v = Value::from(vec![
            Value::Int(1),
            Value::from("a"),
            Value::Nil,
            Value::Float(1e6),
        ]);
        assert_eq!(go_sprint(&v), "[1 a <nil> 1e+06]");
    }

    #[test]
    fn quote_escapes_like_strconv() {
        assert_eq!(
            go_quote("a\"b\\c\n\u{1}\u{a0}é"),
            "\"a\\\"b\\\\c\\n\\x01\\u00a0é\""
        );
    }
}
