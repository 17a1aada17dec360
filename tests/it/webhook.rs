//! `create webhook` (issue 13): the files it writes for a Rust API, its record in PROJECT,
//! the manifests from its markers, idempotence, and the inputs it refuses. The generated
//! code is built, tested and linted in the three-API e2e projects of `rust_api.rs`.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::support::{assert_refused, read_tree, rusty, scaffold, snapshot_settings, transcript};

/// A project with a Rust API Memcached (cache/v1, a second version v2) and a Helm API
/// Nginx; the layout decides whether the Helm API can be there.
pub fn project(dir: &Path, layout: &str) -> PathBuf {
    let root = dir.join("hooked-operator");
    let mut commands = vec![
        format!("init --plugins {layout} --domain my.domain --repo github.com/example/hooked-operator"),
        "create api --plugins rust --group cache --version v1 --kind Memcached --resource --controller".to_string(),
        "create api --plugins rust --group cache --version v2 --kind Memcached --resource --controller=false".to_string(),
        "create api --plugins rust --group toys --version v1 --kind Widget --resource --controller".to_string(),
    ];
    if layout == "hybrid.helm" {
        commands.push("create api --plugins helm --group web --version v1 --kind Nginx".into());
    }
    let commands: Vec<&str> = commands.iter().map(String::as_str).collect();
    scaffold(dir, &root, &commands);
    root
}

/// `create webhook` with `args` in `root`, which must succeed.
pub fn create_webhook(root: &Path, args: &str) -> String {
    let output = rusty(root)
        .args(["create", "webhook"])
        .args(args.split_whitespace())
        .output()
        .unwrap();
    let text = transcript(&output, root);
    assert!(output.status.success(), "{text}");
    text
}

/// The text of the file at `path` in the project at `root`.
pub fn text(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap()
}

type Files = BTreeMap<String, Vec<u8>>;

/// What every first `create webhook` changes.
const EVERY_TIME: [&str; 14] = [
    "Cargo.toml",
    "PROJECT",
    "config/certmanager/certificate.yaml",
    "config/certmanager/kustomization.yaml",
    "config/default/kustomization.yaml",
    "config/default/manager_webhook_patch.yaml",
    "config/network-policy/allow-webhook-traffic.yaml",
    "config/network-policy/kustomization.yaml",
    "config/self-signed/kustomization.yaml",
    "config/self-signed/role.yaml",
    "config/webhook/kustomization.yaml",
    "config/webhook/manifests.yaml",
    "config/webhook/service.yaml",
    "src/main.rs",
];

/// The files that differ between `before` and `after`: those of [`EVERY_TIME`] and `also`.
fn assert_changed(before: &Files, after: &Files, also: &[&str]) {
    let changed: Vec<&str> = after
        .keys()
        .filter(|path| before.get(*path) != after.get(*path))
        .map(String::as_str)
        .collect();
    let mut expected: Vec<&str> = EVERY_TIME.iter().chain(also).copied().collect();
    expected.sort_unstable();
    assert_eq!(changed, expected);
}

#[rusty_sdk_test_tools::needs(kubectl)]
#[test]
fn webhook_files_and_project_entry() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path(), "rust");
    let before = read_tree(&root);
    create_webhook(
        &root,
        "--group cache --version v1 --kind Memcached --defaulting --programmatic-validation",
    );
    // Validation only on another kind: its own module, registered next to the first.
    create_webhook(
        &root,
        "--group toys --version v1 --kind Widget --programmatic-validation",
    );
    let after = read_tree(&root);
    assert_changed(
        &before,
        &after,
        &[
            "src/webhook/memcached.rs",
            "src/webhook/mod.rs",
            "src/webhook/widget.rs",
        ],
    );
    let text = |path: &str| String::from_utf8_lossy(&after[path]).into_owned();
    let cargo = text("Cargo.toml");
    assert!(cargo.contains("\"derive\", \"admission\"]"), "{cargo}");
    assert!(cargo.contains("\njson-patch = \"4\"\n"), "{cargo}");
    let project = text("PROJECT");
    assert!(
        project.contains(
            "  webhooks:\n    defaulting: true\n    validation: true\n    webhookVersion: v1\n"
        ),
        "{project}"
    );
    assert!(
        project.contains("  webhooks:\n    validation: true\n    webhookVersion: v1\n"),
        "{project}"
    );
    snapshot_settings().bind(|| {
        for path in [
            "src/webhook/memcached.rs",
            "src/webhook/widget.rs",
            "src/webhook/mod.rs",
            "src/main.rs",
            "config/webhook/manifests.yaml",
            "config/webhook/kustomization.yaml",
            "config/webhook/service.yaml",
            "config/certmanager/certificate.yaml",
            "config/certmanager/kustomization.yaml",
            "config/network-policy/allow-webhook-traffic.yaml",
            "config/network-policy/kustomization.yaml",
            "config/default/kustomization.yaml",
            "config/default/manager_webhook_patch.yaml",
            "config/self-signed/kustomization.yaml",
            "config/self-signed/role.yaml",
        ] {
            insta::assert_snapshot!(format!("webhook_{}", path.replace('/', "__")), text(path));
        }
    });

    assert_deployable(&root);

    // The same commands again change nothing; `make manifests` agrees with the manifests.
    create_webhook(
        &root,
        "--group cache --version v1 --kind Memcached --defaulting --programmatic-validation",
    );
    create_webhook(
        &root,
        "--group toys --version v1 --kind Widget --programmatic-validation",
    );
    assert!(read_tree(&root) == after, "a second run changed files");
    let output = rusty(&root)
        .args(["generate", "rbac", "--check"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let output = rusty(&root).args(["generate", "rbac"]).output().unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &root));
    assert!(read_tree(&root) == after, "generate rbac changed files");

    // Adding validation to a kind with only defaulting keeps both, and --dry-run writes
    // nothing.
    let output = rusty(&root)
        .args(["--dry-run", "create", "webhook", "--group", "cache"])
        .args(["--version", "v2", "--kind", "Memcached", "--defaulting"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &root));
    assert!(read_tree(&root) == after, "--dry-run wrote files");
}

