//! `edit --plugins=helm/v2-alpha`: a Helm chart of the operator made from dist/install.yaml
//! (issue 14). The chart is rendered with the project's own chart engine and compared,
//! object by object, with the install file it came from.
use std::collections::BTreeMap;
use std::path::Path;

use rusty_sdk_test_tools::needs;
use serde_json::{Value, json};

use crate::support::{read_tree, rusty, scaffold, transcript};

/// A hybrid project with a Helm and a Rust API, and its dist/install.yaml.
fn project_with_installer(dir: &Path) -> std::path::PathBuf {
    let root = dir.join("hc-operator");
    scaffold(
        dir,
        &root,
        &[
            "init --plugins hybrid.helm --domain example.com --repo github.com/example/hc-operator",
            "create api --plugins helm --group cache --version v1 --kind Memcached",
            "create api --plugins rust --group cache --version v1 --kind Backup --resource --controller",
        ],
    );
    // What `make build-installer` writes, without building crdgen for the Rust API.
    let install = crate::e2e::kustomize(&root, "config/default");
    std::fs::create_dir_all(root.join("dist")).unwrap();
    std::fs::write(root.join("dist/install.yaml"), install).unwrap();
    root
}

fn edit(root: &Path, extra: &[&str]) -> std::process::Output {
    rusty(root)
        .args(["edit", "--plugins=helm/v2-alpha"])
        .args(extra)
        .output()
        .unwrap()
}

/// The objects of install.yaml, keyed by kind and name.
fn install_objects(root: &Path) -> BTreeMap<String, Value> {
    let text = std::fs::read_to_string(root.join("dist/install.yaml")).unwrap();
    serde_yaml::Deserializer::from_str(&text)
        .map(|doc| serde_json::to_value(serde_yaml::Value::deserialize(doc).unwrap()).unwrap())
        .map(|o| (key(&o), o))
        .collect()
}

use serde::Deserialize;

fn key(object: &Value) -> String {
    format!(
        "{}/{}",
        object["kind"].as_str().unwrap(),
        object["metadata"]["name"].as_str().unwrap()
    )
}

/// The chart rendered by our engine with `values` (merged over values.yaml).
fn render(root: &Path, values: &Value, namespace: &str) -> BTreeMap<String, Value> {
    let chart = rusty_sdk_chart::Chart::load(&root.join("dist/chart")).unwrap();
    let opts = rusty_sdk_chart::RenderOptions {
        release_name: "hc".into(),
        namespace: namespace.into(),
        ..rusty_sdk_chart::RenderOptions::default()
    };
    let rendered = rusty_sdk_chart::render(&chart, values, &opts).unwrap();
    rusty_sdk_chart::split_manifests(&rendered)
        .unwrap()
        .into_iter()
        .map(|m| (key(&m.object), m.object))
        .collect()
}

