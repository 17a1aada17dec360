//! Go's reference-layout time formatting and parsing ("2006-01-02 15:04:05").
use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, NaiveTime, TimeZone, Timelike, Utc};
use chrono_tz::Tz;

use super::gotime::{GoTime, parse_offset, zone_name};

/// Layout elements of Go's reference time, longest first where prefixes clash.
const TOKENS: &[&str] = &[
    "January",
    "Monday",
    "2006",
    "-07:00:00",
    "-0700",
    "-07:00",
    "-07",
    "Z07:00:00",
    "Z0700",
    "Z07:00",
    "Z07",
    "Jan",
    "Mon",
    "MST",
    "002",
    "__2",
    "_2",
    "01",
    "02",
    "03",
    "04",
    "05",
    "06",
    "15",
    "PM",
    "pm",
    "1",
    "2",
    "3",
    "4",
    "5",
];

/// Splits a layout into literal text and elements (fractional seconds included).
fn tokens(layout: &str) -> Vec<(bool, &str)> {
    let mut out = Vec::new();
    let mut rest = layout;
    let mut lit_start = 0;
    let mut pos = 0;
    while !rest.is_empty() {
        let frac = frac_len(rest);
        let tok = if frac > 0 {
            Some(&rest[..frac])
        } else {
            TOKENS.iter().copied().find(|t| rest.starts_with(t))
        };
        if let Some(tok) = tok {
            if lit_start < pos {
                out.push((false, &layout[lit_start..pos]));
            }
            out.push((true, tok));
            pos += tok.len();
            lit_start = pos;
            rest = &layout[pos..];
        } else {
            let len = rest.chars().next().map_or(1, char::len_utf8);
            pos += len;
            rest = &layout[pos..];
        }
    }
    if lit_start < layout.len() {
        out.push((false, &layout[lit_start..]));
    }
    out
}

/// Length of a ".000"/".999"/",000" element at the start, when followed by no digit.
fn frac_len(s: &str) -> usize {
    let b = s.as_bytes();
    if b.len() < 2 || !(b[0] == b'.' || b[0] == b',') || !(b[1] == b'0' || b[1] == b'9') {
        return 0;
    }
    let digit = b[1];
    let n = b[1..].iter().take_while(|c| **c == digit).count();
    if b.get(1 + n).is_some_and(u8::is_ascii_digit) {
        0
    } else {
        1 + n
    }
}

/// Go's Time.Format.
pub fn format(t: &DateTime<FixedOffset>, zone: &str, layout: &str) -> String {
    let mut out = String::new();
    let off = t.offset().local_minus_utc();
    let (sign, abs) = if off < 0 { ('-', -off) } else { ('+', off) };
    let (oh, om, os) = (abs / 3600, abs / 60 % 60, abs % 60);
    for (is_tok, text) in tokens(layout) {
        if !is_tok {
            out.push_str(text);
            continue;
        }
        let s = match text {
            "2006" => format!("{:04}", t.year()),
            "06" => format!("{:02}", t.year().rem_euclid(100)),
            "January" => t.format("%B").to_string(),
            "Jan" => t.format("%b").to_string(),
            "01" => format!("{:02}", t.month()),
            "1" => t.month().to_string(),
            "Monday" => t.format("%A").to_string(),
            "Mon" => t.format("%a").to_string(),
            "02" => format!("{:02}", t.day()),
            "_2" => format!("{:>2}", t.day()),
            "2" => t.day().to_string(),
            "002" => format!("{:03}", t.ordinal()),
            "__2" => format!("{:>3}", t.ordinal()),
            "15" => format!("{:02}", t.hour()),
            "03" => format!("{:02}", hour12(t.hour())),
            "3" => hour12(t.hour()).to_string(),
            "04" => format!("{:02}", t.minute()),
            "4" => t.minute().to_string(),
            "05" => format!("{:02}", t.second()),
            "5" => t.second().to_string(),
            "PM" => if t.hour() >= 12 { "PM" } else { "AM" }.into(),
            "pm" => if t.hour() >= 12 { "pm" } else { "am" }.into(),
            "MST" if zone.is_empty() => format!("{sign}{oh:02}{om:02}"),
            "MST" => zone.to_string(),
            z if z.starts_with('Z') && off == 0 => "Z".into(),
            "-0700" | "Z0700" => format!("{sign}{oh:02}{om:02}"),
            "-07:00" | "Z07:00" => format!("{sign}{oh:02}:{om:02}"),
            "-07" | "Z07" => format!("{sign}{oh:02}"),
            "-07:00:00" | "Z07:00:00" => format!("{sign}{oh:02}:{om:02}:{os:02}"),
            frac => format_frac(t.nanosecond() % 1_000_000_000, frac),
        };
        out.push_str(&s);
    }
    out
}

