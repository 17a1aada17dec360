//! The chart engine's one YAML reader (values, Chart.yaml, manifests, `fromYaml`) and the
//! runtime's for values.yaml. It reads YAML the way Helm does (go-yaml v2 behind
//! sigs.k8s.io/yaml): YAML 1.1 plain scalars (`yes`/`on`/`y` are booleans, `0755` is
//! octal), map keys turned into strings, anchors, aliases and `<<` merge keys; key order
//! is kept.
use std::collections::HashMap;

use serde_json::{Map, Number, Value};
use yaml_rust2::parser::{Event, EventReceiver, MarkedEventReceiver, Parser, Tag};
use yaml_rust2::scanner::Marker;
use yaml_rust2::scanner::TScalarStyle;

/// Parse the first document; an empty text is `null`.
///
/// # Errors
///
/// go-yaml's words for text that is not YAML, or a value JSON cannot hold (`.inf`).
pub fn parse(text: &str) -> Result<Value, String> {
    Ok(parse_all_raw(text)?
        .into_iter()
        .next()
        .unwrap_or(Value::Null))
}

/// Parse every document of a stream, skipping empty (null) ones.
///
/// # Errors
///
/// As [`parse`], for any of the documents.
pub fn parse_all(text: &str) -> Result<Vec<Value>, String> {
    Ok(parse_all_raw(text)?
        .into_iter()
        .filter(|d| !d.is_null())
        .collect())
}

/// Values built from one stream, counting every alias expansion: an "alias bomb"
/// (aliases of aliases, each doubling the document) is refused once past this,
/// in time and memory linear in the text read so far.
const MAX_NODES: usize = 4_000_000;

fn parse_all_raw(text: &str) -> Result<Vec<Value>, String> {
    // A UTF-8 byte order mark is not content: Helm reads values.yaml and Chart.yaml
    // that start with one as if it were not there.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match load(text) {
        // go-yaml accepts what yaml-rust2 calls badly indented inside flow collections and
        // quoted scalars; with those lines indented, the text means the same to both.
        Err(e) if e.contains("invalid indentation") => {
            match crate::yaml_indent::indent_flow_lines(text) {
                Some(indented) => load(&indented).map_err(|_| e),
                None => Err(e),
            }
        }
        other => other,
    }
}

fn load(text: &str) -> Result<Vec<Value>, String> {
    let mut marked = Marked {
        loader: Loader::default(),
        source: text,
    };
    feed_events(text, &mut marked)?;
    let loader = marked.loader;
    match loader.error {
        Some(e) => Err(e),
        None => Ok(loader.docs),
    }
}

/// Collections nested deeper than this are refused (go-yaml stops at 10,000; no real chart
/// comes near 100). yaml-rust2's own loader recurses once per level and overflows the
/// stack on 100,000 nested `- `, so events are pulled here in a loop instead.
const MAX_DEPTH: usize = 1000;

fn feed_events(text: &str, receiver: &mut Marked<'_>) -> Result<(), String> {
    let mut parser = Parser::new_from_str(text);
    let mut depth = 0usize;
    loop {
        let (event, mark) = parser.next_token().map_err(|e| go_yaml_message(&e))?;
        match event {
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(format!(
                        "yaml: line {}: exceeded max depth of {MAX_DEPTH}",
                        mark.line()
                    ));
                }
            }
            Event::SequenceEnd | Event::MappingEnd => depth = depth.saturating_sub(1),
            _ => {}
        }
        let end = event == Event::StreamEnd;
        receiver.on_event(event, mark);
        if end {
            return Ok(());
        }
    }
}

enum Frame {
    Seq(usize, Vec<Value>),
    Map(usize, Map<String, Value>, Option<Key>),
}

enum Key {
    Name(String),
    Merge,
}

/// The loader with the source text, to read a block scalar's header where yaml-rust2
/// gets an empty one wrong.
struct Marked<'a> {
    loader: Loader,
    source: &'a str,
}

