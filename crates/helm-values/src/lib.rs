//! Helm's values, in one place for the chart engine (`rusty-sdk-chart`) and the operator
//! runtime (`rusty-sdk-runtime`, which needs them with or without that engine): a fix here
//! reaches both.
//!
//! * [`yaml`] reads YAML the way Helm does (go-yaml v2 behind sigs.k8s.io/yaml: YAML 1.1
//!   scalars, map keys as strings, anchors and merge keys).
//! * [`load_values`] is Helm's `LoadValues` (every document of a values file merged);
//!   [`read_chart_values`] finds and reads `values.yaml` in a chart directory or package.
//! * [`coalesce_values`] and [`merge_values`] are Helm's `CoalesceValues` and
//!   `MergeValues` (pkg/chart/common/util/coalesce.go): a release's values over the
//!   defaults of a chart and its subcharts, `global` copied down.
mod coalesce;
mod file;
pub mod yaml;
mod yaml_indent;

pub use coalesce::{
    Chart, Defaults, coalesce_tables, coalesce_values, merge_values, path_value, without_nulls,
};
pub use file::{ReadError, load_values, read_chart_values, yaml_conversion_error};
