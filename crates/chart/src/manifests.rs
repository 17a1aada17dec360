//! Rendered output as Kubernetes objects: documents split, `v1 List` items expanded,
//! hooks told apart, and the union of objects a chart can create.
use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::chart::Chart;
use crate::error::{ManifestError, ObjectsError};

/// One object of a render.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// The template (or crds/ file) it came from, e.g. `mychart/templates/service.yaml`.
    pub source: String,
    /// The `helm.sh/hook` kinds, when the object is a hook.
    pub hook: Option<Vec<HookKind>>,
    pub object: Value,
}

impl Manifest {
    pub fn api_version(&self) -> &str {
        self.object
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    pub fn kind(&self) -> &str {
        self.object
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    pub fn name(&self) -> &str {
        self.object
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("")
    }
}

/// The values of the `helm.sh/hook` annotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookKind {
    PreInstall,
    PostInstall,
    PreUpgrade,
    PostUpgrade,
    PreDelete,
    PostDelete,
    PreRollback,
    PostRollback,
    Test,
}

impl HookKind {
    /// Parse one annotation entry (`test-success` is Helm 2's name for `test`).
    pub fn parse(s: &str) -> Option<HookKind> {
        Some(match s.trim() {
            "pre-install" => HookKind::PreInstall,
            "post-install" => HookKind::PostInstall,
            "pre-upgrade" => HookKind::PreUpgrade,
            "post-upgrade" => HookKind::PostUpgrade,
            "pre-delete" => HookKind::PreDelete,
            "post-delete" => HookKind::PostDelete,
            "pre-rollback" => HookKind::PreRollback,
            "post-rollback" => HookKind::PostRollback,
            "test" | "test-success" => HookKind::Test,
            _ => return None,
        })
    }
}

fn hooks_of(object: &Value) -> Option<Vec<HookKind>> {
    let text = object
        .pointer("/metadata/annotations/helm.sh~1hook")?
        .as_str()?;
    Some(text.split(',').filter_map(HookKind::parse).collect())
}

fn is_notes(source: &str) -> bool {
    source.rsplit('/').next() == Some("NOTES.txt")
}

/// Split rendered templates into objects: NOTES.txt and empty documents are skipped,
/// the items of a `v1 List` become objects of their own.
///
/// # Errors
///
/// A document that is not YAML, not a mapping, or lacks `apiVersion` or `kind`: the
/// error names the template it came from.
pub fn split_manifests(
    rendered: &BTreeMap<String, String>,
) -> Result<Vec<Manifest>, ManifestError> {
    let mut out = Vec::new();
    for (source, text) in rendered {
        if is_notes(source) {
            continue;
        }
        split_into(source, text, &mut out)?;
    }
    Ok(out)
}

fn split_into(source: &str, text: &str, out: &mut Vec<Manifest>) -> Result<(), ManifestError> {
    let err = |message: String| ManifestError {
        source_file: source.to_string(),
        message,
    };
    let docs = crate::yaml::parse_all(text)
        .map_err(|e| err(format!("rendered output is not valid YAML: {e}")))?;
    for doc in docs {
        if !doc.is_object() {
            return Err(err(format!("a document is not a Kubernetes object: {doc}")));
        }
        let kind = doc.get("kind").and_then(Value::as_str).unwrap_or("");
        let api_version = doc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        if kind.is_empty() || api_version.is_empty() {
            return Err(err("an object has no apiVersion or kind".into()));
        }
        if kind == "List" && api_version == "v1" {
            for item in doc
                .get("items")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                out.push(Manifest {
                    source: source.to_string(),
                    hook: hooks_of(item),
                    object: item.clone(),
                });
            }
            continue;
        }
        out.push(Manifest {
            source: source.to_string(),
            hook: hooks_of(&doc),
            object: doc,
        });
    }
    Ok(())
}

/// Every key named `enabled` whose value is a boolean in the chart's own values.yaml,
/// set to true; nested maps at any depth, lists not entered.
pub fn switches_overlay(chart: &Chart) -> Value {
    fn walk(values: &Value) -> Map<String, Value> {
        let mut out = Map::new();
        let Value::Object(map) = values else {
            return out;
        };
        for (key, val) in map {
            if key == "enabled" && val.is_boolean() {
                out.insert(key.clone(), Value::Bool(true));
            } else if val.is_object() {
                let sub = walk(val);
                if !sub.is_empty() {
                    out.insert(key.clone(), Value::Object(sub));
                }
            }
        }
        out
    }
    Value::Object(walk(chart.values()))
}

