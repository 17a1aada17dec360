//! The kustomize wiring of the webhooks, as kubebuilder scaffolds it: config/webhook (the
//! configurations and their Service), config/certmanager (an Issuer and the serving
//! Certificate), and in config/default the two bases, the patch that mounts the certificate
//! in the manager, and the replacements that name the Service in the Certificate and have
//! cert-manager inject its CA into the configurations; and config/self-signed, the same
//! without cert-manager (`--webhook-cert-mode=self-signed`); and the NetworkPolicy that admits
//! webhook calls, in config/network-policy. config/certmanager's base (the Issuer, the
//! metrics Certificate) is `init`'s, written here for projects made before it had one. Each
//! file is written once and each entry added once; what the user changed is kept.
use std::fmt::Write as _;

use tera::Context;

use crate::error::Result;
use crate::scaffold::{Policy, Tree};
use crate::templates::Renderer;

const DEFAULT: &str = "config/default/kustomization.yaml";

const FILES: [&str; 7] = [
    "config/webhook/kustomization.yaml",
    "config/webhook/service.yaml",
    "config/certmanager/certificate.yaml",
    "config/default/manager_webhook_patch.yaml",
    "config/self-signed/kustomization.yaml",
    "config/self-signed/role.yaml",
    "config/network-policy/allow-webhook-traffic.yaml",
];

/// config/certmanager as `init` writes it.
const CERT_MANAGER_BASE: [&str; 4] = [
    "config/certmanager/issuer.yaml",
    "config/certmanager/certificate-metrics.yaml",
    "config/certmanager/kustomization.yaml",
    "config/certmanager/kustomizeconfig.yaml",
];

/// The kustomizations that list a file of this command, and that file.
const LISTED: [(&str, &str); 2] = [
    ("config/certmanager/kustomization.yaml", "certificate.yaml"),
    (
        "config/network-policy/kustomization.yaml",
        "allow-webhook-traffic.yaml",
    ),
];

const PATCH: &str = "\
# [WEBHOOK] Serves the webhooks with the certificate of config/certmanager.
- path: manager_webhook_patch.yaml
  target:
    kind: Deployment
";

/// One replacement of the `cert-manager.io/inject-ca-from` annotation's `index`th part
/// (`<namespace>/<name>` of the Certificate) in the configurations of `kind`.
fn inject_ca(kind: &str, field: &str, index: u8) -> String {
    format!(
        "\
- source:
    kind: Certificate
    group: cert-manager.io
    version: v1
    name: serving-cert
    fieldPath: .metadata.{field}
  targets:
  - select:
      kind: {kind}
    fieldPaths:
    - .metadata.annotations.[cert-manager.io/inject-ca-from]
    options:
      delimiter: '/'
      index: {index}
      create: true
"
    )
}

const REPLACEMENTS_HEADER: &str = "\
# [CERTMANAGER] `rusty-sdk create webhook` added these: the webhook Service's name and
# namespace into the serving Certificate's DNS names, and the Certificate into the
# webhook configurations' cert-manager.io/inject-ca-from annotation.
";

/// The Service's name and namespace into the Certificate's DNS names, then the CA
/// injection of both kinds of configuration: the entries of `replacements:`.
fn replacements() -> String {
    let mut out = String::new();
    for (field, index) in [("name", 0), ("namespace", 1)] {
        let _ = write!(
            out,
            "\
- source:
    kind: Service
    version: v1
    name: webhook-service
    fieldPath: .metadata.{field}
  targets:
  - select:
      kind: Certificate
      group: cert-manager.io
      version: v1
      name: serving-cert
    fieldPaths:
    - .spec.dnsNames.0
    - .spec.dnsNames.1
    options:
      delimiter: '.'
      index: {index}
      create: true
"
        );
    }
    for kind in [
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
    ] {
        out.push_str(&inject_ca(kind, "namespace", 0));
        out.push_str(&inject_ca(kind, "name", 1));
    }
    out
}

const CRD: &str = "config/crd/kustomization.yaml";
const CRD_CONFIG: &str = "config/crd/kustomizeconfig.yaml";
const CONFIGURATIONS: &str = "configurations:\n- kustomizeconfig.yaml\n";

