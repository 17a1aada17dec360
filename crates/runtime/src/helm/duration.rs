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
/// The reading itself is Go's (`gotemplate::duration`, shared with the chart engine);
/// surrounding whitespace is ignored.
///
/// # Errors
///
/// The [`DurationError`] that says why `text` is not a non-negative Go duration.
pub fn parse_go_duration(text: &str) -> Result<Duration, DurationError> {
    use gotemplate::duration::{DurationError as Go, parse_duration};

    let nanos = parse_duration(text.trim()).map_err(|e| match e.kind {
        Go::Empty => DurationError::Empty,
        Go::ExpectedNumber(rest) => DurationError::ExpectedNumber(rest),
        Go::MissingUnit(number) => DurationError::MissingUnit(number),
        Go::UnknownUnit(unit) => DurationError::UnknownUnit(unit),
        Go::OutOfRange => DurationError::Overflow,
    })?;
    u64::try_from(nanos)
        .map(Duration::from_nanos)
        .map_err(|_| DurationError::Negative)
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
        // Go reads `1.` and finds no unit before the next `.`.
        assert_eq!(
            parse_go_duration("1..2s"),
            Err(DurationError::MissingUnit("1.".into()))
        );
        assert_eq!(
            parse_go_duration("99999999999999h"),
            Err(DurationError::Overflow)
        );
    }
}
