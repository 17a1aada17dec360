//! Making a commit's files and directories durable, a round at a time: every item of a round
//! is on disk when the round returns.
//!
//! On Linux, when little else waits to be written, a round is one `syncfs` of the project's
//! file system: it writes what is pending in one pass and commits the file system's journal
//! once. One fsync per file, even on parallel threads, costs several times as much on ext4
//! (each waits for its own write and device flush). But `syncfs` also writes what other
//! programs have pending there: while a build writes megabytes, it would wait for all of
//! them, so then each item gets its own fsync, on up to 8 threads. Items on another file
//! system (a mount inside the project) always get their own fsync. On tmpfs and ramfs
//! nothing is ever written to a disk, and fsync returns at once.
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::error::{Error, Result};

/// Something to make durable: a file already open, or a directory.
pub enum Durable<'a> {
    File(&'a Path, &'a fs::File),
    Dir(&'a Path),
}

impl Durable<'_> {
    fn sync(&self) -> Result<()> {
        match self {
            Durable::File(path, file) => file.sync_all().map_err(|e| Error::io(path, e)),
            Durable::Dir(dir) => sync_dir(dir),
        }
    }

    fn path(&self) -> &Path {
        match self {
            Durable::File(path, _) | Durable::Dir(path) => path,
        }
    }

    /// The device it is on, if it can be told.
    fn device(&self) -> Option<u64> {
        match self {
            Durable::File(_, file) => file.metadata().ok().map(|m| m.dev()),
            Durable::Dir(dir) => fs::metadata(dir).ok().map(|m| m.dev()),
        }
    }
}

/// How the rounds of a commit under one directory are made durable.
#[derive(Clone, Copy)]
pub struct Sync {
    medium: Medium,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Medium {
    /// tmpfs or ramfs: fsync has nothing to wait for.
    Memory,
    /// A file system on a device: `syncfs` it (on Linux) when `whole` is set, or fsync
    /// items in parallel.
    Disk { device: u64, whole: bool },
}

impl Sync {
    /// For the file system of `dir` (or of its nearest existing parent).
    pub fn of(dir: &Path) -> Sync {
        let probe = dir.ancestors().find(|d| d.exists()).unwrap_or(dir);
        let medium = match fs::metadata(probe) {
            _ if in_memory(probe) => Medium::Memory,
            Ok(meta) => Medium::Disk {
                device: meta.dev(),
                whole: little_pending(),
            },
            // Nothing to learn the device from: every item gets its own fsync.
            Err(_) => Medium::Disk {
                device: u64::MAX,
                whole: false,
            },
        };
        Sync { medium }
    }

    /// Make every item durable.
    pub fn run(self, items: &[Durable]) -> Result<()> {
        let Medium::Disk { device, whole } = self.medium else {
            return items.iter().try_for_each(Durable::sync);
        };
        let (here, elsewhere): (Vec<&Durable>, Vec<&Durable>) = items
            .iter()
            .partition(|item| whole && item.device() == Some(device));
        if let Some(first) = here.first()
            && let Err(e) = sync_file_system(first)
        {
            // No syncfs (not Linux, or a kernel without it): fsync each item.
            if !matches!(e.raw_os_error(), Some(libc::ENOSYS | libc::EINVAL)) {
                return Err(Error::io(first.path(), e));
            }
            in_parallel(&here, |item| item.sync())?;
        }
        in_parallel(&elsewhere, |item| item.sync())
    }

