//! The commit against crashes, signals, I/O faults and a second command: the test hook
//! `RUSTY_SDK_FAULT=<what>:<n>` (debug builds) stops the commit at its n-th step.
use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

use crate::e2e;
use crate::support::{read_tree, rusty, transcript};

const API: &[&str] = &[
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
    "--resource",
    "--controller",
];

fn project() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, root) = e2e::project_dir("memcached-operator");
    let output = rusty(&root)
        .args(["init", "--plugins", "rust"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &root));
    (dir, root)
}

/// Files with their modes, and every directory.
fn state(root: &Path) -> BTreeMap<String, (u32, Vec<u8>)> {
    let mut out: BTreeMap<_, _> = read_tree(root)
        .into_iter()
        .map(|(p, bytes)| {
            let mode = std::fs::metadata(root.join(&p))
                .unwrap()
                .permissions()
                .mode();
            (p, (mode, bytes))
        })
        .collect();
    for e in walkdir::WalkDir::new(root).into_iter().map(Result::unwrap) {
        if e.file_type().is_dir() {
            let rel = e.path().strip_prefix(root).unwrap().display().to_string();
            out.insert(format!("{rel}/"), (0, Vec::new()));
        }
    }
    out
}

type State = BTreeMap<String, (u32, Vec<u8>)>;

/// The paths that differ between two states (compact, for assertion messages).
fn differences(a: &State, b: &State) -> Vec<String> {
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .cloned()
        .collect()
}

fn leftovers(root: &Path) -> Vec<String> {
    state(root)
        .into_keys()
        .filter(|p| p.contains(".rusty"))
        .collect()
}

