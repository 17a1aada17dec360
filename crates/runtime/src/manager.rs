//! The manager: one process running every controller of an operator, with health
//! probes, metrics, leader election and graceful shutdown.
//!
//! Lifecycle of [`Manager::run`]:
//! 1. `/healthz` and `/readyz` listen on `--health-probe-bind-address`; `/metrics` on
//!    `--metrics-bind-address` (HTTPS + TokenReview/SubjectAccessReview, or plain HTTP
//!    with `--metrics-secure=false`). Both serve on every replica, leader or not. The
//!    metrics are controller-runtime's: reconciles and work queues
//!    ([`crate::controller`]), the process ([`crate::process_metrics`]) and the client's
//!    requests ([`crate::client_metrics`]).
//!    Webhooks registered with [`Manager::add_webhooks`] are served over HTTPS on
//!    `--webhook-port` (every replica serves them) before the manager reports ready.
//! 2. With `--leader-elect` the manager stands by until it holds the Lease. `/readyz` is
//!    200 while standing by (a standby replica is healthy, as in controller-runtime) and
//!    once controllers run; it is 503 before that and again once shutdown begins.
//! 3. Controllers start, each with a [`ControllerContext`].
//! 4. SIGTERM/SIGINT fires [`Shutdown`]; controllers get 10 s to return (a second signal
//!    cuts that short), the Lease is released, the servers drain, and `run` returns Ok.
//!    A failed or panicking controller, or a lost Lease, also stops everything but
//!    returns a [`RunError`] saying which, so the process exits non-zero and the pod
//!    restarts; a lost Lease stops controllers at once, without the grace period, since
//!    another replica may lead.
//!    [`STOP_TIMEOUT`] bounds the whole stop.
//!
//! Note: a kube-runtime 5 `Controller` whose watch never listed successfully (API server
//! unreachable, RBAC missing) does not finish on `graceful_shutdown_on` (its runner waits
//! for the store to become ready); [`ControllerContext::drive`] stops such a controller at
//! once, and the grace period above ends any controller that does not use it.
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use kube::Client;
use kube::runtime::events::Reporter;
use prometheus_client::registry::Registry;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::args::WebhookCertMode;
use crate::args::{ManagerArgs, parse_bind_address};
use crate::auth::{KubeAuthorizer, MetricsAuthorizer};
use crate::auth_cache::CachingAuthorizer;
use crate::client_metrics::{ClientMetricsLayer, host_label};
use crate::context::{ControllerContext, Shutdown};
use crate::health::{self, Readiness};
use crate::leader::LeaderElectionConfig;
use crate::metrics::ReconcileMetrics;
use crate::run::{self, Servers};
use crate::webhook::self_signed::{self, SelfSignedConfig};
use crate::webhook::{self, CertReloader, WebhookMetrics, Webhooks};
use crate::{metrics_server, process_metrics, tls};

