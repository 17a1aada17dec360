//! The chart's templates stay the user's once changed. Each template the tool writes opens
//! with a Go template comment (it renders to nothing) recording the SHA-256 of what it
//! wrote below it. On the next run a file whose text still matches its record is the
//! tool's and is brought up to date; one that no longer matches (or has no record, as
//! charts of earlier versions) was changed by hand and is left as it is, with a warning,
//! unless `--force`.
use crate::error::Result;
use crate::scaffold::{Policy, Tree};

const OPEN: &str = "{{- /* rusty-sdk wrote this file (sha256:";
const CLOSE: &str = "); edit --plugins=helm/v2-alpha updates it until you change it, then leaves it to you unless --force */ -}}\n";

/// `body` with the record of its hash in front.
fn stamped(body: &str) -> String {
    format!("{OPEN}{}{CLOSE}{body}", short_hash(body))
}

fn short_hash(text: &str) -> String {
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, text.as_bytes());
    crate::digest::hex(&digest.as_ref()[..8])
}

/// The body of a stamped file, if its text still matches the hash it records.
fn untouched_body(text: &str) -> Option<&str> {
    let rest = text.strip_prefix(OPEN)?;
    let (hash, body) = rest.split_once(CLOSE)?;
    (short_hash(body) == hash).then_some(body)
}

/// What became of a template the tool generated.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Staged: new, unchanged since the tool wrote it, or `--force`.
    Staged,
    /// Left alone: the user changed it and the generated text differs.
    Kept,
}

/// Stage the generated template `body` at `path` unless the file there was changed by hand
/// (then it is left as it is, unless `force`).
pub fn stage(tree: &mut Tree, path: &str, body: &str, force: bool) -> Result<Outcome> {
    let text = stamped(body);
    let Some(current) = tree.read(path)? else {
        tree.add(path, text, Policy::Tool);
        return Ok(Outcome::Staged);
    };
    // Unchanged since written, or changed into exactly what is generated now (an older
    // chart without a record, say): the tool's to update.
    let tools = untouched_body(&current).is_some() || current == body;
    if tools || force {
        tree.add(path, text, Policy::Tool);
        Ok(Outcome::Staged)
    } else {
        Ok(Outcome::Kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_changed_by_hand_is_kept_unless_forced() {
        let dir = tempfile::tempdir().unwrap();
        let path = "chart/templates/a.yaml";
        let write = |text: &str| {
            std::fs::create_dir_all(dir.path().join("chart/templates")).unwrap();
            std::fs::write(dir.path().join(path), text).unwrap();
        };
        let staged = |body: &str, force: bool| {
            let mut tree = Tree::new(dir.path());
            let outcome = stage(&mut tree, path, body, force).unwrap();
            (outcome, tree.read(path).unwrap().unwrap())
        };
        // New: written with its record; the record renders to nothing.
        let (outcome, text) = staged("kind: A\n", false);
        assert_eq!(outcome, Outcome::Staged);
        assert!(
            text.starts_with(OPEN) && text.ends_with(" -}}\nkind: A\n"),
            "{text}"
        );
        write(&text);
        // Untouched: updated to what is generated now.
        assert_eq!(staged("kind: B\n", false).0, Outcome::Staged);
        // Changed by hand (in the body or in the record): kept, but for --force.
        for edited in [
            text.replace("kind: A", "kind: Mine"),
            text.replace("sha256:", "sha256:0"),
        ] {
            write(&edited);
            assert_eq!(staged("kind: B\n", false).0, Outcome::Kept, "{edited}");
            assert_eq!(
                staged("kind: B\n", true),
                (Outcome::Staged, stamped("kind: B\n"))
            );
        }
        // A chart of an earlier version (no record): its text is the user's, unless it is
        // what is generated.
        write("kind: A\n");
        assert_eq!(staged("kind: B\n", false).0, Outcome::Kept);
        assert_eq!(
            staged("kind: A\n", false),
            (Outcome::Staged, stamped("kind: A\n"))
        );
    }
}
