//! What every API gets, whichever plugin made it: the kustomize entries, the
//! admin/editor/viewer roles and, last, the regenerated role.yaml and the commit.
use std::fmt::Write as _;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::ApiSpec;
use crate::project::Project;
use crate::scaffold::{Policy, Tree};
use crate::session::Session;
use crate::templates::{self, Renderer};

/// The variables of the admin, editor and viewer roles (templates/api/common).
#[derive(Serialize)]
struct RolesContext<'a> {
    /// Prefixes the roles' names, as kustomize's namePrefix does the manager's.
    project_name: &'a str,
    /// The API's name in the roles' names and files (`memcached`).
    api_name: String,
    /// The resource the rules grant, and its `/status`.
    plural: &'a str,
    /// The rules' API group (`cache.my.domain`).
    qualified_group: String,
    /// A manager that watches only its namespace gets Roles instead of ClusterRoles.
    namespaced_manager: bool,
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

    let context = templates::context(&RolesContext {
        project_name: project.name(),
        api_name: spec.api_name(),
        plural: &spec.plural,
        qualified_group: spec.qualified_group(),
        namespaced_manager: project.namespaced,
    })?;
    let stem = spec.api_name().replace('-', "_");
    let mut role_entries = String::new();
    let sources = templates::sources("api/common");
    renderer.prepare(&sources)?;
    for source in &sources {
        let path = source.output.replace("KIND", &stem);
        let bytes = renderer.produce(source, &context)?;
        tree.add(&path, bytes, Policy::User);
        if let Some(file) = path.strip_prefix("config/rbac/") {
            let _ = writeln!(role_entries, "- {file}");
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
