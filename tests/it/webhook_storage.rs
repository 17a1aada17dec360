//! The `+rusty:storageversion` marker (issue 13): `create webhook --conversion` puts it on
//! the hub's type, the version stored, and refuses a hub when the marker is on another
//! version of the kind. crdgen's own tests, run in the e2e projects, check that it stores
//! the marked version.
use crate::support::{assert_refused, read_tree, rusty};
use crate::webhook::{create_webhook, project, text};

const MARKER: &str = "// +rusty:storageversion\n";
const V1_TYPE: &str = "api/src/cache/v1/memcached.rs";
const V2_TYPE: &str = "api/src/cache/v2/memcached.rs";

/// `create webhook --conversion` with v1 the hub and v2 a spoke, whatever its outcome.
fn convert_v1_and_v2(root: &std::path::Path) -> std::process::Output {
    rusty(root)
        .args(["create", "webhook", "--group", "cache", "--version", "v1"])
        .args(["--kind", "Memcached", "--conversion", "--spoke", "v2"])
        .output()
        .unwrap()
}

#[test]
fn conversion_marks_the_hub_as_the_storage_version() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path(), "rust");
    let before = text(&root, V1_TYPE);
    let args = "--group cache --version v1 --kind Memcached --conversion --spoke v2";
    create_webhook(&root, args);
    let hub = text(&root, V1_TYPE);
    // One line more, above the docs of the custom resource's spec.
    assert_eq!(
        hub.replacen(MARKER, "", 1),
        before,
        "the marker is the only change"
    );
    assert!(
        hub.contains("\n// +rusty:storageversion\n/// What the resource asks for"),
        "{hub}"
    );
    assert!(!text(&root, V2_TYPE).contains(MARKER));
    let after = read_tree(&root);
    create_webhook(&root, args);
    assert!(read_tree(&root) == after, "a second run changed files");
}

#[test]
fn a_hub_that_is_not_the_marked_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path(), "rust");
    // The user stores v2.
    let v2 = text(&root, V2_TYPE).replacen(
        "/// What the resource asks for",
        "// +rusty:storageversion\n/// What the resource asks for",
        1,
    );
    std::fs::write(root.join(V2_TYPE), &v2).unwrap();
    let before = read_tree(&root);
    let output = convert_v1_and_v2(&root);
    assert_refused(
        &output,
        &root,
        "--version v1 would be the hub, the version stored, but api/src/cache/v2/memcached.rs marks v2 of Memcached `// +rusty:storageversion`; pass --version v2",
        &before,
    );
    // The marked version as the hub: its marker stays as it is, v1 gets none.
    create_webhook(
        &root,
        "--group cache --version v2 --kind Memcached --conversion --spoke v1",
    );
    assert_eq!(text(&root, V2_TYPE), v2);
    assert!(!text(&root, V1_TYPE).contains(MARKER));
}

/// crdgen from before conversion webhooks (no `CONVERSIONS` table and marker) cannot take a
/// converting kind: one line says why and what to do, and nothing is written.
#[test]
fn a_crdgen_older_than_conversion_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path(), "rust");
    let crdgen =
        text(&root, "src/bin/crdgen.rs").replace("    // +rusty:scaffold:conversions\n", "");
    std::fs::write(root.join("src/bin/crdgen.rs"), crdgen).unwrap();
    let before = read_tree(&root);
    let output = convert_v1_and_v2(&root);
    assert_refused(
        &output,
        &root,
        "src/bin/crdgen.rs predates conversion webhooks: it has no `CONVERSIONS` table",
        &before,
    );
}
