//! `init --namespaced`: a manager scoped to its own namespace, as kubebuilder scaffolds it.
//! It watches the namespace it runs in and its permissions are a Role and RoleBinding
//! there: no ClusterRole for the manager unless a controller asks for a cluster-scoped
//! resource.
use rusty_sdk_test_tools::needs;
use std::path::Path;

use crate::support::{read_tree, rust_api_args, rusty};

fn run(root: &Path, args: &[&str]) {
    let output = rusty(root).args(args).arg("-q").output().unwrap();
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every `kind`/`metadata.name` pair of a multi-document YAML text.
fn objects(text: &str) -> Vec<(String, String)> {
    serde_yaml::Deserializer::from_str(text)
        .filter_map(|doc| {
            let value: serde_yaml::Value = serde::Deserialize::deserialize(doc).ok()?;
            Some((
                value["kind"].as_str()?.to_string(),
                value["metadata"]["name"].as_str()?.to_string(),
            ))
        })
        .collect()
}

#[needs(kubectl)]
#[test]
fn a_namespaced_manager_gets_a_role_and_watches_its_namespace() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("shop");
    std::fs::create_dir(&root).unwrap();
    project_with_apis(&root, true);

    assert!(read(&root, "PROJECT").contains("\nnamespaced: true\n"));
    let manager = read(&root, "config/manager/manager.yaml");
    assert!(
        manager.contains("- name: WATCH_NAMESPACE\n          valueFrom:\n            fieldRef:\n              fieldPath: metadata.namespace"),
        "{manager}"
    );
    // role_binding.yaml binds the Role; role.yaml holds only the Role.
    let binding = read(&root, "config/rbac/role_binding.yaml");
    assert_eq!(
        objects(&binding),
        [("RoleBinding".to_string(), "manager-rolebinding".to_string())]
    );
    assert!(binding.contains("  kind: Role\n"), "{binding}");
    let role = read(&root, "config/rbac/role.yaml");
    assert_eq!(
        objects(&role),
        [("Role".to_string(), "manager-role".to_string())]
    );
    for granted in ["memcacheds", "deployments", "secrets", "backups"] {
        assert!(
            role.contains(&format!("  - {granted}\n")),
            "{granted}:\n{role}"
        );
    }
    // The base rule on namespaces (cluster-scoped) is not needed in one namespace.
    assert!(!role.contains("- namespaces\n"), "{role}");
    for api in ["memcached", "backup"] {
        for role_of_users in ["admin", "editor", "viewer"] {
            let text = read(
                &root,
                &format!("config/rbac/{api}_{role_of_users}_role.yaml"),
            );
            assert!(
                text.contains("\nkind: Role\n"),
                "{api} {role_of_users}:\n{text}"
            );
        }
    }
    let check = rusty(&root)
        .args(["generate", "rbac", "--check"])
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );

    let built = objects(&crate::e2e::kustomize(&root, "config/default"));
    assert!(
        built.contains(&("Role".into(), "shop-manager-role".into())),
        "{built:?}"
    );
    assert!(
        built.contains(&("RoleBinding".into(), "shop-manager-rolebinding".into())),
        "{built:?}"
    );
    let cluster_roles: Vec<&String> = built
        .iter()
        .filter(|(kind, _)| kind == "ClusterRole")
        .map(|(_, name)| name)
        .collect();
    // Only the metrics endpoint's roles stay cluster-wide (TokenReview and
    // SubjectAccessReview are cluster-scoped APIs), as in kubebuilder.
    assert_eq!(
        cluster_roles,
        ["shop-metrics-auth-role", "shop-metrics-reader"]
    );
}

