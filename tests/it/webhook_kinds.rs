//! `create webhook` for kinds the project does not define (issue 28): a kind Kubernetes
//! defines (k8s-openapi's type, with or without a controller, as kubebuilder allows) and
//! another project's kind (`create api --external-api-crd`, kopium's type). PROJECT records
//! core kinds as kubebuilder does (`core: true`, no domain), the paths and groups are the
//! real API group's (`/mutate--v1-pod`, `groups=""`), and kubebuilder's `--external-api-*`
//! flags are taken or refused with the Rust way. The generated code is built, tested and
//! linted with `controllers.rs`'s named controllers by the e2e test here, and called by a real
//! API server in `cluster::webhooks`.
use std::path::{Path, PathBuf};

use crate::support::{assert_refused, read_tree, rusty, scaffold, snapshot_settings, transcript};

pub fn crd_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/external-crds/dnsendpoints.externaldns.k8s.io.yaml")
}

/// A Rust project with the external kind `DNSEndpoint`, a Pod controller, and webhooks: Pod
/// (core, defaulting and validation), Deployment (apps, defaulting; no controller) and
/// `DNSEndpoint` (validation).
pub fn project(dir: &Path, name: &str) -> PathBuf {
    let root = dir.join(name);
    let crd = crd_file().display().to_string();
    scaffold(
        dir,
        &root,
        &[
            &format!("init --plugins rust --domain my.domain --repo github.com/example/{name}"),
            &format!("create api --plugins rust --external-api-crd {crd}"),
            "create api --plugins rust --group core --version v1 --kind Pod --resource=false --controller",
            "create webhook --group core --version v1 --kind Pod --defaulting",
            "create webhook --group core --version v1 --kind Pod --programmatic-validation",
            "create webhook --group apps --version v1 --kind Deployment --defaulting",
            "create webhook --group externaldns --version v1alpha1 --kind DNSEndpoint --programmatic-validation --external-api-domain k8s.io",
        ],
    );
    root
}

