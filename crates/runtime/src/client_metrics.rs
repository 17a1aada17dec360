//! Metrics of the requests the manager's client sends to the API server, with client-go's
//! names as controller-runtime registers them: `rest_client_requests_total{code,method,host}`
//! and `rest_client_request_duration_seconds{verb,host}` (client-go's latency histogram and
//! buckets; controller-runtime stopped re-exporting it, Kubernetes' own components still
//! expose it).
//!
//! [`ClientMetricsLayer`] is a tower layer on the kube client's service stack
//! (`kube::client::ClientBuilder::with_layer`), so every request is counted, watches
//! included (a watch's duration is its time to the response headers, as in client-go). A
//! request that got no response (connection refused, timeout) counts with the code
//! `<error>`, as client-go counts it.
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use http::{Request, Response};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use tower_layer::Layer;
use tower_service::Service;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    code: String,
    method: String,
    host: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LatencyLabels {
    verb: String,
    host: String,
}

fn latency_histogram() -> Histogram {
    // client-go's buckets for rest_client_request_duration_seconds.
    Histogram::new([
        0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0,
    ])
}

/// Counts and times the requests of a kube client; see the module docs.
#[derive(Clone)]
pub struct ClientMetricsLayer {
    host: String,
    requests: Family<RequestLabels, Counter>,
    latency: Family<LatencyLabels, Histogram, fn() -> Histogram>,
}

impl ClientMetricsLayer {
    /// The layer for a client of the API server at `host` (`host:port` of its URL, the
    /// `host` label), with its metrics registered in `registry`.
    pub fn new(registry: &mut Registry, host: impl Into<String>) -> Self {
        let layer = ClientMetricsLayer {
            host: host.into(),
            requests: Family::default(),
            latency: Family::new_with_constructor(latency_histogram),
        };
        registry.register(
            "rest_client_requests",
            "Number of HTTP requests, partitioned by status code, method, and host",
            layer.requests.clone(),
        );
        registry.register(
            "rest_client_request_duration_seconds",
            "Request latency in seconds. Broken down by verb, and host",
            layer.latency.clone(),
        );
        layer
    }

    fn record(&self, method: &str, code: String, seconds: f64) {
        self.requests
            .get_or_create(&RequestLabels {
                code,
                method: method.to_string(),
                host: self.host.clone(),
            })
            .inc();
        self.latency
            .get_or_create(&LatencyLabels {
                verb: method.to_string(),
                host: self.host.clone(),
            })
            .observe(seconds);
    }
}

impl<S> Layer<S> for ClientMetricsLayer {
    type Service = ClientMetrics<S>;

    fn layer(&self, inner: S) -> ClientMetrics<S> {
        ClientMetrics {
            inner,
            metrics: self.clone(),
        }
    }
}

/// The service [`ClientMetricsLayer`] wraps a client's stack in.
#[derive(Clone)]
pub struct ClientMetrics<S> {
    inner: S,
    metrics: ClientMetricsLayer,
}

impl<S, ReqBody, ResBody> Service<Request<ReqBody>> for ClientMetrics<S>
where
    S: Service<Request<ReqBody>, Response = Response<ResBody>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<ReqBody>) -> Self::Future {
        let method = request.method().as_str().to_string();
        let metrics = self.metrics.clone();
        let start = Instant::now();
        let response = self.inner.call(request);
        Box::pin(async move {
            let outcome = response.await;
            let code = match &outcome {
                Ok(response) => response.status().as_u16().to_string(),
                Err(_) => "<error>".to_string(),
            };
            metrics.record(&method, code, start.elapsed().as_secs_f64());
            outcome
        })
    }
}

/// The `host` label of a client of `url`: its `host:port`, as client-go's `url.Host`.
pub fn host_label(url: &http::Uri) -> String {
    url.authority()
        .map(|authority| authority.as_str().to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::Api;
    use kube::client::{Body, ClientBuilder};

    use super::*;
    use crate::workqueue::tests::scrape;

    #[tokio::test]
    async fn counts_requests_by_code_method_and_host() {
        let mut registry = Registry::default();
        let layer = ClientMetricsLayer::new(&mut registry, "10.0.0.1:6443");
        let (service, mut handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
        let client = ClientBuilder::new(service, "default")
            .with_layer(&layer)
            .build();
        let server = tokio::spawn(async move {
            let mut answers = vec![
                (200, r#"{"metadata":{"name":"a"}}"#),
                (
                    404,
                    r#"{"kind":"Status","code":404,"reason":"NotFound","message":"not found"}"#,
                ),
                (200, r#"{"metadata":{"name":"a"}}"#),
            ]
            .into_iter();
            while let Some((_, send)) = handle.next_request().await {
                let (status, body) = answers.next().unwrap();
                let response = Response::builder()
                    .status(status)
                    .body(Body::from(body.as_bytes().to_vec()))
                    .unwrap();
                send.send_response(response);
            }
        });
        let api: Api<ConfigMap> = Api::default_namespaced(client);
        api.get("a").await.unwrap();
        assert!(api.get("b").await.is_err());
        api.get("a").await.unwrap();
        drop(api);
        server.await.unwrap();
        let text = scrape(&registry);
        for line in [
            "rest_client_requests_total{code=\"200\",method=\"GET\",host=\"10.0.0.1:6443\"} 2",
            "rest_client_requests_total{code=\"404\",method=\"GET\",host=\"10.0.0.1:6443\"} 1",
            "rest_client_request_duration_seconds_count{verb=\"GET\",host=\"10.0.0.1:6443\"} 3",
        ] {
            assert!(text.contains(line), "{line} missing in\n{text}");
        }
    }

    #[tokio::test]
    async fn a_request_without_a_response_is_an_error() {
        let mut registry = Registry::default();
        let layer = ClientMetricsLayer::new(&mut registry, "h:1");
        let (service, mut handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
        let client = ClientBuilder::new(service, "default")
            .with_layer(&layer)
            .build();
        let server = tokio::spawn(async move {
            let (_, send) = handle.next_request().await.unwrap();
            send.send_error(std::io::Error::other("connection refused"));
        });
        let api: Api<ConfigMap> = Api::default_namespaced(client);
        assert!(api.get("a").await.is_err());
        server.await.unwrap();
        let text = scrape(&registry);
        let line = "rest_client_requests_total{code=\"<error>\",method=\"GET\",host=\"h:1\"} 1";
        assert!(text.contains(line), "{line} missing in\n{text}");
    }

    #[test]
    fn the_host_label_is_host_and_port() {
        let url: http::Uri = "https://10.96.0.1:443/".parse().unwrap();
        assert_eq!(host_label(&url), "10.96.0.1:443");
    }
}
