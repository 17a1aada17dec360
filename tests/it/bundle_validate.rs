//! OLM bundles of projects with webhooks, and `bundle validate` (issue 28): the
//! webhook configurations and the CRD's conversion become the CSV's webhookdefinitions,
//! nothing OLM makes itself (webhook configurations, their Service, cert-manager objects,
//! fixed namespaces) is in the bundle, the bundle passes `bundle validate`, and broken
//! bundles each get a one-line finding naming the file and the field.
use std::path::{Path, PathBuf};

use rusty_sdk_test_tools::{needs, path};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::support::{read_tree, rusty, scaffold, transcript};

const CSV: &str = "bundle/manifests/hooked-bundle.clusterserviceversion.yaml";
const CRD: &str = "bundle/manifests/cache.my.domain_memcacheds.yaml";
const BASE: &str = "config/manifests/bases/hooked-bundle.clusterserviceversion.yaml";

/// A Rust project whose Memcached (v1 the hub, v2 a spoke) has defaulting, validation and
/// conversion webhooks.
fn webhook_project(dir: &Path, name: &str) -> PathBuf {
    let root = dir.join(name);
    scaffold(
        dir,
        &root,
        &[
            &format!("init --plugins rust --domain my.domain --repo github.com/example/{name}"),
            "create api --plugins rust --group cache --version v1 --kind Memcached --resource --controller",
            "create api --plugins rust --group cache --version v2 --kind Memcached --resource --controller=false",
            "create webhook --group cache --version v1 --kind Memcached --defaulting --programmatic-validation",
            "create webhook --group cache --version v1 --kind Memcached --conversion --spoke v2",
        ],
    );
    root
}

/// What `make manifests` writes into the CRD (crdgen, whose real output the end-to-end
/// test below bundles), for the tests that do not build the project: v2 served beside v1,
/// and the conversion.
fn add_conversion_as_make_manifests_does(root: &Path) {
    let path = root.join("config/crd/bases/cache.my.domain_memcacheds.yaml");
    let mut crd = yaml_file(&path);
    let mut v2 = crd["spec"]["versions"][0].clone();
    v2["name"] = json!("v2");
    v2["storage"] = json!(false);
    crd["spec"]["versions"].as_array_mut().unwrap().push(v2);
    crd["spec"]["conversion"] = json!({
        "strategy": "Webhook",
        "webhook": {
            "clientConfig": {"service": {"name": "webhook-service", "namespace": "system", "path": "/convert"}},
            "conversionReviewVersions": ["v1"],
        },
    });
    write_yaml(&path, &crd);
}

pub fn yaml_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let value: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    serde_json::to_value(value).unwrap()
}

fn write_yaml(path: &Path, value: &Value) {
    std::fs::write(path, serde_yaml::to_string(value).unwrap()).unwrap();
}

/// `kubectl kustomize config/manifests | rusty-sdk generate bundle --version 0.1.0`.
fn generate_bundle(root: &Path) -> std::process::Output {
    let manifests = crate::e2e::kustomize(root, "config/manifests");
    rusty(root)
        .args(["generate", "bundle", "--version", "0.1.0"])
        .write_stdin(manifests)
        .output()
        .unwrap()
}

fn validate(root: &Path, dir: &str) -> std::process::Output {
    rusty(root)
        .args(["bundle", "validate", dir])
        .output()
        .unwrap()
}

