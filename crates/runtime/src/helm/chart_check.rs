//! Is a path a Helm chart? A directory with Chart.yaml, or a gzipped tar whose top
//! directory holds Chart.yaml (what `helm package` writes).
use std::fs::File;
use std::path::Path;

use flate2::read::GzDecoder;

/// Why a chart path is not usable.
#[derive(Debug, thiserror::Error)]
pub enum ChartProblem {
    #[error("not found (paths are relative to the working directory)")]
    NotFound,
    #[error("directory has no Chart.yaml")]
    NoChartYaml,
    #[error("archive has no <chart>/Chart.yaml")]
    ArchiveWithoutChartYaml,
    #[error("cannot read chart archive: {0}")]
    Unreadable(std::io::Error),
}

pub(crate) fn check_chart(path: &Path) -> Result<(), ChartProblem> {
    let metadata = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ChartProblem::NotFound,
        _ => ChartProblem::Unreadable(e),
    })?;
    if metadata.is_dir() {
        return if path.join("Chart.yaml").is_file() {
            Ok(())
        } else {
            Err(ChartProblem::NoChartYaml)
        };
    }
    match archive_has_chart_yaml(path) {
        Ok(true) => Ok(()),
        Ok(false) => Err(ChartProblem::ArchiveWithoutChartYaml),
        Err(e) => Err(ChartProblem::Unreadable(e)),
    }
}

fn archive_has_chart_yaml(path: &Path) -> std::io::Result<bool> {
    let mut archive = tar::Archive::new(GzDecoder::new(File::open(path)?));
    for entry in archive.entries()? {
        let entry = entry?;
        let entry_path = entry.path()?;
        let parts: Vec<_> = entry_path.components().collect();
        if parts.len() == 2 && parts[1].as_os_str() == "Chart.yaml" {
            return Ok(true);
        }
    }
    Ok(false)
}
