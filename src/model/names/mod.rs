//! Validated names. Each newtype can only be built valid, so code past the settings layer
//! never re-checks them.
use std::fmt;

use heck::{ToKebabCase, ToSnakeCase, ToUpperCamelCase};

use crate::error::{Error, Result};

/// A DNS-1123 label: at most 63 lower-case letters, digits and '-', alphanumeric at both ends.
pub(crate) fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// A DNS-1123 subdomain: at most 253 characters of DNS-1123 labels joined by '.'.
pub(crate) fn is_dns_subdomain(s: &str) -> bool {
    !s.is_empty() && s.len() <= 253 && s.split('.').all(is_dns_label)
}

/// Rust's strict and reserved keywords (edition 2024): none can name a module or crate.
const RUST_KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Crates a generated project uses by name at its crate roots: a module or package of the
/// same name would shadow them.
const GENERATED_PROJECT_CRATES: &[&str] = &[
    "alloc",
    "anyhow",
    "assert_json_diff",
    "clap",
    "core",
    "futures",
    "http",
    "json_patch",
    "k8s_openapi",
    "kube",
    "proc_macro",
    "rusty_sdk_runtime",
    "schemars",
    "serde",
    "serde_json",
    "serde_saphyr",
    "std",
    "test",
    "thiserror",
    "tokio",
    "tower_test",
    "tracing",
];

/// Module names that build but that rustc or clippy (`-D warnings` in `make lint`) warn
/// about: `main` and `lib` name special files, and a kind module called `controller`,
/// `webhook` or like a version sits in the module of that name (`module_inception`).
const WARNED_MODULES: &[&str] = &["main", "lib", "controller", "webhook"];

/// `snake` as a Rust module name: a keyword or a crate the generated code uses gets a
/// trailing `_` (`type_`), the usual Rust way around a keyword.
fn module_ident(snake: String) -> String {
    let name = snake.as_str();
    if RUST_KEYWORDS.contains(&name)
        || GENERATED_PROJECT_CRATES.contains(&name)
        || WARNED_MODULES.contains(&name)
        || is_api_version(name)
    {
        snake + "_"
    } else {
        snake
    }
}

/// A value as messages quote it: cut after 64 characters, so a huge input cannot make a
/// huge message.
pub fn shown(value: &str) -> String {
    const MAX: usize = 64;
    let count = value.chars().count();
    if count <= MAX {
        format!("{value:?}")
    } else {
        let head: String = value.chars().take(MAX).collect();
        format!("{head:?}... ({count} characters)")
    }
}

/// A path as a message shows it: as is, or quoted with escapes when it holds a line break
/// or another control character (the message stays one line).
pub fn shown_path(path: &std::path::Path) -> String {
    let text = path.to_string_lossy();
    if text.chars().any(char::is_control) {
        format!("{text:?}")
    } else {
        text.into_owned()
    }
}

