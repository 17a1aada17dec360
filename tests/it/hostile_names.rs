//! Names that are each valid but would give two APIs the same file or module, or a
//! module rustc and clippy warn about. Each is either its own API, beside the others, or
//! refused in one line naming the API in the way, with nothing written.
use std::collections::BTreeMap;

use crate::hostile::init;
use crate::support::{assert_refused, read_tree, rust_api_args, rusty, transcript};

fn ok(root: &std::path::Path, args: &[String]) {
    let output = rusty(root).args(args).output().unwrap();
    assert!(output.status.success(), "{}", transcript(&output, root));
}

fn refused(root: &std::path::Path, args: &[String], want: &str) {
    let before = read_tree(root);
    let output = rusty(root).args(args).output().unwrap();
    assert_refused(&output, root, want, &before);
    assert!(output.stdout.is_empty(), "{}", transcript(&output, root));
}

#[test]
fn apis_whose_names_differ_only_in_case_or_dashes_never_share_files() {
    let (_dir, root) = init("rust");
    ok(&root, &rust_api_args("cache", "v1", "HTTPProxy"));
    let mut same_lower = rust_api_args("cache", "v1", "HttpProxy");
    same_lower.extend(["--plural".into(), "proxies".into()]);
    refused(
        &root,
        &same_lower,
        "kind HttpProxy and cache.my.domain/v1, Kind=HTTPProxy in PROJECT have the same lower-case name \"httpproxy\"",
    );
    // In another group it is its own API, like the same kind would be.
    let before = read_tree(&root);
    ok(&root, &rust_api_args("web", "v1", "HttpProxy"));
    let after = read_tree(&root);
    for path in [
        "src/controller/http_proxy.rs",
        "config/rbac/httpproxy_admin_role.yaml",
    ] {
        assert_eq!(after[path], before[path], "{path} was rewritten");
    }
    assert!(after.contains_key("src/controller/web_http_proxy.rs"));
    assert!(after.contains_key("config/rbac/web_httpproxy_admin_role.yaml"));

    ok(&root, &rust_api_args("a-b", "v1", "Memcached"));
    refused(
        &root,
        &rust_api_args("a--b", "v1", "Memcached"),
        "group a--b would share the Rust module a_b with group a-b",
    );
    // `<Kind>Conversion` is where the conversions of `<Kind>` go.
    refused(
        &root,
        &rust_api_args("a-b", "v1", "MemcachedConversion"),
        "would share a Rust module",
    );
}

#[test]
fn modules_named_like_their_parent_or_a_special_file_get_a_trailing_underscore() {
    let (_dir, root) = init("rust");
    for (group, version, kind) in [
        ("main", "v1", "Memcached"),
        ("v1", "v1", "Backup"),
        ("cache", "v1", "Controller"),
        ("cache", "v1", "V1"),
    ] {
        ok(&root, &rust_api_args(group, version, kind));
    }
    let tree = read_tree(&root);
    for path in [
        "api/src/main_/v1/memcached.rs",
        "api/src/v1_/v1/backup.rs",
        "api/src/cache/v1/v1_.rs",
        "src/controller/controller_.rs",
    ] {
        assert!(tree.contains_key(path), "no {path}");
    }
    let lib = String::from_utf8_lossy(&tree["api/src/lib.rs"]).into_owned();
    assert!(
        lib.contains("pub mod main_;") && !lib.contains("pub mod main;"),
        "{lib}"
    );
}

#[test]
fn project_names_that_clash_with_a_binary_or_dependency_are_refused() {
    for (name, want) in [
        ("crdgen", "already has a binary crdgen"),
        ("json-patch", "depends on a crate of that name"),
    ] {
        let (_dir, root) = crate::e2e::project_dir("named");
        let output = rusty(&root)
            .args(["init", "--plugins", "rust", "--project-name", name])
            .output()
            .unwrap();
        assert_refused(&output, &root, want, &BTreeMap::default());
    }
}

