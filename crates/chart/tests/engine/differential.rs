//! Differential regression table: cases found by the live differential run against Helm's
//! own engine (`scripts/differential.sh`), each stored with Helm's result. Every case must
//! render byte for byte as Helm rendered it, or fail with Helm's message. Offline: the
//! table is `testdata/differential/regression.json`; see `testdata/differential/README.md`.
//!
//! `cargo test -p rusty-sdk-chart --test differential`
use std::fmt::Write;

use serde_json::Value;

const TABLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/differential/regression.json"
);

/// One line per difference: the first line at which the two texts part, with context.
fn describe(helm: &str, ours: &str) -> String {
    let (h, o): (Vec<&str>, Vec<&str>) = (helm.split('\n').collect(), ours.split('\n').collect());
    let at = h.iter().zip(&o).take_while(|(a, b)| a == b).count();
    format!(
        "first difference at line {}:\n      helm: {:?}\n      ours: {:?}",
        at + 1,
        h.get(at).copied().unwrap_or("<end of text>"),
        o.get(at).copied().unwrap_or("<end of text>")
    )
}

/// A readable account of how `ours` differs from `helm` (both in the `{"output"}` /
/// `{"error"}` shape), or None when they are equal.
fn compare(helm: &Value, ours: &Value) -> Option<String> {
    let (helm, ours) = (&without_addresses(helm), &without_addresses(ours));
    if helm == ours {
        return None;
    }
    let mut out = String::new();
    if let (Some(Value::Object(h)), Some(Value::Object(o))) =
        (helm.get("output"), ours.get("output"))
    {
        for path in h.keys().chain(o.keys().filter(|k| !h.contains_key(*k))) {
            match (h.get(path), o.get(path)) {
                (Some(a), Some(b)) if a == b => {}
                (Some(Value::String(a)), Some(Value::String(b))) => {
                    let _ = writeln!(out, "    {path}: {}", describe(a, b));
                }
                (a, b) => {
                    let _ = writeln!(out, "    {path}: helm {a:?}, ours {b:?}");
                }
            }
        }
    } else {
        let text = |v: &Value| match (v.get("output"), v.get("error")) {
            (Some(o), _) => format!("output {o}"),
            (_, Some(Value::String(e))) => format!("error {e:?}"),
            _ => v.to_string(),
        };
        let _ = writeln!(out, "    helm: {}\n    ours: {}", text(helm), text(ours));
    }
    Some(out)
}

/// The result with memory addresses (Go prints a pointer inside a map as one) replaced
/// by a placeholder: they differ from run to run in Helm too.
fn without_addresses(v: &Value) -> Value {
    static ADDRESS: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let address = ADDRESS.get_or_init(|| regex::Regex::new(r"0x[0-9a-f]{9,12}\b").unwrap());
    match v {
        Value::String(s) => Value::String(address.replace_all(s, "0xADDRESS").into_owned()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), without_addresses(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[test]
fn every_case_renders_as_helm_does() {
    let table: Value = serde_json::from_str(&std::fs::read_to_string(TABLE).expect("read table"))
        .expect("table is JSON");
    let base = table["base"].as_object().cloned().unwrap_or_default();
    let cases = table["cases"].as_array().expect("table has cases");
    assert!(!cases.is_empty(), "the regression table has no cases");
    std::panic::set_hook(Box::new(|_| {}));
    let mut failures = Vec::new();
    let mut report = String::new();
    for case in cases {
        let ours = crate::differential_support::render_case(&base, case);
        if let Some(diff) = compare(&case["helm"], &ours) {
            let id = case["id"].as_str().unwrap_or("?").to_string();
            let _ = writeln!(report, "--- {id}\n{diff}");
            failures.push(id);
        }
    }
    let _ = std::panic::take_hook();
    let known = known_differences();
    let unexpected: Vec<&String> = failures
        .iter()
        .filter(|id| !known.contains(id.as_str()))
        .collect();
    let fixed: Vec<&str> = known
        .iter()
        .copied()
        .filter(|id| !failures.iter().any(|f| f == id))
        .collect();
    eprintln!(
        "differential: {} of {} cases match Helm; {} listed as known differences",
        cases.len() - failures.len(),
        cases.len(),
        known.len()
    );
    assert!(
        unexpected.is_empty() && fixed.is_empty(),
        "{} case(s) differ from Helm and are not listed in {KNOWN}:\n{report}\nunlisted: {unexpected:?}\n\
         listed but now matching (remove them from {KNOWN}): {fixed:?}",
        unexpected.len()
    );
}

/// Cases known to differ still, with their causes, in testdata (goal: none).
const KNOWN: &str = "testdata/differential/known-differences.txt";

fn known_differences() -> std::collections::BTreeSet<&'static str> {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(KNOWN);
        std::fs::read_to_string(path).unwrap_or_default()
    })
    .lines()
    .map(str::trim)
    .filter(|l| !l.is_empty() && !l.starts_with('#'))
    .collect()
}
