//! The kind `create webhook` is for, and where its Rust type comes from: a Rust API of the
//! project (its api crate), a kind Kubernetes defines (k8s-openapi's type; as in kubebuilder
//! it needs no controller), or another project's kind whose types kopium generated from its
//! CRD (`create api --external-api-crd`). kubebuilder's `--external-api-domain` means the
//! same here; `--external-api-path` and `--external-api-module` name Go packages, whose Rust
//! counterpart is the CRD, and are refused saying so.
use std::path::Path;

use super::{Origin, Target};
use crate::cli::CreateWebhookArgs;
use crate::error::{Error, Result};
use crate::model::builtin::{self, BuiltinApi};
use crate::model::names::shown;
use crate::model::plugin::go_package_flag;
use crate::model::{Group, Kind, Version};
use crate::project::{Project, Resource};

/// Larger kopium files than this are not read for the kind's names.
const MAX_TYPES_BYTES: u64 = 8 << 20;

/// The kind a webhook is for: its PROJECT entry (new for a built-in kind without one), its
/// type, plural and scope.
pub struct Found {
    pub resource: Resource,
    pub target: Target,
    pub plural: String,
    pub namespaced: bool,
}

/// kubebuilder's flags that name Go code: refused with what to do in a Rust project.
pub fn refuse_go_flags(
    args: &CreateWebhookArgs,
    group: &Group,
    version: &Version,
    kind: &Kind,
) -> Result<()> {
    let go_package = go_package_flag(
        args.external_api_path.as_deref(),
        args.external_api_module.as_deref(),
    );
    if let Some((flag, value)) = go_package {
        return Err(Error::invalid(format!(
            "{flag} {} names a Go package, but Rust types come from the kind's CRD: run `rusty-sdk create api --plugins rust --group {group} --version {version} --kind {kind} --external-api-crd <CRD file>` once, then `create webhook` without {flag}",
            shown(value)
        )));
    }
    Ok(())
}

/// The kind `--group`, `--version` and `--kind` name, if webhooks can be made for it.
pub fn find(
    project: &Project,
    root: &Path,
    args: &CreateWebhookArgs,
    group: &Group,
    version: &Version,
    kind: &Kind,
) -> Result<Found> {
    let builtin = builtin::find(group, version, kind);
    let found = match project.find_resource(group.as_str(), version.as_str(), kind.as_str()) {
        Some(resource) if resource.is_external() => external(project, root, resource)?,
        Some(resource) if resource.is_core() => match &builtin {
            Some(api) => built_in(api, resource.clone()),
            None => {
                return Err(Error::Project(format!(
                    "PROJECT records {kind} ({group}/{version}) as a kind Kubernetes defines (`core: true`), but k8s-openapi {} has no such kind; fix its entry in PROJECT",
                    crate::versions::K8S_FEATURE
                )));
            }
        },
        Some(resource) => own(project, resource, group, version, kind)?,
        None => match &builtin {
            Some(api) => built_in(api, api.resource()),
            // kubebuilder's --external-api-domain says the kind is another project's: the
            // only way is its CRD, not a kind of this project's own group.
            None => match &args.external_api_domain {
                Some(domain) => {
                    return Err(Error::invalid(format!(
                        "no API {kind} ({group}/{version}) in PROJECT, and --external-api-domain {} names another project's kind, whose Rust types come from its CRD: run `rusty-sdk create api --plugins rust --group {group} --version {version} --kind {kind} --external-api-crd <CRD file> --external-api-domain {}` first (it scaffolds the types and a controller for the kind)",
                        shown(domain),
                        shown(domain)
                    )));
                }
                None => {
                    return Err(Error::invalid(format!(
                        "no API {kind} ({group}/{version}) in PROJECT, and Kubernetes defines no such kind; create it first with `rusty-sdk create api --plugins rust --group {group} --version {version} --kind {kind}` (another project's kind: add `--external-api-crd <CRD file>`)"
                    )));
                }
            },
        },
    };
    if let Some(domain) = &args.external_api_domain {
        check_domain(domain, &found, group, version, kind)?;
    }
    Ok(found)
}

/// A Rust API of this project.
fn own(
    project: &Project,
    resource: &Resource,
    group: &Group,
    version: &Version,
    kind: &Kind,
) -> Result<Found> {
    let name = format!("{kind} ({group}/{version})");
    if resource.path.is_none() || resource.api.is_none() {
        let what = if resource.api.is_some() {
            "a Helm API, reconciled from its chart"
        } else {
            "an entry of PROJECT without a type (neither an API of this project, `core: true` nor `external: true`)"
        };
        return Err(Error::invalid(format!(
            "{name} is {what}: webhooks need the kind's Rust type (`create api --plugins rust`)"
        )));
    }
    Ok(Found {
        target: Target {
            origin: Origin::Own,
            api_group: crate::rbac::base::full_group(project, resource),
            type_name: kind.to_string(),
        },
        plural: resource.plural.clone().unwrap_or_else(|| kind.plural()),
        namespaced: resource.api.as_ref().is_some_and(|api| api.namespaced),
        resource: resource.clone(),
    })
}