/// The kustomize wiring of the conversion webhook of the CRD `crd`: config/crd's
/// kustomizeconfig.yaml has kustomize prefix the Service that `spec.conversion` names (as the
/// webhook configurations' Service), and config/default's replacements have cert-manager
/// inject the serving certificate's CA into the CRD.
pub fn stage_conversion(
    tree: &mut Tree,
    renderer: &mut Renderer,
    context: &Context,
    crd: &str,
) -> Result<()> {
    if !tree.exists(CRD_CONFIG) {
        let text = renderer.render("webhook/config/crd/kustomizeconfig.yaml.tera", context)?;
        tree.add(CRD_CONFIG, text, Policy::User);
    }
    if let Some(text) = tree.read(CRD)?
        && !text
            .lines()
            .any(|line| line.trim_end() == "configurations:")
    {
        tree.edit(CRD, |text| Ok(format!("{text}{CONFIGURATIONS}")))?;
    }
    let entries = crd_ca_injection(crd);
    if let Some(text) = tree.read(DEFAULT)?
        && text.contains("replacements:\n")
        && !text.contains(&entries)
    {
        tree.edit(DEFAULT, |text| Ok(format!("{text}{entries}")))?;
    }
    Ok(())
}

/// The Certificate into the `cert-manager.io/inject-ca-from` annotation of the CRD `crd`, so
/// that cert-manager sets the CA of its conversion webhook.
fn crd_ca_injection(crd: &str) -> String {
    [("namespace", 0), ("name", 1)]
        .into_iter()
        .map(|(field, index)| {
            inject_ca("CustomResourceDefinition", field, index).replace(
                "      kind: CustomResourceDefinition\n",
                &format!("      kind: CustomResourceDefinition\n      name: {crd}\n"),
            )
        })
        .collect()
}

pub fn stage(tree: &mut Tree, renderer: &mut Renderer, context: &Context) -> Result<()> {
    let templates = FILES
        .iter()
        .map(|path| (*path, format!("webhook/{path}.tera")))
        .chain(
            CERT_MANAGER_BASE
                .iter()
                .map(|path| (*path, format!("init/base/{path}.tera"))),
        );
    for (path, template) in templates {
        if !tree.exists(path) {
            let text = renderer.render(&template, context)?;
            tree.add(path, text, Policy::User);
        }
    }
    for (kustomization, file) in LISTED {
        if let Some(text) = tree.read(kustomization)? {
            let listed = list_resource(&text, file);
            if listed != text {
                tree.edit(kustomization, |_| Ok(listed))?;
            }
        }
    }
    let Some(text) = tree.read(DEFAULT)? else {
        return Ok(());
    };
    let updated = enable(&text);
    if updated != text {
        tree.edit(DEFAULT, |_| Ok(updated))?;
    }
    Ok(())
}

