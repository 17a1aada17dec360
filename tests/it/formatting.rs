//! Generated Rust is written formatted: whatever the length of the names, every `.rs` file
//! of a project passes `rustfmt --check` after `init` and `create api`, run with no rustfmt
//! on their PATH (so the output cannot depend on whether rustfmt is installed).
use std::path::Path;
use std::process::Command as Process;

use rusty_sdk_test_tools::{needs, path};

use crate::support::{read_tree, rust_api_args, rusty};

/// A name of `n` characters: `first` then letters.
fn name(first: char, n: usize) -> String {
    let letters = "abcdefghijklmnopqrstuvwxyz".repeat(3);
    format!("{first}{}", &letters[..n.saturating_sub(1)])
}

/// Run a command of the CLI in `dir` with an empty PATH.
fn run(dir: &Path, args: &[&str]) {
    let empty = tempfile::tempdir().unwrap();
    let output = rusty(dir)
        .env("PATH", empty.path())
        .args(args)
        .arg("-q")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The files rustfmt would change, with its diff.
#[expect(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "rustfmt formats only `.rs` files"
)]
fn unformatted(root: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    for path in read_tree(root).keys().filter(|p| p.ends_with(".rs")) {
        let output = Process::new(path!(rustfmt))
            .args([
                "--edition",
                "2024",
                "--check",
                "--config",
                "skip_children=true",
            ])
            .arg(root.join(path))
            .output()
            .unwrap();
        if !output.status.success() {
            problems.push(format!(
                "{path}:\n{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    problems
}

/// One project per layout and project-name length, every kind length in it.
#[needs(rustfmt)]
#[test]
fn generated_rust_is_formatted_at_every_name_length() {
    let mut problems = Vec::new();
    for (layout, project_len, group_len) in
        // 28: the longest project name (its metrics Service name has at most 63).
        [("rust", 2, 1), ("hybrid.helm", 20, 24), ("rust", 28, 63)]
    {
        let dir = tempfile::tempdir().unwrap();
        let project = name('p', project_len);
        run(
            dir.path(),
            &[
                "init",
                "--plugins",
                layout,
                "--domain",
                "example.com",
                "--project-name",
                &project,
            ],
        );
        let group = name('g', group_len);
        for kind_len in [1, 9, 16, 17, 26, 35, 44, 53, 63] {
            let kind = name('K', kind_len);
            let scope = if kind_len % 2 == 0 {
                "--namespaced=false"
            } else {
                "--namespaced"
            };
            run(
                dir.path(),
                &[
                    "create",
                    "api",
                    "--plugins",
                    "rust",
                    "--group",
                    &group,
                    "--version",
                    "v1",
                    "--kind",
                    &kind,
                    "--resource",
                    "--controller",
                    scope,
                ],
            );
        }
        // The same kind lengths with the deploy-image controller, in a second version.
        for kind_len in [1, 16, 40, 63] {
            let kind = name('I', kind_len);
            run(
                dir.path(),
                &[
                    "create",
                    "api",
                    "--plugins",
                    "deploy-image/v1-alpha",
                    "--group",
                    &group,
                    "--version",
                    "v2",
                    "--kind",
                    &kind,
                    "--image",
                    "registry.example.com/some-organisation/some-team/memcached-exporter:1.6.26-alpine",
                    "--image-container-command",
                    "memcached,-m=64,-o,modern,-v,--threads=4",
                    "--image-container-port",
                    "11211",
                    "--run-as-user",
                    "1001",
                ],
            );
        }
        // Controllers for Kubernetes' own kinds, one of the longest among them included.
        for (group, kind) in [
            ("apps", "Deployment"),
            ("admissionregistration", "MutatingWebhookConfiguration"),
        ] {
            let mut args = rust_api_args(group, "v1", kind);
            args.retain(|arg| arg != "--resource");
            args.push("--resource=false".into());
            run(
                dir.path(),
                &args.iter().map(String::as_str).collect::<Vec<_>>(),
            );
        }
        problems.extend(
            unformatted(dir.path())
                .into_iter()
                .map(|p| format!("{layout} {project}: {p}")),
        );
    }
    assert!(
        problems.is_empty(),
        "rustfmt would change:\n{}",
        problems.join("\n")
    );
}
