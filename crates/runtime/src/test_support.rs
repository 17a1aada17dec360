//! A scripted API server for the unit tests of controllers: the reconcile under test talks
//! to a [`kube::Client`] whose requests come to the test, which checks each one and answers
//! it as the API server would, in order, and then that no other request came.
//!
//! ```
//! # async fn doc() {
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kube::Api;
//! use rusty_sdk_runtime::test_support::ApiServer;
//! use serde_json::json;
//!
//! let (client, server) = ApiServer::mock("testns");
//! let work = async move {
//!     let api: Api<ConfigMap> = Api::default_namespaced(client);
//!     api.get("settings").await.map(|cm| cm.data)
//! };
//! let data = server
//!     .serve(work, async |server| {
//!         let path = "/api/v1/namespaces/testns/configmaps/settings";
//!         server
//!             .expect("GET", path, |_| (200, json!({"data": {"a": "b"}})))
//!             .await;
//!     })
//!     .await
//!     .unwrap();
//! assert_eq!(data.unwrap()["a"], "b");
//! # }
//! ```
//!
//! [`default_with`] builds the spec (or status) a test needs by naming only the fields it
//! sets, so that the fields a user later adds to the type need no change in the test.
//!
//! Enabled by the crate's `test-support` feature (a dev-dependency of generated projects).
use std::future::Future;

use http::{Request, Response};
use kube::Client;
use kube::client::Body;
use kube::runtime::events::{Recorder, Reporter};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

type Handle = tower_test::mock::Handle<Request<Body>, Response<Body>>;

/// The test's side of a mocked API server.
pub struct ApiServer {
    handle: Handle,
}

/// One request the server took: its query string and its JSON body (`Null` when empty).
#[derive(Debug)]
pub struct Received {
    pub query: String,
    pub body: Value,
}

impl ApiServer {
    /// A client whose requests come to the returned server; `default_namespace` is the
    /// client's (where events of cluster-scoped objects go, for one).
    pub fn mock(default_namespace: &str) -> (Client, ApiServer) {
        let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
        (
            Client::new(service, default_namespace),
            ApiServer { handle },
        )
    }

    /// A client on which any request fails the test: for code that should make none.
    ///
    /// # Panics
    ///
    /// The task serving the client panics at the first request, failing the test.
    pub fn silent(default_namespace: &str) -> Client {
        let (client, mut server) = ApiServer::mock(default_namespace);
        tokio::spawn(async move {
            if let Some((request, _)) = server.handle.next_request().await {
                panic!("unexpected request {} {}", request.method(), request.uri());
            }
        });
        client
    }

    /// Take the next request, check its method and path, answer it with `respond(body)`
    /// (status and JSON body) and return what it sent.
    ///
    /// # Panics
    ///
    /// When no request comes, or another one does.
    pub async fn expect(
        &mut self,
        method: &str,
        path: &str,
        respond: impl FnOnce(&Value) -> (u16, Value),
    ) -> Received {
        let (request, send) = self
            .handle
            .next_request()
            .await
            .unwrap_or_else(|| panic!("expected {method} {path}, but no request came"));
        assert_eq!(request.method().as_str(), method, "method of {path}");
        assert_eq!(request.uri().path(), path, "path of the {method} request");
        let query = request.uri().query().unwrap_or_default().to_string();
        let bytes = request
            .into_body()
            .collect_bytes()
            .await
            .unwrap_or_else(|error| panic!("cannot read the body of {method} {path}: {error}"));
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|error| panic!("the body of {method} {path} is not JSON: {error}"))
        };
        let (status, answer) = respond(&body);
        let response = Response::builder()
            .status(status)
            .body(Body::from(answer.to_string().into_bytes()))
            .unwrap_or_else(|error| panic!("cannot answer {method} {path} with {status}: {error}"));
        send.send_response(response);
        Received { query, body }
    }

    /// Run `work` while `script` answers its requests, then check that no other request
    /// came, and return what `work` returned. `work` must own the last clone of the client
    /// (a reconcile's context does): once it is dropped, the server knows no request is
    /// left.
    ///
    /// # Panics
    ///
    /// On a request `script` did not take.
    pub async fn serve<T>(
        mut self,
        work: impl Future<Output = T>,
        script: impl AsyncFnOnce(&mut ApiServer),
    ) -> T {
        let serve = async {
            script(&mut self).await;
            if let Some((request, _)) = self.handle.next_request().await {
                panic!("unexpected {} {}", request.method(), request.uri());
            }
        };
        let (result, ()) = tokio::join!(work, serve);
        result
    }
}