/// A kind Kubernetes defines: its entry in PROJECT is kubebuilder's `core: true`.
fn built_in(api: &BuiltinApi, resource: Resource) -> Found {
    let recorded = api.resource();
    Found {
        target: Target {
            origin: Origin::Builtin,
            api_group: api.api_group().to_string(),
            type_name: recorded.kind.clone(),
        },
        plural: api.plural().to_string(),
        namespaced: api.namespaced(),
        // An entry of an earlier version (with `domain: k8s.io`) is recorded anew.
        resource: Resource {
            controller: resource.controller,
            controllers: resource.controllers,
            webhooks: resource.webhooks,
            extra: resource.extra,
            ..recorded
        },
    }
}

/// Another project's kind: the names kopium gave its type, read from the type's file.
fn external(project: &Project, root: &Path, resource: &Resource) -> Result<Found> {
    let module_path = resource.path.clone().unwrap_or_default();
    let module = module_path
        .strip_prefix(&format!("{}::external::", api_crate(project)))
        .filter(|m| !m.is_empty() && m.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .ok_or_else(|| {
            Error::Project(format!(
                "PROJECT's path {} of {} is not a module of api/src/external; run `create api --external-api-crd` for it again",
                shown(&module_path),
                resource.kind
            ))
        })?;
    let file = format!("api/src/external/{module}.rs");
    let text = read_types(&root.join(&file)).map_err(|e| {
        Error::Project(format!(
            "{file} (the types of {}): {e}; run `rusty-sdk create api --external-api-crd <CRD file> --force` to write them again",
            resource.kind
        ))
    })?;
    let names = KubeNames::read(&text).ok_or_else(|| {
        Error::Project(format!(
            "{file} has no `#[kube(..., plural = ...)]` line for {}; run `rusty-sdk create api --external-api-crd <CRD file> --force` to write its types again",
            resource.kind
        ))
    })?;
    let api_group = resource.recorded_api_group();
    Ok(Found {
        target: Target {
            origin: Origin::External,
            api_group,
            type_name: names.root.unwrap_or_else(|| {
                heck::ToUpperCamelCase::to_upper_camel_case(resource.kind.as_str())
            }),
        },
        plural: names.plural,
        namespaced: names.namespaced,
        resource: resource.clone(),
    })
}

fn api_crate(project: &Project) -> String {
    format!("{}_api", project.crate_ident())
}

fn read_types(path: &Path) -> std::result::Result<String, String> {
    let bytes = crate::scaffold::input::read_named(path, MAX_TYPES_BYTES)
        .map_err(|e| format!("cannot read it ({e})"))?;
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())
}

/// What kopium's `#[kube(...)]` attributes say of the root type.
#[derive(Debug, PartialEq)]
struct KubeNames {
    root: Option<String>,
    plural: String,
    namespaced: bool,
}

impl KubeNames {
    fn read(text: &str) -> Option<KubeNames> {
        let attributes: Vec<&str> = text
            .lines()
            .filter_map(|line| line.trim().strip_prefix("#[kube("))
            .filter_map(|rest| rest.strip_suffix(")]"))
            .collect();
        let value = |key: &str| {
            attributes.iter().find_map(|attribute| {
                attribute.split(',').find_map(|pair| {
                    let (name, value) = pair.split_once('=')?;
                    (name.trim() == key).then(|| value.trim().trim_matches('"').to_string())
                })
            })
        };
        Some(KubeNames {
            root: value("root"),
            plural: value("plural")?,
            namespaced: attributes
                .iter()
                .any(|a| a.split(',').any(|part| part.trim() == "namespaced")),
        })
    }
}

/// `--external-api-domain`: the domain of another project's kind, which PROJECT has from
/// its CRD; for any other kind it has no meaning.
fn check_domain(
    domain: &str,
    found: &Found,
    group: &Group,
    version: &Version,
    kind: &Kind,
) -> Result<()> {
    let recorded = found.resource.domain.as_deref().unwrap_or_default();
    let shown_gv = found.target.group_version(group, version);
    match found.target.origin {
        Origin::External if recorded == domain => Ok(()),
        Origin::External => Err(Error::invalid(format!(
            "--external-api-domain {} does not match {kind} ({shown_gv}), whose CRD gives the domain {}; drop the flag or pass --external-api-domain {recorded}",
            shown(domain),
            shown(recorded)
        ))),
        Origin::Builtin => Err(Error::invalid(format!(
            "--external-api-domain {} is for another project's kind, and {kind} ({shown_gv}) is a kind Kubernetes defines; drop the flag",
            shown(domain)
        ))),
        Origin::Own => Err(Error::invalid(format!(
            "--external-api-domain {} is for another project's kind, and {kind} ({shown_gv}) is an API of this project; drop the flag",
            shown(domain)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kopium_attributes_give_the_root_plural_and_scope() {
        let text = "#[derive(CustomResource)]\n\
            #[kube(group = \"externaldns.k8s.io\", version = \"v1alpha1\", kind = \"DNSEndpoint\", root = \"DnsEndpoint\", plural = \"dnsendpoints\")]\n\
            #[kube(namespaced)]\n#[kube(status = \"DnsEndpointStatus\")]\npub struct DnsEndpointSpec {}\n";
        assert_eq!(
            KubeNames::read(text),
            Some(KubeNames {
                root: Some("DnsEndpoint".into()),
                plural: "dnsendpoints".into(),
                namespaced: true,
            })
        );
        let cluster =
            "#[kube(group = \"x.io\", version = \"v1\", kind = \"Thing\", plural = \"things\")]\n";
        let names = KubeNames::read(cluster).unwrap();
        assert!(!names.namespaced && names.root.is_none());
        assert_eq!(KubeNames::read("pub struct Thing;\n"), None);
    }
}
