//! What every API gets, whichever plugin made it: its names, the CRD and sample paths, the
//! kustomize entries, the admin/editor/viewer roles and its PROJECT entry.
use tera::Context;

use crate::error::{Error, Result};
use crate::model::names::parse_plural;
use crate::model::{Domain, Group, Kind, Version};
use crate::project::{Project, Resource, ResourceApi};
use crate::scaffold::{Policy, Tree};
use crate::session::Session;
use crate::templates::{self, Renderer};

/// A validated API: group, version, kind and everything derived from them.
#[derive(Clone, Debug)]
pub struct ApiSpec {
    pub domain: Domain,
    pub group: Group,
    pub version: Version,
    pub kind: Kind,
    pub plural: String,
    pub namespaced: bool,
}

impl ApiSpec {
    pub fn new(
        project: &Project,
        group: Group,
        version: Version,
        kind: Kind,
        plural: Option<&str>,
        namespaced: bool,
    ) -> Result<Self> {
        let domain = project.domain.as_deref().unwrap_or("my.domain");
        let plural = match plural {
            Some(p) => parse_plural(p)?,
            None => kind.plural(),
        };
        Ok(ApiSpec {
            domain: Domain::parse(domain)?,
            group,
            version,
            kind,
            plural,
            namespaced,
        })
    }

    /// `cache.my.domain`
    pub fn qualified_group(&self) -> String {
        format!("{}.{}", self.group, self.domain)
    }

    /// `config/crd/bases/cache.my.domain_memcacheds.yaml`
    pub fn crd_path(&self) -> String {
        format!(
            "config/crd/bases/{}_{}.yaml",
            self.qualified_group(),
            self.plural
        )
    }

    /// `config/samples/cache_v1_memcached.yaml`
    pub fn sample_path(&self) -> String {
        format!("config/samples/{}", self.sample_file())
    }

    fn sample_file(&self) -> String {
        format!("{}_{}_{}.yaml", self.group, self.version, self.kind.lower())
    }

    /// `cache/v1, Kind=Memcached`, as kubebuilder prints a GVK.
    pub fn display(&self) -> String {
        format!(
            "{}/{}, Kind={}",
            self.qualified_group(),
            self.version,
            self.kind
        )
    }

    /// The template context every API template can use.
    pub fn context(&self, project: &Project) -> Context {
        let mut ctx = Context::new();
        ctx.insert(
            "project_name",
            project.project_name.as_deref().unwrap_or("operator"),
        );
        ctx.insert("domain", self.domain.as_str());
        ctx.insert("group", self.group.as_str());
        ctx.insert("group_module", &self.group.module());
        ctx.insert("qualified_group", &self.qualified_group());
        ctx.insert("version", self.version.as_str());
        ctx.insert("kind", self.kind.as_str());
        ctx.insert("kind_lower", &self.kind.lower());
        ctx.insert("kind_snake", &self.kind.snake());
        ctx.insert("kind_screaming", &self.kind.screaming());
        ctx.insert("plural", &self.plural);
        ctx.insert("namespaced", &self.namespaced);
        ctx
    }

    /// Refuse to scaffold an API PROJECT already has, unless `force`.
    pub fn check_new(&self, project: &Project, force: bool) -> Result<()> {
        let exists = project
            .find_resource(
                self.group.as_str(),
                self.version.as_str(),
                self.kind.as_str(),
            )
            .is_some();
        if exists && !force {
            return Err(Error::Project(format!(
                "API already exists: {} is in PROJECT; pass --force to re-scaffold the files this command owns (nothing was written)",
                self.display()
            )));
        }
        Ok(())
    }

    /// The PROJECT entry for this API.
    pub fn resource(&self, controller: bool, path: Option<String>) -> Resource {
        Resource {
            api: Some(ResourceApi {
                crd_version: Some("v1".into()),
                namespaced: self.namespaced,
                ..ResourceApi::default()
            }),
            controller,
            domain: Some(self.domain.to_string()),
            group: self.group.to_string(),
            kind: self.kind.to_string(),
            path,
            plural: (self.plural != self.kind.plural()).then(|| self.plural.clone()),
            version: self.version.to_string(),
            ..Resource::default()
        }
    }
}

/// Stage the kustomize entries and the roles every API gets.
pub fn stage_common(
    tree: &mut Tree,
    renderer: &mut Renderer,
    spec: &ApiSpec,
    project: &Project,
) -> Result<()> {
    let crd_entry = format!("- bases/{}_{}.yaml", spec.qualified_group(), spec.plural);
    tree.insert_at_marker(
        "config/crd/kustomization.yaml",
        "crdkustomizeresource",
        &crd_entry,
    )?;
    enable_crd_in_default(tree)?;
    let sample_entry = format!("- {}", spec.sample_file());
    tree.insert_at_marker(
        "config/samples/kustomization.yaml",
        "manifestskustomizesamples",
        &sample_entry,
    )?;

    let context = spec.context(project);
    let kind = spec.kind.lower();
    let mut role_entries = String::new();
    for source in templates::sources("api/common") {
        let path = source.output.replace("KIND", &kind);
        let bytes = renderer.produce(&source, &context)?;
        tree.add(&path, bytes, Policy::User);
        if let Some(file) = path.strip_prefix("config/rbac/") {
            role_entries.push_str(&format!("- {file}\n"));
        }
    }
    tree.insert_at_marker(
        "config/rbac/kustomization.yaml",
        "rbac-roles",
        &role_entries,
    )?;
    Ok(())
}

/// `config/default` starts with `#- ../crd` commented out, since there is no CRD before the
/// first API; the first `create api` turns it on.
fn enable_crd_in_default(tree: &mut Tree) -> Result<()> {
    const PATH: &str = "config/default/kustomization.yaml";
    let text = tree.read(PATH)?.unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    if lines.iter().any(|l| l.trim() == "- ../crd") {
        return Ok(());
    }
    let Some(at) = lines.iter().position(|l| l.trim() == "#- ../crd") else {
        return Err(Error::MarkerMissing {
            path: PATH.to_string(),
            marker: "- ../crd (in resources)".to_string(),
        });
    };
    tree.edit(PATH, |text| {
        Ok(text
            .split_inclusive('\n')
            .enumerate()
            .map(|(i, line)| {
                if i == at {
                    line.replacen("#- ../crd", "- ../crd", 1)
                } else {
                    line.to_string()
                }
            })
            .collect())
    })
}

/// The last step of every `create api`: regenerate role.yaml from everything staged so far
/// (the new kind, its markers or chart), then plan, print and commit.
pub fn apply(session: &Session, mut tree: Tree, project: &Project) -> Result<()> {
    for warning in crate::rbac::stage_role(&mut tree, project)? {
        session.shell.warn(&warning);
    }
    session.apply(tree, project).map(|_| ())
}
