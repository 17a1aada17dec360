//! The files of `create webhook --conversion`, hub and spokes as kubebuilder has them: in the
//! api crate, next to each spoke, the `TryFrom` conversions between the spoke and the hub;
//! in src/webhook/, the conversion webhook that turns every object of a `ConversionReview`
//! into the desired version through the hub; in crdgen, the kind's entry that makes the hub
//! the stored version and writes the CRD's `spec.conversion`.
use heck::ToUpperCamelCase;
use serde::Serialize;

use super::WebhookSettings;
use super::context::WebhookContext;
use crate::error::{Error, Result};
use crate::project::{Project, Resource, ResourceWebhooks};
use crate::scaffold::{Policy, Tree, markers};
use crate::templates::{self, Renderer};

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

/// The spokes of one `create webhook --conversion`. A kind that converts already gains only
/// the spokes it lacks: their conversions, and their lines at the conversion webhook's
/// markers, so the rest of the webhook stays as the user left it; with `--force`, or when
/// the kind does not convert yet, the webhook is scaffolded whole with every spoke.
#[derive(Clone, Debug, Default)]
pub struct SpokePlan {
    /// Every spoke once the command ran: those PROJECT records, then the new ones.
    pub all: Vec<Spoke>,
    /// The spokes to scaffold now: the new ones when extending, else all.
    pub now: Vec<Spoke>,
    /// Add `now` to the existing webhook at its markers.
    pub extend: bool,
}

impl SpokePlan {
    pub fn new(
        project: &Project,
        hub: &Resource,
        recorded: &ResourceWebhooks,
        requested: Vec<Spoke>,
        force: bool,
    ) -> Result<SpokePlan> {
        if requested.is_empty() {
            return Ok(SpokePlan::default());
        }
        let mut all = Vec::new();
        if recorded.conversion {
            for version in &recorded.spoke {
                let module = project
                    .find_resource(&hub.group, version, &hub.kind)
                    .and_then(|resource| resource.path.clone())
                    .ok_or_else(|| {
                        Error::Project(format!(
                            "PROJECT records {version} as a spoke of {} but has no Rust API {} ({}/{version}); restore that API's entry or its webhooks' `spoke` list",
                            hub.kind, hub.kind, hub.group
                        ))
                    })?;
                all.push(Spoke {
                    version: version.clone(),
                    module,
                });
            }
        }
        let new: Vec<Spoke> = requested
            .into_iter()
            .filter(|spoke| all.iter().all(|known| known.version != spoke.version))
            .collect();
        all.extend(new.iter().cloned());
        let extend = recorded.conversion && !force;
        let now = if extend { new } else { all.clone() };
        Ok(SpokePlan { all, now, extend })
    }

    /// Conversion was asked for and there is something to scaffold.
    pub fn scaffolds(&self) -> bool {
        !self.now.is_empty()
    }

    /// Conversion was asked for (so there are spokes), and the kind converts with every
    /// spoke given already.
    pub fn nothing_new(&self) -> bool {
        !self.all.is_empty() && self.now.is_empty()
    }
}

/// The markers of the conversion webhook where each spoke has a line.
const SPOKE_MARKERS: [&str; 4] = ["spoke-types", "spoke-versions", "to-hub", "from-hub"];

/// The module of the conversion webhook in src/webhook/.
pub fn webhook_module(settings: &WebhookSettings) -> String {
    format!("{}_conversion", settings.spec.controller_module())
}

/// The name the spokes' conversions give the hub's type: `Hub`, or `V1Hub` for a kind
/// that is itself called `Hub`.
fn hub_type(kind: &str, hub: &str) -> String {
    if kind == "Hub" {
        format!("{}Hub", hub.to_upper_camel_case())
    } else {
        "Hub".into()
    }
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

/// The variables both conversion templates use, on top of the webhook's.
#[derive(Serialize)]
struct ConversionContext<'a> {
    #[serde(flatten)]
    webhook: &'a WebhookContext<'a>,
    /// The hub's version (`v1`), its module (`<crate>_api::cache::v1`) and that module as
    /// the api crate names it (`crate::cache::v1`).
    hub: &'a str,
    hub_module: &'a str,
    hub_path: String,
    /// The spokes' name for the hub's type (see `hub_type`).
    hub_type: String,
    /// `memcached_conversion`, the webhook's module in src/webhook/.
    webhook_module: &'a str,
    /// `memcached`: the spokes' conversion files are `<kind_module>_conversion.rs`.
    kind_module: &'a str,
}

