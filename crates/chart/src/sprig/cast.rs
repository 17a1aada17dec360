//! Conversions sprig does through spf13/cast and its own helpers: `toInt64`,
//! `toFloat64`, `strval`, `strslice` and `empty`.
use gotemplate::Value;

use crate::gofmt::sprint;

/// cast.ToInt64: numbers truncate, bools are 0/1, strings parse with Go's base
/// prefixes (after a trailing `.0` is dropped), anything else is 0.
pub fn to_int64(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::Uint(u) => *u as i64,
        Value::Float(f) => *f as i64,
        Value::Bool(b) => i64::from(*b),
        Value::String(s) => parse_go_int(trim_zero_decimal(s)).unwrap_or(0),
        _ => 0,
    }
}

/// cast.ToFloat64: numbers widen, bools are 0/1, strings parse, anything else is 0.
pub fn to_float64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Uint(u) => *u as f64,
        Value::Float(f) => *f,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::String(s) => parse_go_float(s).unwrap_or(0.0),
        _ => 0.0,
    }
}

/// cast's trimZeroDecimal: "12.000" becomes "12"; anything else is kept.
fn trim_zero_decimal(s: &str) -> &str {
    match s.split_once('.') {
        Some((int, frac)) if !frac.is_empty() && frac.bytes().all(|b| b == b'0') => int,
        _ => s,
    }
}

/// strconv.ParseInt(s, 0, 64): optional sign, then 0x/0o/0b/0 prefixes, `_` allowed
/// between digits only when a prefix is present.
pub fn parse_go_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits, prefixed) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d.to_string(), true)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d.to_string(), true)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d.to_string(), true)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, lower[1..].to_string(), true)
    } else {
        (10, lower.clone(), false)
    };
    // Base 0 allows `_` between digits (and right after a prefix).
    let _ = prefixed;
    if digits.is_empty() || digits.ends_with('_') || digits.contains("__") {
        return None;
    }
    if digits.starts_with('_') && radix == 10 {
        return None;
    }
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    let magnitude = u64::from_str_radix(&clean, radix).ok()?;
    if neg {
        if magnitude > i64::MAX as u64 + 1 {
            return None;
        }
        Some((magnitude as i64).wrapping_neg())
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// strconv.ParseFloat(s, 64) for the decimal forms charts use, plus Inf/NaN words.
pub fn parse_go_float(s: &str) -> Option<f64> {
    let t = s.strip_prefix('+').unwrap_or(s);
    match t.to_ascii_lowercase().as_str() {
        "inf" | "infinity" => return Some(f64::INFINITY),
        "-inf" | "-infinity" => return Some(f64::NEG_INFINITY),
        "nan" => return Some(f64::NAN),
        _ => {}
    }
    if t.is_empty()
        || !t
            .bytes()
            .all(|b| b.is_ascii_digit() || b"+-.eE_".contains(&b))
    {
        return None;
    }
    t.parse::<f64>().ok()
}

/// sprig's strval: strings as they are, everything else with `%v`.
pub fn strval(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        other => sprint(other),
    }
}

/// sprig's strslice: a list's non-nil items as strings, nil as no items, any other
/// value as a one-item list.
pub fn strslice(v: &Value) -> Vec<String> {
    match v {
        Value::List(items) => items
            .iter()
            .filter(|i| !matches!(i, Value::Nil))
            .map(strval)
            .collect(),
        Value::Nil => Vec::new(),
        other => vec![strval(other)],
    }
}

/// sprig's empty: nil, false, 0, "" and empty collections.
pub fn empty(v: &Value) -> bool {
    match v {
        Value::Function(_) => false,
        other => !other.is_truthy(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_int64_follows_cast() {
        assert_eq!(to_int64(&Value::Float(3.9)), 3);
        assert_eq!(to_int64(&Value::from("42")), 42);
        assert_eq!(to_int64(&Value::from("42.0")), 42);
        assert_eq!(to_int64(&Value::from("42.5")), 0);
        assert_eq!(to_int64(&Value::from("0x10")), 16);
        assert_eq!(to_int64(&Value::from("010")), 8);
        assert_eq!(to_int64(&Value::from("abc")), 0);
        assert_eq!(to_int64(&Value::from("1_000")), 1000);
        assert_eq!(to_int64(&Value::from("1__0")), 0);
        assert_eq!(to_int64(&Value::Bool(true)), 1);
        assert_eq!(to_int64(&Value::Nil), 0);
    }

    #[test]
    fn to_float64_follows_cast() {
        assert_eq!(to_float64(&Value::from("1.5")), 1.5);
        assert_eq!(to_float64(&Value::from("x")), 0.0);
        assert_eq!(to_float64(&Value::Int(2)), 2.0);
    }

    #[test]
    fn strslice_skips_nil_items() {
        let v = Value::from(vec![Value::from("a"), Value::Nil, Value::Float(2.0)]);
        assert_eq!(strslice(&v), vec!["a", "2"]);
        assert_eq!(strslice(&Value::Nil), Vec::<String>::new());
        assert_eq!(strslice(&Value::Int(7)), vec!["7"]);
    }
}
