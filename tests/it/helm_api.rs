//! `rusty-sdk create api --plugins helm`: the tutorial's Memcached API, charts from a
//! directory, a .tgz and the network, re-runs, failures and every error message.
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{read_tree, rusty, snapshot_settings, transcript};

const CREATE_MEMCACHED: &[&str] = &[
    "create",
    "api",
    "--plugins",
    "helm",
    "--group",
    "cache",
    "--version",
    "v1",
    "--kind",
    "Memcached",
];

/// A fresh hybrid project, as the tutorial's `init` makes it.
fn hybrid_project() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("memcached-operator");
    std::fs::create_dir(&root).unwrap();
    let output = rusty(&root)
        .args(["init", "--plugins=hybrid.helm", "--domain", "my.domain"])
        .args(["--repo", "github.com/example/memcached-operator"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &root));
    (dir, root)
}

fn run(root: &Path, args: &[&str]) -> std::process::Output {
    rusty(root).args(args).output().unwrap()
}

fn run_ok(root: &Path, args: &[&str]) -> std::process::Output {
    let output = run(root, args);
    assert!(output.status.success(), "{}", transcript(&output, root));
    output
}

fn helm_api(extra: &[&str]) -> Vec<String> {
    ["create", "api", "--plugins", "helm"]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

fn yaml_file(root: &Path, path: &str) -> Value {
    let text = std::fs::read_to_string(root.join(path)).unwrap();
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}\n{text}"))
}

/// The CRD's spec schema (first version).
fn crd_spec_schema(root: &Path, crd: &str) -> Value {
    let crd = yaml_file(root, crd);
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"].clone()
}

/// Files that differ between two trees (added or changed), with their new bytes.
fn changed(
    before: &BTreeMap<String, Vec<u8>>,
    after: &BTreeMap<String, Vec<u8>>,
) -> BTreeMap<String, Vec<u8>> {
    after
        .iter()
        .filter(|(path, bytes)| before.get(*path) != Some(*bytes))
        .map(|(p, b)| (p.clone(), b.clone()))
        .collect()
}

fn write_files(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// A .tgz as `helm package` makes it: every file under a `<name>/` folder.
fn tgz(name: &str, files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, data) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        builder
            .append_data(&mut header, format!("{name}/{path}"), *data)
            .unwrap();
    }
    let tar = builder.into_inner().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&tar).unwrap();
    gz.finish().unwrap()
}

const WEB_CHART: &[(&str, &str)] = &[
    (
        "Chart.yaml",
        "apiVersion: v2\nname: web-app\nversion: 0.1.0\nappVersion: \"2.0\"\n",
    ),
    (
        "values.yaml",
        "# How many pods\nreplicas: 2\nimage:\n  repository: example/web\n  tag: \"2.0\"\nextraEnv: []\n",
    ),
    (
        "templates/deployment.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  replicas: {{ .Values.replicas }}\n",
    ),
];

#[test]
fn tutorial_memcached_api_files() {
    let (_dir, root) = hybrid_project();
    let before = read_tree(&root);
    let output = run_ok(&root, CREATE_MEMCACHED);
    let after = read_tree(&root);
    let changed = changed(&before, &after);

    // The chart is Helm's starter chart, byte for byte, named after the kind.
    let starter: BTreeMap<String, Vec<u8>> = rusty_sdk_chart::starter::files("memcached")
        .into_iter()
        .map(|(p, t)| (format!("helm-charts/memcached/{p}"), t.into_bytes()))
        .collect();
    for (path, bytes) in &starter {
        assert_eq!(
            changed.get(path),
            Some(bytes),
            "{path} is not the starter's"
        );
    }

    let listing: Vec<&str> = changed.keys().map(String::as_str).collect();
    snapshot_settings().bind(|| {
        insta::assert_snapshot!("helm_api_memcached_output", transcript(&output, &root));
        insta::assert_snapshot!("helm_api_memcached_files", listing.join("\n"));
        for (path, bytes) in &changed {
            if starter.contains_key(path) {
                continue;
            }
            let name = format!("helm_api_memcached__{}", path.replace('/', "__"));
            insta::assert_snapshot!(name, String::from_utf8_lossy(bytes));
        }
    });
}

