//! Webhook metrics with controller-runtime's names, so Go operators' dashboards and alerts
//! work unchanged.
use std::time::Instant;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct WebhookLabels {
    webhook: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    webhook: String,
    code: String,
}

fn latency_histogram() -> Histogram {
    // Prometheus' default buckets, which controller-runtime uses for webhook latency.
    Histogram::new([
        0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
    ])
}

/// `controller_runtime_webhook_requests_total{webhook,code}`,
/// `controller_runtime_webhook_latency_seconds{webhook}` and
/// `controller_runtime_webhook_requests_in_flight{webhook}`. The `webhook` label is the
/// path of a registered webhook only, so requests to other paths cannot grow the series.
#[derive(Clone, Debug)]
pub struct WebhookMetrics {
    requests: Family<RequestLabels, Counter>,
    latency: Family<WebhookLabels, Histogram, fn() -> Histogram>,
    in_flight: Family<WebhookLabels, Gauge>,
}

/// One request being served. Dropped, it leaves the in-flight gauge (also when the
/// client went away mid-request); [`InFlight::finish`] also records latency and code.
#[must_use]
pub struct InFlight<'a> {
    metrics: &'a WebhookMetrics,
    labels: WebhookLabels,
    start: Instant,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.metrics.in_flight.get_or_create(&self.labels).dec();
    }
}

impl WebhookMetrics {
    /// Create the metrics and register them in `registry`.
    pub fn new(registry: &mut Registry) -> Self {
        let metrics = WebhookMetrics {
            requests: Family::default(),
            latency: Family::new_with_constructor(latency_histogram),
            in_flight: Family::default(),
        };
        registry.register(
            "controller_runtime_webhook_requests",
            "Total number of admission requests by HTTP status code",
            metrics.requests.clone(),
        );
        registry.register(
            "controller_runtime_webhook_latency_seconds",
            "Histogram of the latency of processing admission requests",
            metrics.latency.clone(),
        );
        registry.register(
            "controller_runtime_webhook_requests_in_flight",
            "Current number of admission requests being served",
            metrics.in_flight.clone(),
        );
        metrics
    }

    /// Start the series of a webhook served at `webhook` at zero, as controller-runtime does
    /// (requests answered 200 and 500, in flight, latency), so dashboards and alerts see the
    /// webhook before its first request.
    pub fn serve(&self, webhook: &str) {
        let labels = WebhookLabels {
            webhook: webhook.to_string(),
        };
        for code in ["200", "500"] {
            self.requests
                .get_or_create(&RequestLabels {
                    webhook: webhook.to_string(),
                    code: code.to_string(),
                })
                .inc_by(0);
        }
        self.in_flight.get_or_create(&labels).inc_by(0);
        drop(self.latency.get_or_create(&labels));
    }

    /// Count a request to `webhook` as in flight until it is finished.
    pub fn start(&self, webhook: &str) -> InFlight<'_> {
        let labels = WebhookLabels {
            webhook: webhook.to_string(),
        };
        self.in_flight.get_or_create(&labels).inc();
        InFlight {
            metrics: self,
            labels,
            start: Instant::now(),
        }
    }
}

impl InFlight<'_> {
    /// Record the request's latency and the HTTP status code it was answered with.
    pub fn finish(self, code: u16) {
        let metrics = self.metrics;
        metrics
            .latency
            .get_or_create(&self.labels)
            .observe(self.start.elapsed().as_secs_f64());
        metrics
            .requests
            .get_or_create(&RequestLabels {
                webhook: self.labels.webhook.clone(),
                code: code.to_string(),
            })
            .inc();
    }
}
