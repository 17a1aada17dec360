//! HelmCli against a stub `helm` script that records its arguments and prints canned output.
use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use super::*;
use crate::helm::ReleaseStatus;

const RELEASE_JSON: &str = r#"{"name":"mc","namespace":"apps","version":2,
 "info":{"status":"deployed","notes":"Memcached is ready","description":"Upgrade complete",
         "first_deployed":"2026-01-01T00:00:00Z"},
 "chart":{"metadata":{"name":"memcached","version":"0.1.0","appVersion":"1.6.29"},"templates":[]},
 "config":{"replicaCount":3},
 "manifest":"---\n# Source: memcached/templates/deployment.yaml\nkind: Deployment\n"}"#;

/// A stub helm in a temp dir. It appends its argv (one per line, then `--`) to `argv`,
/// copies the `-f` values file to `values.json`, prints `stdout`, `stderr` and exits with `exit`.
struct StubHelm {
    dir: tempfile::TempDir,
    // Stub tests run one at a time: a script written while another test forks can fail
    // to exec with ETXTBSY (the child briefly holds the write descriptor).
    _serial: std::sync::MutexGuard<'static, ()>,
}

static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl StubHelm {
    fn new(stdout: &str, stderr: &str, exit: i32) -> Self {
        let serial = SERIAL
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        std::fs::write(dir.path().join("stdout"), stdout).unwrap();
        std::fs::write(dir.path().join("stderr"), stderr).unwrap();
        let script = format!(
            "#!/bin/sh\n\
             for a in \"$@\"; do printf '%s\\n' \"$a\" >> '{d}/argv'; done\n\
             printf -- '--\\n' >> '{d}/argv'\n\
             prev=''\n\
             for a in \"$@\"; do if [ \"$prev\" = '-f' ]; then cat \"$a\" > '{d}/values.json'; fi; prev=\"$a\"; done\n\
             cat '{d}/stdout'\n\
             cat '{d}/stderr' >&2\n\
             exit {exit}\n"
        );
        Self::from_script(dir, serial, &script)
    }

    /// A stub running `script` (tests that need another behaviour).
    fn with_script(script: &str) -> Self {
        let serial = SERIAL
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Self::from_script(tempfile::tempdir().unwrap(), serial, script)
    }

    fn from_script(
        dir: tempfile::TempDir,
        serial: std::sync::MutexGuard<'static, ()>,
        script: &str,
    ) -> Self {
        let path = dir.path().join("helm");
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        StubHelm {
            dir,
            _serial: serial,
        }
    }

    /// A Helm 3 client (the version is not asked); see `helm4_flags...` for detection.
    fn client(&self) -> HelmCli {
        HelmCli::with_binary(self.dir.path().join("helm")).with_major_version(3)
    }

    /// The recorded invocations, with the temp values path replaced by `<values>`.
    fn calls(&self) -> Vec<Vec<String>> {
        let text = std::fs::read_to_string(self.dir.path().join("argv")).unwrap_or_default();
        let mut calls = Vec::new();
        let mut current: Vec<String> = Vec::new();
        for line in text.lines() {
            if line == "--" {
                calls.push(std::mem::take(&mut current));
            } else if current.last().is_some_and(|a| a == "-f") {
                assert!(line.ends_with(".json"), "values file {line}");
                current.push("<values>".into());
            } else {
                current.push(line.to_string());
            }
        }
        calls
    }

    fn values(&self) -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(self.dir.path().join("values.json")).unwrap())
            .unwrap()
    }
}

fn target() -> ReleaseTarget {
    ReleaseTarget::new("mc", "apps")
}

fn args(line: &str) -> Vec<String> {
    line.split(' ').map(String::from).collect()
}

fn expected_release() -> Release {
    Release {
        name: "mc".into(),
        namespace: "apps".into(),
        version: 2,
        status: ReleaseStatus::Deployed,
        manifest: "---\n# Source: memcached/templates/deployment.yaml\nkind: Deployment\n".into(),
        notes: "Memcached is ready".into(),
        description: "Upgrade complete".into(),
        chart: "memcached-0.1.0".into(),
        app_version: "1.6.29".into(),
        last_deployed: None,
        labels: Default::default(),
    }
}

