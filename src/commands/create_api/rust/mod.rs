//! `create api --plugins rust`: settings (flags, then the y/n prompts) for a Rust API, and
//! the run that stages its files. What is staged lives in `files` (the type, the CRD, the
//! controller and their registrations) and `image` (kubebuilder's deploy-image options).
pub(crate) mod builtin;
mod context;
mod crd;
pub(crate) mod external;
pub(crate) mod external_files;
pub(crate) mod files;
pub(crate) mod image;
mod integration;
pub(crate) mod named;

use std::io::Write;

use crate::cli::CreateApiArgs;
use crate::commands::create_api::common;
use crate::error::{Error, Result};
use crate::model::builtin::BuiltinApi;
use crate::model::{ApiSpec, Group, Kind, Version};
use crate::project::{Project, Resource};
use crate::prompt::Answers;
use crate::scaffold::Tree;
use crate::session::Session;
use crate::templates::Renderer;

pub use image::ImageOptions;
pub use named::ControllerName;

/// Validated settings of one `create api --plugins rust`.
#[derive(Clone, Debug)]
pub struct RustApiSettings {
    pub spec: ApiSpec,
    pub resource: bool,
    pub controller: bool,
    /// The controller to scaffold: the kind's own, or the one `--controller-name` names.
    pub controller_name: ControllerName,
    /// `--controller-name` was given (PROJECT then lists the kind's controllers by name).
    pub named: bool,
    /// `--image`: a deploy-image controller running this image.
    pub image: Option<ImageOptions>,
}

impl RustApiSettings {
    /// Validate the flags, then ask what the flags left open. Every flag is checked before
    /// the first question, so a typo never costs the user their answers.
    pub fn from_args(
        args: &CreateApiArgs,
        project: &Project,
        answers: &mut Answers<'_>,
        out: &mut dyn Write,
    ) -> Result<Self> {
        let group = Group::parse(required(args.group.as_deref(), "--group", "cache")?)?;
        let version = Version::parse(required(args.version.as_deref(), "--version", "v1")?)?;
        let kind = Kind::parse(required(args.kind.as_deref(), "--kind", "Memcached")?)?;
        let spec = ApiSpec::new(
            project,
            group,
            version,
            kind,
            args.plural.as_deref(),
            args.namespaced,
        )?;
        let controller_name = match &args.controller_name {
            Some(name) => ControllerName::parse(name, &spec)?,
            None => ControllerName::of_kind(&spec),
        };
        let named = args.controller_name.is_some();
        if named && args.controller == Some(false) {
            return Err(Error::invalid(
                "--controller-name names the controller to scaffold, so --controller=false cannot go with it; drop one of the two",
            ));
        }
        if named && args.image.is_some() {
            return Err(Error::invalid(
                "--controller-name cannot go with --image: the deploy-image controller is its kind's own; drop --controller-name, or add the named controller with another `create api --resource=false`",
            ));
        }
        let image = ImageOptions::from_args(args)?;
        if image.is_none()
            && args
                .plugins
                .as_deref()
                .is_some_and(crate::model::plugin::is_deploy_image)
        {
            return Err(Error::invalid(
                "--plugins=deploy-image/v1-alpha needs --image, the container image the controller deploys (e.g. --image memcached:1.6.26-alpine)",
            ));
        }
        if image.is_some() {
            return deploy_image(spec, args, image);
        }
        if args.helm_chart.is_some()
            || args.helm_chart_repo.is_some()
            || args.helm_chart_version.is_some()
        {
            return Err(Error::invalid(
                "--helm-chart, --helm-chart-repo and --helm-chart-version belong to --plugins=helm; drop them for a Rust API",
            ));
        }
        let resource = match args.resource {
            Some(answer) => answer,
            None => answers.yes_no("Create Resource", "--resource", out)?,
        };
        let controller = match args.controller {
            Some(answer) => answer,
            None if named => true,
            None => answers.yes_no("Create Controller", "--controller", out)?,
        };
        if !resource && !controller {
            return Err(Error::invalid(
                "nothing to create: answer yes to the resource (--resource) or the controller (--controller), or both",
            ));
        }
        Ok(RustApiSettings {
            spec,
            resource,
            controller,
            controller_name,
            named,
            image: None,
        })
    }
}

