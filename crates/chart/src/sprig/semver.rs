//! Masterminds/semver v3 as sprig uses it: loose versions ("v1.2", "1"), constraints
//! with `||`, commas or spaces, `x` wildcards, `~`, `^`, ranges `a - b`, and the rule
//! that a prerelease version only satisfies a constraint that names a prerelease.
use std::cmp::Ordering;
use std::sync::OnceLock;

use gotemplate::{Object, Result, Value};
use regex::Regex;

use super::args::{Function, call_error, exact, s, string};

const LOOSE: &str = r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
const CV: &str = r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
const OPS: &str = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^";

struct Patterns {
    version: Regex,
    constraint: Regex,
    range: Regex,
    find: Regex,
    valid: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        // Constant patterns: a failure here is a bug in this file, not bad input.
        let re = |p: String| Regex::new(&p).expect("semver pattern is a valid constant");
        Patterns {
            version: re(format!("^{LOOSE}$")),
            constraint: re(format!(r"^\s*({OPS})\s*({CV})\s*$")),
            range: re(format!(r"\s*({CV})\s+-\s+({CV})\s*")),
            find: re(format!(r"({OPS})\s*({CV})")),
            valid: re(format!(
                r"^(\s*({OPS})\s*({CV})\s*)((?:\s+|,\s*)({OPS})\s*({CV})\s*)*$"
            )),
        }
    })
}

/// A parsed version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: String,
    pub metadata: String,
    pub original: String,
}

const ALLOWED: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789";

impl Version {
    /// semver.NewVersion (coercing, as v3.5 does by default).
    ///
    /// # Errors
    ///
    /// Masterminds' message when `v` is not a version even loosely.
    pub fn parse(v: &str) -> Result<Version, String> {
        let m = patterns()
            .version
            .captures(v)
            .ok_or("invalid semantic version")?;
        let seg = |i: usize| -> Result<u64, String> {
            m.get(i).map_or(Ok(0), |g| {
                g.as_str()
                    .trim_start_matches('.')
                    .parse()
                    .map_err(|e| format!("error parsing version segment: {e}"))
            })
        };
        let version = Version {
            major: seg(1)?,
            minor: seg(2)?,
            patch: seg(3)?,
            pre: m.get(5).map_or("", |g| g.as_str()).to_string(),
            metadata: m.get(8).map_or("", |g| g.as_str()).to_string(),
            original: v.to_string(),
        };
        for part in version.pre.split('.').filter(|_| !version.pre.is_empty()) {
            if part.bytes().all(|b| b.is_ascii_digit()) && part.len() > 1 && part.starts_with('0') {
                return Err("version segment starts with 0".into());
            }
            if part.is_empty() || !part.chars().all(|c| ALLOWED.contains(c)) {
                return Err("invalid prerelease string".into());
            }
        }
        Ok(version)
    }

    /// Version.Compare.
    pub fn compare(&self, o: &Version) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(o.major, o.minor, o.patch))
            .then_with(|| match (self.pre.is_empty(), o.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => compare_prerelease(&self.pre, &o.pre),
            })
    }

    fn display(&self) -> String {
        let mut out = format!("{}.{}.{}", self.major, self.minor, self.patch);
        if !self.pre.is_empty() {
            out.push('-');
            out.push_str(&self.pre);
        }
        if !self.metadata.is_empty() {
            out.push('+');
            out.push_str(&self.metadata);
        }
        out
    }
}

fn compare_prerelease(left: &str, right: &str) -> Ordering {
    let left: Vec<&str> = left.split('.').collect();
    let right: Vec<&str> = right.split('.').collect();
    for i in 0..left.len().max(right.len()) {
        let order = compare_pre_part(
            left.get(i).copied().unwrap_or(""),
            right.get(i).copied().unwrap_or(""),
        );
        if order != Ordering::Equal {
            return order;
        }
    }
    Ordering::Equal
}