impl MarkedEventReceiver for Marked<'_> {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let ev = match ev {
            Event::Scalar(text, style @ (TScalarStyle::Literal | TScalarStyle::Folded), a, t) => {
                let text = empty_block_scalar(self.source, mark.index()).unwrap_or(text);
                Event::Scalar(text, style, a, t)
            }
            other => other,
        };
        EventReceiver::on_event(&mut self.loader, ev);
    }
}

/// The value of a block scalar that starts at byte `at` (its `|` or `>`) when nothing
/// but blank lines follows it to the end of the text: YAML (and go-yaml) make that ""
/// for clip and strip chomping, and keep only the line breaks after the header for
/// `+`. yaml-rust2 gives "\n" for `a: |` at the end of a file.
fn empty_block_scalar(source: &str, at: usize) -> Option<String> {
    let from = source.get(at..)?;
    // yaml-rust2 marks a scalar with content at its first content line instead.
    if !from.starts_with(['|', '>']) {
        return None;
    }
    let header_end = from.find('\n').unwrap_or(from.len());
    let (header, rest) = (
        &from[..header_end],
        from.get(header_end + 1..).unwrap_or(""),
    );
    if !rest.chars().all(|c| matches!(c, ' ' | '\t' | '\r' | '\n')) {
        return None;
    }
    let indicators = header.get(1..)?.split([' ', '#']).next().unwrap_or("");
    Some(if indicators.contains('+') {
        "\n".repeat(rest.matches('\n').count())
    } else {
        String::new()
    })
}

#[derive(Default)]
struct Loader {
    stack: Vec<Frame>,
    /// Anchored values with their node counts.
    anchors: HashMap<usize, (Value, usize)>,
    /// Nodes built so far, aliases counted at their full size.
    nodes: usize,
    docs: Vec<Value>,
    error: Option<String>,
}

impl EventReceiver for Loader {
    fn on_event(&mut self, ev: Event) {
        if self.error.is_some() {
            return;
        }
        match ev {
            Event::Scalar(text, style, anchor, tag) => {
                if !self.count(1) {
                    return;
                }
                let merge_key = style == TScalarStyle::Plain && text == "<<";
                let value = match resolve(&text, style, tag.as_ref()) {
                    Ok(v) => v,
                    Err(e) => {
                        self.error.get_or_insert(e);
                        Value::Null
                    }
                };
                self.remember(anchor, &value);
                self.push(value, merge_key);
            }
            Event::Alias(id) => {
                let size = self.anchors.get(&id).map_or(1, |(_, n)| *n);
                if self.count(size) {
                    let value = self
                        .anchors
                        .get(&id)
                        .map_or(Value::Null, |(v, _)| v.clone());
                    self.push(value, false);
                }
            }
            Event::SequenceStart(anchor, _) => {
                self.open(Frame::Seq(anchor, Vec::new()));
            }
            Event::MappingStart(anchor, _) => {
                self.open(Frame::Map(anchor, Map::new(), None));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (anchor, value) = match self.stack.pop() {
                    Some(Frame::Seq(a, items)) => (a, Value::Array(items)),
                    Some(Frame::Map(a, map, _)) => (a, Value::Object(map)),
                    None => return,
                };
                self.remember(anchor, &value);
                self.push(value, false);
            }
            _ => {}
        }
    }
}

impl Loader {
    fn open(&mut self, frame: Frame) {
        // yaml-rust2 itself refuses nesting deeper than a few hundred levels, which
        // keeps the recursive walks over parsed values within the stack.
        if self.count(1) {
            self.stack.push(frame);
        }
    }

    /// Count `n` more nodes; false (with the error set) past the budget.
    fn count(&mut self, n: usize) -> bool {
        self.nodes = self.nodes.saturating_add(n);
        if self.nodes > MAX_NODES {
            self.error = Some(format!(
                "the document has more than {MAX_NODES} values once its aliases are expanded (an alias bomb?)"
            ));
        }
        self.error.is_none()
    }