/// The answer of an API server that stores what it was sent: status 201 and the body.
pub fn created(body: &Value) -> (u16, Value) {
    (201, body.clone())
}

/// `T::default()` with `fields` merged over it as a JSON merge patch: the spec a test needs,
/// naming only the fields it sets (in their JSON names), where a struct literal would stop
/// compiling as soon as the type gains a field.
///
/// ```
/// # #[derive(Default, serde::Serialize, serde::Deserialize)]
/// # struct MemcachedSpec { size: i32, image: String }
/// use rusty_sdk_runtime::test_support::default_with;
/// use serde_json::json;
///
/// let spec: MemcachedSpec = default_with(&json!({ "size": 3 })).unwrap();
/// assert_eq!((spec.size, spec.image.as_str()), (3, ""));
/// ```
///
/// # Errors
///
/// When the merged JSON is not a `T`: `fields` names a field with a value of another type,
/// or `T`'s default does not serialize.
pub fn default_with<T>(fields: &Value) -> serde_json::Result<T>
where
    T: Default + Serialize + DeserializeOwned,
{
    let mut merged = serde_json::to_value(T::default())?;
    json_patch::merge(&mut merged, fields);
    serde_json::from_value(merged)
}

/// A recorder on `client` for events of the reporter `test-controller`.
pub fn recorder(client: &Client) -> Recorder {
    let reporter = Reporter {
        controller: "test-controller".into(),
        instance: None,
    };
    Recorder::new(client.clone(), reporter)
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::Api;
    use serde_json::json;

    use super::*;

    #[tokio::test]
    async fn answers_in_order_and_returns_what_was_sent() {
        let (client, server) = ApiServer::mock("testns");
        let work = async move {
            let api: Api<ConfigMap> = Api::default_namespaced(client);
            let cm: ConfigMap = serde_json::from_value(json!({"metadata": {"name": "a"}}))?;
            api.create(&kube::api::PostParams::default(), &cm).await?;
            anyhow::Ok(())
        };
        server
            .serve(work, async |server| {
                let path = "/api/v1/namespaces/testns/configmaps";
                let sent = server.expect("POST", path, created).await;
                assert_eq!(sent.body["metadata"]["name"], "a");
            })
            .await
            .unwrap();
    }

    #[derive(Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Spec {
        size: i32,
        container_port: Option<i32>,
        #[serde(default)]
        labels: std::collections::BTreeMap<String, String>,
    }

    #[test]
    fn default_with_sets_the_named_fields_and_defaults_the_rest() {
        let spec: Spec = default_with(&json!({ "size": 2, "labels": { "a": "b" } })).unwrap();
        let labels = [("a".to_owned(), "b".to_owned())].into();
        let expected = Spec {
            size: 2,
            container_port: None,
            labels,
        };
        assert_eq!(spec, expected);
        // A null removes a key, and the field takes its serde default again.
        let spec: Spec = default_with(&json!({ "containerPort": 80, "labels": null })).unwrap();
        assert_eq!((spec.size, spec.container_port), (0, Some(80)));
        assert!(spec.labels.is_empty());
    }

    #[test]
    fn default_with_names_a_value_of_the_wrong_type() {
        let error = default_with::<Spec>(&json!({ "size": "two" })).unwrap_err();
        assert!(
            error.to_string().contains("invalid type: string \"two\""),
            "{error}"
        );
    }

    #[tokio::test]
    #[should_panic(expected = "unexpected GET /api/v1/namespaces/testns/configmaps/b")]
    async fn a_request_the_script_did_not_take_fails() {
        let (client, server) = ApiServer::mock("testns");
        let work = async move {
            let api: Api<ConfigMap> = Api::default_namespaced(client);
            let _ = api.get("b").await;
        };
        server.serve(work, async |_| {}).await;
    }

    #[tokio::test]
    #[should_panic(expected = "expected GET /x, but no request came")]
    async fn a_missing_request_fails() {
        let (client, server) = ApiServer::mock("testns");
        server
            .serve(async move { drop(client) }, async |server| {
                server.expect("GET", "/x", |_| (200, Value::Null)).await;
            })
            .await;
    }
}
