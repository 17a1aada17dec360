//! `alpha update` from an older commit of this repository (issue 29): the tutorial project
//! scaffolded by a rusty-sdk from before the runtime took over the controllers' plumbing,
//! with the user's code where the tutorial says, updated by this rusty-sdk; and a conflict
//! forced on a line both sides changed.
//!
//! The older rusty-sdk is built once from the repository's history (`git archive` of
//! [`OLD_COMMIT`]) and its binary kept in `${XDG_CACHE_HOME:-~/.cache}/rusty-sdk/old-rusty-sdk/
//! <commit>/`, beside the control plane's cache, where a fresh clone's test run finds it: a
//! commit's build never changes. About 6 minutes on 2 cores the first time, nothing after;
//! its build folder (about 1 GB) is removed once the binary is kept.
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Instant;

use rusty_sdk_test_tools::needs;

use crate::support::{read_tree, rusty, transcript};

/// 2026-11-25, "Nothing is written outside the project": its controllers build their own
/// kube-runtime Controller with `ReconcileMetrics::instrument`, before `controller::Runner`.
const OLD_COMMIT: &str = "5055528b0122b7a5d6d285339ac255a00436b878";

/// The tutorial's commands (docs/tutorial.md), with its optional webhook step.
const TUTORIAL: &[&str] = &[
    "init --plugins=hybrid.helm --domain my.domain --repo=github.com/example/memcached-operator",
    "create api --plugins helm --group cache --version v1 --kind Memcached",
    "create api --group=cache --version v1 --kind MemcachedBackup --plugins=rust --resource --controller",
    "create webhook --group cache --version v1 --kind MemcachedBackup --defaulting --programmatic-validation",
];

static BUILD: Mutex<()> = Mutex::new(());

/// The rusty-sdk of [`OLD_COMMIT`], built on first use.
fn old_binary() -> PathBuf {
    let _guard = BUILD
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache")))
        .expect("neither XDG_CACHE_HOME nor HOME is set: the old rusty-sdk has nowhere to be kept")
        .join("rusty-sdk/old-rusty-sdk")
        .join(&OLD_COMMIT[..7]);
    let binary = cache.join("rusty-sdk");
    if binary.is_file() {
        return binary;
    }
    let build = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("old-rusty-sdk")
        .join(&OLD_COMMIT[..7]);
    let source = build.join("src");
    let _ = std::fs::remove_dir_all(&source);
    std::fs::create_dir_all(&source).unwrap();
    let archive = build.join("source.tar");
    let mut git = Command::new("git");
    git.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["archive", "--format=tar", "-o"])
        .arg(&archive)
        .arg(OLD_COMMIT);
    // A shallow clone lacks the commit: `git fetch --unshallow`.
    succeed(
        &mut git,
        "git archive (in a shallow clone: git fetch --unshallow)",
    );
    succeed(
        Command::new("tar")
            .arg("-xf")
            .arg(&archive)
            .arg("-C")
            .arg(&source),
        "tar",
    );
    let started = Instant::now();
    succeed(
        Command::new("cargo")
            .current_dir(&source)
            .args(["build", "--locked", "--quiet", "--bin", "rusty-sdk"])
            .env("CARGO_TARGET_DIR", build.join("target"))
            // No debug info: a quicker link and a smaller build folder.
            .env("CARGO_PROFILE_DEV_DEBUG", "0")
            .env("CARGO_INCREMENTAL", "0")
            // Its build script asks git for the commit: an archive has none (`unknown`).
            .env("GIT_DIR", build.join("no-git"))
            .env_remove("RUSTFLAGS")
            .env_remove("RUSTUP_TOOLCHAIN"),
        "cargo build",
    );
    eprintln!(
        "built the rusty-sdk of {} in {:.0} s",
        &OLD_COMMIT[..7],
        started.elapsed().as_secs_f64()
    );
    // Kept under a temporary name first, so a run interrupted here leaves no half binary.
    std::fs::create_dir_all(&cache).unwrap();
    let partial = cache.join("rusty-sdk.partial");
    std::fs::copy(build.join("target/debug/rusty-sdk"), &partial).unwrap();
    std::fs::rename(&partial, &binary).unwrap();
    let _ = std::fs::remove_dir_all(&build);
    binary
}

/// Run `command`, which must succeed.
fn succeed(command: &mut Command, what: &str) {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{what} for {OLD_COMMIT}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The tutorial project scaffolded in `root` by `binary`.
fn scaffold_with(binary: &Path, root: &Path) {
    for args in TUTORIAL {
        let out = Command::new(binary)
            .args(["--no-interactive", "-C"])
            .arg(root)
            .args(args.split_whitespace())
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "{args}: {}", transcript(&out, root));
    }
}

/// Replace the first `old` in the project's file at `path` with `new`.
fn edit(root: &Path, path: &str, old: &str, new: &str) {
    let full = root.join(path);
    let text = std::fs::read_to_string(&full).unwrap();
    assert!(text.contains(old), "{path} has no {old:?}:\n{text}");
    std::fs::write(&full, text.replacen(old, new, 1)).unwrap();
}

