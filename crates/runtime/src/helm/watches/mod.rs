//! watches.yaml: which custom resources are reconciled with which Helm chart
//! (operator-sdk / helm-operator-plugins schema).
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};
use kube::api::GroupVersionKind;
use serde::Deserialize;

use super::chart_check::{ChartProblem, check_chart};
use super::client::DryRun;
use super::duration::parse_go_duration;
use super::env::expand_env;

/// One entry of watches.yaml.
#[derive(Clone, Debug, PartialEq)]
pub struct Watch {
    /// API group; empty for the core group.
    pub group: String,
    pub version: String,
    pub kind: String,
    /// Chart directory or `.tgz`, relative to the working directory (as operator-sdk does).
    pub chart: PathBuf,
    /// Watch the objects of each release and reconcile when they change (default true).
    pub watch_dependent_resources: bool,
    /// `--set`-style overrides (`a.b=value`), environment variables already expanded.
    pub override_values: BTreeMap<String, String>,
    /// Requeue period after a successful reconcile; `None`: the default (one minute).
    pub reconcile_period: Option<Duration>,
    /// `None`: the default (four per CPU).
    pub max_concurrent_reconciles: Option<usize>,
    /// Only custom resources matching this selector are reconciled (empty = all).
    pub selector: LabelSelector,
    /// `dryRunOption`: how the upgrade that decides whether anything changed renders
    /// (`server` evaluates `lookup`; operator-sdk's default is client-side).
    pub dry_run_option: DryRun,
}

impl Watch {
    /// The watched group/version/kind.
    pub fn gvk(&self) -> GroupVersionKind {
        GroupVersionKind::gvk(&self.group, &self.version, &self.kind)
    }
}

/// Why watches.yaml could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum WatchesError {
    #[error("cannot read watches file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("watches file {path} is not a YAML list of watches: {message}")]
    Syntax { path: PathBuf, message: String },
    #[error("watches file {path}, entry #{index} ({gvk}): {problem}")]
    Entry {
        path: PathBuf,
        /// 1-based position in the file.
        index: usize,
        /// `group/version, Kind=kind` as far as the entry spells it.
        gvk: String,
        problem: EntryProblem,
    },
}

/// What is wrong with one watches.yaml entry.
#[derive(Debug, thiserror::Error)]
pub enum EntryProblem {
    #[error("{0}")]
    Schema(String),
    #[error("version must not be empty")]
    MissingVersion,
    #[error("kind must not be empty")]
    MissingKind,
    #[error("chart must not be empty; give the path of a chart directory or .tgz")]
    MissingChart,
    #[error("invalid chart {path}: {problem}")]
    Chart {
        path: PathBuf,
        problem: ChartProblem,
    },
    #[error(
        "invalid reconcilePeriod {value:?}: {reason}; use a Go duration such as 30s, 1m30s or 2h"
    )]
    ReconcilePeriod { value: String, reason: String },
    #[error("maxConcurrentReconciles must be at least 1, got {0}")]
    MaxConcurrentReconciles(i64),
    #[error("invalid selector: {0}")]
    Selector(String),
    #[error("invalid dryRunOption {0:?}; use client, none or server")]
    DryRunOption(String),
    #[error("overrideValues {key:?}: {reason}")]
    OverrideTemplate { key: String, reason: String },
    #[error("duplicate GVK: already declared by entry #{first}")]
    DuplicateGvk { first: usize },
}

/// The entry as written, strict about field names.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawWatch {
    #[serde(default)]
    group: String,
    #[serde(default)]
    version: String,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    chart: String,
    #[serde(default = "default_true")]
    watch_dependent_resources: bool,
    #[serde(default)]
    override_values: BTreeMap<String, String>,
    reconcile_period: Option<String>,
    max_concurrent_reconciles: Option<i64>,
    #[serde(default)]
    selector: RawSelector,
    dry_run_option: Option<String>,
}

