//! One reconcile of a Helm-managed custom resource (helm-operator-plugins semantics, plus
//! waiting for the release's objects on delete and recovering releases stuck pending).
use std::sync::Arc;
use std::time::Duration;

use kube::api::{Api, DynamicObject, Patch, PatchParams};
use kube::runtime::controller::Action;
use kube::runtime::events::{Event, EventType, Recorder};
use kube::{Resource, ResourceExt};
use serde_json::Value;

use super::annotations::{
    PAUSE_RECONCILE_ANNOTATION, RECONCILE_PERIOD_ANNOTATION, install_options, uninstall_options,
    upgrade_options,
};
use super::client::{DryRun, HelmError, ReleaseTarget, RollbackOptions, UpgradeOptions};
use super::drift::{DriftError, ReleaseObjects};
use super::duration::parse_go_duration;
use super::finalizer::{add_finalizer, has_finalizer, remove_finalizer};
use super::hooks::{run_post_hooks, run_pre_hooks};
use super::release::{Release, ReleaseStatus};
use super::settings::ReconcileContext;
use super::status::{HelmStatus, Status, condition_type as kind, reason};
use super::values::{ValuesError, apply_overrides, ensure_map, spec_values};

/// How often a deleted resource checks whether its release's objects are gone.
pub(crate) const DELETION_POLL: Duration = Duration::from_secs(5);

