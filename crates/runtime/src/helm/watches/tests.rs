use std::io::Write;

use super::*;

/// A temp dir with a chart directory `memcached/` and a packaged `redis-1.0.0.tgz`.
struct Charts {
    dir: tempfile::TempDir,
}

impl Charts {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let chart = dir.path().join("memcached");
        std::fs::create_dir(&chart).unwrap();
        std::fs::write(
            chart.join("Chart.yaml"),
            "apiVersion: v2\nname: memcached\n",
        )
        .unwrap();
        std::fs::create_dir(dir.path().join("empty")).unwrap();
        write_tgz(&dir.path().join("redis-1.0.0.tgz"), "redis/Chart.yaml");
        write_tgz(&dir.path().join("bad.tgz"), "redis/values.yaml");
        std::fs::write(dir.path().join("notes.txt"), "not an archive").unwrap();
        Charts { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }
}

fn write_tgz(path: &Path, member: &str) {
    let file = File::create(path).unwrap();
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(
        file,
        flate2::Compression::default(),
    ));
    let body = b"name: redis\n";
    let mut header = tar::Header::new_gnu();
    header.set_size(body.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    builder.append_data(&mut header, member, &body[..]).unwrap();
    builder
        .into_inner()
        .unwrap()
        .finish()
        .unwrap()
        .flush()
        .unwrap();
}

use std::fs::File;

fn env(name: &str) -> Option<String> {
    match name {
        "MEMCACHED_IMAGE" => Some("quay.io/memcached".into()),
        "TAG" => Some("1.6.29".into()),
        _ => None,
    }
}

fn parse(text: &str) -> Result<Vec<Watch>, WatchesError> {
    parse_watches(Path::new("watches.yaml"), text, env)
}

