//! Hooks of one event run as Helm runs them: ordered by weight then name, each deleted
//! first when its policy says `before-hook-creation` (the default), created, waited for
//! (Jobs and Pods until they finish), and afterwards deleted by `hook-succeeded` or
//! `hook-failed`. Every start is recorded in the release before the hook runs, so the
//! record tells which hook was running when the operator stopped.
use std::time::Duration;

use super::actions::Context;
use super::apply::ApplyMethod;
use super::record::{GoTime, HookExecution, HookRecord, ReleaseRecord};
use super::wait;
use super::{ClusterObject, EngineError};

pub(crate) const BEFORE_HOOK_CREATION: &str = "before-hook-creation";
pub(crate) const HOOK_SUCCEEDED: &str = "hook-succeeded";
pub(crate) const HOOK_FAILED: &str = "hook-failed";

/// Helm's hook events, as stored in `hooks[].events`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    PreInstall,
    PostInstall,
    PreUpgrade,
    PostUpgrade,
    PreRollback,
    PostRollback,
    PreDelete,
    PostDelete,
}

impl Event {
    pub fn as_str(self) -> &'static str {
        match self {
            Event::PreInstall => "pre-install",
            Event::PostInstall => "post-install",
            Event::PreUpgrade => "pre-upgrade",
            Event::PostUpgrade => "post-upgrade",
            Event::PreRollback => "pre-rollback",
            Event::PostRollback => "post-rollback",
            Event::PreDelete => "pre-delete",
            Event::PostDelete => "post-delete",
        }
    }
}

fn has_policy(hook: &HookRecord, policy: &str) -> bool {
    // Helm's `hookSetDeletePolicy`: no policy means `before-hook-creation`.
    if hook.delete_policies.is_empty() {
        return policy == BEFORE_HOOK_CREATION;
    }
    hook.delete_policies.iter().any(|p| p == policy)
}

/// Run the hooks of `event` of `record`, recording their runs in storage.
pub(crate) async fn run(
    ctx: &Context,
    record: &mut ReleaseRecord,
    event: Event,
    timeout: Duration,
) -> Result<(), EngineError> {
    let mut order: Vec<usize> = (0..record.hooks.len())
        .filter(|&i| record.hooks[i].events.iter().any(|e| e == event.as_str()))
        .collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&record.hooks[a], &record.hooks[b]);
        a.weight.cmp(&b.weight).then_with(|| a.name.cmp(&b.name))
    });
    // Hooks are written as the release's objects are, except on uninstall, which Helm
    // always does server-side.
    let method = match event {
        Event::PreDelete | Event::PostDelete => ApplyMethod::ServerSide,
        _ => ApplyMethod::from_record(Some(record.apply_method.as_str())),
    };
    for (position, &index) in order.iter().enumerate() {
        // Helm's `hookSetDeletePolicy`: a hook that runs without a policy is recorded with
        // the default one.
        if record.hooks[index].delete_policies.is_empty() {
            record.hooks[index].delete_policies = vec![BEFORE_HOOK_CREATION.to_string()];
        }
        let objects = ctx
            .objects_of(&record.hooks[index].manifest, &record.namespace)
            .await?;
        delete_by_policy(
            ctx,
            &record.hooks[index],
            &objects,
            BEFORE_HOOK_CREATION,
            timeout,
        )
        .await?;
        record.hooks[index].last_run = HookExecution {
            started_at: GoTime::now(),
            completed_at: GoTime::ZERO,
            phase: "Running".into(),
        };
        ctx.storage.update(record).await?;
        record.hooks[index].last_run.phase = "Unknown".into();
        let outcome = create_and_wait(ctx, &objects, method, timeout).await;
        let hook = &mut record.hooks[index];
        hook.last_run.completed_at = GoTime::now();
        if let Err(error) = outcome {
            hook.last_run.phase = "Failed".into();
            let failed = record.hooks[index].clone();
            if let Err(e) = delete_by_policy(ctx, &failed, &objects, HOOK_FAILED, timeout).await {
                tracing::warn!(hook = %failed.name, error = %e, "cannot delete the failed hook");
            }
            for &earlier in &order[..position] {
                let done = record.hooks[earlier].clone();
                let objects = ctx.objects_of(&done.manifest, &record.namespace).await?;
                delete_by_policy(ctx, &done, &objects, HOOK_SUCCEEDED, timeout).await?;
            }
            return Err(EngineError::Hook {
                event: event.as_str(),
                path: failed.path,
                reason: error.to_string(),
            });
        }
        hook.last_run.phase = "Succeeded".into();
    }
    for &index in order.iter().rev() {
        let hook = record.hooks[index].clone();
        let objects = ctx.objects_of(&hook.manifest, &record.namespace).await?;
        delete_by_policy(ctx, &hook, &objects, HOOK_SUCCEEDED, timeout).await?;
    }
    Ok(())
}

async fn create_and_wait(
    ctx: &Context,
    objects: &[ClusterObject],
    method: ApplyMethod,
    timeout: Duration,
) -> Result<(), EngineError> {
    let applier = ctx.applier(method, false);
    for object in objects {
        applier.create(object).await?;
    }
    for object in objects {
        wait::wait_hook_complete(&ctx.client, object, timeout).await?;
    }
    Ok(())
}

/// Delete the hook's objects when it has `policy`, and wait until they are gone.
async fn delete_by_policy(
    ctx: &Context,
    hook: &HookRecord,
    objects: &[ClusterObject],
    policy: &str,
    timeout: Duration,
) -> Result<(), EngineError> {
    // Helm never deletes a CRD hook: deleting it would delete every object of its kind.
    if hook.kind == "CustomResourceDefinition" || !has_policy(hook, policy) {
        return Ok(());
    }
    let applier = ctx.applier(ctx.method_for_hooks(), false);
    for object in objects {
        applier.delete(object).await?;
    }
    wait::wait_deleted(&ctx.client, objects, timeout).await?;
    Ok(())
}
