//! sprig's string functions (strings.go, goutils, xstrings), with Go's argument order
//! (the string last, so that `"x" | trunc 3` works).
use gotemplate::{Result, Value};
use rand::Rng;
use rand::seq::SliceRandom;

use super::args::{self, Function, call_error, exact, go_index, go_len, int, s, string};
use super::cast::{strslice, strval};
use super::{bounds, casing, text};
use crate::gofmt::{go_quote, sprint};

/// The family's template functions.
pub(crate) const FUNCTIONS: &[Function] = &[
    Function::string("trim", |x| x.trim().to_string()),
    Function::string("upper", text::go_upper),
    Function::string("lower", text::go_lower),
    Function::string("title", text::title),
    Function::string("untitle", text::untitle),
    Function::string("nospace", nospace),
    Function::string("initials", text::initials),
    Function::string("swapcase", text::swapcase),
    Function::string("snakecase", |x| casing::to_snake_case(x, '_')),
    Function::string("kebabcase", |x| casing::to_snake_case(x, '-')),
    Function::string("camelcase", casing::to_pascal_case),
    Function::string("shuffle", shuffle),
    Function::strings2("trimall", "func(string, string) string", trim_all),
    Function::strings2("trimAll", "func(string, string) string", trim_all),
    Function::strings2("trimSuffix", "func(string, string) string", |suf, x| {
        s(x.strip_suffix(suf).unwrap_or(x))
    }),
    Function::strings2("trimPrefix", "func(string, string) string", |pre, x| {
        s(x.strip_prefix(pre).unwrap_or(x))
    }),
    Function::strings2("contains", "func(string, string) bool", |sub, x| {
        Value::Bool(x.contains(sub))
    }),
    Function::strings2("hasPrefix", "func(string, string) bool", |pre, x| {
        Value::Bool(x.starts_with(pre))
    }),
    Function::strings2("hasSuffix", "func(string, string) bool", |suf, x| {
        Value::Bool(x.ends_with(suf))
    }),
    Function::new("splitList", "func(string, string) []string", split_list),
    Function::new("split", "func(string, string) map[string]string", split_map),
    Function::new(
        "splitn",
        "func(string, int, string) map[string]string",
        splitn,
    ),
    Function::new("replace", "func(string, string, string) string", replace),
    Function::new("trunc", "func(int, string) string", trunc),
    Function::new("substr", "func(int, int, string) string", substr),
    Function::new("repeat", "func(int, string) string", repeat),
    Function::new("abbrev", "func(int, string) string", abbrev),
    Function::new("abbrevboth", "func(int, int, string) string", abbrevboth),
    Function::new("wrap", "func(int, string) string", wrap),
    Function::new("wrapWith", "func(int, string, string) string", wrap_with),
    Function::named("indent", "func(int, string) string", indent_fn),
    Function::named("nindent", "func(int, string) string", nindent),
    Function::new("plural", "func(string, string, int) string", plural),
    Function::new("quote", "func(...interface {}) string", quote),
    Function::new("squote", "func(...interface {}) string", squote),
    Function::new("cat", "func(...interface {}) string", cat),
    Function::new("toString", "func(interface {}) string", to_string),
    Function::new("toStrings", "func(interface {}) []string", to_strings),
    Function::new("join", "func(string, interface {}) string", join),
    Function::new("sortAlpha", "func(interface {}) []string", sort_alpha),
    Function::named("randAlphaNum", "func(int) string", rand_alpha_num),
    Function::named("randAlpha", "func(int) string", rand_alpha),
    Function::named("randAscii", "func(int) string", rand_ascii),
    Function::named("randNumeric", "func(int) string", rand_numeric),
    Function::total("hello", "func() string", hello),
];

/// sprig's greeting, kept for its tests and ours.
fn hello(_: &[Value]) -> Value {
    s("Hello!")
}

fn nospace(x: &str) -> String {
    x.chars().filter(|c| !c.is_whitespace()).collect()
}

fn shuffle(x: &str) -> String {
    let mut chars: Vec<char> = x.chars().collect();
    chars.shuffle(&mut rand::rng());
    chars.into_iter().collect()
}

