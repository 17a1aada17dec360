//! Go's strconv number syntax: `ParseInt`/`ParseUint` with base 0 (prefixes 0x, 0o, 0b
//! and a leading 0 for octal; `_` between digits) and `ParseFloat` (decimal and hex
//! floats).

/// Whether the underscores in `s` sit only between digits (or after a base prefix).
fn underscores_ok(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let b = s.as_bytes();
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = b[1].eq_ignore_ascii_case(&b'x');
    }
    for &c in &b[i..] {
        if c.is_ascii_digit() || (hex && c.is_ascii_hexdigit()) {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
    }
    saw != b'_'
}

/// Unsigned magnitude with Go's base-0 prefixes; `None` on bad syntax or overflow.
fn parse_magnitude(s: &str) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let lower = s.to_ascii_lowercase();
    let (base, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if s.contains('_') && !underscores_ok(s) {
        return None;
    }
    let digits: String = digits.chars().filter(|c| *c != '_').collect();
    if digits.is_empty() {
        return None;
    }
    u64::from_str_radix(&digits, base).ok()
}

/// strconv.ParseUint(s, 0, 64).
pub(crate) fn parse_uint(s: &str) -> Option<u64> {
    if s.starts_with(['+', '-']) {
        return None;
    }
    parse_magnitude(s)
}

/// strconv.ParseInt(s, 0, 64).
pub(crate) fn parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let m = parse_magnitude(body)?;
    if neg {
        if m <= 1 << 63 {
            // 2^63 is i64::MIN's magnitude: its bits, negated, are i64::MIN again.
            Some(m.cast_signed().wrapping_neg())
        } else {
            None
        }
    } else {
        i64::try_from(m).ok()
    }
}

/// strconv.ParseFloat(s, 64) for the forms a template number can take.
pub(crate) fn parse_float(s: &str) -> Option<f64> {
    if s.contains('_') && !underscores_ok(s) {
        return None;
    }
    let clean: String = s.chars().filter(|c| *c != '_').collect();
    let (neg, body) = match clean.as_bytes().first() {
        Some(b'-') => (true, &clean[1..]),
        Some(b'+') => (false, &clean[1..]),
        _ => (false, clean.as_str()),
    };
    let lower = body.to_ascii_lowercase();
    let value = if let Some(hex) = lower.strip_prefix("0x") {
        parse_hex_float(hex)?
    } else {
        // Go's decimal syntax: digits, optional fraction, optional exponent.
        let valid = {
            let (mant, exp) = match lower.split_once('e') {
                Some((m, e)) => (m, Some(e)),
                None => (lower.as_str(), None),
            };
            let mant_ok = !mant.is_empty()
                && mant != "."
                && mant.bytes().filter(|c| *c == b'.').count() <= 1
                && mant.bytes().all(|c| c.is_ascii_digit() || c == b'.');
            let exp_ok = exp.is_none_or(|e| {
                let e = e.strip_prefix(['+', '-']).unwrap_or(e);
                !e.is_empty() && e.bytes().all(|c| c.is_ascii_digit())
            });
            mant_ok && exp_ok
        };
        if !valid {
            return None;
        }
        lower.parse::<f64>().ok()?
    };
    if value.is_infinite() {
        return None; // Go reports a range error.
    }
    Some(if neg { -value } else { value })
}

/// A hex float mantissa `h.hhh` with its mandatory `p` exponent.
fn parse_hex_float(s: &str) -> Option<f64> {
    let (mant, exp) = s.split_once('p')?;
    let exp = exp.strip_prefix('+').unwrap_or(exp);
    if exp.is_empty()
        || !exp
            .trim_start_matches('-')
            .bytes()
            .all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let exp: i32 = exp.parse().ok()?;
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut value = 0f64;
    for c in int.chars() {
        value = value * 16.0 + f64::from(c.to_digit(16)?);
    }
    let mut scale = 1.0 / 16.0;
    for c in frac.chars() {
        value += f64::from(c.to_digit(16)?) * scale;
        scale /= 16.0;
    }
    Some(value * 2f64.powi(exp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_integer_syntax() {
        assert_eq!(parse_int("0x1F"), Some(31));
        assert_eq!(parse_int("0o17"), Some(15));
        assert_eq!(parse_int("017"), Some(15));
        assert_eq!(parse_int("0b101"), Some(5));
        assert_eq!(parse_int("1_000"), Some(1000));
        assert_eq!(parse_int("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_int("9223372036854775808"), None);
        assert_eq!(parse_uint("9223372036854775808"), Some(1 << 63));
        assert_eq!(parse_int("08"), None);
        assert_eq!(parse_int("1__0"), None);
        assert_eq!(parse_int("_1"), None);
        assert_eq!(parse_int("1_"), None);
    }

    #[test]
    fn go_float_syntax() {
        assert_eq!(parse_float("1e3"), Some(1000.0));
        assert_eq!(parse_float(".5"), Some(0.5));
        assert_eq!(parse_float("0x1p-2"), Some(0.25));
        assert_eq!(parse_float("1_0.5"), Some(10.5));
        assert_eq!(parse_float("08"), Some(8.0));
        assert_eq!(parse_float("0x1"), None);
        assert_eq!(parse_float("1e"), None);
        assert_eq!(parse_float("1e999"), None);
    }
}