/// The user's code, where the tutorial says it goes: a spec field, a line of reconcile
/// logic and a validation rule, and a note of the user's among the lines `create api` and
/// `create webhook` inserted at main.rs's marker; each as (file, the scaffold's line it goes
/// after, the user's lines).
const USER_CODE: [(&str, &str, &str); 4] = [
    (
        "api/src/cache/v1/memcached_backup.rs",
        "    pub foo: Option<String>,\n",
        "    /// How often to back up, as a cron schedule.\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub schedule: Option<String>,\n",
    ),
    (
        "src/controller/memcached_backup.rs",
        "    // differs, so a new spec (or new code) rolls out. Return an error to retry with backoff.\n",
        "    // Backups run on the spec's schedule, daily without one.\n    let _schedule = obj.spec.schedule.as_deref().unwrap_or(\"@daily\");\n",
    ),
    (
        "src/webhook/memcached_backup.rs",
        "fn validate_create(object: &MemcachedBackup) -> Verdict {\n",
        "    if object.spec.schedule.as_deref() == Some(\"\") {\n        return Err(Denial::new(\n            \"spec.schedule\",\n            \"must not be empty\".to_string(),\n        ));\n    }\n",
    ),
    (
        "src/main.rs",
        "    manager.add_webhooks(webhook::all());\n",
        "    // The backup scheduler of ours runs as one more controller, added below.\n",
    ),
];

/// Lines `create api` and `create webhook` inserted at the older scaffold's markers, which
/// the update keeps: (file, line).
const MARKER_CODE: [(&str, &str); 5] = [
    (
        "src/main.rs",
        "    manager.add_controller(\"memcachedbackup\", controller::memcached_backup::run);\n",
    ),
    ("src/main.rs", "    manager.add_webhooks(webhook::all());\n"),
    ("src/controller/mod.rs", "pub mod memcached_backup;\n"),
    ("src/webhook/mod.rs", "pub mod memcached_backup;\n"),
    (
        "src/webhook/mod.rs",
        "    webhooks = memcached_backup::register(webhooks);\n",
    ),
];

fn add_user_code(root: &Path) {
    for (path, after, lines) in USER_CODE {
        edit(root, path, after, &format!("{after}{lines}"));
    }
}

/// `alpha update --from-binary old` with `flags` in `root`: its output and transcript.
fn update(root: &Path, old: &Path, flags: &[&str]) -> (std::process::Output, String) {
    let output = rusty(root)
        .args(["alpha", "update"])
        .args(flags)
        .arg("--from-binary")
        .arg(old)
        .output()
        .unwrap();
    let text = transcript(&output, root);
    (output, text)
}

