//! Go's encoding/json scanner, for its error messages: `json.Unmarshal` checks the
//! whole text before decoding and names the first byte that cannot continue it
//! ("invalid character 'b' looking for beginning of object key string"), or says
//! "unexpected end of JSON input". Templates show these texts (Helm's `fromJson` puts
//! them under an `Error` key), so they are Go's words, not our parser's.

/// What the scanner expects next.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Expect {
    /// A value (top level, after `:`, after `,` in an array).
    Value,
    /// A value or `]` right after `[`.
    ValueOrEnd,
    /// A key string or `}` right after `{`.
    KeyOrEnd,
    /// A key string after `,` in an object.
    Key,
    /// `:` after a key.
    Colon,
    /// `,` or `}` after an object's value.
    ObjectNext,
    /// `,` or `]` after an array element.
    ArrayNext,
    /// Only white space after the top-level value.
    End,
}

/// Containers open at the current point.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Object,
    Array,
}

/// Go's message for the first syntax error in `text`, or `None` when it is valid JSON.
/// Nesting is bounded by the text's length, and the work is one pass over it.
pub fn check(text: &str) -> Option<String> {
    scan(text).err()
}

fn scan(text: &str) -> Result<(), String> {
    let bytes = text.as_bytes();
    let mut stack: Vec<Open> = Vec::new();
    let mut expect = Expect::Value;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if matches!(c, b' ' | b'\t' | b'\r' | b'\n') {
            i += 1;
            continue;
        }
        match expect {
            Expect::Value | Expect::ValueOrEnd => {
                if c == b']' && expect == Expect::ValueOrEnd {
                    stack.pop();
                    expect = after_value(&stack);
                    i += 1;
                    continue;
                }
                match c {
                    b'{' | b'[' if stack.len() >= MAX_NESTING => {
                        return Err(invalid(c, "exceeded max depth"));
                    }
                    b'{' => {
                        stack.push(Open::Object);
                        expect = Expect::KeyOrEnd;
                        i += 1;
                    }
                    b'[' => {
                        stack.push(Open::Array);
                        expect = Expect::ValueOrEnd;
                        i += 1;
                    }
                    b'"' => {
                        i = string(bytes, i)?;
                        expect = after_value(&stack);
                    }
                    b'-' | b'0'..=b'9' => {
                        i = number(bytes, i)?;
                        expect = after_value(&stack);
                    }
                    b't' | b'f' | b'n' => {
                        i = literal(bytes, i)?;
                        expect = after_value(&stack);
                    }
                    _ => return Err(invalid(c, "looking for beginning of value")),
                }
            }
            Expect::KeyOrEnd | Expect::Key => match c {
                b'}' if expect == Expect::KeyOrEnd => {
                    stack.pop();
                    expect = after_value(&stack);
                    i += 1;
                }
                b'"' => {
                    i = string(bytes, i)?;
                    expect = Expect::Colon;
                }
                _ => return Err(invalid(c, "looking for beginning of object key string")),
            },
            Expect::Colon => {
                if c != b':' {
                    return Err(invalid(c, "after object key"));
                }
                expect = Expect::Value;
                i += 1;
            }
            Expect::ObjectNext => {
                match c {
                    b',' => expect = Expect::Key,
                    b'}' => {
                        stack.pop();
                        expect = after_value(&stack);
                    }
                    _ => return Err(invalid(c, "after object key:value pair")),
                }
                i += 1;
            }
            Expect::ArrayNext => {
                match c {
                    b',' => expect = Expect::Value,
                    b']' => {
                        stack.pop();
                        expect = after_value(&stack);
                    }
                    _ => return Err(invalid(c, "after array element")),
                }
                i += 1;
            }
            Expect::End => return Err(invalid(c, "after top-level value")),
        }
    }
    if expect == Expect::End {
        Ok(())
    } else {
        Err(UNEXPECTED_END.to_string())
    }
}

const UNEXPECTED_END: &str = "unexpected end of JSON input";

/// Go's scanner refuses to nest deeper than this.
const MAX_NESTING: usize = 10_000;

fn after_value(stack: &[Open]) -> Expect {
    match stack.last() {
        Some(Open::Object) => Expect::ObjectNext,
        Some(Open::Array) => Expect::ArrayNext,
        None => Expect::End,
    }
}

/// Go's error for byte `c` in `context`, the byte quoted as Go's quoteChar does.
fn invalid(c: u8, context: &str) -> String {
    let quoted = match c {
        b'\'' => r"'\''".to_string(),
        b'"' => "'\"'".to_string(),
        // Go turns the byte into a rune, so a UTF-8 lead byte shows as Latin-1.
        _ => {
            let q = gotemplate::fmt::quote(&char::from(c).to_string());
            format!("'{}'", &q[1..q.len() - 1])
        }
    };
    format!("invalid character {quoted} {context}")
}

/// Past the string starting at `start` (its opening quote), or the error.
fn string(bytes: &[u8], start: usize) -> Result<usize, String> {
    let mut i = start + 1;
    while let Some(&c) = bytes.get(i) {
        match c {
            b'"' => return Ok(i + 1),
            b'\\' => {
                let Some(&e) = bytes.get(i + 1) else {
                    return Err(UNEXPECTED_END.into());
                };
                match e {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                    b'u' => {
                        for k in 0..4 {
                            match bytes.get(i + 2 + k) {
                                Some(h) if h.is_ascii_hexdigit() => {}
                                Some(&h) => {
                                    return Err(invalid(h, "in \\u hexadecimal character escape"));
                                }
                                None => return Err(UNEXPECTED_END.into()),
                            }
                        }
                        i += 6;
                    }
                    _ => return Err(invalid(e, "in string escape code")),
                }
            }
            0..0x20 => return Err(invalid(c, "in string literal")),
            _ => i += 1,
        }
    }
    Err(UNEXPECTED_END.into())
}

