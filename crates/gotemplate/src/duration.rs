//! Go's `time.Duration` as text: `time.ParseDuration` and `Duration.String`.
//!
//! The one home of this rule in the workspace: sprig's date functions (`duration`,
//! `dateModify`, `ago`) and the runtime's flags, watches.yaml and reconcile-period
//! annotation all read durations the way Go does, down to the nanosecond and the
//! overflow limit of an `int64` count of nanoseconds.

use std::fmt::Write as _;

/// Why a text is not a Go duration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DurationError {
    /// Nothing to read: an empty text, or a sign alone.
    Empty,
    /// No number where one must start: the rest of the text from there.
    ExpectedNumber(String),
    /// A number without a unit after it: the number.
    MissingUnit(String),
    /// A unit that is none of `ns`, `us`, `µs`, `ms`, `s`, `m`, `h`.
    UnknownUnit(String),
    /// More than an `int64` of nanoseconds (about 292 years).
    OutOfRange,
}

/// A [`DurationError`] with the text it came from, shown with Go's own message
/// (`time: invalid duration "x"`), as Helm's template errors show it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.go_message())]
pub struct ParseDurationError {
    /// What was wrong.
    pub kind: DurationError,
    /// The whole text given.
    pub text: String,
}

impl ParseDurationError {
    fn go_message(&self) -> String {
        let text = time_quote(&self.text);
        match &self.kind {
            DurationError::MissingUnit(_) => format!("time: missing unit in duration {text}"),
            DurationError::UnknownUnit(unit) => {
                format!("time: unknown unit {} in duration {text}", time_quote(unit))
            }
            DurationError::Empty | DurationError::ExpectedNumber(_) | DurationError::OutOfRange => {
                format!("time: invalid duration {text}")
            }
        }
    }
}

/// How Go's time package quotes text in its errors (its own `quote`, not
/// `strconv.Quote`): quotes and backslashes escaped, every byte of a control or non-ASCII
/// character as `\xHH`.
fn time_quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if c.is_ascii() && c >= ' ' {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                let _ = write!(out, "\\x{byte:02x}");
            }
        }
    }
    out.push('"');
    out
}

/// The largest magnitude Go's parser accepts before the sign: 2^63 nanoseconds.
const LIMIT: u64 = 1 << 63;

/// Go's `time.ParseDuration`: a signed sequence of decimal numbers, each with an
/// optional fraction and a unit (`300ms`, `-1.5h`, `2h45m`), in nanoseconds.
///
/// # Errors
///
/// A [`ParseDurationError`] that says what Go would have refused, and where.
///
/// # Examples
///
/// ```
/// use gotemplate::duration::parse_duration;
///
/// assert_eq!(parse_duration("1m30s")?, 90_000_000_000);
/// assert_eq!(parse_duration("-1.5ms")?, -1_500_000);
/// assert_eq!(
///     parse_duration("90").unwrap_err().to_string(),
///     r#"time: missing unit in duration "90""#
/// );
/// # Ok::<(), gotemplate::duration::ParseDurationError>(())
/// ```
pub fn parse_duration(text: &str) -> Result<i64, ParseDurationError> {
    let fail = |kind| ParseDurationError {
        kind,
        text: text.to_string(),
    };
    let (neg, mut rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    // A bare 0 needs no unit.
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(fail(DurationError::Empty));
    }
    let mut total: u64 = 0;
    while !rest.is_empty() {
        let (term, after) = leading_term(rest).map_err(fail)?;
        total = total
            .checked_add(term)
            .filter(|&t| t <= LIMIT)
            .ok_or_else(|| fail(DurationError::OutOfRange))?;
        rest = after;
    }
    if neg {
        // -2^63 is the one value whose magnitude does not fit a positive i64.
        return Ok(0i64.wrapping_sub_unsigned(total));
    }
    i64::try_from(total).map_err(|_| fail(DurationError::OutOfRange))
}

/// One `number unit` term at the start of `text`: its nanoseconds and the rest.
fn leading_term(text: &str) -> Result<(u64, &str), DurationError> {
    if !text.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
        return Err(DurationError::ExpectedNumber(text.to_string()));
    }
    let (whole, rest) = leading_int(text)?;
    let has_whole = rest.len() != text.len();
    let (fraction, scale, rest, has_fraction) = match rest.strip_prefix('.') {
        Some(after_dot) => {
            let (fraction, scale, rest) = leading_fraction(after_dot);
            (fraction, scale, rest, rest.len() != after_dot.len())
        }
        None => (0, 1.0, rest, false),
    };
    if !has_whole && !has_fraction {
        return Err(DurationError::ExpectedNumber(text.to_string()));
    }
    let number = &text[..text.len() - rest.len()];
    let unit_len = rest
        .find(|c: char| c == '.' || c.is_ascii_digit())
        .unwrap_or(rest.len());
    if unit_len == 0 {
        return Err(DurationError::MissingUnit(number.to_string()));
    }
    let (unit, rest) = rest.split_at(unit_len);
    let unit_nanos =
        unit_nanos(unit).ok_or_else(|| DurationError::UnknownUnit(unit.to_string()))?;
    if whole > LIMIT / unit_nanos {
        return Err(DurationError::OutOfRange);
    }
    let mut nanos = whole * unit_nanos;
    if fraction > 0 {
        // Go scales the fraction in floating point and truncates, as here.
        #[allow(
            clippy::cast_precision_loss,
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss
        )]
        let part = (fraction as f64 * (unit_nanos as f64 / scale)) as u64;
        nanos = nanos
            .checked_add(part)
            .filter(|&n| n <= LIMIT)
            .ok_or(DurationError::OutOfRange)?;
    }
    Ok((nanos, rest))
}

