//! Rust controllers on a real control plane, run with only the permissions of the role
//! `generate rbac` wrote: a `--plugins rust` project with the default controller (kind
//! `Backup`), a second controller of `Backup` (`--controller-name backup-audit`) and a
//! deploy-image controller (kind `Memcached`). Their objects come by
//! server-side apply, owned by the resource; status conditions carry the generation they
//! reconciled; events are published; a spec change rolls out; `Available` follows the
//! Deployment's rollout; conditions other writers set survive; a resource can be deleted
//! while no operator runs; and `/metrics` has controller-runtime's series with real values.
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::events::v1::Event;
use kube::api::{Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use rusty_sdk_test_tools::needs;
use serde_json::{Value, json};
use tokio::sync::OnceCell;

use super::operator::{Installed, Operator, custom, install};
use super::{await_gone, cluster, condition, eventually};
use crate::support::{rusty, transcript};

const BACKUP: (&str, &str, &str, &str) = ("cache.rust.my.domain", "v1", "Backup", "backups");
const MEMCACHED: (&str, &str, &str, &str) = (
    "cache.rust.my.domain",
    "v1alpha1",
    "Memcached",
    "memcacheds",
);
/// The field managers of the controllers (`<controller name>-controller`).
const BACKUP_MANAGER: &str = "backup-controller";
/// Backup's second controller, `create api --controller-name backup-audit`, and its
/// condition.
const AUDIT_MANAGER: &str = "backup-audit-controller";
const AUDIT_AVAILABLE: &str = "BackupAuditAvailable";
const MEMCACHED_MANAGER: &str = "memcached-controller";
/// The image the deploy-image controller runs (no kubelet runs it here).
const IMAGE: &str = "memcached:1.6";
/// The deploy-image controller's reason while its Deployment has not rolled out the
/// generation it applied (no Deployment controller runs on this control plane).
const PENDING: &str = "RolloutPending";
/// Reconciles on two busy cores take a moment; this is the bound.
const SETTLE: Duration = Duration::from_secs(60);

/// The project, scaffolded with the CLI, built once and installed on the control plane.
async fn rust_operator() -> &'static Installed {
    static INSTALLED: OnceCell<(tempfile::TempDir, Installed)> = OnceCell::const_new();
    let (_, installed) = INSTALLED
        .get_or_init(|| async {
            let (dir, root) = crate::e2e::project_dir("cluster-rust");
            let init = [
                "init",
                "--plugins",
                "rust",
                "--domain",
                "rust.my.domain",
                "--repo",
                "github.com/example/cluster-rust",
            ];
            scaffold(&root, &init, "");
            let backup = [
                "create",
                "api",
                "--plugins",
                "rust",
                "--group",
                "cache",
                "--version",
                "v1",
                "--kind",
                "Backup",
            ];
            let prompts = scaffold(&root, &backup, "y\ny\n");
            assert!(
                prompts.contains("Create Resource [y/n]\nCreate Controller [y/n]\n"),
                "{prompts}"
            );
            let memcached = [
                "create",
                "api",
                "--plugins",
                "rust",
                "--group",
                "cache",
                "--version",
                "v1alpha1",
                "--kind",
                "Memcached",
                "--image",
                IMAGE,
                "--image-container-command",
                "memcached,-m=64,-o,modern,-v",
                "--image-container-port",
                "11211",
                "--run-as-user",
                "1001",
            ];
            scaffold(&root, &memcached, "");
            // A second controller of Backup (kubebuilder's --controller-name).
            let audit = [
                "create",
                "api",
                "--plugins",
                "rust",
                "--group",
                "cache",
                "--version",
                "v1",
                "--kind",
                "Backup",
                "--resource=false",
                "--controller-name",
                "backup-audit",
            ];
            scaffold(&root, &audit, "");
            (dir, install(&root).await)
        })
        .await;
    installed
}

fn scaffold(root: &std::path::Path, args: &[&str], stdin: &str) -> String {
    let output = rusty(root).args(args).write_stdin(stdin).output().unwrap();
    let text = transcript(&output, root);
    assert!(output.status.success(), "{}:\n{text}", args.join(" "));
    text
}

