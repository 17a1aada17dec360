//! The webhook server's certificate, read from `--webhook-cert-path` and read again when
//! the files change: cert-manager renews a certificate by rewriting its Secret, and the
//! kubelet swaps the mounted files in place, so a renewed certificate is served without a
//! restart. The metrics server's, from `--metrics-cert-path`, is followed the same way. In the self-signed mode the pair is set in memory instead (the manager's root
//! file system is read-only).
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, SystemTime};

use anyhow::Context as _;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

/// What identifies one version of a file: a kubelet update replaces the file (a new inode
/// behind the same symlink), an in-place rewrite changes its time or length.
#[derive(Clone, Debug, PartialEq, Eq)]
struct FileStamp {
    modified: Option<SystemTime>,
    len: u64,
    #[cfg(unix)]
    inode: u64,
}

impl FileStamp {
    fn of(path: &Path) -> std::io::Result<FileStamp> {
        let metadata = std::fs::metadata(path)?;
        Ok(FileStamp {
            modified: metadata.modified().ok(),
            len: metadata.len(),
            #[cfg(unix)]
            inode: std::os::unix::fs::MetadataExt::ino(&metadata),
        })
    }
}

/// The certificate and key pair served to every TLS handshake: files on disk reloaded when
/// either changes (see [`CertReloader::watch`]), or a pair held in memory and replaced with
/// [`CertReloader::set_pem`].
#[derive(Debug)]
pub struct CertReloader {
    /// The server it serves (`webhook`, `metrics`): messages name its flags.
    server: &'static str,
    files: Option<Files>,
    provider: Arc<CryptoProvider>,
    current: RwLock<Arc<CertifiedKey>>,
}

#[derive(Debug)]
struct Files {
    cert_path: PathBuf,
    key_path: PathBuf,
    stamps: Mutex<(FileStamp, FileStamp)>,
}

impl CertReloader {
    /// Read `cert_name` and `key_name` in `dir`; an error names the files and the flags.
    ///
    /// # Errors
    ///
    /// When either file cannot be read or they do not hold a PEM certificate and its key; the
    /// error names the files and the flags that chose them.
    pub fn load(dir: &Path, cert_name: &str, key_name: &str) -> anyhow::Result<CertReloader> {
        CertReloader::load_for("webhook", dir, cert_name, key_name)
    }

    /// [`CertReloader::load`] for the `server` whose flags are `--<server>-cert-path`,
    /// `--<server>-cert-name` and `--<server>-cert-key` (`metrics`).
    pub(crate) fn load_for(
        server: &'static str,
        dir: &Path,
        cert_name: &str,
        key_name: &str,
    ) -> anyhow::Result<CertReloader> {
        let cert_path = dir.join(cert_name);
        let key_path = dir.join(key_name);
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let stamps = stamps(server, &cert_path, &key_path)?;
        let key = certified_key(server, &cert_path, &key_path, &provider)?;
        Ok(CertReloader {
            server,
            files: Some(Files {
                cert_path,
                key_path,
                stamps: Mutex::new(stamps),
            }),
            provider,
            current: RwLock::new(Arc::new(key)),
        })
    }

    /// Serve the PEM pair `cert` and `key`, held in memory.
    ///
    /// # Errors
    ///
    /// When `cert` and `key` are not a PEM certificate and its key.
    pub fn from_pem(cert: &str, key: &str) -> anyhow::Result<CertReloader> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let key = pem_pair(cert, key, &provider)?;
        Ok(CertReloader {
            server: "webhook",
            files: None,
            provider,
            current: RwLock::new(Arc::new(key)),
        })
    }

    /// A throwaway certificate for `localhost` and 127.0.0.1, held in memory; returns it
    /// with its PEM (which a local client can trust).
    ///
    /// # Errors
    ///
    /// When the certificate cannot be made.
    pub fn local() -> anyhow::Result<(CertReloader, String)> {
        let names = vec!["localhost".to_string(), "127.0.0.1".to_string()];
        let pair = rcgen::generate_simple_self_signed(names)
            .context("cannot generate a local webhook certificate")?;
        let cert = pair.cert.pem();
        let reloader = CertReloader::from_pem(&cert, &pair.signing_key.serialize_pem())?;
        Ok((reloader, cert))
    }

    /// Serve the PEM pair `cert` and `key` from the next handshake on.
    ///
    /// # Errors
    ///
    /// As [`CertReloader::from_pem`]; the pair served then stays as it was.
    pub fn set_pem(&self, cert: &str, key: &str) -> anyhow::Result<()> {
        let key = pem_pair(cert, key, &self.provider)?;
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(key);
        Ok(())
    }

    /// The pair served now.
    pub fn current(&self) -> Arc<CertifiedKey> {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Read the files again if they changed since the last read. `Ok(true)` when a new
    /// pair is served; on error (a half-written pair, say) the previous pair stays.
    /// A pair held in memory never changes here.
    ///
    /// # Errors
    ///
    /// When the files cannot be read or do not hold a pair; the previous pair stays served.
    pub fn reload_if_changed(&self) -> anyhow::Result<bool> {
        let Some(files) = &self.files else {
            return Ok(false);
        };
        let now = stamps(self.server, &files.cert_path, &files.key_path)?;
        let mut seen = files.stamps.lock().unwrap_or_else(PoisonError::into_inner);
        if *seen == now {
            return Ok(false);
        }
        let key = certified_key(
            self.server,
            &files.cert_path,
            &files.key_path,
            &self.provider,
        )?;
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(key);
        *seen = now;
        Ok(true)
    }

    /// Check the files every `every` until `stop` resolves, logging each reload and each
    /// failure to reload.
    pub async fn watch(self: Arc<Self>, every: Duration, stop: impl Future<Output = ()>) {
        let check = async {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                ticks.tick().await;
                match self.reload_if_changed() {
                    Ok(true) => tracing::info!(server = self.server, "certificate reloaded"),
                    Ok(false) => {}
                    Err(error) => tracing::warn!(%error, server = self.server,
                        "certificate not reloaded; the previous one is still served"),
                }
            }
        };
        tokio::select! {
            () = check => {}
            () = stop => {}
        }
    }
}

