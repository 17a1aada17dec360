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
use crate::manager::RunError;

/// How long in-flight requests may finish once the servers stop.
const DRAIN: Duration = Duration::from_secs(5);
/// How long [`Servers::stop`] may take.
pub(crate) const STOP_TIMEOUT: Duration = Duration::from_secs(2 * DRAIN.as_secs());

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
    pub async fn failed(&mut self) -> RunError {
        match self.tasks.join_next().await {
            Some(Ok((server, Ok(())))) => RunError::ServerStopped { server },
            Some(Ok((server, Err(source)))) => RunError::Server { server, source },
            Some(Err(error)) => RunError::ServerTask(error),
            None => std::future::pending().await,
        }
    }

    /// Stop accepting, let in-flight requests finish, and wait for every server.
    pub async fn stop(mut self) {
        let _ = self.stop_tx.send(true);
        let all_stopped = async { while self.tasks.join_next().await.is_some() {} };
        if tokio::time::timeout(STOP_TIMEOUT, all_stopped)
            .await
            .is_err()
        {
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
    // HTTP/2 only where ALPN offers it (`--enable-http2`): otherwise a client sending
    // HTTP/2's preface without ALPN would still get it from hyper's auto-detection.
    let http2 = tls.alpn_protocols.iter().any(|protocol| protocol == b"h2");
    let config = axum_server::tls_rustls::RustlsConfig::from_config(tls);
    let server = axum_server::tls_rustls::from_tcp_rustls(listener.into_std()?, config)?;
    let server = if http2 { server } else { server.http1_only() };
    server
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

    /// A metrics server over TLS (HTTP/2 allowed or not) with a certificate from a cert
    /// dir; returns its port, the certificate and the stop switch.
    async fn tls_metrics_server(
        http2: bool,
    ) -> (
        u16,
        rcgen::CertifiedKey<rcgen::KeyPair>,
        tokio::sync::watch::Sender<bool>,
        tokio::task::JoinHandle<std::io::Result<()>>,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let generated = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        std::fs::write(dir.path().join("tls.crt"), generated.cert.pem()).unwrap();
        std::fs::write(
            dir.path().join("tls.key"),
            generated.signing_key.serialize_pem(),
        )
        .unwrap();
        let server_tls = tls::server_config(Some(dir.path()), "tls.crt", "tls.key", http2).unwrap();
        let mut registry = Registry::default();
        ReconcileMetrics::new(&mut registry).record("memcached", true, 0.1);
        let router = metrics_server::router(Arc::new(registry), None);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (stop_tx, stop) = Shutdown::channel();
        let server = tokio::spawn(serve(listener, router, Some(server_tls), stop.wait()));
        (port, generated, stop_tx, server)
    }

    /// A TLS connection that trusts exactly `cert`, offering `alpn`.
    async fn connect(
        port: u16,
        cert: &rcgen::CertifiedKey<rcgen::KeyPair>,
        alpn: &[&[u8]],
    ) -> tokio_rustls::client::TlsStream<tokio::net::TcpStream> {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(cert.cert.der().clone()).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut client_tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth();
        client_tls.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        let connector = tokio_rustls::TlsConnector::from(Arc::new(client_tls));
        let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .unwrap();
        connector
            .connect(ServerName::try_from("localhost").unwrap(), tcp)
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn metrics_are_served_over_tls() {
        let (port, cert, stop_tx, server) = tls_metrics_server(false).await;
        let mut stream = connect(port, &cert, &[]).await;
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

    /// HTTP/2's connection preface; an HTTP/2 server answers it with a SETTINGS frame.
    const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\x04\0\0\0\0\0";

    /// What the server sends back within a second of HTTP/2's preface (nothing if silent).
    async fn answer_to_preface(
        stream: &mut tokio_rustls::client::TlsStream<tokio::net::TcpStream>,
    ) -> Vec<u8> {
        stream.write_all(H2_PREFACE).await.unwrap();
        let mut buffer = vec![0; 64];
        let read =
            tokio::time::timeout(std::time::Duration::from_secs(1), stream.read(&mut buffer));
        let n = match read.await {
            Ok(Ok(n)) => n,
            Ok(Err(_)) | Err(_) => 0,
        };
        buffer.truncate(n);
        buffer
    }

    /// Without `--enable-http2` (kubebuilder's default) neither ALPN nor a client that
    /// speaks HTTP/2 without asking gets HTTP/2; with it, ALPN chooses h2.
    #[tokio::test]
    async fn http2_only_with_enable_http2() {
        let (port, cert, stop_tx, server) = tls_metrics_server(false).await;
        let mut stream = connect(port, &cert, &[b"h2", b"http/1.1"]).await;
        assert_eq!(stream.get_ref().1.alpn_protocol(), Some(&b"http/1.1"[..]));
        let answer = answer_to_preface(&mut stream).await;
        // No SETTINGS frame: an HTTP/1.1 refusal or silence.
        assert!(
            answer.is_empty() || answer.starts_with(b"HTTP/1.1 "),
            "{answer:?}"
        );
        drop(stream);
        stop_tx.send(true).unwrap();
        server.await.unwrap().unwrap();

        let (port, cert, stop_tx, server) = tls_metrics_server(true).await;
        let mut stream = connect(port, &cert, &[b"h2", b"http/1.1"]).await;
        assert_eq!(stream.get_ref().1.alpn_protocol(), Some(&b"h2"[..]));
        let answer = answer_to_preface(&mut stream).await;
        // A frame header: 3 bytes of length, then type 4 (SETTINGS).
        assert_eq!(
            answer.get(3),
            Some(&4),
            "an HTTP/2 SETTINGS frame: {answer:?}"
        );
        drop(stream);
        stop_tx.send(true).unwrap();
        server.await.unwrap().unwrap();
    }
}
