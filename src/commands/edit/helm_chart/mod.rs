//! `rusty-sdk edit --plugins=helm/v2-alpha`: a Helm chart of the operator under
//! `dist/chart/`, made from the project's kustomize output (`dist/install.yaml`, which
//! `make build-installer` writes), as kubebuilder's helm/v2-alpha plugin makes it.
//!
//! Each object becomes a template that renders, with the default values, to exactly the
//! object of install.yaml (only the namespace becomes the release's, and CRDs may carry
//! `helm.sh/resource-policy: keep`). Groups of objects can be switched off in values.yaml,
//! which mirrors what install.yaml holds: the image, replicas, args, env and resources of the
//! manager. Beside them: `_helpers.tpl`, network policies for the metrics and webhook
//! endpoints (off by default) and a ServiceMonitor, when install.yaml has none of its own.
//!
//! Run again (after `make build-installer` picked up new APIs, say), it keeps the user's
//! work: Chart.yaml and .helmignore are the user's once written; values.yaml gets the keys
//! it lacks and keeps everything else as written; a template is brought up to date only
//! while it is as the tool wrote it (see `owned`), `--force` rewrites changed ones too.
mod extras;
mod files;
mod owned;
mod template;
mod values;

use serde_json::Value;

use crate::cli::EditArgs;
use crate::error::{Error, Result};
use crate::kustomize_output;
use crate::model::plugin;
use crate::project::Project;
use crate::scaffold::Tree;
use crate::session::Session;
use crate::yaml;
use template::Templated;

/// The plugin keys `edit --plugins` takes for this: kubebuilder's, and short forms.
pub const PLUGIN_KEYS: [&str; 3] = [
    "helm/v2-alpha",
    "helm.kubebuilder.io/v2-alpha",
    "helm-chart",
];

pub fn run(session: &Session, args: &EditArgs) -> Result<()> {
    let mut project = session.load_project()?;
    let manifests = args.manifests.as_deref().unwrap_or("dist/install.yaml");
    let output = match &args.output_dir {
        Some(dir) => crate::model::names::parse_project_dir("--output-dir", dir)?,
        None => "dist".to_string(),
    };
    let objects = kustomize_output::read_file(&session.root.join(manifests), manifests)?;
    let namespace = install_namespace(&objects, manifests)?;
    let name = project
        .project_name
        .clone()
        .unwrap_or_else(|| "operator".into());
    let mut tree = Tree::new(&session.root);
    let chart = format!("{output}/chart");
    let mut switches = files::Switches::default();
    let templates = chart_templates(&objects, &namespace, &name, &mut switches)?;
    let mut kept = Vec::new();
    for (file, text) in &templates {
        let path = format!("{chart}/{file}");
        if owned::stage(&mut tree, &path, text, session.force)? == owned::Outcome::Kept {
            kept.push(path);
        }
    }
    files::stage_chart_files(&mut tree, &chart, &name, &switches)?;
    files::stage_make_targets(&mut tree, &chart, &name, &namespace)?;
    files::stage_test_chart_workflow(&mut tree, &chart, &name)?;
    record(&mut project, manifests, &output);
    for path in &kept {
        session.shell.warn(&format!(
            "{path} was changed by hand and is left as it is, though the chart made from {manifests} differs there; pass --force to rewrite it (see the differences with --force --dry-run --diff)"
        ));
    }
    session.apply(tree, &project).map(|_| ())?;
    if !session.dry_run {
        session.shell.note(&format!(
            "Next: install the operator with Helm (the chart renders dist/install.yaml's objects):\n$ make helm-deploy IMG=<registry>/<image>:<tag>\nAfter `make build-installer` picks up new APIs, run this command again: the templates of {chart} you changed, Chart.yaml and your values stay as you edited them (values.yaml gets the keys it lacks)."
        ));
    }
    Ok(())
}

