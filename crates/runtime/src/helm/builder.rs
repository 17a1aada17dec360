//! `Reconciler::builder(&watch)`: helm-operator-plugins' options, preloaded from watches.yaml.
use std::collections::BTreeMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::api::{ApiResource, DynamicObject, GroupVersionKind};
use kube::core::Selector;
use kube::runtime::events::Reporter;
use serde_json::Value;

use super::Reconciler;
use super::annotations::{HelmAnnotation, duplicate_name};
use super::client::{DryRun, HelmClient};
use super::hooks::{PostHook, PreHook, post_hook, pre_hook};
use super::release::Release;
use super::settings::Settings;
use super::values::{ValueTranslator, apply_overrides, value_translator};
use super::watches::Watch;

/// Helm keeps this many release revisions unless told otherwise (upstream default).
const DEFAULT_MAX_HISTORY: u32 = 10;
/// operator-sdk's `--reconcile-period` default: objects are checked for drift every minute.
pub const DEFAULT_RECONCILE_PERIOD: Duration = Duration::from_secs(60);
/// How long deletion waits for the release's namespaced objects before letting go.
pub const DEFAULT_UNINSTALL_WAIT_TIMEOUT: Duration = Duration::from_secs(300);

/// Reconciles run at once per kind unless configured: four per CPU. operator-sdk's default,
/// one per CPU, suits a reconciler whose Helm renders and diffs keep a core busy; the release
/// engine spends a reconcile mostly waiting on the API server (a few milliseconds of CPU
/// per install), so one per CPU would leave the machine idle while the resources wait.
pub fn default_max_concurrent_reconciles() -> usize {
    const PER_CPU: usize = 4;
    std::thread::available_parallelism().map_or(1, usize::from) * PER_CPU
}

/// A reconciler option that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("{gvk}: version and kind must not be empty")]
    InvalidGvk { gvk: String },
    #[error("{gvk}: chart path must not be empty")]
    MissingChart { gvk: String },
    #[error("{gvk}: max concurrent reconciles must be at least 1")]
    MaxConcurrentReconciles { gvk: String },
    #[error("{gvk}: annotation {name:?} already exists")]
    DuplicateAnnotation { gvk: String, name: String },
    #[error("{gvk}: invalid override values: {reason}")]
    OverrideValues { gvk: String, reason: String },
    #[error("{gvk}: invalid selector: {reason}")]
    Selector { gvk: String, reason: String },
    #[error(
        "{gvk}: Helm releases need the release engine: enable rusty-sdk-runtime's `chart-engine` feature (or give a HelmClient with with_helm_client)"
    )]
    NoReleaseEngine { gvk: String },
}

/// Releases are made in process by the release engine (feature `chart-engine`, on in
/// generated Helm and hybrid projects): there is no `helm` binary to fall back to.
#[cfg(feature = "chart-engine")]
#[expect(
    clippy::unnecessary_wraps,
    reason = "the same signature as without `chart-engine`, where it fails"
)]
fn default_helm_client(_: &str) -> Result<Arc<dyn HelmClient>, BuildError> {
    Ok(Arc::new(super::engine::ReleaseEngine::new()))
}

#[cfg(not(feature = "chart-engine"))]
fn default_helm_client(gvk: &str) -> Result<Arc<dyn HelmClient>, BuildError> {
    Err(BuildError::NoReleaseEngine {
        gvk: gvk.to_string(),
    })
}

/// Options of a Helm reconciler. Start from [`Reconciler::builder`].
#[must_use]
pub struct ReconcilerBuilder {
    gvk: GroupVersionKind,
    chart: PathBuf,
    override_values: BTreeMap<String, String>,
    watch_dependent_resources: bool,
    /// Unset: the `--max-concurrent-reconciles` flag's, else four per CPU.
    max_concurrent_reconciles: Option<usize>,
    /// Unset: the `--reconcile-period` flag's, else a minute.
    reconcile_period: Option<Duration>,
    max_history: u32,
    dry_run: DryRun,
    rollback_on_failure: bool,
    uninstall_wait_timeout: Duration,
    install_annotations: Vec<HelmAnnotation>,
    upgrade_annotations: Vec<HelmAnnotation>,
    uninstall_annotations: Vec<HelmAnnotation>,
    value_translator: Option<ValueTranslator>,
    pre_hooks: Vec<PreHook>,
    post_hooks: Vec<PostHook>,
    selector: LabelSelector,
    helm: Option<Arc<dyn HelmClient>>,
    reporter: Option<Reporter>,
}

