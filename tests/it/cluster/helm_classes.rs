//! The classes of fault issue 26 lists under "Why", each as a user meets it, on the real
//! control plane: a scaffolded hybrid operator (its own domain, `classes.my.domain`) with
//! one Helm API per small chart written here, one operator process per test watching the
//! test's namespace alone, and every result read back from the API server (or from the
//! release records the real `helm` reads).
use std::path::Path;
use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use rusty_sdk_runtime::helm::engine_storage::Records;
use rusty_sdk_test_tools::needs;
use serde_json::{Value, json};
use tokio::sync::OnceCell;

use super::hybrid::history;
use super::operator::{Installed, Operator, custom, helm, install};
use super::{await_gone, cluster, condition, eventually};
use crate::support::{rusty, transcript};

/// Installs and upgrades on two busy cores take a few seconds; this is the bound.
const SETTLE: Duration = Duration::from_secs(90);
const GROUP: &str = "helm.classes.my.domain";
const PERIOD: &str = "helm.sdk.operatorframework.io/reconcile-period";
const PAUSE: &str = "helm.sdk.operatorframework.io/pause-reconcile";
const UPGRADE_FORCE: &str = "helm.sdk.operatorframework.io/upgrade-force";
/// The environment variable watches.yaml's `overrideValues` reads for `Secretive`.
const TOKEN_VAR: &str = "CLASSES_TOKEN";

/// A chart's files: (path in the chart, text).
type Files = &'static [(&'static str, &'static str)];

/// The charts, one Helm API each: (kind, plural, files).
const CHARTS: &[(&str, &str, Files)] = &[
    // The common generated-password pattern: keep the Secret's password through lookup.
    (
        "Keeper",
        "keepers",
        &[(
            "templates/secret.yaml",
            r#"{{- $name := printf "%s-password" .Release.Name }}
{{- $password := randAlphaNum 24 | b64enc }}
{{- $existing := lookup "v1" "Secret" .Release.Namespace $name }}
{{- if $existing }}{{- $password = index $existing.data "password" }}{{- end }}
apiVersion: v1
kind: Secret
metadata:
  name: {{ $name }}
type: Opaque
data:
  password: {{ $password | quote }}
"#,
        )],
    ),
    // An object only for clusters that serve `<group>/v1/Widget`.
    (
        "Gated",
        "gateds",
        &[
            ("values.yaml", "group: widgets.example.com\ndata: {}\n"),
            (
                "templates/always.yaml",
                r"apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-always
data:
  {{- range $k, $v := .Values.data }}
  {{ $k }}: {{ $v | quote }}
  {{- end }}
",
            ),
            (
                "templates/gated.yaml",
                r#"{{- if .Capabilities.APIVersions.Has (printf "%s/v1/Widget" .Values.group) }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-gated
data:
  api: {{ .Values.group | quote }}
{{- end }}
"#,
            ),
        ],
    ),
    // A ConfigMap whose data and labels are the spec's.
    (
        "Shrinker",
        "shrinkers",
        &[
            ("values.yaml", "labels: {}\ndata: {}\n"),
            (
                "templates/configmap.yaml",
                r"apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-shrinker
  labels:
    {{- range $k, $v := .Values.labels }}
    {{ $k }}: {{ $v | quote }}
    {{- end }}
data:
  {{- range $k, $v := .Values.data }}
  {{ $k }}: {{ $v | quote }}
  {{- end }}
",
            ),
        ],
    ),
    // `copies` ConfigMaps of `size` bytes each: a manifest as large as the spec asks.
    (
        "Big",
        "bigs",
        &[
            ("values.yaml", "copies: 1\nsize: 16\nnote: \"\"\n"),
            (
                "templates/configmaps.yaml",
                r#"{{- range $i := until (int .Values.copies) }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ $.Release.Name }}-big-{{ $i }}
data:
  note: {{ $.Values.note | quote }}
  blob: {{ repeat (int $.Values.size) "x" | quote }}
{{- end }}
"#,
            ),
        ],
    ),
    // Defaults only YAML 1.1 reads right: an octal mode, `on`, a second document.
    (
        "Octal",
        "octals",
        &[
            (
                "values.yaml",
                "mode: 0755\nenabled: on\n---\nsecond: merged\n",
            ),
            (
                "templates/configmap.yaml",
                r"apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-octal
data:
  mode: {{ .Values.mode | quote }}
  enabled: {{ .Values.enabled | quote }}
  second: {{ .Values.second | quote }}
",
            ),
        ],
    ),
    // A Secret holding a value watches.yaml overrides from the environment.
    (
        "Secretive",
        "secretives",
        &[
            ("values.yaml", "token: none\n"),
            (
                "templates/secret.yaml",
                r"apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-token
type: Opaque
stringData:
  token: {{ .Values.token | quote }}
",
            ),
        ],
    ),
];

