//! Helm charts read and rendered in Rust: load a chart (directory or .tgz), render it
//! byte-for-byte like Helm's engine, split the output into objects, and infer a CRD
//! schema from the chart's values.
mod convert;
mod dependencies;
pub mod engine;
mod error;
pub mod funcs;
mod glob;
mod gofmt;
mod helmignore;
mod load;
mod manifests;
mod metadata;
pub mod schema;
pub mod sprig;
pub mod starter;
mod values;
mod yaml;

pub use engine::{Capabilities, HelmVersion, KubeVersion, RenderOptions, render};
pub use error::{ChartError, ManifestError, ObjectsError, RenderError};
pub use load::{Chart, ChartFile};
pub use manifests::{HookKind, Manifest, all_objects, split_manifests, switches_overlay};
pub use metadata::{ChartMetadata, Dependency, Maintainer};
pub use schema::{crd_schema, validate_against_schema};

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
        self.schema.as_ref()
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
