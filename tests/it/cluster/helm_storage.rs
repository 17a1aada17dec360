//! The release engine's storage against the real `helm` v4.2.3 CLI, with both of Helm's
//! cluster drivers: records helm writes decode and re-encode to the very JSON helm stored,
//! records the engine writes are what `helm list`, `helm history` and `helm get` show (and
//! what the next `helm upgrade` builds on), and pruning leaves what `--history-max` leaves.
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::Api;
use rusty_sdk_runtime::helm::engine_storage::Records;
use rusty_sdk_test_tools::needs;
use serde_json::{Value, json};

use super::cluster;

/// The chart of the engine's record tests (escapes, floats, a lock, a schema, a hook).
const TINY: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/crates/runtime/src/helm/engine/testdata/tiny"
);
const DRIVERS: [&str; 2] = ["secret", "configmap"];

/// Run the control plane's helm with `HELM_DRIVER=driver`; its stdout.
fn helm(driver: &str, args: &[&str]) -> String {
    let output = helm_output(driver, args);
    assert!(
        output.status.success(),
        "`helm {}` failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn helm_output(driver: &str, args: &[&str]) -> std::process::Output {
    super::operator::tool_command("helm")
        .args(args)
        .env("HELM_DRIVER", driver)
        .output()
        .unwrap_or_else(|e| panic!("helm could not start: {e}"))
}

fn helm_json(driver: &str, args: &[&str]) -> Value {
    let text = helm(driver, args);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("helm printed no JSON ({e}): {text}"))
}

async fn setup(prefix: &str, driver: &str) -> (kube::Client, String, Records) {
    let client = cluster().client().await.unwrap();
    let ns = cluster().create_namespace(&client, prefix).await.unwrap();
    let records = Records::new(client.clone(), driver).unwrap();
    (client, ns, records)
}

