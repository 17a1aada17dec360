//! The opt-in hardening of a generated project on a real API server: config/default with the
//! metrics certificate from cert-manager, the ServiceMonitor's TLS patch and the network
//! policies switched on (as a user uncomments them), checked by a server-side dry run; and
//! the operator's Helm chart (`edit --plugins=helm/v2-alpha`) installed with the Makefile's
//! Helm targets, its network policies on. cert-manager and the Prometheus operator are not
//! installed: their CRDs are, with open schemas, so that the API server takes their objects
//! (what their own schemas would say about them is not checked here).
use std::path::Path;

use rusty_sdk_test_tools::needs;
use serde::Deserialize;
use serde_json::{Value, json};

use super::cluster;
use super::operator::tool_command;
use crate::support::scaffold;

/// The tool's output; a failure fails the test with its output.
fn run(mut command: std::process::Command, stdin: Option<&str>) -> String {
    use std::io::Write as _;
    use std::process::Stdio;
    let shown = format!("{command:?}");
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{shown} could not start: {e}"));
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(input);
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{shown} failed:\n{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn kubectl(args: &[&str], stdin: Option<&str>) -> String {
    let mut command = tool_command("kubectl");
    command.args(args);
    run(command, stdin)
}

/// Uncomment the block that follows the comment paragraph `# [<tag>] ...` in `file`, as a
/// user switching that option on does.
fn switch_on(root: &Path, file: &str, tag: &str) {
    let path = root.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let prose = |line: &str| line.starts_with("# ") && !line.starts_with("#  ");
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    let mut found = false;
    while let Some(line) = lines.next() {
        out.push(line.to_string());
        if !line.starts_with(&format!("# [{tag}]")) {
            continue;
        }
        found = true;
        while let Some(next) = lines.next_if(|l| prose(l) || (!l.is_empty() && !l.starts_with('#')))
        {
            out.push(next.to_string());
        }
        while let Some(next) = lines.next_if(|l| l.starts_with('#') && !prose(l)) {
            out.push(next[1..].to_string());
        }
    }
    assert!(found, "no [{tag}] section in {file}:\n{text}");
    std::fs::write(&path, out.join("\n") + "\n").unwrap();
}

fn documents(text: &str) -> Vec<Value> {
    serde_yaml::Deserializer::from_str(text)
        .map(|doc| serde_json::to_value(serde_yaml::Value::deserialize(doc).unwrap()).unwrap())
        .filter(|o: &Value| !o.is_null())
        .collect()
}

fn find<'a>(objects: &'a [Value], kind: &str, name: &str) -> &'a Value {
    objects
        .iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

/// CRDs with open schemas for cert-manager's Certificate and Issuer and the Prometheus
/// operator's ServiceMonitor.
fn install_foreign_crds() {
    let crd = |group: &str, kind: &str, plural: &str, version: &str| {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": format!("{plural}.{group}")},
            "spec": {
                "group": group,
                "names": {"kind": kind, "plural": plural, "listKind": format!("{kind}List"),
                          "singular": kind.to_lowercase()},
                "scope": "Namespaced",
                "versions": [{"name": version, "served": true, "storage": true,
                              "schema": {"openAPIV3Schema": {"type": "object",
                                  "x-kubernetes-preserve-unknown-fields": true}}}],
            },
        })
    };
    let list = json!({"apiVersion": "v1", "kind": "List", "items": [
        crd("cert-manager.io", "Certificate", "certificates", "v1"),
        crd("cert-manager.io", "Issuer", "issuers", "v1"),
        crd("monitoring.coreos.com", "ServiceMonitor", "servicemonitors", "v1"),
    ]});
    kubectl(
        &["apply", "--server-side", "--force-conflicts", "-f", "-"],
        Some(&list.to_string()),
    );
    kubectl(
        &[
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            "crd/certificates.cert-manager.io",
            "crd/issuers.cert-manager.io",
            "crd/servicemonitors.monitoring.coreos.com",
        ],
        None,
    );
}

/// Removes the foreign CRDs (and so every object of theirs) when the test ends, however it
/// ends: left behind, they change what the corpus charts render and install (cert-manager's
/// chart then meets CRDs it does not own, and its uninstall waited on them past two minutes).
struct ForeignCrds;

