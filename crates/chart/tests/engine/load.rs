//! Loading charts: directories, .tgz archives, and errors that name what is wrong.

use crate::common;
use std::path::Path;

use rusty_sdk_chart::{Chart, ChartError, RenderError, RenderOptions, render};

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

fn tgz(files: &[(&str, &str)]) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut builder = tar::Builder::new(gz);
    for (name, text) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder
            .append_data(&mut header, name, text.as_bytes())
            .unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap()
}

const CHART_YAML: &str = "apiVersion: v2\nname: packed\nversion: 1.0.0\n";

#[test]
fn loads_a_tgz_with_a_packed_subchart() {
    let sub = tgz(&[
        (
            "inner/Chart.yaml",
            "apiVersion: v2\nname: inner\nversion: 0.1.0\n",
        ),
        ("inner/values.yaml", "word: from-inner\n"),
        ("inner/templates/cm.yaml", "word: {{ .Values.word }}\n"),
    ]);
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut builder = tar::Builder::new(gz);
    for (name, data) in [
        ("packed/Chart.yaml", CHART_YAML.as_bytes()),
        ("packed/values.yaml", b"replicas: 3\n".as_slice()),
        (
            "packed/templates/cm.yaml",
            b"replicas: {{ .Values.replicas }}\n".as_slice(),
        ),
        ("packed/charts/inner-0.1.0.tgz", sub.as_slice()),
    ] {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append_data(&mut header, name, data).unwrap();
    }
    let bytes = builder.into_inner().unwrap().finish().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("packed-1.0.0.tgz");
    std::fs::write(&path, bytes).unwrap();

    let chart = Chart::load(&path).unwrap();
    assert_eq!(chart.name(), "packed");
    assert_eq!(chart.metadata().version, "1.0.0");
    assert_eq!(chart.values_yaml(), "replicas: 3\n");
    assert_eq!(chart.dependencies()[0].name(), "inner");
    let out = render(&chart, &serde_json::json!({}), &RenderOptions::default()).unwrap();
    assert_eq!(out["packed/templates/cm.yaml"], "replicas: 3\n");
    assert_eq!(
        out["packed/charts/inner/templates/cm.yaml"],
        "word: from-inner\n"
    );
}

#[test]
fn values_keep_the_order_of_values_yaml() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            ("Chart.yaml", CHART_YAML),
            ("values.yaml", "zeta: 1\nalpha: 2\nmid: {b: 1, a: 2}\n"),
        ],
    );
    let chart = Chart::load(tmp.path()).unwrap();
    let keys: Vec<&String> = chart.values().as_object().unwrap().keys().collect();
    assert_eq!(keys, ["zeta", "alpha", "mid"]);
}

#[test]
fn helmignore_hides_files_from_dot_files() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            ("Chart.yaml", CHART_YAML),
            (".helmignore", "*.bak\nsecret/\n"),
            ("notes.bak", "x"),
            ("secret/key.txt", "x"),
            ("config/app.conf", "kept"),
            (
                "templates/cm.yaml",
                "{{ range $k, $v := .Files }}{{ $k }};{{ end }}",
            ),
        ],
    );
    let chart = Chart::load(tmp.path()).unwrap();
    let out = render(&chart, &serde_json::json!({}), &RenderOptions::default()).unwrap();
    assert_eq!(
        out["packed/templates/cm.yaml"],
        ".helmignore;config/app.conf;"
    );
}

/// Helm's default rule applies even without a .helmignore: hidden template files are
/// left out.
#[test]
fn hidden_template_files_are_left_out() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            ("Chart.yaml", CHART_YAML),
            ("templates/.hidden.yaml", "kind: Hidden"),
            ("templates/a.yaml", "kind: A"),
        ],
    );
    let chart = Chart::load(tmp.path()).unwrap();
    let templates: Vec<&str> = chart.templates().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(templates, ["templates/a.yaml"]);
}

/// A `!` rule in Helm (pkg/ignore) leaves out every path it does not match, directories
/// included; it is not gitignore's "re-include".
#[test]
fn helmignore_negation_follows_helm_not_gitignore() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            ("Chart.yaml", CHART_YAML),
            (".helmignore", "!*.yaml\n"),
            ("data.yaml", "kept"),
            ("notes.txt", "left out"),
            ("templates/a.yaml", "left out with its directory"),
        ],
    );
    let chart = Chart::load(tmp.path()).unwrap();
    assert!(chart.templates().is_empty(), "{:?}", chart.templates());
    let files: Vec<&str> = chart.files().iter().map(|f| f.name.as_str()).collect();
    assert!(files.contains(&"data.yaml"), "{files:?}");
    assert!(!files.contains(&"notes.txt"), "{files:?}");
}

#[test]
fn missing_path_and_missing_chart_yaml_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nope");
    let err = Chart::load(&missing).unwrap_err();
    assert!(matches!(err, ChartError::NotFound(_)));
    assert!(
        err.to_string().contains("nope") && err.to_string().contains("does not exist"),
        "{err}"
    );

    let err = Chart::load(tmp.path()).unwrap_err();
    assert!(matches!(err, ChartError::NotAChart(_)));
    assert!(err.to_string().contains("no Chart.yaml"), "{err}");
}

