//! `rusty-sdk create api --plugins rust`: prompts, the files it writes, re-runs, user edits,
//! errors, and (end to end) generated projects that build, test and lint, whose crdgen
//! prints exactly the CRDs the command wrote.
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Output;

use rusty_sdk_test_tools::needs;

use crate::e2e::{self, check_project, kustomize};
use crate::support::{read_tree, rust_api_args, rusty, snapshot_settings, transcript};

type Files = BTreeMap<String, Vec<u8>>;

const BACKUP: &[&str] = &[
    "create",
    "api",
    "--plugins",
    "rust",
    "--group",
    "cache",
    "--version",
    "v1",
    "--kind",
    "MemcachedBackup",
];

const IMAGE: &[&str] = &[
    "create",
    "api",
    "--plugins",
    "rust",
    "--group",
    "cache",
    "--version",
    "v1alpha1",
    "--kind",
    "Memcached",
    "--image",
    "memcached:1.4.36-alpine",
    "--image-container-command",
    "memcached,-m=64,-o,modern,-v",
    "--image-container-port",
    "11211",
    "--run-as-user",
    "1001",
];

const CLUSTER_SCOPED: &[&str] = &[
    "create",
    "api",
    "--plugins",
    "rust",
    "--group",
    "ops",
    "--version",
    "v1",
    "--kind",
    "Proxy",
    "--namespaced=false",
    "--resource",
    "--controller",
];

fn project(layout: &str) -> (tempfile::TempDir, PathBuf) {
    project_named(layout, "memcached-operator")
}

fn project_named(layout: &str, name: &str) -> (tempfile::TempDir, PathBuf) {
    let (dir, root) = e2e::project_dir(name);
    let output = rusty(&root)
        .args(["init", "--plugins", layout])
        .args(["--repo", "github.com/example/memcached-operator"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &root));
    (dir, root)
}

fn create(root: &Path, args: &[&str], stdin: &str) -> Output {
    rusty(root)
        .args(args)
        .write_stdin(stdin.as_bytes().to_vec())
        .output()
        .unwrap()
}

fn created(root: &Path, args: &[&str], stdin: &str) -> String {
    let output = create(root, args, stdin);
    let text = transcript(&output, root);
    assert!(output.status.success(), "{text}");
    text
}

/// Files that differ between two reads of a tree (new or changed).
fn changed<'a>(before: &Files, after: &'a Files) -> Vec<(&'a String, &'a Vec<u8>)> {
    after
        .iter()
        .filter(|(path, bytes)| before.get(*path) != Some(*bytes))
        .collect()
}

fn snapshot_changes(name: &str, before: &Files, after: &Files) {
    let changes = changed(before, after);
    let listing: Vec<&str> = changes.iter().map(|(p, _)| p.as_str()).collect();
    snapshot_settings().bind(|| {
        insta::assert_snapshot!(format!("{name}_files"), listing.join("\n"));
        for (path, bytes) in &changes {
            let file = format!("{name}__{}", path.replace('/', "__"));
            insta::assert_snapshot!(file, String::from_utf8_lossy(bytes));
        }
    });
}

#[test]
fn yes_yes_scaffolds_the_resource_and_the_controller() {
    let (_dir, root) = project("rust");
    let before = read_tree(&root);
    let output = created(&root, BACKUP, "y\ny\n");
    assert!(
        output.contains("Create Resource [y/n]\nCreate Controller [y/n]\n"),
        "{output}"
    );
    let after = read_tree(&root);
    snapshot_settings().bind(|| insta::assert_snapshot!("rust_api_backup_output", output));
    snapshot_changes("rust_api_backup", &before, &after);
    let main = String::from_utf8_lossy(&after["src/main.rs"]).into_owned();
    assert!(
        main.contains(
            "manager.add_controller(\"memcachedbackup\", controller::memcached_backup::run);"
        ),
        "{main}"
    );
}

