//! The seed tutorial (`OpenShift`'s "Hybrid Helm Operator"), done with rusty-sdk: the
//! hybrid Memcached operator with a Helm API and a Rust API, as a golden project.
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rusty_sdk_test_tools::needs;

use crate::support::{read_tree, rusty, snapshot_settings, transcript};

const INIT: &[&str] = &[
    "init",
    "--plugins=hybrid.helm.sdk.operatorframework.io",
    "--project-version=3",
    "--domain",
    "my.domain",
    "--repo=github.com/example/memcached-operator",
];
const HELM_API: &[&str] = &[
    "create",
    "api",
    "--plugins",
    "helm.sdk.operatorframework.io/v1",
    "--group",
    "cache",
    "--version",
    "v1",
    "--kind",
    "Memcached",
];
const RUST_API: &[&str] = &[
    "create",
    "api",
    "--group=cache",
    "--version",
    "v1",
    "--kind",
    "MemcachedBackup",
    "--plugins=rust",
];

/// Run rusty-sdk with `stdin` piped in; returns (exit code, transcript).
fn run(root: &Path, args: &[&str], stdin: &str) -> (i32, String) {
    let output = rusty(root).args(args).write_stdin(stdin).output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        transcript(&output, root),
    )
}

fn run_ok(root: &Path, args: &[&str], stdin: &str) -> String {
    let (code, text) = run(root, args, stdin);
    assert_eq!(code, 0, "rusty-sdk {}:\n{text}", args.join(" "));
    text
}

/// The tutorial's commands, in order, answering `y` to both prompts of the Rust API.
pub fn tutorial() -> (tempfile::TempDir, PathBuf) {
    tutorial_in("memcached-operator")
}

pub fn tutorial_in(name: &str) -> (tempfile::TempDir, PathBuf) {
    let (dir, root) = crate::e2e::project_dir(name);
    run_ok(&root, INIT, "");
    run_ok(&root, HELM_API, "");
    let prompts = run_ok(&root, RUST_API, "y\ny\n");
    assert!(
        prompts.contains("Create Resource [y/n]\nCreate Controller [y/n]\n"),
        "{prompts}"
    );
    run_ok(&root, &["generate", "rbac"], "");
    (dir, root)
}

/// The optional webhook step's command, read from docs/tutorial.md (its `sh` block under
/// "Webhooks (optional)", continuation lines joined), without the leading `rusty-sdk`.
fn webhook_step() -> Vec<String> {
    let doc = include_str!("../../docs/tutorial.md");
    let section = doc
        .split("\n### Webhooks (optional)\n")
        .nth(1)
        .expect("docs/tutorial.md has the webhook step");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the webhook step has a sh block");
    let command = block.replace("\\\n", " ");
    let mut words: Vec<String> = command.split_whitespace().map(String::from).collect();
    assert_eq!(words.remove(0), "rusty-sdk", "{block}");
    words
}

/// The tutorial with its optional webhook step, replayed from the text.
fn tutorial_with_webhooks(name: &str) -> (tempfile::TempDir, PathBuf) {
    let (dir, root) = tutorial_in(name);
    let step = webhook_step();
    run_ok(
        &root,
        &step.iter().map(String::as_str).collect::<Vec<_>>(),
        "",
    );
    (dir, root)
}

