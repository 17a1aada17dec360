//! `.Files` methods (`Get`, `GetBytes`, `Glob`, `Lines`, `AsConfig`, `AsSecrets`) and
//! `.Capabilities.APIVersions.Has`, as functions taking the object (see engine::rewrite).
use std::collections::BTreeMap;
use std::sync::Arc;

use gotemplate::{FuncMap, Value};

use super::{add, arg, strval};
use crate::funcs::yaml_emit;

fn file_map(v: &Value) -> Option<Arc<BTreeMap<Arc<str>, Value>>> {
    match v {
        Value::Map(m) => Some(m.snapshot()),
        _ => None,
    }
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A file's bytes: text files are strings, binary files lists of byte values.
fn file_bytes(v: &Value) -> Vec<u8> {
    match v {
        Value::String(s) => s.as_bytes().to_vec(),
        Value::List(items) => items.iter().map(|b| super::int_arg(b) as u8).collect(),
        _ => Vec::new(),
    }
}

/// A file as Go's `string(bytes)` ends up in output (invalid UTF-8 replaced).
fn file_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        other => String::from_utf8_lossy(&file_bytes(other)).into_owned(),
    }
}

fn lookup(files: &Value, name: &Value) -> Option<Value> {
    file_map(files).and_then(|m| m.get(strval(name).as_str()).cloned())
}

fn as_yaml_map(files: &Value, encode: impl Fn(&Value) -> String) -> Value {
    let Some(m) = file_map(files).filter(|m| !m.is_empty()) else {
        return super::string("");
    };
    let out: BTreeMap<Arc<str>, Value> = m
        .iter()
        .map(|(k, v)| (Arc::from(base_name(k)), super::string(encode(v))))
        .collect();
    let yaml = yaml_emit::to_yaml(&Value::Map(gotemplate::MapRef::new(out)));
    super::string(yaml.strip_suffix('\n').unwrap_or(&yaml))
}

/// Standard base64 with padding.
pub(crate) fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

pub fn funcs() -> FuncMap {
    let mut m = FuncMap::new();
    add(&mut m, "helmFilesGet", |a| {
        Ok(super::string(
            lookup(arg(a, 0), arg(a, 1))
                .as_ref()
                .map(file_text)
                .unwrap_or_default(),
        ))
    });
    // `.Files.Get x | b64enc`, rewritten so binary files keep their bytes.
    add(&mut m, "helmFilesGetBase64", |a| {
        Ok(super::string(base64(
            &lookup(arg(a, 0), arg(a, 1))
                .as_ref()
                .map(file_bytes)
                .unwrap_or_default(),
        )))
    });
    add(&mut m, "helmFilesGetBytes", |a| {
        let bytes = lookup(arg(a, 0), arg(a, 1))
            .as_ref()
            .map(file_bytes)
            .unwrap_or_default();
        Ok(Value::List(
            bytes.iter().map(|b| Value::Int(i64::from(*b))).collect(),
        ))
    });
    add(&mut m, "helmFilesGlob", |a| {
        let pattern = strval(arg(a, 1));
        let picked: BTreeMap<Arc<str>, Value> = file_map(arg(a, 0))
            .map(|m| {
                m.iter()
                    .filter(|(k, _)| crate::glob::matches(&pattern, k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Value::Map(gotemplate::MapRef::new(picked)))
    });
    add(&mut m, "helmFilesLines", |a| {
        let Some(text) = lookup(arg(a, 0), arg(a, 1)).as_ref().map(file_text) else {
            return Ok(Value::List(Arc::from([])));
        };
        let text = text.strip_suffix('\n').unwrap_or(&text);
        Ok(Value::List(text.split('\n').map(super::string).collect()))
    });
    add(&mut m, "helmFilesAsConfig", |a| {
        Ok(as_yaml_map(arg(a, 0), file_text))
    });
    add(&mut m, "helmFilesAsSecrets", |a| {
        Ok(as_yaml_map(arg(a, 0), |v| base64(&file_bytes(v))))
    });
    add(&mut m, "helmAPIVersionsHas", |a| {
        let wanted = strval(arg(a, 1));
        Ok(Value::Bool(match arg(a, 0) {
            Value::List(l) => l.iter().any(|v| strval(v) == wanted),
            _ => false,
        }))
    });
    m
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
