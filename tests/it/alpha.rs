//! `alpha generate` and `alpha update` (issue 29) on projects made by this rusty-sdk:
//! `alpha generate` equals a fresh scaffold with the same commands, byte for byte, on the
//! end-to-end projects' command lists; bad input is one line and writes nothing. The
//! update from an older commit of this repository is in `alpha_update.rs`.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support::{assert_refused, read_tree, rusty, scaffold, transcript};

const TUTORIAL: &[&str] = &[
    "init --plugins=hybrid.helm --domain my.domain --repo=github.com/example/memcached-operator",
    "create api --plugins helm --group cache --version v1 --kind Memcached",
    "create api --group=cache --version v1 --kind MemcachedBackup --plugins=rust --resource --controller",
    "create webhook --group cache --version v1 --kind MemcachedBackup --defaulting --programmatic-validation",
    "generate rbac",
];

/// `rust_api.rs`'s three-API projects (namespaced, cluster-scoped, deploy-image with every
/// image flag, Widget in three versions that convert) with their webhooks added one flag
/// at a time as the e2e test adds them; `init` and the Helm and built-in APIs differ per
/// layout.
const THREE_APIS: &[&str] = &[
    "create api --plugins rust --group cache --version v1 --kind MemcachedBackup --resource --controller",
    "create api --plugins rust --group ops --version v1 --kind Proxy --namespaced=false --resource --controller",
    "create api --plugins rust --group cache --version v1alpha1 --kind Memcached --image memcached:1.4.36-alpine --image-container-command memcached,-m=64,-o,modern,-v --image-container-port 11211 --run-as-user 1001",
    "create api --plugins rust --group toys --version v1 --kind Widget --resource --controller",
    "create api --plugins rust --group toys --version v2 --kind Widget --resource --controller=false",
    "create api --plugins rust --group toys --version v1beta1 --kind Widget --resource --controller=false",
];

const THREE_APIS_WEBHOOKS: &[&str] = &[
    "create webhook --group cache --version v1alpha1 --kind Memcached --defaulting --programmatic-validation",
    "create webhook --group ops --version v1 --kind Proxy --programmatic-validation",
    "create webhook --group toys --version v1 --kind Widget --defaulting",
    "create webhook --group toys --version v1 --kind Widget --programmatic-validation",
    "create webhook --group toys --version v1 --kind Widget --conversion --spoke v2",
    "create webhook --group toys --version v1 --kind Widget --conversion --spoke v1beta1",
];

const HYBRID_EXTRA: &[&str] = &[
    "create api --plugins helm --group web --version v1 --kind Nginx",
    // rust_api.rs's APIs whose names clash with Rust's or with each other's.
    "create api --plugins rust --group fn --version v1 --kind Type --resource --controller",
    "create api --plugins rust --group cache --version v1 --kind Client --resource --controller",
    "create api --plugins rust --group cache --version v1 --kind Condition --resource --controller",
    "create api --plugins rust --group web --version v1 --kind MemcachedBackup --resource --controller",
    "create api --plugins rust --group apps --version v1 --kind Deployment --resource --controller --image memcached:1.6.26-alpine",
    "create api --plugins rust --group apps --version v1 --kind StatefulSet --resource=false --controller",
    "create api --plugins rust --group core --version v1 --kind Node --resource=false --controller",
    "create api --plugins rust --group core --version v1 --kind ConfigMap --resource=false --controller",
];

