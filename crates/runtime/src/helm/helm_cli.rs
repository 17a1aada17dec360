//! `HelmClient` that runs the Helm 3 CLI (`helm` from PATH, or `$HELM_BIN`).
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use tokio::process::Command;

use super::client::{
    DryRun, HelmClient, HelmError, InstallOptions, ReleaseTarget, RollbackOptions,
    UninstallOptions, UpgradeOptions,
};
use super::release::{Release, ReleaseJson, ReleaseRevision};

/// Runs the `helm` binary. Release name and namespace come from the custom resource;
/// values go through a temporary JSON file (`-f`), so no `--set` escaping is involved.
#[derive(Clone, Debug)]
pub struct HelmCli {
    binary: PathBuf,
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
        }
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
        let output = Command::new(&self.binary)
            .args(&args)
            .kill_on_drop(true)
            .output()
            .await
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

fn is_release_not_found(stderr: &str) -> bool {
    stderr.contains("release: not found")
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
            args.push("--force".into());
        }
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
        args.extend(["--wait".into(), "--ignore-not-found".into()]);
        push_common(&mut args, options.disable_hooks, &options.description);
        self.run_checked(args, "uninstall", target).await.map(drop)
    }

    async fn get(&self, target: &ReleaseTarget) -> Result<Option<Release>, HelmError> {
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
            args.push("--force".into());
        }
        if let Some(max) = options.max_history {
            args.extend(["--history-max".into(), max.to_string().into()]);
        }
        self.run_checked(args, "rollback", target).await.map(drop)
    }
}

#[cfg(test)]
#[path = "helm_cli_tests.rs"]
mod tests;