/// Everything a chart can create: the objects of the default render and of the
/// all-switches-on render, plus the crds/ files; one entry per (apiVersion, kind, source).
///
/// Charts may refuse some switch combinations (`required`, `fail`, the schema); when the
/// all-on render fails, each switch is tried on its own and the renders that work count.
/// Only a failing default render is an error.
///
/// # Errors
///
/// The default render's error ([`ObjectsError::Render`]), or a rendered document that is
/// not an object ([`ObjectsError::Manifest`]).
pub fn all_objects(chart: &Chart) -> Result<ChartObjects, ObjectsError> {
    let opts = crate::RenderOptions::default();
    // The renders of one set share generated keys: RSA keys would dominate otherwise.
    let _keys = crate::sprig::KeyReuse::begin();
    let objects = |values: &Value| -> Result<Vec<Manifest>, ObjectsError> {
        Ok(split_manifests(&crate::render(chart, values, &opts)?)?)
    };
    let mut all = objects(&Value::Object(Map::new()))?;
    let mut failed = Vec::new();
    let overlay = switches_overlay(chart);
    // All switches at once; when that fails, halves of them, down to the switches
    // that fail on their own: a few renders when few switches fail, not one per switch.
    let mut pending = vec![single_switches(&overlay)];
    while let Some(group) = pending.pop() {
        if group.is_empty() {
            continue;
        }
        let merged = group
            .iter()
            .fold(Value::Object(Map::new()), |mut acc, one| {
                merge_overlay(&mut acc, one);
                acc
            });
        match objects(&merged) {
            Ok(switched) => all.extend(switched),
            Err(e) if group.len() == 1 => {
                failed.push(failed_switch(chart, &group[0], &e.to_string()));
            }
            Err(_) => {
                let mut first = group;
                let second = first.split_off(first.len() / 2);
                pending.extend([second, first]);
            }
        }
    }
    for crd in chart.crds() {
        split_into(&crd.name, &crd.text(), &mut all)?;
    }
    let mut seen = std::collections::HashSet::new();
    all.retain(|m| {
        seen.insert((
            m.api_version().to_string(),
            m.kind().to_string(),
            m.source.clone(),
        ))
    });
    Ok(ChartObjects {
        manifests: all,
        failed_switches: failed,
    })
}

/// What [`all_objects`] found: the objects, and the switches whose render failed
/// (the objects only they turn on are unknown).
#[derive(Debug)]
pub struct ChartObjects {
    pub manifests: Vec<Manifest>,
    pub failed_switches: Vec<FailedSwitch>,
}

/// A switch that could not be rendered on its own.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FailedSwitch {
    /// Its path in the values, e.g. `metrics.serviceMonitor.enabled`.
    pub switch: String,
    /// Templates that mention it: the objects they create may be missing.
    pub templates: Vec<String>,
    /// The render's error.
    pub error: String,
}

/// Name the switch of a one-switch overlay and the templates (subcharts' included)
/// that read it, by the last two keys of its path (`serviceMonitor.enabled`).
fn failed_switch(chart: &Chart, overlay: &Value, error: &str) -> FailedSwitch {
    let mut path = Vec::new();
    let mut at = overlay;
    while let Some((key, inner)) = at.as_object().and_then(|m| m.iter().next()) {
        path.push(key.as_str());
        at = inner;
    }
    let needle = format!(".{}", path[path.len().saturating_sub(2)..].join("."));
    let mut templates = Vec::new();
    let mut pending = vec![chart];
    while let Some(c) = pending.pop() {
        templates.extend(
            c.templates()
                .iter()
                .filter(|t| t.text().contains(&needle))
                .map(|t| format!("{}/{}", c.name(), t.name)),
        );
        pending.extend(c.dependencies());
    }
    FailedSwitch {
        switch: path.join("."),
        templates,
        error: error.to_string(),
    }
}

/// Add a one-switch overlay's keys into `acc`.
fn merge_overlay(acc: &mut Value, one: &Value) {
    if let (Value::Object(acc), Value::Object(one)) = (acc, one) {
        for (key, val) in one {
            match acc.get_mut(key) {
                Some(existing) if existing.is_object() && val.is_object() => {
                    merge_overlay(existing, val);
                }
                _ => {
                    acc.insert(key.clone(), val.clone());
                }
            }
        }
    }
}

/// One overlay per switch of `overlay`, each turning on just that switch.
fn single_switches(overlay: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    if let Value::Object(map) = overlay {
        for (key, val) in map {
            if val.is_object() {
                for inner in single_switches(val) {
                    let mut m = Map::new();
                    m.insert(key.clone(), inner);
                    out.push(Value::Object(m));
                }
            } else {
                let mut m = Map::new();
                m.insert(key.clone(), val.clone());
                out.push(Value::Object(m));
            }
        }
    }
    out
}