#[test]
fn yes_no_scaffolds_no_controller() {
    let (_dir, root) = project("rust");
    let before = read_tree(&root);
    let output = created(&root, BACKUP, "y\nn\n");
    snapshot_settings().bind(|| insta::assert_snapshot!("rust_api_yes_no_output", output));
    let after = read_tree(&root);
    assert!(!after.contains_key("src/controller/memcached_backup.rs"));
    assert_eq!(after["src/main.rs"], before["src/main.rs"]);
    assert_eq!(
        after["src/controller/mod.rs"],
        before["src/controller/mod.rs"]
    );
    assert!(after.contains_key("api/src/cache/v1/memcached_backup.rs"));
    let project = String::from_utf8_lossy(&after["PROJECT"]).into_owned();
    assert!(project.contains("kind: MemcachedBackup"), "{project}");
    assert!(!project.contains("controller: true"), "{project}");

    // Later, the controller alone for the existing type.
    let args: Vec<&str> = BACKUP
        .iter()
        .copied()
        .chain(["--resource=false", "--controller"])
        .collect();
    created(&root, &args, "");
    let later = read_tree(&root);
    assert!(later.contains_key("src/controller/memcached_backup.rs"));
    assert_eq!(
        later["api/src/cache/v1/memcached_backup.rs"],
        after["api/src/cache/v1/memcached_backup.rs"]
    );
    let project = String::from_utf8_lossy(&later["PROJECT"]).into_owned();
    assert!(project.contains("controller: true"), "{project}");
}

#[test]
fn an_invalid_answer_is_asked_again() {
    let (_dir, root) = project("rust");
    let output = created(&root, BACKUP, "maybe\ny\nyes\n");
    snapshot_settings().bind(|| insta::assert_snapshot!("rust_api_invalid_answer_output", output));
    assert!(
        output.contains(
            "Create Resource [y/n]\ninvalid input \"maybe\", should be [y/n]\nCreate Resource [y/n]\nCreate Controller [y/n]\n"
        ),
        "{output}"
    );
    assert!(read_tree(&root).contains_key("src/controller/memcached_backup.rs"));
}

#[test]
fn closed_stdin_is_an_error_and_writes_nothing() {
    let (_dir, root) = project("rust");
    let before = read_tree(&root);
    for input in ["", "y\n"] {
        let output = create(&root, BACKUP, input);
        let text = transcript(&output, &root);
        assert_eq!(output.status.code(), Some(1), "{text}");
        let name = format!(
            "rust_api_closed_stdin_after_{}_answers",
            input.lines().count()
        );
        snapshot_settings().bind(|| insta::assert_snapshot!(name, text));
        let flag = if input.is_empty() {
            "--resource"
        } else {
            "--controller"
        };
        assert!(
            text.contains(&format!("pass {flag}=true or {flag}=false")),
            "{text}"
        );
        assert_eq!(read_tree(&root), before, "nothing may be written");
    }
}

#[test]
fn the_same_command_twice_changes_nothing() {
    let (_dir, root) = project("rust");
    created(&root, BACKUP, "y\ny\n");
    let once = read_tree(&root);

    let again = create(&root, BACKUP, "y\ny\n");
    let text = transcript(&again, &root);
    assert_eq!(again.status.code(), Some(1), "{text}");
    assert!(text.contains("API already exists"), "{text}");
    assert_eq!(read_tree(&root), once);

    let forced: Vec<&str> = BACKUP.iter().copied().chain(["--force"]).collect();
    let text = created(&root, &forced, "y\ny\n");
    assert!(
        !text.contains(" create ") && !text.contains(" update "),
        "{text}"
    );
    assert!(
        text.contains("identical  src/controller/memcached_backup.rs"),
        "{text}"
    );
    assert_eq!(read_tree(&root), once);
}

#[test]
fn force_rewrites_only_the_files_the_command_owns() {
    let (_dir, root) = project("rust");
    created(&root, BACKUP, "y\ny\n");
    let controller = root.join("src/controller/memcached_backup.rs");
    std::fs::write(&controller, "// my own controller\n").unwrap();
    let readme = root.join("README.md");
    let readme_before = std::fs::read(&readme).ok();

    let output = create(&root, BACKUP, "y\ny\n");
    assert_eq!(output.status.code(), Some(1));
    let forced: Vec<&str> = BACKUP.iter().copied().chain(["--force"]).collect();
    let text = created(&root, &forced, "y\ny\n");
    assert!(
        text.contains("force  src/controller/memcached_backup.rs"),
        "{text}"
    );
    assert!(
        std::fs::read_to_string(&controller)
            .unwrap()
            .contains("pub async fn run")
    );
    assert_eq!(std::fs::read(&readme).ok(), readme_before);
}

