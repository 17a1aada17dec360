//! Errors of chart loading and rendering. Every message names the chart path or template
//! file and says what is wrong.
use std::path::PathBuf;

/// A chart could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    #[error("chart not found: {0} does not exist; pass a chart directory or a .tgz archive")]
    NotFound(PathBuf),
    #[error("{0} is not a Helm chart: it has no Chart.yaml")]
    NotAChart(PathBuf),
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("invalid chart archive {path}: {message}")]
    Archive { path: PathBuf, message: String },
    #[error("invalid Chart.yaml in {path}: {message}")]
    InvalidChartYaml { path: PathBuf, message: String },
    #[error("invalid {file} in {path}: {message}")]
    InvalidFile {
        path: PathBuf,
        file: String,
        message: String,
    },
}

/// A chart could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// A template does not parse: `parse error at (<chart>/templates/<file>:<line>): ...`.
    #[error("parse error at ({template}:{line}): {message}")]
    Parse {
        template: String,
        line: usize,
        col: usize,
        message: String,
    },
    /// A template failed while executing, in Helm's words: `template: <file>:<line>:<col>:
    /// executing ...`, or `execution error at (<file>:<line>:<col>): <message>` for
    /// `fail` and `required`.
    #[error("{0}")]
    Execute(String),
    /// The values do not satisfy values.schema.json.
    #[error(
        "values don't meet the specifications of the schema(s) in the following chart(s):\n{0}"
    )]
    Schema(String),
}

/// A rendered manifest is not valid YAML or lacks apiVersion/kind.
#[derive(Debug, thiserror::Error)]
#[error("{source_file}: {message}")]
pub struct ManifestError {
    pub source_file: String,
    pub message: String,
}

/// Loading or rendering failed while collecting a chart's objects.
#[derive(Debug, thiserror::Error)]
pub enum ObjectsError {
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Manifest(#[from] ManifestError),
}
