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
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
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
    use super::*;

    #[test]
    fn self_signed_certificate_is_generated_without_a_cert_dir() {
        let config = server_config(None, "tls.crt", "tls.key", false).unwrap();
        assert_eq!(config.alpn_protocols, vec![b"http/1.1".to_vec()]);
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
        server_config(Some(dir.path()), "cert.pem", "key.pem", false).unwrap();
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
}
