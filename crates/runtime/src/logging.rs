//! Process-wide tracing subscriber configured from the manager's flags.
use std::io::IsTerminal as _;

use anyhow::Context as _;
use tracing_subscriber::EnvFilter;

use crate::args::{LogFormat, ManagerArgs};

/// Install the global tracing subscriber: text or JSON lines on stderr, filtered by
/// `--log-level` (which falls back to `RUST_LOG`, then `info`).
pub fn init(args: &ManagerArgs) -> anyhow::Result<()> {
    let filter = EnvFilter::try_new(&args.log_level).with_context(|| {
        format!(
            "--log-level={:?} is not a valid filter: use a level such as `info` or directives such as `info,kube=debug`",
            args.log_level
        )
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
    installed
        .map_err(|err| anyhow::anyhow!("could not install the logger (is one already set?): {err}"))
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
