//! Helm's dependency processing before a render: aliases, `tags`, `condition` and
//! `import-values` (Helm's `ProcessDependencies`).
use serde_json::{Map, Value};

use crate::chart::Chart;
use helm_values::{coalesce_tables, coalesce_values, merge_values, path_value};

/// A copy of `chart` with aliased subcharts renamed and disabled ones removed, and with
/// imported values merged into the parents' defaults.
pub fn process(chart: &Chart, user: &Value) -> Chart {
    let mut chart = chart.clone();
    // Conditions and tags are read from the coalesced values; a tree that declares no
    // dependencies has none to read, and skips coalescing its values here.
    if declares_dependencies(&chart) {
        let root_values = coalesce_values(&with_aliases(&chart), user);
        enable(&mut chart, &root_values, "");
        import_values(&mut chart);
    }
    chart
}

/// Helm's check, while it reads conditions, that every subchart's section of the
/// values is a map (`type mismatch on ...`); it covers subcharts that turn out disabled.
pub(crate) fn check_sections(chart: &Chart, user: &Value) -> Result<(), String> {
    if !declares_dependencies(chart) {
        return Ok(());
    }
    let aliased = with_aliases(chart);
    let root_values = coalesce_values(&aliased, user);
    crate::values::subchart_sections(&aliased, &root_values, true)
}

/// Whether `chart` or a subchart lists dependencies in its Chart.yaml.
fn declares_dependencies(chart: &Chart) -> bool {
    !chart.metadata.dependencies.is_empty() || chart.dependencies.iter().any(declares_dependencies)
}

/// Subcharts as Chart.yaml lists them: an alias makes a renamed copy; charts under
/// charts/ that Chart.yaml does not list are kept.
fn apply_aliases(chart: &mut Chart) {
    if chart.metadata.dependencies.is_empty() {
        return;
    }
    let existing = std::mem::take(&mut chart.dependencies);
    // A subchart answers a Chart.yaml entry only when its version satisfies the entry's
    // range (Helm's IsCompatibleRange); one that answers none is kept under its own name.
    let answers = |dep: &crate::Dependency, c: &Chart| {
        c.metadata.name == dep.name && compatible(&dep.version, &c.metadata.version)
    };
    let mut out: Vec<Chart> = existing
        .iter()
        .filter(|c| !chart.metadata.dependencies.iter().any(|d| answers(d, c)))
        .cloned()
        .collect();
    for dep in &mut chart.metadata.dependencies {
        if let Some(found) = existing.iter().find(|c| answers(dep, c)) {
            let mut copy = found.clone();
            if !dep.alias.is_empty() {
                copy.metadata.name.clone_from(&dep.alias);
            }
            out.push(copy);
        }
        if !dep.alias.is_empty() {
            dep.name = dep.alias.clone();
        }
    }
    chart.dependencies = out;
}

/// Whether version `ver` satisfies range `constraint` (both as Masterminds/semver reads
/// them); anything unparsable does not.
fn compatible(constraint: &str, ver: &str) -> bool {
    use crate::sprig::semver::{Constraints, Version};
    match (Constraints::parse(constraint), Version::parse(ver)) {
        (Ok(c), Ok(v)) => c.check(&v),
        _ => false,
    }
}

fn with_aliases(chart: &Chart) -> Chart {
    let mut copy = chart.clone();
    alias_tree(&mut copy);
    copy
}

fn alias_tree(chart: &mut Chart) {
    apply_aliases(chart);
    for sub in &mut chart.dependencies {
        alias_tree(sub);
    }
}

/// Drop subcharts whose tags or condition turn them off; `path` is the values prefix
/// of `chart` (e.g. `parent.child.`).
fn enable(chart: &mut Chart, root_values: &Value, path: &str) {
    apply_aliases(chart);
    let tags = root_values.get("tags").and_then(Value::as_object);
    let mut disabled: Vec<String> = Vec::new();
    for dep in &chart.metadata.dependencies {
        let mut enabled = true;
        if let Some(tags) = tags {
            let states: Vec<bool> = dep
                .tags
                .iter()
                .filter_map(|t| tags.get(t))
                .filter_map(Value::as_bool)
                .collect();
            if !states.is_empty() && !states.contains(&true) {
                enabled = false;
            }
        }
        for cond in dep
            .condition
            .trim()
            .split(',')
            .map(str::trim)
            .filter(|c| !c.is_empty())
        {
            if let Some(Value::Bool(b)) = path_value(root_values, &format!("{path}{cond}")) {
                enabled = *b;
                break;
            }
        }
        if !enabled {
            disabled.push(dep.name.clone());
        }
    }
    chart
        .dependencies
        .retain(|c| !disabled.contains(&c.metadata.name));
    chart
        .metadata
        .dependencies
        .retain(|d| !disabled.contains(&d.name));
    for sub in &mut chart.dependencies {
        let sub_path = format!("{path}{}.", sub.metadata.name);
        enable(sub, root_values, &sub_path);
    }
}

/// `import-values`: copy a child's values (or its `exports`) into the parent's defaults,
/// where the parent's own values keep priority. Deepest charts first.
fn import_values(chart: &mut Chart) {
    for sub in &mut chart.dependencies {
        import_values(sub);
    }
    // Helm rewrites the defaults of every chart that declares dependencies: they become
    // the merged values of the chart and its subcharts (globals included, nulls kept:
    // `ProcessDependencies` merges), so a user's `null` for a parent key no longer reaches
    // the subcharts' copies, and a parent's `null` inside a subchart's section still
    // deletes the subchart's default when the user gives that section.
    if chart.metadata.dependencies.is_empty() {
        return;
    }
    let cvals = merge_values(chart, &Value::Object(Map::new()));
    let mut imported = Map::new();
    for dep in &chart.metadata.dependencies {
        for spec in &dep.import_values {
            let (child, parent) = match spec {
                Value::String(s) => (format!("exports.{s}"), ".".to_string()),
                Value::Object(m) => (
                    m.get("child").map(go_string).unwrap_or_default(),
                    m.get("parent").map(go_string).unwrap_or_default(),
                ),
                _ => continue,
            };
            let Some(Value::Object(table)) = path_value(&cvals, &format!("{}.{child}", dep.name))
            else {
                continue;
            };
            let nested = nest_under(&parent, table.clone());
            coalesce_tables(&mut imported, &nested, true);
        }
    }
    let mut merged = cvals.as_object().cloned().unwrap_or_default();
    coalesce_tables(&mut merged, &imported, true);
    chart.values = std::sync::Arc::new(Value::Object(merged));
}

fn go_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Helm's `pathToMap`: `a.b` + table → `{a: {b: table}}`; `.` → the table itself.
fn nest_under(path: &str, table: Map<String, Value>) -> Map<String, Value> {
    if path == "." || path.is_empty() {
        return table;
    }
    path.split('.').rev().fold(table, |inner, key| {
        let mut m = Map::new();
        m.insert(key.to_string(), Value::Object(inner));
        m
    })
}
