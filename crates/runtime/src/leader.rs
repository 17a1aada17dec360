//! Lease-based leader election, with the semantics of client-go's `leaderelection` (what
//! controller-runtime uses): only the replica holding the Lease runs controllers.
//!
//! - A candidate reads the Lease every retry period and takes it when it is free (no
//!   holder, or released) or when its holder has not renewed it for the lease duration,
//!   as measured on the candidate's own clock from when it saw the record change (so
//!   clock skew between replicas does not matter). Every write is an update at the read
//!   `resourceVersion`, so two candidates never both win.
//! - The leader renews every retry period. When no renewal has succeeded for the renew
//!   deadline, it steps down on its own clock, before the Lease can expire for the others
//!   (the deadline is shorter than the lease duration), whatever the API server answers
//!   or fails to answer.
//! - A clean stop releases the Lease (empty holder), so a standby takes over within a
//!   retry period instead of a lease duration.
use std::time::{Duration, Instant, SystemTime};

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, ObjectMeta, PostParams};
use kube::{Client, ResourceExt as _};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How long releasing the Lease may take at shutdown.
pub const RELEASE_TIMEOUT: Duration = Duration::from_secs(5);

/// The lease duration, renew deadline and retry period (controller-runtime's defaults:
/// 15 s, 10 s and 2 s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaseTimings {
    /// How long standby replicas wait, after the last renewal they saw, before taking the
    /// Lease over. Whole seconds (the Lease stores seconds).
    pub lease_duration: Duration,
    /// How long the leader keeps trying to renew before it steps down.
    pub renew_deadline: Duration,
    /// How often candidates try to acquire, and the leader to renew.
    pub retry_period: Duration,
}

impl Default for LeaseTimings {
    fn default() -> Self {
        LeaseTimings {
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
        }
    }
}

/// Which of client-go's rules a [`LeaseTimings`] breaks (see [`LeaseTimings::validate`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LeaseTimingsError {
    /// The lease is not a whole number of seconds (the Lease API keeps seconds), or is 0.
    #[error("--leader-elect-lease-duration={0:?} must be a whole number of seconds, at least 1s")]
    LeaseDuration(Duration),
    /// Candidates would retry without pause.
    #[error("--leader-elect-retry-period must be more than 0")]
    RetryPeriod,
    /// The lease could expire while its holder still renews it.
    #[error(
        "--leader-elect-lease-duration ({lease_duration:?}) must be longer than --leader-elect-renew-deadline ({renew_deadline:?}), or another replica could lead while this one still does"
    )]
    LeaseWithinRenewDeadline {
        /// `--leader-elect-lease-duration`.
        lease_duration: Duration,
        /// `--leader-elect-renew-deadline`.
        renew_deadline: Duration,
    },
    /// One retry, with its jitter, could outlast the renew deadline.
    #[error(
        "--leader-elect-renew-deadline ({renew_deadline:?}) must be longer than 1.2 × --leader-elect-retry-period ({retry_period:?})"
    )]
    RenewDeadlineWithinRetry {
        /// `--leader-elect-renew-deadline`.
        renew_deadline: Duration,
        /// `--leader-elect-retry-period`.
        retry_period: Duration,
    },
}

impl LeaseTimings {
    /// client-go's rules: the lease outlasts the renew deadline, which outlasts a retry
    /// period with its jitter.
    ///
    /// # Errors
    ///
    /// The [`LeaseTimingsError`] of the first rule broken, naming the flags to change.
    pub fn validate(&self) -> Result<(), LeaseTimingsError> {
        let LeaseTimings {
            lease_duration,
            renew_deadline,
            retry_period,
        } = *self;
        if lease_duration < Duration::from_secs(1) || lease_duration.subsec_nanos() != 0 {
            return Err(LeaseTimingsError::LeaseDuration(lease_duration));
        }
        if retry_period.is_zero() {
            return Err(LeaseTimingsError::RetryPeriod);
        }
        if lease_duration <= renew_deadline {
            return Err(LeaseTimingsError::LeaseWithinRenewDeadline {
                lease_duration,
                renew_deadline,
            });
        }
        if renew_deadline <= retry_period.mul_f64(1.2) {
            return Err(LeaseTimingsError::RenewDeadlineWithinRetry {
                renew_deadline,
                retry_period,
            });
        }
        Ok(())
    }

    fn lease_seconds(&self) -> i32 {
        i32::try_from(self.lease_duration.as_secs()).unwrap_or(i32::MAX)
    }
}

