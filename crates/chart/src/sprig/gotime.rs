//! Go's time values as sprig's date functions use them: a `time.Time` object that
//! prints as Go's `Time.String()` ("2026-11-21 14:15:08.123 +0000 UTC"), serializes as
//! RFC 3339 and has the methods charts call (`.Unix`, `.Format`, `.Year`); layouts and
//! durations live in `layout` and `gotemplate::duration`.
use std::sync::Arc;

use chrono::{DateTime, Datelike, FixedOffset, NaiveDateTime, TimeZone, Timelike, Utc};
use chrono_tz::Tz;
use gotemplate::{Object, Value};

pub use super::layout::{format, parse};
pub use gotemplate::duration::{format_duration, parse_duration};

/// A point in time with the zone it is shown in.
#[derive(Clone, Debug)]
pub struct GoTime {
    pub at: DateTime<FixedOffset>,
    pub zone: String,
}

impl GoTime {
    pub fn now() -> GoTime {
        GoTime::in_zone(Utc::now(), "Local")
    }

    pub fn from_unix(secs: i64) -> GoTime {
        GoTime::in_zone(
            Utc.timestamp_opt(secs, 0).single().unwrap_or_default(),
            "Local",
        )
    }

    /// The instant shown in `zone` ("UTC", "Local", an IANA name); unknown zones
    /// fall back to UTC as sprig's dateInZone does.
    pub fn in_zone(at: DateTime<Utc>, zone: &str) -> GoTime {
        let name = zone_name(zone);
        match name.parse::<Tz>() {
            Ok(tz) if name != "UTC" => {
                let local = at.with_timezone(&tz);
                let abbr = local.format("%Z").to_string();
                GoTime {
                    at: local.fixed_offset(),
                    zone: abbr,
                }
            }
            _ => GoTime {
                at: at.fixed_offset(),
                zone: "UTC".into(),
            },
        }
    }

    pub fn utc(&self) -> DateTime<Utc> {
        self.at.with_timezone(&Utc)
    }

    /// Go's `Time.Format(layout)`.
    pub fn format(&self, layout: &str) -> String {
        format(&self.at, &self.zone, layout)
    }

    /// Go's `Time.String()` without the monotonic clock reading.
    pub fn to_go_string(&self) -> String {
        format(
            &self.at,
            &self.zone,
            "2006-01-02 15:04:05.999999999 -0700 MST",
        )
    }

    /// Reads back what [`GoTime::to_go_string`] wrote.
    pub fn parse_go_string(text: &str) -> Option<GoTime> {
        let mut parts = text.rsplitn(3, ' ');
        let zone = parts.next()?;
        let offset = parts.next()?;
        let stamp = parts.next()?;
        let naive = NaiveDateTime::parse_from_str(stamp, "%Y-%m-%d %H:%M:%S%.f").ok()?;
        let offset = parse_offset(offset)?;
        let at = offset.from_local_datetime(&naive).single()?;
        Some(GoTime {
            at,
            zone: zone.to_string(),
        })
    }
}

pub(crate) fn parse_offset(text: &str) -> Option<FixedOffset> {
    let sign = match text.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits: String = text[1..].chars().filter(char::is_ascii_digit).collect();
    let (h, m, sec) = match digits.len() {
        2 => (digits.parse::<i32>().ok()?, 0, 0),
        4 => (
            digits[..2].parse::<i32>().ok()?,
            digits[2..].parse::<i32>().ok()?,
            0,
        ),
        6 => (
            digits[..2].parse().ok()?,
            digits[2..4].parse().ok()?,
            digits[4..].parse().ok()?,
        ),
        _ => return None,
    };
    FixedOffset::east_opt(sign * (h * 3600 + m * 60 + sec))
}

/// The IANA name of `zone`, with "Local" resolved by [`local_zone_name`].
pub(crate) fn zone_name(zone: &str) -> String {
    if zone == "Local" {
        local_zone_name()
    } else {
        zone.to_string()
    }
}

/// The zone Go calls Local: $TZ when it names a zone, else UTC (containers and CI
/// machines, where charts are rendered, run in UTC).
fn local_zone_name() -> String {
    std::env::var("TZ")
        .ok()
        .filter(|z| z.parse::<Tz>().is_ok())
        .unwrap_or_else(|| "UTC".into())
}

/// Go's `time.Time` as a template value.
struct TimeObject(GoTime);

impl GoTime {
    /// The template value of this time.
    pub fn to_value(&self) -> Value {
        Value::Object(Arc::new(TimeObject(self.clone())))
    }

    /// The time a template value holds, if it is a `time.Time`.
    pub fn from_value(v: &Value) -> Option<GoTime> {
        match v {
            Value::Object(o) if o.type_name() == "time.Time" => {
                GoTime::parse_go_string(&o.go_string())
            }
            _ => None,
        }
    }
}

const TIME_METHODS: [&str; 11] = [
    "Unix",
    "UnixMilli",
    "UnixNano",
    "Year",
    "YearDay",
    "Day",
    "Hour",
    "Minute",
    "Second",
    "Format",
    "String",
];

impl Object for TimeObject {
    fn type_name(&self) -> &'static str {
        "time.Time"
    }
    fn call_method(&self, name: &str, args: &[Value]) -> Option<gotemplate::Result<Value>> {
        if !TIME_METHODS.contains(&name) {
            return None;
        }
        let want = usize::from(name == "Format");
        if args.len() != want {
            return Some(Err(gotemplate::Error::Exec(format!(
                "wrong number of args for {name}: want {want} got {}",
                args.len()
            ))));
        }
        let (t, utc) = (&self.0.at, self.0.utc());
        Some(Ok(match name {
            "Unix" => Value::Int64(utc.timestamp()),
            "UnixMilli" => Value::Int64(utc.timestamp_millis()),
            "UnixNano" => Value::Int64(utc.timestamp_nanos_opt().unwrap_or(i64::MIN)),
            "Year" => Value::Int(i64::from(t.year())),
            "YearDay" => Value::Int(i64::from(t.ordinal())),
            "Day" => Value::Int(i64::from(t.day())),
            "Hour" => Value::Int(i64::from(t.hour())),
            "Minute" => Value::Int(i64::from(t.minute())),
            "Second" => Value::Int(i64::from(t.second())),
            "Format" => match &args[0] {
                Value::String(layout) => Value::string(format(t, &self.0.zone, layout)),
                other => {
                    return Some(Err(gotemplate::Error::Exec(format!(
                        "wrong type for value; expected string; got {}",
                        other.type_name()
                    ))));
                }
            },
            _ => Value::string(self.0.to_go_string()),
        }))
    }
    fn has_method(&self, name: &str) -> bool {
        TIME_METHODS.contains(&name)
    }
    fn method_signature(&self, name: &str) -> Option<&'static str> {
        Some(match name {
            "Format" => "func(string) string",
            "String" => "func() string",
            "Unix" | "UnixMilli" | "UnixNano" => "func() int64",
            _ => "func() int",
        })
    }
    fn go_string(&self) -> String {
        self.0.to_go_string()
    }
    /// Time's `MarshalJSON` writes RFC 3339 with nanoseconds.
    fn to_data(&self) -> Value {
        Value::string(format(
            &self.0.at,
            &self.0.zone,
            "2006-01-02T15:04:05.999999999Z07:00",
        ))
    }
}
