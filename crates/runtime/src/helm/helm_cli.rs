//! `HelmClient` that runs the Helm CLI (`helm` from PATH, or `$HELM_BIN`). Helm 4 is what
//! the generated image pins; Helm 3 keeps working (the major version is asked once).
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use async_trait::async_trait;
use tokio::process::Command;
use tokio::sync::OnceCell;

use super::client::{
    DryRun, HelmClient, HelmError, InstallOptions, ReleaseTarget, RollbackOptions,
    UninstallOptions, UpgradeOptions,
};
use super::release::{Release, ReleaseJson, ReleaseRevision};
use super::release_store;

/// Helm's own default for `--timeout` (5m0s in Helm 3 and 4).
pub const DEFAULT_HELM_TIMEOUT: Duration = Duration::from_secs(300);
/// How long after `--timeout` a helm process may still run before it is killed (a tenth
/// of the timeout, at most this).
const KILL_GRACE: Duration = Duration::from_secs(30);

/// Runs the `helm` binary. Release name and namespace come from the custom resource;
/// values go through a temporary JSON file (`-f`), so no `--set` escaping is involved.
/// Once a Kubernetes client is attached, the latest release is read from Helm's storage
/// Secrets directly instead of running `helm status`.
#[derive(Clone)]
pub struct HelmCli {
    binary: PathBuf,
    timeout: Duration,
    major: Arc<OnceCell<u32>>,
    client: Arc<OnceLock<kube::Client>>,
}

impl std::fmt::Debug for HelmCli {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HelmCli")
            .field("binary", &self.binary)
            .field("timeout", &self.timeout)
            .field("major", &self.major.get())
            .field("reads_secrets", &self.client.get().is_some())
            .finish()
    }
}

impl Default for HelmCli {
    fn default() -> Self {
        HelmCli::new()
    }
}

impl HelmCli {
    /// `$HELM_BIN` when set, else `helm` from PATH.
    pub fn new() -> Self {
        let binary = std::env::var_os("HELM_BIN")
            .filter(|b| !b.is_empty())
            .unwrap_or_else(|| OsString::from("helm"));
        HelmCli::with_binary(binary)
    }

    /// Use this helm binary.
    pub fn with_binary(binary: impl Into<PathBuf>) -> Self {
        HelmCli {
            binary: binary.into(),
            timeout: DEFAULT_HELM_TIMEOUT,
            major: Arc::new(OnceCell::new()),
            client: Arc::new(OnceLock::new()),
        }
    }

    /// `--timeout` of every helm operation; the process is killed 30s after it.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Speak this Helm major version's flags instead of asking `helm version`.
    pub fn with_major_version(self, major: u32) -> Self {
        let _ = self.major.set(major);
        self
    }

    /// The Helm major version: asked once; Helm 3's flags (which Helm 4 still accepts,
    /// deprecated) when it cannot be told.
    async fn major(&self) -> u32 {
        *self
            .major
            .get_or_init(|| async {
                let args = vec!["version".into(), "--template".into(), "{{.Version}}".into()];
                let target = ReleaseTarget::new("", "");
                let major = match self.run(args, "version", &target).await {
                    Ok(Ok(out)) => parse_major(&out),
                    _ => None,
                };
                match major {
                    Some(major) => major,
                    None => {
                        tracing::warn!(binary = %self.binary.display(), "cannot tell the helm version; using Helm 3 flags");
                        3
                    }
                }
            })
            .await
    }

