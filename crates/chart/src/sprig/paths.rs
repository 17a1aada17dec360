//! Go's path and path/filepath functions (base, dir, clean, ext, isAbs and the os*
//! variants, identical on Unix), plus getHostByName, which Helm answers with ""
//! unless DNS lookups are enabled, and uuidv4.
use gotemplate::{FuncMap, Value};

use super::args::{add, exact, s, string};

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

pub(crate) fn register(m: &mut FuncMap) {
    for (name, os_name, f) in [
        ("base", "osBase", base as fn(&str) -> String),
        ("dir", "osDir", dir),
        ("clean", "osClean", clean),
        ("ext", "osExt", ext),
    ] {
        for n in [name, os_name] {
            add(m, n, move |a| Ok(s(f(string(&exact(n, a, 1)?[0])?))));
        }
    }
    for n in ["isAbs", "osIsAbs"] {
        add(m, n, move |a| {
            Ok(Value::Bool(string(&exact(n, a, 1)?[0])?.starts_with('/')))
        });
    }
    add(m, "getHostByName", |a| {
        string(&exact("getHostByName", a, 1)?[0])?;
        Ok(s(""))
    });
    add(m, "uuidv4", |a| {
        exact("uuidv4", a, 0)?;
        Ok(s(uuid::Uuid::new_v4().to_string()))
    });
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