fn compare_pre_part(x: &str, y: &str) -> Ordering {
    if x == y {
        return Ordering::Equal;
    }
    if x.is_empty() {
        return Ordering::Less;
    }
    if y.is_empty() {
        return Ordering::Greater;
    }
    match (x.parse::<u64>(), y.parse::<u64>()) {
        (Err(_), Err(_)) => {
            if x > y {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        (Ok(a), Ok(b)) => {
            if a > b {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
    }
}

#[derive(Debug)]
struct Constraint {
    con: Version,
    op: String,
    minor_dirty: bool,
    patch_dirty: bool,
    dirty: bool,
}

fn is_x(x: &str) -> bool {
    matches!(x, "x" | "*" | "X")
}

fn parse_constraint(c: &str) -> Result<Constraint, String> {
    let m = patterns()
        .constraint
        .captures(c)
        .ok_or_else(|| format!("improper constraint: {c:?}"))?;
    let g = |i: usize| m.get(i).map_or("", |g| g.as_str());
    let (major, minor, patch, pre) = (g(3), g(4), g(5), g(6));
    let (mut dirty, mut minor_dirty, mut patch_dirty) = (false, false, false);
    let ver = if is_x(major) || major.is_empty() {
        dirty = true;
        format!("0.0.0{pre}")
    } else if is_x(minor.trim_start_matches('.')) || minor.is_empty() {
        (dirty, minor_dirty) = (true, true);
        format!("{major}.0.0{pre}")
    } else if is_x(patch.trim_start_matches('.')) || patch.is_empty() {
        (dirty, patch_dirty) = (true, true);
        format!("{major}{minor}.0{pre}")
    } else {
        g(2).to_string()
    };
    let con = Version::parse(&ver).map_err(|_| "constraint parser error".to_string())?;
    Ok(Constraint {
        con,
        op: g(1).to_string(),
        minor_dirty,
        patch_dirty,
        dirty,
    })
}

/// A parsed constraint set: alternatives (`||`) of conjunctions.
pub struct Constraints {
    alternatives: Vec<(Vec<Constraint>, bool)>,
}

impl Constraints {
    /// semver.NewConstraint.
    ///
    /// # Errors
    ///
    /// Masterminds' message for the first part of `text` that is not a constraint.
    pub fn parse(text: &str) -> Result<Constraints, String> {
        let p = patterns();
        let mut rewritten = text.to_string();
        for m in p.range.captures_iter(text) {
            let whole = m.get(0).map_or("", |g| g.as_str());
            let (from, to) = (
                m.get(1).map_or("", |g| g.as_str()),
                m.get(11).map_or("", |g| g.as_str()),
            );
            rewritten = rewritten.replacen(whole, &format!(">= {from}, <= {to} "), 1);
        }
        let mut alternatives = Vec::new();
        for alt in rewritten.split("||") {
            if !p.valid.is_match(alt) {
                return Err(format!("improper constraint: {alt:?}"));
            }
            let mut found: Vec<&str> = p.find.find_iter(alt).map(|m| m.as_str()).collect();
            if found.is_empty() {
                found.push(alt);
            }
            let parsed = found
                .into_iter()
                .map(parse_constraint)
                .collect::<Result<Vec<_>, _>>()?;
            let has_pre = parsed.iter().any(|c| !c.con.pre.is_empty());
            alternatives.push((parsed, has_pre));
        }
        Ok(Constraints { alternatives })
    }

    /// Constraints.Check.
    pub fn check(&self, v: &Version) -> bool {
        self.alternatives
            .iter()
            .any(|(all, pre)| all.iter().all(|c| check_one(c, v, *pre)))
    }
}

fn check_one(c: &Constraint, v: &Version, include_pre: bool) -> bool {
    if !v.pre.is_empty() && !include_pre {
        return false;
    }
    let con = &c.con;
    let cmp = v.compare(con);
    match c.op.as_str() {
        "" | "=" => {
            if c.dirty {
                tilde(c, v)
            } else {
                cmp == Ordering::Equal
            }
        }
        "!=" => not_equal(c, v),
        ">" => {
            if !c.dirty {
                cmp == Ordering::Greater
            } else if v.major != con.major {
                v.major > con.major
            } else if c.minor_dirty {
                false
            } else if c.patch_dirty {
                v.minor > con.minor
            } else {
                cmp == Ordering::Greater
            }
        }
        "<" => cmp == Ordering::Less,
        ">=" | "=>" => cmp != Ordering::Less,
        "<=" | "=<" => {
            if c.dirty {
                !(v.major > con.major
                    || v.major == con.major && v.minor > con.minor && !c.minor_dirty)
            } else {
                cmp != Ordering::Greater
            }
        }
        "~" | "~>" => tilde(c, v),
        "^" => caret(c, v),
        _ => false,
    }
}

fn not_equal(c: &Constraint, v: &Version) -> bool {
    let con = &c.con;
    if c.dirty {
        if con.major != v.major {
            return true;
        }
        if con.minor != v.minor && !c.minor_dirty {
            return true;
        } else if c.minor_dirty {
            return false;
        } else if con.patch != v.patch && !c.patch_dirty {
            return true;
        } else if c.patch_dirty {
            if !v.pre.is_empty() || !con.pre.is_empty() {
                return compare_prerelease(&v.pre, &con.pre) != Ordering::Equal;
            }
            return false;
        }
    }
    v.compare(con) != Ordering::Equal
}

fn tilde(c: &Constraint, v: &Version) -> bool {
    let con = &c.con;
    if v.compare(con) == Ordering::Less {
        return false;
    }
    if con.major == 0 && con.minor == 0 && con.patch == 0 && !c.minor_dirty && !c.patch_dirty {
        return true;
    }
    v.major == con.major && (v.minor == con.minor || c.minor_dirty)
}

fn caret(c: &Constraint, v: &Version) -> bool {
    let con = &c.con;
    if v.compare(con) == Ordering::Less {
        return false;
    }
    if con.major > 0 || c.minor_dirty {
        return v.major == con.major;
    }
    if v.major > 0 {
        return false;
    }
    if con.minor > 0 || c.patch_dirty {
        return v.minor == con.minor;
    }
    if v.minor > 0 {
        return false;
    }
    con.patch == v.patch
}

/// The `*semver.Version` `semver` returns: charts call its methods (`.Major`,
/// `.Prerelease`, `.Compare`), and it prints and serializes as its version string.
struct VersionObject(Version);

impl Object for VersionObject {
    fn type_name(&self) -> &'static str {
        "*semver.Version"
    }
    fn call_method(&self, name: &str, a: &[Value]) -> Option<Result<Value>> {
        let v = &self.0;
        let no_args = |value: Value| exact(name, a, 0).map(|_| value);
        Some(match name {
            "Major" => no_args(Value::Uint(v.major)),
            "Minor" => no_args(Value::Uint(v.minor)),
            "Patch" => no_args(Value::Uint(v.patch)),
            "Prerelease" => no_args(s(v.pre.as_str())),
            "Metadata" => no_args(s(v.metadata.as_str())),
            "Original" => no_args(s(v.original.as_str())),
            "String" => no_args(s(v.display())),
            "Compare" | "LessThan" | "GreaterThan" | "Equal" => exact(name, a, 1).and_then(|a| {
                let other = other_version(&a[0])?;
                let order = v.compare(&other);
                Ok(match name {
                    "Compare" => Value::Int(order as i64),
                    "LessThan" => Value::Bool(order == Ordering::Less),
                    "GreaterThan" => Value::Bool(order == Ordering::Greater),
                    _ => Value::Bool(order == Ordering::Equal),
                })
            }),
            _ => return None,
        })
    }
    fn has_method(&self, name: &str) -> bool {
        matches!(
            name,
            "Major"
                | "Minor"
                | "Patch"
                | "Prerelease"
                | "Metadata"
                | "Original"
                | "String"
                | "Compare"
                | "LessThan"
                | "GreaterThan"
                | "Equal"
        )
    }
    fn method_signature(&self, name: &str) -> Option<&'static str> {
        Some(match name {
            "Major" | "Minor" | "Patch" => "func() uint64",
            "Compare" => "func(*semver.Version) int",
            "LessThan" | "GreaterThan" | "Equal" => "func(*semver.Version) bool",
            _ => "func() string",
        })
    }
    fn go_string(&self) -> String {
        self.0.display()
    }
    /// Version's `MarshalJSON` writes its string.
    fn to_data(&self) -> Value {
        s(self.0.display())
    }
}

/// What sprig's `deepCopy` makes of a `*semver.Version`: copystructure copies exported
/// fields only and a Version has none, so the copy is the zero version (`0.0.0`).
pub(crate) fn deep_copied_version() -> Value {
    Value::Object(std::sync::Arc::new(VersionObject(Version {
        major: 0,
        minor: 0,
        patch: 0,
        pre: String::new(),
        metadata: String::new(),
        original: String::new(),
    })))
}

/// The `*semver.Version` argument of a comparison method.
fn other_version(v: &Value) -> Result<Version> {
    match v {
        Value::Object(o) if o.type_name() == "*semver.Version" => {
            Version::parse(&o.go_string()).map_err(|e| call_error("semver", e))
        }
        other => Err(gotemplate::TemplateError::Exec(format!(
            "wrong type for value; expected *semver.Version; got {}",
            other.type_name()
        ))),
    }
}

/// The family's template functions.
pub(crate) const FUNCTIONS: &[Function] = &[
    Function::new("semver", "func(string) (*semver.Version, error)", semver),
    Function::new(
        "semverCompare",
        "func(string, string) (bool, error)",
        semver_compare,
    ),
];

/// `semver text`: a `*semver.Version` object, or Masterminds' parse error.
fn semver(a: &[Value]) -> Result<Value> {
    let text = string(&exact("semver", a, 1)?[0])?;
    Version::parse(text)
        .map(|v| Value::Object(std::sync::Arc::new(VersionObject(v))))
        .map_err(|e| call_error("semver", e))
}

/// `semverCompare constraint version`: whether the version meets the constraint.
fn semver_compare(a: &[Value]) -> Result<Value> {
    let a = exact("semverCompare", a, 2)?;
    let (constraint, version) = (string(&a[0])?, string(&a[1])?);
    let c = Constraints::parse(constraint).map_err(|e| call_error("semverCompare", e))?;
    let v = Version::parse(version).map_err(|e| call_error("semverCompare", e))?;
    Ok(Value::Bool(c.check(&v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(c: &str, v: &str) -> bool {
        Constraints::parse(c)
            .unwrap()
            .check(&Version::parse(v).unwrap())
    }

    #[test]
    fn constraints_follow_masterminds() {
        assert!(ok(">=1.19-0", "v1.36.0"));
        assert!(ok(">=1.21-0", "1.36.0"));
        assert!(!ok("<1.19-0", "v1.36.0"));
        assert!(ok("^1.2", "1.9.0"));
        assert!(!ok("^1.2", "2.0.0"));
        assert!(ok("~1.2.3", "1.2.9"));
        assert!(!ok("~1.2.3", "1.3.0"));
        assert!(ok("1.2.x", "1.2.7"));
        assert!(ok(">= 1.2, < 3.0.0 || >= 4.2.3", "4.3.0"));
        assert!(ok("1.1 - 2", "1.5.0"));
        assert!(!ok(">=1.2.0", "1.3.0-beta.1"));
        assert!(ok(">=1.2.0-0", "1.3.0-beta.1"));
        assert!(!ok("<v3.9.0", "v4.2"));
        assert!(ok(">1.2", "1.3.0"));
        assert!(!ok(">1.2", "1.2.5"));
    }

    #[test]
    fn versions_parse_loosely() {
        let v = Version::parse("v1.36").unwrap();
        assert_eq!((v.major, v.minor, v.patch), (1, 36, 0));
        assert!(Version::parse("1.2.3-01").is_err());
        assert!(Version::parse("latest").is_err());
        assert!(Constraints::parse("latest").is_err());
    }
}
