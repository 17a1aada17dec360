//! Shipping a generated operator: `IMG` recorded in config/manager/kustomization.yaml as
//! `kustomize edit set image` records it, and `make build-installer` writing
//! dist/install.yaml with every object of config/default.
use std::path::Path;
use std::process::Command;

use rusty_sdk_test_tools::{needs, path};

use crate::support::rusty;

fn init_helm_project(root: &Path) {
    for args in [
        &["init", "--plugins", "helm", "--domain", "example.com", "-q"][..],
        &[
            "create",
            "api",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
            "-q",
        ],
    ] {
        rusty(root).args(args).assert().success();
    }
}

fn set_image(root: &Path, image: &str) -> std::process::Output {
    Command::new("sh")
        .current_dir(root)
        .args([
            "hack/set-image.sh",
            "config/manager/kustomization.yaml",
            image,
        ])
        .output()
        .unwrap()
}

fn kustomization(root: &Path) -> String {
    std::fs::read_to_string(root.join("config/manager/kustomization.yaml")).unwrap()
}

const HEAD: &str = "resources:\n- manager.yaml\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nimages:\n";

#[test]
fn set_image_writes_what_kustomize_edit_set_image_writes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    init_helm_project(root);
    assert_eq!(
        kustomization(root),
        format!("{HEAD}- name: controller\n  newName: controller\n  newTag: latest\n")
    );
    for (image, entry) in [
        (
            "example.com/memcached-operator:v0.1.0",
            "  newName: example.com/memcached-operator\n  newTag: v0.1.0\n",
        ),
        // A registry port is not a tag; only a colon after the last slash is.
        (
            "localhost:5000/team/operator:v2",
            "  newName: localhost:5000/team/operator\n  newTag: v2\n",
        ),
        (
            "localhost:5000/operator",
            "  newName: localhost:5000/operator\n",
        ),
        (
            "quay.io/org/operator@sha256:4a1c",
            "  newName: quay.io/org/operator\n  digest: sha256:4a1c\n",
        ),
    ] {
        let output = set_image(root, image);
        assert!(output.status.success(), "{output:?}");
        let expected = format!("{HEAD}- name: controller\n{entry}");
        assert_eq!(kustomization(root), expected, "{image}");
        // Again: nothing changes.
        assert!(set_image(root, image).status.success());
        assert_eq!(kustomization(root), expected, "{image}, second run");
    }
}

#[test]
fn set_image_keeps_the_users_lines_and_refuses_a_bad_image() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    init_helm_project(root);
    let mine = "resources:\n- manager.yaml\n# my comment\nimages:\n- name: sidecar\n  newTag: v9\n- name: controller\n  newName: old\n  newTag: old\nlabels:\n- pairs:\n    team: cache\n";
    std::fs::write(root.join("config/manager/kustomization.yaml"), mine).unwrap();
    assert!(set_image(root, "example.com/op:v1").status.success());
    assert_eq!(
        kustomization(root),
        "resources:\n- manager.yaml\n# my comment\nimages:\n- name: controller\n  newName: example.com/op\n  newTag: v1\n- name: sidecar\n  newTag: v9\nlabels:\n- pairs:\n    team: cache\n"
    );
    let before = kustomization(root);
    for bad in ["", "example.com/op :v1"] {
        let output = set_image(root, bad);
        assert_eq!(output.status.code(), Some(1), "{bad:?}");
        let message = String::from_utf8_lossy(&output.stderr);
        assert!(
            message.contains("invalid image") && message.contains("IMG="),
            "{message}"
        );
        assert_eq!(kustomization(root), before);
    }
}

#[needs(kubectl, make, kubernetes_validate)]
#[test]
fn build_installer_writes_every_object_with_the_image() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    init_helm_project(root);
    let bin = assert_cmd::cargo::cargo_bin("rusty-sdk");
    let output = Command::new(path!(make))
        .current_dir(root)
        .arg("build-installer")
        .arg("IMG=example.com/memcached-operator:v0.1.0")
        .arg(format!("RUSTY_SDK={}", bin.display()))
        .arg(format!("KUBECTL={}", crate::e2e::kubectl()))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(root.join("dist/install.yaml")).unwrap();
    let objects: Vec<serde_yaml::Value> = serde_yaml::Deserializer::from_str(&text)
        .map(|doc| serde::Deserialize::deserialize(doc).unwrap())
        .collect();
    let kinds: std::collections::BTreeSet<&str> =
        objects.iter().filter_map(|o| o["kind"].as_str()).collect();
    for kind in [
        "Namespace",
        "CustomResourceDefinition",
        "ServiceAccount",
        "Role",
        "ClusterRole",
        "RoleBinding",
        "ClusterRoleBinding",
        "Service",
        "Deployment",
    ] {
        assert!(
            kinds.contains(kind),
            "{kind} missing from dist/install.yaml: {kinds:?}"
        );
    }
    let deployment = objects.iter().find(|o| o["kind"] == "Deployment").unwrap();
    let containers = deployment["spec"]["template"]["spec"]["containers"]
        .as_sequence()
        .unwrap();
    assert_eq!(
        containers[0]["image"],
        "example.com/memcached-operator:v0.1.0"
    );
    let crd = objects
        .iter()
        .find(|o| o["kind"] == "CustomResourceDefinition")
        .unwrap();
    assert_eq!(crd["metadata"]["name"], "memcacheds.cache.example.com");
    validate_against_kubernetes_schemas(&root.join("dist/install.yaml"), objects.len());
}

/// Every object against Kubernetes' own schemas, unknown fields refused.
fn validate_against_kubernetes_schemas(file: &Path, objects: usize) {
    let output = Command::new(path!(kubernetes_validate))
        .args(["--strict", "--no-warn"])
        .arg(file)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{text}");
    assert_eq!(
        text.matches(" passed for resource ").count(),
        objects,
        "{text}"
    );
}
