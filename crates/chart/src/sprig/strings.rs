//! sprig's string functions (strings.go, goutils, xstrings), with Go's argument order
//! (the string last, so that `"x" | trunc 3` works).
use gotemplate::{FuncMap, Result, Value};
use rand::Rng;
use rand::seq::SliceRandom;

use super::args::{self, add, call_error, exact, int, s, string};
use super::cast::{strslice, strval};
use super::{bounds, casing, text};
use crate::gofmt::{go_quote, sprint};

pub(crate) fn register(m: &mut FuncMap) {
    register_case_and_trim(m);
    register_shape(m);
    register_quote_and_join(m);
    register_random(m);
}

/// A function of one Go `string` parameter returning a string.
fn str1(m: &mut FuncMap, name: &'static str, f: fn(&str) -> String) {
    add(m, name, move |a| Ok(s(f(string(&exact(name, a, 1)?[0])?))));
}

/// A function of two Go `string` parameters (`(a, b string)`).
fn str2(m: &mut FuncMap, name: &'static str, f: fn(&str, &str) -> Value) {
    add(m, name, move |a| {
        let a = exact(name, a, 2)?;
        Ok(f(string(&a[0])?, string(&a[1])?))
    });
}

fn register_case_and_trim(m: &mut FuncMap) {
    str1(m, "trim", |x| x.trim().to_string());
    str1(m, "upper", text::go_upper);
    str1(m, "lower", text::go_lower);
    str1(m, "title", text::title);
    str1(m, "untitle", text::untitle);
    str1(m, "nospace", |x| {
        x.chars().filter(|c| !c.is_whitespace()).collect()
    });
    str1(m, "initials", text::initials);
    str1(m, "swapcase", text::swapcase);
    str1(m, "snakecase", |x| casing::to_snake_case(x, '_'));
    str1(m, "kebabcase", |x| casing::to_snake_case(x, '-'));
    str1(m, "camelcase", casing::to_pascal_case);
    str1(m, "shuffle", |x| {
        let mut chars: Vec<char> = x.chars().collect();
        chars.shuffle(&mut rand::rng());
        chars.into_iter().collect()
    });
    for name in ["trimall", "trimAll"] {
        str2(m, name, |cut, x| s(x.trim_matches(|c| cut.contains(c))));
    }
    str2(m, "trimSuffix", |suf, x| {
        s(x.strip_suffix(suf).unwrap_or(x))
    });
    str2(m, "trimPrefix", |pre, x| {
        s(x.strip_prefix(pre).unwrap_or(x))
    });
    str2(m, "contains", |sub, x| Value::Bool(x.contains(sub)));
    str2(m, "hasPrefix", |pre, x| Value::Bool(x.starts_with(pre)));
    str2(m, "hasSuffix", |suf, x| Value::Bool(x.ends_with(suf)));
    add(m, "splitList", |a| {
        let a = exact("splitList", a, 2)?;
        let parts = split("splitList", string(&a[1])?, string(&a[0])?, -1)?;
        Ok(args::list(parts.into_iter().map(s).collect()))
    });
    add(m, "split", |a| {
        let a = exact("split", a, 2)?;
        Ok(numbered_parts(split(
            "split",
            string(&a[1])?,
            string(&a[0])?,
            -1,
        )?))
    });
    add(m, "splitn", |a| {
        let a = exact("splitn", a, 3)?;
        let (sep, n, x) = (string(&a[0])?, int(&a[1])?, string(&a[2])?);
        Ok(numbered_parts(split("splitn", x, sep, n)?))
    });
    add(m, "replace", |a| {
        let a = exact("replace", a, 3)?;
        let (old, new, src) = (string(&a[0])?, string(&a[1])?, string(&a[2])?);
        let matches = if old.is_empty() {
            src.chars().count() + 1
        } else {
            src.matches(old).count()
        };
        bounds::output(
            "replace",
            bounds::times(matches, new.len()).saturating_add(src.len()),
        )?;
        Ok(s(text::go_replace_all(src, old, new)))
    });
}

/// Go's strings.SplitN, refusing more than [`bounds::MAX_ITEMS`] parts before
/// building them all (an empty separator on a long text would make one per character).
fn split<'a>(name: &str, x: &'a str, sep: &str, n: i64) -> Result<Vec<&'a str>> {
    let cap = bounds::MAX_ITEMS as i64 + 1;
    let parts = text::go_split(x, sep, if n < 0 || n > cap { cap } else { n });
    if parts.len() as i64 == cap {
        bounds::items(name, parts.len())?;
    }
    Ok(parts)
}

