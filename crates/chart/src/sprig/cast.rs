//! Conversions sprig does through spf13/cast and its own helpers: `toInt64`,
//! `toFloat64`, `strval`, `strslice` and `empty`.
use gotemplate::Value;

use crate::gofmt::sprint;

/// cast.ToInt64: numbers truncate, bools are 0/1, strings parse with Go's base
/// prefixes (after a trailing `.0` is dropped), anything else is 0.
pub fn to_int64(v: &Value) -> i64 {
    match v {
        Value::Int(i) | Value::Int64(i) => *i,
        // Go's int64(u): the same bits.
        Value::Uint(u) => u.cast_signed(),
        Value::Float(f) => go_float_to_int(*f),
        Value::Bool(b) => i64::from(*b),
        Value::String(s) => parse_go_int(trim_zero_decimal(s)).unwrap_or(0),
        _ => 0,
    }
}

/// Go's `int64(f)` as amd64 computes it: truncation, and the "integer indefinite"
/// value (the smallest int64) for NaN and anything out of range, where Rust saturates.
#[expect(
    clippy::cast_possible_truncation,
    reason = "the cast is made only within i64's range, where it truncates as Go's does"
)]
pub fn go_float_to_int(f: f64) -> i64 {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if f.is_nan() || !(-LIMIT..LIMIT).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}

/// strconv.Atoi as sprig calls it, error dropped: decimal digits with an optional
/// sign; out of range is clamped to the nearest int64 (Go returns that value along
/// with its range error), anything else is 0.
pub fn go_atoi(s: &str) -> i64 {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return 0;
    }
    s.parse().unwrap_or(if s.starts_with('-') {
        i64::MIN
    } else {
        i64::MAX
    })
}

/// cast.ToFloat64: numbers widen, bools are 0/1, strings parse, anything else is 0.
#[expect(
    clippy::cast_precision_loss,
    reason = "Go's float64(n) rounds integers past 2^53 the same way"
)]
pub fn to_float64(v: &Value) -> f64 {
    match v {
        Value::Int(i) | Value::Int64(i) => *i as f64,
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
        if magnitude > i64::MIN.unsigned_abs() {
            return None;
        }
        // 2^63 reads as i64::MIN, whose negation is itself.
        Some(magnitude.cast_signed().wrapping_neg())
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// strconv.ParseFloat(s, 64): decimal and hexadecimal (`0x1.8p3`) forms, `_` between
/// digits, Inf/NaN words. An overflow is an error in Go (cast then gives 0): None.
pub fn parse_go_float(s: &str) -> Option<f64> {
    let (neg, t) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let sign = |f: f64| if neg { -f } else { f };
    match t.to_ascii_lowercase().as_str() {
        "inf" | "infinity" => return Some(sign(f64::INFINITY)),
        "nan" if s == t => return Some(f64::NAN),
        _ => {}
    }
    let lower = t.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        return parse_hex_float(hex).map(sign);
    }
    if t.is_empty()
        || !t
            .bytes()
            .all(|b| b.is_ascii_digit() || b".eE_+-".contains(&b))
        || !underscores_between_digits(t, |b| b.is_ascii_digit())
    {
        return None;
    }
    let f = t.replace('_', "").parse::<f64>().ok()?;
    f.is_finite().then(|| sign(f))
}

/// Go's rule for `_` in number literals: only between two digits.
fn underscores_between_digits(t: &str, digit: impl Fn(u8) -> bool) -> bool {
    let b = t.as_bytes();
    (0..b.len())
        .all(|i| b[i] != b'_' || (i > 0 && i + 1 < b.len() && digit(b[i - 1]) && digit(b[i + 1])))
}

/// The part of a hexadecimal float after `0x`: hex digits with an optional point and
/// a mandatory binary exponent `p±N`.
fn parse_hex_float(hex: &str) -> Option<f64> {
    let (mantissa, exp) = hex.split_once('p')?;
    let (whole, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{frac}");
    let ok = |d: &str| d.bytes().all(|b| b.is_ascii_hexdigit() || b == b'_');
    if digits.is_empty()
        || !ok(whole)
        || !ok(frac)
        || !underscores_between_digits(&digits, |b| b.is_ascii_hexdigit())
    {
        return None;
    }
    let exp: i32 = exp.strip_prefix('+').unwrap_or(exp).parse().ok()?;
    let mut value = 0f64;
    for d in digits.bytes().filter(|&b| b != b'_') {
        value = value * 16.0 + f64::from((d as char).to_digit(16)?);
    }
    let frac_digits = frac.bytes().filter(|&b| b != b'_').count();
    let scale = i64::from(exp) - 4 * super::args::go_len(frac_digits);
    let f = value * 2f64.powi(i32::try_from(scale.clamp(-2000, 2000)).ok()?);
    f.is_finite().then_some(f)
}

/// sprig's strval: strings as they are, a `[]byte` as the text it holds (Go's
/// `string(b)`), everything else with `%v`.
pub fn strval(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Object(o) if o.type_name() == "[]uint8" => {
            String::from_utf8_lossy(o.as_bytes().unwrap_or_default()).into_owned()
        }
        other => sprint(other),
    }
}

/// sprig's strslice: a list's non-nil items as strings, nil as no items, any other
/// value as a one-item list.
pub fn strslice(v: &Value) -> Vec<String> {
    if let Some(items) = v.as_list() {
        return items
            .iter()
            .filter(|i| !matches!(i, Value::Nil))
            .map(strval)
            .collect();
    }
    match v {
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
    fn numbers_convert_as_go_on_amd64() {
        assert_eq!(to_int64(&Value::Float(1e19)), i64::MIN);
        assert_eq!(to_int64(&Value::Float(f64::NAN)), i64::MIN);
        assert_eq!(go_atoi("99999999999999999999"), i64::MAX);
        assert_eq!(go_atoi("-99999999999999999999"), i64::MIN);
        assert_eq!(go_atoi("1_000"), 0);
        assert_eq!(parse_go_float("0x1p4"), Some(16.0));
        assert_eq!(parse_go_float("0x1.8p1"), Some(3.0));
        assert_eq!(parse_go_float("0x1"), None);
        assert_eq!(parse_go_float("1_000.5"), Some(1000.5));
        assert_eq!(parse_go_float("1__0"), None);
        assert_eq!(parse_go_float("1e400"), None);
        assert_eq!(parse_go_float("-Inf"), Some(f64::NEG_INFINITY));
    }

    #[test]
    #[expect(clippy::float_cmp, reason = "the exact float64 values cast gives")]
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
