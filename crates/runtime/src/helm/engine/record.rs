//! A release as Helm 4 stores it (helm.sh/helm/v4 pkg/release/v1 and pkg/chart/v2): the
//! JSON of `Release`, gzipped at best compression and base64-encoded by the storage
//! drivers. The types keep Helm's field names, order and omission rules, and encoding
//! writes JSON the way Go's `encoding/json` does (map keys sorted, `<`, `>`, `&` escaped,
//! floats in Go's notation, times in RFC 3339 with trimmed nanoseconds), so a record the
//! `helm` CLI wrote decodes and re-encodes to the same JSON, and the CLI reads ours.
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use base64::Engine;
use flate2::Compression;
use flate2::write::GzEncoder;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use time::OffsetDateTime;

use super::super::release::{Release, ReleaseStatus};

/// Why a release record could not be read or written.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RecordError {
    #[error("{0}")]
    Stored(String),
    #[error("release is not Helm release JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("cannot compress the release: {0}")]
    Compress(#[from] std::io::Error),
    #[error("time {0} cannot be written as RFC 3339 (Go's time.Time refuses years outside 0-9999)")]
    Time(String),
    #[error("chart {path}: cannot read {file}: {reason}")]
    ChartFile {
        path: String,
        file: String,
        reason: String,
    },
}

/// One revision of a release (Helm's `release.Release`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct ReleaseRecord {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<Info>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart: Option<ChartRecord>,
    /// The values the user supplied (not the chart's defaults).
    #[serde(
        default,
        deserialize_with = "null_as_empty",
        skip_serializing_if = "Map::is_empty",
        serialize_with = "sorted_map"
    )]
    pub config: Map<String, Value>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub manifest: String,
    #[serde(
        default,
        deserialize_with = "null_as_empty",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub hooks: Vec<HookRecord>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub version: u32,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// The release's own labels, kept on the storage object, not in the JSON (Helm's
    /// `json:"-"`); never the storage driver's `name`, `owner`, `status`, `version`,
    /// `createdAt` or `modifiedAt`.
    #[serde(skip)]
    pub labels: BTreeMap<String, String>,
    /// `ssa` (server-side apply) or `csa` (client-side three-way merge); empty in records
    /// Helm 3 wrote, which Helm 4 treats as `csa` (see `apply::ApplyMethod`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub apply_method: String,
}

/// `release.Info`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Info {
    #[serde(default, skip_serializing_if = "GoTime::is_zero")]
    pub first_deployed: GoTime,
    #[serde(default, skip_serializing_if = "GoTime::is_zero")]
    pub last_deployed: GoTime,
    #[serde(default, skip_serializing_if = "GoTime::is_zero")]
    pub deleted: GoTime,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// `deployed`, `pending-upgrade`, ... (Helm's spelling).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub status: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub notes: String,
    /// Only filled by `helm status --show-resources`; kept as read.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "sorted_option"
    )]
    pub resources: Option<Value>,
}

/// `release.Hook`: a rendered hook and its last run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct HookRecord {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// The template it came from, `<chart>/templates/<file>`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub path: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub manifest: String,
    #[serde(
        default,
        deserialize_with = "null_as_empty",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub events: Vec<String>,
    #[serde(default)]
    pub last_run: HookExecution,
    #[serde(default, skip_serializing_if = "is_zero_i64")]
    pub weight: i64,
    #[serde(
        default,
        deserialize_with = "null_as_empty",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub delete_policies: Vec<String>,
    #[serde(
        default,
        deserialize_with = "null_as_empty",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub output_log_policies: Vec<String>,
}

/// `release.HookExecution`; `phase` is written even when empty (a hook never run).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct HookExecution {
    #[serde(default, skip_serializing_if = "GoTime::is_zero")]
    pub started_at: GoTime,
    #[serde(default, skip_serializing_if = "GoTime::is_zero")]
    pub completed_at: GoTime,
    #[serde(default)]
    pub phase: String,
}

/// `chart.Chart` as it is serialized: the chart's own files, no subcharts (Helm keeps
/// those in an unexported field).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct ChartRecord {
    #[serde(default)]
    pub metadata: Option<Metadata>,
    #[serde(default)]
    pub lock: Option<Lock>,
    #[serde(default)]
    pub templates: Option<Vec<FileRecord>>,
    /// values.yaml as loaded (`null` when the chart has none).
    #[serde(default, serialize_with = "sorted_option_map")]
    pub values: Option<Map<String, Value>>,
    /// values.schema.json, byte for byte.
    #[serde(default, with = "bytes_option")]
    pub schema: Option<Vec<u8>>,
    #[serde(default)]
    pub schemamodtime: GoTime,
    #[serde(default)]
    pub files: Option<Vec<FileRecord>>,
    /// The modification time of Chart.yaml.
    #[serde(default, skip_serializing_if = "GoTime::is_zero")]
    pub modtime: GoTime,
}

