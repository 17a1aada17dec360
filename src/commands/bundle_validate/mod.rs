//! `rusty-sdk bundle validate DIR`: an OLM bundle checked offline against the
//! operator-framework rules that `operator-sdk bundle validate` applies by default (the
//! bundle format of operator-registry, and the bundle, CSV and CRD validators of
//! operator-framework/api), plus what OLM itself refuses when it installs webhook
//! definitions. A bundle that passes here is one OLM can install; a finding is one line
//! naming the file, the field and what to do.
//!
//! `generate bundle` runs the same rules on the bundle it is about to write, and writes
//! nothing when one fails.
mod csv_rules;
mod dockerfile;
mod rules;

pub use rules::serves;

use std::path::Path;

use serde_json::Value;

use crate::cli::BundleValidateArgs;
use crate::error::{Error, Result};
use crate::scaffold::input;
use crate::session::Session;
use crate::yaml;

/// No real bundle comes near this many files in manifests/.
const MAX_FILES: usize = 1_000;
/// OLM stages a bundle in one ConfigMap: a file of more than this cannot be in one.
const MAX_FILE_BYTES: u64 = 8 << 20;

/// A bundle's files as the rules see them.
pub struct Bundle {
    /// The bundle's folder as findings name it (`bundle`).
    pub dir: String,
    /// metadata/annotations.yaml, if it could be read.
    pub annotations: Option<Document>,
    /// The objects of manifests/, one per file.
    pub manifests: Vec<Document>,
    /// The bundle image's Dockerfile, if one next to the bundle copies its metadata.
    pub dockerfile: Option<Dockerfile>,
    /// What the bundle's files take as OLM stores them ([`staged_size`] of each), if known.
    pub staged_bytes: Option<u64>,
}

/// How many bytes `bytes` take gzipped and then base64-encoded, as OLM keeps each file of a
/// bundle in the one ConfigMap it unpacks the bundle into (operator-framework/api sums the
/// same for its size check).
pub fn staged_size(bytes: &[u8]) -> u64 {
    use std::io::Write as _;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let gzipped = gz
        .write_all(bytes)
        .and_then(|()| gz.finish())
        .map_or(bytes.len(), |g| g.len());
    4 * (gzipped as u64).div_ceil(3)
}

/// The sum of [`staged_size`] over the regular files under `dir` (symlinks not followed,
/// at most [`MAX_FILES`] files a few folders deep, as a bundle is).
fn staged_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    let mut files = 0;
    let mut folders = vec![(dir.to_path_buf(), 0)];
    while let Some((folder, depth)) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.filter_map(std::result::Result::ok) {
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            if meta.is_dir() && depth < 4 {
                folders.push((entry.path(), depth + 1));
            } else if meta.is_file() && meta.len() <= MAX_FILE_BYTES && files < MAX_FILES {
                files += 1;
                if let Ok(bytes) = input::read_file(&entry.path(), MAX_FILE_BYTES) {
                    total += staged_size(&bytes);
                }
            }
        }
    }
    total
}

/// A bundle image's Dockerfile: its labels, which registries and `opm` read where OLM
/// reads metadata/annotations.yaml, so the two must agree.
pub struct Dockerfile {
    pub file: String,
    pub labels: Vec<(String, String)>,
}

/// The first object of a file, and how many YAML documents the file holds (OLM reads
/// only the first).
pub struct Document {
    pub file: String,
    pub object: Value,
    pub documents: usize,
}

impl Document {
    pub fn kind(&self) -> &str {
        self.object["kind"].as_str().unwrap_or_default()
    }

