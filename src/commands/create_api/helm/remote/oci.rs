//! Pulling a chart from an OCI registry (`oci://host/namespace/chart[:tag]`), the way
//! `helm pull oci://...` does: fetch the image manifest, then the layer with Helm's chart
//! media type. Anonymous bearer tokens (ghcr.io, Docker Hub, ...) are requested when the
//! registry asks for them.
use serde::Deserialize;

use super::{Client, Header};
use crate::error::{Error, Result};

const MANIFEST_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
const CHART_LAYER_TYPE: &str = "application/vnd.cncf.helm.chart.content.v1.tar+gzip";

/// `oci://host/path/chart:tag` split into its parts.
#[derive(Debug, PartialEq, Eq)]
struct Reference {
    host: String,
    repository: String,
    tag: Option<String>,
}

fn parse_reference(reference: &str) -> Result<Reference> {
    let bad = || {
        Error::invalid(format!(
            "invalid OCI chart reference {reference:?}: expected oci://<registry>/<path>/<chart>[:<version>]"
        ))
    };
    let rest = reference.strip_prefix("oci://").ok_or_else(bad)?;
    let (host, path) = rest.split_once('/').ok_or_else(bad)?;
    // A tag follows the last `:` of the last path segment (a port sits in the host).
    let (repository, tag) = match path.rsplit_once(':') {
        Some((repo, tag)) if !tag.contains('/') => (repo, Some(tag.to_string())),
        _ => (path, None),
    };
    if host.is_empty() || repository.is_empty() || repository.ends_with('/') {
        return Err(bad());
    }
    Ok(Reference {
        host: host.to_string(),
        repository: repository.to_string(),
        tag,
    })
}

#[derive(Deserialize)]
struct Manifest {
    #[serde(default)]
    layers: Vec<Descriptor>,
}

#[derive(Deserialize)]
struct Descriptor {
    #[serde(rename = "mediaType")]
    media_type: String,
    digest: String,
}

#[derive(Deserialize)]
struct Tags {
    #[serde(default)]
    tags: Vec<String>,
}

#[derive(Deserialize)]
struct Token {
    #[serde(default)]
    token: String,
    #[serde(default)]
    access_token: String,
}

/// The chart archive `reference` names (`version` wins over a tag in the reference).
pub fn pull(client: &Client, reference: &str, version: Option<&str>) -> Result<Vec<u8>> {
    let parsed = parse_reference(reference)?;
    let base = format!(
        "{}://{}/v2/{}",
        scheme(&parsed.host),
        parsed.host,
        parsed.repository
    );
    let mut session = Session {
        client,
        auth: Vec::new(),
    };
    let tag = match version.map(str::to_string).or(parsed.tag) {
        Some(tag) => tag.replace('+', "_"),
        None => newest_tag(&mut session, &base, reference)?,
    };
    let manifest = session.get(
        &format!("{base}/manifests/{tag}"),
        &[("Accept", MANIFEST_TYPE.to_string())],
    )?;
    let manifest: Manifest = serde_json::from_slice(&manifest).map_err(|e| {
        Error::invalid(format!(
            "{reference}:{tag}: the registry's manifest is not valid ({e})"
        ))
    })?;
    let layer = manifest
        .layers
        .iter()
        .find(|l| l.media_type == CHART_LAYER_TYPE)
        .ok_or_else(|| {
            Error::invalid(format!(
                "{reference}:{tag} is not a Helm chart (no layer of type {CHART_LAYER_TYPE})"
            ))
        })?;
    let chart = session.get(&format!("{base}/blobs/{}", layer.digest), &[])?;
    verify_digest(&chart, &layer.digest).map_err(|why| {
        Error::invalid(format!(
            "{reference}:{tag}: the downloaded chart {why}; try again, or pull it with `helm pull` and pass the .tgz"
        ))
    })?;
    Ok(chart)
}

/// Registries on this machine speak plain HTTP, as Docker assumes for `localhost`; any
/// other registry is reached over HTTPS.
fn scheme(host: &str) -> &'static str {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => host,
    };
    if matches!(name, "localhost" | "127.0.0.1" | "[::1]") {
        "http"
    } else {
        "https"
    }
}

/// Check `bytes` against an OCI digest such as `sha256:<hex>`.
fn verify_digest(bytes: &[u8], digest: &str) -> Result<(), String> {
    let Some(expected) = digest.strip_prefix("sha256:") else {
        return Err(format!("has a digest rusty-sdk cannot check ({digest})"));
    };
    let actual = crate::digest::sha256_hex(bytes);
    if actual == expected {
        Ok(())
    } else {
        Err(format!(
            "does not match its digest {digest} (got sha256:{actual})"
        ))
    }
}

/// The highest semver tag, as Helm picks when no version is given.
fn newest_tag(session: &mut Session, base: &str, reference: &str) -> Result<String> {
    let body = session.get(&format!("{base}/tags/list"), &[])?;
    let tags: Tags = serde_json::from_slice(&body).map_err(|e| {
        Error::invalid(format!(
            "{reference}: the registry's tag list is not valid ({e})"
        ))
    })?;
    tags.tags
        .iter()
        .filter_map(|t| {
            semver::Version::parse(&t.replace('_', "+"))
                .ok()
                .map(|v| (v, t))
        })
        .filter(|(v, _)| v.pre.is_empty())
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, t)| t.clone())
        .ok_or_else(|| {
            Error::invalid(format!(
                "{reference} has no stable version tag; pass --helm-chart-version"
            ))
        })
}

