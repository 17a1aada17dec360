//! `Reconciler`: runs one Helm controller (a kube-runtime Controller over `DynamicObject`s
//! of the watched kind) inside the manager.
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::channel::mpsc::UnboundedSender;
use futures::{StreamExt, TryStreamExt};
use kube::api::{ApiResource, DynamicObject};
use kube::discovery::{self, Scope};
use kube::runtime::controller::{Action, Config as ControllerConfig};
use kube::runtime::events::Reporter;
use kube::runtime::reflector::{self, ObjectRef, reflector};
use kube::runtime::watcher::{self, watcher};
use kube::runtime::{Controller, WatchStreamExt};
use kube::{Client, ResourceExt};

use super::builder::{BuildError, ReconcilerBuilder};
use super::dependents::DependentWatches;
use super::kinds::KindCache;
use super::metered::MeteredHelm;
use super::reconcile::{ReconcileError, reconcile};
use super::settings::{ReconcileContext, Settings};
use super::watches::Watch;
use crate::context::ControllerContext;

/// A Helm reconciler for one watched kind. Build it with [`Reconciler::builder`].
pub struct Reconciler {
    settings: Settings,
}

impl Reconciler {
    /// Options preloaded from a watches.yaml entry.
    ///
    /// # Errors
    ///
    /// [`BuildError::InvalidGvk`] when the entry has no version or kind.
    pub fn builder(watch: &Watch) -> Result<ReconcilerBuilder, BuildError> {
        if watch.version.is_empty() || watch.kind.is_empty() {
            return Err(BuildError::InvalidGvk {
                gvk: format!("{}/{}, Kind={}", watch.group, watch.version, watch.kind),
            });
        }
        Ok(ReconcilerBuilder::from_watch(watch))
    }

    pub(crate) fn new(settings: Settings) -> Self {
        Reconciler { settings }
    }

    #[cfg(test)]
    pub(crate) fn into_settings(self) -> Settings {
        self.settings
    }

    /// `<kind-lower>-controller`.
    pub fn controller_name(&self) -> String {
        self.settings.controller_name()
    }

    /// Reconcile custom resources one call at a time, outside a controller (tools and
    /// benchmarks): no watches, no dependent watches, kinds discovered on first use.
    #[doc(hidden)]
    pub fn standalone(self, client: Client, resource: ApiResource) -> Standalone {
        let settings = self.settings;
        settings.helm.attach_client(&client);
        let name = settings.controller_name();
        Standalone(Arc::new(ReconcileContext {
            reporter: Reporter {
                controller: name.clone(),
                instance: None,
            },
            field_manager: name,
            client,
            settings,
            resource,
            kinds: KindCache::default(),
            dependents: None,
            backoff: retry_backoff(),
        }))
    }

    /// Run the controller until `ctx.shutdown` fires: the future
    /// [`crate::Manager::add_controller`] takes.
    ///
    /// # Errors
    ///
    /// Never: failed reconciles and watch errors are logged and retried (the release's
    /// conditions say why), and a kind that discovery cannot find is watched under its
    /// guessed plural.
    pub fn run(
        self,
        ctx: ControllerContext,
    ) -> impl Future<Output = anyhow::Result<()>> + Send + 'static {
        run_controller(self.settings, ctx)
    }
}

/// Plural and scope from discovery; `ApiResource::from_gvk` (guessed plural) if it fails.
async fn resolve_kind(client: &Client, settings: &Settings) -> (ApiResource, bool) {
    match discovery::pinned_kind(client, &settings.gvk).await {
        Ok((resource, capabilities)) => (resource, capabilities.scope == Scope::Namespaced),
        Err(error) => {
            tracing::warn!(kind = %settings.gvk.kind, %error, "discovery failed; guessing the plural");
            (ApiResource::from_gvk(&settings.gvk), true)
        }
    }
}

async fn run_controller(settings: Settings, ctx: ControllerContext) -> anyhow::Result<()> {
    let (resource, namespaced) = resolve_kind(&ctx.client, &settings).await;
    settings.helm.attach_client(&ctx.client);
    if namespaced {
        // Several watched namespaces: a controller (and its dependent watches) for each.
        ctx.per_namespace(|scoped| run_scoped(settings.clone(), scoped, resource.clone(), true))
            .await
    } else {
        run_scoped(settings, ctx, resource, false).await
    }
}