/// The command lists of the projects `alpha generate` is held to.
fn projects() -> Vec<(&'static str, Vec<&'static str>)> {
    let init = |layout| -> &'static str {
        match layout {
            "rust" => {
                "init --plugins rust --namespaced --repo github.com/example/memcached-operator"
            }
            _ => "init --plugins hybrid.helm --repo github.com/example/memcached-operator",
        }
    };
    let rust: Vec<&str> = [init("rust")]
        .iter()
        .chain(THREE_APIS)
        .chain(THREE_APIS_WEBHOOKS)
        .copied()
        .collect();
    let hybrid: Vec<&str> = [init("hybrid.helm")]
        .iter()
        .chain(THREE_APIS)
        .chain(HYBRID_EXTRA)
        .chain(THREE_APIS_WEBHOOKS)
        .copied()
        .collect();
    let helm = vec![
        "init --plugins helm --domain example.com --owner Someone --license none",
        "create api --plugins helm --group web --version v1 --kind Nginx",
        "create api --plugins helm --group cache --version v1 --kind Memcached",
        "generate rbac --namespace memcached-system",
        "edit --plugins=grafana/v1-alpha",
    ];
    // PROJECT does not record in which order `create webhook` ran: the replay follows its
    // order of resources, which puts Proxy's before Memcached's. The same project with
    // the webhooks created in that order is regenerated byte for byte.
    let mut in_project_order = rust.clone();
    let at = in_project_order
        .iter()
        .position(|c| c.starts_with("create webhook"))
        .unwrap();
    in_project_order.swap(at, at + 1);
    // controllers.rs's kubebuilder commands: named controllers, of an API and of a
    // built-in kind.
    let named =
        ["init --plugins rust --domain testproject.org --repo github.com/example/crew-operator"]
            .iter()
            .chain(&crate::controllers::COMMANDS)
            .copied()
            .collect();
    // webhook_kinds.rs's webhooks for built-in kinds, one with a controller and one
    // without, on custom paths too, and for an external kind (its CRD kept in the project).
    let crd = crate::external::crd_file();
    let external: &'static str = format!(
        "create api --plugins rust --external-api-crd {}",
        crd.display()
    )
    .leak();
    let core_hooks = vec![
        "init --plugins rust --repo github.com/example/hooks-operator",
        external,
        "create api --plugins rust --group core --version v1 --kind Pod --resource=false --controller",
        "create webhook --group externaldns --version v1alpha1 --kind DNSEndpoint --programmatic-validation --external-api-domain k8s.io",
        "create webhook --group core --version v1 --kind Pod --defaulting",
        "create webhook --group core --version v1 --kind Pod --programmatic-validation",
        "create webhook --group apps --version v1 --kind Deployment --defaulting --defaulting-path /mutate-deployments",
    ];
    // kubebuilder_replay.rs's `init --license-file`: a header of the user's own.
    let header = Path::new(env!("CARGO_TARGET_TMPDIR")).join("alpha-licence-header.txt");
    std::fs::write(
        &header,
        "// Copyright 2026 Example Corp.\n// SPDX-License-Identifier: MIT\n",
    )
    .unwrap();
    let licensed: &'static str = format!(
        "init --plugins rust --domain testproject.org --license-file {}",
        header.display()
    )
    .leak();
    vec![
        (
            "licensed-operator",
            vec![
                licensed,
                "create api --plugins rust --group cache --version v1 --kind Backup --resource --controller",
            ],
        ),
        // e2e.rs's projects of `init` alone.
        (
            "init-hybrid",
            vec!["init --plugins hybrid.helm --repo github.com/example/memcached-operator"],
        ),
        (
            "init-helm",
            vec!["init --plugins helm --repo github.com/example/memcached-operator"],
        ),
        (
            "init-rust",
            vec!["init --plugins rust --repo github.com/example/memcached-operator --namespaced"],
        ),
        ("tutorial-operator", TUTORIAL.to_vec()),
        ("hooks-operator", core_hooks),
        ("crew-operator", named),
        ("rust-three-apis", rust),
        ("rust-in-project-order", in_project_order),
        ("hybrid-three-apis", hybrid),
        ("helm-operator", helm),
    ]
}

/// The webhooks' registrations in src/webhook/mod.rs, in the order the command list
/// created them, which PROJECT does not record.
const WEBHOOK_ORDER: &str = "src/webhook/mod.rs";

/// The files whose lines follow the order in which `create webhook` ran among the other
/// commands, which PROJECT does not record: the webhooks' registrations, and where main.rs
/// adds them among the controllers.
const ORDERED_BY_COMMANDS: [&str; 2] = [WEBHOOK_ORDER, "src/main.rs"];

/// `a` and `b` hold the same lines, in any order.
fn same_lines(a: Option<&Vec<u8>>, b: Option<&Vec<u8>>) -> bool {
    let sorted = |bytes: Option<&Vec<u8>>| {
        let mut lines: Vec<String> = String::from_utf8_lossy(bytes.map_or(&[][..], Vec::as_slice))
            .lines()
            .map(str::to_string)
            .collect();
        lines.sort();
        lines
    };
    a.is_some() && sorted(a) == sorted(b)
}

