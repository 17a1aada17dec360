//! The URL formats. Helm's validator reads a URL with Go's `net/url.Parse`, so that
//! parser's errors (quoted the Go way) are part of its messages; this follows its rules.

use std::fmt::Write as _;

use gotemplate::fmt::quote;

use super::Outcome;
use super::ip::{Addr, ipv6, parse_addr};

fn fail<T>(why: impl Into<String>) -> Result<T, String> {
    Err(why.into())
}

/// What the URL formats need of a parsed URL.
struct Url {
    absolute: bool,
    host: String,
    /// The path as written, when it differs from Go's escaping of its decoded form.
    raw_path: String,
}

/// Where a piece of a URL stands, for the rules of its escapes.
#[derive(Clone, Copy, PartialEq)]
enum Part {
    Other,
    /// A host: an escape only for a non-ASCII byte (or `%25`), and no character that
    /// would need escaping.
    Host,
    /// An IPv6 zone: any escape, and no character that would need escaping.
    Zone,
}

/// `%XX` decoded, with Go's rules for `part`.
fn unescape(s: &str, part: Part) -> Result<Vec<u8>, String> {
    let b = s.as_bytes();
    let (mut out, mut i) = (Vec::with_capacity(b.len()), 0);
    while i < b.len() {
        if b[i] == b'%' {
            // A hex digit's value as a byte: two of them make one.
            let hex = |j: usize| {
                b.get(j)
                    .and_then(|&c| char::from(c).to_digit(16))
                    .and_then(|d| u8::try_from(d).ok())
            };
            let (Some(hi), Some(lo)) = (hex(i + 1), hex(i + 2)) else {
                let bad = String::from_utf8_lossy(&b[i..(i + 3).min(b.len())]);
                return fail(format!("invalid URL escape {}", quote(&bad)));
            };
            if part == Part::Host && hi < 8 && &s[i..i + 3] != "%25" {
                return fail(format!("invalid URL escape {}", quote(&s[i..i + 3])));
            }
            out.push(hi * 16 + lo);
            i += 3;
            continue;
        }
        let c = b[i];
        let host_ok = c.is_ascii_alphanumeric() || b"-_.~!$&'()*+,;=:[]<>\"".contains(&c);
        if part != Part::Other && c < 0x80 && !host_ok {
            return fail(format!(
                "invalid character {} in host name",
                quote(&s[i..=i])
            ));
        }
        out.push(c);
        i += 1;
    }
    Ok(out)
}

/// Go's escaping of a URL path.
fn escape_path(p: &[u8]) -> String {
    let mut out = String::new();
    for &c in p {
        if c.is_ascii_alphanumeric() || b"-_.~$&+,/:;=@".contains(&c) {
            out.push(c as char);
        } else {
            let _ = write!(out, "%{c:02X}");
        }
    }
    out
}

fn valid_port(colon_port: &str) -> bool {
    colon_port.is_empty()
        || colon_port
            .strip_prefix(':')
            .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()))
}

fn parse_host(host: &str) -> Result<String, String> {
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    match host.rfind('[') {
        Some(0) => {
            let Some(close) = host.rfind(']') else {
                return fail("missing ']' in host");
            };
            let port = &host[close + 1..];
            if !valid_port(port) {
                return fail(format!("invalid port {} after host", quote(port)));
            }
            let inside = &host[1..close];
            let name = match inside.find("%25") {
                Some(zone) => {
                    text(unescape(&inside[..zone], Part::Host)?)
                        + &text(unescape(&inside[zone..], Part::Zone)?)
                }
                None => text(unescape(inside, Part::Host)?),
            };
            match parse_addr(&name) {
                Err(e) => fail(format!("invalid host: {e}")),
                Ok(Addr::V4) => fail("invalid IP-literal"),
                Ok(_) => Ok(format!("[{name}]{port}")),
            }
        }
        Some(_) => fail("invalid IP-literal"),
        None => {
            if let Some(colon) = host.find(':')
                && !valid_port(&host[colon..])
            {
                return fail(format!("invalid port {} after host", quote(&host[colon..])));
            }
            Ok(text(unescape(host, Part::Host)?))
        }
    }
}