fn text(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn core_and_external_kinds_get_webhooks_on_their_own_types() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path(), "kinds-operator");

    let pod = text(&root, "src/webhook/pod.rs");
    assert!(
        pod.contains("use k8s_openapi::api::core::v1::Pod;"),
        "{pod}"
    );
    assert!(pod.contains(
        "+rusty:webhook:path=/mutate--v1-pod,mutating=true,failurePolicy=fail,sideEffects=None,groups=\"\",resources=pods,"
    ));
    assert!(
        pod.contains("path=/validate--v1-pod,mutating=false"),
        "{pod}"
    );
    let external = text(&root, "src/webhook/dns_endpoint.rs");
    assert!(
        external.contains(
            "use kinds_operator_api::external::externaldns_dns_endpoint_v1alpha1::DnsEndpoint;"
        ),
        "{external}"
    );
    assert!(external.contains(
        "path=/validate-externaldns-k8s-io-v1alpha1-dnsendpoint,mutating=false,failurePolicy=fail,sideEffects=None,groups=externaldns.k8s.io,resources=dnsendpoints,"
    ));

    // kubebuilder's entries: `core: true` and the group as --group names it, no domain;
    // the external kind keeps its domain.
    let project = text(&root, "PROJECT");
    for entry in [
        "- controller: true\n  core: true\n  group: core\n  kind: Pod\n  path: k8s_openapi::api::core::v1\n  version: v1\n  webhooks:\n    defaulting: true\n    validation: true\n    webhookVersion: v1\n",
        "- core: true\n  group: apps\n  kind: Deployment\n  path: k8s_openapi::api::apps::v1\n  version: v1\n  webhooks:\n    defaulting: true\n    webhookVersion: v1\n",
        "- controller: true\n  crd: config/crd/external/externaldns.k8s.io_dnsendpoints.yaml\n  domain: k8s.io\n  external: true\n  group: externaldns\n  kind: DNSEndpoint\n  path: kinds_operator_api::external::externaldns_dns_endpoint_v1alpha1\n  version: v1alpha1\n  webhooks:\n    validation: true\n    webhookVersion: v1\n",
    ] {
        assert!(project.contains(entry), "{entry}\nnot in:\n{project}");
    }
    assert!(
        !project.contains("domain: k8s.io\n  group: apps"),
        "{project}"
    );

    let manifests: Vec<serde_yaml::Value> =
        serde_yaml::Deserializer::from_str(&text(&root, "config/webhook/manifests.yaml"))
            .map(|doc| serde::Deserialize::deserialize(doc).unwrap())
            .collect();
    let rules: Vec<(String, String, String)> = manifests
        .iter()
        .flat_map(|doc| doc["webhooks"].as_sequence().unwrap())
        .map(|hook| {
            let rule = &hook["rules"][0];
            (
                hook["clientConfig"]["service"]["path"]
                    .as_str()
                    .unwrap()
                    .to_string(),
                rule["apiGroups"][0].as_str().unwrap().to_string(),
                rule["resources"][0].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected = [
        ("/mutate-apps-v1-deployment", "apps", "deployments"),
        ("/mutate--v1-pod", "", "pods"),
        ("/validate--v1-pod", "", "pods"),
        (
            "/validate-externaldns-k8s-io-v1alpha1-dnsendpoint",
            "externaldns.k8s.io",
            "dnsendpoints",
        ),
    ];
    let mut rules = rules;
    rules.sort();
    let mut expected: Vec<(String, String, String)> = expected
        .iter()
        .map(|(p, g, r)| (p.to_string(), g.to_string(), r.to_string()))
        .collect();
    expected.sort();
    assert_eq!(rules, expected);

    snapshot_settings().bind(|| {
        for path in ["src/webhook/pod.rs", "src/webhook/dns_endpoint.rs"] {
            insta::assert_snapshot!(
                format!("webhook_kinds_{}", path.replace('/', "__")),
                text(&root, path)
            );
        }
    });

    // The same commands again change nothing; a controller for the Deployment afterwards
    // keeps its webhooks recorded.
    let before = read_tree(&root);
    for args in [
        // kubebuilder's global --plugins, with the plugin whose APIs take webhooks.
        "create webhook --plugins=rust --group core --version v1 --kind Pod --defaulting --programmatic-validation",
        "create webhook --group externaldns --version v1alpha1 --kind DNSEndpoint --programmatic-validation",
    ] {
        let output = rusty(&root).args(args.split_whitespace()).output().unwrap();
        let shown = transcript(&output, &root);
        assert!(output.status.success(), "{shown}");
        assert!(shown.contains("already has its"), "{shown}");
        assert!(read_tree(&root) == before, "{args} changed files: {shown}");
    }
    scaffold(
        dir.path(),
        &root,
        &[
            "create api --plugins rust --group apps --version v1 --kind Deployment --resource=false --controller",
        ],
    );
    assert!(
        text(&root, "PROJECT").contains(
            "- controller: true\n  core: true\n  group: apps\n  kind: Deployment\n  path: k8s_openapi::api::apps::v1\n  version: v1\n  webhooks:\n    defaulting: true\n"
        ),
        "{}",
        text(&root, "PROJECT")
    );
}

/// A PROJECT entry of an earlier rusty-sdk (a built-in kind with `domain: k8s.io` and no
/// `core`) takes a webhook and is recorded as kubebuilder records core kinds.
#[test]
fn a_builtin_entry_of_an_earlier_version_is_recorded_as_core() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("old-operator");
    scaffold(
        dir.path(),
        &root,
        &[
            "init --plugins rust --domain my.domain --repo github.com/example/old-operator",
            "create api --plugins rust --group apps --version v1 --kind Deployment --resource=false --controller",
        ],
    );
    let path = root.join("PROJECT");
    let project = std::fs::read_to_string(&path).unwrap();
    let current = "- controller: true\n  core: true\n  group: apps\n";
    assert!(project.contains(current), "{project}");
    let old = project.replace(
        current,
        "- controller: true\n  domain: k8s.io\n  group: apps\n",
    );
    std::fs::write(&path, old).unwrap();
    scaffold(
        dir.path(),
        &root,
        &["create webhook --group apps --version v1 --kind Deployment --programmatic-validation"],
    );
    let project = std::fs::read_to_string(&path).unwrap();
    assert!(
        project.contains(
            "- controller: true\n  core: true\n  group: apps\n  kind: Deployment\n  path: k8s_openapi::api::apps::v1\n  version: v1\n  webhooks:\n    validation: true\n"
        ),
        "{project}"
    );
}

#[test]
fn kubebuilder_flags_for_external_kinds_are_taken_or_refused_with_the_rust_way() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path(), "refusing-operator");
    let before = read_tree(&root);
    let dns = "--group externaldns --version v1alpha1 --kind DNSEndpoint --defaulting";
    for (args, expected) in [
        // kubebuilder's testdata command, verbatim: the Go package has no Rust meaning.
        (
            "--group cert-manager --version v1 --kind Issuer --defaulting --external-api-path=github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1 --external-api-domain=io --external-api-module=github.com/cert-manager/cert-manager@v1.20.2".to_string(),
            "--external-api-path \"github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1\" names a Go package, but Rust types come from the kind's CRD: run `rusty-sdk create api --plugins rust --group cert-manager --version v1 --kind Issuer --external-api-crd <CRD file>` once",
        ),
        (
            format!("{dns} --external-api-module=github.com/kubernetes-sigs/external-dns@v0.15.0"),
            "--external-api-module \"github.com/kubernetes-sigs/external-dns@v0.15.0\" names a Go package",
        ),
        (
            format!("{dns} --external-api-domain io"),
            "--external-api-domain \"io\" does not match DNSEndpoint (externaldns.k8s.io/v1alpha1), whose CRD gives the domain \"k8s.io\"",
        ),
        (
            "--group core --version v1 --kind Pod --defaulting --external-api-domain k8s.io".to_string(),
            "--external-api-domain \"k8s.io\" is for another project's kind, and Pod (core/v1) is a kind Kubernetes defines",
        ),
        (
            "--group cert-manager --version v1 --kind Issuer --defaulting".to_string(),
            "no API Issuer (cert-manager/v1) in PROJECT, and Kubernetes defines no such kind; create it first with `rusty-sdk create api --plugins rust --group cert-manager --version v1 --kind Issuer` (another project's kind: add `--external-api-crd <CRD file>`)",
        ),
        // kubebuilder's webhook for an external kind the project has no controller for,
        // with the Go package left out: the way is the CRD, never a kind of its own.
        (
            "--group cert-manager --version v1 --kind Issuer --defaulting --external-api-domain=io".to_string(),
            "no API Issuer (cert-manager/v1) in PROJECT, and --external-api-domain \"io\" names another project's kind, whose Rust types come from its CRD: run `rusty-sdk create api --plugins rust --group cert-manager --version v1 --kind Issuer --external-api-crd <CRD file> --external-api-domain \"io\"` first",
        ),
        (
            "--plugins=go/v4 --group core --version v1 --kind Pod --defaulting".to_string(),
            "\"go/v4\" is kubebuilder's plugin for operators written in Go; rusty-sdk scaffolds Rust; create webhook takes --plugins=rust",
        ),
        (
            "--plugins=helm --group core --version v1 --kind Pod --defaulting".to_string(),
            "\"helm\" is no plugin that makes webhooks; create webhook takes --plugins=rust",
        ),
        (
            "--group core --version v1 --kind Pod --conversion --spoke v2".to_string(),
            "Pod (core/v1) is not this project's API: its versions convert as Kubernetes decides",
        ),
        (
            "--group externaldns --version v1alpha1 --kind DNSEndpoint --conversion --spoke v1".to_string(),
            "DNSEndpoint (externaldns.k8s.io/v1alpha1) is not this project's API",
        ),
    ] {
        refused(&root, "create webhook", &args, expected, &before);
    }
}