#[needs(kubectl)]
#[test]
fn the_chart_renders_the_install_files_objects_and_its_switches_work() {
    let dir = tempfile::tempdir().unwrap();
    let root = project_with_installer(dir.path());
    // --dry-run plans every file and writes none.
    let before = read_tree(&root);
    let output = edit(&root, &["--dry-run"]);
    assert!(output.status.success(), "{}", transcript(&output, &root));
    assert!(String::from_utf8_lossy(&output.stdout).contains("create  dist/chart/values.yaml"));
    assert!(read_tree(&root) == before, "--dry-run wrote files");
    let output = edit(&root, &[]);
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let files = read_tree(&root);
    crate::support::snapshot_settings().bind(|| {
        for path in [
            "dist/chart/values.yaml",
            "dist/chart/Chart.yaml",
            "dist/chart/templates/manager/controller-manager.yaml",
            "dist/chart/templates/crd/memcacheds.cache.example.com.yaml",
            "dist/chart/templates/prometheus/monitor.yaml",
        ] {
            let name = format!(
                "helm_chart_{}",
                path.trim_start_matches("dist/chart/").replace('/', "__")
            );
            insta::assert_snapshot!(name, String::from_utf8_lossy(&files[path]));
        }
    });
    let mut install = install_objects(&root);
    let namespace = install
        .remove("Namespace/hc-operator-system")
        .expect("the install file's namespace");
    let namespace = namespace["metadata"]["name"].as_str().unwrap().to_string();

    // Defaults: every object of install.yaml, CRDs kept on uninstall.
    assert_renders_the_install_file(render(&root, &json!({}), &namespace), &install);

    // Every switch on: the same objects and a ServiceMonitor; CRDs and RBAC off: none of them.
    let all_on = render(&root, &json!({"prometheus": {"enable": true}}), &namespace);
    assert_eq!(all_on.len(), install.len() + 1);
    let monitor = &all_on["ServiceMonitor/hc-operator-controller-manager-metrics-monitor"];
    assert_eq!(monitor["spec"]["endpoints"][0]["port"], "https");
    let off = render(
        &root,
        &json!({"crd": {"enable": false}, "rbac": {"enable": false}}),
        &namespace,
    );
    assert!(
        off.keys()
            .all(|k| !k.starts_with("CustomResourceDefinition/") && !k.contains("Role")),
        "{:?}",
        off.keys()
    );
    assert!(off.contains_key("Deployment/hc-operator-controller-manager"));

    // Another release namespace and image: every namespaced object and binding follows.
    let values =
        json!({"manager": {"image": {"repository": "r.io/x", "tag": "v2"}, "replicas": 2}});
    let moved = render(&root, &values, "elsewhere");
    let deployment = &moved["Deployment/hc-operator-controller-manager"];
    assert_eq!(deployment["metadata"]["namespace"], "elsewhere");
    assert_eq!(deployment["spec"]["replicas"], 2);
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0]["image"],
        "r.io/x:v2"
    );
    let binding = &moved["ClusterRoleBinding/hc-operator-manager-rolebinding"];
    assert_eq!(binding["subjects"][0]["namespace"], "elsewhere");
    assert!(!serde_json::to_string(&moved).unwrap().contains(&namespace));

    // The Makefile can deploy it.
    let makefile = std::fs::read_to_string(root.join("Makefile")).unwrap();
    assert!(makefile.contains("\nhelm-deploy:") && makefile.contains("\nhelm-uninstall:"));
    let project = std::fs::read_to_string(root.join("PROJECT")).unwrap();
    assert!(
        project.contains(
            "helm.kubebuilder.io/v2-alpha:\n    manifests: dist/install.yaml\n    output: dist\n"
        ),
        "{project}"
    );
}

/// `objects` (a default render) are the install file's, but that CRDs are kept on uninstall.
fn assert_renders_the_install_file(
    mut objects: BTreeMap<String, Value>,
    install: &BTreeMap<String, Value>,
) {
    for (name, object) in &mut objects {
        if name.starts_with("CustomResourceDefinition/") {
            let annotations = object["metadata"]["annotations"].as_object_mut().unwrap();
            assert_eq!(
                annotations.remove("helm.sh/resource-policy"),
                Some(json!("keep")),
                "{name}"
            );
            if annotations.is_empty() {
                object["metadata"]
                    .as_object_mut()
                    .unwrap()
                    .remove("annotations");
            }
        }
    }
    assert_eq!(
        objects.keys().collect::<Vec<_>>(),
        install.keys().collect::<Vec<_>>()
    );
    for (name, object) in install {
        assert_eq!(
            &objects[name], object,
            "{name} differs from dist/install.yaml"
        );
    }
}

