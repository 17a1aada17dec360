//! The tutorial's hybrid operator on a real control plane, with only the permissions of the
//! role `generate rbac` wrote: a Memcached installs its chart as a Helm release that the
//! real `helm` reads, upgrades, repairs its objects, rolls back a failed upgrade, and
//! uninstalls when the resource or its namespace goes.
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use kube::api::{Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use rusty_sdk_test_tools::needs;
use serde_json::{Value, json};
use tokio::sync::OnceCell;

use super::operator::{Installed, Operator, custom, helm, install};
use super::{await_gone, cluster, condition, eventually};

pub(super) const MEMCACHED: (&str, &str, &str, &str) =
    ("cache.my.domain", "v1", "Memcached", "memcacheds");
/// Installs and upgrades on two busy cores take a few seconds; this is the bound.
const SETTLE: Duration = Duration::from_secs(90);

/// The tutorial's project, built once and installed on the control plane.
pub(super) async fn tutorial_operator() -> &'static Installed {
    static INSTALLED: OnceCell<(tempfile::TempDir, Installed)> = OnceCell::const_new();
    let (_, installed) = INSTALLED
        .get_or_init(|| async {
            let (dir, root) = crate::tutorial::tutorial_in("cluster-hybrid");
            (dir, install(&root).await)
        })
        .await;
    installed
}

/// A test namespace with the tutorial's operator watching it alone.
async fn setup(prefix: &str) -> (kube::Client, String, Operator) {
    let installed = tutorial_operator().await;
    let admin = cluster().client().await.unwrap();
    let ns = cluster().create_namespace(&admin, prefix).await.unwrap();
    let operator = Operator::start(installed, &[&format!("--namespace={ns}")]);
    (admin, ns, operator)
}

pub(super) fn memcached(name: &str, spec: Value) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": "cache.my.domain/v1",
        "kind": "Memcached",
        "metadata": {"name": name},
        "spec": spec,
    }))
    .unwrap()
}

