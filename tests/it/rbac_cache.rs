//! The cache of chart renders behind `generate rbac` and `create api`: a chart seen before
//! gives the same role and warnings as a fresh render, a changed chart is rendered again,
//! and nothing a template renders (a Secret's value) is written to the cache.
use std::path::Path;

use crate::rbac::{ROLE, cluster_resources, fixture_chart_project};
use crate::support::{rusty, transcript};

const SECRET: &str = "s3cr3t-from-the-chart";

fn generate(root: &Path, cache: &Path) -> String {
    std::fs::remove_file(root.join(ROLE)).ok();
    let output = rusty(root)
        .env("RUSTY_SDK_CACHE_DIR", cache)
        .args(["generate", "rbac"])
        .output()
        .unwrap();
    transcript(&output, root)
}

fn cache_entries(cache: &Path) -> Vec<String> {
    std::fs::read_dir(cache.join("chart-objects"))
        .map(|dir| {
            dir.map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_cached_chart_gives_the_same_role_and_a_changed_chart_is_rendered_again() {
    let project = fixture_chart_project();
    project.write(
        "helm-charts/demo/templates/secret.yaml",
        &format!("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  password: {SECRET}\n"),
    );
    // A switch that does not render on its own: its warning must survive the cache.
    project.write(
        "helm-charts/demo/templates/extra.yaml",
        "{{- if .Values.extra.enabled }}\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ required \"extra.name is needed\" .Values.extra.name }}\n{{- end }}\n",
    );
    let values = project.read("helm-charts/demo/values.yaml");
    project.write(
        "helm-charts/demo/values.yaml",
        &format!("{values}\nextra:\n  enabled: false\n"),
    );
    // The first command writes this rusty-sdk's cliVersion into the fixture's PROJECT; run
    // one without a cache so the two runs below differ in the cache alone.
    let first = rusty(&project.root)
        .env("RUSTY_SDK_CACHE_DIR", "")
        .args(["generate", "rbac"])
        .output()
        .unwrap();
    assert!(
        first.status.success(),
        "{}",
        transcript(&first, &project.root)
    );
    let cache = tempfile::tempdir().unwrap();

    let cold = generate(&project.root, cache.path());
    assert!(cold.starts_with("exit: 0\n"), "{cold}");
    assert!(
        cold.contains("`extra.enabled: true` does not render on its own"),
        "{cold}"
    );
    let cold_role = project.read(ROLE);
    let entries = cache_entries(cache.path());
    assert_eq!(entries.len(), 1, "one chart, one entry");
    assert!(
        !entries[0].contains(SECRET),
        "rendered data was cached: {}",
        entries[0]
    );

    let warm = generate(&project.root, cache.path());
    assert_eq!(warm, cold, "a cached chart changes what the command prints");
    assert_eq!(
        project.read(ROLE),
        cold_role,
        "a cached chart changes the role"
    );

    let without = rusty(&project.root)
        .env("RUSTY_SDK_CACHE_DIR", "")
        .args(["generate", "rbac", "--check"])
        .output()
        .unwrap();
    // Without the cache, the same role (`--check` fails when role.yaml would change).
    assert!(
        without.status.success(),
        "{}",
        transcript(&without, &project.root)
    );

    // The second run read the entry rather than rendering again: an object added to the
    // entry by hand shows in the role.
    let entry_path = std::fs::read_dir(cache.path().join("chart-objects"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut entry: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&entry_path).unwrap()).unwrap();
    entry["objects"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({
        "source": "demo/templates/by-hand.yaml", "test_hook": false,
        "object": {"apiVersion": "v1", "kind": "PodTemplate"}}));
    std::fs::write(&entry_path, entry.to_string()).unwrap();
    let from_entry = generate(&project.root, cache.path());
    assert!(from_entry.starts_with("exit: 0\n"), "{from_entry}");
    assert!(
        cluster_resources(&project.read(ROLE)).contains("/podtemplates"),
        "the cache entry was not read"
    );
    std::fs::remove_file(&entry_path).unwrap();

    // A new object in the chart: the cached entry no longer applies.
    assert!(
        !cluster_resources(&cold_role).contains("/serviceaccounts"),
        "{cold_role}"
    );
    project.write(
        "helm-charts/demo/templates/sa.yaml",
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n",
    );
    let changed = generate(&project.root, cache.path());
    assert!(changed.starts_with("exit: 0\n"), "{changed}");
    let role = project.read(ROLE);
    assert!(
        cluster_resources(&role).contains("/serviceaccounts"),
        "{role}"
    );
    assert_eq!(cache_entries(cache.path()).len(), 1);
}

#[test]
fn the_starter_chart_is_known_without_a_render_until_it_is_changed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    let cache = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let output = rusty(dir.path())
            .env("RUSTY_SDK_CACHE_DIR", cache.path())
            .arg("-C")
            .arg(&root)
            .args(args)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", transcript(&output, &root));
    };
    run(&["init", "--plugins", "helm", "--domain", "my.domain"]);
    run(&[
        "create",
        "api",
        "--group",
        "cache",
        "--version",
        "v1",
        "--kind",
        "Memcached",
    ]);
    let role = std::fs::read_to_string(root.join(ROLE)).unwrap();
    for kind in [
        "deployments",
        "services",
        "serviceaccounts",
        "horizontalpodautoscalers",
        "httproutes",
        "ingresses",
    ] {
        assert!(role.contains(kind), "{kind} missing from the role:\n{role}");
    }
    assert!(
        cache_entries(cache.path()).is_empty(),
        "the starter was rendered"
    );
    // A changed starter is a chart like any other: rendered, and its objects cached.
    let values = root.join("helm-charts/memcached/values.yaml");
    let text = std::fs::read_to_string(&values).unwrap();
    std::fs::write(&values, format!("{text}\nextra: 1\n")).unwrap();
    run(&["generate", "rbac"]);
    assert_eq!(cache_entries(cache.path()).len(), 1);
    assert_eq!(std::fs::read_to_string(root.join(ROLE)).unwrap(), role);
}
