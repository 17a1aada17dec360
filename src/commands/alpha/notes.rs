//! Migration notes: what changed in the runtime's public API and what a project must do by
//! hand when its code uses it. Their one home is docs/upgrading.md ("Migration notes"),
//! built into rusty-sdk; each note says which code it applies to, so `alpha update` prints
//! only the notes the project needs, whichever version it comes from.
use std::collections::BTreeMap;

const UPGRADING: &str = include_str!("../../../docs/upgrading.md");
const SECTION: &str = "\n## Migration notes\n";
/// The line of a note that names the code it applies to.
const APPLIES: &str = "Applies to code that contains `";

/// One note: its heading, the text it applies to, and what to do.
#[derive(Debug)]
pub struct Note {
    pub title: &'static str,
    pub pattern: &'static str,
    pub body: String,
}

/// Every note of docs/upgrading.md, in its order.
pub fn all() -> Vec<Note> {
    let Some(start) = UPGRADING.find(SECTION) else {
        return Vec::new();
    };
    let section = &UPGRADING[start + SECTION.len()..];
    let section = section.find("\n## ").map_or(section, |end| &section[..end]);
    section
        .split("\n### ")
        .skip(1)
        .filter_map(|note| {
            let (title, rest) = note.split_once('\n')?;
            let line = rest.lines().find(|l| l.starts_with(APPLIES))?;
            let pattern = line[APPLIES.len()..].split('`').next()?;
            let body = rest
                .lines()
                .filter(|l| !l.starts_with(APPLIES))
                .collect::<Vec<_>>()
                .join("\n")
                .trim()
                .to_string();
            Some(Note {
                title: title.trim(),
                pattern,
                body,
            })
        })
        .collect()
}

/// The notes whose code occurs in one of the project's Rust files, each with the first
/// file that has it.
pub fn applying(files: &BTreeMap<String, Vec<u8>>) -> Vec<(Note, String)> {
    all()
        .into_iter()
        .filter_map(|note| {
            #[expect(
                clippy::case_sensitive_file_extension_comparisons,
                reason = "cargo builds only `.rs` files"
            )]
            let file = files.iter().find(|(path, bytes)| {
                path.ends_with(".rs") && String::from_utf8_lossy(bytes).contains(note.pattern)
            })?;
            Some((note, file.0.clone()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A note without its `Applies to` line would never be printed: every `###` of the
    /// section must parse.
    #[test]
    fn every_note_of_docs_upgrading_names_its_code() {
        let start = UPGRADING
            .find(SECTION)
            .expect("docs/upgrading.md: Migration notes");
        let section = &UPGRADING[start..];
        let section = section[1..]
            .find("\n## ")
            .map_or(section, |end| &section[..=end]);
        let headings = section.matches("\n### ").count();
        assert!(headings > 0);
        assert_eq!(all().len(), headings, "a note lacks `{APPLIES}...`");
        assert!(
            all()
                .iter()
                .all(|n| !n.pattern.is_empty() && !n.body.is_empty())
        );
    }

    #[test]
    fn only_notes_whose_code_the_project_has_apply() {
        let first = &all()[0];
        let mut files = BTreeMap::new();
        files.insert("README.md".to_string(), first.pattern.as_bytes().to_vec());
        assert!(applying(&files).is_empty(), "only Rust files count");
        files.insert(
            "src/controller/x.rs".to_string(),
            format!("let y = {};\n", first.pattern).into_bytes(),
        );
        let found = applying(&files);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1, "src/controller/x.rs");
    }
}