/// Past the number starting at `start`, or the error. The byte that ends a number is
/// judged by the caller's state, as Go's scanner does.
fn number(bytes: &[u8], start: usize) -> Result<usize, String> {
    let mut i = start;
    let at = |i: usize| bytes.get(i).copied();
    if at(i) == Some(b'-') {
        i += 1;
        match at(i) {
            Some(b'0'..=b'9') => {}
            Some(c) => return Err(invalid(c, "in numeric literal")),
            None => return Err(UNEXPECTED_END.into()),
        }
    }
    if at(i) == Some(b'0') {
        i += 1;
    } else {
        while matches!(at(i), Some(b'0'..=b'9')) {
            i += 1;
        }
    }
    if at(i) == Some(b'.') {
        i += 1;
        match at(i) {
            Some(b'0'..=b'9') => {}
            Some(c) => return Err(invalid(c, "after decimal point in numeric literal")),
            None => return Err(UNEXPECTED_END.into()),
        }
        while matches!(at(i), Some(b'0'..=b'9')) {
            i += 1;
        }
    }
    if matches!(at(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(at(i), Some(b'+' | b'-')) {
            i += 1;
        }
        match at(i) {
            Some(b'0'..=b'9') => {}
            Some(c) => return Err(invalid(c, "in exponent of numeric literal")),
            None => return Err(UNEXPECTED_END.into()),
        }
        while matches!(at(i), Some(b'0'..=b'9')) {
            i += 1;
        }
    }
    Ok(i)
}

/// Past `true`, `false` or `null` starting at `start`, or the error.
fn literal(bytes: &[u8], start: usize) -> Result<usize, String> {
    let word: &[u8] = match bytes[start] {
        b't' => b"true",
        b'f' => b"false",
        _ => b"null",
    };
    let name = std::str::from_utf8(word).unwrap_or_default();
    for (k, &want) in word.iter().enumerate().skip(1) {
        match bytes.get(start + k) {
            Some(&c) if c == want => {}
            Some(&c) => {
                let context = format!("in literal {name} (expecting '{}')", char::from(want));
                return Err(invalid(c, &context));
            }
            None => return Err(UNEXPECTED_END.into()),
        }
    }
    Ok(start + word.len())
}

/// Go's `UnmarshalTypeError` message for a valid JSON text decoded into `target`
/// (`map[string]interface {}`, `[]interface {}`), or `None` when it fits (null fits
/// both).
pub fn type_error(text: &str, target: &str) -> Option<String> {
    let first = text
        .trim_start_matches([' ', '\t', '\r', '\n'])
        .as_bytes()
        .first()?;
    let found = match first {
        b'{' => "object",
        b'[' => "array",
        b'"' => "string",
        b't' | b'f' => "bool",
        b'n' => return None,
        _ => "number",
    };
    let fits = matches!(
        (found, target),
        ("object", "map[string]interface {}") | ("array", "[]interface {}")
    );
    (!fits).then(|| format!("json: cannot unmarshal {found} into Go value of type {target}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_json_passes() {
        for text in [
            "{}",
            "[]",
            " 1 ",
            "-0.5e+3",
            r#"{"a":[1,true,null,"x\u00e9\n"]}"#,
            "\"\"",
        ] {
            assert_eq!(check(text), None, "{text}");
        }
    }

    #[test]
    fn errors_are_go_s() {
        let cases = [
            ("", "unexpected end of JSON input"),
            ("{", "unexpected end of JSON input"),
            (
                "{bad}",
                "invalid character 'b' looking for beginning of object key string",
            ),
            ("{\"a\" 1}", "invalid character '1' after object key"),
            (
                "{\"a\":1 \"b\"}",
                "invalid character '\"' after object key:value pair",
            ),
            ("[1 2]", "invalid character '2' after array element"),
            ("01", "invalid character '1' after top-level value"),
            ("x", "invalid character 'x' looking for beginning of value"),
            ("-x", "invalid character 'x' in numeric literal"),
            (
                "1.x",
                "invalid character 'x' after decimal point in numeric literal",
            ),
            (
                "1ex",
                "invalid character 'x' in exponent of numeric literal",
            ),
            (
                "tx",
                "invalid character 'x' in literal true (expecting 'r')",
            ),
            ("nul", "unexpected end of JSON input"),
            ("\"a\nb\"", "invalid character '\\n' in string literal"),
            ("\"\\q\"", "invalid character 'q' in string escape code"),
            (
                "\"\\u12x4\"",
                "invalid character 'x' in \\u hexadecimal character escape",
            ),
            (
                "'a'",
                r"invalid character '\'' looking for beginning of value",
            ),
            ("é", "invalid character 'Ã' looking for beginning of value"),
        ];
        let deep = "[".repeat(10_001);
        assert_eq!(
            check(&deep).as_deref(),
            Some("invalid character '[' exceeded max depth")
        );
        for (text, want) in cases {
            assert_eq!(check(text).as_deref(), Some(want), "{text:?}");
        }
    }

    #[test]
    fn type_errors_name_what_was_found() {
        let map = "map[string]interface {}";
        assert_eq!(
            type_error("\"x\"", map).as_deref(),
            Some("json: cannot unmarshal string into Go value of type map[string]interface {}")
        );
        assert_eq!(type_error("null", map), None);
        assert_eq!(type_error("{}", map), None);
        assert_eq!(
            type_error("{}", "[]interface {}").as_deref(),
            Some("json: cannot unmarshal object into Go value of type []interface {}")
        );
        assert!(type_error("2", map).unwrap().contains("number"));
    }
}