/// `common.File`: a chart-relative name and its bytes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct FileRecord {
    #[serde(default)]
    pub name: String,
    #[serde(default, with = "bytes_option")]
    pub data: Option<Vec<u8>>,
    #[serde(default, skip_serializing_if = "GoTime::is_zero")]
    pub modtime: GoTime,
}

/// `chart.Metadata`: Chart.yaml.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Metadata {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub home: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub maintainers: Vec<Maintainer>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub icon: String,
    #[serde(
        default,
        rename = "apiVersion",
        skip_serializing_if = "String::is_empty"
    )]
    pub api_version: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub condition: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tags: String,
    #[serde(
        default,
        rename = "appVersion",
        skip_serializing_if = "String::is_empty"
    )]
    pub app_version: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub deprecated: bool,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    #[serde(
        default,
        rename = "kubeVersion",
        skip_serializing_if = "String::is_empty"
    )]
    pub kube_version: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<Dependency>,
    #[serde(default, rename = "type", skip_serializing_if = "String::is_empty")]
    pub chart_type: String,
}

/// `chart.Maintainer`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Maintainer {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub email: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub url: String,
}

/// `chart.Dependency` (Chart.yaml `dependencies`, Chart.lock).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Dependency {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    #[serde(default)]
    pub repository: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub condition: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub enabled: bool,
    #[serde(
        default,
        rename = "import-values",
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "sorted_seq"
    )]
    pub import_values: Vec<Value>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub alias: String,
}

/// `chart.Lock`: Chart.lock (or requirements.lock).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Lock {
    #[serde(default)]
    pub generated: GoTime,
    #[serde(default)]
    pub digest: String,
    #[serde(default)]
    pub dependencies: Option<Vec<Dependency>>,
}

impl ReleaseRecord {
    /// The name of its storage object, `sh.helm.release.v1.<name>.v<version>`.
    pub fn storage_key(&self) -> String {
        storage_key(&self.name, self.version)
    }

    /// `info.status`, empty when the record has no info.
    pub fn status(&self) -> &str {
        self.info.as_ref().map_or("", |i| i.status.as_str())
    }

    /// The JSON Helm stores, written as Go's `encoding/json` writes it.
    pub fn to_json(&self) -> Result<String, RecordError> {
        let mut out = Vec::new();
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, GoFormatter);
        self.serialize(&mut serializer)?;
        // The formatter writes only what serde_json hands it (valid UTF-8) and ASCII escapes.
        String::from_utf8(out).map_err(|e| RecordError::Stored(e.to_string()))
    }

    /// What the storage drivers keep under `release`: base64 of the JSON gzipped at best
    /// compression (Helm's `encodeRelease`).
    pub fn encode(&self) -> Result<String, RecordError> {
        let json = self.to_json()?;
        let mut gz = GzEncoder::new(Vec::new(), Compression::best());
        gz.write_all(json.as_bytes())?;
        Ok(base64::engine::general_purpose::STANDARD.encode(gz.finish()?))
    }

    /// Read what a storage driver keeps under `release`: base64 of the JSON, gzipped or
    /// not (Helm's `decodeRelease`), within the bound the reconciler's reader applies.
    pub fn decode(stored: &[u8]) -> Result<ReleaseRecord, RecordError> {
        let json = super::super::release_store::unpack(stored).map_err(RecordError::Stored)?;
        Ok(serde_json::from_slice(&json)?)
    }

    /// The revision as the reconciler sees it.
    pub fn to_release(&self) -> Release {
        let info = self.info.clone().unwrap_or_default();
        let metadata = self
            .chart
            .as_ref()
            .and_then(|c| c.metadata.as_ref())
            .cloned()
            .unwrap_or_default();
        let chart = match (metadata.name.is_empty(), metadata.version.is_empty()) {
            (false, false) => format!("{}-{}", metadata.name, metadata.version),
            _ => metadata.name,
        };
        let status = serde_json::from_value::<ReleaseStatus>(Value::String(info.status))
            .unwrap_or(ReleaseStatus::Unknown);
        // An uninstall changes the revision when it starts, and Helm records that start
        // in `deleted`, not in `last_deployed` (which stays the deploy's).
        let changed = match status {
            ReleaseStatus::Uninstalling if !info.deleted.is_zero() => &info.deleted,
            _ => &info.last_deployed,
        };
        let last_changed = (!changed.is_zero()).then(|| std::time::SystemTime::from(changed.0));
        Release {
            name: self.name.clone(),
            namespace: self.namespace.clone(),
            version: self.version,
            status,
            manifest: self.manifest.clone(),
            notes: info.notes,
            description: info.description,
            chart,
            app_version: metadata.app_version,
            last_changed,
            labels: self.labels.clone(),
        }
    }
}

