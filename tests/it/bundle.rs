//! `generate bundle`: the OLM bundle from config/manifests (issue 14). The CSV is checked
//! against the project's role, CRDs and samples, and regenerated after user edits.
use std::path::{Path, PathBuf};

use rusty_sdk_test_tools::needs;
use serde_json::Value;

use crate::support::{assert_refused, read_tree, rusty, scaffold, snapshot_settings, transcript};

/// A hybrid project with a Helm API and `kubectl kustomize config/manifests` in a file.
fn project(dir: &Path) -> PathBuf {
    let root = dir.join("bundled-operator");
    scaffold(
        dir,
        &root,
        &[
            "init --plugins hybrid.helm --domain example.com --repo github.com/example/bundled-operator",
            "create api --plugins helm --group cache --version v1 --kind Memcached",
        ],
    );
    let manifests = crate::e2e::kustomize(&root, "config/manifests");
    std::fs::write(root.join("manifests.yaml"), manifests).unwrap();
    root
}

fn bundle(root: &Path, extra: &str) -> std::process::Output {
    rusty(root)
        .args(["generate", "bundle", "--input-dir", "manifests.yaml"])
        .args(extra.split_whitespace())
        .output()
        .unwrap()
}

fn yaml_file(path: &Path) -> Value {
    let value: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    serde_json::to_value(value).unwrap()
}

const CSV: &str = "bundle/manifests/bundled-operator.clusterserviceversion.yaml";
const BASE: &str = "config/manifests/bases/bundled-operator.clusterserviceversion.yaml";

