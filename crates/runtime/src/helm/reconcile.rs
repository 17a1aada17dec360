//! One reconcile of a Helm-managed custom resource (helm-operator-plugins semantics, plus
//! waiting for the release's objects on delete and recovering releases stuck pending).
use std::sync::Arc;
use std::time::Duration;

use kube::api::{Api, DynamicObject, Patch, PatchParams};
use kube::runtime::controller::Action;
use kube::{Resource, ResourceExt};

use super::annotations::{PAUSE_RECONCILE_ANNOTATION, RECONCILE_PERIOD_ANNOTATION};
use super::client::{HelmError, ReleaseTarget};
use super::drift::{DriftError, ReleaseObjects, api_message};
use super::duration::parse_go_duration;
use super::finalizer::{add_finalizer, has_finalizer, remove_finalizer};
use super::hooks::{run_post_hooks, run_pre_hooks};
use super::release::{Release, ReleaseStatus};
use super::settings::ReconcileContext;
use super::status::{HelmStatus, Status, condition_type as kind, reason};
use super::values::ValuesError;

/// How often a deleted resource checks whether its release's objects are gone.
pub(crate) const DELETION_POLL: Duration = Duration::from_secs(5);

/// Why a reconcile failed (the message also lands in the status conditions).
#[derive(Debug, thiserror::Error)]
pub enum ReconcileError {
    #[error("custom resource {0} has no namespace; Helm-managed kinds must be namespaced")]
    NoNamespace(String),
    #[error("cannot {action} custom resource {name}: {}", api_message(.source))]
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
pub(super) enum Outcome {
    Done(Next),
    RemoveFinalizer,
}

/// When the object is reconciled next, unless something changes first. kube's `Action`
/// does not tell its delay, which the workqueue metrics need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Next {
    AwaitChange,
    After(Duration),
}

impl Next {
    pub fn delay(self) -> Option<Duration> {
        match self {
            Next::AwaitChange => None,
            Next::After(delay) => Some(delay),
        }
    }

    pub fn action(self) -> Action {
        match self {
            Next::AwaitChange => Action::await_change(),
            Next::After(delay) => Action::requeue(delay),
        }
    }
}

/// What the release needs.
pub(super) enum ReleaseState {
    NeedsInstall,
    /// The release as it is now (what a failed upgrade rolls back to).
    NeedsUpgrade(Release),
    Unchanged(Release),
}

/// Reconcile one custom resource.
pub(crate) async fn reconcile(
    cr: Arc<DynamicObject>,
    ctx: Arc<ReconcileContext>,
) -> Result<Next, ReconcileError> {
    if !ctx.settings.selects(&cr) {
        tracing::debug!(name = %cr.name_any(), "labels do not match the selector; ignored");
        return Ok(Next::AwaitChange);
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
        Outcome::Done(next) => Ok(next),
        Outcome::RemoveFinalizer => {
            remove_finalizer(&api, &cr)
                .await
                .map_err(|e| kube_error("remove finalizer from", e))?;
            Ok(Next::AwaitChange)
        }
    }
}

/// The steps of one reconcile; conditions are recorded in `status` as they go.
pub(super) struct Flow<'a> {
    pub ctx: &'a ReconcileContext,
    pub cr: &'a DynamicObject,
    pub target: ReleaseTarget,
}

