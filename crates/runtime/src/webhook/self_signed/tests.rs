//! The self-signed mode against a mocked API server: each test lists the requests it
//! expects, in order, checks them and answers as the API server would; a request the test
//! did not expect fails it.
use http::{Request, Response, StatusCode};
use kube::client::Body;
use rustls::client::danger::ServerCertVerifier;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use serde_json::{Value, json};

use super::super::ca_injection::inject_ca;

use super::*;

type Handle = tower_test::mock::Handle<Request<Body>, Response<Body>>;

fn config() -> SelfSignedConfig {
    SelfSignedConfig {
        namespace: "ops".into(),
        service: "op-webhook-service".into(),
        secret: "op-webhook-server-cert".into(),
    }
}

fn mocked_client() -> (Client, Handle) {
    let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    (Client::new(service, "default"), handle)
}

/// Take the next request, check its method, path and query, answer `status` + `answer`;
/// returns the request's content type and JSON body (null when it has none).
async fn expect(
    handle: &mut Handle,
    method: &str,
    uri: &str,
    status: StatusCode,
    answer: &Value,
) -> (String, Value) {
    let (request, send) = handle.next_request().await.expect("a request");
    assert_eq!(
        (request.method().as_str(), request.uri().to_string()),
        (method, uri.to_string())
    );
    let content_type = request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .map(|value| value.to_str().unwrap().to_string())
        .unwrap_or_default();
    let body = request.into_body().collect_bytes().await.unwrap();
    let sent = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mut response = Response::new(Body::from(serde_json::to_vec(answer).unwrap()));
    *response.status_mut() = status;
    send.send_response(response);
    (content_type, sent)
}

fn not_found() -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
           "reason": "NotFound", "code": 404, "message": "secrets not found"})
}

fn conflict() -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
           "reason": "AlreadyExists", "code": 409, "message": "already exists"})
}

fn list(kind: &str, items: &[Value], next: Option<&str>) -> Value {
    json!({"kind": kind, "apiVersion": "v1", "items": items,
           "metadata": {"continue": next.unwrap_or("")}})
}

fn webhook(name: &str, service: &str, ca: Option<&str>) -> Value {
    let mut client_config = json!({"service": {"name": service, "namespace": "ops", "path": "/x"}});
    if let Some(ca) = ca {
        client_config["caBundle"] = json!(ca);
    }
    json!({"name": name, "clientConfig": client_config, "sideEffects": "None",
           "admissionReviewVersions": ["v1"]})
}

fn crd(name: &str, service: Option<&str>) -> Value {
    let mut spec = json!({"group": "example.com", "scope": "Namespaced",
        "names": {"plural": "widgets", "kind": "Widget"}, "versions": []});
    if let Some(service) = service {
        spec["conversion"] = json!({"strategy": "Webhook", "webhook": {
            "conversionReviewVersions": ["v1"],
            "clientConfig": {"service": {"name": service, "namespace": "ops", "path": "/convert"}}}});
    }
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": name}, "spec": spec})
}

fn data_text(secret: &Value, key: &str) -> String {
    let encoded = secret["data"][key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} in {secret}"));
    let bytes =
        base64::Engine::decode(&base64::engine::general_purpose::STANDARD, encoded).unwrap();
    String::from_utf8(bytes).unwrap()
}

fn b64(text: &str) -> String {
    base64::Engine::encode(&base64::engine::general_purpose::STANDARD, text)
}

const MUTATING: &str = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations";
const VALIDATING: &str = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
const CRDS: &str = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const SECRET: &str = "/api/v1/namespaces/ops/secrets/op-webhook-server-cert";

