//! What every Rust controller of an operator needs around its reconcile function, so that a
//! generated controller holds little more than its own logic.
//!
//! [`Runner`] builds a kube-runtime [`Controller`] and runs it the way the manager runs
//! controllers:
//!
//! - **error backoff** per object ([`Backoff`]: 5 s, 10 s, 20 s, ... up to 5 minutes, reset
//!   by a reconcile that succeeds), as controller-runtime's rate limiter retries; kube-runtime
//!   leaves that to each `error_policy`;
//! - **a bound on concurrent reconciles** ([`Runner::concurrency`]);
//! - **controller-runtime's metrics**: `controller_runtime_reconcile_total` with the result
//!   labels `success`, `error`, `requeue` and `requeue_after`, the errors and duration, the
//!   worker gauges and the `workqueue_*` family ([`crate::workqueue`], fed from the watches
//!   this runner builds, the Helm reconciler's too);
//! - **graceful shutdown** on the manager's signal, including a controller that never
//!   listed its objects ([`ControllerContext::drive`]);
//! - **logs** at debug level per reconcile, at warn level per failure (with its retry).
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use k8s_openapi::api::core::v1::ConfigMap;
//! # use kube::runtime::{controller::Action, watcher};
//! # use rusty_sdk_runtime::ControllerContext;
//! # use rusty_sdk_runtime::controller::Runner;
//! # async fn reconcile(_: Arc<ConfigMap>, _: Arc<()>) -> Result<Action, kube::Error> {
//! #     Ok(Action::await_change())
//! # }
//! async fn run(ctx: ControllerContext) -> anyhow::Result<()> {
//!     let objects = ctx.scope.namespaced_api::<ConfigMap>(ctx.client.clone());
//!     Runner::new(&ctx, "configmap", objects, watcher::Config::default().any_semantic())
//!         .run(reconcile, Arc::new(()))
//!         .await
//! }
//! ```
use std::collections::HashMap;
use std::fmt::Debug;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use kube::api::Api;
use kube::runtime::controller::{self, Action, Controller};
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Resource, ResourceExt};
use serde::de::DeserializeOwned;

use crate::cache;
use crate::context::ControllerContext;
use crate::metrics::ReconcileMetrics;
use crate::workqueue::WorkQueue;

/// How many reconciles of one controller run at once unless [`Runner::concurrency`] says
/// otherwise. kube-runtime runs any number; a bound keeps a burst of changes (a relist of
/// thousands of objects) from opening as many requests to the API server at once.
pub const DEFAULT_CONCURRENCY: u16 = 4;

/// A kube-runtime [`Controller`] for the objects of one kind, run under the manager; see
/// the module docs for what it adds.
pub struct Runner<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    name: String,
    ctx: ControllerContext,
    api: Api<K>,
    config: watcher::Config,
    trim: Box<dyn FnMut(&mut K) + Send>,
    /// What `owns` and `with_controller` add, applied in order once the controller exists.
    builders: Vec<Builder<K>>,
    concurrency: u16,
    backoff: Backoff,
}

type Builder<K> = Box<dyn FnOnce(Controller<K>, &Store<K>, &WorkQueue) -> Controller<K> + Send>;

