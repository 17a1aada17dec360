//! The date, time, date-time, duration and period formats (RFC 3339 and ISO 8601 as
//! Helm's validator reads them). A date goes through Go's `time.Parse` with the layout
//! `2006-01-02`, so its errors are Go's.

use std::fmt::Write;

use super::{Outcome, atoi};

fn fail<T>(why: impl Into<String>) -> Result<T, String> {
    Err(why.into())
}

/// The quoting of Go's time package: `"` and `\` escaped, bytes that are not printable
/// ASCII as `\xNN`.
fn time_quote(s: &[u8]) -> String {
    let mut out = String::from("\"");
    for &b in s {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(b as char);
            }
            b' '..=0x7f => out.push(b as char),
            _ => {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
    }
    out.push('"');
    out
}

/// `time.Parse("2006-01-02", s)`.
fn parse_date(s: &[u8]) -> Outcome {
    let whole = time_quote(s);
    let cannot = |value: &[u8], element: &str| {
        format!(
            "parsing time {whole} as \"2006-01-02\": cannot parse {} as \"{element}\"",
            time_quote(value)
        )
    };
    let digit = |v: &[u8], i: usize| v.get(i).is_some_and(u8::is_ascii_digit);
    // Year: four bytes, the first a digit, read as a number with an optional sign.
    if s.len() < 4 || !digit(s, 0) || !s[1..4].iter().all(u8::is_ascii_digit) {
        return Err(cannot(s, "2006"));
    }
    let year = s[..4].iter().fold(0, |n, b| n * 10 + i64::from(b - b'0'));
    let mut rest = &s[4..];
    let two = |element: &str, rest: &mut &[u8]| -> Result<i64, String> {
        match rest.first() {
            Some(b'-') => *rest = &rest[1..],
            _ => return Err(cannot(rest, "-")),
        }
        if !digit(rest, 0) || !digit(rest, 1) {
            return Err(cannot(rest, element));
        }
        let n = i64::from(rest[0] - b'0') * 10 + i64::from(rest[1] - b'0');
        *rest = &rest[2..];
        Ok(n)
    };
    let month = two("01", &mut rest)?;
    if !(1..=12).contains(&month) {
        return fail(format!("parsing time {whole}: month out of range"));
    }
    let day = two("02", &mut rest)?;
    if !rest.is_empty() {
        return fail(format!(
            "parsing time {whole}: extra text: {}",
            time_quote(rest)
        ));
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    if !(1..=days).contains(&day) {
        return fail(format!("parsing time {whole}: day out of range"));
    }
    Ok(())
}

pub(super) fn date(s: &str) -> Outcome {
    parse_date(s.as_bytes())
}

/// Go's `strconv.Atoi` on bytes that may not be UTF-8 (only the success matters here).
fn number(b: &[u8]) -> Option<i64> {
    std::str::from_utf8(b).ok().and_then(|s| atoi(s).ok())
}

fn time_bytes(s: &[u8]) -> Outcome {
    if s.len() < 9 {
        return fail("less than 9 characters long");
    }
    if s[2] != b':' || s[5] != b':' {
        return fail("missing colon in correct place");
    }
    let mut hms = [0i64; 3];
    for (slot, token) in hms.iter_mut().zip(s[..8].splitn(3, |&b| b == b':')) {
        *slot = number(token).ok_or("invalid hour/min/sec")?;
        if *slot < 0 {
            return fail("non-positive hour/min/sec");
        }
    }
    let [mut h, mut m, sec] = hms;
    if h > 23 || m > 59 || sec > 60 {
        return fail("hour/min/sec out of range");
    }
    let mut rest = &s[8..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let digits = frac.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            return fail("no digits in second fraction");
        }
        rest = &frac[digits..];
    }
    if rest != b"z" && rest != b"Z" {
        if rest.len() != 6 {
            return fail("offset must be 6 characters long");
        }
        let sign = match rest[0] {
            b'+' => -1,
            b'-' => 1,
            _ => return fail("offset must begin with plus/minus"),
        };
        let offset = &rest[1..];
        if offset[2] != b':' {
            return fail("missing colon in offset in correct place");
        }
        let mut zhm = [0i64; 2];
        for (slot, token) in zhm.iter_mut().zip(offset.splitn(2, |&b| b == b':')) {
            *slot = number(token).ok_or("invalid hour/min in offset")?;
            if *slot < 0 {
                return fail("non-positive hour/min in offset");
            }
        }
        let [zh, zm] = zhm;
        if zh > 23 || zm > 59 {
            return fail("hour/min in offset out of range");
        }
        // The time in UTC, for the leap second check.
        let mut minutes = h * 60 + m + sign * (zh * 60 + zm);
        if minutes < 0 {
            minutes += 24 * 60;
        }
        (h, m) = (minutes / 60, minutes % 60);
    }
    if sec >= 60 && (h != 23 || m != 59) {
        return fail("invalid leap second");
    }
    Ok(())
}

pub(super) fn time(s: &str) -> Outcome {
    time_bytes(s.as_bytes())
}

fn date_time_bytes(s: &[u8]) -> Outcome {
    if s.len() < 20 {
        return fail("less than 20 characters long");
    }
    if s[10] != b't' && s[10] != b'T' {
        return fail("11th character must be t or T");
    }
    parse_date(&s[..10]).or_else(|e| fail(format!("invalid date element: {e}")))?;
    time_bytes(&s[11..]).or_else(|e| fail(format!("invalid time element: {e}")))
}

pub(super) fn date_time(s: &str) -> Outcome {
    date_time_bytes(s.as_bytes())
}

pub(super) fn duration(s: &str) -> Outcome {
    const UNITS: [&str; 2] = ["YMD", "HMS"];
    let Some(s) = s.strip_prefix('P') else {
        return fail("must start with P");
    };
    if s.is_empty() {
        return fail("nothing after P");
    }
    if let Some(weeks) = s.strip_suffix('W') {
        if weeks.is_empty() {
            return fail("no number in week");
        }
        if !weeks.bytes().all(|b| b.is_ascii_digit()) {
            return fail("invalid week");
        }
        return Ok(());
    }
    for (i, part) in s.split('T').enumerate() {
        if i != 0 && part.is_empty() {
            return fail("no time elements");
        }
        let Some(all) = UNITS.get(i) else {
            return fail("more than one T");
        };
        let mut units = *all;
        let mut rest = part.as_bytes();
        while !rest.is_empty() {
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits == 0 {
                return fail("missing number");
            }
            rest = &rest[digits..];
            let Some(&unit) = rest.first() else {
                return fail("missing unit");
            };
            let shown = super::rune(char::from(unit));
            match units.bytes().position(|u| u == unit) {
                Some(j) => units = &units[j + 1..],
                None if all.as_bytes().contains(&unit) => {
                    return fail(format!("unit {shown} out of order"));
                }
                None => return fail(format!("invalid unit {shown}")),
            }
            rest = &rest[1..];
        }
    }
    Ok(())
}

pub(super) fn period(s: &str) -> Outcome {
    let Some((start, end)) = s.split_once('/') else {
        return fail("missing slash");
    };
    let with = |what: &str, result: Outcome| result.or_else(|e| fail(format!("{what}: {e}")));
    if start.starts_with('P') {
        with("invalid start duration", duration(start))?;
        with("invalid end date-time", date_time(end))
    } else {
        with("invalid start date-time", date_time(start))?;
        if end.starts_with('P') {
            with("invalid end duration", duration(end))
        } else {
            with("invalid end date-time", date_time(end))
        }
    }
}
