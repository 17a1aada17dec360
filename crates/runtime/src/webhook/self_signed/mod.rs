//! `--webhook-cert-mode=self-signed`: webhooks on a cluster without cert-manager.
//!
//! The operator keeps its own CA and serving certificate in a Secret of its namespace
//! (created by the first replica to start; the others read it), serves that certificate
//! from memory, and writes the CA into the `caBundle` of every webhook and every CRD
//! conversion whose client config names its webhook Service. A check every hour renews
//! the pair 30 days before it expires, and puts back a `caBundle` that an apply of the
//! manifests cleared. A renewed Secret keeps the previous CA next to the new one, so
//! replicas still serving the old pair stay trusted until they pick up the new one.
//!
//! The `caBundle`s are written by `ca_injection`, a private sibling module. RBAC it needs:
//! `get`, `create`, `update` on the Secret; `list`, `patch` on mutating and validating
//! webhook configurations and on custom resource definitions.
use std::collections::BTreeMap;

use super::ca_injection::inject_ca;
use anyhow::Context as _;
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, PostParams};
use kube::{Client, ResourceExt};
use time::{Duration, OffsetDateTime};

/// How long an issued certificate is valid.
const VALIDITY: Duration = Duration::days(365);
/// Renew this long before the serving certificate expires.
const RENEW_BEFORE: Duration = Duration::days(30);
/// The Secret's annotation with the serving certificate's expiry (RFC 3339), so that
/// replicas decide on renewal without parsing X.509.
pub const NOT_AFTER_ANNOTATION: &str = "rusty-sdk.io/not-after";

/// Where the webhook server is reached, and where its pair is kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelfSignedConfig {
    pub namespace: String,
    pub service: String,
    pub secret: String,
}

/// A serving pair and the CA bundle that trusts it, as PEM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issued {
    pub cert: String,
    pub key: String,
    pub ca_bundle: String,
    pub not_after: OffsetDateTime,
}

impl SelfSignedConfig {
    /// The DNS names the API server uses to reach the Service.
    fn dns_names(&self) -> Vec<String> {
        let base = format!("{}.{}.svc", self.service, self.namespace);
        vec![base.clone(), format!("{base}.cluster.local")]
    }
}

/// A new CA and a serving certificate it signs, valid from `now`. The CA's key is dropped:
/// a renewal makes a new CA, so no long-lived signing key is kept anywhere.
///
/// # Errors
///
/// When a key cannot be generated or a certificate cannot be signed.
pub fn issue(
    config: &SelfSignedConfig,
    now: OffsetDateTime,
    previous_ca: Option<&str>,
) -> anyhow::Result<Issued> {
    let not_after = now + VALIDITY;
    let ca_key = rcgen::KeyPair::generate().context("cannot generate a CA key")?;
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new())?;
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Constrained(0));
    ca_params.distinguished_name.push(
        rcgen::DnType::CommonName,
        format!("{} webhook CA", config.service),
    );
    ca_params.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::CrlSign,
    ];
    ca_params.not_before = now - Duration::hours(1);
    ca_params.not_after = not_after;
    let ca = ca_params.self_signed(&ca_key)?;
    let issuer = rcgen::Issuer::new(ca_params, ca_key);

    let key = rcgen::KeyPair::generate().context("cannot generate a serving key")?;
    let mut params = rcgen::CertificateParams::new(config.dns_names())?;
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, config.dns_names()[0].clone());
    params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    params.not_before = now - Duration::hours(1);
    params.not_after = not_after;
    let cert = params.signed_by(&key, &issuer)?;

    let mut ca_bundle = ca.pem();
    if let Some(previous) = previous_ca.and_then(first_pem_block) {
        ca_bundle.push_str(previous);
    }
    Ok(Issued {
        cert: cert.pem(),
        key: key.serialize_pem(),
        ca_bundle,
        not_after,
    })
}

/// The first PEM block of `pem` (the newest CA of a bundle), with its end line.
fn first_pem_block(pem: &str) -> Option<&str> {
    const END: &str = "-----END CERTIFICATE-----";
    let start = pem.find("-----BEGIN CERTIFICATE-----")?;
    let end = pem[start..].find(END)? + start + END.len();
    let end = pem[end..].strip_prefix('\n').map_or(end, |_| end + 1);
    Some(&pem[start..end])
}

/// The pair a Secret holds, unless a part is missing or it is due for renewal at `now`.
pub fn from_secret(secret: &Secret, now: OffsetDateTime) -> Option<Issued> {
    let data = secret.data.as_ref()?;
    let text = |key: &str| String::from_utf8(data.get(key)?.0.clone()).ok();
    let not_after = secret.annotations().get(NOT_AFTER_ANNOTATION)?;
    let not_after =
        OffsetDateTime::parse(not_after, &time::format_description::well_known::Rfc3339).ok()?;
    if not_after - RENEW_BEFORE <= now {
        return None;
    }
    Some(Issued {
        cert: text("tls.crt")?,
        key: text("tls.key")?,
        ca_bundle: text("ca.crt")?,
        not_after,
    })
}

