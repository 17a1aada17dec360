//! Where each object's template goes and which switch guards it, the manager's values,
//! and the chart's own files (Chart.yaml, values.yaml, NOTES.txt, the Makefile targets).
use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{Value, json};

use super::template::Templated;
use crate::error::{Error, Result};
use crate::scaffold::{Policy, Tree};

/// The switches the chart has and the manager values install.yaml holds.
#[derive(Default)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "the chart's independent switches, one per values.yaml key"
)]
pub struct Switches {
    pub crd: bool,
    pub rbac: bool,
    pub metrics: bool,
    pub webhook: bool,
    pub network_policy: bool,
    /// The chart's own network policies were added (install.yaml has none).
    pub network_policy_fallback: bool,
    /// The chart's own metrics certificate was added (install.yaml has none).
    pub metrics_cert_fallback: bool,
    pub cert_manager: bool,
    /// `Some(default)` when the chart has a ServiceMonitor.
    pub prometheus: Option<bool>,
    /// The manager's values (`manager:` of values.yaml).
    pub manager: serde_json::Map<String, Value>,
}

/// The templates folder and the condition of an object, or `None` for objects the chart
/// leaves to Helm (the Namespace: `helm install --create-namespace`).
pub fn place(
    kind: &str,
    name: &str,
    switches: &mut Switches,
) -> Option<(&'static str, Option<&'static str>)> {
    Some(match kind {
        "Namespace" => return None,
        "CustomResourceDefinition" => {
            switches.crd = true;
            ("crd", Some(".Values.crd.enable"))
        }
        "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding" => {
            switches.rbac = true;
            ("rbac", Some(".Values.rbac.enable"))
        }
        "ServiceAccount" => ("rbac", None),
        "Deployment" => ("manager", None),
        _ if is_metrics_service(kind, name) => {
            switches.metrics = true;
            ("metrics", Some(".Values.metrics.enable"))
        }
        "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration" => {
            switches.webhook = true;
            ("webhook", Some(".Values.webhook.enable"))
        }
        "Service" if name.contains("webhook") => {
            switches.webhook = true;
            ("webhook", Some(".Values.webhook.enable"))
        }
        "NetworkPolicy" => {
            switches.network_policy = true;
            ("network-policy", Some(".Values.networkPolicy.enable"))
        }
        "ServiceMonitor" => {
            switches.prometheus = Some(true);
            ("prometheus", Some(".Values.prometheus.enable"))
        }
        "Issuer" | "ClusterIssuer" | "Certificate" => {
            switches.cert_manager = true;
            ("cert-manager", Some(".Values.certManager.enable"))
        }
        _ => ("other", None),
    })
}

pub fn is_metrics_service(kind: &str, name: &str) -> bool {
    kind == "Service" && name.contains("metrics")
}

/// The template file of an object (`dir/file`): its name without the project prefix (CRDs keep theirs),
/// with the kind added when two objects share a name.
pub fn file_name(
    dir: &str,
    name: &str,
    kind: &str,
    project: &str,
    used: &mut BTreeSet<String>,
) -> String {
    let short = if kind == "CustomResourceDefinition" {
        name
    } else {
        name.strip_prefix(&format!("{project}-")).unwrap_or(name)
    };
    let mut file = format!("{dir}/{short}.yaml");
    if used.contains(&file) {
        file = format!("{dir}/{short}-{}.yaml", kind.to_lowercase());
    }
    used.insert(file.clone());
    file
}

/// The manager Deployment's replicas, image, args, env and resources come from values.
pub fn manager_values(
    templated: &mut Templated,
    object: &Value,
    switches: &mut Switches,
) -> Result<()> {
    let containers = object
        .pointer("/spec/template/spec/containers")
        .and_then(Value::as_array)
        .ok_or_else(|| Error::invalid("the manager Deployment of the install file has no containers; regenerate it with `make build-installer`"))?;
    let index = containers
        .iter()
        .position(|c| c["name"] == "manager")
        .unwrap_or(0);
    let container = &containers[index];
    let values = &mut switches.manager;
    values.insert(
        "replicas".into(),
        object
            .pointer("/spec/replicas")
            .cloned()
            .unwrap_or(json!(1)),
    );
    templated.scalar("/spec/replicas", "{{ .Values.manager.replicas }}");
    let image = container["image"].as_str().unwrap_or("controller:latest");
    let at = format!("/spec/template/spec/containers/{index}");
    if let Some((repository, tag)) = split_image(image) {
        values.insert(
            "image".into(),
            json!({"repository": repository, "tag": tag}),
        );
        templated.scalar(
            &format!("{at}/image"),
            "{{ .Values.manager.image.repository }}:{{ .Values.manager.image.tag }}",
        );
    } else {
        values.insert("image".into(), json!({"repository": image}));
        templated.scalar(
            &format!("{at}/image"),
            "{{ .Values.manager.image.repository }}",
        );
    }
    for field in ["args", "env", "resources"] {
        if let Some(value) = container.get(field) {
            values.insert(field.into(), value.clone());
            templated.block(&format!("{at}/{field}"), &format!("manager.{field}"));
        }
    }
    Ok(())
}

