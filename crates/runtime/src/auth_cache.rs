//! Caches metrics authorization decisions so each scrape does not cost a `TokenReview` and
//! a `SubjectAccessReview` (controller-runtime caches them too).
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;

use crate::auth::{AuthDecision, MetricsAuthorizer};

/// How long an allowed token stays allowed, and a refused one refused.
const ALLOWED_TTL: Duration = Duration::from_secs(60);
const REFUSED_TTL: Duration = Duration::from_secs(10);
/// Bound on remembered tokens; expired entries are dropped first.
const MAX_ENTRIES: usize = 256;

type Key = (String, String);

/// Wraps an authorizer; failures (API errors) are never cached.
pub struct CachingAuthorizer<A> {
    inner: A,
    decisions: Mutex<HashMap<Key, (AuthDecision, Instant)>>,
}

impl<A: MetricsAuthorizer> CachingAuthorizer<A> {
    pub fn new(inner: A) -> Self {
        CachingAuthorizer {
            inner,
            decisions: Mutex::new(HashMap::new()),
        }
    }

    fn cached(&self, key: &Key) -> Option<AuthDecision> {
        let decisions = self.decisions.lock().ok()?;
        let (decision, expires) = decisions.get(key)?;
        (Instant::now() < *expires).then(|| decision.clone())
    }

    fn remember(&self, key: Key, decision: &AuthDecision) {
        let ttl = match decision {
            AuthDecision::Allowed => ALLOWED_TTL,
            AuthDecision::Unauthenticated | AuthDecision::Forbidden { .. } => REFUSED_TTL,
            AuthDecision::Failed(_) => return,
        };
        let Ok(mut decisions) = self.decisions.lock() else {
            return;
        };
        let now = Instant::now();
        if decisions.len() >= MAX_ENTRIES {
            decisions.retain(|_, (_, expires)| *expires > now);
            if decisions.len() >= MAX_ENTRIES {
                decisions.clear();
            }
        }
        decisions.insert(key, (decision.clone(), now + ttl));
    }
}

impl<A: MetricsAuthorizer> MetricsAuthorizer for CachingAuthorizer<A> {
    fn authorize<'a>(&'a self, token: &'a str, path: &'a str) -> BoxFuture<'a, AuthDecision> {
        Box::pin(async move {
            let key = (token.to_string(), path.to_string());
            if let Some(decision) = self.cached(&key) {
                return decision;
            }
            let decision = self.inner.authorize(token, path).await;
            self.remember(key, &decision);
            decision
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Allows "reader", fails "broken", and counts the calls that reach it.
    #[derive(Default)]
    struct CountingAuthorizer(AtomicUsize);

    impl MetricsAuthorizer for CountingAuthorizer {
        fn authorize<'a>(&'a self, token: &'a str, _: &'a str) -> BoxFuture<'a, AuthDecision> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Box::pin(async move {
                match token {
                    "reader" => AuthDecision::Allowed,
                    "broken" => AuthDecision::Failed("apiserver down".into()),
                    _ => AuthDecision::Unauthenticated,
                }
            })
        }
    }

    #[tokio::test]
    async fn repeated_scrapes_reuse_the_decision() {
        let cache = CachingAuthorizer::new(CountingAuthorizer::default());
        for _ in 0..3 {
            assert_eq!(
                cache.authorize("reader", "/metrics").await,
                AuthDecision::Allowed
            );
            assert_eq!(
                cache.authorize("stranger", "/metrics").await,
                AuthDecision::Unauthenticated
            );
        }
        assert_eq!(cache.inner.0.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn failures_are_asked_again() {
        let cache = CachingAuthorizer::new(CountingAuthorizer::default());
        for _ in 0..2 {
            assert!(matches!(
                cache.authorize("broken", "/metrics").await,
                AuthDecision::Failed(_)
            ));
        }
        assert_eq!(cache.inner.0.load(Ordering::SeqCst), 2);
    }
}
