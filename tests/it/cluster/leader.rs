//! Leader election against the real Lease API: two replicas of the tutorial's operator, each
//! run as a process with `--leader-elect` and a ServiceAccount's token under the generated
//! leader-election Role. Who leads is read from the Lease; who reconciles from the events
//! the Rust controller writes (their `reportingInstance` is the replica's `POD_NAME`, which
//! is also its identity in the Lease).
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::api::rbac::v1::{ClusterRoleBinding, RoleBinding};
use kube::api::{Api, DeleteParams, DynamicObject, ListParams, PostParams};
use rusty_sdk_test_tools::needs;
use serde_json::json;

use super::hybrid::tutorial_operator;
use super::operator::{Installed, Operator, custom};
use super::{cluster, eventually};

const BACKUP: (&str, &str, &str, &str) = (
    "cache.my.domain",
    "v1",
    "MemcachedBackup",
    "memcachedbackups",
);
/// The lease the replicas hold, short so that the suite runs in seconds; the renew
/// deadline and retry period below are what the runtime is started with.
const LEASE: Duration = Duration::from_secs(8);
const RENEW_DEADLINE: Duration = Duration::from_secs(4);
const RETRY: Duration = Duration::from_secs(1);
const TIMINGS: [&str; 3] = [
    "--leader-elect-lease-duration=8s",
    "--leader-elect-renew-deadline=4s",
    "--leader-elect-retry-period=1s",
];
/// A reconcile on two busy cores takes well under this.
const SETTLE: Duration = Duration::from_secs(60);

/// One replica: its process and its identity (`POD_NAME`, the Lease's holderIdentity).
struct Replica {
    operator: Operator,
    identity: String,
}