/// `net/url.Parse(raw)` (the parts the URL formats look at).
fn parse(raw: &str) -> Result<Url, String> {
    let (before, fragment) = raw.split_once('#').unwrap_or((raw, ""));
    let wrap = |url: &str, e: String| format!("parse {}: {e}", quote(url));
    let url = parse_reference(before).map_err(|e| wrap(before, e))?;
    unescape(fragment, Part::Other).map_err(|e| wrap(raw, e))?;
    Ok(url)
}

fn parse_reference(raw: &str) -> Result<Url, String> {
    if raw.bytes().any(|b| b < b' ' || b == 0x7f) {
        return fail("net/url: invalid control character in URL");
    }
    let mut scheme = "";
    let mut rest = raw;
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return fail("missing protocol scheme"),
            b':' => {
                (scheme, rest) = (&raw[..i], &raw[i + 1..]);
                break;
            }
            _ => break,
        }
    }
    let mut url = Url {
        absolute: !scheme.is_empty(),
        host: String::new(),
        raw_path: String::new(),
    };
    rest = match rest.strip_suffix('?') {
        Some(r) if !r.contains('?') => r,
        _ => rest.split_once('?').map_or(rest, |(r, _)| r),
    };
    if !rest.starts_with('/') {
        if url.absolute {
            return Ok(url);
        }
        if rest.split('/').next().is_some_and(|seg| seg.contains(':')) {
            return fail("first path segment in URL cannot contain colon");
        }
    }
    if (url.absolute || !rest.starts_with("///")) && rest.starts_with("//") {
        let after = &rest[2..];
        let end = after.find('/').unwrap_or(after.len());
        let authority = &after[..end];
        rest = &after[end..];
        let (userinfo, host) = match authority.rfind('@') {
            Some(at) => (Some(&authority[..at]), &authority[at + 1..]),
            None => (None, authority),
        };
        url.host = parse_host(host)?;
        if let Some(info) = userinfo {
            let ok = |c: u8| c.is_ascii_alphanumeric() || b"-._:~!$&'()*+,;=%@".contains(&c);
            if !info.bytes().all(ok) {
                return fail("net/url: invalid userinfo");
            }
            for part in info.splitn(2, ':') {
                unescape(part, Part::Other)?;
            }
        }
    }
    let path = unescape(rest, Part::Other)?;
    if escape_path(&path) != rest {
        url.raw_path = rest.to_string();
    }
    Ok(url)
}

/// The URL the validator accepts: Go's parse, then an IPv6 host checked again.
fn parse_url(s: &str) -> Result<Url, String> {
    let url = parse(s)?;
    let host = &url.host;
    let name = match host.rfind(':') {
        Some(i) if valid_port(&host[i..]) => &host[..i],
        _ => host.as_str(),
    };
    let name = name
        .strip_prefix('[')
        .and_then(|n| n.strip_suffix(']'))
        .unwrap_or(name);
    if name.contains(':') {
        if !host.contains('[') || !host.contains(']') {
            return fail("ipv6 address not enclosed in brackets");
        }
        ipv6(name).or_else(|e| fail(format!("invalid ipv6 address: {e}")))?;
    }
    Ok(url)
}

pub(super) fn uri(s: &str) -> Outcome {
    if !parse_url(s)?.absolute {
        return fail("relative url");
    }
    Ok(())
}

pub(super) fn uri_reference(s: &str) -> Outcome {
    if s.contains('\\') {
        return fail("contains \\");
    }
    parse_url(s).map(drop)
}

pub(super) fn uri_template(s: &str) -> Outcome {
    let url = parse_url(s)?;
    for token in url.raw_path.split('/') {
        let decoded =
            unescape(token, Part::Other).map_err(|e| format!("percent decode failed: {e}"))?;
        let mut open = false;
        for c in decoded {
            match c {
                b'{' if open => return fail("nested curly braces"),
                b'}' if !open => return fail("nested curly braces"),
                b'{' | b'}' => open = !open,
                _ => {}
            }
        }
        if open {
            return fail("no matching closing brace");
        }
    }
    Ok(())
}
