//! A Helm repository's index.yaml: which archive holds a chart at a version.
use serde::Deserialize;

use crate::error::{Error, Result};

#[derive(Deserialize)]
struct Index {
    #[serde(default)]
    entries: std::collections::BTreeMap<String, Vec<IndexEntry>>,
}

#[derive(Deserialize)]
struct IndexEntry {
    version: String,
    #[serde(default)]
    urls: Vec<String>,
    /// SHA-256 of the archive, in hex (`helm repo index` writes it).
    #[serde(default)]
    digest: Option<String>,
}

/// A chart version found in an index: where to download it and what it must hash to.
#[derive(Debug, PartialEq, Eq)]
pub struct IndexedChart {
    pub url: String,
    digest: Option<String>,
}

impl IndexedChart {
    /// Check a downloaded archive against the index's digest, when it has one.
    pub fn verify(&self, bytes: &[u8]) -> Result<()> {
        match &self.digest {
            Some(expected) if !expected.is_empty() => {
                let actual = crate::digest::sha256_hex(bytes);
                if actual.eq_ignore_ascii_case(expected) {
                    Ok(())
                } else {
                    Err(Error::invalid(format!(
                        "{}: the downloaded chart does not match the digest in the repository index ({expected}, got {actual}); try again",
                        self.url
                    )))
                }
            }
            _ => Ok(()),
        }
    }
}

/// Chart `name` (at `version`, or the newest stable one) in a repository index.
/// `repo` names the repository in messages.
pub fn find_chart(
    index: &[u8],
    repo_url: &str,
    name: &str,
    version: Option<&str>,
    repo: &str,
) -> Result<IndexedChart> {
    let index: Index = crate::yaml::from_slice(index).map_err(|e| {
        Error::invalid(format!(
            "the index of Helm repository {repo} is not valid ({e}); check the repository URL"
        ))
    })?;
    let entries = index.entries.get(name).ok_or_else(|| {
        Error::invalid(format!(
            "chart {name:?} not found in Helm repository {repo}; check the chart name"
        ))
    })?;
    let entry = pick_version(entries, version).ok_or_else(|| {
        let wanted = version.unwrap_or("a stable version");
        Error::invalid(format!(
            "chart {name:?} has no {wanted} in Helm repository {repo}; pass an existing --helm-chart-version"
        ))
    })?;
    let url = entry.urls.first().ok_or_else(|| {
        Error::invalid(format!(
            "chart {name:?} {} in Helm repository {repo} lists no download URL",
            entry.version
        ))
    })?;
    let url = if url.contains("://") {
        url.clone()
    } else {
        format!(
            "{}/{}",
            repo_url.trim_end_matches('/'),
            url.trim_start_matches('/')
        )
    };
    Ok(IndexedChart {
        url,
        digest: entry.digest.clone(),
    })
}

/// The entry with exactly `version` (a leading `v` ignored), or the highest stable semver.
fn pick_version<'a>(entries: &'a [IndexEntry], version: Option<&str>) -> Option<&'a IndexEntry> {
    let parse = |v: &str| semver::Version::parse(v.trim_start_matches('v')).ok();
    match version {
        Some(wanted) => entries.iter().find(|e| {
            e.version == wanted
                || e.version.trim_start_matches('v') == wanted.trim_start_matches('v')
        }),
        None => entries
            .iter()
            .filter_map(|e| parse(&e.version).map(|v| (v, e)))
            .filter(|(v, _)| v.pre.is_empty())
            .max_by(|a, b| a.0.cmp(&b.0))
            .map(|(_, e)| e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &str = "apiVersion: v1\nentries:\n  memcached:\n  - version: 1.2.0-rc.1\n    urls: [memcached-1.2.0-rc.1.tgz]\n  - version: 1.10.0\n    urls: [charts/memcached-1.10.0.tgz]\n  - version: 1.9.0\n    urls: [https://cdn.example.com/memcached-1.9.0.tgz]\n";

    #[test]
    fn newest_stable_version_is_the_default() {
        let url = find_chart(INDEX.as_bytes(), "http://r/", "memcached", None, "r")
            .unwrap()
            .url;
        assert_eq!(url, "http://r/charts/memcached-1.10.0.tgz");
        let url = find_chart(
            INDEX.as_bytes(),
            "http://r",
            "memcached",
            Some("v1.9.0"),
            "r",
        )
        .unwrap()
        .url;
        assert_eq!(url, "https://cdn.example.com/memcached-1.9.0.tgz");
    }

    #[test]
    fn missing_chart_or_version_is_named() {
        let err = find_chart(INDEX.as_bytes(), "http://r", "redis", None, "r").unwrap_err();
        assert!(
            err.to_string()
                .contains("chart \"redis\" not found in Helm repository r")
        );
        let err = find_chart(
            INDEX.as_bytes(),
            "http://r",
            "memcached",
            Some("9.9.9"),
            "r",
        )
        .unwrap_err();
        assert!(err.to_string().contains("has no 9.9.9"), "{err}");
    }

    #[test]
    fn archives_are_checked_against_the_index_digest() {
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        let index = format!(
            "entries:\n  c:\n  - version: 1.0.0\n    urls: [c-1.0.0.tgz]\n    digest: {abc}\n"
        );
        let found = find_chart(index.as_bytes(), "http://r", "c", None, "r").unwrap();
        assert!(found.verify(b"abc").is_ok());
        let err = found.verify(b"abd").unwrap_err().to_string();
        assert!(
            err.contains("does not match the digest in the repository index"),
            "{err}"
        );
        let no_digest = find_chart(INDEX.as_bytes(), "http://r", "memcached", None, "r").unwrap();
        assert!(no_digest.verify(b"anything").is_ok());
    }
}