fn api(kind: &str) -> (&'static str, &'static str, &str, &'static str) {
    let plural = CHARTS
        .iter()
        .find(|(k, _, _)| *k == kind)
        .map_or_else(|| panic!("no chart for {kind}"), |(_, plural, _)| *plural);
    (GROUP, "v1", kind, plural)
}

fn run_sdk(root: &Path, args: &[&str]) {
    let output = rusty(root).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "rusty-sdk {}:\n{}",
        args.join(" "),
        transcript(&output, root)
    );
}

/// The project with one Helm API per chart, built once and installed on the control plane.
async fn project() -> &'static Installed {
    static INSTALLED: OnceCell<(tempfile::TempDir, Installed)> = OnceCell::const_new();
    let (_, installed) = INSTALLED
        .get_or_init(|| async {
            let (dir, root) = crate::e2e::project_dir("helm-classes");
            run_sdk(
                &root,
                &[
                    "init",
                    "--plugins=hybrid.helm.sdk.operatorframework.io",
                    "--project-version=3",
                    "--domain=classes.my.domain",
                    "--repo=github.com/example/helm-classes",
                ],
            );
            for (kind, _, files) in CHARTS {
                let chart = dir.path().join("charts").join(kind.to_lowercase());
                std::fs::create_dir_all(chart.join("templates")).unwrap();
                let name = kind.to_lowercase();
                std::fs::write(
                    chart.join("Chart.yaml"),
                    format!("apiVersion: v2\nname: {name}\nversion: 0.1.0\n"),
                )
                .unwrap();
                std::fs::write(chart.join("values.yaml"), "{}\n").unwrap();
                for (path, text) in *files {
                    std::fs::write(chart.join(path), text).unwrap();
                }
                run_sdk(
                    &root,
                    &[
                        "create",
                        "api",
                        "--plugins=helm",
                        "--group=helm",
                        "--version=v1",
                        &format!("--kind={kind}"),
                        &format!("--helm-chart={}", chart.display()),
                    ],
                );
            }
            // Secretive's token comes from the operator's environment.
            let watches = root.join("watches.yaml");
            let text = std::fs::read_to_string(&watches).unwrap();
            let entry = "  chart: helm-charts/secretive\n";
            assert!(text.contains(entry), "{text}");
            let text = text.replace(
                entry,
                &format!("{entry}  overrideValues:\n    token: ${TOKEN_VAR}\n"),
            );
            std::fs::write(&watches, text).unwrap();
            run_sdk(&root, &["generate", "rbac"]);
            let installed = install(&root).await;
            (dir, installed)
        })
        .await;
    installed
}

/// A test namespace with an operator of its own watching it alone.
async fn setup(prefix: &str, env: &[(&str, &str)]) -> (kube::Client, String, Operator) {
    let installed = project().await;
    let admin = cluster().client().await.unwrap();
    let ns = cluster().create_namespace(&admin, prefix).await.unwrap();
    let operator = Operator::start_with_env(
        installed,
        &[
            &format!("--namespace={ns}"),
            "--log-level=info,rusty_sdk_runtime=debug",
        ],
        env,
    );
    (admin, ns, operator)
}

fn resource(kind: &str, name: &str, annotations: Value, spec: Value) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": format!("{GROUP}/v1"),
        "kind": kind,
        "metadata": {"name": name, "annotations": annotations},
        "spec": spec,
    }))
    .unwrap()
}

/// Create a `kind` named `name` and wait until it is installed.
async fn create_deployed(
    admin: &kube::Client,
    ns: &str,
    kind: &str,
    name: &str,
    annotations: Value,
    spec: Value,
    operator: &Operator,
) -> Api<DynamicObject> {
    let crs = custom(admin, ns, api(kind));
    crs.create(
        &PostParams::default(),
        &resource(kind, name, annotations, spec),
    )
    .await
    .unwrap();
    await_condition(&crs, name, "Deployed", "InstallSuccessful", operator).await;
    crs
}

/// Wait until `name`'s condition `type_` is `True` with `reason`; returns the resource.
async fn await_condition(
    crs: &Api<DynamicObject>,
    name: &str,
    type_: &str,
    reason: &str,
    operator: &Operator,
) -> DynamicObject {
    await_cr(
        crs,
        name,
        operator,
        &format!("{type_}=True ({reason})"),
        |cr| condition(cr, type_).is_some_and(|c| c["status"] == "True" && c["reason"] == reason),
    )
    .await
}