/// The leading digits of `text` as an integer up to 2^63, and the rest.
fn leading_int(text: &str) -> Result<(u64, &str), DurationError> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let mut value: u64 = 0;
    for digit in text[..digits].bytes() {
        value = value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(digit - b'0')))
            .filter(|&v| v <= LIMIT)
            .ok_or(DurationError::OutOfRange)?;
    }
    Ok((value, &text[digits..]))
}

/// The digits after a decimal point: as many as fit an integer below 2^63 (the rest
/// are read and dropped, as Go does), the power of ten they are scaled by, and the rest.
fn leading_fraction(text: &str) -> (u64, f64, &str) {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let mut value: u64 = 0;
    let mut scale = 1.0;
    let mut overflow = false;
    for digit in text[..digits].bytes() {
        if overflow {
            continue;
        }
        let next = Some(value)
            .filter(|&v| v <= (LIMIT - 1) / 10)
            .map(|v| v * 10 + u64::from(digit - b'0'))
            .filter(|&v| v <= LIMIT);
        match next {
            Some(next) => {
                value = next;
                scale *= 10.0;
            }
            None => overflow = true,
        }
    }
    (value, scale, &text[digits..])
}

fn unit_nanos(unit: &str) -> Option<u64> {
    Some(match unit {
        "ns" => 1,
        "us" | "µs" | "μs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        _ => return None,
    })
}

/// Go's `Duration.String`: `1h2m3s`, `1.5s`, `250ms`, `0s`.
#[must_use]
pub fn format_duration(nanos: i64) -> String {
    if nanos == 0 {
        return "0s".into();
    }
    let magnitude = nanos.unsigned_abs();
    let mut out = String::new();
    if nanos < 0 {
        out.push('-');
    }
    if magnitude < 1_000_000_000 {
        let (unit, scale) = if magnitude < 1_000 {
            ("ns", 1)
        } else if magnitude < 1_000_000 {
            ("µs", 1_000)
        } else {
            ("ms", 1_000_000)
        };
        out.push_str(&decimal(magnitude, scale));
        out.push_str(unit);
    } else {
        let hours = magnitude / 3_600_000_000_000;
        let minutes = magnitude / 60_000_000_000 % 60;
        if hours > 0 {
            let _ = write!(out, "{hours}h");
        }
        if hours > 0 || minutes > 0 {
            let _ = write!(out, "{minutes}m");
        }
        out.push_str(&decimal(magnitude % 60_000_000_000, 1_000_000_000));
        out.push('s');
    }
    out
}

/// `value / scale` in decimal without trailing zeros (`scale` a power of ten).
fn decimal(value: u64, scale: u64) -> String {
    let whole = value / scale;
    let fraction = value % scale;
    if fraction == 0 {
        return whole.to_string();
    }
    let width = scale.ilog10() as usize;
    let digits = format!("{fraction:0width$}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values: Go 1.24's `time.ParseDuration`.
    #[test]
    fn parses_as_go_does() {
        let ok = [
            ("0", 0),
            ("-0", 0),
            ("+5s", 5_000_000_000),
            ("1h30m", 5_400_000_000_000),
            ("-1.5s", -1_500_000_000),
            (".5s", 500_000_000),
            ("5.s", 5_000_000_000),
            ("1.0000000006s", 1_000_000_000),
            ("3µs", 3_000),
            ("3μs", 3_000),
            ("1h1m1s1ms1us1ns", 3_661_001_001_001),
            ("9223372036854775807ns", i64::MAX),
            ("-9223372036854775808ns", i64::MIN),
            ("0.100000000000000000000h", 360_000_000_000),
        ];
        for (text, nanos) in ok {
            assert_eq!(parse_duration(text), Ok(nanos), "{text}");
        }
        let refused = [
            ("", r#"time: invalid duration """#),
            ("-", r#"time: invalid duration "-""#),
            ("3", r#"time: missing unit in duration "3""#),
            ("1h30", r#"time: missing unit in duration "1h30""#),
            ("1x", r#"time: unknown unit "x" in duration "1x""#),
            (
                "30 minutes",
                r#"time: unknown unit " minutes" in duration "30 minutes""#,
            ),
            (
                "2é",
                r#"time: unknown unit "\xc3\xa9" in duration "2\xc3\xa9""#,
            ),
            (
                "1\"s\"",
                r#"time: unknown unit "\"s\"" in duration "1\"s\"""#,
            ),
            (".s", r#"time: invalid duration ".s""#),
            ("s", r#"time: invalid duration "s""#),
            (
                "9223372036854775808ns",
                r#"time: invalid duration "9223372036854775808ns""#,
            ),
            ("3000000h", r#"time: invalid duration "3000000h""#),
        ];
        for (text, message) in refused {
            let error = parse_duration(text).expect_err(text);
            assert_eq!(error.to_string(), message, "{text}");
        }
    }

    #[test]
    fn prints_as_go_does() {
        assert_eq!(format_duration(5_400_000_000_000), "1h30m0s");
        assert_eq!(format_duration(1_500_000_000), "1.5s");
        assert_eq!(format_duration(250_000_000), "250ms");
        assert_eq!(format_duration(1_500), "1.5µs");
        assert_eq!(format_duration(0), "0s");
        assert_eq!(format_duration(-60_000_000_000), "-1m0s");
        assert_eq!(format_duration(i64::MIN), "-2562047h47m16.854775808s");
    }
}
