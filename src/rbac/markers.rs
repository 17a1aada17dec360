//! RBAC markers in Rust sources, kubebuilder style:
//!
//! ```text
//! // +rusty:rbac:groups=apps,resources=deployments;deployments/scale,verbs=get;list;watch
//! // +rusty:rbac:groups=core,resources=configmaps,verbs=get,resourceNames=settings,namespace=ops
//! // +rusty:rbac:urls=/metrics,verbs=get
//! ```
//!
//! Arguments are separated by `,`, list items by `;`. `core` (or `""`) is the core group.
use crate::model::names::is_dns_label;
use std::collections::BTreeSet;

use crate::error::{Error, Result};

const PREFIX: &str = "+rusty:rbac";
const EXAMPLE: &str = "// +rusty:rbac:groups=apps,resources=deployments,verbs=get;list;watch";

/// One parsed marker.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RbacMarker {
    pub file: String,
    pub line: usize,
    /// API groups, `""` for core.
    pub groups: Vec<String>,
    pub resources: Vec<String>,
    pub verbs: BTreeSet<String>,
    pub resource_names: BTreeSet<String>,
    pub urls: Vec<String>,
    pub namespace: Option<String>,
}

/// Every marker of one file's text, in line order. `file` names the file in errors.
pub fn parse_file(file: &str, text: &str) -> Result<Vec<RbacMarker>> {
    let found = parse_markers(file, text, PREFIX, "RBAC", EXAMPLE, parse_args)?;
    Ok(found
        .into_iter()
        .map(|(line, marker)| RbacMarker {
            file: file.to_string(),
            line,
            ..marker
        })
        .collect())
}

/// Each `// <prefix>:<args>` comment of `text` (doc comments too) with its line number,
/// its arguments read by `parse`. An error names the file, the line, `what` marker it is
/// and the `example` form.
pub fn parse_markers<T>(
    file: &str,
    text: &str,
    prefix: &str,
    what: &str,
    example: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Vec<(usize, T)>> {
    let mut markers = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let Some(body) = marker_body(line, prefix) else {
            continue;
        };
        let line_no = index + 1;
        let fail = |why: String| {
            Error::Project(format!(
                "{file}:{line_no}: invalid {what} marker: {why}; the form is `{example}`"
            ))
        };
        let args = body
            .strip_prefix(':')
            .ok_or_else(|| fail(format!("expected `{prefix}:` followed by arguments")))?;
        markers.push((line_no, parse(args).map_err(fail)?));
    }
    Ok(markers)
}

/// The text after `prefix` if the line is a `//` comment holding the marker.
fn marker_body<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    let comment = line.trim_start().strip_prefix("//")?;
    // `///` and `//!` doc comments hold markers as well.
    let comment = comment.trim_start_matches(['/', '!']).trim_start();
    comment.strip_prefix(prefix).map(str::trim_end)
}

fn parse_args(args: &str) -> Result<RbacMarker, String> {
    let mut marker = RbacMarker::default();
    let mut seen = BTreeSet::new();
    for arg in args.split(',') {
        let (key, value) = arg
            .split_once('=')
            .ok_or_else(|| format!("argument {arg:?} has no `=`"))?;
        let key = key.trim();
        if !seen.insert(key.to_string()) {
            return Err(format!("`{key}` is given twice"));
        }
        let items = list(value);
        match key {
            // An empty item is the core group here, so keep it.
            "groups" => marker.groups = split(value).map(core_group).collect(),
            "resources" => marker.resources = checked(items, "resource", is_resource)?,
            "verbs" => marker.verbs = checked(items, "verb", is_verb)?.into_iter().collect(),
            "resourceNames" => marker.resource_names = items.into_iter().collect(),
            "urls" => marker.urls = checked(items, "URL", is_url)?,
            "namespace" => marker.namespace = Some(namespace(value)?),
            other => {
                return Err(format!(
                    "unknown argument `{other}` (known: groups, resources, verbs, resourceNames, urls, namespace)"
                ));
            }
        }
    }
    validate(&marker)?;
    Ok(marker)
}

