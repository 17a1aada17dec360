//! The Helm operator's `--reconcile-period` and `--max-concurrent-reconciles` on a real
//! control plane: the tutorial's operator with watches.yaml entries that do not watch their
//! release's objects, so only the periodic reconcile can see an edit of one. An entry
//! without a period of its own takes the flag's; an entry with one keeps it.
use std::path::PathBuf;
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use rusty_sdk_test_tools::needs;
use serde_json::json;

use super::hybrid::tutorial_operator;
use super::operator::{Installed, Operator, custom};
use super::{cluster, condition, eventually};

const MEMCACHED: (&str, &str, &str, &str) = ("cache.my.domain", "v1", "Memcached", "memcacheds");
/// Installs on two busy cores take a few seconds; this is the bound.
const SETTLE: Duration = Duration::from_secs(90);
/// Well below the default period (a minute) and far above the flag's two seconds.
const REPAIRED_WITHIN: Duration = Duration::from_secs(20);

/// A watches file beside the project with the Memcached entry, dependent watches off, and
/// `extra` keys.
fn watches_file(installed: &Installed, name: &str, extra: &str) -> PathBuf {
    let path = installed.root.join(name);
    let entry = format!(
        "- group: cache.my.domain\n  version: v1\n  kind: Memcached\n  chart: helm-charts/memcached\n  watchDependentResources: false\n{extra}"
    );
    std::fs::write(&path, entry).unwrap();
    path
}

/// A namespace of its own with the tutorial's operator started with `args` watching it,
/// and a Memcached installed there; returns its Deployment's API.
async fn installed_memcached(prefix: &str, args: &[&str]) -> (Api<Deployment>, Operator) {
    let installed = tutorial_operator().await;
    let admin = cluster().client().await.unwrap();
    let ns = cluster().create_namespace(&admin, prefix).await.unwrap();
    let mut all = vec![format!("--namespace={ns}")];
    all.extend(args.iter().map(ToString::to_string));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let operator = Operator::start(installed, &all);
    let memcacheds = custom(&admin, &ns, MEMCACHED);
    let cr: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "cache.my.domain/v1",
        "kind": "Memcached",
        "metadata": {"name": "periodic"},
        "spec": {"replicaCount": 1},
    }))
    .unwrap();
    memcacheds
        .create(&PostParams::default(), &cr)
        .await
        .unwrap();
    let deployed = tokio::time::timeout(SETTLE, async {
        loop {
            let cr = memcacheds.get("periodic").await.unwrap();
            if condition(&cr, "Deployed").is_some_and(|c| c["status"] == "True") {
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await;
    assert!(deployed.is_ok(), "not deployed:\n{}", operator.log());
    // The operator's own status update brings one more reconcile, which repairs whatever it
    // finds: let its log go quiet for 3 s (at most 30 s) before another writer edits.
    let deadline = Instant::now() + Duration::from_secs(30);
    let (mut seen, mut quiet_since) = (operator.log().len(), Instant::now());
    while quiet_since.elapsed() < Duration::from_secs(3) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let now = operator.log().len();
        if now != seen {
            (seen, quiet_since) = (now, Instant::now());
        }
    }
    (Api::namespaced(admin, &ns), operator)
}

async fn replicas(deployments: &Api<Deployment>) -> Option<i32> {
    let deployment = deployments.get("periodic-memcached").await.unwrap();
    deployment.spec?.replicas
}

/// Another writer scales the release's Deployment; no watch sees it.
async fn scale_behind_helms_back(deployments: &Api<Deployment>) {
    deployments
        .patch(
            "periodic-memcached",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 5}})),
        )
        .await
        .unwrap();
}