#[test]
fn a_second_version_of_a_kind_gets_its_own_module() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path(), "rust");
    create_webhook(
        &root,
        "--group cache --version v1 --kind Memcached --defaulting",
    );
    create_webhook(
        &root,
        "--group cache --version v2 --kind Memcached --programmatic-validation",
    );
    let tree = read_tree(&root);
    let module = String::from_utf8_lossy(&tree["src/webhook/mod.rs"]).into_owned();
    assert!(
        module.contains("pub mod memcached;\npub mod memcached_v2;\n"),
        "{module}"
    );
    let v2 = String::from_utf8_lossy(&tree["src/webhook/memcached_v2.rs"]).into_owned();
    assert!(
        v2.contains("use hooked_operator_api::cache::v2::Memcached;"),
        "{v2}"
    );
    // Adding validation to v1 later inserts it into its module, without --force.
    create_webhook(
        &root,
        "--group cache --version v1 --kind Memcached --programmatic-validation",
    );
    let v1 = String::from_utf8_lossy(&read_tree(&root)["src/webhook/memcached.rs"]).into_owned();
    // Re-scaffolding the API with --force keeps its webhooks in PROJECT.
    scaffold(
        dir.path(),
        &root,
        &[
            "create api --plugins rust --group cache --version v1 --kind Memcached --resource --controller --force",
        ],
    );
    let project = String::from_utf8_lossy(&read_tree(&root)["PROJECT"]).into_owned();
    assert_eq!(
        project.matches("    validation: true\n").count(),
        2,
        "{project}"
    );
    assert!(
        v1.contains("MUTATE_PATH") && v1.contains("VALIDATE_PATH"),
        "{v1}"
    );
}