/// The webhooks of config/webhook/manifests.yaml (what `create webhook` wrote), by name.
fn configured_webhooks(root: &Path) -> Vec<(String, Value)> {
    let text = std::fs::read_to_string(root.join("config/webhook/manifests.yaml")).unwrap();
    serde_yaml::Deserializer::from_str(&text)
        .map(|doc| serde_json::to_value(serde_yaml::Value::deserialize(doc).unwrap()).unwrap())
        .filter(|doc| !doc.is_null())
        .flat_map(|config| {
            let kind = config["kind"].as_str().unwrap().to_string();
            config["webhooks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| (kind.clone(), w.clone()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// What the CSV says about the webhooks, checked against what the project configures.
fn assert_webhook_definitions(root: &Path, csv: &Value) {
    let definitions = csv["spec"]["webhookdefinitions"].as_array().unwrap();
    let deployment = csv["spec"]["install"]["spec"]["deployments"][0]["name"].clone();
    let types: Vec<&str> = definitions
        .iter()
        .map(|d| d["type"].as_str().unwrap())
        .collect();
    for wanted in [
        "MutatingAdmissionWebhook",
        "ValidatingAdmissionWebhook",
        "ConversionWebhook",
    ] {
        assert_eq!(
            types.iter().filter(|t| **t == wanted).count(),
            1,
            "{wanted} in {types:?}"
        );
    }
    for (kind, webhook) in configured_webhooks(root) {
        let definition = definitions
            .iter()
            .find(|d| d["generateName"] == webhook["name"])
            .unwrap_or_else(|| panic!("no definition of {}", webhook["name"]));
        let wanted_type = if kind == "MutatingWebhookConfiguration" {
            "MutatingAdmissionWebhook"
        } else {
            "ValidatingAdmissionWebhook"
        };
        assert_eq!(definition["type"], wanted_type);
        assert_eq!(definition["deploymentName"], deployment);
        assert_eq!(
            definition["webhookPath"],
            webhook["clientConfig"]["service"]["path"]
        );
        for field in [
            "rules",
            "failurePolicy",
            "sideEffects",
            "admissionReviewVersions",
        ] {
            assert_eq!(definition[field], webhook[field], "{field}");
        }
        // The webhook Service's port, and the manager's webhook port behind it.
        assert_eq!(definition["containerPort"], 443);
        assert_eq!(definition["targetPort"], 9443);
    }
    let conversion = definitions
        .iter()
        .find(|d| d["type"] == "ConversionWebhook")
        .unwrap();
    assert_eq!(
        conversion["conversionCRDs"],
        json!(["memcacheds.cache.my.domain"])
    );
    assert_eq!(conversion["webhookPath"], "/convert");
    assert_eq!(conversion["deploymentName"], deployment);
    assert_eq!(conversion["admissionReviewVersions"], json!(["v1"]));
    assert_eq!(conversion["targetPort"], 9443);
}

/// Nothing OLM makes itself is in bundle/manifests, and nothing there is pinned to a
/// namespace.
fn assert_nothing_olm_makes(root: &Path) {
    for (path, bytes) in read_tree(root) {
        if !path.starts_with("bundle/manifests/") {
            continue;
        }
        let object: serde_yaml::Value = serde_yaml::from_slice(&bytes).unwrap();
        let kind = object["kind"].as_str().unwrap();
        assert!(
            !matches!(
                kind,
                "MutatingWebhookConfiguration"
                    | "ValidatingWebhookConfiguration"
                    | "Certificate"
                    | "Issuer"
            ),
            "{path}: {kind} in the bundle"
        );
        assert!(
            !path.contains("webhook-service"),
            "{path}: OLM makes the webhook Service"
        );
        assert!(
            object["metadata"]["namespace"].is_null(),
            "{path}: a fixed namespace"
        );
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains("cert-manager"), "{path}: {text}");
    }
}

/// [`webhook_project`] as `make manifests` leaves it, with its bundle written.
pub fn bundled_webhook_project(dir: &Path) -> PathBuf {
    let root = webhook_project(dir, "hooked-bundle");
    add_conversion_as_make_manifests_does(&root);
    let output = generate_bundle(&root);
    assert!(output.status.success(), "{}", transcript(&output, &root));
    root
}

#[needs(kubectl)]
#[test]
fn webhooks_become_webhookdefinitions_and_the_bundle_validates() {
    let dir = tempfile::tempdir().unwrap();
    let root = bundled_webhook_project(dir.path());
    let csv = yaml_file(&root.join(CSV));
    assert_webhook_definitions(&root, &csv);
    assert_nothing_olm_makes(&root);

    // The CRD keeps its conversion (OLM writes the client config when it installs the CSV)
    // without cert-manager's CA injection.
    let crd = yaml_file(&root.join(CRD));
    assert_eq!(crd["spec"]["conversion"]["strategy"], "Webhook");
    assert!(crd["metadata"]["annotations"].is_null(), "{crd}");

    // OLM mounts its serving certificate at the manager's --webhook-cert-path: the
    // deployment mounts no Secret of cert-manager's, and watches the operator group's
    // namespaces.
    let pod = &csv["spec"]["install"]["spec"]["deployments"][0]["spec"]["template"]["spec"];
    let text = pod.to_string();
    assert!(!text.contains("webhook-server-cert"), "{text}");
    assert!(
        text.contains("--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs"),
        "{text}"
    );
    let env = pod["containers"][0]["env"].as_array().unwrap();
    let watch = env.iter().find(|e| e["name"] == "WATCH_NAMESPACE").unwrap();
    assert_eq!(
        watch["valueFrom"]["fieldRef"]["fieldPath"],
        "metadata.annotations['olm.targetNamespaces']"
    );

    let output = validate(&root, "bundle");
    let text = transcript(&output, &root);
    assert!(output.status.success(), "{text}");
    assert!(
        text.contains("bundle: hooked-bundle.v0.1.0 passes OLM's checks"),
        "{text}"
    );
    assert!(!text.contains("error"), "{text}");
}

/// A copy of the good bundle at `root/bundle`, as `name`, changed by `change`.
fn broken(root: &Path, name: &str, change: impl FnOnce(&Path)) -> String {
    let copy = root.join(name);
    for (path, bytes) in read_tree(&root.join("bundle")) {
        let to = copy.join(path);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, bytes).unwrap();
    }
    change(&copy);
    name.to_string()
}

fn edit_yaml(path: &Path, change: impl FnOnce(&mut Value)) {
    let mut value = yaml_file(path);
    change(&mut value);
    write_yaml(path, &value);
}

#[needs(kubectl)]
#[test]
fn broken_bundles_get_one_line_per_finding_naming_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let root = bundled_webhook_project(dir.path());
    let csv_file = |dir: &Path| dir.join("manifests/hooked-bundle.clusterserviceversion.yaml");
    let cases: Vec<(String, String)> = vec![
        (
            broken(&root, "no-crd", |b| {
                std::fs::remove_file(b.join("manifests/cache.my.domain_memcacheds.yaml")).unwrap();
            }),
            "no-crd/manifests/hooked-bundle.clusterserviceversion.yaml: spec.customresourcedefinitions.owned[0]: owns Memcached cache.my.domain/v1 (memcacheds.cache.my.domain), but no CRD in no-crd/manifests serves it".into(),
        ),
        (
            broken(&root, "bad-version", |b| {
                edit_yaml(&csv_file(b), |csv| csv["spec"]["version"] = json!("1.0"));
            }),
            "bad-version/manifests/hooked-bundle.clusterserviceversion.yaml: spec.version: \"1.0\" is not a semantic version".into(),
        ),
        (
            broken(&root, "no-deployment", |b| {
                edit_yaml(&csv_file(b), |csv| {
                    csv["spec"]["webhookdefinitions"][0]["deploymentName"] = json!("nowhere");
                });
            }),
            "no-deployment/manifests/hooked-bundle.clusterserviceversion.yaml: spec.webhookdefinitions[0].deploymentName: \"nowhere\" names no deployment of spec.install.spec.deployments".into(),
        ),
        (
            broken(&root, "own-namespace", |b| {
                edit_yaml(&csv_file(b), |csv| {
                    csv["spec"]["installModes"][0] = json!({"supported": true, "type": "OwnNamespace"});
                });
            }),
            "own-namespace/manifests/hooked-bundle.clusterserviceversion.yaml: spec.installModes: a conversion webhook needs AllNamespaces as the only supported install mode".into(),
        ),
        (
            broken(&root, "raw-webhooks", |b| {
                std::fs::copy(
                    root.join("config/webhook/manifests.yaml"),
                    b.join("manifests/webhooks.yaml"),
                )
                .unwrap();
            }),
            // The mutating one comes first in the file, and OLM reads only the first.
            "raw-webhooks/manifests/webhooks.yaml: kind: OLM does not install MutatingWebhookConfiguration objects from a registry+v1 bundle".into(),
        ),
        (
            broken(&root, "no-path", |b| {
                edit_yaml(&csv_file(b), |csv| {
                    let conversion = csv["spec"]["webhookdefinitions"]
                        .as_array_mut()
                        .unwrap()
                        .iter_mut()
                        .find(|d| d["type"] == "ConversionWebhook")
                        .unwrap();
                    conversion.as_object_mut().unwrap().remove("webhookPath");
                });
            }),
            "webhookPath: \"\": set the path the manager serves this webhook on (/convert for rusty-sdk's conversion webhooks)".into(),
        ),
        (
            broken(&root, "default-channel", |b| {
                edit_yaml(&b.join("metadata/annotations.yaml"), |a| {
                    a["annotations"]["operators.operatorframework.io.bundle.channel.default.v1"] =
                        json!("stable");
                });
            }),
            "default-channel/metadata/annotations.yaml: operators.operatorframework.io.bundle.channel.default.v1: \"stable\" is not one of the channels \"alpha\"".into(),
        ),
        (
            broken(&root, "no-package", |b| {
                edit_yaml(&b.join("metadata/annotations.yaml"), |a| {
                    a["annotations"]
                        .as_object_mut()
                        .unwrap()
                        .remove("operators.operatorframework.io.bundle.package.v1");
                });
            }),
            "no-package/metadata/annotations.yaml: operators.operatorframework.io.bundle.package.v1: missing".into(),
        ),
        (
            broken(&root, "unowned-crd", |b| {
                edit_yaml(&csv_file(b), |csv| {
                    csv["spec"]["customresourcedefinitions"]["owned"] = json!([]);
                    csv["metadata"]["annotations"]["alm-examples"] = json!("[]");
                    csv["spec"]["webhookdefinitions"]
                        .as_array_mut()
                        .unwrap()
                        .retain(|d| d["type"] != "ConversionWebhook");
                });
            }),
            "unowned-crd/manifests/cache.my.domain_memcacheds.yaml: the CRD of Memcached cache.my.domain/v1 is in the bundle but the CSV does not own it".into(),
        ),
        (
            broken(&root, "unserved", |b| {
                edit_yaml(&b.join("manifests/cache.my.domain_memcacheds.yaml"), |crd| {
                    crd["spec"]["versions"][1]["served"] = json!(false);
                });
            }),
            // OLM's requirement check keeps such a CSV Pending: "CRD version not served".
            "unserved/manifests/hooked-bundle.clusterserviceversion.yaml: spec.customresourcedefinitions.owned[1].version: owns Memcached cache.my.domain/v2, which unserved/manifests/cache.my.domain_memcacheds.yaml does not serve".into(),
        ),
        (
            broken(&root, "two-storage", |b| {
                edit_yaml(&b.join("manifests/cache.my.domain_memcacheds.yaml"), |crd| {
                    crd["spec"]["versions"][1]["storage"] = json!(true);
                });
            }),
            "two-storage/manifests/cache.my.domain_memcacheds.yaml: spec.versions: exactly one version must have storage: true".into(),
        ),
        (
            broken(&root, "min-kube", |b| {
                edit_yaml(&csv_file(b), |csv| csv["spec"]["minKubeVersion"] = json!("1.31"));
            }),
            "min-kube/manifests/hooked-bundle.clusterserviceversion.yaml: spec.minKubeVersion: \"1.31\" is not a semantic version".into(),
        ),
        (
            broken(&root, "skip-range", |b| {
                edit_yaml(&csv_file(b), |csv| {
                    csv["metadata"]["annotations"]["olm.skiprange"] = json!(">=0.0.1 <0.1.0");
                });
            }),
            "skip-range/manifests/hooked-bundle.clusterserviceversion.yaml: metadata.annotations.olm.skiprange: OLM reads this annotation only as olm.skipRange".into(),
        ),
        (
            broken(&root, "olm-examples", |b| {
                edit_yaml(&csv_file(b), |csv| {
                    let annotations = csv["metadata"]["annotations"].as_object_mut().unwrap();
                    annotations.remove("alm-examples");
                    annotations.insert(
                        "olm.examples".into(),
                        json!(r#"[{"apiVersion": "other.io/v1", "kind": "Backup"}]"#),
                    );
                });
            }),
            "olm-examples/manifests/hooked-bundle.clusterserviceversion.yaml: metadata.annotations.olm.examples: an example of Backup other.io/v1, which the CSV does not own".into(),
        ),
        (
            // A Dockerfile in the bundle's folder that copies its metadata, one label off.
            broken(&root, "label-off", |b| {
                let dockerfile = std::fs::read_to_string(root.join("bundle.Dockerfile")).unwrap();
                let edited = dockerfile
                    .replace("COPY bundle/", "COPY ")
                    .replace("channels.v1=alpha", "channels.v1=alpha,stable");
                assert_ne!(edited, dockerfile);
                std::fs::write(b.join("bundle.Dockerfile"), edited).unwrap();
            }),
            "label-off/bundle.Dockerfile: LABEL operators.operatorframework.io.bundle.channels.v1: is \"alpha,stable\", but label-off/metadata/annotations.yaml says \"alpha\"".into(),
        ),
        (
            // bundle.Dockerfile beside the bundle's folder, as make bundle writes it, one
            // label short.
            broken(&root, "beside/bundle", |b| {
                let dockerfile = std::fs::read_to_string(root.join("bundle.Dockerfile")).unwrap();
                let edited: String = dockerfile
                    .lines()
                    .filter(|l| !l.contains("bundle.package.v1="))
                    .map(|l| format!("{l}\n"))
                    .collect();
                assert_ne!(edited, dockerfile);
                std::fs::write(b.parent().unwrap().join("bundle.Dockerfile"), edited).unwrap();
            }),
            "beside/bundle.Dockerfile: LABEL operators.operatorframework.io.bundle.package.v1: missing, but beside/bundle/metadata/annotations.yaml sets it to \"hooked-bundle\"".into(),
        ),
        (
            broken(&root, "related-image", |b| {
                edit_yaml(&csv_file(b), |csv| {
                    csv["spec"]["relatedImages"] =
                        json!([{"name": "memcached", "image": "example.com/memcached@sha256:abc"}]);
                });
            }),
            "related-image/manifests/hooked-bundle.clusterserviceversion.yaml: spec.relatedImages[0].image: \"example.com/memcached@sha256:abc\" is not an image reference".into(),
        ),
        (
            broken(&root, "too-big", |b| {
                // 2 MB of hexadecimal digits (pseudo-random, so gzip halves them at best).
                let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
                let digits: String = (0..2_000_000)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        char::from_digit((state % 16) as u32, 16).unwrap()
                    })
                    .collect();
                let config = json!({
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": "big"},
                    "data": {"blob": digits},
                });
                write_yaml(&b.join("manifests/big_v1_configmap.yaml"), &config);
            }),
            "error: too-big: its files take 1".into(),
        ),
    ];
    for (dir, expected) in cases {
        let before = read_tree(&root);
        let output = validate(&root, &dir);
        let text = transcript(&output, &root);
        assert_eq!(output.status.code(), Some(1), "{dir}: {text}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let errors: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("error: "))
            .collect();
        // The findings, one line each, and the summary line last.
        let (summary, findings) = errors.split_last().unwrap();
        assert!(
            findings.iter().any(|f| f.contains(&expected)),
            "{dir}: expected {expected:?}\n{text}"
        );
        assert!(
            summary.starts_with(&format!(
                "error: {dir}: {} error(s) by OLM's rules",
                findings.len()
            )),
            "{text}"
        );
        assert!(read_tree(&root) == before, "{dir}: validate wrote files");
    }

    // A bundle written elsewhere (--output-dir) is copied by the project's bundle.Dockerfile,
    // whose labels must agree with its annotations too.
    let manifests = crate::e2e::kustomize(&root, "config/manifests");
    let output = rusty(&root)
        .args([
            "generate",
            "bundle",
            "--version",
            "0.1.0",
            "--output-dir",
            "out/olm",
        ])
        .write_stdin(manifests)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &root));
    assert!(validate(&root, "out/olm").status.success());
    let dockerfile = root.join("bundle.Dockerfile");
    let text = std::fs::read_to_string(&dockerfile).unwrap();
    assert!(text.contains("COPY out/olm/metadata /metadata/"), "{text}");
    std::fs::write(
        &dockerfile,
        text.replace("default.v1=alpha", "default.v1=beta"),
    )
    .unwrap();
    let output = validate(&root, "out/olm");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error: bundle.Dockerfile: LABEL operators.operatorframework.io.bundle.channel.default.v1: is \"beta\", but out/olm/metadata/annotations.yaml says \"alpha\""),
        "{stderr}"
    );

    // Not a bundle at all.
    let output = validate(&root, "missing");
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("error: \"missing\": no such folder"),
        "{}",
        transcript(&output, &root)
    );

    // generate bundle runs the same rules before it writes: a base that lets the operator
    // watch its own namespace cannot carry a conversion webhook, and nothing is written.
    let base = std::fs::read_to_string(root.join(BASE)).unwrap();
    let own = base.replace(
        "supported: false\n    type: OwnNamespace",
        "supported: true\n    type: OwnNamespace",
    );
    assert_ne!(own, base, "the base changed shape; update the edit above");
    std::fs::write(root.join(BASE), own).unwrap();
    let before = read_tree(&root);
    let output = generate_bundle(&root);
    crate::support::assert_refused(
        &output,
        &root,
        "the bundle would not pass OLM's checks: bundle/manifests/hooked-bundle.clusterserviceversion.yaml: spec.installModes: a conversion webhook needs AllNamespaces",
        &before,
    );
}

