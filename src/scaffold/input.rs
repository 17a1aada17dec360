//! Reading the files a command is given or finds in the project, bounded: only regular
//! files (after symlinks), so a FIFO cannot hang a command and `/dev/zero` cannot fill
//! memory, and at most a limit that no real project or chart file comes near.
use std::fs::File;
use std::io::{Error, ErrorKind, Read, Result};
use std::path::Path;

/// What a project file (PROJECT, sources, manifests) may weigh.
pub const PROJECT_FILE_LIMIT: u64 = 64 << 20;

/// `path`'s bytes, if it is a regular file of at most `limit` bytes. The error for any
/// other file says what is wrong with it and what to do; `NotFound` stays `NotFound`.
pub fn read_file(path: &Path, limit: u64) -> Result<Vec<u8>> {
    read(path, limit, false)
}

/// A file the user named on the command line: a pipe (`--manifests <(kubectl ...)`) is
/// fine too, read up to `limit` bytes.
pub fn read_named(path: &Path, limit: u64) -> Result<Vec<u8>> {
    read(path, limit, true)
}

fn read(path: &Path, limit: u64, streams: bool) -> Result<Vec<u8>> {
    let metadata = std::fs::metadata(path)?;
    if metadata.is_dir() {
        return Err(Error::new(
            ErrorKind::IsADirectory,
            "is a directory, but a file is needed there; move it away or pass a file",
        ));
    }
    if !metadata.is_file() && !streams {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            "not a regular file (a FIFO, socket or device); replace it with a file",
        ));
    }
    // The size is only a hint (a file may grow): one that does not fit usize starts empty.
    let hint = usize::try_from(metadata.len().min(limit)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(hint);
    File::open(path)?.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(Error::new(
            ErrorKind::FileTooLarge,
            format!(
                "larger than the {limit} bytes rusty-sdk reads from such a file; is it the right file?"
            ),
        ));
    }
    Ok(bytes)
}

/// [`read_file`] as UTF-8 text; text that is not UTF-8 is `InvalidData`.
pub fn read_text(path: &Path, limit: u64) -> Result<String> {
    utf8(read_file(path, limit)?)
}

/// [`read_named`] as UTF-8 text.
pub fn read_named_text(path: &Path, limit: u64) -> Result<String> {
    utf8(read_named(path, limit)?)
}

fn utf8(bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|_| Error::new(ErrorKind::InvalidData, "not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "12345").unwrap();
        assert_eq!(read_file(&file, 5).unwrap(), b"12345");
        let err = read_file(&file, 4).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::FileTooLarge);
        assert!(err.to_string().contains("4 bytes"), "{err}");
        let err = read_file(Path::new("/dev/zero"), 4).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        assert_eq!(
            read_file(dir.path(), 4).unwrap_err().kind(),
            ErrorKind::IsADirectory
        );
        let missing = read_file(&dir.path().join("none"), 4).unwrap_err();
        assert_eq!(missing.kind(), ErrorKind::NotFound);
    }
}
