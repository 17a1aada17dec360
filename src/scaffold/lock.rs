//! One command at a time per project: an advisory lock (flock) on the project directory
//! itself, held from reading PROJECT to the end of the commit. Nothing is created for it,
//! and the kernel drops it with its process. The holder's PID, for the message of a command
//! that gives up waiting, comes from /proc/locks.
//!
//! Where a directory cannot be flocked (NFS emulates flock with write locks, which a
//! directory opened for reading cannot take), the lock is taken on the file
//! `.rusty-sdk.lock` in the project root instead; it holds the holder's PID and is removed
//! on release (after a check that the locked file is still the one at that path).
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

pub const FILE_NAME: &str = ".rusty-sdk.lock";
/// How long a second command waits for the first.
pub const WAIT: Duration = Duration::from_secs(5);

pub struct ProjectLock {
    /// The lock file to remove on release, when the fallback was taken.
    file_path: Option<PathBuf>,
    _held: File,
}

impl Drop for ProjectLock {
    fn drop(&mut self) {
        // Removed while still locked: a waiter that then locks the removed file sees it is
        // gone and starts over.
        if let Some(path) = &self.file_path {
            let _ = fs::remove_file(path);
        }
    }
}

/// Take the project's lock, waiting up to `wait`. `None` when it cannot be locked (a
/// read-only checkout: nothing can be committed there either).
///
/// A root that does not exist yet (`init` into a new folder) is not locked but the nearest
/// folder above it that exists (nothing is created there): two such commands take turns
/// instead of each rolling back the other's commit as if it had been interrupted. The
/// commit locks the root itself as soon as it creates it.
pub fn acquire(root: &Path, wait: Duration) -> Result<Option<ProjectLock>> {
    let deadline = Instant::now() + wait;
    if !root.is_dir() {
        return match root.ancestors().skip(1).find(|dir| dir.is_dir()) {
            Some(above) => flock_dir(above, deadline, wait),
            None => Ok(None),
        };
    }
    match flock_dir(root, deadline, wait)? {
        Some(held) => Ok(Some(held)),
        None => acquire_file(root, deadline, wait),
    }
}

/// The flock on the directory `dir` itself; `None` where directories cannot be flocked.
fn flock_dir(dir: &Path, deadline: Instant, wait: Duration) -> Result<Option<ProjectLock>> {
    let Ok(file) = File::open(dir) else {
        return Ok(None);
    };
    loop {
        match file.try_lock() {
            Ok(()) => {
                return Ok(Some(ProjectLock {
                    file_path: None,
                    _held: file,
                }));
            }
            Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(25));
            }
            Err(TryLockError::WouldBlock) => {
                let holder = file.metadata().ok().and_then(|m| flock_holder(&m));
                return Err(busy(dir, holder, "the project directory is locked", wait));
            }
            Err(TryLockError::Error(_)) => return Ok(None),
        }
    }
}

/// The fallback: the lock on `.rusty-sdk.lock`.
fn acquire_file(root: &Path, deadline: Instant, wait: Duration) -> Result<Option<ProjectLock>> {
    let path = root.join(FILE_NAME);
    loop {
        let mut file = match OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
        {
            Ok(f) => f,
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::ReadOnlyFilesystem | ErrorKind::PermissionDenied
                ) =>
            {
                return Ok(None);
            }
            Err(e) => return Err(Error::io(&path, e)),
        };
        match file.try_lock() {
            Ok(()) => {
                let same = match (file.metadata(), fs::metadata(&path)) {
                    (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
                    _ => false,
                };
                if !same {
                    continue;
                }
                let pid = format!("{}\n", std::process::id());
                file.set_len(0)
                    .and_then(|()| file.write_all(pid.as_bytes()))
                    .map_err(|e| Error::io(&path, e))?;
                return Ok(Some(ProjectLock {
                    file_path: Some(path),
                    _held: file,
                }));
            }
            Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(25));
            }
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.take(32).read_to_string(&mut holder);
                let holder = holder.trim().parse().ok();
                return Err(busy(
                    &path,
                    holder,
                    "if that process is gone, delete the lock file",
                    wait,
                ));
            }
            Err(TryLockError::Error(e)) => return Err(Error::io(&path, e)),
        }
    }
}

