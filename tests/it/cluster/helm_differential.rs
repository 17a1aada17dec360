//! The release engine (`rusty_sdk_runtime::helm::ReleaseEngine`) against the real `helm`
//! v4.2.3 CLI on the same API server.
//!
//! - Interop, both ways: a release the engine made is listed, shown, upgraded, rolled back
//!   and uninstalled by `helm` (both storage drivers); a release `helm` made is read,
//!   upgraded, rolled back and uninstalled by the engine; a client-side release (Helm 3's
//!   way, `--server-side=false`) is upgraded by the engine's three-way merge.
//! - The differential over `../shared/charts-corpus`: every chart is installed, upgraded
//!   and uninstalled by `helm` (`--server-side=true`, Helm 4's hook-only wait) in one
//!   namespace and then by the engine in another, with the same values (the chart's
//!   defaults; the RBAC suite's `VALUES` where it turns hook Jobs off or the API server
//!   refuses a default); after each step the live objects (hooks included) and the decoded
//!   release records (chart, config, manifest, hooks, status, version, `apply_method`,
//!   history) are compared. The upgrade raises
//!   `replicaCount` and puts a mark in every empty `*annotations` map of the values, as far
//!   as the chart renders with them. Charts with Job or Pod hooks run `--no-hooks` on both
//!   sides (nothing completes without kubelets); the others run their hooks. A chart helm
//!   cannot install for want of CRDs is listed as not compared, with helm's error; so is
//!   one both refuse. The sides run one after the other, so cluster-scoped objects with
//!   the same names never meet; charts run [`AT_ONCE`] at a time. The table is printed
//!   (`--nocapture`), and any difference not in [`ALLOWED`] fails the test.
//!   `DIFFERENTIAL_ONLY=podinfo,grafana` runs only those charts.
//!
//! The oracle is always the real helm on a twin namespace: what `helm` does to its own
//! release is what the engine must do to its own, so expected values never come from the
//! engine. Compared after normalising what differs by design or by chance: the namespace
//! names, uids, resourceVersions, timestamps, the Service IPs and node ports the API server
//! allocates, and the strings of templates the corpus lists as non-deterministic
//! (`nondeterministic.json`: generated passwords, keys, certificates and checksums of them).
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, Patch, PatchParams,
};
use kube::discovery::Scope;
use rusty_sdk_runtime::helm::engine_storage::Records;
use rusty_sdk_runtime::helm::{
    HelmClient, InstallOptions, ReleaseEngine, ReleaseStatus, ReleaseTarget, RollbackOptions,
    UninstallOptions, UpgradeOptions,
};
use rusty_sdk_test_tools::needs;
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use super::cluster;
use super::rbac_corpus::{VALUES, annotation_maps, merge_into};

// ----- the real helm -----

/// `helm args` with `HELM_DRIVER=driver` against the control plane.
fn helm_run(driver: &str, args: &[&str]) -> Result<String, String> {
    let output = super::operator::tool_command("helm")
        .args(args)
        .env("HELM_DRIVER", driver)
        .output()
        .unwrap_or_else(|e| panic!("helm could not start: {e}"));
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).trim().to_string())
    }
}

fn helm(driver: &str, args: &[&str]) -> String {
    helm_run(driver, args).unwrap_or_else(|e| panic!("`helm {}` failed: {e}", args.join(" ")))
}

fn write_values(dir: &Path, name: &str, values: &Value) -> String {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec(values).unwrap()).unwrap();
    path.to_string_lossy().into_owned()
}

// ----- what a release looks like on the cluster -----

/// Kinds resolved against discovery, once per (apiVersion, kind).
#[derive(Clone, Default)]
struct Kinds(Arc<Mutex<HashMap<(String, String), Resolved>>>);

/// A kind's resource and whether it is namespaced.
type Resolved = (ApiResource, bool);

impl Kinds {
    async fn resolve(&self, client: &kube::Client, object: &Value) -> Option<Resolved> {
        let api_version = object["apiVersion"].as_str()?.to_string();
        let kind = object["kind"].as_str()?.to_string();
        let key = (api_version.clone(), kind.clone());
        if let Some(found) = self.0.lock().unwrap().get(&key) {
            return Some(found.clone());
        }
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", &api_version));
        let gvk = GroupVersionKind::gvk(group, version, &kind);
        let (resource, caps) = kube::discovery::pinned_kind(client, &gvk).await.ok()?;
        let found = (resource, caps.scope == Scope::Namespaced);
        self.0.lock().unwrap().insert(key, found.clone());
        Some(found)
    }
}

/// One document of a release manifest: its `# Source:` path and its object.
struct Document {
    source: String,
    text: String,
    object: Value,
}

/// Helm's manifest format: documents separated by `---` lines, each led by `# Source:`.
fn documents(manifest: &str) -> Vec<Document> {
    documents_from(manifest, "")
}

/// [`documents`], with `source` for documents without a `# Source:` line (hook manifests,
/// whose path the hook record carries).
fn documents_from(manifest: &str, default_source: &str) -> Vec<Document> {
    let mut out = Vec::new();
    let mut chunks = vec![String::new()];
    for line in manifest.lines() {
        if line == "---" {
            chunks.push(String::new());
        } else if let Some(last) = chunks.last_mut() {
            last.push_str(line);
            last.push('\n');
        }
    }
    for text in chunks {
        let source = text
            .lines()
            .find_map(|l| l.strip_prefix("# Source: "))
            .unwrap_or(default_source)
            .to_string();
        let object: Value = serde_yaml::from_str(&text).unwrap_or(Value::Null);
        if text.trim().is_empty() {
            continue;
        }
        out.push(Document {
            source,
            text,
            object,
        });
    }
    out
}

/// A release as one side left it: its latest record and its objects as the API server
/// has them (keyed `Kind namespace/name`, namespace normalised), with their sources.
#[derive(Debug, Default)]
struct Snapshot {
    record: Option<Value>,
    /// Every revision's `(version, status)`.
    history: Vec<(u64, String)>,
    objects: Objects,
}

/// Stand-in for the namespace names, which differ between the two sides.
const NS: &str = "<namespace>";

