//! The ipv6 format. Helm's validator reads an IPv6 address with Go's `netip.ParseAddr`,
//! so that parser's errors (quoted the Go way) are part of its messages; this follows its
//! rules.

use std::fmt::Write as _;

use gotemplate::fmt::quote;

use super::Outcome;

fn fail<T>(why: impl Into<String>) -> Result<T, String> {
    Err(why.into())
}

/// An error of `netip.ParseAddr(input)`, with the rest of the input where it stopped.
fn addr_error<T>(input: &str, message: &str, at: Option<&[u8]>) -> Result<T, String> {
    let mut text = format!("ParseAddr({}): {message}", quote(input));
    if let Some(rest) = at.filter(|r| !r.is_empty()) {
        let _ = write!(text, " (at {})", quote(&String::from_utf8_lossy(rest)));
    }
    Err(text)
}

/// `netip.ParseAddr`'s IPv4 fields of `s` (part of `input`).
fn ipv4_fields(input: &str, s: &[u8]) -> Outcome {
    let (mut value, mut digits, mut dots) = (0u32, 0, 0);
    for (i, &b) in s.iter().enumerate() {
        match b {
            b'0'..=b'9' => {
                if digits == 1 && value == 0 {
                    return addr_error(input, "IPv4 field has octet with leading zero", None);
                }
                value = value * 10 + u32::from(b - b'0');
                digits += 1;
                if value > 255 {
                    return addr_error(input, "IPv4 field has value >255", None);
                }
            }
            b'.' => {
                if i == 0 || i == s.len() - 1 || s[i - 1] == b'.' {
                    let msg = "IPv4 field must have at least one digit";
                    return addr_error(input, msg, Some(&s[i..]));
                }
                if dots == 3 {
                    return addr_error(input, "IPv4 address too long", None);
                }
                dots += 1;
                (value, digits) = (0, 0);
            }
            _ => return addr_error(input, "unexpected character", Some(&s[i..])),
        }
    }
    if dots < 3 {
        return addr_error(input, "IPv4 address too short", None);
    }
    Ok(())
}

/// What `netip.ParseAddr` found.
#[derive(PartialEq)]
pub(super) enum Addr {
    V4,
    V6 { zoned: bool },
}

/// `netip.ParseAddr(input)`.
pub(super) fn parse_addr(input: &str) -> Result<Addr, String> {
    match input.bytes().find(|b| matches!(b, b'.' | b':' | b'%')) {
        Some(b'.') => ipv4_fields(input, input.as_bytes()).map(|()| Addr::V4),
        Some(b':') => parse_ipv6(input).map(|zoned| Addr::V6 { zoned }),
        Some(_) => addr_error(input, "missing IPv6 address", None),
        None => addr_error(input, "unable to parse IP", None),
    }
}

fn parse_ipv6(input: &str) -> Result<bool, String> {
    let (mut s, zoned) = match input.split_once('%') {
        Some((_, "")) => return addr_error(input, "zone must be a non-empty string", None),
        Some((addr, _)) => (addr.as_bytes(), true),
        None => (input.as_bytes(), false),
    };
    let end = s.len();
    let mut ellipsis = None;
    if s.starts_with(b"::") {
        ellipsis = Some(0);
        s = &s[2..];
        if s.is_empty() {
            return Ok(zoned);
        }
    }
    let mut filled = 0;
    while filled < 16 {
        let (mut off, mut acc) = (0, 0u32);
        while let Some(d) = s.get(off).and_then(|&b| (b as char).to_digit(16)) {
            acc = (acc << 4) + d;
            if off > 3 {
                return addr_error(input, "each group must have 4 or less digits", Some(s));
            }
            if acc > 0xffff {
                return addr_error(input, "IPv6 field has value >=2^16", Some(s));
            }
            off += 1;
        }
        if off == 0 {
            let msg = "each colon-separated field must have at least one digit";
            return addr_error(input, msg, Some(s));
        }
        if s.get(off) == Some(&b'.') {
            if ellipsis.is_none() && filled != 12 {
                let msg = "embedded IPv4 address must replace the final 2 fields of the address";
                return addr_error(input, msg, Some(s));
            }
            if filled + 4 > 16 {
                let msg = "too many hex fields to fit an embedded IPv4 at the end of the address";
                return addr_error(input, msg, Some(s));
            }
            ipv4_fields(input, &input.as_bytes()[end - s.len()..end])?;
            s = &[];
            filled += 4;
            break;
        }
        filled += 2;
        s = &s[off..];
        if s.is_empty() {
            break;
        }
        if s[0] != b':' {
            return addr_error(input, "unexpected character, want colon", Some(s));
        } else if s.len() == 1 {
            return addr_error(input, "colon must be followed by more characters", Some(s));
        }
        s = &s[1..];
        if s[0] == b':' {
            if ellipsis.is_some() {
                return addr_error(input, "multiple :: in address", Some(s));
            }
            ellipsis = Some(filled);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return addr_error(input, "trailing garbage after address", Some(s));
    }
    if filled < 16 && ellipsis.is_none() {
        return addr_error(input, "address string too short", None);
    }
    if filled == 16 && ellipsis.is_some() {
        return addr_error(
            input,
            "the :: must expand to at least one field of zeros",
            None,
        );
    }
    Ok(zoned)
}

pub(super) fn ipv6(s: &str) -> Outcome {
    if !s.contains(':') {
        return fail("missing colon");
    }
    if parse_addr(s)? == (Addr::V6 { zoned: true }) {
        return fail("zone id is not a part of ipv6 address");
    }
    Ok(())
}