#[needs(kubectl)]
#[test]
fn the_bundle_carries_the_role_crds_and_samples_and_keeps_user_edits() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path());
    let before = read_tree(&root);
    let output = bundle(&root, "--version 0.1.0 --dry-run");
    assert!(output.status.success(), "{}", transcript(&output, &root));
    assert!(read_tree(&root) == before, "--dry-run wrote files");
    let output = bundle(&root, "--version 0.1.0");
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let csv = yaml_file(&root.join(CSV));
    assert_eq!(csv["metadata"]["name"], "bundled-operator.v0.1.0");
    assert_eq!(csv["spec"]["version"], "0.1.0");
    let owned = &csv["spec"]["customresourcedefinitions"]["owned"][0];
    assert_eq!(owned["name"], "memcacheds.cache.example.com");
    assert_eq!(
        (owned["kind"].as_str(), owned["version"].as_str()),
        (Some("Memcached"), Some("v1"))
    );
    // The manager's rules are role.yaml's, granted to its service account by OLM.
    let role = yaml_file(&root.join("config/rbac/role.yaml"));
    let cluster = &csv["spec"]["install"]["spec"]["clusterPermissions"][0];
    assert_eq!(
        cluster["serviceAccountName"],
        "bundled-operator-controller-manager"
    );
    let rules = cluster["rules"].as_array().unwrap();
    for rule in role["rules"].as_array().unwrap() {
        assert!(
            rules.contains(rule),
            "{rule} missing from clusterPermissions"
        );
    }
    let deployment = &csv["spec"]["install"]["spec"]["deployments"][0];
    assert_eq!(deployment["name"], "bundled-operator-controller-manager");
    let examples: Value = serde_json::from_str(
        csv["metadata"]["annotations"]["alm-examples"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(examples[0]["kind"], "Memcached");
    let files = read_tree(&root);
    assert!(files.contains_key("bundle/manifests/cache.example.com_memcacheds.yaml"));
    assert!(files.contains_key("bundle/manifests/bundled-operator-metrics-reader_rbac.authorization.k8s.io_v1_clusterrole.yaml"));
    assert!(
        !files
            .keys()
            .any(|f| f.starts_with("bundle/manifests/") && f.contains("_serviceaccount"))
    );
    assert!(files.contains_key("bundle/tests/scorecard/config.yaml"));
    let text = |path: &str| String::from_utf8_lossy(&files[path]).into_owned();
    snapshot_settings().bind(|| {
        insta::assert_snapshot!(
            "bundle_annotations.yaml",
            text("bundle/metadata/annotations.yaml")
        );
        insta::assert_snapshot!("bundle_bundle.Dockerfile", text("bundle.Dockerfile"));
        insta::assert_snapshot!("bundle_base_csv.yaml", text(BASE));
    });

    // Twice: nothing changes.
    assert!(bundle(&root, "--version 0.1.0").status.success());
    assert!(read_tree(&root) == files);

    // The user's edits to the base survive the next version's bundle.
    let edited = text(BASE)
        .replace(
            "description: Bundled Operator operator",
            "description: Runs memcached for you.",
        )
        .replace("- bundled-operator\n", "- memcached\n  - cache\n")
        .replace("base64data: ''", "base64data: PHN2Zz48L3N2Zz4=")
        .replace("mediatype: ''", "mediatype: image/svg+xml")
        .replace(
            "supported: false\n    type: OwnNamespace",
            "supported: true\n    type: OwnNamespace",
        );
    assert_ne!(
        edited,
        text(BASE),
        "the base changed shape; update the edits above"
    );
    std::fs::write(root.join(BASE), &edited).unwrap();
    // --diff shows what the next bundle changes in the CSV, and writes nothing.
    let before = read_tree(&root);
    let output = bundle(&root, "--version 0.2.0 --dry-run --diff");
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let diff = String::from_utf8_lossy(&output.stdout);
    assert!(
        diff.contains("-  description: Bundled Operator operator")
            && diff.contains("+  description: Runs memcached for you.")
            && diff.contains("+  version: 0.2.0"),
        "{diff}"
    );
    assert!(read_tree(&root) == before, "--dry-run --diff wrote files");
    let output = bundle(
        &root,
        "--version 0.2.0 --channels alpha,stable --default-channel stable",
    );
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let csv = yaml_file(&root.join(CSV));
    assert_eq!(csv["spec"]["version"], "0.2.0");
    assert_eq!(csv["spec"]["description"], "Runs memcached for you.");
    assert_eq!(
        csv["spec"]["keywords"],
        serde_json::json!(["memcached", "cache"])
    );
    assert_eq!(csv["spec"]["icon"][0]["mediatype"], "image/svg+xml");
    assert_eq!(
        csv["spec"]["installModes"][0],
        serde_json::json!({"supported": true, "type": "OwnNamespace"})
    );
    assert_eq!(std::fs::read_to_string(root.join(BASE)).unwrap(), edited);
    let annotations =
        std::fs::read_to_string(root.join("bundle/metadata/annotations.yaml")).unwrap();
    assert!(
        annotations.contains("channels.v1: alpha,stable\n")
            && annotations.contains("channel.default.v1: stable\n")
    );
}

#[needs(kubectl)]
#[test]
fn invalid_bundles_are_one_line_errors_that_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path());
    let before = read_tree(&root);
    for (args, expected) in [
        ("--version 1.0", "invalid --version \"1.0\""),
        (
            "--version 0.1.0 --channels alpha --default-channel stable",
            "--default-channel \"stable\" is not one of --channels",
        ),
        (
            "--version 0.1.0 --package Bad_Name",
            "invalid --package \"Bad_Name\"",
        ),
        (
            "--version 0.1.0 --input-dir missing.yaml",
            "missing.yaml not found",
        ),
    ] {
        let output = rusty(&root)
            .args(["generate", "bundle"])
            .args(args.split_whitespace())
            .args(if args.contains("--input-dir") {
                vec![]
            } else {
                vec!["--input-dir", "manifests.yaml"]
            })
            .output()
            .unwrap();
        assert_refused(&output, &root, expected, &before);
    }
    // A base that supports no install mode fails OLM's checks, and says which.
    assert!(bundle(&root, "--version 0.1.0").status.success());
    let base = std::fs::read_to_string(root.join(BASE)).unwrap();
    std::fs::write(
        root.join(BASE),
        base.replace("supported: true", "supported: false"),
    )
    .unwrap();
    let written = read_tree(&root);
    let output = bundle(&root, "--version 0.1.1");
    let text = transcript(&output, &root);
    assert!(!output.status.success(), "{text}");
    assert!(text.contains("no install mode is supported"), "{text}");
    assert!(read_tree(&root) == written);
}

