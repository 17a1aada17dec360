//! Override values and the value translator.
use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::json;

use super::api::{BodyCheck, Expect, finish, mock_api};
use super::fake_helm::{FakeHelm, HelmCall, Reply};
use super::fixtures::*;
use crate::helm::reconcile::reconcile;
use crate::helm::{DryRun, ReleaseStatus, UpgradeOptions};

fn installed_patch() -> Expect {
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
        cr_json(json!({}), true, None),
    )
}

fn override_event(note: &str) -> Expect {
    Expect::post(
        EVENTS_URI,
        BodyCheck::Includes(json!({
            "type": "Warning",
            "reason": "ValueOverridden",
            "note": note,
            "action": "Install",
            "reportingController": "memcached-controller",
            "regarding": {"apiVersion": "cache.example.com/v1", "kind": "Memcached", "name": "mc",
                          "namespace": "default", "uid": "cr-uid"},
        })),
        json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "metadata": {"name": "mc.1", "namespace": "default"},
               "eventTime": "2026-01-01T00:00:00.000000Z"}),
    )
}

#[tokio::test]
async fn override_values_win_over_the_spec_and_each_gets_a_warning_event() {
    let spec = json!({"replicaCount": 1, "image": {"tag": "latest"}, "keep": "me"});
    let (client, api) = mock_api(vec![
        override_event(
            "Chart value \"image.tag\" overridden by operator (watches.yaml overrideValues)",
        ),
        override_event(
            "Chart value \"replicaCount\" overridden by operator (watches.yaml overrideValues)",
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
        installed_patch(),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(None),
        Reply::Release(release(1, ReleaseStatus::Deployed, 3)),
    ]));
    let overrides = BTreeMap::from([
        ("replicaCount".to_string(), "3".to_string()),
        ("image.tag".to_string(), "1.6.29".to_string()),
    ]);
    let ctx = context(client, helm.clone(), false, |b| {
        b.with_override_values(overrides)
    });
    reconcile(cr(cr_json(spec, true, None)), ctx).await.unwrap();
    finish(api).await;
    assert_eq!(
        helm.calls(),
        vec![
            HelmCall::Get,
            HelmCall::Install {
                values: json!({"replicaCount": 3, "image": {"tag": "1.6.29"}, "keep": "me"}),
                options: owned_install(),
            },
        ]
    );
}

#[tokio::test]
async fn value_translator_reads_the_cluster_and_its_output_is_installed() {
    let (client, api) = mock_api(vec![
        // the translator's own read
        Expect::get(
            "/api/v1/namespaces/default/configmaps/memcached-defaults",
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "memcached-defaults", "namespace": "default"},
                   "data": {"tag": "1.6.29"}}),
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
        installed_patch(),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(None),
        Reply::Release(release(1, ReleaseStatus::Deployed, 3)),
    ]));
    let ctx = context(client, helm.clone(), false, |b| {
        b.with_value_translator(|cr, client| async move {
            use k8s_openapi::api::core::v1::ConfigMap;
            let namespace = kube::ResourceExt::namespace(&cr).unwrap_or_default();
            let defaults: kube::Api<ConfigMap> = kube::Api::namespaced(client, &namespace);
            let tag = defaults
                .get("memcached-defaults")
                .await?
                .data
                .unwrap_or_default()
                .remove("tag");
            Ok(json!({"replicaCount": cr.data["spec"]["size"], "image": {"tag": tag}}))
        })
    });
    reconcile(cr(cr_json(json!({"size": 3}), true, None)), ctx)
        .await
        .unwrap();
    finish(api).await;
    assert_eq!(
        helm.calls(),
        vec![
            HelmCall::Get,
            HelmCall::Install {
                values: json!({"replicaCount": 3, "image": {"tag": "1.6.29"}}),
                options: owned_install(),
            },
        ]
    );
}

#[tokio::test]
async fn a_failing_translator_is_irreconcilable_with_error_getting_values() {
    let (client, api) = mock_api(vec![Expect::patch(
        STATUS_URI,
        status_patch(json!({
            "conditions": [
                condition("Deployed", "False", "", "", "<now>"),
                condition("Initialized", "True", "", "", "<now>"),
                condition("Irreconcilable", "True", "ErrorGettingValues",
                          "value translator failed: size must be positive", "<now>"),
                condition("ReleaseFailed", "Unknown", "", "", "<now>"),
            ],
            "deployedRelease": null, "observedGeneration": 1,
        })),
        cr_json(json!({}), true, None),
    )]);
    let helm = Arc::new(FakeHelm::new(vec![Reply::Get(None)]));
    let ctx = context(client, helm.clone(), false, |b| {
        b.with_value_translator(|_, _| async { Err(anyhow::anyhow!("size must be positive")) })
    });
    let outcome = reconcile(cr(cr_json(json!({"size": -1}), true, None)), ctx).await;
    assert_eq!(
        outcome.unwrap_err().to_string(),
        "value translator failed: size must be positive"
    );
    finish(api).await;
    assert_eq!(helm.calls(), vec![HelmCall::Get]);
}

#[tokio::test]
async fn an_emptied_spec_upgrades_to_the_chart_defaults() {
    // Deployed with replicaCount 3; the spec is now empty. Helm must get the chart's
    // defaults and --reset-values, not reuse the previous release's values.
    let defaults = json!({"replicaCount": 1, "image": {"tag": "1.6.29"}});
    let (client, api) = mock_api(vec![
        Expect::patch(
            SERVICE_OWNER_URI,
            owner_patch("v1", "Service"),
            live(desired_service()),
        ),
        Expect::patch(
            DEPLOYMENT_OWNER_URI,
            owner_patch("apps/v1", "Deployment"),
            live(desired_deployment(1)),
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
                "deployedRelease": {"name": "mc", "manifest": manifest(1)}, "observedGeneration": 1,
            })),
            cr_json(json!({}), true, None),
        ),
    ]);
    let helm = Arc::new(FakeHelm::new(vec![
        Reply::Get(Some(release(1, ReleaseStatus::Deployed, 3))),
        Reply::Release(release(2, ReleaseStatus::PendingUpgrade, 1)),
        Reply::Release(release(2, ReleaseStatus::Deployed, 1)),
    ]));
    let ctx = context_with_defaults(client, helm.clone(), false, |b| b, defaults.clone());
    reconcile(cr(cr_json(json!({}), true, Some(installed_status(3)))), ctx)
        .await
        .unwrap();
    finish(api).await;
    let upgrade = |dry_run| HelmCall::Upgrade {
        values: defaults.clone(),
        options: UpgradeOptions {
            max_history: Some(10),
            dry_run,
            reset_values: true,
            labels: owner(),
            ..UpgradeOptions::default()
        },
    };
    assert_eq!(
        helm.calls(),
        vec![HelmCall::Get, upgrade(Some(DryRun::Server)), upgrade(None)]
    );
}
