//! `.helmignore`: files Helm leaves out when it loads a chart directory.
use crate::glob;

/// Parsed `.helmignore` rules (negations with `!` re-include a path).
#[derive(Debug, Default)]
pub struct HelmIgnore {
    rules: Vec<Rule>,
}

#[derive(Debug)]
struct Rule {
    pattern: String,
    negate: bool,
    dir_only: bool,
}

impl HelmIgnore {
    pub fn parse(text: &str) -> HelmIgnore {
        let rules = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|line| {
                let (negate, line) = match line.strip_prefix('!') {
                    Some(rest) => (true, rest),
                    None => (false, line),
                };
                let dir_only = line.ends_with('/');
                let pattern = line
                    .trim_end_matches('/')
                    .trim_start_matches("./")
                    .to_string();
                Rule {
                    pattern,
                    negate,
                    dir_only,
                }
            })
            .collect();
        HelmIgnore { rules }
    }

    /// Is the chart-relative `path` ignored? `is_dir` says whether it names a directory.
    pub fn ignored(&self, path: &str, is_dir: bool) -> bool {
        let base = path.rsplit('/').next().unwrap_or(path);
        let mut ignored = false;
        for rule in &self.rules {
            if rule.dir_only && !is_dir {
                continue;
            }
            let hit = if rule.pattern.contains('/') {
                glob::matches(&rule.pattern, path)
            } else {
                glob::matches(&rule.pattern, base)
            };
            if hit {
                ignored = !rule.negate;
            }
        }
        ignored
    }
}
