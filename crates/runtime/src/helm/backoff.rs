//! Per-resource exponential backoff after failed reconciles (kube-runtime has none,
//! kube#1916): 1s, 2s, 4s, ... up to 5 minutes, reset by a successful reconcile.
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

const FIRST_RETRY: Duration = Duration::from_secs(1);
const MAX_RETRY: Duration = Duration::from_secs(300);

#[derive(Default)]
pub(crate) struct ErrorBackoff {
    failures: Mutex<HashMap<String, u32>>,
}

impl ErrorBackoff {
    /// Record a failure of `key` and return how long to wait before retrying.
    pub fn failed(&self, key: &str) -> Duration {
        let Ok(mut failures) = self.failures.lock() else {
            return MAX_RETRY;
        };
        let count = failures.entry(key.to_string()).or_insert(0);
        let delay = FIRST_RETRY
            .checked_mul(2_u32.saturating_pow(*count))
            .map_or(MAX_RETRY, |d| d.min(MAX_RETRY));
        *count = count.saturating_add(1);
        delay
    }

    /// Forget the failures of `key`.
    pub fn succeeded(&self, key: &str) {
        if let Ok(mut failures) = self.failures.lock() {
            failures.remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_up_to_the_cap_and_resets_on_success() {
        let backoff = ErrorBackoff::default();
        let delays: Vec<u64> = (0..12)
            .map(|_| backoff.failed("default/mc").as_secs())
            .collect();
        assert_eq!(delays, [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]);
        assert_eq!(backoff.failed("default/other"), Duration::from_secs(1));
        backoff.succeeded("default/mc");
        assert_eq!(backoff.failed("default/mc"), Duration::from_secs(1));
    }
}
