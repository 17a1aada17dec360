//! Ways out of a delete that would otherwise hang: unreadable release, objects nobody
//! deletes, a wait that never ends, an uninstall that always fails.
use std::sync::Arc;

use kube::api::{ApiResource, GroupVersionKind};
use kube::runtime::controller::Action;
use serde_json::{Value, json};

use super::api::{Expect, finish, mock_api};
use super::delete::{deleted_at, deleting};
use super::fake_helm::{FakeHelm, HelmCall, Reply};
use super::fixtures::*;
use crate::helm::kinds::KindInfo;
use crate::helm::reconcile::reconcile;
use crate::helm::{ReleaseStatus, UninstallOptions};

/// The status once uninstalled, from the installed status (stored times kept).
fn uninstalled_status() -> Value {
    json!({
        "conditions": [
            condition("Deployed", "False", "UninstallSuccessful", "", "<now>"),
            condition("Initialized", "True", "", "", FIXED_TIME),
            condition("Irreconcilable", "False", "", "", FIXED_TIME),
            condition("ReleaseFailed", "False", "", "", FIXED_TIME),
        ],
        "deployedRelease": null, "observedGeneration": 1,
    })
}

fn finalizer_removed(cr_value: &Value) -> Expect {
    Expect::patch(
        CR_URI,
        json!([
            {"op": "test", "path": "/metadata/finalizers", "value": ["uninstall-helm-release"]},
            {"op": "replace", "path": "/metadata/finalizers", "value": []},
        ]),
        cr_value.clone(),
    )
}

fn status_written(cr_value: &Value) -> Expect {
    Expect::patch(
        STATUS_URI,
        status_patch(uninstalled_status()),
        cr_value.clone(),
    )
}

#[tokio::test]
async fn unreadable_release_is_still_uninstalled_on_delete() {
    // `helm status` fails for a name over 53 characters; deletion must go on.
    let cr_value = deleting(installed_status(3));
    let (client, api) = mock_api(vec![
        Expect::get_not_found(SERVICE_URI),
        Expect::get_not_found(DEPLOYMENT_URI),
        status_written(&cr_value),
        finalizer_removed(&cr_value),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Fail("status", "Error: release name is invalid".into()),
        Reply::Done,
    ]));
    let ctx = context(client, helm.clone(), false, |b| b);
    let action = reconcile(cr(cr_value), ctx).await.unwrap();
    assert_eq!(action.action(), Action::await_change());
    finish(api).await;
    assert_eq!(
        helm.calls(),
        vec![
            HelmCall::Get,
            HelmCall::Uninstall(UninstallOptions::default())
        ]
    );
}

#[tokio::test]
async fn cluster_scoped_objects_are_not_waited_for() {
    let with_cluster_role = format!(
        "{}---\n# Source: memcached/templates/role.yaml\napiVersion: rbac.authorization.k8s.io/v1\n\
         kind: ClusterRole\nmetadata:\n  name: mc-reader\nrules: []\n",
        manifest(3)
    );
    let cr_value = deleting(installed_status(3));
    let (client, api) = mock_api(vec![
        Expect::get_not_found(SERVICE_URI),
        Expect::get_not_found(DEPLOYMENT_URI),
        status_written(&cr_value),
        finalizer_removed(&cr_value),
    ]);
    let mut stored = release(1, ReleaseStatus::Deployed, 3);
    stored.manifest = with_cluster_role;
    let helm = Arc::new(FakeHelm::new(vec![Reply::Get(Some(stored)), Reply::Done]));
    let ctx = context(client, helm.clone(), false, |b| b);
    let gvk = GroupVersionKind::gvk("rbac.authorization.k8s.io", "v1", "ClusterRole");
    ctx.kinds.insert(
        gvk.clone(),
        KindInfo {
            resource: ApiResource::from_gvk_with_plural(&gvk, "clusterroles"),
            namespaced: false,
        },
    );
    reconcile(cr(cr_value), ctx).await.unwrap();
    finish(api).await;
}

#[tokio::test]
async fn the_wait_for_objects_is_bounded() {
    // Deleted long ago (more than the 5 minute default): a lingering Deployment no
    // longer holds the finalizer.
    let cr_value = deleted_at(installed_status(3), "2026-01-02T00:00:00Z");
    let (client, api) = mock_api(vec![
        Expect::get_not_found(SERVICE_URI),
        Expect::get(DEPLOYMENT_URI, live(desired_deployment(3))),
        status_written(&cr_value),
        finalizer_removed(&cr_value),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(Some(release(1, ReleaseStatus::Deployed, 3))),
        Reply::Done,
    ]));
    let ctx = context(client, helm.clone(), false, |b| b);
    reconcile(cr(cr_value), ctx).await.unwrap();
    finish(api).await;
}

/// Deleted with `annotation: value`; Helm answers the uninstall with `uninstall`; the
/// finalizer must go without any object being looked at.
async fn annotated_delete_lets_go_at_once(annotation: &str, value: &str, uninstall: Reply) {
    let mut cr_value = deleting(installed_status(3));
    cr_value["metadata"]["annotations"] = json!({annotation: value});
    let (client, api) = mock_api(vec![
        status_written(&cr_value),
        finalizer_removed(&cr_value),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(Some(release(1, ReleaseStatus::Deployed, 3))),
        uninstall,
    ]));
    let ctx = context(client, helm.clone(), false, |b| b);
    let action = reconcile(cr(cr_value), ctx).await.unwrap();
    assert_eq!(action.action(), Action::await_change());
    finish(api).await;
}

#[tokio::test]
async fn uninstall_wait_false_skips_the_wait() {
    annotated_delete_lets_go_at_once(
        "helm.sdk.operatorframework.io/uninstall-wait",
        "false",
        Reply::Done,
    )
    .await;
}

#[tokio::test]
async fn uninstall_failures_can_be_ignored_by_annotation() {
    annotated_delete_lets_go_at_once(
        "helm.sdk.operatorframework.io/uninstall-ignore-failure",
        "true",
        Reply::Fail(
            "uninstall",
            "Error: timed out waiting for the condition".into(),
        ),
    )
    .await;
}
