//! Merging permissions into rules: one entry per API group and resource first (verbs of all
//! sources joined), then resources with the same group, names and verbs share one rule.
//! Everything is kept in ordered collections, so the output never depends on input order.
use std::collections::{BTreeMap, BTreeSet};

use super::rule::{Permission, Source, Target};

/// One rule of a role, ready to print.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The API group; `None` for a non-resource URL rule.
    pub group: Option<String>,
    pub resources: Vec<String>,
    pub resource_names: Vec<String>,
    pub urls: Vec<String>,
    pub verbs: Vec<String>,
    pub sources: Vec<Source>,
    pub notes: Vec<String>,
}

/// The rules of the ClusterRole and of each namespace's Role.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoleSet {
    pub cluster: Vec<Rule>,
    pub namespaced: BTreeMap<String, Vec<Rule>>,
}

#[derive(Default)]
struct Provenance {
    sources: BTreeSet<Source>,
    notes: BTreeSet<String>,
}

impl Provenance {
    fn add(
        &mut self,
        sources: impl IntoIterator<Item = Source>,
        notes: impl IntoIterator<Item = String>,
    ) {
        self.sources.extend(sources);
        self.notes.extend(notes);
    }
}

/// What makes targets share a rule: place, group, names and verbs.
type RuleKey = (Option<String>, Option<String>, Vec<String>, Vec<String>);

/// Merge every permission. With `scope`, the project runs in that one namespace: namespaced
/// resources go to a Role there and only cluster-scoped ones stay in the ClusterRole.
pub fn merge(permissions: Vec<Permission>, scope: Option<&str>) -> RoleSet {
    // 1. Per place and target: the union of verbs.
    let mut per_target: BTreeMap<(Option<String>, Target), (BTreeSet<String>, Provenance)> =
        BTreeMap::new();
    for p in permissions {
        let place = placement(&p, scope);
        let entry = per_target.entry((place, p.target)).or_default();
        entry.0.extend(p.verbs);
        entry.1.add([p.source], p.note);
    }

    // 2. Targets with the same place, group, names and verbs share a rule.
    let mut per_rule: BTreeMap<RuleKey, (BTreeSet<String>, Provenance)> = BTreeMap::new();
    for ((place, target), (verbs, provenance)) in per_target {
        let verbs = explicit_verbs(verbs);
        let (group, names, item) = match target {
            Target::Resource {
                group,
                resource,
                names,
            } => (Some(group), names.into_iter().collect(), resource),
            Target::Url(url) => (None, Vec::new(), url),
        };
        let entry = per_rule.entry((place, group, names, verbs)).or_default();
        entry.0.insert(item);
        entry.1.add(provenance.sources, provenance.notes);
    }

    let mut roles = RoleSet::default();
    for ((place, group, resource_names, verbs), (items, provenance)) in per_rule {
        let items: Vec<String> = items.into_iter().collect();
        let (resources, urls) = if group.is_some() {
            (items, Vec::new())
        } else {
            (Vec::new(), items)
        };
        let rule = Rule {
            group,
            resources,
            resource_names,
            urls,
            verbs,
            sources: provenance.sources.into_iter().collect(),
            notes: provenance.notes.into_iter().collect(),
        };
        match place {
            None => roles.cluster.push(rule),
            Some(ns) => roles.namespaced.entry(ns).or_default().push(rule),
        }
    }
    roles.cluster.sort_by(rule_order);
    for rules in roles.namespaced.values_mut() {
        rules.sort_by(rule_order);
    }
    roles
}

/// Where a permission is granted: `None` for the ClusterRole, or a namespace's Role.
fn placement(p: &Permission, scope: Option<&str>) -> Option<String> {
    if let Some(ns) = &p.namespace {
        return Some(ns.clone());
    }
    match (&p.target, scope) {
        (Target::Resource { .. }, Some(ns)) if !p.cluster_scoped => Some(ns.to_string()),
        _ => None,
    }
}

/// Sorted verbs; `*` (from a marker or a chart's role) covers every other verb.
fn explicit_verbs(verbs: BTreeSet<String>) -> Vec<String> {
    if verbs.contains("*") {
        vec!["*".to_string()]
    } else {
        verbs.into_iter().collect()
    }
}