/// Wait until `name`'s condition `type_` is `True` with `reason`; returns the resource.
pub(super) async fn await_condition(
    api: &Api<DynamicObject>,
    name: &str,
    type_: &str,
    reason: &str,
    operator: &Operator,
) -> DynamicObject {
    let what = format!("{name} has condition {type_}=True ({reason})");
    let found = tokio::time::timeout(SETTLE, async {
        loop {
            if let Some(cr) = api.get_opt(name).await.unwrap()
                && condition(&cr, type_)
                    .is_some_and(|c| c["status"] == "True" && c["reason"] == reason)
            {
                return cr;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await;
    found.unwrap_or_else(|_| {
        panic!(
            "{what}: not so after {}s; operator log:\n{}",
            SETTLE.as_secs(),
            operator.log()
        )
    })
}

/// The release's revisions as the real helm lists them: (revision, status).
/// The release's revisions and their statuses; none while it has no record (between an
/// uninstall's end and a fresh install, `helm history` says `release: not found`).
pub(super) fn history(ns: &str, release: &str) -> Vec<(u64, String)> {
    let output = super::operator::tool_command("helm")
        .args(["history", release, "-n", ns, "-o", "json"])
        .output()
        .unwrap();
    let errors = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() && errors.contains("release: not found") {
        return Vec::new();
    }
    assert!(output.status.success(), "helm history {release}: {errors}");
    let text = String::from_utf8_lossy(&output.stdout);
    let entries: Vec<Value> = serde_json::from_str(&text).unwrap();
    entries
        .iter()
        .map(|e| {
            (
                e["revision"].as_u64().unwrap(),
                e["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

async fn deployment(admin: &kube::Client, ns: &str, name: &str) -> Option<Deployment> {
    Api::<Deployment>::namespaced(admin.clone(), ns)
        .get_opt(name)
        .await
        .unwrap()
}

#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn memcached_installs_upgrades_restarts_and_uninstalls() {
    let (admin, ns, operator) = setup("hybrid").await;
    let memcacheds = custom(&admin, &ns, MEMCACHED);
    memcacheds
        .create(
            &PostParams::default(),
            &memcached("cache", json!({"replicaCount": 1})),
        )
        .await
        .unwrap();

    let cr = await_condition(
        &memcacheds,
        "cache",
        "Deployed",
        "InstallSuccessful",
        &operator,
    )
    .await;
    assert_eq!(
        cr.data["status"]["deployedRelease"]["name"], "cache",
        "{:#}",
        cr.data["status"]
    );
    assert!(
        cr.metadata
            .finalizers
            .iter()
            .flatten()
            .any(|f| f.contains("uninstall")),
        "the finalizer that uninstalls the release is set: {:?}",
        cr.metadata.finalizers
    );
    let replicas = |d: Option<Deployment>| d.and_then(|d| d.spec).and_then(|s| s.replicas);
    assert_eq!(
        replicas(deployment(&admin, &ns, "cache-memcached").await),
        Some(1)
    );
    // The real helm reads the release the operator wrote.
    let list: Vec<Value> = serde_json::from_str(&helm(&["list", "-n", &ns, "-o", "json"])).unwrap();
    assert_eq!(list.len(), 1, "{list:#?}");
    assert_eq!(
        (list[0]["name"].as_str(), list[0]["status"].as_str()),
        (Some("cache"), Some("deployed"))
    );
    assert!(helm(&["status", "cache", "-n", &ns]).contains("STATUS: deployed"));
    let values: Value =
        serde_json::from_str(&helm(&["get", "values", "cache", "-n", &ns, "-o", "json"])).unwrap();
    // The spec coalesced with the chart's defaults, as helm-operator-plugins stores them
    // (an emptied spec then means the chart's defaults, not the last release's values).
    assert_eq!(values["replicaCount"], 1, "{values:#}");
    assert_eq!(values["image"]["repository"], "nginx", "{values:#}");
    assert_eq!(history(&ns, "cache"), [(1, "deployed".to_string())]);

    // A spec change upgrades.
    memcacheds
        .patch(
            "cache",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicaCount": 2}})),
        )
        .await
        .unwrap();
    await_condition(
        &memcacheds,
        "cache",
        "Deployed",
        "UpgradeSuccessful",
        &operator,
    )
    .await;
    let live = deployment(&admin, &ns, "cache-memcached").await;
    assert_eq!(
        replicas(live.clone()),
        Some(2),
        "the upgrade reached the Deployment: {:#?}\nrelease manifest:\n{}\noperator log:\n{}",
        live.map(|d| d.metadata.managed_fields),
        helm(&["get", "manifest", "cache", "-n", &ns]),
        operator.log()
    );
    assert_eq!(
        history(&ns, "cache"),
        [(1, "superseded".to_string()), (2, "deployed".to_string())]
    );

    // A restart finds the release as it wants it and changes nothing.
    operator.stop();
    let installed = tutorial_operator().await;
    let operator = Operator::start(
        installed,
        &[
            &format!("--namespace={ns}"),
            "--log-level=info,rusty_sdk_runtime=debug",
        ],
    );
    eventually(
        "the restarted operator reconciles the resource",
        SETTLE,
        || {
            let log = operator.log();
            async move { log.contains("reconciled").then_some(()) }
        },
    )
    .await;
    assert_eq!(
        history(&ns, "cache").len(),
        2,
        "a restart made a new revision"
    );

    // Deleting the resource uninstalls the release and lets the resource go.
    memcacheds
        .delete("cache", &DeleteParams::default())
        .await
        .unwrap();
    await_gone(&memcacheds, "cache", "the Memcached is gone", SETTLE).await;
    assert!(deployment(&admin, &ns, "cache-memcached").await.is_none());
    let list: Vec<Value> = serde_json::from_str(&helm(&["list", "-n", &ns, "-o", "json"])).unwrap();
    assert!(list.is_empty(), "the release is uninstalled: {list:#?}");
    let records = Api::<Secret>::namespaced(admin, &ns)
        .list(&ListParams::default().labels("owner=helm,name=cache"))
        .await
        .unwrap();
    assert!(records.items.is_empty(), "no release record is left behind");
    operator.stop();
}

/// Fields of `object` whose manager is not Helm's, other than the owner reference.
fn foreign_fields(object: &Deployment) -> Vec<String> {
    object
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .filter(|entry| entry.manager.as_deref() != Some("helm"))
        .filter(|entry| entry.subresource.is_none())
        .filter_map(|entry| {
            let fields = entry.fields_v1.as_ref()?.0.clone();
            let owned_ref_only = fields
                .as_object()
                .is_some_and(|f| f.keys().all(|k| k == "f:metadata"))
                && fields["f:metadata"]
                    .as_object()
                    .is_some_and(|m| m.keys().all(|k| k == "f:ownerReferences"));
            (!owned_ref_only).then(|| format!("{:?}: {fields}", entry.manager))
        })
        .collect()
}

#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn deleted_and_edited_objects_are_repaired_and_stay_helms() {
    let (admin, ns, operator) = setup("hybrid-drift").await;
    let memcacheds = custom(&admin, &ns, MEMCACHED);
    memcacheds
        .create(
            &PostParams::default(),
            &memcached("drift", json!({"replicaCount": 2})),
        )
        .await
        .unwrap();
    await_condition(
        &memcacheds,
        "drift",
        "Deployed",
        "InstallSuccessful",
        &operator,
    )
    .await;
    let deployments: Api<Deployment> = Api::namespaced(admin.clone(), &ns);
    let live = deployments.get("drift-memcached").await.unwrap();
    assert!(
        live.metadata
            .owner_references
            .iter()
            .flatten()
            .any(|r| r.kind == "Memcached"),
        "the Memcached owns its Deployment: {:?}",
        live.metadata.owner_references
    );
    assert_eq!(
        foreign_fields(&live),
        Vec::<String>::new(),
        "only Helm owns the release's fields"
    );

    // Deleted: recreated.
    deployments
        .delete("drift-memcached", &DeleteParams::default())
        .await
        .unwrap();
    let uid = live.metadata.uid.clone();
    eventually("the deleted Deployment is recreated", SETTLE, || {
        let deployments = deployments.clone();
        let uid = uid.clone();
        async move {
            let again = deployments.get_opt("drift-memcached").await.unwrap()?;
            (again.metadata.uid != uid && again.metadata.deletion_timestamp.is_none()).then_some(())
        }
    })
    .await;

    // Edited by another writer (spec, label, annotation): put back.
    deployments
        .patch(
            "drift-memcached",
            &PatchParams::default(),
            &Patch::Merge(json!({
                "metadata": {"labels": {"app.kubernetes.io/name": "hijacked"},
                             "annotations": {"meta.helm.sh/release-name": "other"}},
                "spec": {"replicas": 5},
            })),
        )
        .await
        .unwrap();
    let repaired = eventually("the edited Deployment is put back", SETTLE, || {
        let deployments = deployments.clone();
        async move {
            let d = deployments.get("drift-memcached").await.unwrap();
            let labels = d.metadata.labels.clone().unwrap_or_default();
            let annotations = d.metadata.annotations.clone().unwrap_or_default();
            (d.spec.as_ref()?.replicas == Some(2)
                && labels.get("app.kubernetes.io/name").map(String::as_str) == Some("memcached")
                && annotations
                    .get("meta.helm.sh/release-name")
                    .map(String::as_str)
                    == Some("drift"))
            .then_some(d)
        }
    })
    .await;
    assert_eq!(
        foreign_fields(&repaired),
        Vec::<String>::new(),
        "the repair left Helm the owner"
    );
    assert_eq!(history(&ns, "drift").len(), 1, "repairs make no revision");

    // A later upgrade meets no conflict with the repairs.
    memcacheds
        .patch(
            "drift",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicaCount": 3}})),
        )
        .await
        .unwrap();
    await_condition(
        &memcacheds,
        "drift",
        "Deployed",
        "UpgradeSuccessful",
        &operator,
    )
    .await;
    let upgraded = deployments.get("drift-memcached").await.unwrap();
    assert_eq!(
        upgraded.spec.and_then(|s| s.replicas),
        Some(3),
        "{}",
        operator.log()
    );
    operator.stop();
}

#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn a_value_removed_from_the_spec_is_removed_from_the_objects() {
    let (admin, ns, operator) = setup("hybrid-values").await;
    let memcacheds = custom(&admin, &ns, MEMCACHED);
    memcacheds
        .create(
            &PostParams::default(),
            &memcached(
                "vals",
                json!({"podAnnotations": {"team": "cache", "tier": "gold"}}),
            ),
        )
        .await
        .unwrap();
    await_condition(
        &memcacheds,
        "vals",
        "Deployed",
        "InstallSuccessful",
        &operator,
    )
    .await;
    let deployments: Api<Deployment> = Api::namespaced(admin.clone(), &ns);
    let pod_annotations = |d: Deployment| {
        d.spec
            .and_then(|s| s.template.metadata)
            .and_then(|m| m.annotations)
            .unwrap_or_default()
    };
    let before = pod_annotations(deployments.get("vals-memcached").await.unwrap());
    assert_eq!(
        before.get("tier").map(String::as_str),
        Some("gold"),
        "{before:?}"
    );

    memcacheds
        .patch(
            "vals",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"podAnnotations": {"tier": null}}})),
        )
        .await
        .unwrap();
    await_condition(
        &memcacheds,
        "vals",
        "Deployed",
        "UpgradeSuccessful",
        &operator,
    )
    .await;
    let after = pod_annotations(deployments.get("vals-memcached").await.unwrap());
    assert_eq!(
        after.get("team").map(String::as_str),
        Some("cache"),
        "{after:?}"
    );
    assert!(
        !after.contains_key("tier"),
        "a removed value stays on the object: {after:?}"
    );
    operator.stop();
}

#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn a_failing_upgrade_is_rolled_back() {
    let (admin, ns, operator) = setup("hybrid-rollback").await;
    let memcacheds = custom(&admin, &ns, MEMCACHED);
    memcacheds
        .create(&PostParams::default(), &memcached("rb", json!({})))
        .await
        .unwrap();
    await_condition(
        &memcacheds,
        "rb",
        "Deployed",
        "InstallSuccessful",
        &operator,
    )
    .await;

    // The API server refuses a Service of this type: the upgrade fails while applying.
    memcacheds
        .patch(
            "rb",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"service": {"type": "Bogus"}}})),
        )
        .await
        .unwrap();
    let failed = await_condition(
        &memcacheds,
        "rb",
        "ReleaseFailed",
        "UpgradeError",
        &operator,
    )
    .await;
    let message = condition(&failed, "ReleaseFailed").unwrap()["message"].to_string();
    assert!(
        message.contains("Bogus"),
        "the condition says why: {message}"
    );
    // As helm-operator-plugins does: the failed revision is rolled back to the deployed one.
    let revisions = eventually("the failed upgrade is rolled back", SETTLE, || {
        let ns = ns.clone();
        async move {
            let revisions = history(&ns, "rb");
            (revisions.len() >= 3 && revisions.last().is_some_and(|(_, s)| s == "deployed"))
                .then_some(revisions)
        }
    })
    .await;
    assert_eq!(revisions[1].1, "failed", "{revisions:?}");
    let services: Api<k8s_openapi::api::core::v1::Service> = Api::namespaced(admin.clone(), &ns);
    let service = services.get("rb-memcached").await.unwrap();
    assert_eq!(
        service.spec.and_then(|s| s.type_).as_deref(),
        Some("ClusterIP")
    );
    // The revision the rollback deployed (the spec still asks for Bogus, so the reconciler
    // may already be trying again on top of it).
    let (rolled_back, _) = revisions.last().unwrap();
    let deployed: Value = serde_json::from_str(&helm(&[
        "get",
        "values",
        "rb",
        "-n",
        &ns,
        "-o",
        "json",
        "--revision",
        &rolled_back.to_string(),
    ]))
    .unwrap();
    assert_eq!(
        deployed["service"]["type"], "ClusterIP",
        "the rollback restored the last good values"
    );

    // Fixed: the next upgrade succeeds.
    memcacheds
        .patch(
            "rb",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"service": {"type": "NodePort"}}})),
        )
        .await
        .unwrap();
    eventually(
        "the fixed spec is upgraded and the failure cleared",
        SETTLE,
        || {
            let memcacheds = memcacheds.clone();
            let services = services.clone();
            async move {
                let service = services.get("rb-memcached").await.unwrap();
                let cr = memcacheds.get("rb").await.unwrap();
                (service.spec?.type_.as_deref() == Some("NodePort")
                    && condition(&cr, "ReleaseFailed")?["status"] == "False"
                    && condition(&cr, "Deployed")?["status"] == "True")
                    .then_some(())
            }
        },
    )
    .await;
    operator.stop();
}