    fn remember(&mut self, anchor: usize, value: &Value) {
        if anchor > 0 {
            self.anchors.insert(anchor, (value.clone(), size(value)));
        }
    }

    fn push(&mut self, value: Value, merge_key: bool) {
        match self.stack.last_mut() {
            None => self.docs.push(value),
            Some(Frame::Seq(_, items)) => items.push(value),
            Some(Frame::Map(_, map, key)) => match key.take() {
                None if merge_key => *key = Some(Key::Merge),
                None => *key = Some(Key::Name(key_string(&value))),
                Some(Key::Name(name)) => {
                    map.insert(name, value);
                }
                Some(Key::Merge) => {
                    let sources = match value {
                        Value::Array(items) => items,
                        other => vec![other],
                    };
                    for source in sources {
                        if let Value::Object(m) = source {
                            for (k, v) in m {
                                map.entry(k).or_insert(v);
                            }
                        }
                    }
                }
            },
        }
    }
}

/// Nodes in a value, for the alias budget.
fn size(value: &Value) -> usize {
    match value {
        Value::Array(items) => items.iter().map(size).fold(1, usize::saturating_add),
        Value::Object(map) => map.values().map(size).fold(1, usize::saturating_add),
        _ => 1,
    }
}

/// A decoded YAML or JSON number as Go prints it: an integer as it is, a float64 as
/// `strconv.FormatFloat(f, 'g', -1, 64)` (`1.10` is "1.1", `1e6` is "1e+06").
pub fn number_text(n: &Number) -> String {
    match n.as_f64() {
        Some(f) if !(n.is_i64() || n.is_u64()) => gotemplate::fmt::format_float(f, b'g', -1),
        _ => n.to_string(),
    }
}

/// sigs.k8s.io/yaml's key conversion: every key becomes its string form.
fn key_string(key: &Value) -> String {
    match key {
        Value::String(s) => s.clone(),
        Value::Null => "null".into(),
        Value::Number(n) => number_text(n),
        other => other.to_string(),
    }
}

/// go-yaml v2's resolution of a scalar: quoted ones are strings, plain ones may be
/// null, booleans (YAML 1.1 words), integers (Go's `ParseInt` base 0) or floats.
fn resolve(text: &str, style: TScalarStyle, tag: Option<&Tag>) -> Result<Value, String> {
    if style != TScalarStyle::Plain
        || tag.is_some_and(|t| t.suffix == "str" || t.suffix == "binary")
    {
        return Ok(Value::String(text.to_string()));
    }
    Ok(match text {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            Value::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            Value::Bool(false)
        }
        // encoding/json cannot write these; Go names the float as strconv prints it.
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Err("json: unsupported value: +Inf".into());
        }
        "-.inf" | "-.Inf" | "-.INF" => return Err("json: unsupported value: -Inf".into()),
        ".nan" | ".NaN" | ".NAN" => return Err("json: unsupported value: NaN".into()),
        _ => number(text).unwrap_or_else(|| Value::String(text.to_string())),
    })
}

fn number(text: &str) -> Option<Value> {
    let first = text.chars().next()?;
    if !(first.is_ascii_digit() || matches!(first, '-' | '+' | '.')) {
        return None;
    }
    let plain = text.replace('_', "");
    if let Some(v) = go_int(&plain) {
        return Some(v);
    }
    if is_yaml_float(&plain) {
        let f: f64 = plain.parse().ok()?;
        return Number::from_f64(f).map(Value::Number);
    }
    None
}

