//! `init --plugins helm` with `--group/--version/--kind/--helm-chart*`: the project and its
//! first Helm API in one step, as operator-sdk's helm plugin does, written as one commit.
use std::fmt::Write as _;
use std::os::unix::process::ExitStatusExt;

use super::*;

const INIT_HELM: &[&str] = &["init", "--plugins", "helm", "--domain", "example.com"];

/// Run `args` in a fresh `nginx-operator` folder next to a copy of the web-app chart.
fn fresh(args: &[&str]) -> (tempfile::TempDir, PathBuf, std::process::Output) {
    let (dir, root) = crate::e2e::project_dir("nginx-operator");
    write_files(&dir.path().join("web"), WEB_CHART);
    let output = run(&root, args);
    (dir, root, output)
}

/// The paths whose content differs between two trees, or that only one has.
fn differing(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let mut paths: Vec<String> = a
        .keys()
        .chain(b.keys())
        .filter(|path| a.get(*path) != b.get(*path))
        .cloned()
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

fn with(extra: &[&'static str]) -> Vec<&'static str> {
    INIT_HELM.iter().chain(extra).copied().collect()
}

#[test]
fn init_with_an_api_writes_what_init_then_create_api_writes() {
    let flag_sets: &[&[&str]] = &[
        &["--group", "demo", "--version", "v1", "--kind", "Nginx"],
        &["--helm-chart", "../web"],
        &[
            "--kind",
            "Site",
            "--helm-chart",
            "../web",
            "--helm-chart-version",
            "9.9.9",
            // operator-sdk's deprecated flag, at the one value it may have here.
            "--crd-version",
            "v1",
        ],
    ];
    for flags in flag_sets {
        let (_one_dir, one_step, output) = fresh(&with(flags));
        assert!(
            output.status.success(),
            "{}",
            transcript(&output, &one_step)
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains("Next: install the CRD and run the operator"),
            "the note is create api's: {stdout}"
        );

        let (_two_dir, two_steps, output) = fresh(INIT_HELM);
        assert!(
            output.status.success(),
            "{}",
            transcript(&output, &two_steps)
        );
        let api: Vec<&str> = ["create", "api"].iter().chain(*flags).copied().collect();
        run_ok(&two_steps, &api);

        let (one, two) = (read_tree(&one_step), read_tree(&two_steps));
        assert!(
            one.contains_key("watches.yaml") && one.keys().any(|p| p.starts_with("helm-charts/"))
        );
        let differing = differing(&one, &two);
        assert!(differing.is_empty(), "{flags:?}: {differing:?}");
    }
}

#[test]
fn init_api_flags_are_checked_before_anything_is_written() {
    let cases: &[(&str, &[&str])] = &[
        (
            "rust_layout",
            &["init", "--plugins", "rust", "--kind", "Nginx"],
        ),
        (
            "hybrid_layout",
            &["init", "--plugins", "hybrid.helm", "--helm-chart", "../web"],
        ),
        (
            "invalid_kind",
            &["init", "--plugins", "helm", "--kind", "nginx"],
        ),
        (
            "invalid_group",
            &[
                "init",
                "--plugins",
                "helm",
                "--group",
                "Web",
                "--kind",
                "Nginx",
            ],
        ),
        (
            "missing_chart",
            &["init", "--plugins", "helm", "--helm-chart", "../nowhere"],
        ),
        (
            "repo_without_chart",
            &[
                "init",
                "--plugins",
                "helm",
                "--kind",
                "Nginx",
                "--helm-chart-repo",
                "https://charts.example.com",
            ],
        ),
        (
            "version_without_kind_or_chart",
            &["init", "--plugins", "helm", "--version", "v1"],
        ),
        (
            "crd_version_v1beta1",
            &[
                "init",
                "--plugins",
                "helm",
                "--kind",
                "Nginx",
                "--crd-version",
                "v1beta1",
            ],
        ),
    ];
    let mut all = String::new();
    for (name, args) in cases {
        let (dir, root, output) = fresh(args);
        let text = transcript(&output, &root).replace(&dir.path().display().to_string(), "[TMP]");
        assert!(text.starts_with("exit: 1\n"), "{name}: {text}");
        assert_eq!(
            text.lines().filter(|l| l.starts_with("error:")).count(),
            1,
            "{name}: one error line\n{text}"
        );
        assert_eq!(
            read_tree(&root),
            BTreeMap::new(),
            "{name}: something was written"
        );
        let _ = writeln!(all, "### {name}: rusty-sdk {}\n{text}", args.join(" "));
    }
    snapshot_settings().bind(|| insta::assert_snapshot!("helm_api_init_errors", all));
}

/// Killed at any step of its commit, `init` with an API leaves nothing or, once past the
/// commit point, the next command finishes it: never a project without its API.
#[test]
fn init_with_an_api_killed_at_any_step_is_all_or_nothing() {
    let flags = with(&["--group", "demo", "--version", "v1", "--kind", "Nginx"]);
    let (_done_dir, done, output) = fresh(&flags);
    assert!(output.status.success(), "{}", transcript(&output, &done));
    let after = read_tree(&done);
    let (mut rolled_back, mut rolled_forward) = (0, 0);
    let mut n = 1;
    loop {
        let (_dir, root) = crate::e2e::project_dir("nginx-operator");
        let output = rusty(&root)
            .args(&flags)
            .env("RUSTY_SDK_FAULT", format!("kill:{n}"))
            .output()
            .unwrap();
        if output.status.success() {
            break;
        }
        assert_eq!(
            output.status.signal(),
            Some(9),
            "kill at step {n}: {}",
            transcript(&output, &root)
        );
        // Any command settles what the killed one left (a dry run writes nothing itself).
        let next = rusty(&root)
            .args(["--dry-run"])
            .args(&flags)
            .output()
            .unwrap();
        let text = transcript(&next, &root);
        let now: BTreeMap<String, Vec<u8>> = read_tree(&root)
            .into_iter()
            .filter(|(path, _)| !path.starts_with(".rusty"))
            .collect();
        if now.is_empty() {
            assert!(next.status.success(), "kill at step {n}: {text}");
            rolled_back += 1;
        } else {
            assert!(text.contains("finished it"), "kill at step {n}: {text}");
            let differing = differing(&now, &after);
            assert!(differing.is_empty(), "kill at step {n}: {differing:?}");
            rolled_forward += 1;
        }
        n += 1;
        assert!(n < 1000, "the commit never finished");
    }
    assert!(
        rolled_back > 10 && rolled_forward > 0,
        "{rolled_back} {rolled_forward}"
    );
}
