//! The permissions each source asks for, before merging.
use std::collections::BTreeSet;
use std::fmt;

/// Where a permission came from; written as a comment above the rule that grants it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    /// The runtime's own needs, with the reason.
    Base(&'static str),
    /// Objects a Helm chart creates (the chart directory, relative to the project).
    Chart(String),
    /// What a chart's Roles and ClusterRoles grant, and the roles its bindings name: the API
    /// server lets the operator grant (or bind) only what it holds itself.
    ChartRoles(String),
    /// A `+rusty:rbac` marker in a Rust file.
    Marker { file: String, line: usize },
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Base(why) => write!(f, "base ({why})"),
            Source::Chart(dir) => write!(f, "chart {dir}"),
            Source::ChartRoles(dir) => write!(f, "chart {dir} (its roles)"),
            Source::Marker { file, line } => write!(f, "marker {file}:{line}"),
        }
    }
}

/// What a permission applies to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// A resource (or subresource, `deployments/scale`) of an API group (`""` is core),
    /// optionally limited to some object names.
    Resource {
        group: String,
        resource: String,
        names: BTreeSet<String>,
    },
    /// A non-resource URL such as `/metrics` (cluster roles only).
    Url(String),
}

impl Target {
    pub fn resource(group: &str, resource: &str) -> Target {
        Target::Resource {
            group: group.to_string(),
            resource: resource.to_string(),
            names: BTreeSet::new(),
        }
    }
}

/// Verbs on one target, asked for by one source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Permission {
    pub target: Target,
    pub verbs: BTreeSet<String>,
    /// Whether the resource is cluster-scoped (a Role cannot grant it).
    pub cluster_scoped: bool,
    /// Grant it only in this namespace (a marker's `namespace=`).
    pub namespace: Option<String>,
    pub source: Source,
    /// Something the reader should check, e.g. a guessed plural.
    pub note: Option<String>,
}

impl Permission {
    pub fn new(target: Target, verbs: &[&str], source: Source) -> Permission {
        Permission {
            target,
            verbs: verbs.iter().map(std::string::ToString::to_string).collect(),
            cluster_scoped: false,
            namespace: None,
            source,
            note: None,
        }
    }

    pub fn cluster_scoped(mut self, yes: bool) -> Permission {
        self.cluster_scoped = yes;
        self
    }
}

/// What Helm needs on every object of a release: install and upgrade (create, update, patch),
/// drift repair and the dry-run diff (get, list, watch), uninstall and hook clean-up (delete).
pub const HELM_VERBS: &[&str] = &[
    "create", "delete", "get", "list", "patch", "update", "watch",
];
