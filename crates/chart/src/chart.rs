//! The loaded chart and what it offers (loading itself is in `load`).
use std::path::PathBuf;

use serde_json::Value;

use crate::metadata::ChartMetadata;

/// A file of a chart: its chart-relative path and contents.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartFile {
    pub name: String,
    pub data: Vec<u8>,
}

impl ChartFile {
    /// The contents as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.data).into_owned()
    }
}

/// A loaded Helm chart with its subcharts.
#[derive(Debug, Clone)]
pub struct Chart {
    pub(crate) source: PathBuf,
    pub(crate) metadata: ChartMetadata,
    // Shared, like the files below: dependency processing copies the chart tree for
    // every render and replaces only the values of charts with dependencies.
    pub(crate) values: std::sync::Arc<Value>,
    pub(crate) values_yaml: std::sync::Arc<str>,
    pub(crate) schema: Option<std::sync::Arc<Value>>,
    /// Helm's check of values.schema.json against its draft's metaschema, made on the
    /// first render that needs it and shared by the copies of the chart.
    pub(crate) schema_check: std::sync::Arc<std::sync::OnceLock<Result<(), String>>>,
    /// Shared, so that the per-render copy made by dependency processing is cheap.
    pub(crate) templates: std::sync::Arc<Vec<ChartFile>>,
    /// Parsed template sets of earlier renders (shared by clones of this chart).
    pub(crate) render_cache: crate::engine::RenderCache,
    pub(crate) files: std::sync::Arc<Vec<ChartFile>>,
    pub(crate) dependencies: Vec<Chart>,
}

impl Chart {
    /// The chart's name (Chart.yaml `name`, or its alias when used as a subchart).
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// Chart.yaml.
    pub fn metadata(&self) -> &ChartMetadata {
        &self.metadata
    }

    /// values.yaml as parsed, key order kept (an empty map when there is none).
    pub fn values(&self) -> &serde_json::Value {
        &self.values
    }

    /// The raw text of values.yaml ("" when there is none).
    pub fn values_yaml(&self) -> &str {
        &self.values_yaml
    }

    /// values.schema.json, when the chart has one.
    pub fn schema(&self) -> Option<&serde_json::Value> {
        self.schema.as_deref()
    }

    /// `Err` with Helm's message when values.schema.json is not a valid schema of its
    /// draft (Helm refuses the chart then, whatever the values).
    pub(crate) fn schema_problem(&self) -> Result<(), &str> {
        let Some(schema) = self.schema() else {
            return Ok(());
        };
        self.schema_check
            .get_or_init(|| crate::schema::check_schema(schema))
            .as_ref()
            .map_err(String::as_str)
            .copied()
    }

    /// The values a render with `user` values sees at the top level: dependencies
    /// processed, user values over the defaults, subchart sections and globals filled in
    /// (Helm's `helm template --debug` "COMPUTED VALUES").
    pub fn merged_values(&self, user: &Value) -> Value {
        let processed = crate::dependencies::process(self, user);
        helm_values::coalesce_values(&processed, user)
    }

    /// Where the chart was loaded from.
    pub fn source(&self) -> &std::path::Path {
        &self.source
    }

    /// Template files (chart-relative names such as `templates/deployment.yaml`).
    pub fn templates(&self) -> &[ChartFile] {
        &self.templates
    }

    /// Other files of the chart (what `.Files` sees), including crds/.
    pub fn files(&self) -> &[ChartFile] {
        &self.files
    }

    /// Subcharts found under charts/.
    pub fn dependencies(&self) -> &[Chart] {
        &self.dependencies
    }

    /// Files under crds/ of this chart and its subcharts, named like rendered templates:
    /// `<chart>/crds/x.yaml`, `<chart>/charts/<sub>/crds/x.yaml`.
    pub fn crds(&self) -> Vec<ChartFile> {
        let mut out = Vec::new();
        self.collect_crds(self.name(), &mut out);
        out
    }

    fn collect_crds(&self, path: &str, out: &mut Vec<ChartFile>) {
        for f in self.files.iter().filter(|f| f.name.starts_with("crds/")) {
            out.push(ChartFile {
                name: format!("{path}/{}", f.name),
                data: f.data.clone(),
            });
        }
        for sub in &self.dependencies {
            sub.collect_crds(&format!("{path}/charts/{}", sub.name()), out);
        }
    }
}
