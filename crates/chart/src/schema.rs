//! A chart's schemas: its values checked against each chart's values.schema.json at
//! render time, and the structural OpenAPI v3 schema for a CRD's `spec` (inferred from
//! values.yaml, or converted from values.schema.json). The schema rules themselves live in
//! `chart-schema`; this module walks a loaded chart tree with them.
use std::fmt::Write as _;

use chart_schema::validate_json_schema;
use serde_json::Value;

use crate::chart::Chart;
use crate::error::RenderError;
use helm_values::without_nulls;

pub(crate) use chart_schema::check_schema;
pub use chart_schema::validate_against_schema;

/// The structural OpenAPI v3 schema for a CRD's `spec` that holds this chart's values:
/// converted from values.schema.json when the chart has one, inferred from values.yaml
/// otherwise. Defaults are not copied (they live in the chart).
pub fn crd_schema(chart: &Chart) -> Value {
    chart_schema::crd_spec_schema(chart.schema(), chart.values())
}

/// Helm's check of the merged values against each chart's values.schema.json, subcharts
/// against their own section.
pub(crate) fn validate_chart_values(chart: &Chart, values: &Value) -> Result<(), RenderError> {
    let mut report = String::new();
    collect_violations(chart, values, &mut report);
    if report.is_empty() {
        Ok(())
    } else {
        Err(RenderError::Schema(report))
    }
}

fn collect_violations(chart: &Chart, values: &Value, report: &mut String) {
    if let Err(problem) = chart.schema_problem() {
        // An invalid schema is reported as Helm's compiler words it, with no newline
        // after it.
        // (Writing to a String cannot fail.)
        let _ = write!(report, "{}:\n{problem}", chart.name());
    } else if let Some(schema) = chart.schema() {
        // Helm validates without the keys whose value is null.
        if let Err(errors) = validate_json_schema(&without_nulls(values), schema) {
            let _ = writeln!(report, "{}:", chart.name());
            for e in errors {
                // A schema that cannot be loaded is reported as it is; violations are
                // listed, each `- at '<path>': ...`.
                let bullet = if e.starts_with("at '") { "- " } else { "" };
                let _ = writeln!(report, "{bullet}{e}");
            }
        }
    }
    for sub in chart.dependencies() {
        let empty = Value::Object(serde_json::Map::default());
        let sub_values = values.get(sub.name()).unwrap_or(&empty);
        collect_violations(sub, sub_values, report);
    }
}
