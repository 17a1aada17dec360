//! The files of a Rust API: the type in the api crate (one module per group and version),
//! its CRD and sample, the controller, and the lines that register them.
use super::context::{ControllerContext, RustApiContext};
use super::crd;
use super::{ControllerName, RustApiSettings};
use crate::error::{Error, Result};
use crate::model::ApiSpec;
use crate::project::Project;
use crate::rust_layout;
use crate::scaffold::markers::marker_indent;
use crate::scaffold::type_names::TypeNames;
use crate::scaffold::{EditOutcome, Policy, Tree, toml};
use crate::templates::{self, Renderer};

const TEMPLATES: &str = "api/rust";
pub const API_LIB: &str = "api/src/lib.rs";
const CRDGEN: &str = "src/bin/crdgen.rs";
const CONTROLLER_MOD: &str = "src/controller/mod.rs";
const MAIN: &str = "src/main.rs";
const WORKSPACE: &str = "Cargo.toml";

pub struct RustApiFiles<'a> {
    settings: &'a RustApiSettings,
    /// The variables every template of the API uses.
    variables: RustApiContext,
    api_crate: String,
    /// Another version of this kind exists: its CRD file then holds several versions,
    /// which only crdgen can write.
    other_version: bool,
}

impl<'a> RustApiFiles<'a> {
    pub fn new(settings: &'a RustApiSettings, project: &Project) -> Self {
        let spec = &settings.spec;
        let api_crate = format!("{}_api", project.crate_ident());
        let variables = RustApiContext::new(spec, project, &api_crate, settings.image.as_ref());
        let other_version = project.resources.iter().any(|r| {
            r.group == spec.group.as_str()
                && r.kind == spec.kind.as_str()
                && r.version != spec.version.as_str()
        });
        RustApiFiles {
            settings,
            variables,
            api_crate,
            other_version,
        }
    }

    fn spec(&self) -> &ApiSpec {
        &self.settings.spec
    }

    /// `memcached_operator_api::cache::v1`: PROJECT's `path` of the resource.
    pub fn module_path(&self) -> String {
        let spec = self.spec();
        format!(
            "{}::{}::{}",
            self.api_crate,
            spec.group.module(),
            spec.version
        )
    }

    fn group_dir(&self) -> String {
        format!("api/src/{}", self.spec().group.module())
    }

    fn version_dir(&self) -> String {
        format!("{}/{}", self.group_dir(), self.spec().version)
    }

    /// The type, its group/version modules, the CRD, the sample and their registrations.
    pub fn stage_resource(&self, tree: &mut Tree, renderer: &mut Renderer) -> Result<()> {
        let spec = self.spec();
        let kind = &spec.kind;
        let types = format!("{}/{}.rs", self.version_dir(), kind.module());
        let group_mod = format!("{}/mod.rs", self.group_dir());
        let version_mod = format!("{}/mod.rs", self.version_dir());
        for (path, template) in [
            (&group_mod, "group_mod.rs.tera"),
            (&version_mod, "version_mod.rs.tera"),
        ] {
            self.create_once(tree, renderer, path, template)?;
        }

        let text = self.render(renderer, "types.rs.tera")?;
        tree.add(&types, text, Policy::User);

        tree.insert_at_marker(
            API_LIB,
            "api-modules",
            &format!("pub mod {};", spec.group.module()),
        )?;
        tree.insert_at_marker(
            &group_mod,
            "versions",
            &format!("pub mod {};", spec.version),
        )?;
        tree.insert_at_marker(
            &version_mod,
            "kinds",
            &format!(
                "pub mod {snake};\n{}",
                rust_layout::use_list(
                    "pub ",
                    &kind.module(),
                    &[
                        kind.as_str(),
                        &format!("{kind}Spec"),
                        &format!("{kind}Status")
                    ]
                ),
                snake = kind.module()
            ),
        )?;
        self.register_crd(tree)?;
        ensure_api_member(tree)?;

        if !self.crd_needs_crdgen(tree) {
            let crd = crd::render(&self.variables, renderer)?;
            tree.add(&spec.crd_path(), crd, Policy::User);
        }
        let sample = self.render(renderer, "sample.yaml.tera")?;
        tree.add(&spec.sample_path(), sample, Policy::User);
        Ok(())
    }