/// Requests to one registry, with the bearer token once the registry asked for one.
struct Session<'a> {
    client: &'a Client,
    auth: Vec<Header>,
}

impl Session<'_> {
    fn get(&mut self, url: &str, headers: &[Header]) -> Result<Vec<u8>> {
        let mut all: Vec<Header> = headers.to_vec();
        all.extend(self.auth.iter().cloned());
        let response = self.client.send(url, &all)?;
        if response.status() == 401 && self.auth.is_empty() {
            let challenge = response
                .headers()
                .get("www-authenticate")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            self.auth = vec![(
                "Authorization",
                format!("Bearer {}", self.token(url, &challenge)?),
            )];
            return self.get(url, headers);
        }
        if response.status() != 200 {
            return Err(Error::invalid(format!(
                "could not download {url}: the registry answered {}; check the chart reference and version (private registries need `helm registry login`, which rusty-sdk does not read)",
                response.status()
            )));
        }
        self.client.read_body(url, response)
    }

    /// An anonymous pull token from the realm of a `Bearer realm=...,service=...` challenge.
    fn token(&self, url: &str, challenge: &str) -> Result<String> {
        let params = challenge_params(challenge);
        let realm = params
            .iter()
            .find(|(k, _)| k == "realm")
            .map(|(_, v)| v.clone())
            .ok_or_else(|| {
                Error::invalid(format!(
                    "could not download {url}: the registry requires credentials; pull the chart with `helm pull` and pass the .tgz"
                ))
            })?;
        let query: Vec<String> = params
            .iter()
            .filter(|(k, _)| k == "service" || k == "scope")
            .map(|(k, v)| format!("{k}={}", percent_encode(v)))
            .collect();
        let token_url = if query.is_empty() {
            realm
        } else {
            format!("{realm}?{}", query.join("&"))
        };
        let body = self.client.get(&token_url, &[])?;
        let token: Token = serde_json::from_slice(&body).map_err(|e| {
            Error::invalid(format!("{token_url}: not a registry token answer ({e})"))
        })?;
        Ok(if token.token.is_empty() {
            token.access_token
        } else {
            token.token
        })
    }
}

/// `Bearer realm="https://x/token",service="x",scope="repository:a/b:pull"` as pairs.
fn challenge_params(challenge: &str) -> Vec<(String, String)> {
    let body = challenge
        .trim()
        .strip_prefix("Bearer")
        .or_else(|| challenge.trim().strip_prefix("bearer"))
        .unwrap_or_default();
    let mut out = Vec::new();
    let mut rest = body.trim();
    while let Some((key, after)) = rest.split_once('=') {
        let key = key.trim().trim_start_matches(',').trim().to_string();
        let after = after.trim_start();
        let (value, remaining) = match after.strip_prefix('"') {
            Some(quoted) => match quoted.split_once('"') {
                Some((v, r)) => (v.to_string(), r),
                None => (quoted.to_string(), ""),
            },
            None => match after.split_once(',') {
                Some((v, r)) => (v.trim().to_string(), r),
                None => (after.trim().to_string(), ""),
            },
        };
        out.push((key, value));
        rest = remaining.trim_start().trim_start_matches(',');
    }
    out
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_split_into_host_repository_and_tag() {
        assert_eq!(
            parse_reference("oci://ghcr.io/org/charts/app:1.2.3").unwrap(),
            Reference {
                host: "ghcr.io".into(),
                repository: "org/charts/app".into(),
                tag: Some("1.2.3".into())
            }
        );
        let r = parse_reference("oci://localhost:5000/app").unwrap();
        assert_eq!((r.host.as_str(), r.tag), ("localhost:5000", None));
        assert!(parse_reference("oci://ghcr.io").is_err());
    }

    #[test]
    fn local_registries_use_plain_http_and_digests_are_checked() {
        assert_eq!(scheme("localhost:5000"), "http");
        assert_eq!(scheme("127.0.0.1"), "http");
        assert_eq!(scheme("ghcr.io"), "https");
        assert_eq!(scheme("registry.localhost.example:443"), "https");
        let abc = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(verify_digest(b"abc", abc), Ok(()));
        assert!(
            verify_digest(b"abd", abc)
                .unwrap_err()
                .contains("does not match")
        );
        assert!(verify_digest(b"abc", "md5:x").is_err());
    }

    #[test]
    fn bearer_challenges_are_parsed() {
        let params = challenge_params(
            r#"Bearer realm="https://ghcr.io/token",service="ghcr.io",scope="repository:org/app:pull""#,
        );
        assert_eq!(
            params,
            vec![
                ("realm".to_string(), "https://ghcr.io/token".to_string()),
                ("service".to_string(), "ghcr.io".to_string()),
                ("scope".to_string(), "repository:org/app:pull".to_string()),
            ]
        );
        assert_eq!(
            percent_encode("repository:a/b:pull"),
            "repository%3Aa%2Fb%3Apull"
        );
    }
}
