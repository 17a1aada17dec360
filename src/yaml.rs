//! All YAML parsing and printing goes through here, so the archived `serde_yaml` can be
//! swapped for another crate in one place, and so every text read from outside (PROJECT,
//! watches.yaml, a repository's index.yaml) passes the same bounds first.
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use serde_yaml::{Mapping, Value};

/// Deeper flow collections than this are refused before parsing: libyaml's scanner takes
/// time quadratic in flow depth (100,000 nested `{a: ` take minutes), and `serde_yaml` refuses
/// anything deeper than 128 levels anyway.
const MAX_FLOW_DEPTH: usize = 128;

/// Parse a YAML document into a typed value; the error text is `serde_yaml`'s, with position.
/// Alias bombs are refused by `serde_yaml` ("repetition limit exceeded"), deep nesting here.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let text = without_bom(text);
    check_flow_depth(text)?;
    serde_yaml::from_str(text).map_err(|e| describe(text, &e))
}

/// Every document of a YAML stream (`---`-separated), at most `max` of them, with the
/// bounds of [`from_str`]. An empty document is `null`.
pub fn documents<T: DeserializeOwned>(text: &str, max: usize) -> Result<Vec<T>, String> {
    let text = without_bom(text);
    check_flow_depth(text)?;
    let mut out = Vec::new();
    for document in serde_yaml::Deserializer::from_str(text) {
        if out.len() == max {
            return Err(format!(
                "more than {max} YAML documents; no file of this kind has that many"
            ));
        }
        out.push(T::deserialize(document).map_err(|e| describe(text, &e))?);
    }
    Ok(out)
}

/// `serde_yaml`'s error, except that a duplicate key, which it places at the start of the
/// mapping, is placed on the lines that hold it (in a block mapping, where they can be
/// told).
fn describe(text: &str, e: &serde_yaml::Error) -> String {
    const DUPLICATE: &str = "duplicate entry with key \"";
    let message = e.to_string();
    // serde_yaml puts the path of the mapping first: `list[0]: duplicate entry ...`.
    let Some((path, rest)) = message.split_once(DUPLICATE) else {
        return message;
    };
    let (Some((key, _)), Some(at)) = (rest.split_once('"'), e.location()) else {
        return message;
    };
    match duplicate_lines(text, key, at.line(), at.column()) {
        Some((first, second)) => format!(
            "{path}duplicate key \"{key}\" on line {second} (the same mapping has it on line {first})"
        ),
        None => message,
    }
}

/// The lines (1-based) of the first two keys `key` of the block mapping starting at
/// `line`, `column` (1-based).
fn duplicate_lines(text: &str, key: &str, line: usize, column: usize) -> Option<(usize, usize)> {
    let indent = column.checked_sub(1)?;
    let mut hits = Vec::new();
    for (i, text_line) in text.lines().enumerate().skip(line.checked_sub(1)?) {
        let rest = if i + 1 == line {
            text_line.get(indent..)?
        } else {
            let trimmed = text_line.trim_start_matches(' ');
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            match (text_line.len() - trimmed.len()).cmp(&indent) {
                std::cmp::Ordering::Less => break,
                std::cmp::Ordering::Greater => continue,
                std::cmp::Ordering::Equal => trimmed,
            }
        };
        let name = rest
            .strip_prefix('"')
            .and_then(|r| r.strip_prefix(key))
            .and_then(|r| r.strip_prefix('"'))
            .or_else(|| rest.strip_prefix(key));
        if name.is_some_and(|after| after.trim_start().starts_with(':')) {
            hits.push(i + 1);
            if let [first, second] = hits[..] {
                return Some((first, second));
            }
        }
    }
    None
}

/// `text` without the byte order mark an editor may put first: YAML allows it, and
/// libyaml would count it as a column of the first line (a list starting there then
/// no longer lines up with the next).
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// [`from_str`] for bytes, which must be UTF-8.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text (invalid byte at offset {})",
            e.valid_up_to()
        )
    })?;
    from_str(text)
}

