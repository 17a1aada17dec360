//! Who may read `/metrics`: kubebuilder v4's secure-metrics check. The bearer token is
//! authenticated with a `TokenReview`, then the user is authorized with a
//! `SubjectAccessReview` for the non-resource URL `/metrics`, verb `get`.
use futures::future::BoxFuture;
use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec, UserInfo};
use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kube::Client;
use kube::api::{Api, PostParams};

/// The outcome of checking one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AuthDecision {
    /// The caller may read the path.
    Allowed,
    /// No valid token: answer 401.
    Unauthenticated,
    /// A valid user who may not read the path: answer 403 (the user name is kept for the message).
    Forbidden { user: String },
    /// The check itself failed (API server unreachable, ...): answer 500.
    Failed(String),
}

/// Decides whether a bearer token may `get` a non-resource path. A trait so the
/// metrics server can be tested without a cluster.
pub trait MetricsAuthorizer: Send + Sync + 'static {
    fn authorize<'a>(&'a self, token: &'a str, path: &'a str) -> BoxFuture<'a, AuthDecision>;
}

/// The real check against the API server (needs RBAC: `create` on
/// `authentication.k8s.io/tokenreviews` and `authorization.k8s.io/subjectaccessreviews`).
#[derive(Clone)]
pub struct KubeAuthorizer {
    client: Client,
}

impl KubeAuthorizer {
    pub fn new(client: Client) -> Self {
        KubeAuthorizer { client }
    }

    async fn authenticate(&self, token: &str) -> Result<Option<UserInfo>, kube::Error> {
        let review = TokenReview {
            spec: TokenReviewSpec {
                token: Some(token.to_string()),
                ..TokenReviewSpec::default()
            },
            ..TokenReview::default()
        };
        let api: Api<TokenReview> = Api::all(self.client.clone());
        let reviewed = api.create(&PostParams::default(), &review).await?;
        Ok(reviewed
            .status
            .filter(|status| status.authenticated == Some(true))
            .and_then(|status| status.user))
    }

    async fn may_get(&self, user: UserInfo, path: &str) -> Result<bool, kube::Error> {
        let review = SubjectAccessReview {
            spec: SubjectAccessReviewSpec {
                user: user.username,
                uid: user.uid,
                groups: user.groups,
                extra: user.extra,
                non_resource_attributes: Some(NonResourceAttributes {
                    path: Some(path.to_string()),
                    verb: Some("get".to_string()),
                }),
                ..SubjectAccessReviewSpec::default()
            },
            ..SubjectAccessReview::default()
        };
        let api: Api<SubjectAccessReview> = Api::all(self.client.clone());
        let reviewed = api.create(&PostParams::default(), &review).await?;
        Ok(reviewed.status.is_some_and(|status| status.allowed))
    }
}

impl MetricsAuthorizer for KubeAuthorizer {
    fn authorize<'a>(&'a self, token: &'a str, path: &'a str) -> BoxFuture<'a, AuthDecision> {
        Box::pin(async move {
            let user = match self.authenticate(token).await {
                Ok(Some(user)) => user,
                Ok(None) => return AuthDecision::Unauthenticated,
                Err(err) => {
                    // As controller-runtime: a failed TokenReview is reported as 401.
                    tracing::warn!(error = %err, "metrics: TokenReview failed");
                    return AuthDecision::Unauthenticated;
                }
            };
            let name = user.username.clone().unwrap_or_default();
            match self.may_get(user, path).await {
                Ok(true) => AuthDecision::Allowed,
                Ok(false) => AuthDecision::Forbidden { user: name },
                Err(err) => {
                    AuthDecision::Failed(format!("authorization of user {name:?} failed: {err}"))
                }
            }
        })
    }
}

