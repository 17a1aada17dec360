//! End to end: generated projects must build, pass their own tests, clippy and fmt, and the
//! built operator must start and stop cleanly. All projects share one target directory so
//! dependencies compile once. Set `RUSTY_SDK_SKIP_E2E=1` to skip locally (CI never does): the
//! tests marked `#[needs(e2e)]` are then built as ignored.
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rusty_sdk_test_tools::needs;

use crate::support::{rusty, transcript};

/// Heavy cargo runs go one at a time, even when tests run in parallel.
pub static CARGO: Mutex<()> = Mutex::new(());

pub fn target_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("e2e-target")
}

/// Where generated projects and the builds' temp files go: beside the target dir, on the
/// disk that holds it, not on a /tmp that may be small.
fn scratch_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

/// Run a command in `dir`, failing the test with its output if it fails.
pub fn must(dir: &Path, program: &str, args: &[&str]) -> String {
    must_with_env(dir, program, args, &[])
}

/// [`must`] with `env` added to the command's environment.
pub fn must_with_env(dir: &Path, program: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    let output = command(dir, program)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("{program} could not start: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success(),
        "`{program} {}` failed in {}:\n{text}",
        args.join(" "),
        dir.display()
    );
    text
}

/// `program` to run in `dir`, with the environment every build here gets.
pub fn command(dir: &Path, program: &str) -> Command {
    let mut command = Command::new(program);
    command
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir())
        // Nobody debugs these builds: without debug info, symbol tables and incremental
        // caches the shared target dir stays near 2 GB instead of filling a small CI disk.
        .env("CARGO_PROFILE_DEV_DEBUG", "0")
        .env("CARGO_PROFILE_DEV_STRIP", "symbols")
        .env("CARGO_INCREMENTAL", "0")
        .env("TMPDIR", scratch_dir("e2e-tmp"))
        .env_remove("RUSTFLAGS")
        // rustup hands the toolchain running these tests down to every cargo it starts,
        // which would override the project's rust-toolchain.toml: the project picks its own.
        .env_remove("RUSTUP_TOOLCHAIN");
    command
}

/// Project names already built in this test run.
static NAMES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The project's name (its directory's name, which `init` takes by default). Every project
/// built here must have its own: cargo hashes path packages relative to their workspace
/// root, so two projects with the same package names would share (and reuse) artifacts in
/// the shared target dir, and one could be tested with the other's code.
fn claim_name(root: &Path) -> String {
    let name = root.file_name().unwrap().to_string_lossy().into_owned();
    let mut names = NAMES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    assert!(
        !names.contains(&name),
        "two end-to-end projects are named {name}; give each its own (see e2e::project_dir)"
    );
    names.push(name.clone());
    name
}

/// A temp directory holding an empty folder `name` for a project built end to end.
pub fn project_dir(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir_in(scratch_dir("e2e-projects")).unwrap();
    let root = dir.path().join(name);
    std::fs::create_dir(&root).unwrap();
    (dir, root)
}

/// cargo build, test, clippy -D warnings and fmt --check, and kustomize (so a caller needs
/// `e2e` and `kubectl`).
pub fn check_project(root: &Path) {
    let name = claim_name(root);
    let _guard = CARGO
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    prune_other_projects(&name);
    run_checks(root);
}

/// [`check_project`] again, for a project it checked before a later command changed it.
pub fn check_project_again(root: &Path) {
    let name = root.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        NAMES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .contains(&name),
        "{name} was not checked before; use check_project"
    );
    let _guard = CARGO
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    run_checks(root);
}

fn run_checks(root: &Path) {
    assert_pinned_toolchain(root);
    build_all_targets(root);
    assert_rust_version_and_members(root);
    // Plain `cargo test`, as the tutorial and the project's README say: every crate's.
    must(root, "cargo", &["test", "--quiet"]);
    must(
        root,
        "cargo",
        &[
            "clippy",
            "--quiet",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
            // Generated code is clean under pedantic too; it allows only what kube's
            // signatures force, each with a comment.
            "-W",
            "clippy::pedantic",
        ],
    );
    must(root, "cargo", &["fmt", "--check"]);
    kustomize(root, "config/default");
}