/// Wait until `name` satisfies `check`; returns it. The failure shows the resource and
/// the operator's log.
async fn await_cr(
    crs: &Api<DynamicObject>,
    name: &str,
    operator: &Operator,
    what: &str,
    check: impl Fn(&DynamicObject) -> bool,
) -> DynamicObject {
    let mut last = None;
    let found = tokio::time::timeout(SETTLE, async {
        loop {
            if let Some(cr) = crs.get_opt(name).await.unwrap() {
                if check(&cr) {
                    return cr;
                }
                last = Some(cr);
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await;
    found.unwrap_or_else(|_| {
        panic!(
            "{name}: not {what} after {}s; status: {:#}\noperator log:\n{}",
            SETTLE.as_secs(),
            last.map(|cr| cr.data["status"].clone()).unwrap_or_default(),
            operator.log()
        )
    })
}

fn revisions(list: &[(u64, &str)]) -> Vec<(u64, String)> {
    list.iter().map(|(r, s)| (*r, s.to_string())).collect()
}

/// How many reconciles the operator has finished so far (its debug log says each).
fn reconciles(operator: &Operator) -> usize {
    operator
        .log()
        .lines()
        .filter(|line| line.contains("reconciled"))
        .count()
}

/// Let `periods` more reconciles finish.
async fn await_reconciles(operator: &Operator, periods: usize) {
    let start = reconciles(operator);
    let what = format!("{periods} more reconciles");
    tokio::time::timeout(SETTLE, async {
        while reconciles(operator) < start + periods {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{what}: not in {}s:\n{}", SETTLE.as_secs(), operator.log()));
}

async fn configmap(admin: &kube::Client, ns: &str, name: &str) -> Option<ConfigMap> {
    Api::<ConfigMap>::namespaced(admin.clone(), ns)
        .get_opt(name)
        .await
        .unwrap()
}

async fn secret(admin: &kube::Client, ns: &str, name: &str) -> Secret {
    Api::<Secret>::namespaced(admin.clone(), ns)
        .get(name)
        .await
        .unwrap()
}

/// Class: "charts that keep secrets through `lookup` get a new revision and re-run their
/// hooks every period". Before, the upgrade decision came from a client-side dry run
/// without `lookup`, which rendered a fresh password every time: the manifest differed,
/// and every period made a new revision (so revision 1 below failed after one period).
#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn a_password_kept_through_lookup_makes_no_new_revision() {
    let (admin, ns, operator) = setup("classes-lookup", &[]).await;
    create_deployed(
        &admin,
        &ns,
        "Keeper",
        "pw",
        json!({PERIOD: "2s"}),
        json!({}),
        &operator,
    )
    .await;
    let password = |s: Secret| s.data.unwrap_or_default().get("password").cloned();
    let first = password(secret(&admin, &ns, "pw-password").await);
    assert!(
        first.as_ref().is_some_and(|p| p.0.len() == 24),
        "a 24-character password: {first:?}"
    );
    await_reconciles(&operator, 4).await;
    assert_eq!(
        history(&ns, "pw"),
        revisions(&[(1, "deployed")]),
        "the release stays at its first revision:\n{}",
        operator.log()
    );
    assert_eq!(
        password(secret(&admin, &ns, "pw-password").await),
        first,
        "the password never changes"
    );
    operator.stop();
}

/// Class: "the in-process steady-state check renders with built-in Capabilities instead of
/// the cluster's, so objects gated on an API the cluster gained later are never created".
/// Before, the steady-state render knew only the built-in APIs: it matched the stored
/// manifest (without the gated object) and the release was never upgraded.
#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn an_object_gated_on_an_api_the_cluster_gains_is_created() {
    let (admin, ns, operator) = setup("classes-caps", &[]).await;
    // A group of this test's own, so the API is new to the cluster whatever ran before.
    let group = format!("{ns}.widgets.example.com");
    create_deployed(
        &admin,
        &ns,
        "Gated",
        "caps",
        json!({PERIOD: "2s"}),
        json!({"group": group}),
        &operator,
    )
    .await;
    assert!(configmap(&admin, &ns, "caps-always").await.is_some());
    assert!(
        configmap(&admin, &ns, "caps-gated").await.is_none(),
        "no gated object before the cluster serves {group}/v1/Widget"
    );

    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("widgets.{group}")},
        "spec": {
            "group": group,
            "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
            }],
        },
    }))
    .unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(admin.clone());
    crds.create(&PostParams::default(), &crd).await.unwrap();

    let gated = eventually("the gated object is created", SETTLE, || {
        let admin = admin.clone();
        let ns = ns.clone();
        async move { configmap(&admin, &ns, "caps-gated").await }
    })
    .await;
    assert_eq!(
        gated.data.unwrap_or_default().get("api"),
        Some(&group),
        "{}",
        operator.log()
    );
    assert_eq!(
        history(&ns, "caps"),
        revisions(&[(1, "superseded"), (2, "deployed")])
    );
    crds.delete(&format!("widgets.{group}"), &DeleteParams::default())
        .await
        .unwrap();
    operator.stop();
}

