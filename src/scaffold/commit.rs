//! Writing a plan to disk, all or nothing, also against crashes: an intent journal (see
//! [`journal`]) is fsynced before anything else is written. A new file is written in
//! place. A file that exists is rewritten in place too, its old bytes kept in the journal
//! (it keeps its mode, owner and hard links, and no backup is made and removed); one that
//! cannot be (not writable, or too large for the journal) is written to a temporary
//! sibling, then renamed into place with a backup of what it replaces (whose mode it
//! keeps). Every file, and every directory that gains names, is fsynced before the first
//! rename; the directories files are renamed in, with the `committed` line after the last
//! (recovery redoes renames that did not reach the disk). A commit without renames, the
//! usual one, thus waits for the disk twice: for the journal, then for the files. Any
//! failure, or SIGINT/SIGTERM, rolls the journal back; a crash leaves the journal for the
//! next command to roll back.
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::scaffold::durable::{self, Durable, Sync};
use crate::scaffold::faults::{self, CommitGuard};
use crate::scaffold::journal::{self, Entry, Journal, Replace, Undo};
use crate::scaffold::plan::Plan;

fn sibling(rel: &str, tag: &str) -> String {
    let (dir, name) = match rel.rsplit_once('/') {
        Some((dir, name)) => (format!("{dir}/"), name),
        None => (String::new(), rel),
    };
    format!("{dir}.{name}.rusty-{tag}-{}", std::process::id())
}

/// Write every changed file of `plan` under `root`.
pub fn commit(root: &Path, plan: &Plan) -> Result<()> {
    plan.check()?;
    let writes: Vec<_> = plan.changes.iter().filter(|c| c.status.writes()).collect();
    if writes.is_empty() {
        return Ok(());
    }
    if let Some(bad) = writes.iter().find(|c| c.path.contains(['\t', '\n'])) {
        return Err(Error::invalid(format!(
            "{:?}: a file name with a tab or a line break cannot be written; choose another name (nothing was written)",
            bad.path
        )));
    }
    let root_existed = root.is_dir();
    let mut plan_journal = Journal::default();
    let mut dirs = DirScan::new(root, root_existed);
    // The files rewritten in place, open, by entry.
    let mut in_place = Vec::with_capacity(writes.len());
    let mut journal_room = journal::IN_PLACE_TOTAL_LIMIT;
    for change in &writes {
        // A file under a directory this commit creates cannot exist yet: nothing to look up.
        let parent_is_new = dirs.missing_above(&change.path, &mut plan_journal.dirs)?;
        let (path, found) = if parent_is_new {
            (change.path.clone(), None)
        } else {
            probe(root, &change.path)
        };
        // A file that was read exists; a dangling symlink is replaced too.
        let exists = !parent_is_new && (change.before.is_some() || found.is_some());
        let old = change
            .before
            .as_deref()
            .filter(|old| old.len() <= journal::IN_PLACE_FILE_LIMIT.min(journal_room));
        let open = match old {
            Some(_) if found.is_some_and(|t| t.is_file()) => {
                journal::open_in_place(&root.join(&path))
            }
            _ => None,
        };
        let undo = match (exists, old, &open) {
            (false, _, _) => Undo::Remove,
            (true, Some(old), Some(_)) => {
                journal_room -= old.len();
                Undo::Restore(old.to_vec())
            }
            _ => Undo::Rename(Replace {
                temp: sibling(&path, "tmp"),
                backup: sibling(&path, "bak"),
            }),
        };
        in_place.push(open);
        plan_journal.entries.push(Entry { target: path, undo });
    }
    let _guard = CommitGuard::enter();
    // A root made now is locked at once (the command held the folder above it), so that
    // no command started later takes this commit's journal for an interrupted one.
    let mut _root_lock = None;
    if !root_existed {
        faults::step(root)?;
        fs::create_dir_all(root).map_err(|e| Error::io(root, e))?;
        _root_lock = crate::scaffold::lock::acquire(root, crate::scaffold::lock::WAIT)?;
    }
    let sync = Sync::of(root);
    let result = plan_journal
        .write(root, sync)
        .and_then(|()| {
            write_all(root, &writes, &plan_journal, in_place, sync).inspect_err(|_| {
                settle(root, &plan_journal);
            })
        })
        .and_then(|renamed_in| {
            Journal::mark_committed(root, sync, &renamed_in)
                .inspect_err(|_| settle(root, &plan_journal))
        });
    if let Err(e) = result {
        if !root_existed {
            let _ = fs::remove_dir(root);
        }
        return Err(e);
    }
    // Committed: what is left is cleanup; if it fails (or we die here) the journal stays
    // and the next command finishes it.
    if plan_journal.drop_backups(root, sync).is_ok() {
        let _ = Journal::remove(root);
    }
    match CommitGuard::interrupted() {
        Some(_) => Err(Error::Project(
            "interrupted after every file was written; the commit is complete".into(),
        )),
        None => Ok(()),
    }
}

