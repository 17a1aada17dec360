//! Every error of `create api --plugins helm`, as one transcript.
use std::fmt::Write as _;

use super::*;

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
        (
            "api_already_exists_before_any_download",
            &[
                "--group",
                "cache",
                "--version",
                "v1",
                "--kind",
                "Memcached",
                "--helm-chart",
                "http://127.0.0.1:9/memcached-1.0.0.tgz",
            ],
        ),
        ("invalid_kind", &["--kind", "memcached"]),
        (
            "crd_version_v1beta1",
            &["--kind", "A", "--crd-version", "v1beta1"],
        ),
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
    let all = refusals(&root, parent, cases);
    snapshot_settings().bind(|| insta::assert_snapshot!("helm_api_errors", all));
}

/// Run `create api --plugins helm` with each case's flags: each must fail with exit 1 and
/// one error line, and none may write anything. Returns the transcripts as one text.
fn refusals(root: &Path, parent: &Path, cases: &[(&str, &[&str])]) -> String {
    let before = read_tree(root);
    let mut all = String::new();
    for (name, args) in cases {
        let args = helm_api(args);
        let output = rusty(root)
            .env("HELM_REPOSITORY_CONFIG", root.join("repositories.yaml"))
            .env("HELM_REPOSITORY_CACHE", root.join("no-cache"))
            .args(&args)
            .output()
            .unwrap();
        let text = transcript(&output, root).replace(&parent.display().to_string(), "[TMP]");
        assert!(text.starts_with("exit: 1\n"), "{name}: {text}");
        assert_eq!(
            text.lines().filter(|l| l.starts_with("error:")).count(),
            1,
            "{name}: one error line\n{text}"
        );
        let _ = writeln!(all, "### {name}: rusty-sdk {}\n{text}", args.join(" "));
    }
    assert_eq!(read_tree(root), before, "a failed command wrote something");
    all
}

/// A chart folder is the chart of the API that created it: a second API whose chart has the
/// same name (its own, a copy, or a starter chart named after its kind) is refused naming
/// that API, `--force` included, and writes nothing. It used to write a mix of both charts,
/// or fail rendering it with a nil pointer.
#[test]
fn a_chart_folder_of_another_api_is_refused_naming_it() {
    let (dir, root) = hybrid_project();
    let parent = dir.path();
    run_ok(&root, CREATE_MEMCACHED);
    // Another chart named like the starter chart of Memcached.
    broken_chart(
        parent,
        "other-memcached",
        &[
            (
                "Chart.yaml",
                "apiVersion: v2\nname: memcached\nversion: 0.1.0\n",
            ),
            ("values.yaml", "name: x\n"),
            (
                "templates/cm.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  a: {{ .Values.name }}\n",
            ),
        ],
    );
    // A chart named like the starter chart a kind Nginx would get.
    broken_chart(
        parent,
        "web",
        &[(
            "Chart.yaml",
            "apiVersion: v2\nname: nginx\nversion: 0.1.0\n",
        )],
    );
    run_ok(
        &root,
        &[
            "create",
            "api",
            "--plugins",
            "helm",
            "--group",
            "web",
            "--version",
            "v1",
            "--kind",
            "Web",
            "--helm-chart",
            "../web",
        ],
    );

    let cases: &[(&str, &[&str])] = &[
        (
            "another_chart_of_the_same_name",
            &[
                "--group",
                "cache",
                "--version",
                "v1",
                "--kind",
                "Cache",
                "--helm-chart",
                "../other-memcached",
            ],
        ),
        (
            "another_chart_of_the_same_name_with_force",
            &[
                "--group",
                "cache",
                "--version",
                "v1",
                "--kind",
                "Cache",
                "--helm-chart",
                "../other-memcached",
                "--force",
            ],
        ),
        (
            "the_folder_itself",
            &[
                "--group",
                "cache",
                "--version",
                "v1",
                "--kind",
                "Second",
                "--helm-chart",
                "helm-charts/memcached",
            ],
        ),
        (
            "a_starter_chart_named_like_another_apis_chart",
            &["--group", "web", "--version", "v1", "--kind", "Nginx"],
        ),
    ];
    let all = refusals(&root, parent, cases);
    snapshot_settings()
        .bind(|| insta::assert_snapshot!("helm_api_chart_folder_of_another_api", all));

    // The API that owns the folder may still re-scaffold it.
    let mut forced: Vec<&str> = CREATE_MEMCACHED.to_vec();
    forced.push("--force");
    run_ok(&root, &forced);
}
