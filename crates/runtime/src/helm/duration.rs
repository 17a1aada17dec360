//! Go duration strings (`time.ParseDuration`): `300ms`, `1m30s`, `2h`, `1.5h`.
//! watches.yaml and the reconcile-period annotation use them, as operator-sdk does.
use std::time::Duration;

/// Why a duration string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    #[error("empty duration")]
    Empty,
    #[error("negative durations are not allowed")]
    Negative,
    #[error("missing unit after {0:?} (use ns, us, ms, s, m or h)")]
    MissingUnit(String),
    #[error("unknown unit {0:?} (use ns, us, ms, s, m or h)")]
    UnknownUnit(String),
    #[error("expected a number at {0:?}")]
    ExpectedNumber(String),
    #[error("duration out of range")]
    Overflow,
}

/// Parse a Go duration. Negative values are refused: every duration rusty-sdk reads is a period.
///
/// # Errors
///
/// The [`DurationError`] that says why `text` is not a non-negative Go duration.
pub fn parse_go_duration(text: &str) -> Result<Duration, DurationError> {
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(DurationError::Empty);
    }
    if let Some(stripped) = rest.strip_prefix('-') {
        return if stripped.trim_matches(|c| c == '0' || c == '.').is_empty() && !stripped.is_empty()
        {
            Ok(Duration::ZERO)
        } else {
            Err(DurationError::Negative)
        };
    }
    rest = rest.strip_prefix('+').unwrap_or(rest);
    // Go accepts a bare "0" without unit.
    if rest == "0" {
        return Ok(Duration::ZERO);
    }
    let mut total_nanos: u128 = 0;
    while !rest.is_empty() {
        let (number, after_number) = split_number(rest)?;
        let (unit, after_unit) = split_unit(after_number, number)?;
        total_nanos = total_nanos
            .checked_add(to_nanos(number, unit)?)
            .ok_or(DurationError::Overflow)?;
        rest = after_unit;
    }
    let nanos = u64::try_from(total_nanos).map_err(|_| DurationError::Overflow)?;
    Ok(Duration::from_nanos(nanos))
}

fn split_number(text: &str) -> Result<(&str, &str), DurationError> {
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let number = &text[..end];
    if number.is_empty() || number == "." || number.matches('.').count() > 1 {
        return Err(DurationError::ExpectedNumber(text.to_string()));
    }
    Ok((number, &text[end..]))
}

fn split_unit<'a>(text: &'a str, number: &str) -> Result<(&'a str, &'a str), DurationError> {
    let end = text
        .find(|c: char| c.is_ascii_digit() || c == '.')
        .unwrap_or(text.len());
    if end == 0 {
        return Err(DurationError::MissingUnit(number.to_string()));
    }
    Ok((&text[..end], &text[end..]))
}

fn unit_nanos(unit: &str) -> Result<u128, DurationError> {
    Ok(match unit {
        "ns" => 1,
        "us" | "µs" | "μs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60 * 1_000_000_000,
        "h" => 3_600 * 1_000_000_000,
        other => return Err(DurationError::UnknownUnit(other.to_string())),
    })
}

fn to_nanos(number: &str, unit: &str) -> Result<u128, DurationError> {
    let scale = unit_nanos(unit)?;
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let whole: u128 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| DurationError::Overflow)?
    };
    let mut nanos = whole.checked_mul(scale).ok_or(DurationError::Overflow)?;
    // Fractions are exact to the nanosecond, like Go.
    let mut place = scale;
    for digit in fraction.chars().filter_map(|c| c.to_digit(10)) {
        place /= 10;
        if place == 0 {
            break;
        }
        nanos += u128::from(digit) * place;
    }
    Ok(nanos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_go_duration_forms() {
        let cases = [
            ("0", 0),
            ("500ms", 500_000_000),
            ("1m30s", 90_000_000_000),
            ("2h", 7_200_000_000_000),
            ("1.5h", 5_400_000_000_000),
            ("1h2m3s4ms5us6ns", 3_723_004_005_006),
            ("10µs", 10_000),
            (".5s", 500_000_000),
            ("+3s", 3_000_000_000),
            ("-0", 0),
        ];
        for (text, nanos) in cases {
            assert_eq!(
                parse_go_duration(text),
                Ok(Duration::from_nanos(nanos)),
                "{text}"
            );
        }
    }

    #[test]
    fn rejects_what_go_rejects() {
        assert_eq!(parse_go_duration(""), Err(DurationError::Empty));
        assert_eq!(
            parse_go_duration("10"),
            Err(DurationError::MissingUnit("10".into()))
        );
        assert_eq!(
            parse_go_duration("5d"),
            Err(DurationError::UnknownUnit("d".into()))
        );
        assert_eq!(
            parse_go_duration("m"),
            Err(DurationError::ExpectedNumber("m".into()))
        );
        assert_eq!(parse_go_duration("-1s"), Err(DurationError::Negative));
        assert_eq!(
            parse_go_duration("1..2s"),
            Err(DurationError::ExpectedNumber("1..2s".into()))
        );
        assert_eq!(
            parse_go_duration("99999999999999h"),
            Err(DurationError::Overflow)
        );
    }
}
