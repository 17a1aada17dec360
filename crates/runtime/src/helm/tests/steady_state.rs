//! An installed release: nothing to do, upgrades, and drift repair.
use std::sync::Arc;
use std::time::Duration;

use kube::runtime::controller::Action;
use serde_json::json;

use super::api::{Expect, finish, mock_api};
use super::fake_helm::{FakeHelm, HelmCall, Reply};
use super::fixtures::*;
use crate::helm::reconcile::reconcile;
use crate::helm::{DryRun, ReleaseStatus, RollbackOptions, UpgradeOptions};

fn dry_run(values: serde_json::Value) -> HelmCall {
    HelmCall::Upgrade {
        values,
        options: UpgradeOptions {
            max_history: Some(10),
            dry_run: Some(DryRun::Server),
            reset_values: true,
            labels: owner(),
            ..UpgradeOptions::default()
        },
    }
}

fn real_upgrade(values: serde_json::Value) -> HelmCall {
    HelmCall::Upgrade {
        values,
        options: UpgradeOptions {
            max_history: Some(10),
            reset_values: true,
            labels: owner(),
            ..UpgradeOptions::default()
        },
    }
}

#[tokio::test]
async fn unchanged_release_is_only_dry_run_and_checked() {
    let spec = json!({"replicaCount": 3});
    let (client, api) = mock_api(vec![
        Expect::get(SERVICE_URI, live(desired_service())),
        Expect::patch(
            SERVICE_CHECK_URI,
            desired_service(),
            live(desired_service()),
        ),
        Expect::get(DEPLOYMENT_URI, live(desired_deployment(3))),
        Expect::patch(
            DEPLOYMENT_CHECK_URI,
            desired_deployment(3),
            live(desired_deployment(3)),
        ),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(Some(release(1, ReleaseStatus::Deployed, 3))),
        Reply::Release(release(2, ReleaseStatus::PendingUpgrade, 3)),
    ]));
    let ctx = context(client, helm.clone(), false, |b| {
        b.with_reconcile_period(Duration::from_secs(120))
    });
    let action = reconcile(
        cr(cr_json(spec.clone(), true, Some(installed_status(3)))),
        ctx,
    )
    .await
    .unwrap();
    assert_eq!(action.action(), Action::requeue(Duration::from_secs(120)));
    finish(api).await;
    assert_eq!(helm.calls(), vec![HelmCall::Get, dry_run(spec)]);
}

#[tokio::test]
async fn reconcile_period_annotation_overrides_the_watch() {
    let spec = json!({"replicaCount": 3});
    let mut annotated = cr_json(spec.clone(), true, Some(installed_status(3)));
    annotated["metadata"]["annotations"] =
        json!({"helm.sdk.operatorframework.io/reconcile-period": "1m30s"});
    let (client, api) = mock_api(vec![
        Expect::get(SERVICE_URI, live(desired_service())),
        Expect::patch(
            SERVICE_CHECK_URI,
            desired_service(),
            live(desired_service()),
        ),
        Expect::get(DEPLOYMENT_URI, live(desired_deployment(3))),
        Expect::patch(
            DEPLOYMENT_CHECK_URI,
            desired_deployment(3),
            live(desired_deployment(3)),
        ),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(Some(release(1, ReleaseStatus::Deployed, 3))),
        Reply::Release(release(2, ReleaseStatus::PendingUpgrade, 3)),
    ]));
    let ctx = context(client, helm.clone(), false, |b| {
        b.with_reconcile_period(Duration::from_secs(120))
    });
    let action = reconcile(cr(annotated), ctx).await.unwrap();
    assert_eq!(action.action(), Action::requeue(Duration::from_secs(90)));
    finish(api).await;
}