#[test]
fn user_edits_survive_a_later_api() {
    let (_dir, root) = project("rust");
    created(&root, BACKUP, "y\ny\n");
    let main = root.join("src/main.rs");
    let edited_main = std::fs::read_to_string(&main)
        .unwrap()
        .replace("manager.run().await", "// my edit\n    manager.run().await");
    std::fs::write(&main, &edited_main).unwrap();
    let controller = root.join("src/controller/memcached_backup.rs");
    let edited_controller = std::fs::read_to_string(&controller)
        .unwrap()
        .replace("const RESYNC", "// my tuning\nconst RESYNC");
    std::fs::write(&controller, &edited_controller).unwrap();

    let before = read_tree(&root);
    created(&root, CLUSTER_SCOPED, "");
    let after = read_tree(&root);
    let main_now = String::from_utf8_lossy(&after["src/main.rs"]).into_owned();
    assert!(main_now.contains("// my edit"), "{main_now}");
    assert!(
        main_now.contains("controller::memcached_backup::run")
            && main_now.contains("controller::proxy::run"),
        "{main_now}"
    );
    assert_eq!(
        after["src/controller/memcached_backup.rs"],
        edited_controller.as_bytes()
    );
    snapshot_changes("rust_api_second_group", &before, &after);
}

#[test]
fn a_second_kind_shares_its_group_version_module() {
    let (_dir, root) = project("rust");
    created(&root, BACKUP, "y\ny\n");
    let mut second: Vec<&str> = BACKUP.to_vec();
    second[9] = "MemcachedRestore";
    created(&root, &second, "y\nn\n");
    let tree = read_tree(&root);
    let module = String::from_utf8_lossy(&tree["api/src/cache/v1/mod.rs"]).into_owned();
    assert!(
        module.contains("pub mod memcached_backup;")
            && module.contains("pub mod memcached_restore;"),
        "{module}"
    );
    let group = String::from_utf8_lossy(&tree["api/src/cache/mod.rs"]).into_owned();
    assert_eq!(group.matches("pub mod v1;").count(), 1, "{group}");
    let lib = String::from_utf8_lossy(&tree["api/src/lib.rs"]).into_owned();
    assert_eq!(lib.matches("pub mod cache;").count(), 1, "{lib}");
    assert!(lib.contains("cache::v1::MemcachedRestore::crd(),"), "{lib}");
}

#[test]
fn a_resource_puts_the_api_crate_back_into_the_workspace() {
    let (_dir, root) = project("rust");
    let manifest = root.join("Cargo.toml");
    let original = std::fs::read_to_string(&manifest).unwrap();
    let dropped = original.replace(
        "members = [\"api\"]",
        "# api left out by hand\nmembers = []",
    );
    assert_ne!(
        dropped, original,
        "the template's members line moved:\n{original}"
    );
    std::fs::write(&manifest, &dropped).unwrap();

    created(&root, BACKUP, "y\ny\n");
    let now = std::fs::read_to_string(&manifest).unwrap();
    assert!(now.contains("members = [\"api\"]"), "{now}");
    assert!(
        now.contains("# api left out by hand"),
        "comments survive:\n{now}"
    );

    // In a project that already lists it, the manifest is left byte for byte.
    let mut second: Vec<&str> = BACKUP.to_vec();
    second[9] = "MemcachedRestore";
    created(&root, &second, "y\nn\n");
    assert_eq!(std::fs::read_to_string(&manifest).unwrap(), now);
}
#[test]
fn deploy_image_files() {
    let (_dir, root) = project("rust");
    let before = read_tree(&root);
    let output = created(&root, IMAGE, "");
    assert!(!output.contains("[y/n]"), "--image asks nothing: {output}");
    let after = read_tree(&root);
    snapshot_changes("rust_api_image", &before, &after);
    let manager = String::from_utf8_lossy(&after["config/manager/manager.yaml"]).into_owned();
    assert!(
        manager.contains(
            "        - name: MEMCACHED_IMAGE\n          value: memcached:1.4.36-alpine\n"
        ),
        "{manager}"
    );

    // Another image later updates the variable instead of adding a second one.
    let mut newer: Vec<&str> = IMAGE.to_vec();
    newer[11] = "memcached:1.6.26-alpine";
    newer.push("--force");
    created(&root, &newer, "");
    let manager = std::fs::read_to_string(root.join("config/manager/manager.yaml")).unwrap();
    assert_eq!(manager.matches("MEMCACHED_IMAGE").count(), 1, "{manager}");
    assert!(
        manager.contains("value: memcached:1.6.26-alpine"),
        "{manager}"
    );
}

