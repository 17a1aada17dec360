//! Loading a chart from a directory or a .tgz archive into memory.
use std::io::Read;
use std::path::Path;

use serde_json::Value;

use crate::archive::{self, Budget};
use crate::chart::{Chart, ChartFile};
use crate::error::ChartError;
use crate::helmignore::HelmIgnore;
use crate::metadata::{ChartMetadata, Dependency};

impl Chart {
    /// Load a chart from a directory or a `.tgz`/`.tar.gz` archive.
    ///
    /// # Errors
    ///
    /// [`ChartError::NotFound`] when `path` does not exist, [`ChartError::Io`] when it
    /// cannot be read, and the errors of [`Chart::from_files`] and
    /// [`Chart::from_archive`].
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
    ///
    /// # Errors
    ///
    /// [`ChartError::Io`] for a file or folder that cannot be read,
    /// [`ChartError::InvalidFile`] for what Helm refuses to load (a link back to a folder
    /// it is in, a FIFO, socket or device, a `.helmignore` that is not a file, a chart
    /// over Helm's size or file limits).
    pub fn dir_files(path: &Path) -> Result<Vec<ChartFile>, ChartError> {
        read_dir_files(path)
    }

    /// Load a chart from the bytes of a `.tgz` archive; `source` names it in errors.
    ///
    /// # Errors
    ///
    /// Those of [`archive::read_archive`] for the archive and of [`Chart::from_files`]
    /// for what it holds.
    pub fn from_archive(source: &Path, bytes: &[u8]) -> Result<Chart, ChartError> {
        from_archive_within(source, bytes, &mut Budget::default())
    }

