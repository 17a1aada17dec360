//! values.schema.json validation (placeholder replaced below).
use crate::error::RenderError;
use crate::load::Chart;

pub(crate) fn validate_chart_values(
    _chart: &Chart,
    _values: &serde_json::Value,
) -> Result<(), RenderError> {
    Ok(())
}