    /// Whether the CRD file must be left to `make manifests`: it already holds another
    /// version of this kind, and crdgen merges the versions into one CRD.
    pub fn crd_needs_crdgen(&self, tree: &Tree) -> bool {
        self.other_version && tree.exists(&self.spec().crd_path())
    }

    /// Add the kind to the CRDs crdgen prints: at the `crds` marker of the api crate's
    /// lib.rs, or of src/bin/crdgen.rs in projects that keep the list there.
    fn register_crd(&self, tree: &mut Tree) -> Result<()> {
        let spec = self.spec();
        let in_crate = format!("{}::{}::{}", spec.group.module(), spec.version, spec.kind);
        let lib = tree.read(API_LIB)?.unwrap_or_default();
        let (file, path, text) = if lib.contains("+rusty:scaffold:crds") {
            (API_LIB, in_crate, lib)
        } else {
            let crdgen = tree.read(CRDGEN)?.unwrap_or_default();
            (CRDGEN, format!("{}::{in_crate}", self.api_crate), crdgen)
        };
        let entry = rust_layout::crd_entry(marker_indent(&text, "crds"), &path);
        tree.insert_at_marker(file, "crds", &entry)?;
        Ok(())
    }

    /// The controller module and the lines that start it.
    pub fn stage_controller(&self, tree: &mut Tree, renderer: &mut Renderer) -> Result<()> {
        let spec = self.spec();
        let template = if self.settings.image.is_some() {
            "image_controller.rs.tera"
        } else {
            "controller.rs.tera"
        };
        let names = TypeNames::for_template(
            templates::text(&format!("{TEMPLATES}/{template}"))?,
            &spec.group,
            &spec.kind,
        );
        let controller = &self.settings.controller_name;
        let context = templates::context(&ControllerContext::new(
            &self.variables,
            names,
            controller,
            &spec.qualified_group(),
        ))?;
        let text = renderer.render(&format!("{TEMPLATES}/{template}"), &context)?;
        let module = &controller.module;
        tree.add(&format!("src/controller/{module}.rs"), text, Policy::User);
        register_controller(tree, controller)?;
        let image = self.settings.image.is_some();
        super::integration::stage(tree, renderer, &self.variables, spec, controller, image)?;
        Ok(())
    }

    /// Stage a shared file (a module index) only if it does not exist yet: later APIs add
    /// their lines to it, and the user may have added theirs.
    fn create_once(
        &self,
        tree: &mut Tree,
        renderer: &mut Renderer,
        path: &str,
        template: &str,
    ) -> Result<()> {
        if !tree.exists(path) {
            let text = self.render(renderer, template)?;
            tree.add(path, text, Policy::User);
        }
        Ok(())
    }

    fn render(&self, renderer: &mut Renderer, template: &str) -> Result<String> {
        renderer.render(
            &format!("{TEMPLATES}/{template}"),
            &templates::context(&self.variables)?,
        )
    }
}

/// The types live in the api crate: if a user took it out of the workspace, a new type
/// puts it back (a no-op in every project `init` wrote).
pub fn ensure_api_member(tree: &mut Tree) -> Result<()> {
    let manifest = tree.read(WORKSPACE)?.unwrap_or_default();
    let (outcome, updated) = toml::ensure_workspace_member(WORKSPACE, &manifest, "api")?;
    if outcome == EditOutcome::Applied {
        tree.edit(WORKSPACE, |_| Ok(updated))?;
    }
    Ok(())
}

/// Declare the controller's module and start it from main.rs, each line laid out as
/// rustfmt would.
pub fn register_controller(tree: &mut Tree, controller: &ControllerName) -> Result<()> {
    let module = &controller.module;
    tree.insert_at_marker(
        CONTROLLER_MOD,
        "controller-modules",
        &format!("pub mod {module};"),
    )?;
    let main = tree.read(MAIN)?.unwrap_or_default();
    let indent = marker_indent(&main, "controllers");
    tree.insert_at_marker(
        MAIN,
        "controllers",
        &rust_layout::call_statement(
            indent,
            "manager.add_controller",
            &[
                &format!("{:?}", controller.name),
                &format!("controller::{module}::run"),
            ],
        ),
    )?;
    Ok(())
}

