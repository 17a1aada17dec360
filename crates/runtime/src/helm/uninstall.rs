//! Deletion: uninstall the release, then hold the finalizer (for a bounded time) until its
//! namespaced objects are gone.
use std::time::Duration;

use kube::{Resource, ResourceExt};

use super::annotations::uninstall_options;
use super::client::HelmError;
use super::finalizer::has_finalizer;
use super::reconcile::{DELETION_POLL, Flow, Next, Outcome, ReconcileError};
use super::release::Release;
use super::status::{HelmStatus, Status, condition_type as kind, reason};

/// operator-sdk's annotation; `"false"` removes the finalizer right after the uninstall
/// instead of waiting for the release's objects to be gone.
pub const UNINSTALL_WAIT_ANNOTATION: &str = "helm.sdk.operatorframework.io/uninstall-wait";
/// `"true"`: a failing `helm uninstall` is logged and the finalizer removed anyway (the
/// way out of a release Helm cannot uninstall; its objects may stay behind).
pub const UNINSTALL_IGNORE_FAILURE_ANNOTATION: &str =
    "helm.sdk.operatorframework.io/uninstall-ignore-failure";

impl Flow<'_> {
    /// Uninstall, then keep the finalizer until every namespaced object of the release is
    /// gone (operator-sdk#4401), at most the uninstall wait timeout after the deletion.
    /// A release Helm no longer has (its Secrets went with the namespace) lets go at once,
    /// as helm-operator-plugins pkg/reconciler/reconciler.go does on `ErrReleaseNotFound`.
    pub(super) async fn delete(
        &self,
        status: &mut HelmStatus,
        release: Result<Option<Release>, HelmError>,
    ) -> Result<Outcome, ReconcileError> {
        if !has_finalizer(self.cr) {
            return Ok(Outcome::Done(Next::AwaitChange));
        }
        let manifest = match release {
            Ok(None) => {
                tracing::info!(release = %self.target, "release not found; removing finalizer");
                return Ok(self.uninstalled(status));
            }
            Ok(Some(release)) => Some(release.manifest),
            Err(e) => {
                tracing::warn!(release = %self.target, error = %e, "cannot read release; uninstalling anyway");
                None
            }
        };
        let options = uninstall_options(
            &self.ctx.settings.uninstall_annotations,
            self.cr.annotations(),
        );
        match self
            .ctx
            .settings
            .helm
            .uninstall(&self.target, &options)
            .await
        {
            Ok(()) => tracing::info!(release = %self.target, "release uninstalled"),
            Err(e) if self.annotation(UNINSTALL_IGNORE_FAILURE_ANNOTATION) == Some("true") => {
                tracing::warn!(release = %self.target, error = %e, "uninstall failed; ignored as annotated");
                return Ok(self.uninstalled(status));
            }
            Err(e) => {
                status.set_error(kind::IRRECONCILABLE, reason::RECONCILE_ERROR, &e);
                status.set_error(kind::RELEASE_FAILED, reason::UNINSTALL_ERROR, &e);
                return Err(e.into());
            }
        }
        if self.annotation(UNINSTALL_WAIT_ANNOTATION) == Some("false") {
            return Ok(self.uninstalled(status));
        }
        let manifest = manifest
            .or_else(|| status.deployed_release.as_ref().map(|d| d.manifest.clone()))
            .unwrap_or_default();
        let remaining = self.objects().remaining(&manifest).await.inspect_err(|e| {
            status.set_error(kind::IRRECONCILABLE, reason::RECONCILE_ERROR, &e);
        })?;
        if remaining.is_empty() {
            return Ok(self.uninstalled(status));
        }
        let waited = self.since_deletion();
        if waited >= self.ctx.settings.uninstall_wait_timeout {
            tracing::warn!(release = %self.target, remaining = %remaining.join(", "),
                waited_seconds = waited.as_secs(), "release objects still present; removing finalizer anyway");
            return Ok(self.uninstalled(status));
        }
        status.set(kind::RELEASE_FAILED, Status::False, "", "");
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
        Ok(Outcome::Done(Next::After(DELETION_POLL)))
    }

    /// Time since the deletion timestamp (zero when unknown or in the future).
    fn since_deletion(&self) -> Duration {
        let Some(deleted) = &self.cr.meta().deletion_timestamp else {
            return Duration::ZERO;
        };
        let now = k8s_openapi::jiff::Timestamp::now();
        let elapsed = now.duration_since(deleted.0);
        Duration::try_from(elapsed).unwrap_or(Duration::ZERO)
    }

    #[expect(
        clippy::unused_self,
        reason = "one of the reconcile's outcomes, called as the others are"
    )]
    pub(super) fn uninstalled(&self, status: &mut HelmStatus) -> Outcome {
        status.set(kind::RELEASE_FAILED, Status::False, "", "");
        status.set(
            kind::DEPLOYED,
            Status::False,
            reason::UNINSTALL_SUCCESSFUL,
            "",
        );
        status.deployed_release = None;
        Outcome::RemoveFinalizer
    }
}
