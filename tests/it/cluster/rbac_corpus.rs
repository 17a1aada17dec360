//! The role `generate rbac` writes, enforced by a real API server: one Helm operator with an
//! API per chart of the corpus (`../shared/charts-corpus`), run with only its generated
//! ServiceAccount's permissions, installs, upgrades and uninstalls every chart that can run
//! on this control plane. Any `forbidden` in the operator's log fails the test and is quoted,
//! so the failure names the rule the role lacks.
//!
//! Which charts run is decided by rules, checked against the API server before anything is
//! installed (see [`plan`]):
//! - the chart must render with its default values (external-dns does not: its schema
//!   requires `policy`, which its defaults leave null);
//! - every object it renders must be of a kind the API server serves without any CRD, or of
//!   a kind the chart defines itself (crds/ or templates): a chart that needs cert-manager's,
//!   the Prometheus operator's or any other outside CRDs cannot install here;
//! - no object may be an install, upgrade or delete hook that is a Job or a Pod: Helm waits
//!   for those to complete, and nothing completes on a control plane without kubelets.
//!   [`VALUES`] turns such hooks off where the chart has a value for it, with the reason;
//!   the rule is applied after those values.
//!
//! A chart whose templates call `lookup` gets `dryRunOption: server` in watches.yaml, as its
//! users must set it: the default client-side dry run renders `lookup` empty, and charts
//! that keep generated passwords (Bitnami's) then refuse every upgrade dry run.
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use kube::api::{
    Api, DeleteParams, DynamicObject, GroupVersionKind, ListParams, Patch, PatchParams, PostParams,
};
use kube::discovery::{Discovery, Scope};
use rusty_sdk_chart::{Capabilities, Chart, HookKind, KubeVersion, Manifest, RenderOptions};
use rusty_sdk_test_tools::needs;
use serde_json::{Map, Value, json};
use tokio::sync::{OnceCell, Semaphore};

use super::cluster;
use super::operator::{Installed, Operator, custom, helm, install};
use crate::support::rusty;

/// One step (install, upgrade, uninstall) on two busy cores, several charts at once.
const SETTLE: Duration = Duration::from_secs(150);
/// Charts run side by side, each with its own namespace and operator process.
const AT_ONCE: usize = 4;
/// The namespace of the renders that plan the runs; each chart then runs in its own.
const RENDER_NAMESPACE: &str = "rbac-corpus";
/// The annotation the upgrade adds through every empty annotations map of the values.
const MARK: &str = "rusty-sdk.dev/upgraded";

/// Values a chart is installed with, each with why: hook Jobs turned off (they never
/// complete without kubelets, and Helm would wait for them until its timeout), or a
/// placeholder of the chart's release tooling replaced.
pub(super) const VALUES: &[(&str, &str, &str)] = &[
    (
        "argo-workflows",
        r#"{"crds": {"full": false}}"#,
        "the full CRDs are applied by a pre-install Job; the minimal ones are plain templates",
    ),
    (
        "ingress-nginx",
        r#"{"controller": {"admissionWebhooks": {"enabled": false}}}"#,
        "the admission webhook's certificate is made and patched in by hook Jobs",
    ),
    (
        "kiali-server",
        r#"{"deployment": {"image_version": "v2.0", "version_label": "v2.0"}}"#,
        "values.yaml keeps ${HELM_IMAGE_TAG}, which kiali's release tooling replaces; the API server refuses it as a label",
    ),
    (
        "kube-prometheus-stack",
        r#"{"prometheusOperator": {"admissionWebhooks": {"enabled": false}}}"#,
        "the operator's webhook certificate is made and patched in by hook Jobs",
    ),
    (
        "secrets-store-csi-driver",
        r#"{"linux": {"crds": {"enabled": false}}}"#,
        "its CRDs are applied and kept by pre-install and pre-upgrade Jobs",
    ),
    (
        "velero",
        r#"{"upgradeCRDs": false, "configuration": {"backupStorageLocation": [], "volumeSnapshotLocation": []}}"#,
        "its CRDs are upgraded by a pre-install Job (crds/ installs them as well); its default storage locations have no provider, which velero's CRDs refuse",
    ),
];

