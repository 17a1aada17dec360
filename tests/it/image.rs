//! The image build of a fresh scaffold, without a container engine: the Dockerfile's
//! builder stage is replayed on the host with the paths it uses. The build context is
//! what .dockerignore lets in, the runtime source is the named context `make docker-build`
//! passes (placed where the Dockerfile copies it), `.cargo/config.toml` is written by the
//! Dockerfile's own command, then its cargo build runs. The final stage must copy every
//! file the operator reads.
use std::path::{Path, PathBuf};
use std::process::Command;

use rusty_sdk_test_tools::needs;

use crate::e2e::{must, project_dir};
use crate::support::rusty;

/// Instructions of a Dockerfile, continuation lines joined, comments left out.
fn instructions(dockerfile: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in dockerfile.lines() {
        if line.trim_start().starts_with('#') && current.is_empty() {
            continue;
        }
        if let Some(head) = line.strip_suffix('\\') {
            current.push_str(head);
        } else {
            current.push_str(line);
            if !current.trim().is_empty() {
                out.push(current.trim().to_string());
            }
            current.clear();
        }
    }
    out
}

/// The paths a `*` + `!path` .dockerignore lets into the build context.
fn allowed(dockerignore: &str) -> Vec<String> {
    let lines: Vec<&str> = dockerignore
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert_eq!(lines.first(), Some(&"*"), "{dockerignore}");
    lines[1..]
        .iter()
        .map(|l| {
            l.strip_prefix('!')
                .expect("only exceptions after *")
                .to_string()
        })
        .collect()
}

fn in_context(source: &str, allowed: &[String]) -> bool {
    let source = source.trim_end_matches('/').trim_end_matches('*');
    allowed
        .iter()
        .any(|a| source == a || source.starts_with(&format!("{a}/")))
}

fn copy_tree(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            copy_tree(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::copy(from, to).unwrap();
    }
}

