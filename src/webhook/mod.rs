//! config/webhook/manifests.yaml from the `+rusty:webhook` markers of the project's Rust
//! sources, as controller-gen writes it from kubebuilder's: a MutatingWebhookConfiguration
//! and a ValidatingWebhookConfiguration calling the `webhook-service` Service in `system`
//! (kustomize renames both).
pub mod markers;

use std::fmt::Write as _;

use crate::error::Result;
use crate::rbac::rust_files;
use crate::scaffold::{Policy, Tree};

use markers::WebhookMarker;

pub const MANIFESTS_PATH: &str = "config/webhook/manifests.yaml";

/// The manifests for every marker of the project, or None when it has none.
pub fn generate(tree: &Tree) -> Result<Option<String>> {
    generate_with(&rust_files::read_all(tree)?)
}

/// [`generate`] from the project's Rust files already read ([`rust_files::read_all`]).
pub fn generate_with(rust_files: &[(String, String)]) -> Result<Option<String>> {
    let mut found = Vec::new();
    for (file, text) in rust_files {
        found.extend(markers::parse_file(file, text)?);
    }
    if found.is_empty() {
        return Ok(None);
    }
    found.sort_by(|a, b| a.name.cmp(&b.name).then(a.path.cmp(&b.path)));
    found.dedup();
    let mut out = String::new();
    for (mutating, kind, name) in [
        (
            true,
            "MutatingWebhookConfiguration",
            "mutating-webhook-configuration",
        ),
        (
            false,
            "ValidatingWebhookConfiguration",
            "validating-webhook-configuration",
        ),
    ] {
        let webhooks: Vec<&WebhookMarker> =
            found.iter().filter(|m| m.mutating == mutating).collect();
        if webhooks.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "---\napiVersion: admissionregistration.k8s.io/v1\nkind: {kind}\nmetadata:\n  name: {name}\nwebhooks:"
        );
        for webhook in webhooks {
            render(&mut out, webhook);
        }
    }
    Ok(Some(out))
}

/// What manifests.yaml holds while the project has no admission webhook (only a conversion
/// webhook, which its CRD names): config/webhook/kustomization.yaml lists the file.
const NO_MANIFESTS: &str =
    "# No admission webhook yet: `make manifests` writes them here from +rusty:webhook markers.\n";

/// Stage the manifests when the project has webhook markers; leave the file alone when
/// it has none, and write it without webhooks when config/webhook lists it but it is absent.
pub fn stage_manifests(tree: &mut Tree) -> Result<()> {
    if let Some(text) = generate(tree)? {
        tree.add(MANIFESTS_PATH, text, Policy::Tool);
    } else if tree.exists("config/webhook/kustomization.yaml") && !tree.exists(MANIFESTS_PATH) {
        tree.add(
            MANIFESTS_PATH,
            NO_MANIFESTS.to_string(),
            Policy::SkipIfExists,
        );
    }
    Ok(())
}

fn render(out: &mut String, m: &WebhookMarker) {
    out.push_str("- admissionReviewVersions:\n");
    push_list(out, "  ", &m.admission_review_versions);
    let _ = writeln!(
        out,
        "  clientConfig:\n    service:\n      name: webhook-service\n      namespace: system\n      path: {}",
        m.path
    );
    let _ = writeln!(out, "  failurePolicy: {}", m.failure_policy);
    let _ = writeln!(out, "  name: {}", m.name);
    out.push_str("  rules:\n  - apiGroups:\n");
    let groups: Vec<String> = m
        .groups
        .iter()
        .map(|g| {
            if g.is_empty() {
                "\"\"".into()
            } else {
                g.clone()
            }
        })
        .collect();
    push_list(out, "    ", &groups);
    out.push_str("    apiVersions:\n");
    push_list(out, "    ", &m.versions);
    out.push_str("    operations:\n");
    let operations: Vec<String> = m
        .operations
        .iter()
        .map(|o| if o == "*" { "'*'".into() } else { o.clone() })
        .collect();
    push_list(out, "    ", &operations);
    out.push_str("    resources:\n");
    push_list(out, "    ", &m.resources);
    let _ = writeln!(out, "  sideEffects: {}", m.side_effects);
}

fn push_list(out: &mut String, indent: &str, items: &[String]) {
    for item in items {
        let _ = writeln!(out, "{indent}- {item}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_become_both_configurations_and_no_markers_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut tree = Tree::new(dir.path());
        tree.add("src/main.rs", "fn main() {}\n", Policy::User);
        assert_eq!(generate(&tree).unwrap(), None);
        tree.add(
            "src/webhook/widget.rs",
            "// +rusty:webhook:path=/validate-toys-x-io-v1-widget,mutating=false,failurePolicy=fail,sideEffects=None,groups=toys.x.io,resources=widgets,verbs=create;update,versions=v1,name=vwidget-v1.kb.io,admissionReviewVersions=v1\n\
             // +rusty:webhook:path=/mutate-toys-x-io-v1-widget,mutating=true,failurePolicy=ignore,sideEffects=None,groups=toys.x.io,resources=widgets,verbs=create,versions=v1,name=mwidget-v1.kb.io,admissionReviewVersions=v1\n",
            Policy::User,
        );
        let text = generate(&tree).unwrap().unwrap();
        let docs: Vec<serde_yaml::Value> = text
            .split("---\n")
            .filter(|d| !d.is_empty())
            .map(|d| serde_yaml::from_str(d).unwrap())
            .collect();
        assert_eq!(docs.len(), 2, "{text}");
        assert_eq!(docs[0]["kind"], "MutatingWebhookConfiguration");
        assert_eq!(docs[0]["webhooks"][0]["failurePolicy"], "Ignore");
        assert_eq!(
            docs[1]["webhooks"][0]["clientConfig"]["service"]["path"],
            "/validate-toys-x-io-v1-widget"
        );
        assert_eq!(
            docs[1]["webhooks"][0]["rules"][0]["operations"][1],
            "UPDATE"
        );
    }
}