async fn snapshot(
    client: &kube::Client,
    kinds: &Kinds,
    driver: &str,
    ns: &str,
    release: &str,
) -> Snapshot {
    let records = Records::new(client.clone(), driver).unwrap();
    let mut history = Vec::new();
    let mut record = None;
    for json in records.history_json(ns, release).await.unwrap() {
        let value: Value = serde_json::from_str(&json).unwrap();
        history.push((
            value["version"].as_u64().unwrap_or_default(),
            value["info"]["status"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        ));
        record = Some(value);
    }
    if let Some(version) = history.last().map(|(v, _)| *v) {
        record = records
            .get(ns, release, u32::try_from(version).unwrap())
            .await
            .unwrap();
    }
    let mut objects = BTreeMap::new();
    if let Some(record) = &record {
        for doc in record_documents(record) {
            if doc.object.is_null() {
                continue;
            }
            let (key, live) = live_object(client, kinds, &doc.object, ns).await;
            objects.insert(key, (doc.source, live.map(|v| normalise_live(v, ns))));
        }
    }
    Snapshot {
        record,
        history,
        objects,
    }
}

/// The documents of a record: its manifest, then its hooks (sourced by their paths).
fn record_documents(record: &Value) -> Vec<Document> {
    let mut docs = documents(record["manifest"].as_str().unwrap_or_default());
    for hook in record["hooks"].as_array().into_iter().flatten() {
        docs.extend(documents_from(
            hook["manifest"].as_str().unwrap_or_default(),
            hook["path"].as_str().unwrap_or_default(),
        ));
    }
    docs
}

/// The live object for a rendered one (`None` when it does not exist), with its key.
async fn live_object(
    client: &kube::Client,
    kinds: &Kinds,
    object: &Value,
    ns: &str,
) -> (String, Option<Value>) {
    let kind = object["kind"].as_str().unwrap_or_default();
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let Some((resource, namespaced)) = kinds.resolve(client, object).await else {
        return (format!("{kind} ?/{name} (kind not served)"), None);
    };
    let (api, at) = if namespaced {
        let at = object["metadata"]["namespace"].as_str().unwrap_or(ns);
        (
            Api::<DynamicObject>::namespaced_with(client.clone(), at, &resource),
            at.replace(ns, NS),
        )
    } else {
        (
            Api::<DynamicObject>::all_with(client.clone(), &resource),
            String::new(),
        )
    };
    let live = api.get_opt(name).await.unwrap();
    (
        format!("{kind} {at}/{}", name.replace(ns, NS)),
        live.map(|o| serde_json::to_value(o).unwrap()),
    )
}

/// Every string (and map key) with `ns` replaced by [`NS`].
fn replace_namespace(value: &mut Value, ns: &str) {
    match value {
        Value::String(s) if s.contains(ns) => *s = s.replace(ns, NS),
        Value::Array(items) => items.iter_mut().for_each(|v| replace_namespace(v, ns)),
        Value::Object(map) => {
            let old = std::mem::take(map);
            for (key, mut v) in old {
                replace_namespace(&mut v, ns);
                map.insert(key.replace(ns, NS), v);
            }
        }
        _ => {}
    }
}

/// Remove the keys named `names` at every depth.
fn remove_keys(value: &mut Value, names: &[&str]) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| remove_keys(v, names)),
        Value::Object(map) => {
            map.retain(|k, _| !names.contains(&k.as_str()));
            map.values_mut().for_each(|v| remove_keys(v, names));
        }
        _ => {}
    }
}

/// A live object without what the API server sets differently on each side.
fn normalise_live(mut object: Value, ns: &str) -> Value {
    if let Some(meta) = object["metadata"].as_object_mut() {
        for key in ["uid", "resourceVersion", "creationTimestamp", "selfLink"] {
            meta.remove(key);
        }
        if let Some(Value::Array(fields)) = meta.get_mut("managedFields") {
            for entry in fields.iter_mut() {
                if let Some(entry) = entry.as_object_mut() {
                    entry.remove("time");
                }
            }
            fields.sort_by_key(|e| {
                format!("{} {} {}", e["manager"], e["operation"], e["subresource"])
            });
        }
    }
    if object["kind"] == "Service" {
        if let Some(spec) = object["spec"].as_object_mut() {
            for key in ["clusterIP", "clusterIPs", "healthCheckNodePort"] {
                spec.remove(key);
            }
        }
        for port in object["spec"]["ports"].as_array_mut().into_iter().flatten() {
            if let Some(port) = port.as_object_mut() {
                port.remove("nodePort");
            }
        }
    }
    // Secret data decoded, so a namespace inside it is normalised too.
    if object["kind"] == "Secret"
        && let Some(data) = object["data"].as_object_mut()
    {
        for value in data.values_mut() {
            let decoded = serde_json::from_value::<k8s_openapi::ByteString>(value.clone())
                .ok()
                .and_then(|bytes| String::from_utf8(bytes.0).ok());
            if let Some(text) = decoded {
                *value = Value::String(format!("decoded:{text}"));
            }
        }
    }
    // Conditions the API server sets (a CRD's Established) carry the time they changed.
    if let Some(status) = object.get_mut("status") {
        remove_keys(status, &["lastTransitionTime"]);
    }
    // A CRD's conditions are the API server's progress on it (NamesAccepted goes from
    // Installing to True a moment after the create): neither Helm's nor ours.
    if object["kind"] == "CustomResourceDefinition"
        && let Some(object) = object.as_object_mut()
    {
        object.remove("status");
    }
    replace_namespace(&mut object, ns);
    object
}

/// The differences of `ours` from `theirs` under `path`, at most a few per call site.
/// `lenient`: strings may differ (a template the corpus lists as non-deterministic).
fn diff(path: &str, theirs: &Value, ours: &Value, lenient: bool, out: &mut Vec<String>) {
    match (theirs, ours) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for key in keys {
                let at = format!("{path}.{key}");
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => diff(&at, x, y, lenient, out),
                    (Some(x), None) => out.push(format!("{at}: only helm has {}", short(x))),
                    (None, Some(y)) => out.push(format!("{at}: only ours has {}", short(y))),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff(&format!("{path}[{i}]"), x, y, lenient, out);
            }
        }
        (Value::String(_), Value::String(_)) if lenient => {}
        (a, b) if a == b => {}
        (a, b) => out.push(format!("{path}: helm {} ≠ ours {}", short(a), short(b))),
    }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 160 {
        format!("{}…", text.chars().take(160).collect::<String>())
    } else {
        text
    }
}

