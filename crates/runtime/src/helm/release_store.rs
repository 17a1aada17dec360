//! Reads the latest revision of a release straight from Helm's storage Secrets, so a
//! reconcile that changes nothing spawns no `helm status`. The format follows Helm's
//! Secret driver (helm/helm pkg/storage/driver/secrets.go and util.go): one Secret per
//! revision, type `helm.sh/release.v1`, labels `owner=helm,name=<release>,status=,
//! version=<n>`, key `release` holding base64 of (optionally gzipped) release JSON.
use std::io::Read;

use base64::Engine;
use flate2::read::GzDecoder;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, ListParams};

use super::client::{HelmError, ReleaseTarget};
use super::release::{Release, ReleaseJson};

/// A release JSON larger than this once decompressed is refused (Secrets hold 1 MiB
/// compressed; this bounds memory against a gzip bomb).
const MAX_RELEASE_BYTES: u64 = 64 * 1024 * 1024;
const GZIP_MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];

/// Helm stores releases in Secrets unless `HELM_DRIVER` names another driver.
pub(crate) fn secrets_driver() -> bool {
    matches!(
        std::env::var("HELM_DRIVER").as_deref(),
        Err(_) | Ok("") | Ok("secret") | Ok("secrets")
    )
}

/// The highest revision of the release, `None` when Helm has no Secret for it.
pub(crate) async fn latest(
    client: &kube::Client,
    target: &ReleaseTarget,
) -> Result<Option<Release>, HelmError> {
    let api: Api<Secret> = Api::namespaced(client.clone(), &target.namespace);
    let selector = format!("owner=helm,name={}", target.name);
    let error = |reason: String| HelmError::Storage {
        release: target.clone(),
        reason,
    };
    let secrets = api
        .list(&ListParams::default().labels(&selector))
        .await
        .map_err(|e| error(format!("cannot list Secrets with labels {selector}: {e}")))?;
    let newest = secrets
        .items
        .into_iter()
        .filter_map(|secret| Some((revision(&secret)?, secret)))
        .max_by_key(|(version, _)| *version);
    let Some((_, secret)) = newest else {
        return Ok(None);
    };
    let name = secret.metadata.name.clone().unwrap_or_default();
    let data = secret
        .data
        .as_ref()
        .and_then(|d| d.get("release"))
        .ok_or_else(|| error(format!("Secret {name} has no `release` key")))?;
    decode(&data.0)
        .map(Some)
        .map_err(|reason| error(format!("Secret {name}: {reason}")))
}

fn revision(secret: &Secret) -> Option<u32> {
    secret
        .metadata
        .labels
        .as_ref()?
        .get("version")?
        .parse()
        .ok()
}

/// base64 text -> (gunzip when gzipped) -> release JSON, as Helm's `decodeRelease`.
pub(crate) fn decode(stored: &[u8]) -> Result<Release, String> {
    let json = unpack(stored)?;
    serde_json::from_slice::<ReleaseJson>(&json)
        .map(Release::from)
        .map_err(|e| format!("release is not Helm release JSON: {e}"))
}

/// The release JSON in what a storage driver keeps under `release`: base64 text of the
/// JSON, gzipped or not, refused past [`MAX_RELEASE_BYTES`] once decompressed.
pub(crate) fn unpack(stored: &[u8]) -> Result<Vec<u8>, String> {
    let raw = base64::engine::general_purpose::STANDARD
        .decode(stored)
        .map_err(|e| format!("release is not base64: {e}"))?;
    if !raw.starts_with(&GZIP_MAGIC) {
        return Ok(raw);
    }
    let mut out = Vec::new();
    GzDecoder::new(raw.as_slice())
        .take(MAX_RELEASE_BYTES + 1)
        .read_to_end(&mut out)
        .map_err(|e| format!("release is not valid gzip: {e}"))?;
    if out.len() as u64 > MAX_RELEASE_BYTES {
        return Err(format!(
            "release is larger than {MAX_RELEASE_BYTES} bytes uncompressed"
        ));
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::io::Write;

    use flate2::Compression;
    use flate2::write::GzEncoder;

    use super::*;

    /// What Helm's `encodeRelease` stores: base64(gzip(json)).
    pub(crate) fn encode(json: &str) -> String {
        let mut gz = GzEncoder::new(Vec::new(), Compression::best());
        gz.write_all(json.as_bytes()).unwrap();
        base64::engine::general_purpose::STANDARD.encode(gz.finish().unwrap())
    }

    const JSON: &str = r#"{"name":"mc","namespace":"default","version":3,
        "info":{"status":"deployed","description":"Upgrade complete"},
        "chart":{"metadata":{"name":"memcached","version":"0.1.0","appVersion":"1.6.29"}},
        "manifest":"---\nkind: Service\n"}"#;

    #[test]
    fn gzipped_and_plain_releases_decode() {
        for stored in [
            encode(JSON),
            base64::engine::general_purpose::STANDARD.encode(JSON),
        ] {
            let release = decode(stored.as_bytes()).unwrap();
            assert_eq!(
                (
                    release.version,
                    release.status.as_str(),
                    release.chart.as_str()
                ),
                (3, "deployed", "memcached-0.1.0")
            );
            assert_eq!(release.manifest, "---\nkind: Service\n");
        }
    }

    #[test]
    fn garbage_is_an_error_naming_the_problem() {
        assert!(decode(b"%%%").unwrap_err().contains("not base64"));
        let not_json = base64::engine::general_purpose::STANDARD.encode("{}");
        assert!(
            decode(not_json.as_bytes())
                .unwrap_err()
                .contains("not Helm release JSON")
        );
    }
}