impl Flow<'_> {
    async fn run(&self, status: &mut HelmStatus) -> Result<Outcome, ReconcileError> {
        // A paused resource that is deleted is uninstalled all the same: pausing must not
        // leave it in Terminating for ever (upstream keeps it paused, and stuck).
        let deleting = self.cr.meta().deletion_timestamp.is_some();
        if self.annotation(PAUSE_RECONCILE_ANNOTATION) == Some("true") && !deleting {
            pause(status);
            return Ok(Outcome::Done(Next::AwaitChange));
        }
        status.observed_generation = self.cr.meta().generation;
        if status.has(kind::PAUSED) {
            status.set(kind::PAUSED, Status::False, "", "");
        }
        if let Some(why) = self.target.invalid_name() {
            return Ok(self.without_release(status, &why));
        }
        let release = self.ctx.settings.helm.get(&self.target).await;
        // A release of the same name made for a resource of another kind is not ours:
        // never upgrade or uninstall it (upstream lets both resources fight over it).
        if let Ok(Some(other)) = &release
            && let Some(owner) =
                other.foreign_owner(&self.ctx.resource.group, &self.ctx.resource.kind)
        {
            let why = format!(
                "release {} belongs to a {owner} of the same name; rename this {} (Helm names a release after its resource)",
                self.target, self.ctx.resource.kind
            );
            return Ok(self.without_release(status, &why));
        }
        if self.cr.meta().deletion_timestamp.is_some() {
            // A release that cannot be read (name over 53 characters, storage error) must
            // not block deletion: upstream ignores the error and uninstalls anyway.
            return self.delete(status, release).await;
        }
        let release = release.inspect_err(|e| {
            status.set_error(kind::IRRECONCILABLE, reason::ERROR_GETTING_RELEASE_STATE, e);
        })?;
        match &release {
            None => status.set(kind::DEPLOYED, Status::False, "", ""),
            // A failed or pending latest revision is no successful install or upgrade; the
            // condition is set again once this reconcile settles the release.
            Some(release) if release.status == ReleaseStatus::Deployed => {
                status.set_deployed(release);
            }
            Some(_) => {}
        }
        status.set(kind::INITIALIZED, Status::True, "", "");
        let release = match release {
            Some(stuck)
                if stuck.status.is_pending() || stuck.status == ReleaseStatus::Uninstalling =>
            {
                self.recover(stuck).await.inspect_err(|e| {
                    status.set_error(kind::IRRECONCILABLE, reason::RECONCILE_ERROR, e);
                })?
            }
            other => other,
        };
        self.apply(status, release).await
    }

    /// Install, upgrade or keep the release, then make its objects match it.
    async fn apply(
        &self,
        status: &mut HelmStatus,
        current: Option<Release>,
    ) -> Result<Outcome, ReconcileError> {
        let values = self.values().await.inspect_err(|e| {
            status.set_error(kind::IRRECONCILABLE, reason::ERROR_GETTING_VALUES, e);
            status.set_unknown(kind::RELEASE_FAILED);
        })?;
        let state = self
            .release_state(current, &values)
            .await
            .inspect_err(|e| {
                status.set_error(kind::IRRECONCILABLE, reason::ERROR_GETTING_RELEASE_STATE, e);
                status.set_unknown(kind::RELEASE_FAILED);
                status.set_unknown(kind::DEPLOYED);
                status.deployed_release = None;
            })?;
        status.set(kind::IRRECONCILABLE, Status::False, "", "");
        run_pre_hooks(&self.ctx.settings.pre_hooks, self.cr, &values).await;
        let (release, just_applied) = match state {
            ReleaseState::NeedsInstall => (self.install(status, &values).await?, true),
            ReleaseState::NeedsUpgrade(current) => {
                (self.upgrade(status, &values, &current).await?, true)
            }
            ReleaseState::Unchanged(release) => {
                status.set(kind::RELEASE_FAILED, Status::False, "", "");
                (release, false)
            }
        };
        // Objects the release engine applied a moment ago cannot have drifted yet: they only
        // need their owner reference.
        let objects = self.objects();
        let repaired = if just_applied {
            objects.own_all(&release.manifest).await
        } else {
            objects.repair(&release.manifest).await
        };
        let kinds = repaired.inspect_err(|e| {
            status.set_error(kind::IRRECONCILABLE, reason::RECONCILE_ERROR, e);
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

    /// A resource whose name Helm refuses for a release never has one: it says why and
    /// waits, and when deleted lets go at once (nothing to uninstall).
    fn without_release(&self, status: &mut HelmStatus, why: &str) -> Outcome {
        if self.cr.meta().deletion_timestamp.is_some() {
            if !has_finalizer(self.cr) {
                return Outcome::Done(Next::AwaitChange);
            }
            tracing::info!(release = %self.target, "no release can exist for this name; removing finalizer");
            return self.uninstalled(status);
        }
        status.set(kind::INITIALIZED, Status::True, "", "");
        status.set(kind::DEPLOYED, Status::False, "", "");
        status.set(
            kind::IRRECONCILABLE,
            Status::True,
            reason::RECONCILE_ERROR,
            why,
        );
        status.set(
            kind::RELEASE_FAILED,
            Status::True,
            reason::INSTALL_ERROR,
            why,
        );
        Outcome::Done(Next::AwaitChange)
    }

    pub(super) fn annotation(&self, name: &str) -> Option<&str> {
        self.cr.annotations().get(name).map(String::as_str)
    }

    pub(super) fn objects(&self) -> ReleaseObjects<'_> {
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

    /// The annotation's period when valid, else the watch's; zero or none: wait for changes.
    fn requeue(&self) -> Next {
        let from_annotation = self.annotation(RECONCILE_PERIOD_ANNOTATION).and_then(|text| {
            parse_go_duration(text)
                .inspect_err(|e| tracing::warn!(value = text, error = %e, "ignoring invalid reconcile-period annotation"))
                .ok()
        });
        match from_annotation.or(self.ctx.settings.reconcile_period) {
            Some(period) if !period.is_zero() => Next::After(period),
            _ => Next::AwaitChange,
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