impl From<&ReleaseRecord> for Release {
    fn from(record: &ReleaseRecord) -> Self {
        record.to_release()
    }
}

/// The name of the storage object of one revision.
pub(crate) fn storage_key(name: &str, version: u32) -> String {
    format!("sh.helm.release.v1.{name}.v{version}")
}

// ---------------------------------------------------------------------------------------
// The chart as Helm's loader records it.

impl ChartRecord {
    /// The chart as Helm's loader builds it from the same directory or archive: every file
    /// .helmignore keeps, classified as Helm classifies it (Chart.yaml into `metadata`,
    /// Chart.lock into `lock`, values.yaml into `values`, values.schema.json byte for byte
    /// into `schema`, `templates/` into `templates`, the rest but subcharts into `files`),
    /// in the order Helm reads them, with each file's modification time.
    ///
    /// The chart is read again from [`rusty_sdk_chart::Chart::source`], because the
    /// template engine's model keeps neither times nor the raw schema and lock.
    pub fn from_chart(chart: &rusty_sdk_chart::Chart) -> Result<ChartRecord, RecordError> {
        let source = chart.source();
        let files = if source.is_dir() {
            dir_files(source)?
        } else {
            archive_files(source)?
        };
        Self::from_files(chart, files)
    }

    /// The record as Helm stores it for one install or upgrade of a chart that declares
    /// dependencies: Helm records the chart after `ProcessDependencies` with the user's
    /// `values`, so disabled dependencies are gone, the others are named by their alias
    /// and marked `enabled`, `import-values` are written as `{child, parent}`, and
    /// `values` are the chart's merged with its subcharts' and the imported ones (nulls
    /// of the chart's own values.yaml kept, as Helm 4's merge keeps them). A chart
    /// without dependencies is recorded as loaded.
    pub fn with_dependencies(&self, chart: &rusty_sdk_chart::Chart, values: &Value) -> ChartRecord {
        if chart.metadata().dependencies.is_empty() {
            return self.clone();
        }
        let processed = rusty_sdk_chart::process_dependencies(chart, values);
        let mut record = self.clone();
        let mut merged = processed.values().as_object().cloned().unwrap_or_default();
        if let Some(own) = &self.values {
            keep_nulls(&mut merged, own);
        }
        keep_subchart_nulls(&mut merged, &processed);
        record.values = Some(merged);
        if let Some(metadata) = record.metadata.as_mut() {
            metadata.dependencies = processed
                .metadata()
                .dependencies
                .iter()
                .map(|d| Dependency {
                    enabled: true,
                    import_values: d.import_values.iter().filter_map(import_value).collect(),
                    ..Dependency::from(d)
                })
                .collect();
        }
        record
    }

    fn from_files(
        chart: &rusty_sdk_chart::Chart,
        files: Vec<FileRecord>,
    ) -> Result<ChartRecord, RecordError> {
        let source = chart.source().display().to_string();
        let mut record = ChartRecord {
            metadata: Some(Metadata::from(chart.metadata())),
            ..ChartRecord::default()
        };
        let v1 = chart.metadata().api_version == "v1";
        for mut file in files {
            // Helm drops a UTF-8 byte order mark from every file it reads.
            if let Some(data) = file.data.as_mut().filter(|d| d.starts_with(UTF8_BOM)) {
                data.drain(..UTF8_BOM.len());
            }
            let bytes = file.data.as_deref().unwrap_or_default();
            match file.name.as_str() {
                "Chart.yaml" => record.modtime = file.modtime,
                "Chart.lock" | "requirements.lock" => {
                    record.lock =
                        Some(parse_lock(bytes).map_err(|reason| RecordError::ChartFile {
                            path: source.clone(),
                            file: file.name.clone(),
                            reason,
                        })?);
                    if v1 && file.name == "requirements.lock" {
                        record.files.get_or_insert_default().push(file);
                    }
                }
                // The template engine parsed it as Helm does; only the key order differs,
                // and encoding sorts keys as Go does.
                "values.yaml" => {
                    record.values = Some(chart.values().as_object().cloned().unwrap_or_default());
                }
                "values.schema.json" => {
                    record.schema = file.data;
                    record.schemamodtime = file.modtime;
                }
                "requirements.yaml" => {
                    if v1 {
                        record.files.get_or_insert_default().push(file);
                    }
                }
                name if name.starts_with("templates/") => {
                    record.templates.get_or_insert_default().push(file);
                }
                #[expect(
                    clippy::case_sensitive_file_extension_comparisons,
                    reason = "as Helm compares"
                )]
                name if name.starts_with("charts/") && !name.ends_with(".prov") => {}
                _ => record.files.get_or_insert_default().push(file),
            }
        }
        Ok(record)
    }
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The files of a chart directory, as Helm's directory loader walks them: each folder's
/// entries in name order, depth first (so `a/b` comes before `a-c`).
fn dir_files(dir: &Path) -> Result<Vec<FileRecord>, RecordError> {
    let error = |file: &str, reason: String| RecordError::ChartFile {
        path: dir.display().to_string(),
        file: file.to_string(),
        reason,
    };
    let mut files =
        rusty_sdk_chart::Chart::dir_files(dir).map_err(|e| error(".", e.to_string()))?;
    files.sort_by(|a, b| a.name.split('/').cmp(b.name.split('/')));
    files
        .into_iter()
        .map(|file| {
            let modified = std::fs::metadata(dir.join(&file.name))
                .and_then(|m| m.modified())
                .map_err(|e| error(&file.name, e.to_string()))?;
            Ok(FileRecord {
                data: Some(file.data),
                modtime: GoTime(OffsetDateTime::from(modified)),
                name: file.name,
            })
        })
        .collect()
}

