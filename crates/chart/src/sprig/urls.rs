//! urlParse and urlJoin with Go's net/url rules (which accept relative references
//! and keep the raw query), not the WHATWG rules of the url crate.
use std::fmt::Write;

use gotemplate::{Result, Value};

use super::args::{self, Dict, Function, call_error, dict, exact, s, string};

#[derive(Default)]
struct GoUrl {
    scheme: String,
    opaque: String,
    userinfo: Option<String>,
    host: String,
    path: String,
    raw_query: String,
    fragment: String,
}

fn unescape(x: &str) -> std::result::Result<String, String> {
    let b = x.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = x
                .get(i + 1..i + 3)
                .ok_or_else(|| format!("invalid URL escape {:?}", &x[i..]))?;
            out.push(
                u8::from_str_radix(hex, 16)
                    .map_err(|_| format!("invalid URL escape \"%{hex}\""))?,
            );
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn split_scheme(raw: &str) -> std::result::Result<(String, &str), String> {
    for (i, c) in raw.char_indices() {
        match c {
            'a'..='z' | 'A'..='Z' => {}
            '0'..='9' | '+' | '-' | '.' if i > 0 => {}
            ':' if i == 0 => return Err("missing protocol scheme".into()),
            ':' => return Ok((raw[..i].to_ascii_lowercase(), &raw[i + 1..])),
            _ => return Ok((String::new(), raw)),
        }
    }
    Ok((String::new(), raw))
}

/// net/url.Parse.
fn parse(raw: &str) -> std::result::Result<GoUrl, String> {
    let mut u = GoUrl::default();
    let (rest, frag) = raw.split_once('#').unwrap_or((raw, ""));
    u.fragment = unescape(frag)?;
    let (scheme, mut rest) = split_scheme(rest)?;
    u.scheme = scheme;
    if let Some((before, query)) = rest.split_once('?') {
        u.raw_query = query.to_string();
        rest = before;
    }
    if !rest.starts_with('/') && !u.scheme.is_empty() {
        u.opaque = rest.to_string();
        return Ok(u);
    }
    if rest.starts_with("//") && (!u.scheme.is_empty() || !rest.starts_with("///")) {
        let after = &rest[2..];
        let end = after.find('/').unwrap_or(after.len());
        let authority = &after[..end];
        rest = &after[end..];
        let host = match authority.rfind('@') {
            Some(at) => {
                u.userinfo = Some(authority[..at].to_string());
                &authority[at + 1..]
            }
            None => authority,
        };
        u.host = unescape(host)?;
    }
    u.path = unescape(rest)?;
    Ok(u)
}

fn hostname(host: &str) -> &str {
    if let Some(inner) = host.strip_prefix('[') {
        return inner.split(']').next().unwrap_or(inner);
    }
    match host.rfind(':') {
        Some(i) if host[i + 1..].bytes().all(|b| b.is_ascii_digit()) => &host[..i],
        _ => host,
    }
}

fn escape_path(p: &str) -> String {
    escape(p, b"-_.~$&+,/:;=@")
}

/// Go's `EscapedFragment`.
fn escape_fragment(f: &str) -> String {
    escape(f, b"-_.~$&+,/:;=?@!()*")
}

/// Percent-encode every byte that is not alphanumeric or in `keep`.
fn escape(p: &str, keep: &[u8]) -> String {
    let mut out = String::with_capacity(p.len());
    for b in p.bytes() {
        if b.is_ascii_alphanumeric() || keep.contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// net/url's URL.String for the fields urlJoin sets.
#[expect(
    clippy::if_not_else,
    reason = "the branches in the order of Go's URL.String, to read beside it"
)]
fn to_string(u: &GoUrl) -> String {
    let mut out = String::new();
    if !u.scheme.is_empty() {
        out.push_str(&u.scheme);
        out.push(':');
    }
    if !u.opaque.is_empty() {
        out.push_str(&u.opaque);
    } else {
        if !u.scheme.is_empty() || !u.host.is_empty() || u.userinfo.is_some() {
            if !u.host.is_empty() || !u.path.is_empty() || u.userinfo.is_some() {
                out.push_str("//");
            }
            if let Some(ui) = &u.userinfo {
                out.push_str(ui);
                out.push('@');
            }
            out.push_str(&u.host);
        }
        let path = escape_path(&u.path);
        if !path.is_empty() && !path.starts_with('/') && !u.host.is_empty() {
            out.push('/');
        }
        if out.is_empty() && path.split('/').next().is_some_and(|seg| seg.contains(':')) {
            out.push_str("./");
        }
        out.push_str(&path);
    }
    if !u.raw_query.is_empty() {
        out.push('?');
        out.push_str(&u.raw_query);
    }
    if !u.fragment.is_empty() {
        out.push('#');
        out.push_str(&escape_fragment(&u.fragment));
    }
    out
}

/// The family's template functions.
pub(crate) const FUNCTIONS: &[Function] = &[
    Function::new(
        "urlParse",
        "func(string) map[string]interface {}",
        url_parse,
    ),
    Function::new("urlJoin", "func(map[string]interface {}) string", url_join),
];

/// `urlParse`: the URL's parts as sprig's map, keyed scheme, host, hostname, path,
/// query, opaque, fragment and userinfo.
fn url_parse(a: &[Value]) -> Result<Value> {
    let raw = string(&exact("urlParse", a, 1)?[0])?;
    let u = parse(raw).map_err(|e| {
        call_error(
            "urlParse",
            format!("unable to parse url: parse {raw:?}: {e}"),
        )
    })?;
    let mut d = Dict::new();
    d.insert("scheme".into(), s(u.scheme.as_str()));
    d.insert("host".into(), s(u.host.as_str()));
    d.insert("hostname".into(), s(hostname(&u.host)));
    d.insert("path".into(), s(u.path.as_str()));
    d.insert("query".into(), s(u.raw_query.as_str()));
    d.insert("opaque".into(), s(u.opaque.as_str()));
    d.insert("fragment".into(), s(u.fragment.as_str()));
    d.insert("userinfo".into(), s(u.userinfo.clone().unwrap_or_default()));
    Ok(args::map(d))
}

/// `urlJoin`: the URL a map of `urlParse`'s keys describes.
fn url_join(a: &[Value]) -> Result<Value> {
    let d = dict(&exact("urlJoin", a, 1)?[0])?;
    let field = |k: &str| match d.as_ref().and_then(|d| d.get(k)) {
        Some(Value::String(v)) => v.to_string(),
        _ => String::new(),
    };
    let userinfo = field("userinfo");
    let u = GoUrl {
        scheme: field("scheme"),
        opaque: field("opaque"),
        userinfo: (!userinfo.is_empty()).then_some(userinfo),
        host: field("host"),
        path: field("path"),
        raw_query: field("query"),
        fragment: field("fragment"),
    };
    Ok(s(to_string(&u)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_join_round_trip() {
        let u = parse("https://user:pw@example.com:8443/a%20b?x=1#top").unwrap();
        assert_eq!(u.scheme, "https");
        assert_eq!(u.host, "example.com:8443");
        assert_eq!(hostname(&u.host), "example.com");
        assert_eq!(u.path, "/a b");
        assert_eq!(u.raw_query, "x=1");
        assert_eq!(u.userinfo.as_deref(), Some("user:pw"));
        assert_eq!(
            to_string(&u),
            "https://user:pw@example.com:8443/a%20b?x=1#top"
        );
        let rel = parse("foo/bar").unwrap();
        assert_eq!((rel.scheme.as_str(), rel.path.as_str()), ("", "foo/bar"));
        let opaque = parse("mailto:a@b.c").unwrap();
        assert_eq!(opaque.opaque, "a@b.c");
    }
}
