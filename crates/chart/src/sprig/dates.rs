//! sprig's date functions: now, date, dateInZone, htmlDate, htmlDateInZone,
//! dateModify, toDate, unixEpoch, ago, duration, durationRound.
use chrono::Utc;
use gotemplate::{Result, Value};

use super::args::{Function, call_error, exact, s, string};
use super::gotime::{self, GoTime};

/// A time argument: a time value (as `now`/`toDate` return) or Unix seconds;
/// anything else means "now", as in sprig.
fn time_arg(v: &Value) -> GoTime {
    match v {
        Value::Int(secs) | Value::Int64(secs) => GoTime::from_unix(*secs),
        other => GoTime::from_value(other).unwrap_or_else(GoTime::now),
    }
}

/// A Go `time.Time` parameter: only a time value is accepted.
fn strict_time(name: &str, v: &Value) -> Result<GoTime> {
    GoTime::from_value(v)
        .ok_or_else(|| {
            gotemplate::TemplateError::Exec(format!(
                "wrong type for value; expected time.Time; got {}",
                super::args::go_type(v)
            ))
        })
        .map_err(|e| call_error(name, e))
}

fn date_in_zone(layout: &str, v: &Value, zone: &str) -> String {
    let t = time_arg(v);
    let shown = GoTime::in_zone(t.utc(), zone);
    gotime::format(&shown.at, &shown.zone, layout)
}

fn time_value(t: &GoTime) -> Value {
    t.to_value()
}

/// The family's template functions. The `snake_case` names are sprig's deprecated
/// aliases; each `mustName` shares its body with `name`, told by the name whether to
/// return the error the plain form swallows.
pub(crate) const FUNCTIONS: &[Function] = &[
    Function::new("now", "func() time.Time", now),
    Function::new("date", "func(string, interface {}) string", date),
    Function::named(
        "dateInZone",
        "func(string, interface {}, string) string",
        date_in_zone_fn,
    ),
    Function::named(
        "date_in_zone",
        "func(string, interface {}, string) string",
        date_in_zone_fn,
    ),
    Function::new("htmlDate", "func(interface {}) string", html_date),
    Function::new(
        "htmlDateInZone",
        "func(interface {}, string) string",
        html_date_in_zone,
    ),
    Function::named(
        "dateModify",
        "func(string, time.Time) time.Time",
        date_modify,
    ),
    Function::named(
        "date_modify",
        "func(string, time.Time) time.Time",
        date_modify,
    ),
    Function::named(
        "mustDateModify",
        "func(string, time.Time) (time.Time, error)",
        date_modify,
    ),
    Function::named(
        "must_date_modify",
        "func(string, time.Time) (time.Time, error)",
        date_modify,
    ),
    Function::named("toDate", "func(string, string) time.Time", to_date),
    Function::named(
        "mustToDate",
        "func(string, string) (time.Time, error)",
        to_date,
    ),
    Function::new("unixEpoch", "func(time.Time) string", unix_epoch),
    Function::new("ago", "func(interface {}) string", ago),
    Function::new("duration", "func(interface {}) string", duration),
    Function::new("durationRound", "func(interface {}) string", duration_round),
];

/// Whether the function called `name` is a `must` form, which returns its error.
fn is_must(name: &str) -> bool {
    name.starts_with("must")
}

fn now(a: &[Value]) -> Result<Value> {
    exact("now", a, 0)?;
    Ok(time_value(&GoTime::now()))
}

fn date(a: &[Value]) -> Result<Value> {
    let a = exact("date", a, 2)?;
    Ok(s(date_in_zone(string(&a[0])?, &a[1], "Local")))
}

fn date_in_zone_fn(name: &str, a: &[Value]) -> Result<Value> {
    let a = exact(name, a, 3)?;
    Ok(s(date_in_zone(string(&a[0])?, &a[1], string(&a[2])?)))
}

fn html_date(a: &[Value]) -> Result<Value> {
    Ok(s(date_in_zone(
        "2006-01-02",
        &exact("htmlDate", a, 1)?[0],
        "Local",
    )))
}

