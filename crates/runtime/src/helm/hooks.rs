//! Pre- and post-release hooks: user code run around each install/upgrade/reconcile.
//! As upstream, a failing hook is logged and does not fail the reconcile.
use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use kube::ResourceExt;
use kube::api::DynamicObject;
use serde_json::Value;

use super::release::Release;

/// Runs before the Helm action with the custom resource and the values.
pub type PreHook =
    Arc<dyn Fn(DynamicObject, Value) -> BoxFuture<'static, anyhow::Result<()>> + Send + Sync>;
/// Runs after a successful Helm action with the custom resource and the release.
pub type PostHook =
    Arc<dyn Fn(DynamicObject, Release) -> BoxFuture<'static, anyhow::Result<()>> + Send + Sync>;

/// Wrap an async function as a [`PreHook`].
pub fn pre_hook<F, Fut>(hook: F) -> PreHook
where
    F: Fn(DynamicObject, Value) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = anyhow::Result<()>> + Send + 'static,
{
    Arc::new(move |obj, values| Box::pin(hook(obj, values)))
}

/// Wrap an async function as a [`PostHook`].
pub fn post_hook<F, Fut>(hook: F) -> PostHook
where
    F: Fn(DynamicObject, Release) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = anyhow::Result<()>> + Send + 'static,
{
    Arc::new(move |obj, release| Box::pin(hook(obj, release)))
}

pub(crate) async fn run_pre_hooks(hooks: &[PreHook], obj: &DynamicObject, values: &Value) {
    for hook in hooks {
        if let Err(error) = hook(obj.clone(), values.clone()).await {
            tracing::error!(name = %obj.name_any(), error = format!("{error:#}"), "pre-release hook failed");
        }
    }
}

pub(crate) async fn run_post_hooks(hooks: &[PostHook], obj: &DynamicObject, release: &Release) {
    for hook in hooks {
        if let Err(error) = hook(obj.clone(), release.clone()).await {
            tracing::error!(
                name = %obj.name_any(),
                release = %release.name,
                version = release.version,
                error = format!("{error:#}"),
                "post-release hook failed"
            );
        }
    }
}
