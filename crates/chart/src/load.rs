//! Loading a chart from a directory or a .tgz archive into memory.
use std::path::Path;

use serde_json::Value;

use crate::archive::{self, Budget};
use crate::chart::{Chart, ChartFile};
use crate::error::ChartError;
use crate::helmignore::HelmIgnore;
use crate::metadata::{ChartMetadata, Dependency};

impl Chart {
    /// Load a chart from a directory or a `.tgz`/`.tar.gz` archive.
    pub fn load(path: &Path) -> Result<Chart, ChartError> {
        if !path.exists() {
            return Err(ChartError::NotFound(path.to_path_buf()));
        }
        if path.is_dir() {
            let files = read_dir_files(path)?;
            Chart::from_files(path, files)
        } else {
            let bytes = std::fs::read(path).map_err(|source| ChartError::Io {
                path: path.to_path_buf(),
                source,
            })?;
            Chart::from_archive(path, &bytes)
        }
    }

    /// The files [`Chart::load`] reads from a chart directory (what .helmignore excludes left
    /// out), sorted by path: `Chart::from_files(path, Chart::dir_files(path)?)` equals
    /// `Chart::load(path)`, so a caller can look at the bytes before parsing them.
    pub fn dir_files(path: &Path) -> Result<Vec<ChartFile>, ChartError> {
        read_dir_files(path)
    }

    /// Load a chart from the bytes of a `.tgz` archive; `source` names it in errors.
    pub fn from_archive(source: &Path, bytes: &[u8]) -> Result<Chart, ChartError> {
        from_archive_within(source, bytes, &mut Budget::default())
    }

    /// Build a chart from chart-relative files (as Helm's loader does).
    pub fn from_files(source: &Path, files: Vec<ChartFile>) -> Result<Chart, ChartError> {
        from_files_within(source, files, &mut Budget::default())
    }
}

fn from_archive_within(
    source: &Path,
    bytes: &[u8],
    budget: &mut Budget,
) -> Result<Chart, ChartError> {
    let files = archive::read(source, bytes, budget)?;
    from_files_within(source, files, budget)
}

/// [`Chart::from_files`], with nested archives unpacked within what is left of `budget`.
fn from_files_within(
    source: &Path,
    files: Vec<ChartFile>,
    budget: &mut Budget,
) -> Result<Chart, ChartError> {
    let invalid = |file: &str, message: String| ChartError::InvalidFile {
        path: source.to_path_buf(),
        file: file.to_string(),
        message,
    };
    let chart_yaml = files
        .iter()
        .find(|f| f.name == "Chart.yaml")
        .ok_or_else(|| ChartError::NotAChart(source.to_path_buf()))?;
    let mut metadata = ChartMetadata::parse(&chart_yaml.text()).map_err(|message| {
        ChartError::InvalidChartYaml {
            path: source.to_path_buf(),
            message,
        }
    })?;
    let mut chart = Chart {
        source: source.to_path_buf(),
        metadata: ChartMetadata::default(),
        values: std::sync::Arc::new(Value::Object(Default::default())),
        values_yaml: std::sync::Arc::from(""),
        schema: None,
        templates: Default::default(),
        render_cache: Default::default(),
        schema_check: Default::default(),
        files: Default::default(),
        dependencies: Vec::new(),
    };
    let mut subchart_files: Vec<(String, ChartFile)> = Vec::new();
    let (mut templates, mut other_files) = (Vec::new(), Vec::new());
    for file in files {
        let name = file.name.clone();
        match name.as_str() {
            "Chart.yaml" | "Chart.lock" | "requirements.lock" => {}
            "values.yaml" => {
                let text = crate::yaml::utf8_text(&file.data).map_err(|e| {
                    invalid("values.yaml", crate::values::yaml_conversion_error(&e))
                })?;
                chart.values = std::sync::Arc::new(
                    crate::values::load_values(text).map_err(|e| invalid("values.yaml", e))?,
                );
                chart.values_yaml = std::sync::Arc::from(text);
            }
            "values.schema.json" => {
                let schema = serde_json::from_slice(&file.data)
                    .map_err(|e| invalid("values.schema.json", e.to_string()))?;
                chart.schema = Some(std::sync::Arc::new(schema));
            }
            "requirements.yaml" if metadata.api_version == "v1" => {
                #[derive(serde::Deserialize)]
                struct Requirements {
                    #[serde(default)]
                    dependencies: Vec<Dependency>,
                }
                let reqs: Requirements = crate::yaml::parse(&file.text())
                    .and_then(|v| serde_json::from_value(v).map_err(|e| e.to_string()))
                    .map_err(|e| invalid("requirements.yaml", e))?;
                metadata.dependencies = reqs.dependencies;
            }
            _ if name.starts_with("templates/") => templates.push(file),
            _ if name.starts_with("charts/") => {
                let rest = &name["charts/".len()..];
                let key = rest.split('/').next().unwrap_or(rest).to_string();
                let inner = ChartFile {
                    name: rest[key.len()..].trim_start_matches('/').to_string(),
                    data: file.data,
                };
                subchart_files.push((key, inner));
            }
            _ => other_files.push(file),
        }
    }
    chart.metadata = metadata;
    chart.dependencies = load_subcharts(source, subchart_files, budget)?;
    templates.sort_by(|a, b| a.name.cmp(&b.name));
    chart.templates = templates.into();
    chart.files = other_files.into();
    Ok(chart)
}