/// Entries of `object`'s managedFields under `manager` (the main resource only).
fn owned_by(object: &ConfigMap, manager: &str) -> Vec<Value> {
    object
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .filter(|entry| entry.manager.as_deref() == Some(manager))
        .filter(|entry| entry.subresource.is_none())
        .filter_map(|entry| entry.fields_v1.as_ref().map(|f| f.0.clone()))
        .collect()
}

/// Class: "the operator reads the chart's defaults otherwise than Helm". Helm v4.2.3 renders
/// this chart's ConfigMap with mode "493", enabled "true", second "merged". Before, the
/// runtime read values.yaml as YAML 1.2 with one document: it refused the second document,
/// so the resource never said Deployed (and a lone `0755` would have deployed as 755).
#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn chart_defaults_are_read_as_helm_reads_them() {
    let (admin, ns, operator) = setup("classes-octal", &[]).await;
    create_deployed(
        &admin,
        &ns,
        "Octal",
        "perm",
        json!({}),
        json!({}),
        &operator,
    )
    .await;
    let data = configmap(&admin, &ns, "perm-octal")
        .await
        .expect("the chart's ConfigMap")
        .data
        .unwrap_or_default();
    let data: Vec<(&str, &str)> = data.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        data,
        [("enabled", "true"), ("mode", "493"), ("second", "merged")]
    );
    operator.stop();
}

/// Class: "the drift repair applies whole objects with force under the operator's own
/// field manager, so it co-owns every field; map keys a new chart drops stay behind".
/// Before, a repair (here of another writer's edit) made `shrinker-controller` co-own every
/// data key and label, and Helm's upgrade could not remove the ones the chart dropped.
#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn keys_and_labels_an_upgrade_drops_leave_the_object() {
    let (admin, ns, operator) = setup("classes-drop", &[]).await;
    let crs = create_deployed(
        &admin,
        &ns,
        "Shrinker",
        "drop",
        json!({PERIOD: "2s"}),
        json!({"data": {"keep": "1", "gone": "2"}, "labels": {"team": "a", "tier": "b"}}),
        &operator,
    )
    .await;
    let configmaps: Api<ConfigMap> = Api::namespaced(admin.clone(), &ns);
    // Another writer edits the object; the operator puts it back.
    configmaps
        .patch(
            "drop-shrinker",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"tier": "x"}}, "data": {"gone": "x"}})),
        )
        .await
        .unwrap();
    eventually("the edited ConfigMap is put back", SETTLE, || {
        let configmaps = configmaps.clone();
        async move {
            let cm = configmaps.get("drop-shrinker").await.unwrap();
            let data = cm.data.clone().unwrap_or_default();
            let labels = cm.metadata.labels.clone().unwrap_or_default();
            (data.get("gone").map(String::as_str) == Some("2")
                && labels.get("tier").map(String::as_str) == Some("b"))
            .then_some(())
        }
    })
    .await;

    crs.patch(
        "drop",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"data": {"gone": null}, "labels": {"tier": null}}})),
    )
    .await
    .unwrap();
    await_condition(&crs, "drop", "Deployed", "UpgradeSuccessful", &operator).await;
    // The next period's repair must not bring anything back either.
    await_reconciles(&operator, 2).await;
    let live = configmaps.get("drop-shrinker").await.unwrap();
    let data = live.data.clone().unwrap_or_default();
    let labels = live.metadata.labels.clone().unwrap_or_default();
    assert_eq!(
        data.keys().map(String::as_str).collect::<Vec<_>>(),
        ["keep"],
        "the dropped data key is gone"
    );
    assert_eq!(labels.get("team").map(String::as_str), Some("a"));
    assert!(
        !labels.contains_key("tier"),
        "the dropped label is gone: {labels:?}"
    );
    let operators = owned_by(&live, "shrinker-controller");
    assert!(
        operators.iter().all(|fields| *fields
            == json!({"f:metadata": {"f:ownerReferences": fields["f:metadata"]["f:ownerReferences"]}})),
        "the operator's field manager owns only the owner reference: {operators:#?}"
    );
    let helms = owned_by(&live, "helm");
    assert!(
        helms.iter().any(|f| !f["f:data"]["f:keep"].is_null()
            && !f["f:metadata"]["f:labels"]["f:team"].is_null()),
        "Helm owns the data and labels: {helms:#?}"
    );
    operator.stop();
}