/// Why a reconcile failed (the message also lands in the status conditions).
#[derive(Debug, thiserror::Error)]
pub enum ReconcileError {
    #[error("custom resource {0} has no namespace; Helm-managed kinds must be namespaced")]
    NoNamespace(String),
    #[error("cannot {action} custom resource {name}: {source}")]
    Kube {
        action: &'static str,
        name: String,
        source: kube::Error,
    },
    #[error(transparent)]
    Helm(#[from] HelmError),
    #[error(transparent)]
    Values(#[from] ValuesError),
    #[error(transparent)]
    Objects(#[from] DriftError),
}

/// What the flow asks the caller to do after the status is written.
enum Outcome {
    Done(Action),
    RemoveFinalizer,
}

/// What the release needs.
enum ReleaseState {
    NeedsInstall,
    NeedsUpgrade,
    Unchanged(Release),
}

/// Reconcile one custom resource.
pub(crate) async fn reconcile(
    cr: Arc<DynamicObject>,
    ctx: Arc<ReconcileContext>,
) -> Result<Action, ReconcileError> {
    if !ctx.settings.selects(&cr) {
        tracing::debug!(name = %cr.name_any(), "labels do not match the selector; ignored");
        return Ok(Action::await_change());
    }
    let name = cr.name_any();
    let namespace = cr
        .namespace()
        .ok_or_else(|| ReconcileError::NoNamespace(name.clone()))?;
    let api: Api<DynamicObject> =
        Api::namespaced_with(ctx.client.clone(), &namespace, &ctx.resource);
    let kube_error = |action, source| ReconcileError::Kube {
        action,
        name: format!("{namespace}/{name}"),
        source,
    };
    let mut cr = (*cr).clone();
    if cr.meta().deletion_timestamp.is_none() && !has_finalizer(&cr) {
        cr = add_finalizer(&api, &cr)
            .await
            .map_err(|e| kube_error("add finalizer to", e))?;
    }
    let original = HelmStatus::from_object(&cr);
    let mut status = original.clone();
    let flow = Flow {
        ctx: &ctx,
        cr: &cr,
        target: ReleaseTarget::new(&name, &namespace),
    };
    let outcome = flow.run(&mut status).await;
    if status != original {
        let written = api
            .patch_status(
                &name,
                &PatchParams::default(),
                &Patch::Merge(status.to_patch()),
            )
            .await;
        match (written, &outcome) {
            (Err(e), Ok(_)) => return Err(kube_error("update status of", e)),
            (Err(e), Err(_)) => tracing::warn!(%name, error = %e, "cannot update status"),
            (Ok(_), _) => {}
        }
    }
    match outcome? {
        Outcome::Done(action) => Ok(action),
        Outcome::RemoveFinalizer => {
            remove_finalizer(&api, &cr)
                .await
                .map_err(|e| kube_error("remove finalizer from", e))?;
            Ok(Action::await_change())
        }
    }
}

/// The steps of one reconcile; conditions are recorded in `status` as they go.
struct Flow<'a> {
    ctx: &'a ReconcileContext,
    cr: &'a DynamicObject,
    target: ReleaseTarget,
}

impl Flow<'_> {
    async fn run(&self, status: &mut HelmStatus) -> Result<Outcome, ReconcileError> {
        if self.annotation(PAUSE_RECONCILE_ANNOTATION) == Some("true") {
            pause(status);
            return Ok(Outcome::Done(Action::await_change()));
        }
        if status.has(kind::PAUSED) {
            status.set(kind::PAUSED, Status::False, "", "");
        }
        let helm = &self.ctx.settings.helm;
        let release = helm.get(&self.target).await.inspect_err(|e| {
            status.set(
                kind::IRRECONCILABLE,
                Status::True,
                reason::ERROR_GETTING_RELEASE_STATE,
                e.to_string(),
            );
        })?;
        match &release {
            None => status.set(kind::DEPLOYED, Status::False, "", ""),
            Some(release) => status.set_deployed(release),
        }
        status.set(kind::INITIALIZED, Status::True, "", "");
        if self.cr.meta().deletion_timestamp.is_some() {
            return self.delete(status, release).await;
        }
        let release = match release {
            Some(stuck) if stuck.status.is_pending() => {
                self.recover(stuck).await.inspect_err(|e| {
                    status.set(
                        kind::IRRECONCILABLE,
                        Status::True,
                        reason::RECONCILE_ERROR,
                        e.to_string(),
                    );
                })?
            }
            other => other,
        };
        let values = self.values().await.inspect_err(|e| {
            status.set(
                kind::IRRECONCILABLE,
                Status::True,
                reason::ERROR_GETTING_VALUES,
                e.to_string(),
            );
            status.set_unknown(kind::RELEASE_FAILED);
        })?;
        let state = self
            .release_state(release, &values)
            .await
            .inspect_err(|e| {
                status.set(
                    kind::IRRECONCILABLE,
                    Status::True,
                    reason::ERROR_GETTING_RELEASE_STATE,
                    e.to_string(),
                );
                status.set_unknown(kind::RELEASE_FAILED);
                status.set_unknown(kind::DEPLOYED);
                status.deployed_release = None;
            })?;
        status.set(kind::IRRECONCILABLE, Status::False, "", "");
        run_pre_hooks(&self.ctx.settings.pre_hooks, self.cr, &values).await;
        let release = match state {
            ReleaseState::NeedsInstall => self.install(status, &values).await?,
            ReleaseState::NeedsUpgrade => self.upgrade(status, &values).await?,
            ReleaseState::Unchanged(release) => {
                status.set(kind::RELEASE_FAILED, Status::False, "", "");
                release
            }
        };
        let kinds = self
            .objects()
            .repair(&release.manifest)
            .await
            .inspect_err(|e| {
                status.set(
                    kind::IRRECONCILABLE,
                    Status::True,
                    reason::RECONCILE_ERROR,
                    e.to_string(),
                );
            })?;
        if let Some(dependents) = &self.ctx.dependents {
            dependents.watch_kinds(&kinds);
        }
        run_post_hooks(&self.ctx.settings.post_hooks, self.cr, &release).await;
        status.set_deployed(&release);
        status.set(kind::RELEASE_FAILED, Status::False, "", "");
        status.set(kind::IRRECONCILABLE, Status::False, "", "");
        Ok(Outcome::Done(self.requeue()))
    }

    fn annotation(&self, name: &str) -> Option<&str> {
        self.cr.annotations().get(name).map(String::as_str)
    }

    fn objects(&self) -> ReleaseObjects<'_> {
        ReleaseObjects {
            client: &self.ctx.client,
            kinds: &self.ctx.kinds,
            owner: self.cr,
            owner_api_version: &self.ctx.resource.api_version,
            owner_kind: &self.ctx.resource.kind,
            release_namespace: &self.target.namespace,
            field_manager: &self.ctx.field_manager,
        }
    }

