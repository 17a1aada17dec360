//! Links the `rusty-sdk` executable as a position-dependent (non-PIE) program on Linux, as
//! Go's toolchain links operator-sdk, kubebuilder and helm. A PIE of this size carries about
//! 55,000 dynamic relocations (embedded templates, tables, tera and clap data) that the
//! loader applies to every page of `.data.rel.ro` on every run: 1.4 ms of each command's
//! start, a fifth of a scaffolding command (`scripts/measure.sh` prints the flow's cost).
//!
//! It also records the git commit and the rustc it was built from, for `rusty-sdk version`.
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-env=RUSTY_SDK_COMMIT={}", commit());
    println!("cargo:rustc-env=RUSTY_SDK_RUSTC={}", rustc());
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}

/// The commit this source is at, or `unknown` outside a git checkout (a crates.io package).
fn commit() -> String {
    // A new commit moves HEAD or the branch it points to.
    for path in [".git/HEAD", ".git/refs/heads"] {
        if std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// `1.95.0` from `rustc 1.95.0 (...)`.
fn rustc() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.split_whitespace().nth(1).map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}
