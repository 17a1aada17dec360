//! CPU cost of a reconcile that changes nothing, for a deployed `helm create` release:
//! the in-process design (release read from its Secret, chart rendered in process, objects
//! checked) against the previous design's floor (`helm status` + `helm upgrade --dry-run`
//! per reconcile, with a stub helm that only prints a release, so real helm costs more).
//!
//! `cargo run --release -p rusty-sdk-runtime --features chart-engine --example helm_noop_cost`
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use base64::Engine;
use http::{Method, Request, Response, StatusCode};
use kube::api::{ApiResource, DynamicObject, GroupVersionKind};
use kube::client::Body;
use rusty_sdk_runtime::helm::{
    DryRun, HelmCli, HelmClient, Reconciler, ReleaseTarget, UpgradeOptions, Watch,
};
use serde_json::{Value, json};

const RECONCILES: usize = 1_000;

fn main() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run())
}

async fn run() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let chart = starter_chart(dir.path())?;
    let manifest = installed_manifest(&chart)?;
    let writes = Arc::new(AtomicUsize::new(0));
    let client = mock_client(&manifest, writes.clone());
    let watch = Watch {
        group: "cache.example.com".into(),
        version: "v1".into(),
        kind: "Memcached".into(),
        chart: chart.clone(),
        watch_dependent_resources: false,
        override_values: Default::default(),
        reconcile_period: None,
        max_concurrent_reconciles: None,
        selector: Default::default(),
        dry_run_option: DryRun::Client,
    };
    // A helm binary that does not exist: any helm process would fail the reconcile.
    let helm = Arc::new(HelmCli::with_binary("/nonexistent/helm").with_major_version(4));
    let resource = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("cache.example.com", "v1", "Memcached"),
        "memcacheds",
    );
    let reconciler = Reconciler::builder(&watch)?
        .with_helm_client(helm)
        .build()?
        .standalone(client, resource);
    let cr: DynamicObject = serde_json::from_value(custom_resource(&manifest))?;
    let mut samples = Vec::with_capacity(RECONCILES);
    for _ in 0..RECONCILES {
        let before = cpu_time();
        reconciler.reconcile(cr.clone()).await?;
        samples.push(cpu_time() - before);
    }
    println!(
        "no-op reconcile, in process:   median {:>7.1} us CPU over {RECONCILES} (helm processes: 0, write requests: {})",
        median(&mut samples),
        writes.load(Ordering::Relaxed)
    );

    let stub = stub_helm(dir.path(), &manifest)?;
    let old = HelmCli::with_binary(&stub).with_major_version(4);
    let target = ReleaseTarget::new("mc", "default");
    let dry_run = UpgradeOptions {
        dry_run: Some(DryRun::Server),
        ..UpgradeOptions::default()
    };
    let mut samples = Vec::with_capacity(RECONCILES);
    for _ in 0..RECONCILES {
        let before = cpu_time();
        old.get(&target).await?;
        old.upgrade(&target, &chart, &json!({}), &dry_run).await?;
        samples.push(cpu_time() - before);
    }
    println!(
        "previous design, floor:        median {:>7.1} us CPU over {RECONCILES} (2 helm processes each, stub helm)",
        median(&mut samples)
    );
    Ok(())
}

/// User + system CPU of this process and its reaped children, in microseconds.
fn cpu_time() -> f64 {
    let micros = |who| {
        // SAFETY: getrusage writes into the zeroed struct we own.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(who, &mut usage) };
        let tv = |t: libc::timeval| t.tv_sec as f64 * 1e6 + t.tv_usec as f64;
        tv(usage.ru_utime) + tv(usage.ru_stime)
    };
    micros(libc::RUSAGE_SELF) + micros(libc::RUSAGE_CHILDREN)
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn starter_chart(dir: &Path) -> anyhow::Result<PathBuf> {
    let chart = dir.join("memcached");
    for (path, text) in rusty_sdk_chart::starter::files("memcached") {
        let file = chart.join(path);
        std::fs::create_dir_all(file.parent().unwrap_or(&chart))?;
        std::fs::write(file, text)?;
    }
    Ok(chart)
}

/// What Helm stores for an install with the defaults (kind order, hooks left out).
fn installed_manifest(chart: &Path) -> anyhow::Result<String> {
    let loaded = rusty_sdk_chart::Chart::load(chart)?;
    let options = rusty_sdk_chart::RenderOptions {
        release_name: "mc".into(),
        ..Default::default()
    };
    let rendered = rusty_sdk_chart::render(&loaded, &json!({}), &options)?;
    let mut manifest = String::new();
    for name in ["serviceaccount.yaml", "service.yaml", "deployment.yaml"] {
        let path = format!("memcached/templates/{name}");
        let text = rendered.get(&path).map(|t| t.trim()).unwrap_or_default();
        manifest.push_str(&format!("---\n# Source: {path}\n{text}\n"));
    }
    Ok(manifest)
}

fn release_json(manifest: &str) -> Value {
    json!({"name": "mc", "namespace": "default", "version": 1,
        "info": {"status": "deployed", "description": "Install complete"},
        "chart": {"metadata": {"name": "memcached", "version": "0.1.0", "appVersion": "1.16.0"}},
        "manifest": manifest})
}

fn custom_resource(manifest: &str) -> Value {
    let condition = |type_: &str, status: &str, reason: &str, message: &str| {
        let mut c =
            json!({"type": type_, "status": status, "lastTransitionTime": "2026-01-01T00:00:00Z"});
        if !reason.is_empty() {
            c["reason"] = json!(reason);
            c["message"] = json!(message);
        }
        c
    };
    json!({"apiVersion": "cache.example.com/v1", "kind": "Memcached",
        "metadata": {"name": "mc", "namespace": "default", "uid": "cr-uid",
                     "finalizers": ["uninstall-helm-release"]},
        "spec": {},
        "status": {"conditions": [
            condition("Deployed", "True", "InstallSuccessful", "release was successfully installed"),
            condition("Initialized", "True", "", ""),
            condition("Irreconcilable", "False", "", ""),
            condition("ReleaseFailed", "False", "", ""),
        ], "deployedRelease": {"name": "mc", "manifest": manifest}}})
}

/// A stub `helm` that prints the release for every call.
fn stub_helm(dir: &Path, manifest: &str) -> anyhow::Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let release = dir.join("release.json");
    std::fs::write(&release, release_json(manifest).to_string())?;
    let path = dir.join("helm");
    std::fs::write(&path, format!("#!/bin/sh\ncat '{}'\n", release.display()))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
    Ok(path)
}

