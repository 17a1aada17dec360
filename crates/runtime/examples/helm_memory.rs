//! Resident memory of the Helm controller in steady state: 1,000 deployed custom resources,
//! each release owning 10 ConfigMaps (10,000 dependent objects), listed through a mocked API
//! server. The controller runs as the manager starts it (`Reconciler::run`), with dependent
//! watches on, reconciles every resource once (release read from its Secret, chart rendered
//! in process, objects checked) and then idles on its watches.
//!
//! The mock lives in this process but keeps nothing: every answer is built when asked for
//! and dropped once sent, and freed heap is handed back (`malloc_trim`) before reading the
//! figure, so what is left is the controller's.
//!
//! `cargo run --release -p rusty-sdk-runtime --features chart-engine --example helm_memory`
//! (`WITHOUT_DEPENDENT_WATCHES=1` to see what the dependent watches add).
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use base64::Engine;
use http::{Method, Request, Response, StatusCode};
use kube::client::Body;
use kube::runtime::events::Reporter;
use rusty_sdk_chart::{Chart, RenderOptions};
use rusty_sdk_runtime::helm::{DryRun, HelmCli, Reconciler, Watch};
use rusty_sdk_runtime::{ControllerContext, ReconcileMetrics, Shutdown, WatchScope};
use serde_json::{Value, json};

const RESOURCES: usize = 1_000;
const OBJECTS_PER_RELEASE: usize = 10;
const NAMESPACE: &str = "default";

fn main() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(run())
}

/// Requests the mock answered, by kind of request.
#[derive(Default)]
struct Served {
    release_reads: AtomicUsize,
    object_reads: AtomicUsize,
    dependent_lists: AtomicUsize,
    unexpected: AtomicUsize,
    last: std::sync::Mutex<Option<Instant>>,
}

async fn run() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let chart_dir = write_chart(dir.path())?;
    let chart = Arc::new(Chart::load(&chart_dir)?);
    let served = Arc::new(Served::default());
    let client = mock_client(chart.clone(), served.clone());
    let baseline = memory();

    let watch = Watch {
        group: "cache.example.com".into(),
        version: "v1".into(),
        kind: "Memcached".into(),
        chart: chart_dir.clone(),
        watch_dependent_resources: std::env::var_os("WITHOUT_DEPENDENT_WATCHES").is_none(),
        override_values: Default::default(),
        reconcile_period: None,
        max_concurrent_reconciles: None,
        selector: Default::default(),
        dry_run_option: DryRun::Client,
    };
    // A helm binary that does not exist: any helm process would fail a reconcile.
    let helm = Arc::new(HelmCli::with_binary("/nonexistent/helm").with_major_version(4));
    let reconciler = Reconciler::builder(&watch)?
        .with_helm_client(helm)
        .build()?;
    let (stop, shutdown) = Shutdown::channel();
    let ctx = ControllerContext {
        client,
        scope: WatchScope::from_namespace(Some(NAMESPACE)),
        metrics: Arc::new(ReconcileMetrics::new(
            &mut prometheus_client::registry::Registry::default(),
        )),
        reporter: Reporter {
            controller: "memory".into(),
            instance: None,
        },
        shutdown,
    };
    let started = Instant::now();
    let controller = tokio::spawn(reconciler.run(ctx));

    // Steady state: every release read, the dependents listed, then a quiet second.
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let reads = served.release_reads.load(Ordering::Relaxed);
        let quiet = served
            .last
            .lock()
            .ok()
            .and_then(|last| *last)
            .is_some_and(|last| last.elapsed() > Duration::from_secs(1));
        if reads >= RESOURCES && quiet {
            break;
        }
        anyhow::ensure!(
            Instant::now() < deadline,
            "no steady state after 300 s ({reads} releases read)"
        );
    }
    let settled = started.elapsed();
    let before_trim = memory();
    // SAFETY: malloc_trim only returns free heap pages to the system.
    unsafe { libc::malloc_trim(0) };
    let steady = memory();

    println!(
        "Helm controller, {RESOURCES} CRs and {} dependent objects (mock API server, release {})",
        RESOURCES * OBJECTS_PER_RELEASE,
        if cfg!(debug_assertions) {
            "no: build with --release"
        } else {
            "build"
        },
    );
    println!(
        "  served: {} release reads, {} object reads, {} pages of dependents, {} unexpected requests (writes or helm would show here)",
        served.release_reads.load(Ordering::Relaxed),
        served.object_reads.load(Ordering::Relaxed),
        served.dependent_lists.load(Ordering::Relaxed),
        served.unexpected.load(Ordering::Relaxed),
    );
    println!("  steady state reached in {:.1} s", settled.as_secs_f64());
    println!(
        "  resident memory: before the controller {:.1} MiB, steady {:.1} MiB ({:.1} MiB before freed heap was returned), peak {:.1} MiB",
        mib(baseline.0),
        mib(steady.0),
        mib(before_trim.0),
        mib(steady.1)
    );
    println!(
        "  controller's share: {:.1} MiB, {:.1} KiB per custom resource with its {OBJECTS_PER_RELEASE} objects",
        mib(steady.0.saturating_sub(baseline.0)),
        steady.0.saturating_sub(baseline.0) as f64 / 1024.0 / RESOURCES as f64
    );
    let _ = stop.send(true);
    let _ = tokio::time::timeout(Duration::from_secs(5), controller).await;
    Ok(())
}