/// A manifest compared document by document: the same sources in the same order, and
/// the same text (same objects for non-deterministic templates).
fn diff_manifest(
    path: &str,
    theirs: &str,
    ours: &str,
    (ns_theirs, ns_ours): (&str, &str),
    lenient: &BTreeSet<String>,
    out: &mut Vec<String>,
) {
    let (a, b) = (documents(theirs), documents(ours));
    let sources = |docs: &[Document]| docs.iter().map(|d| d.source.clone()).collect::<Vec<_>>();
    if sources(&a) != sources(&b) {
        out.push(format!(
            "{path}: helm has documents {:?}, ours {:?}",
            sources(&a),
            sources(&b)
        ));
        return;
    }
    for (x, y) in a.iter().zip(&b) {
        if lenient.contains(&x.source) {
            let (mut x, mut y) = (x.object.clone(), y.object.clone());
            replace_namespace(&mut x, ns_theirs);
            replace_namespace(&mut y, ns_ours);
            diff(&format!("{path}[{}]", x_source(&a, &x)), &x, &y, true, out);
        } else if x.text.replace(ns_theirs, NS) != y.text.replace(ns_ours, NS) {
            let (mut xo, mut yo) = (x.object.clone(), y.object.clone());
            replace_namespace(&mut xo, ns_theirs);
            replace_namespace(&mut yo, ns_ours);
            let before = out.len();
            diff(&format!("{path}[{}]", x.source), &xo, &yo, false, out);
            if out.len() == before {
                out.push(format!(
                    "{path}[{}]: same objects, different text",
                    x.source
                ));
            }
        }
    }
}

fn x_source(docs: &[Document], object: &Value) -> String {
    docs.iter()
        .find(|d| {
            d.object["metadata"]["name"] == object["metadata"]["name"]
                && d.object["kind"] == object["kind"]
        })
        .map_or_else(String::new, |d| d.source.clone())
}

/// Which side is which: (namespace, snapshot).
struct Side<'a> {
    ns: &'a str,
    snapshot: &'a Snapshot,
}

/// Every difference of our side from helm's: history, record and live objects.
fn differences(theirs: Side<'_>, ours: Side<'_>, lenient: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    if theirs.snapshot.history != ours.snapshot.history {
        out.push(format!(
            "history: helm {:?} ≠ ours {:?}",
            theirs.snapshot.history, ours.snapshot.history
        ));
    }
    match (&theirs.snapshot.record, &ours.snapshot.record) {
        (Some(a), Some(b)) => {
            let namespaces = (theirs.ns, ours.ns);
            diff_manifest(
                "record.manifest",
                a["manifest"].as_str().unwrap_or_default(),
                b["manifest"].as_str().unwrap_or_default(),
                namespaces,
                lenient,
                &mut out,
            );
            let hooks = |r: &Value| r["hooks"].as_array().cloned().unwrap_or_default();
            let (ha, hb) = (hooks(a), hooks(b));
            if ha.len() != hb.len() {
                out.push(format!(
                    "record.hooks: helm has {}, ours {}",
                    ha.len(),
                    hb.len()
                ));
            }
            for (x, y) in ha.iter().zip(&hb) {
                let text = |hook: &Value| {
                    format!(
                        "# Source: {}\n{}",
                        hook["path"].as_str().unwrap_or_default(),
                        hook["manifest"].as_str().unwrap_or_default()
                    )
                };
                diff_manifest(
                    "record.hooks",
                    &text(x),
                    &text(y),
                    namespaces,
                    lenient,
                    &mut out,
                );
            }
            let (a, b) = (
                comparable_record(a, theirs.ns, lenient),
                comparable_record(b, ours.ns, lenient),
            );
            let notes_lenient = lenient.iter().any(|s| s.ends_with("NOTES.txt"));
            let mut notes = Vec::new();
            diff(
                "record.info.notes",
                &a["info"]["notes"],
                &b["info"]["notes"],
                notes_lenient,
                &mut notes,
            );
            out.extend(notes);
            let strip = |mut r: Value| {
                if let Some(info) = r["info"].as_object_mut() {
                    info.remove("notes");
                }
                r
            };
            diff("record", &strip(a), &strip(b), false, &mut out);
        }
        (None, None) => {}
        (a, b) => out.push(format!(
            "record: helm {}, ours {}",
            if a.is_some() { "has one" } else { "has none" },
            if b.is_some() { "has one" } else { "has none" }
        )),
    }
    let (a, b) = (
        by_stable_key(&theirs.snapshot.objects, lenient),
        by_stable_key(&ours.snapshot.objects, lenient),
    );
    let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for key in keys {
        match (a.get(key), b.get(key)) {
            (Some((source, a)), Some((_, b))) => match (a, b) {
                (Some(a), Some(b)) => diff(key, a, b, lenient.contains(source), &mut out),
                (None, None) => {}
                (a, _) => out.push(format!(
                    "{key}: {} on helm's side, {} on ours",
                    if a.is_some() { "exists" } else { "absent" },
                    if a.is_some() { "absent" } else { "exists" }
                )),
            },
            (Some(_), None) => out.push(format!("{key}: only in helm's release")),
            (None, Some(_)) => out.push(format!("{key}: only in our release")),
            (None, None) => {}
        }
    }
    out
}

type Objects = BTreeMap<String, (String, Option<Value>)>;

/// The objects keyed so both sides pair up: objects of a non-deterministic template by
/// kind, template and position (their names may be generated), the others as they are.
fn by_stable_key(objects: &Objects, lenient: &BTreeSet<String>) -> Objects {
    let mut out = BTreeMap::new();
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (key, (source, live)) in objects {
        let key = if lenient.contains(source) {
            let kind = key.split(' ').next().unwrap_or_default().to_string();
            let n = seen.entry((kind.clone(), source.clone())).or_default();
            *n += 1;
            format!("{kind} from {source} #{n}")
        } else {
            key.clone()
        };
        out.insert(key, (source.clone(), live.clone()));
    }
    out
}

/// A record without what differs by time or namespace; manifests compared apart.
fn comparable_record(record: &Value, ns: &str, lenient: &BTreeSet<String>) -> Value {
    let mut record = record.clone();
    if let Some(map) = record.as_object_mut() {
        map.remove("manifest");
    }
    for hook in record["hooks"].as_array_mut().into_iter().flatten() {
        let generated = hook["path"].as_str().is_some_and(|p| lenient.contains(p));
        if let Some(hook) = hook.as_object_mut() {
            hook.remove("manifest");
            // A generated name (`randAlphaNum`) differs on each render.
            if generated {
                hook.remove("name");
            }
        }
    }
    remove_keys(
        &mut record,
        &[
            "first_deployed",
            "last_deployed",
            "deleted",
            "started_at",
            "completed_at",
            "modifiedAt",
            "createdAt",
        ],
    );
    replace_namespace(&mut record, ns);
    record
}

fn assert_same(what: &str, theirs: Side<'_>, ours: Side<'_>) {
    let found = differences(theirs, ours, &BTreeSet::new());
    assert!(
        found.is_empty(),
        "{what}: the engine's release differs from helm's:\n  {}",
        found.join("\n  ")
    );
}

// ----- interop -----

