//! Webhook markers in Rust sources, as controller-gen reads kubebuilder's:
//!
//! ```text
//! // +rusty:webhook:path=/mutate-cache-my-domain-v1-memcached,mutating=true,failurePolicy=fail,sideEffects=None,groups=cache.my.domain,resources=memcacheds,verbs=create;update,versions=v1,name=mmemcached-v1.kb.io,admissionReviewVersions=v1
//! ```
//!
//! Arguments are separated by `,`, list items by `;`.
use std::collections::BTreeSet;

use crate::error::Result;
use crate::rbac::markers::parse_markers;

const PREFIX: &str = "+rusty:webhook";
const EXAMPLE: &str = "// +rusty:webhook:path=/validate-cache-my-domain-v1-memcached,mutating=false,failurePolicy=fail,sideEffects=None,groups=cache.my.domain,resources=memcacheds,verbs=create;update,versions=v1,name=vmemcached-v1.kb.io,admissionReviewVersions=v1";

/// One parsed marker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookMarker {
    pub path: String,
    pub mutating: bool,
    /// `Fail` or `Ignore`.
    pub failure_policy: &'static str,
    pub side_effects: &'static str,
    pub groups: Vec<String>,
    pub resources: Vec<String>,
    /// `CREATE`, `UPDATE`, `DELETE`, `CONNECT` or `*`.
    pub operations: Vec<String>,
    pub versions: Vec<String>,
    pub name: String,
    pub admission_review_versions: Vec<String>,
}

/// Every marker of one file's text, in line order. `file` names the file in errors.
pub fn parse_file(file: &str, text: &str) -> Result<Vec<WebhookMarker>> {
    let found = parse_markers(file, text, PREFIX, "webhook", EXAMPLE, parse_args)?;
    Ok(found.into_iter().map(|(_, marker)| marker).collect())
}

fn parse_args(args: &str) -> Result<WebhookMarker, String> {
    let mut values = std::collections::BTreeMap::new();
    for arg in args.split(',') {
        let (key, value) = arg
            .split_once('=')
            .ok_or_else(|| format!("argument {arg:?} has no `=`"))?;
        let key = key.trim();
        if !KEYS.contains(&key) {
            return Err(format!(
                "unknown argument `{key}` (known: {})",
                KEYS.join(", ")
            ));
        }
        if values.insert(key, value.trim()).is_some() {
            return Err(format!("`{key}` is given twice"));
        }
    }
    let get = |key: &str| {
        values
            .get(key)
            .copied()
            .filter(|v| !v.is_empty())
            .ok_or_else(|| format!("`{key}` is missing"))
    };
    let path = get("path")?;
    if !path.starts_with('/') {
        return Err(format!("path {path:?} must start with `/`"));
    }
    let mutating = match get("mutating")? {
        "true" => true,
        "false" => false,
        other => return Err(format!("mutating={other:?} must be true or false")),
    };
    let failure_policy = match get("failurePolicy")?.to_ascii_lowercase().as_str() {
        "fail" => "Fail",
        "ignore" => "Ignore",
        other => return Err(format!("failurePolicy={other:?} must be fail or ignore")),
    };
    let side_effects = match get("sideEffects")? {
        "None" => "None",
        "NoneOnDryRun" => "NoneOnDryRun",
        other => {
            return Err(format!(
                "sideEffects={other:?} must be None or NoneOnDryRun (admissionregistration/v1)"
            ));
        }
    };
    let operations = list(get("verbs")?)
        .map(|verb| match verb.to_ascii_lowercase().as_str() {
            "create" | "update" | "delete" | "connect" => Ok(verb.to_ascii_uppercase()),
            "*" => Ok("*".to_string()),
            _ => Err(format!(
                "verb {verb:?} is not one of create, update, delete, connect, *"
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let name = get("name")?;
    if name.split('.').count() < 3 {
        return Err(format!(
            "name {name:?} must be a fully qualified name with at least three segments (e.g. vmemcached-v1.kb.io)"
        ));
    }
    Ok(WebhookMarker {
        path: path.to_string(),
        mutating,
        failure_policy,
        side_effects,
        // An empty group is the core group, written `groups=""` as in kubebuilder's markers.
        groups: get("groups")?
            .split(';')
            .map(|group| group.trim().trim_matches('"').to_string())
            .collect(),
        resources: list(get("resources")?).collect(),
        operations,
        versions: list(get("versions")?).collect(),
        name: name.to_string(),
        admission_review_versions: list(get("admissionReviewVersions")?).collect(),
    })
}

const KEYS: [&str; 10] = [
    "path",
    "mutating",
    "failurePolicy",
    "sideEffects",
    "groups",
    "resources",
    "verbs",
    "versions",
    "name",
    "admissionReviewVersions",
];

fn list(value: &str) -> impl Iterator<Item = String> + '_ {
    value
        .split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kubebuilder_style_marker_parses() {
        let text = format!("fn x() {{}}\n{EXAMPLE}\n");
        let markers = parse_file("src/webhook/memcached.rs", &text).unwrap();
        let m = &markers[0];
        assert_eq!(m.path, "/validate-cache-my-domain-v1-memcached");
        assert!(!m.mutating);
        assert_eq!(m.failure_policy, "Fail");
        assert_eq!(m.operations, ["CREATE", "UPDATE"]);
        assert_eq!(m.resources, ["memcacheds"]);
        assert_eq!(m.name, "vmemcached-v1.kb.io");
    }

    #[test]
    fn bad_markers_name_the_file_line_and_argument() {
        for (marker, expected) in [
            ("// +rusty:webhook", "followed by arguments"),
            (
                "// +rusty:webhook:path=/x,mutating=maybe",
                "mutating=\"maybe\"",
            ),
            ("// +rusty:webhook:path=x", "must start with `/`"),
            ("// +rusty:webhook:colour=red", "unknown argument `colour`"),
            ("// +rusty:webhook:path=/x,path=/y", "given twice"),
            (
                "// +rusty:webhook:path=/x,mutating=true",
                "`failurePolicy` is missing",
            ),
        ] {
            let err = parse_file("a.rs", &format!("\n{marker}\n"))
                .unwrap_err()
                .to_string();
            assert!(err.starts_with("a.rs:2: invalid webhook marker"), "{err}");
            assert!(err.contains(expected), "{expected}: {err}");
        }
    }
}