/// What the webhook step says it writes is what it writes, and it leaves `make manifests`
/// nothing to change.
#[test]
fn tutorial_webhook_step() {
    assert_eq!(
        webhook_step().join(" "),
        "create webhook --group cache --version v1 --kind MemcachedBackup --defaulting --programmatic-validation"
    );
    let (_dir, root) = tutorial_with_webhooks("memcached-operator");
    let files = read_tree(&root);
    let text = |path: &str| String::from_utf8_lossy(&files[path]).into_owned();
    let webhook = text("src/webhook/memcached_backup.rs");
    for said in [
        "fn default(",
        "fn validate_create(",
        "fn validate_update(",
        "fn validate_delete(",
        "Denial::new(",
        "MAX_NAME_LENGTH: usize = 63",
        "// +rusty:webhook:path=/mutate-cache-my-domain-v1-memcachedbackup,",
        "// +rusty:webhook:path=/validate-cache-my-domain-v1-memcachedbackup,",
    ] {
        assert!(webhook.contains(said), "{said} not in\n{webhook}");
    }
    assert!(text("src/main.rs").contains("manager.add_webhooks(webhook::all());"));
    let manifests = text("config/webhook/manifests.yaml");
    assert!(
        manifests.contains("kind: MutatingWebhookConfiguration")
            && manifests.contains("kind: ValidatingWebhookConfiguration"),
        "{manifests}"
    );
    let default = text("config/default/kustomization.yaml");
    for base in ["- ../webhook", "- ../certmanager"] {
        assert!(
            default.lines().any(|line| line.trim() == base),
            "{base} not on in\n{default}"
        );
    }
    assert!(text("Makefile").contains("WEBHOOK_CERT_MODE ?= local"));
    assert!(files.contains_key("config/self-signed/kustomization.yaml"));
    let (code, text) = run(&root, &["generate", "rbac", "--check"], "");
    assert_eq!(code, 0, "{text}");
    // The step again changes nothing, and says so.
    let step = webhook_step();
    let text = run_ok(
        &root,
        &step.iter().map(String::as_str).collect::<Vec<_>>(),
        "",
    );
    assert!(
        text.contains("MemcachedBackup (cache/v1) already has its defaulting and validating webhook: nothing to add"),
        "{text}"
    );
    assert!(read_tree(&root) == files, "{text}");
}

/// (apiGroup, resource) pairs granted by the ClusterRole in role.yaml.
fn granted(root: &Path) -> BTreeSet<(String, String)> {
    let text = std::fs::read_to_string(root.join("config/rbac/role.yaml")).unwrap();
    let role: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let mut out = BTreeSet::new();
    for rule in role["rules"].as_sequence().unwrap() {
        for group in rule["apiGroups"].as_sequence().unwrap() {
            for resource in rule["resources"].as_sequence().unwrap() {
                out.insert((
                    group.as_str().unwrap().to_string(),
                    resource.as_str().unwrap().to_string(),
                ));
            }
        }
    }
    out
}

fn pair(group: &str, resource: &str) -> (String, String) {
    (group.to_string(), resource.to_string())
}

#[test]
fn tutorial_golden_project() {
    let (_dir, root) = tutorial();
    let files = read_tree(&root);
    let listing: Vec<&str> = files.keys().map(String::as_str).collect();
    snapshot_settings().bind(|| {
        insta::assert_snapshot!("tutorial_files", listing.join("\n"));
        // The files several steps write to; each step's own files are snapshotted by its tests.
        for path in [
            "PROJECT",
            "watches.yaml",
            "src/main.rs",
            "config/rbac/role.yaml",
            "config/rbac/kustomization.yaml",
        ] {
            let name = format!("tutorial__{}", path.replace('/', "__"));
            insta::assert_snapshot!(name, String::from_utf8_lossy(&files[path]));
        }
    });
}

#[test]
fn tutorial_role_grants_what_both_apis_need() {
    let (_dir, root) = tutorial();
    let granted = granted(&root);
    let wanted = [
        pair("cache.my.domain", "memcacheds"),
        pair("cache.my.domain", "memcacheds/status"),
        pair("cache.my.domain", "memcacheds/finalizers"),
        pair("cache.my.domain", "memcachedbackups"),
        pair("cache.my.domain", "memcachedbackups/status"),
        pair("cache.my.domain", "memcachedbackups/finalizers"),
        pair("apps", "deployments"),
        pair("", "services"),
        pair("", "serviceaccounts"),
        pair("networking.k8s.io", "ingresses"),
        pair("autoscaling", "horizontalpodautoscalers"),
        pair("", "events"),
        pair("", "secrets"),
    ];
    for want in wanted {
        assert!(
            granted.contains(&want),
            "role.yaml lacks {want:?}; it grants {granted:?}"
        );
    }
    let (code, text) = run(&root, &["generate", "rbac", "--check"], "");
    assert_eq!(code, 0, "{text}");
}

