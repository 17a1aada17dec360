//! The intent journal of a commit: written (and fsynced, with its directory) before
//! anything else, so that a commit cut short by a crash, a kill or a power loss is rolled
//! back by the next command. It holds the old bytes of every file the commit rewrites in
//! place, and ends with an `end` line: a journal without it was cut short while being
//! written, before anything else was, and is only removed. Once every file is in place a
//! `committed` line is appended; a journal ending with it is rolled forward instead (only
//! backups and renames are left to finish).
mod format;
mod recover;

use std::fs;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::scaffold::durable::{Durable, Sync};
use crate::scaffold::faults;
use format::COMMITTED;
pub use recover::recover;

/// The journal's name in the project root.
pub const FILE_NAME: &str = ".rusty-sdk-journal";
/// The most old bytes one file may put in the journal, and all files together; a larger
/// file is replaced through a temporary and a backup instead.
pub const IN_PLACE_FILE_LIMIT: usize = 1 << 20;
pub const IN_PLACE_TOTAL_LIMIT: usize = 16 << 20;
/// What a journal may weigh when read back: the old bytes, and lines for every file.
const JOURNAL_LIMIT: u64 = 64 << 20;

/// One planned write: where the file goes and how it is undone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub target: String,
    pub undo: Undo,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Undo {
    /// A new file, written in place: undone by removing it.
    Remove,
    /// A file rewritten in place (it keeps its inode, mode, owner and links): undone by
    /// writing back its old bytes, which the journal holds.
    Restore(Vec<u8>),
    /// A file replaced by a temporary renamed over it (a file that cannot be written in
    /// place, or too large for the journal): undone by renaming its backup back.
    Rename(Replace),
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
    /// Write the journal in the project root, then fsync it and the root together: a power
    /// loss before both are done leaves at most a journal without its `end` line (nothing
    /// else is written until then), which the next command removes.
    pub fn write(&self, root: &Path, sync: Sync) -> Result<()> {
        let path = root.join(FILE_NAME);
        faults::step(&path)?;
        // Only its owner may read it: it holds the old bytes of the files it rewrites.
        let owner_only = std::os::unix::fs::PermissionsExt::from_mode(0o600);
        let file = write_new(&path, &self.render(), Some(owner_only))?;
        let synced = faults::step(&path)
            .and_then(|()| sync.run(&[Durable::File(&path, &file), Durable::Dir(root)]));
        drop(file);
        synced.inspect_err(|_| {
            let _ = fs::remove_file(&path);
        })
    }

    /// Mark the commit done: from here on recovery finishes it instead of undoing it.
    /// With renames, `renamed_in` (the directories they happened in) are fsynced together
    /// with the journal: a journal that reaches the disk as committed before its renames do
    /// has them redone by the next command ([`Journal::roll_forward`]), and backups are
    /// removed only once the mark is durable.
    /// Without renames the mark is not fsynced: every file is durable already, and a power
    /// loss that brings back the journal without its mark only has the next command undo
    /// the whole commit (each old file is in the journal), leaving the project as it was.
    /// That undo cannot take back a later edit of the user's that reached the disk: on
    /// file systems with one ordered metadata log (ext4, XFS), the editor's fsync, or the
    /// periodic commit (5 s on ext4, before dirty data is written back after 30 s), makes
    /// the journal's removal durable first.
    pub fn mark_committed(root: &Path, sync: Sync, renamed_in: &[PathBuf]) -> Result<()> {
        let path = root.join(FILE_NAME);
        faults::step(&path)?;
        let mut file = fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        file.write_all(format!("{COMMITTED}\n").as_bytes())
            .map_err(|e| Error::io(&path, e))?;
        if renamed_in.is_empty() {
            return Ok(());
        }
        let durable: Vec<Durable> = std::iter::once(Durable::File(&path, &file))
            .chain(renamed_in.iter().map(|d| Durable::Dir(d)))
            .collect();
        sync.run(&durable)
    }

    /// Finish the commit this process just made: every temporary was renamed into place,
    /// so only the backups are left to remove.
    /// Removals run like fsyncs (see [`Sync`]): on a file system mounted with online
    /// discard, freeing a file's blocks waits for the device.
    pub fn drop_backups(&self, root: &Path, sync: Sync) -> Result<()> {
        let backups: Vec<PathBuf> = self
            .entries
            .iter()
            .filter_map(|e| match &e.undo {
                Undo::Rename(r) => Some(root.join(&r.backup)),
                _ => None,
            })
            .collect();
        sync.for_each(&backups, |backup| {
            faults::cleanup_step(backup)?;
            remove_if_exists(backup)
        })
    }

    /// fsync `files` and every directory the journal touched (those holding its files and
    /// those it created directories in), so contents, new names, renames and removals are
    /// durable.
    pub(super) fn sync_parents(&self, root: &Path, files: &[(PathBuf, fs::File)]) -> Result<()> {
        let (mut dirs, renamed) = self.touched_dirs(root);
        dirs.extend(renamed);
        dirs.sort();
        dirs.dedup();
        dirs.retain(|d| d.is_dir());
        let items: Vec<Durable> = files
            .iter()
            .map(|(path, file)| Durable::File(path, file))
            .chain(dirs.iter().map(|d| Durable::Dir(d)))
            .collect();
        Sync::of(root).run(&items)
    }

    /// The directories a commit changes, in two lists: those it adds names to (new files
    /// and directories: durable once fsynced after they are created, before any rename),
    /// and those it renames files in (to fsync after the renames). A file rewritten in
    /// place changes no directory.
    pub fn touched_dirs(&self, root: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
        let parent = |rel: &str| root.join(rel).parent().map(Path::to_path_buf);
        let mut renamed: Vec<PathBuf> = self
            .entries
            .iter()
            .filter(|e| matches!(e.undo, Undo::Rename(_)))
            .filter_map(|e| parent(&e.target))
            .collect();
        renamed.sort();
        renamed.dedup();
        let mut added: Vec<PathBuf> = self
            .entries
            .iter()
            .filter(|e| e.undo == Undo::Remove)
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

/// Open `path` to rewrite it in place, if it is a regular file this process may write
/// (not a symlink, FIFO or device): the journal then keeps its old bytes instead of a
/// backup. Opening changes nothing on disk; what was opened is checked through the open
/// file, so a lookup of the path beforehand is not needed.
pub fn open_in_place(path: &Path) -> Option<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
        .ok()
        .filter(|file| file.metadata().is_ok_and(|m| m.is_file()))
}

/// Rewrite the file open in `file` with `bytes`, from its start; not yet synced.
pub fn rewrite(path: &Path, file: &mut fs::File, bytes: &[u8]) -> Result<()> {
    faults::write_all(file, bytes)
        .and_then(|()| file.set_len(bytes.len() as u64))
        .map_err(|e| Error::io(path, e))
}

pub(super) fn remove_if_exists(path: &Path) -> Result<()> {
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

/// Create `path` (it must not exist), write `bytes`, give it `mode`; not yet synced. The
/// file is created with `mode` (less the umask) already, so that the new contents of a
/// file only its owner may read are never readable by others.
pub fn write_new(path: &Path, bytes: &[u8], mode: Option<fs::Permissions>) -> Result<fs::File> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode.as_ref().map_or(0o666, |m| m.mode() & 0o777))
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    let written = faults::write_all(&mut file, bytes).and_then(|()| match mode {
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
    fn only_the_owner_may_read_the_journal() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal {
            dirs: Vec::new(),
            entries: vec![Entry {
                target: "secret".into(),
                undo: Undo::Restore(b"token".to_vec()),
            }],
            committed: false,
        };
        journal.write(dir.path(), Sync::of(dir.path())).unwrap();
        let mode = fs::metadata(dir.path().join(FILE_NAME))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
