//! `rusty-sdk init`: the files of each layout, re-runs, dry runs and failures.
use std::path::{Path, PathBuf};

use rusty_sdk_test_tools::{needs, path};

use crate::support::{read_tree, rusty, snapshot_settings, transcript};

const LOCAL_LINK: &str = ".cargo/config.toml";

fn init(root: &Path, layout: &str) -> std::process::Output {
    rusty(root)
        .args(["init", "--plugins", layout, "--domain", "my.domain"])
        .args(["--repo", "github.com/example/memcached-operator"])
        .output()
        .unwrap()
}

fn project_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memcached-operator");
    std::fs::create_dir(&root).unwrap();
    (dir, root)
}

#[test]
fn every_generated_file_is_snapshotted_per_layout() {
    for layout in ["hybrid.helm", "helm", "rust"] {
        let (_dir, root) = project_dir();
        let output = init(&root, layout);
        assert!(output.status.success(), "{}", transcript(&output, &root));
        let files = read_tree(&root);
        let listing: Vec<&str> = files.keys().map(String::as_str).collect();
        let short = layout.replace('.', "_");
        snapshot_settings().bind(|| {
            insta::assert_snapshot!(format!("init_{short}_output"), transcript(&output, &root));
            insta::assert_snapshot!(format!("init_{short}_files"), listing.join("\n"));
            for (path, bytes) in &files {
                if path == LOCAL_LINK {
                    continue; // machine-local by design, checked below
                }
                let name = format!("init_{short}__{}", path.replace('/', "__"));
                insta::assert_snapshot!(name, String::from_utf8_lossy(bytes));
            }
        });
        let link = String::from_utf8_lossy(&files[LOCAL_LINK]).into_owned();
        let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/runtime");
        assert!(
            link.contains(&format!(
                "rusty-sdk-runtime = {{ path = \"{}\" }}",
                runtime.display()
            )),
            "{link}"
        );
    }
}

#[test]
fn output_is_the_same_on_any_machine_except_the_local_link() {
    let (_a, first) = project_dir();
    let (_b, second) = project_dir();
    assert!(init(&first, "hybrid.helm").status.success());
    let output = rusty(&second)
        .args([
            "init",
            "--plugins",
            "hybrid.helm",
            "--repo",
            "github.com/example/memcached-operator",
        ])
        .args([
            "--runtime-path",
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("crates/runtime/")
                .display()
                .to_string(),
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &second));
    let mut a = read_tree(&first);
    let mut b = read_tree(&second);
    a.remove(LOCAL_LINK);
    b.remove(LOCAL_LINK);
    assert_eq!(a, b);
    for (path, bytes) in &a {
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !text.contains(&*first.display().to_string()),
            "{path} mentions the project path"
        );
        assert!(
            !text.contains(env!("CARGO_MANIFEST_DIR")),
            "{path} mentions the rusty-sdk path"
        );
    }
}

#[test]
fn second_init_fails_and_changes_no_byte() {
    let (_dir, root) = project_dir();
    assert!(init(&root, "rust").status.success());
    let before = read_tree(&root);
    let output = init(&root, "hybrid.helm");
    let text = transcript(&output, &root);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("already holds a project (PROJECT exists)"),
        "{text}"
    );
    assert_eq!(read_tree(&root), before);
}

#[test]
fn dry_run_lists_every_file_and_writes_nothing() {
    let (_dir, root) = project_dir();
    let output = rusty(&root)
        .args(["init", "--plugins", "hybrid.helm", "--dry-run"])
        .output()
        .unwrap();
    let text = transcript(&output, &root);
    assert!(output.status.success(), "{text}");
    assert!(read_tree(&root).is_empty(), "dry run wrote files");
    // Every file a real run creates is listed.
    let (_dir2, real) = project_dir();
    assert!(
        rusty(&real)
            .args(["init", "--plugins", "hybrid.helm"])
            .output()
            .unwrap()
            .status
            .success()
    );
    for path in read_tree(&real).keys() {
        assert!(
            text.contains(&format!("      create  {path}\n")),
            "{path} missing from:\n{text}"
        );
    }
    assert!(text.contains("dry run: nothing was written"), "{text}");
}