#[test]
fn sample_spec_is_the_chart_values_and_passes_the_crd_schema() {
    let (_dir, root) = hybrid_project();
    run_ok(&root, CREATE_MEMCACHED);
    let sample = yaml_file(&root, "config/samples/cache_v1_memcached.yaml");
    let values = yaml_file(&root, "helm-charts/memcached/values.yaml");
    assert_eq!(sample["spec"], values);
    assert_eq!(sample["apiVersion"], "cache.my.domain/v1");
    assert_eq!(sample["metadata"]["name"], "memcached-sample");
    let text =
        std::fs::read_to_string(root.join("config/samples/cache_v1_memcached.yaml")).unwrap();
    assert!(text.contains(
        "spec:\n  # Default values copied from memcached-operator/helm-charts/memcached/values.yaml\n"
    ));

    let schema = crd_spec_schema(&root, "config/crd/bases/cache.my.domain_memcacheds.yaml");
    rusty_sdk_chart::validate_against_schema(&sample["spec"], &schema)
        .unwrap_or_else(|errors| panic!("sample does not fit the CRD: {errors:?}"));
    // The schema is real: a wrong type is caught.
    let mut wrong = sample["spec"].clone();
    wrong["replicaCount"] = Value::from("three");
    assert!(rusty_sdk_chart::validate_against_schema(&wrong, &schema).is_err());
    // Open shapes stay open: any annotations can be set.
    assert_eq!(
        schema["properties"]["podAnnotations"]["x-kubernetes-preserve-unknown-fields"],
        true
    );
    assert_eq!(
        schema["properties"]["image"]["properties"]["tag"]["type"],
        "string"
    );

    if let Some(samples) = crate::e2e::kustomize(&root, "config/samples") {
        assert!(samples.contains("kind: Memcached"), "{samples}");
    }
    if let Some(crds) = crate::e2e::kustomize(&root, "config/crd") {
        assert!(crds.contains("name: memcacheds.cache.my.domain"), "{crds}");
    }
}

#[test]
fn same_command_twice_changes_nothing() {
    let (_dir, root) = hybrid_project();
    run_ok(&root, CREATE_MEMCACHED);
    let once = read_tree(&root);

    let again = run(&root, CREATE_MEMCACHED);
    assert_eq!(again.status.code(), Some(1));
    let text = transcript(&again, &root);
    assert!(text.contains("API already exists"), "{text}");
    assert_eq!(read_tree(&root), once, "a refused re-run changed files");

    let mut forced: Vec<&str> = CREATE_MEMCACHED.to_vec();
    forced.push("--force");
    let output = run_ok(&root, &forced);
    let stdout = String::from_utf8_lossy(&output.stdout);
    for line in stdout.lines() {
        assert!(line.trim_start().starts_with("identical"), "{stdout}");
    }
    assert_eq!(read_tree(&root), once, "--force re-run changed files");
}

#[test]
fn force_with_another_chart_repoints_the_watch() {
    let (dir, root) = hybrid_project();
    run_ok(&root, CREATE_MEMCACHED);
    write_files(&dir.path().join("web"), WEB_CHART);
    let mut args: Vec<&str> = CREATE_MEMCACHED.to_vec();
    args.extend(["--helm-chart", "../web", "--force"]);
    run_ok(&root, &args);
    let watches = std::fs::read_to_string(root.join("watches.yaml")).unwrap();
    assert_eq!(watches.matches("kind: Memcached").count(), 1, "{watches}");
    assert!(
        watches.contains("  kind: Memcached\n  chart: helm-charts/web-app\n"),
        "{watches}"
    );
    let sample = yaml_file(&root, "config/samples/cache_v1_memcached.yaml");
    assert_eq!(sample["spec"]["replicas"], 2);
    let project = std::fs::read_to_string(root.join("PROJECT")).unwrap();
    assert_eq!(
        project.matches("chart: helm-charts/").count(),
        1,
        "{project}"
    );
}

