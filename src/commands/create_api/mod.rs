//! `rusty-sdk create api`: the shared flow. Each plugin (rust, helm) stages its own files;
//! this module resolves the plugin, checks the layout and the API's existence, stages what
//! every API gets (kustomize entries, roles, PROJECT entry) and applies the plan.
pub mod common;
pub mod helm;
pub mod rust;

use crate::cli::CreateApiArgs;
use crate::error::{Error, Result};
use crate::model::names::shown;
use crate::model::plugin::go_package_flag;
use crate::model::{ApiPlugin, Layout};
use crate::session::Session;

pub fn run(session: &Session, args: &CreateApiArgs) -> Result<()> {
    refuse_go_flags(args)?;
    let project = session.load_project()?;
    let layout = project.layout()?;
    let plugin = resolve_plugin(args.plugins.as_deref(), layout)?;
    match plugin {
        ApiPlugin::Rust => rust::run(session, args, project),
        ApiPlugin::Helm if args.controller_name.is_some() => Err(Error::invalid(
            "--controller-name names a Rust controller, and a Helm API is reconciled from its chart by the watch in watches.yaml; drop --controller-name",
        )),
        ApiPlugin::Helm => helm::run(session, project, args),
    }
}

/// kubebuilder's Go-package flags are refused naming `--external-api-crd`.
fn refuse_go_flags(args: &CreateApiArgs) -> Result<()> {
    if let Some((flag, value)) = go_package_flag(
        args.external_api_path.as_deref(),
        args.external_api_module.as_deref(),
    ) {
        return Err(Error::invalid(format!(
            "{flag} {} names a Go package, but a Rust controller gets the kind's types from its CRD: pass --external-api-crd <CRD file> instead (e.g. cert-manager's cert-manager.io_certificates.yaml)",
            shown(value)
        )));
    }
    if let Some(domain) = &args.external_api_domain
        && args.external_api_crd.is_none()
    {
        return Err(Error::invalid(format!(
            "--external-api-domain {} is for another project's kind: add --external-api-crd <CRD file>, whose group it picks (--group cert-manager --external-api-domain io: cert-manager.io)",
            shown(domain)
        )));
    }
    Ok(())
}

/// The plugin to use: `--plugins`, or the layout's only one.
pub fn resolve_plugin(flag: Option<&str>, layout: Layout) -> Result<ApiPlugin> {
    let plugin = match flag {
        Some(key) => ApiPlugin::parse(key)?,
        None => match layout {
            Layout::Helm => ApiPlugin::Helm,
            Layout::Rust => ApiPlugin::Rust,
            Layout::HybridHelm => {
                return Err(Error::invalid(
                    "this is a hybrid.helm project, which takes both kinds of API: pass --plugins=helm or --plugins=rust",
                ));
            }
        },
    };
    if !layout.allows(plugin) {
        return Err(Error::invalid(format!(
            "the {} plugin cannot add APIs to this project: its layout is {layout} (PROJECT), which only takes --plugins={}",
            plugin.short_name(),
            if layout.has_helm() { "helm" } else { "rust" }
        )));
    }
    Ok(plugin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plugin_defaults_and_layout_checks() {
        assert_eq!(resolve_plugin(None, Layout::Helm).unwrap(), ApiPlugin::Helm);
        assert_eq!(resolve_plugin(None, Layout::Rust).unwrap(), ApiPlugin::Rust);
        assert!(
            resolve_plugin(None, Layout::HybridHelm)
                .unwrap_err()
                .to_string()
                .contains("--plugins=helm or --plugins=rust")
        );
        let err = resolve_plugin(Some("rust"), Layout::Helm)
            .unwrap_err()
            .to_string();
        assert!(err.contains("layout is helm"), "{err}");
        assert_eq!(
            resolve_plugin(Some("helm.sdk.operatorframework.io/v1"), Layout::HybridHelm).unwrap(),
            ApiPlugin::Helm
        );
    }
}