/// helm-operator-plugins#142: in operator-sdk's hybrid projects, adding a Go API and running
/// `make manifests` rewrote role.yaml from Go markers and dropped every Helm rule.
#[test]
fn issue_142_helm_rules_survive_another_rust_api() {
    let (_dir, root) = tutorial();
    let before = granted(&root);
    run_ok(
        &root,
        &[
            "create",
            "api",
            "--plugins",
            "rust",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "MemcachedRestore",
            "--resource",
            "--controller",
        ],
        "",
    );
    run_ok(&root, &["generate", "rbac"], "");
    let after = granted(&root);
    let lost: Vec<_> = before.difference(&after).collect();
    assert!(
        lost.is_empty(),
        "rules dropped by a later Rust API: {lost:?}"
    );
    assert!(after.contains(&pair("cache.my.domain", "memcachedrestores")));
    assert!(after.contains(&pair("networking.k8s.io", "ingresses")));
}

#[test]
fn running_the_tutorial_again_changes_nothing() {
    let (_dir, root) = tutorial();
    let before = read_tree(&root);
    let (code, text) = run(&root, INIT, "");
    assert_eq!(code, 1, "{text}");
    for api in [HELM_API, RUST_API] {
        let (code, text) = run(&root, api, "y\ny\n");
        assert_eq!(code, 1, "{text}");
        assert!(text.contains("API already exists"), "{text}");
        // With --force every file the command owns is rewritten to the same bytes.
        let mut forced = api.to_vec();
        forced.push("--force");
        let text = run_ok(&root, &forced, "y\ny\n");
        for line in text.lines().filter(|l| l.starts_with("      ")) {
            assert!(line.trim_start().starts_with("identical"), "{line}\n{text}");
        }
    }
    let text = run_ok(&root, &["generate", "rbac"], "");
    assert!(text.contains("identical  config/rbac/role.yaml"), "{text}");
    assert_eq!(read_tree(&root), before);
}

#[needs(e2e, kubectl)]
#[test]
fn tutorial_project_builds_passes_its_tests_and_lints() {
    let (_dir, root) = tutorial_in("e2e-tutorial");
    crate::e2e::check_project(&root);
    // The Rust API's scaffolded CRD is exactly what the project's crdgen prints.
    let printed = crate::e2e::run_bin(&root, "crdgen", &[]);
    let scaffolded = std::fs::read_to_string(
        root.join("config/crd/bases/cache.my.domain_memcachedbackups.yaml"),
    )
    .unwrap();
    assert!(
        printed.contains(&scaffolded),
        "crdgen printed:\n{printed}\nscaffolded:\n{scaffolded}"
    );
    crate::e2e::kustomize(&root, "config/samples");
    crate::e2e::kustomize(&root, "config/crd");

    // Both controllers start in one process and both stop on SIGTERM.
    let binary = crate::e2e::built_operator(&root);
    let log = crate::e2e::run_until_healthy_then_stop(&root, &binary);
    for controller in [
        "controller=memcachedbackup",
        "controller=memcached-controller",
    ] {
        assert!(
            log.contains(&format!("starting controller {controller}"))
                && log.contains(&format!("controller stopped {controller}")),
            "{controller} did not start and stop:\n{log}"
        );
    }

    // The optional webhook step, from the text: its AdmissionReview tests run with the
    // project's, which still builds, lints and is formatted.
    let step = webhook_step();
    run_ok(
        &root,
        &step.iter().map(String::as_str).collect::<Vec<_>>(),
        "",
    );
    crate::e2e::check_project_again(&root);
}