/// The release JSON exactly as helm stored it in revision `version`'s object, unpacked
/// with coreutils (base64, gunzip), not with the engine.
async fn stored_json(
    client: &kube::Client,
    driver: &str,
    ns: &str,
    name: &str,
    version: u32,
) -> String {
    let key = format!("sh.helm.release.v1.{name}.v{version}");
    let encoded = if driver == "secret" {
        let secret = Api::<Secret>::namespaced(client.clone(), ns)
            .get(&key)
            .await
            .unwrap();
        String::from_utf8(secret.data.unwrap()["release"].0.clone()).unwrap()
    } else {
        let map = Api::<ConfigMap>::namespaced(client.clone(), ns)
            .get(&key)
            .await
            .unwrap();
        map.data.unwrap()["release"].clone()
    };
    let mut child = Command::new("sh")
        .args(["-c", "base64 -d | gunzip"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(encoded.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{key} is not base64 of gzip");
    String::from_utf8(output.stdout).unwrap()
}

/// The object labels of revision `version`.
async fn object_labels(
    client: &kube::Client,
    driver: &str,
    ns: &str,
    name: &str,
    version: u32,
) -> Value {
    let key = format!("sh.helm.release.v1.{name}.v{version}");
    let labels = if driver == "secret" {
        Api::<Secret>::namespaced(client.clone(), ns)
            .get(&key)
            .await
            .unwrap()
            .metadata
            .labels
    } else {
        Api::<ConfigMap>::namespaced(client.clone(), ns)
            .get(&key)
            .await
            .unwrap()
            .metadata
            .labels
    };
    serde_json::to_value(labels.unwrap_or_default()).unwrap()
}

#[needs(control_plane, helm)]
#[tokio::test]
async fn records_helm_writes_decode_and_reencode_to_the_json_helm_stored() {
    for driver in DRIVERS {
        let (client, ns, records) = setup("helm-storage-read", driver).await;
        helm(
            driver,
            &[
                "install",
                "tiny",
                TINY,
                "-n",
                &ns,
                "--set",
                "b=2,a.c=x<y,a.b=1.25",
            ],
        );
        helm(
            driver,
            &[
                "upgrade",
                "tiny",
                TINY,
                "-n",
                &ns,
                "--set",
                "b=3,z=0.000001",
            ],
        );

        let ours = records.history_json(&ns, "tiny").await.unwrap();
        assert_eq!(ours.len(), 2, "{driver}: two revisions");
        for (version, json) in (1..).zip(&ours) {
            let stored = stored_json(&client, driver, &ns, "tiny", version).await;
            assert_eq!(json, &stored, "{driver}: revision {version} re-encoded");
        }
        assert_eq!(
            records.latest_and_deployed(&ns, "tiny").await.unwrap(),
            (Some(2), Some(2)),
            "{driver}"
        );
        // `helm get values` and our decoded config agree.
        let config = records.get(&ns, "tiny", 2).await.unwrap().unwrap()["config"].clone();
        assert_eq!(
            config,
            helm_json(driver, &["get", "values", "tiny", "-n", &ns, "-o", "json"])
        );
        assert_eq!(config, json!({"b": 3, "z": "0.000001"}), "{driver}");
    }
}

#[needs(control_plane, helm)]
#[tokio::test]
async fn helm_lists_shows_and_upgrades_records_the_engine_writes() {
    for driver in DRIVERS {
        let (client, ns, records) = setup("helm-storage-write", driver).await;
        helm(
            driver,
            &["install", "tiny", TINY, "-n", &ns, "--set", "b=2"],
        );

        // Revision 2 written by the engine: a copy of helm's with new values, a changed
        // manifest and an upgrade's status; revision 1 superseded by an update.
        let first = records.get(&ns, "tiny", 1).await.unwrap().unwrap();
        let mut second = first.clone();
        let manifest = format!(
            "{}# engine <&> revision\n",
            first["manifest"].as_str().unwrap()
        );
        second["version"] = json!(2);
        second["manifest"] = json!(manifest);
        second["config"] = json!({"zeta": 7, "alpha": {"zz": 2.5, "text": "<&>"}});
        second["info"]["status"] = json!("deployed");
        second["info"]["description"] = json!("Upgrade complete");
        second["info"]["last_deployed"] = json!("2026-11-27T10:11:12.5+01:00");
        second["labels"] = json!({"team": "engine"});
        records.create(second.clone()).await.unwrap();
        let mut superseded = first.clone();
        superseded["info"]["status"] = json!("superseded");
        records.update(superseded).await.unwrap();
        // A revision that exists is not created twice.
        let again = records.create(second.clone()).await.unwrap_err();
        assert!(again.contains("already exists"), "{again}");

        let history = helm_json(driver, &["history", "tiny", "-n", &ns, "-o", "json"]);
        let summary: Vec<Value> = history
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                json!([
                    r["revision"],
                    r["status"],
                    r["chart"],
                    r["app_version"],
                    r["description"]
                ])
            })
            .collect();
        assert_eq!(
            summary,
            [
                json!([1, "superseded", "tiny-0.2.0", "1.0", "Install complete"]),
                json!([2, "deployed", "tiny-0.2.0", "1.0", "Upgrade complete"]),
            ],
            "{driver}"
        );
        let list = helm_json(driver, &["list", "-n", &ns, "-o", "json"]);
        let list: Vec<Value> = list
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                json!([
                    r["name"],
                    r["revision"],
                    r["status"],
                    r["chart"],
                    r["updated"]
                ])
            })
            .collect();
        assert_eq!(
            list,
            [json!([
                "tiny",
                "2",
                "deployed",
                "tiny-0.2.0",
                "2026-11-27 10:11:12.5 +0100 +0100"
            ])],
            "{driver}"
        );
        assert_eq!(
            helm(driver, &["get", "manifest", "tiny", "-n", &ns]),
            format!("{manifest}\n"),
            "{driver}"
        );
        assert_eq!(
            helm_json(driver, &["get", "values", "tiny", "-n", &ns, "-o", "json"]),
            json!({"alpha": {"text": "<&>", "zz": 2.5}, "zeta": 7}),
            "{driver}"
        );
        assert_eq!(
            helm_json(
                driver,
                &[
                    "get",
                    "values",
                    "tiny",
                    "-n",
                    &ns,
                    "--revision",
                    "1",
                    "-o",
                    "json"
                ]
            ),
            json!({"b": 2}),
            "{driver}"
        );
        // Helm's labels on our objects: the release's own, the driver's, createdAt on a
        // new object and modifiedAt on an updated one.
        let labels = object_labels(&client, driver, &ns, "tiny", 2).await;
        assert_eq!(
            (
                &labels["team"],
                &labels["name"],
                &labels["owner"],
                &labels["status"],
                &labels["version"]
            ),
            (
                &json!("engine"),
                &json!("tiny"),
                &json!("helm"),
                &json!("deployed"),
                &json!("2")
            ),
            "{driver}"
        );
        assert!(
            labels["createdAt"]
                .as_str()
                .is_some_and(|t| t.parse::<i64>().is_ok()),
            "{labels}"
        );
        let labels = object_labels(&client, driver, &ns, "tiny", 1).await;
        assert!(
            labels["modifiedAt"].is_string() && labels["createdAt"].is_null(),
            "{labels}"
        );
        assert_eq!(labels["status"], "superseded");

        // The CLI takes the next turn on the engine's revision.
        helm(
            driver,
            &["upgrade", "tiny", TINY, "-n", &ns, "--reuse-values"],
        );
        let third = records.get(&ns, "tiny", 3).await.unwrap().unwrap();
        assert_eq!(
            third["config"],
            json!({"alpha": {"text": "<&>", "zz": 2.5}, "zeta": 7})
        );
        assert_eq!(third["info"]["status"], "deployed");
        assert_eq!(
            records.get(&ns, "tiny", 2).await.unwrap().unwrap()["info"]["status"],
            "superseded"
        );
        // helm keeps the release's labels it read from our object.
        assert_eq!(
            records.get(&ns, "tiny", 3).await.unwrap().unwrap()["labels"],
            json!({"team": "engine"})
        );
    }
}

