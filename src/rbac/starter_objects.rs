//! The objects of rusty-sdk's own starter chart, known without rendering it. The starter
//! is the same chart for every kind but its name, and what the role needs of its objects
//! (kind and API version) does not depend on the name; so a chart whose files are exactly
//! the starter's for its name is not rendered at all, in `create api --plugins helm` or
//! any later command. The test below renders the starter and holds this table to it.
use rusty_sdk_chart::ChartFile;
use serde_json::json;

use super::chart::ChartObject;
use super::objects_cache::Entry;

/// Each object of the starter (API version, kind, template under `templates/`), in the
/// order the renders find them. The templates under `tests/` are `helm test` hooks.
#[rustfmt::skip]
const OBJECTS: &[(&str, &str, &str)] = &[
    ("apps/v1",                      "Deployment",              "deployment.yaml"),
    ("v1",                           "Service",                 "service.yaml"),
    ("v1",                           "ServiceAccount",          "serviceaccount.yaml"),
    ("v1",                           "Pod",                     "tests/test-connection.yaml"),
    ("autoscaling/v2",               "HorizontalPodAutoscaler", "hpa.yaml"),
    ("gateway.networking.k8s.io/v1", "HTTPRoute",               "httproute.yaml"),
    ("networking.k8s.io/v1",         "Ingress",                 "ingress.yaml"),
];

/// The entry of the chart made of `files` (sorted by name) when they are the starter chart
/// named `name`, byte for byte.
pub fn entry(name: &str, files: &[ChartFile]) -> Option<Entry> {
    let mut starter = rusty_sdk_chart::starter::files(name);
    if starter.len() != files.len() {
        return None;
    }
    starter.sort_by(|a, b| a.0.cmp(&b.0));
    let same = starter
        .iter()
        .zip(files)
        .all(|((path, text), file)| *path == file.name && text.as_bytes() == file.data);
    same.then(|| Entry {
        objects: OBJECTS
            .iter()
            .map(|&(api_version, kind, template)| ChartObject {
                source: format!("{name}/templates/{template}"),
                test_hook: template.starts_with("tests/"),
                object: json!({ "apiVersion": api_version, "kind": kind }),
            })
            .collect(),
        failed_switches: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusty_sdk_chart::Chart;

    fn starter_files(name: &str) -> Vec<ChartFile> {
        let mut files: Vec<ChartFile> = rusty_sdk_chart::starter::files(name)
            .into_iter()
            .map(|(name, text)| ChartFile {
                name,
                data: text.into_bytes(),
            })
            .collect();
        files.sort_by(|a, b| a.name.cmp(&b.name));
        files
    }

    #[test]
    fn the_table_is_what_rendering_the_starter_finds_whatever_its_name() {
        // Names as `create api` makes them (a kind in lower case), short to the longest.
        let longest = format!("k{}", "8".repeat(62));
        for name in ["memcached", "a", "nginx2", "memcachedbackup", &longest] {
            let files = starter_files(name);
            let chart = Chart::from_files(std::path::Path::new(name), files.clone()).unwrap();
            let rendered = super::super::chart_source::entry(&chart).unwrap();
            let known = entry(name, &files).expect("the starter is recognised");
            assert_eq!(
                serde_json::to_value(&known).unwrap(),
                serde_json::to_value(&rendered).unwrap(),
                "starter named {name}"
            );
        }
    }

    #[test]
    fn a_changed_added_or_renamed_file_is_not_the_starter() {
        let files = starter_files("memcached");
        assert!(entry("memcached", &files).is_some());
        assert!(entry("other", &files).is_none(), "named for another chart");
        let mut changed = files.clone();
        let values = changed
            .iter_mut()
            .find(|f| f.name == "values.yaml")
            .unwrap();
        values.data.extend_from_slice(b"extra: 1\n");
        assert!(entry("memcached", &changed).is_none());
        let mut added = files.clone();
        added.push(ChartFile {
            name: "templates/zz.yaml".into(),
            data: b"kind: ConfigMap\n".to_vec(),
        });
        assert!(entry("memcached", &added).is_none());
        let mut fewer = files;
        fewer.pop();
        assert!(entry("memcached", &fewer).is_none());
    }
}
