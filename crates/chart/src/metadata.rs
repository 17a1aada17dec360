//! Chart.yaml: the chart's metadata and its declared dependencies.
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The contents of Chart.yaml (Helm's `chart.Metadata`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChartMetadata {
    #[serde(default, deserialize_with = "lenient::string")]
    pub api_version: String,
    #[serde(default, deserialize_with = "lenient::string")]
    pub name: String,
    #[serde(default, deserialize_with = "lenient::string")]
    pub version: String,
    #[serde(default, deserialize_with = "lenient::string")]
    pub app_version: String,
    #[serde(default, deserialize_with = "lenient::string")]
    pub description: String,
    #[serde(default, rename = "type", deserialize_with = "lenient::string")]
    pub chart_type: String,
    #[serde(default, deserialize_with = "lenient::string")]
    pub kube_version: String,
    #[serde(default, deserialize_with = "lenient::string")]
    pub home: String,
    #[serde(default, deserialize_with = "lenient::string")]
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
    #[serde(default, deserialize_with = "lenient::string")]
    pub condition: String,
    #[serde(default, deserialize_with = "lenient::string")]
    pub tags: String,
    #[serde(default)]
    pub dependencies: Vec<Dependency>,
}

/// One maintainer entry of Chart.yaml.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Maintainer {
    #[serde(default, deserialize_with = "lenient::string")]
    pub name: String,
    #[serde(default, deserialize_with = "lenient::string")]
    pub email: String,
    #[serde(default, deserialize_with = "lenient::string")]
    pub url: String,
}

/// One entry of Chart.yaml `dependencies` (or requirements.yaml for apiVersion v1).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Dependency {
    #[serde(default, deserialize_with = "lenient::string")]
    pub name: String,
    #[serde(default, deserialize_with = "lenient::string")]
    pub version: String,
    #[serde(default, deserialize_with = "lenient::string")]
    pub repository: String,
    #[serde(default, deserialize_with = "lenient::string")]
    pub condition: String,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default, deserialize_with = "lenient::string")]
    pub alias: String,
    /// Strings (`data`, meaning `exports.data`) or `{child, parent}` maps.
    #[serde(default)]
    pub import_values: Vec<serde_json::Value>,
}

impl ChartMetadata {
    /// Parse and validate Chart.yaml text; the error says which field is wrong.
    pub(crate) fn parse(text: &str) -> Result<ChartMetadata, String> {
        let value = crate::yaml::parse(text)?;
        if !value.is_object() {
            return Err("the file must be a YAML map of fields".into());
        }
        let meta: ChartMetadata = serde_json::from_value(value).map_err(|e| e.to_string())?;
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

/// sigs.k8s.io/yaml fills a Go string field from any scalar (`name: y` is "true",
/// `appVersion: 1.10` is "1.1"); so do we.
mod lenient {
    use serde::{Deserialize, Deserializer, de::Error};
    use serde_json::Value;

    pub fn string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        match Value::deserialize(d)? {
            Value::Null => Ok(String::new()),
            Value::String(s) => Ok(s),
            Value::Bool(b) => Ok(b.to_string()),
            Value::Number(n) => Ok(crate::gofmt::number_text(&n)),
            other => Err(D::Error::custom(format!(
                "expected a string, found {other}"
            ))),
        }
    }
}
