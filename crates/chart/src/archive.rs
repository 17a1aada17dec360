//! Reading chart archives (`.tgz`) within limits, so a small hostile archive (a "gzip
//! bomb") is refused before it costs memory. The limits are Helm's (`MaxDecompressedChartSize`
//! and `MaxDecompressedFileSize` of its loader) plus a file count no real chart reaches;
//! one budget covers a chart and every archive nested in its charts/ folder.
use std::io::Read;
use std::path::Path;

use crate::chart::ChartFile;
use crate::error::ChartError;

/// Bytes all files of a chart (nested archives included) may unpack to: 100 MiB.
pub const MAX_CHART_BYTES: u64 = 100 * 1024 * 1024;
/// Bytes one file may have: 5 MiB.
pub const MAX_FILE_BYTES: u64 = 5 * 1024 * 1024;
/// Files a chart (nested archives included) may have.
pub const MAX_FILES: usize = 20_000;

/// What is left of a chart's limits while it is being read.
#[derive(Debug)]
pub(crate) struct Budget {
    bytes: u64,
    files: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            bytes: MAX_CHART_BYTES,
            files: MAX_FILES,
        }
    }
}

impl Budget {
    /// Take one file of `size` bytes, or say which limit it breaks.
    pub(crate) fn take(&mut self, name: &str, size: u64) -> Result<(), String> {
        check_file_size(name, size)?;
        if self.files == 0 {
            return Err(format!("it has more than {MAX_FILES} files"));
        }
        if size > self.bytes {
            return Err(format!(
                "its files unpack to more than {MAX_CHART_BYTES} bytes (100 MiB), Helm's limit"
            ));
        }
        self.files -= 1;
        self.bytes -= size;
        Ok(())
    }

    /// Take one folder of a chart directory: folders count with the files, so that links
    /// to the same folders at every level cannot make a walk without end.
    pub(crate) fn take_folder(&mut self) -> Result<(), String> {
        if self.files == 0 {
            return Err(format!("it has more than {MAX_FILES} files and folders"));
        }
        self.files -= 1;
        Ok(())
    }
}

/// Refuse a file larger than Helm loads (`name` is shown in the message).
///
/// # Errors
///
/// A file over 5 MiB, Helm's limit for one chart file: the message names it, its size
/// and the limit.
pub fn check_file_size(name: &str, size: u64) -> Result<(), String> {
    if size > MAX_FILE_BYTES {
        Err(format!(
            "file {name:?} has {size} bytes, more than {MAX_FILE_BYTES} (5 MiB), Helm's limit for one chart file"
        ))
    } else {
        Ok(())
    }
}

/// The files of a chart archive with its top-level folder (the chart's name) stripped,
/// sorted by path. `source` names the archive in errors.
///
/// # Errors
///
/// [`ChartError::Archive`] when the bytes are not a gzipped tar, or the archive breaks
/// one of Helm's limits (total size, number of files, size of one file) or holds a path
/// outside the chart folder; [`ChartError::NotAChart`] when it has no `Chart.yaml`.
pub fn read_archive(source: &Path, bytes: &[u8]) -> Result<Vec<ChartFile>, ChartError> {
    read(source, bytes, &mut Budget::default())
}

