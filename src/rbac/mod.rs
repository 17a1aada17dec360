//! `generate rbac`: one least-privilege role for the manager, from three sources merged
//! (never one overwriting another, unlike operator-sdk's hybrid projects, where
//! helm-operator-plugins#142 dropped the Helm rules):
//!
//! 1. `+rusty:rbac` markers in the project's Rust files ([`markers`]),
//! 2. the objects each Helm API's chart creates ([`chart`]),
//! 3. what the runtime itself needs ([`base`]).
use std::collections::BTreeSet;

use crate::error::Result;
use crate::project::Project;
use crate::scaffold::{Policy, Tree};
use crate::yaml::Value;

pub mod ahead;
pub mod base;
pub mod chart;
pub mod chart_source;
pub mod helm_apis;
pub mod markers;
pub mod merge;
pub(crate) mod objects_cache;
pub mod render;
pub mod resources;
pub mod rule;
pub(crate) mod rust_files;
mod starter_objects;

use base::OwnKind;
use rule::{Permission, Source, Target};

pub use render::ROLE_PATH;

/// PROJECT plugin data of `generate rbac`: `namespace` when the operator is scoped to one.
pub const PLUGIN_KEY: &str = "rbac.rusty-sdk.dev/v1";

/// role.yaml's text, and what the user should double-check.
#[derive(Debug)]
pub struct GeneratedRole {
    pub text: String,
    pub warnings: Vec<String>,
}

/// Stage `config/rbac/role.yaml` (owned by the tool, rewritten whole) for the project as the
/// tree sees it, staged files included: `create api` calls this in its own plan.
/// Returns the warnings for the user.
pub fn stage_role(tree: &mut Tree, project: &Project) -> Result<Vec<String>> {
    let role = generate(tree, project)?;
    tree.add(ROLE_PATH, role.text, Policy::Tool);
    Ok(role.warnings)
}

/// Compute role.yaml from the markers, the charts and the base rules.
pub fn generate(tree: &Tree, project: &Project) -> Result<GeneratedRole> {
    generate_with(tree, project, &rust_files::read_all(tree)?)
}

/// [`generate`] with the project's Rust files already read ([`rust_files::read_all`]), for
/// a command that also looks for other markers in them.
pub fn generate_with(
    tree: &Tree,
    project: &Project,
    rust_files: &[(String, String)],
) -> Result<GeneratedRole> {
    let helm = helm_apis::helm_apis(tree, project)?;
    let own = own_kinds(project, &helm);
    let mut permissions = base::permissions(&own, !helm.is_empty(), project.namespaced);
    let mut warnings = BTreeSet::new();
    for api in &helm {
        let (objects, switch_warnings) = chart_source::chart_objects(tree, &api.chart_dir)?;
        warnings.extend(switch_warnings);
        permissions.extend(chart::permissions(&api.chart_dir, &objects, &own)?);
    }
    for (file, text) in rust_files {
        for marker in markers::parse_file(file, text)? {
            permissions.extend(marker_permissions(&marker, &own));
        }
    }
    warnings.extend(permissions.iter().filter_map(|p| p.note.clone()));
    let scope = namespace_scope(project);
    let roles = merge::merge(permissions, scope.as_deref());
    Ok(GeneratedRole {
        text: render::render(&roles, &project_name(tree, project), project.namespaced),
        warnings: warnings.into_iter().collect(),
    })
}

/// The project's own kinds: PROJECT's APIs, plus any Helm API that watches.yaml reconciles
/// but PROJECT does not list (the runtime needs its custom resources all the same).
fn own_kinds(project: &Project, helm: &[helm_apis::HelmApi]) -> Vec<OwnKind> {
    let mut own = base::own_kinds(project);
    for api in helm {
        if !own
            .iter()
            .any(|k| k.group == api.group && k.kind == api.kind)
        {
            own.push(OwnKind {
                group: api.group.clone(),
                version: api.version.clone(),
                kind: api.kind.clone(),
                plural: resources::guess_plural(&api.kind),
                namespaced: true,
            });
        }
    }
    own
}

/// kustomize's placeholder for the manager's namespace: config/default sets the real one.
pub const MANAGER_NAMESPACE: &str = "system";

/// The namespace the operator is scoped to: the one `generate rbac --namespace` recorded,
/// else the manager's own in a project made with `init --namespaced`.
pub fn namespace_scope(project: &Project) -> Option<String> {
    let recorded = project
        .plugins
        .get(PLUGIN_KEY)
        .and_then(|data| data.get("namespace"))
        .and_then(|ns| ns.as_str().map(str::to_string));
    recorded.or_else(|| project.namespaced.then(|| MANAGER_NAMESPACE.to_string()))
}

/// Record (or with `None`, forget) the namespace the operator is scoped to.
pub fn set_namespace_scope(project: &mut Project, namespace: Option<&str>) {
    if let Some(ns) = namespace {
        project
            .plugin_data_mut(PLUGIN_KEY)
            .insert(Value::from("namespace"), Value::from(ns));
    } else {
        let key = Value::from(PLUGIN_KEY);
        if let Some(Value::Mapping(data)) = project.plugins.get_mut(&key) {
            data.remove("namespace");
            if data.is_empty() {
                project.plugins.remove(&key);
            }
        }
    }
}