    /// Overrides on the spec, then the translator (default: the spec itself).
    async fn values(&self) -> Result<Value, ValuesError> {
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

    fn upgrade_options(&self) -> UpgradeOptions {
        let mut options = upgrade_options(
            &self.ctx.settings.upgrade_annotations,
            self.cr.annotations(),
        );
        options.max_history = Some(self.ctx.settings.max_history);
        options
    }

    /// Install when there is no release; upgrade when the dry-run manifest differs or the
    /// last release failed or was superseded; otherwise unchanged.
    async fn release_state(
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

    async fn install(
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
                status.set(
                    kind::IRRECONCILABLE,
                    Status::True,
                    reason::RECONCILE_ERROR,
                    error.to_string(),
                );
                status.set(
                    kind::RELEASE_FAILED,
                    Status::True,
                    reason::INSTALL_ERROR,
                    error.to_string(),
                );
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

    async fn upgrade(
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
                status.set(
                    kind::IRRECONCILABLE,
                    Status::True,
                    reason::RECONCILE_ERROR,
                    error.to_string(),
                );
                status.set(
                    kind::RELEASE_FAILED,
                    Status::True,
                    reason::UPGRADE_ERROR,
                    error.to_string(),
                );
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
    async fn report_overrides(&self, action: &str) {
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

    /// A release left `pending-*` by a crashed operator holds Helm's lock forever
    /// (helm-operator-plugins#462). Pending install: uninstall, then install afresh.
    /// Pending upgrade/rollback: roll back to the last good revision.
    async fn recover(&self, stuck: Release) -> Result<Option<Release>, HelmError> {
        let helm = &self.ctx.settings.helm;
        tracing::warn!(release = %self.target, status = %stuck.status, "recovering release stuck in a pending state");
        let last_good = match stuck.status {
            ReleaseStatus::PendingInstall => None,
            _ => helm
                .history(&self.target)
                .await?
                .into_iter()
                .filter(|r| r.revision < stuck.version)
                .filter(|r| {
                    matches!(
                        r.status,
                        ReleaseStatus::Deployed | ReleaseStatus::Superseded
                    )
                })
                .map(|r| r.revision)
                .max(),
        };
        let Some(revision) = last_good else {
            let options = uninstall_options(
                &self.ctx.settings.uninstall_annotations,
                self.cr.annotations(),
            );
            helm.uninstall(&self.target, &options).await?;
            return Ok(None);
        };
        let options = RollbackOptions {
            force: true,
            max_history: Some(self.ctx.settings.max_history),
        };
        helm.rollback(&self.target, Some(revision), &options)
            .await?;
        helm.get(&self.target).await
    }

    /// Uninstall, then keep the finalizer until every object of the release is gone
    /// (operator-sdk#4401: removing it at once leaves objects behind when they linger).
    async fn delete(
        &self,
        status: &mut HelmStatus,
        release: Option<Release>,
    ) -> Result<Outcome, ReconcileError> {
        if !has_finalizer(self.cr) {
            return Ok(Outcome::Done(Action::await_change()));
        }
        if release.is_some() {
            let options = uninstall_options(
                &self.ctx.settings.uninstall_annotations,
                self.cr.annotations(),
            );
            self.ctx
                .settings
                .helm
                .uninstall(&self.target, &options)
                .await
                .inspect_err(|e| {
                    status.set(
                        kind::IRRECONCILABLE,
                        Status::True,
                        reason::RECONCILE_ERROR,
                        e.to_string(),
                    );
                    status.set(
                        kind::RELEASE_FAILED,
                        Status::True,
                        reason::UNINSTALL_ERROR,
                        e.to_string(),
                    );
                })?;
            tracing::info!(release = %self.target, "release uninstalled");
        }
        let manifest = release
            .map(|r| r.manifest)
            .or_else(|| status.deployed_release.as_ref().map(|d| d.manifest.clone()))
            .unwrap_or_default();
        let remaining = self.objects().remaining(&manifest).await.inspect_err(|e| {
            status.set(
                kind::IRRECONCILABLE,
                Status::True,
                reason::RECONCILE_ERROR,
                e.to_string(),
            );
        })?;
        status.set(kind::RELEASE_FAILED, Status::False, "", "");
        if !remaining.is_empty() {
            let message = format!(
                "waiting for {} release object(s) to be deleted: {}",
                remaining.len(),
                remaining.join(", ")
            );
            status.set(
                kind::DEPLOYED,
                Status::False,
                reason::UNINSTALL_SUCCESSFUL,
                message,
            );
            return Ok(Outcome::Done(Action::requeue(DELETION_POLL)));
        }
        status.set(
            kind::DEPLOYED,
            Status::False,
            reason::UNINSTALL_SUCCESSFUL,
            "",
        );
        status.deployed_release = None;
        Ok(Outcome::RemoveFinalizer)
    }

    /// The annotation's period when valid, else the watch's; zero or none: wait for changes.
    fn requeue(&self) -> Action {
        let from_annotation = self.annotation(RECONCILE_PERIOD_ANNOTATION).and_then(|text| {
            parse_go_duration(text)
                .inspect_err(|e| tracing::warn!(value = text, error = %e, "ignoring invalid reconcile-period annotation"))
                .ok()
        });
        match from_annotation.or(self.ctx.settings.reconcile_period) {
            Some(period) if !period.is_zero() => Action::requeue(period),
            _ => Action::await_change(),
        }
    }
}

/// Paused: say so, mark everything else unknown, and do nothing else.
fn pause(status: &mut HelmStatus) {
    status.set(
        kind::PAUSED,
        Status::True,
        reason::PAUSE_RECONCILE_ANNOTATION_TRUE,
        "",
    );
    for other in [
        kind::INITIALIZED,
        kind::DEPLOYED,
        kind::RELEASE_FAILED,
        kind::IRRECONCILABLE,
    ] {
        status.set_unknown(other);
    }
    status.deployed_release = None;
}