fn corpus_charts() -> PathBuf {
    Path::new(rusty_sdk_test_tools::path!(charts_corpus)).join("charts")
}

/// What the API server serves: for rendering as Helm renders against it, and to tell a
/// built-in kind from one a CRD adds.
struct Served {
    capabilities: Capabilities,
    /// (group, kind) served without a CRD.
    builtin: BTreeSet<(String, String)>,
}

async fn served(client: &kube::Client) -> Served {
    let discovery = Discovery::new(client.clone()).run().await.unwrap();
    let crds: Api<DynamicObject> = Api::all_with(
        client.clone(),
        &kube::discovery::ApiResource::from_gvk_with_plural(
            &GroupVersionKind::gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
            "customresourcedefinitions",
        ),
    );
    let from_crds: BTreeSet<String> = crds
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .iter()
        .filter_map(|crd| crd.data["spec"]["group"].as_str().map(str::to_string))
        .collect();
    let mut api_versions = Vec::new();
    let mut builtin = BTreeSet::new();
    for group in discovery.groups() {
        for version in group.versions() {
            let gv = if group.name().is_empty() {
                version.to_string()
            } else {
                format!("{}/{version}", group.name())
            };
            api_versions.push(gv.clone());
            for (resource, _) in group.versioned_resources(version) {
                api_versions.push(format!("{gv}/{}", resource.kind));
                if !from_crds.contains(group.name()) {
                    builtin.insert((group.name().to_string(), resource.kind.clone()));
                }
            }
        }
    }
    let version = client.apiserver_version().await.unwrap();
    let capabilities = Capabilities {
        kube_version: KubeVersion {
            version: version.git_version.clone(),
            major: version.major.clone(),
            minor: version.minor.trim_end_matches('+').to_string(),
        },
        api_versions,
        ..Capabilities::default()
    };
    Served {
        capabilities,
        builtin,
    }
}

/// A chart to run: its corpus folder, its kind in the project, the values it is installed
/// with and the change that upgrades it.
#[derive(Clone, Debug)]
struct Run {
    folder: String,
    /// The chart's own name: the CR's (and so the release's) name.
    name: String,
    install: Value,
    /// A merge patch of the spec that changes at least one object, or `None` when no value
    /// of the chart is an empty annotations map that reaches an object.
    upgrade: Option<Value>,
    /// An object that carries [`MARK`] after the upgrade: (apiVersion, kind, namespace, name).
    marked: Option<Marked>,
    /// The chart calls `lookup`: its API gets `dryRunOption: server`.
    lookup: bool,
}

/// Whether a template of the chart or its subcharts calls `lookup`.
fn calls_lookup(dir: &Path) -> bool {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| e.path().components().any(|c| c.as_os_str() == "templates"))
        .any(|e| {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            text.contains("lookup \"") || text.contains("lookup (")
        })
}

/// An object of a release: (apiVersion, kind, namespace, name).
type Marked = (String, String, Option<String>, String);

/// Why a chart does not run.
#[derive(Debug)]
struct Excluded {
    folder: String,
    why: String,
}

fn render(
    chart: &Chart,
    values: &Value,
    name: &str,
    ns: &str,
    served: &Served,
) -> Result<Vec<Manifest>, String> {
    let opts = RenderOptions {
        release_name: name.to_string(),
        namespace: ns.to_string(),
        capabilities: served.capabilities.clone(),
        ..RenderOptions::default()
    };
    let rendered = rusty_sdk_chart::render(chart, values, &opts).map_err(|e| e.to_string())?;
    rusty_sdk_chart::split_manifests(&rendered).map_err(|e| e.to_string())
}

/// (group, kind) of an object.
fn group_kind(object: &Value) -> (String, String) {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    (
        group.to_string(),
        object["kind"].as_str().unwrap_or_default().to_string(),
    )
}