#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn reconcile_period_flag_repairs_unwatched_drift_and_an_entrys_own_period_wins() {
    let installed = tutorial_operator().await;
    let flag_only = watches_file(installed, "watches-flag.yaml", "");
    let own_period = watches_file(installed, "watches-own.yaml", "  reconcilePeriod: 1h\n");
    let flag_watches = format!("--watches-file={}", flag_only.display());
    let own_watches = format!("--watches-file={}", own_period.display());
    let (by_flag, by_flag_operator) =
        installed_memcached("period-flag", &[&flag_watches, "--reconcile-period=2s"]).await;
    let (by_entry, by_entry_operator) =
        installed_memcached("period-own", &[&own_watches, "--reconcile-period=2s"]).await;

    scale_behind_helms_back(&by_flag).await;
    scale_behind_helms_back(&by_entry).await;
    let edited = Instant::now();
    eventually(
        "the entry without a period of its own repairs the Deployment within the flag's period",
        REPAIRED_WITHIN,
        || {
            let by_flag = by_flag.clone();
            async move { (replicas(&by_flag).await == Some(1)).then_some(()) }
        },
    )
    .await;
    let repaired_after = edited.elapsed();
    // As long again and more: the entry with its own hour does not come back.
    tokio::time::sleep(REPAIRED_WITHIN.saturating_sub(edited.elapsed()) + Duration::from_secs(4))
        .await;
    assert_eq!(
        replicas(&by_entry).await,
        Some(5),
        "the entry's reconcilePeriod (1h) gave way to --reconcile-period=2s; its operator's log:\n{}",
        by_entry_operator.log()
    );
    // Its operator is at work all the same: a change of the resource is reconciled at once,
    // so what kept the drift was the entry's period, not an operator that stopped.
    let ns = by_entry.namespace().unwrap().to_string();
    let admin = cluster().client().await.unwrap();
    custom(&admin, &ns, MEMCACHED)
        .patch(
            "periodic",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicaCount": 2}})),
        )
        .await
        .unwrap();
    // Liveness, not timing: the install bound, as for the first deploy.
    eventually(
        "the entry with its own period still reconciles a change of its resource",
        SETTLE,
        || {
            let by_entry = by_entry.clone();
            async move { (replicas(&by_entry).await == Some(2)).then_some(()) }
        },
    )
    .await;
    eprintln!("repaired {repaired_after:?} after the edit with --reconcile-period=2s");
    drop(by_flag_operator);
    drop(by_entry_operator);
}

/// `--max-concurrent-reconciles` reaches the controller, and an entry's own
/// `maxConcurrentReconciles` wins over it: controller-runtime's gauge says which. The default
/// (four per CPU) is never 3, so the flag's value shows it beat the default.
#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn max_concurrent_reconciles_flag_sets_the_workers_and_an_entrys_own_value_wins() {
    let installed = tutorial_operator().await;
    let own_value = watches_file(
        installed,
        "watches-workers.yaml",
        "  maxConcurrentReconciles: 2\n",
    );
    let own_watches = format!("--watches-file={}", own_value.display());
    let admin = cluster().client().await.unwrap();
    for (watches, workers) in [(None, 3), (Some(own_watches.as_str()), 2)] {
        let ns = cluster()
            .create_namespace(&admin, "concurrency-flag")
            .await
            .unwrap();
        let port = crate::e2e::free_port();
        let mut args = vec![
            format!("--namespace={ns}"),
            format!("--metrics-bind-address=127.0.0.1:{port}"),
            "--metrics-secure=false".to_string(),
            "--max-concurrent-reconciles=3".to_string(),
        ];
        args.extend(watches.map(ToString::to_string));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let operator = Operator::start(installed, &args);
        let gauge =
            "controller_runtime_max_concurrent_reconciles{controller=\"memcached-controller\"} ";
        let want = format!("{gauge}{workers}");
        let shown = tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                let text = crate::e2e::http_get(port, "/metrics").unwrap_or_default();
                if let Some(line) = text.lines().find(|line| line.starts_with(gauge)) {
                    return line.to_string();
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        })
        .await;
        assert_eq!(
            shown.as_deref(),
            Ok(want.as_str()),
            "watches file {watches:?} with --max-concurrent-reconciles=3; the operator's log:\n{}",
            operator.log()
        );
        drop(operator);
    }
}