#[tokio::test]
async fn spec_change_upgrades_the_release() {
    let spec = json!({"replicaCount": 5});
    let upgraded_status = json!({
        "conditions": [
            condition("Deployed", "True", "UpgradeSuccessful", "release was successfully upgraded", FIXED_TIME),
            condition("Initialized", "True", "", "", FIXED_TIME),
            condition("Irreconcilable", "False", "", "", FIXED_TIME),
            condition("ReleaseFailed", "False", "", "", FIXED_TIME),
        ],
        "deployedRelease": {"name": "mc", "manifest": manifest(5)}, "observedGeneration": 1,
    });
    let (client, api) = mock_api(vec![
        Expect::patch(
            SERVICE_OWNER_URI,
            owner_patch("v1", "Service"),
            live(desired_service()),
        ),
        Expect::patch(
            DEPLOYMENT_OWNER_URI,
            owner_patch("apps/v1", "Deployment"),
            live(desired_deployment(5)),
        ),
        Expect::patch(
            STATUS_URI,
            status_patch(upgraded_status),
            cr_json(spec.clone(), true, None),
        ),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(Some(release(1, ReleaseStatus::Deployed, 3))),
        Reply::Release(release(2, ReleaseStatus::PendingUpgrade, 5)),
        Reply::Release(release(2, ReleaseStatus::Deployed, 5)),
    ]));
    let ctx = context(client, helm.clone(), false, |b| b);
    let action = reconcile(
        cr(cr_json(spec.clone(), true, Some(installed_status(3)))),
        ctx,
    )
    .await
    .unwrap();
    // no reconcilePeriod in the watch: operator-sdk's default minute
    assert_eq!(action.action(), Action::requeue(Duration::from_secs(60)));
    finish(api).await;
    assert_eq!(
        helm.calls(),
        vec![HelmCall::Get, dry_run(spec.clone()), real_upgrade(spec)]
    );
}

#[tokio::test]
async fn failed_release_is_upgraded_even_with_the_same_manifest() {
    let spec = json!({"replicaCount": 3});
    let (client, api) = mock_api(vec![
        Expect::patch(
            SERVICE_OWNER_URI,
            owner_patch("v1", "Service"),
            live(desired_service()),
        ),
        Expect::patch(
            DEPLOYMENT_OWNER_URI,
            owner_patch("apps/v1", "Deployment"),
            live(desired_deployment(3)),
        ),
        Expect::patch(
            STATUS_URI,
            status_patch(json!({
                "conditions": [
                    condition("Deployed", "True", "UpgradeSuccessful", "release was successfully upgraded", FIXED_TIME),
                    condition("Initialized", "True", "", "", FIXED_TIME),
                    condition("Irreconcilable", "False", "", "", FIXED_TIME),
                    condition("ReleaseFailed", "False", "", "", FIXED_TIME),
                ],
                "deployedRelease": {"name": "mc", "manifest": manifest(3)}, "observedGeneration": 1,
            })),
            cr_json(spec.clone(), true, None),
        ),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(Some(release(2, ReleaseStatus::Failed, 3))),
        Reply::Release(release(3, ReleaseStatus::PendingUpgrade, 3)),
        Reply::Release(release(3, ReleaseStatus::Deployed, 3)),
    ]));
    let ctx = context(client, helm.clone(), false, |b| b);
    reconcile(
        cr(cr_json(spec.clone(), true, Some(installed_status(3)))),
        ctx,
    )
    .await
    .unwrap();
    finish(api).await;
    assert_eq!(
        helm.calls(),
        vec![HelmCall::Get, dry_run(spec.clone()), real_upgrade(spec)]
    );
}

/// The status patch of a failed upgrade of the installed revision 1.
fn upgrade_error_patch(spec: &serde_json::Value, error: &str) -> Expect {
    Expect::patch(
        STATUS_URI,
        status_patch(json!({
            "conditions": [
                condition("Deployed", "True", "InstallSuccessful", "release was successfully installed", FIXED_TIME),
                condition("Initialized", "True", "", "", FIXED_TIME),
                condition("Irreconcilable", "True", "ReconcileError", error, "<now>"),
                condition("ReleaseFailed", "True", "UpgradeError", error, "<now>"),
            ],
            "deployedRelease": {"name": "mc", "manifest": manifest(3)}, "observedGeneration": 1,
        })),
        cr_json(spec.clone(), true, None),
    )
}

