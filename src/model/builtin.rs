//! The kinds Kubernetes itself defines, as `create api --resource=false` (a controller) and
//! `create webhook` (a webhook, which needs no controller) name them: `--group apps
//! --version v1 --kind Deployment`, with the group as kubebuilder takes it. The table
//! behind it is the RBAC one (`rbac::resources::BUILTIN_KINDS`).
use crate::model::{Group, Kind, Version};
use crate::project::Resource;
use crate::rbac::resources::{BUILTIN_KINDS, BuiltinKind, Scope, short_group, type_path};

/// A kind of k8s-openapi that a controller may watch or a webhook may check.
pub struct BuiltinApi {
    kind: &'static BuiltinKind,
}

/// The built-in kind `--group`, `--version` and `--kind` name, if any. The group is given
/// as kubebuilder takes it: `core` for the core group, else the first label of the API
/// group (`apps`, `batch`, `networking` for networking.k8s.io).
pub fn find(group: &Group, version: &Version, kind: &Kind) -> Option<BuiltinApi> {
    BUILTIN_KINDS
        .iter()
        .filter(|k| k.scope != Scope::Subresource && !k.plural.is_empty())
        .find(|k| {
            short_group(k.group) == group.as_str()
                && k.version == version.as_str()
                && k.kind == kind.as_str()
        })
        .map(|kind| BuiltinApi { kind })
}

impl BuiltinApi {
    /// The row of the built-in resource table.
    pub fn kind(&self) -> &'static BuiltinKind {
        self.kind
    }

    /// `apps/v1`, or `v1` for the core group.
    pub fn api_version(&self) -> String {
        if self.kind.group.is_empty() {
            self.kind.version.to_string()
        } else {
            format!("{}/{}", self.kind.group, self.kind.version)
        }
    }

    /// The module of k8s-openapi that holds the type (`k8s_openapi::api::apps::v1`).
    pub fn type_path(&self) -> String {
        type_path(self.kind.group, self.kind.version)
    }

    /// The PROJECT entry of the kind, as kubebuilder records a core type: `core: true`, the
    /// group as `--group` names it (`core`, `apps`) and no domain; the path is the module
    /// of k8s-openapi that holds the type.
    pub fn resource(&self) -> Resource {
        Resource {
            core: true,
            group: short_group(self.kind.group).to_string(),
            kind: self.kind.kind.to_string(),
            path: Some(self.type_path()),
            version: self.kind.version.to_string(),
            ..Resource::default()
        }
    }

    /// The API group (`""` for the core group, `apps`, `networking.k8s.io`).
    pub fn api_group(&self) -> &'static str {
        self.kind.group
    }

    pub fn plural(&self) -> &'static str {
        self.kind.plural
    }

    pub fn namespaced(&self) -> bool {
        self.kind.scope == Scope::Namespaced
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_kinds_are_found_by_short_group() {
        let find = |g: &str, v: &str, k: &str| {
            find(
                &Group::parse(g).unwrap(),
                &Version::parse(v).unwrap(),
                &Kind::parse(k).unwrap(),
            )
            .map(|b| (b.api_version(), b.type_path()))
        };
        assert_eq!(
            find("apps", "v1", "Deployment"),
            Some(("apps/v1".into(), "k8s_openapi::api::apps::v1".into()))
        );
        assert_eq!(
            find("core", "v1", "ConfigMap"),
            Some(("v1".into(), "k8s_openapi::api::core::v1".into()))
        );
        assert_eq!(
            find("networking", "v1", "Ingress"),
            Some((
                "networking.k8s.io/v1".into(),
                "k8s_openapi::api::networking::v1".into()
            ))
        );
        assert_eq!(find("apps", "v1", "Memcached"), None);
        assert_eq!(find("cache", "v1", "Deployment"), None);
    }
}