/// The variables of one spoke's conversions (spoke.rs.tera).
#[derive(Serialize)]
struct SpokeContext<'a> {
    #[serde(flatten)]
    conversion: &'a ConversionContext<'a>,
    /// The spoke's version: `v2`.
    spoke: &'a str,
}

/// The variables of the conversion webhook (webhook.rs.tera).
#[derive(Serialize)]
struct ConversionWebhookContext<'a> {
    #[serde(flatten)]
    conversion: &'a ConversionContext<'a>,
    /// The spokes whose lines the webhook gets: all of them, or the new ones when extending.
    spokes: &'a [Spoke],
    /// The first spoke of the kind, which the webhook's tests convert to and from.
    first_spoke: &'a str,
    first_spoke_module: &'a str,
}

/// Stage the spokes' conversions, the webhook (whole, or the new spokes' lines at its
/// markers), its registration (the caller registers the module in src/webhook/mod.rs) and
/// the crdgen entry.
pub fn stage(
    tree: &mut Tree,
    renderer: &mut Renderer,
    settings: &WebhookSettings,
    variables: &WebhookContext,
) -> Result<()> {
    check_crdgen(tree)?;
    let spec = &settings.spec;
    let plan = &settings.spokes;
    let kind_module = spec.kind.module();
    let webhook = webhook_module(settings);
    let webhook_path = format!("src/webhook/{webhook}.rs");
    let conversion = ConversionContext {
        webhook: variables,
        hub: spec.version.as_str(),
        hub_module: &settings.module_path,
        hub_path: in_crate(&settings.module_path),
        hub_type: hub_type(spec.kind.as_str(), spec.version.as_str()),
        webhook_module: &webhook,
        kind_module: &kind_module,
    };

    for spoke in &plan.now {
        let file = format!("{}/{kind_module}_conversion.rs", api_dir(&spoke.module));
        let context = templates::context(&SpokeContext {
            conversion: &conversion,
            spoke: &spoke.version,
        })?;
        let text = renderer.render(SPOKE_TEMPLATE, &context)?;
        tree.add(&file, text, Policy::User);
        tree.insert_at_marker(
            &format!("{}/mod.rs", api_dir(&spoke.module)),
            "kinds",
            &format!("mod {kind_module}_conversion;"),
        )?;
    }
    let extend = plan.extend && tree.exists(&webhook_path);
    let spokes = if extend { &plan.now } else { &plan.all };
    // `stage` runs only when there are spokes to scaffold, so the kind has a first one.
    let first = plan
        .all
        .first()
        .ok_or_else(|| Error::Internal(format!("conversion of {} without spokes", spec.kind)))?;
    let context = templates::context(&ConversionWebhookContext {
        conversion: &conversion,
        spokes,
        first_spoke: &first.version,
        first_spoke_module: &first.module,
    })?;
    let text = renderer.render(WEBHOOK_TEMPLATE, &context)?;
    if extend {
        // The template rendered with only the new spokes has their lines, one per spoke,
        // right above each marker: those lines go above the same markers of the file.
        for marker in SPOKE_MARKERS {
            let lines = lines_above_marker(&text, marker, spokes.len());
            tree.insert_at_marker(&webhook_path, marker, &lines)?;
        }
    } else {
        tree.add(&webhook_path, text, Policy::User);
    }
    let crd = format!("{}.{}", spec.plural, spec.qualified_group());
    tree.insert_at_marker(
        CRDGEN,
        "conversions",
        &format!("(\"{crd}\", \"{}\"),", spec.version),
    )?;
    Ok(())
}

/// The `count` lines right above the marker `name` in `text`, without their indentation.
fn lines_above_marker(text: &str, name: &str, count: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|line| markers::marker_name(line) == Some(name))
        .unwrap_or(0);
    lines[at.saturating_sub(count)..at]
        .iter()
        .flat_map(|line| [line.trim_start(), "\n"])
        .collect()
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
