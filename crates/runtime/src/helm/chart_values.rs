//! The chart's default values, read once per controller, so the values sent to Helm are
//! complete: an emptied spec means "chart defaults", never "the previous release's values"
//! (helm-operator-plugins pkg/reconciler/reconciler.go coalesces with
//! `chartutil.CoalesceValues` before every install and upgrade). Reading and merging follow
//! Helm's rules in `helm_values`, the chart engine's too; the release's values are merged
//! (Helm's `MergeValues`), so a `null` the user set still deletes its default when Helm
//! coalesces them again.
use std::path::Path;

use serde_json::Value;

/// Why the chart's defaults could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read default values of chart {chart}: {reason}")]
pub struct ChartValuesError {
    chart: String,
    reason: helm_values::ReadError,
}

/// `values.yaml` of a chart directory or packaged chart as JSON (`{}` when it has none).
pub(crate) fn chart_defaults(chart: &Path) -> Result<Value, ChartValuesError> {
    helm_values::read_chart_values(chart).map_err(|reason| ChartValuesError {
        chart: chart.display().to_string(),
        reason,
    })
}

/// The release's values over the chart's defaults, every `null` kept (Helm's
/// `MergeValues` for a chart known by its values.yaml).
pub(crate) fn merge_defaults(defaults: &Value, values: &Value) -> Value {
    helm_values::merge_values(&helm_values::Defaults(defaults), values)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Helm v4.2.3 renders such a chart's `.Values` as `{"a":true,"b":2,"mode":493}`
    /// (YAML 1.1 octal, documents merged); the runtime read `0755` as 755.0 and refused
    /// the second document.
    #[test]
    fn defaults_are_read_as_helm_reads_them() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("values.yaml"), "a: yes\nmode: 0755\n").unwrap();
        assert_eq!(
            chart_defaults(dir.path()).unwrap(),
            json!({"a": true, "mode": 493})
        );
        std::fs::write(
            dir.path().join("values.yaml"),
            "a: yes\nmode: 0755\n---\nb: 2\n",
        )
        .unwrap();
        assert_eq!(
            chart_defaults(dir.path()).unwrap(),
            json!({"a": true, "mode": 493, "b": 2})
        );
    }

    #[test]
    fn an_unreadable_values_file_names_the_chart() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("values.yaml"), "- a list\n").unwrap();
        let error = chart_defaults(dir.path()).unwrap_err().to_string();
        assert_eq!(
            error,
            format!(
                "cannot read default values of chart {}: values.yaml: cannot unmarshal yaml \
                 document: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal \
                 array into Go value of type map[string]interface {{}}",
                dir.path().display()
            )
        );
    }

    #[test]
    fn user_values_win_maps_merge_and_nulls_stay() {
        let defaults = json!({"replicaCount": 1, "image": {"repository": "memcached", "tag": "1.6"},
                              "service": {"port": 11211}, "extra": "d"});
        let values = json!({"image": {"tag": "1.7"}, "service": null, "extra": {"a": 1}});
        assert_eq!(
            merge_defaults(&defaults, &values),
            json!({"replicaCount": 1, "image": {"repository": "memcached", "tag": "1.7"},
                   "service": null, "extra": {"a": 1}})
        );
        assert_eq!(merge_defaults(&defaults, &json!({})), defaults);
    }
}