/// `--conversion` with v1 the hub and v2 a spoke: the conversions next to the spoke, the
/// webhook, crdgen's entry, the kustomize wiring and PROJECT; a second run changes nothing.
#[test]
fn conversion_webhook_files_and_project_entry() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path(), "rust");
    let before = read_tree(&root);
    let args = "--group cache --version v1 --kind Memcached --conversion --spoke v2";
    create_webhook(&root, args);
    let after = read_tree(&root);
    assert_changed(
        &before,
        &after,
        &[
            "api/src/cache/v1/memcached.rs",
            "api/src/cache/v2/memcached_conversion.rs",
            "api/src/cache/v2/mod.rs",
            "config/crd/kustomization.yaml",
            "config/crd/kustomizeconfig.yaml",
            "src/bin/crdgen.rs",
            "src/webhook/memcached_conversion.rs",
            "src/webhook/mod.rs",
        ],
    );
    let text = |path: &str| String::from_utf8_lossy(&after[path]).into_owned();
    let project = text("PROJECT");
    assert!(
        project.contains(
            "  webhooks:\n    conversion: true\n    spoke:\n    - v2\n    webhookVersion: v1\n"
        ),
        "{project}"
    );
    let crdgen = text("src/bin/crdgen.rs");
    assert!(
        crdgen.contains(
            "    (\"memcacheds.cache.my.domain\", \"v1\"),\n    // +rusty:scaffold:conversions\n"
        ),
        "{crdgen}"
    );
    let spoke_mod = text("api/src/cache/v2/mod.rs");
    assert!(
        spoke_mod.contains("mod memcached_conversion;\n// +rusty:scaffold:kinds"),
        "{spoke_mod}"
    );
    snapshot_settings().bind(|| {
        for path in [
            "api/src/cache/v2/memcached_conversion.rs",
            "src/webhook/memcached_conversion.rs",
            "src/webhook/mod.rs",
            "config/crd/kustomization.yaml",
            "config/crd/kustomizeconfig.yaml",
            "config/webhook/manifests.yaml",
            "config/default/kustomization.yaml",
        ] {
            let name = format!("webhook_conversion_{}", path.replace('/', "__"));
            insta::assert_snapshot!(name, text(path));
        }
    });

    // The same command again changes nothing; a new hub for the kind is refused.
    create_webhook(&root, args);
    assert!(read_tree(&root) == after, "a second run changed files");
    let output = rusty(&root)
        .args(["create", "webhook", "--group", "cache", "--version", "v2"])
        .args(["--kind", "Memcached", "--conversion", "--spoke", "v1"])
        .output()
        .unwrap();
    assert_refused(
        &output,
        &root,
        "Memcached converts through its hub v1",
        &after,
    );

    // A second kind converts too, at the same /convert (the runtime dispatches by kind).
    crate::support::scaffold(
        dir.path(),
        &root,
        &[
            "create api --plugins rust --group toys --version v1beta1 --kind Widget --resource --controller=false",
        ],
    );
    create_webhook(
        &root,
        "--group toys --version v1 --kind Widget --conversion --spoke v1beta1",
    );
    let widget = std::fs::read_to_string(root.join("src/webhook/widget_conversion.rs")).unwrap();
    assert!(
        widget.contains("webhooks.conversion_of(GROUP, KIND, CONVERT_PATH, convert)")
            && widget.contains("const GROUP: &str = \"toys.my.domain\";"),
        "{widget}"
    );
    let crdgen = std::fs::read_to_string(root.join("src/bin/crdgen.rs")).unwrap();
    assert!(
        crdgen.contains("(\"memcacheds.cache.my.domain\", \"v1\"),")
            && crdgen.contains("(\"widgets.toys.my.domain\", \"v1\"),"),
        "{crdgen}"
    );

    // What `make manifests` then writes into the CRD, and kustomize and cert-manager make
    // of it, is checked on crdgen's real output by rust_api's end-to-end test
    // (`assert_widget_converts`), not on a copy of it written here.
}

#[test]
fn bad_input_is_refused_with_one_line_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path(), "hybrid.helm");
    let before = read_tree(&root);
    let gvk = "--group cache --version v1 --kind Memcached";
    for (args, expected) in [
        (gvk.to_string(), "no webhook to create: pass --defaulting"),
        (
            "--group web --version v1 --kind Nginx --defaulting".to_string(),
            "Nginx (web/v1) is a Helm API",
        ),
        (
            "--group cache --version v9 --kind Memcached --defaulting".to_string(),
            "no API Memcached (cache/v9) in PROJECT, and Kubernetes defines no such kind; create it first",
        ),
        (
            "--version v1 --kind Memcached --defaulting".to_string(),
            "--group is required",
        ),
        (
            format!("{gvk} --conversion"),
            "--conversion needs at least one --spoke",
        ),
        (
            format!("{gvk} --conversion --spoke v1"),
            "--spoke \"v1\" is the hub",
        ),
        (
            format!("{gvk} --conversion --spoke v3"),
            "--spoke \"v3\" is not a version of Memcached in PROJECT",
        ),
        (
            format!("{gvk} --defaulting --spoke v2"),
            "--spoke \"v2\" goes with --conversion",
        ),
        (
            "--group cache --version v1 --kind memcached --defaulting".to_string(),
            "--kind",
        ),
    ] {
        let output = rusty(&root)
            .args(["create", "webhook"])
            .args(args.split_whitespace())
            .output()
            .unwrap();
        assert_refused(&output, &root, expected, &before);
    }

    // A Helm project has no Rust APIs at all.
    let helm = dir.path().join("helm-operator");
    scaffold(
        dir.path(),
        &helm,
        &[
            "init --plugins helm --domain my.domain",
            "create api --plugins helm --group web --version v1 --kind Nginx",
        ],
    );
    let before = read_tree(&helm);
    let output = rusty(&helm)
        .args(["create", "webhook", "--group", "web", "--version", "v1"])
        .args(["--kind", "Nginx", "--defaulting"])
        .output()
        .unwrap();
    assert_refused(&output, &helm, "webhooks are for Rust APIs", &before);
}