/// `split`'s result: a map from "_0", "_1", ... to the parts.
fn numbered_parts(parts: Vec<&str>) -> Value {
    let entries = parts
        .into_iter()
        .enumerate()
        .map(|(i, p)| (format!("_{i}").into(), s(p)))
        .collect();
    // sprig's split and splitn return Go's map[string]string.
    match args::map(entries) {
        Value::Map(map) => Value::Map(map.with_type_name("map[string]string")),
        other => other,
    }
}

/// Byte offsets as Go slices strings (sprig's `substr` and `trunc` do `s[start:end]`).
///
/// A cut through a multi-byte character leaves bytes that are not UTF-8 in Go's
/// string; ours are UTF-8, so each such byte becomes one U+FFFD, as Go itself reads
/// them rune by rune and as Helm's rendered output (through encoding/json) shows them:
/// `substr 0 2 "日本"` prints `��`. What stays different: functions that look at the
/// bytes (`len`, `b64enc`, `%q`) see U+FFFD's three bytes where Go sees the cut ones.
fn byte_slice(x: &str, start: usize, end: usize) -> String {
    gotemplate::go_lossy(&x.as_bytes()[start..end])
}

fn register_shape(m: &mut FuncMap) {
    add(m, "trunc", |a| {
        let a = exact("trunc", a, 2)?;
        let (c, x) = (int(&a[0])?, string(&a[1])?);
        let len = x.len() as i64;
        Ok(s(if c < 0 && len + c > 0 {
            byte_slice(x, (len + c) as usize, x.len())
        } else if c >= 0 && len > c {
            byte_slice(x, 0, c as usize)
        } else {
            x.to_string()
        }))
    });
    add(m, "substr", |a| {
        let a = exact("substr", a, 3)?;
        let (start, end, x) = (int(&a[0])?, int(&a[1])?, string(&a[2])?);
        let len = x.len() as i64;
        let (from, to) = if start < 0 {
            (0, end)
        } else if end < 0 || end > len {
            (start, len)
        } else {
            (start, end)
        };
        // Go's runtime messages for s[from:to]: the end is checked first.
        if to < 0 || to > len {
            return Err(call_error(
                "substr",
                format!("runtime error: slice bounds out of range [:{to}] with length {len}"),
            ));
        }
        if from < 0 || from > to {
            return Err(call_error(
                "substr",
                format!("runtime error: slice bounds out of range [{from}:{to}]"),
            ));
        }
        Ok(s(byte_slice(x, from as usize, to as usize)))
    });
    add(m, "repeat", |a| {
        let a = exact("repeat", a, 2)?;
        let (count, x) = (int(&a[0])?, string(&a[1])?);
        let count = usize::try_from(count)
            .map_err(|_| call_error("repeat", "strings: negative Repeat count"))?;
        bounds::output("repeat", bounds::times(count, x.len()))?;
        Ok(s(x.repeat(count)))
    });
    add(m, "abbrev", |a| {
        let a = exact("abbrev", a, 2)?;
        let (width, x) = (int(&a[0])?, string(&a[1])?);
        Ok(s(if width < 4 {
            x.to_string()
        } else {
            text::abbreviate(x, 0, width).unwrap_or_default()
        }))
    });
    add(m, "abbrevboth", |a| {
        let a = exact("abbrevboth", a, 3)?;
        let (left, right, x) = (int(&a[0])?, int(&a[1])?, string(&a[2])?);
        Ok(s(if right < 4 || left > 0 && right < 7 {
            x.to_string()
        } else {
            text::abbreviate(x, left, right).unwrap_or_default()
        }))
    });
    add(m, "wrap", |a| {
        let a = exact("wrap", a, 2)?;
        let x = string(&a[1])?;
        bounds::output("wrap", bounds::times(x.len(), 2))?;
        Ok(s(text::wrap(x, int(&a[0])?, "\n", false)))
    });
    add(m, "wrapWith", |a| {
        let a = exact("wrapWith", a, 3)?;
        let (width, sep, x) = (int(&a[0])?, string(&a[1])?, string(&a[2])?);
        // At worst a separator after every character.
        bounds::output("wrapWith", bounds::times(x.len(), sep.len() + 1))?;
        Ok(s(text::wrap(x, width, sep, true)))
    });
    add(m, "indent", |a| {
        let a = exact("indent", a, 2)?;
        Ok(s(indent("indent", int(&a[0])?, string(&a[1])?)?))
    });
    add(m, "nindent", |a| {
        let a = exact("nindent", a, 2)?;
        Ok(s(format!(
            "\n{}",
            indent("nindent", int(&a[0])?, string(&a[1])?)?
        )))
    });
    add(m, "plural", |a| {
        let a = exact("plural", a, 3)?;
        let (one, many, count) = (string(&a[0])?, string(&a[1])?, int(&a[2])?);
        Ok(s(if count == 1 { one } else { many }))
    });
}