    /// What "force" means to this Helm. Helm 4 applies server-side and refuses
    /// `--force-replace` together with it, so forcing there takes over conflicting fields
    /// (`--force-conflicts`, server-side as the release already is); Helm 3 replaces
    /// objects (`--force`).
    async fn force_args(&self) -> &'static [&'static str] {
        match self.major().await {
            major if major >= 4 => &["--server-side=true", "--force-conflicts"],
            _ => &["--force"],
        }
    }

    fn timeout_args(&self) -> [OsString; 2] {
        [
            "--timeout".into(),
            format!("{}s", self.timeout.as_secs()).into(),
        ]
    }

    /// The binary this client runs.
    pub fn binary(&self) -> &Path {
        &self.binary
    }

    /// Run helm; Ok(stdout) on success, Err(trimmed stderr) on a non-zero exit.
    async fn run(
        &self,
        args: Vec<OsString>,
        operation: &'static str,
        target: &ReleaseTarget,
    ) -> Result<Result<String, String>, HelmError> {
        let limit = self.timeout + (self.timeout / 10).min(KILL_GRACE);
        let running = Command::new(&self.binary)
            .args(&args)
            .kill_on_drop(true)
            .output();
        let output = tokio::time::timeout(limit, running)
            .await
            .map_err(|_| HelmError::Timeout {
                operation,
                release: target.clone(),
                millis: limit.as_millis(),
            })?
            .map_err(|source| HelmError::Spawn {
                binary: self.binary.display().to_string(),
                source,
            })?;
        if output.status.success() {
            return Ok(Ok(String::from_utf8_lossy(&output.stdout).into_owned()));
        }
        let mut stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
        if stderr.is_empty() {
            stderr = format!("{operation} exited with {}", output.status);
        }
        tracing::debug!(%target, operation, %stderr, "helm failed");
        Ok(Err(stderr))
    }

    /// Run helm and fail on a non-zero exit.
    async fn run_checked(
        &self,
        args: Vec<OsString>,
        operation: &'static str,
        target: &ReleaseTarget,
    ) -> Result<String, HelmError> {
        self.run(args, operation, target)
            .await?
            .map_err(|stderr| HelmError::Command {
                operation,
                release: target.clone(),
                stderr,
            })
    }
}

/// Helm 3 and 4 both print `driver.ErrReleaseNotFound` (pkg/storage/driver/driver.go).
fn is_release_not_found(stderr: &str) -> bool {
    stderr.contains("release: not found")
}

/// `v4.2.4` / `v3.18.6+g1234` -> major version.
fn parse_major(version: &str) -> Option<u32> {
    let version = version.trim().strip_prefix('v')?;
    version.split('.').next()?.parse().ok()
}

fn base_args(verb: &str, target: &ReleaseTarget) -> Vec<OsString> {
    vec![
        verb.into(),
        target.name.clone().into(),
        "-n".into(),
        target.namespace.clone().into(),
    ]
}

fn push_common(args: &mut Vec<OsString>, disable_hooks: bool, description: &Option<String>) {
    if disable_hooks {
        args.push("--no-hooks".into());
    }
    if let Some(description) = description {
        args.push("--description".into());
        args.push(description.into());
    }
}

fn write_values(
    values: &serde_json::Value,
    target: &ReleaseTarget,
) -> Result<tempfile::NamedTempFile, HelmError> {
    let to_error = |source| HelmError::Values {
        release: target.clone(),
        source,
    };
    let mut file = tempfile::Builder::new()
        .prefix("helm-values-")
        .suffix(".json")
        .tempfile()
        .map_err(to_error)?;
    serde_json::to_writer(&mut file, values).map_err(|e| to_error(e.into()))?;
    file.flush().map_err(to_error)?;
    Ok(file)
}

fn parse_release(
    stdout: &str,
    operation: &'static str,
    target: &ReleaseTarget,
) -> Result<Release, HelmError> {
    serde_json::from_str::<ReleaseJson>(stdout)
        .map(Release::from)
        .map_err(|e| HelmError::Output {
            operation,
            release: target.clone(),
            reason: e.to_string(),
        })
}

/// `helm install|upgrade NAME CHART -n NS -f values.json -o json`, with the values file
/// kept alive until helm exits.
fn chart_args(
    verb: &str,
    target: &ReleaseTarget,
    chart: &Path,
    values_file: &Path,
) -> Vec<OsString> {
    let mut args = vec![verb.into(), target.name.clone().into(), chart.into()];
    args.extend([
        "-n".into(),
        target.namespace.clone().into(),
        "-f".into(),
        values_file.into(),
        "-o".into(),
        "json".into(),
    ]);
    args
}

