//! Helm's `toToml` (BurntSushi/toml's encoder): plain keys first, then tables
//! (`[a]`, `[a.b]` indented two spaces per level, `[[list]]` for lists of maps),
//! float64 numbers written with a decimal point.
use gotemplate::Value;

use crate::gofmt;

/// The TOML text for a map; other values give an error message as Helm returns it.
pub fn to_toml(v: &Value) -> String {
    let Value::Map(_) = v else {
        return "toml: top-level values must be Go maps or structs".into();
    };
    let mut out = String::new();
    table(&mut out, &[], v);
    out
}

fn is_table(v: &Value) -> bool {
    matches!(v, Value::Map(_)) || is_table_array(v)
}

fn is_table_array(v: &Value) -> bool {
    matches!(v, Value::List(items) if !items.is_empty() && items.iter().all(|i| matches!(i, Value::Map(_))))
}

fn indent(path: &[String]) -> String {
    "  ".repeat(path.len().saturating_sub(1))
}

fn table(out: &mut String, path: &[String], v: &Value) {
    let Value::Map(m) = v else {
        return;
    };
    let m = m.snapshot();
    let inner_indent = "  ".repeat(path.len());
    for (k, item) in m
        .iter()
        .filter(|(_, i)| !is_table(i) && !matches!(i, Value::Nil))
    {
        out.push_str(&format!("{inner_indent}{} = {}\n", key(k), scalar(item)));
    }
    for (k, item) in m.iter().filter(|(_, i)| is_table(i)) {
        let mut sub = path.to_vec();
        sub.push(key(k));
        let header = sub.join(".");
        match item {
            Value::List(items) => {
                for element in items.iter() {
                    out.push('\n');
                    out.push_str(&format!("{}[[{header}]]\n", indent(&sub)));
                    table(out, &sub, element);
                }
            }
            _ => {
                if sub.len() == 1 {
                    out.push('\n');
                }
                out.push_str(&format!("{}[{header}]\n", indent(&sub)));
                table(out, &sub, item);
            }
        }
    }
}

fn key(k: &str) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        k.to_string()
    } else {
        quote(k)
    }
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04X}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => quote(s),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) | Value::Int64(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Float(f) if f.is_nan() => "nan".into(),
        Value::Float(f) if f.is_infinite() => if *f > 0.0 { "inf" } else { "-inf" }.into(),
        Value::Float(f) => {
            let text = gofmt::format_float(*f);
            if text.contains(['.', 'e']) {
                text
            } else {
                format!("{text}.0")
            }
        }
        Value::List(items) => {
            let parts: Vec<String> = items.iter().map(scalar).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Map(_) => "{}".into(),
        other => quote(&other.to_string()),
    }
}

/// Helm's `fromToml`: a TOML document as a map (integers stay integers, as in Go);
/// a parse error becomes `{"Error": message}`.
pub fn from_toml(text: &str) -> Value {
    match text.parse::<toml::Table>() {
        Ok(table) => table_value(&table),
        Err(e) => crate::convert::map([("Error", crate::convert::string(e.message()))]),
    }
}

fn table_value(table: &toml::Table) -> Value {
    Value::Map(gotemplate::MapRef::new(
        table
            .iter()
            .map(|(k, v)| (std::sync::Arc::from(k.as_str()), toml_value(v)))
            .collect(),
    ))
}

fn toml_value(v: &toml::Value) -> Value {
    match v {
        toml::Value::String(s) => crate::convert::string(s),
        // go-toml decodes integers as int64.
        toml::Value::Integer(i) => Value::Int64(*i),
        toml::Value::Float(f) => Value::Float(*f),
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => crate::convert::string(&d.to_string()),
        toml::Value::Array(items) => Value::List(items.iter().map(toml_value).collect()),
        toml::Value::Table(t) => table_value(t),
    }
}
