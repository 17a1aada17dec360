//! What users coming from kubebuilder and operator-sdk type and expect: their plugin keys
//! and flags, a Makefile that covers the whole workspace, no made-up repository URL,
//! examples in --help and a next step after every `create api`.
use crate::e2e;
use crate::support::{rusty, transcript};

fn run(root: &std::path::Path, args: &[&str]) -> (bool, String) {
    let output = rusty(root).args(args).output().unwrap();
    (output.status.success(), transcript(&output, root))
}

#[test]
fn no_repository_line_without_repo() {
    let (_dir, root) = e2e::project_dir("no-repo-operator");
    assert!(run(&root, &["init", "--plugins", "rust", "-q"]).0);
    for manifest in ["Cargo.toml", "api/Cargo.toml"] {
        let text = std::fs::read_to_string(root.join(manifest)).unwrap();
        assert!(!text.contains("repository"), "{manifest}:\n{text}");
    }
    let (_dir2, with) = e2e::project_dir("repo-operator");
    assert!(
        run(
            &with,
            &[
                "init",
                "--plugins",
                "rust",
                "--repo",
                "github.com/x/y",
                "-q"
            ]
        )
        .0
    );
    let text = std::fs::read_to_string(with.join("Cargo.toml")).unwrap();
    assert!(
        text.contains("repository = \"https://github.com/x/y\""),
        "{text}"
    );
}

#[test]
fn the_makefile_tests_and_lints_every_crate_and_run_wants_helm_for_helm_apis() {
    let (_dir, root) = e2e::project_dir("make-operator");
    assert!(run(&root, &["init", "--plugins", "hybrid.helm", "-q"]).0);
    let makefile = std::fs::read_to_string(root.join("Makefile")).unwrap();
    assert!(
        makefile.contains("\t$(CARGO) test --workspace\n"),
        "{makefile}"
    );
    assert!(
        makefile.contains("clippy --workspace --all-targets -- -D warnings"),
        "{makefile}"
    );
    assert!(makefile.contains("command -v helm"), "{makefile}");
    let (_dir2, rust) = e2e::project_dir("make-rust-operator");
    assert!(run(&rust, &["init", "--plugins", "rust", "-q"]).0);
    let makefile = std::fs::read_to_string(rust.join("Makefile")).unwrap();
    assert!(
        !makefile.contains("command -v helm"),
        "a Rust-only project needs no helm"
    );
}

#[test]
fn kubebuilder_plugin_keys_and_flags() {
    let (_dir, root) = e2e::project_dir("kb-operator");
    let (ok, text) = run(&root, &["init", "--plugins", "go/v4"]);
    assert!(
        !ok && text.contains("kubebuilder's plugin for operators written in Go")
            && text.contains("--plugins=rust"),
        "{text}"
    );
    assert!(run(&root, &["init", "--plugins", "rust", "-q"]).0);
    let api = [
        "create",
        "api",
        "--group",
        "cache",
        "--version",
        "v1",
        "--kind",
        "Memcached",
    ];
    let (ok, text) = run(
        &root,
        &[&api[..], &["--plugins", "go.kubebuilder.io/v4"]].concat(),
    );
    assert!(!ok && text.contains("use --plugins=rust"), "{text}");
    let (ok, text) = run(
        &root,
        &[&api[..], &["--plugins", "deploy-image/v1-alpha"]].concat(),
    );
    assert!(!ok && text.contains("needs --image"), "{text}");
    let deploy = [
        &api[..],
        &[
            "--plugins",
            "deploy-image/v1-alpha",
            "--image",
            "memcached:1.6.26-alpine",
            "--make=false",
        ],
    ]
    .concat();
    let (ok, text) = run(&root, &deploy);
    assert!(ok, "{text}");
    assert!(root.join("src/controller/memcached.rs").exists());
}

#[test]
fn every_command_has_examples_and_a_helm_api_says_what_is_next() {
    let dir = tempfile::tempdir().unwrap();
    for command in [&["init"][..], &["create", "api"], &["generate", "rbac"]] {
        let (ok, text) = run(dir.path(), &[command, &["--help"]].concat());
        assert!(
            ok && text.contains("Examples:\n  rusty-sdk "),
            "{command:?}: {text}"
        );
    }
    let (_dir, root) = e2e::project_dir("next-operator");
    assert!(run(&root, &["init", "--plugins", "helm", "-q"]).0);
    let (ok, text) = run(
        &root,
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Nginx",
        ],
    );
    assert!(
        ok && text.contains("Next: install the CRD and run the operator")
            && text.contains("config/samples/cache_v1_nginx.yaml"),
        "{text}"
    );
}

/// What bash completes for `words` (the last one being completed) with our script.
fn bash_completes(script: &std::path::Path, words: &[&str]) -> String {
    let line = words.join(" ");
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        "source '{}'\nCOMP_WORDS=({})\nCOMP_CWORD={}\nCOMP_LINE='{line}'\nCOMP_POINT={}\n_rusty__sdk rusty-sdk '{}' '{}'\necho \"${{COMPREPLY[*]}}\"\n",
        script.display(),
        quoted.join(" "),
        words.len() - 1,
        line.len(),
        words[words.len() - 1],
        words[words.len() - 2],
    );
    let output = std::process::Command::new(rusty_sdk_test_tools::path!(bash))
        .args(["-c", &program])
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

#[rusty_sdk_test_tools::needs(bash)]
#[test]
fn bash_completes_the_flags_of_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let output = rusty(dir.path())
        .args(["completion", "bash"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let script = dir.path().join("rusty-sdk.bash");
    std::fs::write(&script, &output.stdout).unwrap();
    assert_eq!(bash_completes(&script, &["rusty-sdk", "cre"]), "create");
    assert_eq!(
        bash_completes(&script, &["rusty-sdk", "create", "api", "--pl"]),
        "--plugins --plural"
    );
    assert_eq!(
        bash_completes(&script, &["rusty-sdk", "init", "--do"]),
        "--domain"
    );
    assert_eq!(
        bash_completes(&script, &["rusty-sdk", "generate", "rbac", "--ch"]),
        "--check"
    );
}
