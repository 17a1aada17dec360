//! Per-resource Helm switches read from the custom resource's annotations
//! (helm-operator-plugins' `pkg/annotation`, prefix `helm.sdk.operatorframework.io/`).
use std::collections::BTreeMap;

use super::client::{InstallOptions, UninstallOptions, UpgradeOptions};

const PREFIX: &str = "helm.sdk.operatorframework.io/";

/// `helm.sdk.operatorframework.io/pause-reconcile: "true"` stops all work on the resource.
pub const PAUSE_RECONCILE_ANNOTATION: &str = "helm.sdk.operatorframework.io/pause-reconcile";
/// Per-resource requeue period (Go duration), overriding the watch's reconcilePeriod.
pub const RECONCILE_PERIOD_ANNOTATION: &str = "helm.sdk.operatorframework.io/reconcile-period";

/// What an annotation switches on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnnotationEffect {
    /// `--no-hooks` when the value parses as true (Go `strconv.ParseBool`).
    DisableHooks,
    /// `--description <value>`.
    Description,
    /// `--force` when true (upgrades only).
    Force,
}

/// An annotation name and the option it sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HelmAnnotation {
    pub name: String,
    pub effect: AnnotationEffect,
}

impl HelmAnnotation {
    /// An annotation with a custom name.
    pub fn new(name: impl Into<String>, effect: AnnotationEffect) -> Self {
        HelmAnnotation {
            name: name.into(),
            effect,
        }
    }

    fn prefixed(suffix: &str, effect: AnnotationEffect) -> Self {
        HelmAnnotation::new(format!("{PREFIX}{suffix}"), effect)
    }

    /// `install-disable-hooks`, `install-description`.
    pub fn default_install() -> Vec<HelmAnnotation> {
        vec![
            Self::prefixed("install-description", AnnotationEffect::Description),
            Self::prefixed("install-disable-hooks", AnnotationEffect::DisableHooks),
        ]
    }

    /// `upgrade-description`, `upgrade-disable-hooks`, `upgrade-force`.
    pub fn default_upgrade() -> Vec<HelmAnnotation> {
        vec![
            Self::prefixed("upgrade-description", AnnotationEffect::Description),
            Self::prefixed("upgrade-disable-hooks", AnnotationEffect::DisableHooks),
            Self::prefixed("upgrade-force", AnnotationEffect::Force),
        ]
    }

    /// `uninstall-description`, `uninstall-disable-hooks`.
    pub fn default_uninstall() -> Vec<HelmAnnotation> {
        vec![
            Self::prefixed("uninstall-description", AnnotationEffect::Description),
            Self::prefixed("uninstall-disable-hooks", AnnotationEffect::DisableHooks),
        ]
    }
}

/// Go's `strconv.ParseBool`; anything else counts as false, as upstream does.
fn parse_go_bool(value: &str) -> bool {
    matches!(value, "1" | "t" | "T" | "TRUE" | "true" | "True")
}

/// The annotations of `set` present on the resource, with their values.
fn present<'a>(
    set: &'a [HelmAnnotation],
    annotations: &'a BTreeMap<String, String>,
) -> impl Iterator<Item = (AnnotationEffect, &'a str)> {
    set.iter().filter_map(|a| {
        annotations
            .get(&a.name)
            .map(|value| (a.effect, value.as_str()))
    })
}

/// What an object's annotations ask of a Helm action; each action takes its parts.
#[derive(Default)]
struct Requested {
    disable_hooks: bool,
    description: Option<String>,
    force: bool,
}

fn requested(set: &[HelmAnnotation], annotations: &BTreeMap<String, String>) -> Requested {
    let mut requested = Requested::default();
    for (effect, value) in present(set, annotations) {
        match effect {
            AnnotationEffect::DisableHooks => requested.disable_hooks = parse_go_bool(value),
            AnnotationEffect::Description => requested.description = Some(value.to_string()),
            AnnotationEffect::Force => requested.force = parse_go_bool(value),
        }
    }
    requested
}

pub(crate) fn install_options(
    set: &[HelmAnnotation],
    annotations: &BTreeMap<String, String>,
) -> InstallOptions {
    let r = requested(set, annotations);
    InstallOptions {
        disable_hooks: r.disable_hooks,
        description: r.description,
        ..InstallOptions::default()
    }
}

pub(crate) fn upgrade_options(
    set: &[HelmAnnotation],
    annotations: &BTreeMap<String, String>,
) -> UpgradeOptions {
    let r = requested(set, annotations);
    UpgradeOptions {
        disable_hooks: r.disable_hooks,
        description: r.description,
        force: r.force,
        ..UpgradeOptions::default()
    }
}

pub(crate) fn uninstall_options(
    set: &[HelmAnnotation],
    annotations: &BTreeMap<String, String>,
) -> UninstallOptions {
    let r = requested(set, annotations);
    UninstallOptions {
        disable_hooks: r.disable_hooks,
        description: r.description,
    }
}

/// The first name that appears twice, if any.
pub(crate) fn duplicate_name(set: &[HelmAnnotation]) -> Option<&str> {
    set.iter().enumerate().find_map(|(i, a)| {
        set[..i]
            .iter()
            .any(|b| b.name == a.name)
            .then_some(a.name.as_str())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn annotations(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn upgrade_annotations_set_force_hooks_and_description() {
        let set = HelmAnnotation::default_upgrade();
        let options = upgrade_options(
            &set,
            &annotations(&[
                ("helm.sdk.operatorframework.io/upgrade-force", "true"),
                ("helm.sdk.operatorframework.io/upgrade-disable-hooks", "T"),
                (
                    "helm.sdk.operatorframework.io/upgrade-description",
                    "resize",
                ),
                (
                    "helm.sdk.operatorframework.io/install-disable-hooks",
                    "true",
                ),
            ]),
        );
        assert_eq!(
            options,
            UpgradeOptions {
                force: true,
                disable_hooks: true,
                description: Some("resize".into()),
                ..UpgradeOptions::default()
            }
        );
    }

    #[test]
    fn invalid_booleans_mean_false_like_upstream() {
        let set = HelmAnnotation::default_install();
        let options = install_options(
            &set,
            &annotations(&[("helm.sdk.operatorframework.io/install-disable-hooks", "yes")]),
        );
        assert_eq!(options, InstallOptions::default());
        let options = uninstall_options(
            &HelmAnnotation::default_uninstall(),
            &annotations(&[
                ("helm.sdk.operatorframework.io/uninstall-disable-hooks", "1"),
                (
                    "helm.sdk.operatorframework.io/uninstall-description",
                    "gone",
                ),
            ]),
        );
        assert!(options.disable_hooks);
        assert_eq!(options.description.as_deref(), Some("gone"));
    }

    #[test]
    fn custom_names_and_duplicates() {
        let mut set = HelmAnnotation::default_install();
        set.push(HelmAnnotation::new(
            "example.com/quiet",
            AnnotationEffect::DisableHooks,
        ));
        assert_eq!(duplicate_name(&set), None);
        assert!(
            install_options(&set, &annotations(&[("example.com/quiet", "true")])).disable_hooks
        );
        set.push(HelmAnnotation::new(
            "example.com/quiet",
            AnnotationEffect::Description,
        ));
        assert_eq!(duplicate_name(&set), Some("example.com/quiet"));
    }
}