/// A chart with a ConfigMap from values, a Secret, a Service, a Deployment, an optional
/// second ConfigMap, notes and two ConfigMap hooks (ConfigMaps, so they complete without
/// kubelets): a pre-install/pre-upgrade one kept until the next run, a post-install one
/// deleted when it succeeded.
fn interop_chart(dir: &Path) -> PathBuf {
    let root = dir.join("interop");
    let file = |path: &str, text: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    file(
        "Chart.yaml",
        "apiVersion: v2\nname: interop\nversion: 0.1.0\nappVersion: \"1.0\"\n",
    );
    file(
        "values.yaml",
        "data:\n  a: \"1\"\n  b: \"2\"\nport: 80\nreplicas: 1\nextra: true\npassword: s3cret\n",
    );
    file(
        "templates/configmap.yaml",
        r"apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
  labels:
    app: {{ .Release.Name }}
data:
  {{- range $k, $v := .Values.data }}
  {{ $k }}: {{ $v | quote }}
  {{- end }}
",
    );
    file(
        "templates/extra.yaml",
        r"{{- if .Values.extra }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-extra
data:
  namespace: {{ .Release.Namespace }}
{{- end }}
",
    );
    file(
        "templates/secret.yaml",
        r"apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-secret
type: Opaque
stringData:
  password: {{ .Values.password | quote }}
",
    );
    file(
        "templates/service.yaml",
        r"apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}
spec:
  selector:
    app: {{ .Release.Name }}
  ports:
    - name: http
      port: {{ .Values.port }}
      targetPort: 8080
",
    );
    file(
        "templates/deployment.yaml",
        r"apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels:
      app: {{ .Release.Name }}
  template:
    metadata:
      labels:
        app: {{ .Release.Name }}
    spec:
      containers:
        - name: app
          image: registry.k8s.io/pause:3.10
          env:
            {{- range $k, $v := .Values.data }}
            - name: {{ $k | upper }}
              value: {{ $v | quote }}
            {{- end }}
",
    );
    file(
        "templates/hooks.yaml",
        r#"apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-pre
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: "-1"
data:
  revision: {{ .Release.Revision | quote }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-post
  annotations:
    helm.sh/hook: post-install
    helm.sh/hook-delete-policy: hook-succeeded
data:
  revision: {{ .Release.Revision | quote }}
"#,
    );
    file(
        "templates/NOTES.txt",
        "{{ .Release.Name }} revision {{ .Release.Revision }} in {{ .Release.Namespace }}.\n",
    );
    root
}

const RELEASE: &str = "interop";

/// The live value of `pointer` in ConfigMap `name`, `None` when it or the object is absent.
async fn config_value(client: &kube::Client, ns: &str, name: &str, pointer: &str) -> Option<Value> {
    let api: Api<DynamicObject> = Api::namespaced_with(
        client.clone(),
        ns,
        &ApiResource::erase::<k8s_openapi::api::core::v1::ConfigMap>(&()),
    );
    let object = api.get_opt(name).await.unwrap()?;
    serde_json::to_value(object)
        .unwrap()
        .pointer(pointer)
        .cloned()
}

/// `helm <args> -n ns` on both sides, outputs equal once namespaces and times are
/// normalised (JSON outputs compared as JSON).
fn same_helm_output(driver: &str, args: &[&str], theirs: &str, ours: &str) {
    let run = |ns: &str| {
        let mut all = args.to_vec();
        all.extend(["-n", ns]);
        let text = helm(driver, &all);
        match serde_json::from_str::<Value>(&text) {
            Ok(mut value) => {
                remove_keys(
                    &mut value,
                    &[
                        "updated",
                        "first_deployed",
                        "last_deployed",
                        "deleted",
                        "started_at",
                        "completed_at",
                        // `helm status` shows the live objects: what the API server sets.
                        "uid",
                        "resourceVersion",
                        "creationTimestamp",
                        "time",
                        "clusterIP",
                        "clusterIPs",
                    ],
                );
                replace_namespace(&mut value, ns);
                value
            }
            Err(_) => Value::String(text.replace(ns, NS)),
        }
    };
    let (a, b) = (run(theirs), run(ours));
    let mut found = Vec::new();
    diff("", &a, &b, false, &mut found);
    assert!(
        found.is_empty(),
        "{driver}: `helm {}` shows the engine's release unlike helm's:\n  {}",
        args.join(" "),
        found.join("\n  ")
    );
}

struct Twins {
    client: kube::Client,
    kinds: Kinds,
    driver: &'static str,
    theirs: String,
    ours: String,
    engine: ReleaseEngine,
    /// Holds the chart and values files (removed on drop).
    dir: tempfile::TempDir,
    chart: PathBuf,
}

impl Twins {
    async fn new(prefix: &str, driver: &'static str) -> Twins {
        let client = cluster().client().await.unwrap();
        let theirs = cluster()
            .create_namespace(&client, &format!("{prefix}-helm"))
            .await
            .unwrap();
        let ours = cluster()
            .create_namespace(&client, &format!("{prefix}-ours"))
            .await
            .unwrap();
        let engine = ReleaseEngine::with_driver(&client, driver).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let chart = interop_chart(dir.path());
        Twins {
            client,
            kinds: Kinds::default(),
            driver,
            theirs,
            ours,
            engine,
            dir,
            chart,
        }
    }

    fn target(&self) -> ReleaseTarget {
        ReleaseTarget::new(RELEASE, &self.ours)
    }

    fn chart(&self) -> &str {
        self.chart.to_str().unwrap()
    }

    fn values(&self, name: &str, values: &Value) -> String {
        write_values(self.dir.path(), name, values)
    }

    /// `helm args` on one side (`-n ns` appended).
    fn helm(&self, ns: &str, args: &[&str]) -> String {
        let mut all = args.to_vec();
        all.extend(["-n", ns]);
        helm(self.driver, &all)
    }

    /// Both sides equal, records and live objects.
    async fn assert_same(&self, what: &str) {
        let theirs = snapshot(
            &self.client,
            &self.kinds,
            self.driver,
            &self.theirs,
            RELEASE,
        )
        .await;
        let ours = snapshot(&self.client, &self.kinds, self.driver, &self.ours, RELEASE).await;
        assert_same(
            &format!("{} {what}", self.driver),
            Side {
                ns: &self.theirs,
                snapshot: &theirs,
            },
            Side {
                ns: &self.ours,
                snapshot: &ours,
            },
        );
    }

    async fn config(&self, ns: &str, name: &str, pointer: &str) -> Option<Value> {
        config_value(&self.client, ns, &format!("{RELEASE}-{name}"), pointer).await
    }
}

#[needs(control_plane, helm)]
#[tokio::test]
async fn helm_lists_shows_upgrades_rolls_back_and_uninstalls_what_the_engine_installed() {
    for driver in ["secret", "configmap"] {
        let twins = Twins::new("interop-a", driver).await;
        let install = json!({"replicas": 2, "data": {"c": "3"}});
        let file = twins.values("install.json", &install);
        twins
            .engine
            .install(
                &twins.target(),
                &twins.chart,
                &install,
                &InstallOptions::default(),
            )
            .await
            .unwrap();
        twins.helm(
            &twins.theirs,
            &["install", RELEASE, twins.chart(), "-f", &file],
        );
        twins.assert_same("after install").await;
        for args in [
            &["list", "-o", "json"][..],
            &["status", RELEASE, "-o", "json"],
            &["get", "values", RELEASE, "-o", "json"],
            &["get", "values", RELEASE, "--all", "-o", "json"],
            &["get", "manifest", RELEASE],
            &["get", "hooks", RELEASE],
            &["get", "notes", RELEASE],
            &["history", RELEASE, "-o", "json"],
        ] {
            same_helm_output(driver, args, &twins.theirs, &twins.ours);
        }
        // The post-install hook was deleted when it succeeded, the pre-install one kept.
        assert_eq!(twins.config(&twins.ours, "post", "/data").await, None);
        assert_eq!(
            twins.config(&twins.ours, "pre", "/data/revision").await,
            Some(json!("1"))
        );

        // helm upgrades the engine's release server-side (its apply_method is ssa): a
        // dropped key and a dropped object go, a changed port is applied.
        let upgrade = json!({"data": {"b": null}, "extra": false, "port": 81});
        let file = twins.values("upgrade.json", &upgrade);
        for ns in [&twins.theirs, &twins.ours] {
            twins.helm(ns, &["upgrade", RELEASE, twins.chart(), "-f", &file]);
        }
        twins.assert_same("after helm upgrade").await;
        assert_eq!(twins.config(&twins.ours, "config", "/data/b").await, None);
        assert_eq!(twins.config(&twins.ours, "extra", "/data").await, None);
        assert_eq!(
            twins.config(&twins.ours, "config", "/data/a").await,
            Some(json!("1"))
        );

        for ns in [&twins.theirs, &twins.ours] {
            twins.helm(ns, &["rollback", RELEASE, "1"]);
        }
        twins.assert_same("after helm rollback").await;
        assert_eq!(
            twins.config(&twins.ours, "config", "/data").await,
            Some(json!({"a": "1", "b": "2", "c": "3"}))
        );
        assert!(twins.config(&twins.ours, "extra", "/data").await.is_some());
        same_helm_output(
            driver,
            &["history", RELEASE, "-o", "json"],
            &twins.theirs,
            &twins.ours,
        );

        for ns in [&twins.theirs, &twins.ours] {
            twins.helm(ns, &["uninstall", RELEASE]);
        }
        twins.assert_same("after helm uninstall").await;
        assert_eq!(twins.config(&twins.ours, "config", "/data").await, None);
        assert_eq!(twins.helm(&twins.ours, &["list", "-q"]).trim(), "");
        // The kept pre-install hook outlives the release, as with helm.
        assert!(twins.config(&twins.ours, "pre", "/data").await.is_some());
        assert!(twins.config(&twins.theirs, "pre", "/data").await.is_some());
    }
}

#[needs(control_plane, helm)]
#[tokio::test]
async fn the_engine_reads_upgrades_rolls_back_and_uninstalls_what_helm_installed() {
    let twins = Twins::new("interop-b", "secret").await;
    let first = json!({"replicas": 2});
    let second = json!({"replicas": 3, "data": {"c": "3"}});
    for (name, values) in [("first.json", &first), ("second.json", &second)] {
        let file = twins.values(name, values);
        for ns in [&twins.theirs, &twins.ours] {
            let verb = if name == "first.json" {
                "install"
            } else {
                "upgrade"
            };
            twins.helm(ns, &[verb, RELEASE, twins.chart(), "-f", &file]);
        }
    }
    let release = twins.engine.get(&twins.target()).await.unwrap().unwrap();
    let helms = twins
        .engine
        .get(&ReleaseTarget::new(RELEASE, &twins.theirs))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(release.version, 2);
    assert_eq!(release.status, ReleaseStatus::Deployed);
    assert_eq!(release.chart, "interop-0.1.0");
    assert_eq!(release.description, "Upgrade complete");
    assert_eq!(
        release.manifest.replace(&twins.ours, NS),
        helms.manifest.replace(&twins.theirs, NS)
    );
    assert_eq!(
        twins.engine.history(&twins.target()).await.unwrap().len(),
        2
    );

    // The engine upgrades helm's release: a dropped key and object go on both sides.
    let third = json!({"data": {"a": null}, "extra": false});
    let file = twins.values("third.json", &third);
    twins
        .engine
        .upgrade(
            &twins.target(),
            &twins.chart,
            &third,
            &UpgradeOptions::default(),
        )
        .await
        .unwrap();
    twins.helm(
        &twins.theirs,
        &["upgrade", RELEASE, twins.chart(), "-f", &file],
    );
    twins.assert_same("after the engine's upgrade").await;
    assert_eq!(
        twins.config(&twins.ours, "config", "/data").await,
        Some(json!({"b": "2"}))
    );
    assert_eq!(twins.config(&twins.ours, "extra", "/data").await, None);
    same_helm_output(
        "secret",
        &["history", RELEASE, "-o", "json"],
        &twins.theirs,
        &twins.ours,
    );

    twins
        .engine
        .rollback(&twins.target(), Some(2), &RollbackOptions::default())
        .await
        .unwrap();
    twins.helm(&twins.theirs, &["rollback", RELEASE, "2"]);
    twins.assert_same("after the engine's rollback").await;
    assert_eq!(
        twins.config(&twins.ours, "config", "/data").await,
        Some(json!({"a": "1", "b": "2", "c": "3"}))
    );
    same_helm_output(
        "secret",
        &["status", RELEASE, "-o", "json"],
        &twins.theirs,
        &twins.ours,
    );

    twins
        .engine
        .uninstall(&twins.target(), &UninstallOptions::default())
        .await
        .unwrap();
    twins.helm(&twins.theirs, &["uninstall", RELEASE]);
    twins.assert_same("after the engine's uninstall").await;
    assert_eq!(twins.config(&twins.ours, "config", "/data").await, None);
    assert!(twins.engine.get(&twins.target()).await.unwrap().is_none());
    assert_eq!(twins.helm(&twins.ours, &["list", "-q"]).trim(), "");
}

#[needs(control_plane, helm)]
#[tokio::test]
async fn a_client_side_release_is_upgraded_by_three_way_merge() {
    let twins = Twins::new("interop-c", "secret").await;
    let first = json!({"data": {"a": "1", "b": "2"}});
    let file = twins.values("first.json", &first);
    for ns in [&twins.theirs, &twins.ours] {
        twins.helm(
            ns,
            &[
                "install",
                RELEASE,
                twins.chart(),
                "-f",
                &file,
                "--server-side=false",
            ],
        );
        // Another writer adds a key and a label the chart knows nothing about.
        let api: Api<DynamicObject> = Api::namespaced_with(
            twins.client.clone(),
            ns,
            &ApiResource::erase::<k8s_openapi::api::core::v1::ConfigMap>(&()),
        );
        api.patch(
            &format!("{RELEASE}-config"),
            &PatchParams {
                field_manager: Some("someone-else".into()),
                ..PatchParams::default()
            },
            &Patch::Merge(json!({"metadata": {"labels": {"theirs": "yes"}},
                "data": {"theirs": "x"}})),
        )
        .await
        .unwrap();
    }
    let second = json!({"data": {"b": null}, "port": 82});
    let file = twins.values("second.json", &second);
    twins
        .engine
        .upgrade(
            &twins.target(),
            &twins.chart,
            &second,
            &UpgradeOptions::default(),
        )
        .await
        .unwrap();
    twins.helm(
        &twins.theirs,
        &["upgrade", RELEASE, twins.chart(), "-f", &file],
    );
    twins.assert_same("after the client-side upgrade").await;
    assert_eq!(
        twins.config(&twins.ours, "config", "/data").await,
        Some(json!({"a": "1", "theirs": "x"}))
    );
    assert_eq!(
        twins
            .config(&twins.ours, "config", "/metadata/labels/theirs")
            .await,
        Some(json!("yes"))
    );
    let records = Records::new(twins.client.clone(), "secret").unwrap();
    let record = records.get(&twins.ours, RELEASE, 2).await.unwrap().unwrap();
    assert_eq!(record["apply_method"], "csa");
}

// ----- the differential over the corpus -----

/// Charts at once: each runs helm's side, then ours, one process at a time.
const AT_ONCE: usize = 4;
/// helm's `--timeout` for each step, and the engine's bound on it.
const STEP: Duration = Duration::from_secs(120);
/// The annotation the upgrade puts in every empty annotations map of the values.
const MARK: &str = "rusty-sdk.dev/upgraded";

/// Differences that are deliberate: (chart, or `*` for any; text the difference contains;
/// why). Every entry must match something, so the list cannot rot.
const ALLOWED: &[(&str, &str, &str)] = &[(
    "*",
    ".annotations.checksum/",
    "a checksum annotation hashes a rendered template that names the release namespace, \
     and the two sides' namespaces differ by design (the text itself is compared with the \
     namespace normalised)",
)];

fn corpus() -> PathBuf {
    PathBuf::from(rusty_sdk_test_tools::path!(charts_corpus))
}

/// The template paths whose text the corpus found not reproducible (either render).
fn nondeterministic(folder: &str) -> BTreeSet<String> {
    let path = corpus()
        .join("expected")
        .join(folder)
        .join("nondeterministic.json");
    let Ok(text) = std::fs::read_to_string(path) else {
        return BTreeSet::new();
    };
    let lists: BTreeMap<String, Vec<String>> = serde_json::from_str(&text).unwrap_or_default();
    lists.into_values().flatten().collect()
}

/// The plan for one chart: values, the upgrade's values and whether hooks run.
struct Case {
    folder: String,
    dir: PathBuf,
    release: String,
    install: Value,
    upgrade: Value,
    /// Install, upgrade and uninstall with `--no-hooks` on both sides: the chart has Job or
    /// Pod hooks, which never complete without kubelets.
    no_hooks: bool,
    lenient: BTreeSet<String>,
}

fn render(
    chart: &rusty_sdk_chart::Chart,
    values: &Value,
) -> Option<Vec<rusty_sdk_chart::Manifest>> {
    let options = rusty_sdk_chart::RenderOptions {
        release_name: "df".into(),
        namespace: "df".into(),
        ..Default::default()
    };
    let rendered = rusty_sdk_chart::render(chart, values, &options).ok()?;
    rusty_sdk_chart::split_manifests(&rendered).ok()
}

fn plan(folder: &str) -> Case {
    let dir = corpus().join("charts").join(folder);
    let chart = rusty_sdk_chart::Chart::load(&dir).unwrap_or_else(|e| panic!("{folder}: {e}"));
    // The values the RBAC suite installs with: hook Jobs turned off where the chart has a
    // value for it, and values the API server refuses replaced (each with why).
    let install = VALUES
        .iter()
        .find(|(f, _, _)| *f == folder)
        .map_or_else(|| json!({}), |(_, v, _)| serde_json::from_str(v).unwrap());
    let no_hooks = render(&chart, &install).is_some_and(|manifests| {
        manifests.iter().any(|m| {
            matches!(m.kind(), "Job" | "Pod")
                && m.hook
                    .iter()
                    .flatten()
                    .any(|k| !matches!(k, rusty_sdk_chart::HookKind::Test))
        })
    });
    // The upgrade: replicaCount one up, and a mark in every empty annotations map, as far
    // as the chart still renders with them.
    let mut replicas = json!({});
    if let Some(n) = chart.values()["replicaCount"].as_i64() {
        replicas = json!({"replicaCount": n + 1});
    }
    let mut marks = json!({});
    let mut paths = Vec::new();
    annotation_maps(chart.values(), &mut Vec::new(), &mut paths);
    for path in &paths {
        let mut at = &mut marks;
        for key in &path[..path.len() - 1] {
            at = at
                .as_object_mut()
                .unwrap()
                .entry(key.clone())
                .or_insert_with(|| json!({}));
        }
        at[path.last().unwrap()] = json!({ MARK: "two" });
    }
    let mut upgrade = install.clone();
    for patch in [&marks, &replicas] {
        let mut tried = upgrade.clone();
        merge_into(&mut tried, patch);
        if render(&chart, &tried).is_some() {
            upgrade = tried;
        }
    }
    Case {
        folder: folder.to_string(),
        release: format!("df-{folder}"),
        dir,
        install,
        upgrade,
        no_hooks,
        lenient: nondeterministic(folder),
    }
}

/// How one side did at each step.
#[derive(Default)]
struct Run {
    installed: Option<Snapshot>,
    install_error: Option<String>,
    upgraded: Option<Snapshot>,
    upgrade_error: Option<String>,
    /// Objects of the release still there after the uninstall.
    left: BTreeSet<String>,
    uninstall_error: Option<String>,
}

/// One row of the table.
struct Row {
    folder: String,
    hooks: &'static str,
    install: Vec<String>,
    upgrade: Vec<String>,
    uninstall: Vec<String>,
    allowed: Vec<String>,
    seconds: f64,
}

/// Why a chart is not in the table.
struct Skipped {
    folder: String,
    why: String,
}

/// The CRDs the control plane lacks, in helm's words.
fn needs_outside_crds(error: &str) -> bool {
    error.contains("ensure CRDs are installed first") || error.contains("no matches for kind")
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    line.chars().take(200).collect()
}

/// The keys of the objects of `snapshot` the API server still has (not being deleted).
async fn still_there(
    client: &kube::Client,
    kinds: &Kinds,
    snapshot: &Snapshot,
    ns: &str,
) -> BTreeSet<String> {
    let mut left = BTreeSet::new();
    for object in live_objects(snapshot) {
        let (key, live) = live_object(client, kinds, &object, ns).await;
        if live.is_some_and(|l| l["metadata"]["deletionTimestamp"].is_null()) {
            left.insert(key);
        }
    }
    left
}

/// The rendered objects of a snapshot's record (manifest and hooks).
fn live_objects(snapshot: &Snapshot) -> Vec<Value> {
    let Some(record) = &snapshot.record else {
        return Vec::new();
    };
    record_documents(record)
        .into_iter()
        .map(|d| d.object)
        .filter(serde_json::Value::is_object)
        .collect()
}

/// Delete what is left of the release outside its namespace and wait until it is gone, so
/// the other side starts from the same cluster.
async fn clear_cluster_scoped(client: &kube::Client, kinds: &Kinds, snapshot: &Snapshot) {
    let mut waiting = Vec::new();
    for object in live_objects(snapshot) {
        let Some((resource, false)) = kinds.resolve(client, &object).await else {
            continue;
        };
        let name = object["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let api = Api::<DynamicObject>::all_with(client.clone(), &resource);
        let _ = api.delete(&name, &DeleteParams::default()).await;
        waiting.push((api, name));
    }
    for (api, name) in waiting {
        super::await_gone(&api, &name, "a cluster-scoped object of the release", STEP).await;
    }
}

/// Install, upgrade and uninstall on one side; `ours` picks the engine.
async fn run_side(
    case: &Case,
    client: &kube::Client,
    kinds: &Kinds,
    engine: &ReleaseEngine,
    ns: &str,
    files: (&str, &str),
    ours: bool,
) -> Run {
    let mut run = Run::default();
    let timeout = format!("{}s", STEP.as_secs());
    let dir = case.dir.to_str().unwrap();
    let helm_step = |verb: &str, extra: &[&str]| {
        let mut args = vec![verb, case.release.as_str()];
        args.extend_from_slice(extra);
        args.extend(["-n", ns, "--timeout", &timeout]);
        if case.no_hooks {
            args.push("--no-hooks");
        }
        helm_run("secret", &args)
    };
    let target = ReleaseTarget::new(&case.release, ns);
    let bounded =
        |what: &'static str| move |_| Err(format!("the engine's {what} took longer than {STEP:?}"));
    let install = if ours {
        let options = InstallOptions {
            disable_hooks: case.no_hooks,
            ..InstallOptions::default()
        };
        tokio::time::timeout(
            STEP,
            engine.install(&target, &case.dir, &case.install, &options),
        )
        .await
        .map_or_else(bounded("install"), |r| {
            r.map(drop).map_err(|e| e.to_string())
        })
    } else {
        helm_step("install", &[dir, "-f", files.0]).map(drop)
    };
    if let Err(e) = install {
        run.install_error = Some(e);
        return run;
    }
    run.installed = Some(snapshot(client, kinds, "secret", ns, &case.release).await);
    let upgrade = if ours {
        let options = UpgradeOptions {
            disable_hooks: case.no_hooks,
            ..UpgradeOptions::default()
        };
        tokio::time::timeout(
            STEP,
            engine.upgrade(&target, &case.dir, &case.upgrade, &options),
        )
        .await
        .map_or_else(bounded("upgrade"), |r| {
            r.map(drop).map_err(|e| e.to_string())
        })
    } else {
        helm_step("upgrade", &[dir, "-f", files.1]).map(drop)
    };
    run.upgrade_error = upgrade.err();
    let upgraded = snapshot(client, kinds, "secret", ns, &case.release).await;
    let uninstall = if ours {
        let options = UninstallOptions {
            disable_hooks: case.no_hooks,
            ..UninstallOptions::default()
        };
        tokio::time::timeout(STEP, engine.uninstall(&target, &options))
            .await
            .map_or_else(bounded("uninstall"), |r| r.map_err(|e| e.to_string()))
    } else {
        helm_step("uninstall", &[]).map(drop)
    };
    run.uninstall_error = uninstall.err();
    run.left = still_there(client, kinds, &upgraded, ns).await;
    clear_cluster_scoped(client, kinds, &upgraded).await;
    run.upgraded = Some(upgraded);
    run
}

enum Outcome {
    Row(Row),
    Skipped(Skipped),
}

async fn differential(
    case: Case,
    client: kube::Client,
    kinds: Kinds,
    engine: Arc<ReleaseEngine>,
) -> Outcome {
    let started = Instant::now();
    let theirs = cluster()
        .create_namespace(&client, "diff-helm")
        .await
        .unwrap();
    let ours = cluster()
        .create_namespace(&client, "diff-ours")
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let install = write_values(dir.path(), "install.json", &case.install);
    let upgrade = write_values(dir.path(), "upgrade.json", &case.upgrade);
    let files = (install.as_str(), upgrade.as_str());
    let helm_side = run_side(&case, &client, &kinds, &engine, &theirs, files, false).await;
    let outcome = if let Some(error) = helm_side
        .install_error
        .as_ref()
        .filter(|e| needs_outside_crds(e))
    {
        Outcome::Skipped(Skipped {
            folder: case.folder.clone(),
            why: format!("needs CRDs the control plane lacks: {}", first_line(error)),
        })
    } else {
        let our_side = run_side(&case, &client, &kinds, &engine, &ours, files, true).await;
        compare(&case, (&theirs, &helm_side), (&ours, &our_side), started)
    };
    for ns in [&theirs, &ours] {
        let api: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(client.clone());
        let _ = api.delete(ns, &DeleteParams::default()).await;
    }
    outcome
}

/// A step's differences: both failed alike, one failed, or the snapshots differ.
fn step(
    what: &str,
    (theirs_ns, theirs_error, theirs): (&str, &Option<String>, Option<&Snapshot>),
    (ours_ns, ours_error, ours): (&str, &Option<String>, Option<&Snapshot>),
    lenient: &BTreeSet<String>,
) -> Vec<String> {
    let mut out = Vec::new();
    match (theirs_error, ours_error) {
        (Some(a), None) => out.push(format!(
            "{what}: helm failed ({}), ours did not",
            first_line(a)
        )),
        (None, Some(b)) => out.push(format!(
            "{what}: ours failed ({}), helm did not",
            first_line(b)
        )),
        _ => {}
    }
    if let (Some(a), Some(b)) = (theirs, ours) {
        out.extend(differences(
            Side {
                ns: theirs_ns,
                snapshot: a,
            },
            Side {
                ns: ours_ns,
                snapshot: b,
            },
            lenient,
        ));
    }
    out
}

fn compare(
    case: &Case,
    (theirs_ns, theirs): (&str, &Run),
    (ours_ns, ours): (&str, &Run),
    started: Instant,
) -> Outcome {
    let install = step(
        "install",
        (theirs_ns, &theirs.install_error, theirs.installed.as_ref()),
        (ours_ns, &ours.install_error, ours.installed.as_ref()),
        &case.lenient,
    );
    if let (Some(a), Some(_)) = (&theirs.install_error, &ours.install_error) {
        return Outcome::Skipped(Skipped {
            folder: case.folder.clone(),
            why: format!(
                "helm and the engine both refuse to install it: {}",
                first_line(a)
            ),
        });
    }
    let upgrade = step(
        "upgrade",
        (theirs_ns, &theirs.upgrade_error, theirs.upgraded.as_ref()),
        (ours_ns, &ours.upgrade_error, ours.upgraded.as_ref()),
        &case.lenient,
    );
    let mut uninstall = step(
        "uninstall",
        (theirs_ns, &theirs.uninstall_error, None),
        (ours_ns, &ours.uninstall_error, None),
        &case.lenient,
    );
    let normalise = |left: &BTreeSet<String>, ns: &str| -> BTreeSet<String> {
        left.iter().map(|k| k.replace(ns, NS)).collect()
    };
    let (a, b) = (
        normalise(&theirs.left, theirs_ns),
        normalise(&ours.left, ours_ns),
    );
    if a != b {
        uninstall.push(format!("left after uninstall: helm {a:?}, ours {b:?}"));
    }
    let mut row = Row {
        folder: case.folder.clone(),
        hooks: if case.no_hooks { "--no-hooks" } else { "run" },
        install,
        upgrade,
        uninstall,
        allowed: Vec::new(),
        seconds: started.elapsed().as_secs_f64(),
    };
    for list in [&mut row.install, &mut row.upgrade, &mut row.uninstall] {
        list.retain(|d| {
            let allowed = ALLOWED.iter().any(|(chart, text, _)| {
                (*chart == "*" || *chart == case.folder) && d.contains(text)
            });
            if allowed {
                row.allowed.push(d.clone());
            }
            !allowed
        });
    }
    Outcome::Row(row)
}

fn table(rows: &[Row], skipped: &[Skipped]) -> String {
    let mark = |d: &[String]| if d.is_empty() { "same" } else { "DIFFERENT" };
    let mut out = String::from(
        "| chart | hooks | install | upgrade | uninstall | seconds | differences |\n|---|---|---|---|---|---|---|\n",
    );
    for row in rows {
        let mut notes: Vec<String> = row
            .install
            .iter()
            .chain(&row.upgrade)
            .chain(&row.uninstall)
            .take(6)
            .cloned()
            .collect();
        if !row.allowed.is_empty() {
            notes.push(format!("{} allowed (see ALLOWED)", row.allowed.len()));
        }
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {:.1} | {} |",
            row.folder,
            row.hooks,
            mark(&row.install),
            mark(&row.upgrade),
            mark(&row.uninstall),
            row.seconds,
            notes.join("<br>").replace('|', "\\|")
        );
    }
    out.push_str("\nNot compared:\n");
    for skip in skipped {
        let _ = writeln!(out, "- {}: {}", skip.folder, skip.why);
    }
    out
}

#[needs(control_plane, helm, charts_corpus)]
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_installable_corpus_chart_installs_and_upgrades_as_helm_does() {
    let _corpus = super::CORPUS.lock().await;
    let started = Instant::now();
    let client = cluster().client().await.unwrap();
    let mut folders: Vec<String> = std::fs::read_dir(corpus().join("charts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    if let Ok(only) = std::env::var("DIFFERENTIAL_ONLY") {
        folders.retain(|f| only.split(',').any(|o| o == f));
    }
    let engine = Arc::new(ReleaseEngine::with_client(&client));
    let kinds = Kinds::default();
    let limit = Arc::new(Semaphore::new(AT_ONCE));
    let mut tasks = Vec::new();
    for folder in folders {
        let (client, kinds, engine, limit) =
            (client.clone(), kinds.clone(), engine.clone(), limit.clone());
        tasks.push(tokio::spawn(async move {
            let _permit = limit.acquire_owned().await.unwrap();
            let case = tokio::task::spawn_blocking(move || plan(&folder))
                .await
                .unwrap();
            differential(case, client, kinds, engine).await
        }));
    }
    let mut rows = Vec::new();
    let mut skipped = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            Outcome::Row(row) => rows.push(row),
            Outcome::Skipped(skip) => skipped.push(skip),
        }
    }
    let report = table(&rows, &skipped);
    println!(
        "{report}\n{} charts compared, {} not, in {:.0} s",
        rows.len(),
        skipped.len(),
        started.elapsed().as_secs_f64()
    );
    let unexplained: Vec<&Row> = rows
        .iter()
        .filter(|r| !(r.install.is_empty() && r.upgrade.is_empty() && r.uninstall.is_empty()))
        .collect();
    let unused: Vec<&str> = ALLOWED
        .iter()
        .filter(|(chart, text, _)| {
            !rows.iter().any(|r| {
                (*chart == "*" || r.folder == *chart) && r.allowed.iter().any(|d| d.contains(text))
            })
        })
        .map(|(_, text, _)| *text)
        .collect();
    assert!(
        unexplained.is_empty() && (unused.is_empty() || std::env::var("DIFFERENTIAL_ONLY").is_ok()),
        "{report}\nunexplained differences in {:?}; allow-list entries that matched nothing: {unused:?}\n{}",
        unexplained.iter().map(|r| &r.folder).collect::<Vec<_>>(),
        unexplained
            .iter()
            .map(|r| format!(
                "{}:\n  {}",
                r.folder,
                r.install
                    .iter()
                    .chain(&r.upgrade)
                    .chain(&r.uninstall)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n  ")
            ))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
