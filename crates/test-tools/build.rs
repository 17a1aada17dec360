//! Decides, when the tests are built, which of the tools and data sets the suite needs are
//! here, and writes the answer for the macros in `src/lib.rs`. Under `CI=true` anything
//! missing fails the build with one line saying what and how to get it: CI must run every
//! test. Each probe tells cargo what to watch, so installing a tool decides again.
use std::path::{Path, PathBuf};
use std::process::Command;

/// One thing a test may need.
struct Need {
    name: &'static str,
    /// Where it was found, or why it is missing and how to get it.
    found: Result<PathBuf, String>,
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    for var in ["CI", "PATH"] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let control_plane = control_plane(&workspace);
    let in_control_plane = |tool: &str| {
        control_plane
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|dir| {
                executable(&dir.join(tool))
                    .ok_or_else(|| format!("{tool} not in {}", dir.display()))
            })
    };
    let needs = [
        Need {
            name: "kubectl",
            found: in_control_plane("kubectl"),
        },
        Need {
            name: "helm",
            found: in_control_plane("helm"),
        },
        // The folder itself, for the suites on a real control plane (tests/it/cluster).
        Need {
            name: "control_plane",
            found: ["etcd", "kube-apiserver", "kube-controller-manager"]
                .into_iter()
                .try_for_each(|binary| in_control_plane(binary).map(drop))
                .and_then(|()| control_plane.clone()),
        },
        Need {
            name: "charts_corpus",
            found: charts_corpus(&workspace),
        },
        Need {
            name: "kubernetes_validate",
            found: on_path(
                "kubernetes-validate",
                "pip install kubernetes-validate (.ci/run puts it in a venv)",
            ),
        },
        Need {
            name: "make",
            found: on_path("make", "install make (apt-get install make)"),
        },
        Need {
            name: "bash",
            found: on_path("bash", "install bash (apt-get install bash)"),
        },
        Need {
            name: "rustfmt",
            found: on_path("rustfmt", "rustup component add rustfmt"),
        },
        Need {
            name: "cargo_fmt",
            found: on_path("cargo-fmt", "rustup component add rustfmt"),
        },
        Need {
            name: "dev_full",
            found: device("/dev/full", "a Linux /dev with /dev/full"),
        },
        Need {
            name: "sys_kernel",
            found: device("/sys/kernel", "a Linux /sys mounted"),
        },
        Need {
            name: "tmpfs_mount",
            found: can_mount(),
        },
        Need {
            name: "e2e",
            found: end_to_end(),
        },
    ];
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        let missing: Vec<String> = needs
            .iter()
            .filter_map(|n| {
                n.found
                    .as_ref()
                    .err()
                    .map(|why| format!("{}: {why}", n.name))
            })
            .collect();
        if !missing.is_empty() {
            eprintln!(
                "error: CI=true, and the test suite would skip tests: {}",
                missing.join("; ")
            );
            std::process::exit(1);
        }
    }
    // The one line a newcomer sees: which suites this build ignores, and why.
    let missing: Vec<String> = needs
        .iter()
        .filter_map(|n| {
            n.found
                .as_ref()
                .err()
                .map(|why| format!("{} ({why})", n.name))
        })
        .collect();
    if !missing.is_empty() {
        println!(
            "cargo::warning=tests needing these are ignored in this build: {}",
            missing.join("; ")
        );
    }
    let table: String = needs
        .iter()
        .map(|n| match &n.found {
            Ok(path) => format!(
                "    ({:?}, Ok({:?})),\n",
                n.name,
                path.display().to_string()
            ),
            Err(why) => format!("    ({:?}, Err({why:?})),\n", n.name),
        })
        .collect();
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("needs.rs");
    std::fs::write(
        out,
        format!("const NEEDS: &[(&str, Result<&str, &str>)] = &[\n{table}];\n"),
    )
    .unwrap();
}

fn executable(path: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(path).ok()?;
    (meta.is_file() && meta.permissions().mode() & 0o111 != 0).then(|| path.to_path_buf())
}

/// `tool` in a folder of PATH. Each folder is watched, so installing the tool decides again.
fn on_path(tool: &str, how: &str) -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .filter(|d| d.is_absolute() && d.is_dir())
        .collect();
    match dirs.iter().find_map(|dir| executable(&dir.join(tool))) {
        Some(found) => {
            println!("cargo::rerun-if-changed={}", found.display());
            Ok(found)
        }
        None => {
            for dir in &dirs {
                println!("cargo::rerun-if-changed={}", dir.display());
            }
            Err(format!("{tool} not found on PATH; {how}"))
        }
    }
}

fn device(path: &str, what: &str) -> Result<PathBuf, String> {
    Path::new(path)
        .exists()
        .then(|| PathBuf::from(path))
        .ok_or_else(|| format!("{path} not found; needs {what}"))
}