/// The chart rendered by Helm itself (`helm template`, the control plane's helm), values
/// given as a file like `-f` takes them.
fn helm_render(root: &Path, values: &Value, namespace: &str) -> BTreeMap<String, Value> {
    let file = root.join("test-values.json");
    std::fs::write(&file, values.to_string()).unwrap();
    let text = crate::e2e::must(
        root,
        rusty_sdk_test_tools::path!(helm),
        &[
            "template",
            "hc",
            "dist/chart",
            "--namespace",
            namespace,
            "-f",
            "test-values.json",
        ],
    );
    std::fs::remove_file(&file).unwrap();
    serde_yaml::Deserializer::from_str(&text)
        .map(|doc| serde_json::to_value(serde_yaml::Value::deserialize(doc).unwrap()).unwrap())
        .filter(|o: &Value| !o.is_null())
        .map(|o| (key(&o), o))
        .collect()
}

/// Helm's own engine and linter accept the chart, and render what ours renders, with the
/// defaults, every switch on, the switches off, and another namespace and image.
#[needs(kubectl, helm)]
#[test]
fn helm_lints_the_chart_and_renders_it_as_our_engine_does() {
    let dir = tempfile::tempdir().unwrap();
    let root = project_with_installer(dir.path());
    let output = edit(&root, &[]);
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let lint = crate::e2e::must(
        &root,
        rusty_sdk_test_tools::path!(helm),
        &["lint", "dist/chart"],
    );
    assert!(
        lint.contains("1 chart(s) linted, 0 chart(s) failed"),
        "{lint}"
    );
    let mut install = install_objects(&root);
    install.remove("Namespace/hc-operator-system").unwrap();
    assert_renders_the_install_file(
        helm_render(&root, &json!({}), "hc-operator-system"),
        &install,
    );
    for (values, namespace) in [
        (json!({}), "hc-operator-system"),
        (
            json!({"prometheus": {"enable": true}}),
            "hc-operator-system",
        ),
        (
            json!({"crd": {"enable": false}, "rbac": {"enable": false}}),
            "hc-operator-system",
        ),
        (
            json!({"manager": {"image": {"repository": "r.io/x", "tag": "v2"}, "replicas": 2}}),
            "elsewhere",
        ),
        (
            json!({"networkPolicy": {"enable": true}, "fullnameOverride": "mine"}),
            "hc-operator-system",
        ),
        (json!({"metrics": {"certManager": true}}), "elsewhere"),
    ] {
        let helm = helm_render(&root, &values, namespace);
        let ours = render(&root, &values, namespace);
        assert_eq!(
            helm.keys().collect::<Vec<_>>(),
            ours.keys().collect::<Vec<_>>(),
            "{values}"
        );
        for (name, object) in &helm {
            assert_eq!(
                &ours[name], object,
                "{name} with {values}: Helm renders it otherwise"
            );
        }
    }
}

#[needs(kubectl)]
#[test]
fn regenerating_keeps_values_edits_and_a_missing_install_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = project_with_installer(dir.path());
    let install = std::fs::read(root.join("dist/install.yaml")).unwrap();
    std::fs::remove_file(root.join("dist/install.yaml")).unwrap();
    let before = read_tree(&root);
    let output = edit(&root, &[]);
    let text = transcript(&output, &root);
    assert!(!output.status.success(), "{text}");
    assert!(
        text.contains("dist/install.yaml not found; run `make build-installer` first"),
        "{text}"
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stderr)
            .trim_end()
            .lines()
            .count(),
        1,
        "{text}"
    );
    assert!(read_tree(&root) == before, "a failed edit wrote files");

    std::fs::write(root.join("dist/install.yaml"), &install).unwrap();
    assert!(edit(&root, &[]).status.success());
    let first = read_tree(&root);
    // Twice: nothing changes.
    assert!(edit(&root, &[]).status.success());
    assert!(read_tree(&root) == first);
    // The user's values survive a forced regeneration; the templates are rewritten.
    let values = root.join("dist/chart/values.yaml");
    let edited = std::fs::read_to_string(&values)
        .unwrap()
        .replace("replicas: 1", "replicas: 3");
    std::fs::write(&values, &edited).unwrap();
    let manager = root.join("dist/chart/templates/manager/controller-manager.yaml");
    std::fs::write(&manager, "broken\n").unwrap();
    // --diff shows the template being restored, and writes nothing.
    let before = read_tree(&root);
    let output = edit(&root, &["--force", "--dry-run", "--diff"]);
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let diff = String::from_utf8_lossy(&output.stdout);
    assert!(
        diff.contains("-broken") && diff.contains("+  replicas: {{ .Values.manager.replicas }}"),
        "{diff}"
    );
    assert!(!diff.contains("replicas: 3"), "values.yaml is kept: {diff}");
    assert!(read_tree(&root) == before, "--dry-run --diff wrote files");
    let output = edit(&root, &["--force"]);
    assert!(output.status.success(), "{}", transcript(&output, &root));
    assert_eq!(std::fs::read_to_string(&values).unwrap(), edited);
    assert_eq!(
        std::fs::read(&manager).unwrap(),
        first["dist/chart/templates/manager/controller-manager.yaml"]
    );
}