/// `--image` always creates both the resource and the controller, as kubebuilder's
/// deploy-image plugin does; saying otherwise is an error rather than silently ignored.
fn deploy_image(
    spec: ApiSpec,
    args: &CreateApiArgs,
    image: Option<ImageOptions>,
) -> Result<RustApiSettings> {
    for (flag, value) in [
        ("--resource", args.resource),
        ("--controller", args.controller),
    ] {
        if value == Some(false) {
            return Err(Error::invalid(format!(
                "--image scaffolds both the resource and its controller, so {flag}=false cannot go with it; drop one of the two flags"
            )));
        }
    }
    if !spec.namespaced {
        return Err(Error::invalid(
            "--image makes a namespaced API (its Deployment lives next to the resource), so --namespaced=false cannot go with it",
        ));
    }
    Ok(RustApiSettings {
        controller_name: ControllerName::of_kind(&spec),
        spec,
        resource: true,
        controller: true,
        named: false,
        image,
    })
}

fn required<'a>(value: Option<&'a str>, flag: &str, example: &str) -> Result<&'a str> {
    value.ok_or_else(|| {
        Error::invalid(format!(
            "{flag} is required for a Rust API (for example {flag} {example})"
        ))
    })
}

pub fn run(session: &Session, args: &CreateApiArgs, mut project: Project) -> Result<()> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut answers = Answers::detect(session.interactive, &mut input);
    let mut stdout = std::io::stdout();
    files::check_project_name(&project)?;
    if let Some(file) = &args.external_api_crd {
        return external_controller(session, args, file, project);
    }
    let settings = RustApiSettings::from_args(args, &project, &mut answers, &mut stdout)?;
    let force = session.force;
    if settings.controller {
        named::check(
            &project,
            &settings.spec,
            &settings.controller_name,
            settings.named,
            settings.resource,
            force,
        )?;
    }
    if settings.resource {
        settings.spec.check_new(&project, force, false)?;
    } else if !files::type_exists(&settings.spec, &project) {
        let spec = &settings.spec;
        let Some(api) = crate::model::builtin::find(&spec.group, &spec.version, &spec.kind) else {
            return Err(builtin::unknown(spec));
        };
        return builtin_controller(session, &settings, &api, project);
    }

    let mut tree = Tree::new(&session.root);
    let mut renderer = Renderer::new();
    let files = files::RustApiFiles::new(&settings, &project);
    let crd_needs_crdgen = settings.resource && files.crd_needs_crdgen(&tree);
    if settings.resource {
        files.stage_resource(&mut tree, &mut renderer)?;
        common::stage_common(&mut tree, &mut renderer, &settings.spec, &project)?;
    }
    if settings.controller {
        files.stage_controller(&mut tree, &mut renderer)?;
    }
    if let Some(image) = &settings.image {
        image.stage_manager_env(&mut tree, &settings.spec)?;
        image.record(&mut project, &settings.spec);
    }
    let path = settings.resource.then(|| files.module_path());
    let mut resource = match project.find_resource(
        settings.spec.group.as_str(),
        settings.spec.version.as_str(),
        settings.spec.kind.as_str(),
    ) {
        // `--resource=false --controller`: keep the entry, now with a controller.
        Some(existing) if !settings.resource => existing.clone(),
        // `--force` re-scaffolds the API: its webhooks and controllers stay recorded.
        existing => Resource {
            webhooks: existing.and_then(|r| r.webhooks.clone()),
            controllers: existing.map(|r| r.controllers.clone()).unwrap_or_default(),
            ..settings.spec.resource(false, path)
        },
    };
    if settings.controller {
        named::record(&mut resource, &settings.controller_name, settings.named);
    }
    project.upsert_resource(resource);
    super::common::apply(session, tree, &project)?;
    if crd_needs_crdgen {
        session.shell.note(&format!(
            "{} now holds several versions of {}; run `make manifests` to regenerate it",
            settings.spec.crd_path(),
            settings.spec.kind
        ));
    }
    if !session.dry_run {
        session.shell.note(&next_steps(&settings));
    }
    Ok(())
}

