//! Several controllers for one kind (issue 28): `create api --controller-name`, as in
//! kubebuilder's testdata (`--controller-name=captain`, then `captain-backup`). Each is its
//! own module with its own name, RBAC markers, condition and registration; PROJECT lists
//! them under `controllers:`; a name in use is refused naming its owner. The controllers are
//! built and linted in one project with `webhook_kinds.rs`'s (its e2e test), and reconcile one
//! object side by side on a real API server in `cluster::rust_controllers`.
use std::path::{Path, PathBuf};

use crate::support::{assert_refused, read_tree, rusty, scaffold, snapshot_settings, transcript};

/// kubebuilder's commands for Captain, with a second controller for the core kind Pod.
pub const COMMANDS: [&str; 4] = [
    "create api --plugins rust --group crew --version v1 --kind Captain --controller=true --resource=true --make=false --controller-name=captain",
    "create api --plugins rust --group crew --version v1 --kind Captain --controller=true --resource=false --make=false --controller-name=captain-backup",
    "create api --plugins rust --group core --version v1 --kind Pod --resource=false --controller",
    "create api --plugins rust --group core --version v1 --kind Pod --resource=false --controller-name pod-audit",
];

pub fn project(dir: &Path, name: &str) -> PathBuf {
    let root = dir.join(name);
    let init =
        format!("init --plugins rust --domain testproject.org --repo github.com/example/{name}");
    let mut commands = vec![init.as_str()];
    commands.extend(COMMANDS);
    scaffold(dir, &root, &commands);
    root
}

fn text(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn each_controller_of_a_kind_is_its_own_module_name_rbac_and_registration() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path(), "crew-operator");

    let main = text(&root, "src/main.rs");
    for line in [
        "manager.add_controller(\"captain\", controller::captain::run);",
        "manager.add_controller(\"captain-backup\", controller::captain_backup::run);",
        "manager.add_controller(\"pod\", controller::pod::run);",
        "manager.add_controller(\"pod-audit\", controller::pod_audit::run);",
    ] {
        assert!(main.contains(line), "{line}\nnot in:\n{main}");
    }
    let backup = text(&root, "src/controller/captain_backup.rs");
    for line in [
        "const CONTROLLER: &str = \"captain-backup\";",
        "const FIELD_MANAGER: &str = \"captain-backup-controller\";",
        "const FINALIZER: &str = \"crew.testproject.org/captain-backup\";",
        "const AVAILABLE: &str = \"CaptainBackupAvailable\";",
        "// +rusty:rbac:groups=crew.testproject.org,resources=captains,verbs=",
    ] {
        assert!(backup.contains(line), "{line}\nnot in:\n{backup}");
    }
    let captain = text(&root, "src/controller/captain.rs");
    assert!(captain.contains("const CONTROLLER: &str = \"captain\";"));
    assert!(captain.contains("const AVAILABLE: &str = \"Available\";"));
    assert!(
        text(&root, "src/integration/captain_backup.rs")
            .contains("const CONDITION: &str = \"CaptainBackupAvailable\";")
    );
    let audit = text(&root, "src/controller/pod_audit.rs");
    assert!(
        audit.contains("const CONTROLLER: &str = \"pod-audit\";"),
        "{audit}"
    );

    let project = text(&root, "PROJECT");
    for entry in [
        "  controllers:\n  - name: captain\n  - name: captain-backup\n  domain: testproject.org\n  group: crew\n  kind: Captain\n",
        "- controllers:\n  - name: pod\n  - name: pod-audit\n  core: true\n  group: core\n  kind: Pod\n",
    ] {
        assert!(project.contains(entry), "{entry}\nnot in:\n{project}");
    }
    assert!(!project.contains("controller: true"), "{project}");

    snapshot_settings().bind(|| {
        for path in [
            "src/controller/captain_backup.rs",
            "src/integration/captain_backup.rs",
            "PROJECT",
        ] {
            insta::assert_snapshot!(
                format!("controllers_{}", path.replace('/', "__")),
                text(&root, path)
            );
        }
    });

    // Again with --force: the same files, nothing else.
    let before = read_tree(&root);
    for args in [COMMANDS[1], COMMANDS[3]] {
        let output = rusty(&root)
            .args(args.split_whitespace())
            .arg("--force")
            .output()
            .unwrap();
        let shown = transcript(&output, &root);
        assert!(output.status.success(), "{shown}");
        assert!(
            read_tree(&root) == before,
            "{args} --force changed files: {shown}"
        );
    }
}

#[test]
fn a_name_in_use_or_missing_is_refused_naming_the_owner() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path(), "refusing-operator");
    let before = read_tree(&root);
    let captain =
        "create api --plugins rust --group crew --version v1 --kind Captain --resource=false";
    let cases = [
        (
            format!("{captain} --controller-name captain-backup"),
            "Captain (crew/v1) already has the controller captain-backup (src/controller/captain_backup.rs); pass --force",
        ),
        (
            format!("{captain} --controller"),
            "Captain (crew/v1) has named controllers (captain, captain-backup); pass --controller-name to add another",
        ),
        (
            format!("{captain} --controller-name pod-audit"),
            "--controller-name pod-audit is the controller of Pod (core/v1) already; choose another name",
        ),
        (
            format!("{captain} --controller-name Captain_Backup"),
            "invalid --controller-name \"Captain_Backup\": a DNS-1035 label",
        ),
        (
            format!("{captain} --controller=false --controller-name extra"),
            "--controller-name names the controller to scaffold, so --controller=false cannot go with it",
        ),
        (
            "create api --plugins rust --group crew --version v1 --kind Boat --image nginx:1 --controller-name boat-deployer".to_string(),
            "--controller-name cannot go with --image",
        ),
        // A kind of neither: named in Kubernetes' group first, then in the project's.
        (
            "create api --plugins rust --group core --version v1 --kind Pot --resource=false --controller-name pot-audit".to_string(),
            "the controller needs the type of Pot, which Kubernetes does not define (core/v1) and this project does not have (core.testproject.org/v1)",
        ),
    ];
    for (args, expected) in cases {
        let output = rusty(&root).args(args.split_whitespace()).output().unwrap();
        assert_refused(&output, &root, expected, &before);
    }
}
