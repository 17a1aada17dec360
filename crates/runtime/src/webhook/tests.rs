//! The webhook routes answer real review JSON as the API server sends it, in process and
//! over TLS on loopback with a certificate signed by a CA the client trusts.
use std::path::Path;
use std::sync::Arc;

use axum::body::{Body, to_bytes};
use axum::http::Request;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::core::admission::{AdmissionRequest, AdmissionResponse};
use kube::core::conversion::{ConversionRequest, ConversionResponse};
use prometheus_client::registry::Registry;
use rustls::pki_types::ServerName;
use rustls::pki_types::pem::PemObject;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tower::ServiceExt;

use super::*;

/// Defaults the label `tier` and refuses `ConfigMaps` named `forbidden-*`.
async fn admit(request: AdmissionRequest<ConfigMap>) -> AdmissionResponse {
    let response = AdmissionResponse::from(&request);
    let Some(config_map) = request.object else {
        return response;
    };
    let name = config_map.metadata.name.unwrap_or_default();
    if name.starts_with("forbidden-") {
        return response.deny(format!("metadata.name: {name:?} is reserved"));
    }
    let patch: json_patch::Patch = serde_json::from_value(json!([
        {"op": "add", "path": "/metadata/labels", "value": {"tier": "default"}}
    ]))
    .unwrap();
    response.with_patch(patch).unwrap()
}

/// Moves `data.size` (version v1) to `data.replicas` (version v2).
fn convert(request: ConversionRequest) -> ConversionResponse {
    let converted = request
        .objects
        .iter()
        .map(|object| {
            let mut object = object.clone();
            object["apiVersion"] = json!(request.desired_api_version);
            if let Some(size) = object["spec"]
                .as_object_mut()
                .and_then(|s| s.remove("size"))
            {
                object["spec"]["replicas"] = size;
            }
            object
        })
        .collect();
    ConversionResponse::for_request(request).success(converted)
}

fn webhooks() -> Webhooks {
    Webhooks::new()
        .admission("/mutate-v1-configmap", admit)
        .conversion("/convert", convert)
}

fn admission_review(name: &str) -> Value {
    json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
            "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
            "resource": {"group": "", "version": "v1", "resource": "configmaps"},
            "requestKind": {"group": "", "version": "v1", "kind": "ConfigMap"},
            "requestResource": {"group": "", "version": "v1", "resource": "configmaps"},
            "name": name,
            "namespace": "default",
            "operation": "CREATE",
            "userInfo": {"username": "admin", "groups": ["system:authenticated"]},
            "object": {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": name, "namespace": "default"},
                "data": {"key": "value"}
            },
            "oldObject": null,
            "dryRun": false,
            "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}
        }
    })
}

async fn post(router: Router, path: &str, content_type: &str, body: Vec<u8>) -> (u16, Value) {
    let request = Request::post(path)
        .header("content-type", content_type)
        .body(Body::from(body))
        .unwrap();
    let response = router.oneshot(request).await.unwrap();
    let status = response.status().as_u16();
    let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    (status, body)
}

fn router(registry: &mut Registry) -> Router {
    webhooks().router(WebhookMetrics::new(registry)).unwrap()
}