/// A test namespace with the operator watching it alone.
async fn setup(prefix: &str) -> (kube::Client, String, Operator) {
    let installed = rust_operator().await;
    let admin = cluster().client().await.unwrap();
    let ns = cluster().create_namespace(&admin, prefix).await.unwrap();
    let operator = start(installed, &ns);
    (admin, ns, operator)
}

fn start(installed: &Installed, ns: &str) -> Operator {
    Operator::start_with_env(
        installed,
        &[&format!("--namespace={ns}")],
        &[("MEMCACHED_IMAGE", IMAGE)],
    )
}

fn object(kind: (&str, &str, &str, &str), name: &str, spec: Value) -> DynamicObject {
    let (group, version, kind, _) = kind;
    serde_json::from_value(json!({
        "apiVersion": format!("{group}/{version}"),
        "kind": kind,
        "metadata": {"name": name},
        "spec": spec,
    }))
    .unwrap()
}

/// Wait until `name`'s condition `type_` has `reason` and reflects the resource's current
/// generation (observedGeneration equal to metadata.generation); returns the resource.
async fn await_reconciled(
    api: &Api<DynamicObject>,
    name: &str,
    type_: &str,
    reason: &str,
    operator: &Operator,
) -> DynamicObject {
    let found = tokio::time::timeout(SETTLE, async {
        loop {
            if let Some(cr) = api.get_opt(name).await.unwrap() {
                let generation = cr.metadata.generation;
                if condition(&cr, type_).is_some_and(|c| {
                    c["reason"] == reason && c["observedGeneration"].as_i64() == generation
                }) {
                    return cr;
                }
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await;
    if let Ok(cr) = found {
        cr
    } else {
        let now = api.get_opt(name).await.unwrap();
        panic!(
            "{name} has no condition {type_} ({reason}) of its generation after {}s: {:#}\noperator log:\n{}",
            SETTLE.as_secs(),
            now.map_or(
                Value::Null,
                |cr| json!({"generation": cr.metadata.generation, "status": cr.data["status"]})
            ),
            operator.log()
        )
    }
}

/// The events about the object of `uid` in `ns`, as (reason, note, how many times it was
/// recorded). A recorder that publishes an event of the same reason again within minutes
/// adds to its series (the note stays the first one's), as client-go's does.
async fn events_about(admin: &kube::Client, ns: &str, uid: &str) -> Vec<(String, String, i32)> {
    Api::<Event>::namespaced(admin.clone(), ns)
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|e| e.regarding.as_ref().and_then(|r| r.uid.as_deref()) == Some(uid))
        .map(|e| {
            (
                e.reason.unwrap_or_default(),
                e.note.unwrap_or_default(),
                e.series.map_or(1, |s| s.count),
            )
        })
        .collect()
}

/// Wait until events about `uid` with `reason` and a note containing `note` were recorded
/// `times` times.
async fn await_event(
    admin: &kube::Client,
    ns: &str,
    uid: &str,
    (reason, note, times): (&str, &str, i32),
    operator: &Operator,
) {
    let found = tokio::time::timeout(SETTLE, async {
        loop {
            let events = events_about(admin, ns, uid).await;
            let recorded: i32 = events
                .iter()
                .filter(|(r, n, _)| r == reason && n.contains(note))
                .map(|(_, _, count)| count)
                .sum();
            if recorded >= times {
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await;
    assert!(
        found.is_ok(),
        "no event {reason} ({note}) {times} times about {uid} after {}s; events: {:?}\noperator log:\n{}",
        SETTLE.as_secs(),
        events_about(admin, ns, uid).await,
        operator.log()
    );
}

/// The managedFields entries of `manager` as (operation, subresource, fields).
fn managed_by(
    fields: Option<&Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry>>,
    manager: &str,
) -> Vec<(String, String, Value)> {
    fields
        .into_iter()
        .flatten()
        .filter(|entry| entry.manager.as_deref() == Some(manager))
        .map(|entry| {
            (
                entry.operation.clone().unwrap_or_default(),
                entry.subresource.clone().unwrap_or_default(),
                entry
                    .fields_v1
                    .as_ref()
                    .map_or(Value::Null, |f| f.0.clone()),
            )
        })
        .collect()
}

fn spec_patch(spec: Value) -> Patch<Value> {
    Patch::Merge(json!({ "spec": spec }))
}

#[needs(control_plane, e2e, kubectl)]
#[tokio::test]
async fn the_default_controller_reports_each_generation_with_events() {
    let (admin, ns, operator) = setup("rust-default").await;
    let backups = custom(&admin, &ns, BACKUP);
    backups
        .create(
            &PostParams::default(),
            &object(BACKUP, "nightly", json!({"foo": "a"})),
        )
        .await
        .unwrap();

    let cr = await_reconciled(&backups, "nightly", "Available", "Reconciled", &operator).await;
    assert_eq!(condition(&cr, "Available").unwrap()["status"], "True");
    assert_eq!(cr.metadata.generation, Some(1));
    let uid = cr.metadata.uid.clone().unwrap();
    await_event(
        &admin,
        &ns,
        &uid,
        ("Reconciled", "generation 1", 1),
        &operator,
    )
    .await;
    // The status is the controller's by server-side apply, on the status subresource.
    let status = managed_by(cr.metadata.managed_fields.as_ref(), BACKUP_MANAGER);
    assert!(
        status.iter().any(|(op, sub, fields)| op == "Apply"
            && sub == "status"
            && fields["f:status"].is_object()),
        "{status:#?}"
    );
    // Its cleanup does nothing, so it holds no finalizer that would keep the resource.
    assert_eq!(cr.metadata.finalizers, None, "no finalizer without cleanup");

    // A new spec is a new generation, reported as such.
    backups
        .patch(
            "nightly",
            &PatchParams::default(),
            &spec_patch(json!({"foo": "b"})),
        )
        .await
        .unwrap();
    let cr = await_reconciled(&backups, "nightly", "Available", "Reconciled", &operator).await;
    assert_eq!(cr.metadata.generation, Some(2));
    assert_eq!(
        condition(&cr, "Available").unwrap()["message"],
        "Generation 2 is reconciled"
    );
    // The same reason again: the event's series counts it.
    await_event(
        &admin,
        &ns,
        &uid,
        ("Reconciled", "Reconciled", 2),
        &operator,
    )
    .await;
    operator.stop();
}

/// Two controllers of one kind reconcile each object side by side, each reporting the
/// generation in its own condition, applied under its own field manager.
#[needs(control_plane, e2e, kubectl)]
#[tokio::test]
async fn two_controllers_of_one_kind_both_reconcile_it() {
    let (admin, ns, operator) = setup("rust-two").await;
    let backups = custom(&admin, &ns, BACKUP);
    backups
        .create(
            &PostParams::default(),
            &object(BACKUP, "weekly", json!({"foo": "a"})),
        )
        .await
        .unwrap();
    for generation in [1, 2] {
        if generation == 2 {
            backups
                .patch(
                    "weekly",
                    &PatchParams::default(),
                    &spec_patch(json!({"foo": "b"})),
                )
                .await
                .unwrap();
        }
        for condition_type in ["Available", AUDIT_AVAILABLE] {
            let cr =
                await_reconciled(&backups, "weekly", condition_type, "Reconciled", &operator).await;
            assert_eq!(cr.metadata.generation, Some(generation));
        }
    }
    // Each condition is its controller's own, by server-side apply on the status.
    let cr = backups.get("weekly").await.unwrap();
    let fields = cr.metadata.managed_fields.as_ref();
    for (manager, own, other) in [
        (BACKUP_MANAGER, "Available", AUDIT_AVAILABLE),
        (AUDIT_MANAGER, AUDIT_AVAILABLE, "Available"),
    ] {
        let owned = managed_by(fields, manager);
        let status: Vec<String> = owned
            .iter()
            .filter(|(op, sub, _)| op == "Apply" && sub == "status")
            .map(|(_, _, fields)| fields.to_string())
            .collect();
        assert!(
            status
                .iter()
                .any(|f| f.contains(&format!("{{\\\"type\\\":\\\"{own}\\\"}}"))),
            "{manager} does not own {own}: {owned:#?}"
        );
        assert!(
            !status
                .iter()
                .any(|f| f.contains(&format!("{{\\\"type\\\":\\\"{other}\\\"}}"))),
            "{manager} took over {other}: {owned:#?}"
        );
    }
    operator.stop();
}

#[needs(control_plane, e2e, kubectl)]
#[tokio::test]
async fn deploy_image_applies_its_deployment_and_rolls_out_a_new_size() {
    let (admin, ns, operator) = setup("rust-image").await;
    let memcacheds = custom(&admin, &ns, MEMCACHED);
    memcacheds
        .create(
            &PostParams::default(),
            &object(
                MEMCACHED,
                "cache",
                json!({"size": 1, "containerPort": 11211}),
            ),
        )
        .await
        .unwrap();

    // No Deployment controller runs here (nor a kubelet), so nothing rolls out: Available
    // stays False, of generation 1.
    let cr = await_reconciled(&memcacheds, "cache", "Available", PENDING, &operator).await;
    assert_eq!(condition(&cr, "Available").unwrap()["status"], "False");
    assert_eq!(cr.metadata.finalizers, None, "no finalizer without cleanup");
    let uid = cr.metadata.uid.clone().unwrap();
    let note = "has not yet seen generation 1";
    await_event(&admin, &ns, &uid, (PENDING, note, 1), &operator).await;

    let deployments = Api::<Deployment>::namespaced(admin.clone(), &ns);
    let deployment = deployments.get("cache").await.unwrap();
    let spec = deployment.spec.clone().unwrap();
    assert_eq!(spec.replicas, Some(1));
    let pod = spec.template.spec.unwrap();
    assert_eq!(pod.containers[0].image.as_deref(), Some(IMAGE));
    assert_eq!(
        pod.containers[0].command,
        Some(
            ["memcached", "-m=64", "-o", "modern", "-v"]
                .map(String::from)
                .to_vec()
        )
    );
    // Owned by the Memcached, as its controller, so it goes with it.
    let owners = deployment
        .metadata
        .owner_references
        .clone()
        .unwrap_or_default();
    assert!(
        owners
            .iter()
            .any(|o| o.uid == uid && o.kind == "Memcached" && o.controller == Some(true)),
        "{owners:#?}"
    );
    // Applied server-side by the controller's field manager.
    let applied = managed_by(
        deployment.metadata.managed_fields.as_ref(),
        MEMCACHED_MANAGER,
    );
    assert!(
        applied.iter().any(|(op, sub, fields)| op == "Apply"
            && sub.is_empty()
            && fields["f:spec"]["f:replicas"].is_object()),
        "{applied:#?}"
    );

    // A new size rolls out to the Deployment, and the condition follows the generation.
    memcacheds
        .patch(
            "cache",
            &PatchParams::default(),
            &spec_patch(json!({"size": 2})),
        )
        .await
        .unwrap();
    let cr = await_reconciled(&memcacheds, "cache", "Available", PENDING, &operator).await;
    assert_eq!(cr.metadata.generation, Some(2));
    let deployment = deployments.get("cache").await.unwrap();
    let replicas = deployment.spec.as_ref().unwrap().replicas;
    assert_eq!(replicas, Some(2), "operator log:\n{}", operator.log());
    let generation = deployment.metadata.generation.unwrap();
    assert_eq!(
        condition(&cr, "Available").unwrap()["message"],
        format!("Deployment cache has not yet seen generation {generation}").as_str()
    );

    // The rollout as a Deployment controller and kubelets would report it: the new
    // generation rolled out is Available; two ready pods of a generation before it are not
    // (each state changes the condition, so each is the controller's answer to it).
    for (observed, reason, status) in [
        (generation, "PodsReady", "True"),
        (generation - 1, PENDING, "False"),
    ] {
        rolled_out(&deployments, observed, 2).await;
        eventually(&format!("cache says {reason}"), SETTLE, || {
            let memcacheds = memcacheds.clone();
            async move {
                let cr = memcacheds.get("cache").await.unwrap();
                let available = condition(&cr, "Available")?;
                (available["reason"] == reason && available["status"] == status).then_some(())
            }
        })
        .await;
    }

    // A deleted Deployment comes back (the controller watches what it owns).
    deployments
        .delete("cache", &DeleteParams::foreground())
        .await
        .unwrap();
    let first = deployment.metadata.uid.clone();
    eventually("the Deployment is applied again", SETTLE, || {
        let deployments = deployments.clone();
        let first = first.clone();
        async move {
            let d = deployments.get_opt("cache").await.unwrap()?;
            (d.metadata.uid != first && d.metadata.deletion_timestamp.is_none()).then_some(())
        }
    })
    .await;
    operator.stop();
}

/// Write the status of Deployment `cache` as its controller would once `observed` is the
/// generation it saw and `pods` pods of it are available.
async fn rolled_out(deployments: &Api<Deployment>, observed: i64, pods: i32) {
    let status = json!({"status": {
        "observedGeneration": observed,
        "replicas": pods, "updatedReplicas": pods, "readyReplicas": pods, "availableReplicas": pods,
    }});
    deployments
        .patch_status("cache", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .unwrap();
}

/// Another writer applies condition `Backed` (`status`) to `name`'s status with its own
/// field manager, without force: it owns nothing the controller owns.
async fn apply_other_condition(
    api: &Api<DynamicObject>,
    kind: (&str, &str, &str, &str),
    name: &str,
    status: &str,
) -> Result<DynamicObject, kube::Error> {
    let (group, version, kind, _) = kind;
    let patch = json!({
        "apiVersion": format!("{group}/{version}"),
        "kind": kind,
        "status": {"conditions": [{
            "type": "Backed",
            "status": status,
            "reason": "ByHand",
            "message": "set by another writer",
            "lastTransitionTime": "2026-11-27T00:00:00Z",
        }]},
    });
    api.patch_status(
        name,
        &PatchParams::apply("other-writer"),
        &Patch::Apply(&patch),
    )
    .await
}

/// The other writer's condition survives the controller's next reconcile, the controller
/// does not take it over, and the other writer can change it again without a conflict.
async fn others_condition_survives(
    api: &Api<DynamicObject>,
    kind: (&str, &str, &str, &str),
    name: &str,
    reason: &str,
    spec: Value,
    manager: &str,
    operator: &Operator,
) {
    await_reconciled(api, name, "Available", reason, operator).await;
    apply_other_condition(api, kind, name, "True")
        .await
        .unwrap_or_else(|e| panic!("the other writer's condition was refused: {e}"));
    // A new generation: the controller applies its condition again.
    api.patch(name, &PatchParams::default(), &spec_patch(spec))
        .await
        .unwrap();
    let cr = await_reconciled(api, name, "Available", reason, operator).await;
    let backed = condition(&cr, "Backed");
    assert_eq!(
        backed.map(|c| &c["status"]),
        Some(&json!("True")),
        "the other writer's condition is lost: {:#}\noperator log:\n{}",
        cr.data["status"],
        operator.log()
    );
    let owned = managed_by(cr.metadata.managed_fields.as_ref(), manager);
    assert!(
        !owned
            .iter()
            .any(|(_, _, fields)| fields.to_string().contains("Backed")),
        "the controller took over the other writer's condition: {owned:#?}"
    );
    let cr = apply_other_condition(api, kind, name, "False")
        .await
        .unwrap_or_else(|e| panic!("the other writer cannot change its own condition: {e}"));
    assert_eq!(condition(&cr, "Backed").unwrap()["status"], "False");
    assert!(
        condition(&cr, "Available").is_some(),
        "{:#}",
        cr.data["status"]
    );
}

/// A Backup `nightly` and a Memcached `cache` of size 1 in `ns`; returns their APIs.
async fn create_both(admin: &kube::Client, ns: &str) -> (Api<DynamicObject>, Api<DynamicObject>) {
    let backups = custom(admin, ns, BACKUP);
    let memcacheds = custom(admin, ns, MEMCACHED);
    let post = PostParams::default();
    let backup = object(BACKUP, "nightly", json!({}));
    backups.create(&post, &backup).await.unwrap();
    let memcached = object(MEMCACHED, "cache", json!({"size": 1}));
    memcacheds.create(&post, &memcached).await.unwrap();
    (backups, memcacheds)
}

#[needs(control_plane, e2e, kubectl)]
#[tokio::test]
async fn another_writers_condition_survives_a_reconcile() {
    let (admin, ns, operator) = setup("rust-conditions").await;
    let (backups, memcacheds) = create_both(&admin, &ns).await;
    others_condition_survives(
        &backups,
        BACKUP,
        "nightly",
        "Reconciled",
        json!({"foo": "b"}),
        BACKUP_MANAGER,
        &operator,
    )
    .await;
    others_condition_survives(
        &memcacheds,
        MEMCACHED,
        "cache",
        PENDING,
        json!({"size": 2}),
        MEMCACHED_MANAGER,
        &operator,
    )
    .await;
    operator.stop();
}

#[needs(control_plane, e2e, kubectl)]
#[tokio::test]
async fn resources_are_deleted_while_no_operator_runs() {
    let (admin, ns, operator) = setup("rust-delete").await;
    let (backups, memcacheds) = create_both(&admin, &ns).await;
    // A finalizer an earlier version of the controller added (it kept one on every object).
    let mut legacy = object(BACKUP, "legacy", json!({}));
    legacy.metadata.finalizers = Some(vec!["cache.rust.my.domain/finalizer".into()]);
    backups
        .create(&PostParams::default(), &legacy)
        .await
        .unwrap();
    await_reconciled(&backups, "nightly", "Available", "Reconciled", &operator).await;
    await_reconciled(&backups, "legacy", "Available", "Reconciled", &operator).await;
    let finalizers = backups.get("legacy").await.unwrap().metadata.finalizers;
    assert_eq!(
        finalizers, None,
        "the earlier version's finalizer is removed"
    );
    await_reconciled(&memcacheds, "cache", "Available", PENDING, &operator).await;
    let deployments = Api::<Deployment>::namespaced(admin.clone(), &ns);
    assert!(deployments.get_opt("cache").await.unwrap().is_some());

    // The operator is uninstalled, or crash-looping: nothing reconciles any more.
    operator.stop();
    for name in ["nightly", "legacy"] {
        backups
            .delete(name, &DeleteParams::default())
            .await
            .unwrap();
    }
    memcacheds
        .delete("cache", &DeleteParams::default())
        .await
        .unwrap();
    for (api, name) in [
        (&backups, "nightly"),
        (&backups, "legacy"),
        (&memcacheds, "cache"),
    ] {
        let what = format!("{name} is gone (not kept in Terminating by a finalizer)");
        await_gone(api, name, &what, Duration::from_secs(20)).await;
    }
    // The garbage collector takes the Deployment with its owner.
    await_gone(
        &deployments,
        "cache",
        "the Deployment is gone with its Memcached",
        SETTLE,
    )
    .await;
}

/// The value of the first sample of `series` (its name and the start of its labels) in a
/// Prometheus text exposition.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .filter(|line| line.starts_with(series))
        .find_map(|line| line.rsplit_once(' ')?.1.parse().ok())
}

#[needs(control_plane, e2e, kubectl)]
#[tokio::test]
#[expect(
    clippy::float_cmp,
    reason = "the samples compared are counts, exact in f64"
)]
async fn metrics_are_controller_runtimes_with_real_values() {
    let installed = rust_operator().await;
    let admin = cluster().client().await.unwrap();
    let ns = cluster()
        .create_namespace(&admin, "rust-metrics")
        .await
        .unwrap();
    let port = crate::e2e::free_port();
    let operator = Operator::start_with_env(
        installed,
        &[
            &format!("--namespace={ns}"),
            &format!("--metrics-bind-address=127.0.0.1:{port}"),
            "--metrics-secure=false",
        ],
        &[("MEMCACHED_IMAGE", IMAGE)],
    );
    let (backups, memcacheds) = create_both(&admin, &ns).await;
    // A finalizer an earlier version left: its reconcile removes it and waits for the
    // change (`success`), where the others come back after their resync (`requeue_after`).
    let mut legacy = object(BACKUP, "legacy", json!({}));
    legacy.metadata.finalizers = Some(vec!["cache.rust.my.domain/finalizer".into()]);
    backups
        .create(&PostParams::default(), &legacy)
        .await
        .unwrap();
    await_reconciled(&backups, "nightly", "Available", "Reconciled", &operator).await;
    await_reconciled(&backups, "legacy", "Available", "Reconciled", &operator).await;
    await_reconciled(&memcacheds, "cache", "Available", PENDING, &operator).await;

    let text = crate::e2e::http_get(port, "/metrics").expect("/metrics answers");
    let value = |series: &str| {
        sample(&text, series)
            .unwrap_or_else(|| panic!("no {series} in\n{text}\noperator log:\n{}", operator.log()))
    };
    for controller in ["backup", "memcached"] {
        let labels = format!("{{controller=\"{controller}\"");
        let queue = format!("{{name=\"{controller}\",controller=\"{controller}\"}}");
        let total =
            format!("controller_runtime_reconcile_total{labels},result=\"requeue_after\"}}");
        assert!(value(&total) >= 1.0, "{total}");
        assert!(
            value(&format!(
                "controller_runtime_reconcile_time_seconds_count{labels}}}"
            )) >= 1.0
        );
        assert_eq!(
            value(&format!(
                "controller_runtime_max_concurrent_reconciles{labels}}}"
            )),
            4.0
        );
        assert!(value(&format!("controller_runtime_active_workers{labels}}}")) >= 0.0);
        assert!(value(&format!("workqueue_adds_total{queue}")) >= 1.0);
        assert!(value(&format!("workqueue_retries_total{queue}")) >= 1.0);
        assert!(value(&format!("workqueue_queue_duration_seconds_count{queue}")) >= 1.0);
        assert!(value(&format!("workqueue_work_duration_seconds_count{queue}")) >= 1.0);
        assert!(value(&format!("workqueue_depth{{name=\"{controller}\"")) >= 0.0);
    }
    let removed = "controller_runtime_reconcile_total{controller=\"backup\",result=\"success\"}";
    assert!(
        value(removed) >= 1.0,
        "the finalizer's removal waits for its change"
    );
    // The process, as /proc has it.
    assert!(value("process_cpu_seconds_total ") > 0.0);
    assert!(value("process_resident_memory_bytes ") > 1e6);
    assert!(value("process_open_fds ") > 0.0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let started = value("process_start_time_seconds ");
    assert!(
        started <= now && started > now - 600.0,
        "{started} vs {now}"
    );
    // The client's requests: the lists and watches, the status applies and events.
    let host = text
        .lines()
        .find_map(|line| {
            line.strip_prefix("rest_client_requests_total{code=\"200\",method=\"GET\",host=\"")
        })
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no successful GET in\n{text}"));
    assert!(host.starts_with("127.0.0.1:"), "{host}");
    let patches =
        format!("rest_client_requests_total{{code=\"200\",method=\"PATCH\",host=\"{host}\"}}");
    assert!(value(&patches) >= 3.0, "{patches}");
    let created =
        format!("rest_client_requests_total{{code=\"201\",method=\"POST\",host=\"{host}\"}}");
    assert!(value(&created) >= 1.0, "events: {created}");
    let latency =
        format!("rest_client_request_duration_seconds_count{{verb=\"PATCH\",host=\"{host}\"}}");
    // Every PATCH is timed, whatever its code.
    assert!(value(&latency) >= value(&patches), "{latency}");
    operator.stop();
}