/// The files of a chart archive in archive order, with the times of their tar headers,
/// as Helm's archive loader reads them.
fn archive_files(path: &Path) -> Result<Vec<FileRecord>, RecordError> {
    let error = |reason: String| RecordError::ChartFile {
        path: path.display().to_string(),
        file: ".".to_string(),
        reason,
    };
    let bytes = std::fs::read(path).map_err(|e| error(e.to_string()))?;
    // The template engine's reader applies Helm's size limits and path rules; a second
    // pass over the headers only gives the order and the times it does not keep.
    let files =
        rusty_sdk_chart::archive::read_archive(path, &bytes).map_err(|e| error(e.to_string()))?;
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes.as_slice()));
    // Name -> (position in the archive, time); the first entry of a name wins.
    let mut headers: std::collections::HashMap<String, (usize, GoTime)> =
        std::collections::HashMap::new();
    for (at, entry) in archive
        .entries()
        .map_err(|e| error(e.to_string()))?
        .enumerate()
    {
        let entry = entry.map_err(|e| error(e.to_string()))?;
        let name = entry.path().map_err(|e| error(e.to_string()))?;
        let name = name.to_string_lossy().replace('\\', "/");
        let Some((_, inner)) = name.split_once('/') else {
            continue;
        };
        let time = entry
            .header()
            .mtime()
            .ok()
            .and_then(|secs| OffsetDateTime::from_unix_timestamp(i64::try_from(secs).ok()?).ok())
            .map_or(GoTime::ZERO, GoTime);
        headers.entry(inner.to_string()).or_insert((at, time));
    }
    let mut files: Vec<(usize, FileRecord)> = files
        .into_iter()
        .map(|file| {
            let (at, modtime) = headers
                .get(&file.name)
                .copied()
                .unwrap_or((usize::MAX, GoTime::ZERO));
            (
                at,
                FileRecord {
                    modtime,
                    data: Some(file.data),
                    name: file.name,
                },
            )
        })
        .collect();
    files.sort_by_key(|(at, _)| *at);
    Ok(files.into_iter().map(|(_, file)| file).collect())
}

fn parse_lock(bytes: &[u8]) -> Result<Lock, String> {
    #[derive(Deserialize)]
    struct LockYaml {
        #[serde(default)]
        generated: Option<String>,
        #[serde(default)]
        digest: Option<String>,
        #[serde(default)]
        dependencies: Option<Vec<Dependency>>,
    }
    let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
    let lock: LockYaml = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
    let generated = match lock.generated.as_deref() {
        None | Some("") => GoTime::ZERO,
        Some(text) => GoTime::parse(text)?,
    };
    Ok(Lock {
        generated,
        digest: lock.digest.unwrap_or_default(),
        dependencies: lock.dependencies,
    })
}

/// Helm's `sanitizeString`, applied by its loader's `Validate` to Chart.yaml's free-text
/// fields: every whitespace character becomes a space (a `|` description's newlines
/// included) and non-printable characters are dropped.
fn sanitized(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_whitespace() {
                Some(' ')
            } else if c.is_control()
                || matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
                    | '\u{2060}'..='\u{2064}' | '\u{feff}')
            {
                None
            } else {
                Some(c)
            }
        })
        .collect()
}

