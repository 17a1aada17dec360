//! The tests a generated project brings, run on the real control plane: a `--plugins rust`
//! project with the default controller for a namespaced kind (`Memcached`) and for a
//! cluster-scoped one (`Proxy`), and a deploy-image controller (`Busybox`), runs its
//! integration tests (src/integration) as `make test-integration` runs them, with
//! `KUBEBUILDER_ASSETS` naming this repository's control-plane folder. Each must run and
//! pass: none may be ignored or filtered out. Without `--ignored` (`make test`) they are
//! reported ignored, and with it but no `KUBEBUILDER_ASSETS` they fail saying how to get the
//! binaries. The project's Kind suite (test/e2e) cannot run here: it builds and is
//! clippy-clean with the rest of the project, and `make -n test-e2e` shows what it runs.
//! Then every step of the project's CI workflows that needs neither the internet nor Kind
//! runs as GitHub would run it.
use std::path::Path;

use rusty_sdk_test_tools::{needs, path};

use crate::e2e::{self, check_project, must, must_with_env, run_bin};
use crate::support::{rusty, transcript};

/// The project's name, and so the name of its manager binary and of its test target.
const PROJECT: &str = "cluster-generated-tests";
/// The integration tests `create api` scaffolded, as the test runner names them.
const INTEGRATION_TESTS: [&str; 3] = [
    "integration::busybox::runs_a_deployment_and_reports_its_pods",
    "integration::memcached::reconciles_each_generation_and_lets_the_object_go",
    "integration::proxy::reconciles_each_generation_and_lets_the_object_go",
];

/// The commands that make the project: the default controller for a namespaced and for a
/// cluster-scoped kind, and a deploy-image controller.
const SCAFFOLD: [&str; 4] = [
    "init --plugins rust --domain my.domain --repo github.com/example/cluster-generated-tests",
    "create api --plugins rust --group cache --version v1 --kind Memcached --resource --controller",
    "create api --plugins rust --group infra --version v1 --kind Proxy --namespaced=false --resource --controller",
    "create api --plugins rust --group cache --version v1alpha1 --kind Busybox --image busybox:1.36 --image-container-command sleep,3600 --image-container-port 8080",
];

fn create_project(root: &Path) {
    for command in SCAFFOLD {
        let output = rusty(root).args(command.split(' ')).output().unwrap();
        assert!(output.status.success(), "{}", transcript(&output, root));
    }
    add_spec_fields(root);
}

/// What the tutorial asks of a user first: a field of their own in each spec, one the API
/// server requires. The generated tests name only the fields they set, so they build and
/// pass with it.
fn add_spec_fields(root: &Path) {
    for (file, spec) in [
        ("api/src/cache/v1/memcached.rs", "MemcachedSpec"),
        ("api/src/infra/v1/proxy.rs", "ProxySpec"),
        ("api/src/cache/v1alpha1/busybox.rs", "BusyboxSpec"),
    ] {
        let path = root.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let head = format!("pub struct {spec} {{\n");
        assert!(text.contains(&head), "{file}: {text}");
        let field = "    /// Who asked for it.\n    pub owner_team: String,\n";
        std::fs::write(&path, text.replacen(&head, &format!("{head}{field}"), 1)).unwrap();
    }
}

/// The lines of cargo's output that report `test`'s outcome (`test <name> ... ok`).
fn outcome<'a>(output: &'a str, test: &str) -> Vec<&'a str> {
    let prefix = format!("test {test} ... ");
    output
        .lines()
        .filter_map(|line| line.strip_prefix(prefix.as_str()))
        .collect()
}