#[async_trait]
impl HelmClient for HelmCli {
    async fn install(
        &self,
        target: &ReleaseTarget,
        chart: &Path,
        values: &serde_json::Value,
        options: &InstallOptions,
    ) -> Result<Release, HelmError> {
        let values_file = write_values(values, target)?;
        let mut args = chart_args("install", target, chart, values_file.path());
        args.extend(self.timeout_args());
        push_common(&mut args, options.disable_hooks, &options.description);
        let stdout = self.run_checked(args, "install", target).await?;
        parse_release(&stdout, "install", target)
    }

    async fn upgrade(
        &self,
        target: &ReleaseTarget,
        chart: &Path,
        values: &serde_json::Value,
        options: &UpgradeOptions,
    ) -> Result<Release, HelmError> {
        let values_file = write_values(values, target)?;
        let mut args = chart_args("upgrade", target, chart, values_file.path());
        if let Some(max) = options.max_history {
            args.extend(["--history-max".into(), max.to_string().into()]);
        }
        if options.force {
            args.extend(self.force_args().await.iter().map(OsString::from));
        }
        if options.reset_values {
            args.push("--reset-values".into());
        }
        args.extend(self.timeout_args());
        push_common(&mut args, options.disable_hooks, &options.description);
        let operation = match options.dry_run {
            Some(DryRun::Server) => {
                args.push("--dry-run=server".into());
                "upgrade --dry-run"
            }
            Some(DryRun::Client) => {
                args.push("--dry-run=client".into());
                "upgrade --dry-run"
            }
            None => "upgrade",
        };
        let stdout = self.run_checked(args, operation, target).await?;
        parse_release(&stdout, operation, target)
    }

    async fn uninstall(
        &self,
        target: &ReleaseTarget,
        options: &UninstallOptions,
    ) -> Result<(), HelmError> {
        let mut args = base_args("uninstall", target);
        // A bare `--wait` is Helm 3's boolean and Helm 4's `watcher` strategy.
        args.extend(["--wait".into(), "--ignore-not-found".into()]);
        args.extend(self.timeout_args());
        push_common(&mut args, options.disable_hooks, &options.description);
        self.run_checked(args, "uninstall", target).await.map(drop)
    }

    fn attach_client(&self, client: &kube::Client) {
        if release_store::secrets_driver() {
            let _ = self.client.set(client.clone());
        }
    }

    async fn get(&self, target: &ReleaseTarget) -> Result<Option<Release>, HelmError> {
        if let Some(client) = self.client.get() {
            return release_store::latest(client, target).await;
        }
        let mut args = base_args("status", target);
        args.extend(["-o".into(), "json".into()]);
        match self.run(args, "status", target).await? {
            Ok(stdout) => parse_release(&stdout, "status", target).map(Some),
            Err(stderr) if is_release_not_found(&stderr) => Ok(None),
            Err(stderr) => Err(HelmError::Command {
                operation: "status",
                release: target.clone(),
                stderr,
            }),
        }
    }

    async fn history(&self, target: &ReleaseTarget) -> Result<Vec<ReleaseRevision>, HelmError> {
        let mut args = base_args("history", target);
        args.extend(["-o".into(), "json".into()]);
        match self.run(args, "history", target).await? {
            Ok(stdout) => serde_json::from_str(&stdout).map_err(|e| HelmError::Output {
                operation: "history",
                release: target.clone(),
                reason: e.to_string(),
            }),
            Err(stderr) if is_release_not_found(&stderr) => Ok(Vec::new()),
            Err(stderr) => Err(HelmError::Command {
                operation: "history",
                release: target.clone(),
                stderr,
            }),
        }
    }

    async fn rollback(
        &self,
        target: &ReleaseTarget,
        revision: Option<u32>,
        options: &RollbackOptions,
    ) -> Result<(), HelmError> {
        let mut args: Vec<OsString> = vec!["rollback".into(), target.name.clone().into()];
        if let Some(revision) = revision {
            args.push(revision.to_string().into());
        }
        args.extend(["-n".into(), target.namespace.clone().into()]);
        if options.force {
            args.extend(self.force_args().await.iter().map(OsString::from));
        }
        if let Some(max) = options.max_history {
            args.extend(["--history-max".into(), max.to_string().into()]);
        }
        args.extend(self.timeout_args());
        self.run_checked(args, "rollback", target).await.map(drop)
    }
}

#[cfg(test)]
#[path = "helm_cli_tests.rs"]
mod tests;
