//! The plan: every staged file compared with the disk and given a status. Conflicts are all
//! collected here, before anything is written.
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::scaffold::tree::{Policy, Tree};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Create,
    Update,
    Identical,
    /// An existing file that this command leaves alone.
    Skip,
    /// A user-owned file overwritten because of `--force`.
    Force,
    Conflict(String),
}

impl Status {
    /// The verb printed in the status column.
    pub fn verb(&self) -> &'static str {
        match self {
            Status::Create => "create",
            Status::Update => "update",
            Status::Identical => "identical",
            Status::Skip => "skip",
            Status::Force => "force",
            Status::Conflict(_) => "conflict",
        }
    }

    /// Whether committing this entry writes the file.
    pub fn writes(&self) -> bool {
        matches!(self, Status::Create | Status::Update | Status::Force)
    }
}

#[derive(Clone, Debug)]
pub struct Change {
    pub path: String,
    pub status: Status,
    pub before: Option<Vec<u8>>,
    pub after: Vec<u8>,
}

#[derive(Debug, Default)]
pub struct Plan {
    pub changes: Vec<Change>,
}

/// Every path a command writes is a plain relative path in the project: a value from a
/// flag or an input file (an object's name in kustomize output, say) with `..`, an
/// absolute path or an empty part must not reach the disk.
fn inside_project(path: &str) -> Result<()> {
    let plain = !path.starts_with('/')
        && !path.contains('\0')
        && path.split('/').all(|part| !matches!(part, "" | "." | ".."));
    if plain {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "refusing to write {}: not a plain path inside the project (a value with '..', '/' or an absolute path came from a flag or an input file); nothing was written",
            crate::model::names::shown(path)
        )))
    }
}

/// Where a write to `rel` goes: `rel` itself, or for a symlink to a file of the project,
/// that file (relative to `root`), so that the link stays a link. A link out of the
/// project is an error naming its target; a dangling one is `rel` (it is replaced).
pub fn symlink_target(root: &Path, rel: &str) -> std::result::Result<String, PathBuf> {
    let full = root.join(rel);
    let is_link = std::fs::symlink_metadata(&full).is_ok_and(|m| m.file_type().is_symlink());
    // Resolved only for links: realpath costs a readlink per component of the path.
    let Some(real) = is_link.then(|| std::fs::canonicalize(&full).ok()).flatten() else {
        return Ok(rel.to_string());
    };
    let base = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    match real.strip_prefix(&base) {
        Ok(inside) => Ok(inside.to_string_lossy().replace('\\', "/")),
        Err(_) => Err(real),
    }
}

/// `new` with the CRLF line endings of `old`, when `old` ends every line with CRLF and
/// `new` (rewritten whole, as PROJECT and role.yaml are) has none: a file the user keeps
/// in CRLF stays CRLF. Edited files keep their endings already.
#[expect(
    clippy::naive_bytecount,
    reason = "a file's lines, counted once per command: no crate for that"
)]
pub fn keep_crlf(old: &[u8], new: &[u8]) -> Vec<u8> {
    let lines = old.iter().filter(|&&b| b == b'\n').count();
    let crlf = old.windows(2).filter(|w| w == b"\r\n").count();
    if lines == 0 || crlf != lines || new.contains(&b'\r') {
        return new.to_vec();
    }
    let mut out = Vec::with_capacity(new.len() + new.len() / 16);
    for &b in new {
        if b == b'\n' {
            out.push(b'\r');
        }
        out.push(b);
    }
    out
}