#[test]
fn a_cluster_scoped_marker_gets_its_own_bound_cluster_role() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("shop");
    std::fs::create_dir(&root).unwrap();
    project_with_apis(&root, true);
    let controller = root.join("src/controller/backup.rs");
    let text = read(&root, "src/controller/backup.rs").replacen(
        "// +rusty:rbac:",
        "// +rusty:rbac:groups=\"\",resources=nodes,verbs=get;list\n// +rusty:rbac:",
        1,
    );
    std::fs::write(&controller, text).unwrap();
    run(&root, &["generate", "rbac"]);
    let role = read(&root, "config/rbac/role.yaml");
    assert_eq!(
        objects(&role),
        [
            ("ClusterRole".to_string(), "manager-role".to_string()),
            (
                "ClusterRoleBinding".to_string(),
                "manager-rolebinding".to_string()
            ),
            ("Role".to_string(), "manager-role".to_string()),
        ]
    );
    let cluster_part = role.split("kind: ClusterRoleBinding").next().unwrap();
    assert!(cluster_part.contains("- nodes\n"), "{role}");
}

fn project_with_apis(root: &Path, namespaced: bool) {
    let mut init = vec![
        "init",
        "--plugins",
        "hybrid.helm",
        "--domain",
        "example.com",
    ];
    if namespaced {
        init.push("--namespaced");
    }
    run(root, &init);
    run(
        root,
        &[
            "create",
            "api",
            "--plugins",
            "helm",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
        ],
    );
    let rust = rust_api_args("cache", "v1", "Backup");
    run(root, &rust.iter().map(String::as_str).collect::<Vec<_>>());
}

/// `edit --namespaced` leaves the project exactly as `init --namespaced` would have made it,
/// `edit --namespaced=false` exactly as plain `init`; a second run changes nothing.
#[test]
fn edit_namespaced_switches_both_ways_to_what_init_writes() {
    let plain = tempfile::tempdir().unwrap();
    let scoped = tempfile::tempdir().unwrap();
    let (plain, scoped) = (plain.path().join("shop"), scoped.path().join("shop"));
    std::fs::create_dir(&plain).unwrap();
    std::fs::create_dir(&scoped).unwrap();
    project_with_apis(&plain, false);
    project_with_apis(&scoped, true);
    let (plain_tree, scoped_tree) = (read_tree(&plain), read_tree(&scoped));
    assert_ne!(plain_tree, scoped_tree);

    run(&plain, &["edit", "--namespaced"]);
    assert_same_tree(&read_tree(&plain), &scoped_tree);
    let again = rusty(&plain)
        .args(["edit", "--namespaced"])
        .output()
        .unwrap();
    assert!(again.status.success());
    assert!(
        !String::from_utf8_lossy(&again.stdout).contains("update"),
        "{again:?}"
    );
    assert_same_tree(&read_tree(&plain), &scoped_tree);

    run(&scoped, &["edit", "--namespaced=false"]);
    assert_same_tree(&read_tree(&scoped), &plain_tree);
}

#[test]
fn edit_leaves_hand_edited_text_alone_and_says_what_to_change() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("shop");
    std::fs::create_dir(&root).unwrap();
    project_with_apis(&root, false);
    let manager = read(&root, "config/manager/manager.yaml").replace(
        "          value: \"\"\n",
        "          value: team-a,team-b\n",
    );
    std::fs::write(root.join("config/manager/manager.yaml"), &manager).unwrap();
    let output = rusty(&root)
        .args(["edit", "--namespaced"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("config/manager/manager.yaml was edited by hand")
            && stderr.contains("metadata.namespace"),
        "{stderr}"
    );
    assert_eq!(read(&root, "config/manager/manager.yaml"), manager);
    assert!(read(&root, "PROJECT").contains("\nnamespaced: true\n"));

    let nothing = rusty(&root).arg("edit").output().unwrap();
    assert_eq!(nothing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&nothing.stderr).contains("--namespaced"));
}

fn assert_same_tree(
    got: &std::collections::BTreeMap<String, Vec<u8>>,
    want: &std::collections::BTreeMap<String, Vec<u8>>,
) {
    let paths = |tree: &std::collections::BTreeMap<String, Vec<u8>>| -> Vec<String> {
        tree.keys().cloned().collect()
    };
    assert_eq!(paths(got), paths(want));
    for (path, bytes) in want {
        assert_eq!(
            String::from_utf8_lossy(&got[path]),
            String::from_utf8_lossy(bytes),
            "{path}"
        );
    }
}