/// `registry:5000/app:v1` -> (`registry:5000/app`, `v1`); `None` for a digest or no tag.
fn split_image(image: &str) -> Option<(&str, &str)> {
    if image.contains('@') {
        return None;
    }
    let last = image.rsplit('/').next().unwrap_or(image);
    let colon = last.rfind(':')?;
    let split = image.len() - last.len() + colon;
    Some((&image[..split], &image[split + 1..]))
}

/// Add `helm.sh/resource-policy: keep` to a CRD template, under `crd.keep`: uninstalling
/// the release then leaves the CRD, and every object of its kind, in place.
pub fn keep_crd(text: &str) -> String {
    const KEEP: &str =
        "    {{- if .Values.crd.keep }}\n    helm.sh/resource-policy: keep\n    {{- end }}\n";
    if let Some(at) = text.find("\n  annotations:\n") {
        let split = at + "\n  annotations:\n".len();
        return format!("{}{KEEP}{}", &text[..split], &text[split..]);
    }
    match text.find("\nmetadata:\n") {
        Some(at) => {
            let split = at + "\nmetadata:\n".len();
            format!("{}  annotations:\n{KEEP}{}", &text[..split], &text[split..])
        }
        None => text.to_string(),
    }
}

/// A ServiceMonitor for the metrics Service, under `prometheus.enable` (off by default:
/// it needs the Prometheus operator).
pub fn service_monitor(service: &Value) -> Result<String> {
    let name = service
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("metrics");
    let namespace = service
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or("");
    let mut labels = service
        .pointer("/metadata/labels")
        .cloned()
        .unwrap_or(json!({}));
    if let Some(map) = labels.as_object_mut() {
        map.remove("app.kubernetes.io/managed-by");
    }
    let port = service
        .pointer("/spec/ports/0/name")
        .and_then(Value::as_str)
        .unwrap_or("https");
    let monitor = json!({
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {
            "labels": labels,
            "name": format!("{}-monitor", name.trim_end_matches("-service")),
            "namespace": namespace,
        },
        "spec": {
            "endpoints": [{
                "bearerTokenFile": "/var/run/secrets/kubernetes.io/serviceaccount/token",
                "path": "/metrics",
                "port": port,
                "scheme": "https",
                // The manager's own certificate is self-signed unless one is mounted.
                "tlsConfig": {"insecureSkipVerify": true},
            }],
            "selector": {"matchLabels": labels},
        },
    });
    let mut templated = Templated::new(monitor);
    templated.release_namespace(namespace);
    templated.render(Some(".Values.prometheus.enable"))
}

/// Chart.yaml and .helmignore (written once, then the user's), and values.yaml (written
/// once, then given the keys it lacks).
pub fn stage_chart_files(
    tree: &mut Tree,
    chart: &str,
    name: &str,
    switches: &Switches,
) -> Result<()> {
    let app_version = switches
        .manager
        .get("image")
        .and_then(|i| i.get("tag"))
        .and_then(Value::as_str)
        .unwrap_or("latest");
    let once = [
        (
            "Chart.yaml",
            format!(
                "apiVersion: v2\nname: {name}\ndescription: The {name} operator, with its CRDs and RBAC\ntype: application\nversion: 0.1.0\nappVersion: {app_version:?}\n"
            ),
        ),
        (
            ".helmignore",
            ".DS_Store\n.git/\n*.swp\n*.bak\n*.tmp\n*~\n".to_string(),
        ),
    ];
    for (file, text) in once {
        let path = format!("{chart}/{file}");
        if !tree.exists(&path) {
            tree.add(&path, text, Policy::User);
        }
    }
    super::values::stage(tree, &format!("{chart}/values.yaml"), name, switches)
}

