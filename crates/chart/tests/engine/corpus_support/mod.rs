//! Rendering the chart corpus (`shared/charts-corpus`, next to the repository) and
//! comparing with the output of the real Helm engine stored there. Shared by the corpus
//! test and the `fidelity` and `bench_corpus` examples.
#![allow(dead_code)]

mod shape;

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use rusty_sdk_chart::{Chart, RenderOptions};

pub use shape::same_shape;

/// The corpus folder, or `None` when this checkout has no `shared/` sibling (as found
/// when this program was built, by crates/test-tools). `CHART_CORPUS` names another
/// corpus of the same layout (charts/, expected/), for trying the engine on charts
/// outside the shared one (scripts/chart-fidelity.sh).
pub fn corpus_dir() -> Option<PathBuf> {
    std::env::var_os("CHART_CORPUS")
        .map(PathBuf::from)
        .or_else(|| rusty_sdk_test_tools::found!(charts_corpus).map(PathBuf::from))
}

/// The two value sets every chart is rendered with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueSet {
    Defaults,
    Switches,
}

impl ValueSet {
    pub const ALL: [ValueSet; 2] = [ValueSet::Defaults, ValueSet::Switches];

    pub fn name(self) -> &'static str {
        match self {
            ValueSet::Defaults => "defaults",
            ValueSet::Switches => "switches",
        }
    }

    /// The expected-output file of this value set.
    pub fn expected_file(self) -> &'static str {
        match self {
            ValueSet::Defaults => "defaults.json",
            ValueSet::Switches => "switches.json",
        }
    }
}

/// One chart of the corpus with what Helm made of it.
pub struct Case {
    pub chart: String,
    pub chart_dir: PathBuf,
    pub expected_dir: PathBuf,
}

impl Case {
    /// The user values of a value set: `{}` or the stored switches overlay.
    pub fn values(&self, set: ValueSet) -> Result<serde_json::Value, String> {
        match set {
            ValueSet::Defaults => Ok(serde_json::json!({})),
            ValueSet::Switches => read_json(&self.expected_dir.join("switches-values.json")),
        }
    }

    /// Helm's result: the rendered files or `{"error": ...}`.
    pub fn expected(&self, set: ValueSet) -> Result<serde_json::Value, String> {
        read_json(&self.expected_dir.join(set.expected_file()))
    }

    /// Render with the value set's values and compare with Helm's result; `Err` when
    /// the stored inputs cannot be read.
    pub fn check(&self, set: ValueSet) -> Result<Verdict, String> {
        let values = self.values(set)?;
        let expected = self.expected(set)?;
        let nondeterministic = self.nondeterministic(set)?;
        Ok(compare(
            &expected,
            &nondeterministic,
            &render(&self.chart_dir, &values),
        ))
    }

    /// The files of this render whose text Helm did not reproduce between runs.
    pub fn nondeterministic(&self, set: ValueSet) -> Result<Vec<String>, String> {
        let all = read_json(&self.expected_dir.join("nondeterministic.json"))?;
        Ok(all[set.expected_file()]
            .as_array()
            .map(|paths| {
                paths
                    .iter()
                    .filter_map(|p| p.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default())
    }
}

fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))
}

/// Every chart of the corpus, by name.
pub fn cases(corpus: &Path) -> Vec<Case> {
    let mut names: Vec<String> = std::fs::read_dir(corpus.join("charts"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
        .into_iter()
        .map(|chart| Case {
            chart_dir: corpus.join("charts").join(&chart),
            expected_dir: corpus.join("expected").join(&chart),
            chart,
        })
        .collect()
}

/// What our engine did with one chart and value set.
pub enum Outcome {
    Rendered(BTreeMap<String, String>),
    Failed(String),
    Panicked(String),
}

/// Load the chart afresh and render it, turning a panic into [`Outcome::Panicked`].
pub fn render(chart_dir: &Path, values: &serde_json::Value) -> Outcome {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let chart = Chart::load(chart_dir).map_err(|e| e.to_string())?;
        rusty_sdk_chart::render(&chart, values, &RenderOptions::default())
            .map_err(|e| e.to_string())
    }));
    match result {
        Ok(Ok(files)) => Outcome::Rendered(files),
        Ok(Err(message)) => Outcome::Failed(message),
        Err(payload) => Outcome::Panicked(
            payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(ToString::to_string))
                .unwrap_or_else(|| "non-string panic".into()),
        ),
    }
}

