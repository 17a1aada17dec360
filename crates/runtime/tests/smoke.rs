//! The operator process against an unreachable API server: it must serve /healthz and
//! /readyz, and exit 0 on SIGTERM after a graceful shutdown.
#![expect(
    clippy::unwrap_used,
    reason = "a test binary: helpers fail the test as its tests do (clippy.toml)"
)]
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::sleep;
use std::time::Duration;

const KUBECONFIG: &str = "\
apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster:
    server: https://127.0.0.1:1
    insecure-skip-tls-verify: true
users:
- name: nobody
  user:
    token: not-a-real-token
contexts:
- name: nowhere
  context: {cluster: nowhere, user: nobody, namespace: smoke}
current-context: nowhere
";

/// Build the example with the cargo running this test (same profile) and return its path.
fn build_example(name: &str) -> PathBuf {
    let mut cargo = Command::new(env!("CARGO"));
    cargo.args([
        "build",
        "--quiet",
        "-p",
        "rusty-sdk-runtime",
        "--example",
        name,
    ]);
    cargo.arg("--message-format=json");
    if !cfg!(debug_assertions) {
        cargo.arg("--release");
    }
    let output = cargo.output().expect("run cargo");
    assert!(
        output.status.success(),
        "cargo build --example {name} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|msg| msg["target"]["name"] == name)
        .find_map(|msg| msg["executable"].as_str().map(PathBuf::from))
        .expect("cargo reported the example's executable")
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Status line of `GET path`, or None while nothing listens.
fn http_get_status(port: u16, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    response.lines().next().map(str::to_string)
}

fn stderr_of(log: &Path) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

/// Poll until `path` answers 200; fails if the process exits or it never does.
fn wait_for_ok(child: &mut Child, port: u16, path: &str, log: &Path) {
    for _ in 0..300 {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("operator exited early with {status}:\n{}", stderr_of(log));
        }
        if http_get_status(port, path).is_some_and(|line| line.starts_with("HTTP/1.1 200")) {
            return;
        }
        sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("{path} never answered 200:\n{}", stderr_of(log));
}

fn wait_for_exit(child: &mut Child, log: &Path) -> ExitStatus {
    for _ in 0..600 {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("operator did not exit after SIGTERM:\n{}", stderr_of(log));
}

#[test]
fn serves_health_and_exits_cleanly_on_sigterm_without_an_api_server() {
    let binary = build_example("manager_smoke");
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, KUBECONFIG).unwrap();
    let log = dir.path().join("stderr.log");
    let (health_port, metrics_port) = (free_port(), free_port());

    let mut child = Command::new(&binary)
        .arg(format!(
            "--health-probe-bind-address=127.0.0.1:{health_port}"
        ))
        .arg(format!("--metrics-bind-address=127.0.0.1:{metrics_port}"))
        .env("KUBECONFIG", &kubeconfig)
        .env("RUST_LOG", "info")
        .env_remove("WATCH_NAMESPACE")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();

    wait_for_ok(&mut child, health_port, "/healthz", &log);
    wait_for_ok(&mut child, health_port, "/readyz", &log);
    // The secure metrics port is up too (TLS, so a plain request gets no HTTP answer).
    assert!(TcpStream::connect(("127.0.0.1", metrics_port)).is_ok());
    // The unreachable API server is named once, not only retried in silence.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while !stderr_of(&log).contains("cannot reach the Kubernetes API server") {
        assert!(
            std::time::Instant::now() < deadline,
            "not reported:\n{}",
            stderr_of(&log)
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(
        stderr_of(&log).contains("https://127.0.0.1:1"),
        "{}",
        stderr_of(&log)
    );

    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = wait_for_exit(&mut child, &log);
    let stderr = stderr_of(&log);
    assert!(status.success(), "exit status {status}:\n{stderr}");
    assert!(stderr.contains("manager stopped"), "{stderr}");
}
