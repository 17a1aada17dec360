//! First install, failed install, selector and pause.
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::runtime::controller::Action;
use serde_json::json;

use super::api::{Expect, finish, mock_api};
use super::fake_helm::{FakeHelm, HelmCall, Reply};
use super::fixtures::*;
use crate::helm::reconcile::reconcile;
use crate::helm::{InstallOptions, ReleaseStatus, UninstallOptions};

fn discovery(group_version: &str, name: &str, kind: &str) -> serde_json::Value {
    json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version,
           "resources": [{"name": name, "singularName": "", "namespaced": true, "kind": kind,
                          "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]}]})
}

#[tokio::test]
async fn first_install_adds_finalizer_installs_and_reports_status() {
    let spec = json!({"replicaCount": 3});
    let (client, api) = mock_api(vec![
        Expect::patch(
            CR_URI,
            json!([
                {"op": "test", "path": "/metadata/finalizers", "value": null},
                {"op": "add", "path": "/metadata/finalizers", "value": ["uninstall-helm-release"]},
            ]),
            cr_json(spec.clone(), true, None),
        ),
        // drift repair right after the install: discovery once per kind, then ownership
        Expect::get("/api/v1", discovery("v1", "services", "Service")),
        Expect::get(
            "/apis/apps/v1",
            discovery("apps/v1", "deployments", "Deployment"),
        ),
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
                    condition("Deployed", "True", "InstallSuccessful", "release was successfully installed", "<now>"),
                    condition("Initialized", "True", "", "", "<now>"),
                    condition("Irreconcilable", "False", "", "", "<now>"),
                    condition("ReleaseFailed", "False", "", "", "<now>"),
                ],
                "deployedRelease": {"name": "mc", "manifest": manifest(3)}, "observedGeneration": 1,
            })),
            cr_json(spec.clone(), true, None),
        ),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(None),
        Reply::Release(release(1, ReleaseStatus::Deployed, 3)),
    ]));
    let ctx = context(client, helm.clone(), true, |b| {
        b.with_reconcile_period(Duration::from_secs(60))
    });
    let action = reconcile(cr(cr_json(spec.clone(), false, None)), ctx)
        .await
        .unwrap();
    assert_eq!(action.action(), Action::requeue(Duration::from_secs(60)));
    finish(api).await;
    assert_eq!(
        helm.calls(),
        vec![
            HelmCall::Get,
            HelmCall::Install {
                values: spec,
                options: owned_install()
            }
        ]
    );
}

#[tokio::test]
async fn install_notes_become_the_deployed_message_and_annotations_set_options() {
    let spec = json!({"replicaCount": 3});
    let mut cr_value = cr_json(spec.clone(), true, None);
    cr_value["metadata"]["annotations"] = json!({
        "helm.sdk.operatorframework.io/install-disable-hooks": "true",
        "helm.sdk.operatorframework.io/install-description": "first",
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
            live(desired_deployment(3)),
        ),
        Expect::patch(
            STATUS_URI,
            status_patch(json!({
                "conditions": [
                    condition("Deployed", "True", "InstallSuccessful", "memcached is at mc-memcached:11211", "<now>"),
                    condition("Initialized", "True", "", "", "<now>"),
                    condition("Irreconcilable", "False", "", "", "<now>"),
                    condition("ReleaseFailed", "False", "", "", "<now>"),
                ],
                "deployedRelease": {"name": "mc", "manifest": manifest(3)}, "observedGeneration": 1,
            })),
            cr_value.clone(),
        ),
    ]);
    let mut installed = release(1, ReleaseStatus::Deployed, 3);
    installed.notes = "memcached is at mc-memcached:11211".into();
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(None),
        Reply::Release(installed),
    ]));
    let ctx = context(client, helm.clone(), false, |b| b);
    let action = reconcile(cr(cr_value), ctx).await.unwrap();
    assert_eq!(action.action(), Action::requeue(Duration::from_secs(60)));
    finish(api).await;
    let options = InstallOptions {
        disable_hooks: true,
        description: Some("first".into()),
        labels: crate::helm::release::owner_labels("cache.example.com", "Memcached"),
    };
    assert_eq!(
        helm.calls(),
        vec![
            HelmCall::Get,
            HelmCall::Install {
                values: spec,
                options
            }
        ]
    );
}

