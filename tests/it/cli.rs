//! Transcripts of the CLI: help, errors and exit codes.
use std::fmt::Write as _;

use crate::support::{rusty, snapshot_settings, transcript};

fn run_in_temp(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memcached-operator");
    std::fs::create_dir(&root).unwrap();
    let output = rusty(&root).args(args).output().unwrap();
    transcript(&output, &root)
}

#[test]
fn help_texts() {
    snapshot_settings().bind(|| {
        insta::assert_snapshot!("cli_help", run_in_temp(&["--help"]));
        insta::assert_snapshot!("cli_init_help", run_in_temp(&["init", "--help"]));
        insta::assert_snapshot!(
            "cli_create_api_help",
            run_in_temp(&["create", "api", "--help"])
        );
    });
}

#[test]
fn bad_init_flags_are_one_line_errors_with_exit_1() {
    let cases: &[(&str, &[&str])] = &[
        ("bad_plugin", &["init", "--plugins", "go/v4"]),
        (
            "bad_domain",
            &["init", "--plugins", "rust", "--domain", "My_Domain"],
        ),
        (
            "bad_repo",
            &[
                "init",
                "--plugins",
                "rust",
                "--repo",
                "https://github.com/x/y",
            ],
        ),
        (
            "bad_project_name",
            &["init", "--plugins", "rust", "--project-name", "Memcached"],
        ),
        (
            "bad_project_version",
            &["init", "--plugins", "rust", "--project-version", "2"],
        ),
        (
            "unknown_flag",
            &["init", "--plugins", "rust", "--frobnicate"],
        ),
    ];
    let mut all = String::new();
    for (name, args) in cases {
        let text = run_in_temp(args);
        assert!(text.starts_with("exit: 1\n"), "{name}: {text}");
        let _ = writeln!(all, "### {name}: rusty-sdk {}\n{text}", args.join(" "));
    }
    snapshot_settings().bind(|| insta::assert_snapshot!("cli_init_errors", all));
}

#[test]
fn version_names_what_generated_projects_pin() {
    let text = run_in_temp(&["version"]);
    let line = format!(
        "rusty-sdk version: \"{}\", commit: \"",
        env!("CARGO_PKG_VERSION")
    );
    assert!(
        text.starts_with(&format!("exit: 0\n--- stdout\n{line}")),
        "{text}"
    );
    for part in [
        "kube version: \"5.0.0\"",
        "k8s-openapi version: \"0.29.0\"",
        "kubernetes version: \"1.33\"",
        "helm version: \"v4.",
        "rustc version: \"1.",
    ] {
        assert!(text.contains(part), "{part} missing: {text}");
    }
    // The versions printed are the ones init writes.
    let dir = tempfile::tempdir().unwrap();
    rusty(dir.path())
        .args(["-q", "-C", "p", "init", "--plugins", "hybrid.helm"])
        .assert()
        .success();
    let manifest = std::fs::read_to_string(dir.path().join("p/Cargo.toml")).unwrap();
    assert!(
        manifest.contains("kube = { version = \"5.0.0\""),
        "{manifest}"
    );
    assert!(
        manifest.contains("k8s-openapi = { version = \"0.29.0\""),
        "{manifest}"
    );
    let dockerfile = std::fs::read_to_string(dir.path().join("p/Dockerfile")).unwrap();
    let helm = text
        .split("helm version: \"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    // No helm in the image: the version named is the Helm whose semantics the runtime's
    // release engine reproduces, the CLI the cluster suites hold it to.
    assert!(!dockerfile.contains("HELM_VERSION"), "{dockerfile}");
    let go_mod = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/hack/control-plane/helm/go.mod"
    ))
    .unwrap();
    let pinned = go_mod.lines().any(|line| {
        let mut words = line.split_whitespace();
        words.next() == Some("helm.sh/helm/v4") && words.next() == Some(helm)
    });
    assert!(pinned, "the suites' helm is not {helm}: {go_mod}");
}

#[test]
fn verbose_prints_a_plan_summary() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memcached-operator");
    std::fs::create_dir(&root).unwrap();
    let first = crate::support::rusty(&root)
        .args(["-v", "init", "--plugins", "rust"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&first.stdout);
    assert!(first.status.success(), "{text}");
    let files = crate::support::read_tree(&root).len();
    assert!(
        text.contains(&format!("{files} file(s): {files} created\n")),
        "{text}"
    );
    // A re-run that changes nothing says so.
    let again = crate::support::rusty(&root)
        .args(["-v", "generate", "rbac"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(
        text.contains("2 file(s): 2 identical; nothing to write\n"),
        "{text}"
    );
}
