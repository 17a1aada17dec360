//! `.helmignore` rules, as Helm's `pkg/ignore` applies them when it loads a chart
//! directory: one Go `filepath.Match` glob per line, `!` negates, a trailing `/` matches
//! directories only, a pattern without `/` is matched against the base name only, and
//! `templates/.?*` (hidden template files) is always ignored.

#[derive(Debug)]
struct Rule {
    pattern: String,
    negate: bool,
    dir_only: bool,
    /// Match the whole chart-relative path rather than the base name.
    whole_path: bool,
}

/// The parsed rules; build with [`HelmIgnore::parse`] (which adds Helm's default rule).
#[derive(Debug)]
pub struct HelmIgnore {
    rules: Vec<Rule>,
}

impl HelmIgnore {
    /// The rules of a `.helmignore` text plus Helm's default rule.
    pub fn parse(text: &str) -> HelmIgnore {
        let mut rules: Vec<Rule> = text.lines().filter_map(parse_rule).collect();
        rules.extend(parse_rule("templates/.?*"));
        HelmIgnore { rules }
    }

    /// Whether Helm leaves `path` (chart-relative, `/`-separated) out of the chart.
    pub fn ignored(&self, path: &str, is_dir: bool) -> bool {
        if path.is_empty() || path == "." {
            return false;
        }
        let base = path.rsplit('/').next().unwrap_or(path);
        for rule in &self.rules {
            let subject = if rule.whole_path { path } else { base };
            let matched = glob_match(rule.pattern.as_bytes(), subject.as_bytes());
            // Helm's odd but documented negation: a `!` rule ignores everything it does
            // not match.
            if rule.negate {
                if rule.dir_only && !is_dir || !matched {
                    return true;
                }
                continue;
            }
            if rule.dir_only && !is_dir {
                continue;
            }
            if matched {
                return true;
            }
        }
        false
    }
}

fn parse_rule(line: &str) -> Option<Rule> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') || line.contains("**") {
        // Helm rejects `**`; skipping the rule keeps the file rather than losing it.
        return None;
    }
    let (negate, rest) = match line.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let (dir_only, rest) = match rest.strip_suffix('/') {
        Some(rest) => (true, rest),
        None => (false, rest),
    };
    let whole_path = rest.contains('/');
    Some(Rule {
        pattern: rest.trim_start_matches('/').to_string(),
        negate,
        dir_only,
        whole_path,
    })
}

/// Go's `filepath.Match` on `/`-separated paths: `*`, `?`, `[...]` (with ranges and `^`),
/// `\` escapes; wildcards never cross a `/`.
fn glob_match(pattern: &[u8], name: &[u8]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some((b'*', rest)) => (0..=name.len())
            .take_while(|&i| i == 0 || name[i - 1] != b'/')
            .any(|i| glob_match(rest, &name[i..])),
        Some((b'?', rest)) => {
            matches!(name.first(), Some(c) if *c != b'/') && glob_match(rest, &name[1..])
        }
        Some((b'[', rest)) => match (name.first(), class_end(rest)) {
            (Some(&c), Some(end)) if c != b'/' => {
                class_matches(&rest[..end], c) && glob_match(&rest[end + 1..], &name[1..])
            }
            _ => false,
        },
        Some((b'\\', rest)) if !rest.is_empty() => {
            name.first() == Some(&rest[0]) && glob_match(&rest[1..], &name[1..])
        }
        Some((c, rest)) => name.first() == Some(c) && glob_match(rest, &name[1..]),
    }
}

fn class_end(class: &[u8]) -> Option<usize> {
    let start = usize::from(class.first() == Some(&b'^'));
    class
        .iter()
        .skip(start + 1)
        .position(|&c| c == b']')
        .map(|i| i + start + 1)
}

fn class_matches(class: &[u8], c: u8) -> bool {
    let (negated, class) = match class.split_first() {
        Some((b'^', rest)) => (true, rest),
        _ => (false, class),
    };
    let mut found = false;
    let mut i = 0;
    while i < class.len() {
        if i + 2 < class.len() && class[i + 1] == b'-' {
            found |= class[i] <= c && c <= class[i + 2];
            i += 3;
        } else {
            found |= class[i] == c;
            i += 1;
        }
    }
    found != negated
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helm_create_rules() {
        let rules = HelmIgnore::parse(
            "# Patterns to ignore\n.DS_Store\n.git/\n*.swp\n*.bak\n*.tmp\n*.orig\n*~\n.vscode/\n",
        );
        assert!(rules.ignored(".git", true));
        assert!(!rules.ignored(".git", false), "dir-only rule");
        assert!(rules.ignored("templates/x.yaml.swp", false));
        assert!(rules.ignored("a/b/file~", false));
        assert!(!rules.ignored("templates/deployment.yaml", false));
        assert!(!rules.ignored(".helmignore", false));
        assert!(
            rules.ignored("templates/.hidden.yaml", false),
            "Helm's default rule"
        );
    }

    #[test]
    fn slash_patterns_match_whole_paths() {
        let rules = HelmIgnore::parse("/ci/*.yaml\ndocs/\n");
        assert!(rules.ignored("ci/values.yaml", false));
        assert!(!rules.ignored("templates/ci/values.yaml", false));
        assert!(rules.ignored("docs", true));
    }

    #[test]
    fn globs_follow_go_filepath_match() {
        assert!(glob_match(b"*.t[a-z]z", b"chart.tgz"));
        assert!(!glob_match(b"*.t[^g]z", b"chart.tgz"));
        assert!(!glob_match(b"*", b"a/b"));
        assert!(glob_match(b"a?c", b"abc"));
        assert!(glob_match(b"\\*", b"*"));
    }
}