/// The project builds with the release its rust-toolchain.toml pins, not with the one
/// running these tests.
fn assert_pinned_toolchain(root: &Path) {
    let active = must(root, "rustup", &["show", "active-toolchain"]);
    let pinned = format!("{}-", rusty_sdk::versions::TOOLCHAIN);
    assert!(
        active.starts_with(&pinned) && active.contains("rust-toolchain.toml"),
        "{} builds with {active}, not with Rust {} from its rust-toolchain.toml",
        root.display(),
        rusty_sdk::versions::TOOLCHAIN
    );
}

/// The project declares the `rust-version` rusty-sdk writes (clippy then flags generated
/// code that needs a newer Rust), no dependency needs a newer one, and plain `cargo`
/// commands cover every crate of the workspace.
fn assert_rust_version_and_members(root: &Path) {
    // stdout alone: cargo says on stderr when it waits for another build's lock.
    let output = command(root, "cargo")
        .args(["metadata", "--format-version", "1"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo metadata failed in {}:\n{}",
        root.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let version = |text: &str| -> Vec<u32> {
        text.split('.')
            .map(|part| part.parse().unwrap())
            .chain(std::iter::repeat(0))
            .take(3)
            .collect()
    };
    let declared = version(rusty_sdk::versions::RUST);
    let members = metadata["workspace_members"].as_array().unwrap();
    for package in metadata["packages"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap();
        let needs = package["rust_version"].as_str();
        if members.contains(&package["id"]) {
            assert_eq!(
                needs,
                Some(rusty_sdk::versions::RUST),
                "{name} declares no rust-version or another one"
            );
        } else if let Some(needs) = needs {
            assert!(
                version(needs) <= declared,
                "{name} needs Rust {needs}, newer than the project's rust-version {}",
                rusty_sdk::versions::RUST
            );
        }
    }
    let ids = |key: &str| -> std::collections::BTreeSet<String> {
        let list = metadata[key].as_array().unwrap().iter();
        list.map(|id| id.as_str().unwrap().to_string()).collect()
    };
    assert_eq!(
        ids("workspace_default_members"),
        ids("workspace_members"),
        "plain cargo commands must cover every crate"
    );
}

/// Remove the binaries and libraries of the projects built before this one from the shared
/// target dir, keeping the dependencies they share: each project leaves 50 to 80 MB there,
/// and the whole suite must fit a 5 GB disk. (A test that still needs one of them, say to
/// run its crdgen, gets it rebuilt by cargo.)
fn prune_other_projects(current: &str) {
    let names: Vec<String> = NAMES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    let crate_prefixes: Vec<String> = names
        .iter()
        .filter(|name| name.as_str() != current)
        .flat_map(|name| {
            let snake = name.replace('-', "_");
            [
                format!("{snake}-"),
                format!("{snake}_api-"),
                format!("lib{snake}_api-"),
            ]
        })
        .chain(["crdgen-".to_string()])
        .collect();
    let debug = target_dir().join("debug");
    let Ok(entries) = std::fs::read_dir(debug.join("deps")) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        if crate_prefixes
            .iter()
            .any(|prefix| file.starts_with(prefix.as_str()))
        {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    for name in names.iter().filter(|name| name.as_str() != current) {
        let _ = std::fs::remove_file(debug.join(name));
    }
}

/// `kubectl kustomize dir` with the control plane's kubectl (Debian's is too old for
/// today's kustomize); the calling test needs `kubectl`.
pub fn kustomize(root: &Path, dir: &str) -> String {
    must(root, kubectl(), &["kustomize", dir])
}

pub fn kubectl() -> &'static str {
    rusty_sdk_test_tools::path!(kubectl)
}

fn init(root: &Path, layout: &str, extra: &[&str]) {
    let output = rusty(root)
        .args([
            "init",
            "--plugins",
            layout,
            "--repo",
            "github.com/example/memcached-operator",
        ])
        .args(extra)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, root));
}

fn project(layout: &str, name: &str, extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let (dir, root) = project_dir(name);
    init(&root, layout, extra);
    (dir, root)
}

