//! Builder options and their validation; hooks.
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};
use kube::api::GroupVersionKind;
use serde_json::json;

use super::api::{Expect, finish, mock_api};
use super::fake_helm::{FakeHelm, HelmCall, Reply};
use super::fixtures::*;
use crate::helm::finalizer::add_finalizer;
use crate::helm::reconcile::reconcile;
use crate::helm::{AnnotationEffect, HelmAnnotation, Reconciler, ReleaseStatus};

#[test]
fn builder_is_preloaded_from_the_watch() {
    let mut entry = watch();
    entry.override_values = BTreeMap::from([("image.tag".to_string(), "1.6".to_string())]);
    entry.reconcile_period = Some(Duration::from_secs(30));
    entry.max_concurrent_reconciles = Some(4);
    entry.watch_dependent_resources = false;
    let settings = Reconciler::builder(&entry)
        .unwrap()
        .with_helm_client(Arc::new(FakeHelm::new(vec![])))
        .build()
        .unwrap()
        .into_settings();
    assert_eq!(
        settings.gvk,
        GroupVersionKind::gvk("cache.example.com", "v1", "Memcached")
    );
    assert_eq!(
        settings.chart,
        std::path::PathBuf::from("helm-charts/memcached")
    );
    assert_eq!(settings.override_values, entry.override_values);
    assert_eq!(settings.reconcile_period, Some(Duration::from_secs(30)));
    assert_eq!(settings.max_concurrent_reconciles, 4);
    assert!(!settings.watch_dependent_resources);
    assert_eq!(settings.max_history, 10);
    assert_eq!(settings.controller_name(), "memcached-controller");
    let names: Vec<&str> = settings
        .upgrade_annotations
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "helm.sdk.operatorframework.io/upgrade-description",
            "helm.sdk.operatorframework.io/upgrade-disable-hooks",
            "helm.sdk.operatorframework.io/upgrade-force",
        ]
    );
}

#[test]
fn unset_watch_keys_get_operator_sdk_defaults() {
    // operator-sdk: --reconcile-period 1m; concurrency four per CPU (operator-sdk: one)
    let settings = Reconciler::builder(&watch())
        .unwrap()
        .with_helm_client(Arc::new(FakeHelm::new(vec![])))
        .build()
        .unwrap()
        .into_settings();
    assert_eq!(settings.reconcile_period, Some(Duration::from_secs(60)));
    let cpus = std::thread::available_parallelism().unwrap().get();
    assert_eq!(settings.max_concurrent_reconciles, 4 * cpus);
    assert!(settings.rollback_on_failure);
    assert_eq!(settings.uninstall_wait_timeout, Duration::from_secs(300));
}

#[test]
fn builder_options_override_the_watch() {
    let settings = Reconciler::builder(&watch())
        .unwrap()
        .with_gvk(GroupVersionKind::gvk(
            "cache.example.com",
            "v2",
            "Memcached",
        ))
        .with_chart("charts/other.tgz")
        .skip_dependent_watches(true)
        .with_max_concurrent_reconciles(8)
        .with_reconcile_period(Duration::from_secs(5))
        .with_max_release_history(0)
        .with_install_annotations([HelmAnnotation::new(
            "example.com/quiet",
            AnnotationEffect::DisableHooks,
        )])
        .with_helm_client(Arc::new(FakeHelm::new(vec![])))
        .build()
        .unwrap()
        .into_settings();
    assert_eq!(settings.gvk.version, "v2");
    assert_eq!(settings.chart, std::path::PathBuf::from("charts/other.tgz"));
    assert!(!settings.watch_dependent_resources);
    assert_eq!(settings.max_concurrent_reconciles, 8);
    assert_eq!(settings.reconcile_period, Some(Duration::from_secs(5)));
    assert_eq!(settings.max_history, 0);
    assert_eq!(settings.install_annotations.len(), 3);
}

#[test]
fn flags_fill_what_the_watch_leaves_unset_and_the_watch_wins() {
    use clap::Parser as _;
    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        helm: crate::HelmArgs,
    }
    let flags = Cli::try_parse_from([
        "operator",
        "--reconcile-period=2s",
        "--max-concurrent-reconciles=3",
    ])
    .unwrap()
    .helm;
    let settings_of = |entry: &crate::helm::Watch, flags: &crate::HelmArgs| {
        Reconciler::builder(entry)
            .unwrap()
            .with_flag_defaults(flags)
            .with_helm_client(Arc::new(FakeHelm::new(vec![])))
            .build()
            .unwrap()
            .into_settings()
    };

    // An entry without its own values takes the flags.
    let from_flags = settings_of(&watch(), &flags);
    assert_eq!(from_flags.reconcile_period, Some(Duration::from_secs(2)));
    assert_eq!(from_flags.max_concurrent_reconciles, 3);
    assert_eq!(from_flags.workers.available_permits(), 3);

    // An entry's own values win over the flags, zero included (wait for changes).
    let mut own = watch();
    own.reconcile_period = Some(Duration::ZERO);
    own.max_concurrent_reconciles = Some(7);
    let kept = settings_of(&own, &flags);
    assert_eq!(kept.reconcile_period, Some(Duration::ZERO));
    assert_eq!(kept.max_concurrent_reconciles, 7);

    // No flags: the defaults.
    let defaults = settings_of(&watch(), &crate::HelmArgs::default());
    assert_eq!(defaults.reconcile_period, Some(Duration::from_secs(60)));
    let cpus = std::thread::available_parallelism().unwrap().get();
    assert_eq!(defaults.max_concurrent_reconciles, 4 * cpus);

    // A builder option set in code wins over the flags, whichever comes first.
    let coded = Reconciler::builder(&watch())
        .unwrap()
        .with_reconcile_period(Duration::from_secs(9))
        .with_flag_defaults(&flags)
        .with_max_concurrent_reconciles(5)
        .with_helm_client(Arc::new(FakeHelm::new(vec![])))
        .build()
        .unwrap()
        .into_settings();
    assert_eq!(coded.reconcile_period, Some(Duration::from_secs(9)));
    assert_eq!(coded.max_concurrent_reconciles, 5);
}

