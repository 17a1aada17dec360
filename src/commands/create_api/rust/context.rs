//! The variables of the templates `create api --plugins rust` renders (templates/api/rust/,
//! templates/api/integration/, templates/api/builtin/): what a template may use is listed
//! here, not found by reading the templates.
use serde::Serialize;

use super::ControllerName;
use super::image::ImageOptions;
use crate::model::ApiSpec;
use crate::project::Project;
use crate::scaffold::type_names::TypeNames;

/// What every template of a Rust API uses: the type, its CRD and sample, the module indexes.
#[derive(Clone, Debug, Serialize)]
// The booleans are the switches the templates test (`{% if image %}`), not a state.
#[allow(clippy::struct_excessive_bools)]
pub struct RustApiContext {
    /// `memcached-operator`: the samples' labels and the tests' names.
    project_name: String,
    kind: String,
    /// `memcached`: the sample's name and the deploy-image controller's labels.
    kind_lower: String,
    version: String,
    /// `cache.my.domain`.
    qualified_group: String,
    /// `cache`, the group's module in the api crate.
    group_module: String,
    plural: String,
    namespaced: bool,
    /// The container port's name: the lowercase kind cut to 15 characters (an IANA name).
    port_name: String,
    /// `memcached_operator_api`, the crate the controller imports the type from.
    api_crate: String,
    /// `--image` was given: the deploy-image controller and the spec's `size` and
    /// `containerPort` fields.
    image: bool,
    /// `--image`, and the environment variable that overrides it (`MEMCACHED_IMAGE`).
    image_ref: String,
    image_env: String,
    /// `--image-container-command` was given, and its comma-joined value as a Rust string
    /// literal, quotes and escapes included.
    has_command: bool,
    container_command: String,
    /// `--image-container-port` was given, and its value (0 without it).
    container_port: bool,
    container_port_number: u16,
    /// `--run-as-user`, or -1 without it.
    run_as_user: i64,
}

impl RustApiContext {
    pub fn new(
        spec: &ApiSpec,
        project: &Project,
        api_crate: &str,
        image: Option<&ImageOptions>,
    ) -> Self {
        let command = image.map(|i| i.command.join(",")).unwrap_or_default();
        RustApiContext {
            project_name: project.name().to_string(),
            kind: spec.kind.to_string(),
            kind_lower: spec.kind.lower(),
            version: spec.version.to_string(),
            qualified_group: spec.qualified_group(),
            group_module: spec.group.module(),
            plural: spec.plural.clone(),
            namespaced: spec.namespaced,
            port_name: spec.kind.lower().chars().take(15).collect(),
            api_crate: api_crate.to_string(),
            image: image.is_some(),
            image_ref: image.map_or_else(String::new, |i| i.image.clone()),
            image_env: ImageOptions::env_var(spec),
            has_command: !command.is_empty(),
            container_command: format!("{command:?}"),
            container_port: image.is_some_and(|i| i.port.is_some()),
            container_port_number: image.and_then(|i| i.port).unwrap_or(0),
            run_as_user: image.and_then(|i| i.run_as_user).unwrap_or(-1),
        }
    }
}

/// The variables of a controller of the project's own kind (`controller.rs.tera`,
/// `image_controller.rs.tera`).
#[derive(Serialize)]
pub struct ControllerContext<'a> {
    #[serde(flatten)]
    pub api: &'a RustApiContext,
    /// The names of the kind's types in the controller's file.
    #[serde(flatten)]
    pub names: TypeNames,
    /// The names that tell the controller from the kind's other controllers: its name in
    /// metrics, logs and its field manager, its condition type and its finalizer.
    pub api_name: &'a str,
    pub condition: String,
    pub finalizer: String,
}

impl<'a> ControllerContext<'a> {
    pub fn new(
        api: &'a RustApiContext,
        names: TypeNames,
        controller: &'a ControllerName,
        group: &str,
    ) -> Self {
        ControllerContext {
            api,
            names,
            api_name: &controller.name,
            condition: controller.condition(),
            finalizer: controller.finalizer(group),
        }
    }
}

/// The variables of a controller's integration test (templates/api/integration/).
#[derive(Serialize)]
pub struct IntegrationContext<'a> {
    #[serde(flatten)]
    pub api: &'a RustApiContext,
    /// The names of the kind's types in the test's file.
    #[serde(flatten)]
    pub names: TypeNames,
    /// The condition the test waits for.
    pub condition: &'a str,
    /// The controller's module in src/controller/, which the test starts.
    pub controller_module: &'a str,
}

/// The variables of the controller of a type the project does not own
/// (`templates/api/builtin/controller.rs.tera`).
#[derive(Serialize)]
pub struct WatchControllerContext<'a> {
    /// The kind, and the Rust type the controller watches (`Deployment`, or kopium's name).
    pub kind: &'a str,
    pub type_name: &'a str,
    /// The type comes from kopium's types of another project's CRD, not k8s-openapi.
    pub external: bool,
    /// `apps/v1`, and the module that holds the type.
    pub api_version: &'a str,
    pub type_path: &'a str,
    pub namespaced: bool,
    /// The group and resource of the controller's RBAC markers (`core` for the core group).
    pub rbac_group: &'a str,
    pub plural: &'a str,
    /// The controller's name in metrics, logs and its field manager.
    pub api_name: &'a str,
    /// How often the controller reconciles every object again without a change.
    pub resync_minutes: u32,
    /// The controller caches metadata only, and the large field it leaves out (`data`).
    pub metadata_only: bool,
    pub payload: &'a str,
    /// What the controller's cache holds of each object: the type, or
    /// `PartialObjectMeta<type>`.
    pub cached: String,
}