/// (VmRSS, VmHWM) in bytes, from /proc/self/status.
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| {
                rest.trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
            .map_or(0, |kib| kib * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / 1024.0 / 1024.0
}

/// A chart whose release is `OBJECTS_PER_RELEASE` ConfigMaps.
fn write_chart(dir: &Path) -> anyhow::Result<std::path::PathBuf> {
    let chart = dir.join("memcached");
    std::fs::create_dir_all(chart.join("templates"))?;
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: memcached\nversion: 0.1.0\n",
    )?;
    std::fs::write(chart.join("values.yaml"), "size: 1\n")?;
    std::fs::write(
        chart.join("templates/configmaps.yaml"),
        format!(
            "{{{{- range $i := until {OBJECTS_PER_RELEASE} }}}}\n---\napiVersion: v1\nkind: ConfigMap\n\
             metadata:\n  name: {{{{ $.Release.Name }}}}-{{{{ $i }}}}\ndata:\n  size: {{{{ $.Values.size | quote }}}}\n\
             {{{{- end }}}}\n"
        ),
    )?;
    Ok(chart)
}

/// The manifest Helm stores for release `name`: one `# Source` document per object.
fn manifest(chart: &Chart, name: &str) -> String {
    let options = RenderOptions {
        release_name: name.into(),
        namespace: NAMESPACE.into(),
        ..RenderOptions::default()
    };
    let rendered = rusty_sdk_chart::render(chart, &json!({}), &options).unwrap_or_default();
    let mut manifest = String::new();
    for (path, text) in &rendered {
        for document in text.split("\n---\n").map(str::trim) {
            let document = document.trim_start_matches("---").trim();
            if !document.is_empty() {
                manifest.push_str(&format!("---\n# Source: {path}\n{document}\n"));
            }
        }
    }
    manifest
}

fn resource_name(index: usize) -> String {
    format!("mc-{index}")
}

fn custom_resource(chart: &Chart, index: usize) -> Value {
    let name = resource_name(index);
    let condition = |type_: &str, status: &str| json!({"type": type_, "status": status, "lastTransitionTime": "2026-01-01T00:00:00Z"});
    let mut deployed = condition("Deployed", "True");
    deployed["reason"] = json!("InstallSuccessful");
    deployed["message"] = json!("release was successfully installed");
    json!({"apiVersion": "cache.example.com/v1", "kind": "Memcached",
        "metadata": {"name": name, "namespace": NAMESPACE, "uid": format!("uid-{index}"),
                     "resourceVersion": "1", "generation": 1,
                     "finalizers": ["uninstall-helm-release"]},
        "spec": {},
        "status": {"conditions": [deployed, condition("Initialized", "True"),
            condition("Irreconcilable", "False"), condition("ReleaseFailed", "False")],
            "deployedRelease": {"name": name, "manifest": manifest(chart, &name)}}})
}

fn release_secret(chart: &Chart, name: &str) -> Value {
    let release = json!({"name": name, "namespace": NAMESPACE, "version": 1,
        "info": {"status": "deployed", "description": "Install complete"},
        "chart": {"metadata": {"name": "memcached", "version": "0.1.0"}},
        "manifest": manifest(chart, name)});
    let gzipped = {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let _ = gz.write_all(release.to_string().as_bytes());
        gz.finish().unwrap_or_default()
    };
    let base64 = &base64::engine::general_purpose::STANDARD;
    json!({"kind": "SecretList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"},
        "items": [{"metadata": {"name": format!("sh.helm.release.v1.{name}.v1"), "namespace": NAMESPACE,
            "labels": {"owner": "helm", "name": name, "status": "deployed", "version": "1"}},
            "type": "helm.sh/release.v1",
            "data": {"release": base64.encode(base64.encode(gzipped))}}]})
}

/// Metadata of ConfigMap `index` of resource `owner`, as the server has it after Helm.
fn config_map_meta(owner: usize, index: usize) -> Value {
    let release = resource_name(owner);
    json!({"name": format!("{release}-{index}"), "namespace": NAMESPACE,
        "uid": format!("cm-{owner}-{index}"), "resourceVersion": "1",
        "labels": {"app.kubernetes.io/managed-by": "Helm"},
        "annotations": {"meta.helm.sh/release-name": release,
                        "meta.helm.sh/release-namespace": NAMESPACE},
        "ownerReferences": [{"apiVersion": "cache.example.com/v1", "kind": "Memcached",
            "name": release, "uid": format!("uid-{owner}"), "controller": true,
            "blockOwnerDeletion": true}]})
}

