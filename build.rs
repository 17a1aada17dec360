//! Links the `rusty-sdk` executable as a position-dependent (non-PIE) program on Linux, as
//! Go's toolchain links operator-sdk, kubebuilder and helm. A PIE of this size carries about
//! 55,000 dynamic relocations (embedded templates, tables, tera and clap data) that the
//! loader applies to every page of `.data.rel.ro` on every run: 1.4 ms of each command's
//! start, a fifth of a scaffolding command (`scripts/measure.sh` prints the flow's cost).
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
