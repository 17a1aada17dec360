//! The three-way merge of one file: the ancestor (what the older rusty-sdk scaffolded),
//! "ours" (the user's file) and "theirs" (what this rusty-sdk scaffolds), with
//! `git merge-file`'s algorithm and markers (the `diffy` crate).
//!
//! Line endings are the user's: a file kept in CRLF is merged as LF and written back in
//! CRLF, so a scaffold in LF does not turn every line into a conflict.
use diffy::{ConflictStyle, IncompleteHunkStyle, MergeOptions};

/// What becomes of one path.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The user's file stays as it is (nothing upstream changed, or the user already has
    /// the new content).
    Keep,
    /// Written: new or merged without conflicts.
    Write(Vec<u8>),
    /// Written with conflict markers.
    Conflict(Vec<u8>),
    /// The new scaffold has no such file any more: the user's copy stays, listed.
    Dropped,
    /// The user deleted a file the new scaffold still changes: it stays deleted, listed.
    DeletedByUser,
    /// Not text: the user's copy stays and the new one is listed.
    Binary,
}

/// Merge one path, each side `None` where the file does not exist.
pub fn merge(ancestor: Option<&[u8]>, ours: Option<&[u8]>, theirs: Option<&[u8]>) -> Outcome {
    if ancestor == theirs || ours == theirs {
        return Outcome::Keep;
    }
    let (Some(theirs), Some(ours)) = (theirs, ours) else {
        return match (theirs, ours) {
            // New in the scaffold: add it.
            (Some(theirs), None) if ancestor.is_none() => Outcome::Write(theirs.to_vec()),
            (Some(_), None) => Outcome::DeletedByUser,
            _ => Outcome::Dropped,
        };
    };
    if ancestor == Some(ours) {
        return Outcome::Write(theirs.to_vec());
    }
    let ancestor = ancestor.unwrap_or_default();
    let (Ok(a), Ok(o), Ok(t)) = (
        std::str::from_utf8(ancestor),
        std::str::from_utf8(ours),
        std::str::from_utf8(theirs),
    ) else {
        return Outcome::Binary;
    };
    let crlf = is_crlf(o);
    let lf = |text: &str| {
        if crlf {
            text.replace("\r\n", "\n")
        } else {
            text.to_string()
        }
    };
    let (a, o, t) = (lf(a), lf(o), lf(t));
    let mut options = MergeOptions::new();
    options
        .set_conflict_style(ConflictStyle::Merge)
        .set_incomplete_hunk_style(IncompleteHunkStyle::Git);
    let restore = |text: String| {
        if crlf {
            text.replace('\n', "\r\n").into_bytes()
        } else {
            text.into_bytes()
        }
    };
    match options.merge(&a, &o, &t) {
        Ok(merged) if merged.as_bytes() == o.as_bytes() => Outcome::Keep,
        Ok(merged) => Outcome::Write(restore(merged)),
        Err(conflicted) => Outcome::Conflict(restore(conflicted)),
    }
}

/// Every line of `text` ends with CRLF.
fn is_crlf(text: &str) -> bool {
    let lines = text.matches('\n').count();
    lines > 0 && text.matches("\r\n").count() == lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(outcome: Outcome) -> String {
        match outcome {
            Outcome::Write(bytes) | Outcome::Conflict(bytes) => String::from_utf8(bytes).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_user_line_and_a_scaffold_change_both_land() {
        let ancestor = b"fn main() {\n    start();\n}\n// end\n";
        let ours = b"fn main() {\n    start();\n    mine();\n}\n// end\n";
        let theirs = b"fn main() {\n    start();\n}\n// the end\n";
        let merged = text(merge(Some(ancestor), Some(ours), Some(theirs)));
        assert_eq!(
            merged,
            "fn main() {\n    start();\n    mine();\n}\n// the end\n"
        );
    }

    #[test]
    fn the_same_line_changed_both_ways_is_a_conflict_with_markers() {
        let outcome = merge(
            Some(b"a\nb\nc\n"),
            Some(b"a\nmine\nc\n"),
            Some(b"a\nnew\nc\n"),
        );
        let Outcome::Conflict(bytes) = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "a\n<<<<<<< ours\nmine\n=======\nnew\n>>>>>>> theirs\nc\n"
        );
    }

    #[test]
    fn crlf_files_merge_line_by_line_and_stay_crlf() {
        let ancestor = b"a\nb\nc\n";
        let ours = b"a\r\nb\r\nc\r\nmine\r\n";
        let theirs = b"new\nb\nc\n";
        let merged = text(merge(Some(ancestor), Some(ours), Some(theirs)));
        assert_eq!(merged, "new\r\nb\r\nc\r\nmine\r\n");
    }

    #[test]
    fn untouched_scaffold_changes_and_new_files_are_taken_whole() {
        assert_eq!(
            merge(Some(b"old"), Some(b"old"), Some(b"new")),
            Outcome::Write(b"new".to_vec())
        );
        assert_eq!(
            merge(None, None, Some(b"new")),
            Outcome::Write(b"new".to_vec())
        );
        assert_eq!(merge(Some(b"x"), Some(b"mine"), Some(b"x")), Outcome::Keep);
        assert_eq!(merge(Some(b"x"), None, Some(b"y")), Outcome::DeletedByUser);
        assert_eq!(merge(Some(b"x"), Some(b"mine"), None), Outcome::Dropped);
    }
}
