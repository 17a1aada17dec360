//! SIGTERM (what Kubernetes sends) and SIGINT (Ctrl-C) as one stream of stop requests.
use crate::manager::RunError;

pub struct StopSignals {
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
}

impl StopSignals {
    /// Install the handlers; signals arriving from now on are caught.
    pub fn install() -> Result<Self, RunError> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let handle = |kind: SignalKind, signal_name| {
                signal(kind).map_err(|source| RunError::Signal {
                    signal: signal_name,
                    source,
                })
            };
            Ok(StopSignals {
                terminate: handle(SignalKind::terminate(), "SIGTERM")?,
                interrupt: handle(SignalKind::interrupt(), "SIGINT")?,
            })
        }
        #[cfg(not(unix))]
        Ok(StopSignals {})
    }

    /// Resolves with the signal's name when the next stop signal arrives.
    pub async fn next(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.terminate.recv() => "SIGTERM",
                _ = self.interrupt.recv() => "SIGINT",
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            "Ctrl-C"
        }
    }
}