#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn a_resource_whose_name_is_no_release_name_can_be_deleted() {
    let (admin, ns, operator) = setup("hybrid-long").await;
    let memcacheds = custom(&admin, &ns, MEMCACHED);
    // A valid object name, but longer than the 53 characters Helm allows a release.
    let name = "m".repeat(64);
    memcacheds
        .create(&PostParams::default(), &memcached(&name, json!({})))
        .await
        .unwrap();
    let refused = eventually(
        "the resource reports that it cannot be installed",
        SETTLE,
        || {
            let memcacheds = memcacheds.clone();
            let name = name.clone();
            async move {
                let cr = memcacheds.get(&name).await.unwrap();
                condition(&cr, "ReleaseFailed")
                    .or_else(|| condition(&cr, "Irreconcilable"))
                    .filter(|c| c["status"] == "True")
                    .cloned()
            }
        },
    )
    .await;
    let message = refused["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("at most 53"),
        "the condition says why: {refused:#}"
    );
    memcacheds
        .delete(&name, &DeleteParams::default())
        .await
        .unwrap();
    await_gone(&memcacheds, &name, "the resource is gone", SETTLE).await;
    operator.stop();
}

#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn deleting_the_namespace_finishes() {
    let (admin, ns, operator) = setup("hybrid-ns").await;
    let memcacheds = custom(&admin, &ns, MEMCACHED);
    memcacheds
        .create(&PostParams::default(), &memcached("doomed", json!({})))
        .await
        .unwrap();
    await_condition(
        &memcacheds,
        "doomed",
        "Deployed",
        "InstallSuccessful",
        &operator,
    )
    .await;
    let namespaces: Api<Namespace> = Api::all(admin);
    namespaces
        .delete(&ns, &DeleteParams::default())
        .await
        .unwrap();
    await_gone(&namespaces, &ns, "the namespace is gone", SETTLE).await;
    operator.stop();
}
