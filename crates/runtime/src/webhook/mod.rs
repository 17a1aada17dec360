//! Admission (defaulting, validating) and conversion webhooks, served by the manager over
//! HTTPS on `--webhook-port` with the certificate in `--webhook-cert-path`.
//!
//! An operator registers its handlers by path, the path its webhook configuration or CRD
//! names, and hands them to [`Manager::add_webhooks`](crate::Manager::add_webhooks):
//!
//! ```no_run
//! # use kube::core::admission::{AdmissionRequest, AdmissionResponse};
//! # use kube::core::DynamicObject;
//! use rusty_sdk_runtime::webhook::Webhooks;
//!
//! async fn validate(request: AdmissionRequest<DynamicObject>) -> AdmissionResponse {
//!     AdmissionResponse::from(&request)
//! }
//!
//! let webhooks = Webhooks::new().admission("/validate-example-com-v1-widget", validate);
//! ```
//!
//! Every request answers with HTTP 200 and a review: a body that is not a review of the
//! expected kind is answered with a review that refuses it (code 400) and says why, as
//! controller-runtime does, so the API server reports the reason to the user.
mod ca_injection;
mod certs;
mod metrics;
pub mod self_signed;

use std::collections::BTreeSet;
use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures::future::BoxFuture;
use kube::Resource;
use kube::core::Status;
use kube::core::admission::{AdmissionRequest, AdmissionResponse, AdmissionReview};
use kube::core::conversion::{ConversionRequest, ConversionResponse, ConversionReview};
use serde::de::DeserializeOwned;

pub use certs::CertReloader;
pub use metrics::WebhookMetrics;

/// Request bodies above this size are refused before they are read whole: an object is at
/// most 1.5 MiB in etcd, and a review carries it twice (controller-runtime's limit too).
pub const MAX_REQUEST_BYTES: usize = 7 * 1024 * 1024;

/// What a handler gets (the request body) and gives (the review to answer with).
type Handler = Arc<dyn Fn(Bytes) -> BoxFuture<'static, serde_json::Value> + Send + Sync>;

/// A conversion handler of one kind.
type Converter = Arc<dyn Fn(ConversionRequest) -> ConversionResponse + Send + Sync>;

/// The conversion handlers sharing one path, with the group and kind each converts.
type KindConverters = Vec<(String, String, Converter)>;

/// The webhooks of an operator, by path.
#[derive(Clone, Default)]
pub struct Webhooks {
    routes: Vec<(String, Handler)>,
    /// Conversion paths shared by several kinds: (path, [(group, kind, converter)]).
    shared_conversions: Vec<(String, KindConverters)>,
}

/// A webhook registered where the server cannot serve it (see [`Webhooks::check`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistrationError {
    /// A path that is not absolute, or has a pattern in it: the webhook configuration
    /// names one exact path.
    #[error(
        "webhook path {0:?} is not a plain absolute path: use the path of the webhook configuration, e.g. \"/validate-example-com-v1-widget\""
    )]
    NotPlainPath(String),
    /// Two webhooks at one path.
    #[error("webhook path {0:?} is registered twice: give each webhook its own path")]
    PathTwice(String),
    /// One kind's conversion twice at a shared conversion path.
    #[error(
        "the conversion of {kind} ({group}) is registered twice at {path:?}: register each kind once"
    )]
    ConversionTwice {
        /// The shared path (`/convert`).
        path: String,
        /// The kind's API group.
        group: String,
        /// The kind.
        kind: String,
    },
}

impl std::fmt::Debug for Webhooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.paths()).finish()
    }
}

impl Webhooks {
    /// No webhooks yet.
    pub fn new() -> Self {
        Webhooks::default()
    }

