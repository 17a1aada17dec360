//! The `/metrics` endpoint: Prometheus text from the manager's registry, over HTTPS with
//! token authn/authz (kubebuilder v4's secure metrics) or over plain HTTP.
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use prometheus_client::registry::Registry;

use crate::auth::{AuthDecision, MetricsAuthorizer, bearer_token};

const METRICS_PATH: &str = "/metrics";
const OPENMETRICS_TEXT: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Clone)]
struct MetricsState {
    registry: Arc<Registry>,
    authorizer: Option<Arc<dyn MetricsAuthorizer>>,
}

/// The `/metrics` route; with an authorizer every request needs a bearer token that
/// may `get /metrics`.
pub fn router(registry: Arc<Registry>, authorizer: Option<Arc<dyn MetricsAuthorizer>>) -> Router {
    Router::new()
        .route(METRICS_PATH, get(metrics_handler))
        .with_state(MetricsState {
            registry,
            authorizer,
        })
}

async fn metrics_handler(State(state): State<MetricsState>, headers: HeaderMap) -> Response {
    if let Some(authorizer) = &state.authorizer
        && let Some(refusal) = check_access(authorizer.as_ref(), &headers).await
    {
        return refusal;
    }
    let mut body = String::new();
    if let Err(err) = prometheus_client::encoding::text::encode(&mut body, &state.registry) {
        tracing::error!(error = %err, "could not encode metrics");
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            "could not encode metrics",
        )
            .into_response();
    }
    ([(CONTENT_TYPE, OPENMETRICS_TEXT)], body).into_response()
}

/// None when the caller may read metrics, else the error response.
async fn check_access(authorizer: &dyn MetricsAuthorizer, headers: &HeaderMap) -> Option<Response> {
    let header = headers
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok());
    let Some(token) = bearer_token(header) else {
        return Some((StatusCode::UNAUTHORIZED, "Unauthorized").into_response());
    };
    match authorizer.authorize(token, METRICS_PATH).await {
        AuthDecision::Allowed => None,
        AuthDecision::Unauthenticated => {
            Some((StatusCode::UNAUTHORIZED, "Unauthorized").into_response())
        }
        AuthDecision::Forbidden { user } => Some(
            (
                StatusCode::FORBIDDEN,
                format!("Authorization denied for user {user}"),
            )
                .into_response(),
        ),
        AuthDecision::Failed(reason) => {
            tracing::error!(%reason, "metrics authorization failed");
            Some((StatusCode::INTERNAL_SERVER_ERROR, "Authorization failed").into_response())
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::body::{Body, to_bytes};
    use axum::http::Request;
    use futures::future::BoxFuture;
    use tower::ServiceExt;

    use super::*;
    use crate::ReconcileMetrics;

    /// Tokens: "reader" may read, "viewer" is authenticated but not allowed,
    /// "broken" makes the check fail, anything else is unknown.
    struct FakeAuthorizer;

    impl MetricsAuthorizer for FakeAuthorizer {
        fn authorize<'a>(&'a self, token: &'a str, path: &'a str) -> BoxFuture<'a, AuthDecision> {
            assert_eq!(path, "/metrics");
            Box::pin(async move {
                match token {
                    "reader" => AuthDecision::Allowed,
                    "viewer" => AuthDecision::Forbidden {
                        user: "system:serviceaccount:default:viewer".into(),
                    },
                    "broken" => AuthDecision::Failed("apiserver down".into()),
                    _ => AuthDecision::Unauthenticated,
                }
            })
        }
    }

    fn recorded_registry() -> Arc<Registry> {
        let mut registry = Registry::default();
        let metrics = ReconcileMetrics::new(&mut registry);
        metrics.record("memcached", true, 0.02);
        metrics.record("memcached", true, 0.3);
        metrics.record("memcached", false, 1.2);
        Arc::new(registry)
    }

    async fn scrape(router: Router, authorization: Option<&str>) -> (StatusCode, String) {
        let mut request = Request::get("/metrics");
        if let Some(value) = authorization {
            request = request.header(AUTHORIZATION, value);
        }
        let response = router
            .oneshot(request.body(Body::empty()).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let body = to_bytes(response.into_body(), 1 << 20).await.unwrap();
        (status, String::from_utf8(body.to_vec()).unwrap())
    }

    #[tokio::test]
    async fn body_has_controller_runtime_names_and_labels() {
        let (status, body) = scrape(router(recorded_registry(), None), None).await;
        assert_eq!(status, StatusCode::OK);
        for line in [
            "# TYPE controller_runtime_reconcile counter",
            r#"controller_runtime_reconcile_total{controller="memcached",result="success"} 2"#,
            r#"controller_runtime_reconcile_total{controller="memcached",result="error"} 1"#,
            r#"controller_runtime_reconcile_errors_total{controller="memcached"} 1"#,
            "# TYPE controller_runtime_reconcile_time_seconds histogram",
            r#"controller_runtime_reconcile_time_seconds_count{controller="memcached"} 3"#,
            r#"controller_runtime_reconcile_time_seconds_bucket{le="0.025",controller="memcached"} 1"#,
            r#"controller_runtime_reconcile_time_seconds_bucket{le="+Inf",controller="memcached"} 3"#,
            "# EOF",
        ] {
            assert!(
                body.lines().any(|l| l == line),
                "missing {line:?} in:\n{body}"
            );
        }
    }

    #[tokio::test]
    async fn response_is_openmetrics_text() {
        let response = router(recorded_registry(), None)
            .oneshot(Request::get("/metrics").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(response.headers()[CONTENT_TYPE], OPENMETRICS_TEXT);
    }

    #[tokio::test]
    async fn secure_metrics_need_an_allowed_token() {
        let secured = || router(recorded_registry(), Some(Arc::new(FakeAuthorizer)));
        assert_eq!(scrape(secured(), None).await.0, StatusCode::UNAUTHORIZED);
        assert_eq!(
            scrape(secured(), Some("Basic cmVhZGVy")).await.0,
            StatusCode::UNAUTHORIZED
        );
        assert_eq!(
            scrape(secured(), Some("Bearer stranger")).await.0,
            StatusCode::UNAUTHORIZED
        );
        let (status, body) = scrape(secured(), Some("Bearer viewer")).await;
        assert_eq!(status, StatusCode::FORBIDDEN);
        assert!(
            body.contains("system:serviceaccount:default:viewer"),
            "{body}"
        );
        assert_eq!(
            scrape(secured(), Some("Bearer broken")).await.0,
            StatusCode::INTERNAL_SERVER_ERROR
        );
        let (status, body) = scrape(secured(), Some("Bearer reader")).await;
        assert_eq!(status, StatusCode::OK);
        assert!(
            body.contains("controller_runtime_reconcile_total"),
            "{body}"
        );
    }
}
