//! Deletion: uninstall the release and hold the finalizer until its objects are gone.
use kube::ResourceExt;
use kube::runtime::controller::Action;

use super::annotations::uninstall_options;
use super::finalizer::has_finalizer;
use super::reconcile::{DELETION_POLL, Flow, Outcome, ReconcileError};
use super::release::Release;
use super::status::{HelmStatus, Status, condition_type as kind, reason};

impl Flow<'_> {
    /// Uninstall, then keep the finalizer until every object of the release is gone
    /// (operator-sdk#4401: removing it at once leaves objects behind when they linger).
    pub(super) async fn delete(
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
                    status.set_error(kind::IRRECONCILABLE, reason::RECONCILE_ERROR, &e);
                    status.set_error(kind::RELEASE_FAILED, reason::UNINSTALL_ERROR, &e);
                })?;
            tracing::info!(release = %self.target, "release uninstalled");
        }
        let manifest = release
            .map(|r| r.manifest)
            .or_else(|| status.deployed_release.as_ref().map(|d| d.manifest.clone()))
            .unwrap_or_default();
        let remaining = self.objects().remaining(&manifest).await.inspect_err(|e| {
            status.set_error(kind::IRRECONCILABLE, reason::RECONCILE_ERROR, &e);
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
}
