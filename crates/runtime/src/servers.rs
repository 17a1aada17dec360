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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use prometheus_client::registry::Registry;
    use rustls::pki_types::ServerName;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;
    use crate::{ReconcileMetrics, metrics_server, tls};

    /// A metrics server over TLS with a certificate from a cert dir, and a rustls client
    /// that trusts exactly that certificate.
    #[tokio::test]
    async fn metrics_are_served_over_tls() {
        let dir = tempfile::tempdir().unwrap();
        let generated = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        std::fs::write(dir.path().join("tls.crt"), generated.cert.pem()).unwrap();
        std::fs::write(
            dir.path().join("tls.key"),
            generated.signing_key.serialize_pem(),
        )
        .unwrap();
        let server_tls = tls::server_config(Some(dir.path()), "tls.crt", "tls.key").unwrap();

        let mut registry = Registry::default();
        ReconcileMetrics::new(&mut registry).record("memcached", true, 0.1);
        let router = metrics_server::router(Arc::new(registry), None);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (stop_tx, stop) = Shutdown::channel();
        let server = tokio::spawn(serve(listener, router, Some(server_tls), stop.wait()));

        let mut roots = rustls::RootCertStore::empty();
        roots.add(generated.cert.der().clone()).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let client_tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        let connector = tokio_rustls::TlsConnector::from(Arc::new(client_tls));
        let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .unwrap();
        let mut stream = connector
            .connect(ServerName::try_from("localhost").unwrap(), tcp)
            .await
            .unwrap();
        stream
            .write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut response = String::new();
        // The server may close without a TLS close_notify; what was read is enough.
        let _ = stream.read_to_string(&mut response).await;
        assert!(response.starts_with("HTTP/1.1 200"), "{response}");
        assert!(
            response.contains(
                r#"controller_runtime_reconcile_total{controller="memcached",result="success"} 1"#
            ),
            "{response}"
        );

        stop_tx.send(true).unwrap();
        server.await.unwrap().unwrap();
    }
}
