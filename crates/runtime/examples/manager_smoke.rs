//! A minimal operator on the runtime: one ConfigMap controller, the manager's flags.
//! Used by the smoke test (unreachable API server: serves /healthz, exits 0 on SIGTERM)
//! and by scripts/measure-smoke.sh for binary size and idle memory.
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::runtime::controller::{Action, Controller};
use kube::runtime::watcher;
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

async fn reconcile(cm: Arc<ConfigMap>, ctx: Arc<ControllerContext>) -> Result<Action, NeverFails> {
    ctx.metrics
        .instrument("configmap", async {
            tracing::info!(name = ?cm.metadata.name, "reconciled");
            Ok(Action::requeue(Duration::from_secs(300)))
        })
        .await
}

fn error_policy(_: Arc<ConfigMap>, _: &NeverFails, _: Arc<ControllerContext>) -> Action {
    Action::requeue(Duration::from_secs(5))
}

async fn run_configmaps(ctx: ControllerContext) -> anyhow::Result<()> {
    let api = ctx.scope.namespaced_api::<ConfigMap>(ctx.client.clone());
    Controller::new(api, watcher::Config::default())
        .graceful_shutdown_on(ctx.shutdown.clone().wait())
        .run(reconcile, error_policy, Arc::new(ctx))
        .for_each(|_| async {})
        .await;
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    rusty_sdk_runtime::logging::init(&args.manager)?;
    let mut manager = Manager::new("manager-smoke", args.manager).await?;
    manager.add_controller("configmap", run_configmaps);
    manager.run().await
}