/// The kinds the chart defines: CRDs in crds/ and in its templates.
fn own_crds(chart: &Chart, manifests: &[Manifest]) -> BTreeSet<(String, String)> {
    let mut objects: Vec<Value> = manifests.iter().map(|m| m.object.clone()).collect();
    for file in chart.crds() {
        if let Ok(docs) =
            rusty_sdk_chart::split_manifests(&BTreeMap::from([(file.name.clone(), file.text())]))
        {
            objects.extend(docs.into_iter().map(|m| m.object));
        }
    }
    objects
        .iter()
        .filter(|o| {
            group_kind(o)
                == (
                    "apiextensions.k8s.io".into(),
                    "CustomResourceDefinition".into(),
                )
        })
        .filter_map(|o| {
            Some((
                o["spec"]["group"].as_str()?.to_string(),
                o["spec"]["names"]["kind"].as_str()?.to_string(),
            ))
        })
        .collect()
}

/// A hook Helm waits for: a Job or Pod run on install, upgrade or delete.
fn waited_hook(manifest: &Manifest) -> bool {
    let runs = manifest.hook.iter().flatten().any(|k| {
        matches!(
            k,
            HookKind::PreInstall
                | HookKind::PostInstall
                | HookKind::PreUpgrade
                | HookKind::PostUpgrade
                | HookKind::PreDelete
                | HookKind::PostDelete
        )
    });
    runs && matches!(manifest.kind(), "Job" | "Pod")
}

