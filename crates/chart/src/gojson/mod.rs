//! Go's encoding/json for template values, the one copy behind Helm's `toJson` and
//! `mustToJson` and sprig's `toPrettyJson`, `toRawJson` and their `must` forms, and
//! `fromJson`: keys sorted, float64 as Go writes it (`1e+21`, `1e-7`), and `<`, `>`,
//! `&` escaped unless asked not to.
use std::fmt::Write;

use gotemplate::Value;

use crate::gofmt;

/// How to lay out the JSON text.
#[derive(Clone, Copy)]
pub struct JsonStyle {
    /// `json.MarshalIndent(v, "", "  ")` instead of one line.
    pub pretty: bool,
    /// Escape `<`, `>` and `&` (json.Marshal's default).
    pub escape_html: bool,
}

impl JsonStyle {
    /// `json.Marshal(v)`: one line, HTML characters escaped (Helm's `toJson`).
    pub const MARSHAL: JsonStyle = JsonStyle {
        pretty: false,
        escape_html: true,
    };
}

/// Encode a template value; `None` for values JSON cannot hold (NaN, functions).
pub fn encode(v: &Value, style: JsonStyle) -> Option<String> {
    let mut out = String::new();
    write_json(&mut out, v, style, 0)?;
    Some(out)
}

/// Why [`encode`] refused `v`, in encoding/json's words: the first value it cannot hold,
/// in the order the encoder walks (`json: unsupported type: complex128`,
/// `json: unsupported value: NaN`).
pub fn unsupported(v: &Value) -> String {
    fn first(v: &Value, depth: usize) -> Option<String> {
        if depth > MAX_DEPTH {
            return Some(format!(
                "json: unsupported value: encountered a cycle via {}",
                v.type_name()
            ));
        }
        match v {
            Value::Complex(..) | Value::Function(_) => {
                Some(format!("json: unsupported type: {}", v.type_name()))
            }
            Value::Float(f) if !f.is_finite() => Some(format!(
                "json: unsupported value: {}",
                gotemplate::fmt::sprint_value(&Value::Float(*f))
            )),
            Value::List(items) => items.iter().find_map(|i| first(i, depth + 1)),
            Value::Map(m) => m.snapshot().values().find_map(|i| first(i, depth + 1)),
            Value::Object(o) => match o.json_fields() {
                Some(fields) => fields.iter().find_map(|(_, i)| first(i, depth + 1)),
                None => first(&o.to_data(), depth + 1),
            },
            _ => None,
        }
    }
    first(v, 0).unwrap_or_else(|| "json: unsupported value".into())
}

fn newline(out: &mut String, style: JsonStyle, depth: usize) {
    if style.pretty {
        out.push('\n');
        out.extend(std::iter::repeat_n("  ", depth));
    }
}

/// Go's encoding/json reports a cycle past this depth; output past the size bound
/// (values shared many times over) is refused too.
const MAX_DEPTH: usize = 1000;
const MAX_OUTPUT: usize = 64 * 1024 * 1024;

fn write_json(out: &mut String, v: &Value, style: JsonStyle, depth: usize) -> Option<()> {
    if depth > MAX_DEPTH || out.len() > MAX_OUTPUT {
        return None;
    }
    match v {
        Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) | Value::Int64(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Uint(u) => {
            let _ = write!(out, "{u}");
        }
        Value::Float(f) => out.push_str(&gofmt::json_float(*f)?),
        Value::String(s) => write_json_string(out, s, style.escape_html),
        Value::List(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return Some(());
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, style, depth + 1);
                write_json(out, item, style, depth + 1)?;
            }
            newline(out, style, depth);
            out.push(']');
        }
        Value::Map(m) if m.is_nil() => out.push_str("null"),
        Value::Map(m) => {
            let entries = m.snapshot();
            write_object(out, entries.iter().map(|(k, v)| (&**k, v)), style, depth)?;
        }
        Value::Object(o) => match o.json_fields() {
            Some(fields) => write_object(out, fields.iter().map(|(k, v)| (*k, v)), style, depth)?,
            None => write_json(out, &o.to_data(), style, depth)?,
        },
        Value::Function(_) | Value::Complex(..) => return None,
    }
    Some(())
}

/// A JSON object of `entries` in the order given: `{}` when there are none.
fn write_object<'a>(
    out: &mut String,
    entries: impl ExactSizeIterator<Item = (&'a str, &'a Value)>,
    style: JsonStyle,
    depth: usize,
) -> Option<()> {
    if entries.len() == 0 {
        out.push_str("{}");
        return Some(());
    }
    out.push('{');
    for (i, (key, item)) in entries.enumerate() {
        if i > 0 {
            out.push(',');
        }
        newline(out, style, depth + 1);
        write_json_string(out, key, style.escape_html);
        out.push(':');
        if style.pretty {
            out.push(' ');
        }
        write_json(out, item, style, depth + 1)?;
    }
    newline(out, style, depth);
    out.push('}');
    Some(())
}

fn write_json_string(out: &mut String, s: &str, escape_html: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // Go 1.22 and later.
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' if escape_html => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

mod syntax;

pub use syntax::type_error;

/// json.Unmarshal into `interface{}`: every number becomes a float64; an invalid text
/// gives Go's message.
pub fn decode(text: &str) -> Result<Value, String> {
    if let Some(message) = syntax::check(text) {
        return Err(message);
    }
    let parsed: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    Ok(crate::convert::to_template(&parsed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_like_go() {
        let v = decode(r#"{"b":[1,2.5,1e21,1e-7],"a":"<x>","c":{}}"#).unwrap();
        assert_eq!(
            encode(&v, JsonStyle::MARSHAL).unwrap(),
            r#"{"a":"\u003cx\u003e","b":[1,2.5,1e+21,1e-7],"c":{}}"#
        );
        let pretty = JsonStyle {
            pretty: true,
            escape_html: false,
        };
        assert_eq!(
            encode(&v, pretty).unwrap(),
            "{\n  \"a\": \"<x>\",\n  \"b\": [\n    1,\n    2.5,\n    1e+21,\n    1e-7\n  ],\n  \"c\": {}\n}"
        );
    }

    #[test]
    fn values_go_cannot_encode_give_none() {
        // json.Marshal fails on NaN and ±Inf; Helm's toJson then prints "".
        let v = Value::from(vec![Value::Int(1), Value::Float(f64::NAN)]);
        assert_eq!(encode(&v, JsonStyle::MARSHAL), None);
        assert_eq!(
            encode(&Value::Float(-0.0), JsonStyle::MARSHAL).as_deref(),
            Some("-0")
        );
    }
}
