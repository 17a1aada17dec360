//! The objects of a kustomize build (dist/install.yaml, or `kubectl kustomize
//! config/manifests` on stdin), read with the bounds every input gets.
use std::io::Read;
use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::yaml;

/// More objects than this are refused (a real operator has a few dozen).
const MAX_OBJECTS: usize = 2_000;
/// Larger input is refused.
const MAX_BYTES: u64 = 32 << 20;

/// One object, with its kind and name at hand.
pub struct Object {
    pub kind: String,
    pub name: String,
    #[expect(
        clippy::struct_field_names,
        reason = "the object itself, beside its kind and name"
    )]
    pub object: Value,
}

/// The objects of the file at `path`, named `shown` in messages.
pub fn read_file(path: &Path, shown: &str) -> Result<Vec<Object>> {
    let missing = || {
        Error::invalid(format!(
            "{shown} not found; run `make build-installer` first (it writes the CRDs, RBAC and manager from config/default), or pass --manifests"
        ))
    };
    let size = std::fs::metadata(path).map_err(|_| missing())?.len();
    if size > MAX_BYTES {
        return Err(Error::invalid(format!(
            "{shown}: {size} bytes, more than the {MAX_BYTES} a kustomize output may have"
        )));
    }
    let text = crate::scaffold::input::read_named_text(path, MAX_BYTES)
        .map_err(|e| Error::invalid(format!("{shown}: cannot read it as text ({e})")))?;
    parse(&text, shown)
}

/// The objects of the YAML files (`.yaml`, `.yml`, `.json`) of the folder at `path`, in
/// name order, or of the file at `path`; named `shown` in messages.
pub fn read_dir(path: &Path, shown: &str) -> Result<Vec<Object>> {
    if !path.exists() {
        return Err(Error::invalid(format!(
            "{shown} not found; pass the folder (or file) of the operator's manifests, e.g. what `kubectl kustomize config/manifests` prints"
        )));
    }
    if !path.is_dir() {
        return read_file(path, shown);
    }
    let entries = std::fs::read_dir(path)
        .map_err(|e| Error::invalid(format!("{shown}: cannot list it ({e})")))?;
    let mut files: Vec<_> = entries
        .filter_map(std::result::Result::ok)
        .map(|entry| entry.path())
        .filter(|file| {
            file.is_file()
                && file
                    .extension()
                    .is_some_and(|ext| ext == "yaml" || ext == "yml" || ext == "json")
        })
        .collect();
    files.sort();
    let mut objects = Vec::new();
    let mut total = 0;
    for file in &files {
        total += std::fs::metadata(file).map_or(0, |m| m.len());
        if total > MAX_BYTES {
            return Err(Error::invalid(format!(
                "{shown}: its files hold more than the {MAX_BYTES} bytes a kustomize output may have"
            )));
        }
        let name = format!(
            "{shown}/{}",
            file.file_name().unwrap_or_default().to_string_lossy()
        );
        objects.extend(read_file(file, &name)?);
    }
    if objects.is_empty() {
        return Err(Error::invalid(format!(
            "{shown} holds no .yaml, .yml or .json files; pass the folder of the operator's manifests"
        )));
    }
    Ok(objects)
}

/// The objects of standard input, named `shown` in messages.
pub fn read_stdin(shown: &str) -> Result<Vec<Object>> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::invalid(format!("{shown}: cannot read it ({e})")))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(Error::invalid(format!(
            "{shown}: more than the {MAX_BYTES} bytes a kustomize output may have"
        )));
    }
    let text =
        String::from_utf8(bytes).map_err(|_| Error::invalid(format!("{shown}: not UTF-8 text")))?;
    parse(&text, shown)
}

pub fn parse(text: &str, shown: &str) -> Result<Vec<Object>> {
    let documents: Vec<yaml::Value> = yaml::documents(text, MAX_OBJECTS)
        .map_err(|e| Error::invalid(format!("{shown}: not valid YAML: {e}")))?;
    let mut out = Vec::new();
    for document in documents.into_iter().filter(|d| !d.is_null()) {
        let object =
            serde_json::to_value(&document).map_err(|e| Error::invalid(format!("{shown}: {e}")))?;
        let field = |pointer: &str| {
            object
                .pointer(pointer)
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let (Some(kind), Some(name)) = (field("/kind"), field("/metadata/name")) else {
            return Err(Error::invalid(format!(
                "{shown}: a document without kind or metadata.name; is it kustomize's output?"
            )));
        };
        // Kubernetes refuses such names, and they become file names here.
        if name.contains(['/', '%', '\0']) || name == "." || name == ".." || name.len() > 253 {
            return Err(Error::invalid(format!(
                "{shown}: the {kind} named {} cannot be a Kubernetes object (a name has no '/', '%', and is not '.' or '..'); is it kustomize's output?",
                crate::model::names::shown(&name)
            )));
        }
        out.push(Object { kind, name, object });
    }
    if out.is_empty() {
        return Err(Error::invalid(format!(
            "{shown} holds no objects; build it with kustomize first"
        )));
    }
    Ok(out)
}