/// `trimAll cut x`: `x` without the characters of `cut` at either end.
fn trim_all(cut: &str, x: &str) -> Value {
    s(x.trim_matches(|c| cut.contains(c)))
}

fn split_list(a: &[Value]) -> Result<Value> {
    let a = exact("splitList", a, 2)?;
    let parts = split("splitList", string(&a[1])?, string(&a[0])?, -1)?;
    Ok(args::list(parts.into_iter().map(s).collect()))
}

fn split_map(a: &[Value]) -> Result<Value> {
    let a = exact("split", a, 2)?;
    Ok(numbered_parts(split(
        "split",
        string(&a[1])?,
        string(&a[0])?,
        -1,
    )?))
}

fn splitn(a: &[Value]) -> Result<Value> {
    let a = exact("splitn", a, 3)?;
    let (sep, n, x) = (string(&a[0])?, int(&a[1])?, string(&a[2])?);
    Ok(numbered_parts(split("splitn", x, sep, n)?))
}

fn replace(a: &[Value]) -> Result<Value> {
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
}

/// Go's strings.SplitN, refusing more than [`bounds::MAX_ITEMS`] parts before
/// building them all (an empty separator on a long text would make one per character).
fn split<'a>(name: &str, x: &'a str, sep: &str, n: i64) -> Result<Vec<&'a str>> {
    let cap = go_len(bounds::MAX_ITEMS) + 1;
    let parts = text::go_split(x, sep, if n < 0 || n > cap { cap } else { n });
    if go_len(parts.len()) == cap {
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

fn trunc(a: &[Value]) -> Result<Value> {
    let a = exact("trunc", a, 2)?;
    let (c, x) = (int(&a[0])?, string(&a[1])?);
    let len = go_len(x.len());
    Ok(s(if c < 0 && len + c > 0 {
        byte_slice(x, go_index(len + c), x.len())
    } else if c >= 0 && len > c {
        byte_slice(x, 0, go_index(c))
    } else {
        x.to_string()
    }))
}

fn substr(a: &[Value]) -> Result<Value> {
    let a = exact("substr", a, 3)?;
    let (start, end, x) = (int(&a[0])?, int(&a[1])?, string(&a[2])?);
    let len = go_len(x.len());
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
    Ok(s(byte_slice(x, go_index(from), go_index(to))))
}

fn repeat(a: &[Value]) -> Result<Value> {
    let a = exact("repeat", a, 2)?;
    let (count, x) = (int(&a[0])?, string(&a[1])?);
    let count = usize::try_from(count)
        .map_err(|_| call_error("repeat", "strings: negative Repeat count"))?;
    bounds::output("repeat", bounds::times(count, x.len()))?;
    Ok(s(x.repeat(count)))
}

fn abbrev(a: &[Value]) -> Result<Value> {
    let a = exact("abbrev", a, 2)?;
    let (width, x) = (int(&a[0])?, string(&a[1])?);
    Ok(s(if width < 4 {
        x.to_string()
    } else {
        text::abbreviate(x, 0, width).unwrap_or_default()
    }))
}

fn abbrevboth(a: &[Value]) -> Result<Value> {
    let a = exact("abbrevboth", a, 3)?;
    let (left, right, x) = (int(&a[0])?, int(&a[1])?, string(&a[2])?);
    Ok(s(if right < 4 || left > 0 && right < 7 {
        x.to_string()
    } else {
        text::abbreviate(x, left, right).unwrap_or_default()
    }))
}

fn wrap(a: &[Value]) -> Result<Value> {
    let a = exact("wrap", a, 2)?;
    let x = string(&a[1])?;
    bounds::output("wrap", bounds::times(x.len(), 2))?;
    Ok(s(text::wrap(x, int(&a[0])?, "\n", false)))
}

fn wrap_with(a: &[Value]) -> Result<Value> {
    let a = exact("wrapWith", a, 3)?;
    let (width, sep, x) = (int(&a[0])?, string(&a[1])?, string(&a[2])?);
    // At worst a separator after every character.
    bounds::output("wrapWith", bounds::times(x.len(), sep.len() + 1))?;
    Ok(s(text::wrap(x, width, sep, true)))
}

fn indent_fn(name: &str, a: &[Value]) -> Result<Value> {
    let a = exact(name, a, 2)?;
    Ok(s(indent(name, int(&a[0])?, string(&a[1])?)?))
}

/// `nindent`: a newline, then `indent`.
fn nindent(name: &str, a: &[Value]) -> Result<Value> {
    let a = exact(name, a, 2)?;
    Ok(s(format!(
        "\n{}",
        indent(name, int(&a[0])?, string(&a[1])?)?
    )))
}

fn plural(a: &[Value]) -> Result<Value> {
    let a = exact("plural", a, 3)?;
    let (one, many, count) = (string(&a[0])?, string(&a[1])?, int(&a[2])?);
    Ok(s(if count == 1 { one } else { many }))
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

fn quote(a: &[Value]) -> Result<Value> {
    let parts: Vec<String> = a
        .iter()
        .filter(|v| !matches!(v, Value::Nil))
        .map(|v| go_quote(&strval(v)))
        .collect();
    joined("quote", &parts)
}

fn squote(a: &[Value]) -> Result<Value> {
    let parts: Vec<String> = a
        .iter()
        .filter(|v| !matches!(v, Value::Nil))
        .map(|v| format!("'{}'", sprint(v)))
        .collect();
    joined("squote", &parts)
}

fn cat(a: &[Value]) -> Result<Value> {
    let parts: Vec<String> = a
        .iter()
        .filter(|v| !matches!(v, Value::Nil))
        .map(sprint)
        .collect();
    joined("cat", &parts)
}

fn to_string(a: &[Value]) -> Result<Value> {
    Ok(s(strval(&exact("toString", a, 1)?[0])))
}

fn to_strings(a: &[Value]) -> Result<Value> {
    let items = strslice(&exact("toStrings", a, 1)?[0]);
    Ok(args::list(items.into_iter().map(s).collect()))
}

fn join(a: &[Value]) -> Result<Value> {
    let a = exact("join", a, 2)?;
    let (sep, items) = (string(&a[0])?, strslice(&a[1]));
    let len = items.iter().map(String::len).fold(0, usize::saturating_add);
    bounds::output(
        "join",
        len.saturating_add(bounds::times(items.len(), sep.len())),
    )?;
    Ok(s(items.join(sep)))
}

fn sort_alpha(a: &[Value]) -> Result<Value> {
    let v = &exact("sortAlpha", a, 1)?[0];
    let mut items = match v.as_list() {
        Some(_) => strslice(v),
        None => vec![strval(v)],
    };
    items.sort();
    Ok(args::list(items.into_iter().map(s).collect()))
}

const ALPHA: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const ALPHA_NUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const DIGITS: &str = "0123456789";
const ASCII: &str = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";

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

/// `count` random characters of `alphabet`, for the function `name`.
fn random(name: &str, a: &[Value], alphabet: &str) -> Result<Value> {
    Ok(s(random_from(
        name,
        alphabet.as_bytes(),
        int(&exact(name, a, 1)?[0])?,
    )?))
}

fn rand_alpha_num(name: &str, a: &[Value]) -> Result<Value> {
    random(name, a, ALPHA_NUM)
}

fn rand_alpha(name: &str, a: &[Value]) -> Result<Value> {
    random(name, a, ALPHA)
}

/// Printable ASCII, space to tilde.
fn rand_ascii(name: &str, a: &[Value]) -> Result<Value> {
    random(name, a, ASCII)
}

fn rand_numeric(name: &str, a: &[Value]) -> Result<Value> {
    random(name, a, DIGITS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_alphabets_are_sprigs() {
        let printable: Vec<u8> = (b' '..=b'~').collect();
        assert_eq!(ASCII.as_bytes(), printable);
        assert_eq!(ALPHA_NUM, format!("{ALPHA}{DIGITS}"));
        assert!(ALPHA.bytes().all(|b| b.is_ascii_alphabetic()) && ALPHA.len() == 52);
    }
}