impl From<&rusty_sdk_chart::ChartMetadata> for Metadata {
    fn from(meta: &rusty_sdk_chart::ChartMetadata) -> Self {
        Metadata {
            name: sanitized(&meta.name),
            home: sanitized(&meta.home),
            sources: meta.sources.iter().map(|s| sanitized(s)).collect(),
            version: meta.version.clone(),
            description: sanitized(&meta.description),
            keywords: meta.keywords.iter().map(|k| sanitized(k)).collect(),
            maintainers: meta
                .maintainers
                .iter()
                .map(|m| Maintainer {
                    name: sanitized(&m.name),
                    email: sanitized(&m.email),
                    url: sanitized(&m.url),
                })
                .collect(),
            icon: sanitized(&meta.icon),
            api_version: meta.api_version.clone(),
            condition: sanitized(&meta.condition),
            tags: sanitized(&meta.tags),
            app_version: sanitized(&meta.app_version),
            deprecated: meta.deprecated,
            annotations: meta.annotations.clone(),
            kube_version: sanitized(&meta.kube_version),
            dependencies: meta.dependencies.iter().map(Dependency::from).collect(),
            chart_type: meta.chart_type.clone(),
        }
    }
}

impl From<&rusty_sdk_chart::Dependency> for Dependency {
    fn from(d: &rusty_sdk_chart::Dependency) -> Self {
        Dependency {
            name: d.name.clone(),
            version: d.version.clone(),
            repository: d.repository.clone(),
            condition: d.condition.clone(),
            tags: d.tags.clone(),
            enabled: false,
            import_values: d.import_values.clone(),
            alias: d.alias.clone(),
        }
    }
}

/// One `import-values` entry as Helm rewrites it: `data` means `exports.data` into the
/// parent's top level; a map keeps its `child` and `parent` as text; anything else goes.
fn import_value(entry: &Value) -> Option<Value> {
    let text = |v: Option<&Value>| match v {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => "<nil>".to_string(),
    };
    match entry {
        Value::String(name) => {
            Some(serde_json::json!({"child": format!("exports.{name}"), "parent": "."}))
        }
        Value::Object(map) => Some(
            serde_json::json!({"child": text(map.get("child")), "parent": text(map.get("parent"))}),
        ),
        _ => None,
    }
}

/// Put back the nulls of `own` (a chart's values.yaml) that a coalescing merge dropped.
/// The nulls of every enabled subchart's values.yaml under its section (named by its
/// alias), at every depth: Helm 4's `MergeValues` keeps them as it keeps the chart's own.
fn keep_subchart_nulls(merged: &mut Map<String, Value>, chart: &rusty_sdk_chart::Chart) {
    for sub in chart.dependencies() {
        if let Some(Value::Object(section)) = merged.get_mut(sub.name()) {
            if let Some(own) = sub.values().as_object() {
                keep_nulls(section, own);
            }
            keep_subchart_nulls(section, sub);
        }
    }
}

fn keep_nulls(merged: &mut Map<String, Value>, own: &Map<String, Value>) {
    for (key, value) in own {
        match (value, merged.get_mut(key)) {
            (Value::Null, None) => {
                merged.insert(key.clone(), Value::Null);
            }
            (Value::Object(own), Some(Value::Object(merged))) => keep_nulls(merged, own),
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------------
// Go's time.Time in JSON.

/// A Go `time.Time` as JSON: RFC 3339 with nanoseconds, trailing zeros trimmed, `Z` for a
/// zero offset. The zero value is Go's (0001-01-01T00:00:00Z), which `omitzero` omits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GoTime(pub OffsetDateTime);

impl GoTime {
    pub const ZERO: GoTime = match OffsetDateTime::from_unix_timestamp(-62_135_596_800) {
        Ok(zero) => GoTime(zero),
        Err(_) => panic!("0001-01-01T00:00:00Z is within the time crate's range"),
    };

    pub fn now() -> GoTime {
        GoTime(OffsetDateTime::now_utc())
    }

    /// Go's `IsZero`: the instant, whatever the offset.
    pub fn is_zero(&self) -> bool {
        self.0 == Self::ZERO.0
    }

    pub fn parse(text: &str) -> Result<GoTime, String> {
        OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
            .map(GoTime)
            .map_err(|e| format!("{text:?} is not an RFC 3339 time: {e}"))
    }

    /// Go's `time.RFC3339Nano` layout.
    pub fn format(&self) -> Result<String, RecordError> {
        let t = self.0;
        if !(0..=9999).contains(&t.year()) {
            return Err(RecordError::Time(format!("{t}")));
        }
        let nanos = t.nanosecond();
        let fraction = if nanos == 0 {
            String::new()
        } else {
            format!(".{nanos:09}").trim_end_matches('0').to_string()
        };
        let offset = t.offset();
        let zone = if offset.is_utc() {
            "Z".to_string()
        } else {
            let (h, m, _) = offset.as_hms();
            let sign = if offset.is_negative() { '-' } else { '+' };
            format!("{sign}{:02}:{:02}", h.unsigned_abs(), m.unsigned_abs())
        };
        Ok(format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{fraction}{zone}",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute(),
            t.second()
        ))
    }
}

impl Default for GoTime {
    fn default() -> Self {
        GoTime::ZERO
    }
}

impl Serialize for GoTime {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.format().map_err(serde::ser::Error::custom)?)
    }
}

