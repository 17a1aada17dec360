//! kubebuilder's `create webhook` flags about where the webhooks are served and which
//! resource they are for: `--defaulting-path` and `--validation-path` replace the default
//! `/mutate-<group>-<version>-<kind>` and `/validate-...` paths, and PROJECT records them
//! (`defaultingPath`, `validationPath`, as kubebuilder's) so that a later run that
//! scaffolds the webhooks again serves them where the API server already sends requests;
//! `--plural` must be the plural the kind has; `--make` is accepted and changes nothing.
use crate::cli::CreateWebhookArgs;
use crate::error::{Error, Result};
use crate::model::names::shown;
use crate::project::{Project, Resource, ResourceWebhooks};
use crate::yaml::Value;

/// PROJECT's keys of the custom paths, under a resource's `webhooks`.
const DEFAULTING_KEY: &str = "defaultingPath";
const VALIDATION_KEY: &str = "validationPath";

/// The custom paths of a kind's admission webhooks; `None` serves the default path.
#[derive(Clone, Debug, Default)]
pub struct CustomPaths {
    pub defaulting: Option<String>,
    pub validation: Option<String>,
}

impl CustomPaths {
    /// The paths the flags give, else those PROJECT records for the kind (`resource`).
    pub fn from_args(
        args: &CreateWebhookArgs,
        resource: &Resource,
        project: &Project,
    ) -> Result<Self> {
        let recorded = resource.webhooks.clone().unwrap_or_default();
        let flags = [
            (
                "--defaulting-path",
                "--defaulting",
                &args.defaulting_path,
                args.defaulting,
            ),
            (
                "--validation-path",
                "--programmatic-validation",
                &args.validation_path,
                args.programmatic_validation,
            ),
        ];
        for (flag, webhook, value, asked) in flags {
            let Some(path) = value else { continue };
            if !asked {
                return Err(Error::invalid(format!(
                    "{flag} {} goes with {webhook}; add {webhook} or drop {flag}",
                    shown(path)
                )));
            }
            check_path(flag, path)?;
            let same = |other: &Resource| {
                (&other.group, &other.version, &other.kind)
                    == (&resource.group, &resource.version, &resource.kind)
            };
            let taken = project.resources.iter().find(|other| {
                !same(other)
                    && other.webhooks.as_ref().is_some_and(|webhooks| {
                        [DEFAULTING_KEY, VALIDATION_KEY]
                            .iter()
                            .any(|key| recorded_path(webhooks, key).as_ref() == Some(path))
                    })
            });
            if let Some(other) = taken {
                return Err(Error::invalid(format!(
                    "{flag} {}: {} ({}/{}) serves a webhook there already (PROJECT); pass another path",
                    shown(path),
                    other.kind,
                    other.group,
                    other.version
                )));
            }
        }
        let paths = CustomPaths {
            defaulting: args
                .defaulting_path
                .clone()
                .or_else(|| recorded_path(&recorded, DEFAULTING_KEY)),
            validation: args
                .validation_path
                .clone()
                .or_else(|| recorded_path(&recorded, VALIDATION_KEY)),
        };
        if paths.defaulting.is_some() && paths.defaulting == paths.validation {
            return Err(Error::invalid(format!(
                "--defaulting-path and --validation-path are both {}; a path serves one webhook, so pass two paths",
                shown(paths.defaulting.as_deref().unwrap_or_default())
            )));
        }
        Ok(paths)
    }

    /// Record the custom paths in the resource's `webhooks` of PROJECT.
    pub fn record(&self, webhooks: &mut ResourceWebhooks) {
        for (key, path) in [
            (DEFAULTING_KEY, &self.defaulting),
            (VALIDATION_KEY, &self.validation),
        ] {
            if let Some(path) = path {
                webhooks
                    .extra
                    .insert(key.to_string(), Value::from(path.as_str()));
            }
        }
    }
}

fn recorded_path(webhooks: &ResourceWebhooks, key: &str) -> Option<String> {
    webhooks
        .extra
        .get(key)
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// A path the API server can call and the generated code can hold in a string literal:
/// `/` then letters, digits and `-._~/`, not `/convert` (the conversion webhook's).
fn check_path(flag: &str, path: &str) -> Result<()> {
    let why = if !path.starts_with('/') || path.len() < 2 {
        "a webhook path starts with '/' and names something (e.g. /custom-mutate-sailor)"
    } else if path.len() > 255 {
        "it has more than 255 characters"
    } else if !path
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-._~/".contains(c))
        || path.contains("//")
    {
        "a webhook path has letters, digits and -._~ in /-separated parts"
    } else if path == "/convert" {
        "/convert is the conversion webhook's path"
    } else {
        return Ok(());
    };
    Err(Error::invalid(format!(
        "invalid {flag} {}: {why}; pass another {flag}",
        shown(path)
    )))
}

/// kubebuilder's `--plural` names the resource; the kind already has one, so another is
/// refused rather than ignored.
pub fn check_plural(args: &CreateWebhookArgs, kind: &str, plural: &str) -> Result<()> {
    match &args.plural {
        Some(given) if given != plural => Err(Error::invalid(format!(
            "--plural {}: the resource of {kind} is {plural} (PROJECT); drop --plural or pass --plural={plural}",
            shown(given)
        ))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_checked_before_they_reach_code_and_markers() {
        for good in ["/custom-mutate-sailor", "/a/b.c~d_e"] {
            assert!(check_path("--defaulting-path", good).is_ok(), "{good}");
        }
        for (bad, why) in [
            ("custom", "starts with '/'"),
            ("/", "starts with '/'"),
            ("/a\"b", "letters, digits"),
            ("/a b", "letters, digits"),
            ("/a//b", "letters, digits"),
            ("/convert", "conversion webhook"),
        ] {
            let err = check_path("--validation-path", bad)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(why) && err.contains("pass another --validation-path"),
                "{err}"
            );
        }
    }
}