    /// Build a chart from chart-relative files (as Helm's loader does).
    ///
    /// # Errors
    ///
    /// [`ChartError::NotAChart`] without a `Chart.yaml`,
    /// [`ChartError::InvalidChartYaml`] when it does not parse or misses what Helm
    /// requires, [`ChartError::InvalidFile`] for a values.yaml, values.schema.json or
    /// requirements.yaml Helm would not load, and the errors of the subcharts under
    /// `charts/` (of [`Chart::from_archive`] for the archives).
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
        values: std::sync::Arc::new(Value::Object(serde_json::Map::default())),
        values_yaml: std::sync::Arc::from(""),
        schema: None,
        templates: std::sync::Arc::default(),
        render_cache: crate::engine::RenderCache::default(),
        schema_check: std::sync::Arc::default(),
        files: std::sync::Arc::default(),
        dependencies: Vec::new(),
    };
    let mut subchart_files: Vec<(String, ChartFile)> = Vec::new();
    let (mut templates, mut other_files) = (Vec::new(), Vec::new());
    for file in files {
        let name = file.name.clone();
        match name.as_str() {
            "Chart.yaml" | "Chart.lock" | "requirements.lock" => {}
            "values.yaml" => {
                let text = crate::yaml::utf8_text(&file.data)
                    .map_err(|e| invalid("values.yaml", helm_values::yaml_conversion_error(&e)))?;
                chart.values = std::sync::Arc::new(
                    helm_values::load_values(text).map_err(|e| invalid("values.yaml", e))?,
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
        #[expect(
            clippy::case_sensitive_file_extension_comparisons,
            reason = "Helm's loader takes a subchart archive by its exact suffix: a .TGZ is not one"
        )]
        let is_archive = key.ends_with(".tgz") || key.ends_with(".tar.gz");
        if is_archive {
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
    let top = std::fs::metadata(root).map_err(|source| ChartError::Io {
        path: root.to_path_buf(),
        source,
    })?;
    let mut walk = DirWalk {
        root,
        ignore: HelmIgnore::parse(&helmignore(root)?),
        files: Vec::new(),
        ancestors: vec![(identity(&top), String::new())],
        budget: Budget::default(),
    };
    walk.read(root)?;
    let mut files = walk.files;
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

/// The text of the chart's .helmignore: empty without one (Helm still applies its default
/// rule, hidden template files), read as Helm reads it (bytes, not necessarily UTF-8) and
/// within the limits of any chart file.
fn helmignore(root: &Path) -> Result<String, ChartError> {
    let path = root.join(".helmignore");
    let invalid = |message: String| ChartError::InvalidFile {
        path: root.to_path_buf(),
        file: ".helmignore".into(),
        message,
    };
    let meta = match std::fs::metadata(&path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(String::new()),
        Err(source) => return Err(ChartError::Io { path, source }),
    };
    if !meta.is_file() {
        return Err(invalid(
            "not a regular file (a FIFO, socket, device or folder); replace it with a file".into(),
        ));
    }
    archive::check_file_size(".helmignore", meta.len()).map_err(invalid)?;
    let mut bytes = Vec::new();
    std::fs::File::open(&path)
        .and_then(|file| file.take(archive::MAX_FILE_BYTES).read_to_end(&mut bytes))
        .map_err(|source| ChartError::Io { path, source })?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A directory's device and inode, to know it again behind another name.
#[cfg(unix)]
#[expect(
    clippy::unnecessary_wraps,
    reason = "the signature of the other platforms' version, which has no identity to give"
)]
fn identity(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(_: &std::fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// Reading a chart directory within the limits of an archive.
struct DirWalk<'a> {
    root: &'a Path,
    ignore: HelmIgnore,
    files: Vec<ChartFile>,
    /// The directories walked into to get where the walk is (identity and chart-relative
    /// name), so that a link back to one of them is an error instead of a walk that only
    /// ends when the path gets too long.
    ancestors: Vec<(Option<(u64, u64)>, String)>,
    budget: Budget,
}

impl DirWalk<'_> {
    /// Read the files under `dir`.
    fn read(&mut self, dir: &Path) -> Result<(), ChartError> {
        let io_err = |path: &Path, source| ChartError::Io {
            path: path.to_path_buf(),
            source,
        };
        // In name order, as Helm walks: the first problem reported is the same everywhere.
        // More entries than the budget allows are an error anyway.
        let mut entries = std::fs::read_dir(dir)
            .and_then(|listing| {
                listing
                    .take(archive::MAX_FILES + 1)
                    .collect::<std::io::Result<Vec<_>>>()
            })
            .map_err(|e| io_err(dir, e))?;
        entries.sort_by_cached_key(std::fs::DirEntry::file_name);
        for entry in entries {
            let path = entry.path();
            let rel = path
                .strip_prefix(self.root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            // Links are followed, as Helm's walk follows them: one lookup gives the kind
            // and the size of what the name leads to.
            let meta = std::fs::metadata(&path).map_err(|e| io_err(&path, e))?;
            if self.ignore.ignored(&rel, meta.is_dir()) {
                continue;
            }
            let invalid = |message: String| ChartError::InvalidFile {
                path: self.root.to_path_buf(),
                file: rel.clone(),
                message,
            };
            if meta.is_dir() {
                let id = identity(&meta);
                let seen = self
                    .ancestors
                    .iter()
                    .find(|(seen, _)| id.is_some() && *seen == id);
                if let Some((_, above)) = seen {
                    let above = if above.is_empty() {
                        "the chart's own folder"
                    } else {
                        above
                    };
                    return Err(invalid(format!(
                        "a link back to {above}, a folder it is in, so the chart would never end; remove the link"
                    )));
                }
                self.budget.take_folder().map_err(invalid)?;
                self.ancestors.push((id, rel.clone()));
                self.read(&path)?;
                self.ancestors.pop();
            } else if !meta.is_file() {
                // Helm refuses these too: reading a FIFO would never end.
                return Err(invalid(
                    "not a regular file (a FIFO, socket or device); remove it from the chart"
                        .into(),
                ));
            } else {
                self.budget.take(&rel, meta.len()).map_err(invalid)?;
                // (At most 5 MiB: the budget has taken it.)
                let mut data = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
                // Bounded again while reading, for a file that grows after the lookup.
                std::fs::File::open(&path)
                    .and_then(|file| {
                        file.take(archive::MAX_FILE_BYTES + 1)
                            .read_to_end(&mut data)
                    })
                    .map_err(|e| io_err(&path, e))?;
                archive::check_file_size(&rel, data.len() as u64).map_err(invalid)?;
                self.files.push(ChartFile { name: rel, data });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart_dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("Chart.yaml"),
            "apiVersion: v2\nname: c\nversion: 1.0.0\n",
        )
        .unwrap();
        std::fs::create_dir(dir.path().join("templates")).unwrap();
        dir
    }

    /// The error of loading `dir` with a FIFO at `rel`: it must not hang.
    fn error_with_fifo_at(dir: &tempfile::TempDir, rel: &str) -> String {
        let made = std::process::Command::new("mkfifo")
            .arg(dir.path().join(rel))
            .status()
            .unwrap();
        assert!(made.success());
        Chart::dir_files(dir.path()).unwrap_err().to_string()
    }

    #[test]
    fn a_linked_file_is_read_through_its_link_and_checked_at_its_own_size() {
        let dir = chart_dir();
        let big = dir.path().join("big.bin");
        let file = std::fs::File::create(&big).unwrap();
        file.set_len(archive::MAX_FILE_BYTES + 1).unwrap();
        std::os::unix::fs::symlink("../big.bin", dir.path().join("templates/cm.yaml")).unwrap();
        std::fs::write(dir.path().join(".helmignore"), "big.bin\n").unwrap();
        let err = Chart::dir_files(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("templates/cm.yaml") && err.contains("5 MiB"),
            "{err}"
        );
        std::fs::write(&big, "kind: ConfigMap\n").unwrap();
        let files = Chart::dir_files(dir.path()).unwrap();
        let linked = files
            .iter()
            .find(|f| f.name == "templates/cm.yaml")
            .unwrap();
        assert_eq!(linked.data, b"kind: ConfigMap\n");
    }

    #[test]
    fn a_link_back_to_a_folder_it_is_in_is_refused_and_other_linked_folders_are_read() {
        let dir = chart_dir();
        std::fs::create_dir(dir.path().join("shared")).unwrap();
        std::fs::write(dir.path().join("shared/cm.yaml"), "kind: ConfigMap\n").unwrap();
        // The same folder twice, neither inside the other: read twice, as Helm does.
        std::os::unix::fs::symlink("../shared", dir.path().join("templates/one")).unwrap();
        std::os::unix::fs::symlink("../shared", dir.path().join("templates/two")).unwrap();
        let names: Vec<String> = Chart::dir_files(dir.path())
            .unwrap()
            .into_iter()
            .map(|f| f.name)
            .collect();
        for name in [
            "templates/one/cm.yaml",
            "templates/two/cm.yaml",
            "shared/cm.yaml",
        ] {
            assert!(names.iter().any(|n| n == name), "{name} missing: {names:?}");
        }
        // Two links back up: without the check, a walk that fans out at every level.
        std::os::unix::fs::symlink("..", dir.path().join("templates/up")).unwrap();
        std::os::unix::fs::symlink("..", dir.path().join("shared/top")).unwrap();
        let err = Chart::dir_files(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("a link back to the chart's own folder"),
            "{err}"
        );
        assert!(err.len() < 300, "{err}");
    }

    #[test]
    fn links_that_double_the_folders_at_every_level_end_at_the_file_limit() {
        let dir = chart_dir();
        // level0/{a,b} -> level1, level1/{a,b} -> level2, ...: no loop, 2^24 paths.
        for level in 0..24 {
            let here = dir.path().join(format!("level{level}"));
            std::fs::create_dir(&here).unwrap();
            std::fs::write(here.join("f.txt"), "x").unwrap();
            for link in ["a", "b"] {
                let next = format!("../level{}", level + 1);
                std::os::unix::fs::symlink(next, here.join(link)).unwrap();
            }
        }
        std::fs::create_dir(dir.path().join("level24")).unwrap();
        let err = Chart::dir_files(dir.path()).unwrap_err().to_string();
        assert!(err.contains("more than 20000 files"), "{err}");
    }

    #[test]
    fn helmignore_is_read_as_bytes_and_a_fifo_in_its_place_is_refused() {
        let dir = chart_dir();
        std::fs::write(dir.path().join("templates/skip.yaml"), "kind: Secret\n").unwrap();
        std::fs::write(
            dir.path().join(".helmignore"),
            b"# \xff\xfe not UTF-8\nskip.yaml\n",
        )
        .unwrap();
        let names: Vec<String> = Chart::dir_files(dir.path())
            .unwrap()
            .into_iter()
            .map(|f| f.name)
            .collect();
        assert!(
            !names.contains(&"templates/skip.yaml".to_string()),
            "{names:?}"
        );
        std::fs::remove_file(dir.path().join(".helmignore")).unwrap();
        let err = error_with_fifo_at(&dir, ".helmignore");
        assert!(
            err.contains(".helmignore") && err.contains("not a regular file"),
            "{err}"
        );
    }

    #[test]
    fn a_fifo_in_a_chart_is_refused_not_read() {
        let err = error_with_fifo_at(&chart_dir(), "templates/pipe.yaml");
        assert!(
            err.contains("templates/pipe.yaml") && err.contains("not a regular file"),
            "{err}"
        );
    }
}
