//! JSON values printed as block YAML the way go-yaml (kubebuilder, Helm, `yaml.Marshal`)
//! prints them: two-space indentation, list items not indented under their key, `{}` and
//! `[]` for empty collections, and double quotes only where a plain scalar would be read
//! back as something else.
use serde_json::Value;

/// `value` as block YAML, every line indented by `indent` spaces, ending with a newline.
pub fn to_block_yaml(value: &Value, indent: usize) -> String {
    let mut out = String::new();
    let pad = " ".repeat(indent);
    match value {
        Value::Object(map) if !map.is_empty() => write_map(map, indent, &mut out),
        Value::Array(items) if !items.is_empty() => write_seq(items, indent, &mut out),
        scalar => {
            out.push_str(&pad);
            out.push_str(&inline(scalar, indent));
            out.push('\n');
        }
    }
    out
}

/// Sort every object's keys, recursively (go-yaml's order for maps).
pub fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), sorted(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

fn write_map(map: &serde_json::Map<String, Value>, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for (key, value) in map {
        out.push_str(&pad);
        out.push_str(&scalar_string(key, indent));
        out.push(':');
        write_nested(value, indent, indent + 2, out);
    }
}

fn write_seq(items: &[Value], indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    for item in items {
        out.push_str(&pad);
        out.push('-');
        match item {
            // The first key of a map item shares the dash's line.
            Value::Object(map) if !map.is_empty() => {
                let mut body = String::new();
                write_map(map, indent + 2, &mut body);
                out.push(' ');
                out.push_str(&body[indent + 2..]);
            }
            Value::Array(inner) if !inner.is_empty() => {
                let mut body = String::new();
                write_seq(inner, indent + 2, &mut body);
                out.push(' ');
                out.push_str(&body[indent + 2..]);
            }
            scalar => {
                out.push(' ');
                out.push_str(&inline(scalar, indent + 2));
                out.push('\n');
            }
        }
    }
}

/// The value after `key:`: nested collections on the next lines, scalars on this one.
/// Lists under a key start at the key's own indentation, maps two spaces deeper.
fn write_nested(value: &Value, key_indent: usize, child_indent: usize, out: &mut String) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('\n');
            write_map(map, child_indent, out);
        }
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            write_seq(items, key_indent, out);
        }
        scalar => {
            out.push(' ');
            out.push_str(&inline(scalar, child_indent));
            out.push('\n');
        }
    }
}

/// A scalar or empty collection on one line (a block scalar for multi-line text).
fn inline(value: &Value, indent: usize) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => scalar_string(s, indent),
        Value::Array(_) => "[]".to_string(),
        Value::Object(_) => "{}".to_string(),
    }
}

fn scalar_string(s: &str, indent: usize) -> String {
    if s.contains('\n') && literal_ok(s) {
        return literal_block(s, indent);
    }
    if needs_quotes(s) {
        // JSON string escapes are valid YAML double-quoted escapes.
        serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
    } else {
        s.to_string()
    }
}

/// Multi-line text as `|`, `|-` or `|+`, unless its layout cannot survive a literal block.
fn literal_ok(s: &str) -> bool {
    !s.starts_with([' ', '\t', '\n'])
        && s.chars().all(|c| c == '\n' || c == '\t' || !c.is_control())
        && s.lines().all(|l| !l.ends_with([' ', '\t']))
}

fn literal_block(s: &str, indent: usize) -> String {
    let chomp = if !s.ends_with('\n') {
        "-"
    } else if s.ends_with("\n\n") {
        "+"
    } else {
        ""
    };
    let pad = " ".repeat(indent);
    let mut out = format!("|{chomp}");
    for line in s.strip_suffix('\n').unwrap_or(s).split('\n') {
        out.push('\n');
        if !line.is_empty() {
            out.push_str(&pad);
            out.push_str(line);
        }
    }
    out
}

/// Words YAML 1.1 (go-yaml v2, which Kubernetes tools use) reads as booleans or null.
const YAML11_WORDS: &[&str] = &[
    "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false",
    "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL", "~",
];