/// Stop `create api` with `fault` at its first step, then its second, and so on until it
/// succeeds; after each, the next command must leave exactly the old tree or (stopped
/// after the commit point) exactly the new one. Returns how many of each.
fn stopped_at_every_step(fault: &str, prepare: impl Fn(&Path)) -> (usize, usize) {
    let fresh = || {
        let (dir, root) = project();
        std::fs::set_permissions(root.join("PROJECT"), std::fs::Permissions::from_mode(0o600))
            .unwrap();
        prepare(&root);
        (dir, root)
    };
    let (_done_dir, done) = fresh();
    assert!(rusty(&done).args(API).output().unwrap().status.success());
    let after = state(&done);
    let (mut _dir, mut root) = fresh();
    let before = state(&root);
    let (mut rolled_back, mut rolled_forward) = (0, 0);
    let mut n = 1;
    loop {
        let output = rusty(&root)
            .args(API)
            .env("RUSTY_SDK_FAULT", format!("{fault}:{n}"))
            .output()
            .unwrap();
        if output.status.success() {
            break;
        }
        assert_eq!(
            output.status.signal(),
            Some(9),
            "{fault} at step {n}: {}",
            transcript(&output, &root)
        );
        // The next command (a dry run, so it writes nothing of its own) settles the tree:
        // back to the old one, or (killed after the commit point) on to the new one.
        let next = rusty(&root).args(["--dry-run"]).args(API).output().unwrap();
        let text = transcript(&next, &root);
        let now = state(&root);
        if text.contains("finished it") {
            let diff = differences(&now, &after);
            assert!(diff.is_empty(), "{fault} at step {n}: {diff:?}\n{text}");
            rolled_forward += 1;
            (_dir, root) = fresh();
        } else {
            assert!(next.status.success(), "{fault} at step {n}: {text}");
            let diff = differences(&now, &before);
            assert!(diff.is_empty(), "{fault} at step {n}: {diff:?}\n{text}");
            rolled_back += 1;
        }
        n += 1;
        assert!(n < 400, "the commit never finished");
    }
    assert!(differences(&state(&root), &after).is_empty());
    let mode = std::fs::metadata(root.join("PROJECT"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "PROJECT's mode is kept");
    (rolled_back, rolled_forward)
}

#[test]
fn kill_at_every_step_is_rolled_back_by_the_next_command() {
    let (rolled_back, rolled_forward) = stopped_at_every_step("kill", |_| ());
    assert!(
        rolled_back > 15 && rolled_forward > 0,
        "{rolled_back} {rolled_forward}"
    );
}

/// A file too large for the journal to hold its old bytes is replaced through a temporary
/// and a backup instead: killed at any step, that path too is rolled back or forward.
#[test]
fn kill_at_every_step_with_a_file_too_large_for_the_journal() {
    let grow_main = |root: &Path| {
        let main = root.join("src/main.rs");
        let mut text = std::fs::read_to_string(&main).unwrap();
        let filler = format!("// {}\n", "x".repeat(1000));
        text.push_str(&filler.repeat(1100));
        std::fs::write(&main, text).unwrap();
    };
    let (rolled_back, rolled_forward) = stopped_at_every_step("kill", grow_main);
    assert!(
        rolled_back > 15 && rolled_forward >= 2,
        "{rolled_back} {rolled_forward}"
    );
}

/// A kill in the middle of a write leaves a file half written: the journal, a new file, or
/// a file rewritten in place (whose old bytes the journal holds).
#[test]
fn a_write_torn_at_any_step_is_rolled_back_by_the_next_command() {
    let (rolled_back, _) = stopped_at_every_step("tear", |_| ());
    assert!(rolled_back > 15, "{rolled_back}");
}

/// Each fault at every step of the commit, from the first until the step past the last
/// (the command then runs as it does without the hook): before the commit point the tree
/// is left as it was, after it the next command finishes the cleanup.
#[test]
fn io_errors_and_signals_at_any_step_leave_the_tree_as_it_was() {
    let (_clean_dir, clean_root) = project();
    let clean = rusty(&clean_root).args(API).output().unwrap();
    let clean = transcript(&clean, &clean_root);
    let after = state(&clean_root);
    // What each I/O fault reports (the OS's words), or None for the signal.
    for (what, words) in [
        ("enospc", Some("No space left")),
        ("eio", Some("Input/output error")),
        ("erofs", Some("Read-only file system")),
        ("term", None),
    ] {
        let (mut _dir, mut root) = project();
        let before = state(&root);
        let (mut failed, mut reported) = (0, 0);
        let mut n = 1;
        loop {
            let output = rusty(&root)
                .args(API)
                .env("RUSTY_SDK_FAULT", format!("{what}:{n}"))
                .output()
                .unwrap();
            let text = transcript(&output, &root);
            if text == clean {
                break; // past the last step: the hook fired nowhere
            }
            assert!(!text.contains("panicked"), "{what} at {n}: {text}");
            if words.is_some_and(|w| text.contains(w)) {
                reported += 1;
            }
            if output.status.success() || text.contains("the commit is complete") {
                // A fault after the commit point: the next command finishes the cleanup.
                let next = rusty(&root).args(["--dry-run"]).args(API).output().unwrap();
                assert!(leftovers(&root).is_empty(), "{}", transcript(&next, &root));
                let diff = differences(&state(&root), &after);
                assert!(diff.is_empty(), "{what} at {n}: {diff:?}\n{text}");
                (_dir, root) = project();
            } else {
                failed += 1;
                let diff = differences(&state(&root), &before);
                assert!(diff.is_empty(), "{what} at {n}: {diff:?}\n{text}");
                // The message says what to do, and that nothing was written.
                if what == "enospc" && text.contains("No space left") {
                    assert!(text.contains("free some space"), "{text}");
                }
            }
            n += 1;
            assert!(n < 400, "{what}: the commit never finished");
        }
        assert!(
            failed > 15,
            "{what}: only {failed} of {n} steps failed the command"
        );
        if words.is_some() {
            assert!(reported > 0, "{what}: no failure named it in {n} steps");
        }
    }
}

#[test]
fn two_commands_at_once_never_lose_an_api() {
    let (_dir, root) = project();
    let kinds = ["Alpha", "Beta", "Gamma"];
    let handles: Vec<_> = kinds
        .iter()
        .map(|kind| {
            let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_rusty-sdk"));
            cmd.current_dir(&root)
                .args(&API[..8])
                .args(["--kind", kind]);
            cmd.args(["--resource", "--controller"]);
            cmd.spawn().unwrap()
        })
        .collect();
    for mut h in handles {
        assert!(h.wait().unwrap().success());
    }
    let project = std::fs::read_to_string(root.join("PROJECT")).unwrap();
    for kind in kinds {
        assert!(
            project.contains(&format!("kind: {kind}")),
            "{kind} lost:\n{project}"
        );
    }
    assert!(!root.join(".rusty-sdk.lock").exists());
}

/// Two `init`s into one folder that does not exist yet: one project, the other refused,
/// and neither rolls back the other's commit as if it had been interrupted.
#[test]
fn two_inits_into_a_new_folder_take_turns() {
    for round in 0..4 {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("new");
        let handles: Vec<_> = ["rust", "helm"]
            .iter()
            .map(|layout| {
                std::process::Command::new(env!("CARGO_BIN_EXE_rusty-sdk"))
                    .arg("-C")
                    .arg(&root)
                    .args(["init", "-q", "--plugins", layout])
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let outputs: Vec<_> = handles
            .into_iter()
            .map(|h| h.wait_with_output().unwrap())
            .collect();
        let errors: Vec<String> = outputs
            .iter()
            .map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
            .collect();
        let won = outputs.iter().filter(|o| o.status.success()).count();
        assert_eq!(won, 1, "round {round}: {errors:?}");
        assert!(root.join("PROJECT").is_file(), "round {round}: {errors:?}");
        assert!(
            errors.iter().any(|e| e.contains("already holds a project")),
            "round {round}: {errors:?}"
        );
        assert!(
            !errors.iter().any(|e| e.contains("interrupted")),
            "{errors:?}"
        );
    }
}