#[needs(control_plane, e2e, kubectl, make, bash)]
#[test]
fn a_generated_project_passes_its_integration_tests_on_the_control_plane() {
    let (dir, root) = e2e::project_dir(PROJECT);
    create_project(&root);
    for file in [
        ".github/workflows/lint.yml",
        ".github/workflows/test.yml",
        ".github/workflows/test-integration.yml",
        ".github/workflows/test-e2e.yml",
    ] {
        assert!(root.join(file).is_file(), "{file} was not scaffolded");
    }
    // Builds (the Kind suite too), passes its unit tests, clippy pedantic and fmt.
    check_project(&root);

    // What `make test-integration` runs when KUBEBUILDER_ASSETS is set: the CRDs written by
    // crdgen, then the manager's ignored tests, with no setup-envtest.
    let assets = super::assets();
    let assets = assets.to_str().unwrap();
    let planned = must(
        &root,
        "make",
        &[
            "-n",
            "test-integration",
            "CARGO=cargo",
            &format!("KUBEBUILDER_ASSETS={assets}"),
        ],
    );
    assert!(
        planned.starts_with("cargo run --quiet --bin crdgen -- config/crd/bases\n")
            && planned.contains(&format!("cargo test --bin {PROJECT} -- --ignored\n"))
            && planned.contains(&format!("assets=\"{assets}\";")),
        "{planned}"
    );
    // The same, with the binaries every other test of this project used.
    run_bin(&root, "crdgen", &["config/crd/bases"]);
    let test = ["test", "--bin", PROJECT];
    let with_assets = [("KUBEBUILDER_ASSETS", assets)];
    let output = {
        let _guard = e2e::CARGO
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        must_with_env(
            &root,
            "cargo",
            &[&test[..], &["--", "--ignored"]].concat(),
            &with_assets,
        )
    };
    for name in INTEGRATION_TESTS {
        assert_eq!(outcome(&output, name), ["ok"], "{output}");
    }
    assert!(
        output.contains("test result: ok. 3 passed; 0 failed; 0 ignored;"),
        "{output}"
    );

    // `cargo test` alone (`make test`) reports them ignored, saying what they need.
    let output = {
        let _guard = e2e::CARGO
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        must_with_env(&root, "cargo", &test, &with_assets)
    };
    let ignored = "ignored, needs a control plane: make test-integration (KUBEBUILDER_ASSETS)";
    for name in INTEGRATION_TESTS {
        assert_eq!(outcome(&output, name), [ignored], "{output}");
    }

    // Asked for, but with no control plane named, they fail and say how to get one.
    let output = {
        let _guard = e2e::CARGO
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        e2e::command(&root, "cargo")
            .args(test)
            .args(["--", "--ignored"])
            .env_remove("KUBEBUILDER_ASSETS")
            .output()
            .unwrap()
    };
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success(), "{text}");
    for name in INTEGRATION_TESTS {
        assert_eq!(outcome(&text, name), ["FAILED"], "{text}");
    }
    assert!(
        text.contains("KUBEBUILDER_ASSETS is not set: point it at a folder holding etcd and kube-apiserver (`make setup-envtest` prints one)"),
        "{text}"
    );

    // The Kind suite: what `make test-e2e` would run, here without kind.
    let planned = must(
        &root,
        "make",
        &["-n", "test-e2e", "KIND=kind", "CARGO=cargo"],
    );
    assert!(
        planned.contains(&format!(
            "KIND='kind' KIND_CLUSTER='{PROJECT}-test-e2e' KUBECTL='kubectl' cargo test --test e2e -- --ignored --nocapture\n"
        )),
        "{planned}"
    );
    let planned = must(&root, "make", &["-n", "setup-envtest"]);
    assert_eq!(
        planned.trim(),
        format!(
            "go run sigs.k8s.io/controller-runtime/tools/setup-envtest@latest use 1.33 --bin-dir {}/bin -p path",
            root.display()
        )
    );

    // And as its CI workflows run them, on the same project (its builds are done).
    ci_workflow_steps_run(&root, dir.path());
}

/// The workflow steps that cannot run here, each with why: they fetch from the internet or
/// need Docker and Kind. Every other `run:` step of every workflow runs in
/// [`ci_workflow_steps_run`].
const STEPS_NOT_RUN_HERE: [(&str, &str); 4] = [
    (
        "cargo install rusty-sdk --locked",
        "fetches rusty-sdk from crates.io",
    ),
    ("curl -Lo ./kind", "downloads kind"),
    ("kind version", "needs the kind it downloads"),
    ("make test-e2e", "needs Docker and a Kind cluster"),
];

