//! Go's number and value formatting, where it differs from Rust's: `fmt.Sprint` of a
//! float64 (`%v`, e.g. `1e+06`) and `encoding/json` floats.
use gotmpl::Value;

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

/// `encoding/json` float64 text: fixed notation unless tiny or huge.
pub fn json_float(f: f64) -> String {
    if !f.is_finite() {
        return "null".into();
    }
    if f == 0.0 {
        return "0".into();
    }
    let (digits, dp) = shortest_digits(f);
    let abs = f.abs();
    if !(1e-6..1e21).contains(&abs) {
        exp_form(&digits, dp, f < 0.0, false)
    } else {
        fixed_form(&digits, dp, f < 0.0)
    }
}

/// `fmt.Sprint(v)` for template output: floats and floats inside lists and maps
/// printed as Go prints them. `None` when Rust's display already matches.
pub fn sprint_if_different(v: &Value) -> Option<String> {
    fn has_float(v: &Value) -> bool {
        match v {
            Value::Float(_) => true,
            Value::List(items) => items.iter().any(has_float),
            Value::Map(m) => m.snapshot().values().any(has_float),
            _ => false,
        }
    }
    has_float(v).then(|| sprint(v))
}

/// `fmt.Sprint(v)` with Go's float formatting at any depth.
pub fn sprint(v: &Value) -> String {
    match v {
        Value::Float(f) => format_float(*f),
        Value::List(items) => {
            let inner: Vec<String> = items.iter().map(sprint).collect();
            format!("[{}]", inner.join(" "))
        }
        Value::Map(m) => {
            let inner: Vec<String> = m
                .snapshot()
                .iter()
                .map(|(k, v)| format!("{k}:{}", sprint(v)))
                .collect();
            format!("map[{}]", inner.join(" "))
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn json_floats_use_fixed_notation_in_range() {
        assert_eq!(json_float(1e6), "1000000");
        assert_eq!(json_float(0.00001), "0.00001");
        assert_eq!(json_float(1.5), "1.5");
        assert_eq!(json_float(1e21), "1e+21");
        assert_eq!(json_float(1e-7), "1e-7");
    }
}