/// Refuse flow collections (`[`, `{`) nested deeper than [`MAX_FLOW_DEPTH`], in one pass.
/// Quoted scalars and comments are skipped; a bracket inside a plain scalar counts, which
/// can only overestimate the depth of text that no real file has.
fn check_flow_depth(text: &str) -> Result<(), String> {
    let bytes = text.as_bytes();
    let (mut depth, mut line, mut i) = (0usize, 1usize, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => line += 1,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_FLOW_DEPTH {
                    return Err(format!(
                        "collections nested deeper than {MAX_FLOW_DEPTH} levels at line {line}; no real file nests this deep"
                    ));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'#' if i == 0 || bytes[i - 1].is_ascii_whitespace() => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            quote @ (b'"' | b'\'') if starts_scalar(bytes, i) => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    if bytes[i] == b'\\' && quote == b'"' {
                        i += 1;
                    } else if bytes[i] == b'\n' {
                        line += 1;
                    }
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// A quote opens a quoted scalar only where a scalar can start (not inside `it's`).
fn starts_scalar(bytes: &[u8], at: usize) -> bool {
    at == 0
        || matches!(
            bytes[at - 1],
            b' ' | b'\t' | b'\n' | b'\r' | b'[' | b'{' | b',' | b':' | b'-' | b'?'
        )
}

/// Print a value as a YAML document (block style, lists not indented, as go-yaml does).
pub fn to_string<T: Serialize>(value: &T) -> Result<String, String> {
    serde_yaml::to_string(value).map_err(|e| e.to_string())
}

/// Sort every mapping's keys, recursively, so output does not depend on input order.
pub fn sort_keys(value: &mut Value) {
    match value {
        Value::Mapping(map) => {
            let mut entries: Vec<(Value, Value)> = std::mem::take(map).into_iter().collect();
            entries.sort_by_key(|(a, _)| key_text(a));
            for (k, mut v) in entries {
                sort_keys(&mut v);
                map.insert(k, v);
            }
        }
        Value::Sequence(items) => items.iter_mut().for_each(sort_keys),
        _ => {}
    }
}

fn key_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => serde_yaml::to_string(other).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;
    use std::time::{Duration, Instant};

    use super::*;

    fn parse(text: &str) -> Result<Value, String> {
        from_str(text)
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_yaml() {
        let list = "\u{feff}- group: a\n  kind: B\n";
        let value = parse(list).unwrap();
        assert_eq!(value[0]["kind"], Value::from("B"));
        let docs: Vec<Value> = documents(list, 2).unwrap();
        assert_eq!(docs.len(), 1);
    }

    #[test]
    fn deep_flow_nesting_is_refused_at_once() {
        for deep in [
            format!("{}1{}", "{a: ".repeat(100_000), "}".repeat(100_000)),
            format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)),
        ] {
            let start = Instant::now();
            let err = parse(&deep).unwrap_err();
            assert!(
                err.contains("nested deeper than 128 levels at line 1"),
                "{err}"
            );
            // Generous: the point is "not minutes" (it took 80 s before the check).
            assert!(start.elapsed() < Duration::from_secs(5));
        }
    }

    #[test]
    fn alias_bombs_and_deep_block_nesting_are_refused() {
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let p = i - 1;
            let _ = writeln!(
                bomb,
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]"
            );
        }
        assert!(parse(&bomb).unwrap_err().contains("repetition limit"));
        let dashes = format!("{}x\n", "- ".repeat(100_000));
        assert!(parse(&dashes).unwrap_err().contains("recursion limit"));
    }

    #[test]
    fn brackets_in_quotes_comments_and_words_are_not_nesting() {
        let text = format!(
            "a: \"{}\"\nb: '{}'\n# {}\nc: it's [ok]\nd: \"esc \\\" [\"\n",
            "[".repeat(500),
            "{".repeat(500),
            "[".repeat(500)
        );
        let value = parse(&text).unwrap();
        assert_eq!(value["c"], Value::String("it's [ok]".into()));
        assert!(
            from_slice::<Value>(b"a: \xff")
                .unwrap_err()
                .contains("not UTF-8")
        );
    }

    #[test]
    fn a_duplicate_key_is_placed_on_its_lines() {
        let text = "# head\ndomain: a\nlist:\n- api:\n    x: 1\n  kind: K\n  kind: L\ndomain: b\n";
        let err = parse(text).unwrap_err();
        assert_eq!(
            err,
            "list[0]: duplicate key \"kind\" on line 7 (the same mapping has it on line 6)"
        );
        let err = parse("domain: a\nother: 1\n\"domain\": b\n").unwrap_err();
        assert_eq!(
            err,
            "duplicate key \"domain\" on line 3 (the same mapping has it on line 1)"
        );
        // Flow style: serde_yaml's own words.
        let err = parse("{a: 1, a: 2}").unwrap_err();
        assert!(err.starts_with("duplicate entry with key \"a\""), "{err}");
    }
}
