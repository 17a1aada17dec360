//! Inputs an unlucky user or an attacker gives: a closed or full stdout, YAML bombs in
//! PROJECT and watches.yaml, archive bombs, names the generated code would trip on, APIs
//! that collide. Each is a one-line error (or a quiet failure for a closed pipe), a
//! non-zero exit, nothing written, and an answer within seconds.
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rusty_sdk_test_tools::{needs, path};

use crate::e2e;
use crate::support::{read_tree, rust_api_args, rusty, transcript};

pub(crate) fn init(layout: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, root) = e2e::project_dir("hostile-operator");
    let output = rusty(&root)
        .args(["init", "--plugins", layout, "-q"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &root));
    (dir, root)
}

fn rust_api(group: &str, kind: &str) -> Vec<String> {
    rust_api_args(group, "v1", kind)
}

/// Run, expect a one-line error containing `want`, exit 1, and an unchanged tree.
fn refused(root: &Path, args: &[String], want: &str) {
    let before = read_tree(root);
    let output = rusty(root).args(args).output().unwrap();
    let text = transcript(&output, root);
    assert_eq!(output.status.code(), Some(1), "{text}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{text}");
    assert!(stderr.contains(want), "{text}");
    assert!(
        output.stdout.is_empty(),
        "no `create` lines for a refusal: {text}"
    );
    assert!(read_tree(root) == before, "{args:?} wrote files");
}

#[needs(dev_full)]
#[test]
fn a_closed_stdout_ends_the_command_quietly_and_a_full_one_writes_nothing() {
    let (_dir, root) = init("rust");
    let before = read_tree(&root);
    // A reader that is gone before the first line: EPIPE, no message, no panic, no files.
    let mut child = Command::new(env!("CARGO_BIN_EXE_rusty-sdk"))
        .current_dir(&root)
        .args(rust_api("cache", "Memcached"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    assert!(read_tree(&root) == before, "files were written");

    let full = std::fs::File::create(path!(dev_full)).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_rusty-sdk"))
        .current_dir(&root)
        .args(rust_api("cache", "Memcached"))
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: cannot write to standard output (no storage space); nothing was written\n"
    );
    assert!(read_tree(&root) == before, "files were written");
    let output = Command::new(env!("CARGO_BIN_EXE_rusty-sdk"))
        .args(["completion", "bash"])
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "completion to a full stdout");
}