/// Class: "a paused CR cannot be deleted" (shared with upstream, which returns before the
/// deletion is looked at). Before, the finalizer stayed and the resource was Terminating
/// for ever.
#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn a_paused_resource_that_is_deleted_is_uninstalled() {
    let (admin, ns, operator) = setup("classes-paused", &[]).await;
    let crs = create_deployed(
        &admin,
        &ns,
        "Shrinker",
        "paused",
        json!({}),
        json!({"data": {"a": "1"}}),
        &operator,
    )
    .await;
    crs.patch(
        "paused",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"annotations": {PAUSE: "true"}}})),
    )
    .await
    .unwrap();
    await_condition(
        &crs,
        "paused",
        "Paused",
        "PauseReconcileAnnotationTrue",
        &operator,
    )
    .await;
    crs.delete("paused", &DeleteParams::default())
        .await
        .unwrap();
    await_gone(&crs, "paused", "the paused resource is gone", SETTLE).await;
    assert!(
        configmap(&admin, &ns, "paused-shrinker").await.is_none(),
        "its release's objects are gone"
    );
    let list: Vec<Value> = serde_json::from_str(&helm(&["list", "-n", &ns, "-o", "json"])).unwrap();
    assert!(list.is_empty(), "the release is uninstalled: {list:#?}");
    operator.stop();
}

/// Class: "no `observedGeneration` in status". Before, status had none, so a user could
/// not tell whether the conditions described the latest spec.
#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn observed_generation_follows_the_spec() {
    let (admin, ns, operator) = setup("classes-generation", &[]).await;
    let crs = create_deployed(
        &admin,
        &ns,
        "Shrinker",
        "gen",
        json!({}),
        json!({"data": {"a": "1"}}),
        &operator,
    )
    .await;
    let cr = crs.get("gen").await.unwrap();
    assert_eq!(
        cr.data["status"]["observedGeneration"],
        json!(cr.metadata.generation)
    );
    crs.patch(
        "gen",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"data": {"a": "2"}}})),
    )
    .await
    .unwrap();
    let cr = await_condition(&crs, "gen", "Deployed", "UpgradeSuccessful", &operator).await;
    assert_eq!(cr.metadata.generation, Some(2));
    assert_eq!(
        cr.data["status"]["observedGeneration"], 2,
        "{:#}",
        cr.data["status"]
    );
    operator.stop();
}

/// Class: "`status.deployedRelease.manifest` can outgrow the object size limit" (shared
/// with upstream). Before, the whole manifest went into status: past etcd's 1.5 MiB the API
/// server refused every status write, so the resource never said Deployed.
#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn a_release_too_large_for_status_is_deployed_and_says_where_its_manifest_is() {
    let (admin, ns, operator) = setup("classes-big", &[]).await;
    // Two ConfigMaps of 900,000 bytes each (under a ConfigMap's 1 MiB).
    let crs = create_deployed(
        &admin,
        &ns,
        "Big",
        "big",
        json!({}),
        json!({"copies": 2, "size": 900_000}),
        &operator,
    )
    .await;
    let manifest = helm(&["get", "manifest", "big", "-n", &ns]);
    assert!(manifest.len() > 1_800_000, "{}", manifest.len());
    let cr = crs.get("big").await.unwrap();
    let pointer = cr.data["status"]["deployedRelease"]["manifest"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        pointer.contains(&format!("helm get manifest big -n {ns}")),
        "status says where the manifest is: {pointer}"
    );
    // The fixture is large enough: the whole manifest in status is refused.
    let refused = crs
        .patch_status(
            "big",
            &PatchParams::default(),
            &Patch::Merge(
                json!({"status": {"deployedRelease": {"name": "big", "manifest": manifest}}}),
            ),
        )
        .await;
    assert!(
        refused.is_err(),
        "the API server took a status of {} bytes",
        manifest.len()
    );

    // Status stays writable: a spec change is upgraded and reported.
    crs.patch(
        "big",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"note": "again"}})),
    )
    .await
    .unwrap();
    let cr = await_condition(&crs, "big", "Deployed", "UpgradeSuccessful", &operator).await;
    assert_eq!(cr.data["status"]["observedGeneration"], 2);
    let note = configmap(&admin, &ns, "big-big-1")
        .await
        .and_then(|cm| cm.data)
        .and_then(|d| d.get("note").cloned());
    assert_eq!(note.as_deref(), Some("again"));
    operator.stop();
}