impl Drop for ForeignCrds {
    fn drop(&mut self) {
        let _ = tool_command("kubectl")
            .args([
                "delete",
                "crd",
                "--ignore-not-found",
                "--wait",
                "--timeout=60s",
                "certificates.cert-manager.io",
                "issuers.cert-manager.io",
                "servicemonitors.monitoring.coreos.com",
            ])
            .output();
    }
}

/// The manager of `pod` mounts the Secret `secret` and serves the metrics with it
/// (`--metrics-cert-path` names where it is mounted).
fn assert_serves_the_metrics_secret(pod: &Value, secret: &str) {
    let named = |list: &Value| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|item| item["name"] == "metrics-certs")
            .cloned()
            .unwrap_or_else(|| panic!("no metrics-certs in {list}"))
    };
    assert_eq!(named(&pod["volumes"])["secret"]["secretName"], secret);
    let manager = &pod["containers"][0];
    let path = named(&manager["volumeMounts"])["mountPath"].clone();
    let flag = json!(format!("--metrics-cert-path={}", path.as_str().unwrap()));
    assert!(
        manager["args"].as_array().unwrap().contains(&flag),
        "{manager}"
    );
}

#[needs(control_plane, kubectl, helm, make)]
#[tokio::test]
async fn hardened_kustomize_tree_and_the_operator_chart_are_accepted_by_the_api_server() {
    // It adds CRDs (cert-manager's, ServiceMonitor) and cluster-wide webhook configurations:
    // the corpus suites must not see the cluster change under them.
    let _corpus = super::CORPUS.lock().await;
    let _ = cluster();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("hardened");
    scaffold(
        dir.path(),
        &root,
        &[
            "init --plugins hybrid.helm --domain hardening.example --repo github.com/example/hardened",
            "create api --plugins rust --group cache --version v1 --kind Backup --resource --controller",
            "create webhook --group cache --version v1 --kind Backup --defaulting",
        ],
    );
    install_foreign_crds();
    let _foreign_crds = ForeignCrds;
    // The installer as `make build-installer` writes it, before any option is switched on.
    let plain = crate::e2e::kustomize(&root, "config/default");
    std::fs::create_dir_all(root.join("dist")).unwrap();
    std::fs::write(root.join("dist/install.yaml"), &plain).unwrap();

    // config/default with every hardening option on.
    for (file, tag) in [
        ("config/default/kustomization.yaml", "PROMETHEUS"),
        ("config/default/kustomization.yaml", "NETWORK POLICY"),
        ("config/default/kustomization.yaml", "METRICS-WITH-CERTS"),
        (
            "config/certmanager/kustomization.yaml",
            "METRICS-WITH-CERTS",
        ),
        (
            "config/prometheus/kustomization.yaml",
            "PROMETHEUS-WITH-CERTS",
        ),
    ] {
        switch_on(&root, file, tag);
    }
    let hardened = crate::e2e::kustomize(&root, "config/default");
    let objects = documents(&hardened);
    let service = "hardened-controller-manager-metrics-service.hardened-system.svc";
    let certificate = find(&objects, "Certificate", "hardened-metrics-certs");
    assert_eq!(
        certificate["spec"]["dnsNames"],
        json!([service, format!("{service}.cluster.local")])
    );
    assert_eq!(
        certificate["spec"]["issuerRef"]["name"],
        "hardened-selfsigned-issuer"
    );
    let secret = certificate["spec"]["secretName"].as_str().unwrap();
    let monitor = find(
        &objects,
        "ServiceMonitor",
        "hardened-controller-manager-metrics-monitor",
    );
    let tls = &monitor["spec"]["endpoints"][0]["tlsConfig"];
    assert_eq!(tls["serverName"], service);
    assert_eq!(tls["insecureSkipVerify"], false);
    assert_eq!(tls["ca"]["secret"]["name"], secret);
    // The manager mounts the Secret cert-manager writes and serves it (--metrics-cert-path).
    let pod =
        &find(&objects, "Deployment", "hardened-controller-manager")["spec"]["template"]["spec"];
    assert_serves_the_metrics_secret(pod, secret);
    let manager = &pod["containers"][0];
    // The policies admit the ports the manager serves on.
    let webhook_port = manager["ports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "webhook-server")
        .unwrap()["containerPort"]
        .clone();
    for (name, port) in [
        ("hardened-allow-metrics-traffic", json!(8443)),
        ("hardened-allow-webhook-traffic", webhook_port),
    ] {
        let policy = find(&objects, "NetworkPolicy", name);
        assert_eq!(
            policy["spec"]["ingress"][0]["ports"][0]["port"], port,
            "{name}"
        );
        assert_eq!(
            policy["spec"]["podSelector"]["matchLabels"],
            find(&objects, "Deployment", "hardened-controller-manager")["spec"]["selector"]["matchLabels"]
        );
    }
    // The API server takes every object (the namespace first: a dry run creates none).
    kubectl(&["create", "namespace", "hardened-system"], None);
    let dry_run = kubectl(
        &["apply", "--server-side", "--dry-run=server", "-f", "-"],
        Some(&hardened),
    );
    assert_eq!(
        dry_run
            .lines()
            .filter(|l| l.contains("(server dry run)"))
            .count(),
        objects.len(),
        "{dry_run}"
    );

    // The operator's chart, from the plain installer, deployed with the Makefile's targets:
    // its network policies on, then upgraded, rolled back and uninstalled.
    let output = crate::support::rusty(&root)
        .args(["edit", "--plugins=helm/v2-alpha"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        crate::support::transcript(&output, &root)
    );
    let make = |args: &[&str]| {
        // make with the environment the cluster's helm runs in (kubeconfig, helm's home).
        let mut command = std::process::Command::new(rusty_sdk_test_tools::path!(make));
        for (key, value) in tool_command("helm").get_envs() {
            if let Some(value) = value {
                command.env(key, value);
            }
        }
        command.current_dir(&root).args(args).args([
            &format!("HELM={}", rusty_sdk_test_tools::path!(helm)),
            "HELM_NAMESPACE=hardened-chart",
            "HELM_RELEASE=hardened",
        ]);
        run(command, None)
    };
    make(&[
        "helm-deploy",
        "IMG=example.com/hardened:v1",
        "HELM_EXTRA_ARGS=--set networkPolicy.enable=true --set metrics.certManager=true",
    ]);
    // The chart's metrics certificate, for the metrics Service, mounted where the manager
    // reads it.
    let certificate: Value = serde_json::from_str(&kubectl(
        &[
            "get",
            "certificate",
            "-n",
            "hardened-chart",
            "hardened-metrics-certs",
            "-o",
            "json",
        ],
        None,
    ))
    .unwrap();
    assert_eq!(
        certificate["spec"]["dnsNames"][0],
        "hardened-controller-manager-metrics-service.hardened-chart.svc"
    );
    let deployment: Value = serde_json::from_str(&kubectl(
        &[
            "get",
            "deployment",
            "-n",
            "hardened-chart",
            "hardened-controller-manager",
            "-o",
            "json",
        ],
        None,
    ))
    .unwrap();
    assert_serves_the_metrics_secret(
        &deployment["spec"]["template"]["spec"],
        certificate["spec"]["secretName"].as_str().unwrap(),
    );
    let policies: Value = serde_json::from_str(&kubectl(
        &["get", "networkpolicy", "-n", "hardened-chart", "-o", "json"],
        None,
    ))
    .unwrap();
    let mut ports: Vec<(String, Value)> = policies["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["metadata"]["name"].as_str().unwrap().to_string(),
                p["spec"]["ingress"][0]["ports"][0]["port"].clone(),
            )
        })
        .collect();
    ports.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        ports,
        [
            ("hardened-allow-metrics-traffic".to_string(), json!(8443)),
            ("hardened-allow-webhook-traffic".to_string(), json!(9443)),
        ]
    );
    let status = make(&["helm-status"]);
    assert!(status.contains("STATUS: deployed"), "{status}");
    make(&["helm-deploy", "IMG=example.com/hardened:v2"]);
    make(&["helm-rollback"]);
    let history = make(&["helm-history"]);
    assert_eq!(
        history
            .lines()
            .filter(|l| l.starts_with(char::is_numeric))
            .count(),
        3,
        "{history}"
    );
    let image = kubectl(
        &[
            "get",
            "deployment",
            "-n",
            "hardened-chart",
            "hardened-controller-manager",
            "-o",
            "jsonpath={.spec.template.spec.containers[0].image}",
        ],
        None,
    );
    assert_eq!(image, "example.com/hardened:v1", "the rollback restores v1");
    make(&["helm-uninstall"]);
    let left = kubectl(
        &["get", "networkpolicy", "-n", "hardened-chart", "-o", "name"],
        None,
    );
    assert!(left.trim().is_empty(), "{left}");
}