#[test]
fn a_failure_halfway_writes_nothing() {
    let (_dir, root) = hybrid_project();
    std::fs::write(root.join("watches.yaml"), "# the user removed the marker\n").unwrap();
    let before = read_tree(&root);
    let output = run(&root, CREATE_MEMCACHED);
    assert_eq!(output.status.code(), Some(1));
    let text = transcript(&output, &root);
    assert!(
        text.contains("watches.yaml: marker `# +rusty:scaffold:watch` not found"),
        "{text}"
    );
    assert_eq!(read_tree(&root), before);
}

#[test]
fn local_chart_directory_is_copied_and_names_the_api() {
    let (dir, root) = hybrid_project();
    let chart = dir.path().join("web");
    write_files(&chart, WEB_CHART);
    write_files(
        &chart,
        &[
            (".helmignore", "*.bak\nci/\n"),
            ("notes.bak", "ignored"),
            ("ci/test-values.yaml", "ignored: true\n"),
        ],
    );
    let output = run_ok(
        &root,
        &helm_api(&["--helm-chart", "../web"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    snapshot_settings().bind(|| {
        insta::assert_snapshot!("helm_api_local_dir_output", transcript(&output, &root));
    });
    for (path, text) in WEB_CHART.iter().chain(&[(".helmignore", "*.bak\nci/\n")]) {
        let copied = std::fs::read_to_string(root.join("helm-charts/web-app").join(path)).unwrap();
        assert_eq!(&copied, text, "{path}");
    }
    assert!(!root.join("helm-charts/web-app/notes.bak").exists());
    assert!(!root.join("helm-charts/web-app/ci").exists());

    // operator-sdk's defaults: group charts, version v1alpha1, kind from the chart name.
    let watches = std::fs::read_to_string(root.join("watches.yaml")).unwrap();
    assert!(watches.contains(
        "- group: charts.my.domain\n  version: v1alpha1\n  kind: WebApp\n  chart: helm-charts/web-app\n"
    ), "{watches}");
    let sample = yaml_file(&root, "config/samples/charts_v1alpha1_webapp.yaml");
    assert_eq!(sample["kind"], "WebApp");
    assert_eq!(sample["spec"]["replicas"], 2);
    let schema = crd_spec_schema(&root, "config/crd/bases/charts.my.domain_webapps.yaml");
    assert_eq!(schema["properties"]["replicas"]["type"], "integer");
    rusty_sdk_chart::validate_against_schema(&sample["spec"], &schema).unwrap();
    let project = std::fs::read_to_string(root.join("PROJECT")).unwrap();
    assert!(project.contains("    - chart: helm-charts/web-app\n      domain: my.domain\n      group: charts\n      kind: WebApp\n      version: v1alpha1\n"), "{project}");
}

#[test]
fn values_schema_json_shapes_the_crd() {
    let (dir, root) = hybrid_project();
    let chart = dir.path().join("strict");
    write_files(
        &chart,
        &[
            (
                "Chart.yaml",
                "apiVersion: v2\nname: strict\nversion: 1.0.0\n",
            ),
            ("values.yaml", "mode: fast\nport: 8080\nlabels: {}\n"),
            (
                "values.schema.json",
                r#"{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "required": ["mode"],
                   "properties": {"mode": {"type": "string", "enum": ["fast", "safe"]},
                                  "port": {"type": "integer", "minimum": 1, "maximum": 65535},
                                  "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}"#,
            ),
            (
                "templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  mode: {{ .Values.mode }}\n",
            ),
        ],
    );
    let args = helm_api(&[
        "--helm-chart",
        "../strict",
        "--kind",
        "Strict",
        "--group",
        "apps",
        "--version",
        "v1",
    ]);
    run_ok(&root, &args.iter().map(String::as_str).collect::<Vec<_>>());
    let crd_text =
        std::fs::read_to_string(root.join("config/crd/bases/apps.my.domain_stricts.yaml")).unwrap();
    assert!(
        crd_text
            .starts_with("# Generated by rusty-sdk from helm-charts/strict/values.schema.json.")
    );
    let schema = crd_spec_schema(&root, "config/crd/bases/apps.my.domain_stricts.yaml");
    assert_eq!(
        schema["properties"]["mode"]["enum"],
        serde_json::json!(["fast", "safe"])
    );
    assert_eq!(schema["properties"]["port"]["maximum"], 65535);
    let sample = yaml_file(&root, "config/samples/apps_v1_strict.yaml");
    rusty_sdk_chart::validate_against_schema(&sample["spec"], &schema).unwrap();
    let mut bad = sample["spec"].clone();
    bad["mode"] = Value::from("reckless");
    assert!(rusty_sdk_chart::validate_against_schema(&bad, &schema).is_err());
    if let Some(crds) = crate::e2e::kustomize(&root, "config/crd") {
        assert!(
            crds.contains("- safe\n"),
            "the enum reaches the built CRD: {crds}"
        );
    }
}

#[test]
fn tgz_chart_is_unpacked() {
    let (dir, root) = hybrid_project();
    let files: Vec<(&str, &[u8])> = WEB_CHART.iter().map(|(p, t)| (*p, t.as_bytes())).collect();
    std::fs::write(dir.path().join("web-app-0.1.0.tgz"), tgz("web-app", &files)).unwrap();
    let output = run_ok(
        &root,
        &[
            "create",
            "api",
            "--plugins",
            "helm",
            "--helm-chart",
            "../web-app-0.1.0.tgz",
            "--helm-chart-version",
            "2.0.0",
            "--namespaced=false",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("warning: --helm-chart-version is ignored"),
        "{stderr}"
    );
    for (path, text) in WEB_CHART {
        let copied = std::fs::read_to_string(root.join("helm-charts/web-app").join(path)).unwrap();
        assert_eq!(&copied, text, "{path}");
    }
    let crd = yaml_file(&root, "config/crd/bases/charts.my.domain_webapps.yaml");
    assert_eq!(crd["spec"]["scope"], "Cluster");
    let project = std::fs::read_to_string(root.join("PROJECT")).unwrap();
    assert!(project.contains("    namespaced: false\n"), "{project}");
}

#[test]
fn chart_with_subcharts_is_copied_whole() {
    let (dir, root) = hybrid_project();
    let chart = dir.path().join("shop");
    write_files(
        &chart,
        &[
            (
                "Chart.yaml",
                "apiVersion: v2\nname: shop\nversion: 0.2.0\ndependencies:\n- name: cache\n  version: 0.1.0\n- name: db\n  version: 1.0.0\n",
            ),
            ("values.yaml", "global:\n  region: eu\ncache:\n  size: 3\n"),
            (
                "templates/svc.yaml",
                "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}-shop\n  labels:\n    region: {{ .Values.global.region }}\n",
            ),
            (
                "charts/cache/Chart.yaml",
                "apiVersion: v2\nname: cache\nversion: 0.1.0\n",
            ),
            ("charts/cache/values.yaml", "size: 1\n"),
            (
                "charts/cache/templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cache\ndata:\n  size: {{ .Values.size | quote }}\n  region: {{ .Values.global.region }}\n",
            ),
        ],
    );
    let db = tgz(
        "db",
        &[
            ("Chart.yaml", b"apiVersion: v2\nname: db\nversion: 1.0.0\n"),
            (
                "templates/secret.yaml",
                b"apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-db\n",
            ),
        ],
    );
    std::fs::write(chart.join("charts/db-1.0.0.tgz"), &db).unwrap();
    let source = read_tree(&chart);
    run_ok(
        &root,
        &[
            "create",
            "api",
            "--plugins",
            "helm",
            "--helm-chart",
            "../shop",
        ],
    );
    let copied = read_tree(&root.join("helm-charts/shop"));
    assert_eq!(
        copied, source,
        "the chart and its subcharts are copied byte for byte"
    );
    let sample = yaml_file(&root, "config/samples/charts_v1alpha1_shop.yaml");
    assert_eq!(sample["spec"]["cache"]["size"], 3);
    assert_eq!(sample["spec"]["global"]["region"], "eu");
}

/// Serve `files` over HTTP on 127.0.0.1 until the test ends; returns the base URL.
fn serve(files: BTreeMap<String, Vec<u8>>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request_line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            if reader.read_line(&mut request_line).is_err() {
                continue;
            }
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                    break;
                }
            }
            let path = request_line.split_whitespace().nth(1).unwrap_or("/");
            let (status, body) = match files.get(path) {
                Some(body) => ("200 OK", body.clone()),
                None => ("404 Not Found", b"not found".to_vec()),
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(&body);
        }
    });
    base
}

#[test]
fn remote_charts_download_from_urls_and_repositories() {
    let files: Vec<(&str, &[u8])> = WEB_CHART.iter().map(|(p, t)| (*p, t.as_bytes())).collect();
    let archive = tgz("web-app", &files);
    let index = "apiVersion: v1\nentries:\n  web-app:\n  - version: 0.0.9\n    urls: [old.tgz]\n  - version: 0.1.0\n    urls: [charts/web-app-0.1.0.tgz]\n";
    let base = serve(BTreeMap::from([
        ("/charts/web-app-0.1.0.tgz".to_string(), archive),
        ("/index.yaml".to_string(), index.as_bytes().to_vec()),
    ]));

    // An archive URL.
    let (_a, root) = hybrid_project();
    let url = format!("{base}/charts/web-app-0.1.0.tgz");
    run_ok(
        &root,
        &["create", "api", "--plugins", "helm", "--helm-chart", &url],
    );
    assert_eq!(
        std::fs::read_to_string(root.join("helm-charts/web-app/values.yaml")).unwrap(),
        WEB_CHART[1].1
    );

    // --helm-chart-repo with a name: the newest version is picked from index.yaml.
    let (_b, root) = hybrid_project();
    run_ok(
        &root,
        &[
            "create",
            "api",
            "--plugins",
            "helm",
            "--helm-chart",
            "web-app",
            "--helm-chart-repo",
            &base,
        ],
    );
    assert!(root.join("helm-charts/web-app/Chart.yaml").is_file());

    // repo/name, the repository known from Helm's repositories.yaml.
    let (_c, root) = hybrid_project();
    let helm_config = root.join("repositories.yaml");
    std::fs::write(
        &helm_config,
        format!("apiVersion: \"\"\nrepositories:\n- name: example\n  url: {base}\n"),
    )
    .unwrap();
    let output = rusty(&root)
        .env("HELM_REPOSITORY_CONFIG", &helm_config)
        .env("HELM_REPOSITORY_CACHE", root.join("no-cache"))
        .args([
            "create",
            "api",
            "--plugins",
            "helm",
            "--helm-chart",
            "example/web-app",
        ])
        .args(["--helm-chart-version", "0.1.0", "--kind", "Web"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let watches = std::fs::read_to_string(root.join("watches.yaml")).unwrap();
    assert!(
        watches.contains("  kind: Web\n  chart: helm-charts/web-app\n"),
        "{watches}"
    );

    // A missing version is named.
    let output = rusty(&root)
        .env("HELM_REPOSITORY_CONFIG", &helm_config)
        .args([
            "create",
            "api",
            "--plugins",
            "helm",
            "--helm-chart",
            "example/web-app",
        ])
        .args(["--helm-chart-version", "9.9.9", "--kind", "Other"])
        .output()
        .unwrap();
    let text = transcript(&output, &root);
    assert!(
        text.contains("chart \"web-app\" has no 9.9.9 in Helm repository example"),
        "{text}"
    );
}

/// A chart directory holding `files`, next to the project.
fn broken_chart(dir: &Path, name: &str, files: &[(&str, &str)]) {
    write_files(&dir.join(name), files);
}

#[test]
fn error_messages() {
    let (dir, root) = hybrid_project();
    let parent = dir.path();
    std::fs::create_dir_all(parent.join("empty")).unwrap();
    broken_chart(
        parent,
        "badyaml",
        &[("Chart.yaml", "apiVersion: v2\nname: [oops\n")],
    );
    broken_chart(
        parent,
        "noversion",
        &[("Chart.yaml", "apiVersion: v2\nname: noversion\n")],
    );
    broken_chart(
        parent,
        "badtemplate",
        &[
            (
                "Chart.yaml",
                "apiVersion: v2\nname: badtemplate\nversion: 0.1.0\n",
            ),
            ("templates/ok.yaml", "kind: ConfigMap\n"),
            (
                "templates/broken.yaml",
                "apiVersion: v1\nkind: ConfigMap\n{{ if .Values.x }\n",
            ),
        ],
    );
    std::fs::write(parent.join("notachart.tgz"), b"plain text").unwrap();
    std::fs::write(
        root.join("repositories.yaml"),
        "repositories:\n- name: stable\n  url: http://127.0.0.1:9\n",
    )
    .unwrap();
    run_ok(&root, CREATE_MEMCACHED);

    let cases: &[(&str, &[&str])] = &[
        (
            "repo_without_chart",
            &[
                "--helm-chart-repo",
                "https://charts.example.com",
                "--kind",
                "A",
            ],
        ),
        (
            "version_without_chart",
            &["--helm-chart-version", "1.0.0", "--kind", "A"],
        ),
        ("neither_kind_nor_chart", &[]),
        ("missing_chart_path", &["--helm-chart", "../nowhere"]),
        ("not_a_chart", &["--helm-chart", "../empty"]),
        ("not_a_chart_archive", &["--helm-chart", "../notachart.tgz"]),
        ("invalid_chart_yaml", &["--helm-chart", "../badyaml"]),
        (
            "chart_yaml_without_version",
            &["--helm-chart", "../noversion"],
        ),
        ("template_parse_error", &["--helm-chart", "../badtemplate"]),
        (
            "api_already_exists",
            &["--group", "cache", "--version", "v1", "--kind", "Memcached"],
        ),
        ("invalid_kind", &["--kind", "memcached"]),
        (
            "offline_archive_url",
            &["--helm-chart", "http://127.0.0.1:9/x-1.0.0.tgz"],
        ),
        (
            "offline_chart_repo",
            &[
                "--helm-chart",
                "x",
                "--helm-chart-repo",
                "http://127.0.0.1:9/charts",
            ],
        ),
        (
            "offline_oci",
            &["--helm-chart", "oci://127.0.0.1:9/charts/x:1.0.0"],
        ),
        ("offline_repo_name", &["--helm-chart", "stable/x"]),
        ("unknown_repo_name", &["--helm-chart", "nosuchrepo/x"]),
    ];
    let before = read_tree(&root);
    let mut all = String::new();
    for (name, args) in cases {
        let args = helm_api(args);
        let output = rusty(&root)
            .env("HELM_REPOSITORY_CONFIG", root.join("repositories.yaml"))
            .env("HELM_REPOSITORY_CACHE", root.join("no-cache"))
            .args(&args)
            .output()
            .unwrap();
        let text = transcript(&output, &root).replace(&parent.display().to_string(), "[TMP]");
        assert!(text.starts_with("exit: 1\n"), "{name}: {text}");
        assert_eq!(
            text.lines().filter(|l| l.starts_with("error:")).count(),
            1,
            "{name}: one error line\n{text}"
        );
        all.push_str(&format!(
            "### {name}: rusty-sdk {}\n{text}\n",
            args.join(" ")
        ));
    }
    assert_eq!(read_tree(&root), before, "a failed command wrote something");
    snapshot_settings().bind(|| insta::assert_snapshot!("helm_api_errors", all));
}

#[test]
fn helm_api_is_refused_in_rust_projects() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("rusty");
    std::fs::create_dir(&root).unwrap();
    run_ok(&root, &["init", "--plugins", "rust"]);
    let output = run(&root, CREATE_MEMCACHED);
    let text = transcript(&output, &root);
    assert!(
        text.starts_with("exit: 1\n") && text.contains("layout is rust"),
        "{text}"
    );
}

#[test]
fn hybrid_project_with_memcached_helm_api_builds_and_loads_its_watch() {
    if crate::e2e::skip() {
        return;
    }
    let (_dir, root) = hybrid_project();
    run_ok(&root, CREATE_MEMCACHED);
    crate::e2e::check_project(&root);

    // The operator reads watches.yaml and the chart at start: it must get as far as
    // serving /healthz with a Helm controller for Memcached (the API server is unreachable).
    let binary = crate::e2e::target_dir().join("debug/memcached-operator");
    let log = run_operator_until_healthy(&root, &binary);
    assert!(
        log.contains("Memcached"),
        "no Memcached controller started:\n{log}"
    );
}

/// Start the operator against an unreachable API server, wait for /healthz, stop it with
/// SIGTERM and return what it logged.
fn run_operator_until_healthy(root: &Path, binary: &Path) -> String {
    use std::io::Read;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    let kubeconfig = root.join("unreachable.kubeconfig");
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: t\n",
    )
    .unwrap();
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let log_path = root.join("operator.log");
    let log_file = std::fs::File::create(&log_path).unwrap();
    let mut child = Command::new(binary)
        .current_dir(root)
        .env("KUBECONFIG", &kubeconfig)
        .env("NO_COLOR", "1")
        .args(["--health-probe-bind-address", &format!("127.0.0.1:{port}")])
        .args(["--metrics-bind-address", "0"])
        .stdout(Stdio::from(log_file.try_clone().unwrap()))
        .stderr(Stdio::from(log_file))
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut healthy = false;
    while Instant::now() < deadline && !healthy {
        if let Ok(Some(status)) = child.try_wait() {
            let log = std::fs::read_to_string(&log_path).unwrap_or_default();
            panic!("the operator exited early with {status}:\n{log}");
        }
        if let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
            let _ = write!(
                stream,
                "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            );
            let mut response = String::new();
            let _ = stream.read_to_string(&mut response);
            healthy = response.starts_with("HTTP/1.1 200");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let stop_deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > stop_deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let log = std::fs::read_to_string(&log_path).unwrap_or_default();
    assert!(healthy, "/healthz never answered 200:\n{log}");
    log
}

#[test]
fn helm_layout_takes_helm_apis_without_plugins_flag() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("nginx-operator");
    std::fs::create_dir(&root).unwrap();
    run_ok(
        &root,
        &["init", "--plugins", "helm", "--domain", "example.com"],
    );
    run_ok(&root, &["create", "api", "--kind", "Nginx"]);
    let watches = std::fs::read_to_string(root.join("watches.yaml")).unwrap();
    assert!(
        watches.contains("- group: charts.example.com\n  version: v1alpha1\n  kind: Nginx\n  chart: helm-charts/nginx\n"),
        "{watches}"
    );
    assert!(root.join("helm-charts/nginx/values.yaml").is_file());
    assert!(
        root.join("config/samples/charts_v1alpha1_nginx.yaml")
            .is_file()
    );
}
