//! The tutorial flow, re-runs, failures halfway and the layouts that take Helm APIs.
use super::*;

#[test]
fn tutorial_memcached_api_files() {
    let (_dir, root) = hybrid_project();
    let before = read_tree(&root);
    let output = run_ok(&root, CREATE_MEMCACHED);
    let after = read_tree(&root);
    let changed = changed(&before, &after);

    // The chart is the starter chart, byte for byte, named after the kind.
    let starter: BTreeMap<String, Vec<u8>> = rusty_sdk_chart::starter::files("memcached")
        .into_iter()
        .map(|(p, t)| (format!("helm-charts/memcached/{p}"), t.into_bytes()))
        .collect();
    for (path, bytes) in &starter {
        assert_eq!(
            changed.get(path),
            Some(bytes),
            "{path} is not the starter's"
        );
    }

    let listing: Vec<&str> = changed.keys().map(String::as_str).collect();
    snapshot_settings().bind(|| {
        insta::assert_snapshot!("helm_api_memcached_output", transcript(&output, &root));
        insta::assert_snapshot!("helm_api_memcached_files", listing.join("\n"));
        for (path, bytes) in &changed {
            if starter.contains_key(path) {
                continue;
            }
            let name = format!("helm_api_memcached__{}", path.replace('/', "__"));
            insta::assert_snapshot!(name, String::from_utf8_lossy(bytes));
        }
    });
}

#[rusty_sdk_test_tools::needs(kubectl)]
#[test]
fn sample_spec_is_the_chart_values_and_passes_the_crd_schema() {
    let (_dir, root) = hybrid_project();
    run_ok(&root, CREATE_MEMCACHED);
    let sample = yaml_file(&root, "config/samples/cache_v1_memcached.yaml");
    let values = yaml_file(&root, "helm-charts/memcached/values.yaml");
    assert_eq!(sample["spec"], values);
    assert_eq!(sample["apiVersion"], "cache.my.domain/v1");
    assert_eq!(sample["metadata"]["name"], "memcached-sample");
    let text =
        std::fs::read_to_string(root.join("config/samples/cache_v1_memcached.yaml")).unwrap();
    assert!(text.contains(
        "spec:\n  # Default values copied from memcached-operator/helm-charts/memcached/values.yaml\n"
    ));

    let schema = crd_spec_schema(&root, "config/crd/bases/cache.my.domain_memcacheds.yaml");
    rusty_sdk_chart::validate_against_schema(&sample["spec"], &schema)
        .unwrap_or_else(|errors| panic!("sample does not fit the CRD: {errors:?}"));
    // The schema is real: a wrong type is caught.
    let mut wrong = sample["spec"].clone();
    wrong["replicaCount"] = Value::from("three");
    assert!(rusty_sdk_chart::validate_against_schema(&wrong, &schema).is_err());
    // Open shapes stay open: any annotations can be set.
    assert_eq!(
        schema["properties"]["podAnnotations"]["x-kubernetes-preserve-unknown-fields"],
        true
    );
    assert_eq!(
        schema["properties"]["image"]["properties"]["tag"]["type"],
        "string"
    );

    let samples = crate::e2e::kustomize(&root, "config/samples");
    assert!(samples.contains("kind: Memcached"), "{samples}");
    let crds = crate::e2e::kustomize(&root, "config/crd");
    assert!(crds.contains("name: memcacheds.cache.my.domain"), "{crds}");
}

#[test]
fn same_command_twice_changes_nothing() {
    let (_dir, root) = hybrid_project();
    run_ok(&root, CREATE_MEMCACHED);
    let once = read_tree(&root);

    let again = run(&root, CREATE_MEMCACHED);
    assert_eq!(again.status.code(), Some(1));
    let text = transcript(&again, &root);
    assert!(text.contains("API already exists"), "{text}");
    assert_eq!(read_tree(&root), once, "a refused re-run changed files");

    let mut forced: Vec<&str> = CREATE_MEMCACHED.to_vec();
    forced.push("--force");
    let output = run_ok(&root, &forced);
    let stdout = String::from_utf8_lossy(&output.stdout);
    for line in stdout.lines().take_while(|l| !l.starts_with("Next:")) {
        assert!(line.trim_start().starts_with("identical"), "{stdout}");
    }
    assert_eq!(read_tree(&root), once, "--force re-run changed files");
}

