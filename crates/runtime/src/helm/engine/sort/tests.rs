//! Expected values are the real Helm v4.2.3's. testdata/sorty is a chart made to hit
//! every rule of Helm's sorter (documents glued to `---`, comment-only and blank
//! documents, a `List`, unknown kinds, hooks with odd annotations, a disabled subchart
//! with CRDs, NOTES.txt by suffix); its recorded outputs came from, in testdata/:
//!
//! ```text
//! helm install rel ./sorty -n ns1 --dry-run=client -o json   # manifest, hooks, notes
//!   (kept: {manifest, hooks, notes: info.notes} in sorty-release.json)
//! helm template rel ./sorty -n ns1 --include-crds > sorty-template-crds.yaml
//! ```
//!
//! Errors were checked with one-template charts and `helm install --dry-run=client`.
use std::fmt::Write;
use std::path::PathBuf;

use rusty_sdk_chart::{Chart, RenderOptions};
use serde_json::{Value, json};

use super::testing::hook_json;
use super::*;

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/helm/engine/sort/testdata")
}

fn sorty() -> Chart {
    Chart::load(&testdata().join("sorty")).expect("testdata/sorty loads")
}

fn render(chart: &Chart, values: &Value) -> BTreeMap<String, String> {
    let options = RenderOptions {
        release_name: "rel".into(),
        namespace: "ns1".into(),
        ..RenderOptions::default()
    };
    rusty_sdk_chart::render(chart, values, &options).expect("testdata/sorty renders")
}

fn recorded() -> Value {
    let text = std::fs::read_to_string(testdata().join("sorty-release.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn the_manifest_hooks_and_notes_are_the_ones_helm_stores() {
    let chart = sorty();
    let sorted = sort_render(&chart, &render(&chart, &json!({})), &SortOptions::default()).unwrap();
    let helm = recorded();
    assert_eq!(sorted.manifest, helm["manifest"].as_str().unwrap());
    let hooks: Vec<Value> = sorted.hooks.iter().map(hook_json).collect();
    assert_eq!(Value::from(hooks), helm["hooks"]);
    assert_eq!(sorted.notes, helm["notes"].as_str().unwrap());
}

#[test]
fn documents_carry_their_head_and_objects_as_kubernetes_builds_them() {
    let chart = sorty();
    let sorted = sort_render(&chart, &render(&chart, &json!({})), &SortOptions::default()).unwrap();
    let heads: Vec<(&str, &str)> = sorted
        .manifests
        .iter()
        .map(|m| (m.kind.as_str(), m.name.as_str()))
        .collect();
    assert_eq!(
        heads,
        [
            ("Namespace", "ns-z"),
            ("Secret", "keep-me"),
            ("ConfigMap", "glued"),
            ("Service", "sub-svc"),
            ("Deployment", "dep"),
            ("", ""),
            ("Aardvark", "a"),
            ("List", ""),
            ("Zebra", "z"),
        ]
    );
    let comment_only = &sorted.manifests[5];
    assert_eq!(comment_only.content, "---\n# only a comment");
    assert_eq!(comment_only.objects().unwrap(), Vec::<Value>::new());
    let list = sorted.manifests[7].objects().unwrap();
    assert_eq!(
        list,
        [
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "in-list"},
                "data": {"b": "text"}})
        ]
    );
    assert_eq!(
        sorted.manifests[1].resource_policy().as_deref(),
        Some("keep")
    );
    let all = manifest_objects(&sorted.manifest).unwrap();
    assert_eq!(all.len(), 8, "nine documents, one of comments only");
    assert_eq!(all[0]["metadata"]["name"], "ns-z");
}

#[test]
fn subchart_notes_are_joined_with_a_newline_in_path_order() {
    // Helm joins them in Go's map order, which changes from run to run; one run printed
    // "Sub notes for rel\n\nParent notes: ns1\n\n\nalso notes by suffix\n".
    let chart = sorty();
    let sorted = sort_render(
        &chart,
        &render(&chart, &json!({})),
        &SortOptions {
            subchart_notes: true,
        },
    )
    .unwrap();
    assert_eq!(
        sorted.notes,
        "Sub notes for rel\n\nalso notes by suffix\n\nParent notes: ns1\n\n"
    );
}

