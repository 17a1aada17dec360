//! Process-wide tracing subscriber configured from the manager's flags.
use std::io::IsTerminal as _;

use tracing_subscriber::EnvFilter;

use crate::args::{LogFormat, ManagerArgs};

/// Why the logger could not be installed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// `--log-level` (or `RUST_LOG`) is not a filter `tracing_subscriber` reads.
    #[error(
        "--log-level={level:?} is not a valid filter: use a level such as `info` or directives such as `info,kube=debug`"
    )]
    Filter {
        /// The filter as given.
        level: String,
        /// What the filter parser said.
        #[source]
        source: tracing_subscriber::filter::ParseError,
    },
    /// A global subscriber was already set: `init` runs once per process.
    #[error("could not install the logger (is one already set?)")]
    Install(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// Install the global tracing subscriber: text or JSON lines on stderr, filtered by
/// `--log-level` (which falls back to `RUST_LOG`, then `info`).
///
/// # Errors
///
/// [`Error::Filter`] when `--log-level` is not a filter; [`Error::Install`] when a global
/// subscriber is already set.
pub fn init(args: &ManagerArgs) -> Result<(), Error> {
    let filter = EnvFilter::try_new(&args.log_level).map_err(|source| Error::Filter {
        level: args.log_level.clone(),
        source,
    })?;
    // Colours only on a terminal: `kubectl logs` should not show escape codes.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let installed = match args.log_format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
    installed.map_err(Error::Install)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_filter_is_reported_with_the_value() {
        let args = ManagerArgs {
            log_level: "info,kube=loud".into(),
            ..ManagerArgs::default()
        };
        let err = init(&args).unwrap_err().to_string();
        assert!(
            err.contains("kube=loud") && err.contains("--log-level"),
            "{err}"
        );
    }
}
