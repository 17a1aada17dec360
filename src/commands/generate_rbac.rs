//! `rusty-sdk generate rbac [--check] [--namespace NS | --cluster-wide]`: rewrite
//! config/rbac/role.yaml from the markers, the charts and the runtime's needs, and
//! config/webhook/manifests.yaml from the `+rusty:webhook` markers when there are any.
use crate::cli::RbacArgs;
use crate::error::{Error, Result};
use crate::rbac::{self, ROLE_PATH};
use crate::scaffold::{Policy, Tree};
use crate::session::Session;
use crate::webhook;

pub fn run(session: &Session, args: &RbacArgs) -> Result<()> {
    let mut project = session.load_project()?;
    if let Some(ns) = &args.namespace {
        rbac::set_namespace_scope(&mut project, Some(&valid_namespace(ns)?));
    }
    if args.cluster_wide {
        rbac::set_namespace_scope(&mut project, None);
    }
    let mut tree = Tree::new(&session.root);
    // Both look for markers in the same Rust files: read them once.
    let rust_files = rbac::rust_files::read_all(&tree)?;
    let role = rbac::generate_with(&tree, &project, &rust_files)?;
    let webhooks = webhook::generate_with(&rust_files)?;
    if args.check {
        // One line for CI; the warnings are in role.yaml's comments too.
        if let Some(text) = &webhooks {
            check(session, &tree, webhook::MANIFESTS_PATH, text)?;
        }
        return check(session, &tree, ROLE_PATH, &role.text);
    }
    for warning in &role.warnings {
        session.shell.warn(warning);
    }
    tree.add(ROLE_PATH, role.text, Policy::Tool);
    if let Some(text) = webhooks {
        tree.add(webhook::MANIFESTS_PATH, text, Policy::Tool);
    }
    session.apply(tree, &project)?;
    Ok(())
}

/// Compare only; exit 1 (a user error) when role.yaml differs from what would be written.
fn check(session: &Session, tree: &Tree, path: &str, wanted: &str) -> Result<()> {
    // A role.yaml kept in CRLF is up to date when only its line endings differ.
    let current = tree.read(path)?;
    let up_to_date = current.as_deref().is_some_and(|text| {
        crate::scaffold::plan::keep_crlf(text.as_bytes(), wanted.as_bytes()) == text.as_bytes()
    });
    if up_to_date {
        session.shell.note(&format!("{path} is up to date"));
        Ok(())
    } else {
        Err(Error::Project(format!(
            "{path} is out of date: run `rusty-sdk generate rbac` (or `make manifests`) and commit the result"
        )))
    }
}

fn valid_namespace(ns: &str) -> Result<String> {
    let ok = !ns.is_empty()
        && ns.len() <= 63
        && ns
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !ns.starts_with('-')
        && !ns.ends_with('-');
    if ok {
        Ok(ns.to_string())
    } else {
        Err(Error::invalid(format!(
            "invalid --namespace {ns:?}: must be a DNS-1123 label (lower-case letters, digits and '-', e.g. memcached-system)"
        )))
    }
}
