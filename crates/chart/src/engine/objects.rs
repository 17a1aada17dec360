//! The top-level objects a template sees: .Values, .Release, .Chart, .Capabilities,
//! .Files, .Template — with Go's field names and zero values.
use std::sync::Arc;

use gotemplate::Value;

use super::{Capabilities, RenderOptions};
use crate::chart::Chart;
use crate::convert::{map, string, to_template};
use crate::metadata::ChartMetadata;

fn strings(items: &[String]) -> Value {
    Value::List(items.iter().map(|s| string(s)).collect())
}

/// `.Chart`: Helm 4 exposes the metadata as a map with these keys (plus IsRoot).
pub fn chart_object(meta: &ChartMetadata, is_root: bool) -> Value {
    let maintainers = meta
        .maintainers
        .iter()
        .map(|m| {
            map([
                ("Name", string(&m.name)),
                ("Email", string(&m.email)),
                ("URL", string(&m.url)),
            ])
        })
        .collect();
    let dependencies = meta
        .dependencies
        .iter()
        .map(|d| {
            map([
                ("Name", string(&d.name)),
                ("Version", string(&d.version)),
                ("Repository", string(&d.repository)),
                ("Condition", string(&d.condition)),
                ("Tags", strings(&d.tags)),
                ("Enabled", Value::Bool(true)),
                (
                    "ImportValues",
                    Value::List(d.import_values.iter().map(to_template).collect()),
                ),
                ("Alias", string(&d.alias)),
            ])
        })
        .collect();
    let annotations = Value::Map(gotemplate::MapRef::new(
        meta.annotations
            .iter()
            .map(|(k, v)| (Arc::from(k.as_str()), string(v)))
            .collect(),
    ));
    map([
        ("APIVersion", string(&meta.api_version)),
        ("Annotations", annotations),
        ("AppVersion", string(&meta.app_version)),
        ("Condition", string(&meta.condition)),
        ("Dependencies", Value::List(dependencies)),
        ("Deprecated", Value::Bool(meta.deprecated)),
        ("Description", string(&meta.description)),
        ("Home", string(&meta.home)),
        ("Icon", string(&meta.icon)),
        ("IsRoot", Value::Bool(is_root)),
        ("Keywords", strings(&meta.keywords)),
        ("KubeVersion", string(&meta.kube_version)),
        ("Maintainers", Value::List(maintainers)),
        ("Name", string(&meta.name)),
        ("Sources", strings(&meta.sources)),
        ("Tags", string(&meta.tags)),
        ("Type", string(&meta.chart_type)),
        ("Version", string(&meta.version)),
    ])
}

pub fn release_object(opts: &RenderOptions) -> Value {
    map([
        ("IsInstall", Value::Bool(opts.is_install)),
        ("IsUpgrade", Value::Bool(opts.is_upgrade)),
        ("Name", string(&opts.release_name)),
        ("Namespace", string(&opts.namespace)),
        ("Revision", Value::Int(opts.revision)),
        ("Service", string("Helm")),
    ])
}

pub fn capabilities_object(caps: &Capabilities) -> Value {
    let kube = &caps.kube_version;
    map([
        (
            "KubeVersion",
            map([
                ("Version", string(&kube.version)),
                ("Major", string(&kube.major)),
                ("Minor", string(&kube.minor)),
                ("GitVersion", string(&kube.version)),
            ]),
        ),
        ("APIVersions", strings(&caps.api_versions)),
        (
            "HelmVersion",
            map([
                ("Version", string(&caps.helm_version.version)),
                ("GitCommit", string(&caps.helm_version.git_commit)),
                ("GitTreeState", string(&caps.helm_version.git_tree_state)),
                ("GoVersion", string(&caps.helm_version.go_version)),
                (
                    "KubeClientVersion",
                    string(&caps.helm_version.kube_client_version),
                ),
            ]),
        ),
    ])
}

/// `.Files`: every file of the chart outside templates/, charts/ and the chart's own
/// Chart.yaml/values files, by chart-relative path. Text files are strings; a file that
/// is not UTF-8 is kept as its bytes (a list of integers), so `b64enc` and `AsSecrets`
/// see the real bytes.
pub fn files_object(chart: &Chart) -> Value {
    Value::Map(gotemplate::MapRef::new(
        chart
            .files
            .iter()
            .map(|f| {
                let content = match std::str::from_utf8(&f.data) {
                    Ok(text) => string(text),
                    Err(_) => {
                        Value::List(f.data.iter().map(|b| Value::Int(i64::from(*b))).collect())
                    }
                };
                (Arc::from(f.name.as_str()), content)
            })
            .collect(),
    ))
}