/// What a later run does to a chart the user has worked on: templates changed by hand, and
/// values.yaml, stay as they are (with a warning naming each template kept), what is new in
/// install.yaml is added, values.yaml gets the keys it lacks, the Makefile the targets it
/// lacks; `--force` rewrites the changed templates but never the values.
#[needs(kubectl)]
#[test]
fn a_rerun_keeps_changed_templates_and_values_and_adds_what_is_new() {
    let dir = tempfile::tempdir().unwrap();
    let root = project_with_installer(dir.path());
    // A Makefile with the targets of an earlier version.
    let makefile = root.join("Makefile");
    let old_targets = "\n##@ Helm\n\nHELM ?= helm\nHELM_RELEASE ?= hc-operator\nHELM_NAMESPACE ?= hc-operator-system\n\n.PHONY: helm-deploy\nhelm-deploy: ## mine\n\t$(HELM) upgrade --install mine\n";
    let mut text = std::fs::read_to_string(&makefile).unwrap();
    text.push_str(old_targets);
    std::fs::write(&makefile, &text).unwrap();
    let output = edit(&root, &[]);
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let makefile_text = std::fs::read_to_string(&makefile).unwrap();
    assert!(makefile_text.contains(old_targets), "{makefile_text}");
    for target in [
        "helm-uninstall",
        "helm-status",
        "helm-history",
        "helm-rollback",
    ] {
        assert_eq!(
            makefile_text.matches(&format!("\n{target}:")).count(),
            1,
            "{makefile_text}"
        );
    }
    assert_eq!(makefile_text.matches("\nhelm-deploy:").count(), 1);

    // The user changes a template and trims values.yaml to the keys they care about; the
    // install file gains a Role, and changes the manager's resources and its template.
    let chart = root.join("dist/chart");
    let manager = chart.join("templates/manager/controller-manager.yaml");
    let mine = std::fs::read_to_string(&manager)
        .unwrap()
        .replace("  replicas:", "  # mine\n  replicas:");
    std::fs::write(&manager, &mine).unwrap();
    let values = "# my values\nmanager:\n  replicas: 3 # three\n";
    std::fs::write(chart.join("values.yaml"), values).unwrap();
    let install = std::fs::read_to_string(root.join("dist/install.yaml"))
        .unwrap()
        .replace("memory: 128Mi", "memory: 256Mi")
        .replace("initialDelaySeconds: 15", "initialDelaySeconds: 16")
        + "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: hc-operator-extra\n  namespace: hc-operator-system\nrules: []\n";
    std::fs::write(root.join("dist/install.yaml"), install).unwrap();

    let output = edit(&root, &[]);
    let text = transcript(&output, &root);
    assert!(output.status.success(), "{text}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("dist/chart/templates/manager/controller-manager.yaml was changed by hand and is left as it is")
            && stderr.contains("pass --force to rewrite it"),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(&manager).unwrap(), mine);
    let extra = std::fs::read_to_string(chart.join("templates/rbac/extra.yaml")).unwrap();
    assert!(extra.contains("{{- if .Values.rbac.enable }}"), "{extra}");
    let merged = std::fs::read_to_string(chart.join("values.yaml")).unwrap();
    assert!(
        merged.starts_with("# my values\nmanager:\n  replicas: 3 # three\n  image:\n"),
        "{merged}"
    );
    let parsed: Value = serde_yaml::from_str(&merged).unwrap();
    assert_eq!(parsed["manager"]["replicas"], 3);
    assert_eq!(
        parsed["manager"]["resources"]["requests"]["memory"],
        "256Mi"
    );
    for key in ["crd", "rbac", "metrics", "prometheus", "networkPolicy"] {
        assert!(parsed[key]["enable"].is_boolean(), "{key} in {merged}");
    }
    // The kept template and the merged values render: the user's replicas, the new Role.
    let mut objects = render(&root, &json!({}), "hc-operator-system");
    let deployment = objects
        .remove("Deployment/hc-operator-controller-manager")
        .unwrap();
    assert_eq!(deployment["spec"]["replicas"], 3);
    assert!(objects.contains_key("Role/hc-operator-extra"));

    // Again: nothing changes.
    let before = read_tree(&root);
    assert!(edit(&root, &[]).status.success());
    assert!(read_tree(&root) == before);
    // --force rewrites the changed template, not the values.
    let output = edit(&root, &["--force"]);
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let rewritten = std::fs::read_to_string(&manager).unwrap();
    assert!(
        !rewritten.contains("# mine")
            && rewritten.contains("replicas: {{ .Values.manager.replicas }}")
    );
    assert_eq!(
        std::fs::read_to_string(chart.join("values.yaml")).unwrap(),
        merged
    );
    // Once rewritten it is the tool's again: updated without --force.
    let install = std::fs::read_to_string(root.join("dist/install.yaml"))
        .unwrap()
        .replace(
            "terminationGracePeriodSeconds: 30",
            "terminationGracePeriodSeconds: 40",
        );
    std::fs::write(root.join("dist/install.yaml"), install).unwrap();
    let output = edit(&root, &[]);
    assert!(output.status.success(), "{}", transcript(&output, &root));
    assert!(!String::from_utf8_lossy(&output.stderr).contains("changed by hand"));
    // Below its first line, the record of what was written.
    let body = |text: &str| text.split_once('\n').unwrap().1.to_string();
    assert_eq!(
        body(&std::fs::read_to_string(&manager).unwrap()),
        body(&rewritten).replace(
            "terminationGracePeriodSeconds: 30",
            "terminationGracePeriodSeconds: 40"
        )
    );
}