/// operator-sdk's flags mean what they mean there: `--manifests` and `--metadata` write one
/// part each (both without either), `--input-dir` is a folder of manifests, the version
/// comes from the base CSV when `--version` is left out, `--overwrite=false` keeps the
/// bundle's metadata, `--kustomize-dir` holds the base, `--stdout` prints the manifests.
#[needs(kubectl)]
#[test]
fn operator_sdk_flags_choose_the_parts_the_input_and_the_base() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path());
    let input = root.join("deploy");
    std::fs::create_dir(&input).unwrap();
    std::fs::rename(root.join("manifests.yaml"), input.join("all.yaml")).unwrap();
    let files = |root: &Path| -> Vec<String> {
        read_tree(root)
            .into_keys()
            .filter(|path| path.starts_with("bundle") || path.starts_with("config/manifests/bases"))
            .collect()
    };
    let run = |args: &str| {
        let output = rusty(&root)
            .args(["generate", "bundle", "-q"])
            .args(args.split_whitespace())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{args}: {}",
            transcript(&output, &root)
        );
        output
    };

    run("--manifests --version 0.1.0 --input-dir deploy");
    let written = files(&root);
    assert!(
        written
            .iter()
            .all(|f| !f.contains("metadata") && f != "bundle.Dockerfile"),
        "{written:?}"
    );
    assert!(
        written
            .contains(&"bundle/manifests/bundled-operator.clusterserviceversion.yaml".to_string())
    );

    // Without --version, the version is the base CSV's (operator-sdk's 0.0.0 in a new
    // base): the user's edit of it counts.
    let base = root.join("config/manifests/bases/bundled-operator.clusterserviceversion.yaml");
    let text = std::fs::read_to_string(&base).unwrap();
    assert!(text.contains("\n  version: 0.0.0\n"), "{text}");
    std::fs::write(
        &base,
        text.replace("\n  version: 0.0.0\n", "\n  version: 0.3.0\n"),
    )
    .unwrap();
    run("--manifests --input-dir deploy");
    let csv = yaml_file(&root.join("bundle/manifests/bundled-operator.clusterserviceversion.yaml"));
    assert_eq!(csv["spec"]["version"], "0.3.0");
    assert_eq!(csv["metadata"]["name"], "bundled-operator.v0.3.0");

    run("--metadata --channels alpha,stable --default-channel stable");
    let annotations =
        std::fs::read_to_string(root.join("bundle/metadata/annotations.yaml")).unwrap();
    assert!(
        annotations.contains("channels.v1: alpha,stable"),
        "{annotations}"
    );
    assert!(root.join("bundle.Dockerfile").is_file());
    run("--metadata --channels beta --overwrite=false");
    assert_eq!(
        std::fs::read_to_string(root.join("bundle/metadata/annotations.yaml")).unwrap(),
        annotations,
        "--overwrite=false keeps the metadata"
    );

    std::fs::create_dir_all(root.join("olm/bases")).unwrap();
    std::fs::copy(
        &base,
        root.join("olm/bases/bundled-operator.clusterserviceversion.yaml"),
    )
    .unwrap();
    let before = read_tree(&root);
    let printed = run("--stdout --manifests --kustomize-dir olm --input-dir deploy");
    let stdout = String::from_utf8(printed.stdout).unwrap();
    assert!(stdout.starts_with("---\n"), "{stdout}");
    assert!(
        stdout.contains("kind: ClusterServiceVersion")
            && stdout.contains("name: bundled-operator.v0.3.0"),
        "{stdout}"
    );
    assert!(
        stdout.contains("kind: CustomResourceDefinition"),
        "{stdout}"
    );
    assert!(
        read_tree(&root) == before,
        "--stdout --manifests writes nothing"
    );

    let before = read_tree(&root);
    for (args, expected) in [
        (
            "--version 0.1.0 deploy/all.yaml",
            "unexpected argument \"deploy/all.yaml\"",
        ),
        ("--manifests=false --metadata=false", "nothing to write"),
        (
            "--stdout --output-dir out --input-dir deploy",
            "--output-dir and --stdout",
        ),
        ("--input-dir deploy --deploy-dir deploy", "two spellings"),
        (
            "--crds-dir deploy --version 0.1.0",
            "--crds-dir \"deploy\" needs --deploy-dir",
        ),
        (
            "--kustomize-dir ../x --version 0.1.0 --input-dir deploy",
            "invalid --kustomize-dir",
        ),
        ("--version 0.1.0 --input-dir nowhere", "nowhere not found"),
    ] {
        let output = rusty(&root)
            .args(["generate", "bundle"])
            .args(args.split_whitespace())
            .output()
            .unwrap();
        assert_refused(&output, &root, expected, &before);
    }
}

/// operator-sdk's `--extra-service-accounts`: the Roles and ClusterRoles bound to the named
/// accounts go into the CSV's permissions and clusterPermissions beside the manager's
/// (OLM creates the accounts), and those objects leave the bundle; a service account the
/// CSV does not carry stays a manifest. `--use-image-digests`, operator-sdk's `-v VERSION`,
/// and an account nothing binds are refused in one line.
#[needs(kubectl)]
#[test]
fn extra_service_accounts_put_their_rbac_into_the_csv() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path());
    let extra = r"
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: backup-runner
  namespace: bundled-operator-system
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: unbound-helper
  namespace: bundled-operator-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: backup-runner
  namespace: bundled-operator-system
