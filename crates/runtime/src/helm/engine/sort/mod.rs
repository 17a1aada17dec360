//! A chart's render turned into what Helm's install and upgrade work with: the release
//! manifest, the hooks and the notes, and the CRDs of `crds/`.
//!
//! The release manifest is stored in the release record and read back by the `helm` CLI
//! (`helm get manifest`, the next upgrade's three-way merge, uninstall), so it must be the
//! very string Helm 4.2.3 builds: documents split by Helm's separator rule (which also
//! splits `---apiVersion: v1`), each written as `---\n# Source: <template>\n<document>\n`,
//! in Helm's kind order (`InstallOrder`, ties kept in template-path then in-file order),
//! hooks and whitespace-only documents left out. Hooks keep what Helm's `Hook` record
//! holds; documents are read as Kubernetes reads them (YAML 1.1, go-yaml's scalars) by the
//! chart engine's reader.
//!
//! Where Helm is not deterministic (subchart notes are joined in Go's random map order when
//! `--render-subchart-notes` is set) this module picks the template-path order.
//!
//! Helm 4.2.3 does not report duplicate objects (the same kind and name twice): both stay in
//! the manifest and the API server sees the second apply last. Neither does this module.
#[cfg(test)]
use std::borrow::Cow;
use std::collections::BTreeMap;

use rusty_sdk_chart::{Chart, HookKind};
use serde_json::Value;

/// A render that Helm would refuse, or a document Kubernetes cannot build an object from.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SortError {
    /// Helm's `SortManifests` failed: the document is no YAML or its head (apiVersion,
    /// kind, metadata.name, metadata.annotations) has the wrong shape. Helm fails the
    /// render and stores nothing.
    #[error("YAML parse error on {path}: {message}")]
    Yaml { path: String, message: String },
    /// Kubernetes' builder refuses the document (Helm: `unable to build kubernetes objects
    /// from release manifest`); fix the template named.
    #[error("cannot build a Kubernetes object from {path}: {message}")]
    Object { path: String, message: String },
    /// A file of `crds/` cannot be installed (Helm: `failed to install CRD <name>`).
    #[error("failed to install CRD {name}: {message}")]
    Crd { name: String, message: String },
}

/// How the render is turned into a release (`helm install`/`upgrade` flags).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SortOptions {
    /// `--render-subchart-notes`: subcharts' NOTES.txt are added to the parent's. Helm's
    /// default is the parent's NOTES.txt only.
    pub subchart_notes: bool,
}

/// A render sorted the way Helm's `renderResources` sorts it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SortedRender {
    /// Hooks in the order Helm stores them (kind order); [`execution_order`] gives the
    /// order one event runs them in.
    pub hooks: Vec<HookSpec>,
    /// The documents of [`Self::manifest`], in its order.
    pub manifests: Vec<ManifestDocument>,
    /// The release manifest exactly as Helm stores it (CRDs of `crds/` are not in it).
    pub manifest: String,
    /// The release notes exactly as Helm stores them.
    pub notes: String,
}

/// One document of the release manifest.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ManifestDocument {
    /// The template it came from, e.g. `mychart/charts/sub/templates/service.yaml`.
    pub path: String,
    /// Its text as the manifest holds it (after the `# Source:` line).
    pub content: String,
    /// `apiVersion`, `kind` and `metadata.name` as Helm reads them ("" when absent).
    pub api_version: String,
    pub kind: String,
    pub name: String,
    /// `metadata.annotations` as Helm reads them (scalars turned into strings).
    pub annotations: BTreeMap<String, String>,
    /// The document as Kubernetes reads it: `null` for one that holds only comments.
    pub document: Value,
}

impl ManifestDocument {
    /// The objects Kubernetes' builder makes of the document: none for a comment-only
    /// document, the items of a list kind (`List`, `ConfigMapList`, ...), else the
    /// document itself. Errors as the builder's (no `kind`, an item that is no object).
    pub fn objects(&self) -> Result<Vec<Value>, SortError> {
        let mut out = Vec::new();
        build_objects(&self.document, &self.path, 0, &mut out)?;
        Ok(out)
    }

    /// `helm.sh/resource-policy`, trimmed and lower-cased as Helm compares it.
    pub fn resource_policy(&self) -> Option<String> {
        self.annotations
            .get(RESOURCE_POLICY_ANNOTATION)
            .map(|p| p.trim().to_lowercase())
    }
}

