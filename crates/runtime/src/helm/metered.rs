//! Counts the release operations of one Helm controller (`helm_release_operations_total`),
//! by wrapping its [`HelmClient`]: every install, upgrade, rollback and uninstall the
//! reconciler asks for goes through here, wherever in the flow it is decided (a first
//! install, a failed one cleaned up, a stuck release recovered), so no call site can be
//! missed. Reads and the dry-run upgrades that plan a reconcile are not counted.
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;

use super::client::{
    HelmClient, HelmError, InstallOptions, ReleaseTarget, RollbackOptions, UninstallOptions,
    UpgradeOptions,
};
use super::release::{Release, ReleaseRevision};
use crate::metrics::ReleaseOperations;

pub(super) struct MeteredHelm {
    inner: Arc<dyn HelmClient>,
    operations: ReleaseOperations,
}

impl MeteredHelm {
    pub(super) fn new(inner: Arc<dyn HelmClient>, operations: ReleaseOperations) -> Self {
        MeteredHelm { inner, operations }
    }

    fn count<T>(&self, operation: &str, outcome: &Result<T, HelmError>) {
        self.operations.record(operation, outcome.is_ok());
    }
}

#[async_trait]
impl HelmClient for MeteredHelm {
    async fn install(
        &self,
        target: &ReleaseTarget,
        chart: &Path,
        values: &serde_json::Value,
        options: &InstallOptions,
    ) -> Result<Release, HelmError> {
        let outcome = self.inner.install(target, chart, values, options).await;
        self.count("install", &outcome);
        outcome
    }

    async fn upgrade(
        &self,
        target: &ReleaseTarget,
        chart: &Path,
        values: &serde_json::Value,
        options: &UpgradeOptions,
    ) -> Result<Release, HelmError> {
        let outcome = self.inner.upgrade(target, chart, values, options).await;
        if options.dry_run.is_none() {
            self.count("upgrade", &outcome);
        }
        outcome
    }

    async fn uninstall(
        &self,
        target: &ReleaseTarget,
        options: &UninstallOptions,
    ) -> Result<(), HelmError> {
        let outcome = self.inner.uninstall(target, options).await;
        self.count("uninstall", &outcome);
        outcome
    }

    async fn get(&self, target: &ReleaseTarget) -> Result<Option<Release>, HelmError> {
        self.inner.get(target).await
    }

    async fn history(&self, target: &ReleaseTarget) -> Result<Vec<ReleaseRevision>, HelmError> {
        self.inner.history(target).await
    }

    fn attach_client(&self, client: &kube::Client) {
        self.inner.attach_client(client);
    }

    #[cfg(feature = "chart-engine")]
    async fn capabilities(&self) -> Result<Option<rusty_sdk_chart::Capabilities>, HelmError> {
        self.inner.capabilities().await
    }

    async fn rollback(
        &self,
        target: &ReleaseTarget,
        revision: Option<u32>,
        options: &RollbackOptions,
    ) -> Result<(), HelmError> {
        let outcome = self.inner.rollback(target, revision, options).await;
        self.count("rollback", &outcome);
        outcome
    }
}
