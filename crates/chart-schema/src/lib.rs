//! Helm charts' schemas, apart from rendering: a chart's values checked against its
//! values.schema.json as Helm checks them, and the structural OpenAPI v3 schema of a CRD
//! `spec` that holds a chart's values. A crate of its own because this is a job of its
//! own with dependencies of its own (the draft metaschemas, percent-decoding of `$ref`s,
//! deep-recursion guards) that the engine does not need.
//!
//! * [`check_schema`] is Helm's check of a values.schema.json itself (against its
//!   draft's metaschema); [`validate_json_schema`] checks values against it, reporting
//!   in the order and words of Helm's validator (santhosh-tekuri/jsonschema v6).
//! * [`crd_spec_schema`] converts a values.schema.json into a structural schema, or
//!   infers one from values.yaml; [`validate_against_schema`] checks a value against
//!   such a schema, unknown fields refused as the API server would drop them.
//! * [`re2`] translates Go's regexp syntax, which schema patterns and formats are written
//!   in; the chart engine's regex functions use it too.
use serde_json::Value;

mod convert;
mod infer;
pub mod re2;
mod validate;

pub use validate::{check_schema, validate_against_schema, validate_json_schema};

/// The structural OpenAPI v3 schema for a CRD's `spec` that holds a chart's values:
/// converted from the chart's values.schema.json when it has one, inferred from its
/// values.yaml otherwise. Defaults are not copied (they live in the chart).
pub fn crd_spec_schema(values_schema: Option<&Value>, values: &Value) -> Value {
    match values_schema {
        Some(schema) => convert::to_structural(schema, values),
        None => infer::from_values(values),
    }
}