impl<'de> Deserialize<'de> for GoTime {
    /// `null` and `""` (which Helm's Info and `HookExecution` accept) are the zero time.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Option::<String>::deserialize(deserializer)?.as_deref() {
            None | Some("") => Ok(GoTime::ZERO),
            Some(text) => GoTime::parse(text).map_err(serde::de::Error::custom),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Go's encoding/json, where it differs from serde_json.

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's `skip_serializing_if` passes a reference"
)]
fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's `skip_serializing_if` passes a reference"
)]
fn is_zero_i64(n: &i64) -> bool {
    *n == 0
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's `skip_serializing_if` passes a reference"
)]
fn is_false(b: &bool) -> bool {
    !*b
}

/// `null` where Go would leave a nil slice or map: the same as empty for `omitempty`.
fn null_as_empty<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A JSON value written with every map's keys in Go's order (sorted by bytes).
struct Sorted<'a>(&'a Value);

impl Serialize for Sorted<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Object(map) => SortedMap(map).serialize(serializer),
            Value::Array(items) => serializer.collect_seq(items.iter().map(Sorted)),
            other => other.serialize(serializer),
        }
    }
}

struct SortedMap<'a>(&'a Map<String, Value>);

impl Serialize for SortedMap<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut entries: Vec<(&String, &Value)> = self.0.iter().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        serializer.collect_map(entries.into_iter().map(|(k, v)| (k, Sorted(v))))
    }
}

fn sorted_map<S: Serializer>(map: &Map<String, Value>, serializer: S) -> Result<S::Ok, S::Error> {
    SortedMap(map).serialize(serializer)
}

#[expect(
    clippy::ref_option,
    reason = "serde's `serialize_with` passes `&Option`"
)]
fn sorted_option_map<S: Serializer>(
    map: &Option<Map<String, Value>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    map.as_ref().map(SortedMap).serialize(serializer)
}

#[expect(
    clippy::ref_option,
    reason = "serde's `serialize_with` passes `&Option`"
)]
fn sorted_option<S: Serializer>(value: &Option<Value>, serializer: S) -> Result<S::Ok, S::Error> {
    value.as_ref().map(Sorted).serialize(serializer)
}

fn sorted_seq<S: Serializer>(items: &[Value], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(items.iter().map(Sorted))
}

/// Go's `[]byte`: standard base64, `null` for a nil slice.
mod bytes_option {
    use base64::Engine;
    use serde::{Deserialize, Deserializer, Serializer};

    #[expect(
        clippy::ref_option,
        reason = "serde's `serialize_with` passes `&Option`"
    )]
    pub fn serialize<S: Serializer>(bytes: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match bytes {
            Some(bytes) => {
                s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(bytes))
            }
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|text| {
                base64::engine::general_purpose::STANDARD
                    .decode(text.as_bytes())
                    .map_err(serde::de::Error::custom)
            })
            .transpose()
    }
}

/// `serde_json`'s compact output with Go's differences: `<`, `>`, `&`, U+2028 and U+2029
/// escaped as `\u003c`..., and floats in `strconv.FormatFloat(f, 'f' or 'e', -1, 64)`.
struct GoFormatter;

impl serde_json::ser::Formatter for GoFormatter {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut rest = fragment;
        while let Some(at) = rest.find(['<', '>', '&', '\u{2028}', '\u{2029}']) {
            writer.write_all(&rest.as_bytes()[..at])?;
            let c = rest[at..].chars().next().unwrap_or_default();
            write!(writer, "\\u{:04x}", c as u32)?;
            rest = &rest[at + c.len_utf8()..];
        }
        writer.write_all(rest.as_bytes())
    }

    fn write_f64<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        value: f64,
    ) -> std::io::Result<()> {
        writer.write_all(go_float(value).as_bytes())
    }
}

