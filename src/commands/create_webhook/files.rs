//! The files of `create webhook`: the kind's webhook module, the shared `src/webhook/mod.rs`,
//! their registration in main.rs, and the dependencies the generated code uses.
use super::WebhookSettings;
use crate::commands::create_api::rust::files::marker_indent;
use crate::commands::create_api::rust::idents::TypeNames;
use crate::error::{Error, Result};
use crate::project::Project;
use crate::rust_layout;
use crate::scaffold::{EditOutcome, Policy, Tree, toml};
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
    let mut context = spec.context(project);
    let names = TypeNames::for_template(templates::text(KIND_TEMPLATE)?, &spec.group, &spec.kind);
    names.insert_into(&mut context);
    let stem = format!(
        "{}-{}-{}",
        spec.qualified_group().replace('.', "-"),
        spec.version,
        spec.kind.lower()
    );
    context.insert("module_path", &settings.module_path);
    context.insert("mutate_path", &format!("/mutate-{stem}"));
    context.insert("validate_path", &format!("/validate-{stem}"));
    let name = format!("{}-{}.kb.io", spec.kind.lower(), spec.version);
    context.insert("mutate_name", &format!("m{name}"));
    context.insert("validate_name", &format!("v{name}"));
    context.insert("defaulting", &settings.defaulting);
    context.insert("validation", &settings.validation);

    if !tree.exists(WEBHOOK_MOD) {
        let text = renderer.render(MOD_TEMPLATE, &context)?;
        tree.add(WEBHOOK_MOD, text, Policy::User);
    }
    if settings.defaulting || settings.validation {
        let text = renderer.render(KIND_TEMPLATE, &context)?;
        tree.add(&format!("src/webhook/{module}.rs"), text, Policy::User);
        register_module(tree, &module)?;
    }
    if !settings.spokes.is_empty() {
        super::conversion::stage(tree, renderer, settings, &settings.spokes, &context)?;
        register_module(tree, &super::conversion::webhook_module(settings))?;
    }
    register_in_main(tree)?;
    super::kustomize::stage(tree, renderer, &context)?;
    if !settings.spokes.is_empty() {
        let crd = format!("{}.{}", spec.plural, spec.qualified_group());
        super::kustomize::stage_conversion(tree, renderer, &context, &crd)?;
    }
    add_dependencies(tree)
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
        if !main.contains("\nmod controller;\n") {
            return Err(Error::Project(format!(
                "{MAIN} has no `mod controller;` line to declare `mod webhook;` after; add `mod webhook;` to it by hand and run the command again"
            )));
        }
        tree.edit(MAIN, |text| {
            Ok(text.replacen(
                "\nmod controller;\n",
                "\nmod controller;\nmod webhook;\n",
                1,
            ))
        })?;
    }
    let indent = marker_indent(&main, "controllers");
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