/// A resource of the project's own named like a kind PROJECT records as Kubernetes' or
/// another project's is refused naming that kind by its real group, `--force` included;
/// it was "API already exists: apps.my.domain/v1, Kind=Deployment", a group the project
/// never had.
#[test]
fn a_resource_named_like_a_core_or_external_kind_is_refused_naming_its_real_group() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path(), "naming-operator");
    let before = read_tree(&root);
    let resource = "--resource --controller=false";
    for (args, expected) in [
        (
            format!("--group apps --version v1 --kind Deployment {resource}"),
            "Deployment (apps/v1) is in PROJECT as the kind Kubernetes defines, and --resource would add a kind of that name to this project's own group (apps.my.domain/v1, Kind=Deployment); pass --resource=false",
        ),
        (
            format!("--group apps --version v1 --kind Deployment {resource} --force"),
            "Deployment (apps/v1) is in PROJECT as the kind Kubernetes defines",
        ),
        (
            format!("--group externaldns --version v1alpha1 --kind DNSEndpoint {resource}"),
            "DNSEndpoint (externaldns.k8s.io/v1alpha1) is in PROJECT as another project's kind",
        ),
        (
            format!("--group core --version v1 --kind POD {resource}"),
            "kind POD and core/v1, Kind=Pod in PROJECT have the same lower-case name",
        ),
        (
            format!("--group externaldns --version v1alpha1 --kind DNSENDPOINT {resource}"),
            "kind DNSENDPOINT and externaldns.k8s.io/v1alpha1, Kind=DNSEndpoint in PROJECT",
        ),
    ] {
        refused(&root, "create api --plugins rust", &args, expected, &before);
    }
}

/// `rusty-sdk <command> <args>` in `root` is refused in one line holding `expected`, and
/// the tree stays `before`.
fn refused(
    root: &Path,
    command: &str,
    args: &str,
    expected: &str,
    before: &std::collections::BTreeMap<String, Vec<u8>>,
) {
    let output = rusty(root)
        .args(command.split_whitespace())
        .args(args.split_whitespace())
        .output()
        .unwrap();
    assert_refused(&output, root, expected, before);
}

/// The generated webhooks of core and external kinds, and `controllers.rs`'s named controllers
/// (two of one kind, a second of the core kind Pod), build, pass their tests, clippy
/// (pedantic) and rustfmt. One project holds both, so that they are built once.
#[rusty_sdk_test_tools::needs(e2e, kubectl)]
#[test]
fn e2e_webhooks_and_named_controllers_of_core_and_external_kinds_build_test_and_lint() {
    let (dir, _) = crate::e2e::project_dir("e2e-webhook-kinds");
    let root = project(dir.path(), "e2e-webhook-kinds");
    // `controllers.rs`'s commands, less the Pod controller `project` has made already.
    let named: Vec<&str> = crate::controllers::COMMANDS
        .into_iter()
        .filter(|command| !command.ends_with("--kind Pod --resource=false --controller"))
        .collect();
    assert_eq!(named.len(), crate::controllers::COMMANDS.len() - 1);
    scaffold(dir.path(), &root, &named);
    assert!(root.join("src/controller/pod_audit.rs").is_file());
    crate::e2e::check_project(&root);
}
