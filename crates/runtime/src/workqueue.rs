//! controller-runtime's workqueue metrics (`workqueue_*`, labelled `name` and `controller`)
//! and its worker gauges, for controllers built on kube-runtime.
//!
//! kube-runtime's scheduler is private, so the queue is followed from the outside with the
//! rules of client-go's workqueue: a trigger for an object that is not already waiting is
//! an add; starting a reconcile takes the object off the queue (queue duration); finishing
//! it is the work duration; a reconcile that asks to come back after a delay (an error's
//! backoff or a requeue period) is a retry, and it is waiting again once the delay is over.
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct QueueLabels {
    name: String,
    controller: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DepthLabels {
    name: String,
    controller: String,
    priority: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ControllerLabels {
    controller: String,
}

fn duration_histogram() -> Histogram {
    // controller-runtime's buckets: 10 ns to 10^3 s, by factors of ten.
    Histogram::new(exponential_buckets(10e-9, 10.0, 12))
}

type Histograms = Family<QueueLabels, Histogram, fn() -> Histogram>;

/// The counters and histograms, shared by every controller of a manager.
#[derive(Clone)]
struct Families {
    adds: Family<QueueLabels, Counter>,
    retries: Family<QueueLabels, Counter>,
    queue_duration: Histograms,
    work_duration: Histograms,
}

/// Registers the metrics and hands out one [`WorkQueue`] per controller name.
pub(crate) struct WorkQueues {
    families: Families,
    queues: Arc<Mutex<BTreeMap<String, Arc<Mutex<QueueState>>>>>,
}

impl WorkQueues {
    pub fn new(registry: &mut Registry) -> Self {
        let families = Families {
            adds: Family::default(),
            retries: Family::default(),
            queue_duration: Family::new_with_constructor(duration_histogram),
            work_duration: Family::new_with_constructor(duration_histogram),
        };
        registry.register(
            "workqueue_adds",
            "Total number of adds handled by workqueue",
            families.adds.clone(),
        );
        registry.register(
            "workqueue_retries",
            "Total number of items added to the workqueue with a non-zero delay (rate-limited requeues, explicit RequeueAfter or AddAfter calls)",
            families.retries.clone(),
        );
        registry.register(
            "workqueue_queue_duration_seconds",
            "How long in seconds an item stays in workqueue before being requested",
            families.queue_duration.clone(),
        );
        registry.register(
            "workqueue_work_duration_seconds",
            // prometheus-client ends help with a period itself.
            "How long in seconds processing an item from workqueue takes",
            families.work_duration.clone(),
        );
        let queues = Arc::new(Mutex::new(BTreeMap::new()));
        registry.register_collector(Box::new(Gauges {
            queues: queues.clone(),
        }));
        WorkQueues { families, queues }
    }

    /// The queue of controller `name` (the same one for every call with that name, so the
    /// per-namespace controllers of one kind share it).
    pub fn queue(&self, name: &str, max_concurrent_reconciles: usize) -> WorkQueue {
        let mut queues = lock(&self.queues);
        let state = queues
            .entry(name.to_string())
            .or_insert_with(|| Arc::new(Mutex::new(QueueState::default())));
        lock(state).max_concurrent = max_concurrent_reconciles;
        let labels = QueueLabels {
            name: name.to_string(),
            controller: name.to_string(),
        };
        WorkQueue {
            adds: self.families.adds.get_or_create(&labels).clone(),
            retries: self.families.retries.get_or_create(&labels).clone(),
            queue_duration: self.families.queue_duration.get_or_create(&labels).clone(),
            work_duration: self.families.work_duration.get_or_create(&labels).clone(),
            state: state.clone(),
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // The state stays consistent between statements, so a panic elsewhere does not spoil it.
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// An object waiting for its reconcile: since when (or from when, after a delay), and
/// whether its add was counted (a delayed add counts once its delay is over).
#[derive(Clone, Copy, Debug)]
struct Waiting {
    ready_at: Instant,
    counted: bool,
}

#[derive(Debug, Default)]
struct QueueState {
    waiting: HashMap<String, Waiting>,
    processing: HashMap<String, Instant>,
    max_concurrent: usize,
}

/// One controller's queue, keyed by `namespace/name`.
#[derive(Clone)]
pub struct WorkQueue {
    adds: Counter,
    retries: Counter,
    queue_duration: Histogram,
    work_duration: Histogram,
    state: Arc<Mutex<QueueState>>,
}

impl WorkQueue {
    /// A trigger for `key`: an add unless the object is already waiting.
    pub fn add(&self, key: &str) {
        let now = Instant::now();
        let mut state = lock(&self.state);
        match state.waiting.get_mut(key) {
            Some(waiting) if waiting.ready_at <= now => {
                if !waiting.counted {
                    waiting.counted = true;
                    self.adds.inc();
                }
            }
            // Not waiting, or only after a delay: kube-runtime runs it now.
            _ => {
                state.waiting.insert(
                    key.to_string(),
                    Waiting {
                        ready_at: now,
                        counted: true,
                    },
                );
                self.adds.inc();
            }
        }
    }

    /// A reconcile of `key` starts.
    pub fn start(&self, key: &str) {
        let now = Instant::now();
        let mut state = lock(&self.state);
        let waited = if let Some(waiting) = state.waiting.remove(key) {
            if !waiting.counted {
                self.adds.inc();
            }
            now.saturating_duration_since(waiting.ready_at)
        } else {
            // A trigger this queue did not see (kube-runtime's own): an add taken at once.
            self.adds.inc();
            Duration::ZERO
        };
        self.queue_duration.observe(waited.as_secs_f64());
        state.processing.insert(key.to_string(), now);
    }

    /// The reconcile of `key` finished.
    pub fn finish(&self, key: &str) {
        let mut state = lock(&self.state);
        if let Some(started) = state.processing.remove(key) {
            self.work_duration.observe(started.elapsed().as_secs_f64());
        }
    }

    /// The finished reconcile of `key` comes back after `delay` (a requeue period, or the
    /// backoff after an error): a retry, waiting once the delay is over.
    pub fn requeue(&self, key: &str, delay: Duration) {
        if delay.is_zero() {
            return;
        }
        self.retries.inc();
        let ready_at = Instant::now() + delay;
        let mut state = lock(&self.state);
        let waiting = state.waiting.entry(key.to_string()).or_insert(Waiting {
            ready_at,
            counted: false,
        });
        // An add that came in meanwhile runs first; the delay only moves a later one.
        if waiting.ready_at > ready_at {
            waiting.ready_at = ready_at;
        }
    }

    /// The finished reconcile of `key` comes back after a delay this queue is not told
    /// (kube-runtime's `Action` keeps it private): a retry. Its return counts as an add
    /// once its reconcile starts.
    pub fn requeued(&self) {
        self.retries.inc();
    }

    /// The object is gone: kube-runtime drops what was queued for it.
    pub fn forget(&self, key: &str) {
        lock(&self.state).waiting.remove(key);
    }
}

/// Gauges read at scrape time, so stuck work keeps growing between events.
#[derive(Debug)]
struct Gauges {
    queues: Arc<Mutex<BTreeMap<String, Arc<Mutex<QueueState>>>>>,
}

struct Reading {
    depth: i64,
    unfinished: f64,
    longest: f64,
    active: i64,
    max_concurrent: i64,
}

impl QueueState {
    fn read(&self, now: Instant) -> Reading {
        let running = self
            .processing
            .values()
            .map(|started| now.saturating_duration_since(*started).as_secs_f64());
        Reading {
            depth: count(self.waiting.values().filter(|w| w.ready_at <= now).count()),
            // A fold from +0.0: `sum` of nothing is -0.0, which would print as "-0.0".
            unfinished: running.clone().fold(0.0, |total, seconds| total + seconds),
            longest: running.fold(0.0, f64::max),
            active: count(self.processing.len()),
            max_concurrent: count(self.max_concurrent),
        }
    }
}

fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl Collector for Gauges {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let now = Instant::now();
        let readings: Vec<(String, Reading)> = lock(&self.queues)
            .iter()
            .map(|(name, state)| (name.clone(), lock(state).read(now)))
            .collect();
        let queue = |name: &String| QueueLabels {
            name: name.clone(),
            controller: name.clone(),
        };
        gauge(
            &mut encoder,
            "workqueue_depth",
            "Current depth of workqueue by workqueue and priority",
            &readings,
            |name| DepthLabels {
                name: name.clone(),
                controller: name.clone(),
                priority: String::new(),
            },
            |r| ConstGauge::new(r.depth),
        )?;
        gauge(
            &mut encoder,
            "workqueue_unfinished_work_seconds",
            "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
            &readings,
            queue,
            |r| ConstGauge::new(r.unfinished),
        )?;
        gauge(
            &mut encoder,
            "workqueue_longest_running_processor_seconds",
            "How many seconds has the longest running processor for workqueue been running.",
            &readings,
            queue,
            |r| ConstGauge::new(r.longest),
        )?;
        let controller = |name: &String| ControllerLabels {
            controller: name.clone(),
        };
        gauge(
            &mut encoder,
            "controller_runtime_active_workers",
            "Number of currently used workers per controller",
            &readings,
            controller,
            |r| ConstGauge::new(r.active),
        )?;
        gauge(
            &mut encoder,
            "controller_runtime_max_concurrent_reconciles",
            "Maximum number of concurrent reconciles per controller",
            &readings,
            controller,
            |r| ConstGauge::new(r.max_concurrent),
        )
    }
}

/// One gauge family, one sample per controller.
fn gauge<L: EncodeLabelSet, M: EncodeMetric>(
    encoder: &mut DescriptorEncoder,
    metric: &str,
    help: &str,
    readings: &[(String, Reading)],
    labels: impl Fn(&String) -> L,
    value: impl Fn(&Reading) -> M,
) -> Result<(), std::fmt::Error> {
    if readings.is_empty() {
        return Ok(());
    }
    let mut family = encoder.encode_descriptor(metric, help, None, MetricType::Gauge)?;
    for (name, reading) in readings {
        let labels = labels(name);
        value(reading).encode(family.encode_family(&labels)?)?;
    }
    Ok(())
}

#[cfg(test)]
#[expect(
    clippy::float_cmp,
    reason = "the samples are counts and sums of exact durations"
)]
pub(crate) mod tests {
    use super::*;

    /// The registry's text exposition.
    pub(crate) fn scrape(registry: &Registry) -> String {
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, registry).unwrap();
        text
    }

    /// The value of the first sample whose line starts with `prefix`.
    pub(crate) fn sample(text: &str, prefix: &str) -> f64 {
        text.lines()
            .find_map(|line| line.strip_prefix(prefix))
            .and_then(|rest| rest.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {prefix} in\n{text}"))
    }

    const LABELS: &str = "{name=\"c\",controller=\"c\"}";

    #[test]
    fn follows_client_go_queue_rules() {
        let mut registry = Registry::default();
        let queues = WorkQueues::new(&mut registry);
        let queue = queues.queue("c", 4);
        // Two triggers for one waiting object are one add, as in client-go.
        queue.add("ns/a");
        queue.add("ns/a");
        queue.add("ns/b");
        let text = scrape(&registry);
        assert_eq!(sample(&text, &format!("workqueue_adds_total{LABELS}")), 2.0);
        assert_eq!(
            sample(
                &text,
                "workqueue_depth{name=\"c\",controller=\"c\",priority=\"\"}"
            ),
            2.0
        );
        assert_eq!(
            sample(
                &text,
                "controller_runtime_max_concurrent_reconciles{controller=\"c\"}"
            ),
            4.0
        );

        queue.start("ns/a");
        std::thread::sleep(Duration::from_millis(20));
        let text = scrape(&registry);
        assert_eq!(
            sample(
                &text,
                "workqueue_depth{name=\"c\",controller=\"c\",priority=\"\"}"
            ),
            1.0
        );
        assert_eq!(
            sample(&text, "controller_runtime_active_workers{controller=\"c\"}"),
            1.0
        );
        let longest = sample(
            &text,
            &format!("workqueue_longest_running_processor_seconds{LABELS}"),
        );
        assert!(longest >= 0.02, "longest running {longest}");
        // Re-added while it runs: waiting again, a new add.
        queue.add("ns/a");
        queue.finish("ns/a");
        let text = scrape(&registry);
        assert_eq!(sample(&text, &format!("workqueue_adds_total{LABELS}")), 3.0);
        assert_eq!(
            sample(
                &text,
                &format!("workqueue_work_duration_seconds_count{LABELS}")
            ),
            1.0
        );
        assert!(
            sample(
                &text,
                &format!("workqueue_work_duration_seconds_sum{LABELS}")
            ) >= 0.02
        );
        assert_eq!(
            sample(&text, "controller_runtime_active_workers{controller=\"c\"}"),
            0.0
        );
        assert_eq!(
            sample(&text, &format!("workqueue_unfinished_work_seconds{LABELS}")),
            0.0
        );
    }

    #[test]
    fn a_delayed_requeue_is_a_retry_and_waits_only_once_due() {
        let mut registry = Registry::default();
        let queues = WorkQueues::new(&mut registry);
        let queue = queues.queue("c", 1);
        queue.start("ns/a"); // a trigger the queue did not see is an add
        queue.finish("ns/a");
        queue.requeue("ns/a", Duration::from_millis(30));
        let depth = "workqueue_depth{name=\"c\",controller=\"c\",priority=\"\"}";
        let text = scrape(&registry);
        assert_eq!(
            sample(&text, &format!("workqueue_retries_total{LABELS}")),
            1.0
        );
        assert_eq!(sample(&text, depth), 0.0, "not waiting before its delay");
        assert_eq!(sample(&text, &format!("workqueue_adds_total{LABELS}")), 1.0);
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(sample(&scrape(&registry), depth), 1.0, "waiting once due");
        queue.start("ns/a");
        let text = scrape(&registry);
        assert_eq!(sample(&text, &format!("workqueue_adds_total{LABELS}")), 2.0);
        assert_eq!(
            sample(
                &text,
                &format!("workqueue_queue_duration_seconds_count{LABELS}")
            ),
            2.0
        );
        // No delay (await change) is no retry; a deleted object stops waiting.
        queue.finish("ns/a");
        queue.add("ns/b");
        queue.forget("ns/b");
        let text = scrape(&registry);
        assert_eq!(
            sample(&text, &format!("workqueue_retries_total{LABELS}")),
            1.0
        );
        assert_eq!(sample(&text, depth), 0.0);
    }

    #[test]
    fn controllers_of_one_name_share_a_queue() {
        let mut registry = Registry::default();
        let queues = WorkQueues::new(&mut registry);
        queues.queue("c", 2).add("a/x");
        queues.queue("c", 2).add("b/x");
        queues.queue("d", 2).add("a/x");
        let text = scrape(&registry);
        assert_eq!(sample(&text, &format!("workqueue_adds_total{LABELS}")), 2.0);
        assert_eq!(
            sample(&text, "workqueue_adds_total{name=\"d\",controller=\"d\"}"),
            1.0
        );
    }
}