/// config/default/kustomization.yaml with the webhook bases, patch and replacements.
fn enable(text: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for base in ["- ../certmanager", "- ../webhook"] {
        if lines.iter().any(|line| line.trim() == base) {
            continue;
        }
        let commented = format!("#{base}");
        if let Some(line) = lines.iter_mut().find(|line| line.trim() == commented) {
            *line = base.to_string();
        } else if let Some(at) = lines.iter().position(|line| line.trim() == "- ../manager") {
            lines.insert(at + 1, base.to_string());
        }
    }
    if !lines
        .iter()
        .any(|line| line.trim() == "- path: manager_webhook_patch.yaml")
    {
        let end = block_end(&lines, "patches:");
        if let Some(at) = end {
            for (offset, line) in PATCH.lines().enumerate() {
                lines.insert(at + offset, line.to_string());
            }
        } else {
            lines.push("patches:".into());
            lines.extend(PATCH.lines().map(str::to_string));
        }
    }
    let entries = replacements();
    let first_entry = entries.lines().take(5).collect::<Vec<_>>().join("\n");
    if !lines.join("\n").contains(&first_entry) {
        // After the key the user (or init, commented out) wrote, else a new key at the end.
        let key = lines
            .iter()
            .position(|line| line.trim_end() == "replacements:");
        let commented = lines
            .iter()
            .position(|line| line.trim_end() == "#replacements:");
        match (key, commented) {
            (Some(_), _) => {
                let at = block_end(&lines, "replacements:").unwrap_or(lines.len());
                lines.splice(at..at, entries.lines().map(str::to_string));
            }
            (None, Some(at)) => {
                lines[at] = "replacements:".to_string();
                let block: Vec<String> = REPLACEMENTS_HEADER
                    .lines()
                    .chain(entries.lines())
                    .map(str::to_string)
                    .collect();
                lines.splice((at + 1)..=at, block);
            }
            (None, None) => {
                lines.push(String::new());
                lines.extend(REPLACEMENTS_HEADER.lines().map(str::to_string));
                lines.push("replacements:".to_string());
                lines.extend(entries.lines().map(str::to_string));
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// `text` (a kustomization) with `file` in its `resources:`, after the last entry.
fn list_resource(text: &str, file: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let entry = format!("- {file}");
    if lines.iter().any(|line| line.trim_end() == entry) {
        return text.to_string();
    }
    let at = block_end(&lines, "resources:").unwrap_or_else(|| {
        lines.push("resources:".into());
        lines.len()
    });
    lines.insert(at, entry);
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// The index just past the block of the top-level key `key`: its last indented or list
/// line (comments and blank lines after it belong to what follows).
fn block_end(lines: &[String], key: &str) -> Option<usize> {
    let start = lines.iter().position(|line| line.trim_end() == key)?;
    let mut end = start + 1;
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        let top_level = !line.is_empty()
            && !line.starts_with(' ')
            && !line.starts_with('-')
            && !line.starts_with('#');
        if top_level {
            break;
        }
        if line.starts_with(' ') || line.starts_with('-') {
            end = i + 1;
        }
    }
    Some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    const INIT: &str = "resources:\n#- ../crd\n- ../rbac\n- ../manager\n# [PROMETHEUS] x\n#- ../prometheus\n\npatches:\n# [METRICS] y\n- path: manager_metrics_patch.yaml\n  target:\n    kind: Deployment\n";

    #[test]
    fn bases_patch_and_replacements_are_added_once() {
        let once = enable(INIT);
        assert!(
            once.starts_with(
                "resources:\n#- ../crd\n- ../rbac\n- ../manager\n- ../webhook\n- ../certmanager\n"
            ),
            "{once}"
        );
        assert!(
            once.contains("    kind: Deployment\n# [WEBHOOK] Serves the webhooks with the certificate of config/certmanager.\n- path: manager_webhook_patch.yaml\n"),
            "{once}"
        );
        assert_eq!(once.matches("replacements:\n").count(), 1, "{once}");
        assert_eq!(enable(&once), once);
    }

    #[test]
    fn commented_bases_are_uncommented_in_place() {
        let text = "resources:\n- ../manager\n#- ../webhook\n#- ../certmanager\n";
        let once = enable(text);
        assert!(
            once.starts_with("resources:\n- ../manager\n- ../webhook\n- ../certmanager\n"),
            "{once}"
        );
    }

    #[test]
    fn replacements_join_a_key_the_user_or_init_wrote() {
        let metrics = "- source:\n    name: controller-manager-metrics-service\n";
        // init's commented key: uncommented, the entries after it, the metrics ones kept.
        let hidden: String = metrics.lines().flat_map(|line| ["#", line, "\n"]).collect();
        let commented = format!(
            "resources:\n- ../manager\npatches:\n- path: a.yaml\n\n#replacements:\n{hidden}"
        );
        let once = enable(&commented);
        assert_eq!(once.matches("replacements:\n").count(), 1, "{once}");
        assert!(once.contains("\nreplacements:\n# [CERTMANAGER]"), "{once}");
        assert!(
            once.ends_with(&format!("      create: true\n{hidden}")),
            "{once}"
        );
        assert_eq!(enable(&once), once);
        // The user's key, metrics entries uncommented: the webhook's entries follow them.
        let users = format!(
            "resources:\n- ../manager\npatches:\n- path: a.yaml\n\nreplacements:\n{metrics}"
        );
        let once = enable(&users);
        assert_eq!(once.matches("replacements:\n").count(), 1, "{once}");
        assert!(
            once.contains(&format!(
                "replacements:\n{metrics}- source:\n    kind: Service"
            )),
            "{once}"
        );
        assert_eq!(enable(&once), once);
    }

    #[test]
    fn resources_are_listed_once_after_the_last_entry() {
        let text = "resources:\n- issuer.yaml\n#- certificate-metrics.yaml\n\nconfigurations:\n- kustomizeconfig.yaml\n";
        let once = list_resource(text, "certificate.yaml");
        assert_eq!(
            once,
            "resources:\n- issuer.yaml\n- certificate.yaml\n#- certificate-metrics.yaml\n\nconfigurations:\n- kustomizeconfig.yaml\n"
        );
        assert_eq!(list_resource(&once, "certificate.yaml"), once);
    }
}