fn secret_for(config: &SelfSignedConfig, issued: &Issued) -> anyhow::Result<Secret> {
    let not_after = issued
        .not_after
        .format(&time::format_description::well_known::Rfc3339)?;
    let bytes = |text: &str| ByteString(text.as_bytes().to_vec());
    Ok(Secret {
        metadata: ObjectMeta {
            name: Some(config.secret.clone()),
            namespace: Some(config.namespace.clone()),
            annotations: Some(BTreeMap::from([(
                NOT_AFTER_ANNOTATION.to_string(),
                not_after,
            )])),
            ..ObjectMeta::default()
        },
        type_: Some("kubernetes.io/tls".into()),
        data: Some(BTreeMap::from([
            ("tls.crt".to_string(), bytes(&issued.cert)),
            ("tls.key".to_string(), bytes(&issued.key)),
            ("ca.crt".to_string(), bytes(&issued.ca_bundle)),
        ])),
        ..Secret::default()
    })
}

/// The pair to serve: the Secret's, or a new one written to it when it is missing or due
/// for renewal. Replicas racing to write it settle on whichever write won.
///
/// # Errors
///
/// When the Secret cannot be read, written or replaced for a reason other than a lost
/// race, or a pair cannot be issued; the error names the Secret.
pub async fn ensure_secret(
    client: &Client,
    config: &SelfSignedConfig,
    now: OffsetDateTime,
) -> anyhow::Result<Issued> {
    let secrets = Api::<Secret>::namespaced(client.clone(), &config.namespace);
    let what = || format!("Secret {}/{}", config.namespace, config.secret);
    for _attempt in 0..3 {
        let current = secrets
            .get_opt(&config.secret)
            .await
            .with_context(|| format!("self-signed webhook certificate: cannot read {}", what()))?;
        let written = if let Some(secret) = &current {
            if let Some(issued) = from_secret(secret, now) {
                return Ok(issued);
            }
            let previous = secret
                .data
                .as_ref()
                .and_then(|data| data.get("ca.crt"))
                .and_then(|ca| String::from_utf8(ca.0.clone()).ok());
            let issued = issue(config, now, previous.as_deref())?;
            let mut renewed = secret_for(config, &issued)?;
            renewed.metadata.resource_version = secret.resource_version();
            tracing::info!(secret = %what(), "renewing the self-signed webhook certificate");
            secrets
                .replace(&config.secret, &PostParams::default(), &renewed)
                .await
                .map(|_| issued)
        } else {
            let issued = issue(config, now, None)?;
            let created = secrets
                .create(&PostParams::default(), &secret_for(config, &issued)?)
                .await;
            created.map(|_| issued)
        };
        match written {
            Ok(issued) => return Ok(issued),
            // Another replica wrote it first: use theirs.
            Err(kube::Error::Api(status)) if status.code == 409 => {}
            Err(error) => {
                return Err(error).with_context(|| {
                    format!("self-signed webhook certificate: cannot write {}", what())
                });
            }
        }
    }
    anyhow::bail!(
        "self-signed webhook certificate: {} kept changing while it was written; is another operator using it?",
        what()
    )
}

/// How often the Secret and the `caBundle`s are checked after start.
const CHECK_INTERVAL: std::time::Duration = std::time::Duration::from_secs(3600);

/// Get or make the pair, write the CA where it belongs, and keep both up to date until
/// `stop` resolves. Fails when the Secret cannot be read or written or a `caBundle` cannot
/// be set, since webhooks would then be refused by the API server.
///
/// # Errors
///
/// As [`ensure_secret`], and when a `caBundle` cannot be set: the API server would then
/// refuse every call to the webhooks.
pub async fn start(
    client: Client,
    config: SelfSignedConfig,
    stop: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<std::sync::Arc<super::CertReloader>> {
    let issued = ensure_secret(&client, &config, OffsetDateTime::now_utc()).await?;
    let certs = std::sync::Arc::new(super::CertReloader::from_pem(&issued.cert, &issued.key)?);
    let patched = inject_ca(&client, &config, &issued.ca_bundle).await?;
    tracing::info!(secret = %config.secret, service = %config.service, patched,
                   "self-signed webhook certificate in place");
    let renewing = renew(client, config, certs.clone(), issued);
    tokio::spawn(async move {
        tokio::select! {
            () = renewing => {}
            () = stop => {}
        }
    });
    Ok(certs)
}

/// Every [`CHECK_INTERVAL`]: serve the Secret's pair if another replica renewed it, renew
/// it when due, and put back `caBundle`s. Failures are logged; the next check retries.
async fn renew(
    client: Client,
    config: SelfSignedConfig,
    certs: std::sync::Arc<super::CertReloader>,
    mut served: Issued,
) {
    let mut ticks = tokio::time::interval(CHECK_INTERVAL);
    ticks.tick().await;
    loop {
        ticks.tick().await;
        let issued = match ensure_secret(&client, &config, OffsetDateTime::now_utc()).await {
            Ok(issued) => issued,
            Err(error) => {
                tracing::warn!(
                    error = format!("{error:#}"),
                    "webhook certificate not checked"
                );
                continue;
            }
        };
        if issued != served {
            match certs.set_pem(&issued.cert, &issued.key) {
                Ok(()) => {
                    tracing::info!(not_after = %issued.not_after, "serving the renewed webhook certificate");
                    served = issued;
                }
                Err(error) => {
                    tracing::warn!(
                        error = format!("{error:#}"),
                        "renewed webhook certificate not usable"
                    );
                    continue;
                }
            }
        }
        if let Err(error) = inject_ca(&client, &config, &served.ca_bundle).await {
            tracing::warn!(error = format!("{error:#}"), "caBundle not checked");
        }
    }
}

#[cfg(test)]
mod tests;