    /// Run `job` on every item: on several threads where it waits for a device (a removal
    /// on a file system mounted with online discard waits for the device to free blocks).
    pub fn for_each<T: std::marker::Sync>(
        self,
        items: &[T],
        job: impl Fn(&T) -> Result<()> + std::marker::Sync,
    ) -> Result<()> {
        match self.medium {
            Medium::Memory => items.iter().try_for_each(job),
            Medium::Disk { .. } => in_parallel(items, job),
        }
    }
}

/// Whether the kernel has little data waiting to be written (`Dirty` and `Writeback` of
/// /proc/meminfo, all file systems together): then a `syncfs` waits for little besides
/// this commit's own files.
fn little_pending() -> bool {
    const MOST_KB: u64 = 4 * 1024;
    let Ok(info) = fs::read_to_string("/proc/meminfo") else {
        return false;
    };
    let mut pending = 0;
    for line in info.lines() {
        for field in ["Dirty:", "Writeback:"] {
            if let Some(rest) = line.strip_prefix(field) {
                let Some(kb) = rest
                    .trim()
                    .strip_suffix("kB")
                    .and_then(|n| n.trim().parse::<u64>().ok())
                else {
                    return false;
                };
                pending += kb;
            }
        }
    }
    pending <= MOST_KB
}

/// `syncfs` the file system `item` is on. Its errors include the write errors of files
/// written through descriptors opened after `item`'s (a file's own descriptor was opened
/// before it was written).
#[cfg(target_os = "linux")]
fn sync_file_system(item: &Durable) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let opened;
    let file = match item {
        Durable::File(_, file) => *file,
        Durable::Dir(dir) => {
            opened = fs::File::open(dir)?;
            &opened
        }
    };
    // SAFETY: a descriptor owned by `file`, alive for the call.
    if unsafe { libc::syncfs(file.as_raw_fd()) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn sync_file_system(_: &Durable) -> std::io::Result<()> {
    Err(std::io::Error::from_raw_os_error(libc::ENOSYS))
}

/// Whether `dir` is on tmpfs or ramfs.
fn in_memory(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    const RAMFS_MAGIC: i64 = 0x8584_58f6;
    let Ok(c_path) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: an all-zero statfs is valid; statfs only writes it.
    let mut buf: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a pointer to a live statfs.
    if unsafe { libc::statfs(c_path.as_ptr(), &raw mut buf) } != 0 {
        return false;
    }
    #[allow(clippy::unnecessary_cast)]
    let kind = buf.f_type as i64;
    kind == TMPFS_MAGIC || kind == RAMFS_MAGIC
}

/// Run `job` on every item, on up to 8 threads (this one included); the first error wins.
fn in_parallel<T: std::marker::Sync>(
    items: &[T],
    job: impl Fn(&T) -> Result<()> + std::marker::Sync,
) -> Result<()> {
    const THREADS: usize = 8;
    if items.len() < 2 {
        return items.iter().try_for_each(&job);
    }
    let chunk = items.len().div_ceil(THREADS);
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

/// fsync a directory, so the names in it are durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_syncs_files_and_directories_and_names_what_is_gone() {
        // The target directory is on a disk; /dev/shm, where there is one, is not.
        let roots = [
            Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
            "/dev/shm".into(),
        ];
        for root in roots.iter().filter(|r| r.is_dir()) {
            let dir = tempfile::tempdir_in(root).unwrap();
            let device = fs::metadata(dir.path()).unwrap().dev();
            // As `Sync::of` finds it, and both ways a disk is synced (syncfs, fsyncs).
            let ways = [
                Sync::of(dir.path()),
                Sync {
                    medium: Medium::Disk {
                        device,
                        whole: true,
                    },
                },
                Sync {
                    medium: Medium::Disk {
                        device,
                        whole: false,
                    },
                },
            ];
            for sync in ways {
                let path = dir.path().join("a");
                let file = fs::File::create(&path).unwrap();
                sync.run(&[Durable::File(&path, &file), Durable::Dir(dir.path())])
                    .unwrap();
                let gone = dir.path().join("gone");
                let err = sync
                    .run(&[Durable::File(&path, &file), Durable::Dir(&gone)])
                    .unwrap_err();
                assert!(err.to_string().contains("gone"), "{err}");
            }
        }
    }

    #[test]
    fn pending_data_is_read_from_the_kernel() {
        // Whatever the machine has pending, the answer comes from /proc/meminfo's two
        // fields, which every Linux has: a parse failure would always say "no".
        let info = fs::read_to_string("/proc/meminfo").unwrap();
        let kb = |field: &str| -> u64 {
            let line = info.lines().find(|l| l.starts_with(field)).unwrap();
            line[field.len()..]
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .unwrap()
        };
        let pending = kb("Dirty:") + kb("Writeback:");
        // Far from the limit either way, so the kernel's numbers cannot move across it.
        if !(2048..=8192).contains(&pending) {
            assert_eq!(little_pending(), pending < 4096, "{pending} kB pending");
        }
    }
}
