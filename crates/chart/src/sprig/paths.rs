//! Go's path and path/filepath functions (base, dir, clean, ext, isAbs and the os*
//! variants, identical on Unix), plus getHostByName, which Helm answers with ""
//! unless DNS lookups are enabled, and uuidv4.
use gotemplate::{Result, Value};

use super::args::{Function, exact, s, string};

/// The family's template functions. The `os*` forms are Go's path/filepath functions,
/// which give the same results as package path's on Unix.
pub(crate) const FUNCTIONS: &[Function] = &[
    Function::new("base", "func(string) string", path_base),
    Function::new("clean", "func(string) string", path_clean),
    Function::new("dir", "func(string) string", path_dir),
    Function::new("ext", "func(string) string", path_ext),
    Function::new("isAbs", "func(string) bool", path_is_abs),
    Function::new("osBase", "func(string) string", os_base),
    Function::new("osClean", "func(string) string", os_clean),
    Function::new("osDir", "func(string) string", os_dir),
    Function::new("osExt", "func(string) string", os_ext),
    Function::new("osIsAbs", "func(string) bool", os_is_abs),
    Function::new("getHostByName", "func(string) string", get_host_by_name),
    Function::new("uuidv4", "func() string", uuidv4),
];

/// Go's path.Clean: the shortest equivalent path by lexical processing.
pub fn clean(p: &str) -> String {
    if p.is_empty() {
        return ".".to_string();
    }
    let rooted = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in p.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

/// Go's path.Base.
pub fn base(p: &str) -> String {
    if p.is_empty() {
        return ".".to_string();
    }
    let trimmed = p.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/".to_string();
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed).to_string()
}

/// Go's path.Dir.
pub fn dir(p: &str) -> String {
    let cut = p.rfind('/').map_or(0, |i| i + 1);
    clean(&p[..cut])
}

/// Go's path.Ext.
pub fn ext(p: &str) -> String {
    for (i, c) in p.char_indices().rev() {
        match c {
            '/' => return String::new(),
            '.' => return p[i..].to_string(),
            _ => {}
        }
    }
    String::new()
}

/// The one string argument of the function `name`.
fn path_arg<'a>(name: &str, args: &'a [Value]) -> Result<&'a str> {
    string(&exact(name, args, 1)?[0])
}

fn path_base(args: &[Value]) -> Result<Value> {
    Ok(s(base(path_arg("base", args)?)))
}

fn path_clean(args: &[Value]) -> Result<Value> {
    Ok(s(clean(path_arg("clean", args)?)))
}

fn path_dir(args: &[Value]) -> Result<Value> {
    Ok(s(dir(path_arg("dir", args)?)))
}

fn path_ext(args: &[Value]) -> Result<Value> {
    Ok(s(ext(path_arg("ext", args)?)))
}

fn path_is_abs(args: &[Value]) -> Result<Value> {
    Ok(Value::Bool(path_arg("isAbs", args)?.starts_with('/')))
}

fn os_base(args: &[Value]) -> Result<Value> {
    Ok(s(base(path_arg("osBase", args)?)))
}

fn os_clean(args: &[Value]) -> Result<Value> {
    Ok(s(clean(path_arg("osClean", args)?)))
}

fn os_dir(args: &[Value]) -> Result<Value> {
    Ok(s(dir(path_arg("osDir", args)?)))
}

fn os_ext(args: &[Value]) -> Result<Value> {
    Ok(s(ext(path_arg("osExt", args)?)))
}

fn os_is_abs(args: &[Value]) -> Result<Value> {
    Ok(Value::Bool(path_arg("osIsAbs", args)?.starts_with('/')))
}

/// Helm answers "" unless DNS lookups are enabled, which rusty-sdk never does.
fn get_host_by_name(args: &[Value]) -> Result<Value> {
    path_arg("getHostByName", args)?;
    Ok(s(""))
}

fn uuidv4(args: &[Value]) -> Result<Value> {
    exact("uuidv4", args, 0)?;
    Ok(s(uuid::Uuid::new_v4().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_follow_go() {
        assert_eq!(clean("a/../../b/./c//"), "../b/c");
        assert_eq!(clean("/../a"), "/a");
        assert_eq!(base("/a/b.txt/"), "b.txt");
        assert_eq!(base(""), ".");
        assert_eq!(dir("/a/b/c"), "/a/b");
        assert_eq!(dir("c"), ".");
        assert_eq!(ext("a/b.tar.gz"), ".gz");
        assert_eq!(ext("a.d/b"), "");
    }
}