#[tokio::test]
async fn install_passes_values_file_and_parses_the_release() {
    let stub = StubHelm::new(RELEASE_JSON, "", 0);
    let values = json!({"replicaCount": 3, "image": {"tag": "1.6"}});
    let options = InstallOptions {
        disable_hooks: true,
        description: Some("by operator".into()),
        ..InstallOptions::default()
    };
    let release = stub
        .client()
        .install(
            &target(),
            Path::new("helm-charts/memcached"),
            &values,
            &options,
        )
        .await
        .unwrap();
    assert_eq!(release, expected_release());
    let mut want = args(
        "install mc helm-charts/memcached -n apps -f <values> -o json --timeout 300s --no-hooks --description",
    );
    want.push("by operator".into());
    assert_eq!(stub.calls(), vec![want]);
    assert_eq!(stub.values(), values);
}

#[tokio::test]
async fn install_without_options_has_no_extra_flags() {
    let stub = StubHelm::new(RELEASE_JSON, "", 0);
    stub.client()
        .install(
            &target(),
            Path::new("chart.tgz"),
            &json!({}),
            &InstallOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        stub.calls(),
        vec![args(
            "install mc chart.tgz -n apps -f <values> -o json --timeout 300s"
        )]
    );
    assert_eq!(stub.values(), json!({}));
}

#[tokio::test]
async fn upgrade_and_dry_run_flags() {
    let stub = StubHelm::new(RELEASE_JSON, "", 0);
    let client = stub.client();
    let chart = Path::new("charts/mc");
    let dry = UpgradeOptions {
        max_history: Some(10),
        dry_run: Some(DryRun::Server),
        ..UpgradeOptions::default()
    };
    client
        .upgrade(&target(), chart, &json!({"a": 1}), &dry)
        .await
        .unwrap();
    let real = UpgradeOptions {
        force: true,
        disable_hooks: true,
        max_history: Some(0),
        reset_values: true,
        ..UpgradeOptions::default()
    };
    client
        .upgrade(&target(), chart, &json!({"a": 2}), &real)
        .await
        .unwrap();
    let client_side = UpgradeOptions {
        dry_run: Some(DryRun::Client),
        ..UpgradeOptions::default()
    };
    client
        .upgrade(&target(), chart, &json!({}), &client_side)
        .await
        .unwrap();
    assert_eq!(
        stub.calls(),
        vec![
            args(
                "upgrade mc charts/mc -n apps -f <values> -o json --history-max 10 --timeout 300s --dry-run=server"
            ),
            args(
                "upgrade mc charts/mc -n apps -f <values> -o json --history-max 0 --force --reset-values --timeout 300s --no-hooks"
            ),
            args(
                "upgrade mc charts/mc -n apps -f <values> -o json --timeout 300s --dry-run=client"
            ),
        ]
    );
}

#[tokio::test]
async fn uninstall_waits_and_ignores_missing_releases() {
    let stub = StubHelm::new("release \"mc\" uninstalled\n", "", 0);
    let client = stub.client();
    client
        .uninstall(&target(), &UninstallOptions::default())
        .await
        .unwrap();
    let options = UninstallOptions {
        disable_hooks: true,
        description: Some("bye".into()),
    };
    client.uninstall(&target(), &options).await.unwrap();
    assert_eq!(
        stub.calls(),
        vec![
            args("uninstall mc -n apps --wait --ignore-not-found --timeout 300s"),
            args(
                "uninstall mc -n apps --wait --ignore-not-found --timeout 300s --no-hooks --description bye"
            ),
        ]
    );
}

#[tokio::test]
async fn get_reads_status_json() {
    let stub = StubHelm::new(RELEASE_JSON, "", 0);
    let release = stub.client().get(&target()).await.unwrap();
    assert_eq!(release, Some(expected_release()));
    assert_eq!(stub.calls(), vec![args("status mc -n apps -o json")]);
}

#[tokio::test]
async fn get_of_a_missing_release_is_none() {
    let stub = StubHelm::new("", "Error: release: not found\n", 1);
    assert_eq!(stub.client().get(&target()).await.unwrap(), None);
    assert!(stub.client().history(&target()).await.unwrap().is_empty());
    assert_eq!(
        stub.calls(),
        vec![
            args("status mc -n apps -o json"),
            args("history mc -n apps -o json")
        ]
    );
}

