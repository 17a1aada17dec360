//! The `format` keyword, which Helm's validator asserts for schemas of draft-07 and
//! earlier: each known format checks strings only (other values pass) and explains a
//! failure in the validator's words; an unknown format name asserts nothing. Dates,
//! times and durations are in `time`, IPv6 in `ip`, URLs in `net`.

mod ip;
mod net;
#[cfg(test)]
mod tests;
mod time;

use self::time::{date, date_time, duration, period, time};
use gotemplate::fmt::quote as go_quote;
use ip::ipv6;
use net::{uri, uri_reference, uri_template};

pub(super) type Outcome = Result<(), String>;

/// `text` against the format `name`: None when the format is unknown (no assertion).
pub(super) fn check(name: &str, text: &str) -> Option<Outcome> {
    let check: fn(&str) -> Outcome = match name {
        "json-pointer" => json_pointer,
        "relative-json-pointer" => relative_json_pointer,
        "uuid" => uuid,
        "duration" => duration,
        "period" => period,
        "ipv4" => ipv4,
        "ipv6" => ipv6,
        "hostname" => hostname,
        "email" => email,
        "date" => date,
        "time" => time,
        "date-time" => date_time,
        "uri" | "iri" => uri,
        "uri-reference" | "iri-reference" => uri_reference,
        "uri-template" => uri_template,
        "semver" => semver,
        "regex" => regex,
        _ => return None,
    };
    Some(check(text))
}

/// A character as Go's `%q` shows a rune.
pub(super) fn rune(c: char) -> String {
    let go = go_quote(c.encode_utf8(&mut [0; 4]));
    let inner = &go[1..go.len() - 1];
    format!("'{}'", inner.replace("\\\"", "\"").replace('\'', "\\'"))
}

fn fail<T>(why: impl Into<String>) -> Result<T, String> {
    Err(why.into())
}

/// Go's `strconv.Atoi`, with its error text.
pub(super) fn atoi(s: &str) -> Result<i64, String> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return fail(format!(
            "strconv.Atoi: parsing {}: invalid syntax",
            go_quote(s)
        ));
    }
    s.parse::<i64>().or_else(|_| {
        fail(format!(
            "strconv.Atoi: parsing {}: value out of range",
            go_quote(s)
        ))
    })
}

fn json_pointer(s: &str) -> Outcome {
    if s.is_empty() {
        return Ok(());
    }
    let Some(rest) = s.strip_prefix('/') else {
        return fail("not starting with /");
    };
    for token in rest.split('/') {
        let mut chars = token.chars();
        while let Some(c) = chars.next() {
            if c == '~' && !matches!(chars.next(), Some('0' | '1')) {
                return fail("~ must be followed by 0 or 1");
            }
        }
    }
    Ok(())
}

fn relative_json_pointer(s: &str) -> Outcome {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return fail("must start with non-negative integer");
    }
    if digits > 1 && s.starts_with('0') {
        return fail("starts with zero");
    }
    match &s[digits..] {
        "#" => Ok(()),
        rest => json_pointer(rest),
    }
}

fn uuid(s: &str) -> Outcome {
    const LENGTHS: [usize; 5] = [8, 4, 4, 4, 12];
    let groups: Vec<&str> = s.split('-').collect();
    if groups.len() != LENGTHS.len() {
        return fail("must have 5 elements");
    }
    for (i, (group, want)) in groups.iter().zip(LENGTHS).enumerate() {
        if group.len() != want {
            return fail(format!("element {} must be {want} characters long", i + 1));
        }
        if let Some(c) = group.chars().find(|c| !c.is_ascii_hexdigit()) {
            return fail(format!("non-hex character {}", rune(c)));
        }
    }
    Ok(())
}

pub(super) fn ipv4(s: &str) -> Outcome {
    let groups: Vec<&str> = s.split('.').collect();
    if groups.len() != 4 {
        return fail("expected four decimals");
    }
    for group in groups {
        if group.len() > 1 && group.starts_with('0') {
            return fail("leading zeros");
        }
        if !(0..=255).contains(&atoi(group)?) {
            return fail("decimal must be between 0 and 255");
        }
    }
    Ok(())
}

