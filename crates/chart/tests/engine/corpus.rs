//! Issue 7: every chart of the corpus (`shared/charts-corpus`, a sibling of the
//! repository) renders as the real Helm v4.2.3 engine renders it, with default values
//! and with every `enabled` switch on: byte for byte, random parts (passwords,
//! certificates, timestamps) by shape, and failures at the same template and line.
//!
//! Renders that cannot match yet are listed in `KNOWN_GAPS` with the reason; the test
//! fails when one of them starts to match, so that the list stays honest.

use crate::corpus_support::{ValueSet, Verdict, cases};

/// Chart, value set, reason. Keep in step with the fidelity example's report.
const KNOWN_GAPS: &[(&str, &str, &str)] = &[];

fn known_gap(chart: &str, set: ValueSet) -> Option<&'static str> {
    KNOWN_GAPS
        .iter()
        .find(|(c, s, _)| *c == chart && *s == set.name())
        .map(|(_, _, reason)| *reason)
}

#[rusty_sdk_test_tools::needs(charts_corpus)]
#[test]
fn corpus_renders_like_helm() {
    let corpus = std::path::PathBuf::from(rusty_sdk_test_tools::path!(charts_corpus));
    let cases = cases(&corpus);
    assert!(
        !cases.is_empty(),
        "no charts under {}",
        corpus.join("charts").display()
    );
    let mut problems = Vec::new();
    let mut passed = 0;
    for case in &cases {
        for set in ValueSet::ALL {
            let label = format!("{} ({})", case.chart, set.name());
            let verdict = match case.check(set) {
                Ok(verdict) => verdict,
                Err(e) => {
                    problems.push(format!("{label}: {e}"));
                    continue;
                }
            };
            match (verdict, known_gap(&case.chart, set)) {
                (Verdict::Identical, None) => passed += 1,
                (Verdict::Identical, Some(_)) => {
                    problems.push(format!("{label}: now matches Helm; remove from known gaps"));
                }
                (Verdict::Panicked(message), _) => {
                    problems.push(format!("{label}: engine panicked: {message}"));
                }
                (_, Some(_)) => {}
                (verdict, None) => problems.push(format!("{label}: {verdict:?}")),
            }
        }
    }
    eprintln!("corpus: {passed} of {} renders match Helm", cases.len() * 2);
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
