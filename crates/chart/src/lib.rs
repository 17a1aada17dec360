//! Helm charts read and rendered in Rust: load a chart (directory or .tgz), render it
//! byte-for-byte like Helm's engine, split the output into objects, and infer a CRD
//! schema from the chart's values.
//!
//! * [`Chart::load`] reads a chart (honouring `.helmignore`, unpacking
//!   subchart archives); YAML is read as Helm reads it (YAML 1.1 scalars).
//! * [`render`] is Helm's engine: dependency processing (condition, tags, alias,
//!   import-values), value coalescing, values.schema.json, then every template with
//!   Helm's objects and functions on `gotemplate` (`crates/gotemplate`, Go's
//!   text/template written here; maps are shared references, so `set` on `.Values` or on the
//!   caller's dot changes them in place as in Helm). The sprig library lives
//!   in [`sprig`]; Helm's own functions and a go-yaml compatible `toYaml` in [`funcs`].
//! * [`split_manifests`], [`all_objects`] and [`switches_overlay`] turn renders into
//!   Kubernetes objects; [`crd_schema`] gives a structural schema for a CRD `spec`.
//! * [`starter::files`] is what `helm create` writes (Helm v4.2.3).
pub mod archive;
mod chart;
mod convert;
mod dependencies;
pub mod engine;
mod error;
pub mod funcs;
mod glob;
mod gofmt;
mod gojson;
pub mod helmignore;
mod load;
mod manifests;
mod metadata;
pub mod schema;
pub mod sprig;
pub mod starter;
mod values;
/// The YAML reader, shared with the runtime: `crate::yaml` in this crate's modules.
use helm_values::yaml;

pub use chart::{Chart, ChartFile};
pub use dependencies::process as process_dependencies;
pub use engine::{Capabilities, HelmVersion, KubeVersion, Lookup, RenderOptions, render};
pub use error::{ChartError, ManifestError, ObjectsError, RenderError};
pub use funcs::yaml_emit::json_to_yaml;
pub use helm_values::yaml::parse as parse_yaml;
pub use helmignore::HelmIgnore;
pub use manifests::{
    ChartObjects, FailedSwitch, HookKind, Manifest, all_objects, split_manifests, switches_overlay,
};
pub use metadata::{ChartMetadata, Dependency, Maintainer};
pub use schema::{crd_schema, validate_against_schema};