/// Subcharts under charts/: unpacked directories and .tgz archives.
fn load_subcharts(
    source: &Path,
    files: Vec<(String, ChartFile)>,
    budget: &mut Budget,
) -> Result<Vec<Chart>, ChartError> {
    let mut groups: Vec<(String, Vec<ChartFile>)> = Vec::new();
    for (key, file) in files {
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(file),
            None => groups.push((key, vec![file])),
        }
    }
    let mut charts = Vec::new();
    for (key, files) in groups {
        let sub_source = source.join("charts").join(&key);
        if key.ends_with(".tgz") || key.ends_with(".tar.gz") {
            if let Some(archive) = files.iter().find(|f| f.name.is_empty()) {
                charts.push(from_archive_within(&sub_source, &archive.data, budget)?);
            }
        } else if files.iter().any(|f| f.name == "Chart.yaml") {
            charts.push(from_files_within(&sub_source, files, budget)?);
        }
        // Other files directly under charts/ (READMEs, .prov files) are not charts.
    }
    charts.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    Ok(charts)
}

/// Every file of a chart directory, minus what .helmignore excludes, sorted by path.
fn read_dir_files(root: &Path) -> Result<Vec<ChartFile>, ChartError> {
    if !root.join("Chart.yaml").is_file() {
        return Err(ChartError::NotAChart(root.to_path_buf()));
    }
    // Without a .helmignore Helm still applies its default rule (hidden template files).
    let text = std::fs::read_to_string(root.join(".helmignore")).unwrap_or_default();
    let ignore = HelmIgnore::parse(&text);
    let mut files = Vec::new();
    walk(root, root, &ignore, &mut files)?;
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

fn walk(
    root: &Path,
    dir: &Path,
    ignore: &HelmIgnore,
    out: &mut Vec<ChartFile>,
) -> Result<(), ChartError> {
    let io_err = |path: &Path, source| ChartError::Io {
        path: path.to_path_buf(),
        source,
    };
    let entries = std::fs::read_dir(dir).map_err(|e| io_err(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| io_err(dir, e))?;
        let path = entry.path();
        let rel = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        let is_dir = path.is_dir();
        if ignore.ignored(&rel, is_dir) {
            continue;
        }
        if is_dir {
            walk(root, &path, ignore, out)?;
        } else {
            let size = entry.metadata().map_err(|e| io_err(&path, e))?.len();
            archive::check_file_size(&rel, size).map_err(|message| ChartError::InvalidFile {
                path: root.to_path_buf(),
                file: rel.clone(),
                message,
            })?;
            let data = std::fs::read(&path).map_err(|e| io_err(&path, e))?;
            out.push(ChartFile { name: rel, data });
        }
    }
    Ok(())
}