rules:
- apiGroups: [batch]
  resources: [jobs]
  verbs: [create, get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: backup-runner
  namespace: bundled-operator-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: backup-runner
subjects:
- kind: ServiceAccount
  name: backup-runner
  namespace: bundled-operator-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: backup-reader
rules:
- apiGroups: ['']
  resources: [persistentvolumes]
  verbs: [list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: backup-reader
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: backup-reader
subjects:
- kind: ServiceAccount
  name: backup-runner
  namespace: bundled-operator-system
";
    let mut manifests = std::fs::read_to_string(root.join("manifests.yaml")).unwrap();
    manifests.push_str(extra);
    std::fs::write(root.join("manifests.yaml"), manifests).unwrap();
    let manifest_files = |root: &Path| -> Vec<String> {
        read_tree(root)
            .into_keys()
            .filter(|p| p.starts_with("bundle/manifests/"))
            .collect()
    };

    // Without the flag the account's RBAC objects are manifests of their own, as in
    // operator-sdk.
    let output = bundle(&root, "--version 0.1.0");
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let files = manifest_files(&root);
    assert!(
        files
            .iter()
            .any(|f| f.contains("backup-runner_rbac.authorization.k8s.io_v1_role")),
        "{files:?}"
    );
    let csv = yaml_file(&root.join(CSV));
    let accounts = |csv: &Value, which: &str| -> Vec<String> {
        csv["spec"]["install"]["spec"][which]
            .as_array()
            .into_iter()
            .flatten()
            .map(|p| p["serviceAccountName"].as_str().unwrap().to_string())
            .collect()
    };
    let manager = accounts(&csv, "clusterPermissions");
    assert_eq!(manager.len(), 1, "{manager:?}");

    std::fs::remove_dir_all(root.join("bundle")).unwrap();
    let output = bundle(
        &root,
        "--version 0.1.0 --extra-service-accounts backup-runner",
    );
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let csv = yaml_file(&root.join(CSV));
    let mut cluster = manager.clone();
    cluster.push("backup-runner".into());
    cluster.sort();
    assert_eq!(accounts(&csv, "clusterPermissions"), cluster);
    assert!(accounts(&csv, "permissions").contains(&"backup-runner".to_string()));
    let entry = |which: &str| -> Value {
        csv["spec"]["install"]["spec"][which]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["serviceAccountName"] == "backup-runner")
            .unwrap()["rules"]
            .clone()
    };
    assert_eq!(
        entry("permissions"),
        serde_json::json!([{"apiGroups": ["batch"], "resources": ["jobs"], "verbs": ["create", "get"]}])
    );
    assert_eq!(
        entry("clusterPermissions"),
        serde_json::json!([{"apiGroups": [""], "resources": ["persistentvolumes"], "verbs": ["list"]}])
    );
    // OLM creates the account and its bindings from the CSV; the account the CSV does not
    // carry stays in the bundle.
    let files = manifest_files(&root);
    assert!(
        !files
            .iter()
            .any(|f| f.contains("backup-runner") || f.contains("backup-reader")),
        "{files:?}"
    );
    assert!(
        files
            .iter()
            .any(|f| f.contains("unbound-helper_v1_serviceaccount")),
        "{files:?}"
    );
    let output = rusty(&root)
        .args(["bundle", "validate", "bundle"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &root));

    let before = read_tree(&root);
    for (args, expected) in [
        (
            "--version 0.1.0 --extra-service-accounts unbound-helper",
            "--extra-service-accounts \"unbound-helper\": no RoleBinding or ClusterRoleBinding of the manifests binds this service account",
        ),
        (
            "--version 0.1.0 --extra-service-accounts Backup_Runner",
            "invalid --extra-service-accounts \"Backup_Runner\"",
        ),
        (
            "--version 0.1.0 --use-image-digests",
            "--use-image-digests looks each image's tag up in its registry",
        ),
        (
            "-v 0.1.0",
            "unexpected argument \"0.1.0\": operator-sdk's -v VERSION is --version \"0.1.0\" here",
        ),
    ] {
        assert_refused(&bundle(&root, args), &root, expected, &before);
    }
}