pub(crate) fn read(
    source: &Path,
    bytes: &[u8],
    budget: &mut Budget,
) -> Result<Vec<ChartFile>, ChartError> {
    let fail = |message: String| ChartError::Archive {
        path: source.to_path_buf(),
        message,
    };
    // First pass: headers only (the data streams through the decompressor and is dropped),
    // so an archive over a limit is refused before any of it is kept.
    let mut trial = Budget {
        bytes: budget.bytes,
        files: budget.files,
    };
    for_each_file(bytes, |rel, entry| {
        trial.take(rel, entry.header().size().unwrap_or(u64::MAX))
    })
    .map_err(fail)?;
    let mut files = Vec::new();
    for_each_file(bytes, |rel, entry| {
        let size = entry.header().size().unwrap_or(u64::MAX);
        budget.take(rel, size)?;
        let mut data = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        entry
            .take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut data)
            .map_err(|e| format!("cannot read {rel}: {e}"))?;
        files.push(ChartFile {
            name: rel.to_string(),
            data,
        });
        Ok(())
    })
    .map_err(fail)?;
    if !files.iter().any(|f| f.name == "Chart.yaml") {
        return Err(ChartError::NotAChart(source.to_path_buf()));
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

/// Call `visit` with the chart-relative path of every regular file of the archive.
fn for_each_file(
    bytes: &[u8],
    mut visit: impl FnMut(
        &str,
        &mut tar::Entry<'_, flate2::read::GzDecoder<&[u8]>>,
    ) -> Result<(), String>,
) -> Result<(), String> {
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
    let unreadable = |e: std::io::Error| format!("cannot be read as a gzipped tar archive: {e}");
    for entry in archive.entries().map_err(unreadable)? {
        let mut entry = entry.map_err(unreadable)?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let path = entry
            .path()
            .map_err(|e| e.to_string())?
            .to_string_lossy()
            .replace('\\', "/");
        let Some((_, rel)) = path.trim_start_matches("./").split_once('/') else {
            continue;
        };
        if rel.is_empty() || rel.starts_with('/') || rel.split('/').any(|seg| seg == "..") {
            return Err(format!("entry {path:?} points outside the chart folder"));
        }
        let rel = rel.to_string();
        visit(&rel, &mut entry)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A .tgz of `files` (path, size in zero bytes) under `chart/`.
    fn archive(files: &[(&str, usize)]) -> Vec<u8> {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let mut builder = tar::Builder::new(gz);
        for (name, size) in files {
            // The name is written raw: `set_path` would refuse the `..` a hostile archive has.
            let path = format!("chart/{name}");
            let mut header = tar::Header::new_old();
            header.as_old_mut().name[..path.len()].copy_from_slice(path.as_bytes());
            header.set_size(*size as u64);
            header.set_mode(0o644);
            header.set_entry_type(tar::EntryType::Regular);
            header.set_cksum();
            builder
                .append(&header, std::io::repeat(0).take(*size as u64))
                .unwrap();
        }
        builder.into_inner().unwrap().finish().unwrap()
    }

    fn error(files: &[(&str, usize)]) -> String {
        read_archive(Path::new("bomb.tgz"), &archive(files))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_file_over_five_mib_is_refused_naming_it() {
        let bomb = archive(&[("Chart.yaml", 10), ("templates/zero", 256 << 20)]);
        assert!(bomb.len() < 300 * 1024, "{}", bomb.len());
        let err = read_archive(Path::new("bomb.tgz"), &bomb)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "invalid chart archive bomb.tgz: file \"templates/zero\" has 268435456 bytes, more than 5242880 (5 MiB), Helm's limit for one chart file"
        );
    }

    #[test]
    fn many_files_under_the_file_limit_are_refused_by_the_total() {
        let names: Vec<String> = (0..21).map(|i| format!("files/f{i}")).collect();
        let mut files: Vec<(&str, usize)> = names.iter().map(|n| (n.as_str(), 5 << 20)).collect();
        files.push(("Chart.yaml", 10));
        assert!(error(&files).contains("more than 104857600 bytes (100 MiB)"));
    }

    #[test]
    fn too_many_files_and_escaping_paths_are_refused() {
        let names: Vec<String> = (0..=MAX_FILES).map(|i| format!("f{i}")).collect();
        let files: Vec<(&str, usize)> = names.iter().map(|n| (n.as_str(), 0)).collect();
        assert!(error(&files).contains("more than 20000 files"));
        assert!(error(&[("a/../../etc", 1)]).contains("outside the chart folder"));
    }

    #[test]
    fn a_real_sized_chart_reads() {
        let files = read_archive(
            Path::new("ok.tgz"),
            &archive(&[("Chart.yaml", 10), ("templates/a.yaml", 4 << 20)]),
        )
        .unwrap();
        let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["Chart.yaml", "templates/a.yaml"]);
        assert_eq!(files[1].data.len(), 4 << 20);
    }
}