/// A hook: everything Helm's `Hook` record holds except its last run.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct HookSpec {
    /// `metadata.name` ("" when absent).
    pub name: String,
    pub kind: String,
    /// The template it came from.
    pub path: String,
    /// The document's text.
    pub manifest: String,
    /// The events of `helm.sh/hook`, in its order (an event named twice runs twice).
    pub events: Vec<HookKind>,
    /// `helm.sh/hook-weight`; 0 when absent or not an integer, as Helm.
    pub weight: i64,
    /// `helm.sh/hook-delete-policy` as written (lower-cased, trimmed); empty when absent.
    /// Helm stores it so until the hook runs, then stores the default
    /// (see [`Self::effective_delete_policies`]).
    pub delete_policies: Vec<HookPolicy>,
    /// `helm.sh/hook-output-log-policy`, as written.
    pub output_log_policies: Vec<HookPolicy>,
}

impl HookSpec {
    /// The delete policies in force when the hook runs: `before-hook-creation` when the
    /// chart names none (Helm records this default once the hook has run).
    #[cfg(test)]
    pub fn effective_delete_policies(&self) -> Cow<'_, [HookPolicy]> {
        if self.delete_policies.is_empty() {
            Cow::Owned(vec![HookPolicy::BeforeHookCreation])
        } else {
            Cow::Borrowed(&self.delete_policies)
        }
    }

    #[cfg(test)]
    /// The objects Kubernetes' builder makes of the hook's manifest (Helm builds a hook
    /// only when its event runs, so a broken hook of another event fails nothing).
    pub fn objects(&self) -> Result<Vec<Value>, SortError> {
        let document =
            rusty_sdk_chart::parse_yaml(&self.manifest).map_err(|message| SortError::Yaml {
                path: self.path.clone(),
                message,
            })?;
        let mut out = Vec::new();
        build_objects(&document, &self.path, 0, &mut out)?;
        Ok(out)
    }
}

/// A value of `helm.sh/hook-delete-policy` or `helm.sh/hook-output-log-policy`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HookPolicy {
    HookSucceeded,
    HookFailed,
    BeforeHookCreation,
    /// Anything else: Helm keeps it in the record and never acts on it.
    Other(String),
}

impl HookPolicy {
    fn parse(text: &str) -> HookPolicy {
        match text {
            "hook-succeeded" => HookPolicy::HookSucceeded,
            "hook-failed" => HookPolicy::HookFailed,
            "before-hook-creation" => HookPolicy::BeforeHookCreation,
            other => HookPolicy::Other(other.to_string()),
        }
    }

    /// The text Helm stores.
    pub fn as_str(&self) -> &str {
        match self {
            HookPolicy::HookSucceeded => "hook-succeeded",
            HookPolicy::HookFailed => "hook-failed",
            HookPolicy::BeforeHookCreation => "before-hook-creation",
            HookPolicy::Other(text) => text,
        }
    }
}

/// The name Helm stores for a hook event (`test-success` is stored as `test`).
pub(crate) fn event_name(event: HookKind) -> &'static str {
    match event {
        HookKind::PreInstall => "pre-install",
        HookKind::PostInstall => "post-install",
        HookKind::PreUpgrade => "pre-upgrade",
        HookKind::PostUpgrade => "post-upgrade",
        HookKind::PreDelete => "pre-delete",
        HookKind::PostDelete => "post-delete",
        HookKind::PreRollback => "pre-rollback",
        HookKind::PostRollback => "post-rollback",
        HookKind::Test => "test",
    }
}

/// A file of a `crds/` folder, installed before the chart is rendered.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CrdFile {
    /// Chart-relative name, e.g. `crds/widgets.yaml` (what Helm's errors name).
    pub name: String,
    /// Path from the top chart, e.g. `mychart/charts/sub/crds/widgets.yaml`
    /// (what `helm template --include-crds` prints as its source).
    pub filename: String,
    /// The file's text.
    pub text: String,
    /// Its objects, as Kubernetes' builder reads the file.
    pub objects: Vec<Value>,
}

