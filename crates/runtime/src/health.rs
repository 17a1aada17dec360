//! Liveness and readiness probes: `/healthz` answers as soon as the process serves,
//! `/readyz` only once the manager is ready (see [`Readiness`]).
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;

/// Whether the manager is ready to serve. The manager marks itself ready once its
/// controllers run, or while it stands by for the leader lease (a standby replica is
/// healthy; keeping it unready would stall rolling updates, as in controller-runtime).
#[derive(Clone, Debug, Default)]
pub struct Readiness(Arc<AtomicBool>);

impl Readiness {
    /// Mark the manager ready or not ready.
    pub fn set(&self, ready: bool) {
        self.0.store(ready, Ordering::Release);
    }

    /// True once marked ready.
    pub fn is_ready(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// The probe routes.
pub fn router(readiness: Readiness) -> Router {
    Router::new()
        .route("/healthz", get(healthz_handler))
        .route("/readyz", get(readyz_handler))
        .with_state(readiness)
}

async fn healthz_handler() -> &'static str {
    "ok"
}

async fn readyz_handler(State(readiness): State<Readiness>) -> (StatusCode, &'static str) {
    if readiness.is_ready() {
        (StatusCode::OK, "ok")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "controllers not started")
    }
}

#[cfg(test)]
mod tests {
    use axum::body::{Body, to_bytes};
    use axum::http::Request;
    use tower::ServiceExt;

    use super::*;

    async fn get_status(router: Router, path: &str) -> (StatusCode, String) {
        let request = Request::get(path).body(Body::empty()).unwrap();
        let response = router.oneshot(request).await.unwrap();
        let status = response.status();
        let body = to_bytes(response.into_body(), 1024).await.unwrap();
        (status, String::from_utf8(body.to_vec()).unwrap())
    }

    #[tokio::test]
    async fn healthz_is_ok_before_the_manager_is_ready() {
        let readiness = Readiness::default();
        assert_eq!(
            get_status(router(readiness), "/healthz").await,
            (StatusCode::OK, "ok".into())
        );
    }

    #[tokio::test]
    async fn readyz_turns_ok_once_ready() {
        let readiness = Readiness::default();
        let (status, body) = get_status(router(readiness.clone()), "/readyz").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(body, "controllers not started");

        readiness.set(true);
        assert_eq!(
            get_status(router(readiness.clone()), "/readyz").await,
            (StatusCode::OK, "ok".into())
        );

        readiness.set(false);
        let (status, _) = get_status(router(readiness), "/readyz").await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    }

    #[tokio::test]
    async fn unknown_paths_are_not_found() {
        let (status, _) = get_status(router(Readiness::default()), "/metrics").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
    }
}