/// A float as Go's encoding/json writes it: the shortest digits that read back the same,
/// in plain notation unless the magnitude is below 1e-6 or at least 1e21.
fn go_float(value: f64) -> String {
    let sign = if value.is_sign_negative() { "-" } else { "" };
    let abs = value.abs();
    if abs == 0.0 {
        return format!("{sign}0");
    }
    // Rust's `{:e}` prints the shortest round-trip digits: `d.ddde<exp>`.
    let scientific = format!("{abs:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if !(1e-6..1e21).contains(&abs) {
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        let width = if exponent < 0 { 1 } else { 2 };
        return format!(
            "{sign}{mantissa}e{exp_sign}{:0width$}",
            exponent.unsigned_abs()
        );
    }
    let point = exponent + 1; // digits before the decimal point
    if point <= 0 {
        format!(
            "{sign}0.{}{digits}",
            "0".repeat(point.unsigned_abs() as usize)
        )
    } else if point.unsigned_abs() as usize >= digits.len() {
        format!(
            "{sign}{digits}{}",
            "0".repeat(point.unsigned_abs() as usize - digits.len())
        )
    } else {
        let (int, frac) = digits.split_at(point.unsigned_abs() as usize);
        format!("{sign}{int}.{frac}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A release record the real helm v4.2.3 stored (a Secret's `release`, decoded) for
    /// `helm install tiny testdata/tiny --set 'b=2,a.c=x<y,a.b=1.25'`: escapes, floats,
    /// sorted maps, a lock, a schema, a hook that ran.
    const HELM_TINY: &str = include_str!("testdata/helm-4.2.3-tiny-v1.json");

    fn helm_tiny() -> ReleaseRecord {
        serde_json::from_str(HELM_TINY.trim_end()).unwrap()
    }

    #[test]
    fn chart_yaml_text_is_sanitized_as_helms_loader_does() {
        // What helm v4.2.3 stored for goldilocks' `description: |` (one line, its newline).
        assert_eq!(
            sanitized("A Helm chart. See https://x\n"),
            "A Helm chart. See https://x "
        );
        assert_eq!(sanitized("a\tb\r\nc\u{7}\u{200b}d"), "a b  cd");
    }

    #[test]
    fn a_record_helm_wrote_encodes_back_to_the_same_json() {
        let record = helm_tiny();
        assert_eq!(record.to_json().unwrap(), HELM_TINY.trim_end());
        // And through the stored form, both directions.
        let stored = record.encode().unwrap();
        assert_eq!(ReleaseRecord::decode(stored.as_bytes()).unwrap(), record);
        let helm_stored = crate::helm::release_store::tests::encode(HELM_TINY.trim_end());
        assert_eq!(
            ReleaseRecord::decode(helm_stored.as_bytes()).unwrap(),
            record
        );
    }

    #[test]
    fn stored_records_are_gzip_at_best_compression_in_base64() {
        let stored = helm_tiny().encode().unwrap();
        let raw = base64::engine::general_purpose::STANDARD
            .decode(stored)
            .unwrap();
        // gzip magic, deflate, and XFL=2: "maximum compression" (Go's BestCompression).
        assert_eq!(&raw[..3], &[0x1f, 0x8b, 0x08]);
        assert_eq!(raw[8], 2);
    }

    #[test]
    fn the_reconciler_sees_status_chart_and_manifest() {
        let release = helm_tiny().to_release();
        assert_eq!(
            (
                release.name.as_str(),
                release.namespace.as_str(),
                release.version,
                release.status,
                release.chart.as_str(),
                release.app_version.as_str(),
                release.description.as_str(),
            ),
            (
                "tiny",
                "t1",
                1,
                ReleaseStatus::Deployed,
                "tiny-0.2.0",
                "1.0",
                "Install complete"
            )
        );
        assert!(release.manifest.contains("name: tiny-cm"));
        assert_eq!(release.notes, "Notes for tiny <&>\n");
    }

    #[test]
    fn a_chart_directory_is_recorded_as_helm_loads_it() {
        // The chart helm installed, with the files' times set to the ones helm recorded.
        let helm = helm_tiny().chart.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/helm/engine/testdata/tiny");
        let times: BTreeMap<String, GoTime> = helm
            .templates
            .iter()
            .chain(helm.files.iter())
            .flatten()
            .map(|f| (f.name.clone(), f.modtime))
            .chain([
                ("Chart.yaml".to_string(), helm.modtime),
                ("values.schema.json".to_string(), helm.schemamodtime),
            ])
            .collect();
        for file in [
            "Chart.yaml",
            "Chart.lock",
            "values.yaml",
            "values.schema.json",
            "templates/NOTES.txt",
            "templates/cm.yaml",
            "templates/hook.yaml",
            "files/a.txt",
            "files/empty.txt",
        ] {
            let to = dir.path().join(file);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(source.join(file), &to).unwrap();
            if let Some(time) = times.get(file) {
                let file = std::fs::File::options().write(true).open(&to).unwrap();
                file.set_modified(time.0.into()).unwrap();
            }
        }
        let chart = rusty_sdk_chart::Chart::load(dir.path()).unwrap();
        let ours = ChartRecord::from_chart(&chart).unwrap();
        let json = |chart: &ChartRecord| {
            let record = ReleaseRecord {
                chart: Some(chart.clone()),
                ..Default::default()
            };
            record.to_json().unwrap()
        };
        assert_eq!(json(&ours), json(&helm));
    }

    #[test]
    fn a_chart_with_dependencies_is_recorded_as_helm_processed_it() {
        // helm v4.2.3 `upgrade dep testdata/dep --set top=5`: `offc` disabled by its
        // condition, `sub` aliased and importing `data`, a null kept in the values.
        let helm: ReleaseRecord =
            serde_json::from_str(include_str!("testdata/helm-4.2.3-dep-v2.json").trim_end())
                .unwrap();
        let helm = helm.chart.unwrap();
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/helm/engine/testdata/dep");
        let chart = rusty_sdk_chart::Chart::load(&dir).unwrap();
        let ours = ChartRecord::from_chart(&chart)
            .unwrap()
            .with_dependencies(&chart, &serde_json::json!({"top": 5}));
        let json = |chart: &ChartRecord| {
            let only = ChartRecord {
                metadata: chart.metadata.clone(),
                values: chart.values.clone(),
                ..Default::default()
            };
            ReleaseRecord {
                chart: Some(only),
                ..Default::default()
            }
            .to_json()
            .unwrap()
        };
        assert_eq!(json(&ours), json(&helm));
    }

    #[test]
    fn files_are_ordered_as_helm_walks_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in [
            ("Chart.yaml", "apiVersion: v2\nname: walk\nversion: 1.0.0\n"),
            ("a-c", "1"),
            ("a/b", "2"),
            ("B", "3"),
        ] {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let chart = rusty_sdk_chart::Chart::load(dir.path()).unwrap();
        let record = ChartRecord::from_chart(&chart).unwrap();
        let names: Vec<&str> = record
            .files
            .iter()
            .flatten()
            .map(|f| f.name.as_str())
            .collect();
        // Go's filepath.Walk: a folder's entries sorted, each folder entered where it sorts.
        assert_eq!(names, ["B", "a/b", "a-c"]);
        // No values.yaml: Helm's values stay nil, written as null; no templates either.
        let json = ReleaseRecord {
            chart: Some(record),
            ..Default::default()
        }
        .to_json()
        .unwrap();
        assert!(json.contains(r#""lock":null,"templates":null,"values":null,"schema":null,"schemamodtime":"0001-01-01T00:00:00Z""#), "{json}");
    }

    #[test]
    fn floats_are_written_as_go_writes_them() {
        // Expected values: Go's encoding/json (strconv.FormatFloat 'f'/'e', -1, 64).
        for (value, go) in [
            (1.0, "1"),
            (-0.25, "-0.25"),
            (1e-7, "1e-7"),
            (0.000_001, "0.000001"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1.234_567_890_123_456_9e23, "1.2345678901234569e+23"),
            (123_456.789, "123456.789"),
            (-1.5e-300, "-1.5e-300"),
            (1e100, "1e+100"),
            (0.0, "0"),
        ] {
            assert_eq!(go_float(value), go, "{value:e}");
        }
    }

    #[test]
    fn times_are_rfc3339_with_trimmed_nanoseconds_and_their_offset() {
        for text in [
            "2026-11-27T04:59:11.3579025Z",
            "2024-05-06T07:08:09.1234+02:00",
            "2024-05-06T07:08:09-05:30",
            "0001-01-01T00:00:00Z",
        ] {
            assert_eq!(GoTime::parse(text).unwrap().format().unwrap(), text);
        }
        assert!(GoTime::parse("0001-01-01T00:00:00Z").unwrap().is_zero());
        // Helm's Info and HookExecution read "" as the zero time, and omit it.
        let record: ReleaseRecord = serde_json::from_str(
            r#"{"name":"a","info":{"first_deployed":"","deleted":null,"status":"deployed"},"hooks":[{"name":"h","last_run":{"started_at":"","phase":""}}]}"#,
        )
        .unwrap();
        assert_eq!(
            record.to_json().unwrap(),
            r#"{"name":"a","info":{"status":"deployed"},"hooks":[{"name":"h","last_run":{"phase":""}}]}"#
        );
    }

    #[test]
    fn garbage_is_an_error_naming_the_problem() {
        let error = ReleaseRecord::decode(b"%%%").unwrap_err().to_string();
        assert!(error.contains("not base64"), "{error}");
        let not_json = base64::engine::general_purpose::STANDARD.encode("[1]");
        let error = ReleaseRecord::decode(not_json.as_bytes())
            .unwrap_err()
            .to_string();
        assert!(error.contains("not Helm release JSON"), "{error}");
    }
}