#[test]
fn errors_name_what_to_fix_and_write_nothing() {
    let (_dir, root) = project("rust");
    let before = read_tree(&root);
    let cases: &[(&str, &[&str])] = &[
        (
            "bad_group",
            &["--group", "Cache", "--version", "v1", "--kind", "A"],
        ),
        (
            "bad_version",
            &["--group", "cache", "--version", "1", "--kind", "A"],
        ),
        (
            "bad_kind",
            &["--group", "cache", "--version", "v1", "--kind", "memcached"],
        ),
        (
            "port_without_image",
            &[
                "--group",
                "cache",
                "--version",
                "v1",
                "--kind",
                "A",
                "--image-container-port",
                "11211",
            ],
        ),
        (
            "image_cluster_scoped",
            &[
                "--group",
                "cache",
                "--version",
                "v1",
                "--kind",
                "A",
                "--image",
                "m:1",
                "--namespaced=false",
            ],
        ),
        (
            "image_without_controller",
            &[
                "--group",
                "cache",
                "--version",
                "v1",
                "--kind",
                "A",
                "--image",
                "m:1",
                "--controller=false",
            ],
        ),
    ];
    let mut transcripts = String::new();
    for (name, flags) in cases {
        let mut args = vec!["create", "api", "--plugins", "rust"];
        args.extend_from_slice(flags);
        let output = create(&root, &args, "y\ny\n");
        assert_eq!(output.status.code(), Some(1), "{name}");
        let _ = writeln!(transcripts, "## {name}\n{}", transcript(&output, &root));
        assert_eq!(read_tree(&root), before, "{name} wrote something");
    }
    let (_helm_dir, helm_root) = project("helm");
    let helm_before = read_tree(&helm_root);
    let output = create(&helm_root, BACKUP, "y\ny\n");
    assert_eq!(output.status.code(), Some(1));
    let _ = writeln!(
        transcripts,
        "## helm_project\n{}",
        transcript(&output, &helm_root)
    );
    assert_eq!(read_tree(&helm_root), helm_before);
    snapshot_settings().bind(|| insta::assert_snapshot!("rust_api_errors", transcripts));
}