impl Plan {
    /// Compare every staged file with the disk. PROJECT goes last, so that it is written
    /// only after everything else.
    pub fn build(tree: &Tree, force: bool) -> Result<Plan> {
        let mut changes = Vec::with_capacity(tree.staged().len());
        for path in tree.staged().keys() {
            inside_project(path)?;
        }
        for (path, staged) in tree.staged() {
            let full = tree.root().join(path);
            let before = match tree.on_disk(path) {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == ErrorKind::IsADirectory => {
                    changes.push(Change {
                        path: path.clone(),
                        status: Status::Conflict("a directory is in the way; move it".into()),
                        before: None,
                        after: staged.content.clone(),
                    });
                    continue;
                }
                // A parent that is a file, for example; the commit reports and rolls back.
                Err(e) if e.kind() == ErrorKind::NotADirectory => None,
                Err(e) => return Err(Error::io(full, e)),
            };
            if before.is_some() && symlink_target(tree.root(), path).is_err() {
                changes.push(Change {
                    path: path.clone(),
                    status: Status::Conflict(
                        "a symlink to a file outside the project, which rusty-sdk does not write; replace the link with a copy of the file".into(),
                    ),
                    before,
                    after: staged.content.clone(),
                });
                continue;
            }
            let after = match &before {
                Some(old) => keep_crlf(old, &staged.content),
                None => staged.content.clone(),
            };
            let status = match (&before, staged.policy) {
                (None, _) => Status::Create,
                (Some(old), _) if *old == after => Status::Identical,
                (Some(_), Policy::Tool) => Status::Update,
                (Some(_), Policy::SkipIfExists) => Status::Skip,
                (Some(_), Policy::User) if force => Status::Force,
                (Some(_), Policy::User) => Status::Conflict(
                    "exists with different content; pass --force to overwrite it".into(),
                ),
            };
            changes.push(Change {
                path: path.clone(),
                status,
                before,
                after,
            });
        }
        changes.sort_by_key(|c| c.path == crate::project::FILE_NAME);
        Ok(Plan { changes })
    }

    pub fn conflicts(&self) -> Vec<(String, String)> {
        self.changes
            .iter()
            .filter_map(|c| match &c.status {
                Status::Conflict(why) => Some((c.path.clone(), why.clone())),
                _ => None,
            })
            .collect()
    }

    /// Fail with every conflict listed if there is any.
    pub fn check(&self) -> Result<()> {
        let conflicts = self.conflicts();
        if conflicts.is_empty() {
            Ok(())
        } else {
            Err(Error::Conflicts(conflicts))
        }
    }

    pub fn writes_anything(&self) -> bool {
        self.changes.iter().any(|c| c.status.writes())
    }

    /// One line counting the files per status, e.g. `3 created, 1 updated, 2 identical`.
    pub fn summary(&self) -> String {
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for change in &self.changes {
            let label = match change.status {
                Status::Create => "created",
                Status::Update => "updated",
                Status::Identical => "identical",
                Status::Skip => "skipped",
                Status::Force => "overwritten",
                Status::Conflict(_) => "in conflict",
            };
            match counts.iter_mut().find(|(l, _)| *l == label) {
                Some((_, n)) => *n += 1,
                None => counts.push((label, 1)),
            }
        }
        let parts: Vec<String> = counts.iter().map(|(l, n)| format!("{n} {l}")).collect();
        let verdict = if self.writes_anything() {
            ""
        } else {
            "; nothing to write"
        };
        format!(
            "{} file(s): {}{verdict}",
            self.changes.len(),
            parts.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_staged_path_out_of_the_project_is_refused_before_any_status() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["../x", "/etc/x", "a/../../x", "a//b", "./a"] {
            let mut tree = Tree::new(dir.path());
            tree.add("ok.txt", "x", Policy::Tool);
            tree.add(bad, "x", Policy::Tool);
            let err = Plan::build(&tree, false).unwrap_err().to_string();
            assert!(
                err.contains("not a plain path inside the project"),
                "{bad}: {err}"
            );
        }
        let mut tree = Tree::new(dir.path());
        tree.add("a/b.txt", "x", Policy::Tool);
        assert!(Plan::build(&tree, false).is_ok());
    }

    #[test]
    fn crlf_files_rewritten_whole_stay_crlf() {
        assert_eq!(keep_crlf(b"a\r\nb\r\n", b"a\nc\n"), b"a\r\nc\r\n");
        assert_eq!(keep_crlf(b"a\nb\r\n", b"a\nc\n"), b"a\nc\n");
        assert_eq!(keep_crlf(b"a\r\n", b"a\r\nc\n"), b"a\r\nc\n");
    }
}
