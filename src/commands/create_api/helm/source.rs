//! Where `--helm-chart` points, and getting the chart's files from there: our starter
//! chart, a local directory (copied byte for byte, `.helmignore` honoured), a local `.tgz`
//! (unpacked), or a remote chart (downloaded, then unpacked).
use std::path::{Path, PathBuf};

use rusty_sdk_chart::{ChartError, ChartFile};

use super::remote;
use crate::error::{Error, Result};
use crate::ui::Shell;

/// A chart reference, as `--helm-chart` (with `--helm-chart-repo` and
/// `--helm-chart-version`) gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChartRef {
    /// A chart directory or `.tgz` on this machine: where it is, and the path as given
    /// (relative paths are shown as typed in messages).
    Local { path: PathBuf, shown: PathBuf },
    /// `https://host/path/chart-1.0.0.tgz`
    ArchiveUrl(String),
    /// `oci://registry/namespace/chart[:tag]`
    Oci {
        reference: String,
        version: Option<String>,
    },
    /// `--helm-chart-repo URL --helm-chart NAME`
    RepoUrl {
        repo_url: String,
        name: String,
        version: Option<String>,
    },
    /// `repo/name`, the repository being one added with `helm repo add`.
    RepoName {
        repo: String,
        name: String,
        version: Option<String>,
    },
}

impl ChartRef {
    /// Classify `--helm-chart`, as operator-sdk does: an existing path is local, anything
    /// else is looked up remotely. `base` resolves relative paths.
    pub fn parse(
        chart: &str,
        repo_url: Option<&str>,
        version: Option<&str>,
        base: &Path,
    ) -> Result<ChartRef> {
        let version = version.map(str::to_string);
        if let Some(repo_url) = repo_url {
            if !is_http(repo_url) {
                return Err(Error::invalid(format!(
                    "invalid --helm-chart-repo {repo_url:?}: must be an http:// or https:// repository URL (the address of its index.yaml without /index.yaml)"
                )));
            }
            return Ok(ChartRef::RepoUrl {
                repo_url: repo_url.trim_end_matches('/').to_string(),
                name: chart.to_string(),
                version,
            });
        }
        if chart.starts_with("oci://") {
            return Ok(ChartRef::Oci {
                reference: chart.to_string(),
                version,
            });
        }
        if is_http(chart) {
            return Ok(ChartRef::ArchiveUrl(chart.to_string()));
        }
        let path = base.join(chart);
        if path.exists() {
            return Ok(ChartRef::Local {
                path,
                shown: PathBuf::from(chart),
            });
        }
        match chart.split_once('/') {
            Some((repo, name)) if looks_like_repo_name(repo, name) => Ok(ChartRef::RepoName {
                repo: repo.to_string(),
                name: name.to_string(),
                version,
            }),
            _ => Err(Error::invalid(format!(
                "chart not found: {chart} does not exist; pass a chart directory, a .tgz archive, repo/name (a repository added with `helm repo add`), an https:// URL or oci://"
            ))),
        }
    }
}

fn is_http(s: &str) -> bool {
    s.starts_with("https://") || s.starts_with("http://")
}

fn looks_like_repo_name(repo: &str, name: &str) -> bool {
    let word = |s: &str| {
        !s.is_empty()
            && !s.starts_with('.')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    };
    word(repo)
        && word(name)
        && std::path::Path::new(name)
            .extension()
            .is_none_or(|ext| ext != "tgz")
}

/// The files of a chart (chart-relative names) and where they came from.
#[derive(Debug)]
pub struct FetchedChart {
    pub origin: PathBuf,
    pub files: Vec<ChartFile>,
    /// Our own starter chart, tested to render with its defaults under any kind's name.
    pub is_starter: bool,
}

/// The starter chart, named `name`.
pub fn starter(name: &str) -> FetchedChart {
    FetchedChart {
        origin: PathBuf::from(format!("starter chart {name}")),
        files: rusty_sdk_chart::starter::files(name)
            .into_iter()
            .map(|(name, text)| ChartFile {
                name,
                data: text.into_bytes(),
            })
            .collect(),
        is_starter: true,
    }
}

/// Get the files of the chart `chart` points at.
pub fn fetch(chart: &ChartRef, shell: &Shell) -> Result<FetchedChart> {
    match chart {
        ChartRef::Local { path, shown } if path.is_dir() => read_dir(path, shown),
        ChartRef::Local { path, shown } => {
            let limit = rusty_sdk_chart::archive::MAX_CHART_BYTES;
            let bytes =
                crate::scaffold::input::read_named(path, limit).map_err(|e| Error::io(shown, e))?;
            unpack(shown, &bytes)
        }
        remote_ref => {
            let (origin, bytes) = remote::download_chart(remote_ref, shell)?;
            unpack(Path::new(&origin), &bytes)
        }
    }
}