fn default_true() -> bool {
    true
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawSelector {
    match_labels: Option<BTreeMap<String, String>>,
    match_expressions: Option<Vec<RawRequirement>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRequirement {
    key: String,
    operator: String,
    values: Option<Vec<String>>,
}

/// Load and validate watches.yaml. Chart paths are checked relative to the working directory;
/// `overrideValues` get `$VAR` / `${VAR}` expansion from the process environment.
///
/// # Errors
///
/// The [`WatchesError`] that names the file, or the entry and field, to fix.
pub fn load_watches(path: &Path) -> Result<Vec<Watch>, WatchesError> {
    let text = std::fs::read_to_string(path).map_err(|source| WatchesError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_watches(path, &text, |name| std::env::var(name).ok())
}

/// Parse watches.yaml text; `path` is only used in messages, `env` resolves variables.
pub(crate) fn parse_watches(
    path: &Path,
    text: &str,
    env: impl Fn(&str) -> Option<String> + Clone + Send + Sync + 'static,
) -> Result<Vec<Watch>, WatchesError> {
    let entries: Option<Vec<serde_json::Value>> =
        serde_saphyr::from_str(text).map_err(|e| WatchesError::Syntax {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
    let mut first_index_of: HashMap<(String, String, String), usize> = HashMap::new();
    let mut watches = Vec::new();
    for (position, entry) in entries.unwrap_or_default().into_iter().enumerate() {
        let index = position + 1;
        let entry_error = |gvk: String, problem| WatchesError::Entry {
            path: path.to_path_buf(),
            index,
            gvk,
            problem,
        };
        let label = describe_gvk(&entry);
        let raw: RawWatch = serde_json::from_value(entry)
            .map_err(|e| entry_error(label.clone(), EntryProblem::Schema(e.to_string())))?;
        let watch = validate(raw, &env).map_err(|problem| entry_error(label.clone(), problem))?;
        let key = (
            watch.group.clone(),
            watch.version.clone(),
            watch.kind.clone(),
        );
        if let Some(first) = first_index_of.get(&key) {
            return Err(entry_error(
                label,
                EntryProblem::DuplicateGvk { first: *first },
            ));
        }
        first_index_of.insert(key, index);
        watches.push(watch);
    }
    Ok(watches)
}

/// An `overrideValues` entry after `$VAR` expansion is a Go template with sprig's
/// functions (`env` and `expandenv` included), run over nil data, as in
/// helm-operator-plugins (pkg/watches/watches.go `expandOverrideValues`).
#[cfg(feature = "chart-engine")]
fn override_template(
    key: &str,
    value: &str,
    env: &(impl Fn(&str) -> Option<String> + Clone + Send + Sync + 'static),
) -> Result<String, EntryProblem> {
    if !value.contains("{{") {
        return Ok(value.to_string());
    }
    let expand = env.clone();
    rusty_sdk_chart::sprig::execute_standalone(key, value, env.clone(), move |text| {
        expand_env(text, &expand)
    })
    .map_err(|e| EntryProblem::OverrideTemplate {
        key: key.to_string(),
        reason: e.to_string(),
    })
}

/// Without the chart engine there is no template engine to run the entry with.
#[cfg(not(feature = "chart-engine"))]
fn override_template(
    key: &str,
    value: &str,
    _env: &(impl Fn(&str) -> Option<String> + Clone + Send + Sync + 'static),
) -> Result<String, EntryProblem> {
    if value.contains("{{") {
        return Err(EntryProblem::OverrideTemplate {
            key: key.to_string(),
            reason: "templates in overrideValues need rusty-sdk-runtime's `chart-engine` feature; enable it in Cargo.toml".into(),
        });
    }
    Ok(value.to_string())
}

fn validate(
    raw: RawWatch,
    env: &(impl Fn(&str) -> Option<String> + Clone + Send + Sync + 'static),
) -> Result<Watch, EntryProblem> {
    if raw.version.trim().is_empty() {
        return Err(EntryProblem::MissingVersion);
    }
    if raw.kind.trim().is_empty() {
        return Err(EntryProblem::MissingKind);
    }
    if raw.chart.trim().is_empty() {
        return Err(EntryProblem::MissingChart);
    }
    let chart = PathBuf::from(&raw.chart);
    check_chart(&chart).map_err(|problem| EntryProblem::Chart {
        path: chart.clone(),
        problem,
    })?;
    let reconcile_period = raw
        .reconcile_period
        .map(|value| {
            parse_go_duration(&value).map_err(|e| EntryProblem::ReconcilePeriod {
                value: value.clone(),
                reason: e.to_string(),
            })
        })
        .transpose()?;
    let max_concurrent_reconciles = raw
        .max_concurrent_reconciles
        .map(|n| {
            usize::try_from(n)
                .ok()
                .filter(|n| *n >= 1)
                .ok_or(EntryProblem::MaxConcurrentReconciles(n))
        })
        .transpose()?;
    let override_values = raw
        .override_values
        .into_iter()
        .map(|(key, value)| {
            let value = override_template(&key, &expand_env(&value, env), env)?;
            Ok((key, value))
        })
        .collect::<Result<_, EntryProblem>>()?;
    // operator-sdk: "server", or client-side for "client", "none" and unset.
    let dry_run_option = match raw.dry_run_option.as_deref().map(str::trim) {
        None | Some("" | "client" | "none") => DryRun::Client,
        Some("server") => DryRun::Server,
        Some(other) => return Err(EntryProblem::DryRunOption(other.to_string())),
    };
    Ok(Watch {
        group: raw.group,
        version: raw.version,
        kind: raw.kind,
        chart,
        watch_dependent_resources: raw.watch_dependent_resources,
        override_values,
        reconcile_period,
        max_concurrent_reconciles,
        selector: label_selector(raw.selector).map_err(EntryProblem::Selector)?,
        dry_run_option,
    })
}

fn label_selector(raw: RawSelector) -> Result<LabelSelector, String> {
    let expressions = raw
        .match_expressions
        .map(|requirements| requirements.into_iter().map(requirement).collect())
        .transpose()?;
    Ok(LabelSelector {
        match_labels: raw.match_labels,
        match_expressions: expressions,
    })
}

fn requirement(raw: RawRequirement) -> Result<LabelSelectorRequirement, String> {
    let has_values = raw.values.as_ref().is_some_and(|v| !v.is_empty());
    match raw.operator.as_str() {
        "In" | "NotIn" if !has_values => Err(format!(
            "operator {} on key {:?} needs a non-empty values list",
            raw.operator, raw.key
        )),
        "Exists" | "DoesNotExist" if has_values => Err(format!(
            "operator {} on key {:?} must not have values",
            raw.operator, raw.key
        )),
        "In" | "NotIn" | "Exists" | "DoesNotExist" => Ok(LabelSelectorRequirement {
            key: raw.key,
            operator: raw.operator,
            values: raw.values,
        }),
        other => Err(format!(
            "unknown operator {other:?} on key {:?}; use In, NotIn, Exists or DoesNotExist",
            raw.key
        )),
    }
}

/// `group/version, Kind=kind` from whatever the entry has, for messages.
fn describe_gvk(entry: &serde_json::Value) -> String {
    let field = |name: &str| entry.get(name).and_then(|v| v.as_str()).unwrap_or("");
    GvkLabel {
        group: field("group"),
        version: field("version"),
        kind: field("kind"),
    }
    .to_string()
}

struct GvkLabel<'a> {
    group: &'a str,
    version: &'a str,
    kind: &'a str,
}

impl fmt::Display for GvkLabel<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}, Kind={}", self.group, self.version, self.kind)
    }
}

#[cfg(test)]
mod tests;
