//! Errors as Helm's validator words and nests them, and the value helpers their
//! messages use.

use std::fmt::Write as _;

use serde_json::Value;

/// One error: where, what, and the errors under it.
pub(super) struct Failure {
    pub(super) at: String,
    pub(super) message: String,
    pub(super) causes: Vec<Failure>,
    /// Several errors of one schema together ("validation failed").
    pub(super) group: bool,
}

impl Failure {
    pub(super) fn new(path: &[String], message: impl Into<String>) -> Failure {
        Failure {
            at: pointer(path),
            message: message.into(),
            causes: Vec::new(),
            group: false,
        }
    }

    /// The failure of a schema reached through `$ref` (or `$dynamicRef`,
    /// `$recursiveRef`): several errors stay together under the reference, even at the
    /// top, where a plain group is listed error by error.
    pub(super) fn referenced(self) -> Failure {
        Failure {
            group: false,
            ..self
        }
    }

    pub(super) fn with_causes(mut self, causes: Vec<Failure>) -> Failure {
        self.causes = causes;
        self
    }

    /// `at '<path>': <message>` with the causes below it, each indented one step more.
    pub(super) fn render(&self) -> String {
        let mut out = format!("at {}: {}", quote(&self.at), self.message);
        for cause in &self.causes {
            for (i, line) in cause.render().lines().enumerate() {
                out.push_str("\n  ");
                if i == 0 {
                    out.push_str("- ");
                }
                out.push_str(line);
            }
        }
        out
    }
}

/// A JSON pointer: `/a/b`, with `~` and `/` escaped.
pub(super) fn pointer(path: &[String]) -> String {
    path.iter().fold(String::new(), |mut out, p| {
        let _ = write!(out, "/{}", p.replace('~', "~0").replace('/', "~1"));
        out
    })
}

/// A string as Helm's validator quotes it: Go's `%q`, with `"` left bare and `'`
/// escaped, in single quotes.
pub(super) fn quote(s: &str) -> String {
    // The replacements run over the whole literal, closing quote included, as the
    // validator's do: so a trailing backslash (`"\\"`) loses its escape.
    let go = gotemplate::fmt::quote(s).replace("\\\"", "\"");
    let inner = &go[1..go.len() - 1];
    format!("'{}'", inner.replace('\'', "\\'"))
}

pub(super) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n)
            if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0) =>
        {
            "integer"
        }
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The kind named in messages ("number" for every number, as Helm's validator says).
pub(super) fn got_kind(v: &Value) -> &'static str {
    match kind(v) {
        "integer" => "number",
        other => other,
    }
}

/// A value in a message: strings quoted, lists and maps as "value", the rest as JSON.
pub(super) fn display(v: &Value) -> String {
    match v {
        Value::String(s) => quote(s),
        Value::Array(_) | Value::Object(_) => "value".into(),
        other => other.to_string(),
    }
}

pub(super) fn number(v: &Value) -> String {
    v.to_string()
}

pub(super) fn type_matches(want: &str, v: &Value) -> bool {
    let got = kind(v);
    got == want || (want == "number" && got == "integer")
}

/// JSON equality with numbers compared by value (1 equals 1.0).
pub(super) fn equals(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(item, other)| equals(item, other))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| equals(v, w)))
        }
        _ => left == right,
    }
}

/// A schema `pattern` as a regex (Go's RE2 syntax), or None when it does not compile.
pub(super) fn regex(pattern: &str) -> Option<regex::Regex> {
    crate::re2::translate(pattern)
        .ok()
        .and_then(|p| regex::Regex::new(&p).ok())
}

/// The first item equal to an earlier one, as `(earlier, later)`: the pair Helm's
/// validator names (the earliest item the first repeat equals). In linear time: items
/// are compared by a canonical text (numbers by value, object keys sorted).
pub(super) fn first_repeat(items: &[Value]) -> Option<(usize, usize)> {
    let mut seen = std::collections::HashMap::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let mut key = String::new();
        canonical(item, &mut key);
        if let Some(&j) = seen.get(&key) {
            return Some((j, i));
        }
        seen.insert(key, i);
    }
    None
}

/// A value's text in which equal values (by [`equals`]) read the same.
fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => write!(out, "n{i}").unwrap_or_default(),
            (_, Some(u), _) => write!(out, "n{u}").unwrap_or_default(),
            (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < 9.2e18 => {
                #[expect(
                    clippy::cast_possible_truncation,
                    reason = "a whole number below 2^63 in magnitude converts exactly"
                )]
                let whole = f as i64;
                write!(out, "n{whole}").unwrap_or_default();
            }
            (_, _, f) => write!(out, "n{}", f.unwrap_or(f64::NAN)).unwrap_or_default(),
        },
        Value::Array(items) => {
            out.push('[');
            for item in items {
                canonical(item, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            out.push('{');
            for k in keys {
                write!(out, "{k:?}:").unwrap_or_default();
                canonical(&map[k.as_str()], out);
                out.push(',');
            }
            out.push('}');
        }
        other => write!(out, "{other}").unwrap_or_default(),
    }
}

/// A count keyword's value (minLength, maxItems, ...): a whole number, also when written
/// as a float (`2.0`).
#[expect(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "u64::MAX as f64 is 2^64, the bound; a whole float in [0, 2^64) converts exactly"
)]
pub(super) fn count(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < u64::MAX as f64)
            .map(|f| f as u64)
    })
}

/// `n` is a whole multiple of `m` (exactly for integers, to float precision otherwise).
pub(super) fn is_multiple(n: &Value, m: &Value) -> bool {
    if let (Some(a), Some(b)) = (n.as_i64(), m.as_i64()) {
        return b == 0 || a % b == 0;
    }
    match (n.as_f64(), m.as_f64()) {
        (Some(a), Some(b)) if b != 0.0 => {
            let quotient = a / b;
            (quotient - quotient.round()).abs() <= 1e-9 * quotient.abs().max(1.0)
        }
        _ => true,
    }
}
