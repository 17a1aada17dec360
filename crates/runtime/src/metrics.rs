//! Reconcile metrics with controller-runtime's names, so dashboards built for Go
//! operators work unchanged.
use std::future::Future;
use std::time::Instant;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::workqueue::{WorkQueue, WorkQueues};

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabels {
    controller: String,
    result: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ControllerLabels {
    controller: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReleaseLabels {
    controller: String,
    operation: String,
    result: String,
}

fn reconcile_time_histogram() -> Histogram {
    // controller-runtime's buckets for reconcile_time_seconds.
    Histogram::new([
        0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8,
        0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0,
        15.0, 20.0, 25.0, 30.0, 40.0, 50.0, 60.0,
    ])
}

/// `controller_runtime_reconcile_total{controller,result}`,
/// `controller_runtime_reconcile_errors_total{controller}` and
/// `controller_runtime_reconcile_time_seconds{controller}`.
///
/// Also registers controller-runtime's `workqueue_*` metrics and worker gauges, fed by the
/// controllers that follow their queue with [`ReconcileMetrics::queue`], and
/// `helm_release_operations_total{controller,operation,result}`: the installs, upgrades,
/// rollbacks and uninstalls of the Helm controllers (controller-runtime has no such metric).
pub struct ReconcileMetrics {
    total: Family<ResultLabels, Counter>,
    errors: Family<ControllerLabels, Counter>,
    time: Family<ControllerLabels, Histogram, fn() -> Histogram>,
    queues: WorkQueues,
    releases: Family<ReleaseLabels, Counter>,
}

impl ReconcileMetrics {
    /// Create the metrics and register them in `registry`.
    pub fn new(registry: &mut Registry) -> Self {
        let metrics = ReconcileMetrics {
            total: Family::default(),
            errors: Family::default(),
            time: Family::new_with_constructor(reconcile_time_histogram),
            queues: WorkQueues::new(registry),
            releases: Family::default(),
        };
        registry.register(
            "controller_runtime_reconcile",
            "Total number of reconciliations per controller",
            metrics.total.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_errors",
            "Total number of reconciliation errors per controller",
            metrics.errors.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_time_seconds",
            "Length of time per reconciliation per controller",
            metrics.time.clone(),
        );
        registry.register(
            "helm_release_operations",
            "Total number of Helm release operations (install, upgrade, rollback, uninstall) per controller and result",
            metrics.releases.clone(),
        );
        metrics
    }

    /// The release operations of Helm controller `controller`, each operation and result
    /// starting at zero.
    pub(crate) fn release_operations(&self, controller: &str) -> ReleaseOperations {
        let operations = ReleaseOperations {
            controller: controller.to_string(),
            family: self.releases.clone(),
        };
        for operation in ["install", "upgrade", "rollback", "uninstall"] {
            for result in ["success", "error"] {
                operations
                    .family
                    .get_or_create(&operations.labels(operation, result))
                    .inc_by(0);
            }
        }
        operations
    }

    /// The work queue of controller `name`, for its `workqueue_*` metrics. Every controller
    /// asks for its queue when it starts: its reconcile counters start at zero there, for
    /// each result and for errors, as controller-runtime starts them, so a dashboard's
    /// `rate()` has a series before the first reconcile (or the first error).
    pub fn queue(&self, name: &str, max_concurrent_reconciles: usize) -> WorkQueue {
        for result in ["success", "error", "requeue", "requeue_after"] {
            self.total
                .get_or_create(&ResultLabels {
                    controller: name.to_string(),
                    result: result.to_string(),
                })
                .inc_by(0);
        }
        self.errors
            .get_or_create(&ControllerLabels {
                controller: name.to_string(),
            })
            .inc_by(0);
        self.queues.queue(name, max_concurrent_reconciles)
    }

    /// Record one finished reconcile.
    pub fn record(&self, controller: &str, succeeded: bool, seconds: f64) {
        let result = if succeeded { "success" } else { "error" };
        self.record_result(controller, result, seconds);
    }

    /// Run one reconcile that returns a kube `Action` and record it with controller-runtime's
    /// result labels: `requeue_after` when it asks to come back after a delay, `requeue`
    /// when at once (`Action::requeue(Duration::ZERO)`), `success` when it waits for
    /// changes, `error` on failure.
    ///
    /// # Errors
    ///
    /// `reconcile`'s own error, recorded and passed on.
    pub async fn instrument_action<E, F>(
        &self,
        controller: &str,
        reconcile: F,
    ) -> Result<kube::runtime::controller::Action, E>
    where
        F: Future<Output = Result<kube::runtime::controller::Action, E>>,
    {
        let start = Instant::now();
        let outcome = reconcile.await;
        let result = match &outcome {
            Err(_) => "error",
            Ok(action) => result_label(action),
        };
        self.record_result(controller, result, start.elapsed().as_secs_f64());
        outcome
    }

    fn record_result(&self, controller: &str, result: &str, seconds: f64) {
        let succeeded = result != "error";
        self.total
            .get_or_create(&ResultLabels {
                controller: controller.to_string(),
                result: result.to_string(),
            })
            .inc();
        let labels = ControllerLabels {
            controller: controller.to_string(),
        };
        if !succeeded {
            self.errors.get_or_create(&labels).inc();
        }
        self.time.get_or_create(&labels).observe(seconds);
    }

    /// Run one reconcile and record its outcome and duration, as `success` or `error`.
    ///
    /// # Errors
    ///
    /// `reconcile`'s own error, recorded and passed on.
    #[deprecated(
        since = "0.1.0",
        note = "labels every requeue `success`: run the controller with `controller::Runner`, or instrument a reconcile returning an `Action` with `instrument_action`"
    )]
    pub async fn instrument<T, E, F>(&self, controller: &str, reconcile: F) -> Result<T, E>
    where
        F: Future<Output = Result<T, E>>,
    {
        let start = Instant::now();
        let outcome = reconcile.await;
        self.record(controller, outcome.is_ok(), start.elapsed().as_secs_f64());
        outcome
    }
}

