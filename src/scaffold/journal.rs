//! The intent journal of a commit: written (and fsynced, with its directory) before
//! anything else, so that a commit cut short by a crash, a kill or a power loss is rolled
//! back by the next command. It ends with an `end` line: a journal without it was cut short
//! while being written, before anything else was, and is only removed. Once every file is in
//! place a `committed` line is appended; a journal ending with it is rolled forward instead
//! (only the backups remain to be removed).
use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::scaffold::durable::{Durable, Sync, sync_dir};
use crate::scaffold::faults;

/// The journal's name in the project root.
pub const FILE_NAME: &str = ".rusty-sdk-journal";
const HEADER: &str = "rusty-sdk commit journal 2";
/// Journals of earlier versions: written whole through a temporary, no `end` line.
const HEADER_1: &str = "rusty-sdk commit journal 1";
const END: &str = "end";
const COMMITTED: &str = "committed";

/// One planned write: where the file goes and, when it replaces a file, the temporary it
/// is written to and where the old file is kept. A new file is written in place: undoing
/// it is removing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub target: String,
    pub replace: Option<Replace>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replace {
    pub temp: String,
    pub backup: String,
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Journal {
    /// Directories the commit creates, parents first.
    pub dirs: Vec<String>,
    pub entries: Vec<Entry>,
    pub committed: bool,
}

impl Journal {
    fn render(&self) -> String {
        let mut out = format!("{HEADER}\n");
        for d in &self.dirs {
            out.push_str(&format!("dir\t{d}\n"));
        }
        for e in &self.entries {
            match &e.replace {
                Some(r) => out.push_str(&format!(
                    "replace\t{}\t{}\t{}\n",
                    e.target, r.temp, r.backup
                )),
                None => out.push_str(&format!("new\t{}\n", e.target)),
            }
        }
        out.push_str(END);
        out.push('\n');
        out
    }

    fn parse(text: &str) -> Parsed {
        // A last line without its line break was being written when the power went.
        let (whole, torn) = match text.rsplit_once('\n') {
            Some((whole, torn)) => (whole, torn),
            None => ("", text),
        };
        let mut lines = whole.lines();
        let needs_end = match lines.next() {
            Some(HEADER) => true,
            Some(HEADER_1) => false,
            Some(_) => return Parsed::Unreadable,
            None if HEADER.starts_with(torn) => return Parsed::Incomplete,
            None => return Parsed::Unreadable,
        };
        let mut journal = Journal::default();
        let mut ended = false;
        for line in lines {
            let fields: Vec<&str> = line.split('\t').collect();
            match fields.as_slice() {
                [END] if needs_end && !ended => ended = true,
                [COMMITTED] if ended || !needs_end => journal.committed = true,
                _ if ended || journal.committed => return Parsed::Unreadable,
                ["dir", d] => journal.dirs.push(d.to_string()),
                // Earlier versions also named a temporary for a new file.
                ["new", t] | ["new", t, _] => journal.entries.push(Entry {
                    target: t.to_string(),
                    replace: None,
                }),
                ["replace", t, tmp, b] => journal.entries.push(Entry {
                    target: t.to_string(),
                    replace: Some(Replace {
                        temp: tmp.to_string(),
                        backup: b.to_string(),
                    }),
                }),
                _ => return Parsed::Unreadable,
            }
        }
        if needs_end && !ended {
            return Parsed::Incomplete;
        }
        // Only `committed` is ever appended; cut short, the commit point was not reached.
        if !torn.is_empty() && !COMMITTED.starts_with(torn) {
            return Parsed::Unreadable;
        }
        Parsed::Whole(journal)
    }

    /// Write the journal in the project root, then fsync it and the root together: a power
    /// loss before both are done leaves at most a journal without its `end` line (nothing
    /// else is written until then), which the next command removes.
    pub fn write(&self, root: &Path, sync: Sync) -> Result<()> {
        let path = root.join(FILE_NAME);
        faults::step(&path)?;
        let file = write_new(&path, self.render().as_bytes(), None)?;
        let synced = faults::step(&path)
            .and_then(|()| sync.run(&[Durable::File(&path, &file), Durable::Dir(root)]));
        drop(file);
        synced.inspect_err(|_| {
            let _ = fs::remove_file(&path);
        })
    }

    /// Mark the commit done: from here on recovery finishes it instead of undoing it.
    /// `renamed_in` (the directories the renames happened in) are fsynced together with the
    /// journal: a journal that reaches the disk as committed before its renames do has them
    /// redone by the next command ([`Journal::roll_forward`]).
    pub fn mark_committed(root: &Path, sync: Sync, renamed_in: &[PathBuf]) -> Result<()> {
        let path = root.join(FILE_NAME);
        faults::step(&path)?;
        let mut file = fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        file.write_all(format!("{COMMITTED}\n").as_bytes())
            .map_err(|e| Error::io(&path, e))?;
        let durable: Vec<Durable> = std::iter::once(Durable::File(&path, &file))
            .chain(renamed_in.iter().map(|d| Durable::Dir(d)))
            .collect();
        sync.run(&durable)
    }

    /// Undo every step that may have happened, in reverse; each step is idempotent, so a
    /// rollback cut short is finished by the next one. Returns the files restored.
    pub fn roll_back(&self, root: &Path) -> Result<usize> {
        let mut restored = 0;
        for e in self.entries.iter().rev() {
            let target = root.join(&e.target);
            match &e.replace {
                Some(r) => {
                    let backup = root.join(&r.backup);
                    if backup.exists() {
                        fs::rename(&backup, &target).map_err(|err| Error::io(&target, err))?;
                        restored += 1;
                    }
                    remove_if_exists(&root.join(&r.temp))?;
                }
                None => remove_if_exists(&target)?,
            }
        }
        for d in self.dirs.iter().rev() {
            // Not empty means something else lives there now: leave it.
            let _ = fs::remove_dir(root.join(d));
        }
        self.sync_parents(root)?;
        Ok(restored)
    }

    /// Finish a committed commit: redo the renames that did not reach the disk (every
    /// temporary was fsynced before the first rename), then drop the backups. Each step is
    /// idempotent, so a roll-forward cut short is finished by the next one.
    pub fn roll_forward(&self, root: &Path) -> Result<()> {
        let exists = |p: &Path| p.symlink_metadata().is_ok();
        for e in &self.entries {
            let Some(r) = &e.replace else { continue };
            let (target, temp, backup) = (
                root.join(&e.target),
                root.join(&r.temp),
                root.join(&r.backup),
            );
            faults::cleanup_step(&backup)?;
            if exists(&temp) {
                if !exists(&backup) && exists(&target) {
                    fs::rename(&target, &backup).map_err(|err| Error::io(&target, err))?;
                }
                fs::rename(&temp, &target).map_err(|err| Error::io(&target, err))?;
            }
            remove_if_exists(&backup)?;
        }
        self.sync_parents(root)
    }

    /// Finish the commit this process just made: every temporary was renamed into place,
    /// so only the backups are left to remove.
    /// Removals run like fsyncs (see [`Sync`]): on a file system mounted with online
    /// discard, freeing a file's blocks waits for the device.
    pub fn drop_backups(&self, root: &Path, sync: Sync) -> Result<()> {
        let backups: Vec<PathBuf> = self
            .entries
            .iter()
            .filter_map(|e| e.replace.as_ref())
            .map(|r| root.join(&r.backup))
            .collect();
        sync.for_each(&backups, |backup| {
            faults::cleanup_step(backup)?;
            remove_if_exists(backup)
        })
    }

    /// fsync every directory the journal touched (those holding its files and those it
    /// created directories in), so new names, renames and removals are durable.
    pub fn sync_parents(&self, root: &Path) -> Result<()> {
        let (mut dirs, renamed) = self.touched_dirs(root);
        dirs.extend(renamed);
        dirs.sort();
        dirs.dedup();
        dirs.retain(|d| d.is_dir());
        let dirs: Vec<Durable> = dirs.iter().map(|d| Durable::Dir(d)).collect();
        Sync::of(root).run(&dirs)
    }

    /// The directories a commit changes, in two lists: those it adds names to (new files
    /// and directories: durable once fsynced after they are created, before any rename),
    /// and those it renames files in (to fsync after the renames).
    pub fn touched_dirs(&self, root: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
        let parent = |rel: &str| root.join(rel).parent().map(Path::to_path_buf);
        let mut renamed: Vec<PathBuf> = self
            .entries
            .iter()
            .filter(|e| e.replace.is_some())
            .filter_map(|e| parent(&e.target))
            .collect();
        renamed.sort();
        renamed.dedup();
        let mut added: Vec<PathBuf> = self
            .entries
            .iter()
            .filter(|e| e.replace.is_none())
            .map(|e| e.target.as_str())
            .chain(self.dirs.iter().map(String::as_str))
            .filter_map(parent)
            .collect();
        added.sort();
        added.dedup();
        (added, renamed)
    }

    /// Remove the journal of a finished commit. Its removal is not fsynced: if a power loss
    /// brings it back, it says `committed`, and the next command only removes it again.
    pub fn remove(root: &Path) -> Result<()> {
        let path = root.join(FILE_NAME);
        faults::cleanup_step(&path)?;
        remove_if_exists(&path)
    }
}

enum Parsed {
    Whole(Journal),
    /// Cut short while being written (by a power loss): nothing else was written.
    Incomplete,
    Unreadable,
}

/// What recovery did, for the user.
pub enum Recovered {
    Nothing,
    RolledBack { restored: usize, planned: usize },
    RolledForward { files: usize },
}

impl Recovered {
    pub fn message(&self) -> Option<String> {
        match self {
            Recovered::Nothing => None,
            Recovered::RolledBack { restored, planned } => Some(format!(
                "an earlier command was interrupted while writing {planned} file(s); rolled it back ({restored} file(s) restored from backups, its new files removed): the project is as it was before that command"
            )),
            Recovered::RolledForward { files } => Some(format!(
                "an earlier command was interrupted after writing its {files} file(s); finished it (removed its backups)"
            )),
        }
    }
}

/// Look for a journal left by an interrupted commit and roll it back or forward.
pub fn recover(root: &Path) -> Result<Recovered> {
    let path = root.join(FILE_NAME);
    // A journal that never got its final name: nothing else was written yet.
    remove_if_exists(&root.join(format!("{FILE_NAME}.tmp")))?;
    let text = match super::input::read_text(&path, super::input::PROJECT_FILE_LIMIT) {
        Ok(t) => t,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Recovered::Nothing),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let journal = match Journal::parse(&text) {
        Parsed::Whole(journal) => journal,
        Parsed::Incomplete => {
            remove_if_exists(&path)?;
            sync_dir(root)?;
            return Ok(Recovered::Nothing);
        }
        Parsed::Unreadable => {
            return Err(Error::Project(format!(
                "{}: not a journal this rusty-sdk can read; an earlier commit was interrupted: restore the files named `.NAME.rusty-bak-PID` by hand, then delete the journal",
                path.display()
            )));
        }
    };
    let done = if journal.committed {
        journal.roll_forward(root)?;
        Recovered::RolledForward {
            files: journal.entries.len(),
        }
    } else {
        let restored = journal.roll_back(root)?;
        Recovered::RolledBack {
            restored,
            planned: journal.entries.len(),
        }
    };
    remove_if_exists(&path)?;
    sync_dir(root)?;
    Ok(done)
}

fn remove_if_exists(path: &Path) -> Result<()> {
    // Looked up first: on a read-only file system, removing a file that is not there
    // fails with EROFS, and a command that writes nothing (`--check`, `--dry-run`) must
    // still run in a read-only checkout.
    if fs::symlink_metadata(path).is_err_and(|e| e.kind() == ErrorKind::NotFound) {
        return Ok(());
    }
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Create `path` (it must not exist), write `bytes`, give it `mode`; not yet synced.
pub fn write_new(path: &Path, bytes: &[u8], mode: Option<fs::Permissions>) -> Result<fs::File> {
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    let written = file.write_all(bytes).and_then(|()| match mode {
        Some(m) => file.set_permissions(m),
        None => Ok(()),
    });
    if let Err(e) = written {
        drop(file);
        let _ = fs::remove_file(path);
        return Err(Error::io(path, e));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_round_trips() {
        let journal = Journal {
            dirs: vec!["a".into(), "a/b".into()],
            entries: vec![
                Entry {
                    target: "a/b/c".into(),
                    replace: None,
                },
                Entry {
                    target: "PROJECT".into(),
                    replace: Some(Replace {
                        temp: ".PROJECT.rusty-tmp-1".into(),
                        backup: ".PROJECT.rusty-bak-1".into(),
                    }),
                },
            ],
            committed: false,
        };
        let whole = |text: &str| match Journal::parse(text) {
            Parsed::Whole(j) => Some(j),
            _ => None,
        };
        let text = journal.render();
        assert_eq!(whole(&text), Some(journal.clone()));
        let done = format!("{text}{COMMITTED}\n");
        assert!(whole(&done).unwrap().committed);
        // The commit point cut short: not committed.
        let torn = format!("{text}commi");
        assert_eq!(whole(&torn), Some(journal.clone()));
        assert!(matches!(Journal::parse("garbage\n"), Parsed::Unreadable));
        assert!(matches!(
            Journal::parse(&format!("{text}garbage\n")),
            Parsed::Unreadable
        ));
        // Every prefix of a journal being written (a power loss) reads as incomplete.
        for cut in 0..text.len() {
            assert!(
                matches!(Journal::parse(&text[..cut]), Parsed::Incomplete),
                "{:?}",
                &text[..cut]
            );
        }
        // Version 1 had no `end` line; it also named a temporary for new files.
        let old = format!("{HEADER_1}\nnew\ta/b/c\ta/b/.c.rusty-tmp-1\n");
        assert_eq!(whole(&old).unwrap().entries[0], journal.entries[0]);
        assert!(whole(&format!("{old}{COMMITTED}\n")).unwrap().committed);
    }

    #[test]
    fn a_committed_journal_redoes_the_renames_that_did_not_reach_the_disk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let replace = |target: &str| Entry {
            target: target.into(),
            replace: Some(Replace {
                temp: format!(".{target}.rusty-tmp-1"),
                backup: format!(".{target}.rusty-bak-1"),
            }),
        };
        // a: no rename happened; b: only the first; c: both.
        fs::write(root.join("a"), "old a").unwrap();
        fs::write(root.join(".a.rusty-tmp-1"), "new a").unwrap();
        fs::write(root.join(".b.rusty-bak-1"), "old b").unwrap();
        fs::write(root.join(".b.rusty-tmp-1"), "new b").unwrap();
        fs::write(root.join("c"), "new c").unwrap();
        fs::write(root.join(".c.rusty-bak-1"), "old c").unwrap();
        let journal = Journal {
            dirs: Vec::new(),
            entries: vec![replace("a"), replace("b"), replace("c")],
            committed: true,
        };
        let text = format!("{}{COMMITTED}\n", journal.render());
        fs::write(root.join(FILE_NAME), text).unwrap();
        assert!(matches!(
            recover(root).unwrap(),
            Recovered::RolledForward { files: 3 }
        ));
        let mut names: Vec<String> = fs::read_dir(root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["a", "b", "c"]);
        for name in ["a", "b", "c"] {
            assert_eq!(
                fs::read_to_string(root.join(name)).unwrap(),
                format!("new {name}")
            );
        }
    }

    #[test]
    fn a_journal_cut_short_while_written_is_removed_and_nothing_else_touched() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("PROJECT"), "p").unwrap();
        let text = format!("{HEADER}\nreplace\tPROJECT\t.PROJECT.rusty-tmp-1\t.PRO");
        fs::write(dir.path().join(FILE_NAME), text).unwrap();
        assert!(matches!(recover(dir.path()).unwrap(), Recovered::Nothing));
        assert!(!dir.path().join(FILE_NAME).exists());
        assert_eq!(fs::read_to_string(dir.path().join("PROJECT")).unwrap(), "p");
    }
}