/// `cert` verifies for the Service's DNS name against the CAs of `bundle`.
fn trusted(cert: &CertificateDer<'_>, bundle: &str, name: &str) -> bool {
    let mut roots = rustls::RootCertStore::empty();
    for ca in CertificateDer::pem_slice_iter(bundle.as_bytes()) {
        roots.add(ca.unwrap()).unwrap();
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let verifier =
        rustls::client::WebPkiServerVerifier::builder_with_provider(roots.into(), provider)
            .build()
            .unwrap();
    let name = ServerName::try_from(name.to_string()).unwrap();
    verifier
        .verify_server_cert(cert, &[], &name, &[], UnixTime::now())
        .is_ok()
}

#[tokio::test]
#[expect(
    clippy::too_many_lines,
    reason = "one start as a transcript of the API server's requests"
)]
async fn a_first_start_creates_the_secret_and_injects_the_ca_where_our_service_is_called() {
    let (client, mut handle) = mocked_client();
    let server = tokio::spawn(async move {
        expect(
            &mut handle,
            "GET",
            SECRET,
            StatusCode::NOT_FOUND,
            &not_found(),
        )
        .await;
        let (_, secret) = expect(
            &mut handle,
            "POST",
            "/api/v1/namespaces/ops/secrets?",
            StatusCode::CREATED,
            &json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "op-webhook-server-cert"}}),
        )
        .await;
        assert_eq!(secret["type"], "kubernetes.io/tls");
        assert_eq!(secret["metadata"]["namespace"], "ops");
        assert!(secret["metadata"]["annotations"][NOT_AFTER_ANNOTATION].is_string());
        let ca = data_text(&secret, "ca.crt");

        // Mutating: ours lacks the CA (patched, guarded by its name); another service's
        // webhook is left alone.
        let hooks = json!({"apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingWebhookConfiguration", "metadata": {"name": "op-mutating"},
            "webhooks": [webhook("other.example.com", "other-service", None),
                         webhook("mwidget.example.com", "op-webhook-service", None)]});
        let page = list("MutatingWebhookConfigurationList", &[hooks], None);
        expect(
            &mut handle,
            "GET",
            &format!("{MUTATING}?&limit=50"),
            StatusCode::OK,
            &page,
        )
        .await;
        let (content_type, patch) = expect(
            &mut handle,
            "PATCH",
            &format!("{MUTATING}/op-mutating?"),
            StatusCode::OK,
            &json!({"apiVersion": "admissionregistration.k8s.io/v1",
                    "kind": "MutatingWebhookConfiguration", "metadata": {"name": "op-mutating"}}),
        )
        .await;
        assert_eq!(content_type, "application/json-patch+json");
        assert_eq!(
            patch,
            json!([
                {"op": "test", "path": "/webhooks/1/name", "value": "mwidget.example.com"},
                {"op": "add", "path": "/webhooks/1/clientConfig/caBundle", "value": b64(&ca)}
            ])
        );

        // Validating: ours already holds the CA, so nothing is written.
        let hooks = json!({"apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration", "metadata": {"name": "op-validating"},
            "webhooks": [webhook("vwidget.example.com", "op-webhook-service", Some(&b64(&ca)))]});
        let page = list("ValidatingWebhookConfigurationList", &[hooks], None);
        expect(
            &mut handle,
            "GET",
            &format!("{VALIDATING}?&limit=50"),
            StatusCode::OK,
            &page,
        )
        .await;

        // CRDs, two pages: the one converting through our Service is patched.
        let first = list(
            "CustomResourceDefinitionList",
            &[crd("widgets.example.com", Some("op-webhook-service"))],
            Some("page2"),
        );
        expect(
            &mut handle,
            "GET",
            &format!("{CRDS}?&limit=50"),
            StatusCode::OK,
            &first,
        )
        .await;
        let (_, patch) = expect(
            &mut handle,
            "PATCH",
            &format!("{CRDS}/widgets.example.com?"),
            StatusCode::OK,
            &crd("widgets.example.com", Some("op-webhook-service")),
        )
        .await;
        assert_eq!(
            patch,
            json!([{"op": "add", "path": "/spec/conversion/webhook/clientConfig/caBundle", "value": b64(&ca)}])
        );
        let second = list(
            "CustomResourceDefinitionList",
            &[
                crd("gadgets.example.com", None),
                crd("others.example.com", Some("other-service")),
            ],
            None,
        );
        expect(
            &mut handle,
            "GET",
            &format!("{CRDS}?&limit=50&continue=page2"),
            StatusCode::OK,
            &second,
        )
        .await;
        assert!(handle.next_request().await.is_none(), "no further request");
        secret
    });

    let (stop_tx, stop) = crate::Shutdown::channel();
    let certs = start(client, config(), stop.wait()).await.unwrap();
    stop_tx.send(true).unwrap();
    let secret = server.await.unwrap();

    let served = certs.current().cert[0].clone();
    let written = CertificateDer::from_pem_slice(data_text(&secret, "tls.crt").as_bytes()).unwrap();
    assert_eq!(served, written, "the Secret's certificate is served");
    let bundle = data_text(&secret, "ca.crt");
    assert!(trusted(&served, &bundle, "op-webhook-service.ops.svc"));
    assert!(trusted(
        &served,
        &bundle,
        "op-webhook-service.ops.svc.cluster.local"
    ));
    assert!(!trusted(&served, &bundle, "evil.ops.svc"));
}

fn secret_json(issued: &Issued, resource_version: &str) -> Value {
    let mut secret = serde_json::to_value(secret_for(&config(), issued).unwrap()).unwrap();
    secret["metadata"]["resourceVersion"] = json!(resource_version);
    secret
}