fn html_date_in_zone(a: &[Value]) -> Result<Value> {
    let a = exact("htmlDateInZone", a, 2)?;
    Ok(s(date_in_zone("2006-01-02", &a[0], string(&a[1])?)))
}

/// `dateModify "-1.5h" t`: the time moved by a Go duration; a bad duration leaves it
/// unchanged, or is the error of the `must` forms.
fn date_modify(name: &str, a: &[Value]) -> Result<Value> {
    let a = exact(name, a, 2)?;
    let (delta, t) = (string(&a[0])?, strict_time(name, &a[1])?);
    match gotime::parse_duration(delta) {
        Ok(nanos) => {
            let moved = t.utc() + chrono::Duration::nanoseconds(nanos);
            Ok(time_value(&GoTime {
                at: moved.with_timezone(t.at.offset()),
                zone: t.zone,
            }))
        }
        Err(e) if is_must(name) => Err(call_error(name, e)),
        Err(_) => Ok(time_value(&t)),
    }
}

/// `toDate layout text`: the text read with a Go layout; unreadable text gives Go's
/// zero time, or is the error of `mustToDate`.
fn to_date(name: &str, a: &[Value]) -> Result<Value> {
    let a = exact(name, a, 2)?;
    match gotime::parse(string(&a[0])?, string(&a[1])?, "Local") {
        Ok(t) => Ok(time_value(&t)),
        Err(e) if is_must(name) => Err(call_error(name, e)),
        // Go's zero time.
        Err(_) => Ok(GoTime::parse_go_string("0001-01-01 00:00:00 +0000 UTC")
            .map_or(Value::Nil, |t| t.to_value())),
    }
}

fn unix_epoch(a: &[Value]) -> Result<Value> {
    let t = strict_time("unixEpoch", &exact("unixEpoch", a, 1)?[0])?;
    Ok(s(t.utc().timestamp().to_string()))
}

fn ago(a: &[Value]) -> Result<Value> {
    let t = time_arg(&exact("ago", a, 1)?[0]);
    // Go's Round(time.Second): halves away from zero.
    let millis = (Utc::now() - t.utc()).num_milliseconds();
    let half = if millis < 0 { -500 } else { 500 };
    let secs = millis.saturating_add(half) / 1000;
    Ok(s(gotime::format_duration(
        secs.saturating_mul(1_000_000_000),
    )))
}

fn duration(a: &[Value]) -> Result<Value> {
    let secs = match &exact("duration", a, 1)?[0] {
        Value::String(text) => text.parse::<i64>().unwrap_or(0),
        // sprig's type switch has an int64 case and no int case.
        Value::Int64(n) => *n,
        _ => 0,
    };
    Ok(s(gotime::format_duration(
        secs.saturating_mul(1_000_000_000),
    )))
}

fn duration_round(a: &[Value]) -> Result<Value> {
    let nanos = match &exact("durationRound", a, 1)?[0] {
        Value::String(text) => gotime::parse_duration(text).unwrap_or(0),
        Value::Int64(n) => *n,
        other => GoTime::from_value(other).map_or(0, |t| {
            (Utc::now() - t.utc()).num_nanoseconds().unwrap_or(i64::MAX)
        }),
    };
    Ok(s(round_duration(nanos)))
}

/// sprig's durationRound: the largest whole unit, "2h", "3mo", "1y".
fn round_duration(nanos: i64) -> String {
    const SECOND: u64 = 1_000_000_000;
    let u = nanos.unsigned_abs();
    let units = [
        (SECOND * 3600 * 24 * 365, "y"),
        (SECOND * 3600 * 24 * 30, "mo"),
        (SECOND * 3600 * 24, "d"),
        (SECOND * 3600, "h"),
        (SECOND * 60, "m"),
        (SECOND, "s"),
    ];
    for (size, suffix) in units {
        if u > size {
            return format!("{}{suffix}", u / size);
        }
    }
    "0s".into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_durations_like_sprig() {
        assert_eq!(round_duration(2 * 3600 * 1_000_000_000 + 5), "2h");
        assert_eq!(round_duration(-(400 * 24 * 3600 * 1_000_000_000)), "1y");
        assert_eq!(round_duration(1_000_000_000), "0s");
    }
}