impl ResolvesServerCert for CertReloader {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}

fn stamps(
    server: &str,
    cert_path: &Path,
    key_path: &Path,
) -> anyhow::Result<(FileStamp, FileStamp)> {
    let stamp = |path: &Path| {
        FileStamp::of(path).with_context(|| {
            format!(
                "--{server}-cert-path: cannot read {} (mount the {server} certificate there, or name the files with --{server}-cert-name and --{server}-cert-key)",
                path.display()
            )
        })
    };
    Ok((stamp(cert_path)?, stamp(key_path)?))
}

fn pem_pair(cert: &str, key: &str, provider: &CryptoProvider) -> anyhow::Result<CertifiedKey> {
    let certs = CertificateDer::pem_slice_iter(cert.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .context("the webhook certificate is not PEM")?;
    let key = PrivateKeyDer::from_pem_slice(key.as_bytes())
        .context("the webhook private key is not PEM")?;
    CertifiedKey::from_der(certs, key, provider)
        .context("the webhook certificate and key do not form a usable pair")
}

fn certified_key(
    server: &str,
    cert_path: &Path,
    key_path: &Path,
    provider: &CryptoProvider,
) -> anyhow::Result<CertifiedKey> {
    let certs = CertificateDer::pem_file_iter(cert_path)
        .and_then(std::iter::Iterator::collect::<Result<Vec<_>, _>>)
        .with_context(|| {
            format!(
                "--{server}-cert-path: {} holds no readable PEM certificate",
                cert_path.display()
            )
        })?;
    if certs.is_empty() {
        anyhow::bail!(
            "--{server}-cert-path: {} holds no PEM certificate",
            cert_path.display()
        );
    }
    let key = PrivateKeyDer::from_pem_file(key_path).with_context(|| {
        format!(
            "--{server}-cert-path: {} holds no readable PEM private key",
            key_path.display()
        )
    })?;
    CertifiedKey::from_der(certs, key, provider).with_context(|| {
        format!(
            "--{server}-cert-path: {} and {} do not form a usable certificate and key pair",
            cert_path.display(),
            key_path.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_pair(dir: &Path, name: &str) -> rcgen::CertifiedKey<rcgen::KeyPair> {
        let pair = rcgen::generate_simple_self_signed(vec![name.to_string()]).unwrap();
        std::fs::write(dir.join("tls.crt"), pair.cert.pem()).unwrap();
        std::fs::write(dir.join("tls.key"), pair.signing_key.serialize_pem()).unwrap();
        pair
    }

    #[test]
    fn a_replaced_pair_is_served_after_a_reload() {
        let dir = tempfile::tempdir().unwrap();
        let first = write_pair(dir.path(), "first.svc");
        let reloader = CertReloader::load(dir.path(), "tls.crt", "tls.key").unwrap();
        assert_eq!(reloader.current().cert[0], *first.cert.der());
        assert!(
            !reloader.reload_if_changed().unwrap(),
            "nothing changed yet"
        );

        let second = write_pair(dir.path(), "second.svc");
        assert!(reloader.reload_if_changed().unwrap());
        assert_eq!(reloader.current().cert[0], *second.cert.der());
    }

    #[test]
    fn a_broken_pair_keeps_the_previous_one() {
        let dir = tempfile::tempdir().unwrap();
        let first = write_pair(dir.path(), "first.svc");
        let reloader = CertReloader::load(dir.path(), "tls.crt", "tls.key").unwrap();
        // A key that does not belong to the certificate, as in the middle of an update.
        let other = rcgen::KeyPair::generate().unwrap();
        std::fs::write(dir.path().join("tls.key"), other.serialize_pem()).unwrap();
        let error = format!("{:#}", reloader.reload_if_changed().unwrap_err());
        assert!(error.contains("do not form a usable"), "{error}");
        assert_eq!(reloader.current().cert[0], *first.cert.der());
    }

    #[test]
    fn missing_files_name_the_path_and_the_flags() {
        let dir = tempfile::tempdir().unwrap();
        let error = format!(
            "{:#}",
            CertReloader::load(dir.path(), "tls.crt", "tls.key").unwrap_err()
        );
        assert!(
            error.contains("tls.crt") && error.contains("--webhook-cert-name"),
            "{error}"
        );
    }
}
