//! The rules the runtime itself needs, whatever the controllers and charts do: its own custom
//! resources with status and finalizers, events, Helm release storage and namespaces.
//! Leases are not here: leader election has its own Role (`leader_election_role.yaml`).
use crate::project::{Project, Resource};

use super::rule::{HELM_VERBS, Permission, Source, Target};

/// One of the project's own kinds (a PROJECT resource with an API).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnKind {
    /// The full API group, `<group>.<domain>`.
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    pub namespaced: bool,
}

/// The full API group of a PROJECT resource: `<group>.<domain>`, or `""` for core.
pub fn full_group(project: &Project, resource: &Resource) -> String {
    let domain = resource.domain.as_deref().or(project.domain.as_deref());
    match (resource.group.as_str(), domain) {
        ("" | "core", _) => String::new(),
        (group, Some(domain)) if !domain.is_empty() => format!("{group}.{domain}"),
        (group, _) => group.to_string(),
    }
}

/// Every PROJECT resource that defines an API of this project.
pub fn own_kinds(project: &Project) -> Vec<OwnKind> {
    project
        .resources
        .iter()
        .filter(|r| r.api.is_some())
        .map(|r| OwnKind {
            group: full_group(project, r),
            version: r.version.clone(),
            kind: r.kind.clone(),
            plural: r
                .plural
                .clone()
                .unwrap_or_else(|| super::resources::guess_plural(&r.kind)),
            namespaced: r.api.as_ref().is_some_and(|api| api.namespaced),
        })
        .collect()
}

/// The runtime's permissions for this project. `helm` says whether it has Helm APIs,
/// `namespaced_manager` whether the manager is scoped to its own namespace.
pub fn permissions(kinds: &[OwnKind], helm: bool, namespaced_manager: bool) -> Vec<Permission> {
    let mut out = Vec::new();
    for kind in kinds {
        let source = || Source::Base("own kind");
        let target =
            |suffix: &str| Target::resource(&kind.group, &format!("{}{suffix}", kind.plural));
        out.push(
            Permission::new(target(""), HELM_VERBS, source()).cluster_scoped(!kind.namespaced),
        );
        out.push(
            Permission::new(target("/status"), &["get", "patch", "update"], source())
                .cluster_scoped(!kind.namespaced),
        );
        out.push(
            Permission::new(target("/finalizers"), &["update"], source())
                .cluster_scoped(!kind.namespaced),
        );
    }
    let events = || Source::Base("events");
    out.push(Permission::new(
        Target::resource("", "events"),
        &["create", "patch"],
        events(),
    ));
    out.push(Permission::new(
        Target::resource("events.k8s.io", "events"),
        &["create", "patch"],
        events(),
    ));
    // operator-sdk's base rule. A manager scoped to its own namespace goes without: that
    // namespace exists, and a cluster-scoped rule would need a ClusterRole.
    if !namespaced_manager {
        out.push(
            Permission::new(
                Target::resource("", "namespaces"),
                &["get"],
                Source::Base("namespaces"),
            )
            .cluster_scoped(true),
        );
    }
    if helm {
        out.push(Permission::new(
            Target::resource("", "secrets"),
            HELM_VERBS,
            Source::Base("Helm release storage"),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> Project {
        Project::parse(
            "domain: my.domain\nresources:\n- api: {crdVersion: v1, namespaced: true}\n  group: cache\n  kind: Memcached\n  version: v1\n- api: {crdVersion: v1, namespaced: false}\n  domain: example.com\n  group: ops\n  kind: Policy\n  version: v1alpha1\n- controller: true\n  group: apps\n  kind: Deployment\n  version: v1\n- api: {crdVersion: v1, namespaced: true}\n  group: cache\n  kind: Proxy\n  plural: proxiez\n  version: v1\nversion: \"3\"\n",
        )
        .unwrap()
    }

    #[test]
    fn own_kinds_use_domain_plural_and_scope() {
        let kinds = own_kinds(&project());
        let names: Vec<_> = kinds
            .iter()
            .map(|k| (k.group.as_str(), k.plural.as_str(), k.namespaced))
            .collect();
        assert_eq!(
            names,
            [
                ("cache.my.domain", "memcacheds", true),
                ("ops.example.com", "policies", false),
                ("cache.my.domain", "proxiez", true),
            ]
        );
    }

    #[test]
    fn base_rules_cover_own_kinds_events_namespaces_and_helm_secrets() {
        let kinds = own_kinds(&project());
        let with_helm = permissions(&kinds, true, false);
        let find = |perms: &[Permission], group: &str, resource: &str| {
            perms
                .iter()
                .find(|p| p.target == Target::resource(group, resource))
                .map(|p| p.verbs.iter().cloned().collect::<Vec<_>>().join(","))
        };
        assert_eq!(
            find(&with_helm, "cache.my.domain", "memcacheds").as_deref(),
            Some("create,delete,get,list,patch,update,watch")
        );
        assert_eq!(
            find(&with_helm, "cache.my.domain", "memcacheds/status").as_deref(),
            Some("get,patch,update")
        );
        assert_eq!(
            find(&with_helm, "ops.example.com", "policies/finalizers").as_deref(),
            Some("update")
        );
        assert_eq!(
            find(&with_helm, "", "events").as_deref(),
            Some("create,patch")
        );
        assert_eq!(
            find(&with_helm, "events.k8s.io", "events").as_deref(),
            Some("create,patch")
        );
        assert_eq!(find(&with_helm, "", "namespaces").as_deref(), Some("get"));
        assert!(find(&with_helm, "", "secrets").is_some());
        assert!(find(&with_helm, "coordination.k8s.io", "leases").is_none());
        assert!(find(&with_helm, "apps", "deployments").is_none());
        assert!(find(&permissions(&kinds, false, false), "", "secrets").is_none());
        // Scoped to its namespace, the manager needs no cluster-scoped rule of its own.
        assert!(find(&permissions(&kinds, true, true), "", "namespaces").is_none());
    }
}
