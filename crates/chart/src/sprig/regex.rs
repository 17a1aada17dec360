//! sprig's regex functions with Go's RE2 syntax (translated by `chart_schema::re2`), Go's
//! replacement syntax (`$1`, `${name}`) and Go's Split rules.
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use chart_schema::re2;
use gotemplate::{Result, Value};
use regex::Regex;

use super::args::{self, Function, call_error, exact, int, s, string};
use super::bounds;

/// Compiled patterns, shared across renders: charts call the same few patterns in
/// loops, and compiling dominates the cost of a match.
fn compile(pattern: &str) -> std::result::Result<Arc<Regex>, String> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<Regex>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Ok(map) = cache.lock()
        && let Some(re) = map.get(pattern)
    {
        return Ok(Arc::clone(re));
    }
    let translated = re2::translate(pattern)?;
    // What the translation lets through, the regex crate accepts save for its size
    // limit (Go has its own); say so in Go's words.
    let re = Arc::new(
        Regex::new(&translated).map_err(|_| format!("expression too large: `{pattern}`"))?,
    );
    if let Ok(mut map) = cache.lock() {
        if map.len() > 512 {
            map.clear();
        }
        map.insert(pattern.to_string(), Arc::clone(&re));
    }
    Ok(re)
}

/// Compile for a function; a bad pattern is Go's error: the must variants return
/// regexp.Compile's error, the others panic in regexp.MustCompile, which Go's template
/// engine reports with the panic's text.
fn pattern(name: &str, v: &Value) -> Result<Arc<Regex>> {
    let p = string(v)?;
    compile(p).map_err(|e| {
        if name.starts_with("must") {
            call_error(name, format!("error parsing regexp: {e}"))
        } else {
            let quoted = if p.contains('`') {
                format!("{p:?}")
            } else {
                format!("`{p}`")
            };
            call_error(
                name,
                format!("regexp: Compile({quoted}): error parsing regexp: {e}"),
            )
        }
    })
}

/// Go's `ReplaceAllString` (template expanded with Go's rules) or `ReplaceAllLiteralString`,
/// refusing a result past [`bounds::MAX_OUTPUT`] as it grows.
fn replace_all(name: &str, re: &Regex, x: &str, template: &str, literal: bool) -> Result<String> {
    let mut out = String::new();
    let mut last = 0;
    for caps in re.captures_iter(x) {
        let Some(m) = caps.get(0) else { continue };
        out.push_str(&x[last..m.start()]);
        if literal {
            out.push_str(template);
        } else {
            re2::expand(&mut out, template, &caps);
        }
        last = m.end();
        bounds::output(name, out.len())?;
    }
    out.push_str(&x[last..]);
    bounds::output(name, out.len())?;
    Ok(out)
}

/// Go's Regexp.Split.
fn go_regex_split<'a>(re: &Regex, x: &'a str, n: i64) -> Vec<&'a str> {
    if n == 0 {
        return Vec::new();
    }
    if !re.as_str().is_empty() && x.is_empty() {
        return vec![""];
    }
    // A negative n means no limit.
    let limit = usize::try_from(n).unwrap_or(usize::MAX);
    let mut parts = Vec::new();
    let (mut beg, mut end) = (0, 0);
    for m in re.find_iter(x).take(limit) {
        if n > 0 && parts.len() == limit - 1 {
            break;
        }
        end = m.start();
        if m.end() != 0 {
            parts.push(&x[beg..end]);
        }
        beg = m.end();
    }
    if end != x.len() {
        parts.push(&x[beg..]);
    }
    parts
}

