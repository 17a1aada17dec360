//! Charts from the network: an archive URL, a chart in a Helm repository (by URL or by the
//! name `helm repo add` gave it), or an OCI registry. Every download shows a progress bar on
//! a terminal and fails with one line that names the address when the network is away.
use std::io::Read;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use super::source::ChartRef;
use crate::error::{Error, Result};
use crate::ui::Shell;

mod helm_home;
mod oci;
mod repo_index;

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
            let found =
                repo_index::find_chart(&index, repo_url, name, version.as_deref(), repo_url)?;
            let bytes = client.get(&found.url, &[])?;
            found.verify(&bytes)?;
            Ok((found.url, bytes))
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
            let found =
                repo_index::find_chart(&index, entry.url(), name, version.as_deref(), repo)?;
            let bytes = client.get(&found.url, &auth)?;
            found.verify(&bytes)?;
            Ok((found.url, bytes))
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
        if let Some(total) = length {
            let bar = ProgressBar::new(total);
            if let Ok(style) =
                ProgressStyle::with_template("{prefix:>12} {msg} [{bar:30}] {bytes}/{total_bytes}")
            {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_prefix("downloading");
            bar.set_message(name);
            bar
        } else {
            let bar = ProgressBar::new_spinner();
            if let Ok(style) = ProgressStyle::with_template("{prefix:>12} {msg} {spinner} {bytes}")
            {
                bar.set_style(style);
            }
            bar.set_prefix("downloading");
            bar.set_message(name);
            bar
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