#[test]
fn files_in_the_way_are_listed_before_anything_is_written() {
    let (_dir, root) = project_dir();
    std::fs::write(root.join("Makefile"), "my own\n").unwrap();
    std::fs::write(root.join("Dockerfile"), "FROM scratch\n").unwrap();
    let before = read_tree(&root);
    let output = init(&root, "rust");
    let text = transcript(&output, &root);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("2 conflicting file(s), nothing was written"),
        "{text}"
    );
    assert!(
        text.contains("  Makefile: exists with different content"),
        "{text}"
    );
    assert!(
        text.contains("  Dockerfile: exists with different content"),
        "{text}"
    );
    assert!(
        output.stdout.is_empty(),
        "no `create` lines for a refused init:\n{text}"
    );
    assert_eq!(read_tree(&root), before);
}

#[test]
fn a_commit_failing_halfway_leaves_the_directory_as_it_was() {
    let (_dir, root) = project_dir();
    // A file standing where the config/ folder must go.
    std::fs::write(root.join("config"), "not a folder\n").unwrap();
    let before = read_tree(&root);
    let output = init(&root, "hybrid.helm");
    let text = transcript(&output, &root);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(
        text.contains("config: is a file, but a directory is needed there"),
        "{text}"
    );
    assert_eq!(read_tree(&root), before);
    let entries = std::fs::read_dir(&root).unwrap().count();
    assert_eq!(entries, 1, "only the original file remains");
}

#[needs(sys_kernel)]
#[test]
fn an_unwritable_directory_is_a_one_line_error() {
    // /sys refuses new entries even to root, unlike a chmod-ed folder.
    let target = Path::new(path!(sys_kernel)).join("rusty-sdk-test-project");
    let cwd = tempfile::tempdir().unwrap();
    let output = rusty(cwd.path())
        .args([
            "-C",
            &target.display().to_string(),
            "init",
            "--plugins",
            "rust",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: /sys/kernel/rusty-sdk-test-project: "),
        "{stderr}"
    );
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert!(!target.exists());
}

/// Each `make` target a `run:` script of `text` names, in order (`make --flag target`
/// counts; variables such as `IMG=x` do not).
pub fn make_targets(text: &str) -> Vec<String> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ';' | '&' | '|' | '"' | '`'))
        .filter(|word| !word.is_empty())
        .collect();
    let mut targets = Vec::new();
    for (i, word) in words.iter().enumerate() {
        if *word != "make" {
            continue;
        }
        let after = words[i + 1..]
            .iter()
            .find(|word| !word.starts_with('-') && !word.contains('='));
        targets.extend(after.map(|target| (*target).to_string()));
    }
    targets
}