/// `make bundle` on the project as its user runs it: `make manifests` builds crdgen, whose
/// CRD carries the conversion, and the bundle is validated after it is written.
#[needs(e2e, kubectl, make)]
#[test]
fn make_bundle_writes_a_bundle_that_validates() {
    let (_dir, root) = crate::e2e::project_dir("bundled-hooks-operator");
    let parent = root.parent().unwrap().to_path_buf();
    std::fs::remove_dir(&root).unwrap();
    let root = webhook_project(&parent, "bundled-hooks-operator");
    let bin = assert_cmd::cargo::cargo_bin("rusty-sdk");
    let output = {
        let _guard = crate::e2e::CARGO
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        crate::e2e::command(&root, path!(make))
            .arg("bundle")
            .arg("VERSION=0.1.0")
            .arg("IMG=example.com/bundled-hooks-operator:v0.1.0")
            .arg(format!("RUSTY_SDK={}", bin.display()))
            .arg(format!("KUBECTL={}", crate::e2e::kubectl()))
            .output()
            .unwrap()
    };
    let text = transcript(&output, &root);
    assert!(output.status.success(), "{text}");
    assert!(
        text.contains("bundle: bundled-hooks-operator.v0.1.0 passes OLM's checks"),
        "{text}"
    );
    let csv =
        yaml_file(&root.join("bundle/manifests/bundled-hooks-operator.clusterserviceversion.yaml"));
    assert_webhook_definitions(&root, &csv);
    assert_nothing_olm_makes(&root);
    let crd = yaml_file(&root.join(CRD));
    assert_eq!(crd["spec"]["conversion"]["strategy"], "Webhook", "{crd}");
}

