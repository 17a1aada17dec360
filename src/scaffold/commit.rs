//! Writing a plan to disk, all or nothing: every file is first written to a temporary
//! sibling, then renamed into place with a backup of what it replaces. Any failure undoes
//! the renames, removes the temporaries and the directories this commit created.
use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::scaffold::plan::Plan;

/// What has been done so far, to be undone on failure.
#[derive(Default)]
struct Journal {
    created_dirs: Vec<PathBuf>,
    temps: Vec<PathBuf>,
    /// (target, backup of the previous file if there was one)
    placed: Vec<(PathBuf, Option<PathBuf>)>,
}

fn sibling(target: &Path, tag: &str) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.rusty-{tag}-{}", std::process::id()))
}

/// Write every changed file of `plan` under `root`.
pub fn commit(root: &Path, plan: &Plan) -> Result<()> {
    plan.check()?;
    let mut journal = Journal::default();
    match write_all(root, plan, &mut journal) {
        Ok(()) => {
            journal.finish();
            Ok(())
        }
        Err(e) => {
            journal.roll_back();
            Err(e)
        }
    }
}

fn write_all(root: &Path, plan: &Plan, journal: &mut Journal) -> Result<()> {
    let writes: Vec<_> = plan.changes.iter().filter(|c| c.status.writes()).collect();
    let mut staged = Vec::with_capacity(writes.len());
    for change in &writes {
        let target = root.join(&change.path);
        if let Some(parent) = target.parent() {
            create_dirs(parent, journal)?;
        }
        let temp = sibling(&target, "tmp");
        fs::write(&temp, &change.after).map_err(|e| Error::io(&target, e))?;
        journal.temps.push(temp.clone());
        staged.push((target, temp));
    }
    // Renames are cheap and rarely fail; PROJECT is last in the plan, so it lands last.
    for (target, temp) in staged {
        let backup = if target.exists() {
            let backup = sibling(&target, "bak");
            fs::rename(&target, &backup).map_err(|e| Error::io(&target, e))?;
            Some(backup)
        } else {
            None
        };
        journal.placed.push((target.clone(), backup));
        fs::rename(&temp, &target).map_err(|e| Error::io(&target, e))?;
        journal.temps.retain(|t| t != &temp);
    }
    Ok(())
}

/// Create `dir` and any missing parents, remembering each one made.
fn create_dirs(dir: &Path, journal: &mut Journal) -> Result<()> {
    let mut missing = Vec::new();
    let mut cursor = Some(dir);
    while let Some(d) = cursor {
        if d.exists() {
            if !d.is_dir() {
                return Err(Error::Project(format!(
                    "{}: is a file, but a directory is needed there; move it away (nothing was written)",
                    d.display()
                )));
            }
            break;
        }
        missing.push(d.to_path_buf());
        cursor = d.parent();
    }
    for d in missing.into_iter().rev() {
        fs::create_dir(&d).map_err(|e| Error::io(&d, e))?;
        journal.created_dirs.push(d);
    }
    Ok(())
}

impl Journal {
    fn finish(self) {
        for (_, backup) in self.placed {
            if let Some(b) = backup {
                let _ = fs::remove_file(b);
            }
        }
    }

    /// Best effort: put back every replaced file, remove new files, temporaries and the
    /// directories this commit created (deepest first).
    fn roll_back(self) {
        for (target, backup) in self.placed.into_iter().rev() {
            let _ = fs::remove_file(&target);
            if let Some(b) = backup {
                let _ = fs::rename(&b, &target);
            }
        }
        for temp in self.temps {
            let _ = fs::remove_file(temp);
        }
        for dir in self.created_dirs.into_iter().rev() {
            let _ = fs::remove_dir(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scaffold::plan::Plan;
    use crate::scaffold::tree::{Policy, Tree};

    fn snapshot(root: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<_> = walkdir::WalkDir::new(root)
            .into_iter()
            .map(|e| e.unwrap())
            .map(|e| {
                let rel = e.path().strip_prefix(root).unwrap().display().to_string();
                let bytes = if e.file_type().is_file() {
                    fs::read(e.path()).unwrap()
                } else {
                    b"<dir>".to_vec()
                };
                (rel, bytes)
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn writes_files_and_directories() {
        let dir = tempfile::tempdir().unwrap();
        let mut tree = Tree::new(dir.path());
        tree.add("a/b/c.txt", "hello", Policy::User);
        tree.add("PROJECT", "p", Policy::Tool);
        let plan = Plan::build(&tree, false).unwrap();
        assert_eq!(plan.changes.last().unwrap().path, "PROJECT");
        commit(dir.path(), &plan).unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("a/b/c.txt")).unwrap(),
            "hello"
        );
        let leftovers: Vec<_> = snapshot(dir.path())
            .into_iter()
            .filter(|(p, _)| p.contains(".rusty-"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn failure_halfway_leaves_directory_exactly_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("keep.txt"), "old").unwrap();
        fs::write(dir.path().join("config"), "a file where a folder must go").unwrap();
        let before = snapshot(dir.path());

        let mut tree = Tree::new(dir.path());
        tree.add("keep.txt", "new", Policy::Tool);
        tree.add("aaa/new.txt", "x", Policy::User);
        tree.add("config/rbac/role.yaml", "y", Policy::User);
        tree.add("zzz/deep/new.txt", "z", Policy::User);
        let plan = Plan::build(&tree, false).unwrap();
        let err = commit(dir.path(), &plan).unwrap_err().to_string();
        assert!(
            err.contains("config") && err.contains("directory is needed"),
            "{err}"
        );
        assert_eq!(snapshot(dir.path()), before);
    }

    #[test]
    fn conflicts_stop_before_any_write() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("mine.txt"), "user edit").unwrap();
        let mut tree = Tree::new(dir.path());
        tree.add("new.txt", "x", Policy::User);
        tree.add("mine.txt", "generated", Policy::User);
        let plan = Plan::build(&tree, false).unwrap();
        let err = commit(dir.path(), &plan).unwrap_err();
        assert!(matches!(err, Error::Conflicts(ref c) if c.len() == 1 && c[0].0 == "mine.txt"));
        assert!(!dir.path().join("new.txt").exists());
        // --force turns the conflict into an overwrite.
        let plan = Plan::build(&tree, true).unwrap();
        commit(dir.path(), &plan).unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("mine.txt")).unwrap(),
            "generated"
        );
    }
}