/// Which Lease to hold, as whom, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaderElectionConfig {
    pub lease_name: String,
    pub namespace: String,
    pub identity: String,
    pub timings: LeaseTimings,
}

impl LeaderElectionConfig {
    /// Lease `<id>` (default `<manager>-leader`) in the flag's namespace, else
    /// `POD_NAMESPACE`, else the client's default namespace; identity `POD_NAME`, else the
    /// host name (which is the pod name in a pod).
    pub fn resolve(
        manager_name: &str,
        lease_id: &str,
        namespace_flag: Option<&str>,
        client: &Client,
    ) -> Self {
        let lease_name = match lease_id.trim() {
            "" => format!("{manager_name}-leader"),
            id => id.to_string(),
        };
        let from_env = |key: &str| std::env::var(key).ok().filter(|value| !value.is_empty());
        let namespace = namespace_flag
            .filter(|ns| !ns.is_empty())
            .map(str::to_string)
            .or_else(|| from_env("POD_NAMESPACE"))
            .unwrap_or_else(|| client.default_namespace().to_string());
        let identity = from_env("POD_NAME")
            .or_else(|| hostname::get().ok().and_then(|h| h.into_string().ok()))
            .unwrap_or_else(|| format!("{manager_name}-{}", std::process::id()));
        LeaderElectionConfig {
            lease_name,
            namespace,
            identity,
            timings: LeaseTimings::default(),
        }
    }

    /// The same with other timings.
    #[must_use]
    pub fn with_timings(self, timings: LeaseTimings) -> Self {
        LeaderElectionConfig { timings, ..self }
    }
}

/// Held leadership: watch it with [`Leadership::lost`], give it up with [`Leadership::release`].
pub struct Leadership {
    lost: watch::Receiver<bool>,
    stop: watch::Sender<bool>,
    renewing: JoinHandle<Elector>,
}

/// Wait until this replica holds the Lease, trying every retry period. API errors are
/// logged and retried, so callers race this with the shutdown signal.
pub async fn acquire(client: Client, config: &LeaderElectionConfig) -> Leadership {
    let mut elector = Elector::new(client, config.clone());
    tracing::info!(lease = %config.lease_name, namespace = %config.namespace,
                   identity = %config.identity, "waiting for leadership");
    let mut reported = false;
    loop {
        match elector.try_acquire_or_renew().await {
            Ok(true) => break,
            Ok(false) => {}
            // Said once at warn (a missing permission repeats forever), then at debug.
            Err(error) if !reported => {
                reported = true;
                tracing::warn!(%error, lease = %config.lease_name, namespace = %config.namespace,
                               "cannot acquire the leader-election Lease; retrying");
            }
            Err(error) => tracing::debug!(%error, "cannot acquire the leader-election Lease"),
        }
        tokio::time::sleep(jittered(config.timings.retry_period)).await;
    }
    tracing::info!(lease = %config.lease_name, identity = %config.identity, "became leader");
    let (lost_tx, lost) = watch::channel(false);
    let (stop, stop_rx) = watch::channel(false);
    let renewing = tokio::spawn(renew(elector, lost_tx, stop_rx));
    Leadership {
        lost,
        stop,
        renewing,
    }
}

/// Renew every retry period until told to stop, or until no renewal succeeded for the
/// renew deadline or another replica holds the Lease: then report the loss.
async fn renew(
    mut elector: Elector,
    lost: watch::Sender<bool>,
    mut stop: watch::Receiver<bool>,
) -> Elector {
    let timings = elector.config.timings;
    let mut renewed_at = elector.acquired_at;
    loop {
        let deadline = renewed_at + timings.renew_deadline;
        let attempt = tokio::time::timeout_at(deadline.into(), async {
            tokio::time::sleep(timings.retry_period).await;
            let started = Instant::now();
            (started, elector.try_acquire_or_renew().await)
        });
        let outcome = tokio::select! {
            biased;
            _ = stop.wait_for(|stop| *stop) => None,
            outcome = attempt => Some(outcome),
        };
        let Some(outcome) = outcome else {
            return elector;
        };
        match outcome {
            Ok((started, Ok(true))) => renewed_at = started,
            // A conflicting write: read again until the deadline.
            Ok((_, Ok(false))) if !elector.held_by_another() => {}
            Ok((_, Ok(false))) => {
                tracing::error!(lease = %elector.config.lease_name, holder = ?elector.observed_holder(),
                                "another replica holds the leader-election Lease");
                break;
            }
            Ok((_, Err(error))) => {
                tracing::warn!(%error, lease = %elector.config.lease_name, "cannot renew the leader-election Lease");
            }
            Err(_) => {
                tracing::error!(lease = %elector.config.lease_name, renew_deadline = ?timings.renew_deadline,
                                "the leader-election Lease was not renewed within the renew deadline");
                break;
            }
        }
    }
    elector.lost = true;
    let _ = lost.send(true);
    elector
}

