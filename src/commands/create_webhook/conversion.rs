//! The files of `create webhook --conversion`, hub and spokes as kubebuilder has them: in the
//! api crate, next to each spoke, the `TryFrom` conversions between the spoke and the hub;
//! in src/webhook/, the conversion webhook that turns every object of a `ConversionReview`
//! into the desired version through the hub; in crdgen, the kind's entry that makes the hub
//! the stored version and writes the CRD's `spec.conversion`.
use serde::Serialize;
use tera::Context;

use super::WebhookSettings;
use crate::error::{Error, Result};
use crate::scaffold::{Policy, Tree, markers};
use crate::templates::Renderer;

const SPOKE_TEMPLATE: &str = "webhook/conversion/spoke.rs.tera";
const WEBHOOK_TEMPLATE: &str = "webhook/conversion/webhook.rs.tera";
const CRDGEN: &str = "src/bin/crdgen.rs";

/// One spoke version of the kind, and its module in the api crate.
#[derive(Clone, Debug, Serialize)]
pub struct Spoke {
    pub version: String,
    /// `<crate>_api::<group>::<version>`, PROJECT's `path`.
    pub module: String,
}

/// The module of the conversion webhook in src/webhook/.
pub fn webhook_module(settings: &WebhookSettings) -> String {
    format!("{}_conversion", settings.spec.controller_module())
}

/// `module_path` (`<crate>_api::cache::v2`) as seen from inside the api crate.
fn in_crate(module_path: &str) -> String {
    match module_path.split_once("::") {
        Some((_, rest)) => format!("crate::{rest}"),
        None => "crate".into(),
    }
}

/// The directory of `module_path` in the api crate: `api/src/cache/v2`.
pub(super) fn api_dir(module_path: &str) -> String {
    let mut parts = module_path.split("::").skip(1).collect::<Vec<_>>();
    parts.insert(0, "api/src");
    parts.join("/")
}

/// Stage the spokes' conversions, the webhook, its registration (the caller registers the
/// module in src/webhook/mod.rs) and the crdgen entry.
pub fn stage(
    tree: &mut Tree,
    renderer: &mut Renderer,
    settings: &WebhookSettings,
    spokes: &[Spoke],
    context: &Context,
) -> Result<()> {
    check_crdgen(tree)?;
    let spec = &settings.spec;
    let kind_module = spec.kind.module();
    let webhook = webhook_module(settings);
    let mut context = context.clone();
    context.insert("hub", spec.version.as_str());
    context.insert("hub_module", &settings.module_path);
    context.insert("hub_path", &in_crate(&settings.module_path));
    context.insert("webhook_module", &webhook);
    context.insert("spokes", spokes);
    if let Some(first) = spokes.first() {
        context.insert("first_spoke", &first.version);
        context.insert("first_spoke_module", &first.module);
    }
    let versions: Vec<&str> = spokes.iter().map(|spoke| spoke.version.as_str()).collect();
    context.insert("spokes_list", &versions.join(", "));
    let files: Vec<String> = spokes
        .iter()
        .map(|spoke| format!("{}/{kind_module}_conversion.rs", api_dir(&spoke.module)))
        .collect();
    context.insert("spoke_files", &files.join("`, `"));

    for (spoke, file) in spokes.iter().zip(&files) {
        let mut spoke_context = context.clone();
        spoke_context.insert("spoke", &spoke.version);
        spoke_context.insert("spoke_path", &in_crate(&spoke.module));
        let text = renderer.render(SPOKE_TEMPLATE, &spoke_context)?;
        tree.add(file, text, Policy::User);
        tree.insert_at_marker(
            &format!("{}/mod.rs", api_dir(&spoke.module)),
            "kinds",
            &format!("mod {kind_module}_conversion;"),
        )?;
    }
    let text = renderer.render(WEBHOOK_TEMPLATE, &context)?;
    tree.add(&format!("src/webhook/{webhook}.rs"), text, Policy::User);
    let crd = format!("{}.{}", spec.plural, spec.qualified_group());
    tree.insert_at_marker(
        CRDGEN,
        "conversions",
        &format!("(\"{crd}\", \"{}\"),", spec.version),
    )?;
    Ok(())
}

/// crdgen of a project scaffolded before conversion webhooks has no `CONVERSIONS` table
/// (nor the code that stores the hub and writes `spec.conversion`): a marker alone would
/// not do, so it is refused with what to do.
fn check_crdgen(tree: &Tree) -> Result<()> {
    let text = tree.read(CRDGEN)?.unwrap_or_default();
    if markers::has_marker(&text, "conversions") {
        return Ok(());
    }
    Err(Error::Project(format!(
        "{CRDGEN} predates conversion webhooks: it has no `CONVERSIONS` table with a `// +rusty:scaffold:conversions` line, so it would neither store the hub nor write spec.conversion; take src/bin/crdgen.rs from a project `rusty-sdk init` makes now, keep your changes in it, and run the command again (nothing was written)"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_paths_map_into_the_api_crate() {
        assert_eq!(in_crate("hooked_api::cache::v2"), "crate::cache::v2");
        assert_eq!(api_dir("hooked_api::cache::v2"), "api/src/cache/v2");
    }
}