/// `strconv.ParseInt(s, 0, 64)`, then `ParseUint`: 0x, 0o, 0b prefixes, a leading 0 is octal.
pub fn go_int(s: &str) -> Option<Value> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (digits, radix) =
        if let Some(r) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            (r, 16)
        } else if let Some(r) = body.strip_prefix("0o").or_else(|| body.strip_prefix("0O")) {
            (r, 8)
        } else if let Some(r) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
            (r, 2)
        } else if body.len() > 1 && body.starts_with('0') {
            (&body[1..], 8)
        } else {
            (body, 10)
        };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u128::from_str_radix(digits, radix).ok()?;
    if neg {
        let v = i64::try_from(magnitude)
            .ok()
            .map(|m| -m)
            .or((magnitude == 1u128 << 63).then_some(i64::MIN))?;
        Some(Value::Number(v.into()))
    } else if let Ok(v) = i64::try_from(magnitude) {
        Some(Value::Number(v.into()))
    } else {
        u64::try_from(magnitude)
            .ok()
            .map(|v| Value::Number(v.into()))
    }
}

/// go-yaml's float pattern `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
pub fn is_yaml_float(s: &str) -> bool {
    let b = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mantissa, exp) = match b.find(['e', 'E']) {
        Some(i) => (&b[..i], Some(&b[i + 1..])),
        None => (b, None),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => digits(frac),
        Some((int, frac)) => digits(int) && (frac.is_empty() || digits(frac)),
        None => digits(mantissa),
    };
    mantissa_ok && exp.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)))
}

/// The text of a YAML file.
///
/// # Errors
///
/// go-yaml's reader error for bytes that are not UTF-8 (`yaml: invalid leading UTF-8
/// octet`), which Helm reports for such a values file.
pub fn utf8_text(data: &[u8]) -> Result<&str, String> {
    let e = match std::str::from_utf8(data) {
        Ok(text) => return Ok(text),
        Err(e) => e,
    };
    let rest = &data[e.valid_up_to()..];
    let lead = rest[0];
    let width = match lead {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => return Err("yaml: invalid leading UTF-8 octet".into()),
    };
    let problem = if rest.len() < width {
        "incomplete UTF-8 octet sequence"
    } else if rest[1..width].iter().any(|b| b & 0xc0 != 0x80) {
        "invalid trailing UTF-8 octet"
    } else if e.error_len().is_some()
        && matches!(
            (lead, rest[1]),
            (0xc0 | 0xc1, _) | (0xe0, ..0xa0) | (0xf0, ..0x90)
        )
    {
        "invalid length of a UTF-8 sequence"
    } else {
        "invalid Unicode character"
    };
    Err(format!("yaml: {problem}"))
}

