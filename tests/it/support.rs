//! Shared helpers: run the real binary in a temp directory and read what it wrote.
use std::collections::BTreeMap;
use std::path::Path;

use assert_cmd::Command;

/// The rusty-sdk binary, colour off, in `dir`.
pub fn rusty(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("rusty-sdk").expect("binary built");
    cmd.current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        // The chart-render cache of the tests' own, not the user's.
        .env(
            "RUSTY_SDK_CACHE_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("rusty-sdk-cache"),
        );
    cmd
}

/// Exit code, stdout and stderr as one text, with the temp directory replaced by [ROOT].
pub fn transcript(output: &std::process::Output, root: &Path) -> String {
    let clean = |bytes: &[u8]| {
        String::from_utf8_lossy(bytes).replace(&root.display().to_string(), "[ROOT]")
    };
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        output.status.code().unwrap_or(-1),
        clean(&output.stdout),
        clean(&output.stderr)
    )
}

/// Every file under `root` (relative path -> bytes), directories left out.
pub fn read_tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .map(|e| e.expect("walk"))
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(root).expect("under root");
            (
                rel.to_string_lossy().replace('\\', "/"),
                std::fs::read(e.path()).expect("read"),
            )
        })
        .collect()
}

/// insta settings that keep snapshots in the repository's top-level snapshots/ folder.
pub fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    // The commit of the build is in every PROJECT (`cliVersion: 0.1.0+<commit>`).
    settings.add_filter(r"(?m)^cliVersion: .*$", "cliVersion: [CLI VERSION]");
    settings
}

/// `create api` of a Rust API with its resource and controller, asking nothing.
pub fn rust_api_args(group: &str, version: &str, kind: &str) -> Vec<String> {
    [
        "create",
        "api",
        "--plugins",
        "rust",
        "--group",
        group,
        "--version",
        version,
        "--kind",
        kind,
        "--resource",
        "--controller",
    ]
    .map(String::from)
    .to_vec()
}

/// The command failed with one line of error mentioning `expected`, and wrote nothing
/// (`root` still reads as `before`).
pub fn assert_refused(
    output: &std::process::Output,
    root: &Path,
    expected: &str,
    before: &BTreeMap<String, Vec<u8>>,
) {
    let text = transcript(output, root);
    assert!(!output.status.success(), "{text}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.trim_end().lines().count(), 1, "{text}");
    assert!(stderr.contains(expected), "expected {expected:?}: {text}");
    assert!(
        read_tree(root) == *before,
        "a refused command wrote files: {text}"
    );
}

/// Run each whitespace-separated rusty-sdk command line in `root`, which `dir` holds.
pub fn scaffold(dir: &Path, root: &Path, commands: &[&str]) {
    for args in commands {
        let output = rusty(dir)
            .arg("-C")
            .arg(root)
            .args(args.split_whitespace())
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", transcript(&output, root));
    }
}