fn validate(marker: &RbacMarker) -> Result<(), String> {
    if marker.verbs.is_empty() {
        return Err("`verbs` is missing or empty".into());
    }
    for group in &marker.groups {
        if !is_group(group) {
            return Err(format!("{group:?} is not an API group"));
        }
    }
    let resource_rule = !marker.groups.is_empty() || !marker.resources.is_empty();
    if resource_rule && !marker.urls.is_empty() {
        return Err("`urls` cannot be combined with `groups` or `resources`".into());
    }
    if !resource_rule && marker.urls.is_empty() {
        return Err("give `groups` and `resources`, or `urls`".into());
    }
    if resource_rule && (marker.groups.is_empty() || marker.resources.is_empty()) {
        return Err("`groups` and `resources` must both be given".into());
    }
    if !marker.urls.is_empty() && marker.namespace.is_some() {
        return Err("`urls` cannot be granted in a namespace (drop `namespace`)".into());
    }
    if !marker.urls.is_empty() && !marker.resource_names.is_empty() {
        return Err("`resourceNames` does not apply to `urls`".into());
    }
    Ok(())
}

/// The items of `a;b;c`, each without surrounding blanks and quotes.
fn split(value: &str) -> impl Iterator<Item = String> + '_ {
    value
        .split(';')
        .map(|item| item.trim().trim_matches('"').to_string())
}

/// The non-empty items of `a;b;c`.
fn list(value: &str) -> Vec<String> {
    split(value).filter(|item| !item.is_empty()).collect()
}

fn core_group(group: String) -> String {
    if group == "core" {
        String::new()
    } else {
        group
    }
}

fn checked(items: Vec<String>, what: &str, ok: fn(&str) -> bool) -> Result<Vec<String>, String> {
    match items.iter().find(|item| !ok(item)) {
        Some(bad) => Err(format!("{bad:?} is not a valid {what}")),
        None => Ok(items),
    }
}

fn namespace(value: &str) -> Result<String, String> {
    let ns = value.trim().trim_matches('"');
    if is_dns_label(ns) {
        Ok(ns.to_string())
    } else {
        Err(format!(
            "namespace {ns:?} is not a DNS-1123 label (lower-case letters, digits and '-')"
        ))
    }
}

fn is_group(s: &str) -> bool {
    s.is_empty() || s == "*" || s.split('.').all(is_dns_label)
}

/// `pods`, `pods/log`, or `*`.
fn is_resource(s: &str) -> bool {
    s == "*"
        || s.split('/').count() <= 2
            && s.split('/').all(|part| {
                part == "*"
                    || !part.is_empty()
                        && part
                            .bytes()
                            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            })
}

fn is_verb(s: &str) -> bool {
    s == "*" || !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase())
}