const HOOK_ANNOTATION: &str = "helm.sh/hook";
const HOOK_WEIGHT_ANNOTATION: &str = "helm.sh/hook-weight";
const HOOK_DELETE_ANNOTATION: &str = "helm.sh/hook-delete-policy";
const HOOK_OUTPUT_LOG_ANNOTATION: &str = "helm.sh/hook-output-log-policy";
const RESOURCE_POLICY_ANNOTATION: &str = "helm.sh/resource-policy";
const NOTES_SUFFIX: &str = "NOTES.txt";

/// Helm's `InstallOrder`: kinds others depend on first.
const INSTALL_ORDER: &[&str] = &[
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

/// Helm's two kind orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KindOrder {
    /// `InstallOrder`: namespaces, then accounts, config, RBAC, services, workloads, webhooks.
    Install,
    /// `UninstallOrder`: webhooks and ingresses first, then services, workloads, RBAC,
    /// config and namespaces.
    Uninstall,
}

impl KindOrder {
    /// Where `kind` stands in this order; `None` for kinds Helm does not list, which come
    /// after all listed kinds, alphabetically.
    pub fn rank(self, kind: &str) -> Option<usize> {
        let order = match self {
            KindOrder::Install => INSTALL_ORDER,
            KindOrder::Uninstall => UNINSTALL_ORDER,
        };
        order.iter().position(|k| *k == kind)
    }

    /// Sort `items` by kind in this order, keeping the order of equal kinds (Helm's
    /// stable sort).
    pub fn sort_by_kind<T>(self, items: &mut [T], kind: impl Fn(&T) -> &str) {
        items.sort_by(|a, b| {
            let (ka, kb) = (kind(a), kind(b));
            match (self.rank(ka), self.rank(kb)) {
                (Some(ra), Some(rb)) => ra.cmp(&rb),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => ka.cmp(kb),
            }
        });
    }
}

/// Helm's `UninstallOrder`: the install order reversed, except that `Service` goes right
/// after the ingresses, before the workloads behind it.
const UNINSTALL_ORDER: &[&str] = &[
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "APIService",
    "Ingress",
    "IngressClass",
    "Service",
    "CronJob",
    "Job",
    "StatefulSet",
    "HorizontalPodAutoscaler",
    "Deployment",
    "ReplicaSet",
    "ReplicationController",
    "Pod",
    "DaemonSet",
    "RoleBindingList",
    "RoleBinding",
    "RoleList",
    "Role",
    "ClusterRoleBindingList",
    "ClusterRoleBinding",
    "ClusterRoleList",
    "ClusterRole",
    "CustomResourceDefinition",
    "PersistentVolumeClaim",
    "PersistentVolume",
    "StorageClass",
    "ConfigMap",
    "SecretList",
    "Secret",
    "ServiceAccount",
    "PodDisruptionBudget",
    "PodSecurityPolicy",
    "LimitRange",
    "ResourceQuota",
    "NetworkPolicy",
    "Namespace",
    "PriorityClass",
];

/// Sort a render the way Helm's install and upgrade do (`renderResources`): NOTES.txt
/// taken out, every other template split into documents, hooks told apart from the
/// manifest, both sorted by kind. `chart` is the chart that was rendered (its name
/// decides which NOTES.txt is the parent's).
pub(crate) fn sort_render(
    chart: &Chart,
    rendered: &BTreeMap<String, String>,
    options: &SortOptions,
) -> Result<SortedRender, SortError> {
    let parent_notes = format!("{}/templates/{NOTES_SUFFIX}", chart.name());
    let mut notes = String::new();
    let mut hooks = Vec::new();
    let mut manifests = Vec::new();
    // BTreeMap order is Go's sort.Strings order (bytes), the order Helm reads templates in.
    for (path, text) in rendered {
        if path.ends_with(NOTES_SUFFIX) {
            if options.subchart_notes || *path == parent_notes {
                if !notes.is_empty() {
                    notes.push('\n');
                }
                notes.push_str(text);
            }
            continue;
        }
        let base = path.rsplit('/').next().unwrap_or(path);
        if base.starts_with('_') || text.trim().is_empty() {
            continue;
        }
        for content in split_documents(text) {
            match classify(path, content)? {
                Classified::Manifest(doc) => manifests.push(doc),
                Classified::Hook(hook) => hooks.push(hook),
                Classified::Skipped => {}
            }
        }
    }
    KindOrder::Install.sort_by_kind(&mut hooks, |h: &HookSpec| &h.kind);
    KindOrder::Install.sort_by_kind(&mut manifests, |m: &ManifestDocument| &m.kind);
    let manifest = manifests.iter().fold(String::new(), |mut out, m| {
        out.push_str("---\n# Source: ");
        out.push_str(&m.path);
        out.push('\n');
        out.push_str(&m.content);
        out.push('\n');
        out
    });
    Ok(SortedRender {
        hooks,
        manifests,
        manifest,
        notes,
    })
}

