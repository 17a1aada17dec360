//! Charts from the network: an archive URL, a chart in a Helm repository (by URL or by the
//! name `helm repo add` gave it), or an OCI registry. Every download shows a progress bar on
//! a terminal and fails with one line that names the address when the network is away.
use std::io::Read;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use serde::Deserialize;

use super::source::ChartRef;
use crate::error::{Error, Result};
use crate::ui::Shell;

mod helm_home;
mod oci;

/// Charts are small; a larger answer is a wrong URL or a hostile server.
const MAX_DOWNLOAD: u64 = 200 * 1024 * 1024;

/// Download the chart archive `chart` names; returns its URL and bytes.
pub fn download_chart(chart: &ChartRef, shell: &Shell) -> Result<(String, Vec<u8>)> {
    let client = Client::new(shell);
    match chart {
        ChartRef::ArchiveUrl(url) => Ok((url.clone(), client.get(url, &[])?)),
        ChartRef::RepoUrl {
            repo_url,
            name,
            version,
        } => {
            let index = client.get(&format!("{repo_url}/index.yaml"), &[])?;
            let url = chart_url(&index, repo_url, name, version.as_deref(), repo_url)?;
            Ok((url.clone(), client.get(&url, &[])?))
        }
        ChartRef::RepoName {
            repo,
            name,
            version,
        } => {
            let entry = helm_home::repository(repo)?;
            let auth = entry.basic_auth();
            let index = match helm_home::cached_index(repo) {
                Some(bytes) => bytes,
                None => client.get(&format!("{}/index.yaml", entry.url()), &auth)?,
            };
            let url = chart_url(&index, entry.url(), name, version.as_deref(), repo)?;
            Ok((url.clone(), client.get(&url, &auth)?))
        }
        ChartRef::Oci { reference, version } => {
            let bytes = oci::pull(&client, reference, version.as_deref())?;
            Ok((reference.clone(), bytes))
        }
        ChartRef::Local { shown, .. } => Err(Error::Internal(format!(
            "{} is local, not a download",
            shown.display()
        ))),
    }
}

/// An HTTP client with short connect timeouts and a progress bar.
pub(super) struct Client {
    agent: ureq::Agent,
    show_progress: bool,
}

/// A header as name and value.
pub(super) type Header = (&'static str, String);

impl Client {
    fn new(shell: &Shell) -> Client {
        let agent = ureq::Agent::config_builder()
            .timeout_connect(Some(Duration::from_secs(15)))
            .timeout_global(Some(Duration::from_secs(600)))
            .http_status_as_error(false)
            .user_agent(concat!("rusty-sdk/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Client {
            agent,
            show_progress: !shell.is_quiet(),
        }
    }

    /// GET `url`; anything but 200 is an error naming the URL and the status.
    pub(super) fn get(&self, url: &str, headers: &[Header]) -> Result<Vec<u8>> {
        let response = self.send(url, headers)?;
        if response.status() != 200 {
            return Err(Error::invalid(format!(
                "could not download {url}: the server answered {}; check the chart name, version and address",
                response.status()
            )));
        }
        self.read_body(url, response)
    }

    /// GET `url` and hand back the response whatever its status.
    pub(super) fn send(
        &self,
        url: &str,
        headers: &[Header],
    ) -> Result<ureq::http::Response<ureq::Body>> {
        let mut request = self.agent.get(url);
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        request.call().map_err(|e| offline_error(url, &e))
    }

    pub(super) fn read_body(
        &self,
        url: &str,
        mut response: ureq::http::Response<ureq::Body>,
    ) -> Result<Vec<u8>> {
        let length = response.body().content_length();
        let bar = self.progress_bar(url, length);
        let mut reader = response
            .body_mut()
            .with_config()
            .limit(MAX_DOWNLOAD)
            .reader();
        let mut bytes = Vec::with_capacity(length.unwrap_or(0).min(MAX_DOWNLOAD) as usize);
        let mut buffer = [0u8; 16 * 1024];
        loop {
            let read = reader.read(&mut buffer).map_err(|e| {
                Error::invalid(format!(
                    "could not download {url}: {e}; check your network connection"
                ))
            })?;
            if read == 0 {
                break;
            }
            bytes.extend_from_slice(&buffer[..read]);
            bar.set_position(bytes.len() as u64);
        }
        bar.finish_and_clear();
        Ok(bytes)
    }

    fn progress_bar(&self, url: &str, length: Option<u64>) -> ProgressBar {
        if !self.show_progress {
            return ProgressBar::hidden();
        }
        // indicatif draws to stderr only when it is a terminal.
        let name = url.rsplit('/').next().unwrap_or(url).to_string();
        match length {
            Some(total) => {
                let bar = ProgressBar::new(total);
                if let Ok(style) = ProgressStyle::with_template(
                    "{prefix:>12} {msg} [{bar:30}] {bytes}/{total_bytes}",
                ) {
                    bar.set_style(style.progress_chars("=> "));
                }
                bar.set_prefix("downloading");
                bar.set_message(name);
                bar
            }
            None => {
                let bar = ProgressBar::new_spinner();
                if let Ok(style) =
                    ProgressStyle::with_template("{prefix:>12} {msg} {spinner} {bytes}")
                {
                    bar.set_style(style);
                }
                bar.set_prefix("downloading");
                bar.set_message(name);
                bar
            }
        }
    }
}

/// One line that says which address failed and what to do.
fn offline_error(url: &str, e: &ureq::Error) -> Error {
    let why = match e {
        ureq::Error::HostNotFound => "host not found".to_string(),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            "connection refused".to_string()
        }
        ureq::Error::Timeout(_) => "timed out".to_string(),
        other => other.to_string(),
    };
    Error::invalid(format!(
        "could not download {url}: {why}; check the address and your network connection, or pass a local chart directory or .tgz with --helm-chart"
    ))
}

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
}

/// The archive URL of chart `name` (at `version`, or the newest stable one) in a
/// repository index. `repo` names the repository in messages.
fn chart_url(
    index: &[u8],
    repo_url: &str,
    name: &str,
    version: Option<&str>,
    repo: &str,
) -> Result<String> {
    let index: Index = serde_yaml::from_slice(index).map_err(|e| {
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
    Ok(if url.contains("://") {
        url.clone()
    } else {
        format!(
            "{}/{}",
            repo_url.trim_end_matches('/'),
            url.trim_start_matches('/')
        )
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
        let url = chart_url(INDEX.as_bytes(), "http://r/", "memcached", None, "r").unwrap();
        assert_eq!(url, "http://r/charts/memcached-1.10.0.tgz");
        let url = chart_url(
            INDEX.as_bytes(),
            "http://r",
            "memcached",
            Some("v1.9.0"),
            "r",
        )
        .unwrap();
        assert_eq!(url, "https://cdn.example.com/memcached-1.9.0.tgz");
    }

    #[test]
    fn missing_chart_or_version_is_named() {
        let err = chart_url(INDEX.as_bytes(), "http://r", "redis", None, "r").unwrap_err();
        assert!(
            err.to_string()
                .contains("chart \"redis\" not found in Helm repository r")
        );
        let err = chart_url(
            INDEX.as_bytes(),
            "http://r",
            "memcached",
            Some("9.9.9"),
            "r",
        )
        .unwrap_err();
        assert!(err.to_string().contains("has no 9.9.9"), "{err}");
    }
}
