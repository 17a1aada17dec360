//! Chart.yaml: the chart's metadata and its declared dependencies.
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The contents of Chart.yaml (Helm's `chart.Metadata`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChartMetadata {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub app_version: String,
    #[serde(default)]
    pub description: String,
    #[serde(default, rename = "type")]
    pub chart_type: String,
    #[serde(default)]
    pub kube_version: String,
    #[serde(default)]
    pub home: String,
    #[serde(default)]
    pub icon: String,
    #[serde(default)]
    pub sources: Vec<String>,
    #[serde(default)]
    pub keywords: Vec<String>,
    #[serde(default)]
    pub maintainers: Vec<Maintainer>,
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
    #[serde(default)]
    pub deprecated: bool,
    #[serde(default)]
    pub condition: String,
    #[serde(default)]
    pub tags: String,
    #[serde(default)]
    pub dependencies: Vec<Dependency>,
}

/// One maintainer entry of Chart.yaml.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Maintainer {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub email: String,
    #[serde(default)]
    pub url: String,
}

/// One entry of Chart.yaml `dependencies` (or requirements.yaml for apiVersion v1).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Dependency {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub version: String,
    #[serde(default)]
    pub repository: String,
    #[serde(default)]
    pub condition: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub alias: String,
    /// Strings (`data`, meaning `exports.data`) or `{child, parent}` maps.
    #[serde(default)]
    pub import_values: Vec<serde_json::Value>,
}

impl ChartMetadata {
    /// Parse and validate Chart.yaml text; the error says which field is wrong.
    pub(crate) fn parse(text: &str) -> Result<ChartMetadata, String> {
        let meta: ChartMetadata = serde_yaml::from_str(text).map_err(|e| e.to_string())?;
        meta.validate()?;
        Ok(meta)
    }

    fn validate(&self) -> Result<(), String> {
        if self.api_version.is_empty() {
            return Err("field `apiVersion` is required (v2, or v1 for old charts)".into());
        }
        if self.api_version != "v1" && self.api_version != "v2" {
            return Err(format!(
                "field `apiVersion` is {:?}; Helm supports v1 and v2",
                self.api_version
            ));
        }
        if self.name.is_empty() {
            return Err("field `name` is required".into());
        }
        if self.name.contains('/') || self.name.contains('\\') {
            return Err(format!(
                "field `name` {:?} must not contain a path separator",
                self.name
            ));
        }
        if self.version.is_empty() {
            return Err("field `version` is required (a SemVer 2 version such as 0.1.0)".into());
        }
        if !is_semver(&self.version) {
            return Err(format!(
                "field `version` {:?} is not a valid SemVer 2 version",
                self.version
            ));
        }
        if !self.chart_type.is_empty()
            && self.chart_type != "application"
            && self.chart_type != "library"
        {
            return Err(format!(
                "field `type` is {:?}; use `application` or `library`",
                self.chart_type
            ));
        }
        for dep in &self.dependencies {
            if dep.name.is_empty() {
                return Err("a `dependencies` entry has no `name`".into());
            }
        }
        Ok(())
    }

    /// True for a `type: library` chart, which renders nothing itself.
    pub fn is_library(&self) -> bool {
        self.chart_type == "library"
    }
}

/// Helm accepts versions like `1`, `1.2`, `v1.2.3`, `1.2.3-rc.1+build` (Masterminds semver).
fn is_semver(version: &str) -> bool {
    let v = version.strip_prefix('v').unwrap_or(version);
    let core_end = v.find(['-', '+']).unwrap_or(v.len());
    let core = &v[..core_end];
    let parts: Vec<&str> = core.split('.').collect();
    !parts.is_empty()
        && parts.len() <= 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        && v[core_end..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.'))
}
