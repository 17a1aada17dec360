//! What a generated project pins, in one place: `init` writes these versions and
//! `rusty-sdk version` prints them.

/// The kube-rs release generated projects build on.
pub const KUBE: &str = "5.0.0";
/// The k8s-openapi release, and the Kubernetes API version its feature selects.
pub const K8S_OPENAPI: &str = "0.29.0";
pub const K8S_FEATURE: &str = "v1_33";
/// The Helm release whose chart engine and release semantics the runtime reproduces (the
/// images carry no helm binary; the test suites check against this version's CLI).
pub const HELM: &str = "v4.2.3";

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
