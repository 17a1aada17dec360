//! Loading a chart from the project (staged files included, so `create api` can regenerate
//! role.yaml for a chart it is scaffolding in the same plan) and listing its objects with the
//! chart crate.
use std::path::{Path, PathBuf};

use rusty_sdk_chart::{Chart, ChartFile, FailedSwitch, HookKind, Manifest, all_objects};

use crate::error::{Error, Result};
use crate::scaffold::Tree;

use super::chart::{ChartObject, essentials};
use super::objects_cache;

/// Every object the chart in `chart_dir` (relative to the project root) can create, cut
/// down to what the role needs, and a warning for each `enabled` switch that fails to render
/// (its objects may be missing). rusty-sdk's starter chart is known without a render
/// ([`super::starter_objects`]); a chart seen before comes from [`objects_cache`].
pub fn chart_objects(tree: &Tree, chart_dir: &str) -> Result<(Vec<ChartObject>, Vec<String>)> {
    let found = match files(tree, chart_dir)? {
        Source::Files(path, files) => {
            let name = chart_dir.rsplit('/').next().unwrap_or(chart_dir);
            if let Some(entry) = super::starter_objects::entry(name, &files) {
                return Ok((entry.objects, Vec::new()));
            }
            let cache = objects_cache::dir();
            let key = objects_cache::key(&files);
            if let Some(entry) = cache
                .as_deref()
                .and_then(|dir| objects_cache::get(dir, &key))
            {
                entry
            } else {
                let entry = if let Some(entry) = super::ahead::take(&key) {
                    entry
                } else {
                    let chart = Chart::from_files(&path, files)
                        .map_err(|e| Error::Project(format!("{chart_dir}: {e}")))?;
                    render(chart_dir, &chart)?
                };
                if let Some(dir) = cache {
                    objects_cache::put(&dir, &key, &entry);
                }
                entry
            }
        }
        Source::Archive(path) => {
            let chart =
                Chart::load(&path).map_err(|e| Error::Project(format!("{chart_dir}: {e}")))?;
            render(chart_dir, &chart)?
        }
    };
    let warnings = found
        .failed_switches
        .iter()
        .map(|f| switch_warning(chart_dir, f))
        .collect();
    Ok((found.objects, warnings))
}

fn render(chart_dir: &str, chart: &Chart) -> Result<objects_cache::Entry> {
    entry(chart).map_err(|e| {
        Error::Project(format!(
            "{chart_dir}: the chart does not render, so its RBAC rules cannot be derived: {e}"
        ))
    })
}

/// What the cache keeps of a chart: the essentials of every object it can create, and the
/// switches that fail to render.
pub(super) fn entry(chart: &Chart) -> std::result::Result<objects_cache::Entry, String> {
    let found = all_objects(chart).map_err(|e| e.to_string())?;
    let objects: Vec<ChartObject> = found.manifests.into_iter().map(object).collect();
    Ok(objects_cache::Entry {
        objects: essentials(&objects),
        failed_switches: found.failed_switches,
    })
}

/// One line: the switch, what the role may lack, why, and what to do.
fn switch_warning(chart_dir: &str, failed: &FailedSwitch) -> String {
    let objects = if failed.templates.is_empty() {
        "the objects it turns on".to_string()
    } else {
        format!("the objects of {}", failed.templates.join(", "))
    };
    let error = failed.error.lines().next().unwrap_or_default();
    format!(
        "{chart_dir}: `{}: true` does not render on its own ({error}), so the role may lack rules for {objects}; \
         set the values it needs in values.yaml and run `generate rbac` again, or add those rules with a marker",
        failed.switch
    )
}

/// Where a chart's content comes from.
enum Source {
    /// A chart directory's files (as `Chart::load` reads them), staged ones winning.
    Files(PathBuf, Vec<ChartFile>),
    /// A packaged chart, read by `Chart::load`.
    Archive(PathBuf),
}