fn needs_quotes(s: &str) -> bool {
    if s.is_empty() || YAML11_WORDS.contains(&s) || looks_numeric(s) {
        return true;
    }
    let mut chars = s.chars();
    let first = chars.next().unwrap_or(' ');
    let second = chars.next();
    let last = s.chars().last().unwrap_or(' ');
    // `-x` and `--flag` are plain; `- x`, `-` and a leading `[`, `*`, `&`... are syntax.
    let indicator = ",[]{}#&*!|>'\"%@`".contains(first)
        || "-?:".contains(first) && second.is_none_or(char::is_whitespace);
    indicator
        || first.is_whitespace()
        || last.is_whitespace()
        || s.contains(": ")
        || s.contains(" #")
        || s.ends_with(':')
        || s.chars().any(|c| c.is_control())
}

/// Numbers in any notation YAML 1.1 or 1.2 knows: `1`, `-1.5`, `1e3`, `0x1F`, `0o17`,
/// `1_000`, `.5`, `.inf`, `1:30` (sexagesimal).
fn looks_numeric(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if [".inf", ".Inf", ".INF", ".nan", ".NaN", ".NAN"].contains(&body) {
        return true;
    }
    if let Some(hex) = body.strip_prefix("0x") {
        return !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit() || c == '_');
    }
    if let Some(oct) = body.strip_prefix("0o") {
        return !oct.is_empty() && oct.chars().all(|c| c.is_digit(8));
    }
    body.chars().any(|c| c.is_ascii_digit())
        && body
            .chars()
            .all(|c| c.is_ascii_digit() || "._:eE+-".contains(c))
        && body.chars().filter(|c| *c == '.').count() <= 1
        && !body.ends_with(['e', 'E', '+', '-', ':', '_'])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn go_yaml_layout() {
        let value = json!({
            "replicaCount": 1,
            "image": {"repository": "nginx", "tag": ""},
            "imagePullSecrets": [],
            "podAnnotations": {},
            "hosts": [{"host": "a.local", "paths": [{"path": "/", "pathType": "Prefix"}]}],
            "args": ["--x", "y"],
            "nested": [[1, 2], []],
            "nothing": null
        });
        assert_eq!(
            to_block_yaml(&value, 0),
            "replicaCount: 1\nimage:\n  repository: nginx\n  tag: \"\"\nimagePullSecrets: []\npodAnnotations: {}\nhosts:\n- host: a.local\n  paths:\n  - path: /\n    pathType: Prefix\nargs:\n- --x\n- \"y\"\nnested:\n- - 1\n  - 2\n- []\nnothing: null\n"
        );
    }

    #[test]
    fn indentation_applies_to_every_line() {
        let value = json!({"a": {"b": [1]}});
        assert_eq!(to_block_yaml(&value, 2), "  a:\n    b:\n    - 1\n");
    }

    #[test]
    fn ambiguous_strings_are_double_quoted() {
        for s in [
            "", "yes", "on", "1.5", "80", "0x1F", "true", "null", "- x", "a: b", " x", "*x", "1e3",
        ] {
            let printed = to_block_yaml(&json!(s), 0);
            assert!(printed.starts_with('"'), "{s:?} printed as {printed}");
            let back: serde_json::Value = serde_yaml::from_str(&printed).unwrap();
            assert_eq!(back, json!(s), "{s:?} does not round-trip");
        }
        for s in [
            "nginx",
            "1.16.0",
            "/",
            "IfNotPresent",
            "chart-example.local",
            "v1.2.3",
            "--flag",
            "a:b",
            "http://x/y",
        ] {
            assert_eq!(to_block_yaml(&json!(s), 0), format!("{s}\n"));
        }
    }

    #[test]
    fn multi_line_text_is_a_literal_block_that_round_trips() {
        for s in ["a\nb", "a\nb\n", "a\n\nb\n\n", "key: x\n  nested: y\n"] {
            let value = json!({"text": s});
            let printed = to_block_yaml(&value, 0);
            assert!(printed.starts_with("text: |"), "{printed}");
            let back: serde_json::Value = serde_yaml::from_str(&printed).unwrap();
            assert_eq!(back, value, "{printed}");
        }
    }

    #[test]
    fn sorting_is_recursive() {
        let value = json!({"b": {"z": 1, "a": 2}, "a": [{"y": 1, "x": 2}]});
        assert_eq!(
            to_block_yaml(&sorted(&value), 0),
            "a:\n- x: 2\n  \"y\": 1\nb:\n  a: 2\n  z: 1\n"
        );
    }
}