/// A controller for a kind Kubernetes defines: the controller, its registration, PROJECT.
fn builtin_controller(
    session: &Session,
    settings: &RustApiSettings,
    api: &BuiltinApi,
    mut project: Project,
) -> Result<()> {
    let spec = &settings.spec;
    let existing = project
        .find_resource(
            spec.group.as_str(),
            spec.version.as_str(),
            spec.kind.as_str(),
        )
        .cloned();
    // An entry with only webhooks (`create webhook` for a core kind) gets its controller;
    // a named controller was checked against the kind's others.
    let exists = existing.as_ref().is_some_and(Resource::has_controller);
    if exists && !settings.named && !session.force {
        return Err(Error::Project(format!(
            "a controller for {} is already in PROJECT; pass --force to re-scaffold it (nothing was written)",
            spec.kind
        )));
    }
    let mut tree = Tree::new(&session.root);
    let mut renderer = Renderer::new();
    let staged = builtin::stage(api, &mut tree, &mut renderer, &settings.controller_name)?;
    let mut resource = match existing {
        Some(existing) => Resource {
            controller: existing.controller,
            controllers: existing.controllers,
            webhooks: existing.webhooks,
            ..staged
        },
        None => staged,
    };
    named::record(&mut resource, &settings.controller_name, settings.named);
    project.upsert_resource(resource);
    super::common::apply(session, tree, &project)?;
    if !session.dry_run {
        session.shell.note(WATCH_NEXT_STEPS);
    }
    Ok(())
}

/// A controller for a kind of another project's CRD: its Rust types under
/// `api/src/external/`, the controller, its registration and PROJECT's `external: true`
/// entry, as kubebuilder records controllers for external types.
fn external_controller(
    session: &Session,
    args: &CreateApiArgs,
    file: &std::path::Path,
    mut project: Project,
) -> Result<()> {
    external::check_flags(args)?;
    if let Some(name) = &args.controller_name {
        return Err(Error::invalid(format!(
            "--controller-name {} cannot go with --external-api-crd: an external kind has one controller, the one this command scaffolds; drop --controller-name",
            crate::model::names::shown(name)
        )));
    }
    let crd = external::ExternalCrd::load(file, args)?;
    let spec = ApiSpec::new(
        &project,
        Group::parse(crd.group_label())?,
        Version::parse(&crd.version)?,
        Kind::parse(&crd.kind)?,
        Some(&crd.plural),
        crd.namespaced,
    )?;
    if project
        .find_resource(
            spec.group.as_str(),
            spec.version.as_str(),
            spec.kind.as_str(),
        )
        .is_some()
        && !session.force
    {
        return Err(Error::Project(format!(
            "a controller for {} ({}/{}) is already in PROJECT; pass --force to re-scaffold it from {} (nothing was written)",
            crd.kind, crd.api_group, crd.version, crd.source
        )));
    }
    let mut tree = Tree::new(&session.root);
    let mut renderer = Renderer::new();
    let resource = external_files::stage_external(&mut tree, &mut renderer, &project, &spec, &crd)?;
    // `--force` writes the types and controller again: the kind's webhooks stay recorded.
    let webhooks = project
        .find_resource(
            spec.group.as_str(),
            spec.version.as_str(),
            spec.kind.as_str(),
        )
        .and_then(|r| r.webhooks.clone());
    project.upsert_resource(Resource {
        webhooks,
        ..resource
    });
    super::common::apply(session, tree, &project)?;
    if !session.dry_run {
        session.shell.note(WATCH_NEXT_STEPS);
    }
    Ok(())
}

