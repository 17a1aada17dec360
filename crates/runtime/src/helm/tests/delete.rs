//! Deletion: uninstall, then keep the finalizer until the release's objects are gone.
use std::sync::Arc;
use std::time::Duration;

use kube::runtime::controller::Action;
use serde_json::{Value, json};

use super::api::{Expect, finish, mock_api};
use super::fake_helm::{FakeHelm, HelmCall, Reply};
use super::fixtures::*;
use crate::helm::reconcile::reconcile;
use crate::helm::{ReleaseStatus, UninstallOptions};

/// Deleted just now (the uninstall wait is counted from the deletion timestamp).
pub fn deleting(status: Value) -> Value {
    deleted_at(status, &k8s_openapi::jiff::Timestamp::now().to_string())
}

pub fn deleted_at(status: Value, timestamp: &str) -> Value {
    let mut cr = cr_json(json!({"replicaCount": 3}), true, Some(status));
    cr["metadata"]["deletionTimestamp"] = json!(timestamp);
    cr
}

#[tokio::test]
async fn delete_uninstalls_and_waits_for_objects_before_dropping_the_finalizer() {
    // Pass 1: the release is uninstalled but the Deployment is still terminating.
    let waiting = json!({
        "conditions": [
            condition("Deployed", "False", "UninstallSuccessful",
                      "waiting for 1 release object(s) to be deleted: apps/v1 Deployment default/mc-memcached", "<now>"),
            condition("Initialized", "True", "", "", FIXED_TIME),
            condition("Irreconcilable", "False", "", "", FIXED_TIME),
            condition("ReleaseFailed", "False", "", "", FIXED_TIME),
        ],
        "deployedRelease": {"name": "mc", "manifest": manifest(3)}, "observedGeneration": 1,
    });
    let (client, api) = mock_api(vec![
        Expect::get_not_found(SERVICE_URI),
        Expect::get(DEPLOYMENT_URI, live(desired_deployment(3))),
        Expect::patch(
            STATUS_URI,
            status_patch(waiting.clone()),
            deleting(waiting.clone()),
        ),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(Some(release(1, ReleaseStatus::Deployed, 3))),
        Reply::Done,
    ]));
    let ctx = context(client, helm.clone(), false, |b| b);
    let action = reconcile(cr(deleting(installed_status(3))), ctx)
        .await
        .unwrap();
    assert_eq!(action.action(), Action::requeue(Duration::from_secs(5)));
    finish(api).await;
    assert_eq!(
        helm.calls(),
        vec![
            HelmCall::Get,
            HelmCall::Uninstall(UninstallOptions::default())
        ]
    );

    // Pass 2: Helm no longer has the release (as when the namespace controller deleted
    // its Secrets first): no object is waited for, status, then the finalizer.
    let mut stored = waiting.clone();
    stored["conditions"][0]["lastTransitionTime"] = json!(FIXED_TIME);
    let (client, api) = mock_api(vec![
        Expect::patch(
            STATUS_URI,
            status_patch(json!({
                "conditions": [
                    condition("Deployed", "False", "UninstallSuccessful", "", FIXED_TIME),
                    condition("Initialized", "True", "", "", FIXED_TIME),
                    condition("Irreconcilable", "False", "", "", FIXED_TIME),
                    condition("ReleaseFailed", "False", "", "", FIXED_TIME),
                ],
                "deployedRelease": null, "observedGeneration": 1,
            })),
            deleting(stored.clone()),
        ),
        Expect::patch(
            CR_URI,
            json!([
                {"op": "test", "path": "/metadata/finalizers", "value": ["uninstall-helm-release"]},
                {"op": "replace", "path": "/metadata/finalizers", "value": []},
            ]),
            deleting(stored.clone()),
        ),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![Reply::Get(None)]));
    let ctx = context(client, helm.clone(), false, |b| b);
    let action = reconcile(cr(deleting(stored)), ctx).await.unwrap();
    assert_eq!(action.action(), Action::await_change());
    finish(api).await;
    assert_eq!(helm.calls(), vec![HelmCall::Get]);
}

#[tokio::test]
async fn uninstall_annotations_and_keep_policy_are_honoured() {
    let kept = manifest(3).replace(
        "kind: Deployment\nmetadata:\n  name: mc-memcached\n",
        "kind: Deployment\nmetadata:\n  name: mc-memcached\n  annotations:\n    helm.sh/resource-policy: keep\n",
    );
    let mut status = installed_status(3);
    status["deployedRelease"]["manifest"] = json!(kept);
    let mut cr_value = deleting(status.clone());
    cr_value["metadata"]["annotations"] =
        json!({"helm.sdk.operatorframework.io/uninstall-description": "bye"});
    let (client, api) = mock_api(vec![
        // the kept Deployment is not waited for
        Expect::get_not_found(SERVICE_URI),
        Expect::patch(
            STATUS_URI,
            status_patch(json!({
                "conditions": [
                    condition("Deployed", "False", "UninstallSuccessful", "", "<now>"),
                    condition("Initialized", "True", "", "", FIXED_TIME),
                    condition("Irreconcilable", "False", "", "", FIXED_TIME),
                    condition("ReleaseFailed", "False", "", "", FIXED_TIME),
                ],
                "deployedRelease": null, "observedGeneration": 1,
            })),
            cr_value.clone(),
        ),
        Expect::patch(
            CR_URI,
            json!([
                {"op": "test", "path": "/metadata/finalizers", "value": ["uninstall-helm-release"]},
                {"op": "replace", "path": "/metadata/finalizers", "value": []},
            ]),
            cr_value.clone(),
        ),
    ]);
    let mut stored = release(1, ReleaseStatus::Deployed, 3);
    stored.manifest = kept;
    let helm = Arc::new(FakeHelm::new(vec![Reply::Get(Some(stored)), Reply::Done]));
    let ctx = context(client, helm.clone(), false, |b| b);
    reconcile(cr(cr_value), ctx).await.unwrap();
    finish(api).await;
    let options = UninstallOptions {
        description: Some("bye".into()),
        ..UninstallOptions::default()
    };
    assert_eq!(
        helm.calls(),
        vec![HelmCall::Get, HelmCall::Uninstall(options)]
    );
}

#[tokio::test]
async fn failed_uninstall_keeps_the_finalizer_and_reports_it() {
    let error = "uninstall of release default/mc failed: Error: uninstallation completed with 1 error(s): timed out";
    let (client, api) = mock_api(vec![Expect::patch(
        STATUS_URI,
        status_patch(json!({
            "conditions": [
                condition("Deployed", "True", "InstallSuccessful", "release was successfully installed", FIXED_TIME),
                condition("Initialized", "True", "", "", FIXED_TIME),
                condition("Irreconcilable", "True", "ReconcileError", error, "<now>"),
                condition("ReleaseFailed", "True", "UninstallError", error, "<now>"),
            ],
            "deployedRelease": {"name": "mc", "manifest": manifest(3)}, "observedGeneration": 1,
        })),
        deleting(installed_status(3)),
    )]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(Some(release(1, ReleaseStatus::Deployed, 3))),
        Reply::Fail(
            "uninstall",
            "Error: uninstallation completed with 1 error(s): timed out".into(),
        ),
    ]));
    let ctx = context(client, helm.clone(), false, |b| b);
    let outcome = reconcile(cr(deleting(installed_status(3))), ctx).await;
    assert_eq!(outcome.unwrap_err().to_string(), error);
    finish(api).await;
}