fn entry_error(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn minimal_entry_gets_operator_sdk_defaults() {
    let charts = Charts::new();
    let text = format!(
        "- group: cache.example.com\n  version: v1alpha1\n  kind: Memcached\n  chart: {}\n",
        charts.path("memcached")
    );
    let watches = parse(&text).unwrap();
    assert_eq!(
        watches,
        vec![Watch {
            group: "cache.example.com".into(),
            version: "v1alpha1".into(),
            kind: "Memcached".into(),
            chart: PathBuf::from(charts.path("memcached")),
            watch_dependent_resources: true,
            override_values: BTreeMap::new(),
            reconcile_period: None,
            max_concurrent_reconciles: None,
            selector: LabelSelector::default(),
            dry_run_option: DryRun::Client,
        }]
    );
    assert_eq!(
        watches[0].gvk(),
        GroupVersionKind::gvk("cache.example.com", "v1alpha1", "Memcached")
    );
}

#[test]
fn every_field_is_read() {
    let charts = Charts::new();
    let text = format!(
        r#"
# comment lines are fine
- version: v1
  kind: Redis
  chart: {}
  watchDependentResources: false
  overrideValues:
    image.repository: $MEMCACHED_IMAGE
    image.tag: "${{TAG}}-alpine"
    missing: "x$NOPE"
  reconcilePeriod: 1m30s
  maxConcurrentReconciles: 4
  dryRunOption: server
  selector:
    matchLabels:
      tier: cache
    matchExpressions:
      - {{key: env, operator: In, values: [prod, staging]}}
      - {{key: canary, operator: NotIn, values: ["true"]}}
      - {{key: team, operator: Exists}}
      - {{key: legacy, operator: DoesNotExist}}
"#,
        charts.path("redis-1.0.0.tgz")
    );
    let watch = parse(&text).unwrap().remove(0);
    assert_eq!(watch.group, "");
    assert_eq!(watch.gvk(), GroupVersionKind::gvk("", "v1", "Redis"));
    assert!(!watch.watch_dependent_resources);
    assert_eq!(
        watch.override_values,
        BTreeMap::from([
            (
                "image.repository".to_string(),
                "quay.io/memcached".to_string()
            ),
            ("image.tag".to_string(), "1.6.29-alpine".to_string()),
            ("missing".to_string(), "x".to_string()),
        ])
    );
    assert_eq!(watch.reconcile_period, Some(Duration::from_secs(90)));
    assert_eq!(watch.max_concurrent_reconciles, Some(4));
    assert_eq!(watch.dry_run_option, DryRun::Server);
    let requirement =
        |key: &str, operator: &str, values: Option<Vec<&str>>| LabelSelectorRequirement {
            key: key.into(),
            operator: operator.into(),
            values: values.map(|v| v.into_iter().map(String::from).collect()),
        };
    assert_eq!(
        watch.selector,
        LabelSelector {
            match_labels: Some(BTreeMap::from([("tier".into(), "cache".into())])),
            match_expressions: Some(vec![
                requirement("env", "In", Some(vec!["prod", "staging"])),
                requirement("canary", "NotIn", Some(vec!["true"])),
                requirement("team", "Exists", None),
                requirement("legacy", "DoesNotExist", None),
            ]),
        }
    );
}

#[test]
fn durations_in_go_syntax() {
    let charts = Charts::new();
    for (text, want) in [
        ("500ms", Duration::from_millis(500)),
        ("2h", Duration::from_secs(7200)),
        ("0s", Duration::ZERO),
    ] {
        let yaml = format!(
            "- version: v1\n  kind: A\n  chart: {}\n  reconcilePeriod: {text}\n",
            charts.path("memcached")
        );
        assert_eq!(parse(&yaml).unwrap()[0].reconcile_period, Some(want));
    }
}

#[test]
fn empty_or_comment_only_file_has_no_watches() {
    assert!(parse("").unwrap().is_empty());
    assert!(
        parse("# Use the 'create api' subcommand to add watches to this file.\n")
            .unwrap()
            .is_empty()
    );
}

#[test]
fn missing_version_or_kind_names_the_entry() {
    let charts = Charts::new();
    let chart = charts.path("memcached");
    let good = format!("- version: v1\n  kind: Good\n  chart: {chart}\n");
    assert_eq!(
        entry_error(&format!(
            "{good}- group: g.io\n  kind: Foo\n  chart: {chart}\n"
        )),
        "watches file watches.yaml, entry #2 (g.io/, Kind=Foo): version must not be empty"
    );
    assert_eq!(
        entry_error(&format!("- group: g.io\n  version: v2\n  chart: {chart}\n")),
        "watches file watches.yaml, entry #1 (g.io/v2, Kind=): kind must not be empty"
    );
    assert_eq!(
        entry_error("- version: v2\n  kind: Foo\n"),
        "watches file watches.yaml, entry #1 (/v2, Kind=Foo): chart must not be empty; \
         give the path of a chart directory or .tgz"
    );
}

#[test]
fn unknown_field_is_rejected() {
    let charts = Charts::new();
    let message = entry_error(&format!(
        "- version: v1\n  kind: Foo\n  chart: {}\n  reconcilePeriodd: 1m\n",
        charts.path("memcached")
    ));
    assert!(
        message.starts_with(
            "watches file watches.yaml, entry #1 (/v1, Kind=Foo): unknown field `reconcilePeriodd`"
        ),
        "{message}"
    );
    let message = entry_error(&format!(
        "- version: v1\n  kind: Foo\n  chart: {}\n  selector:\n    matchLabel: {{a: b}}\n",
        charts.path("memcached")
    ));
    assert!(message.contains("unknown field `matchLabel`"), "{message}");
}

#[test]
fn wrong_types_are_rejected() {
    let charts = Charts::new();
    let message = entry_error(&format!(
        "- version: v1\n  kind: Foo\n  chart: {}\n  maxConcurrentReconciles: many\n",
        charts.path("memcached")
    ));
    assert!(
        message.contains("entry #1 (/v1, Kind=Foo): invalid type"),
        "{message}"
    );
    let message = entry_error(&format!(
        "- version: v1\n  kind: Foo\n  chart: {}\n  maxConcurrentReconciles: 0\n",
        charts.path("memcached")
    ));
    assert!(
        message.ends_with("maxConcurrentReconciles must be at least 1, got 0"),
        "{message}"
    );
}

#[test]
fn bad_duration_says_what_to_write() {
    let charts = Charts::new();
    let message = entry_error(&format!(
        "- version: v1\n  kind: Foo\n  chart: {}\n  reconcilePeriod: 5 minutes\n",
        charts.path("memcached")
    ));
    assert_eq!(
        message,
        "watches file watches.yaml, entry #1 (/v1, Kind=Foo): invalid reconcilePeriod \"5 minutes\": \
         unknown unit \" minutes\" (use ns, us, ms, s, m or h); use a Go duration such as 30s, 1m30s or 2h"
    );
}

#[test]
fn chart_problems_are_reported() {
    let charts = Charts::new();
    let cases = [
        (
            "nope",
            "not found (paths are relative to the working directory)",
        ),
        ("empty", "directory has no Chart.yaml"),
        ("bad.tgz", "archive has no <chart>/Chart.yaml"),
        ("notes.txt", "cannot read chart archive"),
    ];
    for (name, want) in cases {
        let path = charts.path(name);
        let message = entry_error(&format!("- version: v1\n  kind: Foo\n  chart: {path}\n"));
        let prefix = format!(
            "watches file watches.yaml, entry #1 (/v1, Kind=Foo): invalid chart {path}: {want}"
        );
        assert!(message.starts_with(&prefix), "{message}");
    }
}

#[test]
fn duplicate_gvk_names_both_entries() {
    let charts = Charts::new();
    let chart = charts.path("memcached");
    let entry =
        format!("- group: cache.example.com\n  version: v1\n  kind: Memcached\n  chart: {chart}\n");
    let other =
        format!("- group: cache.example.com\n  version: v2\n  kind: Memcached\n  chart: {chart}\n");
    assert_eq!(
        entry_error(&format!("{entry}{other}{entry}")),
        "watches file watches.yaml, entry #3 (cache.example.com/v1, Kind=Memcached): \
         duplicate GVK: already declared by entry #1"
    );
}

#[test]
fn bad_selectors_are_rejected() {
    let charts = Charts::new();
    let chart = charts.path("memcached");
    let cases = [
        (
            "{key: a, operator: Equals, values: [b]}",
            "unknown operator \"Equals\" on key \"a\"; use In, NotIn, Exists or DoesNotExist",
        ),
        (
            "{key: a, operator: In}",
            "operator In on key \"a\" needs a non-empty values list",
        ),
        (
            "{key: a, operator: NotIn, values: []}",
            "operator NotIn on key \"a\" needs a non-empty values list",
        ),
        (
            "{key: a, operator: Exists, values: [b]}",
            "operator Exists on key \"a\" must not have values",
        ),
    ];
    for (expression, want) in cases {
        let message = entry_error(&format!(
            "- version: v1\n  kind: Foo\n  chart: {chart}\n  selector:\n    matchExpressions: [{expression}]\n"
        ));
        assert_eq!(
            message,
            format!(
                "watches file watches.yaml, entry #1 (/v1, Kind=Foo): invalid selector: {want}"
            )
        );
    }
}

#[test]
fn syntax_errors_and_non_lists_are_reported() {
    let message = entry_error("- version: v1\n  kind: [unclosed\n");
    assert!(
        message.starts_with("watches file watches.yaml is not a YAML list of watches"),
        "{message}"
    );
    let message = entry_error("version: v1\n");
    assert!(
        message.starts_with("watches file watches.yaml is not a YAML list of watches"),
        "{message}"
    );
}

#[test]
fn load_watches_reads_the_file_and_reports_missing_files() {
    let charts = Charts::new();
    let file = charts.dir.path().join("watches.yaml");
    std::fs::write(
        &file,
        format!(
            "- version: v1\n  kind: Foo\n  chart: {}\n",
            charts.path("memcached")
        ),
    )
    .unwrap();
    assert_eq!(load_watches(&file).unwrap()[0].kind, "Foo");
    let missing = charts.dir.path().join("nope.yaml");
    let message = load_watches(&missing).unwrap_err().to_string();
    assert!(
        message.starts_with(&format!("cannot read watches file {}", missing.display())),
        "{message}"
    );
}

#[test]
fn dry_run_option_follows_operator_sdk() {
    let charts = Charts::new();
    for (value, expected) in [
        ("client", DryRun::Client),
        ("none", DryRun::Client),
        ("server", DryRun::Server),
    ] {
        let text = format!(
            "- version: v1\n  kind: A\n  chart: {}\n  dryRunOption: {value}\n",
            charts.path("redis-1.0.0.tgz")
        );
        assert_eq!(parse(&text).unwrap()[0].dry_run_option, expected, "{value}");
    }
    let text = format!(
        "- version: v1\n  kind: A\n  chart: {}\n  dryRunOption: always\n",
        charts.path("redis-1.0.0.tgz")
    );
    let message = parse(&text).unwrap_err().to_string();
    assert!(
        message.ends_with("invalid dryRunOption \"always\"; use client, none or server"),
        "{message}"
    );
}

/// helm-operator-plugins runs each override, after `$VAR` expansion, as a Go template with
/// sprig's functions (env and expandenv included) over nil data.
#[cfg(feature = "chart-engine")]
#[test]
fn override_values_are_go_templates_after_env_expansion() {
    let charts = Charts::new();
    let watches = parse(&format!(
        r#"- group: cache.example.com
  version: v1
  kind: Memcached
  chart: {}
  overrideValues:
    image.tag: '{{{{ env "TAG" | default "latest" }}}}'
    image.pullPolicy: '{{{{ env "PULL_POLICY" | default "IfNotPresent" }}}}'
    image.repository: '{{{{ "$MEMCACHED_IMAGE" | trimPrefix "quay.io/" }}}}'
    fullName: '{{{{ expandenv "mc-$TAG" | replace "." "-" }}}}'
    plain: $TAG
"#,
        charts.path("memcached")
    ))
    .unwrap();
    let values = &watches[0].override_values;
    assert_eq!(values["image.tag"], "1.6.29");
    assert_eq!(values["image.pullPolicy"], "IfNotPresent");
    assert_eq!(values["image.repository"], "memcached");
    assert_eq!(values["fullName"], "mc-1-6-29");
    assert_eq!(values["plain"], "1.6.29");
}

#[cfg(feature = "chart-engine")]
#[test]
fn a_bad_override_template_names_the_key_and_go_error() {
    let charts = Charts::new();
    let message = entry_error(&format!(
        "- group: cache.example.com\n  version: v1\n  kind: Memcached\n  chart: {}\n  overrideValues:\n    image.tag: '{{{{ nope }}}}'\n",
        charts.path("memcached")
    ));
    assert!(
        message.contains(
            r#"overrideValues "image.tag": template: image.tag:1: function "nope" not defined"#
        ),
        "{message}"
    );
}

#[cfg(not(feature = "chart-engine"))]
#[test]
fn override_templates_without_the_chart_engine_say_which_feature() {
    let charts = Charts::new();
    let message = entry_error(&format!(
        "- group: cache.example.com\n  version: v1\n  kind: Memcached\n  chart: {}\n  overrideValues:\n    image.tag: '{{{{ env \"TAG\" }}}}'\n",
        charts.path("memcached")
    ));
    assert!(message.contains("`chart-engine` feature"), "{message}");
}
