//! What a generated project pins, in one place: `init` writes these versions and
//! `rusty-sdk version` prints them.

/// The oldest Rust a generated project builds with, its `rust-version`: what its own code
/// needs (`Duration::from_mins`, 1.91), above what kube and the runtime need (1.89). Clippy's
/// `incompatible_msrv` holds the generated code to it, and the end-to-end checks hold
/// every dependency to it.
pub const RUST: &str = "1.91";
/// The Rust release a generated project is built and tested with, pinned in its
/// `rust-toolchain.toml` (rustup, CI and the devcontainer install it): the one its
/// Dockerfile's builder image carries, at or above [`RUST`].
pub const TOOLCHAIN: &str = "1.95.0";
/// The kube-rs release generated projects build on.
pub const KUBE: &str = "5.0.0";
/// The k8s-openapi release, and the Kubernetes API version its feature selects.
pub const K8S_OPENAPI: &str = "0.29.0";
pub const K8S_FEATURE: &str = "v1_33";
/// The cert-manager release a project's `make test-e2e` and its chart's CI workflow install
/// when the manifests hold certificates and the cluster lacks cert-manager (kubebuilder's
/// e2e suite pins one the same way).
pub const CERT_MANAGER: &str = "v1.19.3";
/// The Helm release whose chart engine and release semantics the runtime reproduces (the
/// images carry no helm binary; the test suites check against this version's CLI).
pub const HELM: &str = "v4.2.3";

/// The version PROJECT records as `cliVersion`: this crate's version, and for a build from a
/// git checkout the commit as semver build metadata (`0.1.0+86aa3591c0de`), because every
/// development build carries the same crate version and `alpha update` needs to know which
/// scaffold the project started from. A build outside git (a crates.io package) is its
/// version alone.
pub fn cli() -> String {
    match env!("RUSTY_SDK_COMMIT") {
        "unknown" => env!("CARGO_PKG_VERSION").to_string(),
        commit => format!("{}+{commit}", env!("CARGO_PKG_VERSION")),
    }
}

/// `rusty-sdk version`, in operator-sdk's style: one line of `key: "value"` pairs.
pub fn line() -> String {
    let kubernetes = K8S_FEATURE.trim_start_matches('v').replace('_', ".");
    format!(
        "rusty-sdk version: \"{}\", commit: \"{}\", kube version: \"{KUBE}\", k8s-openapi version: \"{K8S_OPENAPI}\", kubernetes version: \"{kubernetes}\", helm version: \"{HELM}\", rustc version: \"{}\"\n",
        env!("CARGO_PKG_VERSION"),
        env!("RUSTY_SDK_COMMIT"),
        env!("RUSTY_SDK_RUSTC"),
    )
}

/// The runtime crate generated projects link, and the version they depend on: the one
/// this rusty-sdk was built with.
pub const RUNTIME_CRATE: &str = "rusty-sdk-runtime";
pub const RUNTIME_VERSION: &str = env!("CARGO_PKG_VERSION");
/// Where a project points the runtime at a local source (`[patch]`): the only file that
/// may differ between machines for the same command.
pub const LOCAL_LINK: &str = ".cargo/config.toml";

#[cfg(test)]
mod tests {
    /// The README names both minimums: rusty-sdk's own (this crate's `rust-version`) and the
    /// one generated projects declare.
    #[test]
    fn the_readme_names_the_rust_versions() {
        let readme = include_str!("../README.md").replace('\n', " ");
        let own = env!("CARGO_PKG_RUST_VERSION");
        assert!(
            readme.contains(&format!("({own} or newer)")),
            "README: not {own}"
        );
        let generated = format!("need {0} (`rust-version = \"{0}\"`", super::RUST);
        assert!(readme.contains(&generated), "README: not {generated}");
    }

    /// The pinned toolchain is no older than `rust-version`, and the image builds with the
    /// same release: the Dockerfile's builder tag is the pin itself.
    #[test]
    fn the_pinned_toolchain_is_the_images_and_meets_rust_version() {
        let numbers = |v: &str| -> Vec<u32> { v.split('.').map(|n| n.parse().unwrap()).collect() };
        assert!(numbers(super::TOOLCHAIN) >= numbers(super::RUST));
        let dockerfile = include_str!("../templates/init/base/Dockerfile.tera");
        let from = "FROM rust:{{ rust_toolchain }}-";
        assert!(dockerfile.contains(from), "Dockerfile: not {from}");
    }
}
