//! Permissions for the objects a Helm chart creates. The chart crate renders the chart twice
//! (default values, and every `enabled` switch on) and lists the objects of both renders,
//! its crds/ and its subcharts; each object's apiVersion and kind become a resource name
//! through the project's own kinds, the chart's CRDs, the built-in table, or a guess.
//!
//! A chart's Roles and ClusterRoles add their own rules, and its bindings `bind` on the roles
//! they name that the chart does not define: the API server refuses to let anyone create a
//! role granting more than they hold, or bind a role whose rules they lack, unless they have
//! `escalate` or `bind` on it (RBAC's escalation prevention). An aggregated ClusterRole
//! (`aggregationRule`) takes `escalate` on clusterroles: its rules are whatever it gathers.
use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::error::{Error, Result};

use super::base::OwnKind;
use super::resources::{self, Scope};
use super::rule::{HELM_VERBS, Permission, Source, Target};

/// One object a chart creates.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ChartObject {
    /// The template (or crds/ file) it came from, for error messages.
    pub source: String,
    /// A `helm test` hook: run by `helm test`, never by the operator.
    pub test_hook: bool,
    pub object: Value,
}

/// A kind's resource name and scope, and whether the name is only a guess.
struct Resolved {
    plural: String,
    cluster_scoped: bool,
    guessed: bool,
}

/// The permissions a Helm release of this chart needs. `chart_dir` names the chart in the
/// rule comments.
pub fn permissions(
    chart_dir: &str,
    objects: &[ChartObject],
    own: &[OwnKind],
) -> Result<Vec<Permission>> {
    let flat = flatten(objects);
    let crds: Vec<OwnKind> = flat.iter().filter_map(|o| crd_kind(&o.object)).collect();
    let roles: BTreeSet<(String, String)> = flat
        .iter()
        .filter(|o| !o.test_hook)
        .filter_map(|o| role_of(&o.object))
        .collect();
    let mut out = Vec::new();
    for object in flat.iter().filter(|o| !o.test_hook) {
        out.extend(granted_by_role(chart_dir, &object.object));
        out.extend(bound_role(chart_dir, &object.object, &roles));
        let (group, version, kind) = type_of(&object.object).ok_or_else(|| {
            Error::Project(format!(
                "{chart_dir}: {} renders an object without apiVersion or kind; fix the template",
                object.source
            ))
        })?;
        let resolved = resolve(&group, &version, &kind, own, &crds);
        let mut permission = Permission::new(
            Target::resource(&group, &resolved.plural),
            HELM_VERBS,
            Source::Chart(chart_dir.to_string()),
        )
        .cluster_scoped(resolved.cluster_scoped);
        if resolved.guessed {
            let api_version = object.object["apiVersion"].as_str().unwrap_or_default();
            permission.note = Some(format!(
                "{api_version} {kind} is not a built-in kind, so its plural {:?} is a guess: check it with `kubectl api-resources --api-group={group}`",
                resolved.plural
            ));
        }
        out.push(permission);
    }
    Ok(out)
}

const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

/// ("Role" or "ClusterRole", name) of a role object.
fn role_of(object: &Value) -> Option<(String, String)> {
    let (group, _, kind) = type_of(object)?;
    if group != RBAC_GROUP || !matches!(kind.as_str(), "Role" | "ClusterRole") {
        return None;
    }
    let name = object.pointer("/metadata/name")?.as_str()?;
    Some((kind, name.to_string()))
}

/// What the role `object` grants, which the operator must hold to create or update it: a
/// ClusterRole's rules cluster-wide, a Role's in its namespace (which the ClusterRole covers).
fn granted_by_role(chart_dir: &str, object: &Value) -> Vec<Permission> {
    let Some((kind, name)) = role_of(object) else {
        return Vec::new();
    };
    let cluster = kind == "ClusterRole";
    let source = || Source::ChartRoles(chart_dir.to_string());
    let strings = |rule: &Value, key: &str| -> Vec<String> {
        rule.get(key)
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut out = Vec::new();
    for rule in object
        .get("rules")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let verbs = strings(rule, "verbs");
        let verbs: Vec<&str> = verbs.iter().map(String::as_str).collect();
        if verbs.is_empty() {
            continue;
        }
        let names: BTreeSet<String> = strings(rule, "resourceNames").into_iter().collect();
        for group in strings(rule, "apiGroups") {
            for resource in strings(rule, "resources") {
                let target = Target::Resource {
                    group: group.clone(),
                    resource,
                    names: names.clone(),
                };
                out.push(Permission::new(target, &verbs, source()).cluster_scoped(cluster));
            }
        }
        for url in strings(rule, "nonResourceURLs") {
            out.push(Permission::new(Target::Url(url), &verbs, source()).cluster_scoped(true));
        }
    }
    if cluster && object.get("aggregationRule").is_some_and(|a| !a.is_null()) {
        let mut escalate = Permission::new(
            Target::resource(RBAC_GROUP, "clusterroles"),
            &["escalate"],
            source(),
        )
        .cluster_scoped(true);
        escalate.note = Some(format!(
            "{chart_dir}: ClusterRole {name} aggregates other ClusterRoles (aggregationRule), which the API server allows only with `escalate` on clusterroles: the operator can then grant any permission"
        ));
        out.push(escalate);
    }
    out
}