macro_rules! string_newtype {
    ($name:ident) => {
        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

/// The project's domain, e.g. `my.domain`: API groups are `<group>.<domain>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Domain(String);
string_newtype!(Domain);

impl Domain {
    /// Parse `--domain`.
    ///
    /// # Errors
    ///
    /// `Error::Invalid` naming `s` when it is not a DNS-1123 subdomain, saying why.
    pub fn parse(s: &str) -> Result<Self> {
        Self::parse_from(s, "pass a valid --domain")
    }

    /// Parse a domain read from somewhere other than `--domain`; `fix` says what to do.
    ///
    /// # Errors
    ///
    /// `Error::Invalid` naming `s` when it is not a DNS-1123 subdomain, saying why and
    /// then `fix`.
    pub fn parse_from(s: &str, fix: &str) -> Result<Self> {
        if is_dns_subdomain(s) {
            return Ok(Domain(s.to_string()));
        }
        let long_label = s.split('.').find(|label| label.len() > 63);
        let why = if s.len() > 253 {
            format!(
                "it has {} characters, more than the 253 a DNS-1123 subdomain may have",
                s.len()
            )
        } else if let Some(label) = long_label {
            format!(
                "its part {} has {} characters, more than the 63 a DNS label may have",
                shown(label),
                label.len()
            )
        } else {
            "must be a DNS-1123 subdomain: lower-case letters, digits, '-' and '.', each dot-separated part starting and ending with a letter or digit (e.g. my.domain)".to_string()
        };
        Err(Error::invalid(format!(
            "invalid domain {}: {why}; {fix}",
            shown(s)
        )))
    }
}

/// 63 (a Service name) less `-controller-manager-metrics-service`.
const MAX_PROJECT_NAME: usize = 28;

/// The project name, a DNS-1123 label such as `memcached-operator`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectName(String);
string_newtype!(ProjectName);

impl ProjectName {
    /// Parse `--project-name`.
    ///
    /// # Errors
    ///
    /// `Error::Invalid` naming `s` when it is no DNS-1123 label, cannot name a Cargo
    /// package or is too long for the names kustomize derives from it.
    pub fn parse(s: &str) -> Result<Self> {
        Self::parse_from(s, "pass another --project-name (e.g. memcached-operator)")
    }

    /// Parse a name that came from elsewhere than `--project-name`; `fix` says what to do.
    ///
    /// # Errors
    ///
    /// `Error::Invalid` as [`ProjectName::parse`], ending with `fix`.
    pub fn parse_from(s: &str, fix: &str) -> Result<Self> {
        let why = if !is_dns_label(s) {
            "must be a DNS-1123 label (at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit)"
        } else if s.starts_with(|c: char| c.is_ascii_digit()) {
            "it names the Cargo package, and Cargo package names cannot start with a digit"
        } else if RUST_KEYWORDS.contains(&s) {
            "it names the Cargo package, and a Rust keyword cannot name a package"
        } else if GENERATED_PROJECT_CRATES.contains(&s.replace('-', "_").as_str()) {
            "the generated project depends on a crate of that name"
        } else if s.len() > MAX_PROJECT_NAME {
            "kustomize names the metrics Service <project>-controller-manager-metrics-service, and a Service name has at most 63 characters, so a project name at most 28"
        } else if s == "crdgen" {
            "it names the project's binary, and the project already has a binary crdgen (it prints the CRDs)"
        } else {
            return Ok(ProjectName(s.to_string()));
        };
        Err(Error::invalid(format!(
            "invalid project name {}: {why}; {fix}",
            shown(s)
        )))
    }

    /// `memcached_operator`: the crate name as Rust code spells it.
    pub fn snake(&self) -> String {
        self.0.to_snake_case()
    }
}

/// An API group without the domain, e.g. `cache`, or dotted as kubebuilder takes it
/// (`foo.policy`, `example.com`): the CRD's group is `<group>.<domain>` either way.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Group(String);
string_newtype!(Group);

impl Group {
    /// Parse `--group`.
    ///
    /// # Errors
    ///
    /// `Error::Invalid` naming `s` when it is not a DNS-1123 subdomain or cannot name a
    /// Rust module.
    pub fn parse(s: &str) -> Result<Self> {
        let why = if !is_dns_subdomain(s) {
            "must be a DNS-1123 subdomain: dot-separated parts of at most 63 lower-case letters, digits and '-' (e.g. cache or foo.policy)"
        } else if s.starts_with(|c: char| c.is_ascii_digit()) {
            "it names a Rust module, which cannot start with a digit"
        } else {
            return Ok(Group(s.to_string()));
        };
        Err(Error::invalid(format!(
            "invalid group {}: {why}; pass another --group",
            shown(s)
        )))
    }

    /// The group as a Rust module name: `-` and `.` become `_` (`foo.policy` is
    /// `foo_policy`), a keyword gets a trailing `_`. Groups that map to the same module
    /// (`foo.policy`, `foo-policy`) cannot be in one project: `create api` refuses the second.
    pub fn module(&self) -> String {
        module_ident(self.0.to_snake_case())
    }
}

/// An API version such as `v1`, `v1alpha1` or `v2beta3`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(String);
string_newtype!(Version);

impl Version {
    /// Parse `--version`.
    ///
    /// # Errors
    ///
    /// `Error::Invalid` naming `s` when it does not look like `v1`, `v1alpha1` or
    /// `v2beta3`.
    pub fn parse(s: &str) -> Result<Self> {
        if is_api_version(s) {
            Ok(Version(s.to_string()))
        } else {
            Err(Error::invalid(format!(
                "invalid version {}: must look like v1, v1alpha1 or v2beta3; pass a valid --version",
                shown(s)
            )))
        }
    }
}

fn is_api_version(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('v') else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || rest.starts_with('0') {
        return false;
    }
    let tail = &rest[digits..];
    if tail.is_empty() {
        return true;
    }
    let stage = ["alpha", "beta"]
        .into_iter()
        .find_map(|p| tail.strip_prefix(p));
    match stage {
        Some(n) => !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && !n.starts_with('0'),
        None => false,
    }
}

/// A kind in PascalCase, e.g. `MemcachedBackup`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Kind(String);
string_newtype!(Kind);

/// Names the generated code cannot give a type: `Self` is a keyword, then the types and
/// traits of Rust's prelude, which every generated file relies on, the derives of the
/// type's file and the controller's error type. (Names a controller imports, such as
/// `Deployment` or `Condition`, are fine: the controller then renames its import.)
const RESERVED_KINDS: &[&str] = &[
    "Self",
    "AsMut",
    "AsRef",
    "Box",
    "Clone",
    "Copy",
    "CustomResource",
    "Default",
    "Deserialize",
    "DoubleEndedIterator",
    "Drop",
    "Eq",
    "Error",
    "ExactSizeIterator",
    "Extend",
    "Fn",
    "FnMut",
    "FnOnce",
    "From",
    "FromIterator",
    "Into",
    "IntoIterator",
    "Iterator",
    "JsonSchema",
    "Option",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Result",
    "Send",
    "Serialize",
    "Sized",
    "String",
    "Sync",
    "ToOwned",
    "ToString",
    "TryFrom",
    "TryInto",
    "Unpin",
    "Vec",
];
/// Kinds name Kubernetes resources (and their plural, a DNS-1123 label).
const MAX_KIND_LEN: usize = 63;

impl Kind {
    /// Parse `--kind`.
    ///
    /// # Errors
    ///
    /// `Error::Invalid` naming `s` when it is not PascalCase, has more than 63 characters
    /// or is a Rust type the generated code uses.
    pub fn parse(s: &str) -> Result<Self> {
        let len = s.chars().count();
        if len > MAX_KIND_LEN {
            return Err(Error::invalid(format!(
                "invalid kind {}: a kind may have at most {MAX_KIND_LEN} characters; pass a shorter --kind",
                shown(s)
            )));
        }
        if !is_pascal(s) {
            return Err(Error::invalid(format!(
                "invalid kind {}: must be PascalCase (an upper-case ASCII letter, then ASCII letters and digits, e.g. {}); pass a valid --kind",
                shown(s),
                suggest_pascal(s)
            )));
        }
        if RESERVED_KINDS.contains(&s) {
            return Err(Error::invalid(format!(
                "invalid kind {s:?}: it clashes with a Rust type the generated code uses; choose another --kind"
            )));
        }
        Ok(Kind(s.to_string()))
    }

    /// The Rust module of the kind (`memcached_backup`; a keyword gets a trailing `_`).
    pub fn module(&self) -> String {
        module_ident(self.snake())
    }

    /// `memcachedbackup`: file names and the singular resource name.
    pub fn lower(&self) -> String {
        self.0.to_lowercase()
    }

    /// `memcached_backup`: Rust module names.
    pub fn snake(&self) -> String {
        self.0.to_snake_case()
    }

    /// `MEMCACHED_BACKUP`: environment variable prefixes.
    pub fn screaming(&self) -> String {
        self.snake().to_uppercase()
    }

    /// The English plural of the lower-cased kind, as Kubernetes resource names use it.
    pub fn plural(&self) -> String {
        super::plural::plural(&self.lower())
    }

    /// Build a kind from a chart name the way operator-sdk does (`my-app` -> `MyApp`).
    ///
    /// # Errors
    ///
    /// `Error::Invalid` when the name gives no valid kind (as [`Kind::parse`]).
    pub fn from_chart_name(name: &str) -> Result<Self> {
        Kind::parse(&name.to_upper_camel_case())
    }
}

fn is_pascal(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase()) && s.chars().all(|c| c.is_ascii_alphanumeric())
}

/// A valid kind close to `s` to show in a message, or `Memcached` when there is none.
fn suggest_pascal(s: &str) -> String {
    let candidate: String = s
        .to_upper_camel_case()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(MAX_KIND_LEN)
        .collect();
    if is_pascal(&candidate) && !RESERVED_KINDS.contains(&candidate.as_str()) {
        candidate
    } else {
        "Memcached".to_string()
    }
}

/// A plural resource name given with `--plural`.
///
/// # Errors
///
/// `Error::Invalid` naming `s` when it is not a DNS-1035 label of at most 63 characters.
pub fn parse_plural(s: &str) -> Result<String> {
    // The API server takes a CRD's plural only as a DNS-1035 label: no leading digit.
    let why = if s.chars().count() > 63 {
        format!(
            "it has {} characters, more than the 63 a resource name may have",
            s.chars().count()
        )
    } else if !is_dns_label(s) || !s.starts_with(|c: char| c.is_ascii_lowercase()) {
        "must be a DNS-1035 label: lower-case letters, digits and '-', starting with a letter (e.g. memcacheds)".to_string()
    } else {
        return Ok(s.to_string());
    };
    Err(Error::invalid(format!(
        "invalid plural {}: {why}; pass another --plural",
        shown(s)
    )))
}

/// The repository path, e.g. `github.com/example/memcached-operator`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repo(String);
string_newtype!(Repo);

impl Repo {
    /// Parse `--repo`.
    ///
    /// # Errors
    ///
    /// `Error::Invalid` naming `s`, saying why it is not a module path.
    pub fn parse(s: &str) -> Result<Self> {
        // Segments as a Go module path has them: `..`, `a//b` or `-x` name no repository.
        let ok = s.len() <= 512
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._~/".contains(c))
            && s.split('/').all(|segment| {
                !segment.is_empty() && !segment.starts_with(['.', '-']) && !segment.ends_with('.')
            });
        if ok {
            return Ok(Repo(s.to_string()));
        }
        let why = match s.split_once("://") {
            Some((_, path)) if !path.is_empty() => {
                format!("a repository path has no scheme; pass --repo {}", shown(path))
            }
            _ => "must be a repository path without a scheme, at most 512 characters of letters, digits and -._~ in /-separated parts that do not start with '.' or '-' (e.g. github.com/example/memcached-operator); pass a valid --repo".to_string(),
        };
        Err(Error::invalid(format!("invalid repo {}: {why}", shown(s))))
    }
}

/// The copyright holder of `--owner`: one line (it follows `// Copyright ` in
/// hack/boilerplate.txt), of printable characters, at most 200 of them.
///
/// # Errors
///
/// `Error::Invalid` naming `s` when it is empty, has a control character (a line break)
/// or more than 200 characters.
pub fn parse_owner(s: &str) -> Result<String> {
    let why = if s.trim().is_empty() {
        "it is empty".to_string()
    } else if s.chars().any(char::is_control) {
        "it has a line break or another control character, but it goes on one comment line"
            .to_string()
    } else if s.chars().count() > 200 {
        format!(
            "it has {} characters, more than the 200 a copyright line takes",
            s.chars().count()
        )
    } else {
        return Ok(s.to_string());
    };
    Err(Error::invalid(format!(
        "invalid owner {}: {why}; pass another --owner (e.g. \"The Memcached Authors\")",
        shown(s)
    )))
}

/// A folder inside the project given with `flag` (`--output-dir`): relative, without
/// `..`, so that every file a command writes stays in the project it locked.
///
/// # Errors
///
/// `Error::Invalid` naming `flag` and `s` when the folder is empty or absolute, or has an
/// empty, `.` or `..` part.
pub fn parse_project_dir(flag: &str, s: &str) -> Result<String> {
    let trimmed = s.trim_end_matches('/');
    let ok = !trimmed.is_empty()
        && !trimmed.starts_with('/')
        && !trimmed.contains('\0')
        && trimmed
            .split('/')
            .all(|part| !matches!(part, "" | "." | ".."));
    if ok {
        Ok(trimmed.to_string())
    } else {
        Err(Error::invalid(format!(
            "invalid {flag} {}: must be a folder inside the project, relative to it and without '..' (e.g. bundle); pass another {flag}",
            shown(s)
        )))
    }
}

/// Turn a directory name into a project name candidate (`My_Operator` -> `my-operator`).
pub fn project_name_from_dir(dir: &str) -> String {
    dir.to_kebab_case()
}

#[cfg(test)]
mod tests;
