//! The intent journal of a commit: written (and fsynced) before the first rename, so that a
//! commit cut short by a crash, a kill or a power loss is rolled back by the next command.
//! Once every file is in place a `committed` line is appended; a journal ending with it is
//! rolled forward instead (only the backups remain to be removed).
use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::scaffold::faults;

/// The journal's name in the project root.
pub const FILE_NAME: &str = ".rusty-sdk-journal";
const HEADER: &str = "rusty-sdk commit journal 1";
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
        out
    }

    fn parse(text: &str) -> Option<Journal> {
        let mut lines = text.lines();
        if lines.next()? != HEADER {
            return None;
        }
        let mut journal = Journal::default();
        for line in lines {
            let fields: Vec<&str> = line.split('\t').collect();
            match fields.as_slice() {
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
                [COMMITTED] => journal.committed = true,
                _ => return None,
            }
        }
        Some(journal)
    }

    /// Write the journal next to the project through a temporary and a rename, so that a
    /// journal on disk is always whole; fsync it and the root.
    pub fn write(&self, root: &Path) -> Result<()> {
        let path = root.join(FILE_NAME);
        let temp = root.join(format!("{FILE_NAME}.tmp"));
        faults::step(&temp)?;
        write_synced(&temp, self.render().as_bytes(), None)?;
        faults::step(&path)
            .and_then(|()| fs::rename(&temp, &path).map_err(|e| Error::io(&path, e)))
            .and_then(|()| sync_dir(root))
            .inspect_err(|_| {
                let _ = fs::remove_file(&temp);
                let _ = fs::remove_file(&path);
            })
    }

    /// Mark the commit done: from here on recovery finishes it instead of undoing it.
    pub fn mark_committed(root: &Path) -> Result<()> {
        let path = root.join(FILE_NAME);
        faults::step(&path)?;
        let mut file = fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        file.write_all(format!("{COMMITTED}\n").as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(|e| Error::io(&path, e))
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

    /// Finish a commit whose files are all in place: drop the backups and temporaries.
    pub fn roll_forward(&self, root: &Path) -> Result<()> {
        for r in self.entries.iter().filter_map(|e| e.replace.as_ref()) {
            faults::cleanup_step(&root.join(&r.backup))?;
            remove_if_exists(&root.join(&r.backup))?;
            remove_if_exists(&root.join(&r.temp))?;
        }
        Ok(())
    }

    /// Finish the commit this process just made: every temporary was renamed into place,
    /// so only the backups are left to remove.
    pub fn drop_backups(&self, root: &Path) -> Result<()> {
        for r in self.entries.iter().filter_map(|e| e.replace.as_ref()) {
            let backup = root.join(&r.backup);
            faults::cleanup_step(&backup)?;
            remove_if_exists(&backup)?;
        }
        Ok(())
    }

    /// fsync every directory the journal touched (those holding its files and those it
    /// created directories in), so new names, renames and removals are durable.
    pub fn sync_parents(&self, root: &Path) -> Result<()> {
        let mut dirs: Vec<PathBuf> = self
            .entries
            .iter()
            .map(|e| e.target.as_str())
            .chain(self.dirs.iter().map(String::as_str))
            .filter_map(|rel| root.join(rel).parent().map(Path::to_path_buf))
            .collect();
        dirs.push(root.to_path_buf());
        dirs.sort();
        dirs.dedup();
        dirs.retain(|d| d.is_dir());
        in_parallel(&dirs, |d| sync_dir(d))
    }

    pub fn remove(root: &Path) -> Result<()> {
        let path = root.join(FILE_NAME);
        faults::cleanup_step(&path)?;
        remove_if_exists(&path)?;
        sync_dir(root)
    }
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
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Recovered::Nothing),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let Some(journal) = Journal::parse(&text) else {
        return Err(Error::Project(format!(
            "{}: not a journal this rusty-sdk can read; an earlier commit was interrupted: restore the files named `.NAME.rusty-bak-PID` by hand, then delete the journal",
            path.display()
        )));
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
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Create `path` (it must not exist), write `bytes`, give it `mode`, fsync it.
pub fn write_synced(path: &Path, bytes: &[u8], mode: Option<fs::Permissions>) -> Result<()> {
    let file = write_new(path, bytes, mode)?;
    file.sync_all().map_err(|e| {
        let _ = fs::remove_file(path);
        Error::io(path, e)
    })
}

/// fsync every file, several at once: the file system then commits them together, which
/// costs a fraction of one fsync after another.
pub fn sync_files(files: &[(PathBuf, fs::File)]) -> Result<()> {
    in_parallel(files, |(path, file)| {
        file.sync_all().map_err(|e| Error::io(path, e))
    })
}

/// Run `job` on every item, on up to 8 threads (this one included, at least two items
/// each); the first error wins.
fn in_parallel<T: Sync>(items: &[T], job: impl Fn(&T) -> Result<()> + Sync) -> Result<()> {
    const THREADS: usize = 8;
    const MIN_PER_THREAD: usize = 2;
    if items.len() <= MIN_PER_THREAD {
        return items.iter().try_for_each(&job);
    }
    let chunk = items.len().div_ceil(THREADS).max(MIN_PER_THREAD);
    let (own, rest) = items.split_at(chunk);
    std::thread::scope(|scope| {
        let jobs: Vec<_> = rest
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().try_for_each(&job)))
            .collect();
        let mine = own.iter().try_for_each(&job);
        jobs.into_iter()
            .map(|j| {
                j.join()
                    .unwrap_or_else(|_| Err(Error::Internal("an fsync thread panicked".into())))
            })
            .fold(mine, Result::and)
    })
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

pub fn sync_dir(dir: &Path) -> Result<()> {
    fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))
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
        assert_eq!(Journal::parse(&journal.render()), Some(journal.clone()));
        let done = format!("{}{COMMITTED}\n", journal.render());
        assert!(Journal::parse(&done).unwrap().committed);
        assert_eq!(Journal::parse("garbage\n"), None);
        // A journal of an earlier version names a temporary for new files too.
        let old = format!("{HEADER}\nnew\ta/b/c\ta/b/.c.rusty-tmp-1\n");
        assert_eq!(Journal::parse(&old).unwrap().entries[0], journal.entries[0]);
    }
}