/// A chart whose ConfigMap takes its name from the values: an invalid name makes an
/// upgrade fail at the API server, leaving a `failed` revision.
fn failing_chart(dir: &Path) {
    std::fs::create_dir_all(dir.join("templates")).unwrap();
    std::fs::write(
        dir.join("Chart.yaml"),
        "apiVersion: v2\nname: prune\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(dir.join("values.yaml"), "name: good\n").unwrap();
    std::fs::write(
        dir.join("templates/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\ndata:\n  rev: {{ .Release.Revision | quote }}\n",
    )
    .unwrap();
}

#[needs(control_plane, helm)]
#[tokio::test]
async fn pruning_leaves_what_helm_history_max_leaves() {
    let dir = tempfile::tempdir().unwrap();
    failing_chart(dir.path());
    let chart = dir.path().to_str().unwrap();
    // Two good revisions, then three failed upgrades: the last deployed (2) is older
    // than the revisions pruning reaches, and must stay.
    let steps: [&[&str]; 5] = [
        &["install", "p", chart],
        &["upgrade", "p", chart, "--set", "name=still-good"],
        &["upgrade", "p", chart, "--set", "name=Bad_Name"],
        &["upgrade", "p", chart, "--set", "name=Bad_Name2"],
        &["upgrade", "p", chart, "--set", "name=Bad_Name3"],
    ];
    for driver in DRIVERS {
        let (_, helm_ns, records) = setup("helm-storage-max", driver).await;
        let (_, our_ns, _) = setup("helm-storage-prune", driver).await;
        for (step, args) in steps.iter().enumerate() {
            let upgrade = step > 0;
            // Helm prunes to N-1 before it stores a revision under --history-max N.
            let mut with_max = args.to_vec();
            with_max.extend(["-n", &helm_ns]);
            if upgrade {
                with_max.extend(["--history-max", "3"]);
            }
            let mut without = args.to_vec();
            without.extend(["-n", &our_ns]);
            if upgrade {
                // No limit: only the engine prunes here.
                without.extend(["--history-max", "0"]);
            }
            if upgrade {
                records.prune(&our_ns, "p", 2).await.unwrap();
            }
            let expect_ok = step < 2;
            for (ns, args) in [(&helm_ns, with_max), (&our_ns, without)] {
                let output = helm_output(driver, &args);
                assert_eq!(
                    output.status.success(),
                    expect_ok,
                    "{driver} {ns} step {step}: {}",
                    String::from_utf8_lossy(&output.stderr)
                );
            }
        }
        let revisions = |ns: &str| {
            let history = helm_json(driver, &["history", "p", "-n", ns, "-o", "json"]);
            history
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    (
                        r["revision"].as_u64().unwrap(),
                        r["status"].as_str().unwrap().to_string(),
                    )
                })
                .collect::<Vec<_>>()
        };
        let helm_left = revisions(&helm_ns);
        assert_eq!(
            helm_left,
            [
                (2, "deployed".to_string()),
                (4, "failed".to_string()),
                (5, "failed".to_string())
            ],
            "{driver}: what helm --history-max 3 leaves"
        );
        assert_eq!(
            revisions(&our_ns),
            helm_left,
            "{driver}: what our pruning leaves"
        );
    }
}