fn this_binary() -> PathBuf {
    assert_cmd::cargo::cargo_bin("rusty-sdk")
}

fn alpha(root: &Path, args: &[&str]) -> std::process::Output {
    rusty(root).arg("alpha").args(args).output().unwrap()
}

/// A scaffolded project `name` in a fresh temp directory.
fn scaffolded(name: &str, commands: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join(name);
    scaffold(dir.path(), &root, commands);
    (dir, root)
}

/// What `alpha generate --output-dir` writes for the project in `root` into a folder of
/// `dir` named as the project.
fn generated_into(dir: &Path, root: &Path) -> BTreeMap<String, Vec<u8>> {
    let name = root.file_name().unwrap();
    let out = dir.join("regenerated").join(name);
    let output = alpha(root, &["generate", "--output-dir", out.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}: {}",
        name.display(),
        transcript(&output, root)
    );
    read_tree(&out)
}

#[test]
fn alpha_generate_equals_a_fresh_scaffold_of_the_same_commands() {
    for (name, commands) in projects() {
        let (dir, root) = scaffolded(name, &commands);
        let fresh = read_tree(&root);
        let regenerated = generated_into(dir.path(), &root);
        let differ: BTreeSet<&String> = fresh
            .keys()
            .chain(regenerated.keys())
            .filter(|path| fresh.get(*path) != regenerated.get(*path))
            .collect();
        if name == "rust-three-apis" || name == "hybrid-three-apis" {
            let path = WEBHOOK_ORDER.to_string();
            assert!(
                differ.contains(&path),
                "{name}: the webhooks' order changed nothing"
            );
            assert!(
                same_lines(fresh.get(&path), regenerated.get(&path)),
                "{name}: {WEBHOOK_ORDER} differs in more than the order of its lines"
            );
            assert_eq!(
                differ.len(),
                1,
                "{name}: alpha generate differs in {differ:?}"
            );
        } else {
            assert!(
                differ.is_empty(),
                "{name}: alpha generate differs in {differ:?}"
            );
        }

        // In place, on an untouched project: nothing to change (or the one file in
        // another order, which is not overwritten without --force).
        let output = alpha(&root, &["generate"]);
        let text = transcript(&output, &root);
        assert_eq!(output.status.success(), differ.is_empty(), "{name}: {text}");
        assert!(
            !text.contains(" create ") && !text.contains(" update "),
            "{text}"
        );
        assert!(
            read_tree(&root) == fresh,
            "{name}: alpha generate in place changed files"
        );
    }
}

/// kubebuilder's scripts' and book's projects as `kubebuilder_replay.rs` makes them (their
/// `create webhook` interleaved with `create api`, external kinds, webhooks of built-in
/// kinds only, deploy-image, Grafana, the operator's chart): `alpha generate` equals them
/// but for the order of lines PROJECT cannot tell, where the webhooks were registered.
#[rusty_sdk_test_tools::needs(kubectl)]
#[test]
fn alpha_generate_equals_kubebuilders_replayed_projects() {
    for (dir, root) in crate::kubebuilder_replay::replayed_projects() {
        let name = root.file_name().unwrap().to_string_lossy().into_owned();
        let mut fresh = read_tree(&root);
        // `make build-installer`'s output, which no rusty-sdk command writes.
        fresh.remove("dist/install.yaml");
        let regenerated = generated_into(dir.path(), &root);
        for path in fresh.keys().chain(regenerated.keys()) {
            let (a, b) = (fresh.get(path), regenerated.get(path));
            if a == b {
                continue;
            }
            assert!(
                ORDERED_BY_COMMANDS.contains(&path.as_str()) && same_lines(a, b),
                "{name}: alpha generate differs in {path}:\n{}\n---\n{}",
                String::from_utf8_lossy(a.map_or(&[][..], Vec::as_slice)),
                String::from_utf8_lossy(b.map_or(&[][..], Vec::as_slice)),
            );
        }
    }
}