fn project_name(tree: &Tree, project: &Project) -> String {
    project.project_name.clone().unwrap_or_else(|| {
        tree.root()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    })
}

/// A marker's permissions: one per group and resource (or URL).
fn marker_permissions(marker: &markers::RbacMarker, own: &[OwnKind]) -> Vec<Permission> {
    let source = || Source::Marker {
        file: marker.file.clone(),
        line: marker.line,
    };
    let verbs: Vec<&str> = marker.verbs.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    for group in &marker.groups {
        for resource in &marker.resources {
            let target = Target::Resource {
                group: group.clone(),
                resource: resource.clone(),
                names: marker.resource_names.clone(),
            };
            let mut p = Permission::new(target, &verbs, source())
                .cluster_scoped(is_cluster_scoped(group, resource, own));
            p.namespace.clone_from(&marker.namespace);
            out.push(p);
        }
    }
    for url in &marker.urls {
        out.push(Permission::new(Target::Url(url.clone()), &verbs, source()));
    }
    out
}

/// Whether `group`/`resource` (or a subresource of it) is cluster-scoped, as far as known.
fn is_cluster_scoped(group: &str, resource: &str, own: &[OwnKind]) -> bool {
    let plural = resource.split('/').next().unwrap_or(resource);
    if let Some(kind) = own.iter().find(|k| k.group == group && k.plural == plural) {
        return !kind.namespaced;
    }
    resources::by_plural(group, plural).is_some_and(|k| k.scope == resources::Scope::Cluster)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `create api` stages the chart, watches.yaml and the controller in one plan and then
    /// calls `stage_role`: nothing of it is on disk yet.
    #[test]
    fn stage_role_sees_files_staged_in_the_same_plan() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::parse(
            "domain: my.domain\nprojectName: demo\nresources:\n- {group: cache, version: v1, kind: Memcached, api: {namespaced: true}}\nversion: \"3\"\n",
        )
        .unwrap();
        let mut tree = Tree::new(dir.path());
        for (path, text) in rusty_sdk_chart::starter::files("memcached") {
            tree.add(&format!("helm-charts/memcached/{path}"), text, Policy::User);
        }
        tree.add(
            helm_apis::WATCHES,
            "- {group: cache.my.domain, version: v1, kind: Memcached, chart: helm-charts/memcached}\n",
            Policy::Tool,
        );
        tree.add(
            "src/controller/backup.rs",
            "// +rusty:rbac:groups=batch,resources=jobs,verbs=create\n",
            Policy::User,
        );
        stage_role(&mut tree, &project).unwrap();
        let role = tree.read(ROLE_PATH).unwrap().unwrap();
        assert!(role.contains("# chart helm-charts/memcached\n- apiGroups:\n  - apps\n  resources:\n  - deployments\n"), "{role}");
        assert!(
            role.contains("# marker src/controller/backup.rs:1\n- apiGroups:\n  - batch\n"),
            "{role}"
        );
        assert!(role.contains("  - memcacheds/status\n"), "{role}");
        assert!(
            !dir.path().join(ROLE_PATH).exists(),
            "staging wrote to disk"
        );
    }

    #[test]
    fn a_watched_kind_missing_from_project_still_gets_its_base_rules() {
        let project = Project::parse("domain: my.domain\nversion: \"3\"\n").unwrap();
        let helm = [helm_apis::HelmApi {
            group: "web.example.com".into(),
            version: "v1".into(),
            kind: "Nginx".into(),
            chart_dir: "helm-charts/nginx".into(),
        }];
        let own = own_kinds(&project, &helm);
        assert_eq!(own.len(), 1);
        assert_eq!(
            (own[0].plural.as_str(), own[0].namespaced),
            ("nginxes", true)
        );
    }

    #[test]
    fn a_missing_chart_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let project = Project::parse("version: \"3\"\n").unwrap();
        let mut tree = Tree::new(dir.path());
        tree.add(
            helm_apis::WATCHES,
            "- {group: x.io, version: v1, kind: Thing, chart: helm-charts/thing}\n",
            Policy::Tool,
        );
        let err = stage_role(&mut tree, &project).unwrap_err().to_string();
        assert!(
            err.starts_with("helm-charts/thing: chart not found"),
            "{err}"
        );
    }

    #[test]
    fn namespace_scope_round_trips_through_project_plugin_data() {
        let mut project = Project::parse("version: \"3\"\n").unwrap();
        assert_eq!(namespace_scope(&project), None);
        set_namespace_scope(&mut project, Some("team-a"));
        let text = project.render().unwrap();
        assert!(
            text.contains("plugins:\n  rbac.rusty-sdk.dev/v1:\n    namespace: team-a\n"),
            "{text}"
        );
        let mut project = Project::parse(&text).unwrap();
        assert_eq!(namespace_scope(&project).as_deref(), Some("team-a"));
        set_namespace_scope(&mut project, None);
        assert!(project.plugins.is_empty());
    }
}