impl ReconcilerBuilder {
    pub(crate) fn from_watch(watch: &Watch) -> Self {
        ReconcilerBuilder {
            gvk: watch.gvk(),
            chart: watch.chart.clone(),
            override_values: watch.override_values.clone(),
            watch_dependent_resources: watch.watch_dependent_resources,
            max_concurrent_reconciles: watch.max_concurrent_reconciles,
            reconcile_period: watch.reconcile_period,
            max_history: DEFAULT_MAX_HISTORY,
            dry_run: watch.dry_run_option,
            rollback_on_failure: true,
            uninstall_wait_timeout: DEFAULT_UNINSTALL_WAIT_TIMEOUT,
            install_annotations: HelmAnnotation::default_install(),
            upgrade_annotations: HelmAnnotation::default_upgrade(),
            uninstall_annotations: HelmAnnotation::default_uninstall(),
            value_translator: None,
            pre_hooks: Vec::new(),
            post_hooks: Vec::new(),
            selector: watch.selector.clone(),
            helm: None,
            reporter: None,
        }
    }

    /// Reconcile this group/version/kind instead.
    pub fn with_gvk(mut self, gvk: GroupVersionKind) -> Self {
        self.gvk = gvk;
        self
    }

    /// Use this chart (directory or `.tgz`).
    pub fn with_chart(mut self, chart: impl Into<PathBuf>) -> Self {
        self.chart = chart.into();
        self
    }

    /// Replace the override values (`a.b=value`, applied over every spec).
    pub fn with_override_values(mut self, values: BTreeMap<String, String>) -> Self {
        self.override_values = values;
        self
    }

    /// Do not watch the objects of the releases (no reconcile when they change).
    pub fn skip_dependent_watches(mut self, skip: bool) -> Self {
        self.watch_dependent_resources = !skip;
        self
    }

    pub fn with_max_concurrent_reconciles(mut self, n: usize) -> Self {
        self.max_concurrent_reconciles = Some(n);
        self
    }

    /// Requeue after a successful reconcile (`Duration::ZERO`: never).
    pub fn with_reconcile_period(mut self, period: Duration) -> Self {
        self.reconcile_period = Some(period);
        self
    }

    /// The operator's `--reconcile-period` and `--max-concurrent-reconciles`, for what the
    /// watches.yaml entry (or an earlier `with_*` call) left unset: as in the Go
    /// helm-operator, an entry's own value wins over the flag, and the flag over the default.
    pub fn with_flag_defaults(mut self, flags: &crate::HelmArgs) -> Self {
        self.reconcile_period = self.reconcile_period.or(flags.reconcile_period);
        self.max_concurrent_reconciles = self
            .max_concurrent_reconciles
            .or(flags.max_concurrent_reconciles);
        self
    }

    /// How the dry-run upgrade that decides whether to upgrade renders.
    pub fn with_dry_run(mut self, dry_run: DryRun) -> Self {
        self.dry_run = dry_run;
        self
    }

    /// Roll a failed upgrade back to the deployed revision (default) or leave it failed.
    pub fn with_failure_rollback(mut self, enabled: bool) -> Self {
        self.rollback_on_failure = enabled;
        self
    }

    /// How long deletion waits for the release's namespaced objects to be gone before it
    /// removes the finalizer anyway (default 5 minutes, counted from the deletion).
    pub fn with_uninstall_wait_timeout(mut self, timeout: Duration) -> Self {
        self.uninstall_wait_timeout = timeout;
        self
    }

    /// Keep at most `n` release revisions (`0`: unlimited). Default 10.
    pub fn with_max_release_history(mut self, n: u32) -> Self {
        self.max_history = n;
        self
    }

    /// Add install annotations to the defaults.
    pub fn with_install_annotations(
        mut self,
        annotations: impl IntoIterator<Item = HelmAnnotation>,
    ) -> Self {
        self.install_annotations.extend(annotations);
        self
    }

    /// Add upgrade annotations to the defaults.
    pub fn with_upgrade_annotations(
        mut self,
        annotations: impl IntoIterator<Item = HelmAnnotation>,
    ) -> Self {
        self.upgrade_annotations.extend(annotations);
        self
    }

    /// Add uninstall annotations to the defaults.
    pub fn with_uninstall_annotations(
        mut self,
        annotations: impl IntoIterator<Item = HelmAnnotation>,
    ) -> Self {
        self.uninstall_annotations.extend(annotations);
        self
    }