/// The JSON patch of a review's response. kube writes the patch's bytes as a JSON array
/// of numbers, which the API server decodes into its `[]byte` field as well as base64.
fn patch_of(review: &Value) -> Value {
    let bytes: Vec<u8> = serde_json::from_value(review["response"]["patch"].clone())
        .unwrap_or_else(|error| panic!("a patch in {review}: {error}"));
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::test]
async fn a_defaulting_webhook_answers_with_a_json_patch() {
    let mut registry = Registry::default();
    let body = serde_json::to_vec(&admission_review("web")).unwrap();
    let (status, review) = post(
        router(&mut registry),
        "/mutate-v1-configmap",
        "application/json",
        body,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(review["apiVersion"], "admission.k8s.io/v1");
    assert_eq!(review["kind"], "AdmissionReview");
    assert_eq!(
        review["response"]["uid"],
        "705ab4f5-6393-11e8-b7cc-42010a800002"
    );
    assert_eq!(review["response"]["allowed"], true);
    assert_eq!(review["response"]["patchType"], "JSONPatch");
    assert_eq!(
        patch_of(&review),
        json!([{"op": "add", "path": "/metadata/labels", "value": {"tier": "default"}}])
    );
}

#[tokio::test]
async fn a_denial_carries_its_reason() {
    let mut registry = Registry::default();
    let body = serde_json::to_vec(&admission_review("forbidden-x")).unwrap();
    let (_, review) = post(
        router(&mut registry),
        "/mutate-v1-configmap",
        "application/json",
        body,
    )
    .await;
    assert_eq!(review["response"]["allowed"], false);
    assert_eq!(
        review["response"]["status"]["message"],
        "metadata.name: \"forbidden-x\" is reserved"
    );
    assert!(review["response"].get("patch").is_none());
}

#[tokio::test]
async fn a_body_that_is_no_review_is_refused_with_code_400() {
    let mut registry = Registry::default();
    let (status, review) = post(
        router(&mut registry),
        "/mutate-v1-configmap",
        "application/json",
        br#"{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}"#.to_vec(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(review["response"]["allowed"], false);
    assert_eq!(review["response"]["status"]["code"], 400);
    assert_eq!(
        review["response"]["status"]["message"],
        "the AdmissionReview has no request"
    );

    let (status, body) = post(
        router(&mut registry),
        "/mutate-v1-configmap",
        "text/plain",
        b"{}".to_vec(),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        body.as_str().unwrap().contains("application/json"),
        "{body}"
    );
}

#[tokio::test]
async fn a_body_over_the_limit_is_refused_unread() {
    let mut registry = Registry::default();
    let body = vec![b' '; MAX_REQUEST_BYTES + 1];
    let (status, _) = post(
        router(&mut registry),
        "/mutate-v1-configmap",
        "application/json",
        body,
    )
    .await;
    assert_eq!(status, 413);
}

#[tokio::test]
async fn a_conversion_webhook_converts_every_object_in_order() {
    let mut registry = Registry::default();
    let review = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {
            "uid": "b2c3",
            "desiredAPIVersion": "example.com/v2",
            "objects": [
                {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "a"}, "spec": {"size": 1}},
                {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "b"}, "spec": {"size": 2}}
            ]
        }
    });
    let (status, answer) = post(
        router(&mut registry),
        "/convert",
        "application/json",
        serde_json::to_vec(&review).unwrap(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(answer["kind"], "ConversionReview");
    assert_eq!(answer["response"]["uid"], "b2c3");
    assert_eq!(answer["response"]["result"]["status"], "Success");
    let objects = answer["response"]["convertedObjects"].as_array().unwrap();
    let names: Vec<_> = objects
        .iter()
        .map(|o| o["metadata"]["name"].clone())
        .collect();
    assert_eq!(names, [json!("a"), json!("b")]);
    assert_eq!(objects[1]["apiVersion"], "example.com/v2");
    assert_eq!(objects[1]["spec"], json!({"replicas": 2}));
}

#[tokio::test]
async fn requests_are_counted_per_registered_path_only() {
    let mut registry = Registry::default();
    let router = router(&mut registry);
    let body = serde_json::to_vec(&admission_review("web")).unwrap();
    post(
        router.clone(),
        "/mutate-v1-configmap",
        "application/json",
        body,
    )
    .await;
    let (status, _) = post(
        router,
        "/no-such-webhook",
        "application/json",
        b"{}".to_vec(),
    )
    .await;
    assert_eq!(status, 404);
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    assert!(
        text.contains(r#"controller_runtime_webhook_requests_total{webhook="/mutate-v1-configmap",code="200"} 1"#),
        "{text}"
    );
    assert!(
        text.contains(
            r#"controller_runtime_webhook_latency_seconds_count{webhook="/mutate-v1-configmap"} 1"#
        ),
        "{text}"
    );
    assert!(
        text.contains(
            r#"controller_runtime_webhook_requests_in_flight{webhook="/mutate-v1-configmap"} 0"#
        ),
        "{text}"
    );
    assert!(!text.contains("no-such-webhook"), "{text}");
}

#[test]
fn bad_or_repeated_paths_are_refused() {
    let twice = webhooks().conversion("/convert", convert);
    let error = twice.check().unwrap_err().to_string();
    assert!(
        error.contains("\"/convert\" is registered twice"),
        "{error}"
    );
    let relative = Webhooks::new().conversion("convert", convert);
    let error = relative.check().unwrap_err().to_string();
    assert!(error.contains("not a plain absolute path"), "{error}");
}

/// `--webhook-cert-mode=local`: a certificate a local client can trust for `localhost`.
#[tokio::test]
async fn a_local_certificate_serves_localhost() {
    let (certs, pem) = CertReloader::local().unwrap();
    let tls = server_config(Arc::new(certs), false).unwrap();
    let mut registry = Registry::default();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (stop_tx, stop) = crate::Shutdown::channel();
    let server = tokio::spawn(crate::servers::serve(
        listener,
        router(&mut registry),
        Some(tls),
        stop.wait(),
    ));
    let trusted = rustls::pki_types::CertificateDer::from_pem_slice(pem.as_bytes()).unwrap();
    let body = serde_json::to_vec(&admission_review("web")).unwrap();
    let response = post_tls_trusting(port, trusted, "/mutate-v1-configmap", &body).await;
    assert_eq!(
        review_in(&response)["response"]["allowed"],
        true,
        "{response}"
    );
    stop_tx.send(true).unwrap();
    server.await.unwrap().unwrap();
}

/// A CA, and a serving certificate for `localhost` it signs, written as tls.crt/tls.key.
fn issue(dir: &Path) -> rcgen::Certificate {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = rcgen::CertificateParams::new(vec!["localhost".to_string()])
        .unwrap()
        .signed_by(&key, &issuer)
        .unwrap();
    // Written aside and renamed over, as the kubelet swaps a mounted Secret.
    for (name, pem) in [("tls.crt", cert.pem()), ("tls.key", key.serialize_pem())] {
        let aside = dir.join(format!(".{name}.new"));
        std::fs::write(&aside, pem).unwrap();
        std::fs::rename(&aside, dir.join(name)).unwrap();
    }
    ca
}

/// POST `body` to `path` over TLS, trusting only `ca`; the raw HTTP response.
async fn post_tls(port: u16, ca: &rcgen::Certificate, path: &str, body: &[u8]) -> String {
    post_tls_trusting(port, ca.der().clone(), path, body).await
}

async fn post_tls_trusting(
    port: u16,
    root: rustls::pki_types::CertificateDer<'static>,
    path: &str,
    body: &[u8],
) -> String {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(root).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let client = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let mut stream = tokio_rustls::TlsConnector::from(Arc::new(client))
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .expect("a TLS handshake with a server whose CA the client trusts");
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body).await.unwrap();
    let mut response = String::new();
    // The server may close without a TLS close_notify; what was read is enough.
    let _ = stream.read_to_string(&mut response).await;
    response
}

fn review_in(response: &str) -> Value {
    let body = response.split("\r\n\r\n").nth(1).unwrap_or_default();
    serde_json::from_str(body).unwrap_or_else(|_| panic!("a JSON body: {response}"))
}

#[tokio::test]
async fn served_over_tls_and_a_renewed_certificate_without_restart() {
    let dir = tempfile::tempdir().unwrap();
    let first_ca = issue(dir.path());
    let certs = Arc::new(CertReloader::load(dir.path(), "tls.crt", "tls.key").unwrap());
    let tls = server_config(certs.clone(), false).unwrap();
    let mut registry = Registry::default();
    let router = router(&mut registry);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (stop_tx, stop) = crate::Shutdown::channel();
    let server = tokio::spawn(crate::servers::serve(
        listener,
        router,
        Some(tls),
        stop.clone().wait(),
    ));
    let watcher = tokio::spawn(
        certs
            .clone()
            .watch(std::time::Duration::from_millis(20), stop.wait()),
    );

    let denied = serde_json::to_vec(&admission_review("forbidden-a")).unwrap();
    let response = post_tls(port, &first_ca, "/mutate-v1-configmap", &denied).await;
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert_eq!(review_in(&response)["response"]["allowed"], false);

    // cert-manager renews with another CA; the watcher picks the new pair up and the
    // running server serves it.
    let first_leaf = certs.current().cert[0].clone();
    let second_ca = issue(dir.path());
    let mut served = String::new();
    for _ in 0..250 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        if certs.current().cert[0] != first_leaf {
            let allowed = serde_json::to_vec(&admission_review("web")).unwrap();
            served = post_tls(port, &second_ca, "/mutate-v1-configmap", &allowed).await;
            break;
        }
    }
    let review = review_in(&served);
    assert_eq!(review["response"]["allowed"], true);
    assert_eq!(
        patch_of(&review),
        json!([{"op": "add", "path": "/metadata/labels", "value": {"tier": "default"}}])
    );

    stop_tx.send(true).unwrap();
    server.await.unwrap().unwrap();
    watcher.await.unwrap();
}