fn files(tree: &Tree, chart_dir: &str) -> Result<Source> {
    let prefix = format!("{chart_dir}/");
    let staged: Vec<&String> = tree
        .staged()
        .keys()
        .filter(|p| p.starts_with(&prefix))
        .collect();
    let path = tree.root().join(chart_dir);
    if staged.is_empty() {
        if !path.exists() {
            return Err(Error::Project(format!(
                "{chart_dir}: chart not found; fix the `chart` of this API in watches.yaml or restore the chart"
            )));
        }
        if !path.is_dir() {
            return Ok(Source::Archive(path));
        }
        let files =
            Chart::dir_files(&path).map_err(|e| Error::Project(format!("{chart_dir}: {e}")))?;
        return Ok(Source::Files(path, files));
    }
    // Staged files win over the disk; the rest of the chart is read from disk.
    let mut files = disk_files(&path)?;
    for name in staged {
        let rel = &name[prefix.len()..];
        let data = tree.read_bytes(name)?.unwrap_or_default();
        files.retain(|f| f.name != rel);
        files.push(ChartFile {
            name: rel.to_string(),
            data,
        });
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Source::Files(PathBuf::from(chart_dir), files))
}

/// The chart's files on disk, if it is there already (.helmignore is not applied here: a
/// chart that is being scaffolded has nothing to ignore yet).
fn disk_files(path: &Path) -> Result<Vec<ChartFile>> {
    use rusty_sdk_chart::archive::{MAX_CHART_BYTES, MAX_FILE_BYTES, MAX_FILES};
    let mut files = Vec::new();
    if !path.is_dir() {
        return Ok(files);
    }
    let mut total = 0u64;
    for entry in walkdir::WalkDir::new(path).sort_by_file_name() {
        let entry = entry.map_err(|e| {
            let at = e.path().unwrap_or(path).to_path_buf();
            Error::io(at, e.into())
        })?;
        if !entry.file_type().is_file() {
            continue;
        }
        let data = crate::scaffold::input::read_file(entry.path(), MAX_FILE_BYTES)
            .map_err(|e| Error::io(entry.path(), e))?;
        total += data.len() as u64;
        if files.len() >= MAX_FILES || total > MAX_CHART_BYTES {
            return Err(Error::Project(format!(
                "{}: more than {MAX_FILES} files or {MAX_CHART_BYTES} bytes, the limits of a chart; move what is not the chart's out of its folder",
                path.display()
            )));
        }
        let name = entry
            .path()
            .strip_prefix(path)
            .unwrap_or(entry.path())
            .to_string_lossy()
            .replace('\\', "/");
        files.push(ChartFile { name, data });
    }
    Ok(files)
}

fn object(manifest: Manifest) -> ChartObject {
    let test_hook = manifest
        .hook
        .as_ref()
        .is_some_and(|kinds| !kinds.is_empty() && kinds.iter().all(|k| *k == HookKind::Test));
    ChartObject {
        source: manifest.source,
        test_hook,
        object: manifest.object,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_folder_past_the_limits_of_a_chart_is_an_error_not_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let five_mib = rusty_sdk_chart::archive::MAX_FILE_BYTES;
        for i in 0..21 {
            let file = std::fs::File::create(dir.path().join(format!("f{i:02}"))).unwrap();
            file.set_len(five_mib).unwrap();
        }
        let err = disk_files(dir.path()).unwrap_err().to_string();
        assert!(err.contains("the limits of a chart"), "{err}");
        std::fs::remove_file(dir.path().join("f00")).unwrap();
        assert_eq!(disk_files(dir.path()).unwrap().len(), 20);
    }

    #[test]
    fn a_failed_switch_warning_names_the_switch_the_templates_and_the_cause() {
        let failed = FailedSwitch {
            switch: "metrics.serviceMonitor.enabled".into(),
            templates: vec!["demo/templates/servicemonitor.yaml".into()],
            error:
                "execution error at (demo/templates/servicemonitor.yaml:3:4): url is needed\nmore"
                    .into(),
        };
        let warning = switch_warning("helm-charts/demo", &failed);
        assert!(
            warning.starts_with(
                "helm-charts/demo: `metrics.serviceMonitor.enabled: true` does not render"
            ),
            "{warning}"
        );
        assert!(warning.contains("url is needed)"), "{warning}");
        assert!(!warning.contains("more"), "{warning}");
        assert!(
            warning.contains("rules for the objects of demo/templates/servicemonitor.yaml"),
            "{warning}"
        );
    }
}
