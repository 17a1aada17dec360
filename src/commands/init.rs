//! `rusty-sdk init`: the project's base tree for a layout, PROJECT, and the local link to
//! the runtime crate.
use std::path::{Path, PathBuf};

use serde::Serialize;
use tera::Context;

use crate::cli::{CreateApiArgs, InitArgs, License};
use crate::error::{Error, Result};
use crate::model::boilerplate;
use crate::model::names::project_name_from_dir;
use crate::model::{Domain, Layout, ProjectName, Repo};
use crate::project::{self, Project};
use crate::scaffold::{Policy, Tree, toml};
use crate::session::Session;
use crate::templates::{self, Renderer};
use crate::versions::{self, LOCAL_LINK, RUNTIME_CRATE};

/// The runtime source this rusty-sdk was built from (the workspace's `crates/runtime`).
const BUILT_RUNTIME: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/crates/runtime");

/// The longest name of a Kubernetes object (a DNS-1123 subdomain).
const MAX_OBJECT_NAME: usize = 253;

/// Validated `init` settings.
pub struct InitSettings {
    pub layout: Layout,
    pub domain: Domain,
    pub repo: Option<Repo>,
    pub project_name: ProjectName,
    pub owner: String,
    pub license: License,
    /// The text of `--license-file`, written as hack/boilerplate.txt instead of the
    /// `--license` header.
    pub license_header: Option<String>,
    pub runtime_path: Option<PathBuf>,
    pub namespaced: bool,
    /// `create api` flags for a Helm API made in the same step (`--kind`, `--helm-chart`, ...).
    pub first_api: Option<CreateApiArgs>,
}

impl InitSettings {
    pub fn from_args(args: &InitArgs, root: &Path) -> Result<Self> {
        let layout = Layout::parse(&args.plugins)?;
        if args.project_version != "3" {
            return Err(Error::invalid(format!(
                "unsupported --project-version {:?}: only 3 is supported",
                args.project_version
            )));
        }
        let domain = Domain::parse(&args.domain)?;
        // The leader-election Lease is named `<8 hex digits>.<domain>`.
        if domain.as_str().len() > MAX_OBJECT_NAME - 9 {
            return Err(Error::invalid(format!(
                "invalid domain {}: it has {} characters, but the leader-election Lease is named `<8 hex digits>.<domain>`, which allows at most {}; pass a shorter --domain",
                crate::model::names::shown(domain.as_str()),
                domain.as_str().len(),
                MAX_OBJECT_NAME - 9
            )));
        }
        if args.fetch_deps == Some(true) {
            return Err(Error::invalid(
                "--fetch-deps asks init to download the dependencies, which rusty-sdk leaves to cargo: run `cargo fetch` in the project after init, or pass --fetch-deps=false",
            ));
        }
        let license_header = args
            .license_file
            .as_deref()
            .map(boilerplate::read_license_file)
            .transpose()?;
        let first_api = first_api_args(args, layout)?;
        let repo = args.repo.as_deref().map(Repo::parse).transpose()?;
        let project_name = match &args.project_name {
            Some(name) => ProjectName::parse(name)?,
            None => default_project_name(root)?,
        };
        let owner = match &args.owner {
            Some(owner) => crate::model::names::parse_owner(owner)?,
            None => format!("The {project_name} Authors"),
        };
        Ok(InitSettings {
            layout,
            domain,
            repo,
            project_name,
            owner,
            license: args.license.unwrap_or(if license_header.is_some() {
                // A header of the user's own names its licence in words rusty-sdk cannot
                // turn into Cargo.toml's SPDX expression; the user writes that line.
                License::None
            } else {
                License::Apache2
            }),
            license_header,
            runtime_path: runtime_path(args.runtime_path.as_deref())?,
            namespaced: args.namespaced,
            first_api,
        })
    }

    /// operator-sdk's default leader election id: FNV-1a of the repo, then the domain.
    pub fn leader_election_id(&self) -> String {
        let seed = self
            .repo
            .as_ref()
            .map_or(self.project_name.as_str(), |r| r.as_str());
        format!("{:08x}.{}", fnv1a32(seed.as_bytes()), self.domain)
    }

    fn context(&self) -> Context {
        let context = InitContext {
            project_name: self.project_name.as_str(),
            project_name_snake: self.project_name.snake(),
            domain: self.domain.as_str(),
            repo: self.repo.as_ref().map_or("", |r| r.as_str()),
            layout: self.layout.short_name(),
            has_helm: self.layout.has_helm(),
            has_rust: self.layout.has_rust(),
            namespaced_manager: self.namespaced,
            runtime_version: versions::RUNTIME_VERSION,
            rusty_sdk_version: env!("CARGO_PKG_VERSION"),
            leader_election_id: self.leader_election_id(),
            image: "controller:latest",
            kube_version: versions::KUBE,
            cert_manager_version: versions::CERT_MANAGER,
            rust_version: versions::RUST,
            rust_toolchain: versions::TOOLCHAIN,
            k8s_openapi_version: versions::K8S_OPENAPI,
            license: boilerplate::license_key(self.license),
            owner: &self.owner,
            k8s_version_feature: versions::K8S_FEATURE,
            kubernetes_version: versions::K8S_FEATURE
                .trim_start_matches('v')
                .replace('_', "."),
        };
        Context::from_serialize(&context)
            .expect("a struct of strings and booleans is a map of template variables")
    }