/// `kubectl kustomize config/default` (when kubectl is there) has the webhook Service, the
/// manager serving on 9443 with the certificate mounted, and cert-manager's CA injected
/// into the configurations, all under the project's prefix and namespace.
fn assert_deployable(root: &Path) {
    let text = crate::e2e::kustomize(root, "config/default");
    let docs: Vec<serde_yaml::Value> = text
        .split("\n---\n")
        .map(|doc| serde_yaml::from_str(doc).unwrap())
        .collect();
    let find = |kind: &str| {
        docs.iter()
            .find(|doc| doc["kind"].as_str() == Some(kind))
            .unwrap_or_else(|| panic!("no {kind} in\n{text}"))
    };
    for kind in [
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
    ] {
        let config = find(kind);
        assert_eq!(
            config["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
            "hooked-operator-system/hooked-operator-serving-cert",
            "{text}"
        );
        let service = &config["webhooks"][0]["clientConfig"]["service"];
        assert_eq!(service["name"], "hooked-operator-webhook-service", "{text}");
        assert_eq!(service["namespace"], "hooked-operator-system", "{text}");
    }
    let certificate = find("Certificate");
    assert_eq!(
        certificate["spec"]["dnsNames"][0],
        "hooked-operator-webhook-service.hooked-operator-system.svc"
    );
    let pod = &find("Deployment")["spec"]["template"]["spec"];
    assert_eq!(pod["containers"][0]["ports"][0]["containerPort"], 9443);
    assert_eq!(
        pod["volumes"][0]["secret"]["secretName"],
        certificate["spec"]["secretName"]
    );
    assert_deployable_without_cert_manager(root);
}

/// `kubectl kustomize config/self-signed`: config/default without cert-manager's objects or
/// Secret, the manager in `--webhook-cert-mode=self-signed` with the rights that takes.
fn assert_deployable_without_cert_manager(root: &Path) {
    let text = crate::e2e::kustomize(root, "config/self-signed");
    let docs: Vec<serde_yaml::Value> = text
        .split("\n---\n")
        .map(|doc| serde_yaml::from_str(doc).unwrap())
        .collect();
    let kinds: Vec<&str> = docs.iter().filter_map(|d| d["kind"].as_str()).collect();
    assert!(
        !kinds.contains(&"Certificate") && !kinds.contains(&"Issuer"),
        "{text}"
    );
    for kind in [
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
    ] {
        assert!(kinds.contains(&kind), "{text}");
    }
    let find = |kind: &str, name: &str| {
        docs.iter()
            .find(|d| {
                d["kind"].as_str() == Some(kind) && d["metadata"]["name"].as_str() == Some(name)
            })
            .unwrap_or_else(|| panic!("no {kind} {name} in\n{text}"))
    };
    let container = &find("Deployment", "hooked-operator-controller-manager")["spec"]["template"]["spec"]
        ["containers"][0];
    let args: Vec<&str> = container["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(serde_yaml::Value::as_str)
        .collect();
    assert!(
        args.contains(&"--webhook-cert-mode=self-signed"),
        "{args:?}"
    );
    let pod = &find("Deployment", "hooked-operator-controller-manager")["spec"]["template"]["spec"];
    assert!(
        !serde_yaml::to_string(pod)
            .unwrap()
            .contains("webhook-certs"),
        "cert-manager's Secret is still mounted:\n{text}"
    );
    // The rights the runtime's self-signed mode uses, bound to the manager's account.
    let role =
        serde_yaml::to_string(&find("Role", "hooked-operator-webhook-cert-role")["rules"]).unwrap();
    assert!(
        role.contains("secrets") && role.contains("create") && role.contains("update"),
        "{role}"
    );
    let injector =
        serde_yaml::to_string(&find("ClusterRole", "hooked-operator-webhook-ca-injector")["rules"])
            .unwrap();
    for needed in [
        "mutatingwebhookconfigurations",
        "validatingwebhookconfigurations",
        "customresourcedefinitions",
        "patch",
        "list",
    ] {
        assert!(injector.contains(needed), "{injector}");
    }
    let binding = find(
        "ClusterRoleBinding",
        "hooked-operator-webhook-ca-injector-rolebinding",
    );
    assert_eq!(
        binding["subjects"][0]["name"],
        "hooked-operator-controller-manager"
    );
    assert_eq!(
        binding["subjects"][0]["namespace"],
        "hooked-operator-system"
    );
    let account = find("ServiceAccount", "hooked-operator-controller-manager");
    assert_eq!(account["metadata"]["namespace"], "hooked-operator-system");
}