#[test]
fn kinds_named_like_what_a_spoke_conversion_imports_get_their_own_names() {
    let (_dir, root) = init("rust");
    for kind in ["Hub", "DeserializeOwned", "ResourceExt"] {
        ok(&root, &rust_api_args("cache", "v1", kind));
        let mut spoke = rust_api_args("cache", "v2", kind);
        spoke.retain(|arg| arg != "--controller");
        spoke.push("--controller=false".into());
        ok(&root, &spoke);
        let webhook = ["create", "webhook", "--group", "cache", "--version", "v1"]
            .into_iter()
            .chain(["--kind", kind, "--conversion", "--spoke", "v2"])
            .map(String::from)
            .collect::<Vec<_>>();
        ok(&root, &webhook);
    }
    let tree = read_tree(&root);
    let text = |path: &str| String::from_utf8_lossy(&tree[path]).into_owned();
    // Two names `Hub` in one file do not build: the hub of kind Hub is V1Hub.
    let hub = text("api/src/cache/v2/hub_conversion.rs");
    assert!(hub.contains("use crate::cache::v1::Hub as V1Hub;"), "{hub}");
    assert!(hub.contains("impl TryFrom<Hub> for V1Hub {"), "{hub}");
    // Nothing the file imports by name can be a kind: serde's traits go by path, and
    // kube's ResourceExt is imported for its methods only.
    let owned = text("api/src/cache/v2/deserialize_owned_conversion.rs");
    assert!(
        !owned.contains("use serde::de::DeserializeOwned;"),
        "{owned}"
    );
    let ext = text("api/src/cache/v2/resource_ext_conversion.rs");
    assert!(ext.contains("use kube::ResourceExt as _;"), "{ext}");
}

#[test]
fn chart_names_that_would_change_watches_yaml_are_refused_naming_chart_yaml() {
    let (dir, root) = init("helm");
    let chart = dir.path().join("chart");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(chart.join("values.yaml"), "replicas: 1\n").unwrap();
    let args = |kind: &str| -> Vec<String> {
        let chart = chart.display().to_string();
        ["create", "api", "--kind", kind, "--helm-chart", &chart]
            .map(String::from)
            .to_vec()
    };
    for name in ["'a #b'", "'a: b'", "'trail '", "\"a\\nb\"", "'*x'"] {
        let yaml = format!("apiVersion: v2\nname: {name}\nversion: 0.1.0\n");
        std::fs::write(chart.join("Chart.yaml"), yaml).unwrap();
        refused(
            &root,
            &args("Web"),
            "cannot be a folder name under helm-charts/ and a path in watches.yaml",
        );
    }
    let yaml = "apiVersion: v2\nname: my-chart_1.2\nversion: 0.1.0\n";
    std::fs::write(chart.join("Chart.yaml"), yaml).unwrap();
    ok(&root, &args("Web"));
    let watches = std::fs::read_to_string(root.join("watches.yaml")).unwrap();
    assert!(
        watches.contains("  chart: helm-charts/my-chart_1.2\n"),
        "{watches}"
    );
}