/// Counts one Helm controller's release operations; see [`ReconcileMetrics`].
#[derive(Clone)]
pub(crate) struct ReleaseOperations {
    controller: String,
    family: Family<ReleaseLabels, Counter>,
}

impl ReleaseOperations {
    /// Count one `operation` (`install`, `upgrade`, `rollback`, `uninstall`) that ended.
    pub(crate) fn record(&self, operation: &str, succeeded: bool) {
        let result = if succeeded { "success" } else { "error" };
        self.family
            .get_or_create(&self.labels(operation, result))
            .inc();
    }

    fn labels(&self, operation: &str, result: &str) -> ReleaseLabels {
        ReleaseLabels {
            controller: self.controller.clone(),
            operation: operation.to_string(),
            result: result.to_string(),
        }
    }
}

/// controller-runtime's `result` label of a successful reconcile.
fn result_label(action: &kube::runtime::controller::Action) -> &'static str {
    use kube::runtime::controller::Action;
    if *action == Action::await_change() {
        "success"
    } else if *action == Action::requeue(std::time::Duration::ZERO) {
        "requeue"
    } else {
        "requeue_after"
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use kube::runtime::controller::Action;

    use super::*;

    #[tokio::test]
    async fn actions_get_controller_runtime_result_labels() {
        let mut registry = Registry::default();
        let metrics = ReconcileMetrics::new(&mut registry);
        let requeue = async { Ok::<_, ()>(Action::requeue(Duration::from_secs(60))) };
        metrics.instrument_action("c", requeue).await.unwrap();
        metrics
            .instrument_action("c", async { Ok::<_, ()>(Action::await_change()) })
            .await
            .unwrap();
        let _ = metrics
            .instrument_action("c", async { Err::<Action, _>(()) })
            .await;
        let now = async { Ok::<_, ()>(Action::requeue(Duration::ZERO)) };
        metrics.instrument_action("c", now).await.unwrap();
        let _queue = metrics.queue("started", 1);
        let releases = metrics.release_operations("c");
        releases.record("install", true);
        releases.record("upgrade", false);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        for line in [
            "helm_release_operations_total{controller=\"c\",operation=\"install\",result=\"success\"} 1",
            "helm_release_operations_total{controller=\"c\",operation=\"upgrade\",result=\"error\"} 1",
            "controller_runtime_reconcile_total{controller=\"c\",result=\"requeue_after\"} 1",
            "controller_runtime_reconcile_total{controller=\"c\",result=\"success\"} 1",
            "controller_runtime_reconcile_total{controller=\"c\",result=\"error\"} 1",
            "controller_runtime_reconcile_total{controller=\"c\",result=\"requeue\"} 1",
            "controller_runtime_reconcile_errors_total{controller=\"c\"} 1",
            // A controller that has started but not reconciled yet.
            "controller_runtime_reconcile_total{controller=\"started\",result=\"error\"} 0",
            "controller_runtime_reconcile_errors_total{controller=\"started\"} 0",
            "helm_release_operations_total{controller=\"c\",operation=\"rollback\",result=\"error\"} 0",
        ] {
            assert!(text.contains(line), "{line} missing in\n{text}");
        }
    }
}