/// Where kubebuilder's helm plugin puts its Test Chart workflow.
pub const TEST_CHART_WORKFLOW: &str = ".github/workflows/test-chart.yml";

/// kubebuilder's Test Chart workflow, written once and then the user's: on a Kind cluster,
/// the manager's image built and loaded, the chart linted, installed by `make helm-deploy`
/// and its release shown by `make helm-status`.
pub fn stage_test_chart_workflow(tree: &mut Tree, chart: &str, name: &str) -> Result<()> {
    if tree.exists(TEST_CHART_WORKFLOW) {
        return Ok(());
    }
    let mut context = tera::Context::new();
    context.insert("project_name", name);
    context.insert("chart", chart);
    context.insert("cert_manager_version", crate::versions::CERT_MANAGER);
    let workflow =
        crate::templates::Renderer::new().render("helm_chart/test-chart.yml.tera", &context)?;
    tree.add(TEST_CHART_WORKFLOW, workflow, Policy::User);
    Ok(())
}

/// NOTES.txt, printed after an install or upgrade.
pub fn notes(name: &str) -> String {
    format!(
        "The {name} operator runs in namespace {{{{ .Release.Namespace }}}} as release {{{{ .Release.Name }}}}.\n\
         Check it with: kubectl get deployment -n {{{{ .Release.Namespace }}}}\n"
    )
}

/// The Helm targets of the Makefile (kubebuilder's names): each added once, so that a
/// Makefile of an earlier chart gets the ones it lacks and keeps the user's.
pub fn stage_make_targets(
    tree: &mut Tree,
    chart: &str,
    release: &str,
    namespace: &str,
) -> Result<()> {
    let Some(makefile) = tree.read("Makefile")? else {
        return Ok(());
    };
    let targets = [
        (
            "helm-deploy",
            format!(
                "helm-deploy: ## Install or upgrade the operator from {chart} with Helm, with the image IMG.\n\
                 \t@img=\"$(IMG)\"; case \"$${{img##*/}}\" in *:*) repo=\"$${{img%:*}}\"; tag=\"$${{img##*:}}\";; *) repo=\"$$img\"; tag=latest;; esac; \\\n\
                 \t$(HELM) upgrade --install $(HELM_RELEASE) {chart} --namespace $(HELM_NAMESPACE) --create-namespace \\\n\
                 \t\t--set manager.image.repository=\"$$repo\" --set manager.image.tag=\"$$tag\" $(HELM_EXTRA_ARGS)\n"
            ),
        ),
        (
            "helm-uninstall",
            "helm-uninstall: ## Uninstall the operator's Helm release (its CRDs stay, see crd.keep).\n\
             \t$(HELM) uninstall $(HELM_RELEASE) --namespace $(HELM_NAMESPACE)\n"
                .to_string(),
        ),
        (
            "helm-status",
            "helm-status: ## Show the status of the operator's Helm release.\n\
             \t$(HELM) status $(HELM_RELEASE) --namespace $(HELM_NAMESPACE)\n"
                .to_string(),
        ),
        (
            "helm-history",
            "helm-history: ## Show the revisions of the operator's Helm release.\n\
             \t$(HELM) history $(HELM_RELEASE) --namespace $(HELM_NAMESPACE)\n"
                .to_string(),
        ),
        (
            "helm-rollback",
            "helm-rollback: ## Roll the operator's Helm release back to its previous revision (or REVISION).\n\
             \t$(HELM) rollback $(HELM_RELEASE) $(REVISION) --namespace $(HELM_NAMESPACE)\n"
                .to_string(),
        ),
    ];
    let mut added = String::new();
    if !makefile.contains("\nHELM ?=") {
        let _ = writeln!(
            added,
            "\n##@ Helm\n\n\
             HELM ?= helm\n\
             HELM_RELEASE ?= {release}\n\
             HELM_NAMESPACE ?= {namespace}"
        );
    }
    if !makefile.contains("\nHELM_EXTRA_ARGS ?=") {
        added.push_str("# More arguments for helm upgrade, e.g. --set networkPolicy.enable=true.\nHELM_EXTRA_ARGS ?=\n");
    }
    for (target, text) in targets {
        if !makefile.contains(&format!("\n{target}:")) {
            let _ = write!(added, "\n.PHONY: {target}\n{text}");
        }
    }
    if added.is_empty() {
        return Ok(());
    }
    tree.edit("Makefile", |text| {
        let mut text = text.to_string();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&added);
        Ok(text)
    })
}