async fn run_scoped(
    settings: Settings,
    ctx: ControllerContext,
    resource: ApiResource,
    namespaced: bool,
) -> anyhow::Result<()> {
    let name = settings.controller_name();
    let api = ctx
        .scope
        .dynamic_api(ctx.client.clone(), &resource, namespaced);
    let mut watch_config = watcher::Config::default().any_semantic();
    if !settings.selector.selects_all() {
        watch_config = watch_config.labels_from(&settings.selector);
    }
    let (trigger, triggers) = futures::channel::mpsc::unbounded();
    let concurrency = u16::try_from(settings.max_concurrent_reconciles).unwrap_or(u16::MAX);
    let reconcile_context = reconcile_context(settings, &ctx, &resource, trigger);
    let metrics = ctx.metrics.clone();
    let metric_name = name.clone();
    let queue = metrics.queue(&name, usize::from(concurrency));
    tracing::info!(controller = %name, kind = %resource.kind, scope = ?ctx.scope, "starting Helm controller");
    // The reflector is built here rather than by `Controller::new_with` so the queue metrics
    // see every trigger (kube-runtime's queue is private).
    let writer = reflector::store::Writer::new(resource.clone());
    let store = writer.as_reader();
    let (deleted, applied) = (queue.clone(), queue.clone());
    let objects = reflector(writer, watcher(api, watch_config))
        .inspect_ok(move |event| {
            if let watcher::Event::Delete(cr) = event {
                deleted.forget(&object_key(cr));
            }
        })
        .applied_objects()
        .inspect_ok(move |cr| applied.add(&object_key(cr)));
    let (known, triggered) = (store.clone(), queue.clone());
    // kube-runtime drops a trigger for an object it does not hold; so does the count.
    let triggers = triggers.inspect(move |owner: &ObjectRef<DynamicObject>| {
        if known.get(owner).is_some() {
            triggered.add(&reference_key(owner));
        }
    });
    let controller = Controller::for_stream_with(objects, store, resource)
        .with_config(ControllerConfig::default().concurrency(concurrency))
        .reconcile_on(triggers)
        .graceful_shutdown_on(ctx.shutdown.clone().wait());
    let store = controller.store();
    let retries = queue.clone();
    let run = controller
        .run(
            move |cr, rctx| {
                let metrics = metrics.clone();
                let metric_name = metric_name.clone();
                let queue = queue.clone();
                async move {
                    let key = object_key(&cr);
                    // Closed never: the semaphore lives as long as the settings.
                    let _permit = rctx.settings.workers.clone().acquire_owned().await.ok();
                    queue.start(&key);
                    let mut delay = None;
                    let outcome = metrics
                        .instrument_action(&metric_name, async {
                            let next = reconcile(cr, rctx.clone()).await?;
                            delay = next.delay();
                            Ok(next.action())
                        })
                        .await;
                    queue.finish(&key);
                    if outcome.is_ok() {
                        rctx.backoff.reset(&key);
                        if let Some(delay) = delay {
                            queue.requeue(&key, delay);
                        }
                    }
                    outcome
                }
            },
            move |cr, error, rctx| {
                let retry = retry_delay(&cr, error, &rctx);
                retries.requeue(&object_key(&cr), retry);
                Action::requeue(retry)
            },
            reconcile_context,
        )
        .for_each(|result| async move {
            match result {
                Ok((object, _)) => tracing::debug!(%object, "reconciled"),
                Err(error) => tracing::warn!(%error, "reconcile failed"),
            }
        });
    // kube-runtime waits for a first list before it honours shutdown; `drive` does not.
    ctx.drive(store, run).await;
    tracing::info!(controller = %name, "Helm controller stopped");
    Ok(())
}

/// What every reconcile of one controller shares: its settings with the Helm client
/// metered under the controller's name, the reporter of its events, its field manager and
/// the watches of the objects its releases made.
fn reconcile_context(
    mut settings: Settings,
    ctx: &ControllerContext,
    resource: &ApiResource,
    trigger: UnboundedSender<ObjectRef<DynamicObject>>,
) -> Arc<ReconcileContext> {
    let name = settings.controller_name();
    let dependents = settings.watch_dependent_resources.then(|| {
        DependentWatches::new(
            ctx.client.clone(),
            ctx.scope.clone(),
            resource.clone(),
            trigger,
            ctx.shutdown.clone(),
        )
    });
    let reporter = settings.reporter.clone().unwrap_or_else(|| Reporter {
        controller: name.clone(),
        instance: ctx.reporter.instance.clone(),
    });
    settings.helm = Arc::new(MeteredHelm::new(
        settings.helm,
        ctx.metrics.release_operations(&name),
    ));
    Arc::new(ReconcileContext {
        reporter,
        field_manager: name,
        client: ctx.client.clone(),
        settings,
        resource: resource.clone(),
        kinds: KindCache::default(),
        dependents,
        backoff: retry_backoff(),
    })
}

/// See [`Reconciler::standalone`].
#[doc(hidden)]
pub struct Standalone(Arc<ReconcileContext>);

impl Standalone {
    /// One reconcile of `cr`, as the controller would run it.
    ///
    /// # Errors
    ///
    /// The [`ReconcileError`] the controller would log before retrying.
    pub async fn reconcile(&self, cr: DynamicObject) -> Result<Action, ReconcileError> {
        reconcile(Arc::new(cr), self.0.clone())
            .await
            .map(super::reconcile::Next::action)
    }
}

fn object_key(cr: &DynamicObject) -> String {
    format!("{}/{}", cr.namespace().unwrap_or_default(), cr.name_any())
}

fn reference_key(reference: &ObjectRef<DynamicObject>) -> String {
    format!(
        "{}/{}",
        reference.namespace.as_deref().unwrap_or_default(),
        reference.name
    )
}

/// Retries of a failed reconcile: 1 s, 2 s, 4 s, ... up to 5 minutes, per resource (kube-runtime
/// has no per-object backoff, kube#1916).
pub(crate) fn retry_backoff() -> crate::controller::Backoff {
    crate::controller::Backoff::new(Duration::from_secs(1), Duration::from_secs(300))
}

/// How long a failed reconcile waits before its retry (the object's own backoff).
fn retry_delay(cr: &DynamicObject, error: &ReconcileError, ctx: &ReconcileContext) -> Duration {
    let retry = ctx.backoff.next(&object_key(cr));
    tracing::error!(name = %cr.name_any(), namespace = ?cr.namespace(), %error, ?retry, "reconcile failed");
    retry
}