/// `bind` on the role a binding names when the chart does not define it (say `cluster-admin`
/// or `system:auth-delegator`): without it the operator would need every rule of that role.
fn bound_role(
    chart_dir: &str,
    object: &Value,
    chart_roles: &BTreeSet<(String, String)>,
) -> Option<Permission> {
    let (group, _, kind) = type_of(object)?;
    if group != RBAC_GROUP || !matches!(kind.as_str(), "RoleBinding" | "ClusterRoleBinding") {
        return None;
    }
    let role_kind = object.pointer("/roleRef/kind")?.as_str()?;
    let role_name = object.pointer("/roleRef/name")?.as_str()?;
    if chart_roles.contains(&(role_kind.to_string(), role_name.to_string())) {
        return None;
    }
    let (resource, cluster) = match role_kind {
        "ClusterRole" => ("clusterroles", true),
        "Role" => ("roles", false),
        _ => return None,
    };
    let target = Target::Resource {
        group: RBAC_GROUP.to_string(),
        resource: resource.to_string(),
        names: BTreeSet::from([role_name.to_string()]),
    };
    Some(
        Permission::new(target, &["bind"], Source::ChartRoles(chart_dir.to_string()))
            .cluster_scoped(cluster),
    )
}

/// `objects` flattened and cut down to what [`permissions`] reads: apiVersion, kind, and a
/// CRD's group, names and scope, a role's name and rules, a binding's roleRef. Nothing else of
/// a rendered object (a Secret's data, a generated key) is kept, so nothing else is cached
/// either (see `objects_cache`).
pub fn essentials(objects: &[ChartObject]) -> Vec<ChartObject> {
    flatten(objects)
        .into_iter()
        .map(|o| ChartObject {
            object: essential_fields(&o.object),
            ..o
        })
        .collect()
}

fn essential_fields(object: &Value) -> Value {
    let mut out = Map::new();
    let copy = |to: &mut Map<String, Value>, from: &Value, key: &str| {
        if let Some(value) = from.get(key) {
            to.insert(key.to_string(), value.clone());
        }
    };
    copy(&mut out, object, "apiVersion");
    copy(&mut out, object, "kind");
    if type_of(object).is_some_and(|(group, _, _)| group == RBAC_GROUP) {
        // What a role grants and what a binding binds, with the names that match them up.
        for key in ["rules", "aggregationRule", "roleRef"] {
            copy(&mut out, object, key);
        }
        if let Some(name) = object.pointer("/metadata/name") {
            out.insert("metadata".into(), serde_json::json!({ "name": name }));
        }
    }
    if let (Some(_), Some(spec)) = (crd_kind(object), object.get("spec")) {
        let mut kept = Map::new();
        copy(&mut kept, spec, "group");
        copy(&mut kept, spec, "scope");
        copy(&mut kept, spec, "names");
        out.insert("spec".into(), Value::Object(kept));
    }
    Value::Object(out)
}

/// Objects with `v1 List` (or any `*List` with items) replaced by their items.
fn flatten(objects: &[ChartObject]) -> Vec<ChartObject> {
    let mut out = Vec::new();
    let mut pending: Vec<ChartObject> = objects.iter().rev().cloned().collect();
    while let Some(object) = pending.pop() {
        let kind = object.object["kind"].as_str().unwrap_or_default();
        match object.object.get("items").and_then(Value::as_array) {
            Some(items) if kind.ends_with("List") => {
                pending.extend(items.iter().rev().map(|item| ChartObject {
                    source: object.source.clone(),
                    test_hook: object.test_hook,
                    object: item.clone(),
                }));
            }
            // An empty `v1 List` creates nothing.
            None if kind == "List" => {}
            _ => out.push(object),
        }
    }
    out
}