/// The manager serves registered webhooks on `--webhook-port` before its controllers start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_manager_serves_webhooks_before_controllers_start() {
    let dir = tempfile::tempdir().unwrap();
    let ca = issue(dir.path());
    let port = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let args = crate::ManagerArgs {
        health_probe_bind_address: "0".into(),
        metrics_bind_address: "0".into(),
        webhook_port: port,
        webhook_cert_path: dir.path().to_path_buf(),
        ..crate::ManagerArgs::default()
    };
    let mut manager = crate::Manager::with_client("op", args, offline_client()).unwrap();
    manager.add_webhooks(webhooks());
    let (answer_tx, answer_rx) = tokio::sync::oneshot::channel();
    manager.add_controller("probe", move |_ctx| async move {
        let body = serde_json::to_vec(&admission_review("forbidden-b")).unwrap();
        let _ = answer_tx.send(post_tls(port, &ca, "/mutate-v1-configmap", &body).await);
        // Failing stops the manager, which ends the test.
        anyhow::bail!("probe done")
    });
    let error = format!("{:#}", manager.run().await.unwrap_err());
    assert!(error.contains("probe done"), "{error}");
    let answer = answer_rx.await.unwrap();
    assert_eq!(review_in(&answer)["response"]["allowed"], false, "{answer}");
}