/// The workflows of every layout are valid YAML whose jobs only run `make` targets the
/// generated Makefile has, set up Rust from the project's rust-toolchain.toml, and the
/// devcontainer's JSON names a setup script that is there.
#[needs(bash)]
#[test]
fn ci_workflows_and_devcontainer_run_what_the_project_has() {
    for layout in ["hybrid.helm", "helm", "rust"] {
        let (_dir, root) = project_dir();
        let output = init(&root, layout);
        assert!(output.status.success(), "{}", transcript(&output, &root));
        let makefile = std::fs::read_to_string(root.join("Makefile")).unwrap();
        let has_target = |target: &str| {
            makefile.lines().any(|line| {
                line.strip_prefix(target)
                    .is_some_and(|rest| rest.starts_with(':'))
            })
        };
        let toolchain = std::fs::read_to_string(root.join("rust-toolchain.toml")).unwrap();
        assert!(
            toolchain.contains(&format!("channel = \"{}\"", rusty_sdk::versions::TOOLCHAIN)),
            "{toolchain}"
        );
        let workflows: Vec<_> = std::fs::read_dir(root.join(".github/workflows"))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        let mut targets_run = 0;
        for path in &workflows {
            let text = std::fs::read_to_string(path).unwrap();
            let workflow: serde_yaml::Value = serde_yaml::from_str(&text)
                .unwrap_or_else(|e| panic!("{layout}: {}: {e}", path.display()));
            assert_eq!(
                workflow["permissions"],
                serde_yaml::Value::Mapping(serde_yaml::Mapping::new()),
                "{}: no token permissions beyond each job's",
                path.display()
            );
            let jobs = workflow["jobs"].as_mapping().expect("jobs");
            assert!(!jobs.is_empty(), "{}", path.display());
            for (name, job) in jobs {
                let steps = job["steps"].as_sequence().expect("steps");
                let runs: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
                assert!(
                    runs.contains(&"rustup toolchain install"),
                    "{}: job {name:?} does not install the pinned toolchain",
                    path.display()
                );
                for run in runs {
                    // The kind binary of the runner's architecture, as the devcontainer's.
                    assert!(
                        !run.contains("kind-linux-") || run.contains("kind-linux-$("),
                        "{}: {run} fixes kind's architecture",
                        path.display()
                    );
                    for target in make_targets(run) {
                        assert!(
                            has_target(&target),
                            "{layout}: {} runs `make {target}`, which the Makefile lacks",
                            path.display()
                        );
                        targets_run += 1;
                    }
                }
            }
        }
        assert!(
            targets_run >= 3,
            "{layout}: the workflows run only {targets_run} make targets"
        );
        // AGENTS.md tells agents which targets to run: each is one the Makefile has.
        let agents = std::fs::read_to_string(root.join("AGENTS.md")).unwrap();
        let named = make_targets(&agents);
        assert!(named.len() >= 6, "{layout}: AGENTS.md names {named:?}");
        for target in named {
            assert!(
                has_target(&target),
                "{layout}: AGENTS.md names `make {target}`, which the Makefile lacks"
            );
        }
        let devcontainer: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root.join(".devcontainer/devcontainer.json")).unwrap(),
        )
        .unwrap();
        let setup = devcontainer["onCreateCommand"].as_str().unwrap();
        let script = setup.strip_prefix("bash ").unwrap();
        assert!(root.join(script).is_file(), "{setup}: no {script}");
        let parsed = std::process::Command::new(path!(bash))
            .args(["-n", script])
            .current_dir(&root)
            .output()
            .unwrap();
        assert!(
            parsed.status.success(),
            "{script} is no bash script: {}",
            String::from_utf8_lossy(&parsed.stderr)
        );
        // The devcontainer and the image's builder carry the release rust-toolchain.toml
        // pins, not whatever patch release a floating tag names that day.
        let image = format!("rust:{}-bookworm", rusty_sdk::versions::TOOLCHAIN);
        assert_eq!(devcontainer["image"].as_str(), Some(image.as_str()));
        let dockerfile = std::fs::read_to_string(root.join("Dockerfile")).unwrap();
        assert!(
            dockerfile.contains(&format!("\nFROM {image} AS builder\n")),
            "{dockerfile}"
        );
    }
}

#[test]
fn make_targets_are_read_from_run_scripts() {
    assert_eq!(make_targets("make lint"), ["lint"]);
    assert_eq!(
        make_targets("echo \"X=$(make --no-print-directory setup-envtest)\" >> f"),
        ["setup-envtest"]
    );
    assert_eq!(
        make_targets("cargo fetch\nmake test-e2e IMG=x && make deploy"),
        ["test-e2e", "deploy"]
    );
    assert!(make_targets("cargo install rusty-sdk").is_empty());
    assert_eq!(
        make_targets("run `make lint` before `make test-e2e IMG=x`"),
        ["lint", "test-e2e"]
    );
}