#[test]
fn alpha_generate_in_place_does_not_overwrite_user_edits_without_force() {
    let (_dir, root) = scaffolded("tutorial-operator", TUTORIAL);
    let main = root.join("src/main.rs");
    let scaffolded = std::fs::read_to_string(&main).unwrap();
    std::fs::write(&main, format!("{scaffolded}// mine\n")).unwrap();
    let before = read_tree(&root);
    let output = alpha(&root, &["generate"]);
    let text = transcript(&output, &root);
    assert!(!output.status.success(), "{text}");
    assert!(text.contains("src/main.rs"), "{text}");
    assert!(
        read_tree(&root) == before,
        "a refused alpha generate wrote files: {text}"
    );

    let output = alpha(&root, &["generate", "--force"]);
    assert!(output.status.success(), "{}", transcript(&output, &root));
    assert_eq!(std::fs::read_to_string(&main).unwrap(), scaffolded);
}

/// An update whose older rusty-sdk is this one finds nothing to change.
#[test]
fn alpha_update_from_this_rusty_sdk_changes_nothing() {
    let (_dir, root) = scaffolded("tutorial-operator", TUTORIAL);
    let main = root.join("src/main.rs");
    let edited = std::fs::read_to_string(&main).unwrap() + "// mine\n";
    std::fs::write(&main, &edited).unwrap();
    let before = read_tree(&root);
    let binary = this_binary();
    let binary = binary.to_str().unwrap();
    for to in [&[][..], &["--to-binary", binary]] {
        let output = alpha(
            &root,
            &[&["update", "--from-binary", binary][..], to].concat(),
        );
        let text = transcript(&output, &root);
        assert!(output.status.success(), "{text}");
        assert!(read_tree(&root) == before, "{text}");
    }
}

/// Every command that writes a project records this rusty-sdk as `cliVersion`, over the
/// version an older one recorded: `init`, `create api` (Helm and Rust), `create webhook`,
/// `generate rbac`, `generate bundle`, `edit` (its flags and each plugin), and the two
/// `alpha` commands.
#[rusty_sdk_test_tools::needs(kubectl)]
#[test]
fn every_command_records_this_rusty_sdks_cli_version() {
    let (_dir, root) = scaffolded("versioned-operator", &TUTORIAL[..1]);
    let this = cli_version(&root);
    let binary = this_binary();
    let update = format!("alpha update --from-binary {}", binary.display());
    let commands = [
        "create api --plugins helm --group cache --version v1 --kind Memcached",
        "create api --plugins rust --group cache --version v1 --kind Backup --resource --controller",
        "create webhook --group cache --version v1 --kind Backup --defaulting",
        "generate rbac",
        "generate bundle --version 0.1.0",
        "edit --plugins=grafana/v1-alpha",
        "edit --namespaced",
        "alpha generate --force",
        &update,
    ];
    for args in commands {
        edit_project(
            &root,
            &format!("cliVersion: {}\n", cli_version(&root)),
            "cliVersion: 0.0.1\n",
        );
        let mut command = rusty(&root);
        command.args(args.split_whitespace());
        if args.starts_with("generate bundle") {
            command.write_stdin(crate::e2e::kustomize(&root, "config/manifests"));
        }
        let output = command.output().unwrap();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            transcript(&output, &root)
        );
        assert_eq!(
            cli_version(&root),
            this,
            "{args:?} left an older cliVersion"
        );
    }
}

/// The `cliVersion` the project's PROJECT records.
fn cli_version(root: &Path) -> String {
    let text = std::fs::read_to_string(root.join("PROJECT")).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("cliVersion: "))
        .unwrap_or_else(|| panic!("PROJECT records no cliVersion:\n{text}"))
        .to_string()
}

