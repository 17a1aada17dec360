//! Every file-system step of a commit passes through [`step`]: it counts the steps, stops
//! the commit when SIGINT/SIGTERM arrived, and in debug builds obeys the test hook
//! `RUSTY_SDK_FAULT=<what>:<n>` at the n-th step (`kill`: SIGKILL this process, `enospc`,
//! `eio`, `erofs`: fail the step with that error, `term`: send SIGTERM to this process,
//! `tear`: the first write at or after that step stops halfway and the process is killed,
//! as a power cut or a SIGKILL in the middle of a write leaves a file).
//! Release builds ignore the variable.
use std::path::Path;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};

use crate::error::{Error, Result};

static STEPS: AtomicUsize = AtomicUsize::new(0);
static IN_COMMIT: AtomicBool = AtomicBool::new(false);
static SIGNAL: AtomicI32 = AtomicI32::new(0);
static INSTALL: Once = Once::new();
static TEAR: AtomicBool = AtomicBool::new(false);

/// Marks the span of a commit: a signal inside it is recorded (the commit then rolls back
/// and the command exits non-zero); a signal outside it ends the process as usual.
pub struct CommitGuard;

impl CommitGuard {
    pub fn enter() -> CommitGuard {
        INSTALL.call_once(|| {
            for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
                // SAFETY: the handler only touches atomics and calls _exit, both
                // async-signal-safe.
                let _ = unsafe {
                    signal_hook::low_level::register(sig, move || {
                        if IN_COMMIT.load(Ordering::SeqCst) {
                            SIGNAL.store(sig, Ordering::SeqCst);
                        } else {
                            signal_hook::low_level::exit(128 + sig);
                        }
                    })
                };
            }
        });
        IN_COMMIT.store(true, Ordering::SeqCst);
        CommitGuard
    }

    /// The signal received during the commit, if any.
    pub fn interrupted() -> Option<i32> {
        match SIGNAL.load(Ordering::SeqCst) {
            0 => None,
            s => Some(s),
        }
    }
}

impl Drop for CommitGuard {
    fn drop(&mut self) {
        IN_COMMIT.store(false, Ordering::SeqCst);
    }
}

/// One file-system step on `path` is about to happen.
pub fn step(path: &Path) -> Result<()> {
    let n = STEPS.fetch_add(1, Ordering::SeqCst) + 1;
    if let Some(sig) = CommitGuard::interrupted() {
        return Err(interrupted(sig));
    }
    if cfg!(debug_assertions) {
        inject(n, path)?;
    }
    Ok(())
}

/// A cleanup step after the commit point: a signal no longer stops it (the commit is to be
/// finished), only the test hook applies.
pub fn cleanup_step(path: &Path) -> Result<()> {
    let n = STEPS.fetch_add(1, Ordering::SeqCst) + 1;
    if cfg!(debug_assertions) {
        inject(n, path)?;
    }
    Ok(())
}

pub fn interrupted(sig: i32) -> Error {
    let name = if sig == signal_hook::consts::SIGINT {
        "SIGINT"
    } else {
        "SIGTERM"
    };
    Error::Project(format!(
        "interrupted by {name} while writing; the commit was rolled back, nothing was written"
    ))
}

/// Write all of `bytes` to `file`: every write of a commit goes through here, so that the
/// test hook can tear one.
pub fn write_all(file: &mut std::fs::File, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    if cfg!(debug_assertions) && TEAR.swap(false, Ordering::SeqCst) {
        file.write_all(&bytes[..bytes.len() / 2])?;
        // SAFETY: plain syscalls on this process.
        unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
    }
    file.write_all(bytes)
}

fn inject(n: usize, path: &Path) -> Result<()> {
    let Ok(spec) = std::env::var("RUSTY_SDK_FAULT") else {
        return Ok(());
    };
    let Some((what, at)) = spec.split_once(':') else {
        return Ok(());
    };
    if at.parse::<usize>().ok() != Some(n) {
        return Ok(());
    }
    let errno = match what {
        "kill" => {
            // SAFETY: plain syscalls on this process.
            unsafe { libc::kill(libc::getpid(), libc::SIGKILL) };
            return Ok(());
        }
        "term" => {
            // SAFETY: as above; the handler records it and the next step sees it.
            unsafe { libc::kill(libc::getpid(), libc::SIGTERM) };
            std::thread::sleep(std::time::Duration::from_millis(20));
            return Ok(());
        }
        "tear" => {
            TEAR.store(true, Ordering::SeqCst);
            return Ok(());
        }
        "enospc" => libc::ENOSPC,
        "eio" => libc::EIO,
        "erofs" => libc::EROFS,
        _ => return Ok(()),
    };
    Err(Error::io(path, std::io::Error::from_raw_os_error(errno)))
}