/// crdgen's CRDs, written one file per CRD, must equal what `create api` wrote. crdgen
/// reads no source file when it runs: it runs from another folder, with the api crate's
/// sources (which hold the storage version markers) moved away.
fn assert_crdgen_matches(root: &Path) {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("crds");
    let crdgen = e2e::built_binary(root, "crdgen");
    let sources = root.join("api/src");
    let moved = root.join("api/src.moved");
    std::fs::rename(&sources, &moved).unwrap();
    let output = std::process::Command::new(&crdgen)
        .arg(&dir)
        .current_dir(out.path())
        .output();
    std::fs::rename(&moved, &sources).unwrap();
    let output = output.unwrap();
    assert!(
        output.status.success(),
        "crdgen without the source tree: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let generated = read_tree(&dir);
    let scaffolded: Files = read_tree(&root.join("config/crd/bases"));
    assert_eq!(
        generated.keys().collect::<Vec<_>>(),
        scaffolded.keys().collect::<Vec<_>>()
    );
    for (file, bytes) in &generated {
        let want = String::from_utf8_lossy(bytes);
        let have = String::from_utf8_lossy(&scaffolded[file]);
        assert_eq!(
            have, want,
            "config/crd/bases/{file} differs from crdgen's output"
        );
    }
}

/// The Widget CRD stores v1, the hub, and converts through the webhook, whose Service
/// kustomize prefixes and whose CA cert-manager injects.
fn assert_widget_converts(root: &Path) {
    let path = root.join("config/crd/bases/toys.my.domain_widgets.yaml");
    let crd: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let stored: Vec<&str> = crd["spec"]["versions"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter(|version| version["storage"].as_bool() == Some(true))
        .filter_map(|version| version["name"].as_str())
        .collect();
    assert_eq!(stored, ["v1"]);
    let served = crd["spec"]["versions"].as_sequence().unwrap().len();
    assert_eq!(served, 3, "v1 and its two spokes");
    let conversion = &crd["spec"]["conversion"];
    assert_eq!(conversion["strategy"], "Webhook");
    let service = &conversion["webhook"]["clientConfig"]["service"];
    assert_eq!(service["path"], "/convert");
    let text = e2e::kustomize(root, "config/default");
    let widgets = text
        .split("\n---\n")
        .map(|doc| serde_yaml::from_str::<serde_yaml::Value>(doc).unwrap())
        .find(|doc| doc["metadata"]["name"] == "widgets.toys.my.domain")
        .unwrap_or_else(|| panic!("no Widget CRD in\n{text}"));
    let project = root.file_name().unwrap().to_string_lossy();
    let service = &widgets["spec"]["conversion"]["webhook"]["clientConfig"]["service"];
    assert_eq!(
        service["name"],
        format!("{project}-webhook-service").as_str()
    );
    assert_eq!(service["namespace"], format!("{project}-system").as_str());
    assert_eq!(
        widgets["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
        format!("{project}-system/{project}-serving-cert").as_str()
    );
}

#[needs(e2e, kubectl)]
#[test]
fn projects_with_three_apis_build_test_lint_and_agree_with_crdgen() {
    // Namespaced, cluster-scoped, and deploy-image with every image flag, in both layouts
    // that take Rust APIs; both also have a Widget, a kind with nothing of Memcached about
    // it, under the default controller, in three versions that convert.
    for (layout, name) in [
        ("rust", "e2e-rust-three-apis"),
        ("hybrid.helm", "e2e-hybrid-three-apis"),
    ] {
        let (_dir, root) = project_named(layout, name);
        created(&root, BACKUP, "y\ny\n");
        created(&root, CLUSTER_SCOPED, "");
        created(&root, IMAGE, "");
        let widget = rust_api_args("toys", "v1", "Widget");
        created(
            &root,
            &widget.iter().map(String::as_str).collect::<Vec<_>>(),
            "",
        );
        // Two more versions of Widget, converting to and from v1 (the hub) below.
        for spoke in ["v2", "v1beta1"] {
            let mut args = rust_api_args("toys", spoke, "Widget");
            if let Some(controller) = args.last_mut() {
                *controller = "--controller=false".into();
            }
            created(
                &root,
                &args.iter().map(String::as_str).collect::<Vec<_>>(),
                "",
            );
        }
        if layout == "hybrid.helm" {
            add_apis_with_names_that_clash(&root);
            add_controllers_for_builtin_kinds(&root);
            crate::external::add_external_controller(&root);
        }
        // Webhooks of each sort: both on the deploy-image kind, validation only on the
        // cluster-scoped one, defaulting on Widget and then validation added to its file
        // at the markers; their AdmissionReview tests run with the project's.
        let webhook = crate::webhook::create_webhook;
        webhook(
            &root,
            "--group cache --version v1alpha1 --kind Memcached --defaulting --programmatic-validation",
        );
        webhook(
            &root,
            "--group ops --version v1 --kind Proxy --programmatic-validation",
        );
        webhook(
            &root,
            "--group toys --version v1 --kind Widget --defaulting",
        );
        webhook(
            &root,
            "--group toys --version v1 --kind Widget --programmatic-validation",
        );
        // Widget v2 and v1beta1 convert through v1 (v1beta1 added later, at the conversion
        // webhook's markers): their round-trip and ConversionReview tests run with the
        // project's, and `make manifests` writes the merged CRD with spec.conversion and v1
        // stored, the version the hub's storage marker names.
        webhook(
            &root,
            "--group toys --version v1 --kind Widget --conversion --spoke v2",
        );
        webhook(
            &root,
            "--group toys --version v1 --kind Widget --conversion --spoke v1beta1",
        );
        let hub = std::fs::read_to_string(root.join("api/src/toys/v1/widget.rs")).unwrap();
        assert!(hub.contains("\n// +rusty:storageversion\n/// "), "{hub}");
        e2e::run_bin(&root, "crdgen", &["config/crd/bases"]);
        assert_widget_converts(&root);
        check_project(&root);
        assert_crdgen_matches(&root);
        kustomize(&root, "config/samples");
    }
}

/// The default controller fits any kind: it runs no workload of its own (the Deployment
/// example is deploy-image's), keeps a finalizer, reports `Available` and publishes events.
#[test]
fn the_default_controller_runs_no_workload() {
    let (_dir, root) = project("rust");
    let args = rust_api_args("toys", "v1", "Widget");
    created(
        &root,
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        "",
    );
    let tree = read_tree(&root);
    let text = |path: &str| String::from_utf8_lossy(&tree[path]).into_owned();
    let controller = text("src/controller/widget.rs");
    for absent in [
        "memcached:",
        "11211",
        "Deployment {",
        "Pod",
        "resources=deployments",
    ] {
        assert!(!controller.contains(absent), "{absent} in\n{controller}");
    }
    for present in [
        "const FINALIZER: &str = \"toys.my.domain/finalizer\";",
        "const AVAILABLE: &str = \"Available\";",
        "apply_owned(api, obj, FIELD_MANAGER, current, [update], status)",
        "const CLEANUP: bool = false;",
        "\"Reconciled\"",
        "\"Deleting\"",
        "// TODO(user): your logic here.",
    ] {
        assert!(
            controller.contains(present),
            "{present} missing from\n{controller}"
        );
    }
    let types = text("api/src/toys/v1/widget.rs");
    assert!(
        !types.contains("size") && !types.contains("nodes"),
        "{types}"
    );
    assert!(types.contains("pub foo: Option<String>,"), "{types}");
    let sample = text("config/samples/toys_v1_widget.yaml");
    assert!(
        sample.ends_with("spec:\n  # TODO(user): the fields of your Widget's spec\n  foo: bar\n"),
        "{sample}"
    );
    let crd = text("config/crd/bases/toys.my.domain_widgets.yaml");
    assert!(
        crd.contains(
            "description: An example field; replace it with the fields your resource needs."
        ),
        "the CRD's descriptions are the doc comments':\n{crd}"
    );
}

/// Controllers for Kubernetes' own kinds, namespaced and cluster-scoped, and one that
/// caches metadata only (ConfigMap).
fn add_controllers_for_builtin_kinds(root: &Path) {
    for (group, kind) in [
        ("apps", "StatefulSet"),
        ("core", "Node"),
        ("core", "ConfigMap"),
    ] {
        let args = [
            "create",
            "api",
            "--plugins",
            "rust",
            "--group",
            group,
            "--version",
            "v1",
            "--kind",
            kind,
            "--resource=false",
            "--controller",
        ];
        created(root, &args, "");
    }
}

#[test]
fn a_controller_for_a_builtin_kind_watches_it_without_a_crd() {
    let (_dir, root) = project("rust");
    let before = read_tree(&root);
    let args = [
        "create",
        "api",
        "--plugins",
        "rust",
        "--group",
        "apps",
        "--version",
        "v1",
        "--kind",
        "Deployment",
        "--resource=false",
        "--controller",
    ];
    created(&root, &args, "");
    let after = read_tree(&root);
    let controller = String::from_utf8_lossy(&after["src/controller/deployment.rs"]).into_owned();
    assert!(
        controller.contains("use k8s_openapi::api::apps::v1::Deployment;"),
        "{controller}"
    );
    assert!(controller.contains(
        "+rusty:rbac:groups=apps,resources=deployments,verbs=get;list;watch;update;patch"
    ));
    let role = String::from_utf8_lossy(&after["config/rbac/role.yaml"]).into_owned();
    assert!(role.contains("- deployments"), "{role}");
    let project = String::from_utf8_lossy(&after["PROJECT"]).into_owned();
    assert!(
        project.contains("group: apps\n  kind: Deployment\n  path: k8s_openapi::api::apps::v1"),
        "{project}"
    );
    assert!(
        !after
            .keys()
            .any(|p| p.starts_with("config/crd/bases/") && !before.contains_key(p)),
        "no CRD for a built-in kind"
    );
    // Neither the project's nor Kubernetes': the message says both ways out.
    let output = create(
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
            "Memcached",
            "--resource=false",
            "--controller",
        ],
        "",
    );
    let text = transcript(&output, &root);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("create it too with --resource, or name a built-in kind"),
        "{text}"
    );
    // Twice: the second run is refused without --force, and identical with it.
    let output = create(&root, &args, "");
    assert_eq!(output.status.code(), Some(1));
    let mut forced = args.to_vec();
    forced.push("--force");
    created(&root, &forced, "");
    assert!(read_tree(&root) == after, "--force changed files");
}

/// Names a user may pick that the generated code itself uses: a keyword group and kind, kinds
/// named like the Kubernetes types and the kube-rs items a controller imports (`Client`, and
/// `Deployment` beside the deploy-image controller, which imports k8s-openapi's), and a kind
/// that already exists in another group. They must build.
fn add_apis_with_names_that_clash(root: &Path) {
    let api = |group: &str, kind: &str| rust_api_args(group, "v1", kind);
    for (group, kind) in [
        ("fn", "Type"),
        ("cache", "Client"),
        ("cache", "Condition"),
        ("web", "MemcachedBackup"),
    ] {
        let args = api(group, kind);
        created(
            root,
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
            "",
        );
    }
    let mut deployment = api("apps", "Deployment");
    deployment.extend(["--image".into(), "memcached:1.6.26-alpine".into()]);
    created(
        root,
        &deployment.iter().map(String::as_str).collect::<Vec<_>>(),
        "",
    );
    let main = std::fs::read_to_string(root.join("src/main.rs")).unwrap();
    for line in [
        "controller::type_::run",
        "controller::deployment::run",
        "\"web-memcachedbackup\", controller::web_memcached_backup::run",
    ] {
        assert!(main.contains(line), "{line} missing from main.rs:\n{main}");
    }
    for (file, import) in [
        (
            "deployment",
            "Deployment as AppsDeployment, DeploymentStatus as AppsDeploymentStatus",
        ),
        (
            "client",
            "Client as CacheClient, ClientStatus as CacheClientStatus",
        ),
    ] {
        let path = root.join(format!("src/controller/{file}.rs"));
        let controller = std::fs::read_to_string(path).unwrap();
        assert!(controller.contains(import), "{controller}");
    }
}

/// Needs the runtime's Helm reconciler (`rusty_sdk_runtime::helm`), which the hybrid
/// layout's main.rs uses.
#[needs(e2e, kubectl)]
#[test]
fn hybrid_project_with_a_rust_api_builds_tests_lints_and_agrees_with_crdgen() {
    let (_dir, root) = project_named("hybrid.helm", "e2e-hybrid-rust-api");
    let mut args: Vec<&str> = BACKUP.to_vec();
    args.extend(["--resource", "--controller"]);
    created(&root, &args, "");
    check_project(&root);
    assert_crdgen_matches(&root);
    kustomize(&root, "config/samples");
}

#[test]
fn a_second_version_of_a_kind_leaves_its_crd_to_crdgen() {
    let (_dir, root) = project("rust");
    created(&root, BACKUP, "y\ny\n");
    let crd = "config/crd/bases/cache.my.domain_memcachedbackups.yaml";
    let before = read_tree(&root);
    let mut second: Vec<&str> = BACKUP.to_vec();
    second[7] = "v2";
    let output = created(&root, &second, "y\nn\n");
    assert!(
        output.contains("several versions of MemcachedBackup; run `make manifests`"),
        "{output}"
    );
    let after = read_tree(&root);
    assert_eq!(
        after[crd], before[crd],
        "the merged CRD is crdgen's to write"
    );
    assert!(after.contains_key("api/src/cache/v2/memcached_backup.rs"));
    let lib = String::from_utf8_lossy(&after["api/src/lib.rs"]).into_owned();
    assert!(
        lib.contains("cache::v1::MemcachedBackup::crd(),")
            && lib.contains("cache::v2::MemcachedBackup::crd(),"),
        "{lib}"
    );
    let group = String::from_utf8_lossy(&after["api/src/cache/mod.rs"]).into_owned();
    assert!(group.contains("pub mod v1;\npub mod v2;"), "{group}");
}

#[test]
fn plural_override_names_the_crd_and_is_recorded() {
    let (_dir, root) = project("rust");
    let args: Vec<&str> = BACKUP
        .iter()
        .copied()
        .chain(["--plural", "backups", "--resource", "--controller=false"])
        .collect();
    created(&root, &args, "");
    let tree = read_tree(&root);
    let crd = String::from_utf8_lossy(&tree["config/crd/bases/cache.my.domain_backups.yaml"])
        .into_owned();
    assert!(crd.contains("  name: backups.cache.my.domain\n"), "{crd}");
    let types = String::from_utf8_lossy(&tree["api/src/cache/v1/memcached_backup.rs"]).into_owned();
    assert!(types.contains("plural = \"backups\""), "{types}");
    let project = String::from_utf8_lossy(&tree["PROJECT"]).into_owned();
    assert!(project.contains("plural: backups"), "{project}");
}