/// The hooks of `event` in the order Helm runs them: by weight, then by name, hooks of
/// equal weight and name in stored (kind) order. A hook naming the event twice is in it
/// twice, as Helm runs it twice.
#[cfg(test)]
pub(crate) fn execution_order(hooks: &[HookSpec], event: HookKind) -> Vec<&HookSpec> {
    let mut out: Vec<&HookSpec> = hooks
        .iter()
        .flat_map(|h| {
            h.events
                .iter()
                .filter(move |e| **e == event)
                .map(move |_| h)
        })
        .collect();
    out.sort_by(|a, b| a.weight.cmp(&b.weight).then_with(|| a.name.cmp(&b.name)));
    out
}

/// What Helm's uninstall does with a stored release manifest.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct UninstallPlan {
    /// The documents to delete, in Helm's `UninstallOrder`.
    pub delete: Vec<ManifestDocument>,
    /// The documents `helm.sh/resource-policy: keep` leaves behind.
    pub keep: Vec<ManifestDocument>,
}

impl UninstallPlan {
    /// Helm's note on what was kept: `[Kind] name` per line.
    pub fn kept_summary(&self) -> String {
        let mut summary = String::new();
        for m in &self.keep {
            summary.extend(["[", &m.kind, "] ", &m.name, "\n"]);
        }
        summary
    }
}

/// The documents of a stored release manifest as Helm's uninstall orders them: split
/// again, `UninstallOrder` by kind, ties in the order of Helm's document keys
/// (`manifest-0`, `manifest-1`, `manifest-10`, ..., `manifest-2`: text order, not
/// numeric). A document whose `helm.sh/resource-policy` is `keep` is kept; Helm 4.2.3
/// neither deletes nor reports one with another policy value, and neither does this.
/// The documents' `path` is Helm's key (`manifest-N`); their content starts with the
/// `# Source:` comment.
pub(crate) fn uninstall_plan(manifest: &str) -> Result<UninstallPlan, SortError> {
    let mut keyed: Vec<(String, &str)> = split_documents(manifest)
        .into_iter()
        .enumerate()
        .map(|(i, doc)| (format!("manifest-{i}"), doc))
        .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    let mut documents = Vec::new();
    for (key, content) in keyed {
        if let Classified::Manifest(doc) = classify(&key, content)? {
            documents.push(doc);
        }
    }
    KindOrder::Uninstall.sort_by_kind(&mut documents, |m: &ManifestDocument| &m.kind);
    let mut plan = UninstallPlan {
        delete: Vec::new(),
        keep: Vec::new(),
    };
    for doc in documents {
        match doc.resource_policy().as_deref() {
            None => plan.delete.push(doc),
            Some("keep") => plan.keep.push(doc),
            Some(_) => {}
        }
    }
    Ok(plan)
}

/// The objects of a stored release manifest as Kubernetes' builder reads it (what Helm's
/// upgrade and rollback compare against), in manifest order.
pub(crate) fn manifest_objects(manifest: &str) -> Result<Vec<Value>, SortError> {
    stream_objects(manifest, "release manifest")
}

/// The CRDs of `crds/` folders that Helm installs before rendering: the chart's, then
/// each enabled subchart's (dependency conditions and tags decided by `values`, the user
/// values of the render), in Helm's order. Files not ending in `.yaml`, `.yml` or `.json`
/// are not CRDs to Helm. A file that yields no object is an error, as in Helm.
pub(crate) fn crd_files(chart: &Chart, values: &Value) -> Result<Vec<CrdFile>, SortError> {
    let processed = rusty_sdk_chart::process_dependencies(chart, values);
    let mut out = Vec::new();
    collect_crds(&processed, processed.name(), &mut out)?;
    Ok(out)
}