/// (group, version, kind) of an object; the core group is `""`.
fn type_of(object: &Value) -> Option<(String, String, String)> {
    let api_version = object.get("apiVersion")?.as_str()?.trim();
    let kind = object.get("kind")?.as_str()?.trim();
    if api_version.is_empty() || kind.is_empty() {
        return None;
    }
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    Some((group.to_string(), version.to_string(), kind.to_string()))
}

/// A CustomResourceDefinition's kind, so objects of it get the right plural and scope.
fn crd_kind(object: &Value) -> Option<OwnKind> {
    let (group, _, kind) = type_of(object)?;
    if group != "apiextensions.k8s.io" || kind != "CustomResourceDefinition" {
        return None;
    }
    let spec = object.get("spec")?;
    Some(OwnKind {
        group: spec.get("group")?.as_str()?.to_string(),
        version: String::new(),
        kind: spec.pointer("/names/kind")?.as_str()?.to_string(),
        plural: spec.pointer("/names/plural")?.as_str()?.to_string(),
        namespaced: spec.get("scope").and_then(Value::as_str) != Some("Cluster"),
    })
}

fn resolve(group: &str, version: &str, kind: &str, own: &[OwnKind], crds: &[OwnKind]) -> Resolved {
    let known = |k: &&OwnKind| k.group == group && k.kind == kind;
    if let Some(k) = own.iter().find(known).or_else(|| crds.iter().find(known)) {
        return Resolved {
            plural: k.plural.clone(),
            cluster_scoped: !k.namespaced,
            guessed: false,
        };
    }
    if let Some(k) = resources::by_kind(group, version, kind) {
        return Resolved {
            plural: k.plural.to_string(),
            cluster_scoped: k.scope == Scope::Cluster,
            guessed: false,
        };
    }
    Resolved {
        plural: resources::guess_plural(kind),
        cluster_scoped: false,
        guessed: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> ChartObject {
        ChartObject {
            source: "demo/templates/x.yaml".into(),
            test_hook: false,
            object: value,
        }
    }

    fn resources_of(perms: &[Permission]) -> Vec<String> {
        perms
            .iter()
            .map(|p| match &p.target {
                Target::Resource {
                    group, resource, ..
                } => format!(
                    "{group}/{resource}{}",
                    if p.cluster_scoped { " (cluster)" } else { "" }
                ),
                Target::Url(u) => u.clone(),
            })
            .collect()
    }

    #[test]
    fn lists_are_expanded_and_test_hooks_left_out() {
        let list = object(json!({
            "apiVersion": "v1", "kind": "List",
            "items": [
                {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy"},
                {"apiVersion": "v1", "kind": "ConfigMapList", "items": [{"apiVersion": "v1", "kind": "ConfigMap"}]}
            ]
        }));
        let empty = object(json!({"apiVersion": "v1", "kind": "List", "items": null}));
        let mut test_pod = object(json!({"apiVersion": "v1", "kind": "Pod"}));
        test_pod.test_hook = true;
        let perms = permissions("helm-charts/demo", &[list, empty, test_pod], &[]).unwrap();
        assert_eq!(
            resources_of(&perms),
            ["networking.k8s.io/networkpolicies", "/configmaps"]
        );
        assert!(
            perms
                .iter()
                .all(|p| p.source == Source::Chart("helm-charts/demo".into()))
        );
        assert!(perms.iter().all(|p| p.verbs.len() == HELM_VERBS.len()));
    }

    #[test]
    fn scope_and_plural_come_from_crds_own_kinds_and_the_table() {
        let objects = [
            object(
                json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "spec": {"group": "demo.io", "scope": "Cluster", "names": {"kind": "Widget", "plural": "widgetz"}}}),
            ),
            object(json!({"apiVersion": "demo.io/v1", "kind": "Widget"})),
            object(json!({"apiVersion": "cache.my.domain/v1", "kind": "Memcached"})),
            object(json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole"})),
        ];
        let own = [OwnKind {
            group: "cache.my.domain".into(),
            version: "v1".into(),
            kind: "Memcached".into(),
            plural: "memcacheds".into(),
            namespaced: true,
        }];
        let perms = permissions("helm-charts/demo", &objects, &own).unwrap();
        assert_eq!(
            resources_of(&perms),
            [
                "apiextensions.k8s.io/customresourcedefinitions (cluster)",
                "demo.io/widgetz (cluster)",
                "cache.my.domain/memcacheds",
                "rbac.authorization.k8s.io/clusterroles (cluster)",
            ]
        );
        assert!(perms.iter().all(|p| p.note.is_none()));
    }

    #[test]
    fn unknown_kinds_get_a_guessed_plural_and_a_note() {
        let objects = [object(
            json!({"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor"}),
        )];
        let perms = permissions("helm-charts/demo", &objects, &[]).unwrap();
        assert_eq!(
            resources_of(&perms),
            ["monitoring.coreos.com/servicemonitors"]
        );
        let note = perms[0].note.as_deref().unwrap();
        assert!(
            note.contains("monitoring.coreos.com/v1 ServiceMonitor"),
            "{note}"
        );
        assert!(note.contains("\"servicemonitors\" is a guess"), "{note}");
    }

    /// Every (group/resource, names, verbs) a source of `Source::ChartRoles` asks for.
    fn role_grants(perms: &[Permission]) -> Vec<String> {
        perms
            .iter()
            .filter(|p| matches!(p.source, Source::ChartRoles(_)))
            .map(|p| {
                let verbs: Vec<&str> = p.verbs.iter().map(String::as_str).collect();
                let scope = if p.cluster_scoped { " (cluster)" } else { "" };
                match &p.target {
                    Target::Resource {
                        group,
                        resource,
                        names,
                    } => format!("{group}/{resource}{names:?} {}{scope}", verbs.join(",")),
                    Target::Url(url) => format!("{url} {}{scope}", verbs.join(",")),
                }
            })
            .collect()
    }

    #[test]
    fn a_charts_roles_add_what_they_grant_and_bindings_bind_what_the_chart_lacks() {
        let objects = [
            object(
                json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
                "metadata": {"name": "x-reader"},
                "rules": [
                    {"apiGroups": ["", "apps"], "resources": ["pods", "deployments"], "verbs": ["get", "list"]},
                    {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["cfg"], "verbs": ["update"]},
                    {"nonResourceURLs": ["/metrics"], "verbs": ["get"]},
                    {"apiGroups": [""], "resources": ["secrets"], "verbs": []}
                ]}),
            ),
            object(
                json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                "metadata": {"name": "x-leases", "namespace": "default"},
                "rules": [{"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["*"]}]}),
            ),
            object(
                json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "x-reader"}}),
            ),
            object(
                json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "system:auth-delegator"}}),
            ),
            object(
                json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                "metadata": {"namespace": "kube-system"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "extension-apiserver-authentication-reader"}}),
            ),
        ];
        let essentials = essentials(&objects);
        let perms = permissions("helm-charts/demo", &essentials, &[]).unwrap();
        assert_eq!(
            role_grants(&perms),
            [
                "/pods{} get,list (cluster)",
                "/deployments{} get,list (cluster)",
                "apps/pods{} get,list (cluster)",
                "apps/deployments{} get,list (cluster)",
                "/configmaps{\"cfg\"} update (cluster)",
                "/metrics get (cluster)",
                "coordination.k8s.io/leases{} *",
                "rbac.authorization.k8s.io/clusterroles{\"system:auth-delegator\"} bind (cluster)",
                "rbac.authorization.k8s.io/roles{\"extension-apiserver-authentication-reader\"} bind",
            ],
            "the rules come through the cache's essentials too"
        );
        assert!(perms.iter().all(|p| p.note.is_none()));
    }

    #[test]
    fn an_aggregated_cluster_role_takes_escalate_with_a_note() {
        let aggregated = object(
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "x-view"},
            "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"x/aggregate": "true"}}]},
            "rules": []}),
        );
        let perms = permissions("helm-charts/demo", &essentials(&[aggregated]), &[]).unwrap();
        assert_eq!(
            role_grants(&perms),
            ["rbac.authorization.k8s.io/clusterroles{} escalate (cluster)"]
        );
        let note = perms.iter().find_map(|p| p.note.as_deref()).unwrap();
        assert!(note.contains("ClusterRole x-view aggregates"), "{note}");
    }

    #[test]
    fn an_object_without_kind_is_an_error_naming_the_template() {
        let err = permissions(
            "helm-charts/demo",
            &[object(json!({"apiVersion": "v1"}))],
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("helm-charts/demo: demo/templates/x.yaml"),
            "{err}"
        );
    }
}