    /// Serve a mutating or validating admission webhook for objects of type `K` at `path`.
    /// The handler answers with `AdmissionResponse::from(&request)` to allow, `.deny(..)`
    /// to refuse, `.with_patch(..)` to default fields.
    #[must_use]
    pub fn admission<K, F, Fut>(mut self, path: impl Into<String>, handler: F) -> Self
    where
        K: Resource + DeserializeOwned + Send + 'static,
        F: Fn(AdmissionRequest<K>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = AdmissionResponse> + Send + 'static,
    {
        let handler = Arc::new(handler);
        let route: Handler = Arc::new(move |body: Bytes| {
            let handler = handler.clone();
            Box::pin(async move {
                let response = match decode_admission::<K>(&body) {
                    Ok(request) => handler(request).await,
                    Err(reason) => refused_admission(&reason),
                };
                to_json(&response.into_review())
            })
        });
        self.routes.push((path.into(), route));
        self
    }

    /// Serve a conversion webhook at `path` (the path the CRD's `spec.conversion` names).
    /// The handler converts every object of the request to its desired version.
    #[must_use]
    pub fn conversion<F>(mut self, path: impl Into<String>, handler: F) -> Self
    where
        F: Fn(ConversionRequest) -> ConversionResponse + Send + Sync + 'static,
    {
        let handler = Arc::new(handler);
        let route: Handler = Arc::new(move |body: Bytes| {
            let response = match decode_conversion(&body) {
                Ok(request) => handler(request),
                Err(reason) => ConversionResponse::invalid(Status::failure(&reason, "BadRequest")),
            };
            let review = to_json(&response.into_review());
            Box::pin(std::future::ready(review))
        });
        self.routes.push((path.into(), route));
        self
    }

    /// Serve the conversion of the kind `kind` of API group `group` at `path`, a path
    /// several kinds may share (as kubebuilder's `/convert`): each request goes to the
    /// handler of its objects' group and kind.
    #[must_use]
    pub fn conversion_of<F>(mut self, group: &str, kind: &str, path: &str, handler: F) -> Self
    where
        F: Fn(ConversionRequest) -> ConversionResponse + Send + Sync + 'static,
    {
        let converter: Converter = Arc::new(handler);
        let entry = (group.to_string(), kind.to_string(), converter);
        match self.shared_conversions.iter_mut().find(|(p, _)| p == path) {
            Some((_, kinds)) => kinds.push(entry),
            None => self
                .shared_conversions
                .push((path.to_string(), vec![entry])),
        }
        self
    }

    /// Add every webhook of `other`.
    #[must_use]
    pub fn merge(mut self, other: Webhooks) -> Self {
        self.routes.extend(other.routes);
        for (path, kinds) in other.shared_conversions {
            match self.shared_conversions.iter_mut().find(|(p, _)| *p == path) {
                Some((_, mine)) => mine.extend(kinds),
                None => self.shared_conversions.push((path, kinds)),
            }
        }
        self
    }

    /// True when no webhook is registered (the manager then serves none).
    pub fn is_empty(&self) -> bool {
        self.routes.is_empty() && self.shared_conversions.is_empty()
    }

    /// The registered paths, in registration order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        let routes = self.routes.iter().map(|(path, _)| path.as_str());
        routes.chain(
            self.shared_conversions
                .iter()
                .map(|(path, _)| path.as_str()),
        )
    }

