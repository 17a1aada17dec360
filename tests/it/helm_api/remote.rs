//! Charts from the network: an archive URL, a Helm repository (by URL and by the name in
//! Helm's repositories.yaml) and an OCI registry, all served from 127.0.0.1.
use super::http_server::{Reply, serve};
use super::*;

#[test]
fn remote_charts_download_from_urls_and_repositories() {
    let files: Vec<(&str, &[u8])> = WEB_CHART.iter().map(|(p, t)| (*p, t.as_bytes())).collect();
    let archive = tgz("web-app", &files);
    // The index records the archive's digest, which the download is checked against.
    let index = format!(
        "apiVersion: v1\nentries:\n  web-app:\n  - version: 0.0.9\n    urls: [old.tgz]\n  - version: 0.1.0\n    urls: [charts/web-app-0.1.0.tgz]\n    digest: {}\n",
        sha256_hex(&archive)
    );
    let files = BTreeMap::from([
        ("/charts/web-app-0.1.0.tgz".to_string(), archive),
        ("/index.yaml".to_string(), index.as_bytes().to_vec()),
    ]);
    let base = serve(move |request, _| match files.get(&request.path) {
        Some(body) => Reply::ok(body.clone()),
        None => Reply::not_found(),
    });

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

fn sha256_hex(bytes: &[u8]) -> String {
    aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, bytes)
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A registry that wants an anonymous bearer token, as ghcr.io does.
fn registry(archive: Vec<u8>) -> String {
    let digest = sha256_hex(&archive);
    let manifest = format!(
        r#"{{"schemaVersion":2,"config":{{"mediaType":"application/vnd.cncf.helm.config.v1+json","digest":"sha256:00","size":2}},"layers":[{{"mediaType":"application/vnd.cncf.helm.chart.content.v1.tar+gzip","digest":"sha256:{digest}","size":{}}}]}}"#,
        archive.len()
    );
    serve(move |request, base| {
        if request.path.starts_with("/token?") {
            assert!(
                request
                    .path
                    .contains("scope=repository%3Acharts%2Fweb-app%3Apull"),
                "{}",
                request.path
            );
            return Reply::ok(r#"{"token":"t0k"}"#);
        }
        if request.header("authorization") != Some("Bearer t0k") {
            return Reply {
                status: "401 Unauthorized",
                headers: vec![(
                    "WWW-Authenticate",
                    format!(
                        r#"Bearer realm="{base}/token",service="test",scope="repository:charts/web-app:pull""#
                    ),
                )],
                body: Vec::new(),
            };
        }
        match request.path.as_str() {
            "/v2/charts/web-app/tags/list" => {
                Reply::ok(r#"{"name":"charts/web-app","tags":["0.0.9","0.1.0","0.2.0-rc.1"]}"#)
            }
            "/v2/charts/web-app/manifests/0.1.0" => Reply::ok(manifest.clone()),
            path if path == format!("/v2/charts/web-app/blobs/sha256:{digest}") => {
                Reply::ok(archive.clone())
            }
            _ => Reply::not_found(),
        }
    })
}

#[test]
fn oci_charts_are_pulled_with_a_token() {
    let files: Vec<(&str, &[u8])> = WEB_CHART.iter().map(|(p, t)| (*p, t.as_bytes())).collect();
    let base = registry(tgz("web-app", &files));
    let host = base.trim_start_matches("http://");

    // A tag in the reference.
    let (_a, root) = hybrid_project();
    let reference = format!("oci://{host}/charts/web-app:0.1.0");
    run_ok(
        &root,
        &[
            "create",
            "api",
            "--plugins",
            "helm",
            "--helm-chart",
            &reference,
        ],
    );
    assert_eq!(
        std::fs::read_to_string(root.join("helm-charts/web-app/Chart.yaml")).unwrap(),
        WEB_CHART[0].1
    );

    // No tag: the newest stable one from the tag list.
    let (_b, root) = hybrid_project();
    let reference = format!("oci://{host}/charts/web-app");
    run_ok(
        &root,
        &[
            "create",
            "api",
            "--plugins",
            "helm",
            "--helm-chart",
            &reference,
        ],
    );
    assert!(root.join("helm-charts/web-app/values.yaml").is_file());

    // A version the registry does not have.
    let output = run(
        &root,
        &[
            "create",
            "api",
            "--plugins",
            "helm",
            "--helm-chart",
            &reference,
            "--helm-chart-version",
            "9.9.9",
            "--kind",
            "Other",
        ],
    );
    let text = transcript(&output, &root);
    assert!(text.contains("the registry answered 404"), "{text}");
}