/// Runs `script` as a GitHub step (bash -eo pipefail) in `root`, with helm on PATH and a
/// `kubectl` that records its arguments in `calls` instead of reaching a cluster.
fn run_step(root: &Path, script: &str, calls: &Path) -> std::process::Output {
    let bin = root.parent().unwrap().join("step-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let kubectl = bin.join("kubectl");
    std::fs::write(
        &kubectl,
        format!("#!/bin/sh\necho \"$*\" >> '{}'\n", calls.display()),
    )
    .unwrap();
    let mut mode = std::fs::metadata(&kubectl).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
    std::fs::set_permissions(&kubectl, mode).unwrap();
    let helm = Path::new(rusty_sdk_test_tools::path!(helm));
    let search_path = format!(
        "{}:{}:{}",
        bin.display(),
        helm.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    crate::e2e::command(root, rusty_sdk_test_tools::path!(bash))
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
        .env("PATH", &search_path)
        .output()
        .unwrap()
}

/// kubebuilder's Test Chart workflow has its counterpart: valid YAML with a read-only token,
/// every `make` target it runs is in the Makefile (the Helm ones this command adds among
/// them), its `helm lint` step passes as written on the chart it names (`--output-dir`
/// followed), its cert-manager step installs cert-manager exactly when the chart has
/// cert-manager's objects (a project with webhooks; run with a kubectl that records its
/// calls), and it is the user's once written: a rerun, `--force` too, keeps an edit.
#[needs(kubectl, helm, bash)]
#[test]
fn the_test_chart_workflow_runs_what_the_project_has() {
    let dir = tempfile::tempdir().unwrap();
    let root = project_with_installer(dir.path());
    let output = edit(&root, &["--output-dir", "deploy"]);
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let path = root.join(".github/workflows/test-chart.yml");
    let text = std::fs::read_to_string(&path).unwrap();
    let workflow: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    assert_eq!(
        workflow["permissions"],
        serde_yaml::Value::Mapping(serde_yaml::Mapping::new())
    );
    let makefile = std::fs::read_to_string(root.join("Makefile")).unwrap();
    let calls = dir.path().join("kubectl-calls");
    let (mut targets, mut linted, mut cert_manager_step) = (Vec::new(), false, None);
    for step in workflow["jobs"]["test-chart"]["steps"]
        .as_sequence()
        .unwrap()
    {
        let Some(script) = step["run"].as_str() else {
            continue;
        };
        for target in crate::init::make_targets(script) {
            assert!(
                makefile.contains(&format!("\n{target}:")),
                "test-chart.yml runs `make {target}`, which the Makefile lacks"
            );
            targets.push(target);
        }
        if script.starts_with("helm lint") {
            assert_eq!(script.trim(), "helm lint deploy/chart");
            let lint = run_step(&root, script, &calls);
            let stdout = String::from_utf8_lossy(&lint.stdout);
            assert!(
                lint.status.success() && stdout.contains("1 chart(s) linted, 0 chart(s) failed"),
                "{stdout}{}",
                String::from_utf8_lossy(&lint.stderr)
            );
            linted = true;
        }
        if script.contains("cert-manager") {
            cert_manager_step = Some(script.to_string());
        }
    }
    assert!(linted, "test-chart.yml lints no chart");
    assert_eq!(targets, ["docker-build", "helm-deploy", "helm-status"]);

    // Without webhooks the chart has no cert-manager objects: the step leaves kubectl alone.
    let cert_manager_step = cert_manager_step.expect("a cert-manager step");
    let output = run_step(&root, &cert_manager_step, &calls);
    assert!(output.status.success(), "{output:?}");
    assert!(
        !calls.exists(),
        "kubectl was called for a chart without cert-manager objects"
    );
    // With a webhook it has (certManager.enable), and the step installs cert-manager.
    let output = rusty(&root)
        .args(["create", "webhook", "--group", "cache", "--version", "v1"])
        .args(["--kind", "Backup", "--defaulting"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let install = crate::e2e::kustomize(&root, "config/default");
    std::fs::write(root.join("dist/install.yaml"), install).unwrap();
    let output = edit(&root, &["--output-dir", "deploy"]);
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let output = run_step(&root, &cert_manager_step, &calls);
    assert!(output.status.success(), "{output:?}");
    let called = std::fs::read_to_string(&calls).unwrap();
    assert!(
        called.starts_with("apply -f https://github.com/cert-manager/cert-manager/releases/")
            && called.contains("\nwait --for=condition=Available"),
        "{called}"
    );

    let edited = text.replace("runs-on: ubuntu-latest", "runs-on: self-hosted");
    std::fs::write(&path, &edited).unwrap();
    for extra in [
        &["--output-dir", "deploy"][..],
        &["--output-dir", "deploy", "--force"],
    ] {
        let output = edit(&root, extra);
        assert!(output.status.success(), "{}", transcript(&output, &root));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), edited, "{extra:?}");
    }
}