/// Every file of a chart directory that Helm would load, byte for byte, sorted by path
/// (read as the chart engine reads a directory: .helmignore, links followed, within the
/// limits of an archive). `shown` names the directory in messages.
fn read_dir(root: &Path, shown: &Path) -> Result<FetchedChart> {
    let files = rusty_sdk_chart::Chart::dir_files(root).map_err(|e| match e {
        ChartError::NotAChart(_) => not_a_chart(shown),
        ChartError::Io { path, source } => Error::io(path, source),
        ChartError::InvalidFile { file, message, .. } => {
            Error::invalid(format!("{}: {file}: {message}", shown.display()))
        }
        other => Error::invalid(format!("{}: {other}", shown.display())),
    })?;
    Ok(FetchedChart {
        origin: shown.to_path_buf(),
        files,
        is_starter: false,
    })
}

/// The files of a chart archive, its top-level folder (the chart's name) stripped, within
/// Helm's size limits.
pub fn unpack(origin: &Path, bytes: &[u8]) -> Result<FetchedChart> {
    let files = rusty_sdk_chart::archive::read_archive(origin, bytes).map_err(|e| match e {
        ChartError::NotAChart(_) => not_a_chart(origin),
        other => Error::invalid(format!(
            "{other}; pass a chart directory or a .tgz made by `helm package`"
        )),
    })?;
    Ok(FetchedChart {
        origin: origin.to_path_buf(),
        files,
        is_starter: false,
    })
}

fn not_a_chart(path: &Path) -> Error {
    Error::invalid(format!(
        "{} is not a Helm chart: it has no Chart.yaml; pass a chart directory (with Chart.yaml, values.yaml and templates/) or a .tgz made by `helm package`",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(chart: &str, repo: Option<&str>) -> Result<ChartRef> {
        ChartRef::parse(chart, repo, None, Path::new("/nonexistent-base"))
    }

    /// `create api` does not render the starter before staging it (the render would only
    /// cost time): this is what makes that safe, for short, long and numbered names.
    #[test]
    fn the_starter_renders_with_its_defaults_and_every_switch_under_any_name() {
        for name in ["a", "memcached", "cache2", &"k".repeat(63)] {
            let fetched = starter(name);
            assert!(fetched.is_starter);
            let chart = rusty_sdk_chart::Chart::from_files(Path::new(name), fetched.files).unwrap();
            let options = rusty_sdk_chart::RenderOptions::default();
            let rendered = rusty_sdk_chart::render(&chart, &serde_json::json!({}), &options);
            assert!(rendered.is_ok(), "{name}: {rendered:?}");
            let all = rusty_sdk_chart::all_objects(&chart).unwrap();
            assert!(
                all.failed_switches.is_empty(),
                "{name}: {:?}",
                all.failed_switches
            );
        }
    }

    #[test]
    fn chart_references_are_classified_like_operator_sdk() {
        assert_eq!(
            parse("https://example.com/c-1.0.0.tgz", None).unwrap(),
            ChartRef::ArchiveUrl("https://example.com/c-1.0.0.tgz".into())
        );
        assert!(matches!(
            parse("oci://ghcr.io/x/c:1.0.0", None).unwrap(),
            ChartRef::Oci { .. }
        ));
        assert_eq!(
            parse("bitnami/memcached", None).unwrap(),
            ChartRef::RepoName {
                repo: "bitnami".into(),
                name: "memcached".into(),
                version: None
            }
        );
        assert!(matches!(
            parse("memcached", Some("https://charts.example.com/")).unwrap(),
            ChartRef::RepoUrl { repo_url, .. } if repo_url == "https://charts.example.com"
        ));
        let err = parse("./missing/chart", None).unwrap_err().to_string();
        assert!(err.contains("chart not found: ./missing/chart"), "{err}");
        let err = parse("missing.tgz", None).unwrap_err().to_string();
        assert!(err.contains("chart not found"), "{err}");
        let err = parse("x", Some("ftp://x")).unwrap_err().to_string();
        assert!(err.contains("--helm-chart-repo"), "{err}");
    }

    #[test]
    fn archives_escaping_the_chart_folder_are_refused() {
        let mut builder = tar::Builder::new(Vec::new());
        let data = b"x";
        let mut header = tar::Header::new_gnu();
        header.set_size(1);
        header.set_mode(0o644);
        // set_path refuses `..`, so write the name bytes directly.
        header.as_gnu_mut().unwrap().name[..13].copy_from_slice(b"c/../../evil\0");
        header.set_cksum();
        builder.append(&header, &data[..]).unwrap();
        let tar = builder.into_inner().unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, &tar).unwrap();
        let err = unpack(Path::new("bad.tgz"), &gz.finish().unwrap())
            .unwrap_err()
            .to_string();
        assert!(err.contains("outside the chart folder"), "{err}");
        let err = unpack(Path::new("plain.tgz"), b"not gzip")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(
                "invalid chart archive plain.tgz: cannot be read as a gzipped tar archive"
            ),
            "{err}"
        );
    }
}
