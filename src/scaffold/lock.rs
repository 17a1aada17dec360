//! One command at a time per project: an advisory lock (flock) on `.rusty-sdk.lock` in the
//! project root, held from reading PROJECT to the end of the commit. The file holds the
//! holder's PID, for the message of a command that gives up waiting; it is removed on
//! release (after a check that the locked file is still the one at that path).
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
    path: PathBuf,
    _file: File,
}

impl Drop for ProjectLock {
    fn drop(&mut self) {
        // Removed while still locked: a waiter that then locks the removed file sees it is
        // gone and starts over.
        let _ = fs::remove_file(&self.path);
    }
}

/// Take the project's lock, waiting up to `wait`. `None` when the root does not exist yet
/// or cannot be written (a read-only checkout: nothing can be committed there either).
pub fn acquire(root: &Path, wait: Duration) -> Result<Option<ProjectLock>> {
    if !root.is_dir() {
        return Ok(None);
    }
    let path = root.join(FILE_NAME);
    let deadline = Instant::now() + wait;
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
                return Ok(Some(ProjectLock { path, _file: file }));
            }
            Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(25));
            }
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.take(32).read_to_string(&mut holder);
                let holder = holder.trim();
                let holder = if holder.is_empty() {
                    "another process".to_string()
                } else {
                    format!("process {holder}")
                };
                return Err(Error::Project(format!(
                    "{}: {holder} is changing this project; waited {} s. Run one rusty-sdk command at a time; if that process is gone, delete the lock file (nothing was written)",
                    path.display(),
                    wait.as_secs()
                )));
            }
            Err(TryLockError::Error(e)) => return Err(Error::io(&path, e)),
        }
    }
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
            err.contains(FILE_NAME) && err.contains(&std::process::id().to_string()),
            "{err}"
        );
        drop(first);
        assert!(!dir.path().join(FILE_NAME).exists());
        assert!(acquire(dir.path(), WAIT).unwrap().is_some());
    }
}
