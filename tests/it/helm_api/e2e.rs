//! End to end: the generated hybrid project with a Helm API builds and starts.
use super::*;

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
