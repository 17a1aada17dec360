//! `create api --external-api-crd FILE`: a controller for another project's kind, with
//! Rust types kopium generates from the CRD's schema (issue 15).
use std::path::{Path, PathBuf};

use crate::support::{assert_refused, read_tree, rusty, snapshot_settings, transcript};

pub fn crd_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/external-crds/dnsendpoints.externaldns.k8s.io.yaml")
}

fn init(layout: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ext-operator");
    rusty(dir.path())
        .args(["-q", "-C", "ext-operator", "init", "--plugins", layout])
        .args([
            "--domain",
            "my.domain",
            "--repo",
            "github.com/example/ext-operator",
        ])
        .assert()
        .success();
    (dir, root)
}

fn external(root: &Path, extra: &[&str]) -> std::process::Output {
    rusty(root)
        .args(["create", "api", "--plugins", "rust", "--external-api-crd"])
        .arg(crd_file())
        .args(extra)
        .output()
        .unwrap()
}

/// Scaffold the `DNSEndpoint` controller into `root` (used by the end-to-end builds too).
pub fn add_external_controller(root: &Path) {
    let output = external(root, &[]);
    assert!(output.status.success(), "{}", transcript(&output, root));
}

#[test]
fn an_external_crd_gets_kopium_types_a_watch_controller_and_no_crd() {
    let (_dir, root) = init("rust");
    let before = read_tree(&root);
    add_external_controller(&root);
    let after = read_tree(&root);
    let text = |path: &str| String::from_utf8_lossy(&after[path]).into_owned();

    let types = text("api/src/external/externaldns_dns_endpoint_v1alpha1.rs");
    assert!(types.contains("root = \"DnsEndpoint\""), "{types}");
    assert!(types.contains("pub struct DnsEndpointSpec"), "{types}");
    assert!(types.contains("pub record_ttl: Option<i64>"), "{types}");
    assert!(text("api/src/lib.rs").contains("pub mod external;"));
    let controller = text("src/controller/dns_endpoint.rs");
    assert!(
        controller.contains(
            "use ext_operator_api::external::externaldns_dns_endpoint_v1alpha1::DnsEndpoint;"
        ),
        "{controller}"
    );
    assert!(controller.contains("+rusty:rbac:groups=externaldns.k8s.io,resources=dnsendpoints,"));
    assert!(text("config/rbac/role.yaml").contains("- dnsendpoints"));
    let project = text("PROJECT");
    assert!(
        project.contains(
            "- controller: true\n  crd: config/crd/external/externaldns.k8s.io_dnsendpoints.yaml\n  domain: k8s.io\n  external: true\n  group: externaldns\n  kind: DNSEndpoint\n"
        ),
        "{project}"
    );
    // The CRD is the other project's: the project keeps the one document its types come
    // from, for alpha generate, where no kustomization installs it.
    let kept = "config/crd/external/externaldns.k8s.io_dnsendpoints.yaml";
    let added: Vec<&String> = after
        .keys()
        .filter(|p| p.starts_with("config/crd/") && !before.contains_key(*p))
        .collect();
    assert_eq!(added, [kept]);
    let crd: serde_json::Value = serde_yaml::from_str(&text(kept)).unwrap();
    assert_eq!(crd["kind"], "CustomResourceDefinition");
    assert_eq!(crd["spec"]["names"]["kind"], "DNSEndpoint");
    assert!(project.contains(&format!("  crd: {kept}\n")), "{project}");
    assert!(
        !after
            .iter()
            .any(|(p, text)| p.ends_with("kustomization.yaml")
                && String::from_utf8_lossy(text).contains("external")),
        "a kustomization installs the kept CRD"
    );
    snapshot_settings().bind(|| {
        for path in [
            "api/src/external/mod.rs",
            "api/src/external/externaldns_dns_endpoint_v1alpha1.rs",
            "src/controller/dns_endpoint.rs",
        ] {
            insta::assert_snapshot!(format!("external_{}", path.replace('/', "__")), text(path));
        }
    });

    // Twice: refused without --force (nothing written), identical with it.
    let output = external(&root, &[]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        transcript(&output, &root)
    );
    assert!(read_tree(&root) == after);
    let output = external(&root, &["--force"]);
    assert!(output.status.success(), "{}", transcript(&output, &root));
    assert!(read_tree(&root) == after, "--force changed files");
}

#[test]
fn bad_external_crds_and_flags_are_one_line_errors_that_write_nothing() {
    let (dir, root) = init("hybrid.helm");
    let before = read_tree(&root);
    let not_a_crd = dir.path().join("deployment.yaml");
    std::fs::write(&not_a_crd, "apiVersion: apps/v1\nkind: Deployment\n").unwrap();
    let template = dir.path().join("template.yaml");
    std::fs::write(
        &template,
        "{{- if .Values.crds.create }}\napiVersion: apiextensions.k8s.io/v1\n",
    )
    .unwrap();
    let beta = dir.path().join("beta.yaml");
    std::fs::write(
        &beta,
        "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\n",
    )
    .unwrap();
    let crd = crd_file().display().to_string();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![crd.clone(), "--resource".into()],
            "cannot go with --resource",
        ),
        (
            vec![crd.clone(), "--controller=false".into()],
            "cannot go with --controller=false",
        ),
        (
            vec![crd.clone(), "--kind".into(), "Widget".into()],
            "no CRD for --kind Widget; it defines DNSEndpoint (externaldns.k8s.io)",
        ),
        (
            vec![crd.clone(), "--version".into(), "v2".into()],
            "DNSEndpoint has no version v2; it has v1alpha1",
        ),
        (
            vec!["missing.yaml".into()],
            "--external-api-crd missing.yaml: cannot read it",
        ),
        (
            vec![not_a_crd.display().to_string()],
            "no CustomResourceDefinition in it",
        ),
        (vec![template.display().to_string()], "not valid YAML ("),
        (
            vec![beta.display().to_string()],
            "which Kubernetes no longer serves",
        ),
    ];
    for (args, expected) in cases {
        let output = rusty(&root)
            .args(["create", "api", "--plugins", "rust", "--external-api-crd"])
            .args(&args)
            .output()
            .unwrap();
        assert_refused(&output, &root, expected, &before);
    }
}