/// The folder holding kubectl and helm: `RUSTY_SDK_CONTROL_PLANE`, else the one
/// `hack/control-plane.sh --check` prints once it is built.
fn control_plane(workspace: &Path) -> Result<PathBuf, String> {
    println!("cargo::rerun-if-env-changed=RUSTY_SDK_CONTROL_PLANE");
    if let Some(dir) = std::env::var_os("RUSTY_SDK_CONTROL_PLANE") {
        let dir = PathBuf::from(dir);
        println!("cargo::rerun-if-changed={}", dir.display());
        return if dir.is_dir() {
            Ok(dir)
        } else {
            Err(format!(
                "RUSTY_SDK_CONTROL_PLANE={} is not a folder; unset it or run hack/control-plane.sh",
                dir.display()
            ))
        };
    }
    let script = workspace.join("hack/control-plane.sh");
    println!(
        "cargo::rerun-if-changed={}",
        workspace.join("hack/control-plane").display()
    );
    // Where the script keeps its builds (its `root`): a first build there decides again.
    for var in ["RUSTY_SDK_CONTROL_PLANE_CACHE", "XDG_CACHE_HOME", "HOME"] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let cache = std::env::var_os("RUSTY_SDK_CONTROL_PLANE_CACHE")
        .map(PathBuf::from)
        .or_else(|| {
            let base = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
            Some(base.join("rusty-sdk/control-plane"))
        });
    if let Some(watch) = cache
        .iter()
        .flat_map(|c| [c.clone(), c.join("..")])
        .find(|d| d.is_dir())
    {
        println!("cargo::rerun-if-changed={}", watch.display());
    }
    let how = "run hack/control-plane.sh (builds kubectl and helm from Go modules, about 15 minutes) or set RUSTY_SDK_CONTROL_PLANE to a folder holding them";
    if !script.is_file() {
        return Err(format!("{} not found; {how}", script.display()));
    }
    let output = Command::new("bash")
        .arg(&script)
        .arg("--check")
        .output()
        .map_err(|e| format!("{} --check could not start ({e}); {how}", script.display()))?;
    let dir = String::from_utf8_lossy(&output.stdout).trim().to_string();
    if output.status.success() && Path::new(&dir).is_dir() {
        Ok(PathBuf::from(dir))
    } else {
        Err(format!("the control plane is not built; {how}"))
    }
}

/// The chart corpus beside the repository (`../shared/charts-corpus`), or `CHART_CORPUS`.
fn charts_corpus(workspace: &Path) -> Result<PathBuf, String> {
    println!("cargo::rerun-if-env-changed=CHART_CORPUS");
    let dir = std::env::var_os("CHART_CORPUS")
        .map_or_else(|| workspace.join("../shared/charts-corpus"), PathBuf::from);
    // The folder, or the nearest one above it that is there (it may be copied in later).
    if let Some(watch) = dir.ancestors().take(3).find(|d| d.is_dir()) {
        println!("cargo::rerun-if-changed={}", watch.display());
    }
    if dir.join("charts").is_dir() && dir.join("expected").is_dir() {
        Ok(dir.canonicalize().unwrap_or(dir))
    } else {
        Err(format!(
            "{} has no charts/ and expected/; put the shared folder beside the repository or set CHART_CORPUS",
            dir.display()
        ))
    }
}

/// Mounting a tmpfs needs CAP_SYS_ADMIN (root in a container, not a plain user), and
/// `mount` itself.
fn can_mount() -> Result<PathBuf, String> {
    let how = "mounting a tmpfs needs root with CAP_SYS_ADMIN";
    let mount = on_path("mount", "install util-linux")?;
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let caps = status
        .lines()
        .find_map(|l| l.strip_prefix("CapEff:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .unwrap_or(0);
    const CAP_SYS_ADMIN: u32 = 21;
    if caps & (1 << CAP_SYS_ADMIN) != 0 {
        Ok(mount)
    } else {
        Err(format!("no CAP_SYS_ADMIN; {how}"))
    }
}

/// RUSTY_SDK_SKIP_E2E skips the end-to-end builds on an explicit true value only; CI never
/// skips them, so there any value is refused.
fn end_to_end() -> Result<PathBuf, String> {
    println!("cargo::rerun-if-env-changed=RUSTY_SDK_SKIP_E2E");
    let Some(value) = std::env::var_os("RUSTY_SDK_SKIP_E2E") else {
        return Ok(PathBuf::new());
    };
    let value = value.to_string_lossy().to_ascii_lowercase();
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        return Err(format!(
            "RUSTY_SDK_SKIP_E2E={value} is set; CI runs every end-to-end test, unset it"
        ));
    }
    match value.as_str() {
        "1" | "true" | "yes" => {
            Err("RUSTY_SDK_SKIP_E2E is set; unset it to build the generated operators".into())
        }
        "" | "0" | "false" | "no" => Ok(PathBuf::new()),
        other => {
            eprintln!(
                "error: RUSTY_SDK_SKIP_E2E={other} is neither true (1, true, yes) nor false (0, false, no)"
            );
            std::process::exit(1);
        }
    }
}
