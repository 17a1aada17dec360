//! `rusty-sdk create webhook`: admission webhooks (defaulting, validation) for a Rust API of
//! the project, a kind Kubernetes defines (k8s-openapi's type) or another project's kind
//! (kopium's, from `create api --external-api-crd`), and conversion webhooks (hub and spokes)
//! for the project's own, as kubebuilder's `create webhook`. Every flag is checked before
//! anything is staged; `targets` finds the kind, `files` stages the files, the manifests are
//! regenerated from the markers, and PROJECT records the webhooks under the resource.
mod context;
mod conversion;
mod files;
mod kustomize;
mod paths;
mod storage;
mod targets;

pub use conversion::{Spoke, SpokePlan};
pub use paths::CustomPaths;

use std::path::Path;

use crate::cli::CreateWebhookArgs;
use crate::error::{Error, Result};
use crate::model::names::shown;
use crate::model::{ApiSpec, Group, Kind, Version};
use crate::project::{Project, Resource, ResourceWebhooks};
use crate::scaffold::Tree;
use crate::session::Session;
use crate::templates::Renderer;

/// Validated settings of one `create webhook`.
#[derive(Clone, Debug)]
pub struct WebhookSettings {
    pub spec: ApiSpec,
    /// Whose type the webhooks take, and the API group the API server names.
    pub target: Target,
    /// The module that holds the kind's Rust type (PROJECT's `path`): the api crate's module
    /// of the kind's version, k8s-openapi's for a built-in kind, kopium's for an external one.
    pub module_path: String,
    /// The admission webhooks the kind has once the command ran: those PROJECT records and
    /// those asked for.
    pub defaulting: bool,
    pub validation: bool,
    /// The admission webhooks to add to src/webhook/<kind>.rs, at its scaffold markers (all
    /// of them when the file is re-scaffolded).
    pub added: Vec<Admission>,
    /// Asked for, but the kind already has them (nothing to do unless --force).
    pub existing: Vec<&'static str>,
    /// With `--conversion`: the spokes to scaffold now (see [`SpokePlan`]).
    pub spokes: SpokePlan,
    /// `--force`: scaffold the kind's files again, whatever they hold.
    pub force: bool,
    /// `--defaulting-path` and `--validation-path`, or those PROJECT records.
    pub paths: CustomPaths,
}

/// The kind a webhook is for, as the API server and the generated code name it.
#[derive(Clone, Debug)]
pub struct Target {
    pub origin: Origin,
    /// The API group of its objects: `""` for the core group, `apps`, `cache.my.domain`.
    pub api_group: String,
    /// The Rust type: the kind, or kopium's name for it (`DnsEndpoint` for `DNSEndpoint`).
    pub type_name: String,
}

/// Where the type of a kind with webhooks comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A Rust API of this project, in its api crate.
    Own,
    /// A kind Kubernetes defines, from k8s-openapi.
    Builtin,
    /// Another project's kind, from the types kopium generated from its CRD.
    External,
}

impl Target {
    /// `core/v1`, `apps/v1`, `cert-manager.io/v1`: the group and version in messages.
    pub fn group_version(&self, group: &Group, version: &Version) -> String {
        match self.origin {
            Origin::Own => format!("{group}/{version}"),
            Origin::Builtin if self.api_group.is_empty() => format!("core/{version}"),
            _ => format!("{}/{version}", self.api_group),
        }
    }
}

/// An admission webhook of a kind: its flag and the template of its parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    Defaulting,
    Validation,
}

impl Admission {
    pub fn template(self) -> &'static str {
        match self {
            Admission::Defaulting => "webhook/defaulting.rs.tera",
            Admission::Validation => "webhook/validation.rs.tera",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Admission::Defaulting => "defaulting",
            Admission::Validation => "validating",
        }
    }
}