impl<K> Runner<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    /// A controller named `name` (in metrics and logs) for the objects of `api` that
    /// `config` selects, as [`Controller::new`] watches them. Its cache keeps them without
    /// `managedFields` and the `last-applied-configuration` annotation ([`cache::trim`]):
    /// server-side apply needs neither. Watch `PartialObjectMeta<K>` to cache metadata only.
    pub fn new(ctx: &ControllerContext, name: &str, api: Api<K>, config: watcher::Config) -> Self {
        Runner {
            name: name.to_string(),
            ctx: ctx.clone(),
            api,
            config,
            trim: Box::new(|_| {}),
            builders: Vec::new(),
            concurrency: DEFAULT_CONCURRENCY,
            backoff: Backoff::default(),
        }
    }

    /// Also call `trim` on each object before it is cached, to drop fields reconcile never
    /// reads (a large `status`, say).
    #[must_use]
    pub fn trim(mut self, trim: impl FnMut(&mut K) + Send + 'static) -> Self {
        self.trim = Box::new(trim);
        self
    }

    /// Reconcile an object again when one of the `Child` objects it is the owner of changes
    /// (as [`Controller::owns`]: only their metadata is cached). Give `config` a label
    /// selector for what this controller creates: without one, every `Child` of the watched
    /// namespaces is listed and kept.
    #[must_use]
    pub fn owns<Child>(mut self, api: Api<Child>, config: watcher::Config) -> Self
    where
        Child: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + 'static,
    {
        self.builders
            .push(Box::new(move |controller, store, queue| {
                let (store, queue) = (store.clone(), queue.clone());
                // kube-runtime's own `owns` watches this way (an `Api<PartialObjectMeta<Child>>`,
                // its replacement, cannot be made from the `Api<Child>` callers have).
                #[allow(deprecated)]
                let children = kube::runtime::metadata_watcher(api, config)
                    .touched_objects()
                    .inspect_ok(move |child| {
                        let namespace = child.namespace();
                        for owner in child.owner_references() {
                            let owner =
                                ObjectRef::<K>::from_owner_ref(namespace.as_deref(), owner, ());
                            // kube-runtime drops a trigger for an object it does not hold; so
                            // does the count.
                            if let Some(owner) = owner.filter(|owner| store.get(owner).is_some()) {
                                queue.add(&key_of_ref(&owner));
                            }
                        }
                    });
                controller.owns_stream(children)
            }));
        self
    }

    /// Anything else kube-runtime's [`Controller`] offers (`watches`, `reconcile_all_on`, ...).
    /// The triggers it adds count in the work queue metrics when their reconcile starts.
    #[must_use]
    pub fn with_controller(
        mut self,
        build: impl FnOnce(Controller<K>) -> Controller<K> + Send + 'static,
    ) -> Self {
        self.builders
            .push(Box::new(move |controller, _, _| build(controller)));
        self
    }

    /// Run at most `concurrency` reconciles at once (0: no bound, as kube-runtime's default).
    #[must_use]
    pub fn concurrency(mut self, concurrency: u16) -> Self {
        self.concurrency = concurrency;
        self
    }

    /// Retry a failed reconcile with `backoff` instead of [`Backoff::default`].
    #[must_use]
    pub fn backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    /// The controller, its store, and the work queue that follows its triggers.
    fn build(self) -> (Controller<K>, Store<K>, WorkQueue, Settings) {
        let Runner {
            name,
            ctx,
            api,
            config,
            mut trim,
            builders,
            concurrency,
            backoff,
        } = self;
        let queue = ctx.metrics.queue(&name, usize::from(concurrency));
        // The reflector is built here rather than by `Controller::new` so that the queue
        // metrics see every trigger (kube-runtime's queue is private).
        let (store, writer) = reflector::store();
        let (deleted, applied) = (queue.clone(), queue.clone());
        let objects = watcher(api, config)
            .modify(move |obj| {
                cache::trim(obj);
                trim(obj);
            })
            .reflect(writer)
            .inspect_ok(move |event| {
                if let watcher::Event::Delete(obj) = event {
                    deleted.forget(&key_of(obj));
                }
            })
            .applied_objects()
            .inspect_ok(move |obj| applied.add(&key_of(obj)));
        let mut controller = Controller::for_stream(objects, store.clone())
            .with_config(controller::Config::default().concurrency(concurrency))
            .graceful_shutdown_on(ctx.shutdown.clone().wait());
        for build in builders {
            controller = build(controller, &store, &queue);
        }
        let settings = Settings { name, ctx, backoff };
        (controller, store, queue, settings)
    }

    /// Run `reconcile` for every change until the manager shuts down. A reconcile that
    /// fails is logged and retried after the object's [`Backoff`]; one that succeeds resets
    /// it and comes back as its [`Action`] says.
    ///
    /// # Errors
    ///
    /// Never: failed reconciles and watch errors are logged and retried. The
    /// `anyhow::Result` is what a controller added with [`crate::Manager::add_controller`]
    /// returns, so that generated controllers end with `.run(reconcile, state).await`.
    pub async fn run<Ctx, Fut, E>(
        self,
        mut reconcile: impl FnMut(Arc<K>, Arc<Ctx>) -> Fut + Send + 'static,
        context: Arc<Ctx>,
    ) -> anyhow::Result<()>
    where
        Ctx: Send + Sync + 'static,
        Fut: Future<Output = Result<Action, E>> + Send + 'static,
        E: std::error::Error + Send + Sync + 'static,
    {
        let (controller, store, queue, Settings { name, ctx, backoff }) = self.build();
        let shared = Arc::new(Shared {
            name,
            metrics: ctx.metrics.clone(),
            queue,
            backoff,
        });
        let retry = shared.clone();
        let stream = controller
            .run(
                {
                    let shared = shared.clone();
                    move |obj: Arc<K>, context: Arc<Ctx>| {
                        let shared = shared.clone();
                        // Boxed: a reconcile future is large, and the runtime keeps many.
                        let work = Box::pin(reconcile(obj.clone(), context));
                        async move { shared.reconcile(&key_of(&*obj), work).await }
                    }
                },
                move |obj: Arc<K>, error: &E, _| retry.failed(&key_of(&*obj), error),
                context,
            )
            .for_each(|result| {
                let shared = shared.clone();
                async move { shared.log(result) }
            });
        tracing::info!(controller = %shared.name, kind = %K::kind(&()), scope = ?ctx.scope, "starting controller");
        ctx.drive(store, stream).await;
        tracing::info!(controller = %shared.name, "controller stopped");
        Ok(())
    }
}

