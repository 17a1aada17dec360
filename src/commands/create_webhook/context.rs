//! The variables of the admission webhook templates (templates/webhook/*.rs.tera) and of
//! the webhook manifests (templates/webhook/config/): what a template may use is listed
//! here, not found by reading the templates. The conversion templates add theirs in
//! `conversion`.
use serde::Serialize;

use super::{Origin, WebhookSettings};
use crate::error::Result;
use crate::model::Kind;
use crate::project::Project;
use crate::scaffold::type_names::TypeNames;

#[derive(Serialize)]
pub struct WebhookContext<'a> {
    /// `memcached-operator`: the prefix of the webhook's Service and certificate names.
    project_name: &'a str,
    /// `Memcached`, as the API server and the generated docs name it.
    kind: &'a str,
    /// `memcached`: the webhook's name in the manager's logs.
    kind_lower: String,
    version: &'a str,
    /// The `resources=` of the webhook markers.
    plural: &'a str,
    /// The tests' objects get a namespace.
    namespaced: bool,
    /// The names of the kind's types in src/webhook/<kind>.rs.
    #[serde(flatten)]
    names: TypeNames,
    /// The group the API server names: `""` for core kinds, whose paths then read
    /// `/mutate--v1-pod` as kubebuilder's do.
    qualified_group: &'a str,
    /// The group in the webhook markers, where the core group is spelled `""`.
    marker_group: &'a str,
    /// k8s-openapi's types have no `new(name, spec)`: tests build them from metadata.
    builtin_type: bool,
    /// `cache.my.domain/v1`, or `v1` for core kinds: the tests' objects' `apiVersion`.
    api_version: String,
    /// The module that holds the kind's Rust type (see `WebhookSettings::module_path`).
    module_path: &'a str,
    /// The URL paths the API server calls, and the webhooks' names in the configuration.
    mutate_path: String,
    validate_path: String,
    mutate_name: String,
    validate_name: String,
}

impl<'a> WebhookContext<'a> {
    /// The variables for the webhooks `settings` asks for; `template` is the source text of
    /// the kind's file, whose names decide those of the kind's types.
    ///
    /// # Errors
    ///
    /// `Error::Invalid` when kopium's name for the type is not a valid kind.
    pub fn new(
        settings: &'a WebhookSettings,
        project: &'a Project,
        template: &str,
    ) -> Result<Self> {
        let spec = &settings.spec;
        let target = &settings.target;
        // kopium's name for the type, which may differ from the kind (`DnsEndpoint`).
        let type_name = Kind::parse(&target.type_name)?;
        let group = target.api_group.as_str();
        let api_version = if group.is_empty() {
            spec.version.to_string()
        } else {
            format!("{group}/{}", spec.version)
        };
        let stem = format!(
            "{}-{}-{}",
            group.replace('.', "-"),
            spec.version,
            spec.kind.lower()
        );
        let paths = &settings.paths;
        let name = format!("{}-{}.kb.io", spec.kind.lower(), spec.version);
        Ok(WebhookContext {
            project_name: project.name(),
            kind: spec.kind.as_str(),
            kind_lower: spec.kind.lower(),
            version: spec.version.as_str(),
            plural: &spec.plural,
            namespaced: spec.namespaced,
            names: TypeNames::for_template(template, &spec.group, &type_name),
            qualified_group: group,
            marker_group: if group.is_empty() { "\"\"" } else { group },
            builtin_type: target.origin == Origin::Builtin,
            api_version,
            module_path: &settings.module_path,
            mutate_path: paths
                .defaulting
                .clone()
                .unwrap_or_else(|| format!("/mutate-{stem}")),
            validate_path: paths
                .validation
                .clone()
                .unwrap_or_else(|| format!("/validate-{stem}")),
            mutate_name: format!("m{name}"),
            validate_name: format!("v{name}"),
        })
    }
}

/// One part of an admission webhook (defaulting.rs.tera, validation.rs.tera), which each
/// render inserts at its marker of the kind's file.
#[derive(Serialize)]
pub struct PartContext<'a> {
    #[serde(flatten)]
    pub webhook: &'a WebhookContext<'a>,
    /// `imports`, `register`, `functions` or `tests`: the part to render.
    pub part: &'static str,
}