fn collect_crds(chart: &Chart, full_path: &str, out: &mut Vec<CrdFile>) -> Result<(), SortError> {
    for file in chart.files() {
        if !file.name.starts_with("crds/") || !has_manifest_extension(&file.name) {
            continue;
        }
        let text = file.text();
        let objects = stream_objects(&text, &file.name).map_err(|e| SortError::Crd {
            name: file.name.clone(),
            message: e.to_string(),
        })?;
        if objects.is_empty() {
            return Err(SortError::Crd {
                name: file.name.clone(),
                message: "resources are empty".into(),
            });
        }
        out.push(CrdFile {
            name: file.name.clone(),
            filename: format!("{full_path}/{}", file.name),
            text,
            objects,
        });
    }
    for sub in chart.dependencies() {
        collect_crds(sub, &format!("{full_path}/charts/{}", sub.name()), out)?;
    }
    Ok(())
}

fn has_manifest_extension(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name);
    let Some((_, ext)) = base.rsplit_once('.') else {
        return false;
    };
    ["yaml", "yml", "json"]
        .iter()
        .any(|e| ext.eq_ignore_ascii_case(e))
}

/// Helm's `SplitManifests`: the text cut at every `---` that starts a line (the whitespace
/// before it and after it belongs to the cut), pieces of whitespace only dropped, leading
/// whitespace trimmed. `---apiVersion: v1` is cut too; `---` indented is not.
fn split_documents(text: &str) -> Vec<&str> {
    let text = text.trim_start();
    let bytes = text.as_bytes();
    let mut pieces = Vec::new();
    let mut piece_start = 0;
    let mut pos = 0;
    while pos < bytes.len() {
        // A cut starts at position 0 with `---`, or at the start of a run of whitespace
        // whose last character is a newline followed by `---`.
        let cut = if pos == 0 && bytes.starts_with(b"---") {
            Some((0, 3))
        } else if is_re_space(bytes[pos]) {
            let run_end = pos + bytes[pos..].iter().take_while(|b| is_re_space(**b)).count();
            if bytes[run_end - 1] == b'\n' && bytes[run_end..].starts_with(b"---") {
                Some((pos, run_end + 3))
            } else {
                pos = run_end;
                None
            }
        } else {
            pos += 1;
            None
        };
        if let Some((start, dashes_end)) = cut {
            let end = dashes_end
                + bytes[dashes_end..]
                    .iter()
                    .take_while(|b| is_re_space(**b))
                    .count();
            if end > 0 {
                pieces.push(&text[piece_start..start]);
            }
            piece_start = end;
            pos = end;
        }
    }
    pieces.push(&text[piece_start..]);
    pieces
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .map(str::trim_start)
        .collect()
}

/// `\s` of Go's regular expressions: ASCII whitespace without `\v`.
fn is_re_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

enum Classified {
    Manifest(ManifestDocument),
    Hook(HookSpec),
    /// A hook naming an event Helm does not know: Helm drops the whole document.
    Skipped,
}

/// Helm's reading of one document: its head, then hook or manifest.
fn classify(path: &str, content: &str) -> Result<Classified, SortError> {
    let yaml_error = |message: String| SortError::Yaml {
        path: path.to_string(),
        message,
    };
    let document = rusty_sdk_chart::parse_yaml(content).map_err(yaml_error)?;
    let head = Head::read(&document).map_err(yaml_error)?;
    let Some(hook_types) = head.annotations.get(HOOK_ANNOTATION) else {
        return Ok(Classified::Manifest(ManifestDocument {
            path: path.to_string(),
            content: content.to_string(),
            api_version: head.api_version,
            kind: head.kind,
            name: head.name,
            annotations: head.annotations,
            document,
        }));
    };
    let mut events = Vec::new();
    for hook_type in hook_types.split(',') {
        if let Some(event) = HookKind::parse(&hook_type.trim().to_lowercase()) {
            events.push(event);
        } else {
            tracing::info!(path, hook_types, "skipping unknown hooks");
            return Ok(Classified::Skipped);
        }
    }
    let policies = |annotation: &str| -> Vec<HookPolicy> {
        head.annotations
            .get(annotation)
            .map(|text| {
                text.split(',')
                    .map(|p| HookPolicy::parse(&p.trim().to_lowercase()))
                    .collect()
            })
            .unwrap_or_default()
    };
    Ok(Classified::Hook(HookSpec {
        weight: head
            .annotations
            .get(HOOK_WEIGHT_ANNOTATION)
            .and_then(|w| w.parse::<i64>().ok())
            .unwrap_or(0),
        delete_policies: policies(HOOK_DELETE_ANNOTATION),
        output_log_policies: policies(HOOK_OUTPUT_LOG_ANNOTATION),
        name: head.name,
        kind: head.kind,
        path: path.to_string(),
        manifest: content.to_string(),
        events,
    }))
}