#[tokio::test]
async fn a_missing_certificate_stops_the_manager_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let args = crate::ManagerArgs {
        health_probe_bind_address: "0".into(),
        metrics_bind_address: "0".into(),
        webhook_port: 0,
        webhook_cert_path: dir.path().join("certs"),
        ..crate::ManagerArgs::default()
    };
    let mut manager = crate::Manager::with_client("op", args, offline_client()).unwrap();
    manager.add_webhooks(webhooks());
    manager.add_controller("never", |_ctx| async { panic!("must not start") });
    let error = format!("{:#}", manager.run().await.unwrap_err());
    assert!(
        error.contains("--webhook-cert-path") && error.contains("certs/tls.crt"),
        "{error}"
    );
}

/// A client whose API server never answers; these tests make no API calls.
fn offline_client() -> kube::Client {
    let (service, handle) = tower_test::mock::pair::<
        http::Request<kube::client::Body>,
        http::Response<kube::client::Body>,
    >();
    std::mem::forget(handle);
    kube::Client::new(service, "default")
}

/// Several kinds share `/convert`, as in kubebuilder: each request reaches its kind's
/// handler; a kind without one fails with the reason.
#[tokio::test]
async fn kinds_sharing_a_conversion_path_are_dispatched_by_group_and_kind() {
    let mut registry = Registry::default();
    let webhooks = Webhooks::new()
        .conversion_of("example.com", "Widget", "/convert", convert)
        .conversion_of("example.com", "Gadget", "/convert", |request| {
            let objects = request.objects.clone();
            ConversionResponse::for_request(request).success(objects)
        });
    let router = webhooks.router(WebhookMetrics::new(&mut registry)).unwrap();
    let review = |kind: &str| {
        serde_json::to_vec(&json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
            "request": {"uid": "u1", "desiredAPIVersion": "example.com/v2", "objects": [
                {"apiVersion": "example.com/v1", "kind": kind, "metadata": {"name": "a"}, "spec": {"size": 1}}
            ]}
        }))
        .unwrap()
    };
    let (_, widget) = post(
        router.clone(),
        "/convert",
        "application/json",
        review("Widget"),
    )
    .await;
    assert_eq!(
        widget["response"]["convertedObjects"][0]["spec"],
        json!({"replicas": 1})
    );
    let (_, gadget) = post(
        router.clone(),
        "/convert",
        "application/json",
        review("Gadget"),
    )
    .await;
    assert_eq!(
        gadget["response"]["convertedObjects"][0]["spec"],
        json!({"size": 1})
    );
    let (_, other) = post(router, "/convert", "application/json", review("Gizmo")).await;
    assert_eq!(other["response"]["result"]["status"], "Failure");
    assert_eq!(
        other["response"]["result"]["message"],
        "no conversion of Gizmo (example.com) is served here"
    );

    let twice = Webhooks::new()
        .conversion_of("example.com", "Widget", "/convert", convert)
        .merge(Webhooks::new().conversion_of("example.com", "Widget", "/convert", convert));
    let error = twice.check().unwrap_err().to_string();
    assert!(
        error.contains("Widget (example.com) is registered twice"),
        "{error}"
    );
}
