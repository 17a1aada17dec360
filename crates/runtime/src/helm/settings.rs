//! What one Helm reconciler was configured with, and what each reconcile call shares.
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use kube::api::{ApiResource, DynamicObject, GroupVersionKind};
use kube::core::{Selector, SelectorExt};
use kube::runtime::events::Reporter;
use kube::{Client, ResourceExt};
use serde_json::Value;

use super::annotations::HelmAnnotation;
use super::client::HelmClient;
use super::dependents::DependentWatches;
use super::hooks::{PostHook, PreHook};
use super::kinds::KindCache;
use super::values::ValueTranslator;

/// The finished configuration of a reconciler (see `ReconcilerBuilder`).
#[derive(Clone)]
pub(crate) struct Settings {
    pub gvk: GroupVersionKind,
    pub chart: PathBuf,
    pub override_values: BTreeMap<String, String>,
    pub watch_dependent_resources: bool,
    pub max_concurrent_reconciles: usize,
    /// `max_concurrent_reconciles` permits shared by the controllers of every watched
    /// namespace, so watching ten namespaces does not mean ten times the workers.
    pub workers: Arc<tokio::sync::Semaphore>,
    pub reconcile_period: Option<Duration>,
    pub max_history: u32,
    /// How the deciding dry-run upgrade renders (watches.yaml `dryRunOption`).
    pub dry_run: super::client::DryRun,
    /// Roll a failed upgrade back (upstream's default; off: leave it failed for a human).
    pub rollback_on_failure: bool,
    /// How long a deleted resource waits for its release's objects to be gone.
    pub uninstall_wait_timeout: Duration,
    /// The chart's values.yaml, read on first use.
    pub chart_defaults: Arc<OnceLock<Value>>,
    /// Decides "unchanged" without helm (feature `chart-engine`).
    #[cfg(feature = "chart-engine")]
    pub in_process: Arc<super::in_process::InProcess>,
    pub install_annotations: Vec<HelmAnnotation>,
    pub upgrade_annotations: Vec<HelmAnnotation>,
    pub uninstall_annotations: Vec<HelmAnnotation>,
    pub value_translator: Option<ValueTranslator>,
    pub pre_hooks: Vec<PreHook>,
    pub post_hooks: Vec<PostHook>,
    pub selector: Selector,
    pub helm: Arc<dyn HelmClient>,
    pub reporter: Option<Reporter>,
}

impl Settings {
    /// `<kind-lower>-controller`, as helm-operator-plugins names it.
    pub fn controller_name(&self) -> String {
        format!("{}-controller", self.gvk.kind.to_lowercase())
    }

    /// Does the selector let this custom resource through?
    pub fn selects(&self, obj: &DynamicObject) -> bool {
        self.selector.matches(obj.labels())
    }
}

/// Shared by every reconcile of one controller.
pub(crate) struct ReconcileContext {
    pub client: Client,
    pub settings: Settings,
    /// The custom resource's kind as discovery resolved it.
    pub resource: ApiResource,
    /// Who publishes events (`<kind>-controller` unless configured).
    pub reporter: Reporter,
    /// Server-side apply field manager for drift repair (the controller name).
    pub field_manager: String,
    pub kinds: KindCache,
    /// `None` when dependent watches are skipped (or in tests).
    pub dependents: Option<DependentWatches>,
    /// Retry delays after failed reconciles, per resource.
    pub backoff: crate::controller::Backoff,
}