/// How our render compares with Helm's.
#[derive(Debug)]
pub enum Verdict {
    /// Every file matches (byte for byte, or by shape where Helm's text is random),
    /// or both failed at the same template and line.
    Identical,
    /// Our files differ from Helm's.
    Differs(String),
    /// One side failed and the other did not, or both failed at different places.
    ErrorMismatch(String),
    /// Our engine panicked.
    Panicked(String),
}

impl Verdict {
    pub fn passed(&self) -> bool {
        matches!(self, Verdict::Identical)
    }
}

/// Compare our outcome with Helm's stored result.
pub fn compare(
    expected: &serde_json::Value,
    nondeterministic: &[String],
    ours: &Outcome,
) -> Verdict {
    if let Some(helm_error) = expected.get("error").and_then(|e| e.as_str()) {
        return match ours {
            Outcome::Panicked(p) => Verdict::Panicked(p.clone()),
            Outcome::Rendered(_) => Verdict::ErrorMismatch(format!(
                "Helm fails ({}) but we render",
                first_line(helm_error)
            )),
            Outcome::Failed(message) => compare_errors(helm_error, message),
        };
    }
    let files = match ours {
        Outcome::Panicked(p) => return Verdict::Panicked(p.clone()),
        Outcome::Failed(message) => {
            return Verdict::ErrorMismatch(format!(
                "Helm renders but we fail: {}",
                first_line(message)
            ));
        }
        Outcome::Rendered(files) => files,
    };
    let Some(helm_files) = expected.as_object() else {
        return Verdict::Differs("expected output is not a JSON object".into());
    };
    for name in helm_files.keys() {
        if !files.contains_key(name) {
            return Verdict::Differs(format!("{name}: Helm renders it, we do not"));
        }
    }
    for name in files.keys() {
        if !helm_files.contains_key(name) {
            return Verdict::Differs(format!("{name}: we render it, Helm does not"));
        }
    }
    for (name, helm_text) in helm_files {
        let helm_text = helm_text.as_str().unwrap_or_default();
        let our_text = &files[name];
        let result = if nondeterministic.iter().any(|n| n == name) {
            same_shape(helm_text, our_text)
        } else {
            first_difference(helm_text, our_text)
        };
        if let Err(diff) = result {
            return Verdict::Differs(format!("{name}: {diff}"));
        }
    }
    Verdict::Identical
}

fn first_line(text: &str) -> &str {
    text.lines().find(|l| !l.trim().is_empty()).unwrap_or(text)
}

/// `Err` with the first differing line (1-based) of two texts.
pub fn first_difference(helm: &str, ours: &str) -> Result<(), String> {
    if helm == ours {
        return Ok(());
    }
    let (h, o): (Vec<&str>, Vec<&str>) = (helm.split('\n').collect(), ours.split('\n').collect());
    for i in 0..h.len().max(o.len()) {
        let (a, b) = (h.get(i), o.get(i));
        if a != b {
            return Err(format!(
                "line {}: helm {:?}, ours {:?}",
                i + 1,
                a.copied().unwrap_or("<end of file>"),
                b.copied().unwrap_or("<end of file>")
            ));
        }
    }
    Err("texts differ".into())
}

/// Where a Helm error points: `<chart path>/…:<line>` of the first template it names.
pub fn error_location(message: &str) -> Option<String> {
    let re =
        regex::Regex::new(r"([\w.-]+(?:/[\w.-]+)*/(?:templates|charts)/[\w./-]+?):(\d+)").ok()?;
    let caps = re.captures(message)?;
    Some(format!("{}:{}", &caps[1], &caps[2]))
}

/// Both sides failed: the same failure by the corpus's rules (README: the same schema
/// error for the same chart, the same first line, or the same template and line).
pub fn compare_errors(helm: &str, ours: &str) -> Verdict {
    const SCHEMA: &str = "values don't meet the specifications of the schema";
    if helm.contains(SCHEMA) {
        let chart = helm
            .lines()
            .nth(1)
            .unwrap_or_default()
            .trim_end_matches(':');
        return if ours.contains(SCHEMA) && ours.contains(chart) {
            Verdict::Identical
        } else {
            Verdict::ErrorMismatch(format!(
                "Helm: schema error for {chart}; ours: {}",
                first_line(ours)
            ))
        };
    }
    if first_line(helm) == first_line(ours) {
        return Verdict::Identical;
    }
    match error_location(helm) {
        Some(at) if ours.contains(&at) => Verdict::Identical,
        Some(at) => {
            Verdict::ErrorMismatch(format!("Helm fails at {at}; ours: {}", first_line(ours)))
        }
        None => Verdict::ErrorMismatch(format!(
            "Helm: {}; ours: {}",
            first_line(helm),
            first_line(ours)
        )),
    }
}
