//! One error type for the CLI, rendered once at the edge. Every message names the value or
//! path at fault and, where it helps, what to do.
use std::path::PathBuf;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// A flag or argument the user gave is not valid.
    #[error("{0}")]
    Invalid(String),

    /// The project on disk is not in a state this command can work with.
    #[error("{0}")]
    Project(String),

    /// Files in the way: nothing was written.
    #[error("{} conflicting file(s), nothing was written:\n{}", .0.len(), format_conflicts(.0))]
    Conflicts(Vec<(String, String)>),

    /// A scaffold marker an edit needs is gone from a file.
    #[error(
        "{path}: marker `{marker}` not found; add a line `{marker}` where new entries should go and run the command again (nothing was written)"
    )]
    MarkerMissing { path: String, marker: String },

    /// Reading or writing a file failed.
    #[error("{}: {source}{}", crate::model::names::shown_path(.path), io_hint(.source))]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// stdout could not be written (closed pipe, full disk) before anything was written.
    #[error("cannot write to standard output ({0}); nothing was written")]
    Output(std::io::ErrorKind),

    /// A bug in rusty-sdk itself (for example a template that does not render).
    #[error("internal error: {0} (this is a bug in rusty-sdk, please report it)")]
    Internal(String),
}

fn format_conflicts(conflicts: &[(String, String)]) -> String {
    conflicts
        .iter()
        .map(|(path, why)| format!("  {path}: {why}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn io_hint(e: &std::io::Error) -> &'static str {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => {
            "; make the directory writable (or run somewhere you may write) and try again; nothing was written"
        }
        std::io::ErrorKind::ReadOnlyFilesystem => {
            "; the file system is read-only; nothing was written"
        }
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => {
            "; free some space and run the command again; nothing was written"
        }
        _ => "",
    }
}

impl Error {
    /// Exit codes: 1 for anything the user can fix, 2 for bugs.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Internal(_) => 2,
            _ => 1,
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::Invalid(msg.into())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
