//! Files that are not what they seem: a FIFO or `/dev/zero` where the project has a file,
//! a stream given as an input. Each is a one-line error within seconds, nothing written,
//! and never a hang or memory without bound.
use std::path::Path;
use std::time::{Duration, Instant};

use crate::hostile::init;
use crate::support::{assert_refused, read_tree, rust_api_args, rusty, transcript};

/// Run `args` in `root` with a time limit and expect a refusal mentioning `want`.
fn refused_in_time(root: &Path, args: &[String], want: &str) {
    let before = read_tree(root);
    let started = Instant::now();
    let output = rusty(root)
        .args(args)
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{args:?} took {:?}",
        started.elapsed()
    );
    assert_refused(&output, root, want, &before);
}

#[test]
fn a_fifo_or_device_in_place_of_a_project_file_is_refused_not_read() {
    let (_dir, root) = init("rust");
    let api = rust_api_args("cache", "v1", "Memcached");
    // PROJECT pointing at an endless device.
    std::fs::rename(root.join("PROJECT"), root.join("PROJECT.real")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", root.join("PROJECT")).unwrap();
    refused_in_time(&root, &api, "PROJECT: not a regular file");
    std::fs::remove_file(root.join("PROJECT")).unwrap();
    std::fs::rename(root.join("PROJECT.real"), root.join("PROJECT")).unwrap();
    // A FIFO nobody writes to where the command reads src/main.rs: no hang.
    let main = root.join("src/main.rs");
    std::fs::rename(&main, root.join("main.rs.real")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(&main)
        .status()
        .unwrap();
    assert!(status.success());
    refused_in_time(&root, &api, "src/main.rs: not a regular file");
}

#[test]
fn an_endless_stream_given_as_an_input_stops_at_the_limit() {
    let (_dir, root) = init("hybrid.helm");
    let bundle = ["generate", "bundle", "--version", "0.1.0"]
        .into_iter()
        .chain(["--input-dir", "/dev/zero"])
        .map(String::from)
        .collect::<Vec<_>>();
    refused_in_time(&root, &bundle, "larger than the");
    let crd = [
        "create",
        "api",
        "--plugins",
        "rust",
        "--group",
        "ext",
        "--version",
        "v1",
    ]
    .into_iter()
    .chain([
        "--kind",
        "Widget",
        "--controller",
        "--external-api-crd",
        "/dev/zero",
    ])
    .map(String::from)
    .collect::<Vec<_>>();
    refused_in_time(&root, &crd, "larger than the");
    let chart = [
        "create",
        "api",
        "--plugins",
        "helm",
        "--group",
        "x",
        "--version",
        "v1",
    ]
    .into_iter()
    .chain(["--kind", "Nginx", "--helm-chart", "/dev/zero"])
    .map(String::from)
    .collect::<Vec<_>>();
    refused_in_time(&root, &chart, "larger than the");
}

#[test]
fn help_and_version_into_a_full_or_closed_stdout_fail() {
    for args in [
        &["--help"][..],
        &["--version"],
        &["create", "api", "--help"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_rusty-sdk"))
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("cannot write to standard output"),
            "{stderr}"
        );
        // A reader gone before the first byte (`| true`): the same failure, no message.
        let output = std::process::Command::new("sh")
            .arg("-c")
            .arg(r#"(sleep 0.3; "$0" "$@"; echo "exit $?" >&2) | true"#)
            .arg(env!("CARGO_BIN_EXE_rusty-sdk"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            "exit 1\n",
            "{args:?}"
        );
    }
}

/// Whether every line of `bytes` ends in CRLF.
fn all_crlf(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    text.matches('\n').count() == text.matches("\r\n").count()
}

#[test]
fn a_project_kept_in_crlf_stays_crlf_through_every_command() {
    let (_dir, root) = init("hybrid.helm");
    for (path, bytes) in read_tree(&root) {
        let text = String::from_utf8(bytes).unwrap().replace('\n', "\r\n");
        std::fs::write(root.join(&path), text).unwrap();
    }
    let before = read_tree(&root);
    let webhook = ["create", "webhook", "--group", "cache", "--version", "v1"]
        .into_iter()
        .chain(["--kind", "Memcached", "--defaulting"])
        .map(String::from)
        .collect::<Vec<_>>();
    for args in [rust_api_args("cache", "v1", "Memcached"), webhook] {
        let output = rusty(&root).args(&args).output().unwrap();
        assert!(output.status.success(), "{}", transcript(&output, &root));
    }
    let after = read_tree(&root);
    for path in before.keys() {
        assert!(all_crlf(&after[path]), "{path} lost its CRLF line endings");
    }
    let check = rusty(&root)
        .args(["generate", "rbac", "--check"])
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", transcript(&check, &root));
}

#[test]
fn commands_started_in_the_wrong_place_say_where_to_go() {
    let (_dir, root) = init("rust");
    let api = rust_api_args("cache", "v1", "Memcached");
    // From a folder of the project: the message names the project's root.
    let config = root.join("config");
    let before = read_tree(&root);
    let output = rusty(&config).args(&api).output().unwrap();
    let want = format!("the project is in {}", root.display());
    assert_refused(&output, &root, &want, &before);
    // -C to a file: named as such, nothing created next to it.
    let output = rusty(&root)
        .args(["-C", "Makefile", "init", "--plugins", "rust"])
        .output()
        .unwrap();
    assert_refused(&output, &root, "-C ", &before);
    assert!(String::from_utf8_lossy(&output.stderr).contains("Makefile: not a directory"));
}

#[test]
fn symlinked_files_stay_links_and_links_out_of_the_project_are_refused() {
    let (dir, root) = init("hybrid.helm");
    std::fs::rename(root.join("PROJECT"), root.join("PROJECT.real")).unwrap();
    std::os::unix::fs::symlink("PROJECT.real", root.join("PROJECT")).unwrap();
    std::fs::rename(root.join("src/main.rs"), root.join("src/real_main.rs")).unwrap();
    std::os::unix::fs::symlink("real_main.rs", root.join("src/main.rs")).unwrap();
    let output = rusty(&root)
        .args(rust_api_args("cache", "v1", "Memcached"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &root));
    for (link, file) in [
        ("PROJECT", "PROJECT.real"),
        ("src/main.rs", "src/real_main.rs"),
    ] {
        let meta = std::fs::symlink_metadata(root.join(link)).unwrap();
        assert!(meta.file_type().is_symlink(), "{link} is no longer a link");
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        assert!(text.contains("emcached"), "{file} was not written: {text}");
    }
    // A link to a file outside the project is not written through, nor replaced.
    let outside = dir.path().join("watches.yaml");
    std::fs::rename(root.join("watches.yaml"), &outside).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("watches.yaml")).unwrap();
    let helm = ["create", "api", "--plugins", "helm", "--group", "charts"]
        .into_iter()
        .chain(["--version", "v1", "--kind", "Nginx"])
        .map(String::from)
        .collect::<Vec<_>>();
    let before = read_tree(&root);
    let output = rusty(&root).args(&helm).output().unwrap();
    let text = transcript(&output, &root);
    assert_eq!(output.status.code(), Some(1), "{text}");
    let want = "watches.yaml: a symlink to a file outside the project";
    assert!(text.contains(want), "{text}");
    assert!(read_tree(&root) == before, "{text}");
    let link = std::fs::symlink_metadata(root.join("watches.yaml")).unwrap();
    assert!(link.file_type().is_symlink());
}

#[test]
fn a_byte_order_mark_before_watches_yaml_is_read_past() {
    let (_dir, root) = init("helm");
    let helm = |kind: &str| {
        let output = rusty(&root)
            .args(["create", "api", "--group", "charts", "--version", "v1"])
            .args(["--kind", kind])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", transcript(&output, &root));
    };
    helm("Nginx");
    // The list right after the mark (no comment first): libyaml counted the mark as a
    // column of the first line.
    let path = root.join("watches.yaml");
    let watches = std::fs::read_to_string(&path).unwrap();
    let list = watches.split_once('\n').unwrap().1;
    assert!(list.starts_with("- group:"), "{list}");
    std::fs::write(&path, format!("\u{feff}{list}")).unwrap();
    helm("Redis");
    let rbac = rusty(&root).args(["generate", "rbac"]).output().unwrap();
    assert!(rbac.status.success(), "{}", transcript(&rbac, &root));
}

#[test]
fn a_watches_yaml_the_new_entry_cannot_fit_is_not_called_broken() {
    let (_dir, root) = init("helm");
    // Valid YAML, in flow style: a `- group:` item cannot go after it.
    let flow = "[]\n# +rusty:scaffold:watch\n";
    std::fs::write(root.join("watches.yaml"), flow).unwrap();
    let before = read_tree(&root);
    let output = rusty(&root)
        .args(["create", "api", "--group", "charts", "--version", "v1"])
        .args(["--kind", "Nginx"])
        .output()
        .unwrap();
    assert_refused(
        &output,
        &root,
        "write watches.yaml as a block list",
        &before,
    );
}

/// A read-only checkout (a CI mount, say) still runs what writes nothing. It needs a
/// read-only mount, so it runs only where `mount` is allowed (root in a container).
#[rusty_sdk_test_tools::needs(tmpfs_mount)]
#[test]
fn commands_that_write_nothing_run_in_a_read_only_checkout() {
    let (dir, root) = init("rust");
    let mount = dir.path().join("ro");
    std::fs::create_dir(&mount).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(args[0])
            .args(&args[1..])
            .output()
    };
    let path = mount.display().to_string();
    let mount_bin = rusty_sdk_test_tools::path!(tmpfs_mount);
    let mounted = run(&[mount_bin, "-t", "tmpfs", "-o", "size=4m", "tmpfs", &path]).unwrap();
    assert!(mounted.status.success(), "{mounted:?}");
    let copy = run(&[
        "cp",
        "-r",
        &root.display().to_string(),
        &format!("{path}/p"),
    ]);
    let remount = run(&[mount_bin, "-o", "remount,ro", &path]);
    let project = mount.join("p");
    let check = rusty(&project)
        .args(["generate", "rbac", "--check"])
        .output()
        .unwrap();
    let dry = rusty(&project)
        .args(["--dry-run"])
        .args(rust_api_args("cache", "v1", "Memcached"))
        .output()
        .unwrap();
    let write = rusty(&project)
        .args(rust_api_args("cache", "v1", "Memcached"))
        .output()
        .unwrap();
    let _ = run(&["umount", &path]);
    assert!(copy.unwrap().status.success() && remount.unwrap().status.success());
    assert!(check.status.success(), "{}", transcript(&check, &project));
    assert!(dry.status.success(), "{}", transcript(&dry, &project));
    let text = transcript(&write, &project);
    assert!(
        text.contains("the file system is read-only; nothing was written"),
        "{text}"
    );
}

/// A Rust source that is not UTF-8 (rustc refuses it too) stops `generate rbac`, which
/// reads every source for markers, with the file, the byte and its line.
#[test]
#[expect(
    clippy::naive_bytecount,
    reason = "one file's lines: no crate for that"
)]
fn a_source_file_that_is_not_utf8_is_named_with_its_bad_byte() {
    let (_dir, root) = init("rust");
    let mut bytes = std::fs::read(root.join("src/main.rs")).unwrap();
    let lines = bytes.iter().filter(|&&b| b == b'\n').count();
    bytes.extend_from_slice(b"// caf\xe9\n");
    std::fs::write(root.join("src/main.rs"), bytes).unwrap();
    let args = ["generate", "rbac"].map(String::from);
    refused_in_time(
        &root,
        &args,
        &format!(
            "src/main.rs: not UTF-8 text (byte 0xE9 on line {}); ",
            lines + 1
        ),
    );
}

#[test]
fn a_chart_folder_with_a_fifo_or_a_link_back_up_is_refused_in_time() {
    let (dir, root) = init("helm");
    let chart = dir.path().join("odd-chart");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: odd\nversion: 0.1.0\n",
    )
    .unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(chart.join("templates/pipe.yaml"))
        .status()
        .unwrap();
    assert!(status.success());
    let args: Vec<String> = ["create", "api", "--group", "x", "--version", "v1"]
        .into_iter()
        .chain(["--kind", "Odd", "--helm-chart", "../odd-chart"])
        .map(String::from)
        .collect();
    // Helm refuses such a file; copying the chart without it would be a different chart.
    refused_in_time(&root, &args, "templates/pipe.yaml: not a regular file");
    std::fs::remove_file(chart.join("templates/pipe.yaml")).unwrap();
    std::os::unix::fs::symlink("..", chart.join("templates/up")).unwrap();
    refused_in_time(
        &root,
        &args,
        "templates/up: a link back to the chart's own folder",
    );
}
