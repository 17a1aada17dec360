//! Install, upgrade and the decision between them; the values they use.
use kube::ResourceExt;
use kube::api::Resource;
use kube::runtime::events::{Event, EventType, Recorder};
use serde_json::Value;

use super::annotations::{install_options, uninstall_options, upgrade_options};
use super::client::{DryRun, HelmError, RollbackOptions, UpgradeOptions};
use super::reconcile::{Flow, ReconcileError, ReleaseState};
use super::release::{Release, ReleaseStatus};
use super::status::{HelmStatus, condition_type as kind, reason};
use super::values::{ValuesError, apply_overrides, ensure_map, spec_values};

impl Flow<'_> {
    /// Overrides on the spec, then the translator (default: the spec itself).
    pub(super) async fn values(&self) -> Result<Value, ValuesError> {
        let mut obj = self.cr.clone();
        apply_overrides(&mut obj, &self.ctx.settings.override_values)?;
        match &self.ctx.settings.value_translator {
            None => spec_values(&obj),
            Some(translate) => translate(obj, self.ctx.client.clone())
                .await
                .map_err(ValuesError::Translator)
                .and_then(ensure_map),
        }
    }

    pub(super) fn upgrade_options(&self) -> UpgradeOptions {
        let mut options = upgrade_options(
            &self.ctx.settings.upgrade_annotations,
            self.cr.annotations(),
        );
        options.max_history = Some(self.ctx.settings.max_history);
        options
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
        let options = UpgradeOptions {
            dry_run: Some(DryRun::Server),
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
        Ok(match needs_upgrade {
            true => ReleaseState::NeedsUpgrade,
            false => ReleaseState::Unchanged(current),
        })
    }

    pub(super) async fn install(
        &self,
        status: &mut HelmStatus,
        values: &Value,
    ) -> Result<Release, ReconcileError> {
        let settings = &self.ctx.settings;
        let options = install_options(&settings.install_annotations, self.cr.annotations());
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
                let rollback = RollbackOptions {
                    force: true,
                    max_history: Some(settings.max_history),
                };
                if let Err(e) = settings.helm.rollback(&self.target, None, &rollback).await {
                    tracing::warn!(release = %self.target, error = %e, "cannot roll back failed upgrade");
                }
                Err(error.into())
            }
        }
    }

    /// One Warning event per overridden value, as upstream. A fresh recorder each time:
    /// kube's recorder folds events that differ only in their note into one series.
    pub(super) async fn report_overrides(&self, action: &str) {
        let reference = self.cr.object_ref(&self.ctx.resource);
        for (key, value) in &self.ctx.settings.override_values {
            let event = Event {
                type_: EventType::Warning,
                reason: "ValueOverridden".into(),
                note: Some(format!(
                    "Chart value {key:?} overridden to {value:?} by operator"
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
