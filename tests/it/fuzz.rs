//! A bounded fuzz run of what users type and what the CLI reads: names, PROJECT,
//! watches.yaml and chart archives. Every case must end with success or a one-line error
//! (exit 1), never a panic (exit 101), an abort or a signal, within 2 seconds. Cases come
//! from proptest, seeded, so a failure replays; `FUZZ_CASES` sets how many (default 64 per
//! input for the binary, 2000 for the library calls).
use std::path::Path;
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rusty_sdk::model::names::parse_plural;
use rusty_sdk::model::{Domain, Group, Kind, ProjectName, Repo, Version};

use crate::e2e;
use crate::support::rusty;

fn cases(default: u32) -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn runner(cases: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]))
}

/// Strings users could type: ASCII names, keywords, digits, dashes, Unicode and long runs.
fn name_input() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9._-]{0,80}",
        "[A-Z][a-zA-Z0-9]{0,70}",
        "[a-z][a-z0-9-]{0,70}",
        prop::sample::select(vec![
            "fn",
            "self",
            "Self",
            "crate",
            "type",
            "Type",
            "Deployment",
            "Result",
            "kube",
            "1cache",
            "v0",
            "v1alpha0",
            "é",
            "Mémcached",
            ""
        ])
        .prop_map(String::from),
        any::<String>(),
        ("[a-z]", 0usize..20_000).prop_map(|(c, n)| c.repeat(n)),
    ]
}

fn is_rust_ident(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[test]
fn names_are_accepted_only_when_they_build_and_refused_in_one_short_line() {
    let mut runner = runner(cases(2000));
    runner
        .run(&name_input(), |input| {
            let errors = [
                Group::parse(&input)
                    .map(|g| {
                        assert!(
                            is_rust_ident(&g.module()),
                            "group {input:?} -> {}",
                            g.module()
                        );
                    })
                    .err(),
                Kind::parse(&input)
                    .map(|k| assert!(is_rust_ident(&k.module()), "kind {input:?}"))
                    .err(),
                Version::parse(&input).err(),
                ProjectName::parse(&input).err(),
                parse_plural(&input).err(),
                Domain::parse(&input).err(),
                Repo::parse(&input).err(),
            ];
            for error in errors.into_iter().flatten() {
                let text = error.to_string();
                prop_assert!(!text.contains('\n') && text.len() < 600, "{text}");
            }
            Ok(())
        })
        .unwrap();
}

/// Run `args` in `root` and check the exit: 0 or 1, within 2 s of CPU time.
fn settles(root: &Path, args: &[&str]) -> Result<(), TestCaseError> {
    let (code, stderr, cpu) = run_for_cpu_time(root, args);
    prop_assert!(matches!(code, Some(0 | 1)), "exit {code:?}: {stderr}");
    prop_assert!(cpu < Duration::from_secs(2), "took {cpu:?} of CPU time");
    prop_assert!(stderr.len() < 4096, "{} bytes on stderr", stderr.len());
    Ok(())
}

/// Run rusty-sdk and return its exit code, its stderr and the CPU time (user + system) it
/// used. CPU time, unlike wall time, does not grow when other tests load the machine, so a
/// bound on it finds slow inputs without flaking on a busy CI runner.
// The child is reaped by wait4 (for its rusage), which std's `Child` cannot see.
#[allow(clippy::zombie_processes)]
fn run_for_cpu_time(root: &Path, args: &[&str]) -> (Option<i32>, String, Duration) {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("rusty-sdk"))
        .args(args)
        .current_dir(root)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet reaped; both pointers outlive the call.
    let reaped = unsafe { libc::wait4(pid, &raw mut status, 0, &raw mut usage) };
    assert_eq!(reaped, pid, "wait4: {}", std::io::Error::last_os_error());
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (
        code,
        stderr,
        timeval(usage.ru_utime) + timeval(usage.ru_stime),
    )
}

fn timeval(t: libc::timeval) -> Duration {
    Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
        + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
}

/// CPU time this thread has used so far (see [`run_for_cpu_time`] for why not wall time).
fn thread_cpu_time() -> Duration {
    // SAFETY: an all-zero timespec is valid; clock_gettime only writes it.
    let mut now: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: a valid clock id and a pointer to a live timespec.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut now) };
    assert_eq!(rc, 0, "clock_gettime: {}", std::io::Error::last_os_error());
    Duration::from_secs(u64::try_from(now.tv_sec).unwrap_or(0))
        + Duration::from_nanos(u64::try_from(now.tv_nsec).unwrap_or(0))
}