/// Class: "override values (secrets from the environment) are printed in events". Before,
/// each `ValueOverridden` event said `overridden to "<value>"`.
#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn value_overridden_events_never_show_the_value() {
    let token = format!("s3cr3t-{}", std::process::id());
    let (admin, ns, operator) = setup("classes-override", &[(TOKEN_VAR, &token)]).await;
    create_deployed(
        &admin,
        &ns,
        "Secretive",
        "ovr",
        json!({}),
        json!({"token": "from-spec"}),
        &operator,
    )
    .await;
    let stored = secret(&admin, &ns, "ovr-token").await;
    assert_eq!(
        stored
            .data
            .unwrap_or_default()
            .get("token")
            .map(|b| b.0.clone()),
        Some(token.clone().into_bytes()),
        "the override reached the chart"
    );
    let events: Api<k8s_openapi::api::events::v1::Event> = Api::namespaced(admin.clone(), &ns);
    let overridden = eventually("a ValueOverridden event", SETTLE, || {
        let events = events.clone();
        async move {
            let list = events.list(&ListParams::default()).await.unwrap();
            let found: Vec<_> = list
                .items
                .into_iter()
                .filter(|e| e.reason.as_deref() == Some("ValueOverridden"))
                .collect();
            (!found.is_empty()).then_some(found)
        }
    })
    .await;
    for event in overridden {
        let text = serde_json::to_string(&event).unwrap();
        assert!(!text.contains(&token), "the event shows the value: {text}");
        assert!(
            event.note.as_deref().unwrap_or_default().contains("token"),
            "the event names the key: {text}"
        );
    }
    operator.stop();
}

/// Run the control plane's helm; its output, success or not.
fn helm_output(args: &[&str]) -> std::process::Output {
    super::operator::tool_command("helm")
        .args(args)
        .output()
        .unwrap()
}

/// Class: "force-replace is combined with server-side apply, which Helm 4 refuses: ... the
/// upgrade-force annotation breaks". The real helm shows the refusal below; before, the
/// operator ran that very command and the forced upgrade failed every time.
#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn upgrade_force_upgrades_a_server_side_release() {
    let (admin, ns, operator) = setup("classes-force", &[]).await;
    let crs = create_deployed(
        &admin,
        &ns,
        "Shrinker",
        "force",
        json!({UPGRADE_FORCE: "true"}),
        json!({"data": {"a": "1"}}),
        &operator,
    )
    .await;
    let records = Records::new(admin.clone(), "secret").unwrap();
    let first = records.get(&ns, "force", 1).await.unwrap().unwrap();
    assert_eq!(first["apply_method"], "ssa", "a server-side release");

    crs.patch(
        "force",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"data": {"a": "2"}}})),
    )
    .await
    .unwrap();
    await_condition(&crs, "force", "Deployed", "UpgradeSuccessful", &operator).await;
    let data = configmap(&admin, &ns, "force-shrinker")
        .await
        .and_then(|cm| cm.data)
        .unwrap_or_default();
    assert_eq!(data.get("a").map(String::as_str), Some("2"));
    assert_eq!(
        history(&ns, "force"),
        revisions(&[(1, "superseded"), (2, "deployed")])
    );

    // What the helm CLI does with the same request.
    operator.stop();
    let chart = project().await.root.join("helm-charts/shrinker");
    let refused = helm_output(&[
        "upgrade",
        "force",
        chart.to_str().unwrap(),
        "-n",
        &ns,
        "--reuse-values",
        "--force-replace",
    ]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success()
            && stderr.contains("cannot use server-side apply and force replace together"),
        "helm v4.2.3 refuses --force-replace on a server-side release: {stderr}"
    );
}

/// An RFC 3339 time `ago` before now, as release records carry it.
fn time_ago(ago: Duration) -> String {
    let now = k8s_openapi::jiff::Timestamp::now();
    let then = now - k8s_openapi::jiff::SignedDuration::try_from(ago).unwrap();
    then.to_string()
}

/// Log lines that contain `text`.
fn log_lines(operator: &Operator, text: &str) -> usize {
    operator.log().lines().filter(|l| l.contains(text)).count()
}

