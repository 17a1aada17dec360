//! Go's time values as sprig's date functions use them. A time travels through
//! templates as the text Go's Time.String() prints ("2026-11-21 14:15:08.123 +0000 UTC"),
//! which is also what `{{ now }}` shows; layouts and durations live in `layout` and
//! `duration`.
use chrono::{DateTime, FixedOffset, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;

pub use super::duration::{format_duration, parse_duration};
pub use super::layout::{format, parse};

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

    /// Go's Time.String() without the monotonic clock reading.
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
