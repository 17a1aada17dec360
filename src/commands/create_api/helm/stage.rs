//! Staging a Helm API: the chart's files, the watches.yaml entry, the CRD, the sample, what
//! every API gets, and the PROJECT records.
use rusty_sdk_chart::Chart;

use super::source::FetchedChart;
use super::{CHARTS_DIR, crd, sample};
use crate::commands::create_api::common;
use crate::error::Result;
use crate::model::{ApiPlugin, ApiSpec};
use crate::project::Project;
use crate::scaffold::{Policy, Tree};
use crate::templates::Renderer;
use crate::yaml::{Mapping, Value};

/// Stage every file of the Helm API and record it in `project`.
pub fn stage(
    tree: &mut Tree,
    spec: &ApiSpec,
    chart: &Chart,
    fetched: &FetchedChart,
    project: &mut Project,
    project_dir: &str,
) -> Result<()> {
    let chart_path = format!("{CHARTS_DIR}/{}", chart.name());
    for file in &fetched.files {
        tree.add(
            &format!("{chart_path}/{}", file.name),
            file.data.clone(),
            Policy::User,
        );
    }

    stage_watch(tree, spec, &chart_path)?;

    let schema = rusty_sdk_chart::crd_schema(chart);
    tree.add(
        &spec.crd_path(),
        crd::crd_yaml(spec, &chart_path, &schema, chart.schema().is_some()),
        Policy::Tool,
    );
    let values_origin = format!("{project_dir}/{chart_path}/values.yaml");
    tree.add(
        &spec.sample_path(),
        sample::sample_yaml(spec, chart.values(), &values_origin),
        Policy::User,
    );

    common::stage_common(tree, &mut Renderer::new(), spec, project)?;
    project.upsert_resource(spec.resource(false, None));
    record_chart(project, spec, &chart_path);
    Ok(())
}

/// The watches.yaml entry, above its marker. A `--force` re-run with another chart points the
/// existing entry at the new chart instead of adding a second entry for the same kind.
fn stage_watch(tree: &mut Tree, spec: &ApiSpec, chart_path: &str) -> Result<()> {
    const WATCHES: &str = "watches.yaml";
    let head = [
        format!("- group: {}", spec.qualified_group()),
        format!("  version: {}", spec.version),
        format!("  kind: {}", spec.kind),
    ];
    let chart_line = format!("  chart: {chart_path}");
    let text = tree.read(WATCHES)?.unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let stale = lines.windows(4).position(|w| {
        w[..3]
            .iter()
            .zip(&head)
            .all(|(line, want)| line.trim_end() == want)
            && w[3].trim_start().starts_with("chart:")
            && w[3].trim_end() != chart_line
    });
    if let Some(at) = stale {
        return tree.edit(WATCHES, |text| {
            Ok(text
                .split_inclusive('\n')
                .enumerate()
                .map(|(i, line)| {
                    if i == at + 3 {
                        format!("{chart_line}\n")
                    } else {
                        line.to_string()
                    }
                })
                .collect())
        });
    }
    let entry = format!("{}\n{chart_line}\n", head.join("\n"));
    tree.insert_at_marker(WATCHES, "watch", &entry)?;
    Ok(())
}

/// `plugins."helm.rusty-sdk.dev/v1".resources`: which chart each Helm API uses.
fn record_chart(project: &mut Project, spec: &ApiSpec, chart_path: &str) {
    let mut entry = Mapping::new();
    for (key, value) in [
        ("chart", chart_path),
        ("domain", spec.domain.as_str()),
        ("group", spec.group.as_str()),
        ("kind", spec.kind.as_str()),
        ("version", spec.version.as_str()),
    ] {
        entry.insert(Value::from(key), Value::from(value));
    }
    let data = project.plugin_data_mut(ApiPlugin::Helm.key());
    let resources = data
        .entry(Value::from("resources"))
        .or_insert_with(|| Value::Sequence(Vec::new()));
    if !resources.is_sequence() {
        *resources = Value::Sequence(Vec::new());
    }
    if let Value::Sequence(list) = resources {
        let same_api = |r: &Value| {
            ["group", "version", "kind"]
                .iter()
                .all(|k| r.get(k) == entry.get(k))
        };
        match list.iter_mut().find(|r| same_api(r)) {
            Some(existing) => *existing = Value::Mapping(entry),
            None => list.push(Value::Mapping(entry)),
        }
    }
}