impl WebhookSettings {
    /// `root` is the project's folder: an external kind's plural and scope are read from
    /// its kopium types there.
    pub fn from_args(
        args: &CreateWebhookArgs,
        project: &Project,
        root: &Path,
        force: bool,
    ) -> Result<Self> {
        if let Some(key) = &args.plugins {
            crate::model::plugin::check_webhook_plugin(key)?;
        }
        let layout = project.layout()?;
        if !layout.has_rust() {
            return Err(Error::invalid(format!(
                "webhooks are for Rust APIs, and this project's layout is {layout} (PROJECT); a Helm API has no code to run them"
            )));
        }
        let group = Group::parse(required(args.group.as_deref(), "--group", "cache")?)?;
        let version = Version::parse(required(args.version.as_deref(), "--version", "v1")?)?;
        let kind = Kind::parse(required(args.kind.as_deref(), "--kind", "Memcached")?)?;
        targets::refuse_go_flags(args, &group, &version, &kind)?;
        if !args.defaulting && !args.programmatic_validation && !args.conversion {
            return Err(Error::invalid(
                "no webhook to create: pass --defaulting, --programmatic-validation or both",
            ));
        }
        let found = targets::find(project, root, args, &group, &version, &kind)?;
        let resource = &found.resource;
        if found.target.origin != Origin::Own && (args.conversion || !args.spoke.is_empty()) {
            return Err(Error::invalid(format!(
                "{kind} ({}) is not this project's API: its versions convert as {} decides, so --conversion is only for kinds of this project's api crate",
                found.target.group_version(&group, &version),
                if found.target.origin == Origin::Builtin {
                    "Kubernetes"
                } else {
                    "its own project's CRD"
                }
            )));
        }
        let requested = check_conversion(args, project, resource)?;
        let spec = ApiSpec::new(
            project,
            group,
            version,
            kind,
            Some(&found.plural),
            found.namespaced,
        )?;
        // A later run adds the other kind of webhook to the file, or conversion; a kind of
        // webhook the resource has is not scaffolded again, as in kubebuilder, unless --force.
        let recorded = resource.webhooks.clone().unwrap_or_default();
        let paths = CustomPaths::from_args(args, resource, project)?;
        paths::check_plural(args, spec.kind.as_str(), &spec.plural)?;
        let mut added = Vec::new();
        let mut existing = Vec::new();
        for (asked, has, admission) in [
            (args.defaulting, recorded.defaulting, Admission::Defaulting),
            (
                args.programmatic_validation,
                recorded.validation,
                Admission::Validation,
            ),
        ] {
            match (asked, has) {
                (true, true) if !force => existing.push(admission.name()),
                (true, _) => added.push(admission),
                (false, _) => {}
            }
        }
        let spokes = SpokePlan::new(project, resource, &recorded, requested, force)?;
        if spokes.nothing_new() {
            existing.push("conversion");
        }
        Ok(WebhookSettings {
            spec,
            target: found.target,
            module_path: resource.path.clone().unwrap_or_default(),
            defaulting: args.defaulting || recorded.defaulting,
            validation: args.programmatic_validation || recorded.validation,
            added,
            existing,
            spokes,
            force,
            paths,
        })
    }

    /// The PROJECT entry of the resource, with its webhooks.
    fn record(&self, resource: &Resource) -> Resource {
        let mut webhooks = resource.webhooks.clone().unwrap_or_default();
        webhooks.defaulting = self.defaulting;
        webhooks.validation = self.validation;
        if !self.spokes.all.is_empty() {
            webhooks.conversion = true;
            webhooks.spoke = self.spokes.all.iter().map(|s| s.version.clone()).collect();
        }
        webhooks.webhook_version = Some("v1".into());
        self.paths.record(&mut webhooks);
        Resource {
            webhooks: Some(ResourceWebhooks { ..webhooks }),
            ..resource.clone()
        }
    }
}

fn required<'a>(value: Option<&'a str>, flag: &str, example: &str) -> Result<&'a str> {
    value.ok_or_else(|| {
        Error::invalid(format!(
            "{flag} is required: the API to add webhooks to (for example {flag} {example})"
        ))
    })
}

