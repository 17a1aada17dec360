//! The sample custom resource of a Helm API: its spec is the chart's values.yaml, so
//! `kubectl apply -f config/samples/...` installs the chart with its defaults. Keys are
//! sorted, as operator-sdk writes them (`yaml.Marshal` of the values) and as the tutorial
//! shows them; values.yaml's comments stay in the chart.
use serde_json::Value;

use crate::model::ApiSpec;
use rusty_sdk_chart::json_to_yaml;

/// The sample file. `values_origin` is the values file path shown in the comment
/// (`<project dir>/helm-charts/<chart>/values.yaml`).
pub fn sample_yaml(spec: &ApiSpec, values: &Value, values_origin: &str) -> String {
    let comment = format!("# Default values copied from {values_origin}");
    let body = match values {
        Value::Object(map) if !map.is_empty() => {
            format!(
                "spec:\n  {comment}\n{}",
                indent(&json_to_yaml(values), "  ")
            )
        }
        _ => format!("{comment} (it sets none)\nspec: {{}}\n"),
    };
    format!(
        "apiVersion: {}/{}\nkind: {}\nmetadata:\n  name: {}-sample\n{body}",
        spec.qualified_group(),
        spec.version,
        spec.kind,
        spec.kind.lower()
    )
}

/// Every non-empty line of `text` prefixed with `pad`.
fn indent(text: &str, pad: &str) -> String {
    text.lines()
        .map(|line| {
            if line.is_empty() {
                "\n".to_string()
            } else {
                format!("{pad}{line}\n")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Group, Kind, Version};
    use crate::project::Project;
    use serde_json::json;

    fn spec() -> ApiSpec {
        ApiSpec::new(
            &Project::default(),
            Group::parse("cache").unwrap(),
            Version::parse("v1").unwrap(),
            Kind::parse("Memcached").unwrap(),
            None,
            true,
        )
        .unwrap()
    }

    #[test]
    fn spec_holds_the_values_sorted_under_the_comment() {
        let values = json!({"b": 1, "a": {"y": [], "x": ""}});
        assert_eq!(
            sample_yaml(&spec(), &values, "op/helm-charts/memcached/values.yaml"),
            "apiVersion: cache.my.domain/v1\nkind: Memcached\nmetadata:\n  name: memcached-sample\nspec:\n  # Default values copied from op/helm-charts/memcached/values.yaml\n  a:\n    x: \"\"\n    \"y\": []\n  b: 1\n"
        );
    }

    #[test]
    fn a_chart_without_values_gets_an_empty_spec() {
        let text = sample_yaml(&spec(), &json!({}), "op/helm-charts/memcached/values.yaml");
        assert!(text.ends_with("(it sets none)\nspec: {}\n"), "{text}");
        let parsed: serde_json::Value = serde_yaml::from_str(&text).unwrap();
        assert_eq!(parsed["spec"], json!({}));
    }
}