/// A YAML syntax error worded as go-yaml words it (`yaml: line 1: did not find
/// expected node content`), which is what Helm shows. go-yaml counts a parser
/// error's line from 0 and a scanner error's from 1, and leaves the line out when the
/// count is 0; it prints the problem without its "while parsing ..." context.
fn go_yaml_message(e: &yaml_rust2::ScanError) -> String {
    const PARSER_PROBLEMS: [&str; 6] = [
        "did not find expected node content",
        "did not find expected key",
        "did not find expected ',' or '}'",
        "expected ',' or ']'",
        "did not find expected '-' indicator",
        "did not find expected <document start>",
    ];
    let info = e.info();
    let problem = info.split_once(", ").map_or(info, |(context, problem)| {
        if context.starts_with("while ") {
            problem
        } else {
            info
        }
    });
    let problem = match problem {
        // yaml-rust2's wordings of libyaml's problems.
        "expected ',' or ']'" => "did not find expected ',' or ']'",
        "simple key expect ':'" => "could not find expected ':'",
        other if other.starts_with("unexpected character") => {
            "found character that cannot start any token"
        }
        other => other,
    };
    let parser = PARSER_PROBLEMS.iter().any(|p| problem.ends_with(p));
    // yaml-rust2 counts lines from 1, go-yaml from 0; go-yaml shows no line for its
    // line 0 and adds one to a scanner error's.
    let line = match e.marker().line().saturating_sub(1) {
        0 => 0,
        n if parser => n,
        n => n + 1,
    };
    if line == 0 {
        format!("yaml: {problem}")
    } else {
        format!("yaml: line {line}: {problem}")
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Write;

    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_print_as_go_prints_them() {
        let number = |text: &str| number_text(&serde_json::from_str(text).unwrap());
        assert_eq!(number("1.10"), "1.1");
        assert_eq!(number("1e6"), "1e+06");
        assert_eq!(number("18446744073709551615"), "18446744073709551615");
        assert_eq!(
            parse(
                "1e6: a
2.50: b
"
            )
            .unwrap(),
            json!({"1e+06": "a", "2.5": "b"})
        );
    }

    #[test]
    fn plain_scalars_resolve_as_yaml_1_1() {
        let v = parse("a: yes\nb: Off\nc: 0755\nd: 0x1F\ne: 1_000\nf: .5\ng: 1e3\nh: '0755'\ni: \"yes\"\nj: 1:20\nk: ~\nl: 2001-12-14\nm: !!str 12\nbig: 123456789012345678901234\n").unwrap();
        assert_eq!(
            v,
            json!({"a": true, "b": false, "c": 493, "d": 31, "e": 1000, "f": 0.5, "g": 1000.0, "h": "0755",
                   "i": "yes", "j": "1:20", "k": null, "l": "2001-12-14", "m": "12", "big": 1.234_567_890_123_456_8e23})
        );
    }

    #[test]
    fn keys_become_strings_and_anchors_merge() {
        let v = parse("y: 1\n1: a\nbase: &b {x: 1, z: 2}\ncopy: *b\nmerged:\n  <<: *b\n  z: 3\n")
            .unwrap();
        assert_eq!(
            v,
            json!({"true": 1, "1": "a", "base": {"x": 1, "z": 2}, "copy": {"x": 1, "z": 2}, "merged": {"x": 1, "z": 3}})
        );
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["true", "1", "base", "copy", "merged"]);
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        assert_eq!(
            parse("\u{feff}x: 1\n").unwrap(),
            serde_json::json!({"x": 1})
        );
    }

    #[test]
    fn alias_bombs_and_deep_nesting_are_refused() {
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            writeln!(
                bomb,
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]"
            )
            .unwrap();
        }
        let err = parse(&bomb).unwrap_err();
        assert!(err.contains("aliases are expanded"), "{err}");
        let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
        let err = parse(&deep).unwrap_err();
        assert!(err.contains("recursion limit exceeded"), "{err}");
        let dashes = format!("{}x\n", "- ".repeat(100_000));
        let err = parse(&dashes).unwrap_err();
        assert_eq!(err, "yaml: line 1: exceeded max depth of 1000");
        // A moderate use of aliases is fine.
        assert!(parse("a: &x {b: 1}\nc: *x\nd: *x\n").is_ok());
    }

    /// Helm's answers (helm-python-sdk 0.2.2, Helm v4.2.3) for values.yaml texts whose
    /// flow collections and quoted scalars continue at columns yaml-rust2 refuses.
    #[test]
    fn flow_and_quoted_nodes_may_continue_at_any_column_as_in_go_yaml() {
        for (text, want) in [
            (
                "a:\n  b: [\n    x,\n    y\n]\n",
                json!({"a": {"b": ["x", true]}}),
            ),
            (
                "a:\n  b: [\n  x,\n  y\n  ]\n",
                json!({"a": {"b": ["x", true]}}),
            ),
            ("a:\n  b: [x,\n  y]\n", json!({"a": {"b": ["x", true]}})),
            ("a:\n  b: {\n    x: 1\n}\n", json!({"a": {"b": {"x": 1}}})),
            ("a:\n  b: \"x\n  y\"\n", json!({"a": {"b": "x y"}})),
            ("a:\n  b: [\n x\n  ]\n", json!({"a": {"b": ["x"]}})),
            ("a:\n  b: [\nx\n]\n", json!({"a": {"b": ["x"]}})),
            ("a: [\nx, y\n]\nb: 1\n", json!({"a": ["x", true], "b": 1})),
            ("a:\n  b: 'x\n y'\n", json!({"a": {"b": "x y"}})),
            ("a:\n  - [\n  x\n  ]\n", json!({"a": [["x"]]})),
        ] {
            assert_eq!(parse(text).unwrap(), want, "{text:?}");
        }
        // Block indentation still counts.
        assert!(parse("a:\n  b: 1\n c: 2\n").is_err());
    }

    #[test]
    fn bytes_that_are_not_utf8_get_go_yaml_s_reader_errors() {
        assert_eq!(utf8_text(b"a: b").unwrap(), "a: b");
        let err = |b: &[u8]| utf8_text(b).unwrap_err();
        assert_eq!(err(b"a: \xfeb"), "yaml: invalid leading UTF-8 octet");
        assert_eq!(err(b"a: \x80"), "yaml: invalid leading UTF-8 octet");
        assert_eq!(err(b"a: \xc3x"), "yaml: invalid trailing UTF-8 octet");
        assert_eq!(err(b"a: \xe6\x97"), "yaml: incomplete UTF-8 octet sequence");
        assert_eq!(
            err(b"a: \xc0\x80"),
            "yaml: invalid length of a UTF-8 sequence"
        );
        assert_eq!(err(b"a: \xed\xa0\x80"), "yaml: invalid Unicode character");
    }

    #[test]
    fn empty_block_scalars_are_empty_strings() {
        // What a YAML 1.1/1.2 reader (and go-yaml) makes of each.
        let cases = [
            ("a: |\n", ""),
            ("a: |", ""),
            ("a: |\n\nb: 1\n", ""),
            ("a: >-\n", ""),
            ("a: |+\n", ""),
            ("a: |+\n\n", "\n"),
            ("a: |\n\n", ""),
            ("a: |\n  x\n\n", "x\n"),
            ("a: >\n\n  x\n", "\nx\n"),
            ("a: |2-\n", ""),
        ];
        for (text, want) in cases {
            assert_eq!(parse(text).unwrap()["a"], want, "{text:?}");
        }
    }

    #[test]
    fn go_yaml_words_syntax_errors() {
        // Helm v4.2.3's fromYaml on each text (through helm-python-sdk).
        let cases = [
            ("a: [", "yaml: line 1: did not find expected node content"),
            (
                "a: b: c",
                "yaml: mapping values are not allowed in this context",
            ),
            (
                "x: 1\na: b: c",
                "yaml: line 2: mapping values are not allowed in this context",
            ),
            (
                "x: 1\ny: [\n",
                "yaml: line 2: did not find expected node content",
            ),
            ("\"abc", "yaml: found unexpected end of stream"),
            (
                "x: 1\ny: \"abc",
                "yaml: line 2: found unexpected end of stream",
            ),
            (
                "- a\nb: c",
                "yaml: line 1: did not find expected '-' indicator",
            ),
            (
                "a:\n  - b\n c: d",
                "yaml: line 2: did not find expected key",
            ),
            ("a: @x", "yaml: found character that cannot start any token"),
            (
                "x: 1\na: {b: c",
                "yaml: line 2: did not find expected ',' or '}'",
            ),
        ];
        let wrong: Vec<String> = cases
            .iter()
            .filter_map(|(text, want)| {
                let got = parse(text).unwrap_err();
                (got != *want).then(|| format!("{text:?}: want {want:?}, got {got:?}"))
            })
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn documents_split_and_errors_report_position() {
        assert_eq!(
            parse_all("a: 1\n---\n# only a comment\n---\nb: 2\n")
                .unwrap()
                .len(),
            2
        );
        let err = parse("a: [1, 2\nb: 3\n").unwrap_err();
        assert!(err.contains("line"), "{err}");
    }
}