#[needs(e2e, kubectl)]
#[test]
fn init_projects_build_test_and_lint() {
    // The rust one with a manager scoped to its namespace (`init --namespaced`).
    for (layout, extra) in [
        ("hybrid.helm", &[][..]),
        ("helm", &[]),
        ("rust", &["--namespaced"]),
    ] {
        let name = format!("e2e-init-{}", layout.replace('.', "-"));
        let (_dir, root) = project(layout, &name, extra);
        check_project(&root);
    }
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn http_get(port: u16, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    Some(response)
}

/// Run the project's binary `bin` with `args`, built with every target as
/// [`check_project`] builds it (so no dependency compiles again for another feature set),
/// holding the lock so no other project's build replaces it between build and start (they
/// share a target dir).
pub fn run_bin(root: &Path, bin: &str, args: &[&str]) -> String {
    let _guard = CARGO
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    build_all_targets(root);
    let binary = target_dir().join("debug").join(bin);
    must(root, binary.to_str().unwrap(), args)
}

/// Every target at once, so the binaries get the test targets' dependency features
/// (tower-test turns on tokio's `test-util`): built alone, with other features, a binary
/// would compile the whole async stack a second time. The production feature set is built
/// once, by the image test, as the Dockerfile's builder stage does.
fn build_all_targets(root: &Path) {
    must(
        root,
        "cargo",
        &["build", "--quiet", "--workspace", "--all-targets"],
    );
}

/// Build the operator binary of the project at `root` and copy it into the project, so
/// later builds of other projects in the shared target dir cannot swap it.
pub fn built_operator(root: &Path) -> PathBuf {
    let name = root.file_name().unwrap().to_string_lossy().into_owned();
    built_binary(root, &name)
}

/// Build the project's binary `bin` and copy it into the project as `<bin>.bin`.
pub fn built_binary(root: &Path, bin: &str) -> PathBuf {
    let _guard = CARGO
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    build_all_targets(root);
    let copy = root.join(format!("{bin}.bin"));
    std::fs::copy(target_dir().join("debug").join(bin), &copy).unwrap();
    copy
}

/// Start the operator against an API server nobody listens on, wait until /healthz answers
/// 200, stop it with SIGTERM and require a clean exit. Returns what it logged.
pub fn run_until_healthy_then_stop(root: &Path, binary: &Path) -> String {
    let kubeconfig = root.join("unreachable.kubeconfig");
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: t\n",
    )
    .unwrap();
    let health = free_port();
    let log_path = root.join("operator.log");
    let log_file = std::fs::File::create(&log_path).unwrap();
    let mut child = Command::new(binary)
        .current_dir(root)
        .env("KUBECONFIG", &kubeconfig)
        .env("NO_COLOR", "1")
        .args([
            "--health-probe-bind-address",
            &format!("127.0.0.1:{health}"),
        ])
        .args(["--metrics-bind-address", "0"])
        .stdout(Stdio::from(log_file.try_clone().unwrap()))
        .stderr(Stdio::from(log_file))
        .spawn()
        .unwrap();
    let log = || std::fs::read_to_string(&log_path).unwrap_or_default();

    let deadline = Instant::now() + Duration::from_secs(60);
    let mut healthy = None;
    while Instant::now() < deadline {
        if let Some(response) = http_get(health, "/healthz") {
            healthy = Some(response);
            break;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("operator exited early with {status}:\n{}", log());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let healthy = healthy.unwrap_or_else(|| panic!("/healthz never answered:\n{}", log()));
    assert!(healthy.starts_with("HTTP/1.1 200"), "{healthy}");

    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "operator did not stop after SIGTERM:\n{}",
            log()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "exit {status} after SIGTERM:\n{}", log());
    // Every controller returned by itself: none was left for the grace period to abort,
    // although none could ever list its objects.
    let log = log();
    assert!(
        !log.contains("did not stop in time") && log.contains("manager stopped"),
        "controllers were not stopped cleanly:\n{log}"
    );
    log
}

#[needs(e2e)]
#[test]
fn built_operator_serves_health_and_stops_on_sigterm() {
    let (_dir, root) = project("hybrid.helm", "e2e-smoke", &[]);
    claim_name(&root);
    let binary = built_operator(&root);
    let help = must(&root, binary.to_str().unwrap(), &["--help"]);
    assert!(
        help.contains("--leader-elect") && help.contains("--watches-file"),
        "{help}"
    );
    run_until_healthy_then_stop(&root, &binary);
}