#[test]
fn hooks_of_an_event_run_by_weight_then_name() {
    let chart = sorty();
    let sorted = sort_render(&chart, &render(&chart, &json!({})), &SortOptions::default()).unwrap();
    let order = |event| -> Vec<(&str, i64)> {
        execution_order(&sorted.hooks, event)
            .into_iter()
            .map(|h| (h.name.as_str(), h.weight))
            .collect()
    };
    assert_eq!(
        order(HookKind::PreInstall),
        [("hook-c", -2), ("hook-b", 0), ("hook-b", 0), ("hook-a", 5)]
    );
    assert_eq!(
        order(HookKind::PostInstall),
        [("sub-hook", -3), ("hook-b", 0)]
    );
    assert_eq!(order(HookKind::PreDelete), []);
    let hook_b = &sorted.hooks[2];
    assert_eq!(hook_b.name, "hook-b");
    assert_eq!(
        *hook_b.effective_delete_policies(),
        [HookPolicy::BeforeHookCreation]
    );
    assert_eq!(hook_b.objects().unwrap()[0]["kind"], "Pod");
}

#[test]
fn crds_come_from_enabled_charts_in_helms_order_and_print_as_helm_template_does() {
    let chart = sorty();
    let crds = crd_files(&chart, &json!({})).unwrap();
    let names: Vec<(&str, &str, usize)> = crds
        .iter()
        .map(|c| (c.name.as_str(), c.filename.as_str(), c.objects.len()))
        .collect();
    assert_eq!(
        names,
        [
            ("crds/a.yml", "sorty/crds/a.yml", 1),
            ("crds/b.yaml", "sorty/crds/b.yaml", 2),
            ("crds/s.json", "sorty/charts/sub/crds/s.json", 1),
        ]
    );
    assert_eq!(crds[1].objects[1]["metadata"]["name"], "b2s.example.com");
    // What `helm template --include-crds` prints: the CRDs' sources, then the manifest,
    // trimmed, then the hooks.
    let sorted = sort_render(&chart, &render(&chart, &json!({})), &SortOptions::default()).unwrap();
    let mut manifest = String::new();
    for c in &crds {
        writeln!(manifest, "---\n# Source: {}\n{}", c.filename, c.text).unwrap();
    }
    manifest.push_str(&sorted.manifest);
    let mut printed = format!("{}\n", manifest.trim());
    for hook in &sorted.hooks {
        writeln!(printed, "---\n# Source: {}\n{}", hook.path, hook.manifest).unwrap();
    }
    let helm = std::fs::read_to_string(testdata().join("sorty-template-crds.yaml")).unwrap();
    assert_eq!(printed, helm);

    // `--set gone.enabled=true` adds the subchart's CRD after sub's (Chart.yaml order).
    let crds = crd_files(&chart, &json!({"gone": {"enabled": true}})).unwrap();
    assert_eq!(
        crds.last().map(|c| c.filename.as_str()),
        Some("sorty/charts/gone/crds/off.yaml")
    );
}

fn one_template(text: &str) -> Result<SortedRender, SortError> {
    let chart = sorty();
    let rendered = BTreeMap::from([("sorty/templates/t.yaml".to_string(), text.to_string())]);
    sort_render(&chart, &rendered, &SortOptions::default())
}

#[test]
fn documents_helm_cannot_read_fail_the_sort_naming_the_template() {
    // Helm: `YAML parse error on e/templates/t.yaml: error unmarshaling JSON: ...` for each.
    for text in [
        "just text\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: x\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations: [a]\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    a: {b: c}\n",
        "apiVersion: v1\nkind: List\nitems:\n  - a: b\n  -- x\n",
    ] {
        match one_template(text) {
            Err(SortError::Yaml { path, .. }) => assert_eq!(path, "sorty/templates/t.yaml"),
            other => panic!("{text:?}: {other:?}"),
        }
    }
}

#[test]
fn scalars_read_as_helm_reads_them_into_its_head() {
    // Helm stored name "12" and weight 7 for unquoted numbers; `5.0` weighs 5 (see the
    // recorded hooks) and `1e6` is no integer to Helm's Atoi.
    let sorted = one_template(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 12\n  annotations:\n    helm.sh/hook: pre-install\n    helm.sh/hook-weight: 7\n",
    )
    .unwrap();
    assert_eq!(
        (sorted.hooks[0].name.as_str(), sorted.hooks[0].weight),
        ("12", 7)
    );
    let sorted = one_template(
        "kind: Job\nmetadata:\n  annotations:\n    helm.sh/hook: post-delete\n    helm.sh/hook-weight: 1e6\n",
    )
    .unwrap();
    assert_eq!(sorted.hooks[0].weight, 0);
    assert_eq!(
        go_number_text(&serde_json::Number::from_f64(1e6).unwrap()),
        "1e+06"
    );
    assert_eq!(
        go_number_text(&serde_json::Number::from_f64(-5.0).unwrap()),
        "-5"
    );
    assert_eq!(
        go_number_text(&serde_json::Number::from_f64(0.5).unwrap()),
        "0.5"
    );
    // Halfway between two shortest float32 candidates: Go's FormatFloat takes the even
    // digit (helm v4.2.3 renders `.Chart.AppVersion` of `appVersion: 186839.125`, read
    // by the same sigs.k8s.io/yaml, as 186839.12).
    assert_eq!(
        go_number_text(&serde_json::Number::from_f64(186_839.125).unwrap()),
        "186839.12"
    );
}

