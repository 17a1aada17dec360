//! The release engine's waits (helm/engine/wait.rs) on the real API server, beside the real
//! helm v4.2.3 waiting on the same objects. There is no kubelet here: a Deployment or Job
//! never progresses by itself, so each wait first times out (and must say what the real
//! Helm says), then the test writes the status a controller would and the wait must end.
use std::path::Path;
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ApiResource, Patch, PatchParams};
use rusty_sdk_runtime::helm::engine_wait::{self, Target};
use rusty_sdk_test_tools::needs;
use serde_json::json;

use super::cluster;

/// Short enough for a suite, long enough for the watch to list the object first.
const SHORT: Duration = Duration::from_secs(3);
/// A wait that should end on a status change well before this.
const LONG: Duration = Duration::from_secs(60);

/// A chart named `name` with one template, written under `dir`.
fn chart(dir: &Path, name: &str, template: &str) -> String {
    super::one_template_chart(dir, name, "object.yaml", template)
        .display()
        .to_string()
}

/// Run the real helm, which must fail, and return what it printed on stderr.
async fn helm_fails(args: Vec<String>) -> String {
    tokio::task::spawn_blocking(move || {
        let output = super::operator::tool_command("helm")
            .args(&args)
            .output()
            .unwrap_or_else(|e| panic!("helm could not start: {e}"));
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(
            !output.status.success(),
            "`helm {}` succeeded, a failure was expected:\n{stderr}",
            args.join(" ")
        );
        stderr
    })
    .await
    .unwrap()
}

fn args(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

fn target<K: kube::Resource<DynamicType = ()>>(ns: &str, name: &str) -> Target {
    Target {
        resource: ApiResource::erase::<K>(&()),
        namespace: Some(ns.to_string()),
        name: name.to_string(),
        body: json!({}),
    }
}

fn now() -> String {
    k8s_openapi::jiff::Timestamp::now().to_string()
}

/// Write `status` through the status subresource, as the object's controller would.
async fn patch_status<K>(api: &Api<K>, name: &str, status: serde_json::Value)
where
    K: Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    api.patch_status(
        name,
        &PatchParams::default(),
        &Patch::Merge(json!({ "status": status })),
    )
    .await
    .unwrap_or_else(|e| panic!("status of {name} not written: {e}"));
}

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
";

const HOOK_JOB: &str = "apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations: {helm.sh/hook: pre-install}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: busybox}]
";

#[needs(control_plane, helm)]
#[tokio::test]
async fn a_deployment_is_not_ready_until_its_status_says_so_and_the_error_is_helms() {
    let client = cluster().client().await.unwrap();
    let ns = cluster()
        .create_namespace(&client, "wait-deploy")
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let web = chart(dir.path(), "web", DEPLOYMENT);
    let helm = helm_fails(args(&format!(
        "install web {web} -n {ns} --wait=watcher --timeout 3s"
    )))
    .await;

    let targets = [target::<Deployment>(&ns, "web")];
    let error = engine_wait::wait_ready(&client, &targets, SHORT)
        .await
        .expect_err("a Deployment no controller has seen is not ready");
    assert!(
        error.starts_with(&format!(
            "resource Deployment/{ns}/web not ready. status: InProgress"
        )),
        "{error}"
    );
    assert!(
        helm.contains(&error),
        "the real helm said something else on the same Deployment:\nhelm: {helm}\nours: {error}"
    );

    let waiting = tokio::spawn(async move {
        let client = cluster().client().await.unwrap();
        engine_wait::wait_ready(&client, &targets, LONG).await
    });
    let started = Instant::now();
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), &ns);
    patch_status(
        &deployments,
        "web",
        json!({
            "observedGeneration": 1, "replicas": 1, "updatedReplicas": 1,
            "readyReplicas": 1, "availableReplicas": 1,
            "conditions": [
                { "type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable" },
                { "type": "Available", "status": "True" },
            ],
        }),
    )
    .await;
    waiting
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("the wait did not end on a ready status: {e}"));
    assert!(
        started.elapsed() < LONG / 2,
        "the wait ended late: {:?}",
        started.elapsed()
    );
}

#[needs(control_plane, helm)]
#[tokio::test]
async fn a_hook_job_is_waited_for_until_it_completes_and_the_error_is_helms() {
    let client = cluster().client().await.unwrap();
    let ns = cluster()
        .create_namespace(&client, "wait-hook")
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let hook = chart(dir.path(), "hook", HOOK_JOB);
    let helm = helm_fails(args(&format!("install hook {hook} -n {ns} --timeout 3s"))).await;

    let job = target::<Job>(&ns, "migrate");
    let error = engine_wait::wait_hook_complete(&client, &job, SHORT)
        .await
        .expect_err("a Job that never ran is not complete");
    assert_eq!(
        error,
        format!(
            "resource Job/{ns}/migrate not ready. status: InProgress, message: Job in progress\n\
             context deadline exceeded"
        )
    );
    assert!(
        helm.contains(&format!("failed pre-install: {error}")),
        "the real helm said something else on the same Job:\nhelm: {helm}\nours: {error}"
    );
    // `--wait` without `--wait-for-jobs` does not wait for a Job to end: the API server
    // stamps no startTime here, so kstatus still calls it not started.
    let ready = engine_wait::wait_ready(&client, std::slice::from_ref(&job), SHORT).await;
    assert!(ready.is_err_and(|e| e.contains("message: Job not started")));

    let waiting = tokio::spawn(async move {
        let client = cluster().client().await.unwrap();
        engine_wait::wait_hook_complete(&client, &job, LONG).await
    });
    let jobs: Api<Job> = Api::namespaced(client.clone(), &ns);
    let at = now();
    // The API server refuses Complete without SuccessCriteriaMet (Kubernetes 1.33+).
    patch_status(
        &jobs,
        "migrate",
        json!({
            "startTime": at, "completionTime": at, "succeeded": 1,
            "conditions": [
                { "type": "SuccessCriteriaMet", "status": "True", "lastTransitionTime": at },
                { "type": "Complete", "status": "True", "lastTransitionTime": at },
            ],
        }),
    )
    .await;
    waiting
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("the hook wait did not end on completion: {e}"));
}

