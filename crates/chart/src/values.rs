//! The values a chart renders with: Helm's coalescing (`helm_values`, shared with the
//! runtime) over a loaded chart and its subcharts, and Helm's refusal of a subchart
//! section that is not a map.
use serde_json::Value;

use crate::chart::Chart;

impl helm_values::Chart for Chart {
    fn name(&self) -> &str {
        Chart::name(self)
    }

    fn values(&self) -> &Value {
        &self.values
    }

    fn subcharts(&self) -> &[Self] {
        &self.dependencies
    }
}

/// Helm's refusal of a subchart section that is not a map: `type mismatch on <sub>:
/// <value as Go's %t prints it>`, for the coalesced values (a user `null` or scalar in
/// the section's place) and, with `defaults_too`, for a parent's own default
/// (`<sub>: null` too, which Helm's import-values pass merges without dropping), depth
/// first as Helm coalesces.
pub(crate) fn subchart_sections(
    chart: &Chart,
    merged: &Value,
    defaults_too: bool,
) -> Result<(), String> {
    let declares = defaults_too && !chart.metadata.dependencies.is_empty();
    for sub in &chart.dependencies {
        let own_default = chart.values.get(sub.name());
        let section = match (merged.get(sub.name()), own_default) {
            (_, Some(Value::Null)) if declares => &Value::Null,
            (Some(v), _) => v,
            (None, _) => continue,
        };
        if !section.is_object() {
            let shown = gotemplate::fmt::sprintf("%t", &[crate::convert::to_template(section)]);
            return Err(format!("type mismatch on {}: {shown}", sub.name()));
        }
        subchart_sections(sub, section, defaults_too)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn merged_values_fill_subchart_sections_and_globals() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/charts/parent");
        let chart = Chart::load(&dir).unwrap();
        let merged = chart.merged_values(&json!({"child": {"replicas": 5}}));
        assert_eq!(merged["child"]["replicas"], json!(5));
        assert_eq!(merged["child"]["greeting"], json!("hello from parent"));
        assert_eq!(merged["child"]["global"]["env"], json!("production"));
        assert_eq!(merged["child"]["global"]["region"], json!("eu-west-1"));
        assert_eq!(merged["exportedValue"], json!("from-child-exports"));
        assert!(
            merged.get("extra").is_none(),
            "extra is disabled by its tag"
        );
    }

    /// `helm template` (v4.2.3) of this chart with `--set-json 'child={"w":1}'` renders the
    /// child's values as `{"global":{"g":1},"keep":2,"w":1,"z":3}`: the parent's `x: null`
    /// for the section deletes the child's `x` (Helm's dependency pass merges the parent's
    /// defaults, nulls kept); without a section given the child keeps it. We kept it in both.
    #[test]
    fn a_parent_null_reaches_a_given_subchart_section() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            (
                "Chart.yaml",
                "apiVersion: v2\nname: t\nversion: 0.1.0\ndependencies:\n- name: child\n  version: 0.1.0\n",
            ),
            ("values.yaml", "child:\n  x: null\n  keep: 2\n"),
            (
                "charts/child/Chart.yaml",
                "apiVersion: v2\nname: child\nversion: 0.1.0\n",
            ),
            (
                "charts/child/values.yaml",
                "x: childdefault\nz: 3\nglobal:\n  g: 1\n",
            ),
        ];
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let chart = Chart::load(dir.path()).unwrap();
        let given = chart.merged_values(&json!({"child": {"w": 1}}));
        assert_eq!(
            given["child"],
            json!({"w": 1, "keep": 2, "z": 3, "global": {"g": 1}})
        );
        let not_given = chart.merged_values(&json!({}));
        assert_eq!(not_given["child"]["x"], json!("childdefault"));
    }

    /// Helm's words, checked with its engine (the differential table has these too).
    #[test]
    fn a_subchart_section_that_is_not_a_map_is_refused() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/charts/parent");
        let chart = Chart::load(&dir).unwrap();
        let refused = |user: Value| {
            let merged = helm_values::coalesce_values(&chart, &user);
            subchart_sections(&chart, &merged, false).unwrap_err()
        };
        assert_eq!(
            refused(json!({"child": 5})),
            "type mismatch on child: %!t(float64=5)"
        );
        assert_eq!(
            refused(json!({"child": "x"})),
            "type mismatch on child: %!t(string=x)"
        );
        assert_eq!(
            refused(json!({"child": true})),
            "type mismatch on child: true"
        );
        assert_eq!(
            refused(json!({"child": [1, "b"]})),
            "type mismatch on child: [%!t(float64=1) %!t(string=b)]"
        );
        let merged = helm_values::coalesce_values(&chart, &json!({"child": {"replicas": 2}}));
        assert_eq!(subchart_sections(&chart, &merged, true), Ok(()));
    }
}