/// Why a [`Manager`] could not be made: each names the flag, file or value to fix.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No Kubernetes config: no `KUBECONFIG`, no `~/.kube/config`, not in a pod.
    #[error(
        "cannot load a Kubernetes config: set KUBECONFIG, create ~/.kube/config, or run in a pod"
    )]
    Config(#[source] kube::config::InferConfigError),
    /// A config was found, but no client could be built from it (a bad certificate, say).
    #[error("cannot build a Kubernetes client")]
    Client(#[source] kube::Error),
    /// The manager's name (its Lease, event reporter and logs) is empty.
    #[error("the manager needs a name, e.g. the operator's project name")]
    EmptyName,
    /// `--health-probe-bind-address` or `--metrics-bind-address`.
    #[error(transparent)]
    BindAddress(#[from] crate::args::BindAddressError),
    /// The `--leader-elect-*` timings, checked when `--leader-elect` is on.
    #[error(transparent)]
    LeaseTimings(#[from] crate::leader::LeaseTimingsError),
}

/// An error from a part of the manager that does not have its own error type yet
/// (certificates, TLS settings) or from a controller (which returns an `anyhow::Error`).
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Why [`Manager::run`] ended in failure rather than on a stop signal: each variant is one
/// way a run ends, and its message says what to fix or why the pod restarts.
///
/// The setup variants come before any controller starts (nothing was reconciled); the
/// others end a running manager after it stopped its controllers and released its Lease.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The SIGTERM or SIGINT handler could not be installed.
    #[error("cannot handle {signal}")]
    Signal {
        /// `SIGTERM` or `SIGINT`.
        signal: &'static str,
        /// Why the handler could not be installed.
        #[source]
        source: std::io::Error,
    },
    /// A server cannot listen on the address its flag gives (in use, or not allowed).
    #[error(
        "--{flag}: cannot listen on {address} (is the port in use? {})",
        bind_hint(flag)
    )]
    Bind {
        /// The flag naming the address, without its dashes (`metrics-bind-address`).
        flag: &'static str,
        /// The address it names.
        address: SocketAddr,
        /// What listening failed with.
        #[source]
        source: std::io::Error,
    },
    /// `--metrics-secure`: the metrics server's certificate or TLS settings are unusable.
    #[error(transparent)]
    MetricsTls(BoxError),
    /// The webhook certificate (`--webhook-cert-mode`, `--webhook-cert-path`) could not be
    /// loaded, made or served.
    #[error(transparent)]
    WebhookCertificate(BoxError),
    /// The webhooks added with [`Manager::add_webhooks`] cannot be served together.
    #[error(transparent)]
    WebhookRegistration(#[from] crate::webhook::RegistrationError),
    /// A server (health probe, metrics, webhook) failed while the manager ran.
    #[error("the {server} server failed")]
    Server {
        /// `health probe`, `metrics` or `webhook`.
        server: &'static str,
        /// What it failed with.
        #[source]
        source: std::io::Error,
    },
    /// A server returned while the manager ran, without an error.
    #[error("the {server} server stopped unexpectedly")]
    ServerStopped {
        /// `health probe`, `metrics` or `webhook`.
        server: &'static str,
    },
    /// A server's task was cancelled or panicked.
    #[error("a server task failed")]
    ServerTask(#[source] tokio::task::JoinError),
    /// Another replica took the leader-election Lease: controllers stopped at once, without
    /// their grace period, since the other replica may already be writing.
    #[error("lost leadership of the Lease; stopped at once so that the pod restarts")]
    LostLease,
    /// A controller returned an error; the others were stopped.
    #[error("controller {name:?} failed")]
    Controller {
        /// The name it was added with ([`Manager::add_controller`]).
        name: String,
        /// The error it returned.
        #[source]
        source: BoxError,
    },
    /// A controller panicked; the others were stopped.
    #[error("controller {name:?} failed: panicked: {message}")]
    ControllerPanicked {
        /// The name it was added with ([`Manager::add_controller`]).
        name: String,
        /// The panic's message (`(no message)` when it was not a string).
        message: String,
    },
    /// A controller's task was cancelled.
    #[error("a controller task was cancelled")]
    ControllerTask(#[source] tokio::task::JoinError),
}

/// What to do about an address in use: the probe and metrics servers may be turned off.
fn bind_hint(flag: &str) -> &'static str {
    if flag == "webhook-port" {
        "pick another"
    } else {
        "pick another or `0` to disable"
    }
}

type MetricsSecurity = (
    Option<Arc<rustls::ServerConfig>>,
    Option<Arc<dyn MetricsAuthorizer>>,
    Option<Arc<CertReloader>>,
);
type StartFn = Box<dyn FnOnce(ControllerContext) -> BoxFuture<'static, anyhow::Result<()>> + Send>;

/// A controller registered with [`Manager::add_controller`], started by [`Manager::run`].
pub(crate) struct PendingController {
    pub name: String,
    pub start: StartFn,
}

/// Runs the controllers (and webhooks) of one operator process; the module docs say what
/// [`Manager::run`] serves and how it stops.
///
/// # Examples
///
/// A generated project's `main` in miniature: the runtime's flags, the logger, one
/// controller, then `run` until SIGTERM.
///
/// ```no_run
/// use std::sync::Arc;
///
/// use clap::Parser;
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kube::runtime::{controller::Action, watcher};
/// use rusty_sdk_runtime::controller::Runner;
/// use rusty_sdk_runtime::{ControllerContext, Manager, ManagerArgs};
///
/// /// memcached-operator: reconciles the custom resources of this project.
/// #[derive(Parser)]
/// struct Args {
///     #[command(flatten)]
///     manager: ManagerArgs,
/// }
///
/// async fn reconcile(_obj: Arc<ConfigMap>, _ctx: Arc<()>) -> Result<Action, kube::Error> {
///     Ok(Action::await_change())
/// }
///
/// /// One controller: runs until the manager shuts down.
/// async fn run_controller(ctx: ControllerContext) -> anyhow::Result<()> {
///     let objects = ctx.scope.namespaced_api::<ConfigMap>(ctx.client.clone());
///     Runner::new(&ctx, "configmap", objects, watcher::Config::default())
///         .run(reconcile, Arc::new(()))
///         .await
/// }
///
/// #[tokio::main]
/// async fn main() -> anyhow::Result<()> {
///     let args = Args::parse();
///     rusty_sdk_runtime::logging::init(&args.manager)?;
///     let mut manager = Manager::new("memcached-operator", args.manager).await?;
///     manager.add_controller("configmap", run_controller);
///     manager.run().await
/// }
/// ```
pub struct Manager {
    name: String,
    args: ManagerArgs,
    health_address: Option<SocketAddr>,
    metrics_address: Option<SocketAddr>,
    client: Client,
    /// The API server's URL, when the manager loaded the config itself (named in logs).
    api_server: Option<String>,
    registry: Registry,
    metrics: Arc<ReconcileMetrics>,
    stop_controllers: watch::Sender<bool>,
    shutdown: Shutdown,
    controllers: Vec<PendingController>,
    webhooks: Webhooks,
}

/// The longest [`Manager::run`] takes from SIGTERM to its return: the controllers' grace
/// period, the release of the leader-election Lease, then the servers' drain. A pod's
/// `terminationGracePeriodSeconds` must cover it, or the kubelet kills the manager before
/// it releases the Lease (and a standby waits for the lease to expire instead).
pub const STOP_TIMEOUT: Duration = Duration::from_secs(
    run::GRACE_PERIOD.as_secs()
        + crate::leader::RELEASE_TIMEOUT.as_secs()
        + crate::servers::STOP_TIMEOUT.as_secs(),
);

/// How often the webhook certificate files are checked for a renewal.
const CERT_CHECK_INTERVAL: Duration = Duration::from_secs(5);

impl Manager {
    /// Load the kube config (KUBECONFIG, ~/.kube/config or in-cluster) and build a client.
    /// Nothing is sent to the API server until `run`.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when no Kubernetes config is found, [`Error::Client`] when no client
    /// can be built from it, and as [`Manager::with_client`].
    pub async fn new(name: &str, args: ManagerArgs) -> Result<Manager, Error> {
        let config = kube::Config::infer().await.map_err(Error::Config)?;
        let api_server = config.cluster_url.to_string();
        let mut registry = Registry::default();
        let requests = ClientMetricsLayer::new(&mut registry, host_label(&config.cluster_url));
        let client = kube::client::ClientBuilder::try_from(config)
            .map_err(Error::Client)?
            .with_layer(&requests)
            .build();
        let mut manager = Manager::build(name, args, client, registry)?;
        manager.api_server = Some(api_server);
        Ok(manager)
    }

    /// A manager on a client the caller built (tests, custom transports). Its requests are
    /// not in the `rest_client_*` metrics unless the caller adds a
    /// [`ClientMetricsLayer`] to it.
    ///
    /// # Errors
    ///
    /// [`Error::EmptyName`], or the [`Error`] of a flag in `args` that is not valid (a bind
    /// address, the leader-election timings).
    pub fn with_client(name: &str, args: ManagerArgs, client: Client) -> Result<Manager, Error> {
        Manager::build(name, args, client, Registry::default())
    }

    fn build(
        name: &str,
        args: ManagerArgs,
        client: Client,
        mut registry: Registry,
    ) -> Result<Manager, Error> {
        if name.trim().is_empty() {
            return Err(Error::EmptyName);
        }
        let health_address =
            parse_bind_address("health-probe-bind-address", &args.health_probe_bind_address)?;
        let metrics_address =
            parse_bind_address("metrics-bind-address", &args.metrics_bind_address)?;
        if args.leader_elect {
            args.lease_timings().validate()?;
        }
        let metrics = Arc::new(ReconcileMetrics::new(&mut registry));
        process_metrics::register(&mut registry);
        let (stop_controllers, shutdown) = Shutdown::channel();
        Ok(Manager {
            name: name.to_string(),
            args,
            health_address,
            metrics_address,
            client,
            api_server: None,
            registry,
            metrics,
            stop_controllers,
            shutdown,
            controllers: Vec::new(),
            webhooks: Webhooks::new(),
        })
    }

    /// The client controllers get.
    pub fn client(&self) -> Client {
        self.client.clone()
    }

    /// The context each controller is started with.
    pub fn context(&self) -> ControllerContext {
        ControllerContext {
            client: self.client.clone(),
            scope: self.args.watch_scope(),
            metrics: self.metrics.clone(),
            reporter: Reporter {
                controller: self.name.clone(),
                instance: std::env::var("POD_NAME").ok(),
            },
            shutdown: self.shutdown.clone(),
        }
    }

    /// The metrics registry, to register the operator's own metrics before `run`.
    pub fn registry_mut(&mut self) -> &mut Registry {
        &mut self.registry
    }

    /// Register a controller; `start` is called once the manager runs (and leads).
    /// The controller should return when `ctx.shutdown` fires.
    pub fn add_controller<F, Fut>(&mut self, name: impl Into<String>, start: F)
    where
        F: FnOnce(ControllerContext) -> Fut + Send + 'static,
        Fut: Future<Output = anyhow::Result<()>> + Send + 'static,
    {
        self.controllers.push(PendingController {
            name: name.into(),
            start: Box::new(move |ctx| Box::pin(start(ctx))),
        });
    }

    /// Serve `webhooks` (admission and conversion) once the manager runs; may be called
    /// more than once. A path registered twice fails `run`.
    pub fn add_webhooks(&mut self, webhooks: Webhooks) {
        self.webhooks = std::mem::take(&mut self.webhooks).merge(webhooks);
    }

    /// Serve probes and metrics, wait for leadership when `--leader-elect`, start every
    /// controller, and run until SIGTERM/SIGINT (then Ok once controllers stopped) or
    /// until a controller fails or leadership is lost (then Err).
    ///
    /// # Errors
    ///
    /// A [`RunError`], as an `anyhow::Error`: a generated `main` (which returns
    /// `anyhow::Result<()>`) ends with `manager.run().await`, so this signature stays;
    /// `error.downcast_ref::<RunError>()` says which way the run ended, and
    /// [`Manager::run_until_stopped`] returns it typed.
    pub async fn run(self) -> anyhow::Result<()> {
        Ok(self.run_until_stopped().await?)
    }

    /// [`Manager::run`] with its typed error: for a caller that acts on how the run ended
    /// (a test, a supervisor that restarts on some failures only).
    ///
    /// # Errors
    ///
    /// Before any controller starts: [`RunError::Signal`], [`RunError::Bind`],
    /// [`RunError::MetricsTls`], [`RunError::WebhookCertificate`] or
    /// [`RunError::WebhookRegistration`]. Once running, after everything stopped:
    /// [`RunError::LostLease`], a controller's failure ([`RunError::Controller`],
    /// [`RunError::ControllerPanicked`]) or a server's ([`RunError::Server`],
    /// [`RunError::ServerStopped`]).
    pub async fn run_until_stopped(mut self) -> Result<(), RunError> {
        let webhook_metrics =
            (!self.webhooks.is_empty()).then(|| WebhookMetrics::new(&mut self.registry));
        let signals = crate::signals::StopSignals::install()?;
        let readiness = Readiness::default();
        let mut servers = Servers::default();
        if let Some(address) = self.health_address {
            let listener = bind(address, "health-probe-bind-address").await?;
            servers.spawn(
                "health probe",
                listener,
                health::router(readiness.clone()),
                None,
            );
        }
        let context = self.context();
        if let Some(address) = self.metrics_address {
            let listener = bind(address, "metrics-bind-address").await?;
            let (tls, authorizer, certs) = self.metrics_security()?;
            if let Some(certs) = certs {
                let shutdown = self.shutdown.clone();
                tokio::spawn(certs.watch(CERT_CHECK_INTERVAL, shutdown.wait()));
            }
            let router =
                metrics_server::router(Arc::new(std::mem::take(&mut self.registry)), authorizer);
            servers.spawn("metrics", listener, router, tls);
        }
        if let Some(metrics) = webhook_metrics {
            let shutdown = self.shutdown.clone();
            let certs = webhook_certs(&self.name, &self.client, &self.args, shutdown).await?;
            serve_webhooks(&self.webhooks, &self.args, certs, &mut servers, metrics).await?;
        }
        let leader_election = self.args.leader_elect.then(|| {
            LeaderElectionConfig::resolve(
                &self.name,
                &self.args.leader_election_id,
                self.args.leader_election_namespace.as_deref(),
                &self.client,
            )
            .with_timings(self.args.lease_timings())
        });
        tracing::info!(manager = %self.name, scope = ?context.scope,
                       api_server = self.api_server.as_deref().unwrap_or("(given client)"),
                       controllers = self.controllers.len(), "starting manager");
        if let Some(url) = self.api_server.clone() {
            tokio::spawn(report_unreachable(self.client.clone(), url));
        }
        run::Run {
            context,
            controllers: self.controllers,
            stop_controllers: self.stop_controllers,
            leader_election,
            readiness,
            servers,
            signals,
        }
        .until_stopped()
        .await
    }

    /// TLS, authorizer and the certificate to follow for renewals (`--metrics-cert-path`)
    /// for `--metrics-secure`, none for plain HTTP.
    fn metrics_security(&self) -> Result<MetricsSecurity, RunError> {
        if !self.args.metrics_secure {
            return Ok((None, None, None));
        }
        let (tls, certs) = tls::metrics_server_config(
            self.args.metrics_cert_path.as_deref(),
            &self.args.metrics_cert_name,
            &self.args.metrics_cert_key,
            self.args.enable_http2,
        )
        .map_err(|error| RunError::MetricsTls(error.into()))?;
        let authorizer: Arc<dyn MetricsAuthorizer> = Arc::new(CachingAuthorizer::new(
            KubeAuthorizer::new(self.client.clone()),
        ));
        Ok((Some(tls), Some(authorizer), certs))
    }
}

/// Listen on `--webhook-port` with the certificate of `--webhook-cert-path`, and follow
/// renewals of that certificate until shutdown.
async fn serve_webhooks(
    webhooks: &Webhooks,
    args: &ManagerArgs,
    certs: Arc<CertReloader>,
    servers: &mut Servers,
    metrics: WebhookMetrics,
) -> Result<(), RunError> {
    let router = webhooks.router(metrics)?;
    let tls = webhook::server_config(certs.clone(), args.enable_http2)
        .map_err(|error| RunError::WebhookCertificate(error.into()))?;
    let address = SocketAddr::from(([0, 0, 0, 0], args.webhook_port));
    let listener = bind(address, "webhook-port").await?;
    tracing::info!(port = args.webhook_port, paths = ?webhooks,
                   "serving webhooks");
    servers.spawn("webhook", listener, router, Some(tls));
    Ok(())
}

/// The webhook certificate, from `--webhook-cert-path` (followed for renewals until
/// shutdown) or made by the operator itself (`--webhook-cert-mode=self-signed`).
async fn webhook_certs(
    name: &str,
    client: &Client,
    args: &ManagerArgs,
    shutdown: Shutdown,
) -> Result<Arc<CertReloader>, RunError> {
    let certificate = |error: anyhow::Error| RunError::WebhookCertificate(error.into());
    match args.webhook_cert_mode {
        WebhookCertMode::Files => {
            let certs = Arc::new(
                CertReloader::load(
                    &args.webhook_cert_path,
                    &args.webhook_cert_name,
                    &args.webhook_cert_key,
                )
                .map_err(certificate)?,
            );
            tokio::spawn(certs.clone().watch(CERT_CHECK_INTERVAL, shutdown.wait()));
            Ok(certs)
        }
        WebhookCertMode::SelfSigned => {
            let or_default = |value: &str, suffix: &str| match value {
                "" => format!("{name}-{suffix}"),
                given => given.to_string(),
            };
            let config = SelfSignedConfig {
                namespace: std::env::var("POD_NAMESPACE")
                    .ok()
                    .filter(|namespace| !namespace.is_empty())
                    .unwrap_or_else(|| client.default_namespace().to_string()),
                service: or_default(&args.webhook_service_name, "webhook-service"),
                secret: or_default(&args.webhook_cert_secret, "webhook-server-cert"),
            };
            self_signed::start(client.clone(), config, shutdown.wait())
                .await
                .map_err(certificate)
        }
        WebhookCertMode::Local => {
            tracing::info!(
                "serving webhooks with a throwaway certificate for localhost (--webhook-cert-mode=local)"
            );
            Ok(Arc::new(CertReloader::local().map_err(certificate)?.0))
        }
    }
}

/// Say once, naming it, when the API server cannot be reached: kube-runtime's own retries
/// only repeat "failed to perform initial object list" without saying where.
async fn report_unreachable(client: Client, url: String) {
    let probe = tokio::time::timeout(Duration::from_secs(10), client.apiserver_version()).await;
    let error = match probe {
        Ok(Ok(_)) => return,
        Ok(Err(error)) => error.to_string(),
        Err(_) => "no answer within 10s".to_string(),
    };
    tracing::error!(api_server = %url, %error,
        "cannot reach the Kubernetes API server; check KUBECONFIG and its current context (controllers keep retrying)");
}

async fn bind(address: SocketAddr, flag: &'static str) -> Result<TcpListener, RunError> {
    TcpListener::bind(address)
        .await
        .map_err(|source| RunError::Bind {
            flag,
            address,
            source,
        })
}
