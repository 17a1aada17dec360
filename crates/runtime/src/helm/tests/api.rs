//! A scripted API server: each expected request is checked (method, path and query, JSON
//! body) and answered; after the script, no further request may arrive.
use std::time::Duration;

use http::{Method, Request, Response, StatusCode};
use kube::Client;
use kube::client::Body;
use serde_json::{Value, json};
use tokio::task::JoinHandle;

use super::fixtures::FIXED_TIME;

/// How the request body is checked.
pub enum BodyCheck {
    /// No check (GET, DELETE).
    None,
    /// Must equal this JSON (new condition times normalised to `"<now>"`).
    Exact(Value),
    /// Must contain these fields.
    Includes(Value),
}

pub struct Expect {
    pub method: Method,
    pub uri: String,
    pub body: BodyCheck,
    pub status: StatusCode,
    pub response: Value,
}

impl Expect {
    pub fn get(uri: &str, response: Value) -> Self {
        Expect {
            method: Method::GET,
            uri: uri.into(),
            body: BodyCheck::None,
            status: StatusCode::OK,
            response,
        }
    }

    pub fn get_not_found(uri: &str) -> Self {
        Expect {
            method: Method::GET,
            uri: uri.into(),
            body: BodyCheck::None,
            status: StatusCode::NOT_FOUND,
            response: json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                             "reason": "NotFound", "code": 404, "message": "not found"}),
        }
    }

    pub fn patch(uri: &str, body: Value, response: Value) -> Self {
        Expect {
            method: Method::PATCH,
            uri: uri.into(),
            body: BodyCheck::Exact(body),
            status: StatusCode::OK,
            response,
        }
    }

    pub fn post(uri: &str, body: BodyCheck, response: Value) -> Self {
        Expect {
            method: Method::POST,
            uri: uri.into(),
            body,
            status: StatusCode::CREATED,
            response,
        }
    }
}

/// A client whose requests are answered by `script`, and the task checking them.
pub fn mock_api(script: Vec<Expect>) -> (Client, JoinHandle<()>) {
    let (service, mut handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    let task = tokio::spawn(async move {
        for (step, expect) in script.into_iter().enumerate() {
            let (request, respond) = handle.next_request().await.unwrap_or_else(|| {
                panic!(
                    "request #{step} ({} {}) never came",
                    expect.method, expect.uri
                )
            });
            let uri = request.uri().to_string();
            assert_eq!(
                (request.method(), uri.as_str()),
                (&expect.method, expect.uri.as_str()),
                "request #{step}"
            );
            let bytes = request.into_body().collect_bytes().await.unwrap();
            check_body(step, &expect.uri, &expect.body, &bytes);
            let response = Response::builder()
                .status(expect.status)
                .body(Body::from(serde_json::to_vec(&expect.response).unwrap()))
                .unwrap();
            respond.send_response(response);
        }
        if let Some((request, _)) = handle.next_request().await {
            let line = format!("{} {}", request.method(), request.uri());
            let body = request
                .into_body()
                .collect_bytes()
                .await
                .unwrap_or_default();
            panic!(
                "unexpected extra request {line}\n{}",
                String::from_utf8_lossy(&body)
            );
        }
    });
    (Client::new(service, "default"), task)
}

fn check_body(step: usize, uri: &str, check: &BodyCheck, bytes: &[u8]) {
    let parse = || -> Value {
        serde_json::from_slice(bytes)
            .unwrap_or_else(|e| panic!("request #{step} {uri}: body is not JSON ({e})"))
    };
    match check {
        BodyCheck::None => {}
        BodyCheck::Exact(want) => {
            let mut have = parse();
            normalise_times(&mut have);
            assert_eq!(
                have,
                *want,
                "request #{step} {uri} body\nhave: {}\nwant: {}",
                serde_json::to_string_pretty(&have).unwrap(),
                serde_json::to_string_pretty(want).unwrap()
            );
        }
        BodyCheck::Includes(want) => {
            let have = parse();
            assert!(
                includes(want, &have),
                "request #{step} {uri} body\nhave: {have:#}\nshould include: {want:#}"
            );
        }
    }
}

/// Condition times set during the reconcile become `"<now>"`; preserved ones stay as is.
fn normalise_times(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                if key == "lastTransitionTime" && item.as_str().is_some_and(|t| t != FIXED_TIME) {
                    *item = json!("<now>");
                } else {
                    normalise_times(item);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalise_times),
        _ => {}
    }
}

fn includes(want: &Value, have: &Value) -> bool {
    match (want, have) {
        (Value::Object(w), Value::Object(h)) => w
            .iter()
            .all(|(k, v)| h.get(k).is_some_and(|hv| includes(v, hv))),
        _ => want == have,
    }
}

/// Wait for the script to finish (every request seen, no extra one once the client is gone).
pub async fn finish(task: JoinHandle<()>) {
    tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .expect("the API script did not finish: a scripted request never came")
        .expect("the API script failed");
}