    /// Compute the chart values from the custom resource (its spec already has the
    /// override values applied); the client lets it read the cluster.
    pub fn with_value_translator<F, Fut>(mut self, translate: F) -> Self
    where
        F: Fn(DynamicObject, kube::Client) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = anyhow::Result<Value>> + Send + 'static,
    {
        self.value_translator = Some(value_translator(translate));
        self
    }

    /// Run before each install/upgrade/reconcile with the values; errors are logged.
    pub fn with_pre_hook<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(DynamicObject, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = anyhow::Result<()>> + Send + 'static,
    {
        self.pre_hooks.push(pre_hook(hook));
        self
    }

    /// Run after each successful install/upgrade/reconcile with the release; errors are logged.
    pub fn with_post_hook<F, Fut>(mut self, hook: F) -> Self
    where
        F: Fn(DynamicObject, Release) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = anyhow::Result<()>> + Send + 'static,
    {
        self.post_hooks.push(post_hook(hook));
        self
    }

    /// Only reconcile custom resources whose labels match.
    pub fn with_selector(mut self, selector: LabelSelector) -> Self {
        self.selector = selector;
        self
    }

    /// Run Helm through this client instead of the `helm` binary.
    pub fn with_helm_client(mut self, client: Arc<dyn HelmClient>) -> Self {
        self.helm = Some(client);
        self
    }

    /// Publish events as this reporter (default: `<kind>-controller` with the manager's instance).
    pub fn with_event_reporter(mut self, reporter: Reporter) -> Self {
        self.reporter = Some(reporter);
        self
    }

    /// Check the options and build the reconciler.
    ///
    /// # Errors
    ///
    /// The [`BuildError`] of the first option that is not valid, naming the watched kind.
    pub fn build(self) -> Result<Reconciler, BuildError> {
        let gvk = format!(
            "{}/{}, Kind={}",
            self.gvk.group, self.gvk.version, self.gvk.kind
        );
        if self.gvk.version.is_empty() || self.gvk.kind.is_empty() {
            return Err(BuildError::InvalidGvk { gvk });
        }
        if self.chart.as_os_str().is_empty() {
            return Err(BuildError::MissingChart { gvk });
        }
        let max_concurrent_reconciles = self
            .max_concurrent_reconciles
            .unwrap_or_else(default_max_concurrent_reconciles);
        if max_concurrent_reconciles == 0 {
            return Err(BuildError::MaxConcurrentReconciles { gvk });
        }
        for set in [
            &self.install_annotations,
            &self.upgrade_annotations,
            &self.uninstall_annotations,
        ] {
            if let Some(name) = duplicate_name(set) {
                return Err(BuildError::DuplicateAnnotation {
                    gvk,
                    name: name.to_string(),
                });
            }
        }
        // Validated once here, like upstream, by applying them to an empty spec.
        let mut probe = DynamicObject::new("probe", &ApiResource::from_gvk(&self.gvk));
        apply_overrides(&mut probe, &self.override_values).map_err(|e| {
            BuildError::OverrideValues {
                gvk: gvk.clone(),
                reason: e.to_string(),
            }
        })?;
        let selector = Selector::try_from(self.selector).map_err(|e| BuildError::Selector {
            gvk: gvk.clone(),
            reason: e.to_string(),
        })?;
        let helm = match self.helm {
            Some(helm) => helm,
            None => default_helm_client(&gvk)?,
        };
        Ok(Reconciler::new(Settings {
            gvk: self.gvk,
            chart: self.chart,
            override_values: self.override_values,
            watch_dependent_resources: self.watch_dependent_resources,
            max_concurrent_reconciles,
            workers: Arc::new(tokio::sync::Semaphore::new(max_concurrent_reconciles)),
            reconcile_period: Some(self.reconcile_period.unwrap_or(DEFAULT_RECONCILE_PERIOD)),
            max_history: self.max_history,
            dry_run: self.dry_run,
            rollback_on_failure: self.rollback_on_failure,
            uninstall_wait_timeout: self.uninstall_wait_timeout,
            chart_defaults: Arc::default(),
            #[cfg(feature = "chart-engine")]
            in_process: Arc::default(),
            install_annotations: self.install_annotations,
            upgrade_annotations: self.upgrade_annotations,
            uninstall_annotations: self.uninstall_annotations,
            value_translator: self.value_translator,
            pre_hooks: self.pre_hooks,
            post_hooks: self.post_hooks,
            selector,
            helm,
            reporter: self.reporter,
        }))
    }
}