#[test]
fn helm_flags_refuse_what_the_go_operator_would() {
    use clap::Parser as _;
    #[derive(clap::Parser, Debug)]
    struct Cli {
        #[command(flatten)]
        helm: crate::HelmArgs,
    }
    let parsed = Cli::try_parse_from(["operator"]).unwrap().helm;
    assert_eq!(parsed, crate::HelmArgs::default());
    for (flag, want) in [
        ("--reconcile-period=2", "Go duration"),
        ("--max-concurrent-reconciles=0", "at least 1"),
        ("--max-concurrent-reconciles=-1", "at least 1"),
    ] {
        let err = Cli::try_parse_from(["operator", flag])
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{flag}: {err}");
    }
}

#[test]
fn invalid_options_are_refused_with_the_kind_named() {
    let build_error = |builder: crate::helm::ReconcilerBuilder| {
        builder
            .with_helm_client(Arc::new(FakeHelm::new(vec![])))
            .build()
            .err()
            .unwrap()
            .to_string()
    };
    let base = || Reconciler::builder(&watch()).unwrap();
    assert_eq!(
        build_error(base().with_max_concurrent_reconciles(0)),
        "cache.example.com/v1, Kind=Memcached: max concurrent reconciles must be at least 1"
    );
    assert_eq!(
        build_error(base().with_upgrade_annotations([HelmAnnotation::new(
            "helm.sdk.operatorframework.io/upgrade-force",
            AnnotationEffect::Force
        )])),
        "cache.example.com/v1, Kind=Memcached: annotation \"helm.sdk.operatorframework.io/upgrade-force\" already exists"
    );
    assert_eq!(
        build_error(
            base().with_override_values(BTreeMap::from([("a..b".to_string(), "1".to_string())]))
        ),
        "cache.example.com/v1, Kind=Memcached: invalid override values: invalid override \"a..b\": empty key segment"
    );
    assert_eq!(
        build_error(base().with_chart("")),
        "cache.example.com/v1, Kind=Memcached: chart path must not be empty"
    );
    let bad_selector = LabelSelector {
        match_labels: None,
        match_expressions: Some(vec![LabelSelectorRequirement {
            key: "a".into(),
            operator: "Near".into(),
            values: None,
        }]),
    };
    assert!(
        build_error(base().with_selector(bad_selector))
            .starts_with("cache.example.com/v1, Kind=Memcached: invalid selector: ")
    );
    let mut no_kind = watch();
    no_kind.kind.clear();
    assert_eq!(
        Reconciler::builder(&no_kind).err().unwrap().to_string(),
        "cache.example.com/v1, Kind=: version and kind must not be empty"
    );
}

#[tokio::test]
async fn finalizer_is_appended_to_existing_ones() {
    let mut existing = cr_json(json!({}), false, None);
    existing["metadata"]["finalizers"] = json!(["example.com/backup"]);
    let mut updated = existing.clone();
    updated["metadata"]["finalizers"] = json!(["example.com/backup", "uninstall-helm-release"]);
    let (client, api) = mock_api(vec![Expect::patch(
        CR_URI,
        json!([
            {"op": "test", "path": "/metadata/finalizers", "value": ["example.com/backup"]},
            {"op": "add", "path": "/metadata/finalizers/-", "value": "uninstall-helm-release"},
        ]),
        updated,
    )]);
    let crs = kube::Api::namespaced_with(client, "default", &resource());
    let stored = add_finalizer(&crs, &cr(existing)).await.unwrap();
    drop(crs);
    assert_eq!(stored.metadata.finalizers.unwrap().len(), 2);
    finish(api).await;
}

#[tokio::test]
async fn hooks_see_the_values_and_the_release_and_their_errors_are_only_logged() {
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
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let (pre_seen, post_seen) = (seen.clone(), seen.clone());
    let ctx = context(client, helm.clone(), false, move |b| {
        b.with_pre_hook(move |cr, values| {
            let seen = pre_seen.clone();
            async move {
                seen.lock().unwrap().push(format!(
                    "pre {} {}",
                    cr.metadata.name.unwrap_or_default(),
                    values
                ));
                anyhow::bail!("pre-hook failure is logged, not fatal")
            }
        })
        .with_post_hook(move |_, release| {
            let seen = post_seen.clone();
            async move {
                seen.lock()
                    .unwrap()
                    .push(format!("post {} v{}", release.name, release.version));
                Ok(())
            }
        })
    });
    reconcile(cr(cr_json(spec, true, Some(installed_status(3)))), ctx)
        .await
        .unwrap();
    finish(api).await;
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            "pre mc {\"replicaCount\":3}".to_string(),
            "post mc v1".to_string()
        ]
    );
    assert_eq!(helm.calls().len(), 2);
    assert!(matches!(helm.calls()[1], HelmCall::Upgrade { .. }));
}