/// An API server answering discovery, the release Secret and the objects as they were
/// applied; anything else is counted as a write and refused.
fn mock_client(manifest: &str, writes: Arc<AtomicUsize>) -> kube::Client {
    let stored = {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let _ = gz.write_all(release_json(manifest).to_string().as_bytes());
        let gzipped = gz.finish().unwrap_or_default();
        base64::engine::general_purpose::STANDARD.encode(gzipped)
    };
    let secrets = json!({"kind": "SecretList", "apiVersion": "v1", "metadata": {}, "items": [{
        "metadata": {"name": "sh.helm.release.v1.mc.v1", "namespace": "default",
                     "labels": {"owner": "helm", "name": "mc", "status": "deployed", "version": "1"}},
        "type": "helm.sh/release.v1",
        "data": {"release": base64::engine::general_purpose::STANDARD.encode(stored)}}]});
    let mut objects = std::collections::HashMap::new();
    for document in serde_saphyr::from_multiple::<Value>(manifest).unwrap_or_default() {
        if document.is_null() {
            continue;
        }
        let mut live = document.clone();
        let kind = live["kind"].as_str().unwrap_or_default().to_string();
        let name = live["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        live["metadata"]["namespace"] = json!("default");
        live["metadata"]["annotations"] = json!({"meta.helm.sh/release-name": "mc",
                                                  "meta.helm.sh/release-namespace": "default"});
        live["metadata"]["ownerReferences"] = json!([{"apiVersion": "cache.example.com/v1",
            "kind": "Memcached", "name": "mc", "uid": "cr-uid", "controller": true,
            "blockOwnerDeletion": true}]);
        let path = match kind.as_str() {
            "Deployment" => format!("/apis/apps/v1/namespaces/default/deployments/{name}"),
            "Service" => format!("/api/v1/namespaces/default/services/{name}"),
            _ => format!("/api/v1/namespaces/default/serviceaccounts/{name}"),
        };
        objects.insert(path, live);
    }
    let resource = |name: &str, kind: &str| {
        json!({"name": name, "singularName": "", "namespaced": true, "kind": kind,
               "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]})
    };
    let core = json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "v1",
        "resources": [resource("services", "Service"), resource("serviceaccounts", "ServiceAccount"),
                      resource("secrets", "Secret")]});
    let apps = json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "apps/v1",
        "resources": [resource("deployments", "Deployment")]});
    let answers = Arc::new((secrets, objects, core, apps));
    let service = tower::service_fn(move |request: Request<Body>| {
        let answers = answers.clone();
        let writes = writes.clone();
        async move {
            let (secrets, objects, core, apps) = &*answers;
            let path = request.uri().path().to_string();
            let body = match (request.method(), path.as_str()) {
                (&Method::GET, "/api/v1") => Some(core.clone()),
                (&Method::GET, "/apis/apps/v1") => Some(apps.clone()),
                (&Method::GET, "/api/v1/namespaces/default/secrets") => Some(secrets.clone()),
                (&Method::GET, other) => objects.get(other).cloned(),
                _ => None,
            };
            let response = match body {
                Some(body) => Response::builder()
                    .status(StatusCode::OK)
                    .body(Body::from(serde_json::to_vec(&body).unwrap_or_default())),
                None => {
                    writes.fetch_add(1, Ordering::Relaxed);
                    Response::builder()
                        .status(StatusCode::INTERNAL_SERVER_ERROR)
                        .body(Body::from(b"{}".to_vec()))
                }
            };
            response.map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>)
        }
    });
    kube::Client::new(service, "default")
}
