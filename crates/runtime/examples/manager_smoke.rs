//! A minimal operator on the runtime: one `ConfigMap` controller, the manager's flags.
//! Used by the smoke test (unreachable API server: serves /healthz, exits 0 on SIGTERM)
//! and by scripts/measure-smoke.sh for binary size and idle memory.
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::runtime::controller::Action;
use kube::runtime::watcher;
use rusty_sdk_runtime::controller::Runner;
use rusty_sdk_runtime::{ControllerContext, Manager, ManagerArgs};

#[derive(Parser, Debug)]
#[command(name = "manager-smoke")]
struct Args {
    #[command(flatten)]
    manager: ManagerArgs,
}

#[derive(Debug, thiserror::Error)]
#[error("never fails")]
struct NeverFails;

async fn reconcile(cm: Arc<ConfigMap>, _: Arc<()>) -> Result<Action, NeverFails> {
    tracing::info!(name = ?cm.metadata.name, "reconciled");
    Ok(Action::requeue(Duration::from_secs(300)))
}

async fn run_configmaps(ctx: ControllerContext) -> anyhow::Result<()> {
    let api = ctx.scope.namespaced_api::<ConfigMap>(ctx.client.clone());
    Runner::new(&ctx, "configmap", api, watcher::Config::default())
        .run(reconcile, Arc::new(()))
        .await
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    rusty_sdk_runtime::logging::init(&args.manager)?;
    let mut manager = Manager::new("manager-smoke", args.manager).await?;
    manager.add_controller("configmap", run_configmaps);
    manager.run().await
}
