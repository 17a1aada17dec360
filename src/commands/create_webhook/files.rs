//! The files of `create webhook`: the kind's webhook module, the shared `src/webhook/mod.rs`,
//! their registration in main.rs, and the dependencies the generated code uses.
use super::context::{PartContext, WebhookContext};
use super::{Admission, WebhookSettings};
use crate::error::{Error, Result};
use crate::project::Project;
use crate::rust_layout;
use crate::scaffold::{EditOutcome, Policy, Tree, markers, toml};
use crate::templates::{self, Renderer};

const KIND_TEMPLATE: &str = "webhook/kind.rs.tera";
const MOD_TEMPLATE: &str = "webhook/mod.rs.tera";
const WEBHOOK_MOD: &str = "src/webhook/mod.rs";
const MAIN: &str = "src/main.rs";
const CARGO: &str = "Cargo.toml";

pub fn stage(
    tree: &mut Tree,
    renderer: &mut Renderer,
    settings: &WebhookSettings,
    project: &Project,
) -> Result<()> {
    let spec = &settings.spec;
    let module = module_name(tree, settings)?;
    // The names in scope are those of the whole file, whichever webhooks it holds.
    let mut text = templates::text(KIND_TEMPLATE)?.to_string();
    for admission in [Admission::Defaulting, Admission::Validation] {
        text.push_str(templates::text(admission.template())?);
    }
    let variables = WebhookContext::new(settings, project, &text)?;
    let context = templates::context(&variables)?;

    if !tree.exists(WEBHOOK_MOD) {
        let text = renderer.render(MOD_TEMPLATE, &context)?;
        tree.add(WEBHOOK_MOD, text, Policy::User);
    }
    if !settings.added.is_empty() {
        stage_admission(tree, renderer, settings, &variables, &module)?;
        register_module(tree, &module)?;
    }
    if settings.spokes.scaffolds() {
        super::storage::stage(tree, settings, project)?;
        super::conversion::stage(tree, renderer, settings, &variables)?;
        register_module(tree, &super::conversion::webhook_module(settings))?;
    }
    register_in_main(tree)?;
    super::kustomize::stage(tree, renderer, &context)?;
    if settings.spokes.scaffolds() {
        let crd = format!("{}.{}", spec.plural, spec.qualified_group());
        super::kustomize::stage_conversion(tree, renderer, &context, &crd)?;
    }
    add_dependencies(tree)
}

/// The markers of src/webhook/<kind>.rs where each admission webhook inserts its parts.
const PARTS: [(&str, &str); 4] = [
    ("imports", "webhook-imports"),
    ("register", "webhook-register"),
    ("functions", "webhook-functions"),
    ("tests", "webhook-tests"),
];

/// The kind's admission webhooks in src/webhook/<module>.rs. A new file (or one --force
/// scaffolds again) is the skeleton of kind.rs.tera with every webhook of the kind inserted
/// at its markers; an existing file gets only the webhooks added, at the same markers, so
/// the rest of it stays byte for byte as the user left it.
fn stage_admission(
    tree: &mut Tree,
    renderer: &mut Renderer,
    settings: &WebhookSettings,
    variables: &WebhookContext,
    module: &str,
) -> Result<()> {
    let path = format!("src/webhook/{module}.rs");
    let added = if tree.exists(&path) && !settings.force {
        check_markers(tree, &path)?;
        settings.added.clone()
    } else {
        tree.add(
            &path,
            renderer.render(KIND_TEMPLATE, &templates::context(variables)?)?,
            Policy::User,
        );
        [
            (settings.defaulting, Admission::Defaulting),
            (settings.validation, Admission::Validation),
        ]
        .into_iter()
        .filter_map(|(has, admission)| has.then_some(admission))
        .collect()
    };
    for admission in added {
        for (part, marker) in PARTS {
            let context = templates::context(&PartContext {
                webhook: variables,
                part,
            })?;
            let fragment = renderer.render(admission.template(), &context)?;
            if !fragment.trim().is_empty() {
                tree.insert_at_marker(&path, marker, &fragment)?;
            }
        }
    }
    Ok(())
}