/// `mc-12-3` → (12, 3).
fn parse_object_name(name: &str) -> Option<(usize, usize)> {
    let (owner, index) = name.strip_prefix("mc-")?.split_once('-')?;
    Some((owner.parse().ok()?, index.parse().ok()?))
}

/// The release name in a `labelSelector=owner=helm,name=NAME` query.
fn selected_release(query: &str) -> Option<String> {
    let selector = query
        .split('&')
        .find_map(|pair| pair.strip_prefix("labelSelector="))?
        .replace("%3D", "=")
        .replace("%2C", ",");
    selector
        .split(',')
        .find_map(|term| term.strip_prefix("name=").map(str::to_string))
}

/// One page of a list, as the API server pages it (`limit`, `continue`).
fn page(
    kind: &str,
    api_version: &str,
    query: &str,
    total: usize,
    item: impl Fn(usize) -> Value,
) -> Value {
    let param = |name: &str| {
        query
            .split('&')
            .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
            .and_then(|value| value.parse::<usize>().ok())
    };
    let start = param("continue").unwrap_or(0).min(total);
    let end = param("limit").map_or(total, |limit| (start + limit.max(1)).min(total));
    let mut metadata = json!({"resourceVersion": "1"});
    if end < total {
        metadata["continue"] = json!(end.to_string());
    }
    let items: Vec<Value> = (start..end).map(item).collect();
    json!({"kind": kind, "apiVersion": api_version, "metadata": metadata, "items": items})
}

fn answer(
    chart: &Chart,
    served: &Served,
    method: &Method,
    path: &str,
    query: &str,
) -> Option<Value> {
    let resource = |name: &str, kind: &str| {
        json!({"name": name, "singularName": "", "namespaced": true, "kind": kind,
               "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]})
    };
    if method != Method::GET {
        return None;
    }
    let namespaced = format!("/api/v1/namespaces/{NAMESPACE}/");
    match path {
        "/apis/cache.example.com/v1" => Some(json!({"kind": "APIResourceList", "apiVersion": "v1",
            "groupVersion": "cache.example.com/v1", "resources": [resource("memcacheds", "Memcached")]})),
        "/api/v1" => Some(
            json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "v1",
            "resources": [resource("configmaps", "ConfigMap"), resource("secrets", "Secret")]}),
        ),
        "/apis/cache.example.com/v1/namespaces/default/memcacheds" => Some(page(
            "MemcachedList",
            "cache.example.com/v1",
            query,
            RESOURCES,
            |i| custom_resource(chart, i),
        )),
        "/api/v1/namespaces/default/secrets" => {
            let name = selected_release(query)?;
            served.release_reads.fetch_add(1, Ordering::Relaxed);
            Some(release_secret(chart, &name))
        }
        "/api/v1/namespaces/default/configmaps" => {
            served.dependent_lists.fetch_add(1, Ordering::Relaxed);
            Some(page(
                "PartialObjectMetadataList",
                "meta.k8s.io/v1",
                query,
                RESOURCES * OBJECTS_PER_RELEASE,
                |n| {
                    let meta = config_map_meta(n / OBJECTS_PER_RELEASE, n % OBJECTS_PER_RELEASE);
                    json!({"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": meta})
                },
            ))
        }
        other => {
            let name = other
                .strip_prefix(&namespaced)?
                .strip_prefix("configmaps/")?;
            let (owner, index) = parse_object_name(name)?;
            served.object_reads.fetch_add(1, Ordering::Relaxed);
            Some(json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": config_map_meta(owner, index), "data": {"size": "1"}}))
        }
    }
}

/// An API server that builds each answer when asked; watches stay open and silent.
fn mock_client(chart: Arc<Chart>, served: Arc<Served>) -> kube::Client {
    let service = tower::service_fn(move |request: Request<Body>| {
        let chart = chart.clone();
        let served = served.clone();
        async move {
            let query = request.uri().query().unwrap_or_default().to_string();
            if query.split('&').any(|pair| pair == "watch=true") {
                std::future::pending::<()>().await;
            }
            if let Ok(mut last) = served.last.lock() {
                *last = Some(Instant::now());
            }
            let path = request.uri().path();
            let response = match answer(&chart, &served, request.method(), path, &query) {
                Some(body) => Response::builder()
                    .status(StatusCode::OK)
                    .body(Body::from(serde_json::to_vec(&body).unwrap_or_default())),
                None => {
                    served.unexpected.fetch_add(1, Ordering::Relaxed);
                    eprintln!("unexpected request: {} {path}?{query}", request.method());
                    Response::builder()
                        .status(StatusCode::INTERNAL_SERVER_ERROR)
                        .body(Body::from(b"{}".to_vec()))
                }
            };
            response.map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>)
        }
    });
    kube::Client::new(service, NAMESPACE)
}