fn git(root: &Path, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(root)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

#[needs(e2e, kubectl)]
#[test]
fn alpha_update_from_an_older_commit_keeps_user_code_builds_and_tests() {
    let old = old_binary();
    let (_dir, root) = crate::e2e::project_dir("e2e-alpha-update");
    scaffold_with(&old, &root);
    for (path, line) in MARKER_CODE {
        let text = std::fs::read_to_string(root.join(path)).unwrap();
        assert!(
            text.contains(line),
            "the older {path} has no {line:?}:\n{text}"
        );
    }
    add_user_code(&root);
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(
        &root,
        &[
            "commit",
            "-qm",
            "scaffolded by an older rusty-sdk, with user code",
        ],
    );

    let (output, text) = update(&root, &old, &[]);
    assert!(output.status.success(), "{text}");
    // The scaffold moved: the controller runs on the runtime's Runner now.
    let controller =
        std::fs::read_to_string(root.join("src/controller/memcached_backup.rs")).unwrap();
    assert!(controller.contains("Runner"), "{controller}");
    assert!(!controller.contains("metrics.instrument("), "{controller}");
    let project = std::fs::read_to_string(root.join("PROJECT")).unwrap();
    assert!(project.contains("\ncliVersion: "), "{project}");
    for (path, _, lines) in USER_CODE {
        let now = std::fs::read_to_string(root.join(path)).unwrap();
        assert!(
            now.contains(lines),
            "{path} lost the user's lines {lines:?}:\n{now}"
        );
    }
    for (path, line) in MARKER_CODE {
        let now = std::fs::read_to_string(root.join(path)).unwrap();
        assert!(now.contains(line), "{path} lost {line:?}:\n{now}");
    }
    for (path, bytes) in read_tree(&root) {
        assert!(
            !String::from_utf8_lossy(&bytes).contains("<<<<<<< ours"),
            "{path}: conflict markers in a clean update: {text}"
        );
    }
    crate::e2e::check_project(&root);
}

#[needs(e2e)]
#[test]
#[expect(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "cargo builds only `.rs` files"
)]
fn alpha_update_conflicts_are_marked_listed_and_exit_1() {
    let old = old_binary();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memcached-operator");
    scaffold_with(&old, &root);
    let ancestor = read_tree(&root);
    // What this rusty-sdk makes of the same PROJECT: a line it changed, the user changes too.
    let theirs_dir = dir.path().join("theirs");
    let output = rusty(&root)
        .args(["alpha", "generate", "--output-dir"])
        .arg(&theirs_dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let theirs = read_tree(&theirs_dir);
    let (path, line) = ancestor
        .iter()
        .filter(|(path, _)| path.ends_with(".rs"))
        .find_map(|(path, bytes)| {
            let new = String::from_utf8_lossy(theirs.get(path)?).into_owned();
            let old = String::from_utf8_lossy(bytes).into_owned();
            let gone = old
                .lines()
                .find(|l| l.trim().len() > 10 && !new.lines().any(|n| n == *l))?
                .to_string();
            Some((path.clone(), gone))
        })
        .expect("the older scaffold has a Rust line this one changed");
    let mine = "    // the user's own version of this line";
    edit(&root, &path, &format!("{line}\n"), &format!("{mine}\n"));
    // Two more files the new scaffold changes: one the user keeps in CRLF, one made
    // executable (a script of the project's, say).
    let mut changed = ancestor.iter().filter(|(other, bytes)| {
        *other != &path
            && other.as_str() != "PROJECT"
            && theirs.get(*other).is_some_and(|new| new != *bytes)
            && !bytes.contains(&b'\r')
    });
    let (crlf, _) = changed.next().expect("a second file the scaffold changed");
    let (exec, _) = changed.next().expect("a third file the scaffold changed");
    let crlf_text = String::from_utf8(ancestor[crlf].clone()).unwrap();
    std::fs::write(root.join(crlf), crlf_text.replace('\n', "\r\n")).unwrap();
    let executable = std::fs::Permissions::from_mode(0o755);
    std::fs::set_permissions(root.join(exec), executable).unwrap();
    // A controller of the user's own in the older style, which a migration note is about.
    let own = "src/controller/audit.rs";
    std::fs::write(
        root.join(own),
        "async fn run() {\n    metrics.instrument(CONTROLLER, work).await\n}\n",
    )
    .unwrap();
    let before = read_tree(&root);

    let (output, text) = update(&root, &old, &["--dry-run", "--diff"]);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains(&format!("conflict: {path}")), "{text}");
    assert!(
        text.contains("\n+<<<<<<< ours\n") && text.contains("\n+>>>>>>> theirs\n"),
        "--diff shows the markers it would write: {text}"
    );
    assert!(read_tree(&root) == before, "a dry run wrote files: {text}");

    let (output, text) = update(&root, &old, &[]);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!("warning: conflict: {path}\n")),
        "{text}"
    );
    assert!(
        text.contains("1 file(s) have conflict markers"),
        "one file in conflict, listed: {text}"
    );
    let merged = std::fs::read_to_string(root.join(&path)).unwrap();
    let ours = merged
        .split("<<<<<<< ours\n")
        .nth(1)
        .and_then(|rest| rest.split("=======\n").next())
        .unwrap_or_else(|| panic!("{path} has no conflict markers:\n{merged}"));
    assert!(ours.contains(mine), "{ours}");
    assert!(merged.contains(">>>>>>> theirs\n"), "{merged}");
    assert!(
        text.contains(&format!(
            "migration note: `ReconcileMetrics::instrument` is deprecated (rusty-sdk 0.1.0, since commit 1c2a167) ({own})"
        )),
        "the note about the user's controller: {text}"
    );
    assert!(
        !text.contains("Controllers' plumbing moved"),
        "a note for code the project no longer has: {text}"
    );
    // The CRLF file is the new scaffold's, in CRLF; the executable one is the new
    // scaffold's and still executable.
    let new_crlf = String::from_utf8(theirs[crlf].clone()).unwrap();
    assert_eq!(
        std::fs::read_to_string(root.join(crlf)).unwrap(),
        new_crlf.replace('\n', "\r\n"),
        "{crlf} is not the new scaffold in CRLF"
    );
    let mode = std::fs::metadata(root.join(exec))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755, "{exec} lost its mode");
    // Everything else merged cleanly: the files the user did not touch are the new ones.
    let after = read_tree(&root);
    for (other, bytes) in &theirs {
        if other != &path && ancestor.get(other) == before.get(other) {
            assert!(
                after.get(other) == Some(bytes),
                "{other} is not the new scaffold's"
            );
        }
    }
}

/// A licence header the user wrote over the older scaffold's (hack/boilerplate.txt by hand,
/// as an older rusty-sdk had no `init --license-file`): the update replays the older one
/// with the licence its Cargo.toml declares, merges cleanly and keeps the header.
#[needs(e2e)]
#[test]
fn alpha_update_keeps_a_licence_header_written_by_hand() {
    let old = old_binary();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memcached-operator");
    scaffold_with(&old, &root);
    let header = "// Copyright 2026 Example Corp.\n// SPDX-License-Identifier: MIT\n";
    std::fs::write(root.join("hack/boilerplate.txt"), header).unwrap();

    let (output, text) = update(&root, &old, &[]);
    assert!(output.status.success(), "{text}");
    assert_eq!(
        std::fs::read_to_string(root.join("hack/boilerplate.txt")).unwrap(),
        header
    );
    let cargo = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    assert!(cargo.contains("\nlicense = \"Apache-2.0\"\n"), "{cargo}");
}