pub(super) fn hostname(s: &str) -> Outcome {
    let s = s.strip_suffix('.').unwrap_or(s);
    if s.len() > 253 {
        return fail("more than 253 characters long");
    }
    for label in s.split('.') {
        if label.is_empty() || label.len() > 63 {
            return fail("label must be 1 to 63 characters long");
        }
        if label.starts_with('-') {
            return fail("label starts with hyphen");
        }
        if label.ends_with('-') {
            return fail("label ends with hyphen");
        }
        if let Some(c) = label
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || *c == '-'))
        {
            return fail(format!("invalid character {}", rune(c)));
        }
    }
    Ok(())
}

fn email(s: &str) -> Outcome {
    if s.len() > 254 {
        // (sic: the validator's message says 255)
        return fail("more than 255 characters long");
    }
    let Some(at) = s.rfind('@') else {
        return fail("missing @");
    };
    let (local, domain) = (&s[..at], &s[at + 1..]);
    if local.len() > 64 {
        return fail("local part more than 64 characters long");
    }
    if local.len() > 1 && local.starts_with('"') {
        // Quoted: whatever the last character is, it is dropped as the closing quote.
        let inner = &local.as_bytes()[1..local.len() - 1];
        if inner.contains(&b'\\') || inner.contains(&b'"') {
            return fail("backslash and quote are not allowed within quoted local part");
        }
    } else {
        if local.starts_with('.') {
            return fail("starts with dot");
        }
        if local.ends_with('.') {
            return fail("ends with dot");
        }
        if local.contains("..") {
            return fail("consecutive dots");
        }
        let allowed = |c: char| c.is_ascii_alphanumeric() || ".!#$%&'*+-/=?^_`{|}~".contains(c);
        if let Some(c) = local.chars().find(|c| !allowed(*c)) {
            return fail(format!("invalid character {}", rune(c)));
        }
    }
    if let Some(literal) = domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        if let Some(v6) = literal.strip_prefix("IPv6:") {
            return ipv6(v6).or_else(|e| fail(format!("invalid ipv6 address: {e}")));
        }
        return ipv4(literal).or_else(|e| fail(format!("invalid ipv4 address: {e}")));
    }
    hostname(domain).or_else(|e| fail(format!("invalid domain: {e}")))
}

/// An identifier of a semver pre-release or build: letters, digits and `-`.
fn identifier_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-'
}

fn semver(s: &str) -> Outcome {
    let mut s = s;
    if let Some(plus) = s.find('+') {
        let build = &s[plus + 1..];
        if build.is_empty() {
            return fail("build is empty");
        }
        for id in build.split('.') {
            if id.is_empty() {
                return fail("build identifier is empty");
            }
            if let Some(c) = id.chars().find(|c| !identifier_char(*c)) {
                return fail(format!("invalid character {} in build identifier", rune(c)));
            }
        }
        s = &s[..plus];
    }
    if let Some(dash) = s.find('-') {
        for id in s[dash + 1..].split('.') {
            if id.is_empty() {
                return fail("pre-release identifier is empty");
            }
            if let Some(c) = id.chars().find(|c| !identifier_char(*c)) {
                return fail(format!(
                    "invalid character {} in pre-release identifier",
                    rune(c)
                ));
            }
            if id.len() > 1 && id.starts_with('0') && id.bytes().all(|b| b.is_ascii_digit()) {
                return fail("pre-release numeric identifier starts with zero");
            }
        }
        s = &s[..dash];
    }
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 3 {
        return fail("versionCore must have 3 numbers separated by dot");
    }
    for (part, name) in parts.iter().zip(["major", "minor", "patch"]) {
        if part.is_empty() {
            return fail(format!("{name} is empty"));
        }
        if part.len() > 1 && part.starts_with('0') {
            return fail(format!("{name} starts with zero"));
        }
        if !part.bytes().all(|b| b.is_ascii_digit()) {
            return fail(format!("{name} contains non-digit"));
        }
    }
    Ok(())
}

/// A pattern Go's regexp package compiles.
fn regex(s: &str) -> Outcome {
    crate::re2::translate(s)
        .map(drop)
        .map_err(|e| format!("error parsing regexp: {e}"))
}
