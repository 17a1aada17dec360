//! The sample custom resource of a Helm API: its spec is the chart's values.yaml, so
//! `kubectl apply -f config/samples/...` installs the chart with its defaults. Keys are
//! sorted, as operator-sdk writes them (`yaml.Marshal` of the values) and as the tutorial
//! shows them; values.yaml's comments stay in the chart.
use serde_json::Value;

use super::block_yaml::{sorted, to_block_yaml};
use crate::commands::create_api::common::ApiSpec;

/// The sample file. `values_origin` is the values file path shown in the comment
/// (`<project dir>/helm-charts/<chart>/values.yaml`).
pub fn sample_yaml(spec: &ApiSpec, values: &Value, values_origin: &str) -> String {
    let comment = format!("# Default values copied from {values_origin}");
    let body = match values {
        Value::Object(map) if !map.is_empty() => {
            format!("spec:\n  {comment}\n{}", to_block_yaml(&sorted(values), 2))
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
