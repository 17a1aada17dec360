//! `rusty-sdk edit --plugins=grafana/v1-alpha`: Grafana dashboards of the metrics the
//! runtime exports, as kubebuilder's grafana plugin writes them for controller-runtime:
//!
//! - `grafana/controller-runtime-metrics.json`: reconciles (rate, errors, latency, workers),
//!   work queues, API server requests, and the Helm controllers' release operations and the
//!   webhooks when the project has them;
//! - `grafana/controller-resources-metrics.json`: the manager's CPU, memory and file
//!   descriptors;
//! - `grafana/custom-metrics/config.yaml`: the user's own metrics, from which a re-run writes
//!   `grafana/custom-metrics/custom-metrics-dashboard.json`.
//!
//! The dashboards are rusty-sdk's and rewritten on every run (so they follow the project's
//! APIs and the runtime's metrics); config.yaml is the user's, written once.
mod custom_metrics;
pub mod dashboards;

use crate::error::Result;
use crate::model::plugin;
use crate::project::Project;
use crate::scaffold::{Policy, Tree};
use crate::session::Session;
use crate::yaml;

/// The plugin keys `edit --plugins` takes for this: kubebuilder's, short and full.
pub const PLUGIN_KEYS: [&str; 2] = ["grafana/v1-alpha", "grafana.kubebuilder.io/v1-alpha"];

pub const RUNTIME_DASHBOARD: &str = "grafana/controller-runtime-metrics.json";
pub const RESOURCES_DASHBOARD: &str = "grafana/controller-resources-metrics.json";
pub const CUSTOM_DASHBOARD: &str = "grafana/custom-metrics/custom-metrics-dashboard.json";

pub fn run(session: &Session) -> Result<()> {
    let mut project = session.load_project()?;
    let mut tree = Tree::new(&session.root);
    let custom = stage(&mut tree, &project)?;
    project.plugins.insert(
        plugin::GRAFANA_DATA.into(),
        yaml::Value::Mapping(yaml::Mapping::new()),
    );
    session.apply(tree, &project)?;
    if !session.dry_run {
        let custom = if custom {
            format!(", {CUSTOM_DASHBOARD}")
        } else {
            String::new()
        };
        session.shell.note(&format!(
            "Next: import {RUNTIME_DASHBOARD}, {RESOURCES_DASHBOARD}{custom} in Grafana (Dashboards > New > Import) with the Prometheus that scrapes the manager (uncomment ../prometheus in config/default/kustomization.yaml for a ServiceMonitor).\nList your own metrics in {} and run this command again for a dashboard of them.",
            custom_metrics::CONFIG
        ));
    }
    Ok(())
}

/// Stage the dashboards for `project`, and the custom one from config.yaml when it lists
/// metrics (then true).
fn stage(tree: &mut Tree, project: &Project) -> Result<bool> {
    let helm = project.layout()?.has_helm();
    let webhooks = project.resources.iter().any(|r| r.webhooks.is_some());
    let runtime = dashboards::dashboard(
        "Controller Runtime Metrics",
        &dashboards::runtime_rows(helm, webhooks),
    );
    tree.add(RUNTIME_DASHBOARD, to_text(&runtime)?, Policy::Tool);
    let resources =
        dashboards::dashboard("Controller Resources Metrics", &dashboards::resource_rows());
    tree.add(RESOURCES_DASHBOARD, to_text(&resources)?, Policy::Tool);
    let config = if let Some(text) = tree.read(custom_metrics::CONFIG)? {
        text
    } else {
        let text = custom_metrics::template()?;
        tree.add(custom_metrics::CONFIG, text, Policy::SkipIfExists);
        text.to_string()
    };
    let panels = custom_metrics::panels(&config)?;
    if panels.is_empty() {
        return Ok(false);
    }
    let rows = [dashboards::Row {
        title: "Custom metrics",
        panels,
    }];
    let custom = dashboards::dashboard("Custom Metrics", &rows);
    tree.add(CUSTOM_DASHBOARD, to_text(&custom)?, Policy::Tool);
    Ok(true)
}

fn to_text(dashboard: &serde_json::Value) -> Result<String> {
    let text = serde_json::to_string_pretty(dashboard)
        .map_err(|e| crate::error::Error::Internal(format!("dashboard JSON: {e}")))?;
    Ok(format!("{text}\n"))
}