#[test]
fn force_with_another_chart_repoints_the_watch() {
    let (dir, root) = hybrid_project();
    run_ok(&root, CREATE_MEMCACHED);
    write_files(&dir.path().join("web"), WEB_CHART);
    let mut args: Vec<&str> = CREATE_MEMCACHED.to_vec();
    args.extend(["--helm-chart", "../web", "--force"]);
    run_ok(&root, &args);
    let watches = std::fs::read_to_string(root.join("watches.yaml")).unwrap();
    assert_eq!(watches.matches("kind: Memcached").count(), 1, "{watches}");
    assert!(
        watches.contains("  kind: Memcached\n  chart: helm-charts/web-app\n"),
        "{watches}"
    );
    let sample = yaml_file(&root, "config/samples/cache_v1_memcached.yaml");
    assert_eq!(sample["spec"]["replicas"], 2);
    let project = std::fs::read_to_string(root.join("PROJECT")).unwrap();
    assert_eq!(
        project.matches("chart: helm-charts/").count(),
        1,
        "{project}"
    );
}

#[test]
fn a_failure_halfway_writes_nothing() {
    let (_dir, root) = hybrid_project();
    std::fs::write(root.join("watches.yaml"), "# the user removed the marker\n").unwrap();
    let before = read_tree(&root);
    let output = run(&root, CREATE_MEMCACHED);
    assert_eq!(output.status.code(), Some(1));
    let text = transcript(&output, &root);
    assert!(
        text.contains("watches.yaml: marker `# +rusty:scaffold:watch` not found"),
        "{text}"
    );
    assert_eq!(read_tree(&root), before);
}

#[test]
fn helm_api_is_refused_in_rust_projects() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("rusty");
    std::fs::create_dir(&root).unwrap();
    run_ok(&root, &["init", "--plugins", "rust"]);
    let output = run(&root, CREATE_MEMCACHED);
    let text = transcript(&output, &root);
    assert!(
        text.starts_with("exit: 1\n") && text.contains("layout is rust"),
        "{text}"
    );
}

#[test]
fn helm_layout_takes_helm_apis_without_plugins_flag() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("nginx-operator");
    std::fs::create_dir(&root).unwrap();
    run_ok(
        &root,
        &["init", "--plugins", "helm", "--domain", "example.com"],
    );
    run_ok(&root, &["create", "api", "--kind", "Nginx"]);
    let watches = std::fs::read_to_string(root.join("watches.yaml")).unwrap();
    assert!(
        watches.contains("- group: charts.example.com\n  version: v1alpha1\n  kind: Nginx\n  chart: helm-charts/nginx\n"),
        "{watches}"
    );
    assert!(root.join("helm-charts/nginx/values.yaml").is_file());
    assert!(
        root.join("config/samples/charts_v1alpha1_nginx.yaml")
            .is_file()
    );
}

#[test]
fn dry_run_lists_the_plan_and_writes_nothing() {
    let (_dir, root) = hybrid_project();
    let before = read_tree(&root);
    let mut args: Vec<&str> = CREATE_MEMCACHED.to_vec();
    args.push("--dry-run");
    let output = run_ok(&root, &args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    for path in [
        "create  config/crd/bases/cache.my.domain_memcacheds.yaml",
        "create  helm-charts/memcached/values.yaml",
        "update  watches.yaml",
        "update  PROJECT",
    ] {
        assert!(stdout.contains(path), "{path} missing from\n{stdout}");
    }
    assert_eq!(read_tree(&root), before);
}
