//! The names a generated controller gives its API's types. Normally the kind itself
//! (`Memcached`); when the controller already uses that name for something else (a kind
//! called `Deployment`, `Pod` or `Condition` next to the Kubernetes type, or `Context`
//! next to the controller's own), the import is renamed after the group:
//! `use api::apps::v1::{Deployment as AppsDeployment, ...}`.
use std::collections::BTreeSet;

use heck::ToUpperCamelCase;
use serde::Serialize;

use crate::model::{Group, Kind};

/// The template variables that name the API's types in a generated file, flattened into
/// the context of each template family that writes Rust code using them.
#[derive(Clone, Debug, Serialize)]
// The fields are template variables, named as the templates spell them.
#[allow(clippy::struct_field_names)]
pub struct TypeNames {
    /// The kind's type as the code names it: `Memcached`, or `AppsDeployment`.
    kind_type: String,
    /// Its spec and status types as the code names them.
    kind_spec: String,
    kind_status: String,
    /// The items of the `use` line: `Memcached`, or `Deployment as AppsDeployment`.
    kind_import: String,
    kind_spec_import: String,
    kind_status_import: String,
}

impl TypeNames {
    /// The names for `kind` in a file rendered from `template` (its source text).
    pub fn for_template(template: &str, group: &Group, kind: &Kind) -> TypeNames {
        let taken = names_in_scope(template);
        let free = |name: &str| {
            ["", "Spec", "Status"]
                .iter()
                .all(|suffix| !taken.contains(&format!("{name}{suffix}")))
        };
        let kind = kind.as_str();
        let alias = if free(kind) {
            None
        } else {
            let grouped = format!("{}{kind}", group.as_str().to_upper_camel_case());
            let alias = [grouped.clone(), format!("{grouped}Resource")]
                .into_iter()
                .find(|name| free(name))
                .unwrap_or_else(|| format!("{grouped}CustomResource"));
            Some(alias)
        };
        let local = alias.as_deref().unwrap_or(kind);
        let import = |suffix: &str| match &alias {
            None => format!("{kind}{suffix}"),
            Some(alias) => format!("{kind}{suffix} as {alias}{suffix}"),
        };
        TypeNames {
            kind_type: local.to_string(),
            kind_spec: format!("{local}Spec"),
            kind_status: format!("{local}Status"),
            kind_import: import(""),
            kind_spec_import: import("Spec"),
            kind_status_import: import("Status"),
        }
    }
}

/// Every type-namespace name a template imports or defines, read from its text: the
/// last segment (or `as` alias) of each `use` item, and `struct`/`enum`/`trait`/`type`
/// names. Lines with template tags (the API's own import) are skipped.
fn names_in_scope(template: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut statement = String::new();
    let mut in_use = false;
    for line in template.lines() {
        let trimmed = line.trim_start();
        let trimmed = trimmed.strip_prefix("pub ").unwrap_or(trimmed);
        if !in_use && trimmed.starts_with("use ") && !trimmed.contains("{{") {
            in_use = true;
            statement.clear();
        }
        if in_use {
            statement.push_str(trimmed);
            statement.push(' ');
            if trimmed.contains(';') {
                in_use = false;
                collect_use(&statement, &mut names);
            }
            continue;
        }
        for keyword in ["struct ", "enum ", "trait ", "type "] {
            if let Some(rest) = trimmed.strip_prefix(keyword) {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                names.insert(name);
            }
        }
    }
    names
}

fn collect_use(statement: &str, names: &mut BTreeSet<String>) {
    let body = statement
        .trim()
        .trim_start_matches("use ")
        .trim_end_matches([';', ' ']);
    for item in body.split(['{', '}', ',']) {
        let item = item.trim();
        let name = match item.split_once(" as ") {
            Some((_, alias)) => alias.trim(),
            None => item.rsplit("::").next().unwrap_or(item),
        };
        if name.starts_with(|c: char| c.is_ascii_uppercase()) {
            names.insert(name.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATE: &str = "\
use std::sync::{Arc, Mutex};
use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use k8s_openapi::api::core::v1::{
    Container, Pod,
};
use kube::runtime::finalizer::{Event as Finalizer, finalizer};
use {{ api_crate }}::cache::v1::{ {{- kind_import }}, {{ kind_status_import }} };
pub struct Context {
}
mod tests {
    use serde_json::{Value, json};
}
";

    fn names(kind: &str) -> TypeNames {
        let kind = Kind::parse(kind).unwrap();
        TypeNames::for_template(TEMPLATE, &Group::parse("web-apps").unwrap(), &kind)
    }

    #[test]
    fn scope_is_read_from_the_template() {
        let found = names_in_scope(TEMPLATE);
        let found: Vec<&str> = found.iter().map(String::as_str).collect();
        assert_eq!(
            found,
            [
                "Arc",
                "Container",
                "Context",
                "Deployment",
                "DeploymentSpec",
                "Finalizer",
                "Mutex",
                "Pod",
                "Value"
            ]
        );
    }

    #[test]
    fn a_kind_that_is_free_keeps_its_name() {
        let names = names("Memcached");
        assert_eq!(names.kind_type, "Memcached");
        assert_eq!(names.kind_import, "Memcached");
        assert_eq!(names.kind_status_import, "MemcachedStatus");
        assert_eq!(names.kind_spec_import, "MemcachedSpec");
    }

    #[test]
    fn a_kind_the_file_already_uses_is_imported_under_its_group() {
        for kind in ["Deployment", "Pod", "Context", "Value", "Finalizer"] {
            let names = names(kind);
            assert_eq!(names.kind_type, format!("WebApps{kind}"));
            assert_eq!(names.kind_import, format!("{kind} as WebApps{kind}"));
            assert_eq!(
                names.kind_status_import,
                format!("{kind}Status as WebApps{kind}Status")
            );
            assert_eq!(names.kind_spec, format!("WebApps{kind}Spec"));
        }
        // `Deployment` is free, but its spec is not.
        assert_eq!(names("Deployment").kind_status, "WebAppsDeploymentStatus");
    }
}
