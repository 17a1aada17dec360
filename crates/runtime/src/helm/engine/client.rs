//! The engine behind the reconciler's [`HelmClient`] trait: the Kubernetes client comes
//! with `attach_client` (once, before the controller starts), and every operation maps to
//! an action with the reconciler's options.
use std::path::Path;
use std::sync::{Arc, OnceLock};

use async_trait::async_trait;

use super::actions::{ChangeOptions, Context};
use super::cluster::Cluster;
use super::storage::{Driver, Storage};
use crate::helm::client::{
    HelmClient, HelmError, InstallOptions, ReleaseTarget, RollbackOptions, UninstallOptions,
    UpgradeOptions,
};
use crate::helm::release::{Release, ReleaseRevision};

/// Helm releases in process: no `helm` binary, Helm 4.2's semantics and storage.
#[derive(Default)]
pub struct ReleaseEngine {
    context: OnceLock<Result<Context, String>>,
}

impl ReleaseEngine {
    pub fn new() -> Self {
        ReleaseEngine::default()
    }

    /// An engine already bound to a cluster (tests and tools; the reconciler attaches).
    pub fn with_client(client: &kube::Client) -> Self {
        let engine = ReleaseEngine::new();
        engine.attach_client(client);
        engine
    }

    /// An engine bound to a cluster that keeps its records with the storage driver
    /// `helm_driver` names, as `HELM_DRIVER` does for the CLI (`secret`, `configmap`).
    ///
    /// # Errors
    ///
    /// [`HelmError::Other`] when `helm_driver` names no storage driver.
    pub fn with_driver(client: &kube::Client, helm_driver: &str) -> Result<Self, HelmError> {
        let driver = Driver::parse(helm_driver).map_err(|e| HelmError::Other(e.to_string()))?;
        let engine = ReleaseEngine::new();
        engine.context.get_or_init(|| Ok(context(client, driver)));
        Ok(engine)
    }

    fn context(
        &self,
        operation: &'static str,
        target: &ReleaseTarget,
    ) -> Result<&Context, HelmError> {
        match self.context.get() {
            Some(Ok(context)) => Ok(context),
            Some(Err(reason)) => Err(HelmError::Release {
                operation,
                release: target.clone(),
                reason: reason.clone(),
            }),
            None => Err(HelmError::Release {
                operation,
                release: target.clone(),
                reason:
                    "the release engine has no Kubernetes client (attach_client was not called)"
                        .into(),
            }),
        }
    }
}

fn context(client: &kube::Client, driver: Driver) -> Context {
    let storage = Storage::new(client.clone(), driver);
    let cluster = Arc::new(Cluster::new(client.clone()));
    Context::new(client.clone(), storage, cluster)
}

fn failed(
    operation: &'static str,
    target: &ReleaseTarget,
) -> impl Fn(super::EngineError) -> HelmError {
    let target = target.clone();
    move |error| HelmError::Release {
        operation,
        release: target.clone(),
        reason: error.to_string(),
    }
}

#[async_trait]
impl HelmClient for ReleaseEngine {
    fn attach_client(&self, client: &kube::Client) {
        self.context.get_or_init(|| {
            let driver = Driver::from_env().map_err(|e| e.to_string())?;
            Ok(context(client, driver))
        });
    }

    async fn install(
        &self,
        target: &ReleaseTarget,
        chart: &Path,
        values: &serde_json::Value,
        options: &InstallOptions,
    ) -> Result<Release, HelmError> {
        let context = self.context("install", target)?;
        let options = ChangeOptions {
            disable_hooks: options.disable_hooks,
            description: options.description.clone(),
            labels: options.labels.clone(),
            ..ChangeOptions::default()
        };
        context
            .install(&target.name, &target.namespace, chart, values, &options)
            .await
            .map(|record| record.to_release())
            .map_err(failed("install", target))
    }

    async fn upgrade(
        &self,
        target: &ReleaseTarget,
        chart: &Path,
        values: &serde_json::Value,
        options: &UpgradeOptions,
    ) -> Result<Release, HelmError> {
        let context = self.context("upgrade", target)?;
        let options = ChangeOptions {
            disable_hooks: options.disable_hooks,
            description: options.description.clone(),
            force: options.force,
            max_history: options.max_history,
            // Both dry-run modes render with the cluster's Capabilities and `lookup`.
            dry_run: options.dry_run.is_some(),
            labels: options.labels.clone(),
        };
        context
            .upgrade(&target.name, &target.namespace, chart, values, &options)
            .await
            .map(|record| record.to_release())
            .map_err(failed("upgrade", target))
    }

    async fn uninstall(
        &self,
        target: &ReleaseTarget,
        options: &UninstallOptions,
    ) -> Result<(), HelmError> {
        let context = self.context("uninstall", target)?;
        context
            .uninstall(
                &target.name,
                &target.namespace,
                options.disable_hooks,
                options.description.as_deref(),
            )
            .await
            .map(drop)
            .map_err(failed("uninstall", target))
    }

    async fn capabilities(&self) -> Result<Option<rusty_sdk_chart::Capabilities>, HelmError> {
        let target = ReleaseTarget::new("", "");
        let context = self.context("discover", &target)?;
        let capabilities = context.cluster.capabilities().await;
        capabilities
            .map(Some)
            .map_err(|e| HelmError::Other(format!("cannot discover the cluster's APIs: {e}")))
    }

    async fn get(&self, target: &ReleaseTarget) -> Result<Option<Release>, HelmError> {
        let context = self.context("get", target)?;
        context
            .storage
            .latest(&target.namespace, &target.name)
            .await
            .map(|record| record.map(|r| r.to_release()))
            .map_err(|e| failed("get", target)(e.into()))
    }

    async fn history(&self, target: &ReleaseTarget) -> Result<Vec<ReleaseRevision>, HelmError> {
        let context = self.context("history", target)?;
        let records = context
            .storage
            .history(&target.namespace, &target.name)
            .await
            .map_err(|e| failed("history", target)(e.into()))?;
        Ok(records
            .iter()
            .map(|record| {
                let release = record.to_release();
                ReleaseRevision {
                    revision: release.version,
                    status: release.status,
                    chart: release.chart,
                    app_version: release.app_version,
                    description: release.description,
                }
            })
            .collect())
    }

    async fn rollback(
        &self,
        target: &ReleaseTarget,
        revision: Option<u32>,
        options: &RollbackOptions,
    ) -> Result<(), HelmError> {
        let context = self.context("rollback", target)?;
        let options = ChangeOptions {
            force: options.force,
            max_history: options.max_history,
            ..ChangeOptions::default()
        };
        context
            .rollback(&target.name, &target.namespace, revision, &options)
            .await
            .map(drop)
            .map_err(failed("rollback", target))
    }
}
