//! Loading a chart from a directory or a .tgz archive into memory.
use std::io::Read;
use std::path::Path;

use serde_json::Value;

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

    /// Load a chart from the bytes of a `.tgz` archive; `source` names it in errors.
    pub fn from_archive(source: &Path, bytes: &[u8]) -> Result<Chart, ChartError> {
        let files = read_archive_files(source, bytes)?;
        Chart::from_files(source, files)
    }

    /// Build a chart from chart-relative files (as Helm's loader does).
    pub fn from_files(source: &Path, files: Vec<ChartFile>) -> Result<Chart, ChartError> {
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
            values: Value::Object(Default::default()),
            values_yaml: String::new(),
            schema: None,
            templates: Default::default(),
            render_cache: Default::default(),
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
                    chart.values =
                        crate::values::load_values(text).map_err(|e| invalid("values.yaml", e))?;
                    chart.values_yaml = text.to_string();
                }
                "values.schema.json" => {
                    let schema = serde_json::from_slice(&file.data)
                        .map_err(|e| invalid("values.schema.json", e.to_string()))?;
                    chart.schema = Some(schema);
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
        chart.dependencies = load_subcharts(source, subchart_files)?;
        templates.sort_by(|a, b| a.name.cmp(&b.name));
        chart.templates = templates.into();
        chart.files = other_files.into();
        Ok(chart)
    }
}

/// Subcharts under charts/: unpacked directories and .tgz archives.
fn load_subcharts(
    source: &Path,
    files: Vec<(String, ChartFile)>,
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
                charts.push(Chart::from_archive(&sub_source, &archive.data)?);
            }
        } else if files.iter().any(|f| f.name == "Chart.yaml") {
            charts.push(Chart::from_files(&sub_source, files)?);
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
            let data = std::fs::read(&path).map_err(|e| io_err(&path, e))?;
            out.push(ChartFile { name: rel, data });
        }
    }
    Ok(())
}

/// Files of a chart archive; the top-level folder (the chart name) is stripped.
fn read_archive_files(source: &Path, bytes: &[u8]) -> Result<Vec<ChartFile>, ChartError> {
    let archive_err = |message: String| ChartError::Archive {
        path: source.to_path_buf(),
        message,
    };
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
    let entries = archive
        .entries()
        .map_err(|e| archive_err(format!("not a gzipped tar archive: {e}")))?;
    let mut files = Vec::new();
    for entry in entries {
        let mut entry = entry.map_err(|e| archive_err(e.to_string()))?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let path = entry
            .path()
            .map_err(|e| archive_err(e.to_string()))?
            .to_string_lossy()
            .replace('\\', "/");
        let rel = match path.trim_start_matches("./").split_once('/') {
            Some((_, rel)) => rel.to_string(),
            None => continue,
        };
        if rel.split('/').any(|seg| seg == "..") {
            return Err(archive_err(format!(
                "entry {path:?} escapes the chart folder"
            )));
        }
        let mut data = Vec::new();
        entry
            .read_to_end(&mut data)
            .map_err(|e| archive_err(format!("cannot read {path}: {e}")))?;
        files.push(ChartFile { name: rel, data });
    }
    if !files.iter().any(|f| f.name == "Chart.yaml") {
        return Err(ChartError::NotAChart(source.to_path_buf()));
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}