/// What to do after scaffolding a controller for a type the project does not own.
const WATCH_NEXT_STEPS: &str = "Next: write your logic in `reconcile`, then run the controller against your cluster with:\n$ make run";

fn next_steps(settings: &RustApiSettings) -> String {
    let mut text = String::from(
        "Next: implement your new API and generate the manifests with:\n$ make manifests",
    );
    if settings.controller {
        text.push_str("\nthen run the controller against your cluster with:\n$ make install run");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parse(extra: &[&str]) -> CreateApiArgs {
        #[derive(Parser)]
        struct Wrapper {
            #[command(flatten)]
            args: CreateApiArgs,
        }
        let mut argv = vec![
            "x",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
        ];
        argv.extend_from_slice(extra);
        Wrapper::parse_from(argv).args
    }

    fn project() -> Project {
        Project::parse("domain: my.domain\nlayout:\n- rust.rusty-sdk.dev/v1\nprojectName: demo\nversion: \"3\"\n").unwrap()
    }

    fn settings(extra: &[&str], input: &str) -> (Result<RustApiSettings>, String) {
        let mut reader = std::io::Cursor::new(input.as_bytes().to_vec());
        let mut out = Vec::new();
        let result = RustApiSettings::from_args(
            &parse(extra),
            &project(),
            &mut Answers::Lines(&mut reader),
            &mut out,
        );
        (result, String::from_utf8(out).unwrap())
    }

    #[test]
    fn flags_skip_the_questions() {
        let (result, out) = settings(&["--resource", "--controller=false"], "");
        let s = result.unwrap();
        assert!(s.resource && !s.controller);
        assert_eq!(out, "");
    }

    #[test]
    fn questions_come_in_order() {
        let (result, out) = settings(&[], "y\nn\n");
        let s = result.unwrap();
        assert!(s.resource && !s.controller);
        assert_eq!(out, "Create Resource [y/n]\nCreate Controller [y/n]\n");
    }

    #[test]
    fn two_noes_are_an_error() {
        let err = settings(&[], "n\nn\n").0.unwrap_err().to_string();
        assert!(err.contains("nothing to create"), "{err}");
    }

    #[test]
    fn missing_and_bad_names_name_the_flag() {
        let mut reader = std::io::Cursor::new(Vec::new());
        let args = CreateApiArgs {
            version: Some("1".into()),
            ..parse(&[])
        };
        let err = RustApiSettings::from_args(
            &args,
            &project(),
            &mut Answers::Lines(&mut reader),
            &mut Vec::new(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("--version"), "{err}");
        let mut reader = std::io::Cursor::new(Vec::new());
        let args = CreateApiArgs {
            kind: None,
            ..parse(&[])
        };
        let err = RustApiSettings::from_args(
            &args,
            &project(),
            &mut Answers::Lines(&mut reader),
            &mut Vec::new(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("--kind is required"), "{err}");
    }

    #[test]
    fn image_implies_resource_and_controller() {
        let (result, out) = settings(&["--image", "memcached:1.4.36-alpine"], "");
        let s = result.unwrap();
        assert!(s.resource && s.controller && s.image.is_some());
        assert_eq!(out, "", "no questions with --image");
        let err = settings(&["--image", "m:1", "--controller=false"], "")
            .0
            .unwrap_err()
            .to_string();
        assert!(err.contains("--controller=false"), "{err}");
    }

    #[test]
    fn image_flags_need_image() {
        for flag in [
            &["--image-container-port", "11211"][..],
            &["--image-container-command", "memcached,-v"],
            &["--run-as-user", "1001"],
        ] {
            let err = settings(flag, "y\ny\n").0.unwrap_err().to_string();
            assert!(err.contains(flag[0]) && err.contains("--image"), "{err}");
        }
    }
}