#[test]
fn flag_values_the_cluster_or_a_comment_line_would_not_take_are_refused() {
    let (_dir, root) = init("rust");
    let image = |extra: &[&str]| {
        let mut args = rust_api_args("cache", "v1", "Memcached");
        args.extend(extra.iter().map(std::string::ToString::to_string));
        args
    };
    for (extra, want) in [
        (
            &["--image", "team/Memcached:1.6"][..],
            "the repository path",
        ),
        (&["--image", "memcached:-x"], "a tag has at most 128"),
        (
            &["--image", "m", "--run-as-user", "99999999999"],
            "from 0 to 2147483647",
        ),
    ] {
        refused(&root, &image(extra), want);
    }
    // An image YAML would read as a number is quoted in manager.yaml.
    ok(&root, &image(&["--image", "1234"]));
    let manager = std::fs::read_to_string(root.join("config/manager/manager.yaml")).unwrap();
    assert!(manager.contains("value: \"1234\"\n"), "{manager}");

    // A domain of 245 characters is a valid subdomain, but not with the Lease's prefix.
    let label = "a".repeat(60);
    for (domain, accepted) in [
        (format!("{label}.{label}.{label}.{}", "b".repeat(62)), false),
        (format!("{label}.{label}.{label}.{}", "b".repeat(61)), true),
    ] {
        let (_dir, fresh) = crate::e2e::project_dir("long-domain");
        let output = rusty(&fresh)
            .args(["init", "--plugins", "rust", "--domain", &domain])
            .output()
            .unwrap();
        if accepted {
            assert!(output.status.success(), "{}", transcript(&output, &fresh));
            let manager =
                std::fs::read_to_string(fresh.join("config/manager/manager.yaml")).unwrap();
            let id = manager
                .lines()
                .find_map(|l| l.trim().strip_prefix("- --leader-election-id="))
                .unwrap();
            assert_eq!(id.len(), 253, "{id}");
        } else {
            assert_refused(
                &output,
                &fresh,
                "which allows at most 244",
                &BTreeMap::default(),
            );
        }
    }

    let (_dir, other) = crate::e2e::project_dir("owned");
    let output = rusty(&other)
        .args(["init", "--plugins", "rust", "--owner", "Line\nBreak"])
        .output()
        .unwrap();
    assert_refused(
        &output,
        &other,
        "goes on one comment line",
        &BTreeMap::default(),
    );
}

#[test]
fn a_spoke_that_is_not_a_version_is_refused_as_such_not_suggested_to_create() {
    let (_dir, root) = init("rust");
    ok(&root, &rust_api_args("cache", "v1", "Memcached"));
    // `v2,V3` is kubebuilder's list of two spokes, the second no version.
    for spoke in ["V2", "v2,V3"] {
        let args = ["create", "webhook", "--group", "cache", "--version", "v1"]
            .into_iter()
            .chain(["--kind", "Memcached", "--conversion", "--spoke", spoke])
            .map(String::from)
            .collect::<Vec<_>>();
        let before = read_tree(&root);
        let output = rusty(&root).args(&args).output().unwrap();
        assert_refused(&output, &root, "invalid --spoke", &before);
        let text = String::from_utf8_lossy(&output.stderr);
        assert!(!text.contains("create it first"), "{text}");
    }
}

#[test]
fn a_huge_value_in_any_flag_gives_a_short_message() {
    let (_dir, root) = init("hybrid.helm");
    let huge = "a".repeat(100_000);
    for args in [
        vec!["init", "--plugins", "rust", "--license", &huge],
        vec!["completion", &huge],
        vec!["init", "--plugins", &huge],
        vec!["create", "api", "--plugins", "rust", "--group", &huge],
        vec!["generate", "rbac", "--namespace", &huge],
        vec!["generate", "bundle", "--version", &huge],
    ] {
        let output = rusty(&root).args(&args).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{:?}", &args[..2]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.len() < 1200,
            "{:?}: {} bytes",
            &args[..2],
            stderr.len()
        );
        assert!(stderr.contains("characters"), "{stderr}");
    }
}

#[test]
fn a_project_name_taken_from_the_folder_says_why_it_does_not_fit() {
    let (_dir, parent) = crate::e2e::project_dir("holder");
    let root = parent.join("1st-operator");
    let output = rusty(&parent)
        .args(["-C", "1st-operator", "init", "--plugins", "rust"])
        .output()
        .unwrap();
    assert_refused(
        &output,
        &parent,
        "cannot start with a digit",
        &BTreeMap::default(),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("from the directory name \"1st-operator\""),
        "{stderr}"
    );
    assert!(!root.exists());
}