#[tokio::test]
async fn failed_upgrade_that_recorded_a_revision_rolls_back_to_the_deployed_one() {
    let spec = json!({"replicaCount": 5});
    let error = "upgrade of release default/mc failed: Error: UPGRADE FAILED: timed out";
    let (client, api) = mock_api(vec![upgrade_error_patch(&spec, error)]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(Some(release(1, ReleaseStatus::Deployed, 3))),
        Reply::Release(release(2, ReleaseStatus::PendingUpgrade, 5)),
        Reply::Fail("upgrade", "Error: UPGRADE FAILED: timed out".into()),
        Reply::Get(Some(release(2, ReleaseStatus::Failed, 5))),
        Reply::Done,
    ]));
    let mut cr_value = cr_json(spec.clone(), true, Some(installed_status(3)));
    cr_value["metadata"]["annotations"] =
        json!({"helm.sdk.operatorframework.io/rollback-force": "false"});
    let ctx = context(client, helm.clone(), false, |b| b);
    let outcome = reconcile(cr(cr_value), ctx).await;
    assert_eq!(outcome.unwrap_err().to_string(), error);
    finish(api).await;
    assert_eq!(
        helm.calls(),
        vec![
            HelmCall::Get,
            dry_run(spec.clone()),
            real_upgrade(spec),
            HelmCall::Get,
            HelmCall::Rollback {
                revision: Some(1),
                options: RollbackOptions {
                    force: false,
                    max_history: Some(10)
                }
            },
        ]
    );
}

#[tokio::test]
async fn upgrade_failing_before_recording_a_revision_is_not_rolled_back() {
    // "another operation is in progress": Helm wrote nothing, revision 1 is still the
    // latest; a bare rollback would replace it with revision 0's predecessor.
    let spec = json!({"replicaCount": 5});
    let stderr =
        "Error: UPGRADE FAILED: another operation (install/upgrade/rollback) is in progress";
    let error = format!("upgrade of release default/mc failed: {stderr}");
    let (client, api) = mock_api(vec![upgrade_error_patch(&spec, &error)]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(Some(release(1, ReleaseStatus::Deployed, 3))),
        Reply::Release(release(2, ReleaseStatus::PendingUpgrade, 5)),
        Reply::Fail("upgrade", stderr.into()),
        Reply::Get(Some(release(1, ReleaseStatus::Deployed, 3))),
    ]));
    let ctx = context(client, helm.clone(), false, |b| b);
    let outcome = reconcile(
        cr(cr_json(spec.clone(), true, Some(installed_status(3)))),
        ctx,
    )
    .await;
    assert_eq!(outcome.unwrap_err().to_string(), error);
    finish(api).await;
    assert_eq!(
        helm.calls(),
        vec![
            HelmCall::Get,
            dry_run(spec.clone()),
            real_upgrade(spec),
            HelmCall::Get
        ]
    );
}

#[tokio::test]
async fn failure_rollbacks_can_be_switched_off() {
    let spec = json!({"replicaCount": 5});
    let error = "upgrade of release default/mc failed: Error: UPGRADE FAILED: timed out";
    let (client, api) = mock_api(vec![upgrade_error_patch(&spec, error)]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(Some(release(1, ReleaseStatus::Deployed, 3))),
        Reply::Release(release(2, ReleaseStatus::PendingUpgrade, 5)),
        Reply::Fail("upgrade", "Error: UPGRADE FAILED: timed out".into()),
    ]));
    let ctx = context(client, helm.clone(), false, |b| {
        b.with_failure_rollback(false)
    });
    let outcome = reconcile(
        cr(cr_json(spec.clone(), true, Some(installed_status(3)))),
        ctx,
    )
    .await;
    assert_eq!(outcome.unwrap_err().to_string(), error);
    finish(api).await;
    assert_eq!(
        helm.calls(),
        vec![HelmCall::Get, dry_run(spec.clone()), real_upgrade(spec)]
    );
}