impl Leadership {
    /// Resolves when this replica is no longer the leader.
    pub async fn lost(&mut self) {
        // Err: the renewing task ended, so nobody renews the Lease any more.
        let _ = self.lost.wait_for(|lost| *lost).await;
    }

    /// Stop renewing and give the Lease up (unless it was lost), so that another replica
    /// takes over without waiting for it to expire.
    pub async fn release(self) {
        let _ = self.stop.send(true);
        let released = tokio::time::timeout(RELEASE_TIMEOUT, async {
            let mut elector = self.renewing.await?;
            anyhow::Ok(elector.release().await?)
        })
        .await;
        match released {
            Ok(Ok(true)) => tracing::info!("released the leader Lease"),
            Ok(Ok(false)) => {}
            Ok(Err(err)) => {
                tracing::warn!(error = %format!("{err:#}"), "could not release the leader Lease");
            }
            Err(_) => tracing::warn!("timed out releasing the leader Lease"),
        }
    }
}

/// The Lease record last seen, and when (on this replica's clock) it was first seen.
struct Observed {
    spec: LeaseSpec,
    at: Instant,
}

struct Elector {
    api: Api<Lease>,
    config: LeaderElectionConfig,
    observed: Option<Observed>,
    /// When the attempt that acquired the Lease began.
    acquired_at: Instant,
    lost: bool,
}

impl Elector {
    fn new(client: Client, config: LeaderElectionConfig) -> Self {
        Elector {
            api: Api::namespaced(client, &config.namespace),
            config,
            observed: None,
            acquired_at: Instant::now(),
            lost: false,
        }
    }

    fn observed_holder(&self) -> Option<&str> {
        self.observed.as_ref()?.spec.holder_identity.as_deref()
    }

    fn held_by_another(&self) -> bool {
        self.observed_holder()
            .is_some_and(|holder| !holder.is_empty() && holder != self.config.identity)
    }

    /// One round of client-go's `tryAcquireOrRenew`: Ok(true) when this replica holds the
    /// Lease afterwards.
    async fn try_acquire_or_renew(&mut self) -> kube::Result<bool> {
        let started = Instant::now();
        let identity = self.config.identity.clone();
        let Some(mut lease) = self.api.get_opt(&self.config.lease_name).await? else {
            let lease = Lease {
                metadata: ObjectMeta {
                    name: Some(self.config.lease_name.clone()),
                    ..ObjectMeta::default()
                },
                spec: Some(self.record(&LeaseSpec::default(), false)),
            };
            return match self.api.create(&PostParams::default(), &lease).await {
                Ok(created) => Ok(self.won(&created, started)),
                Err(kube::Error::Api(status)) if status.code == 409 => Ok(false),
                Err(err) => Err(err),
            };
        };
        let current = lease.spec.clone().unwrap_or_default();
        if self
            .observed
            .as_ref()
            .is_none_or(|seen| seen.spec != current)
        {
            self.observed = Some(Observed {
                spec: current.clone(),
                at: Instant::now(),
            });
        }
        let holder = current.holder_identity.as_deref().filter(|h| !h.is_empty());
        let held_by_me = holder == Some(identity.as_str());
        if holder.is_some() && !held_by_me {
            let seconds = current.lease_duration_seconds.unwrap_or(0).max(0);
            let seen = self.observed.as_ref().map_or(started, |seen| seen.at);
            if seen + Duration::from_secs(seconds.unsigned_abs().into()) > Instant::now() {
                return Ok(false);
            }
        }
        lease.spec = Some(self.record(&current, held_by_me));
        let name = lease.name_any();
        match self
            .api
            .replace(&name, &PostParams::default(), &lease)
            .await
        {
            Ok(updated) => Ok(self.won(&updated, started)),
            Err(kube::Error::Api(status)) if status.code == 409 => Ok(false),
            Err(err) => Err(err),
        }
    }