    pub fn name(&self) -> &str {
        self.object
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// One broken rule: the file, the field in it, and what is wrong and what to do.
#[derive(Debug, Clone)]
pub struct Finding {
    pub severity: Severity,
    pub file: String,
    pub field: String,
    pub message: String,
}

/// One line whatever the bundle holds: a line break or another control character in a
/// file name or a value is shown escaped.
impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let line = if self.field.is_empty() {
            format!("{}: {}", self.file, self.message)
        } else {
            format!("{}: {}: {}", self.file, self.field, self.message)
        };
        for c in line.chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_default())?;
            } else {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

/// Collects the findings of the rules.
#[derive(Default)]
pub struct Findings(pub Vec<Finding>);

impl Findings {
    pub fn error(&mut self, file: &str, field: &str, message: impl Into<String>) {
        self.push(Severity::Error, file, field, message.into());
    }

    pub fn warn(&mut self, file: &str, field: &str, message: impl Into<String>) {
        self.push(Severity::Warning, file, field, message.into());
    }

    fn push(&mut self, severity: Severity, file: &str, field: &str, message: String) {
        self.0.push(Finding {
            severity,
            file: file.to_string(),
            field: field.to_string(),
            message,
        });
    }

    pub fn errors(&self) -> impl Iterator<Item = &Finding> {
        self.0.iter().filter(|f| f.severity == Severity::Error)
    }
}

/// Every finding of the rules on `bundle`.
pub fn check(bundle: &Bundle) -> Findings {
    let mut findings = Findings::default();
    rules::check(bundle, &mut findings);
    findings
}

pub fn run(session: &Session, args: &BundleValidateArgs) -> Result<()> {
    let shown = args.dir.to_string_lossy().trim_end_matches('/').to_string();
    let shown = if shown.is_empty() { "/".into() } else { shown };
    let dir = session.root.join(&args.dir);
    let mut findings = Findings::default();
    let bundle = read(&session.root, &dir, &shown, &mut findings)?;
    rules::check(&bundle, &mut findings);
    for finding in &findings.0 {
        match finding.severity {
            Severity::Error => session.shell.error(&finding.to_string()),
            Severity::Warning => session.shell.warn(&finding.to_string()),
        }
    }
    let errors = findings.errors().count();
    if errors > 0 {
        return Err(Error::invalid(format!(
            "{shown}: {errors} error(s) by OLM's rules, listed above; OLM would not install this bundle"
        )));
    }
    let csv = bundle
        .manifests
        .iter()
        .find(|d| d.kind() == "ClusterServiceVersion")
        .map_or("", Document::name);
    session.shell.note(&format!(
        "{shown}: {csv} passes OLM's checks ({} manifests)",
        bundle.manifests.len()
    ));
    Ok(())
}

/// The bundle in `dir` (shown as `shown`) of the project at `root`; what cannot be read is a
/// finding, and only a missing folder an error.
fn read(root: &Path, dir: &Path, shown: &str, findings: &mut Findings) -> Result<Bundle> {
    if !dir.is_dir() {
        return Err(Error::invalid(format!(
            "{}: no such folder; pass the bundle's folder (`make bundle` writes bundle/)",
            crate::model::names::shown(shown)
        )));
    }
    let mut bundle = Bundle {
        dir: shown.to_string(),
        annotations: None,
        manifests: Vec::new(),
        dockerfile: dockerfile::find(root, dir, shown, findings),
        staged_bytes: Some(staged_bytes(dir)),
    };
    let annotations = format!("{shown}/metadata/annotations.yaml");
    if dir.join("metadata").is_dir() {
        bundle.annotations = read_document(&dir.join("metadata/annotations.yaml"), &annotations)
            .unwrap_or_else(|why| {
                findings.error(&annotations, "", format!("{why}; `make bundle` writes it"));
                None
            });
    } else {
        findings.error(
            &format!("{shown}/metadata"),
            "",
            "no metadata folder; a bundle has metadata/annotations.yaml (`make bundle` writes it)",
        );
    }
    let manifests = dir.join("manifests");
    let Ok(entries) = std::fs::read_dir(&manifests) else {
        findings.error(
            &format!("{shown}/manifests"),
            "",
            "no manifests folder; a bundle keeps its CSV and CRDs in manifests/ (`make bundle` writes it)",
        );
        return Ok(bundle);
    };
    let mut names: Vec<String> = entries
        .filter_map(std::result::Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    if names.len() > MAX_FILES {
        return Err(Error::invalid(format!(
            "{shown}/manifests: {} files, more than the {MAX_FILES} a bundle may have; is it the right folder?",
            names.len()
        )));
    }
    for name in names {
        let file = format!("{shown}/manifests/{name}");
        if manifests.join(&name).is_dir() {
            findings.error(
                &file,
                "",
                "a folder, but OLM reads only the files of manifests/; move it out",
            );
            continue;
        }
        match read_document(&manifests.join(&name), &file) {
            Ok(Some(document)) => bundle.manifests.push(document),
            Ok(None) => findings.warn(&file, "", "holds no object; remove it"),
            Err(why) => findings.error(&file, "", format!("{why}; fix or remove the file")),
        }
    }
    Ok(bundle)
}

/// The first object of the YAML file at `path`; None for a file without one.
fn read_document(path: &Path, shown: &str) -> std::result::Result<Option<Document>, String> {
    let text = input::read_text(path, MAX_FILE_BYTES).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "missing".to_string(),
        _ => format!("cannot be read ({e})"),
    })?;
    let documents: Vec<yaml::Value> =
        yaml::documents(&text, MAX_FILES).map_err(|e| format!("not valid YAML ({e})"))?;
    let documents: Vec<yaml::Value> = documents.into_iter().filter(|d| !d.is_null()).collect();
    let count = documents.len();
    let Some(first) = documents.into_iter().next() else {
        return Ok(None);
    };
    let object = serde_json::to_value(first).map_err(|e| format!("not an object ({e})"))?;
    if !object.is_object() {
        return Err("not a YAML mapping".into());
    }
    Ok(Some(Document {
        file: shown.to_string(),
        object,
        documents: count,
    }))
}