#[tokio::test]
async fn deleted_deployment_is_recreated() {
    let spec = json!({"replicaCount": 3});
    let (client, api) = mock_api(vec![
        Expect::get(SERVICE_URI, live(desired_service())),
        Expect::patch(
            SERVICE_CHECK_URI,
            desired_service(),
            live(desired_service()),
        ),
        Expect::get_not_found(DEPLOYMENT_URI),
        // applied as Helm applies it, then owned by the custom resource
        Expect::patch(
            DEPLOYMENT_APPLY_URI,
            desired_deployment(3),
            live_without_owner(desired_deployment(3)),
        ),
        Expect::patch(
            DEPLOYMENT_OWNER_URI,
            owner_patch("apps/v1", "Deployment"),
            live(desired_deployment(3)),
        ),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(Some(release(1, ReleaseStatus::Deployed, 3))),
        Reply::Release(release(2, ReleaseStatus::PendingUpgrade, 3)),
    ]));
    let ctx = context(client, helm.clone(), false, |b| b);
    let action = reconcile(
        cr(cr_json(spec.clone(), true, Some(installed_status(3)))),
        ctx,
    )
    .await
    .unwrap();
    // no reconcilePeriod in the watch: operator-sdk's default minute
    assert_eq!(action.action(), Action::requeue(Duration::from_secs(60)));
    finish(api).await;
    assert_eq!(helm.calls(), vec![HelmCall::Get, dry_run(spec)]);
}

#[tokio::test]
async fn edited_deployment_is_patched_back() {
    let spec = json!({"replicaCount": 3});
    let mut scaled_by_hand = live(desired_deployment(3));
    scaled_by_hand["spec"]["replicas"] = json!(1);
    let (client, api) = mock_api(vec![
        Expect::get(SERVICE_URI, live(desired_service())),
        Expect::patch(
            SERVICE_CHECK_URI,
            desired_service(),
            live(desired_service()),
        ),
        Expect::get(DEPLOYMENT_URI, scaled_by_hand),
        // the server's dry run sets the replicas back: drift, so the apply is made
        Expect::patch(
            DEPLOYMENT_CHECK_URI,
            desired_deployment(3),
            live(desired_deployment(3)),
        ),
        Expect::patch(
            DEPLOYMENT_APPLY_URI,
            desired_deployment(3),
            live(desired_deployment(3)),
        ),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(Some(release(1, ReleaseStatus::Deployed, 3))),
        Reply::Release(release(2, ReleaseStatus::PendingUpgrade, 3)),
    ]));
    let ctx = context(client, helm.clone(), false, |b| b);
    reconcile(
        cr(cr_json(spec.clone(), true, Some(installed_status(3)))),
        ctx,
    )
    .await
    .unwrap();
    finish(api).await;
    assert_eq!(helm.calls(), vec![HelmCall::Get, dry_run(spec)]);
}

#[tokio::test]
async fn a_repair_failure_is_irreconcilable() {
    let spec = json!({"replicaCount": 3});
    let (client, api) = mock_api(vec![
        Expect::get(SERVICE_URI, live(desired_service())),
        Expect::patch(
            SERVICE_CHECK_URI,
            desired_service(),
            live(desired_service()),
        ),
        Expect {
            status: http::StatusCode::FORBIDDEN,
            ..Expect::get(
                DEPLOYMENT_URI,
                json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden",
                       "code": 403, "message": "deployments.apps is forbidden"}),
            )
        },
        Expect::patch(
            STATUS_URI,
            status_patch(json!({
                "conditions": [
                    condition("Deployed", "True", "InstallSuccessful", "release was successfully installed", FIXED_TIME),
                    condition("Initialized", "True", "", "", FIXED_TIME),
                    condition("Irreconcilable", "True", "ReconcileError",
                              "cannot get apps/v1 Deployment default/mc-memcached: deployments.apps is forbidden (Forbidden)",
                              "<now>"),
                    condition("ReleaseFailed", "False", "", "", FIXED_TIME),
                ],
                "deployedRelease": {"name": "mc", "manifest": manifest(3)}, "observedGeneration": 1,
            })),
            cr_json(spec.clone(), true, None),
        ),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(Some(release(1, ReleaseStatus::Deployed, 3))),
        Reply::Release(release(2, ReleaseStatus::PendingUpgrade, 3)),
    ]));
    let ctx = context(client, helm.clone(), false, |b| b);
    let outcome = reconcile(
        cr(cr_json(spec.clone(), true, Some(installed_status(3)))),
        ctx,
    )
    .await;
    assert_eq!(
        outcome.unwrap_err().to_string(),
        "cannot get apps/v1 Deployment default/mc-memcached: deployments.apps is forbidden (Forbidden)"
    );
    finish(api).await;
}
