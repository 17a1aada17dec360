//! What the e2e tests need, as kubebuilder's test/utils: commands run from the project's
//! folder with their output captured, JSON read back from kubectl, and polling with a bound.
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

/// How often [`eventually`] checks again.
const POLL_INTERVAL: Duration = Duration::from_secs(1);

/// Print the step the test is at, as Ginkgo's `By`.
pub fn step(what: &str) {
    eprintln!("STEP: {what}");
}

/// Run `program` with `args` in the project's folder: its standard output, or an error
/// holding everything it printed.
pub fn run(program: &str, args: &[&str]) -> Result<String, String> {
    let shown = format!("{program} {}", args.join(" "));
    eprintln!("running: {shown}");
    let output = Command::new(program)
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")))
        .output()
        .map_err(|e| format!("`{shown}` could not start: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    if output.status.success() {
        return Ok(stdout);
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    Err(format!(
        "`{shown}` failed ({}):\n{stdout}{stderr}",
        output.status
    ))
}

/// The output of a command that must succeed: the test fails with its error otherwise.
pub fn ok<T>(result: Result<T, String>) -> T {
    result.unwrap_or_else(|error| panic!("{error}"))
}

/// The program the environment variable `variable` names, as the Makefile passes them
/// (`KIND`, `KUBECTL`), else `default`.
pub fn tool(variable: &str, default: &str) -> String {
    std::env::var(variable)
        .ok()
        .filter(|value| !value.is_empty())
        .unwrap_or_else(|| default.to_string())
}

/// `kubectl args`.
pub fn kubectl(args: &[&str]) -> Result<String, String> {
    run(&tool("KUBECTL", "kubectl"), args)
}

/// `kubectl args -o json`, parsed.
pub fn kubectl_json(args: &[&str]) -> Result<Value, String> {
    let mut args = args.to_vec();
    args.extend(["-o", "json"]);
    let text = kubectl(&args)?;
    serde_json::from_str(&text).map_err(|e| format!("kubectl printed no JSON ({e}):\n{text}"))
}

/// `make args`.
pub fn make(args: &[&str]) -> Result<String, String> {
    run(&tool("MAKE", "make"), args)
}

/// Call `check` every second until it returns `Ok`, and return that; fail the test with
/// `what` and the last error once `timeout` has passed.
pub fn eventually<T>(
    what: &str,
    timeout: Duration,
    mut check: impl FnMut() -> Result<T, String>,
) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        match check() {
            Ok(value) => return value,
            Err(last) if Instant::now() >= deadline => {
                panic!("{what}: not so after {}s; last: {last}", timeout.as_secs())
            }
            Err(_) => std::thread::sleep(POLL_INTERVAL),
        }
    }
}

/// The `status.conditions` of `object` whose status is `True`, by type.
pub fn true_conditions(object: &Value) -> Vec<&str> {
    let conditions = object["status"]["conditions"].as_array();
    conditions
        .into_iter()
        .flatten()
        .filter(|condition| condition["status"] == "True")
        .filter_map(|condition| condition["type"].as_str())
        .collect()
}