/// Resource rules by group, then resources; URL rules last.
fn rule_order(a: &Rule, b: &Rule) -> std::cmp::Ordering {
    let key = |r: &Rule| {
        (
            r.group.is_none(),
            r.group.clone(),
            r.resources.clone(),
            r.urls.clone(),
            r.resource_names.clone(),
            r.verbs.clone(),
        )
    };
    key(a).cmp(&key(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rbac::rule::HELM_VERBS;

    fn chart() -> Source {
        Source::Chart("helm-charts/memcached".into())
    }

    fn marker(line: usize) -> Source {
        Source::Marker {
            file: "src/controller/backup.rs".into(),
            line,
        }
    }

    fn perm(group: &str, resource: &str, verbs: &[&str], source: Source) -> Permission {
        Permission::new(Target::resource(group, resource), verbs, source)
    }

    fn summary(rules: &[Rule]) -> Vec<String> {
        rules
            .iter()
            .map(|r| {
                format!(
                    "{}:{}:{}",
                    r.group.as_deref().unwrap_or("URL"),
                    [r.resources.clone(), r.urls.clone()].concat().join(","),
                    r.verbs.join(",")
                )
            })
            .collect()
    }

    #[test]
    fn same_resource_from_two_sources_is_one_entry_with_all_verbs() {
        let roles = merge(
            vec![
                perm("", "pods", &["watch", "get"], marker(3)),
                perm("", "pods", &["list", "get"], marker(9)),
            ],
            None,
        );
        assert_eq!(summary(&roles.cluster), [":pods:get,list,watch"]);
        assert_eq!(roles.cluster[0].sources, [marker(3), marker(9)]);
    }

    #[test]
    fn resources_with_equal_verbs_share_a_rule_and_order_is_deterministic() {
        let input = vec![
            perm("apps", "deployments", HELM_VERBS, chart()),
            perm("", "services", HELM_VERBS, chart()),
            perm(
                "",
                "secrets",
                HELM_VERBS,
                Source::Base("Helm release storage"),
            ),
            perm("", "events", &["patch", "create"], Source::Base("events")),
            perm("", "pods", &["get", "list", "watch"], marker(4)),
            Permission::new(Target::Url("/metrics".into()), &["get"], marker(5)),
        ];
        let mut reversed = input.clone();
        reversed.reverse();
        let roles = merge(input, None);
        assert_eq!(roles, merge(reversed, None));
        assert_eq!(
            summary(&roles.cluster),
            [
                ":events:create,patch",
                ":pods:get,list,watch",
                ":secrets,services:create,delete,get,list,patch,update,watch",
                "apps:deployments:create,delete,get,list,patch,update,watch",
                "URL:/metrics:get",
            ]
        );
        assert_eq!(
            roles.cluster[2].sources,
            [Source::Base("Helm release storage"), chart()]
        );
    }

    #[test]
    fn wildcard_verbs_only_come_from_what_was_asked() {
        let roles = merge(
            vec![
                perm("apps", "deployments", HELM_VERBS, chart()),
                perm("apps", "deployments", &["*"], marker(1)),
            ],
            None,
        );
        assert_eq!(roles.cluster[0].verbs, ["*"]);
        let roles = merge(vec![perm("apps", "deployments", HELM_VERBS, chart())], None);
        assert!(!roles.cluster[0].verbs.contains(&"*".to_string()));
    }

    #[test]
    fn resource_names_keep_rules_apart() {
        let mut named = perm("", "configmaps", &["get"], marker(2));
        if let Target::Resource { names, .. } = &mut named.target {
            names.insert("settings".into());
        }
        let roles = merge(
            vec![named, perm("", "configmaps", &["get"], marker(3))],
            None,
        );
        assert_eq!(roles.cluster.len(), 2);
        assert_eq!(roles.cluster[0].resource_names, Vec::<String>::new());
        assert_eq!(roles.cluster[1].resource_names, ["settings"]);
    }

    #[test]
    fn a_scoped_project_keeps_only_cluster_scoped_resources_in_the_cluster_role() {
        let mut in_ops = perm("", "configmaps", &["get"], marker(7));
        in_ops.namespace = Some("ops".into());
        let roles = merge(
            vec![
                perm("", "services", HELM_VERBS, chart()),
                perm("", "namespaces", &["get"], Source::Base("namespaces")).cluster_scoped(true),
                in_ops,
            ],
            Some("team-a"),
        );
        assert_eq!(summary(&roles.cluster), [":namespaces:get"]);
        assert_eq!(
            roles.namespaced.keys().collect::<Vec<_>>(),
            ["ops", "team-a"]
        );
        assert_eq!(summary(&roles.namespaced["ops"]), [":configmaps:get"]);
        assert_eq!(
            summary(&roles.namespaced["team-a"]),
            [":services:create,delete,get,list,patch,update,watch"]
        );
    }
}