/// What Helm reads of a document before sorting it (its `SimpleHead`).
#[derive(Debug, Default)]
struct Head {
    api_version: String,
    kind: String,
    name: String,
    annotations: BTreeMap<String, String>,
}

impl Head {
    /// Read as sigs.k8s.io/yaml reads into Helm's head: strings wanted, so numbers and
    /// booleans become their text; null is ""; a map or a list where a string is wanted
    /// is an error, as is a document that is not a map. Keys are matched exactly (Go's
    /// JSON decoding would also take `Kind:`; Kubernetes then refuses such an object).
    fn read(document: &Value) -> Result<Head, String> {
        let map = match document {
            Value::Null => return Ok(Head::default()),
            Value::Object(map) => map,
            other => {
                return Err(format!(
                    "a manifest must be a map, not {}",
                    type_name(other)
                ));
            }
        };
        let mut head = Head {
            api_version: string_field(map.get("apiVersion"), "apiVersion")?,
            kind: string_field(map.get("kind"), "kind")?,
            ..Head::default()
        };
        let metadata = match map.get("metadata") {
            None | Some(Value::Null) => return Ok(head),
            Some(Value::Object(metadata)) => metadata,
            Some(other) => {
                return Err(format!("metadata must be a map, not {}", type_name(other)));
            }
        };
        head.name = string_field(metadata.get("name"), "metadata.name")?;
        match metadata.get("annotations") {
            None | Some(Value::Null) => {}
            Some(Value::Object(annotations)) => {
                for (key, value) in annotations {
                    let field = format!("metadata.annotations.{key}");
                    head.annotations
                        .insert(key.clone(), string_field(Some(value), &field)?);
                }
            }
            Some(other) => {
                return Err(format!(
                    "metadata.annotations must be a map, not {}",
                    type_name(other)
                ));
            }
        }
        Ok(head)
    }
}

fn string_field(value: Option<&Value>, field: &str) -> Result<String, String> {
    match value {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Bool(b)) => Ok(b.to_string()),
        Some(Value::Number(n)) => Ok(go_number_text(n)),
        Some(other) => Err(format!(
            "cannot unmarshal {} into the string field {field}",
            type_name(other)
        )),
    }
}

