//! The tests a generated project brings, run on the real control plane: a `--plugins rust`
//! project with the default controller for a namespaced kind (`Memcached`) and for a
//! cluster-scoped one (`Proxy`), and a deploy-image controller (`Busybox`), runs its
//! integration tests (src/integration) as `make test-integration` runs them, with
//! `KUBEBUILDER_ASSETS` naming this repository's control-plane folder. Each must run and
//! pass: none may be ignored or filtered out. Without `--ignored` (`make test`) they are
//! reported ignored, and with it but no `KUBEBUILDER_ASSETS` they fail saying how to get the
//! binaries. The project's Kind suite (test/e2e) cannot run here: it builds and is
//! clippy-clean with the rest of the project, and `make -n test-e2e` shows what it runs.
use std::path::Path;

use rusty_sdk_test_tools::needs;

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

#[needs(control_plane, e2e, kubectl, make)]
#[test]
fn a_generated_project_passes_its_integration_tests_on_the_control_plane() {
    let (_dir, root) = e2e::project_dir(PROJECT);
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
}