/// Go's `regexp.QuoteMeta` (it escapes fewer characters than `regex::escape`).
fn quote_meta(x: &str) -> String {
    let mut out = String::with_capacity(x.len());
    for c in x.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn strings(items: Vec<&str>) -> Value {
    args::list(items.into_iter().map(s).collect())
}

/// The family's template functions. Each `mustName` shares its body with `name`:
/// [`pattern`] words a bad pattern's error by the name.
pub(crate) const FUNCTIONS: &[Function] = &[
    Function::named("regexMatch", "func(string, string) bool", regex_match),
    Function::named(
        "mustRegexMatch",
        "func(string, string) (bool, error)",
        regex_match,
    ),
    Function::named(
        "regexFindAll",
        "func(string, string, int) []string",
        find_all,
    ),
    Function::named(
        "mustRegexFindAll",
        "func(string, string, int) ([]string, error)",
        find_all,
    ),
    Function::named("regexFind", "func(string, string) string", find),
    Function::named(
        "mustRegexFind",
        "func(string, string) (string, error)",
        find,
    ),
    Function::named(
        "regexReplaceAll",
        "func(string, string, string) string",
        replace_all_expanded,
    ),
    Function::named(
        "mustRegexReplaceAll",
        "func(string, string, string) (string, error)",
        replace_all_expanded,
    ),
    Function::named(
        "regexReplaceAllLiteral",
        "func(string, string, string) string",
        replace_all_literal,
    ),
    Function::named(
        "mustRegexReplaceAllLiteral",
        "func(string, string, string) (string, error)",
        replace_all_literal,
    ),
    Function::named("regexSplit", "func(string, string, int) []string", split),
    Function::named(
        "mustRegexSplit",
        "func(string, string, int) ([]string, error)",
        split,
    ),
    Function::string("regexQuoteMeta", quote_meta),
];

/// `regexMatch pattern x`: a bad pattern is no match, or the error of the must form.
fn regex_match(name: &str, a: &[Value]) -> Result<Value> {
    let a = exact(name, a, 2)?;
    let x = string(&a[1])?;
    match pattern(name, &a[0]) {
        Ok(re) => Ok(Value::Bool(re.is_match(x))),
        Err(e) if name.starts_with("must") => Err(e),
        Err(_) => Ok(Value::Bool(false)),
    }
}

fn find_all(name: &str, a: &[Value]) -> Result<Value> {
    let a = exact(name, a, 3)?;
    let (re, x, n) = (pattern(name, &a[0])?, string(&a[1])?, int(&a[2])?);
    // A negative n means no limit.
    let limit = usize::try_from(n).unwrap_or(usize::MAX);
    let found: Vec<&str> = re
        .find_iter(x)
        .take(limit.min(bounds::MAX_ITEMS + 1))
        .map(|m| m.as_str())
        .collect();
    bounds::items(name, found.len())?;
    // Go's FindAllString returns a nil slice when nothing matches.
    Ok(if found.is_empty() {
        Value::Nil
    } else {
        strings(found)
    })
}

fn find(name: &str, a: &[Value]) -> Result<Value> {
    let a = exact(name, a, 2)?;
    let (re, x) = (pattern(name, &a[0])?, string(&a[1])?);
    Ok(s(re.find(x).map_or("", |m| m.as_str())))
}

fn replace_all_expanded(name: &str, a: &[Value]) -> Result<Value> {
    let a = exact(name, a, 3)?;
    let (re, x, repl) = (pattern(name, &a[0])?, string(&a[1])?, string(&a[2])?);
    Ok(s(replace_all(name, &re, x, repl, false)?))
}

fn replace_all_literal(name: &str, a: &[Value]) -> Result<Value> {
    let a = exact(name, a, 3)?;
    let (re, x, repl) = (pattern(name, &a[0])?, string(&a[1])?, string(&a[2])?);
    Ok(s(replace_all(name, &re, x, repl, true)?))
}

fn split(name: &str, a: &[Value]) -> Result<Value> {
    let a = exact(name, a, 3)?;
    let (re, x, n) = (pattern(name, &a[0])?, string(&a[1])?, int(&a[2])?);
    let cap = args::go_len(bounds::MAX_ITEMS) + 1;
    let parts = go_regex_split(&re, x, if n < 0 || n > cap { cap } else { n });
    bounds::items(name, parts.len())?;
    // Go's Split returns a nil slice for n == 0.
    Ok(if n == 0 { Value::Nil } else { strings(parts) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacement_is_expanded_as_go_does() {
        let re = compile("(a)(?P<x>b)").unwrap();
        let out = replace_all(
            "regexReplaceAll",
            &re,
            "abab",
            "[$1|${x}|$1x|$01|$$]",
            false,
        );
        assert_eq!(out.unwrap(), "[a|b|||$][a|b|||$]");
    }

    #[test]
    fn split_follows_go() {
        let re = Regex::new("a").unwrap();
        assert_eq!(go_regex_split(&re, "banana", -1), vec!["b", "n", "n", ""]);
        assert_eq!(go_regex_split(&re, "banana", 2), vec!["b", "nana"]);
        let re = Regex::new("z+").unwrap();
        assert_eq!(go_regex_split(&re, "pizza", -1), vec!["pi", "a"]);
    }

    #[test]
    fn quote_meta_follows_go() {
        assert_eq!(quote_meta("1.2-3#x"), "1\\.2-3#x");
    }
}
