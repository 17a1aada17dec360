//! Recovery of releases left `pending-*` or `uninstalling` by a crashed operator.
use std::time::{Duration, SystemTime};

use kube::ResourceExt;

use super::annotations::uninstall_options;
use super::client::{HelmError, RollbackOptions};
use super::reconcile::Flow;
use super::release::{Release, ReleaseStatus};

/// How old a pending revision must be before it is treated as abandoned: longer than any
/// operation may take (Helm's default timeout, 5 minutes), plus a margin for clock skew.
pub(crate) const PENDING_GRACE: Duration = Duration::from_secs(6 * 60);

impl Flow<'_> {
    /// A release left `pending-*` by a crashed operator holds Helm's lock forever
    /// (helm-operator-plugins#462). Pending install: uninstall, then install afresh.
    /// Pending upgrade/rollback: roll back to the last good revision.
    pub(super) async fn recover(&self, stuck: Release) -> Result<Option<Release>, HelmError> {
        let helm = &self.ctx.settings.helm;
        // Another client (a person's `helm upgrade`, another replica during a hand-over)
        // may still be at work: only a revision older than any operation may be taken over.
        let age = stuck.last_changed.map(|changed| {
            SystemTime::now()
                .duration_since(changed)
                .unwrap_or(Duration::ZERO)
        });
        if let Some(age) = age
            && age < PENDING_GRACE
        {
            return Err(HelmError::Release {
                operation: "recover",
                release: self.target.clone(),
                reason: format!(
                    "revision {} is {} since {}s ago and may still be in progress; it is taken over once it is {}s old",
                    stuck.version,
                    stuck.status,
                    age.as_secs(),
                    PENDING_GRACE.as_secs()
                ),
            });
        }
        if stuck.status == ReleaseStatus::Uninstalling {
            tracing::warn!(release = %self.target, "finishing an uninstall that was left half done");
            let options = uninstall_options(
                &self.ctx.settings.uninstall_annotations,
                self.cr.annotations(),
            );
            helm.uninstall(&self.target, &options).await?;
            return Ok(None);
        }
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
