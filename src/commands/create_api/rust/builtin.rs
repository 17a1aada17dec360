//! Controllers for Kubernetes' own kinds: `create api --group apps --version v1 --kind
//! Deployment --resource=false --controller`, as kubebuilder scaffolds controllers for core
//! types. There is no type to write and no CRD, only the controller, its registration and
//! a PROJECT entry (without `api`, so nothing takes it for one of the project's CRDs).
use super::context::WatchControllerContext;
use super::files;
use super::named::ControllerName;
use crate::error::{Error, Result};
use crate::model::ApiSpec;
use crate::model::builtin::BuiltinApi;
use crate::project::Resource;
use crate::rbac::resources::BuiltinKind;
use crate::scaffold::{Policy, Tree};
use crate::templates::{self, Renderer};

/// Stage the controller of built-in kind `api`, its module line and its start in main.rs;
/// return the kind's PROJECT entry, to which the caller adds the controller.
pub fn stage(
    api: &BuiltinApi,
    tree: &mut Tree,
    renderer: &mut Renderer,
    controller: &ControllerName,
) -> Result<Resource> {
    let kind = api.kind();
    let rbac_group = if kind.group.is_empty() {
        "core"
    } else {
        kind.group
    };
    let watched = WatchedType {
        kind: kind.kind,
        type_name: kind.kind.to_string(),
        type_path: api.type_path(),
        api_version: api.api_version(),
        namespaced: api.namespaced(),
        rbac_group,
        plural: kind.plural,
        external: false,
        payload: payload(kind),
    };
    stage_watch_controller(tree, renderer, controller, &watched)?;
    Ok(api.resource())
}

/// A type the project does not own, as the controller template needs it.
pub struct WatchedType<'a> {
    pub kind: &'a str,
    /// The Rust type (`DnsEndpoint` for kind `DNSEndpoint`).
    pub type_name: String,
    /// The module that holds it.
    pub type_path: String,
    /// `apps/v1`, or `v1` for the core group.
    pub api_version: String,
    pub namespaced: bool,
    /// The API group as RBAC rules name it (`core` for the core group).
    pub rbac_group: &'a str,
    pub plural: &'a str,
    /// Another project's kind (from its CRD), not one of Kubernetes'.
    pub external: bool,
    /// The field that makes objects of this kind large and that a controller reads from
    /// few of them (a ConfigMap's `data`): the controller then caches metadata only.
    pub payload: Option<&'static str>,
}

/// The large field of the built-in kinds whose objects are mostly payload, which their
/// controllers do not cache: ConfigMaps and Secrets (up to 1 MiB each; every namespace has
/// some, and Helm keeps every release revision in one).
fn payload(kind: &BuiltinKind) -> Option<&'static str> {
    match (kind.group, kind.kind) {
        ("", "ConfigMap" | "Secret") => Some("data"),
        _ => None,
    }
}

/// Stage the controller of a type the project does not own (it watches, never deletes),
/// its module line and its start in main.rs.
pub fn stage_watch_controller(
    tree: &mut Tree,
    renderer: &mut Renderer,
    controller: &ControllerName,
    watched: &WatchedType<'_>,
) -> Result<()> {
    // What the controller's cache holds of each object.
    let cached = if watched.payload.is_some() {
        format!("PartialObjectMeta<{}>", watched.type_name)
    } else {
        watched.type_name.clone()
    };
    let context = templates::context(&WatchControllerContext {
        kind: watched.kind,
        type_name: &watched.type_name,
        external: watched.external,
        api_version: &watched.api_version,
        type_path: &watched.type_path,
        namespaced: watched.namespaced,
        rbac_group: watched.rbac_group,
        plural: watched.plural,
        api_name: &controller.name,
        resync_minutes: 5,
        metadata_only: watched.payload.is_some(),
        payload: watched.payload.unwrap_or_default(),
        cached,
    })?;
    let text = renderer.render("api/builtin/controller.rs.tera", &context)?;
    let module = &controller.module;
    tree.add(&format!("src/controller/{module}.rs"), text, Policy::User);
    // Its unit test runs against the runtime's scripted API server.
    super::integration::ensure_runtime_dev_feature(tree, super::integration::TEST_SUPPORT)?;
    files::register_controller(tree, controller)
}

/// The error for `--resource=false` when the kind is neither the project's nor built in.
pub fn unknown(spec: &ApiSpec) -> Error {
    let (group, version, kind) = (&spec.group, &spec.version, &spec.kind);
    // Named as Kubernetes would name it (`core/v1`, `apps/v1`), then as this project would.
    Error::invalid(format!(
        "the controller needs the type of {kind}, which Kubernetes does not define ({group}/{version}) and this project does not have ({}/{version}); create it too with --resource, or name a built-in kind (e.g. --group apps --version v1 --kind Deployment)",
        spec.qualified_group()
    ))
}
