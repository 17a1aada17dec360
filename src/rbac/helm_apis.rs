//! Which Helm APIs the project has, and where each one's chart is.
//!
//! A Helm API is a watches.yaml entry (what the runtime reconciles) or a resource listed in
//! PROJECT's helm plugin data (`plugins: {helm.rusty-sdk.dev/v1: {resources: [...]}}`). The
//! chart comes from the watches.yaml entry, else `helm-charts/<kind in lower case>`.
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::model::ApiPlugin;
use crate::project::Project;
use crate::scaffold::Tree;
use crate::yaml::{self, Value};

pub const WATCHES: &str = "watches.yaml";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HelmApi {
    /// The full API group, `<group>.<domain>`.
    pub group: String,
    pub version: String,
    pub kind: String,
    /// The chart directory relative to the project root (as written in watches.yaml).
    pub chart_dir: String,
}

#[derive(Deserialize)]
struct Entry {
    #[serde(default)]
    group: String,
    version: String,
    kind: String,
    #[serde(default)]
    chart: Option<String>,
}

/// Every Helm API, watches.yaml first, without duplicates.
pub fn helm_apis(tree: &Tree, project: &Project) -> Result<Vec<HelmApi>> {
    let mut apis: Vec<HelmApi> = Vec::new();
    let mut add = |api: HelmApi| {
        let same =
            |a: &HelmApi| (&a.group, &a.version, &a.kind) == (&api.group, &api.version, &api.kind);
        if !apis.iter().any(same) {
            apis.push(api);
        }
    };
    for (item, entry) in watches(tree)?.into_iter().enumerate() {
        let chart_dir = checked_chart(item + 1, &entry)?;
        add(HelmApi {
            group: entry.group,
            version: entry.version,
            kind: entry.kind,
            chart_dir,
        });
    }
    for resource in project
        .resources
        .iter()
        .filter(|r| listed_as_helm(project, r))
    {
        add(HelmApi {
            group: super::base::full_group(project, resource),
            version: resource.version.clone(),
            kind: resource.kind.clone(),
            chart_dir: default_chart_dir(&resource.kind),
        });
    }
    Ok(apis)
}

/// The chart of a watches.yaml entry. The operator refuses an entry without a kind,
/// version or chart when it starts, so no role is made for one either.
fn checked_chart(item: usize, entry: &Entry) -> Result<String> {
    let missing = if entry.kind.trim().is_empty() {
        "kind"
    } else if entry.version.trim().is_empty() {
        "version"
    } else {
        match entry.chart.as_deref().map(normalize) {
            Some(dir) if !dir.is_empty() => return Ok(dir),
            _ => "chart",
        }
    };
    let what =
        crate::model::names::shown(&format!("{}/{} {}", entry.group, entry.version, entry.kind));
    let fix = match missing {
        "chart" => format!(
            "set `chart: {}` (the chart's folder in the project)",
            crate::model::names::shown(&default_chart_dir(&entry.kind))
        ),
        field => format!("give it a {field}, or remove the entry"),
    };
    Err(Error::Project(format!(
        "{WATCHES}: entry {item} ({what}) has no {missing}, and the operator would refuse to start with it; {fix}"
    )))
}

fn watches(tree: &Tree) -> Result<Vec<Entry>> {
    let Some(text) = tree.read(WATCHES)? else {
        return Ok(Vec::new());
    };
    let bad = |why: String| {
        Error::Project(format!(
            "{WATCHES}: {why}; it must be a list of entries with group, version, kind and chart"
        ))
    };
    let parsed = yaml::from_str::<Value>(&text).map_err(|why| {
        // Valid on disk, broken by the entry this command adds: say that, not that the
        // user's file is wrong.
        let on_disk = crate::scaffold::input::read_text(
            &tree.root().join(WATCHES),
            crate::scaffold::input::PROJECT_FILE_LIMIT,
        );
        match on_disk {
            Ok(disk) if disk != text && yaml::from_str::<Value>(&disk).is_ok() => Error::Project(format!(
                "{WATCHES}: the new entry, a `- group:` item above `# +rusty:scaffold:watch`, does not fit the file ({why}); write watches.yaml as a block list of such items (not flow style `[...]`), with the marker after the last, and run the command again (nothing was written)"
            )),
            _ => bad(why),
        }
    })?;
    match parsed {
        Value::Null => Ok(Vec::new()),
        value @ Value::Sequence(_) => serde_yaml::from_value(value).map_err(|e| bad(e.to_string())),
        _ => Err(bad("the top level is not a list".into())),
    }
}