fn indent(name: &str, spaces: i64, x: &str) -> Result<String> {
    let n =
        usize::try_from(spaces).map_err(|_| call_error(name, "strings: negative Repeat count"))?;
    let lines = x.bytes().filter(|&b| b == b'\n').count() + 1;
    bounds::output(name, bounds::times(lines, n).saturating_add(x.len()))?;
    let pad = " ".repeat(n);
    let mut out = String::with_capacity(x.len() + n);
    out.push_str(&pad);
    for (i, line) in x.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(&pad);
        }
        out.push_str(line);
    }
    Ok(out)
}

/// The parts joined by spaces, within [`bounds::MAX_OUTPUT`].
fn joined(name: &str, parts: &[String]) -> Result<Value> {
    let len = parts
        .iter()
        .map(String::len)
        .fold(parts.len(), usize::saturating_add);
    bounds::output(name, len)?;
    Ok(s(parts.join(" ")))
}

fn register_quote_and_join(m: &mut FuncMap) {
    add(m, "quote", |a| {
        let parts: Vec<String> = a
            .iter()
            .filter(|v| !matches!(v, Value::Nil))
            .map(|v| go_quote(&strval(v)))
            .collect();
        joined("quote", &parts)
    });
    add(m, "squote", |a| {
        let parts: Vec<String> = a
            .iter()
            .filter(|v| !matches!(v, Value::Nil))
            .map(|v| format!("'{}'", sprint(v)))
            .collect();
        joined("squote", &parts)
    });
    add(m, "cat", |a| {
        let parts: Vec<String> = a
            .iter()
            .filter(|v| !matches!(v, Value::Nil))
            .map(sprint)
            .collect();
        joined("cat", &parts)
    });
    add(m, "toString", |a| {
        Ok(s(strval(&exact("toString", a, 1)?[0])))
    });
    add(m, "toStrings", |a| {
        let items = strslice(&exact("toStrings", a, 1)?[0]);
        Ok(args::list(items.into_iter().map(s).collect()))
    });
    add(m, "join", |a| {
        let a = exact("join", a, 2)?;
        let (sep, items) = (string(&a[0])?, strslice(&a[1]));
        let len = items.iter().map(String::len).fold(0, usize::saturating_add);
        bounds::output(
            "join",
            len.saturating_add(bounds::times(items.len(), sep.len())),
        )?;
        Ok(s(items.join(sep)))
    });
    add(m, "sortAlpha", |a| {
        let v = &exact("sortAlpha", a, 1)?[0];
        let mut items = match v.as_list() {
            Some(_) => strslice(v),
            None => vec![strval(v)],
        };
        items.sort();
        Ok(args::list(items.into_iter().map(s).collect()))
    });
}

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const DIGITS: &str = "0123456789";

fn random_from(name: &str, alphabet: &[u8], count: i64) -> Result<String> {
    let Ok(count) = usize::try_from(count) else {
        return Ok(String::new());
    };
    bounds::output(name, count)?;
    let mut rng = rand::rng();
    Ok((0..count)
        .map(|_| char::from(alphabet[rng.random_range(0..alphabet.len())]))
        .collect())
}

fn register_random(m: &mut FuncMap) {
    let alnum = format!("{UPPER}{LOWER}{DIGITS}").into_bytes();
    let alpha = format!("{UPPER}{LOWER}").into_bytes();
    let ascii: Vec<u8> = (32u8..=126).collect();
    let numeric = DIGITS.as_bytes().to_vec();
    for (name, alphabet) in [
        ("randAlphaNum", alnum),
        ("randAlpha", alpha),
        ("randAscii", ascii),
        ("randNumeric", numeric),
    ] {
        add(m, name, move |a| {
            Ok(s(random_from(
                name,
                &alphabet,
                int(&exact(name, a, 1)?[0])?,
            )?))
        });
    }
}