/// Replace `from` with `to` in the project's PROJECT file.
fn edit_project(root: &Path, from: &str, to: &str) {
    let path = root.join("PROJECT");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{text}");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn bad_input_is_one_line_and_writes_nothing() {
    let binary = this_binary();
    let binary = binary.to_str().unwrap();

    // A PROJECT from a newer rusty-sdk, for every command.
    let (_dir, root) = scaffolded("newer-operator", &TUTORIAL[..1]);
    let recorded = cli_version(&root);
    assert!(
        recorded.starts_with(env!("CARGO_PKG_VERSION")),
        "{recorded}"
    );
    edit_project(&root, &recorded, "99.0.0");
    let before = read_tree(&root);
    for args in [
        &["alpha", "generate"][..],
        &["alpha", "update", "--from-binary", binary],
        &["generate", "rbac"],
    ] {
        let output = rusty(&root).args(args).output().unwrap();
        assert_refused(&output, &root, "newer than this rusty-sdk", &before);
    }

    // A plugin no command of this rusty-sdk records.
    let (_dir, root) = scaffolded("plugin-operator", &TUTORIAL[..2]);
    edit_project(
        &root,
        "plugins:\n",
        "plugins:\n  grafana.example.com/v9:\n    x: 1\n",
    );
    let before = read_tree(&root);
    for args in [&["generate"][..], &["update", "--from-binary", binary]] {
        let output = alpha(&root, args);
        assert_refused(&output, &root, "\"grafana.example.com/v9\"", &before);
    }

    // No older binary there, none recorded, or a development build's.
    let (_dir, root) = scaffolded("old-operator", &TUTORIAL[..2]);
    let before = read_tree(&root);
    let output = alpha(
        &root,
        &["update", "--from-binary", "/nonexistent/rusty-sdk"],
    );
    assert_refused(&output, &root, "--from-binary", &before);
    let output = alpha(&root, &["update", "--from-version", "0.x"]);
    assert_refused(&output, &root, "not a version", &before);
    let output = alpha(
        &root,
        &[
            "update",
            "--from-binary",
            binary,
            "--to-binary",
            "/nonexistent/rusty-sdk",
        ],
    );
    assert_refused(&output, &root, "--to-binary", &before);
    let output = alpha(&root, &["update"]);
    let expected = if env!("CARGO_PKG_VERSION") == recorded {
        "cannot install rusty-sdk"
    } else {
        "development build"
    };
    assert_refused(&output, &root, expected, &before);
    // A release cargo cannot install (offline, or no such version): a cargo of the test's
    // own that fails as cargo does, so that no test reaches crates.io.
    let fake = tempfile::tempdir().unwrap();
    let cargo = fake.path().join("cargo");
    std::fs::write(
        &cargo,
        "#!/bin/sh\necho 'error: could not find `rusty-sdk` in registry `crates-io` with version `=0.0.9`' >&2\nexit 101\n",
    )
    .unwrap();
    std::fs::set_permissions(&cargo, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let output = rusty(&root)
        .args(["alpha", "update", "--from-version", "0.0.9"])
        .env("PATH", fake.path())
        .env("RUSTY_SDK_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    assert_refused(
        &output,
        &root,
        "cannot install rusty-sdk 0.0.9 with cargo install (could not find `rusty-sdk` in registry `crates-io` with version `=0.0.9`); pass --from-binary",
        &before,
    );
    assert!(
        !cache.path().join("releases/0.0.9/bin/rusty-sdk").exists(),
        "a failed install left a binary in the cache"
    );
    let without = recorded.clone() + "\n";
    edit_project(&root, &format!("cliVersion: {without}"), "");
    let before = read_tree(&root);
    let output = alpha(&root, &["update"]);
    assert_refused(&output, &root, "no cliVersion", &before);

    // A dirty git tree.
    let (_dir, root) = scaffolded("git-operator", &TUTORIAL[..2]);
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .current_dir(&root)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "scaffold"]);
    std::fs::write(root.join("README.md"), "mine\n").unwrap();
    let before = read_tree(&root);
    let output = alpha(&root, &["update", "--from-binary", binary]);
    assert_refused(&output, &root, "uncommitted changes", &before);

    // An external API of a project that does not keep its CRD (an older rusty-sdk's):
    // generate cannot make it again.
    let (_dir, root) = scaffolded("ext-operator", &["init --plugins rust"]);
    crate::external::add_external_controller(&root);
    std::fs::remove_dir_all(root.join("config/crd/external")).unwrap();
    let before = read_tree(&root);
    let output = alpha(&root, &["generate"]);
    assert_refused(&output, &root, "external API", &before);
}