/// The directory `make docker-build` passes as the `rusty-sdk-crates` context.
fn runtime_context(root: &Path) -> PathBuf {
    let output = Command::new(rusty_sdk_test_tools::path!(make))
        .current_dir(root)
        .args(["-n", "docker-build", "IMG=example.com/operator:v1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let argument = text
        .split_whitespace()
        .skip_while(|word| *word != "--build-context")
        .nth(1)
        .unwrap_or_else(|| panic!("no --build-context in `make -n docker-build`: {text}"));
    let dir = argument
        .strip_prefix("rusty-sdk-crates=")
        .unwrap_or_else(|| panic!("unexpected build context {argument}"));
    PathBuf::from(dir)
}

#[needs(e2e, make)]
#[test]
fn the_builder_stage_builds_a_fresh_scaffold_from_its_build_context() {
    let (_dir, root) = project_dir("e2e-image");
    for args in [
        &[
            "init",
            "--plugins",
            "hybrid.helm",
            "--domain",
            "example.com",
            "-q",
        ][..],
        &[
            "create",
            "api",
            "--plugins",
            "helm",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Memcached",
            "-q",
        ],
        &[
            "create",
            "api",
            "--plugins",
            "rust",
            "--group",
            "cache",
            "--version",
            "v1",
            "--kind",
            "Backup",
            "--resource",
            "--controller",
            "-q",
        ],
    ] {
        rusty(&root).args(args).assert().success();
    }
    // What `make docker-build` runs before the container build: the lock file, which
    // the scaffold does not have and the image build needs (it builds --locked).
    assert!(
        !root.join("Cargo.lock").exists(),
        "a scaffold has no lock yet"
    );
    let plan = String::from_utf8(
        Command::new(rusty_sdk_test_tools::path!(make))
            .current_dir(&root)
            .args([
                "-n",
                "docker-build",
                "IMG=example.com/operator:v1",
                "CARGO=cargo",
            ])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let lines: Vec<&str> = plan.lines().collect();
    assert_eq!(lines.len(), 2, "{plan}");
    assert_eq!(lines[0], "cargo fetch --quiet", "{plan}");
    assert!(lines[1].starts_with("docker build "), "{plan}");
    must(&root, "sh", &["-c", lines[0]]);
    assert!(root.join("Cargo.lock").is_file());
    let crates = runtime_context(&root);
    assert!(
        crates.join("runtime/Cargo.toml").is_file(),
        "{}",
        crates.display()
    );

    let dockerfile = std::fs::read_to_string(root.join("Dockerfile")).unwrap();
    let allowed = allowed(&std::fs::read_to_string(root.join(".dockerignore")).unwrap());
    let stage = tempfile::tempdir().unwrap();
    let workspace = stage.path().join("workspace");
    let crates_in_image = stage.path().join("rusty-sdk/crates");
    std::fs::create_dir_all(&workspace).unwrap();
    let mut stage_name = String::new();
    let mut cargo_command = None;
    let mut final_copies = Vec::new();
    for instruction in instructions(&dockerfile) {
        let (verb, rest) = instruction.split_once(' ').unwrap();
        match verb {
            "FROM" => stage_name = rest.rsplit(' ').next().unwrap().to_string(),
            "COPY" if rest.starts_with("--from=rusty-sdk-crates / /rusty-sdk/crates/") => {
                copy_tree(&crates, &crates_in_image);
            }
            "COPY" if rest.starts_with("--from=") => {}
            "COPY" => {
                let words: Vec<&str> = rest.split_whitespace().collect();
                let (sources, dest) = words.split_at(words.len() - 1);
                for source in sources {
                    assert!(
                        in_context(source, &allowed),
                        "{source} is not in the build context"
                    );
                    // A missing source fails `docker build`.
                    let from = root.join(source);
                    assert!(from.exists(), "COPY {source}: not in the scaffold");
                    if stage_name != "builder" {
                        final_copies.push(source.trim_end_matches('/').to_string());
                    } else if from.exists() {
                        let name = Path::new(source.trim_end_matches('/')).file_name().unwrap();
                        let to = if dest[0].ends_with('/') && !source.ends_with('/') {
                            workspace.join(dest[0]).join(name)
                        } else {
                            workspace.join(dest[0])
                        };
                        copy_tree(&from, &to);
                    }
                }
            }
            "RUN" if rest.contains(".cargo/config.toml") => {
                // The Dockerfile's own command, with the image's path mapped to the stage.
                let command =
                    rest.replace("/rusty-sdk/crates", &crates_in_image.display().to_string());
                must(&workspace, "sh", &["-c", &command]);
            }
            "RUN" if rest.contains("cargo build") => {
                let start = rest.find("cargo build").unwrap();
                let end = rest[start..].find("&&").map_or(rest.len(), |i| start + i);
                cargo_command = Some(rest[start..end].trim().to_string());
            }
            _ => {}
        }
    }
    let config = std::fs::read_to_string(workspace.join(".cargo/config.toml")).unwrap();
    assert!(
        config.contains(&crates_in_image.join("runtime").display().to_string()),
        "{config}"
    );

    let name = root.file_name().unwrap().to_string_lossy().into_owned();
    let command = cargo_command.expect("the builder stage runs cargo build");
    assert_eq!(
        command,
        format!("cargo build --locked --release --bin {name}")
    );
    // The same build in the dev profile, which shares the suite's build cache (a release
    // build would compile every dependency again and outgrow the CI disk); --locked fails
    // if the lock the Makefile wrote does not hold every package the image build needs.
    let _guard = crate::e2e::CARGO
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    must(
        &workspace,
        "cargo",
        &["build", "--locked", "--quiet", "--bin", &name],
    );
    assert!(crate::e2e::target_dir().join("debug").join(&name).is_file());

    // What the operator reads at run time is in the runtime image.
    for needed in ["watches.yaml", "helm-charts"] {
        assert!(
            final_copies.iter().any(|c| c == needed),
            "{needed}: {final_copies:?}"
        );
    }
    // Releases are made in process: no helm binary anywhere in the image.
    assert!(
        !dockerfile.to_lowercase().contains("get.helm.sh")
            && !dockerfile.contains("/usr/local/bin/helm"),
        "{dockerfile}"
    );
    assert!(dockerfile.contains("COPY --from=builder /workspace/manager /manager"));
}

/// The crates under crates/ that generated operators build (the runtime and what it
/// depends on), each with its own manifest spelling out the workspace's.
const LIBRARY_CRATES: [&str; 5] = [
    "runtime",
    "chart",
    "chart-schema",
    "helm-values",
    "gotemplate",
];

/// A manifest of this repository, parsed.
fn read(path: String) -> toml_edit::DocumentMut {
    std::fs::read_to_string(path).unwrap().parse().unwrap()
}

/// The library crates spell out the workspace's package fields (see their Cargo.toml);
/// they must not drift from the workspace's.
#[test]
fn library_crates_declare_the_workspace_package_fields() {
    let root = env!("CARGO_MANIFEST_DIR");
    let workspace = read(format!("{root}/Cargo.toml"));
    let fields = &workspace["workspace"]["package"];
    for krate in LIBRARY_CRATES {
        let manifest = read(format!("{root}/crates/{krate}/Cargo.toml"));
        for field in [
            "version",
            "edition",
            "rust-version",
            "license",
            "repository",
        ] {
            assert_eq!(
                manifest["package"][field].as_str(),
                fields[field].as_str(),
                "crates/{krate}: {field}"
            );
        }
    }
}

/// The library crates that opted into the workspace's lint floor spell it out
/// (`lints.workspace = true` cannot be read where the image build copies only crates/);
/// it must not drift from the root's.
#[test]
fn library_crates_declare_the_workspace_lints() {
    let root = env!("CARGO_MANIFEST_DIR");
    let workspace = read(format!("{root}/Cargo.toml"));
    let lints = |table: &toml_edit::Item| -> Vec<String> {
        let table = table.as_table_like().expect("a lints table");
        table
            .iter()
            .map(|(name, level)| format!("{name} = {}", level.to_string().trim()))
            .collect()
    };
    for krate in LIBRARY_CRATES {
        let manifest = read(format!("{root}/crates/{krate}/Cargo.toml"));
        assert_eq!(
            lints(&manifest["lints"]["clippy"]),
            lints(&workspace["workspace"]["lints"]["clippy"]),
            "crates/{krate}: [lints.clippy]"
        );
    }
}