/// Where a write to `rel` lands and what is there now (`None`: nothing), from one lookup
/// for anything but a symlink: `rel` itself, or for a symlink to a file of the project that
/// file, so that the link stays a link (the plan refused links out of the project; a
/// dangling one is `rel`, and is replaced).
fn probe(root: &Path, rel: &str) -> (String, Option<fs::FileType>) {
    match root.join(rel).symlink_metadata() {
        Err(_) => (rel.to_string(), None),
        Ok(meta) if !meta.file_type().is_symlink() => (rel.to_string(), Some(meta.file_type())),
        Ok(link) => match crate::scaffold::plan::symlink_target(root, rel) {
            Ok(target) if target != rel => {
                let found = root.join(&target).symlink_metadata().ok();
                (target, found.map(|m| m.file_type()))
            }
            _ => (rel.to_string(), Some(link.file_type())),
        },
    }
}

/// After a failure: roll back now; if even that fails (a read-only file system, say), the
/// journal stays for the next command.
fn settle(root: &Path, journal: &Journal) {
    if journal.roll_back(root).is_ok() {
        let _ = fs::remove_file(root.join(journal::FILE_NAME));
        let _ = durable::sync_dir(root);
    }
}

fn write_all(
    root: &Path,
    writes: &[&crate::scaffold::Change],
    journal: &Journal,
    in_place: Vec<Option<fs::File>>,
    sync: Sync,
) -> Result<Vec<PathBuf>> {
    for d in &journal.dirs {
        let dir = root.join(d);
        faults::step(&dir)?;
        fs::create_dir(&dir).map_err(|e| Error::io(&dir, e))?;
    }
    let mut files = Vec::with_capacity(writes.len());
    for ((change, entry), open) in writes.iter().zip(&journal.entries).zip(in_place) {
        let target = root.join(&entry.target);
        if let Some(mut file) = open {
            faults::step(&target)?;
            journal::rewrite(&target, &mut file, &change.after)?;
            files.push((target, file));
            continue;
        }
        let (path, mode) = match &entry.undo {
            Undo::Rename(r) => (
                root.join(&r.temp),
                fs::metadata(&target).ok().map(|m| m.permissions()),
            ),
            _ => (target.clone(), None),
        };
        faults::step(&path)?;
        let file =
            journal::write_new(&path, &change.after, mode).map_err(|e| retarget(e, &target))?;
        files.push((target, file));
    }
    // Every file, and every directory that gains names, is durable before the first rename
    // replaces anything.
    let (added, renamed) = journal.touched_dirs(root);
    let durable: Vec<Durable> = files
        .iter()
        .map(|(target, file)| Durable::File(target, file))
        .chain(added.iter().map(|d| Durable::Dir(d)))
        .collect();
    sync.run(&durable)?;
    drop(durable);
    drop(files);
    // PROJECT is last in the plan, so it lands last.
    for entry in &journal.entries {
        let Undo::Rename(r) = &entry.undo else {
            continue;
        };
        let target = root.join(&entry.target);
        faults::step(&target)?;
        fs::rename(&target, root.join(&r.backup)).map_err(|e| Error::io(&target, e))?;
        faults::step(&target)?;
        fs::rename(root.join(&r.temp), &target).map_err(|e| Error::io(&target, e))?;
    }
    // Made durable with the commit point (see `Journal::mark_committed`).
    Ok(renamed)
}

/// Replace the file at `path` with `bytes` in one step, outside any project and without the
/// journal: written to a temporary sibling as the commit writes one, then renamed over
/// `path`, so a reader sees the old file or the new one, never half of one. Nothing is
/// fsynced: this is for files a crash may lose, such as cache entries.
pub fn replace_unjournaled(path: &Path, bytes: &[u8]) -> Result<()> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temp = path.with_file_name(sibling(&name, "tmp"));
    drop(journal::write_new(&temp, bytes, None).map_err(|e| retarget(e, path))?);
    fs::rename(&temp, path).map_err(|e| {
        let _ = fs::remove_file(&temp);
        Error::io(path, e)
    })
}