#[tokio::test]
async fn a_valid_secret_is_used_as_it_is() {
    let (client, mut handle) = mocked_client();
    let now = OffsetDateTime::now_utc();
    let existing = issue(&config(), now - Duration::days(100), None).unwrap();
    let answer = secret_json(&existing, "7");
    let server = tokio::spawn(async move {
        expect(&mut handle, "GET", SECRET, StatusCode::OK, &answer).await;
        assert!(handle.next_request().await.is_none(), "nothing written");
    });
    let issued = ensure_secret(&client, &config(), now).await.unwrap();
    drop(client);
    server.await.unwrap();
    assert_eq!(issued, existing);
}

#[tokio::test]
async fn a_secret_due_for_renewal_is_replaced_keeping_the_previous_ca() {
    let (client, mut handle) = mocked_client();
    let now = OffsetDateTime::now_utc();
    // Issued 340 days ago: 25 days left, inside the 30 days of renewal.
    let old = issue(&config(), now - Duration::days(340), None).unwrap();
    let answer = secret_json(&old, "7");
    let server = tokio::spawn(async move {
        expect(&mut handle, "GET", SECRET, StatusCode::OK, &answer).await;
        let (_, put) = expect(
            &mut handle,
            "PUT",
            &format!("{SECRET}?"),
            StatusCode::OK,
            &answer,
        )
        .await;
        assert!(handle.next_request().await.is_none());
        put
    });
    let renewed = ensure_secret(&client, &config(), now).await.unwrap();
    drop(client);
    let put = server.await.unwrap();
    assert_eq!(
        put["metadata"]["resourceVersion"], "7",
        "an update guarded by the version read"
    );
    assert_eq!(data_text(&put, "tls.crt"), renewed.cert);
    assert!(renewed.not_after > now + Duration::days(360));
    // The bundle holds the new CA first, then the old one, so both pairs are trusted.
    let bundle = data_text(&put, "ca.crt");
    assert_eq!(bundle.matches("BEGIN CERTIFICATE").count(), 2, "{bundle}");
    assert!(bundle.ends_with(&old.ca_bundle), "{bundle}");
    let old_cert = CertificateDer::from_pem_slice(old.cert.as_bytes()).unwrap();
    let new_cert = CertificateDer::from_pem_slice(renewed.cert.as_bytes()).unwrap();
    assert!(trusted(&old_cert, &bundle, "op-webhook-service.ops.svc"));
    assert!(trusted(&new_cert, &bundle, "op-webhook-service.ops.svc"));
}

#[tokio::test]
async fn a_replica_that_loses_the_race_serves_the_winners_pair() {
    let (client, mut handle) = mocked_client();
    let now = OffsetDateTime::now_utc();
    let winner = issue(&config(), now, None).unwrap();
    let answer = secret_json(&winner, "8");
    let server = tokio::spawn(async move {
        expect(
            &mut handle,
            "GET",
            SECRET,
            StatusCode::NOT_FOUND,
            &not_found(),
        )
        .await;
        expect(
            &mut handle,
            "POST",
            "/api/v1/namespaces/ops/secrets?",
            StatusCode::CONFLICT,
            &conflict(),
        )
        .await;
        expect(&mut handle, "GET", SECRET, StatusCode::OK, &answer).await;
        assert!(handle.next_request().await.is_none());
    });
    let issued = ensure_secret(&client, &config(), now).await.unwrap();
    drop(client);
    server.await.unwrap();
    assert_eq!(issued.cert, winner.cert);
}

#[tokio::test]
async fn a_forbidden_list_names_the_kind_and_the_permission() {
    let (client, mut handle) = mocked_client();
    let forbidden = json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
        "reason": "Forbidden", "code": 403, "message": "forbidden"});
    let server = tokio::spawn(async move {
        expect(
            &mut handle,
            "GET",
            &format!("{MUTATING}?&limit=50"),
            StatusCode::FORBIDDEN,
            &forbidden,
        )
        .await;
    });
    let error = format!(
        "{:#}",
        inject_ca(&client, &config(), "CA").await.unwrap_err()
    );
    server.await.unwrap();
    assert!(
        error.contains("mutatingwebhookconfigurations") && error.contains("allow list"),
        "{error}"
    );
}

#[test]
fn a_secret_without_its_expiry_is_renewed() {
    let now = OffsetDateTime::now_utc();
    let issued = issue(&config(), now, None).unwrap();
    let mut secret = secret_for(&config(), &issued).unwrap();
    assert_eq!(from_secret(&secret, now), Some(issued));
    secret.metadata.annotations = None;
    assert_eq!(from_secret(&secret, now), None);
}