/// PROJECT's `projectName` names the crates Rust code uses (`<name>_api::...`): one that
/// no Cargo package could have (hand-edited to `Bad Name`) would make code that does not
/// build, so it is refused before anything is staged.
pub fn check_project_name(project: &Project) -> Result<()> {
    let name = project.name();
    let valid =
        crate::model::names::is_dns_label(name) && !name.starts_with(|c: char| c.is_ascii_digit());
    if valid {
        Ok(())
    } else {
        Err(Error::Project(format!(
            "projectName {} in PROJECT cannot name a Cargo package (the api crate is <projectName>-api): fix `projectName:` in PROJECT to the name in Cargo.toml (nothing was written)",
            crate::model::names::shown(name)
        )))
    }
}

/// Whether the api crate already has the type (`--resource=false --controller` then adds
/// only a controller for it).
pub fn type_exists(spec: &ApiSpec, project: &Project) -> bool {
    project
        .find_resource(
            spec.group.as_str(),
            spec.version.as_str(),
            spec.kind.as_str(),
        )
        .is_some_and(|r| r.path.is_some() && r.api.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Group, Kind, Version};

    fn settings(project: &Project) -> RustApiSettings {
        let spec = ApiSpec::new(
            project,
            Group::parse("cache").unwrap(),
            Version::parse("v1").unwrap(),
            Kind::parse("MemcachedBackup").unwrap(),
            None,
            true,
        )
        .unwrap();
        RustApiSettings {
            controller_name: ControllerName::of_kind(&spec),
            spec,
            resource: true,
            controller: false,
            named: false,
            image: None,
        }
    }

    fn project() -> Project {
        Project::parse("domain: my.domain\nlayout: rust.rusty-sdk.dev/v1\nprojectName: demo-operator\nversion: \"3\"\n").unwrap()
    }

    #[test]
    fn crds_are_registered_in_the_api_crate_or_else_in_crdgen() {
        let dir = tempfile::tempdir().unwrap();
        let project = project();
        let settings = settings(&project);
        let files = RustApiFiles::new(&settings, &project);
        assert_eq!(files.module_path(), "demo_operator_api::cache::v1");

        let mut tree = Tree::new(dir.path());
        tree.add(
            API_LIB,
            "vec![\n    // +rusty:scaffold:crds\n]\n",
            Policy::User,
        );
        files.register_crd(&mut tree).unwrap();
        let lib = tree.read(API_LIB).unwrap().unwrap();
        assert!(
            lib.contains("    cache::v1::MemcachedBackup::crd(),\n"),
            "{lib}"
        );

        let mut tree = Tree::new(dir.path());
        tree.add(API_LIB, "pub mod cache;\n", Policy::User);
        tree.add(
            CRDGEN,
            "vec![\n    // +rusty:scaffold:crds\n]\n",
            Policy::User,
        );
        files.register_crd(&mut tree).unwrap();
        let crdgen = tree.read(CRDGEN).unwrap().unwrap();
        assert!(
            crdgen.contains("demo_operator_api::cache::v1::MemcachedBackup::crd(),"),
            "{crdgen}"
        );

        // Neither file has the marker: an error naming it, not a silent skip.
        let mut tree = Tree::new(dir.path());
        tree.add(API_LIB, "pub mod cache;\n", Policy::User);
        tree.add(CRDGEN, "fn main() {}\n", Policy::User);
        let err = files.register_crd(&mut tree).unwrap_err().to_string();
        assert!(err.contains("+rusty:scaffold:crds"), "{err}");
    }

    #[test]
    fn a_type_exists_only_once_the_project_has_it() {
        let project = project();
        assert!(!type_exists(&settings(&project).spec, &project));
    }
}