    fn project(&self) -> Project {
        Project {
            domain: Some(self.domain.to_string()),
            layout: vec![self.layout.key().to_string()],
            project_name: Some(self.project_name.to_string()),
            repo: self.repo.as_ref().map(ToString::to_string),
            namespaced: self.namespaced,
            version: "3".to_string(),
            ..Project::default()
        }
    }
}

/// The variables of the templates `init` renders (templates/init/ and the layout's sets):
/// what a template may use is listed here, not found by reading the templates.
#[derive(Serialize)]
struct InitContext<'a> {
    /// `memcached-operator`.
    project_name: &'a str,
    /// `memcached_operator`, the crate name as Rust code spells it.
    project_name_snake: String,
    domain: &'a str,
    /// `--repo`, or empty.
    repo: &'a str,
    /// `hybrid.helm`, `helm` or `rust`.
    layout: &'static str,
    has_helm: bool,
    has_rust: bool,
    /// `--namespaced`: the manager watches its own namespace only.
    namespaced_manager: bool,
    /// The rusty-sdk-runtime the project depends on.
    runtime_version: &'static str,
    rusty_sdk_version: &'static str,
    leader_election_id: String,
    /// The manager's image before `make docker-build IMG=...` names one.
    image: &'static str,
    kube_version: &'static str,
    cert_manager_version: &'static str,
    /// The project's minimum Rust (`rust-version`) and its pinned toolchain.
    rust_version: &'static str,
    rust_toolchain: &'static str,
    k8s_openapi_version: &'static str,
    /// `apache2` or `none`.
    license: &'static str,
    owner: &'a str,
    /// k8s-openapi's feature (`v1_33`) and the Kubernetes version it stands for (`1.33`).
    k8s_version_feature: &'static str,
    kubernetes_version: String,
}

/// The `create api` that operator-sdk's helm plugin runs after `init` when any of these
/// flags is given, as `create api` itself parses it, so that both take the same flags the
/// same way.
fn first_api_args(args: &InitArgs, layout: Layout) -> Result<Option<CreateApiArgs>> {
    #[derive(clap::Parser)]
    #[command(no_binary_name = true)]
    struct CreateApi {
        #[command(flatten)]
        args: CreateApiArgs,
    }
    let flags: Vec<String> = [
        ("group", &args.group),
        ("version", &args.version),
        ("kind", &args.kind),
        ("helm-chart", &args.helm_chart),
        ("helm-chart-repo", &args.helm_chart_repo),
        ("helm-chart-version", &args.helm_chart_version),
    ]
    .into_iter()
    .filter_map(|(flag, value)| Some(format!("--{flag}={}", value.as_deref()?)))
    .collect();
    if flags.is_empty() {
        return Ok(None);
    }
    if layout != Layout::Helm {
        let first = flags[0].split('=').next().unwrap_or_default();
        return Err(Error::invalid(format!(
            "{first} with init creates a Helm API in the same step, which only --plugins=helm does; for a {layout} project run `rusty-sdk create api --plugins {}` with it after init",
            if layout.has_helm() { "helm" } else { "rust" }
        )));
    }
    let argv = std::iter::once("--plugins=helm".to_string()).chain(flags);
    let parsed = <CreateApi as clap::Parser>::try_parse_from(argv)
        .map_err(|e| Error::Internal(format!("init's create api flags: {e}")))?;
    Ok(Some(parsed.args))
}

fn default_project_name(root: &Path) -> Result<ProjectName> {
    let dir = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let fix = format!(
        "it comes from the directory name {}: pass --project-name (e.g. memcached-operator)",
        crate::model::names::shown(&dir)
    );
    ProjectName::parse_from(&project_name_from_dir(&dir), &fix)
}

/// Where the generated project finds the runtime source, if anywhere.
fn runtime_path(flag: Option<&Path>) -> Result<Option<PathBuf>> {
    if let Some(dir) = flag {
        let dir = std::path::absolute(dir).map_err(|e| Error::io(dir, e))?;
        let shown = crate::model::names::shown(&dir.to_string_lossy());
        if dir.to_str().is_none() {
            return Err(Error::invalid(format!(
                "--runtime-path {shown}: not UTF-8, which .cargo/config.toml cannot hold; move the runtime to a UTF-8 path"
            )));
        }
        if dir.join("Cargo.toml").is_file() {
            Ok(Some(dir))
        } else {
            Err(Error::invalid(format!(
                "--runtime-path {shown}: no Cargo.toml there; point it at the rusty-sdk-runtime crate (crates/runtime in the rusty-sdk repository)"
            )))
        }
    } else {
        let built = PathBuf::from(BUILT_RUNTIME);
        Ok(built.join("Cargo.toml").is_file().then_some(built))
    }
}