/// Wait until `name` says that revision `revision` of its release may still be in
/// another client's hands, then let two more reconciles say so (and change nothing).
async fn await_waiting(crs: &Api<DynamicObject>, name: &str, operator: &Operator, revision: u32) {
    const WAITING: &str = "may still be in progress";
    let waiting = await_cr(crs, name, operator, "waiting for the other client", |cr| {
        condition(cr, "Irreconcilable").is_some_and(|c| {
            c["status"] == "True" && c["message"].as_str().is_some_and(|m| m.contains(WAITING))
        })
    })
    .await;
    let message = condition(&waiting, "Irreconcilable").unwrap()["message"].clone();
    assert!(
        message
            .as_str()
            .unwrap_or_default()
            .contains(&format!("revision {revision} ")),
        "the condition names the revision: {message}"
    );
    let seen = log_lines(operator, WAITING);
    eventually("two more reconciles that wait", SETTLE, || {
        let more = log_lines(operator, WAITING) >= seen + 2;
        async move { more.then_some(()) }
    })
    .await;
}

/// Class: "pending-* recovery rolls back another client's upgrade that is still running
/// (no age check)". Before, the first reconcile that saw `pending-upgrade` rolled it back,
/// however young it was (so revision 2 below became 3 rollbacks at once).
#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn a_young_pending_upgrade_is_left_alone_and_an_old_one_recovered() {
    let (admin, ns, operator) = setup("classes-pending", &[]).await;
    let crs = create_deployed(
        &admin,
        &ns,
        "Shrinker",
        "pend",
        json!({PERIOD: "2s"}),
        json!({"data": {"a": "1"}}),
        &operator,
    )
    .await;
    // Another client's upgrade, started just now: revision 2, pending.
    let records = Records::new(admin.clone(), "secret").unwrap();
    let mut pending = records.get(&ns, "pend", 1).await.unwrap().unwrap();
    pending["version"] = json!(2);
    pending["info"]["status"] = json!("pending-upgrade");
    pending["info"]["description"] = json!("Preparing upgrade");
    pending["info"]["last_deployed"] = json!(time_ago(Duration::ZERO));
    records.create(pending.clone()).await.unwrap();

    await_waiting(&crs, "pend", &operator, 2).await;
    assert_eq!(
        history(&ns, "pend"),
        revisions(&[(1, "deployed"), (2, "pending-upgrade")]),
        "the young pending upgrade is not rolled back:\n{}",
        operator.log()
    );

    // Abandoned an hour ago: taken over, rolled back to the last deployed revision.
    pending["info"]["last_deployed"] = json!(time_ago(Duration::from_secs(3600)));
    records.update(pending).await.unwrap();
    let recovered = eventually("the abandoned upgrade is rolled back", SETTLE, || {
        let ns = ns.clone();
        async move {
            let revisions = history(&ns, "pend");
            (revisions
                .last()
                .is_some_and(|(r, s)| *r == 3 && s == "deployed"))
            .then_some(revisions)
        }
    })
    .await;
    assert_eq!(
        recovered,
        revisions(&[(1, "superseded"), (2, "pending-upgrade"), (3, "deployed")]),
        "as helm rollback leaves it"
    );
    await_cr(&crs, "pend", &operator, "reconciled again", |cr| {
        condition(cr, "Irreconcilable").is_some_and(|c| c["status"] == "False")
            && condition(cr, "Deployed").is_some_and(|c| c["status"] == "True")
    })
    .await;
    let data = configmap(&admin, &ns, "pend-shrinker")
        .await
        .and_then(|cm| cm.data)
        .unwrap_or_default();
    assert_eq!(data.get("a").map(String::as_str), Some("1"));
    operator.stop();
}

