//! What Helm's `files` methods compute (`.Files.Get`, `GetBytes`, `Glob`, `Lines`,
//! `AsConfig`, `AsSecrets`); the engine's `.Files` object calls these.
use std::collections::BTreeMap;
use std::sync::Arc;

use gotemplate::{MapRef, Value};

use crate::funcs::yaml_emit;

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A file's bytes: `.Files` holds each file as a Go `[]byte` (see
/// [`crate::engine::objects::files_object`]); a string or a list of byte values (what
/// a template may put in a map it passes along) are read as bytes too.
pub(crate) fn bytes(v: Option<&Value>) -> Vec<u8> {
    match v {
        Some(Value::Object(o)) => o.as_bytes().map(<[u8]>::to_vec).unwrap_or_default(),
        Some(Value::String(s)) => s.as_bytes().to_vec(),
        Some(Value::List(items)) => items
            .iter()
            // Go's byte(n): the low eight bits.
            .map(|b| super::int_arg(b).to_le_bytes()[0])
            .collect(),
        _ => Vec::new(),
    }
}

/// A file as Go's `string(bytes)` ends up in output (invalid UTF-8 replaced).
pub(crate) fn text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.to_string(),
        other => String::from_utf8_lossy(&bytes(other)).into_owned(),
    }
}

/// The files whose path matches `pattern` (gobwas/glob with `/` as separator).
pub(crate) fn glob(files: &MapRef, pattern: &str) -> MapRef {
    MapRef::new(
        files
            .snapshot()
            .iter()
            .filter(|(k, _)| crate::glob::matches(pattern, k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    )
}

/// Lines of a file without its final newline; none for a missing file.
pub(crate) fn lines(v: Option<&Value>) -> Value {
    if v.is_none() {
        return Value::List(Arc::from([]));
    }
    let text = text(v);
    let text = text.strip_suffix('\n').unwrap_or(&text);
    Value::List(text.split('\n').map(super::string).collect())
}

fn as_yaml_map(files: &MapRef, encode: impl Fn(&Value) -> String) -> Value {
    let entries = files.snapshot();
    let out: BTreeMap<Arc<str>, Value> = entries
        .iter()
        .map(|(k, v)| (Arc::from(base_name(k)), super::string(encode(v))))
        .collect();
    let yaml = yaml_emit::to_yaml(&Value::Map(MapRef::new(out)));
    super::string(yaml.strip_suffix('\n').unwrap_or(&yaml))
}

pub(crate) fn as_config(files: &MapRef) -> Value {
    as_yaml_map(files, |v| text(Some(v)))
}

pub(crate) fn as_secrets(files: &MapRef) -> Value {
    as_yaml_map(files, |v| base64(&bytes(Some(v))))
}

/// Standard base64 with padding.
pub(crate) fn base64(data: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(data)
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_pads_like_go() {
        assert_eq!(super::base64(b"a"), "YQ==");
        assert_eq!(super::base64(b"ab"), "YWI=");
        assert_eq!(super::base64(b"abc"), "YWJj");
    }
}
