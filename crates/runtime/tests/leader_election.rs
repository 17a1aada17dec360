//! Leader election against a fake Lease API (updates at the read resourceVersion, as the
//! API server checks them): controllers start only once this replica holds the Lease, and
//! a graceful stop releases it. tests/it/cluster/leader.rs runs two replicas against the
//! real Lease API. A test binary of its own, because it
//! sends SIGTERM to its own process.
#![expect(
    clippy::unwrap_used,
    reason = "a test binary: helpers fail the test as its tests do (clippy.toml)"
)]
use std::sync::{Arc, Mutex};

use http::{Request, Response, StatusCode};
use kube::Client;
use kube::client::Body;
use rusty_sdk_runtime::{Manager, ManagerArgs};
use serde_json::{Value, json};

const LEASE_PATH: &str = "/apis/coordination.k8s.io/v1/namespaces/ops/leases/memcached-lock";

/// The stored Lease (None until created) and the requests seen, as "METHOD path".
#[derive(Default)]
struct LeaseStore {
    lease: Option<Value>,
    requests: Vec<String>,
    version: u64,
}

impl LeaseStore {
    /// The holder; a released Lease has an empty one.
    fn holder(&self) -> Option<String> {
        self.lease.as_ref()?["spec"]["holderIdentity"]
            .as_str()
            .filter(|holder| !holder.is_empty())
            .map(str::to_string)
    }

    fn answer(&mut self, method: &http::Method, path: &str, body: &[u8]) -> (StatusCode, Value) {
        self.requests.push(format!("{method} {path}"));
        let sent: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
        match (method.as_str(), path) {
            ("GET", LEASE_PATH) => match &self.lease {
                Some(lease) => (StatusCode::OK, lease.clone()),
                None => (StatusCode::NOT_FOUND, not_found()),
            },
            ("POST", p) if p == LEASE_PATH.trim_end_matches("/memcached-lock") => {
                self.store(sent);
                (StatusCode::CREATED, self.lease.clone().unwrap())
            }
            ("PUT", LEASE_PATH) => {
                let stored = self.lease.as_ref().expect("update of an existing Lease");
                let version = &stored["metadata"]["resourceVersion"];
                if sent["metadata"]["resourceVersion"] != *version {
                    return (StatusCode::CONFLICT, conflict());
                }
                self.store(sent);
                (StatusCode::OK, self.lease.clone().unwrap())
            }
            _ => panic!("unexpected request {method} {path}"),
        }
    }

    fn store(&mut self, mut lease: Value) {
        self.version += 1;
        lease["apiVersion"] = json!("coordination.k8s.io/v1");
        lease["kind"] = json!("Lease");
        lease["metadata"]["namespace"] = json!("ops");
        lease["metadata"]["resourceVersion"] = json!(self.version.to_string());
        self.lease = Some(lease);
    }
}

fn conflict() -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
           "reason": "Conflict", "code": 409, "message": "the object has been modified"})
}

fn not_found() -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
           "reason": "NotFound", "code": 404, "message": "leases \"memcached-lock\" not found"})
}

fn fake_lease_api(store: Arc<Mutex<LeaseStore>>) -> Client {
    let (service, mut handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    tokio::spawn(async move {
        while let Some((request, send)) = handle.next_request().await {
            let method = request.method().clone();
            let path = request.uri().path().to_string();
            let body = request.into_body().collect_bytes().await.unwrap();
            let (status, answer) = store.lock().unwrap().answer(&method, &path, &body);
            let mut response = Response::new(Body::from(serde_json::to_vec(&answer).unwrap()));
            *response.status_mut() = status;
            send.send_response(response);
        }
    });
    Client::new(service, "default")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn controllers_start_once_leading_and_the_lease_is_released_on_stop() {
    let store = Arc::new(Mutex::new(LeaseStore::default()));
    let args = ManagerArgs {
        health_probe_bind_address: "0".into(),
        metrics_bind_address: "0".into(),
        leader_elect: true,
        leader_election_id: "memcached-lock".into(),
        leader_election_namespace: Some("ops".into()),
        ..ManagerArgs::default()
    };
    let mut manager =
        Manager::with_client("memcached-operator", args, fake_lease_api(store.clone())).unwrap();
    let (started_tx, started_rx) = tokio::sync::oneshot::channel();
    let seen_by_controller = store.clone();
    manager.add_controller("memcached", move |ctx| async move {
        // The Lease must already name a holder when a controller starts.
        let holder = seen_by_controller.lock().unwrap().holder();
        let _ = started_tx.send(holder);
        ctx.shutdown.wait().await;
        Ok(())
    });
    let running = tokio::spawn(manager.run());

    let holder_at_start = started_rx.await.expect("the controller started");
    let holder = holder_at_start.expect("the Lease was held before the controller started");
    assert!(!holder.is_empty());

    // The manager's SIGTERM handler is installed (run() installs it before starting
    // controllers), so this stops the manager instead of killing the test.
    let pid = std::process::id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    running.await.unwrap().expect("a graceful stop returns Ok");

    let store = store.lock().unwrap();
    assert_eq!(
        store.holder(),
        None,
        "the Lease was released: {:?}",
        store.lease
    );
    assert!(
        store.requests.iter().any(|r| r.starts_with("POST ")),
        "{:?}",
        store.requests
    );
}