/// The token of an `Authorization: Bearer <token>` header, if there is one.
pub fn bearer_token(header: Option<&str>) -> Option<&str> {
    let (scheme, token) = header?.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

#[cfg(test)]
mod tests {
    use http::{Request, Response};
    use kube::client::Body;
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn bearer_tokens_are_extracted() {
        assert_eq!(bearer_token(Some("Bearer abc")), Some("abc"));
        assert_eq!(bearer_token(Some("bearer  abc ")), Some("abc"));
        assert_eq!(bearer_token(Some("Basic abc")), None);
        assert_eq!(bearer_token(Some("Bearer ")), None);
        assert_eq!(bearer_token(None), None);
    }

    type Handle = tower_test::mock::Handle<Request<Body>, Response<Body>>;

    async fn expect_post(handle: &mut Handle, path: &str, answer: Value) -> Value {
        let (request, send) = handle.next_request().await.expect("a request");
        assert_eq!(request.method(), http::Method::POST);
        assert_eq!(request.uri().path(), path);
        let body = request.into_body().collect_bytes().await.unwrap();
        let sent: Value = serde_json::from_slice(&body).unwrap();
        send.send_response(Response::new(Body::from(
            serde_json::to_vec(&answer).unwrap(),
        )));
        sent
    }

    fn mocked_client() -> (Client, Handle) {
        let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
        (Client::new(service, "default"), handle)
    }

    const TOKEN_REVIEWS: &str = "/apis/authentication.k8s.io/v1/tokenreviews";
    const ACCESS_REVIEWS: &str = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

    fn token_review_answer(authenticated: bool) -> Value {
        json!({
            "apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview",
            "spec": {},
            "status": {
                "authenticated": authenticated,
                "user": {"username": "system:serviceaccount:monitoring:prometheus",
                         "uid": "u-1", "groups": ["system:serviceaccounts"]}
            }
        })
    }

    fn access_review_answer(allowed: bool) -> Value {
        json!({
            "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
            "spec": {}, "status": {"allowed": allowed}
        })
    }

    #[tokio::test]
    async fn token_review_then_subject_access_review_allow() {
        let (client, mut handle) = mocked_client();
        let server = tokio::spawn(async move {
            let review = expect_post(&mut handle, TOKEN_REVIEWS, token_review_answer(true)).await;
            assert_eq!(review["spec"]["token"], "secret-token");
            let access = expect_post(&mut handle, ACCESS_REVIEWS, access_review_answer(true)).await;
            assert_eq!(
                access["spec"],
                json!({
                    "user": "system:serviceaccount:monitoring:prometheus",
                    "uid": "u-1",
                    "groups": ["system:serviceaccounts"],
                    "nonResourceAttributes": {"path": "/metrics", "verb": "get"}
                })
            );
        });
        let decision = KubeAuthorizer::new(client)
            .authorize("secret-token", "/metrics")
            .await;
        server.await.unwrap();
        assert_eq!(decision, AuthDecision::Allowed);
    }

    #[tokio::test]
    async fn denied_access_review_is_forbidden_with_the_user() {
        let (client, mut handle) = mocked_client();
        let server = tokio::spawn(async move {
            expect_post(&mut handle, TOKEN_REVIEWS, token_review_answer(true)).await;
            expect_post(&mut handle, ACCESS_REVIEWS, access_review_answer(false)).await;
        });
        let decision = KubeAuthorizer::new(client).authorize("t", "/metrics").await;
        server.await.unwrap();
        assert_eq!(
            decision,
            AuthDecision::Forbidden {
                user: "system:serviceaccount:monitoring:prometheus".into()
            }
        );
    }

    #[tokio::test]
    async fn unauthenticated_token_skips_the_access_review() {
        let (client, mut handle) = mocked_client();
        let server = tokio::spawn(async move {
            expect_post(&mut handle, TOKEN_REVIEWS, token_review_answer(false)).await;
            // Any further request would be a bug: the handle must see none.
            assert!(handle.next_request().await.is_none());
        });
        let authorizer = KubeAuthorizer::new(client);
        let decision = authorizer.authorize("bad", "/metrics").await;
        drop(authorizer);
        server.await.unwrap();
        assert_eq!(decision, AuthDecision::Unauthenticated);
    }
}