fn hour12(h: u32) -> u32 {
    match h % 12 {
        0 => 12,
        x => x,
    }
}

fn format_frac(nanos: u32, element: &str) -> String {
    let digits = element.len() - 1;
    let full = format!("{nanos:09}");
    let mut shown = full[..digits.min(9)].to_string();
    if element.as_bytes()[1] == b'9' {
        shown = shown.trim_end_matches('0').to_string();
        if shown.is_empty() {
            return String::new();
        }
    }
    format!("{}{shown}", &element[..1])
}

/// Go's time.ParseInLocation for the layout elements charts use; times without a
/// zone are read in `zone`.
#[expect(
    clippy::too_many_lines,
    reason = "one arm per layout element, as Go's time.Parse, to read beside it"
)]
pub fn parse(layout: &str, value: &str, zone: &str) -> Result<GoTime, String> {
    let err = || format!("parsing time {value:?} as {layout:?}: cannot parse");
    let (mut year, mut month, mut day, mut hour, mut min, mut sec, mut nanos) =
        (1i32, 1u32, 1u32, 0u32, 0u32, 0u32, 0u32);
    let (mut pm, mut offset, mut abbr) = (None, None::<FixedOffset>, None::<String>);
    let mut rest = value;
    let number = |rest: &mut &str, max: usize| -> Option<u32> {
        let n = rest
            .bytes()
            .take(max)
            .take_while(u8::is_ascii_digit)
            .count();
        let v = rest[..n].parse().ok()?;
        *rest = &rest[n..];
        Some(v)
    };
    let tokens = tokens(layout);
    for (i, &(is_tok, text)) in tokens.iter().enumerate() {
        if !is_tok {
            rest = rest.strip_prefix(text).ok_or_else(err)?;
            continue;
        }
        match text {
            "2006" => year = number(&mut rest, 4).ok_or_else(err)?.cast_signed(),
            "06" => {
                let y = number(&mut rest, 2).ok_or_else(err)?.cast_signed();
                year = if y >= 69 { 1900 + y } else { 2000 + y };
            }
            "01" | "1" => month = number(&mut rest, 2).ok_or_else(err)?,
            "02" | "2" => day = number(&mut rest, 2).ok_or_else(err)?,
            "_2" => {
                rest = rest.trim_start_matches(' ');
                day = number(&mut rest, 2).ok_or_else(err)?;
            }
            "15" | "03" | "3" => hour = number(&mut rest, 2).ok_or_else(err)?,
            "04" | "4" => min = number(&mut rest, 2).ok_or_else(err)?,
            "05" | "5" => {
                sec = number(&mut rest, 2).ok_or_else(err)?;
                // A fraction the layout does not spell out is read here; one it does
                // (`05.999`) is left to its own element, as Go does.
                let fraction_follows = tokens
                    .get(i + 1)
                    .is_some_and(|&(is_tok, next)| is_tok && next.starts_with(['.', ',']));
                if let Some(frac) = rest
                    .strip_prefix('.')
                    .filter(|_| !fraction_follows)
                    .filter(|f| f.starts_with(|c: char| c.is_ascii_digit()))
                {
                    let n = frac.bytes().take_while(u8::is_ascii_digit).count();
                    nanos = format!("{:0<9}", &frac[..n.min(9)])
                        .parse()
                        .map_err(|_| err())?;
                    rest = &frac[n..];
                }
            }
            "PM" | "pm" => {
                let word = rest.get(..2).ok_or_else(err)?.to_ascii_uppercase();
                pm = Some(word == "PM");
                rest = &rest[2..];
            }
            "Jan" | "January" | "Mon" | "Monday" => {
                let n = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
                let word = &rest[..n];
                if text.starts_with("Jan") {
                    month = month_number(word).ok_or_else(err)?;
                }
                rest = &rest[n..];
            }
            "MST" => {
                let n = rest.bytes().take_while(u8::is_ascii_uppercase).count();
                abbr = Some(rest[..n].to_string());
                rest = &rest[n..];
            }
            z if z.starts_with('Z') && rest.starts_with('Z') => {
                offset = FixedOffset::east_opt(0);
                rest = &rest[1..];
            }
            z if z.starts_with('-') || z.starts_with('Z') => {
                let n = 1 + rest
                    .get(1..)
                    .unwrap_or("")
                    .bytes()
                    .take_while(|b| b.is_ascii_digit() || *b == b':')
                    .count();
                let text = rest.get(..n).ok_or_else(err)?;
                offset = Some(parse_offset(text).ok_or_else(err)?);
                rest = &rest[n..];
            }
            frac => {
                // `.999` reads a fraction only when there is one.
                let has_fraction = rest.starts_with(['.', ','])
                    && rest[1..].starts_with(|c: char| c.is_ascii_digit());
                if frac.as_bytes()[1] == b'9' && !has_fraction {
                    continue;
                }
                let n = 1 + rest
                    .get(1..)
                    .unwrap_or("")
                    .bytes()
                    .take_while(u8::is_ascii_digit)
                    .count();
                let digits = rest.get(1..n).ok_or_else(err)?;
                if frac.as_bytes()[1] == b'0' && digits.len() != frac.len() - 1 {
                    return Err(err());
                }
                nanos = format!("{digits:0<9}")
                    .get(..9)
                    .unwrap_or("0")
                    .parse()
                    .map_err(|_| err())?;
                rest = &rest[n..];
            }
        }
    }
    if !rest.is_empty() {
        return Err(format!("parsing time {value:?}: extra text: {rest:?}"));
    }
    match pm {
        Some(true) if hour < 12 => hour += 12,
        Some(false) if hour == 12 => hour = 0,
        _ => {}
    }
    let naive = NaiveDate::from_ymd_opt(year, month, day)
        .and_then(|d| {
            d.and_time(NaiveTime::from_hms_nano_opt(hour, min, sec, nanos)?)
                .into()
        })
        .ok_or_else(|| format!("parsing time {value:?}: day or month out of range"))?;
    if let Some(offset) = offset {
        let at = offset
            .from_local_datetime(&naive)
            .single()
            .ok_or_else(err)?;
        let zone = abbr.unwrap_or_else(|| {
            if offset.local_minus_utc() == 0 {
                "UTC".into()
            } else {
                String::new()
            }
        });
        return Ok(GoTime { at, zone });
    }
    let name = zone_name(zone);
    match name.parse::<Tz>() {
        Ok(tz) if name != "UTC" => {
            let local = tz.from_local_datetime(&naive).earliest().ok_or_else(err)?;
            Ok(GoTime::in_zone(local.with_timezone(&Utc), &name))
        }
        _ => Ok(GoTime {
            at: Utc.from_utc_datetime(&naive).fixed_offset(),
            zone: abbr.unwrap_or_else(|| "UTC".into()),
        }),
    }
}