/// A file scaffolded before the markers, or that lost one, cannot take another webhook
/// without being scaffolded again.
fn check_markers(tree: &Tree, path: &str) -> Result<()> {
    let text = tree.read(path)?.unwrap_or_default();
    let missing: Vec<String> = PARTS
        .iter()
        .filter(|(_, marker)| !markers::has_marker(&text, marker))
        .map(|(_, marker)| markers::marker_text(path, marker))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::Project(format!(
        "{path}: no `{}` line to add the webhook at; add the markers where kind.rs.tera has them, or pass --force to scaffold the file again with every webhook of the kind (your edits in it are lost)",
        missing.join("`, `")
    )))
}

/// `module` declared in src/webhook/mod.rs and its webhooks in `all()`.
fn register_module(tree: &mut Tree, module: &str) -> Result<()> {
    tree.insert_at_marker(
        WEBHOOK_MOD,
        "webhook-modules",
        &format!("pub mod {module};"),
    )?;
    tree.insert_at_marker(
        WEBHOOK_MOD,
        "webhooks",
        &format!("webhooks = {module}::register(webhooks);"),
    )?;
    Ok(())
}

/// `memcached`, or `memcached_v2` when src/webhook/memcached.rs holds the webhooks of
/// another version of the kind.
fn module_name(tree: &Tree, settings: &WebhookSettings) -> Result<String> {
    let spec = &settings.spec;
    let module = spec.controller_module();
    let path = format!("src/webhook/{module}.rs");
    let other_version = tree.read(&path)?.is_some_and(|text| {
        text.contains(",versions=") && !text.contains(&format!(",versions={},", spec.version))
    });
    Ok(if other_version {
        format!("{module}_{}", spec.version)
    } else {
        module
    })
}

/// `mod webhook;` next to `mod controller;`, and the manager serving the webhooks next to
/// the controllers it runs.
fn register_in_main(tree: &mut Tree) -> Result<()> {
    let main = tree.read(MAIN)?.unwrap_or_default();
    if !main.lines().any(|line| line.trim() == "mod webhook;") {
        // After the line `mod controller;`, with its line ending (CRLF stays CRLF).
        let Some((at, ending)) = main
            .split_inclusive('\n')
            .scan(0, |end, line| {
                *end += line.len();
                Some((*end, line))
            })
            .find_map(|(end, line)| {
                let ending = &line[line.trim_end_matches(['\r', '\n']).len()..];
                (line.trim() == "mod controller;" && !ending.is_empty()).then_some((end, ending))
            })
        else {
            return Err(Error::Project(format!(
                "{MAIN} has no `mod controller;` line to declare `mod webhook;` after; add `mod webhook;` to it by hand and run the command again"
            )));
        };
        let ending = ending.to_string();
        tree.edit(MAIN, |text| {
            Ok(format!(
                "{}mod webhook;{ending}{}",
                &text[..at],
                &text[at..]
            ))
        })?;
    }
    let indent = markers::marker_indent(&main, "controllers");
    tree.insert_at_marker(
        MAIN,
        "controllers",
        &rust_layout::call_statement(indent, "manager.add_webhooks", &["webhook::all()"]),
    )?;
    Ok(())
}

/// The admission types of kube and json-patch for the patches of defaulting webhooks.
fn add_dependencies(tree: &mut Tree) -> Result<()> {
    let manifest = tree.read(CARGO)?.unwrap_or_default();
    let (outcome, updated) = toml::ensure_workspace_feature(CARGO, &manifest, "kube", "admission")?;
    let (dependency, updated) = toml::ensure_dependency(CARGO, &updated, "json-patch", "4")?;
    if outcome == EditOutcome::Applied || dependency == EditOutcome::Applied {
        tree.edit(CARGO, |_| Ok(updated))?;
    }
    Ok(())
}
