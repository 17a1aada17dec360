//! A leader whose Lease another replica takes on the real Lease API: `Manager::run` ends
//! with `RunError::LostLease` once its renew deadline passes (its controllers stopped at
//! once), and leaves the other replica's record alone. The control plane (envtest) decides who holds the Lease, as on a cluster.
//! A test binary of its own: the manager installs SIGTERM/SIGINT handlers for its process.
#![cfg(feature = "envtest")]
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, Patch, PatchParams};
use rusty_sdk_runtime::envtest::ControlPlane;
use rusty_sdk_runtime::manager::RunError;
use rusty_sdk_runtime::{Manager, ManagerArgs};
use serde_json::json;

const LEASE: &str = "lost-lease-lock";

#[tokio::test]
async fn a_leader_whose_lease_is_taken_ends_with_lost_lease() {
    let cluster = ControlPlane::shared().unwrap();
    let client = cluster.client().await.unwrap();
    let namespace = cluster
        .create_namespace(&client, "lost-lease")
        .await
        .unwrap();
    let args = ManagerArgs {
        health_probe_bind_address: "0".into(),
        metrics_bind_address: "0".into(),
        leader_elect: true,
        leader_election_id: LEASE.into(),
        leader_election_namespace: Some(namespace.clone()),
        leader_elect_lease_duration: Duration::from_secs(8),
        leader_elect_renew_deadline: Duration::from_secs(4),
        leader_elect_retry_period: Duration::from_secs(1),
        ..ManagerArgs::default()
    };
    let mut manager = Manager::with_client("lost-lease", args, client.clone()).unwrap();
    let (leading_tx, leading) = tokio::sync::oneshot::channel();
    manager.add_controller("waits", move |ctx| async move {
        let _ = leading_tx.send(());
        ctx.shutdown.wait().await;
        Ok(())
    });
    let run = tokio::spawn(manager.run_until_stopped());
    tokio::time::timeout(Duration::from_secs(30), leading)
        .await
        .expect("the manager leads within 30 s")
        .unwrap();

    // Another replica holds the Lease now, freshly renewed: the API server keeps that record
    // and the leader's renewals find it held by another.
    let leases: Api<Lease> = Api::namespaced(client, &namespace);
    let now = MicroTime(Timestamp::now());
    leases
        .patch(
            LEASE,
            &PatchParams::default(),
            &Patch::Merge(json!({
                "spec": {
                    "holderIdentity": "another-replica",
                    "leaseDurationSeconds": 8,
                    "acquireTime": now,
                    "renewTime": now,
                }
            })),
        )
        .await
        .unwrap();

    let ended = tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("the manager stops within 30 s of losing its Lease")
        .unwrap();
    assert!(matches!(ended, Err(RunError::LostLease)), "{ended:?}");
    let holder = leases
        .get(LEASE)
        .await
        .unwrap()
        .spec
        .unwrap()
        .holder_identity;
    assert_eq!(
        holder.as_deref(),
        Some("another-replica"),
        "a leader that lost its Lease does not release or overwrite it"
    );
}
