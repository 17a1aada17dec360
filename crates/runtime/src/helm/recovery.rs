//! Recovery of releases left `pending-*` by a crashed operator.
use kube::ResourceExt;

use super::annotations::uninstall_options;
use super::client::{HelmError, RollbackOptions};
use super::reconcile::Flow;
use super::release::{Release, ReleaseStatus};

impl Flow<'_> {
    /// A release left `pending-*` by a crashed operator holds Helm's lock forever
    /// (helm-operator-plugins#462). Pending install: uninstall, then install afresh.
    /// Pending upgrade/rollback: roll back to the last good revision.
    pub(super) async fn recover(&self, stuck: Release) -> Result<Option<Release>, HelmError> {
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
}
