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
    #[serde(default, deserialize_with = "lenient::strings")]
    pub sources: Vec<String>,
    #[serde(default, deserialize_with = "lenient::strings")]
    pub keywords: Vec<String>,
    #[serde(default)]
    pub maintainers: Vec<Maintainer>,
    #[serde(default, deserialize_with = "lenient::string_map")]
    pub annotations: BTreeMap<String, String>,
    /// Chart.yaml has no annotations (or `annotations: null`): Helm's map is then nil,
    /// which `toJson` and `toYaml` print as `null` (an empty one prints `{}`).
    #[serde(skip)]
    pub annotations_nil: bool,
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
    #[serde(default, deserialize_with = "lenient::strings")]
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
        // A field set to null is Go's zero value (`dependencies:` with no items loads);
        // inside a field (an annotation set to null) the scalar rules below apply.
        let mut value = value;
        if let Some(fields) = value.as_object_mut() {
            fields.retain(|_, v| !v.is_null());
        }
        let annotations_nil = value.get("annotations").is_none();
        let mut meta: ChartMetadata = serde_json::from_value(value).map_err(|e| e.to_string())?;
        meta.annotations_nil = annotations_nil;
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

/// sigs.k8s.io/yaml fills a Go string field (annotations' values and list items too)
/// from any scalar: `name: y` is "true", `appVersion: 1.10` is "1.1", integers in
/// decimal (`0x10` is "16") and floats as `strconv.FormatFloat(f, 'g', -1, 32)`; so do we.
mod lenient {
    use std::collections::BTreeMap;

    use gotemplate::fmt::format_float32;
    use serde::{Deserialize, Deserializer, de::Error};
    use serde_json::Value;

    fn text(v: Value) -> Result<String, String> {
        match v {
            Value::Null => Ok(String::new()),
            Value::String(s) => Ok(s),
            Value::Bool(b) => Ok(b.to_string()),
            Value::Number(n) if n.is_i64() || n.is_u64() => Ok(n.to_string()),
            Value::Number(n) => Ok(format_float32(n.as_f64().unwrap_or_default(), b'g', -1)),
            other => Err(format!("expected a string, found {other}")),
        }
    }

    pub fn string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        text(Value::deserialize(d)?).map_err(D::Error::custom)
    }

    pub fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        match Value::deserialize(d)? {
            Value::Null => Ok(Vec::new()),
            Value::Array(items) => items
                .into_iter()
                .map(|v| text(v).map_err(D::Error::custom))
                .collect(),
            other => Err(D::Error::custom(format!("expected a list, found {other}"))),
        }
    }

    pub fn string_map<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<String, String>, D::Error> {
        match Value::deserialize(d)? {
            Value::Null => Ok(BTreeMap::new()),
            Value::Object(map) => map
                .into_iter()
                .map(|(k, v)| text(v).map(|t| (k, t)).map_err(D::Error::custom))
                .collect(),
            other => Err(D::Error::custom(format!("expected a map, found {other}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values are what Helm v4.2.3 (helm-python-sdk 0.2.2) gives for the same
    /// Chart.yaml through `.Chart.Annotations` and `.Chart.AppVersion`.
    #[test]
    fn scalars_become_strings_as_sigs_yaml_makes_them() {
        let meta = ChartMetadata::parse(
            "apiVersion: v2\nname: meta\nversion: 0.1.0\nappVersion: 1.10\nkeywords: [1, yes]\n\
             annotations:\n  a: true\n  b: yes\n  c: 1.0\n  d: 0x10\n  e: 012\n  f: 1e3\n  \
             h: 123456789012345678901\n  i: 1.50\n",
        )
        .unwrap();
        let got: Vec<String> = meta
            .annotations
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        assert_eq!(
            got.join("|"),
            "a=true|b=true|c=1|d=16|e=10|f=1000|h=1.2345679e+20|i=1.5"
        );
        assert_eq!(meta.app_version, "1.1");
        assert_eq!(meta.keywords, ["1", "true"]);
    }

    /// helm v4.2.3 renders `.Chart.AppVersion` of `appVersion: 186839.125` as 186839.12
    /// and an annotation of 2800147.25 as 2.8001472e+06: the float32 lies halfway between
    /// two shortest candidates and Go's `FormatFloat` takes the even one.
    #[test]
    fn float_scalars_are_go_float32_text() {
        let meta = ChartMetadata::parse(
            "apiVersion: v2\nname: meta\nversion: 0.1.0\nappVersion: 186839.125\n\
             annotations:\n  p: 2800147.25\n  q: 1e-5\n  r: 0.0001\n",
        )
        .unwrap();
        assert_eq!(meta.app_version, "186839.12");
        let annotations: Vec<&str> = meta.annotations.values().map(String::as_str).collect();
        assert_eq!(annotations, ["2.8001472e+06", "1e-05", "0.0001"]);
    }
}
