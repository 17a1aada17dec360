//! Time the key and certificate functions in our engine and in Helm's, in one run:
//! for each function, a chart whose one template calls it N times is rendered, and an
//! empty render of the same chart is subtracted; the figure is the cost per call.
//! Helm's side runs through helm-python-sdk (Helm v4's engine as a library); without
//! it the Helm column says so.
//!
//! `cargo run --release -p rusty-sdk-chart --example bench_crypto -- [N]` (N = 20);
//! `HELM_PYTHON` names the Python that has helm-python-sdk (default `python3`).
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use rusty_sdk_chart::{Chart, RenderOptions, render};

const CASES: [(&str, &str); 8] = [
    ("genPrivateKey rsa", r#"{{ genPrivateKey "rsa" | len }}"#),
    (
        "genPrivateKey ecdsa",
        r#"{{ genPrivateKey "ecdsa" | len }}"#,
    ),
    (
        "genPrivateKey ed25519",
        r#"{{ genPrivateKey "ed25519" | len }}"#,
    ),
    ("genCA", r#"{{ (genCA "ca" 365).Cert | len }}"#),
    (
        "genSelfSignedCert",
        r#"{{ (genSelfSignedCert "svc" (list "10.0.0.1") (list "svc.local") 365).Cert | len }}"#,
    ),
    (
        "genSignedCert",
        r#"{{ (genSignedCert "svc" nil (list "svc.local") 365 $.ca).Cert | len }}"#,
    ),
    ("htpasswd", r#"{{ htpasswd "user" "secret" | len }}"#),
    ("bcrypt", r#"{{ bcrypt "secret" | len }}"#),
];

/// A chart whose template calls the case N times (the CA for genSignedCert is made
/// once, outside the loop, and subtracted with the baseline).
fn write_chart(dir: &Path, body: &str, n: u32) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("templates"))?;
    std::fs::write(
        dir.join("Chart.yaml"),
        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
    )?;
    std::fs::write(dir.join("values.yaml"), "{}\n")?;
    let setup = if body.contains("$.ca") {
        r#"{{ $_ := set $ "ca" (genCA "ca" 365) }}"#
    } else {
        ""
    };
    let text = format!("{setup}{{{{ range until {n} }}}}{body}\n{{{{ end }}}}");
    std::fs::write(dir.join("templates/t.txt"), text)
}

/// Seconds per render of the chart in `dir` with our engine (median of `reps`).
fn ours(dir: &Path, reps: usize) -> Result<f64, Box<dyn std::error::Error>> {
    let mut times = Vec::new();
    for _ in 0..reps {
        let chart = Chart::load(dir)?;
        let start = Instant::now();
        render(&chart, &serde_json::json!({}), &RenderOptions::default())?;
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

/// The same with Helm's engine through helm-python-sdk, or None without it.
fn helm(dir: &Path, reps: usize) -> Option<f64> {
    let script = r#"
import sys, time, statistics
from helm_python import Chart
d, reps = sys.argv[1], int(sys.argv[2])
ts = []
for _ in range(reps):
    with Chart.load(d) as ch:
        t = time.perf_counter(); ch.render({}, name="release-name", namespace="default"); ts.append(time.perf_counter() - t)
print(statistics.median(ts))
"#;
    let python = std::env::var("HELM_PYTHON").unwrap_or_else(|_| "python3".into());
    let out = Command::new(python)
        .args(["-c", script])
        .arg(dir)
        .arg(reps.to_string())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20)
        .max(1);
    let root = std::env::temp_dir().join(format!("bench-crypto-{}", std::process::id()));
    let base = root.join("baseline");
    let reps = 3;
    println!("cost per call, {n} calls per render, median of {reps} renders minus an empty render");
    println!(
        "{:<24}{:>12}{:>12}{:>9}",
        "function", "ours ms", "helm ms", "helm/ours"
    );
    for (name, body) in CASES {
        let dir = root.join(name.replace(' ', "-"));
        write_chart(&dir, body, n)?;
        let setup_only = if body.contains("$.ca") { body } else { "" };
        write_chart(&base, setup_only, 0)?;
        let per = |full: f64, empty: f64| (full - empty).max(0.0) * 1000.0 / f64::from(n);
        let mine = per(ours(&dir, reps)?, ours(&base, reps)?);
        let theirs = helm(&dir, reps)
            .zip(helm(&base, reps))
            .map(|(f, e)| per(f, e));
        match theirs {
            Some(h) => println!("{name:<24}{mine:>12.3}{h:>12.3}{:>9.2}", h / mine),
            None => println!("{name:<24}{mine:>12.3}{:>12}{:>9}", "n/a", "-"),
        }
    }
    std::fs::remove_dir_all(&root)?;
    Ok(())
}
