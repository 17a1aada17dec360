//! Transcripts of the CLI: help, errors and exit codes.
use std::fmt::Write as _;

use crate::support::{rusty, snapshot_settings, transcript};

fn run_in_temp(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memcached-operator");
    std::fs::create_dir(&root).unwrap();
    let output = rusty(&root).args(args).output().unwrap();
    transcript(&output, &root)
}

#[test]
fn help_texts() {
    snapshot_settings().bind(|| {
        insta::assert_snapshot!("cli_help", run_in_temp(&["--help"]));
        insta::assert_snapshot!("cli_init_help", run_in_temp(&["init", "--help"]));
        insta::assert_snapshot!(
            "cli_create_api_help",
            run_in_temp(&["create", "api", "--help"])
        );
    });
}

#[test]
fn bad_init_flags_are_one_line_errors_with_exit_1() {
    let cases: &[(&str, &[&str])] = &[
        ("bad_plugin", &["init", "--plugins", "go/v4"]),
        (
            "bad_domain",
            &["init", "--plugins", "rust", "--domain", "My_Domain"],
        ),
        (
            "bad_repo",
            &[
                "init",
                "--plugins",
                "rust",
                "--repo",
                "https://github.com/x/y",
            ],
        ),
        (
            "bad_project_name",
            &["init", "--plugins", "rust", "--project-name", "Memcached"],
        ),
        (
            "bad_project_version",
            &["init", "--plugins", "rust", "--project-version", "2"],
        ),
        (
            "unknown_flag",
            &["init", "--plugins", "rust", "--frobnicate"],
        ),
    ];
    let mut all = String::new();
    for (name, args) in cases {
        let text = run_in_temp(args);
        assert!(text.starts_with("exit: 1\n"), "{name}: {text}");
        let _ = writeln!(all, "### {name}: rusty-sdk {}\n{text}", args.join(" "));
    }
    snapshot_settings().bind(|| insta::assert_snapshot!("cli_init_errors", all));
}

#[test]
fn version_names_what_generated_projects_pin() {
    let text = run_in_temp(&["version"]);
    let line = format!(
        "rusty-sdk version: \"{}\", commit: \"",
        env!("CARGO_PKG_VERSION")
    );
    assert!(
        text.starts_with(&format!("exit: 0\n--- stdout\n{line}")),
        "{text}"
    );
    for part in [
        "kube version: \"5.0.0\"",
        "k8s-openapi version: \"0.29.0\"",
        "kubernetes version: \"1.33\"",
        "helm version: \"v4.",
        "rustc version: \"1.",
    ] {
        assert!(text.contains(part), "{part} missing: {text}");
    }
    // The versions printed are the ones init writes.
    let dir = tempfile::tempdir().unwrap();
    rusty(dir.path())
        .args(["-q", "-C", "p", "init", "--plugins", "hybrid.helm"])
        .assert()
        .success();
    let manifest = std::fs::read_to_string(dir.path().join("p/Cargo.toml")).unwrap();
    assert!(
        manifest.contains("kube = { version = \"5.0.0\""),
        "{manifest}"
    );
    assert!(
        manifest.contains("k8s-openapi = { version = \"0.29.0\""),
        "{manifest}"
    );
    let dockerfile = std::fs::read_to_string(dir.path().join("p/Dockerfile")).unwrap();
    let helm = text
        .split("helm version: \"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    // No helm in the image: the version named is the Helm whose semantics the runtime's
    // release engine reproduces, the CLI the cluster suites hold it to.
    assert!(!dockerfile.contains("HELM_VERSION"), "{dockerfile}");
    let go_mod = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/hack/control-plane/helm/go.mod"
    ))
    .unwrap();
    let pinned = go_mod.lines().any(|line| {
        let mut words = line.split_whitespace();
        words.next() == Some("helm.sh/helm/v4") && words.next() == Some(helm)
    });
    assert!(pinned, "the suites' helm is not {helm}: {go_mod}");
}