/// The spokes of `--conversion`: each another existing version of the kind. One kind of the
/// project converts, at the webhook's one path `/convert`.
fn check_conversion(
    args: &CreateWebhookArgs,
    project: &Project,
    hub: &Resource,
) -> Result<Vec<Spoke>> {
    if !args.conversion {
        if let Some(spoke) = args.spoke.first() {
            return Err(Error::invalid(format!(
                "--spoke {} goes with --conversion; add --conversion or drop --spoke",
                shown(spoke)
            )));
        }
        return Ok(Vec::new());
    }
    if args.spoke.is_empty() {
        return Err(Error::invalid(
            "--conversion needs at least one --spoke, another version of the kind that converts to and from --version (the hub)",
        ));
    }
    // Every spoke is a version before any is looked up: a typo is named as such, not
    // suggested to `create api`.
    if let Some(spoke) = args
        .spoke
        .iter()
        .find(|spoke| crate::model::Version::parse(spoke).is_err())
    {
        return Err(Error::invalid(format!(
            "invalid --spoke {}: a version looks like v1, v1alpha1 or v2beta3; pass the spokes as --spoke v2 --spoke v3 or --spoke v2,v3",
            shown(spoke)
        )));
    }
    let mut spokes: Vec<Spoke> = Vec::new();
    for spoke in &args.spoke {
        if *spoke == hub.version {
            return Err(Error::invalid(format!(
                "--spoke {} is the hub (--version); pass the other versions of {} as spokes",
                shown(spoke),
                hub.kind
            )));
        }
        let found = project.find_resource(&hub.group, spoke, &hub.kind);
        let Some(module) = found.and_then(|resource| resource.path.clone()) else {
            return Err(Error::invalid(format!(
                "--spoke {} is not a version of {} in PROJECT; create it first with `rusty-sdk create api --plugins rust --group {} --version {spoke} --kind {}`",
                shown(spoke),
                hub.kind,
                hub.group,
                hub.kind
            )));
        };
        if spokes.iter().all(|known| known.version != *spoke) {
            spokes.push(Spoke {
                version: spoke.clone(),
                module,
            });
        }
    }
    for other in &project.resources {
        let converts = other
            .webhooks
            .as_ref()
            .is_some_and(|hooks| hooks.conversion);
        let same_kind = other.group == hub.group && other.kind == hub.kind;
        if converts && same_kind && other.version != hub.version {
            return Err(Error::invalid(format!(
                "{} converts through its hub {}; pass --version {} to change its spokes",
                other.kind, other.version, other.version
            )));
        }
    }
    Ok(spokes)
}

pub fn run(session: &Session, args: &CreateWebhookArgs) -> Result<()> {
    let mut project = session.load_project()?;
    let settings = WebhookSettings::from_args(args, &project, &session.root, session.force)?;
    let resource = targets::find(
        &project,
        &session.root,
        args,
        &settings.spec.group,
        &settings.spec.version,
        &settings.spec.kind,
    )
    .map(|found| settings.record(&found.resource))?;
    let mut tree = Tree::new(&session.root);
    let mut renderer = Renderer::new();
    files::stage(&mut tree, &mut renderer, &settings, &project)?;
    crate::webhook::stage_manifests(&mut tree)?;
    project.upsert_resource(resource);
    session.apply(tree, &project)?;
    if !settings.existing.is_empty() {
        session.shell.note(&format!(
            "{} ({}) already has its {} webhook: nothing to add (--force scaffolds it again over your edits)",
            settings.spec.kind,
            settings
                .target
                .group_version(&settings.spec.group, &settings.spec.version),
            settings.existing.join(" and ")
        ));
    }
    if !session.dry_run && (!settings.added.is_empty() || settings.spokes.scaffolds()) {
        if settings.spokes.scaffolds() {
            session.shell.note(
                "Next: map the fields that differ in the conversions next to the spokes in api/src/, then regenerate the CRD (spec.conversion) and test with:\n$ make manifests\n$ cargo test",
            );
        } else {
            session.shell.note(
                "Next: write your defaults and checks in src/webhook/, then test them with:\n$ cargo test",
            );
        }
    }
    Ok(())
}