/// Why the chart cannot run here with `values`, if it cannot.
fn cannot_run(chart: &Chart, manifests: &[Manifest], served: &Served) -> Option<String> {
    let own = own_crds(chart, manifests);
    let outside: BTreeSet<String> = manifests
        .iter()
        .map(|m| group_kind(&m.object))
        .filter(|gk| !served.builtin.contains(gk) && !own.contains(gk))
        .map(|(g, k)| format!("{k}.{g}"))
        .collect();
    if !outside.is_empty() {
        return Some(format!(
            "needs CRDs from outside the chart: {}",
            outside.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    let hooks: BTreeSet<String> = manifests
        .iter()
        .filter(|m| waited_hook(m))
        .map(|m| m.source.clone())
        .collect();
    if !hooks.is_empty() {
        return Some(format!(
            "Helm waits for its hook Jobs, which never complete without kubelets: {}",
            hooks.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    None
}

/// The paths of every empty (or null) map named `*annotations` in `values`.
pub(super) fn annotation_maps(values: &Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    if let Value::Object(map) = values {
        for (key, value) in map {
            path.push(key.clone());
            let empty = value.is_null() || value.as_object().is_some_and(Map::is_empty);
            if empty && key.to_ascii_lowercase().ends_with("annotations") && !under_storage(path) {
                out.push(path.clone());
            }
            annotation_maps(value, path, out);
            path.pop();
        }
    }
}

/// Whether a values path is about storage: in a `StatefulSet` such annotations land in
/// `volumeClaimTemplates`, which the API server refuses to change.
fn under_storage(path: &[String]) -> bool {
    path.iter().any(|key| {
        let key = key.to_ascii_lowercase();
        ["persistence", "storage", "volume", "pvc"]
            .iter()
            .any(|word| key.contains(word))
    })
}

/// `{a: {b: {c: value}}}` for the path `a.b.c`, merged into `into`.
fn set_path(into: &mut Value, path: &[String], value: Value) {
    let mut at = into;
    for key in &path[..path.len() - 1] {
        at = at
            .as_object_mut()
            .unwrap()
            .entry(key.clone())
            .or_insert_with(|| json!({}));
        if !at.is_object() {
            *at = json!({});
        }
    }
    at.as_object_mut()
        .unwrap()
        .insert(path[path.len() - 1].clone(), value);
}

fn merged(base: &Value, patch: &Value) -> Value {
    let mut out = base.clone();
    merge_into(&mut out, patch);
    out
}

pub(super) fn merge_into(into: &mut Value, patch: &Value) {
    match (into, patch) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge_into(a.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        (slot, v) => *slot = v.clone(),
    }
}

/// The first object (not a hook) whose text holds [`MARK`].
fn marked_object(manifests: &[Manifest], ns: &str) -> Option<Marked> {
    manifests
        .iter()
        .filter(|m| m.hook.is_none() && m.object.to_string().contains(MARK))
        .find_map(|m| {
            let meta = &m.object["metadata"];
            Some((
                m.api_version().to_string(),
                m.kind().to_string(),
                meta["namespace"]
                    .as_str()
                    .map(str::to_string)
                    .or_else(|| Some(ns.to_string())),
                meta["name"].as_str()?.to_string(),
            ))
        })
}

/// The upgrade: [`MARK`] in every empty annotations map at once; when that does not render
/// or reaches no object, in each one alone. Decided by rendering, not by a list.
fn upgrade_for(
    chart: &Chart,
    install: &Value,
    name: &str,
    ns: &str,
    served: &Served,
) -> (Option<Value>, Option<Marked>) {
    let mut paths = Vec::new();
    annotation_maps(chart.values(), &mut Vec::new(), &mut paths);
    let mark = json!({ MARK: "two" });
    let mut all = json!({});
    for path in &paths {
        set_path(&mut all, path, mark.clone());
    }
    let tries = std::iter::once(all).chain(paths.iter().map(|path| {
        let mut one = json!({});
        set_path(&mut one, path, mark.clone());
        one
    }));
    for patch in tries {
        if let Ok(manifests) = render(chart, &merged(install, &patch), name, ns, served) {
            if cannot_run(chart, &manifests, served).is_some() {
                continue;
            }
            if let Some(object) = marked_object(&manifests, ns) {
                return (Some(patch), Some(object));
            }
        }
    }
    (None, None)
}

/// Every chart of the corpus, run or excluded by the rules above.
fn plan(served: &Served) -> (Vec<Run>, Vec<Excluded>) {
    let mut folders: Vec<String> = std::fs::read_dir(corpus_charts())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    let mut runs = Vec::new();
    let mut excluded = Vec::new();
    for folder in folders {
        let chart =
            Chart::load(&corpus_charts().join(&folder)).unwrap_or_else(|e| panic!("{folder}: {e}"));
        let name = chart.name().to_string();
        let install = VALUES.iter().find(|(f, _, _)| *f == folder).map_or_else(
            || json!({}),
            |(_, values, _)| serde_json::from_str(values).unwrap(),
        );
        let ns = RENDER_NAMESPACE;
        let why = match render(&chart, &install, &name, ns, served) {
            Err(e) => Some(format!(
                "does not render with its default values: {}",
                e.lines().next().unwrap_or_default()
            )),
            Ok(manifests) => cannot_run(&chart, &manifests, served),
        };
        if let Some(why) = why {
            excluded.push(Excluded { folder, why });
            continue;
        }
        let (upgrade, marked) = upgrade_for(&chart, &install, &name, ns, served);
        runs.push(Run {
            lookup: calls_lookup(&corpus_charts().join(&folder)),
            folder,
            name,
            install,
            upgrade,
            marked,
        });
    }
    (runs, excluded)
}

/// The project: `init --plugins helm` and one `create api --helm-chart` per chart that runs,
/// built and installed once.
struct Project {
    installed: Installed,
    /// Chart name -> (group, version, kind, plural).
    kinds: BTreeMap<String, (String, String, String, String)>,
}

async fn project(runs: &[Run]) -> &'static Project {
    static PROJECT: OnceCell<(tempfile::TempDir, Project)> = OnceCell::const_new();
    let (_, project) = PROJECT
        .get_or_init(|| async {
            let (dir, root) = crate::e2e::project_dir("rbac-corpus");
            let ok = |args: &[&str]| {
                let out = rusty(&root).args(args).output().unwrap();
                assert!(
                    out.status.success(),
                    "rusty-sdk {}: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr)
                );
            };
            ok(&[
                "init",
                "--plugins=helm",
                "--domain=my.domain",
                "--repo=github.com/example/rbac-corpus",
            ]);
            for run in runs {
                let chart = corpus_charts().join(&run.folder);
                ok(&[
                    "create",
                    "api",
                    "--plugins=helm",
                    "--helm-chart",
                    chart.to_str().unwrap(),
                ]);
            }
            server_dry_run(&root, runs);
            let kinds = kinds(&root);
            let installed = install(&root).await;
            (dir, Project { installed, kinds })
        })
        .await;
    project
}

/// `dryRunOption: server` in watches.yaml for the charts that call `lookup`.
fn server_dry_run(root: &Path, runs: &[Run]) {
    let path = root.join("watches.yaml");
    let mut watches: Vec<Value> =
        serde_yaml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for watch in &mut watches {
        let chart = watch["chart"]
            .as_str()
            .unwrap()
            .trim_start_matches("helm-charts/");
        if runs.iter().any(|r| r.lookup && r.name == chart) {
            watch["dryRunOption"] = json!("server");
        }
    }
    std::fs::write(path, serde_yaml::to_string(&watches).unwrap()).unwrap();
}

/// Chart name -> (group, version, kind, plural), from watches.yaml and the CRDs.
fn kinds(root: &Path) -> BTreeMap<String, (String, String, String, String)> {
    let watches: Vec<Value> =
        serde_yaml::from_str(&std::fs::read_to_string(root.join("watches.yaml")).unwrap()).unwrap();
    let mut plurals = BTreeMap::new();
    for entry in std::fs::read_dir(root.join("config/crd/bases")).unwrap() {
        let crd: Value =
            serde_yaml::from_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap()).unwrap();
        plurals.insert(
            crd["spec"]["names"]["kind"].as_str().unwrap().to_string(),
            crd["spec"]["names"]["plural"].as_str().unwrap().to_string(),
        );
    }
    watches
        .iter()
        .map(|w| {
            let chart = w["chart"]
                .as_str()
                .unwrap()
                .trim_start_matches("helm-charts/")
                .to_string();
            let kind = w["kind"].as_str().unwrap().to_string();
            (
                chart,
                (
                    w["group"].as_str().unwrap().to_string(),
                    w["version"].as_str().unwrap().to_string(),
                    kind.clone(),
                    plurals[&kind].clone(),
                ),
            )
        })
        .collect()
}

/// The CR's conditions now: `Some(Ok)` when `Deployed=True` with `reason`, `Some(Err)` when
/// `ReleaseFailed=True`, `None` while neither.
async fn deployed_now(
    api: &Api<DynamicObject>,
    name: &str,
    reason: &str,
) -> Result<Option<Result<(), String>>, String> {
    let cr = api.get_opt(name).await.map_err(|e| e.to_string())?;
    let find = |t: &str| cr.as_ref().and_then(|cr| super::condition(cr, t)).cloned();
    if find("Deployed").is_some_and(|c| c["status"] == "True" && c["reason"] == reason) {
        return Ok(Some(Ok(())));
    }
    if let Some(failed) = find("ReleaseFailed").filter(|c| c["status"] == "True") {
        return Ok(Some(Err(format!("ReleaseFailed: {}", failed["message"]))));
    }
    Ok(None)
}

/// `Deployed=True` with `reason`, or the reason it failed (early when `ReleaseFailed` is set).
async fn deployed(api: &Api<DynamicObject>, name: &str, reason: &str) -> Result<(), String> {
    let deadline = Instant::now() + SETTLE;
    loop {
        match deployed_now(api, name, reason).await? {
            Some(result) => return result,
            None if Instant::now() > deadline => {
                let status = api
                    .get_opt(name)
                    .await
                    .ok()
                    .flatten()
                    .map(|cr| cr.data["status"].clone());
                return Err(format!(
                    "no Deployed=True ({reason}) after {}s; status: {}",
                    SETTLE.as_secs(),
                    status.unwrap_or_default()
                ));
            }
            None => tokio::time::sleep(Duration::from_millis(250)).await,
        }
    }
}

/// The lines of the log that say `forbidden`, at most a few of each.
fn forbidden(log: &str) -> Vec<String> {
    let mut seen = BTreeSet::new();
    log.lines()
        .filter(|l| l.to_ascii_lowercase().contains("forbidden"))
        .filter(|l| seen.insert(l.chars().skip(30).take(300).collect::<String>()))
        .take(8)
        .map(|l| l.chars().take(1200).collect())
        .collect()
}

/// Install, upgrade and uninstall one chart in its own namespace with its own operator.
async fn exercise(project: &'static Project, run: Run) -> Result<&'static str, String> {
    let admin = cluster().client().await.unwrap();
    let ns = cluster()
        .create_namespace(&admin, &format!("corpus-{}", run.folder))
        .await
        .unwrap();
    let scope = format!("--namespace={ns}");
    let operator =
        tokio::task::spawn_blocking(move || Operator::start(&project.installed, &[&scope]))
            .await
            .unwrap();
    let (group, version, kind, plural) = &project.kinds[&run.name];
    let api = custom(&admin, &ns, (group, version, kind, plural));
    let steps = async {
        let cr: DynamicObject = serde_json::from_value(json!({
            "apiVersion": format!("{group}/{version}"),
            "kind": kind,
            "metadata": {"name": run.name},
            "spec": run.install,
        }))
        .unwrap();
        api.create(&PostParams::default(), &cr)
            .await
            .map_err(|e| format!("create: {e}"))?;
        deployed(&api, &run.name, "InstallSuccessful")
            .await
            .map_err(|e| format!("install: {e}"))?;
        let upgraded = if let Some(patch) = &run.upgrade {
            api.patch(
                &run.name,
                &PatchParams::default(),
                &Patch::Merge(json!({ "spec": patch })),
            )
            .await
            .map_err(|e| format!("upgrade patch: {e}"))?;
            let (api_version, kind, object_ns, name) = run.marked.clone().unwrap();
            let object_ns = object_ns.map(|o| if o == RENDER_NAMESPACE { ns.clone() } else { o });
            // Charts that generate passwords are upgraded on every reconcile (each dry run
            // renders new ones), so the reason alone does not say this upgrade happened: the
            // annotated object does.
            let deadline = Instant::now() + SETTLE;
            loop {
                let marked =
                    check_marked(&admin, &api_version, &kind, object_ns.clone(), &name).await;
                let state = deployed_now(&api, &run.name, "UpgradeSuccessful").await?;
                match (marked, state) {
                    (_, Some(Err(failed))) => return Err(format!("upgrade: {failed}")),
                    (Ok(()), Some(Ok(()))) => break,
                    (marked, _) if Instant::now() > deadline => {
                        return Err(format!(
                            "upgrade: not done after {}s: {}",
                            SETTLE.as_secs(),
                            marked
                                .err()
                                .unwrap_or_else(|| "no Deployed=True (UpgradeSuccessful)".into())
                        ));
                    }
                    _ => tokio::time::sleep(Duration::from_millis(250)).await,
                }
            }
            "installed, upgraded, uninstalled"
        } else {
            "installed, uninstalled (no empty annotations map reaches an object: no upgrade)"
        };
        api.delete(&run.name, &DeleteParams::default())
            .await
            .map_err(|e| format!("delete: {e}"))?;
        let deadline = Instant::now() + SETTLE;
        while api
            .get_opt(&run.name)
            .await
            .map_err(|e| e.to_string())?
            .is_some()
        {
            if Instant::now() > deadline {
                return Err(format!(
                    "uninstall: the CR is still there after {}s",
                    SETTLE.as_secs()
                ));
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        let releases = helm(&["list", "-n", &ns, "-o", "json"]);
        if releases.trim() != "[]" {
            return Err(format!("uninstall: releases left: {releases}"));
        }
        Ok(upgraded)
    };
    let result = steps.await;
    let log = operator.log();
    drop(operator);
    let _ = kube::Api::<k8s_openapi::api::core::v1::Namespace>::all(admin)
        .delete(&ns, &DeleteParams::default())
        .await;
    let denied = forbidden(&log);
    let tail: Vec<&str> = log.lines().rev().take(12).collect();
    let tail = tail.into_iter().rev().collect::<Vec<_>>().join("\n  ");
    match (result, denied.is_empty()) {
        (Ok(done), true) => Ok(done),
        (Ok(_), false) => Err(format!(
            "the operator was forbidden:\n  {}",
            denied.join("\n  ")
        )),
        (Err(e), true) => Err(format!("{e}\n  operator log (last lines):\n  {tail}")),
        (Err(e), false) => Err(format!(
            "{e}\n  the operator was forbidden:\n  {}",
            denied.join("\n  ")
        )),
    }
}

/// The object the upgrade annotated carries [`MARK`] on the API server.
async fn check_marked(
    admin: &kube::Client,
    api_version: &str,
    kind: &str,
    ns: Option<String>,
    name: &str,
) -> Result<(), String> {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let gvk = GroupVersionKind::gvk(group, version, kind);
    let (resource, caps) = kube::discovery::pinned_kind(admin, &gvk)
        .await
        .map_err(|e| format!("upgrade: {api_version} {kind}: {e}"))?;
    let api: Api<DynamicObject> = match (caps.scope, ns) {
        (Scope::Namespaced, Some(ns)) => Api::namespaced_with(admin.clone(), &ns, &resource),
        _ => Api::all_with(admin.clone(), &resource),
    };
    let object = api
        .get(name)
        .await
        .map_err(|e| format!("upgrade: {kind} {name}: {e}"))?;
    let text = serde_json::to_string(&object).unwrap();
    if text.contains(MARK) {
        Ok(())
    } else {
        Err(format!(
            "upgrade: {kind} {name} does not carry {MARK} after the upgrade"
        ))
    }
}

#[needs(control_plane, e2e, kubectl, helm, charts_corpus)]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_corpus_chart_installs_upgrades_and_uninstalls_with_the_generated_role() {
    let _corpus = super::CORPUS.lock().await;
    let started = Instant::now();
    let admin = cluster().client().await.unwrap();
    let served = served(&admin).await;
    let (runs, excluded) = plan(&served);
    let project = project(&runs).await;
    eprintln!(
        "rbac_corpus: {} charts run, {} excluded; project built and installed in {}s",
        runs.len(),
        excluded.len(),
        started.elapsed().as_secs()
    );
    let charts_started = Instant::now();
    let permits = Arc::new(Semaphore::new(AT_ONCE));
    let mut tasks = Vec::new();
    for run in runs.clone() {
        let permits = permits.clone();
        tasks.push(tokio::spawn(async move {
            let _permit = permits.acquire_owned().await.unwrap();
            let began = Instant::now();
            let folder = run.folder.clone();
            let result = exercise(project, run).await;
            (folder, result, began.elapsed())
        }));
    }
    let mut failures = Vec::new();
    let mut report = Vec::new();
    for task in tasks {
        let (folder, result, took) = task.await.unwrap();
        match result {
            Ok(done) => report.push(format!("  {folder}: {done} ({}s)", took.as_secs())),
            Err(e) => failures.push(format!("{folder} ({}s): {e}", took.as_secs())),
        }
    }
    for e in &excluded {
        report.push(format!("  {} excluded: {}", e.folder, e.why));
    }
    eprintln!(
        "rbac_corpus: charts done in {}s\n{}",
        charts_started.elapsed().as_secs(),
        report.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{} of {} charts failed with the role `generate rbac` wrote:\n{}",
        failures.len(),
        runs.len(),
        failures.join("\n\n")
    );
    // The rules exclude what they say, no more: the corpus README's counts.
    assert!(
        excluded.len() <= 14 && runs.len() >= 50,
        "the exclusion rules took out too much: {excluded:#?}"
    );
}