/// The `run:` steps of every workflow of the project, run in order as GitHub runs them
/// (`bash -e`, `$GITHUB_ENV` carried to the next steps): `rustup toolchain install`,
/// `make lint`, `make test`, and the integration workflow's setup-envtest step (with a
/// setup-envtest that prints this repository's control plane, as the real one prints the
/// folder it fetched) followed by `make test-integration` on it. Only the steps in
/// [`STEPS_NOT_RUN_HERE`] are left out. The workflows are the same in every layout with a
/// Rust API, so this project's stand for all.
fn ci_workflow_steps_run(root: &Path, scratch: &Path) {
    let assets = path!(control_plane);
    let setup_envtest = scratch.join("setup-envtest");
    std::fs::write(&setup_envtest, format!("#!/bin/sh\necho '{assets}'\n")).unwrap();
    let mut mode = std::fs::metadata(&setup_envtest).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
    std::fs::set_permissions(&setup_envtest, mode).unwrap();
    let github_env = scratch.join("github-env");

    let mut names: Vec<_> = std::fs::read_dir(root.join(".github/workflows"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "lint.yml",
            "test-e2e.yml",
            "test-integration.yml",
            "test.yml"
        ]
    );
    let (mut ran, mut left_out) = (Vec::new(), Vec::new());
    for name in &names {
        let text = std::fs::read_to_string(root.join(".github/workflows").join(name)).unwrap();
        let workflow: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        for (_, job) in workflow["jobs"].as_mapping().unwrap() {
            // Each job starts from a fresh runner: no environment from another job.
            std::fs::write(&github_env, "").unwrap();
            let mut env: Vec<(String, String)> = Vec::new();
            for step in job["steps"].as_sequence().unwrap() {
                let Some(script) = step["run"].as_str() else {
                    continue; // an action: the checkout is this folder, Go is not needed
                };
                if let Some((_, why)) = STEPS_NOT_RUN_HERE
                    .iter()
                    .find(|(start, _)| script.trim_start().starts_with(start))
                {
                    left_out.push(format!("{name}: {script:?} ({why})"));
                    continue;
                }
                let output = {
                    let _guard = e2e::CARGO
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    e2e::command(root, path!(bash))
                        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
                        .env("GITHUB_ENV", &github_env)
                        .env("SETUP_ENVTEST", &setup_envtest)
                        .env_remove("KUBEBUILDER_ASSETS")
                        .envs(env.iter().map(|(k, v)| (k, v)))
                        .output()
                        .unwrap()
                };
                assert!(
                    output.status.success(),
                    "{name}: `{script}` failed:\n{}{}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                );
                if script == "make test-integration" {
                    // On the control plane setup-envtest named, not skipped: the test passed.
                    let stdout = String::from_utf8_lossy(&output.stdout);
                    let passed = "test integration::memcached::reconciles_each_generation_and_lets_the_object_go ... ok";
                    assert!(
                        stdout.contains(&format!("KUBEBUILDER_ASSETS={assets}\n"))
                            && stdout.contains(passed),
                        "{stdout}"
                    );
                }
                ran.push(format!("{name}: {script}"));
                env = std::fs::read_to_string(&github_env)
                    .unwrap()
                    .lines()
                    .filter_map(|line| line.split_once('='))
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect();
            }
        }
    }
    assert_eq!(
        ran,
        [
            "lint.yml: rustup toolchain install",
            "lint.yml: make lint",
            "test-e2e.yml: rustup toolchain install",
            "test-integration.yml: rustup toolchain install",
            "test-integration.yml: echo \"KUBEBUILDER_ASSETS=$(make --no-print-directory setup-envtest)\" >> \"$GITHUB_ENV\"",
            "test-integration.yml: make test-integration",
            "test.yml: rustup toolchain install",
            "test.yml: make test",
        ],
        "left out: {left_out:#?}"
    );
    assert_eq!(left_out.len(), 4, "{left_out:#?}");
}
