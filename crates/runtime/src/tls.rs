//! The metrics server's TLS configuration: a certificate from `--metrics-cert-path`, or a
//! self-signed one generated at start (as kubebuilder does when no certificate is given).
use std::path::Path;
use std::sync::Arc;

use anyhow::Context as _;
use rustls::ServerConfig;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// TLS for the metrics server: `cert_name` and `key_name` in `cert_dir`, or a self-signed
/// certificate for `localhost` and this host without a directory. ALPN offers HTTP/2 only
/// when `http2` is set (`--enable-http2`); the server follows what ALPN offers.
///
/// # Errors
///
/// When the certificate or key cannot be read or parsed, or no self-signed pair can be
/// made; the error names the files.
pub fn server_config(
    cert_dir: Option<&Path>,
    cert_name: &str,
    key_name: &str,
    http2: bool,
) -> anyhow::Result<Arc<ServerConfig>> {
    let (certs, key) = match cert_dir {
        Some(dir) => load_pem_pair(&dir.join(cert_name), &dir.join(key_name))?,
        None => self_signed()?,
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("TLS: the ring provider supports no default protocol version")?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .context("TLS: the metrics certificate and key do not form a usable pair")?;
    config.alpn_protocols = alpn_protocols(http2);
    Ok(Arc::new(config))
}

/// TLS for the metrics server as the manager serves it: the pair in `cert_dir` followed for
/// renewals (cert-manager rewrites the mounted Secret; the returned reloader, watched until
/// shutdown, serves the new pair without a restart), or [`server_config`]'s self-signed one.
///
/// # Errors
///
/// As [`server_config`].
pub(crate) fn metrics_server_config(
    cert_dir: Option<&Path>,
    cert_name: &str,
    key_name: &str,
    http2: bool,
) -> anyhow::Result<(Arc<ServerConfig>, Option<Arc<crate::webhook::CertReloader>>)> {
    let Some(dir) = cert_dir else {
        return Ok((server_config(None, cert_name, key_name, http2)?, None));
    };
    let certs = Arc::new(crate::webhook::CertReloader::load_for(
        "metrics", dir, cert_name, key_name,
    )?);
    let config = crate::webhook::server_config(certs.clone(), http2)?;
    Ok((config, Some(certs)))
}

/// What a server offers in ALPN: HTTP/2 only when `http2` is set (`--enable-http2`).
pub(crate) fn alpn_protocols(http2: bool) -> Vec<Vec<u8>> {
    if http2 {
        vec![b"h2".to_vec(), b"http/1.1".to_vec()]
    } else {
        vec![b"http/1.1".to_vec()]
    }
}

type CertAndKey = (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>);

fn load_pem_pair(cert_path: &Path, key_path: &Path) -> anyhow::Result<CertAndKey> {
    let certs = CertificateDer::pem_file_iter(cert_path)
        .and_then(std::iter::Iterator::collect::<Result<Vec<_>, _>>)
        .with_context(|| {
            format!(
                "--metrics-cert-path: cannot read PEM certificates from {} (mount the certificate there, name it with --metrics-cert-name, or drop the flag to use a self-signed certificate)",
                cert_path.display()
            )
        })?;
    if certs.is_empty() {
        anyhow::bail!(
            "--metrics-cert-path: {} holds no PEM certificate",
            cert_path.display()
        );
    }
    let key = PrivateKeyDer::from_pem_file(key_path).with_context(|| {
        format!(
            "--metrics-cert-path: cannot read a PEM private key from {} (mount the key there or name it with --metrics-cert-key)",
            key_path.display()
        )
    })?;
    Ok((certs, key))
}

fn self_signed() -> anyhow::Result<CertAndKey> {
    let mut names = vec!["localhost".to_string()];
    if let Some(host) = hostname::get().ok().and_then(|h| h.into_string().ok())
        && !host.is_empty()
        && host != "localhost"
    {
        names.push(host);
    }
    let generated = rcgen::generate_simple_self_signed(names)
        .context("TLS: could not generate a self-signed metrics certificate")?;
    let key = PrivateKeyDer::try_from(generated.signing_key.serialize_der())
        .map_err(|err| anyhow::anyhow!("TLS: generated key is unusable: {err}"))?;
    Ok((vec![generated.cert.der().clone()], key))
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
    use rustls::crypto::CryptoProvider;
    use rustls::pki_types::{ServerName, UnixTime};
    use rustls::{ClientConfig, Connection, DigitallySignedStruct, RootCertStore, SignatureScheme};

    use super::*;

    /// Accepts any certificate and keeps the chain the server sent.
    #[derive(Debug)]
    struct Capture(Mutex<Vec<CertificateDer<'static>>>, Arc<CryptoProvider>);

    impl ServerCertVerifier for Capture {
        fn verify_server_cert(
            &self,
            end_entity: &CertificateDer<'_>,
            intermediates: &[CertificateDer<'_>],
            _: &ServerName<'_>,
            _: &[u8],
            _: UnixTime,
        ) -> Result<ServerCertVerified, rustls::Error> {
            let chain = std::iter::once(end_entity).chain(intermediates);
            *self.0.lock().unwrap() = chain.map(|c| c.clone().into_owned()).collect();
            Ok(ServerCertVerified::assertion())
        }
        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            let algorithms = &self.1.signature_verification_algorithms;
            rustls::crypto::verify_tls12_signature(message, cert, dss, algorithms)
        }
        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            let algorithms = &self.1.signature_verification_algorithms;
            rustls::crypto::verify_tls13_signature(message, cert, dss, algorithms)
        }
        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.1.signature_verification_algorithms.supported_schemes()
        }
    }

    fn provider() -> Arc<CryptoProvider> {
        Arc::new(rustls::crypto::ring::default_provider())
    }

    fn client(roots: RootCertStore) -> ClientConfig {
        ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth()
    }

    /// A TLS handshake in memory between `server` and `client` asking for `name`.
    fn handshake(
        server: &Arc<ServerConfig>,
        client: ClientConfig,
        name: &str,
    ) -> Result<(), rustls::Error> {
        let name = ServerName::try_from(name.to_string()).unwrap();
        let mut client = Connection::from(rustls::ClientConnection::new(Arc::new(client), name)?);
        let mut server = Connection::from(rustls::ServerConnection::new(server.clone())?);
        for _ in 0..10 {
            if !client.is_handshaking() && !server.is_handshaking() {
                return Ok(());
            }
            pump(&mut client, &mut server)?;
            pump(&mut server, &mut client)?;
        }
        panic!("the handshake did not finish");
    }

    /// Every TLS record `from` has to send, read and processed by `to`.
    fn pump(from: &mut Connection, to: &mut Connection) -> Result<(), rustls::Error> {
        let mut bytes = Vec::new();
        while from.wants_write() {
            from.write_tls(&mut bytes).unwrap();
        }
        let mut rest = &bytes[..];
        while !rest.is_empty() {
            to.read_tls(&mut rest).unwrap();
            to.process_new_packets()?;
        }
        Ok(())
    }

    /// The chain `server` sends, accepted without checks.
    fn served_chain(server: &Arc<ServerConfig>) -> Vec<CertificateDer<'static>> {
        let capture = Arc::new(Capture(Mutex::default(), provider()));
        let mut config = client(RootCertStore::empty());
        config.dangerous().set_certificate_verifier(capture.clone());
        handshake(server, config, "localhost").unwrap();
        capture.0.lock().unwrap().clone()
    }

    /// The certificate a client trusting only `ca` accepts for `name`, or the error.
    fn verify(server: &Arc<ServerConfig>, ca: &CertificateDer<'static>, name: &str) -> String {
        let mut roots = RootCertStore::empty();
        roots.add(ca.clone()).unwrap();
        match handshake(server, client(roots), name) {
            Ok(()) => "ok".into(),
            Err(e) => format!("{e:?}"),
        }
    }

    /// The generated certificate is served, verifies as its own CA (a client given it
    /// trusts the server) and names localhost and this host, and no other name.
    #[test]
    fn self_signed_certificate_is_generated_without_a_cert_dir() {
        let config = server_config(None, "tls.crt", "tls.key", false).unwrap();
        assert_eq!(config.alpn_protocols, vec![b"http/1.1".to_vec()]);
        let chain = served_chain(&config);
        assert_eq!(chain.len(), 1, "one self-signed certificate");
        assert_eq!(verify(&config, &chain[0], "localhost"), "ok");
        let host = hostname::get().unwrap().into_string().unwrap();
        if ServerName::try_from(host.clone()).is_ok() {
            assert_eq!(verify(&config, &chain[0], &host), "ok", "{host}");
        }
        let other = verify(&config, &chain[0], "metrics.example.com");
        assert!(other.contains("NotValidForName"), "{other}");
        // Another self-signed certificate as the CA: the served one does not verify.
        let stranger = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let refused = verify(&config, stranger.cert.der(), "localhost");
        assert!(refused.contains("InvalidCertificate"), "{refused}");
    }

    #[test]
    fn cert_dir_pair_is_loaded() {
        let dir = tempfile::tempdir().unwrap();
        let generated = rcgen::generate_simple_self_signed(vec!["metrics.svc".into()]).unwrap();
        std::fs::write(dir.path().join("cert.pem"), generated.cert.pem()).unwrap();
        std::fs::write(
            dir.path().join("key.pem"),
            generated.signing_key.serialize_pem(),
        )
        .unwrap();
        let config = server_config(Some(dir.path()), "cert.pem", "key.pem", false).unwrap();
        // The pair from the directory is what is served, for the name it was made for.
        assert_eq!(served_chain(&config), [generated.cert.der().clone()]);
        assert_eq!(verify(&config, generated.cert.der(), "metrics.svc"), "ok");
        let err = format!(
            "{:#}",
            server_config(Some(dir.path()), "tls.crt", "tls.key", false).unwrap_err()
        );
        assert!(err.contains("--metrics-cert-name"), "{err}");
    }

    #[test]
    fn missing_cert_files_name_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let err = format!(
            "{:#}",
            server_config(Some(dir.path()), "tls.crt", "tls.key", false).unwrap_err()
        );
        assert!(
            err.contains("tls.crt") && err.contains("--metrics-cert-path"),
            "{err}"
        );
    }

    /// cert-manager renews the metrics certificate by rewriting the mounted Secret: the
    /// manager's metrics TLS serves the new pair once its reloader has looked again.
    #[test]
    fn a_renewed_metrics_certificate_is_served_without_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str| {
            let pair = rcgen::generate_simple_self_signed(vec![name.into()]).unwrap();
            std::fs::write(dir.path().join("tls.crt"), pair.cert.pem()).unwrap();
            std::fs::write(dir.path().join("tls.key"), pair.signing_key.serialize_pem()).unwrap();
            pair.cert.der().clone()
        };
        let first = write("metrics.svc");
        let (config, certs) =
            metrics_server_config(Some(dir.path()), "tls.crt", "tls.key", false).unwrap();
        let certs = certs.expect("a certificate from files is followed");
        assert_eq!(served_chain(&config), std::slice::from_ref(&first));
        assert_eq!(verify(&config, &first, "metrics.svc"), "ok");
        let renewed = write("metrics.svc");
        assert!(certs.reload_if_changed().unwrap());
        assert_eq!(served_chain(&config), std::slice::from_ref(&renewed));
        assert_eq!(verify(&config, &renewed, "metrics.svc"), "ok");
        // A bad pair keeps the last good one served; messages name the metrics flags.
        std::fs::write(dir.path().join("tls.key"), "not a key").unwrap();
        let err = format!("{:#}", certs.reload_if_changed().unwrap_err());
        assert!(err.contains("--metrics-cert-path"), "{err}");
        assert_eq!(served_chain(&config), [renewed]);
        // Without a directory: the self-signed pair, nothing to follow.
        let (_, none) = metrics_server_config(None, "tls.crt", "tls.key", false).unwrap();
        assert!(none.is_none());
    }
}