#[tokio::test]
async fn history_parses_revisions() {
    let stub = StubHelm::new(
        r#"[{"revision":1,"updated":"2026-01-01T00:00:00Z","status":"superseded","chart":"memcached-0.1.0","app_version":"1.6","description":"Install complete"},
            {"revision":2,"updated":"2026-01-02T00:00:00Z","status":"pending-upgrade","chart":"memcached-0.1.0","app_version":"1.6","description":"Preparing upgrade"}]"#,
        "",
        0,
    );
    let history = stub.client().history(&target()).await.unwrap();
    assert_eq!(
        history
            .iter()
            .map(|r| (r.revision, r.status))
            .collect::<Vec<_>>(),
        vec![
            (1, ReleaseStatus::Superseded),
            (2, ReleaseStatus::PendingUpgrade)
        ]
    );
    assert_eq!(history[0].description, "Install complete");
}

#[tokio::test]
async fn rollback_flags() {
    let stub = StubHelm::new("Rollback was a success! Happy Helming!\n", "", 0);
    let client = stub.client();
    let options = RollbackOptions {
        force: true,
        max_history: Some(10),
    };
    client.rollback(&target(), Some(3), &options).await.unwrap();
    client
        .rollback(&target(), None, &RollbackOptions::default())
        .await
        .unwrap();
    assert_eq!(
        stub.calls(),
        vec![
            args("rollback mc 3 -n apps --force --history-max 10 --timeout 300s"),
            args("rollback mc -n apps --timeout 300s"),
        ]
    );
}

#[tokio::test]
async fn failures_carry_trimmed_stderr() {
    let stub = StubHelm::new(
        "",
        "\nError: INSTALLATION FAILED: Deployment.apps \"mc\" is invalid: spec.replicas: Invalid value: -1\n\n",
        1,
    );
    let client = stub.client();
    let error = client
        .install(
            &target(),
            Path::new("c"),
            &json!({}),
            &InstallOptions::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "helm install of release apps/mc failed: Error: INSTALLATION FAILED: Deployment.apps \"mc\" \
         is invalid: spec.replicas: Invalid value: -1"
    );
    let error = client.get(&target()).await.unwrap_err();
    assert!(
        matches!(
            error,
            HelmError::Command {
                operation: "status",
                ..
            }
        ),
        "{error}"
    );
    let error = client
        .uninstall(&target(), &UninstallOptions::default())
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("helm uninstall of release apps/mc failed: Error: INSTALLATION")
    );
}

#[tokio::test]
async fn exit_without_stderr_still_explains() {
    let stub = StubHelm::new("", "", 3);
    let error = stub
        .client()
        .rollback(&target(), None, &RollbackOptions::default())
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "helm rollback of release apps/mc failed: rollback exited with exit status: 3"
    );
}

#[tokio::test]
async fn garbage_output_is_an_error() {
    let stub = StubHelm::new("Release \"mc\" has been upgraded.", "", 0);
    let error = stub
        .client()
        .upgrade(
            &target(),
            Path::new("c"),
            &json!({}),
            &UpgradeOptions::default(),
        )
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("helm upgrade of release apps/mc printed unexpected output: "),
        "{error}"
    );
}

#[tokio::test]
async fn missing_binary_is_reported() {
    let client = HelmCli::with_binary("/nonexistent/helm");
    let error = client.get(&target()).await.unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("cannot run helm binary \"/nonexistent/helm\": "),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .ends_with("(install helm or set HELM_BIN)")
    );
}

#[tokio::test]
async fn helm4_is_detected_once_and_forces_through_server_side_apply_conflicts() {
    let stub = StubHelm::new("v4.2.4", "", 0);
    let client = HelmCli::with_binary(stub.dir.path().join("helm"));
    let options = RollbackOptions {
        force: true,
        max_history: None,
    };
    client.rollback(&target(), Some(1), &options).await.unwrap();
    client.rollback(&target(), Some(2), &options).await.unwrap();
    assert_eq!(
        stub.calls(),
        vec![
            args("version --template {{.Version}}"),
            args("rollback mc 1 -n apps --server-side=true --force-conflicts --timeout 300s"),
            args("rollback mc 2 -n apps --server-side=true --force-conflicts --timeout 300s"),
        ]
    );
}

