//! Go's encoding/json as sprig's JSON functions use it: keys sorted, float64 in Go's
//! shortest form (`1e+21`, `1e-7`), and `<`, `>`, `&` escaped unless asked not to.
use std::fmt::Write;

use gotmpl::Value;

use super::args::{self, Dict};
use crate::gofmt::{format_float_e, format_float_f};

/// How to lay out the JSON text.
#[derive(Clone, Copy)]
pub struct JsonStyle {
    /// `json.MarshalIndent(v, "", "  ")` instead of one line.
    pub pretty: bool,
    /// Escape `<`, `>` and `&` (json.Marshal's default).
    pub escape_html: bool,
}

/// Encode a template value; `None` for values JSON cannot hold (NaN, functions).
pub fn encode(v: &Value, style: JsonStyle) -> Option<String> {
    let mut out = String::new();
    write_json(&mut out, v, style, 0)?;
    Some(out)
}

fn newline(out: &mut String, style: JsonStyle, depth: usize) {
    if style.pretty {
        out.push('\n');
        out.extend(std::iter::repeat_n("  ", depth));
    }
}

fn write_json(out: &mut String, v: &Value, style: JsonStyle, depth: usize) -> Option<()> {
    match v {
        Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Uint(u) => {
            let _ = write!(out, "{u}");
        }
        Value::Float(f) => out.push_str(&json_float(*f)?),
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
        Value::Map(m) => {
            if m.is_empty() {
                out.push_str("{}");
                return Some(());
            }
            out.push('{');
            for (i, (k, item)) in m.snapshot().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, style, depth + 1);
                write_json_string(out, k, style.escape_html);
                out.push(':');
                if style.pretty {
                    out.push(' ');
                }
                write_json(out, item, style, depth + 1)?;
            }
            newline(out, style, depth);
            out.push('}');
        }
        _ => return None,
    }
    Some(())
}

/// encoding/json's float64: 'f' form, or 'e' form below 1e-6 and from 1e21, with
/// the exponent's leading zero dropped (`1e-07` → `1e-7`).
fn json_float(f: f64) -> Option<String> {
    if !f.is_finite() {
        return None;
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let e = format_float_e(f);
        return Some(match e.find("e-0") {
            Some(i) if e.len() == i + 4 => format!("{}e-{}", &e[..i], &e[i + 3..]),
            _ => e,
        });
    }
    Some(format_float_f(f))
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

/// json.Unmarshal into `interface{}`: every number becomes a float64.
pub fn decode(text: &str) -> Result<Value, serde_json::Error> {
    let parsed: serde_json::Value = serde_json::from_str(text)?;
    Ok(from_serde(&parsed))
}

fn from_serde(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => args::s(s.as_str()),
        serde_json::Value::Array(items) => args::list(items.iter().map(from_serde).collect()),
        serde_json::Value::Object(m) => {
            let entries: Dict = m
                .iter()
                .map(|(k, v)| (k.as_str().into(), from_serde(v)))
                .collect();
            args::map(entries)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: JsonStyle = JsonStyle {
        pretty: false,
        escape_html: true,
    };

    #[test]
    fn encodes_like_go() {
        let v = decode(r#"{"b":[1,2.5,1e21,1e-7],"a":"<x>","c":{}}"#).unwrap();
        assert_eq!(
            encode(&v, LINE).unwrap(),
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
}