/// YAML-ish text: a valid file with random edits (structure characters, anchors, aliases,
/// deep nesting), so cases land near the grammar rather than in plain noise.
fn yaml_edits(base: &'static str) -> impl Strategy<Value = String> {
    let edit = prop_oneof![
        prop::sample::select(vec![
            "[",
            "{",
            "]",
            "}",
            ":",
            "- ",
            "&a ",
            "*a",
            "\n",
            "  ",
            "'",
            "\"",
            "#",
            "? ",
            "!!binary ",
            "\t",
            "<<: *a\n"
        ])
        .prop_map(String::from),
        "[a-zA-Z0-9 :.-]{0,12}",
        (1usize..3000).prop_map(|n| "[".repeat(n)),
        (1usize..3000).prop_map(|n| "- ".repeat(n)),
    ];
    prop::collection::vec((any::<prop::sample::Index>(), edit), 0..6).prop_map(move |edits| {
        let mut text = base.to_string();
        for (at, piece) in edits {
            let mut i = at.index(text.len() + 1);
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            text.insert_str(i, &piece);
        }
        text
    })
}

const PROJECT: &str = "domain: my.domain\nlayout:\n- hybrid.helm.rusty-sdk.dev/v1\nprojectName: fuzz-operator\nrepo: github.com/example/fuzz-operator\nresources:\n- api:\n    crdVersion: v1\n    namespaced: true\n  domain: my.domain\n  group: cache\n  kind: Memcached\n  version: v1\nversion: \"3\"\n";
const WATCHES: &str = "# +kubebuilder:scaffold:watch\n- group: cache.my.domain\n  version: v1\n  kind: Memcached\n  chart: helm-charts/memcached\n";

#[test]
fn project_and_watches_files_never_crash_the_cli() {
    let (_dir, root) = e2e::project_dir("fuzz-operator");
    let init = rusty(&root)
        .args(["init", "--plugins", "hybrid.helm", "-q"])
        .output()
        .unwrap();
    assert!(init.status.success());
    let project = std::fs::read_to_string(root.join("PROJECT")).unwrap();
    let mut runner = runner(cases(64));
    runner
        .run(&yaml_edits(PROJECT), |text| {
            std::fs::write(root.join("PROJECT"), &text).unwrap();
            settles(&root, &["generate", "rbac", "--dry-run"])?;
            settles(
                &root,
                &[
                    "--dry-run",
                    "create",
                    "api",
                    "--plugins",
                    "rust",
                    "--group",
                    "web",
                    "--version",
                    "v1",
                    "--kind",
                    "Site",
                    "--resource",
                    "--controller",
                ],
            )
        })
        .unwrap();
    std::fs::write(root.join("PROJECT"), &project).unwrap();
    runner
        .run(&yaml_edits(WATCHES), |text| {
            std::fs::write(root.join("watches.yaml"), &text).unwrap();
            settles(&root, &["generate", "rbac", "--dry-run"])
        })
        .unwrap();
}

/// A gzipped tar of `entries` (raw name, size), names written as given.
fn archive(entries: &[(String, u64)]) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut builder = tar::Builder::new(gz);
    for (name, size) in entries {
        let mut header = tar::Header::new_old();
        let bytes = name.as_bytes();
        let n = bytes.len().min(99);
        header.as_old_mut().name[..n].copy_from_slice(&bytes[..n]);
        header.set_size(*size);
        header.set_mode(0o644);
        header.set_entry_type(tar::EntryType::Regular);
        header.set_cksum();
        builder
            .append(&header, std::io::Read::take(std::io::repeat(b'a'), *size))
            .unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap()
}

#[test]
fn chart_archives_never_crash_or_balloon() {
    let entry = (
        prop_oneof![
            Just("c/Chart.yaml".to_string()),
            Just("c/templates/a.yaml".to_string()),
            Just("c/../../x".to_string()),
            Just("/abs".to_string()),
            Just("c/charts/sub.tgz".to_string()),
            "[a-z./]{0,40}",
        ],
        prop_oneof![8 => 0u64..4096, 1 => Just(5 << 20), 1 => Just((5 << 20) + 1)],
    );
    let strategy = (
        prop::collection::vec(entry, 0..12),
        prop::collection::vec(any::<(prop::sample::Index, u8)>(), 0..4),
    );
    let mut runner = runner(cases(200));
    runner
        .run(&strategy, |(entries, flips)| {
            let mut bytes = archive(&entries);
            for (at, value) in flips {
                let i = at.index(bytes.len().max(1));
                if let Some(b) = bytes.get_mut(i) {
                    *b = value;
                }
            }
            let start = thread_cpu_time();
            let _ = rusty_sdk_chart::archive::read_archive(Path::new("fuzz.tgz"), &bytes);
            let _ = rusty_sdk_chart::Chart::from_archive(Path::new("fuzz.tgz"), &bytes);
            let cpu = thread_cpu_time().checked_sub(start).unwrap();
            prop_assert!(cpu < Duration::from_secs(2), "took {cpu:?} of CPU time");
            Ok(())
        })
        .unwrap();
    let peak = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(String::from)
        });
    if let Some(line) = peak {
        let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        assert!(kib < 512 * 1024, "peak memory {kib} KiB");
    }
}
