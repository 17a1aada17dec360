//! Tells, without running `helm`, that a deployed release is unchanged: the chart is
//! rendered in process (rusty-sdk-chart) with the values Helm would get and the cluster's
//! Capabilities (when the client knows them), and its objects are compared with the stored
//! manifest's. Only "unchanged" is decided here; any difference, a
//! chart using `lookup` (needs the cluster) or a chart our engine cannot render leaves the
//! decision to Helm's dry run. So a wrong answer can only cost a dry run, never an upgrade.
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use rusty_sdk_chart::{Capabilities, Chart, RenderOptions, render, split_manifests};
use serde_json::Value;

use super::client::ReleaseTarget;
use super::manifest::parse_manifest;
use super::release::Release;

/// The chart, loaded once per controller, and whether the fallback was logged.
#[derive(Default)]
pub(crate) struct InProcess {
    chart: OnceLock<Result<Chart, String>>,
    fallback_logged: AtomicBool,
}

impl InProcess {
    /// True when the chart, rendered with `capabilities` (the cluster's; `None`: Helm's
    /// built-in set), renders exactly the objects the release holds.
    pub fn unchanged(
        &self,
        chart_path: &std::path::Path,
        target: &ReleaseTarget,
        current: &Release,
        values: &Value,
        capabilities: Option<Capabilities>,
    ) -> bool {
        match self.compare(chart_path, target, current, values, capabilities) {
            Ok(same) => {
                if !same {
                    tracing::debug!(release = %target, "in-process render differs from the release");
                }
                same
            }
            Err(why) => {
                if !self.fallback_logged.swap(true, Ordering::Relaxed) {
                    tracing::info!(release = %target, reason = %why, "deciding upgrades with helm's dry run for this chart");
                }
                false
            }
        }
    }

    fn compare(
        &self,
        chart_path: &std::path::Path,
        target: &ReleaseTarget,
        current: &Release,
        values: &Value,
        capabilities: Option<Capabilities>,
    ) -> Result<bool, String> {
        let chart = self
            .chart
            .get_or_init(|| {
                let chart =
                    Chart::load(chart_path).map_err(|e| format!("cannot load chart: {e}"))?;
                if uses_lookup(&chart) {
                    Err("the chart calls lookup, which needs the cluster".into())
                } else {
                    Ok(chart)
                }
            })
            .as_ref()
            .map_err(Clone::clone)?;
        // What `helm upgrade` renders: the next revision, an upgrade.
        let options = RenderOptions {
            release_name: target.name.clone(),
            namespace: target.namespace.clone(),
            revision: i64::from(current.version) + 1,
            is_install: false,
            is_upgrade: true,
            capabilities: capabilities.unwrap_or_default(),
            ..RenderOptions::default()
        };
        let rendered = render(chart, values, &options)
            .map_err(|e| format!("in-process render failed: {e}"))?;
        let objects = split_manifests(&rendered)
            .map_err(|e| format!("in-process render is not valid YAML: {e}"))?;
        // Helm keeps hooks out of the release manifest.
        let mut wanted: Vec<Value> = objects
            .into_iter()
            .filter(|m| m.hook.is_none())
            .map(|m| m.object)
            .collect();
        let Ok(stored) = parse_manifest(&current.manifest) else {
            return Ok(false);
        };
        if stored.len() != wanted.len() {
            return Ok(false);
        }
        // The same objects in any order (Helm sorts them by kind, the engine by file).
        for object in stored {
            match wanted.iter().position(|w| *w == object.body) {
                Some(index) => {
                    wanted.swap_remove(index);
                }
                None => return Ok(false),
            }
        }
        Ok(true)
    }
}

/// Does any template of the chart or its subcharts call `lookup`?
fn uses_lookup(chart: &Chart) -> bool {
    chart
        .templates()
        .iter()
        .any(|t| String::from_utf8_lossy(&t.data).contains("lookup"))
        || chart.dependencies().iter().any(uses_lookup)
}