#[test]
fn a_reader_that_goes_away_midway_gets_all_or_nothing_and_the_exit_code_says_which() {
    // `rusty-sdk init | head -c 1`: the reader leaves while the command prints. If that is
    // before the files are written, nothing is written and the exit is 1; if after, every
    // file is there and the command succeeded (it exited 1 with the project written).
    use std::io::Read;
    for _ in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_rusty-sdk"))
            .current_dir(dir.path())
            .args(["init", "--plugins", "rust", "--domain", "my.domain"])
            .args(["--repo", "github.com/example/p"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0_u8; 1];
        let _ = stdout.read(&mut first);
        drop(stdout);
        let output = child.wait_with_output().unwrap();
        let written = dir.path().join("PROJECT").is_file();
        let code = output.status.code();
        assert!(
            (code == Some(0) && written) || (code == Some(1) && read_tree(dir.path()).is_empty()),
            "exit {code:?} with the project {}written: {}",
            if written { "" } else { "not (or partly) " },
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    }
}

/// The reader of `rusty-sdk init | ...` goes away after the files are written: the command
/// did what it was asked and exits 0, its last lines lost. Not left to timing: the pipe
/// holds exactly the lines `init` prints before its commit, so the first line after the
/// commit cannot get in, and the reader closes only once every earlier line is in the pipe.
#[test]
fn a_reader_gone_after_the_commit_leaves_the_command_successful() {
    use std::os::fd::AsRawFd;
    let args = ["init", "--plugins", "rust", "--domain", "my.domain"];
    // What init prints before its commit: the plan, which --dry-run prints too.
    let dry = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_rusty-sdk"))
        .current_dir(dry.path())
        .args(args)
        .arg("--dry-run")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        transcript(&output, dry.path())
    );
    let plan = String::from_utf8(output.stdout).unwrap();
    let plan = plan
        .strip_suffix("dry run: nothing was written\n")
        .unwrap_or_else(|| panic!("no dry-run note at the end of:\n{plan}"));
    let created: Vec<&str> = plan
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("create  "))
        .collect();
    assert!(created.contains(&"PROJECT"), "{plan}");

    let (reader, mut writer) = std::io::pipe().unwrap();
    // SAFETY: fcntl and ioctl on a pipe this test owns, with an int argument or out-param.
    let queued = |fd: i32| {
        let mut bytes: libc::c_int = 0;
        assert_eq!(
            unsafe { libc::ioctl(fd, libc::FIONREAD, &raw mut bytes) },
            0
        );
        usize::try_from(bytes).unwrap()
    };
    // SAFETY: as above.
    let capacity = unsafe { libc::fcntl(writer.as_raw_fd(), libc::F_SETPIPE_SZ, 4096) };
    let capacity = usize::try_from(capacity).expect("F_SETPIPE_SZ");
    assert!(
        plan.len() < capacity,
        "the plan no longer fits one page: {}",
        plan.len()
    );
    writer
        .write_all(&vec![b'#'; capacity - plan.len()])
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_rusty-sdk"))
        .current_dir(dir.path())
        .args(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while queued(reader.as_raw_fd()) < capacity {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "init printed {} of its {} plan bytes",
            queued(reader.as_raw_fd()) + plan.len() - capacity,
            plan.len()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    drop(reader);
    let output = child.wait_with_output().unwrap();
    let tree = read_tree(dir.path());
    let missing: Vec<_> = created
        .iter()
        .filter(|path| !tree.contains_key(**path))
        .collect();
    assert!(
        missing.is_empty(),
        "init exited {:?} without {missing:?}",
        output.status.code()
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "every file was written, yet: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn yaml_bombs_in_project_and_watches_answer_at_once() {
    let (_dir, root) = init("hybrid.helm");
    let deep = format!("{}1{}", "{a: ".repeat(100_000), "}".repeat(100_000));
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..9 {
        let p = i - 1;
        let _ = writeln!(
            bomb,
            "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]"
        );
    }
    let project = std::fs::read_to_string(root.join("PROJECT")).unwrap();
    for (file, text, want) in [
        ("PROJECT", &deep, "nested deeper than 128 levels"),
        ("PROJECT", &format!("{project}{bomb}"), "repetition limit"),
        ("watches.yaml", &deep, "nested deeper than 128 levels"),
    ] {
        std::fs::write(root.join("PROJECT"), &project).unwrap();
        std::fs::write(root.join(file), text).unwrap();
        let start = Instant::now();
        refused(&root, &["generate".into(), "rbac".into()], want);
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{file} took {:?}",
            start.elapsed()
        );
    }
}

#[test]
fn a_gzip_bomb_chart_is_refused_naming_the_limit() {
    let (_dir, root) = init("helm");
    let archive = root.parent().unwrap().join("bomb-0.1.0.tgz");
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let mut tar = tar::Builder::new(gz);
    let chart_yaml = b"apiVersion: v2\nname: bomb\nversion: 0.1.0\n";
    let mut header = tar::Header::new_gnu();
    header.set_size(chart_yaml.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(&mut header, "bomb/Chart.yaml", &chart_yaml[..])
        .unwrap();
    let mut header = tar::Header::new_gnu();
    header.set_size(256 << 20);
    header.set_mode(0o644);
    header.set_cksum();
    let zeros = std::io::Read::take(std::io::repeat(0), 256 << 20);
    tar.append_data(&mut header, "bomb/templates/zeros.yaml", zeros)
        .unwrap();
    let bytes = tar.into_inner().unwrap().finish().unwrap();
    assert!(
        bytes.len() < 400 << 10,
        "the bomb is small: {}",
        bytes.len()
    );
    std::fs::File::create(&archive)
        .unwrap()
        .write_all(&bytes)
        .unwrap();
    let args = ["create", "api", "--helm-chart", "../bomb-0.1.0.tgz"].map(String::from);
    refused(
        &root,
        &args,
        "\"templates/zeros.yaml\" has 268435456 bytes, more than 5242880 (5 MiB)",
    );
}

#[test]
fn names_that_would_not_build_are_refused_before_anything_is_written() {
    let (_dir, root) = init("rust");
    refused(
        &root,
        &rust_api("1cache", "Memcached"),
        "cannot start with a digit",
    );
    refused(
        &root,
        &rust_api("cache", "Result"),
        "clashes with a Rust type",
    );
    refused(
        &root,
        &rust_api("cache", &"A".repeat(300)),
        "at most 63 characters",
    );
    let long_group = format!("{}.{}", "g".repeat(64), "x");
    refused(
        &root,
        &rust_api(&long_group, "Memcached"),
        "DNS-1123 subdomain",
    );
    let (_dir2, other) = e2e::project_dir("x");
    let output = rusty(&other)
        .args(["init", "--plugins", "rust", "--project-name", "1operator"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        output.stdout.is_empty(),
        "a refused init prints no `create` line"
    );
    assert!(read_tree(&other).is_empty());
}

#[test]
fn a_domain_too_long_for_a_crd_name_is_refused_naming_the_limit() {
    let (_dir, root) = init("rust");
    let project = std::fs::read_to_string(root.join("PROJECT")).unwrap();
    let domain = [
        "d".repeat(63),
        "d".repeat(63),
        "d".repeat(63),
        "d".repeat(50),
    ]
    .join(".");
    let edited = project.replace("domain: my.domain", &format!("domain: {domain}"));
    std::fs::write(root.join("PROJECT"), edited).unwrap();
    refused(
        &root,
        &rust_api("cache", "Memcached"),
        "more than the 253 allowed",
    );
    std::fs::write(
        root.join("PROJECT"),
        project.replace("domain: my.domain", "domain: Bad_Domain"),
    )
    .unwrap();
    refused(
        &root,
        &rust_api("cache", "Memcached"),
        "fix `domain:` in PROJECT",
    );
}

#[test]
fn apis_that_collide_are_refused_naming_the_api_in_the_way() {
    let (_dir, root) = init("hybrid.helm");
    let ok = |args: &[String]| {
        let output = rusty(&root).args(args).output().unwrap();
        assert!(output.status.success(), "{}", transcript(&output, &root));
    };
    ok(&rust_api("cache", "Memcached"));
    let mut same_plural = rust_api("cache", "Other");
    same_plural.extend(["--plural".into(), "memcacheds".into()]);
    refused(
        &root,
        &same_plural,
        "plural \"memcacheds\" is already the resource name of cache.my.domain/v1, Kind=Memcached",
    );
    let helm = |group: &str, version: &str, kind: &str| -> Vec<String> {
        [
            "create",
            "api",
            "--plugins",
            "helm",
            "--group",
            group,
            "--version",
            version,
            "--kind",
            kind,
        ]
        .map(String::from)
        .to_vec()
    };
    refused(
        &root,
        &helm("cache", "v1alpha1", "Memcached"),
        "is a Rust API in PROJECT",
    );
    ok(&helm("apps", "v1", "Nginx"));
    refused(
        &root,
        &helm("apps", "v2", "Nginx"),
        "a second version of a Helm kind is not supported",
    );
    refused(
        &root,
        &rust_api("apps", "Nginx"),
        "is a Helm API in PROJECT",
    );
    refused(
        &root,
        &helm("web", "v1", "Nginx"),
        "a Helm API cannot share its kind with another group",
    );
    refused(
        &root,
        &rust_api("cache", "MemcachedStatus"),
        "would both define the Rust type MemcachedStatus",
    );
    // The same Rust kind in another group is its own API, beside the first.
    let before = read_tree(&root);
    ok(&rust_api("web", "Memcached"));
    let after = read_tree(&root);
    for path in [
        "src/controller/memcached.rs",
        "config/rbac/memcached_admin_role.yaml",
    ] {
        assert_eq!(after[path], before[path], "{path} was rewritten");
    }
    let role =
        String::from_utf8_lossy(&after["config/rbac/web_memcached_admin_role.yaml"]).into_owned();
    assert!(role.contains("name: web-memcached-admin-role"), "{role}");
    assert!(after.contains_key("src/controller/web_memcached.rs"));
}

#[test]
fn user_formatting_and_line_endings_survive_a_new_api() {
    let (_dir, root) = init("rust");
    let first = rust_api("cache", "Memcached");
    assert!(rusty(&root).args(&first).output().unwrap().status.success());
    // The user's own style: CRLF endings and code rustfmt would rewrite.
    let main_path = root.join("src/main.rs");
    let main = std::fs::read_to_string(&main_path).unwrap();
    let mine = main
        .replace(
            "    // +rusty:scaffold:controllers",
            "    let   answer = { 40+2 };  // mine\n    // +rusty:scaffold:controllers",
        )
        .replace('\n', "\r\n");
    std::fs::write(&main_path, &mine).unwrap();
    let output = rusty(&root)
        .args(rust_api("web", "Backup"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let after = std::fs::read_to_string(&main_path).unwrap();
    let added = "    manager.add_controller(\"backup\", controller::backup::run);\r\n";
    assert_eq!(
        after.replacen(added, "", 1),
        mine,
        "only the new line was added"
    );
    assert!(after.contains(&format!("{added}    // +rusty:scaffold:controllers")));
}

#[needs(cargo_fmt)]
#[test]
fn the_longest_names_give_files_that_cargo_fmt_leaves_alone() {
    let (_dir, root) = init("hybrid.helm");
    let kind = format!("K{}", "a".repeat(62));
    let group = "g".repeat(63);
    for (group, kind) in [
        (group.as_str(), kind.as_str()),
        ("cache", "Memcached"),
        ("apps", "Deployment"),
    ] {
        let output = rusty(&root).args(rust_api(group, kind)).output().unwrap();
        assert!(output.status.success(), "{}", transcript(&output, &root));
    }
    let mut image = rust_api("ops", &format!("I{}", "b".repeat(62)));
    image.extend([
        "--image".into(),
        format!("registry.example.com/{}:1.0", "c".repeat(80)),
    ]);
    let output = rusty(&root).args(&image).output().unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let check = Command::new("cargo")
        .args(["fmt", "--all", "--check"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "cargo fmt --check:\n{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}
