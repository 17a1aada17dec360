//! The CRD of a Rust API, written when the API is created so that `config/` works before
//! the first `make manifests`. It must be exactly what the project's crdgen prints for the
//! scaffolded types (serde-saphyr's YAML of `K::crd()`); the template mirrors kube-derive's
//! output and an end-to-end test compares the two.
use super::context::RustApiContext;
use crate::error::Result;
use crate::templates::{self, Renderer};

/// The CRD YAML of one new kind, from the API's template variables.
pub fn render(variables: &RustApiContext, renderer: &mut Renderer) -> Result<String> {
    renderer.render("api/rust/crd.yaml.tera", &templates::context(variables)?)
}
