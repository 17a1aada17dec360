//! Paths that would leave the project: an `--output-dir` outside it, an object in the
//! kustomize output whose name walks up with `..`. Refused naming the flag or the object,
//! and nothing is written anywhere.
use crate::hostile::init;
use crate::support::{assert_refused, read_tree, rusty};

const BUNDLE: [&str; 6] = [
    "generate",
    "bundle",
    "--version",
    "0.1.0",
    "--input-dir",
    "m.yaml",
];

/// The least kustomize output the shipping commands take, plus `extra` documents.
fn manifests(extra: &str) -> String {
    format!(
        "apiVersion: v1
kind: Namespace
metadata:
  name: paths-system
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: paths-controller-manager
  namespace: paths-system
spec:
  selector:
    matchLabels: {{app: paths}}
  template:
    metadata:
      labels: {{app: paths}}
    spec:
      serviceAccountName: paths-controller-manager
      containers:
      - name: manager
        image: example.com/paths:0.1.0
{extra}"
    )
}

#[test]
fn output_dirs_and_object_names_never_lead_out_of_the_project() {
    let (dir, root) = init("helm");
    std::fs::write(root.join("m.yaml"), manifests("")).unwrap();
    let before = read_tree(&root);
    let outside = dir.path().join("outside");
    for out in [outside.display().to_string(), "../outside".into()] {
        let bundle = rusty(&root)
            .args(BUNDLE)
            .args(["--output-dir", &out])
            .output()
            .unwrap();
        assert_refused(
            &bundle,
            &root,
            "must be a folder inside the project",
            &before,
        );
        let chart = rusty(&root)
            .args(["edit", "--plugins", "helm-chart", "--manifests", "m.yaml"])
            .args(["--output-dir", &out])
            .output()
            .unwrap();
        assert_refused(
            &chart,
            &root,
            "must be a folder inside the project",
            &before,
        );
        assert!(!outside.exists(), "{out}: wrote outside the project");
    }
    let hostile = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x/../../../../pwned\n";
    std::fs::write(root.join("m.yaml"), manifests(hostile)).unwrap();
    let before = read_tree(&root);
    let bundle = rusty(&root).args(BUNDLE).output().unwrap();
    assert_refused(
        &bundle,
        &root,
        "the ConfigMap named \"x/../../../../pwned\" cannot be a Kubernetes object",
        &before,
    );
    assert!(bundle.stdout.is_empty(), "no `create` line for a refusal");
}

#[test]
fn bundle_values_that_make_names_kubernetes_refuses_are_refused() {
    let (_dir, root) = init("helm");
    std::fs::write(root.join("m.yaml"), manifests("")).unwrap();
    let before = read_tree(&root);
    for (extra, want) in [
        (
            &["--version", "0.1.0+build.1"][..],
            "which Kubernetes refuses",
        ),
        (&["--version", "0.1.0-RC.1"], "which Kubernetes refuses"),
        (
            &["--version", "0.1.0", "--channels", "alpha,,stable"],
            "is empty or has a space",
        ),
    ] {
        let output = rusty(&root)
            .args(["generate", "bundle", "--input-dir", "m.yaml"])
            .args(extra)
            .output()
            .unwrap();
        assert_refused(&output, &root, want, &before);
    }
}

#[test]
fn a_bad_project_name_in_project_is_named_as_coming_from_project() {
    let (_dir, root) = init("hybrid.helm");
    std::fs::write(root.join("m.yaml"), manifests("")).unwrap();
    let text = std::fs::read_to_string(root.join("PROJECT")).unwrap();
    let edited = text.replace("projectName: hostile-operator", "projectName: Bad Name");
    assert_ne!(text, edited);
    std::fs::write(root.join("PROJECT"), edited).unwrap();
    let before = read_tree(&root);
    let bundle = rusty(&root).args(BUNDLE).output().unwrap();
    assert_refused(&bundle, &root, "projectName in PROJECT", &before);
    assert!(!String::from_utf8_lossy(&bundle.stderr).contains("invalid --package"));
    let api = rusty(&root)
        .args(crate::support::rust_api_args("web", "v1", "Site"))
        .output()
        .unwrap();
    assert_refused(&api, &root, "fix `projectName:` in PROJECT", &before);
}

#[test]
fn a_line_break_in_a_path_stays_inside_a_one_line_message() {
    let (dir, root) = init("helm");
    let odd = dir.path().join("new\nline");
    std::fs::create_dir(&odd).unwrap();
    for args in [
        vec![
            "create".into(),
            "api".into(),
            "--helm-chart".into(),
            odd.display().to_string(),
        ],
        vec![
            "-C".into(),
            odd.join("sub").display().to_string(),
            "generate".into(),
            "rbac".into(),
        ],
    ] {
        let before = read_tree(&root);
        let output = rusty(&root).args(&args).output().unwrap();
        assert_refused(&output, &root, "new\\nline", &before);
    }
}