#[needs(control_plane, helm)]
#[tokio::test]
async fn a_failed_hook_job_ends_the_wait_at_once_naming_why() {
    let client = cluster().client().await.unwrap();
    let ns = cluster()
        .create_namespace(&client, "wait-failed")
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let hook = chart(dir.path(), "hook", HOOK_JOB);
    // The real helm waits on the hook while the test fails it.
    let helm = tokio::spawn(helm_fails(args(&format!(
        "install hook {hook} -n {ns} --timeout 60s"
    ))));
    let jobs: Api<Job> = Api::namespaced(client.clone(), &ns);
    super::eventually("helm creates the hook Job", LONG, || {
        let jobs = jobs.clone();
        async move { jobs.get_opt("migrate").await.unwrap().map(|_| ()) }
    })
    .await;

    let ours = tokio::spawn({
        let ns = ns.clone();
        async move {
            let client = cluster().client().await.unwrap();
            let started = Instant::now();
            let result =
                engine_wait::wait_hook_complete(&client, &target::<Job>(&ns, "migrate"), LONG)
                    .await;
            (result, started.elapsed())
        }
    });
    let at = now();
    let why = "Job has reached the specified backoff limit";
    // The API server refuses Failed without FailureTarget (Kubernetes 1.33+).
    patch_status(
        &jobs,
        "migrate",
        json!({
            "startTime": at, "failed": 1,
            "conditions": [
                { "type": "FailureTarget", "status": "True", "reason": "BackoffLimitExceeded",
                  "message": why, "lastTransitionTime": at },
                { "type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
                  "message": why, "lastTransitionTime": at },
            ],
        }),
    )
    .await;

    let helm = helm.await.unwrap();
    let helms_line = format!(
        "resource Job/{ns}/migrate not ready. status: Failed, message: Job Failed. failed: 1/1"
    );
    assert!(helm.contains(&helms_line), "the real helm said: {helm}");
    let (result, took) = ours.await.unwrap();
    let error = result.expect_err("a failed hook Job is an error");
    assert_eq!(error, format!("{helms_line} (BackoffLimitExceeded: {why})"));
    assert!(
        took < LONG / 2,
        "a failed Job is terminal, yet the wait took {took:?}"
    );
}

#[needs(control_plane, helm)]
#[tokio::test]
async fn an_object_held_by_a_finalizer_is_not_deleted_until_the_finalizer_goes() {
    let client = cluster().client().await.unwrap();
    let ns = cluster()
        .create_namespace(&client, "wait-deleted")
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let held = chart(
        dir.path(),
        "held",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  finalizers: [example.com/hold]\ndata: {a: b}\n",
    );
    let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), &ns);
    let install = tokio::task::spawn_blocking({
        let (held, ns) = (held.clone(), ns.clone());
        move || super::operator::helm(&["install", "held", &held, "-n", &ns])
    });
    install.await.unwrap();
    let helm = helm_fails(args(&format!(
        "uninstall held -n {ns} --wait=watcher --timeout 3s"
    )))
    .await;

    let targets = [target::<ConfigMap>(&ns, "held")];
    let error = engine_wait::wait_deleted(&client, &targets, SHORT)
        .await
        .expect_err("an object with a finalizer stays");
    assert_eq!(
        error,
        format!(
            "resource ConfigMap/{ns}/held still exists. status: Terminating, message: Resource scheduled for deletion\n\
             context deadline exceeded"
        )
    );
    assert!(
        helm.contains(&error),
        "the real helm said: {helm}\nours: {error}"
    );

    let waiting = tokio::spawn(async move {
        let client = cluster().client().await.unwrap();
        engine_wait::wait_deleted(&client, &targets, LONG).await
    });
    config_maps
        .patch(
            "held",
            &PatchParams::default(),
            &Patch::Merge(json!({ "metadata": { "finalizers": null } })),
        )
        .await
        .unwrap();
    waiting
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("the wait did not end when the object went: {e}"));

    // An object already gone when the wait starts counts as deleted (Helm's rule).
    let gone = [target::<ConfigMap>(&ns, "held")];
    let started = Instant::now();
    engine_wait::wait_deleted(&client, &gone, LONG)
        .await
        .unwrap();
    assert!(started.elapsed() < LONG / 2);
}