fn busy(lock: &Path, holder: Option<u32>, what: &str, wait: Duration) -> Error {
    let holder = match holder {
        Some(pid) => format!("process {pid}"),
        None => "another process".to_string(),
    };
    Error::Project(format!(
        "{}: {holder} is changing this project; waited {} s ({what}). Run one rusty-sdk command at a time (nothing was written)",
        lock.display(),
        wait.as_secs()
    ))
}

/// The PID /proc/locks gives for the flock on the file `meta` describes.
fn flock_holder(meta: &fs::Metadata) -> Option<u32> {
    let text = fs::read_to_string("/proc/locks").ok()?;
    holder_in(&text, meta.dev(), meta.ino())
}

/// In the text of /proc/locks (`1: FLOCK  ADVISORY  WRITE 4242 fd:00:1234 0 EOF`, the
/// device as hexadecimal major:minor), the PID holding a flock on `dev`/`ino`.
fn holder_in(locks: &str, dev: u64, ino: u64) -> Option<u32> {
    // glibc's encoding of dev_t.
    let major = ((dev >> 32) & 0xffff_f000) | ((dev >> 8) & 0xfff);
    let minor = ((dev >> 12) & 0xffff_ff00) | (dev & 0xff);
    let wanted = format!("{major:02x}:{minor:02x}:{ino}");
    locks.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().filter(|f| *f != "->").collect();
        match fields.as_slice() {
            [_, "FLOCK", _, _, pid, file, ..] if *file == wanted => pid.parse().ok(),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_taker_waits_then_names_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let first = acquire(dir.path(), WAIT).unwrap().unwrap();
        let err = acquire(dir.path(), Duration::from_millis(100))
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains(&dir.path().display().to_string())
                && err.contains(&format!("process {}", std::process::id())),
            "{err}"
        );
        drop(first);
        assert!(!dir.path().join(FILE_NAME).exists());
        assert!(acquire(dir.path(), WAIT).unwrap().is_some());
        assert!(!dir.path().join(FILE_NAME).exists());
    }

    #[test]
    fn a_root_not_made_yet_is_locked_through_the_folder_above() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new/project");
        let first = acquire(&new, WAIT).unwrap().unwrap();
        let err = acquire(&new, Duration::from_millis(100))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains(&dir.path().display().to_string()), "{err}");
        assert!(
            !dir.path().join("new").exists(),
            "nothing is created for the lock"
        );
        drop(first);
        assert!(acquire(&new, WAIT).unwrap().is_some());
    }

    #[test]
    fn the_file_fallback_waits_then_names_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let deadline = Instant::now() + WAIT;
        let first = acquire_file(dir.path(), deadline, WAIT).unwrap().unwrap();
        let err = acquire_file(dir.path(), Instant::now(), Duration::ZERO)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains(FILE_NAME) && err.contains(&std::process::id().to_string()),
            "{err}"
        );
        drop(first);
        assert!(!dir.path().join(FILE_NAME).exists());
    }

    #[test]
    fn proc_locks_lines_give_the_holder() {
        let dev = (253u64 << 8) | 1; // fd:01
        let text = "1: POSIX  ADVISORY  WRITE 11 fd:01:77 0 EOF\n\
                    2: FLOCK  ADVISORY  WRITE 4242 fd:01:77 0 EOF\n\
                    2: -> FLOCK  ADVISORY  WRITE 4343 fd:01:77 0 EOF\n";
        assert_eq!(holder_in(text, dev, 77), Some(4242));
        assert_eq!(holder_in(text, dev, 78), None);
    }
}