/// Whether PROJECT's helm plugin data lists this resource.
fn listed_as_helm(project: &Project, resource: &crate::project::Resource) -> bool {
    let Some(Value::Mapping(data)) = project.plugins.get(ApiPlugin::Helm.key()) else {
        return false;
    };
    let Some(Value::Sequence(listed)) = data.get("resources") else {
        return false;
    };
    listed.iter().any(|entry| {
        let field = |key: &str| entry.get(key).and_then(Value::as_str);
        field("kind") == Some(resource.kind.as_str())
            && field("version") == Some(resource.version.as_str())
            && field("group").is_none_or(|g| g == resource.group)
    })
}

fn default_chart_dir(kind: &str) -> String {
    format!("helm-charts/{}", kind.to_lowercase())
}

/// `./helm-charts/x/` -> `helm-charts/x`. An absolute path (the chart's place inside the
/// operator image) is looked up under helm-charts/ by its last component.
fn normalize(chart: &str) -> String {
    let trimmed = chart.trim().trim_end_matches('/');
    if trimmed.starts_with('/') {
        let name = trimmed.rsplit('/').next().unwrap_or(trimmed);
        return format!("helm-charts/{name}");
    }
    trimmed.trim_start_matches("./").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scaffold::Policy;

    fn tree(watches: Option<&str>) -> Tree {
        let mut tree = Tree::new("/nonexistent-rusty-sdk-test-root");
        if let Some(text) = watches {
            tree.add(WATCHES, text, Policy::Tool);
        }
        tree
    }

    #[test]
    fn watches_entries_and_project_plugin_data_are_helm_apis() {
        let project = Project::parse(
            "domain: my.domain\nplugins:\n  helm.rusty-sdk.dev/v1:\n    resources:\n    - {group: cache, version: v1, kind: Memcached}\n    - {group: web, version: v1, kind: Nginx}\nresources:\n- {group: cache, version: v1, kind: Memcached, api: {namespaced: true}}\n- {group: web, version: v1, kind: Nginx, api: {namespaced: true}}\n- {group: cache, version: v1, kind: MemcachedBackup, api: {namespaced: true}}\nversion: \"3\"\n",
        )
        .unwrap();
        let watches = "# comment\n- group: cache.my.domain\n  version: v1\n  kind: Memcached\n  chart: ./helm-charts/memcached/\n  watchDependentResources: false\n- group: x.io\n  version: v2\n  kind: Thing\n  chart: /opt/helm/helm-charts/thing\n";
        let apis = helm_apis(&tree(Some(watches)), &project).unwrap();
        let summary: Vec<_> = apis
            .iter()
            .map(|a| format!("{}/{} {} {}", a.group, a.version, a.kind, a.chart_dir))
            .collect();
        assert_eq!(
            summary,
            [
                "cache.my.domain/v1 Memcached helm-charts/memcached",
                "x.io/v2 Thing helm-charts/thing",
                "web.my.domain/v1 Nginx helm-charts/nginx",
            ]
        );
    }

    #[test]
    fn no_watches_and_only_comments_mean_no_helm_apis() {
        let project = Project::parse("version: \"3\"\n").unwrap();
        assert!(helm_apis(&tree(None), &project).unwrap().is_empty());
        let only_comments = "# Use the 'create api' subcommand to add watches to this file.\n# +rusty:scaffold:watch\n";
        assert!(
            helm_apis(&tree(Some(only_comments)), &project)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_broken_watches_file_is_named() {
        let project = Project::parse("version: \"3\"\n").unwrap();
        let err = helm_apis(&tree(Some("group: x\n")), &project)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("watches.yaml: the top level is not a list"),
            "{err}"
        );
        let err = helm_apis(&tree(Some("- group: x\n")), &project)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("watches.yaml") && err.contains("version"),
            "{err}"
        );
    }

    #[test]
    fn an_entry_the_operator_would_refuse_is_an_error_naming_it() {
        let project =
            Project::parse("domain: my.domain\nprojectName: p\nversion: \"3\"\n").unwrap();
        let entry = |chart: &str| {
            format!("- group: cache.my.domain\n  version: v1\n  kind: Memcached\n{chart}")
        };
        for chart in ["  chart: \"\"\n", "  chart: \"  \"\n", ""] {
            let text = format!("{}{}", entry("  chart: helm-charts/a\n"), entry(chart));
            let err = helm_apis(&tree(Some(&text)), &project)
                .unwrap_err()
                .to_string();
            assert_eq!(
                err,
                "watches.yaml: entry 2 (\"cache.my.domain/v1 Memcached\") has no chart, and the operator would refuse to start with it; set `chart: \"helm-charts/memcached\"` (the chart's folder in the project)"
            );
        }
        let text = "- group: x.io\n  version: \"\"\n  kind: Thing\n  chart: helm-charts/thing\n";
        let err = helm_apis(&tree(Some(text)), &project)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("entry 1 (\"x.io/ Thing\") has no version"),
            "{err}"
        );
    }
}