fn month_number(word: &str) -> Option<u32> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let lower = word.to_ascii_lowercase();
    MONTHS
        .iter()
        .position(|m| lower.starts_with(m))
        .and_then(|i| u32::try_from(i + 1).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc_from_parts(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(y, mo, d, h, mi, s).single().unwrap()
    }

    #[test]
    fn formats_reference_layouts() {
        let t = GoTime::in_zone(utc_from_parts(2026, 1, 5, 14, 3, 9), "UTC");
        assert_eq!(format(&t.at, &t.zone, "20060102150405"), "20260105140309");
        assert_eq!(
            format(&t.at, &t.zone, "2006-01-02T15:04:05Z07:00"),
            "2026-01-05T14:03:09Z"
        );
        assert_eq!(
            format(&t.at, &t.zone, "Mon Jan _2 3:04PM MST"),
            "Mon Jan  5 2:03PM UTC"
        );
        let ny = GoTime::in_zone(t.utc(), "America/New_York");
        assert_eq!(
            format(&ny.at, &ny.zone, "15:04 -0700 MST"),
            "09:03 -0500 EST"
        );
        assert_eq!(t.to_go_string(), "2026-01-05 14:03:09 +0000 UTC");
    }

    #[test]
    fn parses_reference_layouts() {
        let t = parse("2006-01-02", "2017-12-31", "UTC").unwrap();
        assert_eq!(t.to_go_string(), "2017-12-31 00:00:00 +0000 UTC");
        let t = parse(
            "2006-01-02T15:04:05Z07:00",
            "2020-03-04T05:06:07+02:00",
            "UTC",
        )
        .unwrap();
        assert_eq!(
            t.utc().timestamp(),
            utc_from_parts(2020, 3, 4, 3, 6, 7).timestamp()
        );
        assert!(parse("2006-01-02", "2017/12/31", "UTC").is_err());
        assert!(parse("-0700", "é", "UTC").is_err());
        assert!(parse("2006 .000", "2020 é", "UTC").is_err());
        let back = GoTime::parse_go_string("2026-11-21 14:15:08.5 +0000 UTC").unwrap();
        assert_eq!(back.to_go_string(), "2026-11-21 14:15:08.5 +0000 UTC");
    }
}