fn fnv1a32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |hash: u32, b| {
        (hash ^ u32::from(*b)).wrapping_mul(0x0100_0193)
    })
}

/// The template folders a layout uses.
fn template_sets(layout: Layout) -> Vec<&'static str> {
    let mut sets = vec!["init/base"];
    if layout.has_helm() {
        sets.push("init/helm");
    }
    if layout.has_rust() {
        sets.push("init/rust");
    }
    sets
}

/// Stage the machine-local runtime link, keeping anything else the file already holds.
pub fn stage_runtime_link(tree: &mut Tree, runtime: &Path) -> Result<()> {
    const HEADER: &str = "# Machine-local link to the rusty-sdk-runtime source, written by rusty-sdk until the\n# crate is published on crates.io. Keep it out of version control (see .gitignore).\n";
    let existing = tree.read(LOCAL_LINK)?;
    let path = runtime.to_string_lossy();
    let current = existing.as_deref().unwrap_or_default();
    let (_, updated) = toml::ensure_patch_path(LOCAL_LINK, current, RUNTIME_CRATE, &path)?;
    let updated = match existing {
        Some(_) => updated,
        None => format!("{HEADER}{updated}"),
    };
    tree.add(LOCAL_LINK, updated, Policy::Tool);
    Ok(())
}

pub fn run(session: &Session, args: &InitArgs) -> Result<()> {
    let settings = InitSettings::from_args(args, &session.root)?;
    session.lock()?;
    if session.root.join(project::FILE_NAME).exists() {
        return Err(Error::Project(format!(
            "{} already holds a project (PROJECT exists); add APIs with `rusty-sdk create api`, or run init in an empty directory",
            session.root.display()
        )));
    }
    let mut tree = stage(&settings, &session.root)?;
    let mut project = settings.project();
    // The first Helm API joins the base tree's commit: interrupted, neither is written.
    let api = if let Some(api) = &settings.first_api {
        let spec =
            crate::commands::create_api::helm::stage_api(session, &mut tree, &mut project, api)?;
        crate::commands::create_api::common::apply(session, tree, &project)?;
        Some(spec)
    } else {
        session.apply(tree, &project)?;
        None
    };
    if settings.runtime_path.is_none() {
        session.shell.warn(&format!(
            "the rusty-sdk-runtime source was not found at {BUILT_RUNTIME}, so {LOCAL_LINK} was not written; pass --runtime-path <dir> or build once the crate is on crates.io"
        ));
    }
    if !session.dry_run {
        session.shell.note(&match api {
            Some(spec) => crate::commands::create_api::helm::next_steps(&spec),
            None => next_steps(settings.layout),
        });
    }
    Ok(())
}

/// Stage every file `init` writes for these settings.
pub fn stage(settings: &InitSettings, root: &Path) -> Result<Tree> {
    let mut tree = Tree::new(root);
    let context = settings.context();
    let mut renderer = Renderer::new();
    let sources: Vec<_> = template_sets(settings.layout)
        .into_iter()
        .flat_map(templates::sources)
        .collect();
    renderer.prepare(&sources)?;
    for source in &sources {
        let bytes = renderer.produce(source, &context)?;
        tree.add(&source.output, bytes, Policy::User);
    }
    if let Some(header) = &settings.license_header {
        tree.add(boilerplate::FILE, header.as_str(), Policy::User);
    }
    // role.yaml is the RBAC generator's from the start, so `generate rbac --check` holds.
    crate::rbac::stage_role(&mut tree, &settings.project())?;
    if let Some(runtime) = &settings.runtime_path {
        stage_runtime_link(&mut tree, runtime)?;
    }
    Ok(tree)
}

fn next_steps(layout: Layout) -> String {
    let plugin = match layout {
        Layout::HybridHelm => "helm|rust",
        Layout::Helm => "helm",
        Layout::Rust => "rust",
    };
    format!(
        "Next: define a resource with:\n$ rusty-sdk create api --plugins {plugin} --group <group> --version <version> --kind <Kind>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_go_hash_fnv_new32a() {
        // Go: fnv.New32a() over "github.com/example/memcached-operator" (operator-sdk's
        // leader election id in its samples is 86f835c3.my.domain).
        assert_eq!(
            format!("{:08x}", fnv1a32(b"github.com/example/memcached-operator")),
            "86f835c3"
        );
        assert_eq!(fnv1a32(b""), 0x811c_9dc5);
    }
}