/// An error on a temporary is reported under the file it stands for.
fn retarget(e: Error, target: &Path) -> Error {
    match e {
        Error::Io { source, .. } => Error::io(target, source),
        other => other,
    }
}

/// Which directories above the planned files exist, each looked up once: a plan of fifty
/// files in ten folders costs ten lookups, not one per file and level.
struct DirScan<'a> {
    root: &'a Path,
    root_exists: bool,
    known: HashMap<String, bool>,
}

impl<'a> DirScan<'a> {
    fn new(root: &'a Path, root_exists: bool) -> Self {
        DirScan {
            root,
            root_exists,
            known: HashMap::new(),
        }
    }

    /// Add to `dirs` the directories above `rel` that do not exist yet, parents first;
    /// returns whether `rel`'s own directory is one of them (so `rel` cannot exist).
    fn missing_above(&mut self, rel: &str, dirs: &mut Vec<String>) -> Result<bool> {
        let mut missing = Vec::new();
        let mut cursor = rel.rsplit_once('/').map(|(d, _)| d);
        while let Some(d) = cursor.filter(|d| !d.is_empty()) {
            if self.known.contains_key(d) {
                // Existing, or planned already with its parents.
                break;
            }
            let exists = self.root_exists && self.is_dir(d)?;
            self.known.insert(d.to_string(), exists);
            if exists {
                break;
            }
            missing.push(d.to_string());
            cursor = d.rsplit_once('/').map(|(p, _)| p);
        }
        let parent_is_new = match rel.rsplit_once('/') {
            Some((d, _)) => self.known.get(d) == Some(&false),
            None => !self.root_exists,
        };
        dirs.extend(missing.into_iter().rev());
        Ok(parent_is_new)
    }

    fn is_dir(&self, rel: &str) -> Result<bool> {
        let full: PathBuf = self.root.join(rel);
        match full.metadata() {
            Ok(m) if m.is_dir() => Ok(true),
            Ok(_) => Err(Error::Project(format!(
                "{}: is a file, but a directory is needed there; move it away (nothing was written)",
                full.display()
            ))),
            Err(_) => Ok(false),
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
    fn a_dangling_symlink_is_replaced_and_a_link_into_the_project_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::os::unix::fs::symlink("nowhere", root.join("dangling.txt")).unwrap();
        fs::write(root.join("real.txt"), "old").unwrap();
        std::os::unix::fs::symlink("real.txt", root.join("link.txt")).unwrap();
        let mut tree = Tree::new(root);
        tree.add("dangling.txt", "new file", Policy::Tool);
        tree.add("link.txt", "through the link", Policy::Tool);
        commit(root, &Plan::build(&tree, true).unwrap()).unwrap();
        let dangling = fs::symlink_metadata(root.join("dangling.txt")).unwrap();
        assert!(dangling.is_file(), "the dangling link is still a link");
        assert_eq!(
            fs::read_to_string(root.join("dangling.txt")).unwrap(),
            "new file"
        );
        assert!(
            fs::symlink_metadata(root.join("link.txt"))
                .unwrap()
                .is_symlink()
        );
        assert_eq!(
            fs::read_to_string(root.join("real.txt")).unwrap(),
            "through the link"
        );
        assert!(!root.join("nowhere").exists());
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

    #[test]
    fn a_file_is_rewritten_in_place_keeping_its_inode_and_links() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("PROJECT"), "old").unwrap();
        fs::hard_link(root.join("PROJECT"), root.join("linked")).unwrap();
        let inode = fs::metadata(root.join("PROJECT")).unwrap().ino();
        let mut tree = Tree::new(root);
        tree.add("PROJECT", "new, and longer", Policy::Tool);
        commit(root, &Plan::build(&tree, false).unwrap()).unwrap();
        assert_eq!(fs::metadata(root.join("PROJECT")).unwrap().ino(), inode);
        assert_eq!(
            fs::read_to_string(root.join("linked")).unwrap(),
            "new, and longer"
        );
        // Shorter: the rest is cut.
        tree.add("PROJECT", "n", Policy::Tool);
        commit(root, &Plan::build(&tree, false).unwrap()).unwrap();
        assert_eq!(fs::read_to_string(root.join("PROJECT")).unwrap(), "n");
        let leftovers: Vec<_> = snapshot(root)
            .into_iter()
            .filter(|(p, _)| p.contains(".rusty"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
}