#[test]
fn invalid_chart_yaml_names_the_field() {
    let cases = [
        ("name: x\nversion: 1.0.0\n", "apiVersion"),
        ("apiVersion: v2\nversion: 1.0.0\n", "`name`"),
        ("apiVersion: v2\nname: x\n", "`version`"),
        ("apiVersion: v2\nname: x\nversion: one\n", "SemVer"),
        (
            "apiVersion: v2\nname: x\nversion: 1.0.0\ntype: plugin\n",
            "`type`",
        ),
        ("apiVersion: [\n", "Chart.yaml"),
    ];
    for (text, wanted) in cases {
        let tmp = tempfile::tempdir().unwrap();
        write(tmp.path(), &[("Chart.yaml", text)]);
        let err = Chart::load(tmp.path()).unwrap_err();
        assert!(
            matches!(err, ChartError::InvalidChartYaml { .. }),
            "{text}: {err}"
        );
        let msg = err.to_string();
        assert!(
            msg.contains(wanted) && msg.contains(&tmp.path().display().to_string()),
            "{msg}"
        );
    }
}

#[test]
fn template_parse_errors_name_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            (
                "Chart.yaml",
                "apiVersion: v2\nname: memcached\nversion: 0.1.0\n",
            ),
            (
                "templates/deployment.yaml",
                "a: 1\nb: 2\nc: {{ nosuchfunc .Values.x }}\nd: 4\n",
            ),
            ("templates/ok.yaml", "x: 1\n"),
        ],
    );
    let chart = Chart::load(tmp.path()).unwrap();
    let err = render(&chart, &serde_json::json!({}), &RenderOptions::default()).unwrap_err();
    assert!(matches!(err, RenderError::Parse { line: 3, .. }), "{err:?}");
    assert!(
        err.to_string()
            .contains("memcached/templates/deployment.yaml:3"),
        "{err}"
    );
    assert!(err.to_string().contains("nosuchfunc"), "{err}");
}

#[test]
fn execution_errors_name_template_line_and_column_like_helm() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            (
                "Chart.yaml",
                "apiVersion: v2\nname: mychart\nversion: 0.1.0\n",
            ),
            (
                "templates/x.yaml",
                "a: 1\n{{- if true }}\nb: {{ .Values.image | required \"image is required\" }}\n{{- end }}\n",
            ),
            ("templates/y.yaml", "{{ index .Values.list 5 }}\n"),
        ],
    );
    let chart = Chart::load(tmp.path()).unwrap();
    // Helm's own messages for this chart (checked with the real engine).
    let values = serde_json::json!({"list": [0, 1, 2, 3, 4, 5]});
    let err = render(&chart, &values, &RenderOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "execution error at (mychart/templates/x.yaml:3:22): image is required"
    );
    let err = render(
        &chart,
        &serde_json::json!({"image": "x", "list": [1]}),
        &RenderOptions::default(),
    )
    .unwrap_err();
    let msg = err.to_string();
    let helm_prefix = "template: mychart/templates/y.yaml:1:3: executing \"mychart/templates/y.yaml\" at <index .Values.list 5>: ";
    assert!(msg.starts_with(helm_prefix), "{msg}");
}

#[test]
fn crds_of_chart_and_subcharts_are_listed() {
    let chart = Chart::load(&common::testdata().join("charts/hooks-crds")).unwrap();
    let crds = chart.crds();
    assert_eq!(crds.len(), 1);
    assert_eq!(crds[0].name, "hooks-crds/crds/widgets.yaml");
    assert!(crds[0].text().contains("kind: CustomResourceDefinition"));
}

#[test]
fn runaway_include_recursion_is_an_error_not_a_crash() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[
            ("Chart.yaml", "apiVersion: v2\nname: r\nversion: 0.1.0\n"),
            (
                "templates/a.yaml",
                "{{- define \"loop\" }}{{ include \"loop\" . }}{{ end }}\nx: {{ include \"loop\" . }}\n",
            ),
        ],
    );
    let chart = Chart::load(tmp.path()).unwrap();
    let err = render(&chart, &serde_json::json!({}), &RenderOptions::default()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("template: r/templates/a.yaml:2:6:"),
        "{err}"
    );
    assert!(
        err.to_string().contains("nested reference name: loop"),
        "{err}"
    );
}

#[test]
fn null_chart_yaml_fields_are_empty_as_in_go() {
    let tmp = tempfile::tempdir().unwrap();
    write(
        tmp.path(),
        &[(
            "Chart.yaml",
            "apiVersion: v2\nname: c\nversion: 1.0.0\ndependencies:\nkeywords:\nsources: ~\n",
        )],
    );
    let chart = Chart::load(tmp.path()).unwrap();
    assert!(chart.metadata().dependencies.is_empty());
}

#[test]
fn a_subchart_outside_the_declared_range_is_not_aliased() {
    // Helm aliases (and conditions) a vendored subchart only when its version satisfies
    // the dependency's range; otherwise it renders under its own name.
    let tmp = tempfile::tempdir().unwrap();
    let parent = "apiVersion: v2\nname: p\nversion: 1.0.0\ndependencies:\n\
                  - name: sub\n  alias: first\n  version: 7.x.x\n  repository: oci://x\n\
                  - name: sub\n  alias: second\n  version: 8.x.x\n  repository: oci://x\n";
    write(
        tmp.path(),
        &[
            ("Chart.yaml", parent),
            (
                "charts/sub/Chart.yaml",
                "apiVersion: v2\nname: sub\nversion: 8.0.0\n",
            ),
            ("charts/sub/templates/cm.yaml", "name: {{ .Chart.Name }}\n"),
        ],
    );
    let chart = Chart::load(tmp.path()).unwrap();
    let out = render(&chart, &serde_json::json!({}), &RenderOptions::default()).unwrap();
    let names: Vec<&String> = out.keys().collect();
    assert_eq!(names, ["p/charts/second/templates/cm.yaml"]);
    assert_eq!(out["p/charts/second/templates/cm.yaml"], "name: second\n");
}