/// The text sigs.k8s.io/yaml makes of a YAML number bound for a string: integers as
/// they are, floats as Go's `FormatFloat(f, 'g', -1, 32)` (so `5.0` is `5`, a weight
/// Helm accepts, and `1e6` is `1e+06`, one it does not).
fn go_number_text(n: &serde_json::Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    gotemplate::fmt::format_float32(n.as_f64().unwrap_or(0.0), b'g', -1)
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

/// Lists nested deeper than this are refused (Kubernetes flattens any depth; no chart
/// needs more than one).
const MAX_LIST_DEPTH: usize = 8;

/// Kubernetes' builder on one document: null skipped, lists flattened (an item without
/// apiVersion and kind takes the list's, minus `List`), every object needing a kind.
fn build_objects(
    document: &Value,
    path: &str,
    depth: usize,
    out: &mut Vec<Value>,
) -> Result<(), SortError> {
    let error = |message: String| SortError::Object {
        path: path.to_string(),
        message,
    };
    let map = match document {
        Value::Null => return Ok(()),
        Value::Object(map) => map,
        other => {
            return Err(error(format!(
                "a document is {}, not an object",
                type_name(other)
            )));
        }
    };
    if let Some(items) = map.get("items").filter(|items| !items.is_null()) {
        let Value::Array(items) = items else {
            return Err(error(format!("items is {}, not a list", type_name(items))));
        };
        if depth >= MAX_LIST_DEPTH {
            return Err(error(format!("lists nested deeper than {MAX_LIST_DEPTH}")));
        }
        let list_kind = map.get("kind").and_then(Value::as_str).unwrap_or("");
        let list_version = map.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        for item in items {
            let mut item = item.clone();
            if let Value::Object(fields) = &mut item
                && !fields.contains_key("kind")
                && !fields.contains_key("apiVersion")
            {
                let kind = list_kind.strip_suffix("List").unwrap_or(list_kind);
                fields.insert("kind".into(), Value::from(kind));
                fields.insert("apiVersion".into(), Value::from(list_version));
            }
            build_objects(&item, path, depth + 1, out)?;
        }
        return Ok(());
    }
    let kind = map.get("kind").and_then(Value::as_str).unwrap_or("");
    if kind.is_empty() {
        return Err(error(format!("Object 'Kind' is missing in '{document}'")));
    }
    let api_version = map.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    if api_version.is_empty() {
        return Err(error(format!("{kind} has no apiVersion")));
    }
    out.push(document.clone());
    Ok(())
}

/// Kubernetes' reading of a YAML or JSON stream (a release manifest, a `crds/` file): a
/// JSON text as JSON values; else documents cut at lines starting with `---` followed by
/// nothing but a comment, each read as YAML.
fn stream_objects(text: &str, source: &str) -> Result<Vec<Value>, SortError> {
    let error = |message: String| SortError::Object {
        path: source.to_string(),
        message,
    };
    let mut out = Vec::new();
    if text.trim_start().starts_with('{') {
        for value in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
            let value = value.map_err(|e| error(e.to_string()))?;
            build_objects(&value, source, 0, &mut out)?;
        }
        return Ok(out);
    }
    let mut document = String::new();
    let mut documents = Vec::new();
    for line in text.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("---") {
            let rest = rest.trim();
            if !rest.is_empty() && !rest.starts_with('#') {
                return Err(error(format!("invalid Yaml document separator: {rest}")));
            }
            documents.push(std::mem::take(&mut document));
            continue;
        }
        document.push_str(line);
    }
    documents.push(document);
    for document in documents.iter().filter(|d| !d.trim().is_empty()) {
        let value = rusty_sdk_chart::parse_yaml(document).map_err(error)?;
        build_objects(&value, source, 0, &mut out)?;
    }
    Ok(out)
}

/// For the integration tests (tests/it/cluster/helm_sort.rs): the fields of Helm's release
/// record this module makes, as `helm install -o json` prints them.
#[doc(hidden)]
pub mod testing {
    use std::collections::BTreeMap;

    use rusty_sdk_chart::Chart;
    use serde_json::{Value, json};

    use super::{HookPolicy, HookSpec, SortOptions, event_name};

    /// `{"manifest", "hooks", "notes"}` of a render sorted with Helm's defaults, hooks as
    /// Helm's JSON writes them before they run.
    pub fn release_fields(
        chart: &Chart,
        rendered: &BTreeMap<String, String>,
    ) -> Result<Value, String> {
        let sorted = super::sort_render(chart, rendered, &SortOptions::default())
            .map_err(|e| e.to_string())?;
        Ok(json!({
            "manifest": sorted.manifest,
            "hooks": sorted.hooks.iter().map(hook_json).collect::<Vec<_>>(),
            "notes": sorted.notes,
        }))
    }

    /// `(filename, text)` of the chart's CRDs as `helm template --include-crds` prints them.
    pub fn crds(chart: &Chart, values: &Value) -> Result<Vec<(String, String)>, String> {
        let crds = super::crd_files(chart, values).map_err(|e| e.to_string())?;
        Ok(crds.into_iter().map(|c| (c.filename, c.text)).collect())
    }

    /// A hook as Helm's release JSON holds it (`omitempty` fields left out when empty).
    pub(crate) fn hook_json(hook: &HookSpec) -> Value {
        fn policies(p: &[HookPolicy]) -> Vec<&str> {
            p.iter().map(HookPolicy::as_str).collect()
        }
        let mut out = json!({
            "name": hook.name,
            "kind": hook.kind,
            "path": hook.path,
            "manifest": hook.manifest,
            "events": hook.events.iter().map(|e| event_name(*e)).collect::<Vec<_>>(),
            "last_run": {"phase": ""},
        });
        if hook.weight != 0 {
            out["weight"] = json!(hook.weight);
        }
        if !hook.delete_policies.is_empty() {
            out["delete_policies"] = json!(policies(&hook.delete_policies));
        }
        if !hook.output_log_policies.is_empty() {
            out["output_log_policies"] = json!(policies(&hook.output_log_policies));
        }
        out
    }
}

#[cfg(test)]
mod tests;
