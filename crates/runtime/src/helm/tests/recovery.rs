//! Releases left pending by a crash (helm-operator-plugins#462).
use std::sync::Arc;

use serde_json::json;

use super::api::{Expect, finish, mock_api};
use super::fake_helm::{FakeHelm, HelmCall, Reply};
use super::fixtures::*;
use crate::helm::reconcile::reconcile;
use crate::helm::{
    DryRun, ReleaseRevision, ReleaseStatus, RollbackOptions, UninstallOptions, UpgradeOptions,
};

#[tokio::test]
async fn pending_install_is_uninstalled_and_installed_again() {
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
                // no Deployed condition until the pending release is settled
                "conditions": [
                    condition("Initialized", "True", "", "", "<now>"),
                    condition("Irreconcilable", "False", "", "", "<now>"),
                    condition("Deployed", "True", "InstallSuccessful", "release was successfully installed", "<now>"),
                    condition("ReleaseFailed", "False", "", "", "<now>"),
                ],
                "deployedRelease": {"name": "mc", "manifest": manifest(3)}, "observedGeneration": 1,
            })),
            cr_json(spec.clone(), true, None),
        ),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(Some(release(1, ReleaseStatus::PendingInstall, 3))),
        Reply::Done,
        Reply::Release(release(1, ReleaseStatus::Deployed, 3)),
    ]));
    let ctx = context(client, helm.clone(), false, |b| b);
    reconcile(cr(cr_json(spec.clone(), true, None)), ctx)
        .await
        .unwrap();
    finish(api).await;
    assert_eq!(
        helm.calls(),
        vec![
            HelmCall::Get,
            HelmCall::Uninstall(UninstallOptions::default()),
            HelmCall::Install {
                values: spec,
                options: owned_install()
            },
        ]
    );
}

fn revision(revision: u32, status: ReleaseStatus) -> ReleaseRevision {
    ReleaseRevision {
        revision,
        status,
        chart: "memcached-0.1.0".into(),
        app_version: "1.6.29".into(),
        description: String::new(),
    }
}

#[tokio::test]
async fn pending_upgrade_is_rolled_back_to_the_last_good_revision() {
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
        Reply::Get(Some(release(3, ReleaseStatus::PendingUpgrade, 5))),
        Reply::History(vec![
            revision(1, ReleaseStatus::Superseded),
            revision(2, ReleaseStatus::Deployed),
            revision(3, ReleaseStatus::PendingUpgrade),
        ]),
        Reply::Done,
        Reply::Get(Some(release(4, ReleaseStatus::Deployed, 3))),
        Reply::Release(release(5, ReleaseStatus::PendingUpgrade, 3)),
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
        vec![
            HelmCall::Get,
            HelmCall::History,
            HelmCall::Rollback {
                revision: Some(2),
                options: RollbackOptions {
                    force: true,
                    max_history: Some(10)
                }
            },
            HelmCall::Get,
            HelmCall::Upgrade {
                values: spec,
                options: UpgradeOptions {
                    max_history: Some(10),
                    dry_run: Some(DryRun::Server),
                    reset_values: true,
                    labels: owner(),
                    ..UpgradeOptions::default()
                },
            },
        ]
    );
}

#[tokio::test]
async fn pending_upgrade_without_a_good_revision_is_reinstalled() {
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
                // no Deployed condition until the pending release is settled
                "conditions": [
                    condition("Initialized", "True", "", "", "<now>"),
                    condition("Irreconcilable", "False", "", "", "<now>"),
                    condition("Deployed", "True", "InstallSuccessful", "release was successfully installed", "<now>"),
                    condition("ReleaseFailed", "False", "", "", "<now>"),
                ],
                "deployedRelease": {"name": "mc", "manifest": manifest(3)}, "observedGeneration": 1,
            })),
            cr_json(spec.clone(), true, None),
        ),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(Some(release(2, ReleaseStatus::PendingUpgrade, 5))),
        Reply::History(vec![
            revision(1, ReleaseStatus::Failed),
            revision(2, ReleaseStatus::PendingUpgrade),
        ]),
        Reply::Done,
        Reply::Release(release(1, ReleaseStatus::Deployed, 3)),
    ]));
    let ctx = context(client, helm.clone(), false, |b| b);
    reconcile(cr(cr_json(spec.clone(), true, None)), ctx)
        .await
        .unwrap();
    finish(api).await;
    assert_eq!(
        helm.calls(),
        vec![
            HelmCall::Get,
            HelmCall::History,
            HelmCall::Uninstall(UninstallOptions::default()),
            HelmCall::Install {
                values: spec,
                options: owned_install()
            },
        ]
    );
}

#[tokio::test]
async fn failing_helm_status_is_an_error_getting_release_state() {
    let error = "status of release default/mc failed: Error: Kubernetes cluster unreachable";
    let (client, api) = mock_api(vec![Expect::patch(
        STATUS_URI,
        status_patch(json!({
            "conditions": [
                condition("Deployed", "True", "InstallSuccessful", "release was successfully installed", FIXED_TIME),
                condition("Initialized", "True", "", "", FIXED_TIME),
                condition("Irreconcilable", "True", "ErrorGettingReleaseState", error, "<now>"),
                condition("ReleaseFailed", "False", "", "", FIXED_TIME),
            ],
            "deployedRelease": {"name": "mc", "manifest": manifest(3)}, "observedGeneration": 1,
        })),
        cr_json(json!({}), true, None),
    )]);
    let helm = Arc::new(FakeHelm::new(vec![Reply::Fail(
        "status",
        "Error: Kubernetes cluster unreachable".into(),
    )]));
    let ctx = context(client, helm.clone(), false, |b| b);
    let outcome = reconcile(
        cr(cr_json(
            json!({"replicaCount": 3}),
            true,
            Some(installed_status(3)),
        )),
        ctx,
    )
    .await;
    assert_eq!(outcome.unwrap_err().to_string(), error);
    finish(api).await;
    assert_eq!(helm.calls(), vec![HelmCall::Get]);
}