#[tokio::test]
async fn helm3_or_an_unknown_version_keeps_force() {
    for version in ["v3.18.6+gb76a950", "garbage"] {
        let stub = StubHelm::new(version, "", 0);
        let client = HelmCli::with_binary(stub.dir.path().join("helm"));
        let options = RollbackOptions {
            force: true,
            max_history: None,
        };
        client.rollback(&target(), Some(1), &options).await.unwrap();
        assert_eq!(
            stub.calls()[1],
            args("rollback mc 1 -n apps --force --timeout 300s"),
            "{version}"
        );
    }
}

#[tokio::test]
async fn a_hanging_helm_is_killed_after_its_timeout() {
    let stub = StubHelm::with_script("#!/bin/sh\nsleep 30\n");
    let client = HelmCli::with_binary(stub.dir.path().join("helm"))
        .with_major_version(4)
        .with_timeout(std::time::Duration::from_millis(200));
    let started = std::time::Instant::now();
    let error = client
        .uninstall(&target(), &UninstallOptions::default())
        .await
        .unwrap_err();
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(
        error.to_string(),
        "helm uninstall of release apps/mc did not finish within 220ms and was killed (raise it with HelmCli::with_timeout)"
    );
}

#[tokio::test]
async fn with_a_client_the_latest_release_is_read_from_its_secrets() {
    use crate::helm::tests::api::{Expect, finish, mock_api};
    let stored = |version: u32, status: &str| {
        let json = RELEASE_JSON
            .replace("\"version\":2", &format!("\"version\":{version}"))
            .replace(
                "\"status\":\"deployed\"",
                &format!("\"status\":\"{status}\""),
            );
        json!({"metadata": {"name": format!("sh.helm.release.v1.mc.v{version}"), "namespace": "apps",
                            "labels": {"owner": "helm", "name": "mc", "status": status, "version": version.to_string()}},
               "type": "helm.sh/release.v1",
               "data": {"release": base64::Engine::encode(&base64::engine::general_purpose::STANDARD,
                                                          crate::helm::release_store::tests::encode(&json))}})
    };
    let uri = "/api/v1/namespaces/apps/secrets?&labelSelector=owner%3Dhelm%2Cname%3Dmc";
    let (kube, api) = mock_api(vec![
        Expect::get(
            uri,
            json!({"kind": "SecretList", "apiVersion": "v1", "metadata": {},
                   "items": [stored(1, "superseded"), stored(2, "deployed")]}),
        ),
        Expect::get(
            uri,
            json!({"kind": "SecretList", "apiVersion": "v1", "metadata": {}, "items": []}),
        ),
    ]);
    // No stub: a helm process would fail the test (the binary does not exist).
    let client = HelmCli::with_binary("/nonexistent/helm").with_major_version(4);
    client.attach_client(&kube);
    assert_eq!(
        client.get(&target()).await.unwrap(),
        Some(expected_release())
    );
    assert_eq!(client.get(&target()).await.unwrap(), None);
    drop((client, kube));
    finish(api).await;
}

#[tokio::test]
async fn an_unreadable_release_secret_is_named_in_the_error() {
    use crate::helm::tests::api::{Expect, finish, mock_api};
    let (kube, api) = mock_api(vec![Expect::get(
        "/api/v1/namespaces/apps/secrets?&labelSelector=owner%3Dhelm%2Cname%3Dmc",
        json!({"kind": "SecretList", "apiVersion": "v1", "metadata": {}, "items": [
            {"metadata": {"name": "sh.helm.release.v1.mc.v1", "labels": {"version": "1"}},
             "data": {"release": "JSUl"}}]}),
    )]);
    let client = HelmCli::with_binary("/nonexistent/helm").with_major_version(4);
    client.attach_client(&kube);
    let error = client.get(&target()).await.unwrap_err().to_string();
    assert!(
        error.starts_with(
            "cannot read release apps/mc from its storage Secrets: Secret sh.helm.release.v1.mc.v1: release is not base64"
        ),
        "{error}"
    );
    drop((client, kube));
    finish(api).await;
}