/// The namespace install.yaml installs into: its Namespace's, else the manager Deployment's.
fn install_namespace(objects: &[kustomize_output::Object], manifests: &str) -> Result<String> {
    objects
        .iter()
        .find(|o| o.kind == "Namespace")
        .map(|o| o.name.clone())
        .or_else(|| {
            objects
                .iter()
                .find(|o| o.kind == "Deployment")
                .and_then(|o| o.object.pointer("/metadata/namespace"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .ok_or_else(|| {
            Error::invalid(format!(
                "{manifests} has no Namespace and no manager Deployment; run `make build-installer` to write it from config/default"
            ))
        })
}

/// The chart's templates, each an object of install.yaml with its values put in (the
/// manager's settings, the release namespace), and what the chart adds; `switches` learns
/// what values.yaml offers.
fn chart_templates(
    objects: &[kustomize_output::Object],
    namespace: &str,
    name: &str,
    switches: &mut files::Switches,
) -> Result<Vec<(String, String)>> {
    let mut used = std::collections::BTreeSet::new();
    let mut templates = Vec::new();
    let metrics_service = objects
        .iter()
        .find(|o| files::is_metrics_service(&o.kind, &o.name));
    // The metrics certificate is the chart's to add unless install.yaml has it already.
    switches.metrics_cert_fallback = metrics_service.is_some()
        && !objects
            .iter()
            .any(|o| o.kind == "Certificate" && o.name.contains("metrics-cert"));
    for placed in objects {
        let Some((dir, condition)) = files::place(&placed.kind, &placed.name, switches) else {
            continue;
        };
        let mut templated = Templated::new(placed.object.clone());
        templated.release_namespace(namespace);
        if placed.kind == "Deployment" {
            files::manager_values(&mut templated, &placed.object, switches)?;
        }
        let mut text = templated.render(condition)?;
        if placed.kind == "Deployment" && switches.metrics_cert_fallback {
            text = extras::mount_metrics_certificate(name, &text);
        }
        if placed.kind == "CustomResourceDefinition" {
            text = files::keep_crd(&text);
        }
        let file = files::file_name(dir, &placed.name, &placed.kind, name, &mut used);
        templates.push((format!("templates/{file}"), text));
    }
    let has_monitor = objects.iter().any(|o| o.kind == "ServiceMonitor");
    if let Some(service) = metrics_service.filter(|_| switches.metrics_cert_fallback) {
        templates.push((
            "templates/cert-manager/metrics-certs.yaml".into(),
            extras::metrics_certificate(name, &service.name),
        ));
    }
    if let Some(service) = metrics_service.filter(|_| !has_monitor) {
        switches.prometheus = Some(false);
        templates.push((
            "templates/prometheus/monitor.yaml".into(),
            files::service_monitor(&service.object)?,
        ));
    }
    templates.extend(added_templates(objects, name, switches)?);
    Ok(templates)
}

/// `_helpers.tpl` and the network policies for the manager's metrics and webhook ports
/// (when install.yaml has no NetworkPolicy), under `networkPolicy.enable`, off by default.
fn added_templates(
    objects: &[kustomize_output::Object],
    chart: &str,
    switches: &mut files::Switches,
) -> Result<Vec<(String, String)>> {
    let selector = objects
        .iter()
        .find(|o| o.kind == "Deployment")
        .and_then(|o| o.object.pointer("/spec/selector/matchLabels"))
        .cloned()
        .unwrap_or_else(|| serde_json::json!({}));
    let mut out = vec![
        (
            "templates/_helpers.tpl".to_string(),
            extras::helpers(chart, &selector)?,
        ),
        ("templates/NOTES.txt".to_string(), files::notes(chart)),
    ];
    if objects.iter().any(|o| o.kind == "NetworkPolicy") {
        return Ok(out);
    }
    let port_behind = |is: &dyn Fn(&kustomize_output::Object) -> bool| {
        objects
            .iter()
            .filter(|o| o.kind == "Service")
            .find(|o| is(o))
            .and_then(|o| extras::target_port(&o.object))
    };
    let metrics = port_behind(&|o| files::is_metrics_service(&o.kind, &o.name));
    let webhook = port_behind(&|o| o.name.contains("webhook"));
    let policies = [
        (
            metrics,
            extras::Policy {
                file: "allow-metrics-traffic",
                condition: ".Values.networkPolicy.enable",
                why: "Only pods in namespaces labelled metrics=enabled (Prometheus', say) may scrape the manager's metrics.",
                label: "metrics",
                port: 0,
            },
        ),
        (
            webhook,
            extras::Policy {
                file: "allow-webhook-traffic",
                condition: "and .Values.networkPolicy.enable .Values.webhook.enable",
                why: "Webhook calls reach the manager only from namespaces labelled webhook=enabled (where the API server's calls come from).",
                label: "webhook",
                port: 0,
            },
        ),
    ];
    for (port, policy) in policies {
        if let Some(port) = port {
            switches.network_policy_fallback = true;
            out.push((
                format!("templates/network-policy/{}.yaml", policy.file),
                extras::network_policy(chart, &extras::Policy { port, ..policy }),
            ));
        }
    }
    Ok(out)
}

/// PROJECT records the plugin and its settings, as kubebuilder does.
fn record(project: &mut Project, manifests: &str, output: &str) {
    let mut settings = yaml::Mapping::new();
    settings.insert("manifests".into(), manifests.into());
    settings.insert("output".into(), output.into());
    project.plugins.insert(
        plugin::HELM_CHART_DATA.into(),
        yaml::Value::Mapping(settings),
    );
}