/// Start a replica with `--leader-elect` on Lease `lease`, watching `ns`, with the token of
/// `kubeconfig` (the generated ServiceAccount's when `None`).
fn replica(
    installed: &Installed,
    kubeconfig: Option<&Path>,
    ns: &str,
    lease: &str,
    identity: &str,
) -> Replica {
    let installed = Installed {
        root: installed.root.clone(),
        binary: installed.binary.clone(),
        system_namespace: installed.system_namespace.clone(),
        kubeconfig: kubeconfig.map_or_else(|| installed.kubeconfig.clone(), Path::to_path_buf),
    };
    let mut args = vec![
        format!("--namespace={ns}"),
        "--leader-elect".to_string(),
        format!("--leader-election-id={lease}"),
    ];
    args.extend(TIMINGS.iter().map(|flag| (*flag).to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let operator = Operator::start_with_env(&installed, &args, &[("POD_NAME", identity)]);
    Replica {
        operator,
        identity: identity.to_string(),
    }
}

/// The Lease's holder and renew time, if it has a holder.
async fn holder(leases: &Api<Lease>, lease: &str) -> Option<(String, SystemTime)> {
    let spec = leases.get_opt(lease).await.unwrap()?.spec?;
    let holder = spec.holder_identity.filter(|h| !h.is_empty())?;
    let renewed = spec
        .renew_time
        .map_or(SystemTime::UNIX_EPOCH, |t| t.0.into());
    Some((holder, renewed))
}

/// The logs of `replicas`, for failure messages.
fn logs(replicas: &[&Replica]) -> String {
    replicas
        .iter()
        .map(|r| format!("--- {}:\n{}", r.identity, r.operator.log()))
        .collect()
}

async fn await_holder(leases: &Api<Lease>, lease: &str, replica: &Replica, others: &[&Replica]) {
    let found = tokio::time::timeout(SETTLE, async {
        while holder(leases, lease).await.map(|(h, _)| h).as_deref() != Some(&replica.identity) {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert!(
        found.is_ok(),
        "{} holds Lease {lease}: not so after {}s (holder {:?})\n{}",
        replica.identity,
        SETTLE.as_secs(),
        holder(leases, lease).await,
        logs(&[&[replica], others].concat())
    );
}

/// Start replica `<ns>-first` and, once it holds `lease`, the standby `<ns>-second`, with
/// the tokens of `kubeconfigs` (the generated ServiceAccount's for `None`).
async fn leader_and_standby(
    installed: &Installed,
    (leases, lease): (&Api<Lease>, &str),
    ns: &str,
    kubeconfigs: [Option<&Path>; 2],
) -> (Replica, Replica) {
    let first = replica(installed, kubeconfigs[0], ns, lease, &format!("{ns}-first"));
    await_holder(leases, lease, &first, &[]).await;
    // The standby is ready too (a standby is healthy), but does not lead.
    let second = replica(
        installed,
        kubeconfigs[1],
        ns,
        lease,
        &format!("{ns}-second"),
    );
    (first, second)
}

/// Create `MemcachedBackup` `name` in `ns`.
async fn create_probe(backups: &Api<DynamicObject>, name: &str) {
    let probe: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "cache.my.domain/v1",
        "kind": "MemcachedBackup",
        "metadata": {"name": name},
        "spec": {"foo": name},
    }))
    .unwrap();
    backups
        .create(&PostParams::default(), &probe)
        .await
        .unwrap();
}

/// The `Reconciled` events in `ns`: (object, reporting instance, event time).
async fn reconciled(admin: &kube::Client, ns: &str) -> Vec<(String, String, SystemTime)> {
    let events: Api<Event> = Api::namespaced(admin.clone(), ns);
    let list = events.list(&ListParams::default()).await.unwrap();
    list.items
        .into_iter()
        .filter(|e| e.reason.as_deref() == Some("Reconciled"))
        .map(|e| {
            let object = e.regarding.and_then(|r| r.name).unwrap_or_default();
            let instance = e.reporting_instance.unwrap_or_default();
            let time = e
                .event_time
                .map(|t| t.0.into())
                .or_else(|| e.metadata.creation_timestamp.map(|t| t.0.into()))
                .unwrap_or(SystemTime::UNIX_EPOCH);
            (object, instance, time)
        })
        .collect()
}

/// Create probe `name` and return the identity of the replica that reconciled it.
async fn probe(admin: &kube::Client, ns: &str, name: &str, replicas: &[&Replica]) -> String {
    create_probe(&custom(admin, ns, BACKUP), name).await;
    let found = tokio::time::timeout(SETTLE, async {
        loop {
            let events = reconciled(admin, ns).await;
            if let Some((_, instance, _)) = events.into_iter().find(|(object, ..)| object == name) {
                return instance;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await;
    found.unwrap_or_else(|_| {
        panic!(
            "{name} was not reconciled in {}s\n{}",
            SETTLE.as_secs(),
            logs(replicas)
        )
    })
}

/// A namespace for the test, the Lease API of the manager's namespace and a Lease name.
async fn setup(prefix: &str) -> (&'static Installed, kube::Client, String, Api<Lease>, String) {
    let installed = tutorial_operator().await;
    let admin = cluster().client().await.unwrap();
    let ns = cluster().create_namespace(&admin, prefix).await.unwrap();
    let leases: Api<Lease> = Api::namespaced(admin.clone(), &installed.system_namespace);
    let lease = format!("{ns}-lock");
    (installed, admin, ns, leases, lease)
}

#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn one_replica_reconciles_while_the_other_waits() {
    let (installed, admin, ns, leases, lease) = setup("leader-one").await;
    let (first, second) = leader_and_standby(installed, (&leases, &lease), &ns, [None, None]).await;
    for name in ["probe-1", "probe-2", "probe-3"] {
        let by = probe(&admin, &ns, name, &[&first, &second]).await;
        assert_eq!(by, first.identity, "{name} was reconciled by the leader");
    }
    let (held_by, _) = holder(&leases, &lease).await.unwrap();
    assert_eq!(held_by, first.identity);
    let events = reconciled(&admin, &ns).await;
    assert!(
        events.iter().all(|(_, by, _)| *by == first.identity),
        "only the leader reconciles: {events:?}\n--- standby:\n{}",
        second.operator.log()
    );
    let standby = second.operator.log();
    assert!(
        standby.contains("waiting for leadership") && !standby.contains("became leader"),
        "{standby}"
    );
}

#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn a_stopped_leader_releases_the_lease_and_the_standby_takes_over_at_once() {
    let (installed, admin, ns, leases, lease) = setup("leader-stop").await;
    let (first, second) = leader_and_standby(installed, (&leases, &lease), &ns, [None, None]).await;
    assert_eq!(
        probe(&admin, &ns, "before", &[&first, &second]).await,
        first.identity
    );

    let stopping = Instant::now();
    let log = first.operator.stop();
    // A clean stop gives the Lease up: right after the process exits, the old leader no
    // longer holds it, long before it would have expired.
    let after_stop = holder(&leases, &lease).await.map(|(h, _)| h);
    assert_ne!(
        after_stop.as_deref(),
        Some(first.identity.as_str()),
        "the Lease is released on a clean stop:\n{log}"
    );
    await_holder(&leases, &lease, &second, &[]).await;
    let handover = stopping.elapsed();
    eprintln!("leader handover after SIGTERM: {handover:?} (lease {LEASE:?})");
    assert!(
        handover < LEASE,
        "the standby took over in {handover:?}, not within the lease duration {LEASE:?}"
    );
    assert_eq!(
        probe(&admin, &ns, "after", &[&second]).await,
        second.identity
    );
}

/// A ServiceAccount `name` in the manager's namespace bound to the generated manager and
/// leader-election roles, as the generated bindings bind `controller-manager`; returns its
/// kubeconfig.
async fn service_account(
    admin: &kube::Client,
    installed: &Installed,
    name: &str,
) -> std::path::PathBuf {
    let system = &installed.system_namespace;
    let project = system.strip_suffix("-system").unwrap();
    let create = PostParams::default();
    let account: ServiceAccount =
        serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    Api::<ServiceAccount>::namespaced(admin.clone(), system)
        .create(&create, &account)
        .await
        .unwrap();
    let subjects = json!([{"kind": "ServiceAccount", "name": name, "namespace": system}]);
    let manager: ClusterRoleBinding = serde_json::from_value(json!({
        "metadata": {"name": format!("{name}-manager")},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                    "name": format!("{project}-manager-role")},
        "subjects": subjects,
    }))
    .unwrap();
    Api::<ClusterRoleBinding>::all(admin.clone())
        .create(&create, &manager)
        .await
        .unwrap();
    let election: RoleBinding = serde_json::from_value(json!({
        "metadata": {"name": format!("{name}-leader-election")},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                    "name": format!("{project}-leader-election-role")},
        "subjects": subjects,
    }))
    .unwrap();
    Api::<RoleBinding>::namespaced(admin.clone(), system)
        .create(&create, &election)
        .await
        .unwrap();
    cluster()
        .service_account_kubeconfig(system, name)
        .await
        .unwrap_or_else(|e| panic!("{e:#}"))
}

#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn a_leader_that_cannot_renew_stops_reconciling_before_its_lease_expires() {
    let (installed, admin, ns, leases, lease) = setup("leader-cut").await;
    let first_account = service_account(&admin, installed, &format!("{ns}-first")).await;
    let second_account = service_account(&admin, installed, &format!("{ns}-second")).await;
    let accounts = [
        Some(first_account.as_path()),
        Some(second_account.as_path()),
    ];
    let (first, second) = leader_and_standby(installed, (&leases, &lease), &ns, accounts).await;
    let both = || logs(&[&first, &second]);
    assert_eq!(
        probe(&admin, &ns, "before", &[&first, &second]).await,
        first.identity
    );

    // The partition: the leader can no longer read or renew the Lease, while it can still
    // write everything its controllers write.
    Api::<RoleBinding>::namespaced(admin.clone(), &installed.system_namespace)
        .delete(
            &format!("{ns}-first-leader-election"),
            &DeleteParams::default(),
        )
        .await
        .unwrap();
    // Follow the Lease (the leader's last renewal) until the standby holds it, creating a
    // resource to reconcile every quarter second meanwhile.
    let backups = custom(&admin, &ns, BACKUP);
    let mut last_renewal = None;
    let mut created = Vec::new();
    let mut next_probe = Instant::now();
    let deadline = Instant::now() + 3 * LEASE + SETTLE;
    loop {
        match holder(&leases, &lease).await {
            Some((by, renewed)) if by == first.identity => last_renewal = Some(renewed),
            Some((by, _)) if by == second.identity => break,
            _ => {}
        }
        if Instant::now() >= next_probe {
            let name = format!("during-{}", created.len());
            create_probe(&backups, &name).await;
            created.push((name, SystemTime::now()));
            next_probe += Duration::from_millis(250);
        }
        assert!(
            Instant::now() < deadline,
            "the standby never took over:\n{}",
            both()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let last_renewal = last_renewal.expect("the Lease was held by the leader");
    // The leader steps down once it has not renewed for the renew deadline (noticed within
    // a retry period); a second more for a busy machine, and it is still before the Lease
    // expires for the others.
    let silent_from = last_renewal + RENEW_DEADLINE + RETRY + Duration::from_secs(1);
    assert!(silent_from < last_renewal + LEASE);
    let unled: Vec<&String> = created
        .iter()
        .filter(|(_, at)| *at > silent_from)
        .map(|(name, _)| name)
        .collect();
    assert!(
        !unled.is_empty(),
        "resources were created between the renew deadline and the takeover: {created:?}"
    );

    // The new leader reconciles, including what was created while nobody led.
    assert_eq!(
        probe(&admin, &ns, "after", &[&first, &second]).await,
        second.identity,
        "reconciled by the new leader, not by the old one that can no longer renew:\n{}",
        both()
    );
    let events = eventually(
        "every resource created meanwhile is reconciled",
        SETTLE,
        || {
            let admin = admin.clone();
            let ns = ns.clone();
            let names: Vec<String> = created.iter().map(|(name, _)| name.clone()).collect();
            async move {
                let events = reconciled(&admin, &ns).await;
                let done = names
                    .iter()
                    .all(|name| events.iter().any(|(object, ..)| object == name));
                done.then_some(events)
            }
        },
    )
    .await;
    let late: Vec<_> = events
        .iter()
        .filter(|(_, by, at)| *by == first.identity && *at >= silent_from)
        .collect();
    assert!(
        late.is_empty(),
        "the old leader still wrote {:?} after its last renewal, past its renew deadline \
         ({RENEW_DEADLINE:?}): {late:?}\n{}",
        silent_from.duration_since(last_renewal).unwrap(),
        both()
    );
    for name in unled {
        let by = events.iter().find(|(object, ..)| object == name).unwrap();
        assert_eq!(
            by.1, second.identity,
            "{name} (created while nobody led) was reconciled by the new leader"
        );
    }
    let log = first.operator.log();
    assert!(log.contains("lost leadership"), "{}", both());
}

#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn the_pod_waits_for_the_whole_stop_sequence_before_killing_the_manager() {
    let installed = tutorial_operator().await;
    let admin = cluster().client().await.unwrap();
    let project = installed.system_namespace.strip_suffix("-system").unwrap();
    let deployment = Api::<Deployment>::namespaced(admin, &installed.system_namespace)
        .get(&format!("{project}-controller-manager"))
        .await
        .unwrap();
    let grace = deployment
        .spec
        .and_then(|spec| spec.template.spec)
        .and_then(|pod| pod.termination_grace_period_seconds)
        .unwrap_or(30);
    let stop = rusty_sdk_runtime::manager::STOP_TIMEOUT;
    assert!(
        Duration::from_secs(grace.unsigned_abs()) > stop,
        "terminationGracePeriodSeconds {grace} of the deployed manager does not cover its stop \
         sequence ({stop:?}): the kubelet would kill it before it releases the Lease"
    );
}
