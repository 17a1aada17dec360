//! The manager's HTTP servers (probes, metrics): started together, stopped together
//! after the controllers, and watched for unexpected exits.
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use rustls::ServerConfig;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::Shutdown;

/// How long in-flight requests may finish once the servers stop.
const DRAIN: Duration = Duration::from_secs(5);

pub(crate) struct Servers {
    tasks: JoinSet<(&'static str, std::io::Result<()>)>,
    stop_tx: watch::Sender<bool>,
    stop: Shutdown,
}

impl Default for Servers {
    fn default() -> Self {
        let (stop_tx, stop) = Shutdown::channel();
        Servers {
            tasks: JoinSet::new(),
            stop_tx,
            stop,
        }
    }
}

impl Servers {
    /// Serve `router` on `listener` (over TLS when `tls` is given) until [`Servers::stop`].
    pub fn spawn(
        &mut self,
        name: &'static str,
        listener: TcpListener,
        router: Router,
        tls: Option<Arc<ServerConfig>>,
    ) {
        let stop = self.stop.clone().wait();
        self.tasks
            .spawn(async move { (name, serve(listener, router, tls, stop).await) });
    }

    /// Resolves with an error if a server stops on its own; never resolves otherwise.
    pub async fn failed(&mut self) -> anyhow::Error {
        match self.tasks.join_next().await {
            Some(Ok((name, Ok(())))) => anyhow::anyhow!("the {name} server stopped unexpectedly"),
            Some(Ok((name, Err(err)))) => anyhow::anyhow!("the {name} server failed: {err}"),
            Some(Err(err)) => anyhow::anyhow!("a server task failed: {err}"),
            None => std::future::pending().await,
        }
    }

    /// Stop accepting, let in-flight requests finish, and wait for every server.
    pub async fn stop(mut self) {
        let _ = self.stop_tx.send(true);
        let all_stopped = async { while self.tasks.join_next().await.is_some() {} };
        if tokio::time::timeout(DRAIN * 2, all_stopped).await.is_err() {
            tracing::warn!("servers did not stop in time; closing them");
        }
    }
}

/// Serve `router` on `listener` until `shutdown` resolves, over TLS when `tls` is given.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    tls: Option<Arc<ServerConfig>>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let Some(tls) = tls else {
        return axum::serve(listener, router)
            .with_graceful_shutdown(shutdown)
            .await;
    };
    let handle = axum_server::Handle::new();
    let stopper = handle.clone();
    tokio::spawn(async move {
        shutdown.await;
        stopper.graceful_shutdown(Some(DRAIN));
    });
    let config = axum_server::tls_rustls::RustlsConfig::from_config(tls);
    axum_server::tls_rustls::from_tcp_rustls(listener.into_std()?, config)?
        .handle(handle)
        .serve(router.into_make_service())
        .await
}
