//! Lease-based leader election (kube-lease-manager): only the replica holding the Lease
//! runs controllers; losing it stops the manager so the pod restarts as a follower.
use std::time::Duration;

use kube::Client;
use kube_lease_manager::{LeaseManager, LeaseManagerBuilder, LeaseManagerError};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// controller-runtime's defaults: a 15 s lease, renewed 5 s before it expires.
const LEASE_SECONDS: u64 = 15;
const RENEW_GRACE_SECONDS: u64 = 5;
const MAX_RETRY: Duration = Duration::from_secs(30);
/// How long releasing the Lease may take at shutdown.
const RELEASE_TIMEOUT: Duration = Duration::from_secs(5);

/// Which Lease to hold, and as whom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaderElectionConfig {
    pub lease_name: String,
    pub namespace: String,
    pub identity: String,
}

impl LeaderElectionConfig {
    /// Lease `<id>` (default `<manager>-leader`) in the flag's namespace, else
    /// POD_NAMESPACE, else the client's default namespace; identity POD_NAME, else the
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
        }
    }
}

/// Held leadership: watch it with [`Leadership::lost`], give it up with [`Leadership::release`].
pub struct Leadership {
    is_leader: watch::Receiver<bool>,
    task: JoinHandle<Result<LeaseManager, LeaseManagerError>>,
}

/// Wait until this replica holds the Lease. API errors are logged and retried with
/// backoff, so callers race this with the shutdown signal.
pub async fn acquire(client: Client, config: &LeaderElectionConfig) -> Leadership {
    let manager = connect(client, config).await;
    let (mut is_leader, task) = manager.watch().await;
    tracing::info!(lease = %config.lease_name, namespace = %config.namespace,
                   identity = %config.identity, "waiting for leadership");
    // An Err means the watch task ended; `lost` reports that right after.
    let _ = is_leader.wait_for(|leading| *leading).await;
    tracing::info!(lease = %config.lease_name, "became leader");
    Leadership { is_leader, task }
}

async fn connect(client: Client, config: &LeaderElectionConfig) -> LeaseManager {
    let mut delay = Duration::from_secs(1);
    loop {
        let built = LeaseManagerBuilder::new(client.clone(), &config.lease_name)
            .with_namespace(&config.namespace)
            .with_identity(&config.identity)
            .with_duration(LEASE_SECONDS)
            .with_grace(RENEW_GRACE_SECONDS)
            .build()
            .await;
        match built {
            Ok(manager) => return manager,
            Err(err) => {
                tracing::warn!(error = %err, lease = %config.lease_name, namespace = %config.namespace,
                               retry_in = ?delay, "cannot get the leader-election Lease");
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(MAX_RETRY);
            }
        }
    }
}

impl Leadership {
    /// Resolves when this replica is no longer the leader.
    pub async fn lost(&mut self) {
        // Err: the lease task ended, so nobody renews the Lease any more.
        let _ = self.is_leader.wait_for(|leading| !*leading).await;
    }

    /// Give the Lease up so another replica takes over without waiting for expiry.
    pub async fn release(self) {
        // Closing the channel makes the lease task release the Lease and exit.
        drop(self.is_leader);
        match tokio::time::timeout(RELEASE_TIMEOUT, self.task).await {
            Ok(Ok(Ok(_))) => tracing::info!("released the leader Lease"),
            Ok(Ok(Err(err))) => tracing::warn!(error = %err, "could not release the leader Lease"),
            Ok(Err(err)) => tracing::warn!(error = %err, "leader-election task failed"),
            Err(_) => tracing::warn!("timed out releasing the leader Lease"),
        }
    }
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
}