#[test]
fn verbose_prints_a_plan_summary() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memcached-operator");
    std::fs::create_dir(&root).unwrap();
    let first = crate::support::rusty(&root)
        .args(["-v", "init", "--plugins", "rust"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&first.stdout);
    assert!(first.status.success(), "{text}");
    let files = crate::support::read_tree(&root).len();
    assert!(
        text.contains(&format!("{files} file(s): {files} created\n")),
        "{text}"
    );
    // A re-run that changes nothing says so.
    let again = crate::support::rusty(&root)
        .args(["-v", "generate", "rbac"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&again.stdout);
    assert!(
        text.contains("2 file(s): 2 identical; nothing to write\n"),
        "{text}"
    );
}

/// The commands docs/reference.md documents, each with the start of its section's heading.
const REFERENCE_SECTIONS: [(&[&str], &str); 10] = [
    (&["init"], "`rusty-sdk init`"),
    (&["create", "api"], "`rusty-sdk create api`"),
    (&["create", "webhook"], "`rusty-sdk create webhook`"),
    (&["generate", "rbac"], "`rusty-sdk generate rbac`"),
    (&["generate", "bundle"], "`rusty-sdk generate bundle`"),
    (&["bundle", "validate"], "`rusty-sdk bundle validate"),
    (&["edit"], "`rusty-sdk edit`"),
    (&["alpha", "generate"], "`rusty-sdk alpha generate`"),
    (&["alpha", "update"], "`rusty-sdk alpha generate`"),
    (&["version"], "Command reference"),
];

/// Flags a section names that belong to another command or tool, and why it names them.
const FLAGS_OF_OTHERS: [(&str, &str, &str); 6] = [
    (
        "`rusty-sdk create webhook`",
        "--external-api-crd",
        "create api's, for external kinds",
    ),
    (
        "`rusty-sdk create webhook`",
        "--webhook-cert-mode",
        "the manager's",
    ),
    (
        "`rusty-sdk create webhook`",
        "--webhook-cert-path",
        "the manager's",
    ),
    (
        "`rusty-sdk create webhook`",
        "--webhook-port",
        "the manager's",
    ),
    (
        "`rusty-sdk alpha generate`",
        "--namespace",
        "generate rbac's, which it replays",
    ),
    (
        "`rusty-sdk alpha generate`",
        "--plugins",
        "edit's, which it replays",
    ),
];

/// docs/reference.md's sections by heading (the text after `## `), with the text before the
/// first heading under the document's title.
fn reference_sections() -> Vec<(String, String)> {
    let text = include_str!("../../docs/reference.md");
    let mut sections: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("## ").or(line.strip_prefix("# ")) {
            sections.push((heading.to_string(), String::new()));
        } else if let Some((_, body)) = sections.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    sections
}

/// The long flags `text` names as flags (`--name` not inside a longer word).
fn flags_named(text: &str) -> std::collections::BTreeSet<String> {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-';
    let mut flags = std::collections::BTreeSet::new();
    for (at, _) in text.match_indices("--") {
        let start = at + 2;
        if (at > 0 && word(bytes[at - 1])) || !bytes.get(start).is_some_and(u8::is_ascii_lowercase)
        {
            continue;
        }
        let end = (start..bytes.len())
            .find(|&i| !word(bytes[i]))
            .unwrap_or(bytes.len());
        flags.insert(text[at..end].to_string());
    }
    flags
}

/// The long flags a `--help` text lists, split into the command's own and the global ones.
fn help_flags(help: &str) -> (Vec<String>, Vec<String>) {
    let (mut own, mut global) = (Vec::new(), Vec::new());
    let mut in_global = false;
    for line in help.lines() {
        if !line.starts_with(' ') {
            in_global = line == "Global options:";
            continue;
        }
        // Option lines are indented at most six columns; wrapped descriptions more.
        let indent = line.len() - line.trim_start().len();
        let Some(flag) = line
            .trim_start()
            .split([' ', ',', '=', '['])
            .find(|w| w.starts_with("--"))
        else {
            continue;
        };
        if indent <= 6 && line.trim_start().starts_with('-') && flag != "--help" {
            if in_global { &mut global } else { &mut own }.push(flag.to_string());
        }
    }
    (own, global)
}

/// Every flag `rusty-sdk <command> --help` lists is in docs/reference.md, in the command's
/// section or under Global options, and every flag a command's section names is one the
/// command takes (shown, or hidden and refused with a reason) or, listed in
/// [`FLAGS_OF_OTHERS`], one of the command or tool the text points to.
#[test]
fn the_reference_documents_every_flag_and_only_real_ones() {
    let sections = reference_sections();
    let section = |heading: &str| -> &str {
        let found = sections.iter().find(|(h, _)| h.starts_with(heading));
        &found
            .unwrap_or_else(|| panic!("docs/reference.md: no section {heading}"))
            .1
    };
    let globals_documented = flags_named(section("Global options"));
    let dir = tempfile::tempdir().unwrap();
    let mut problems = Vec::new();
    let mut taken: Vec<(&str, String)> = Vec::new();
    for (command, heading) in REFERENCE_SECTIONS {
        let output = rusty(dir.path())
            .args(command)
            .arg("--help")
            .output()
            .unwrap();
        assert!(output.status.success(), "{command:?} --help");
        let (own, global) = help_flags(&String::from_utf8_lossy(&output.stdout));
        let documented = flags_named(section(heading));
        let name = command.join(" ");
        for flag in &own {
            if !documented.contains(flag) {
                problems.push(format!(
                    "`{name}` takes {flag}, which its section {heading} does not name"
                ));
            }
        }
        for flag in global {
            if !globals_documented.contains(&flag) {
                problems.push(format!(
                    "`{name}` takes {flag}, which Global options does not name"
                ));
            }
            taken.push((heading, flag));
        }
        taken.extend(own.into_iter().map(|flag| (heading, flag)));
    }
    // The overview names other commands' flags; each command's section is checked here.
    let headings: std::collections::BTreeSet<&str> = REFERENCE_SECTIONS
        .iter()
        .map(|(_, heading)| *heading)
        .filter(|heading| *heading != "Command reference")
        .collect();
    for heading in headings {
        for flag in flags_named(section(heading)) {
            let shown = taken.iter().any(|(h, f)| *h == heading && *f == flag);
            let other = FLAGS_OF_OTHERS
                .iter()
                .any(|(h, f, _)| *h == heading && *f == flag);
            // A hidden flag (kubebuilder's Go-only ones) is taken, to be refused with a reason.
            let hidden = || {
                REFERENCE_SECTIONS
                    .iter()
                    .filter(|(_, h)| *h == heading)
                    .any(|(command, _)| {
                        let probe = rusty(dir.path())
                            .args(["--dry-run", "--no-interactive"])
                            .args(*command)
                            .arg(&flag)
                            .output()
                            .unwrap();
                        let unknown = format!("unexpected argument '{flag}'");
                        !String::from_utf8_lossy(&probe.stderr).contains(&unknown)
                    })
            };
            if !shown && !other && !hidden() {
                problems.push(format!(
                    "{heading} names {flag}, which the command does not take"
                ));
            }
        }
    }
    // An entry of FLAGS_OF_OTHERS must still be needed: named there, and not the command's.
    for (heading, flag, _) in FLAGS_OF_OTHERS {
        let named = flags_named(section(heading)).contains(flag);
        if !named || taken.iter().any(|(h, f)| *h == heading && f == flag) {
            problems.push(format!(
                "FLAGS_OF_OTHERS: {heading} {flag} is no longer needed"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "docs/reference.md:\n{}",
        problems.join("\n")
    );
}

/// The manager flags of a generated operator, as its `main.rs` takes them.
#[derive(clap::Parser)]
struct Operator {
    #[command(flatten)]
    manager: rusty_sdk_runtime::ManagerArgs,
    #[command(flatten)]
    helm: rusty_sdk_runtime::HelmArgs,
}

/// Every flag a generated operator takes (`ManagerArgs`, and `HelmArgs` with Helm APIs) is in
/// docs/reference.md's table of manager flags, and every flag the tables name is one it takes.
#[test]
fn the_reference_documents_every_manager_flag_and_only_real_ones() {
    let command = <Operator as clap::CommandFactory>::command();
    let (mut shown, mut hidden) = (Vec::new(), Vec::new());
    for arg in command.get_arguments() {
        if let Some(long) = arg.get_long() {
            let flag = format!("--{long}");
            if arg.is_hide_set() {
                &mut hidden
            } else {
                &mut shown
            }
            .push(flag);
        }
    }
    let sections = reference_sections();
    let (_, text) = sections
        .iter()
        .find(|(heading, _)| heading.starts_with("Manager flags"))
        .expect("docs/reference.md: no section Manager flags");
    // The tables' first column: the flags themselves, not those their notes mention.
    let tabled: std::collections::BTreeSet<String> = text
        .lines()
        .filter_map(|line| line.strip_prefix("| "))
        .flat_map(|line| flags_named(line.split(" | ").next().unwrap_or_default()))
        .collect();
    let undocumented: Vec<&String> = shown.iter().filter(|f| !tabled.contains(*f)).collect();
    let unknown: Vec<&String> = tabled
        .iter()
        .filter(|f| !shown.contains(f) && !hidden.contains(f))
        .collect();
    assert!(
        undocumented.is_empty() && unknown.is_empty(),
        "docs/reference.md, Manager flags: not documented {undocumented:?}; documented but not taken {unknown:?}"
    );
}

/// The commands `--help` lists, with the subcommands of those that have them
/// (`create api`), skipping clap's `help`.
fn commands_of(dir: &std::path::Path, parent: &[&str]) -> Vec<String> {
    let output = rusty(dir).args(parent).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&output.stdout).into_owned();
    let mut commands = Vec::new();
    let listed = help
        .lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| !line.is_empty());
    for line in listed {
        // A command's line starts two columns in; its wrapped description further.
        let Some(name) = line.strip_prefix("  ").filter(|l| !l.starts_with(' ')) else {
            continue;
        };
        let name = name.split_whitespace().next().unwrap_or_default();
        if name == "help" {
            continue;
        }
        let path: Vec<&str> = parent.iter().copied().chain([name]).collect();
        let subcommands = commands_of(dir, &path);
        if subcommands.is_empty() {
            commands.push(path.join(" "));
        }
        commands.extend(subcommands);
    }
    commands
}

/// docs/reference.md's overview lists every command rusty-sdk has, and each command with
/// flags has its section (checked above).
#[test]
fn the_reference_lists_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let sections = reference_sections();
    let overview = &sections[0].1;
    let commands = commands_of(dir.path(), &[]);
    assert!(commands.len() >= 10, "{commands:?}");
    let missing: Vec<&String> = commands
        .iter()
        .filter(|command| {
            !overview.lines().any(|line| {
                line.strip_prefix("  ")
                    .is_some_and(|l| l.starts_with(&format!("{command} ")))
            })
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/reference.md's overview lacks {missing:?}"
    );
    for command in commands
        .iter()
        .filter(|c| *c != "version" && !c.starts_with("completion"))
    {
        let listed = REFERENCE_SECTIONS
            .iter()
            .any(|(words, _)| words.join(" ") == *command);
        assert!(
            listed,
            "{command}: not in REFERENCE_SECTIONS, so its flags go unchecked"
        );
    }
}