/// What `run` needs of the runner besides its controller.
struct Settings {
    name: String,
    ctx: ControllerContext,
    backoff: Backoff,
}

/// What the reconcile wrapper, the error policy and the log share.
struct Shared {
    name: String,
    metrics: Arc<ReconcileMetrics>,
    queue: WorkQueue,
    backoff: Backoff,
}

impl Shared {
    async fn reconcile<E>(
        &self,
        key: &str,
        work: impl Future<Output = Result<Action, E>>,
    ) -> Result<Action, E> {
        self.queue.start(key);
        let outcome = self.metrics.instrument_action(&self.name, work).await;
        self.queue.finish(key);
        if let Ok(action) = &outcome {
            self.backoff.reset(key);
            if *action != Action::await_change() {
                self.queue.requeued();
            }
        }
        outcome
    }

    fn failed(&self, key: &str, error: &dyn std::error::Error) -> Action {
        let delay = self.backoff.next(key);
        self.queue.requeue(key, delay);
        tracing::warn!(controller = %self.name, object = %key, error = %error_chain(error), retry_in = ?delay, "reconcile failed");
        Action::requeue(delay)
    }

    fn log<K, E>(
        &self,
        result: Result<(ObjectRef<K>, Action), controller::Error<E, watcher::Error>>,
    ) where
        K: Resource,
        E: std::error::Error,
    {
        match result {
            Ok((object, action)) => {
                tracing::debug!(controller = %self.name, %object, ?action, "reconciled");
            }
            // Logged with its retry by the error policy.
            Err(controller::Error::ReconcilerFailed(..)) => {}
            Err(error) => {
                tracing::warn!(controller = %self.name, error = %error_chain(&error), "controller error");
            }
        }
    }
}

/// An error with its sources, `outer: inner: innermost`, as anyhow's `{:#}` prints it.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        // Many errors print their source already (`#[error("...: {0}")]`).
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// `namespace/name`, or `name` for a cluster-scoped object: the key of its failure count
/// and work queue entry.
pub fn object_key<K: Resource>(obj: &K) -> String {
    key_of(obj)
}

fn key_of<K: Resource>(obj: &K) -> String {
    let name = obj.meta().name.as_deref().unwrap_or_default();
    match obj.meta().namespace.as_deref() {
        Some(namespace) => format!("{namespace}/{name}"),
        None => name.to_string(),
    }
}

fn key_of_ref<K: Resource>(reference: &ObjectRef<K>) -> String {
    match reference.namespace.as_deref() {
        Some(namespace) => format!("{namespace}/{}", reference.name),
        None => reference.name.clone(),
    }
}

/// How many objects keep a failure count. An object deleted while it was failing leaves
/// its count behind, so a full map starts over instead of growing without end.
const MAX_TRACKED_FAILURES: usize = 10_000;

/// Per-object exponential backoff after failed reconciles: the first retry after `first`,
/// each next one after twice as long, never longer than `max`; a success starts over.
#[derive(Debug)]
pub struct Backoff {
    first: Duration,
    max: Duration,
    failures: Mutex<HashMap<String, u32>>,
}

impl Default for Backoff {
    /// 5 s, 10 s, 20 s, ... up to 5 minutes.
    fn default() -> Self {
        Backoff::new(Duration::from_secs(5), Duration::from_secs(300))
    }
}

impl Backoff {
    /// Retries after `first`, doubling up to `max`.
    pub fn new(first: Duration, max: Duration) -> Self {
        Backoff {
            first,
            max,
            failures: Mutex::new(HashMap::new()),
        }
    }

    /// Record one more failure of `key` and return how long to wait before retrying.
    pub fn next(&self, key: &str) -> Duration {
        let mut failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        if failures.len() >= MAX_TRACKED_FAILURES && !failures.contains_key(key) {
            failures.clear();
        }
        let count = failures.entry(key.to_string()).or_insert(0);
        let delay = self
            .first
            .checked_mul(2_u32.saturating_pow(*count))
            .map_or(self.max, |delay| delay.min(self.max));
        *count = count.saturating_add(1);
        delay
    }

    /// Forget the failures of `key`.
    pub fn reset(&self, key: &str) {
        let mut failures = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        failures.remove(key);
    }

    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.failures
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

#[cfg(test)]
mod tests;
