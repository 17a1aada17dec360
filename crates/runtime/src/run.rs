//! What `Manager::run` does once its servers listen: lead, start controllers, supervise
//! them, and shut down in order (controllers, Lease, servers).
use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures::FutureExt as _;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::context::ControllerContext;
use crate::health::Readiness;
use crate::leader::{self, LeaderElectionConfig, Leadership};
use crate::manager::{PendingController, RunError};
use crate::signals::StopSignals;

pub(crate) use crate::servers::Servers;

/// How long controllers may take to stop after shutdown begins.
pub(crate) const GRACE_PERIOD: Duration = Duration::from_secs(10);

/// Each controller's name and how it ended: its own result, or a panic's message.
type Controllers = JoinSet<(String, Result<anyhow::Result<()>, String>)>;

pub(crate) struct Run {
    pub context: ControllerContext,
    pub controllers: Vec<PendingController>,
    pub stop_controllers: watch::Sender<bool>,
    pub leader_election: Option<LeaderElectionConfig>,
    pub readiness: Readiness,
    pub servers: Servers,
    pub signals: StopSignals,
}

impl Run {
    pub async fn until_stopped(mut self) -> Result<(), RunError> {
        let mut leadership = match self.leader_election.take() {
            None => None,
            Some(config) => match self.lead(&config).await {
                Ok(Some(leadership)) => Some(leadership),
                Ok(None) => {
                    self.servers.stop().await;
                    return Ok(());
                }
                Err(err) => {
                    self.servers.stop().await;
                    return Err(err);
                }
            },
        };
        let mut controllers = self.start_controllers();
        self.readiness.set(true);
        let outcome = self.supervise(&mut controllers, leadership.as_mut()).await;

        self.readiness.set(false);
        let _ = self.stop_controllers.send(true);
        if matches!(outcome, Err(RunError::LostLease)) {
            // Another replica may lead any moment now: stop writing at once, no drain.
            controllers.abort_all();
        } else {
            self.drain(controllers).await;
        }
        if let Some(leadership) = leadership {
            leadership.release().await;
        }
        self.servers.stop().await;
        if outcome.is_ok() {
            tracing::info!("manager stopped");
        }
        outcome
    }

    /// Stand by until this replica leads. Ok(None) when a stop signal came first.
    async fn lead(
        &mut self,
        config: &LeaderElectionConfig,
    ) -> Result<Option<Leadership>, RunError> {
        // A standby replica is healthy: report ready so rolling updates can proceed.
        self.readiness.set(true);
        let client = self.context.client.clone();
        tokio::select! {
            signal = self.signals.next() => {
                tracing::info!(signal, "stop signal while waiting for leadership");
                Ok(None)
            }
            err = self.servers.failed() => Err(err),
            leadership = leader::acquire(client, config) => Ok(Some(leadership)),
        }
    }

    fn start_controllers(&mut self) -> Controllers {
        let mut running = JoinSet::new();
        for PendingController { name, start } in std::mem::take(&mut self.controllers) {
            tracing::info!(controller = %name, "starting controller");
            let ctx = self.context.clone();
            let guarded = AssertUnwindSafe(async move { start(ctx).await }).catch_unwind();
            running.spawn(async move {
                let ended = guarded
                    .await
                    .map_err(|panic| panic_text(panic.as_ref()).to_string());
                (name, ended)
            });
        }
        running
    }

    /// Wait for the first reason to stop: Ok for a signal, Err for a failure or a lost Lease.
    async fn supervise(
        &mut self,
        controllers: &mut Controllers,
        mut leadership: Option<&mut Leadership>,
    ) -> Result<(), RunError> {
        loop {
            tokio::select! {
                biased;
                () = lost(leadership.as_deref_mut()) => {
                    tracing::error!("lost leadership of the Lease; stopping controllers at once");
                    return Err(RunError::LostLease);
                }
                signal = self.signals.next() => {
                    tracing::info!(signal, "stopping controllers");
                    return Ok(());
                }
                err = self.servers.failed() => return Err(err),
                Some(joined) = controllers.join_next(), if !controllers.is_empty() => match joined {
                    Ok((name, Ok(Ok(())))) => tracing::warn!(controller = %name, "controller returned before shutdown"),
                    Ok((name, Ok(Err(error)))) => return Err(RunError::Controller { name, source: error.into() }),
                    Ok((name, Err(message))) => return Err(RunError::ControllerPanicked { name, message }),
                    Err(err) => return Err(RunError::ControllerTask(err)),
                },
            }
        }
    }

    /// Let controllers finish within the grace period; a second signal cuts it short.
    async fn drain(&mut self, mut controllers: Controllers) {
        let grace = tokio::time::sleep(GRACE_PERIOD);
        tokio::pin!(grace);
        while !controllers.is_empty() {
            tokio::select! {
                Some(joined) = controllers.join_next() => match joined {
                    Ok((name, Ok(Ok(())))) => tracing::info!(controller = %name, "controller stopped"),
                    Ok((name, Ok(Err(err)))) => tracing::error!(controller = %name, error = %format!("{err:#}"), "controller failed while stopping"),
                    Ok((name, Err(message))) => tracing::error!(controller = %name, error = %format!("panicked: {message}"), "controller failed while stopping"),
                    Err(err) => tracing::error!(error = %err, "controller task failed while stopping"),
                },
                () = &mut grace => {
                    tracing::warn!(remaining = controllers.len(), grace = ?GRACE_PERIOD, "controllers did not stop in time; aborting them");
                    break;
                }
                signal = self.signals.next() => {
                    tracing::warn!(signal, remaining = controllers.len(), "second stop signal; aborting controllers");
                    break;
                }
            }
        }
        controllers.abort_all();
    }
}

async fn lost(leadership: Option<&mut Leadership>) {
    match leadership {
        Some(leadership) => leadership.lost().await,
        None => std::future::pending().await,
    }
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}