#[test]
fn a_document_without_kind_is_kept_by_the_sort_and_refused_when_built() {
    // Helm's client dry run stores it; building it for the API server fails.
    let sorted = one_template("apiVersion: v1\nmetadata:\n  name: nokind\n").unwrap();
    assert_eq!(
        sorted.manifest,
        "---\n# Source: sorty/templates/t.yaml\napiVersion: v1\nmetadata:\n  name: nokind\n\n"
    );
    let err = sorted.manifests[0].objects().unwrap_err();
    assert!(
        err.to_string().contains("Object 'Kind' is missing"),
        "{err}"
    );
}

#[test]
fn uninstall_deletes_in_helms_uninstall_order_and_keeps_what_the_policy_keeps() {
    let chart = sorty();
    let sorted = sort_render(&chart, &render(&chart, &json!({})), &SortOptions::default()).unwrap();
    let plan = uninstall_plan(&sorted.manifest).unwrap();
    let deleted: Vec<(&str, &str)> = plan
        .delete
        .iter()
        .map(|m| (m.kind.as_str(), m.name.as_str()))
        .collect();
    assert_eq!(
        deleted,
        [
            ("Service", "sub-svc"),
            ("Deployment", "dep"),
            ("ConfigMap", "glued"),
            ("Namespace", "ns-z"),
            // The comment-only document's `---` makes two of its `# Source:` line and
            // its comment when the stored manifest is split again, as in Helm.
            ("", ""),
            ("", ""),
            ("Aardvark", "a"),
            ("List", ""),
            ("Zebra", "z"),
        ]
    );
    assert_eq!(plan.kept_summary(), "[Secret] keep-me\n");
}

#[test]
fn uninstall_breaks_ties_in_the_text_order_of_helms_document_keys() {
    // Helm keys the documents `manifest-0`, `manifest-1`, ... and sorts the keys as
    // strings, so among equal kinds the 11th document goes before the 3rd.
    let mut manifest = String::new();
    for i in 0..12 {
        writeln!(
            manifest,
            "---\n# Source: c/templates/t.yaml\nkind: ConfigMap\nmetadata:\n  name: cm{i}"
        )
        .unwrap();
    }
    let plan = uninstall_plan(&manifest).unwrap();
    let names: Vec<&str> = plan.delete.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "cm0", "cm1", "cm10", "cm11", "cm2", "cm3", "cm4", "cm5", "cm6", "cm7", "cm8", "cm9"
        ]
    );
}

/// Expected pieces printed by Go: Helm's regexp `(?:^|\s*\n)---\s*` with its trims.
#[test]
fn helms_separator_rule() {
    assert_eq!(
        split_documents("\n\n---\na: 1\n---b: 2 \n  ---\n  c: 3\n---   \n\n---\n# x\n---"),
        ["a: 1", "b: 2 \n  ---\n  c: 3", "---\n# x"]
    );
    assert_eq!(split_documents("a: 1\n----\nb: 2\n"), ["a: 1", "-\nb: 2\n"]);
    assert_eq!(split_documents("  \n\t"), Vec::<&str>::new());
    assert_eq!(split_documents("a: 1 ---\n"), ["a: 1 ---\n"]);
    assert_eq!(
        split_documents("a\r\n---\r\nb\u{a0}\n---\n\u{a0}c"),
        ["a", "b\u{a0}", "c"]
    );
}

#[test]
fn kind_orders() {
    assert_eq!(KindOrder::Install.rank("Namespace"), Some(1));
    assert_eq!(KindOrder::Uninstall.rank("Namespace"), Some(36));
    assert_eq!(KindOrder::Uninstall.rank("Service"), Some(5));
    assert_eq!(KindOrder::Install.rank("Widget"), None);
    let mut kinds = ["Zebra", "Service", "Aardvark", "Namespace", "Service"];
    KindOrder::Uninstall.sort_by_kind(&mut kinds, |k| k);
    assert_eq!(
        kinds,
        ["Service", "Service", "Namespace", "Aardvark", "Zebra"]
    );
}

#[test]
fn a_crd_file_without_objects_is_refused_as_helm_refuses_it() {
    let err = stream_objects("# nothing\n", "crds/x.yaml").unwrap();
    assert!(err.is_empty());
    let err = stream_objects("--- not a separator\n", "crds/x.yaml").unwrap_err();
    assert!(
        err.to_string().contains("invalid Yaml document separator"),
        "{err}"
    );
}
