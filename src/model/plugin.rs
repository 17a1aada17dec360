//! Plugin keys: which project layout `init` makes, which `create api` flavours it allows
//! and under which keys PROJECT keeps a plugin's data; and kubebuilder's inputs that only
//! mean something to Go (plugin keys, package flags), refused saying why.
use std::fmt;

use crate::error::{Error, Result};
use crate::model::names::shown;

/// The keys under which PROJECT's `plugins:` holds what a plugin recorded, as kubebuilder
/// records `deploy-image.go.kubebuilder.io/v1-alpha`; `alpha generate` reads them back.
pub const DEPLOY_IMAGE_DATA: &str = "deploy-image.rust.rusty-sdk.dev/v1";
pub const GRAFANA_DATA: &str = "grafana.kubebuilder.io/v1-alpha";
pub const HELM_CHART_DATA: &str = "helm.kubebuilder.io/v2-alpha";

/// The layout chosen at `init`, recorded in PROJECT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Helm and Rust APIs in one operator.
    HybridHelm,
    /// Helm APIs only.
    Helm,
    /// Rust APIs only.
    Rust,
}

impl Layout {
    pub const ALL: [Layout; 3] = [Layout::HybridHelm, Layout::Helm, Layout::Rust];

    /// Parse `--plugins` for `init`, accepting operator-sdk's spellings as aliases.
    ///
    /// # Errors
    ///
    /// `Error::Invalid` naming `s` when it is no layout plugin, saying why for
    /// kubebuilder's Go plugins.
    pub fn parse(s: &str) -> Result<Self> {
        Self::from_key(s).ok_or_else(|| match go_plugin(s) {
            Some(why) => Error::invalid(format!(
                "{why}; for a Rust operator use --plugins=rust (or hybrid.helm for Helm and Rust APIs)"
            )),
            None => Error::invalid(format!(
                "unknown plugin {s:?} for init: use --plugins=hybrid.helm, --plugins=helm or --plugins=rust"
            )),
        })
    }

    /// Recognise a layout from its short name, its full key or an operator-sdk alias.
    pub fn from_key(s: &str) -> Option<Self> {
        let s = s.trim();
        Self::ALL.into_iter().find(|layout| {
            s == layout.short_name() || s == layout.key() || layout.aliases().contains(&s)
        })
    }

    /// The name users type: `hybrid.helm`, `helm`, `rust`.
    pub fn short_name(self) -> &'static str {
        match self {
            Layout::HybridHelm => "hybrid.helm",
            Layout::Helm => "helm",
            Layout::Rust => "rust",
        }
    }

    /// The versioned key written to PROJECT's `layout`.
    pub fn key(self) -> &'static str {
        match self {
            Layout::HybridHelm => "hybrid.helm.rusty-sdk.dev/v1",
            Layout::Helm => "helm.rusty-sdk.dev/v1",
            Layout::Rust => "rust.rusty-sdk.dev/v1",
        }
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            Layout::HybridHelm => &[
                "hybrid.helm.sdk.operatorframework.io",
                "hybrid.helm.sdk.operatorframework.io/v1-alpha",
                "hybrid/v1-alpha",
                "hybrid",
            ],
            Layout::Helm => &[
                "helm.sdk.operatorframework.io",
                "helm.sdk.operatorframework.io/v1",
            ],
            Layout::Rust => &["rust/v1"],
        }
    }

    pub fn has_helm(self) -> bool {
        matches!(self, Layout::HybridHelm | Layout::Helm)
    }

    pub fn has_rust(self) -> bool {
        matches!(self, Layout::HybridHelm | Layout::Rust)
    }

    /// Whether this layout takes APIs of the given plugin.
    pub fn allows(self, plugin: ApiPlugin) -> bool {
        match plugin {
            ApiPlugin::Helm => self.has_helm(),
            ApiPlugin::Rust => self.has_rust(),
        }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short_name())
    }
}

/// The plugin of `create api`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApiPlugin {
    Helm,
    Rust,
}

impl ApiPlugin {
    /// Parse `--plugins` for `create api`.
    ///
    /// # Errors
    ///
    /// `Error::Invalid` naming `s` when it is no `create api` plugin.
    pub fn parse(s: &str) -> Result<Self> {
        match s.trim() {
            "helm"
            | "helm.rusty-sdk.dev/v1"
            | "helm.sdk.operatorframework.io"
            | "helm.sdk.operatorframework.io/v1" => Ok(ApiPlugin::Helm),
            "rust" | "rust.rusty-sdk.dev/v1" | "rust/v1" => Ok(ApiPlugin::Rust),
            // kubebuilder's deploy-image plugin: a Rust API whose controller runs --image.
            key if is_deploy_image(key) => Ok(ApiPlugin::Rust),
            key if go_plugin(key).is_some() => Err(Error::invalid(format!(
                "{}; use --plugins=rust for a kube-rs controller or --plugins=helm for a chart",
                go_plugin(key).unwrap_or_default()
            ))),
            other => Err(Error::invalid(format!(
                "unknown plugin {other:?} for create api: use --plugins=helm or --plugins=rust"
            ))),
        }
    }

    pub fn short_name(self) -> &'static str {
        match self {
            ApiPlugin::Helm => "helm",
            ApiPlugin::Rust => "rust",
        }
    }

    /// The key under which PROJECT keeps this plugin's per-resource data.
    pub fn key(self) -> &'static str {
        match self {
            ApiPlugin::Helm => "helm.rusty-sdk.dev/v1",
            ApiPlugin::Rust => "rust.rusty-sdk.dev/v1",
        }
    }
}

/// `--plugins` on `create webhook` (kubebuilder's flag is global): webhooks run in the Rust
/// operator's code, so only the rust plugin's keys are taken.
///
/// # Errors
///
/// `Error::Invalid` naming `key` when it is not the rust plugin.
pub fn check_webhook_plugin(key: &str) -> Result<()> {
    if !is_deploy_image(key) && matches!(ApiPlugin::parse(key), Ok(ApiPlugin::Rust)) {
        return Ok(());
    }
    let why = go_plugin(key)
        .unwrap_or_else(|| format!("{} is no plugin that makes webhooks", shown(key.trim())));
    Err(Error::invalid(format!(
        "{why}; create webhook takes --plugins=rust (webhooks run in the Rust operator's code), or no --plugins"
    )))
}

/// kubebuilder's deploy-image plugin key, in its short or full spelling.
pub fn is_deploy_image(key: &str) -> bool {
    matches!(
        key.trim(),
        "deploy-image/v1-alpha" | "deploy-image.go.kubebuilder.io/v1-alpha"
    )
}

/// The first of kubebuilder's flags that name an external kind's Go package
/// (`--external-api-path`, `--external-api-module`) given, with its value: a Rust
/// controller or webhook gets the kind's types from its CRD instead.
pub fn go_package_flag<'a>(
    path: Option<&'a str>,
    module: Option<&'a str>,
) -> Option<(&'static str, &'a str)> {
    [
        ("--external-api-path", path),
        ("--external-api-module", module),
    ]
    .into_iter()
    .find_map(|(flag, value)| value.map(|value| (flag, value)))
}

/// Why a kubebuilder Go plugin key (`go/v4`, `go.kubebuilder.io/v4`) does not apply here.
fn go_plugin(key: &str) -> Option<String> {
    let key = key.trim();
    (key.starts_with("go/") || key.starts_with("go.kubebuilder.io/")).then(|| {
        format!(
            "{key:?} is kubebuilder's plugin for operators written in Go; rusty-sdk scaffolds Rust"
        )
    })
}
