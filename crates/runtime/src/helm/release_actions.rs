//! Install, upgrade and the decision between them; the values they use.
use kube::ResourceExt;
use kube::api::Resource;
use kube::runtime::events::{Event, EventType, Recorder};
use serde_json::Value;

use super::annotations::{install_options, uninstall_options, upgrade_options};
use super::chart_values::{chart_defaults, merge_defaults};
use super::client::{HelmError, RollbackOptions, UpgradeOptions};
use super::reconcile::{Flow, ReconcileError, ReleaseState};
use super::release::{Release, ReleaseStatus, owner_labels};
use super::status::{HelmStatus, condition_type as kind, reason};
use super::values::{ValuesError, apply_overrides, ensure_map, spec_values};

/// `helm.sdk.operatorframework.io/rollback-force: "false"` rolls a failed upgrade back
/// without replacing objects (helm-operator-plugins rolls back with force by default).
pub const ROLLBACK_FORCE_ANNOTATION: &str = "helm.sdk.operatorframework.io/rollback-force";

impl Flow<'_> {
    /// Overrides on the spec, then the translator (default: the spec itself), coalesced
    /// with the chart's defaults: the complete values Helm renders with.
    pub(super) async fn values(&self) -> Result<Value, ValuesError> {
        let mut obj = self.cr.clone();
        apply_overrides(&mut obj, &self.ctx.settings.override_values)?;
        let values = match &self.ctx.settings.value_translator {
            None => spec_values(&obj),
            Some(translate) => translate(obj, self.ctx.client.clone())
                .await
                .map_err(ValuesError::Translator)
                .and_then(ensure_map),
        }?;
        Ok(merge_defaults(self.chart_defaults()?, &values))
    }

    fn chart_defaults(&self) -> Result<&Value, ValuesError> {
        let cache = &self.ctx.settings.chart_defaults;
        if let Some(defaults) = cache.get() {
            return Ok(defaults);
        }
        let defaults = chart_defaults(&self.ctx.settings.chart)?;
        Ok(cache.get_or_init(|| defaults))
    }

    pub(super) fn upgrade_options(&self) -> UpgradeOptions {
        let mut options = upgrade_options(
            &self.ctx.settings.upgrade_annotations,
            self.cr.annotations(),
        );
        options.max_history = Some(self.ctx.settings.max_history);
        options.reset_values = true;
        // Releases made before owner labels existed get them on their next upgrade.
        options.labels = self.owner_labels();
        options
    }

    /// Which kind of resource the release belongs to (see [`owner_labels`]).
    pub(super) fn owner_labels(&self) -> std::collections::BTreeMap<String, String> {
        owner_labels(&self.ctx.resource.group, &self.ctx.resource.kind)
    }

    /// Install when there is no release; upgrade when the dry-run manifest differs or the
    /// last release failed or was superseded; otherwise unchanged.
    pub(super) async fn release_state(
        &self,
        current: Option<Release>,
        values: &Value,
    ) -> Result<ReleaseState, HelmError> {
        let Some(current) = current else {
            return Ok(ReleaseState::NeedsInstall);
        };
        // A deployed release whose chart renders the same objects needs no helm process.
        #[cfg(feature = "chart-engine")]
        if current.status == ReleaseStatus::Deployed {
            // The cluster's Capabilities, so an API it gained since counts as a change.
            let capabilities = self.ctx.settings.helm.capabilities().await?;
            if self.ctx.settings.in_process.unchanged(
                &self.ctx.settings.chart,
                &self.target,
                &current,
                values,
                capabilities,
            ) {
                return Ok(ReleaseState::Unchanged(current));
            }
        }
        let options = UpgradeOptions {
            dry_run: Some(self.ctx.settings.dry_run),
            ..self.upgrade_options()
        };
        let planned = self
            .ctx
            .settings
            .helm
            .upgrade(&self.target, &self.ctx.settings.chart, values, &options)
            .await?;
        let needs_upgrade = planned.manifest != current.manifest
            || matches!(
                current.status,
                ReleaseStatus::Failed | ReleaseStatus::Superseded
            );
        Ok(if needs_upgrade {
            ReleaseState::NeedsUpgrade(current)
        } else {
            ReleaseState::Unchanged(current)
        })
    }

    pub(super) async fn install(
        &self,
        status: &mut HelmStatus,
        values: &Value,
    ) -> Result<Release, ReconcileError> {
        let settings = &self.ctx.settings;
        let mut options = install_options(&settings.install_annotations, self.cr.annotations());
        options.labels = self.owner_labels();
        match settings
            .helm
            .install(&self.target, &settings.chart, values, &options)
            .await
        {
            Ok(release) => {
                tracing::info!(release = %self.target, version = release.version, "release installed");
                self.report_overrides("Install").await;
                Ok(release)
            }
            Err(error) => {
                status.set_error(kind::IRRECONCILABLE, reason::RECONCILE_ERROR, &error);
                status.set_error(kind::RELEASE_FAILED, reason::INSTALL_ERROR, &error);
                // Like Helm's action client: do not leave a failed first release behind.
                let cleanup =
                    uninstall_options(&settings.uninstall_annotations, self.cr.annotations());
                if let Err(e) = settings.helm.uninstall(&self.target, &cleanup).await {
                    tracing::warn!(release = %self.target, error = %e, "cannot remove failed install");
                }
                Err(error.into())
            }
        }
    }

    pub(super) async fn upgrade(
        &self,
        status: &mut HelmStatus,
        values: &Value,
        current: &Release,
    ) -> Result<Release, ReconcileError> {
        let settings = &self.ctx.settings;
        let options = self.upgrade_options();
        match settings
            .helm
            .upgrade(&self.target, &settings.chart, values, &options)
            .await
        {
            Ok(release) => {
                tracing::info!(release = %self.target, version = release.version, "release upgraded");
                self.report_overrides("Upgrade").await;
                Ok(release)
            }
            Err(error) => {
                status.set_error(kind::IRRECONCILABLE, reason::RECONCILE_ERROR, &error);
                status.set_error(kind::RELEASE_FAILED, reason::UPGRADE_ERROR, &error);
                if settings.rollback_on_failure {
                    self.roll_back_failed_upgrade(current).await;
                }
                Err(error.into())
            }
        }
    }

    /// Roll back only when the failed upgrade recorded a revision, and to the revision that
    /// was current, never to "the previous one": an upgrade that failed before Helm wrote
    /// anything (lock held, Secret too large, API down) must leave the deployed revision
    /// alone (helm-operator-plugins pkg/client/actionclient.go rolls back only when
    /// `Upgrade` returned a release).
    async fn roll_back_failed_upgrade(&self, current: &Release) {
        let helm = &self.ctx.settings.helm;
        let latest = match helm.get(&self.target).await {
            Ok(latest) => latest,
            Err(e) => {
                tracing::warn!(release = %self.target, error = %e, "cannot read release after failed upgrade; not rolling back");
                return;
            }
        };
        match latest {
            Some(latest) if latest.version > current.version => {}
            _ => {
                tracing::debug!(release = %self.target, "failed upgrade recorded no revision; nothing to roll back");
                return;
            }
        }
        let force = self.annotation(ROLLBACK_FORCE_ANNOTATION) != Some("false");
        let options = RollbackOptions {
            force,
            max_history: Some(self.ctx.settings.max_history),
        };
        if let Err(e) = helm
            .rollback(&self.target, Some(current.version), &options)
            .await
        {
            tracing::warn!(release = %self.target, error = %e, "cannot roll back failed upgrade");
        }
    }

    /// One Warning event per overridden value, as upstream. A fresh recorder each time:
    /// kube's recorder folds events that differ only in their note into one series.
    pub(super) async fn report_overrides(&self, action: &str) {
        let reference = self.cr.object_ref(&self.ctx.resource);
        // The key only: override values are often secrets expanded from the environment,
        // and events are readable by anyone who may read the resource (upstream prints
        // the value).
        for key in self.ctx.settings.override_values.keys() {
            let event = Event {
                type_: EventType::Warning,
                reason: "ValueOverridden".into(),
                note: Some(format!(
                    "Chart value {key:?} overridden by operator (watches.yaml overrideValues)"
                )),
                action: action.into(),
                secondary: None,
            };
            let recorder = Recorder::new(self.ctx.client.clone(), self.ctx.reporter.clone());
            if let Err(e) = recorder.publish(&event, &reference).await {
                tracing::warn!(error = %e, "cannot publish ValueOverridden event");
            }
        }
    }
}
