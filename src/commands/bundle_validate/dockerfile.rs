//! The bundle image's Dockerfile (`bundle.Dockerfile`, which `make bundle` writes beside the
//! bundle's folder): found when it copies this bundle's metadata into the image, and read
//! for its labels. Registries and `opm` read a bundle image's labels, OLM its
//! metadata/annotations.yaml; `rules` checks that the two say the same.
use std::path::{Path, PathBuf};

use super::{Dockerfile, Findings};
use crate::scaffold::input;

const NAME: &str = "bundle.Dockerfile";
/// A bundle's Dockerfile is a few lines; anything larger is not one.
const MAX_BYTES: u64 = 1 << 20;

/// The Dockerfile of the bundle in `dir` (shown as `shown`): `bundle.Dockerfile` beside the
/// folder, in it, or at the project's `root` (where `generate bundle --output-dir` leaves
/// it), when one of its COPY instructions puts `dir/metadata` at `/metadata`.
pub fn find(root: &Path, dir: &Path, shown: &str, findings: &mut Findings) -> Option<Dockerfile> {
    let metadata = std::fs::canonicalize(dir.join("metadata")).ok()?;
    let parent_shown = match shown.rsplit_once('/') {
        Some((parent, _)) if !parent.is_empty() => format!("{parent}/{NAME}"),
        Some(_) => format!("/{NAME}"),
        None => NAME.to_string(),
    };
    let candidates: Vec<(PathBuf, String)> = [
        dir.parent().map(|p| (p.join(NAME), parent_shown)),
        Some((dir.join(NAME), format!("{shown}/{NAME}"))),
        Some((root.join(NAME), NAME.to_string())),
    ]
    .into_iter()
    .flatten()
    .collect();
    for (path, file) in candidates {
        let Ok(text) = input::read_text(&path, MAX_BYTES) else {
            continue;
        };
        let instructions = instructions(&text);
        let copies_metadata = instructions
            .iter()
            .filter(|(op, _)| op.eq_ignore_ascii_case("COPY") || op.eq_ignore_ascii_case("ADD"))
            .any(|(_, args)| {
                let args: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
                let Some((destination, sources)) = args.split_last() else {
                    return false;
                };
                destination.trim_end_matches('/') == "/metadata"
                    && sources.iter().any(|source| {
                        path.parent()
                            .and_then(|base| std::fs::canonicalize(base.join(source)).ok())
                            .is_some_and(|source| source == metadata)
                    })
            });
        if !copies_metadata {
            continue;
        }
        let mut labels = Vec::new();
        for (_, args) in instructions
            .iter()
            .filter(|(op, _)| op.eq_ignore_ascii_case("LABEL"))
        {
            for arg in args {
                match arg.split_once('=') {
                    Some((key, value)) => labels.push((key.to_string(), value.to_string())),
                    None => findings.error(
                        &file,
                        "LABEL",
                        format!("{arg:?} is not key=value; write LABEL <key>=<value>"),
                    ),
                }
            }
        }
        return Some(Dockerfile { file, labels });
    }
    None
}

/// The instructions of a Dockerfile: the keyword and its arguments, with line
/// continuations joined, comments dropped and double quotes taken off (`"a b"` is one
/// argument).
fn instructions(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut pending = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if pending.is_empty() && (trimmed.is_empty() || trimmed.starts_with('#')) {
            continue;
        }
        if let Some(continued) = trimmed.strip_suffix('\\') {
            pending.push_str(continued);
            pending.push(' ');
            continue;
        }
        pending.push_str(trimmed);
        let words = words(&pending);
        pending.clear();
        if let Some((op, args)) = words.split_first() {
            out.push((op.clone(), args.to_vec()));
        }
    }
    out
}

/// Whitespace-separated words; a double-quoted part keeps its spaces and loses its quotes,
/// and a backslash inside quotes takes the next character as it is.
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quoted = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                quoted = !quoted;
                in_word = true;
            }
            '\\' if quoted => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            c if c.is_whitespace() && !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_read_across_continuations_and_quotes() {
        let text = "FROM scratch\n# a comment\nLABEL a=1 \\\n  b=\"two words\"\nCOPY --chown=0 bundle/metadata /metadata/\n";
        let instructions = instructions(text);
        assert_eq!(
            instructions,
            vec![
                ("FROM".to_string(), vec!["scratch".to_string()]),
                (
                    "LABEL".to_string(),
                    vec!["a=1".to_string(), "b=two words".to_string()]
                ),
                (
                    "COPY".to_string(),
                    vec![
                        "--chown=0".to_string(),
                        "bundle/metadata".to_string(),
                        "/metadata/".to_string()
                    ]
                ),
            ]
        );
    }
}
