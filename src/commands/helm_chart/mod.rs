//! `rusty-sdk edit --plugins=helm/v2-alpha`: a Helm chart of the operator under
//! `dist/chart/`, made from the project's kustomize output (`dist/install.yaml`, which
//! `make build-installer` writes), as kubebuilder's helm/v2-alpha plugin makes it.
//!
//! Each object becomes a template that renders, with the default values, to exactly the
//! object of install.yaml (only the namespace becomes the release's, and CRDs may carry
//! `helm.sh/resource-policy: keep`). Groups of objects can be switched off in values.yaml,
//! which mirrors what install.yaml holds: the image, replicas, args, env and resources of the
//! manager. values.yaml and Chart.yaml are the user's once written; the templates are
//! rewritten by `--force`.
mod files;
mod template;

use serde_json::Value;

use super::kustomize_output;
use crate::cli::EditArgs;
use crate::error::{Error, Result};
use crate::project::Project;
use crate::scaffold::{Policy, Tree};
use crate::session::Session;
use crate::yaml;
use template::Templated;

/// The plugin keys `edit --plugins` takes for this: kubebuilder's, and short forms.
pub const PLUGIN_KEYS: [&str; 3] = [
    "helm/v2-alpha",
    "helm.kubebuilder.io/v2-alpha",
    "helm-chart",
];
const PROJECT_PLUGIN: &str = "helm.kubebuilder.io/v2-alpha";

pub fn run(session: &Session, args: &EditArgs) -> Result<()> {
    let mut project = session.load_project()?;
    let manifests = args.manifests.as_deref().unwrap_or("dist/install.yaml");
    let output = match &args.output_dir {
        Some(dir) => crate::model::names::parse_project_dir("--output-dir", dir)?,
        None => "dist".to_string(),
    };
    let objects = kustomize_output::read_file(&session.root.join(manifests), manifests)?;
    let namespace = objects
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
        })?;
    let name = project
        .project_name
        .clone()
        .unwrap_or_else(|| "operator".into());
    let mut tree = Tree::new(&session.root);
    let chart = format!("{output}/chart");
    let mut switches = files::Switches::default();
    let mut used = std::collections::BTreeSet::new();
    for placed in &objects {
        let Some((dir, condition)) = files::place(&placed.kind, &placed.name, &mut switches) else {
            continue;
        };
        let mut templated = Templated::new(placed.object.clone());
        templated.release_namespace(&namespace);
        if placed.kind == "Deployment" {
            files::manager_values(&mut templated, &placed.object, &mut switches)?;
        }
        let mut text = templated.render(condition)?;
        if placed.kind == "CustomResourceDefinition" {
            text = files::keep_crd(&text);
        }
        let file = files::file_name(dir, &placed.name, &placed.kind, &name, &mut used);
        tree.add(&format!("{chart}/templates/{file}"), text, Policy::Tool);
    }
    let has_monitor = objects.iter().any(|o| o.kind == "ServiceMonitor");
    let monitor = objects
        .iter()
        .filter(|_| !has_monitor)
        .find(|o| files::is_metrics_service(&o.kind, &o.name))
        .map(|service| files::service_monitor(&service.object))
        .transpose()?;
    if let Some(monitor) = monitor {
        switches.prometheus = Some(false);
        tree.add(
            &format!("{chart}/templates/prometheus/monitor.yaml"),
            monitor,
            Policy::Tool,
        );
    }
    files::stage_chart_files(&mut tree, &chart, &name, &switches)?;
    files::stage_make_targets(&mut tree, &chart, &name, &namespace)?;
    record(&mut project, manifests, &output);
    session.apply(tree, &project).map(|_| ())?;
    if !session.dry_run {
        session.shell.note(&format!(
            "Next: install the operator with Helm (the chart renders dist/install.yaml's objects):\n$ make helm-deploy IMG=<registry>/<image>:<tag>\nAfter `make build-installer` picks up new APIs, run this command again with --force; {chart}/values.yaml and Chart.yaml stay as you edited them."
        ));
    }
    Ok(())
}

/// PROJECT records the plugin and its settings, as kubebuilder does.
fn record(project: &mut Project, manifests: &str, output: &str) {
    let mut settings = yaml::Mapping::new();
    settings.insert("manifests".into(), manifests.into());
    settings.insert("output".into(), output.into());
    project
        .plugins
        .insert(PROJECT_PLUGIN.into(), yaml::Value::Mapping(settings));
}