fn is_url(s: &str) -> bool {
    s.starts_with('/') && !s.contains(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> RbacMarker {
        let mut markers = parse_file("src/controller/x.rs", line).unwrap();
        assert_eq!(markers.len(), 1, "{line}");
        markers.remove(0)
    }

    fn error(text: &str) -> String {
        parse_file("src/controller/x.rs", text)
            .unwrap_err()
            .to_string()
    }

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(std::string::ToString::to_string).collect()
    }

    #[test]
    fn parses_every_field() {
        let m = one(
            "    // +rusty:rbac:groups=apps;core,resources=deployments;deployments/scale,verbs=watch;get,resourceNames=a;b,namespace=ops",
        );
        assert_eq!(m.groups, ["apps", ""]);
        assert_eq!(m.resources, ["deployments", "deployments/scale"]);
        assert_eq!(m.verbs, set(&["get", "watch"]));
        assert_eq!(m.resource_names, set(&["a", "b"]));
        assert_eq!(m.namespace.as_deref(), Some("ops"));
        assert_eq!((m.file.as_str(), m.line), ("src/controller/x.rs", 1));

        let m = one("//+rusty:rbac:urls=/metrics;/healthz,verbs=get");
        assert_eq!(m.urls, ["/metrics", "/healthz"]);
        assert!(m.groups.is_empty());
    }

    #[test]
    fn core_group_may_be_written_empty_or_core() {
        assert_eq!(
            one(r#"// +rusty:rbac:groups="",resources=pods,verbs=get"#).groups,
            [""]
        );
        assert_eq!(
            one("// +rusty:rbac:groups=core,resources=pods,verbs=get").groups,
            [""]
        );
    }

    #[test]
    fn wildcards_are_kept_when_asked_for() {
        let m = one("// +rusty:rbac:groups=*,resources=*,verbs=*");
        assert_eq!((m.groups[0].as_str(), m.resources[0].as_str()), ("*", "*"));
        assert_eq!(m.verbs, set(&["*"]));
    }

    #[test]
    fn line_numbers_count_from_one_and_other_lines_are_ignored() {
        let text = "use x;\n\"// +rusty:rbac:not-a-comment\";\n/// +rusty:rbac:groups=apps,resources=deployments,verbs=get\nfn f() {}\n  // +rusty:rbac:groups=,resources=pods,verbs=list\n";
        let markers = parse_file("a.rs", text).unwrap();
        assert_eq!(markers.iter().map(|m| m.line).collect::<Vec<_>>(), [3, 5]);
        assert_eq!(markers[1].groups, [""]);
    }

    #[test]
    fn bad_markers_name_file_line_and_problem() {
        let cases = [
            ("// +rusty:rbac groups=apps", "expected `+rusty:rbac:`"),
            (
                "// +rusty:rbac:groups=apps,resources=deployments",
                "`verbs` is missing",
            ),
            ("// +rusty:rbac:groups=apps,verbs=get", "must both be given"),
            (
                "// +rusty:rbac:verbs=get",
                "give `groups` and `resources`, or `urls`",
            ),
            (
                "// +rusty:rbac:groups=apps,resources=deployments,verbs=get,colour=red",
                "unknown argument `colour`",
            ),
            (
                "// +rusty:rbac:groups=apps,resources=Deployments,verbs=get",
                "\"Deployments\" is not a valid resource",
            ),
            (
                "// +rusty:rbac:groups=apps,resources=deployments,verbs=GET",
                "\"GET\" is not a valid verb",
            ),
            (
                "// +rusty:rbac:groups=Apps_X,resources=deployments,verbs=get",
                "\"Apps_X\" is not an API group",
            ),
            (
                "// +rusty:rbac:groups=apps,resources=deployments,verbs",
                "argument \"verbs\" has no `=`",
            ),
            (
                "// +rusty:rbac:groups=apps,groups=batch,resources=jobs,verbs=get",
                "`groups` is given twice",
            ),
            (
                "// +rusty:rbac:urls=metrics,verbs=get",
                "\"metrics\" is not a valid URL",
            ),
            (
                "// +rusty:rbac:urls=/metrics,verbs=get,namespace=ops",
                "cannot be granted in a namespace",
            ),
            (
                "// +rusty:rbac:urls=/metrics,groups=apps,resources=x,verbs=get",
                "cannot be combined",
            ),
            (
                "// +rusty:rbac:groups=apps,resources=deployments,verbs=get,namespace=Ops",
                "namespace \"Ops\"",
            ),
        ];
        for (line, want) in cases {
            let text = format!("fn a() {{}}\n\n{line}\n");
            let err = error(&text);
            assert!(
                err.starts_with("src/controller/x.rs:3: invalid RBAC marker: "),
                "{err}"
            );
            assert!(err.contains(want), "{line}: {err}");
            assert!(
                err.contains("// +rusty:rbac:groups=apps,resources=deployments"),
                "{err}"
            );
        }
    }
}