/// `make test-e2e` on a fresh Kind cluster: once the project has webhooks, config/default
/// holds cert-manager's Certificates, so `setup-cert-manager` installs the pinned
/// cert-manager before the manager is deployed, as kubebuilder's e2e suite does. It leaves
/// the cluster alone when the manifests need no cert-manager, when the cluster has it, when
/// `DEPLOY_CONFIG` is the self-signed tree, and under `CERT_MANAGER_INSTALL_SKIP=true`.
#[needs(make, kubectl, bash)]
#[test]
fn test_e2e_installs_cert_manager_when_the_manifests_need_it() {
    let (dir, root) = project_dir();
    let output = init(&root, "rust");
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let create = |args: &str| {
        let output = rusty(&root).args(args.split_whitespace()).output().unwrap();
        assert!(output.status.success(), "{}", transcript(&output, &root));
    };
    create("create api --group cache --version v1 --kind Backup --resource --controller");

    // kubectl as the cluster: `kustomize` is the real one, `get crd` answers as a cluster
    // with (CRDS=present) or without cert-manager, and every call is recorded.
    let calls = dir.path().join("kubectl-calls");
    let kubectl = dir.path().join("kubectl");
    std::fs::write(
        &kubectl,
        format!(
            "#!{bash}\necho \"$*\" >> '{calls}'\n\
             [ \"$1\" = kustomize ] && exec '{real}' \"$@\"\n\
             [ \"$1 $2\" = 'get crd' ] && [ \"$CRDS\" != present ] && exit 1\n\
             exit 0\n",
            bash = rusty_sdk_test_tools::path!(bash),
            calls = calls.display(),
            real = rusty_sdk_test_tools::path!(kubectl),
        ),
    )
    .unwrap();
    let mut mode = std::fs::metadata(&kubectl).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
    std::fs::set_permissions(&kubectl, mode).unwrap();
    // `manifests` (crdgen, a cargo build) is taken as done: the scaffold wrote the CRDs.
    let setup = |env: &[(&str, &str)]| {
        let _ = std::fs::remove_file(&calls);
        let output = std::process::Command::new(rusty_sdk_test_tools::path!(make))
            .args(["-o", "manifests", "setup-cert-manager"])
            .arg(format!("KUBECTL={}", kubectl.display()))
            .envs(env.iter().copied())
            .current_dir(&root)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        let called = std::fs::read_to_string(&calls).unwrap_or_default();
        called.lines().map(str::to_string).collect::<Vec<_>>()
    };
    let install = format!(
        "apply -f https://github.com/cert-manager/cert-manager/releases/download/{}/cert-manager.yaml",
        rusty_sdk::versions::CERT_MANAGER
    );

    assert_eq!(setup(&[]), ["kustomize config/default"], "no webhooks yet");
    create("create webhook --group cache --version v1 --kind Backup --defaulting");
    assert_eq!(
        setup(&[]),
        [
            "kustomize config/default",
            "get crd certificates.cert-manager.io",
            install.as_str(),
            "wait --for=condition=Available --timeout=300s -n cert-manager deployment --all",
        ]
    );
    assert_eq!(
        setup(&[("CRDS", "present")]),
        [
            "kustomize config/default",
            "get crd certificates.cert-manager.io"
        ]
    );
    assert_eq!(
        setup(&[("DEPLOY_CONFIG", "config/self-signed")]),
        ["kustomize config/self-signed"]
    );
    assert!(setup(&[("CERT_MANAGER_INSTALL_SKIP", "true")]).is_empty());

    // test-e2e installs it into its own Kind cluster, whatever the current context is.
    let planned = std::process::Command::new(rusty_sdk_test_tools::path!(make))
        .args(["-n", "test-e2e", "KUBECTL=kubectl"])
        .current_dir(&root)
        .output()
        .unwrap();
    let planned = String::from_utf8_lossy(&planned.stdout);
    let cluster = format!("{}-test-e2e", root.file_name().unwrap().to_string_lossy());
    assert!(
        planned.contains(&format!(
            "setup-cert-manager KUBECTL='kubectl --context kind-{cluster}'"
        )),
        "{planned}"
    );
}