/// Class: "a release whose latest revision is `uninstalling` is stuck for ever" (shared
/// with upstream). Before, no upgrade could start from it (no deployed revision) and
/// nothing finished the uninstall: every reconcile failed with "has no deployed releases".
/// An uninstall is as old as its start (`info.deleted`), not as the deploy before it.
#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn a_release_left_uninstalling_is_installed_afresh() {
    let (admin, ns, operator) = setup("classes-uninstalling", &[]).await;
    let crs = create_deployed(
        &admin,
        &ns,
        "Shrinker",
        "half",
        json!({PERIOD: "2s"}),
        json!({"data": {"a": "1"}}),
        &operator,
    )
    .await;
    let before = configmap(&admin, &ns, "half-shrinker").await.unwrap();
    // Another client's uninstall of a release deployed two hours ago, started just now
    // (Helm records when in `info.deleted`): left to it.
    let records = Records::new(admin.clone(), "secret").unwrap();
    let mut record = records.get(&ns, "half", 1).await.unwrap().unwrap();
    record["info"]["status"] = json!("uninstalling");
    record["info"]["description"] = json!("Deletion in progress (or silently failed)");
    record["info"]["last_deployed"] = json!(time_ago(Duration::from_secs(7200)));
    record["info"]["deleted"] = json!(time_ago(Duration::ZERO));
    records.update(record.clone()).await.unwrap();
    await_waiting(&crs, "half", &operator, 1).await;
    assert_eq!(history(&ns, "half"), revisions(&[(1, "uninstalling")]));
    let untouched = configmap(&admin, &ns, "half-shrinker").await.unwrap();
    assert_eq!(untouched.metadata.uid, before.metadata.uid);

    // That uninstall crashed an hour ago: finished, and the release installed afresh.
    record["info"]["deleted"] = json!(time_ago(Duration::from_secs(3600)));
    records.update(record).await.unwrap();

    let fresh = eventually("the release is installed afresh", SETTLE, || {
        let admin = admin.clone();
        let ns = ns.clone();
        let uid = before.metadata.uid.clone();
        async move {
            let cm = configmap(&admin, &ns, "half-shrinker").await?;
            let revisions = history(&ns, "half");
            (cm.metadata.uid != uid && revisions == [(1, "deployed".to_string())]).then_some(cm)
        }
    })
    .await;
    assert_eq!(
        fresh.data.unwrap_or_default().get("a").map(String::as_str),
        Some("1")
    );
    await_cr(&crs, "half", &operator, "Deployed and reconcilable", |cr| {
        condition(cr, "Deployed").is_some_and(|c| c["status"] == "True")
            && condition(cr, "Irreconcilable").is_some_and(|c| c["status"] == "False")
    })
    .await;
    operator.stop();
}

/// Class: "two CRs of different kinds with the same name in one namespace share one
/// release and delete each other's objects in a loop" (shared with upstream). Before, the
/// second upgraded the first's release to its own chart (the first's objects deleted), the
/// first upgraded it back, and so on; deleting either uninstalled the other's release.
#[needs(control_plane, e2e, kubectl, helm)]
#[tokio::test]
async fn a_second_kind_with_the_same_name_is_refused() {
    let (admin, ns, operator) = setup("classes-twins", &[]).await;
    create_deployed(
        &admin,
        &ns,
        "Gated",
        "twin",
        json!({PERIOD: "2s"}),
        json!({"data": {"mine": "gated"}}),
        &operator,
    )
    .await;
    let records = Records::new(admin.clone(), "secret").unwrap();
    let first = records.get(&ns, "twin", 1).await.unwrap().unwrap();
    assert_eq!(
        first["labels"]["rusty-sdk.io/owner-kind"], "Gated",
        "the release records its owner: {:#}",
        first["labels"]
    );

    let shrinkers = custom(&admin, &ns, api("Shrinker"));
    shrinkers
        .create(
            &PostParams::default(),
            &resource(
                "Shrinker",
                "twin",
                json!({PERIOD: "2s"}),
                json!({"data": {"mine": "shrinker"}}),
            ),
        )
        .await
        .unwrap();
    let refused = await_cr(&shrinkers, "twin", &operator, "refused", |cr| {
        condition(cr, "ReleaseFailed").is_some_and(|c| c["status"] == "True")
    })
    .await;
    let message = condition(&refused, "ReleaseFailed").unwrap()["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        message.contains(&format!("Gated.{GROUP}")),
        "the condition names the release's owner: {message}"
    );
    await_reconciles(&operator, 4).await;
    assert_eq!(history(&ns, "twin"), revisions(&[(1, "deployed")]));
    let data = configmap(&admin, &ns, "twin-always")
        .await
        .and_then(|cm| cm.data)
        .unwrap_or_default();
    assert_eq!(data.get("mine").map(String::as_str), Some("gated"));
    assert!(configmap(&admin, &ns, "twin-shrinker").await.is_none());

    // Deleting the refused one leaves the other's release alone.
    shrinkers
        .delete("twin", &DeleteParams::default())
        .await
        .unwrap();
    await_gone(&shrinkers, "twin", "the refused resource is gone", SETTLE).await;
    await_reconciles(&operator, 2).await;
    assert_eq!(history(&ns, "twin"), revisions(&[(1, "deployed")]));
    assert!(configmap(&admin, &ns, "twin-always").await.is_some());
    operator.stop();
}
