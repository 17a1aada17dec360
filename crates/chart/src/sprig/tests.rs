//! End-to-end checks: templates rendered through gotmpl with these functions, with
//! the output Go's sprig (through Helm v4.2.3's engine) gives for the same template.
use gotmpl::{Template, Value};

use super::funcs;

pub(crate) fn render(src: &str, data: &Value) -> Result<String, String> {
    Template::new("t")
        .funcs(funcs())
        .parse(src)
        .map_err(|e| e.to_string())?
        .execute_to_string(data)
        .map_err(|e| e.to_string())
}

pub(crate) fn r(src: &str) -> String {
    render(src, &values()).unwrap_or_else(|e| panic!("{src}: {e}"))
}

/// Values as Helm hands them to templates: numbers are float64.
pub(crate) fn values() -> Value {
    super::json::decode(
        r#"{"n": 3, "big": 1000000, "f": 1.5, "s": "hello", "list": ["a", "b", "a"],
            "map": {"x": 1, "y": {"z": "deep"}}, "empty": "", "nil": null, "t": true}"#,
    )
    .unwrap_or(Value::Nil)
}

#[test]
fn function_set_is_helms() {
    let f = funcs();
    for name in ["env", "expandenv"] {
        assert!(!f.contains_key(name), "{name} must not be offered");
    }
    assert!(f.len() >= 200, "only {} functions", f.len());
}

/// Template data for the oracle cases: the values plus Helm's default Capabilities.
fn oracle_data(values: &serde_json::Value) -> Value {
    let data = serde_json::json!({
        "Values": values,
        "Capabilities": {"KubeVersion": {"GitVersion": "v1.36.0", "Version": "v1.36.0"}},
    });
    super::json::decode(&data.to_string()).unwrap_or(Value::Nil)
}

#[test]
fn matches_helm_on_oracle_cases() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let read = |name: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let (spec, expected) = (read("sprig-cases.json"), read("sprig-expected.json"));
    let data = oracle_data(&spec["values"]);
    let mut failures = Vec::new();
    for (name, template) in spec["cases"].as_object().unwrap() {
        let ours = render(template.as_str().unwrap(), &data);
        match (&expected[name], ours) {
            (serde_json::Value::String(want), Ok(got)) if *want == got => {}
            (serde_json::Value::Object(e), Err(_)) if e.contains_key("error") => {}
            (want, got) => failures.push(format!("{name}:\n  helm: {want}\n  ours: {got:?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