/// What a bundle folder may hold that is not a manifest: each is a finding on one line,
/// read without hanging (a FIFO) or blowing up (an alias bomb).
#[needs(kubectl)]
#[test]
fn hostile_files_in_a_bundle_are_one_line_findings() {
    let dir = tempfile::tempdir().unwrap();
    let root = bundled_webhook_project(dir.path());
    let manifests = root.join("bundle/manifests");
    std::fs::create_dir(manifests.join("nested")).unwrap();
    std::fs::write(manifests.join("bad\nname.yaml"), "kind: [").unwrap();
    let bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n";
    std::fs::write(manifests.join("bomb.yaml"), bomb).unwrap();
    let fifo = manifests.join("fifo.yaml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let output = validate(&root, "bundle");
    let text = transcript(&output, &root);
    assert_eq!(output.status.code(), Some(1), "{text}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    for expected in [
        "error: bundle/manifests/nested: a folder",
        "error: bundle/manifests/bad\\nname.yaml: not valid YAML",
        "error: bundle/manifests/bomb.yaml: not valid YAML",
        "error: bundle/manifests/fifo.yaml: cannot be read (not a regular file",
        "error: bundle: 4 error(s) by OLM's rules",
    ] {
        assert!(
            stderr.lines().any(|l| l.starts_with(expected)),
            "{expected}\n{text}"
        );
    }
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with("error: ")).count(),
        5,
        "{text}"
    );
}