#[tokio::test]
async fn failed_install_reports_release_failed_with_helm_error() {
    let spec = json!({"replicaCount": -1});
    let error = "install of release default/mc failed: Error: INSTALLATION FAILED: \
                 Deployment.apps \"mc-memcached\" is invalid: spec.replicas: Invalid value: -1";
    let (client, api) = mock_api(vec![Expect::patch(
        STATUS_URI,
        status_patch(json!({
            "conditions": [
                condition("Deployed", "False", "", "", "<now>"),
                condition("Initialized", "True", "", "", "<now>"),
                condition("Irreconcilable", "True", "ReconcileError", error, "<now>"),
                condition("ReleaseFailed", "True", "InstallError", error, "<now>"),
            ],
            "deployedRelease": null, "observedGeneration": 1,
        })),
        cr_json(spec.clone(), true, None),
    )]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(None),
        Reply::Fail(
            "install",
            "Error: INSTALLATION FAILED: Deployment.apps \"mc-memcached\" is invalid: spec.replicas: Invalid value: -1".into(),
        ),
        Reply::Done,
    ]));
    let ctx = context(client, helm.clone(), false, |b| b);
    let outcome = reconcile(cr(cr_json(spec.clone(), true, None)), ctx).await;
    assert_eq!(outcome.unwrap_err().to_string(), error);
    finish(api).await;
    assert_eq!(
        helm.calls(),
        vec![
            HelmCall::Get,
            HelmCall::Install {
                values: spec,
                options: owned_install()
            },
            HelmCall::Uninstall(UninstallOptions::default()),
        ]
    );
}

#[tokio::test]
async fn resources_outside_the_selector_are_ignored() {
    let (client, api) = mock_api(vec![]);
    let helm = Arc::new(FakeHelm::new(vec![]));
    let selector = LabelSelector {
        match_labels: Some([("tier".to_string(), "cache".to_string())].into()),
        match_expressions: None,
    };
    let ctx = context(client, helm.clone(), false, |b| b.with_selector(selector));
    let mut other = cr_json(json!({"replicaCount": 3}), false, None);
    other["metadata"]["labels"] = json!({"tier": "web"});
    let action = reconcile(cr(other), ctx).await.unwrap();
    assert_eq!(action.action(), Action::await_change());
    finish(api).await;
    assert!(helm.calls().is_empty());
}

#[tokio::test]
async fn resources_inside_the_selector_are_reconciled() {
    let spec = json!({"replicaCount": 3});
    let mut matching = cr_json(spec.clone(), true, Some(installed_status(3)));
    matching["metadata"]["labels"] = json!({"tier": "cache"});
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
        Reply::Release(release(1, ReleaseStatus::Deployed, 3)),
    ]));
    let selector = LabelSelector {
        match_labels: Some([("tier".to_string(), "cache".to_string())].into()),
        match_expressions: None,
    };
    let ctx = context(client, helm.clone(), false, |b| b.with_selector(selector));
    reconcile(cr(matching), ctx).await.unwrap();
    finish(api).await;
    assert_eq!(helm.calls().len(), 2);
}

#[tokio::test]
async fn paused_resources_only_get_the_paused_condition() {
    let spec = json!({"replicaCount": 3});
    let mut paused = cr_json(spec.clone(), true, Some(installed_status(3)));
    paused["metadata"]["annotations"] =
        json!({"helm.sdk.operatorframework.io/pause-reconcile": "true"});
    let (client, api) = mock_api(vec![Expect::patch(
        STATUS_URI,
        status_patch(json!({
            "conditions": [
                condition("Deployed", "Unknown", "", "", "<now>"),
                condition("Initialized", "Unknown", "", "", "<now>"),
                condition("Irreconcilable", "Unknown", "", "", "<now>"),
                condition("ReleaseFailed", "Unknown", "", "", "<now>"),
                condition("Paused", "True", "PauseReconcileAnnotationTrue", "", "<now>"),
            ],
            "deployedRelease": null, "observedGeneration": 1,
        })),
        paused.clone(),
    )]);
    let helm = Arc::new(FakeHelm::new(vec![]));
    let ctx = context(client, helm.clone(), false, |b| b);
    let action = reconcile(cr(paused), ctx).await.unwrap();
    assert_eq!(action.action(), Action::await_change());
    finish(api).await;
    assert!(helm.calls().is_empty());
}