    /// Every path starts with `/` and is registered once.
    ///
    /// # Errors
    ///
    /// The [`RegistrationError`] of the first path (or converted kind) that breaks a rule;
    /// it names the path.
    pub fn check(&self) -> Result<(), RegistrationError> {
        let mut seen = BTreeSet::new();
        for path in self.paths() {
            if !path.starts_with('/') || path.contains(['{', '}', '*']) {
                return Err(RegistrationError::NotPlainPath(path.to_string()));
            }
            if !seen.insert(path) {
                return Err(RegistrationError::PathTwice(path.to_string()));
            }
        }
        for (path, kinds) in &self.shared_conversions {
            let mut kinds_seen = BTreeSet::new();
            for (group, kind, _) in kinds {
                if !kinds_seen.insert((group, kind)) {
                    return Err(RegistrationError::ConversionTwice {
                        path: path.clone(),
                        group: group.clone(),
                        kind: kind.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The HTTP routes: one POST route per webhook, instrumented with `metrics`.
    ///
    /// # Errors
    ///
    /// As [`Webhooks::check`].
    #[expect(
        clippy::needless_pass_by_value,
        reason = "each route keeps a clone; taken by value since 0.1"
    )]
    pub fn router(&self, metrics: WebhookMetrics) -> Result<Router, RegistrationError> {
        self.check()?;
        let mut router = Router::new();
        let shared = self
            .shared_conversions
            .iter()
            .map(|(path, kinds)| (path.clone(), dispatch_by_kind(kinds.clone())));
        for (path, handler) in self.routes.iter().cloned().chain(shared) {
            metrics.serve(&path);
            let state = Route {
                path: path.clone(),
                handler,
                metrics: metrics.clone(),
            };
            router = router.route(&path, post(serve).with_state(state));
        }
        Ok(router.layer(DefaultBodyLimit::max(MAX_REQUEST_BYTES)))
    }
}

/// TLS for the webhook server: the pair `certs` serves now, HTTP/2 only with `http2`.
///
/// # Errors
///
/// When rustls refuses the configuration (no protocol version in common with its provider).
pub fn server_config(
    certs: Arc<CertReloader>,
    http2: bool,
) -> anyhow::Result<Arc<rustls::ServerConfig>> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|error| anyhow::anyhow!("TLS: no default protocol version: {error}"))?
        .with_no_client_auth()
        .with_cert_resolver(certs);
    config.alpn_protocols = crate::tls::alpn_protocols(http2);
    Ok(Arc::new(config))
}

#[derive(Clone)]
struct Route {
    path: String,
    handler: Handler,
    metrics: WebhookMetrics,
}

async fn serve(State(route): State<Route>, headers: HeaderMap, body: Bytes) -> Response {
    let in_flight = route.metrics.start(&route.path);
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/json"));
    let response = if json {
        let review = (route.handler)(body).await;
        (
            [(header::CONTENT_TYPE, "application/json")],
            review.to_string(),
        )
            .into_response()
    } else {
        (
            StatusCode::BAD_REQUEST,
            "a webhook request must have Content-Type application/json",
        )
            .into_response()
    };
    in_flight.finish(response.status().as_u16());
    response
}

fn decode_admission<K>(body: &[u8]) -> Result<AdmissionRequest<K>, String>
where
    K: Resource + DeserializeOwned,
{
    let review: AdmissionReview<K> = serde_json::from_slice(body)
        .map_err(|error| format!("the body is not an AdmissionReview of this kind: {error}"))?;
    review
        .try_into()
        .map_err(|_| "the AdmissionReview has no request".to_string())
}

/// One conversion route for several kinds: the objects' group (from `apiVersion`) and
/// kind pick the handler; a request for a kind without one fails with the reason.
fn dispatch_by_kind(kinds: KindConverters) -> Handler {
    Arc::new(move |body: Bytes| {
        let response = match decode_conversion(&body) {
            Ok(request) => {
                let first = request.objects.first();
                let field = |name: &str| {
                    first
                        .and_then(|object| object.get(name))
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                };
                let api_version = field("apiVersion");
                let group = api_version.rsplit_once('/').map_or("", |(group, _)| group);
                let kind = field("kind");
                match kinds.iter().find(|(g, k, _)| g == group && *k == kind) {
                    Some((_, _, convert)) => convert(request),
                    None if first.is_none() => {
                        ConversionResponse::for_request(request).success(Vec::new())
                    }
                    None => ConversionResponse::for_request(request).failure(Status::failure(
                        &format!("no conversion of {kind} ({group}) is served here"),
                        "BadRequest",
                    )),
                }
            }
            Err(reason) => ConversionResponse::invalid(Status::failure(&reason, "BadRequest")),
        };
        let review = to_json(&response.into_review());
        Box::pin(std::future::ready(review))
    })
}

fn decode_conversion(body: &[u8]) -> Result<ConversionRequest, String> {
    let review: ConversionReview = serde_json::from_slice(body)
        .map_err(|error| format!("the body is not a ConversionReview: {error}"))?;
    ConversionRequest::from_review(review).map_err(|error| error.to_string())
}

/// The answer to a body that is no admission request: refused, with code 400.
fn refused_admission(reason: &str) -> AdmissionResponse {
    let mut response = AdmissionResponse::invalid(reason);
    response.result.code = 400;
    response
}

fn to_json(review: &impl serde::Serialize) -> serde_json::Value {
    // A review of kube's own types always serializes; fall back to an empty object rather
    // than panic in a server.
    serde_json::to_value(review).unwrap_or_default()
}

#[cfg(test)]
mod tests;
