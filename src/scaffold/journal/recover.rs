//! Recovery: a journal left by an interrupted commit is rolled back (new files removed, old
//! bytes and backups put back) or, once it says `committed`, rolled forward.
use std::fs;
use std::io::{ErrorKind, Read, Seek};
use std::path::Path;

use crate::error::{Error, Result};
use crate::scaffold::durable::sync_dir;
use crate::scaffold::faults;

use super::format::Parsed;
use super::{FILE_NAME, JOURNAL_LIMIT, Journal, Undo, remove_if_exists, rewrite};

impl Journal {
    /// Undo every step that may have happened, in reverse; each step is idempotent, so a
    /// rollback cut short is finished by the next one. Restored files and the directories
    /// touched are durable when it returns. Returns the files restored.
    pub fn roll_back(&self, root: &Path) -> Result<usize> {
        let mut restored = 0;
        let mut rewritten = Vec::new();
        for e in self.entries.iter().rev() {
            let target = root.join(&e.target);
            match &e.undo {
                Undo::Remove => remove_if_exists(&target)?,
                Undo::Restore(old) => {
                    if let Some(file) = restore(&target, old)? {
                        rewritten.push((target, file));
                    }
                    restored += 1;
                }
                Undo::Rename(r) => {
                    let backup = root.join(&r.backup);
                    if backup.exists() {
                        fs::rename(&backup, &target).map_err(|err| Error::io(&target, err))?;
                        restored += 1;
                    }
                    remove_if_exists(&root.join(&r.temp))?;
                }
            }
        }
        for d in self.dirs.iter().rev() {
            // Not empty means something else lives there now: leave it.
            let _ = fs::remove_dir(root.join(d));
        }
        self.sync_parents(root, &rewritten)?;
        Ok(restored)
    }

    /// Finish a committed commit: redo the renames that did not reach the disk (every
    /// temporary was fsynced before the first rename), then drop the backups. Files
    /// rewritten in place were durable before the commit point. Each step is idempotent, so
    /// a roll-forward cut short is finished by the next one.
    pub fn roll_forward(&self, root: &Path) -> Result<()> {
        let exists = |p: &Path| p.symlink_metadata().is_ok();
        for e in &self.entries {
            let Undo::Rename(r) = &e.undo else { continue };
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
        self.sync_parents(root, &[])
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
                "an earlier command was interrupted while writing {planned} file(s); rolled it back ({restored} file(s) restored, its new files removed): the project is as it was before that command"
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
    let bytes = match crate::scaffold::input::read_file(&path, JOURNAL_LIMIT) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Recovered::Nothing),
        Err(e) => return Err(Error::io(&path, e)),
    };
    let journal = match Journal::parse(&bytes) {
        Parsed::Whole(journal) => journal,
        Parsed::Incomplete => {
            remove_if_exists(&path)?;
            sync_dir(root)?;
            return Ok(Recovered::Nothing);
        }
        Parsed::Unreadable => {
            return Err(Error::Project(format!(
                "{}: not a journal this rusty-sdk can read; an earlier commit was interrupted: restore the files named `.NAME.rusty-bak-PID` by hand (the old bytes of files edited in place follow their `edit` lines), then delete the journal",
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

/// Put `old` back in `path` (made again if it was removed since). A file that already
/// holds `old` is left alone, keeping its modification time; otherwise the file rewritten
/// is returned, to be made durable.
fn restore(path: &Path, old: &[u8]) -> Result<Option<fs::File>> {
    let mut file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    let mut now = Vec::with_capacity(old.len());
    (&file)
        .take(old.len() as u64 + 1)
        .read_to_end(&mut now)
        .map_err(|e| Error::io(path, e))?;
    if now == old {
        return Ok(None);
    }
    file.rewind().map_err(|e| Error::io(path, e))?;
    rewrite(path, &mut file, old)?;
    Ok(Some(file))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scaffold::journal::format::{self, COMMITTED};
    use crate::scaffold::journal::{Entry, Replace};

    #[test]
    fn a_committed_journal_redoes_the_renames_that_did_not_reach_the_disk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let replace = |target: &str| Entry {
            target: target.into(),
            undo: Undo::Rename(Replace {
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
        let bytes = [journal.render(), format!("{COMMITTED}\n").into_bytes()].concat();
        fs::write(root.join(FILE_NAME), bytes).unwrap();
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
        let text = format!(
            "{}\nreplace\tPROJECT\t.PROJECT.rusty-tmp-1\t.PRO",
            format::HEADER
        );
        fs::write(dir.path().join(FILE_NAME), text).unwrap();
        assert!(matches!(recover(dir.path()).unwrap(), Recovered::Nothing));
        assert!(!dir.path().join(FILE_NAME).exists());
        assert_eq!(fs::read_to_string(dir.path().join("PROJECT")).unwrap(), "p");
    }

    #[test]
    fn files_edited_in_place_get_their_old_bytes_back_and_untouched_ones_keep_their_time() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let edit = |target: &str, old: &[u8]| Entry {
            target: target.into(),
            undo: Undo::Restore(old.to_vec()),
        };
        // torn: cut short mid-write; longer: written whole; same: not reached; gone: removed
        // by the user since.
        fs::write(root.join("torn"), "new conte").unwrap();
        fs::write(root.join("longer"), "a much longer new content").unwrap();
        fs::write(root.join("same"), "old same").unwrap();
        fs::set_permissions(root.join("longer"), fs::Permissions::from_mode(0o640)).unwrap();
        let old_time = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1 << 30);
        fs::File::options()
            .write(true)
            .open(root.join("same"))
            .unwrap()
            .set_modified(old_time)
            .unwrap();
        let journal = Journal {
            dirs: Vec::new(),
            entries: vec![
                edit("torn", b"old torn\r\n"),
                edit("longer", b"old"),
                edit("same", b"old same"),
                edit("gone", b"old gone"),
            ],
            committed: false,
        };
        fs::write(root.join(FILE_NAME), journal.render()).unwrap();
        assert!(matches!(
            recover(root).unwrap(),
            Recovered::RolledBack {
                restored: 4,
                planned: 4
            }
        ));
        for (name, old) in [
            ("torn", "old torn\r\n"),
            ("longer", "old"),
            ("same", "old same"),
            ("gone", "old gone"),
        ] {
            assert_eq!(fs::read_to_string(root.join(name)).unwrap(), old);
        }
        let mode = fs::metadata(root.join("longer"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o640);
        let time = fs::metadata(root.join("same")).unwrap().modified().unwrap();
        assert_eq!(
            time, old_time,
            "a file that holds its old bytes is not rewritten"
        );
        assert!(!root.join(FILE_NAME).exists());
    }

    #[test]
    fn a_committed_journal_leaves_files_edited_in_place_as_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(root.join("main.rs"), "new").unwrap();
        let journal = Journal {
            dirs: Vec::new(),
            entries: vec![Entry {
                target: "main.rs".into(),
                undo: Undo::Restore(b"old".to_vec()),
            }],
            committed: true,
        };
        let bytes = [journal.render(), format!("{COMMITTED}\n").into_bytes()].concat();
        fs::write(root.join(FILE_NAME), bytes).unwrap();
        assert!(matches!(
            recover(root).unwrap(),
            Recovered::RolledForward { files: 1 }
        ));
        assert_eq!(fs::read_to_string(root.join("main.rs")).unwrap(), "new");
    }
}