    /// The record this replica writes over `current`: renewed now, acquired now unless it
    /// already held it.
    fn record(&self, current: &LeaseSpec, held_by_me: bool) -> LeaseSpec {
        let now = MicroTime(Timestamp::now());
        let transitions = current.lease_transitions.unwrap_or(0);
        LeaseSpec {
            holder_identity: Some(self.config.identity.clone()),
            lease_duration_seconds: Some(self.config.timings.lease_seconds()),
            acquire_time: if held_by_me {
                current.acquire_time.clone()
            } else {
                Some(now.clone())
            },
            renew_time: Some(now),
            lease_transitions: Some(if held_by_me || current.holder_identity.is_none() {
                transitions
            } else {
                transitions + 1
            }),
            ..LeaseSpec::default()
        }
    }

    fn won(&mut self, lease: &Lease, started: Instant) -> bool {
        self.observed = Some(Observed {
            spec: lease.spec.clone().unwrap_or_default(),
            at: started,
        });
        self.acquired_at = started;
        true
    }

    /// Give the Lease up if this replica still holds it: an empty holder, which candidates
    /// take at once. Ok(true) when released.
    async fn release(&mut self) -> kube::Result<bool> {
        if self.lost {
            return Ok(false);
        }
        let Some(mut lease) = self.api.get_opt(&self.config.lease_name).await? else {
            return Ok(false);
        };
        let current = lease.spec.clone().unwrap_or_default();
        if current.holder_identity.as_deref() != Some(self.config.identity.as_str()) {
            return Ok(false);
        }
        let now = MicroTime(Timestamp::now());
        lease.spec = Some(LeaseSpec {
            holder_identity: Some(String::new()),
            lease_duration_seconds: Some(1),
            acquire_time: Some(now.clone()),
            renew_time: Some(now),
            lease_transitions: current.lease_transitions,
            ..LeaseSpec::default()
        });
        let name = lease.name_any();
        self.api
            .replace(&name, &PostParams::default(), &lease)
            .await?;
        Ok(true)
    }
}

/// `period` stretched by up to 20 %, so that replicas started together do not ask in step.
fn jittered(period: Duration) -> Duration {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .subsec_nanos();
    period.mul_f64(1.0 + f64::from(nanos % 1000) / 5000.0)
}

#[cfg(test)]
mod tests {
    use http::{Request, Response};
    use kube::client::Body;

    use super::*;

    fn offline_client(namespace: &str) -> Client {
        let (service, _handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
        Client::new(service, namespace)
    }

    #[tokio::test]
    async fn lease_name_defaults_to_the_manager_name() {
        let config = LeaderElectionConfig::resolve(
            "memcached-operator",
            "",
            Some("ops"),
            &offline_client("x"),
        );
        assert_eq!(config.lease_name, "memcached-operator-leader");
        assert_eq!(config.namespace, "ops");
        assert!(!config.identity.is_empty());
        assert_eq!(config.timings, LeaseTimings::default());
    }

    #[tokio::test]
    async fn explicit_lease_id_is_used() {
        let config = LeaderElectionConfig::resolve(
            "op",
            "abc.example.com",
            Some("ops"),
            &offline_client("x"),
        );
        assert_eq!(config.lease_name, "abc.example.com");
    }

    #[test]
    fn timings_keep_the_renew_deadline_inside_the_lease() {
        assert!(LeaseTimings::default().validate().is_ok());
        let timings = |lease, renew, retry| LeaseTimings {
            lease_duration: Duration::from_millis(lease),
            renew_deadline: Duration::from_millis(renew),
            retry_period: Duration::from_millis(retry),
        };
        assert!(timings(6000, 4000, 1000).validate().is_ok());
        let err = timings(4000, 4000, 1000)
            .validate()
            .unwrap_err()
            .to_string();
        assert!(err.contains("--leader-elect-renew-deadline"), "{err}");
        let err = timings(6000, 1100, 1000)
            .validate()
            .unwrap_err()
            .to_string();
        assert!(err.contains("--leader-elect-retry-period"), "{err}");
        let err = timings(1500, 1000, 100).validate().unwrap_err().to_string();
        assert!(err.contains("whole number of seconds"), "{err}");
        assert!(timings(6000, 4000, 0).validate().is_err());
    }

    #[test]
    fn jitter_stays_within_a_fifth_of_the_period() {
        let period = Duration::from_secs(2);
        let jittered = jittered(period);
        assert!(
            jittered >= period && jittered <= period.mul_f64(1.2),
            "{jittered:?}"
        );
    }
}
