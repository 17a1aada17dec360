//! End-to-end tests of the operator on a Kind cluster, as kubebuilder scaffolds them: the
//! manager's image is built, loaded into the cluster and deployed with `make deploy`; its
//! pod must run, every sample of config/samples must be reconciled, and its metrics
//! endpoint must serve controller-runtime's metrics to an authorized client. Everything is
//! undeployed at the end, also when a step fails (the manager's logs and the namespace's
//! events are printed first).
//!
//! `make test-e2e` creates the Kind cluster `KIND_CLUSTER` and runs them; `cargo test`
//! reports them ignored. They refuse to run unless the current kubeconfig context is that
//! Kind cluster's, so that they never deploy to a real cluster.
mod utils;

use std::time::Duration;

use serde_json::{Value, json};
use utils::{eventually, kubectl, kubectl_json, make, ok, run, step, tool, true_conditions};

/// The name `init` gave the project: config/default prefixes every object with it.
const PROJECT: &str = env!("CARGO_PKG_NAME");
/// How long the manager may take to start, and a sample to be reconciled.
const TIMEOUT: Duration = Duration::from_mins(3);
/// The pod that scrapes the metrics endpoint.
const CURL_POD: &str = "curl-metrics";

#[test]
#[ignore = "needs a Kind cluster: make test-e2e"]
fn the_manager_runs_reconciles_the_samples_and_serves_metrics() {
    let cluster = kind_cluster();
    let image = std::env::var("IMG").unwrap_or_else(|_| format!("example.com/{PROJECT}:v0.0.1"));
    step("building the manager image");
    ok(make(&["docker-build", &format!("IMG={image}")]));
    step("loading the image into the Kind cluster");
    let kind = tool("KIND", "kind");
    let load = ["load", "docker-image", &image, "--name", &cluster];
    ok(run(&kind, &load));

    let deployed = Deployed::new(&image);
    step("checking that the controller-manager pod runs");
    let pod = eventually("the controller-manager pod runs", TIMEOUT, controller_pod);
    eprintln!("controller-manager pod: {pod}");

    step("creating the samples of config/samples");
    let samples = deployed.create_samples();
    for (kind, name) in &samples {
        step(&format!("checking that {kind} {name} is reconciled"));
        let what = format!("{kind} {name} has a True condition");
        let namespace = deployed.samples_namespace.as_str();
        eventually(&what, TIMEOUT, || {
            let object = kubectl_json(&["get", kind, name, "-n", namespace])?;
            if true_conditions(&object).is_empty() {
                return Err(format!("status: {}", object["status"]));
            }
            Ok(())
        });
    }

    step("checking that the metrics endpoint serves an authorized client");
    let log = deployed.scrape_metrics();
    assert!(log.contains("< HTTP/1.1 200 OK"), "{log}");
    // Reconciles are counted once there are some.
    let metric = if samples.is_empty() {
        "controller_runtime_reconcile"
    } else {
        "controller_runtime_reconcile_total{"
    };
    assert!(log.contains(metric), "no {metric} in:\n{log}");
}

/// The Kind cluster `make test-e2e` made, which must be the current kubeconfig context.
fn kind_cluster() -> String {
    let cluster = std::env::var("KIND_CLUSTER").unwrap_or_default();
    assert!(
        !cluster.is_empty(),
        "KIND_CLUSTER is not set: run the e2e tests with `make test-e2e`"
    );
    let context = kubectl(&["config", "current-context"]).unwrap_or_default();
    assert_eq!(
        context.trim(),
        format!("kind-{cluster}"),
        "the current kubeconfig context is not the Kind cluster {cluster}; the e2e tests deploy only there"
    );
    cluster
}

/// The name of the one running controller-manager pod.
fn controller_pod() -> Result<String, String> {
    let namespace = format!("{PROJECT}-system");
    let selector = "control-plane=controller-manager";
    let pods = kubectl_json(&["get", "pods", "-l", selector, "-n", &namespace])?;
    let live: Vec<&Value> = pods["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|pod| pod["metadata"]["deletionTimestamp"].is_null())
        .collect();
    let [pod] = live.as_slice() else {
        return Err(format!("{} controller-manager pods", live.len()));
    };
    let phase = &pod["status"]["phase"];
    if phase != "Running" {
        return Err(format!("the pod is {phase}"));
    }
    let name = pod["metadata"]["name"].as_str().unwrap_or_default();
    Ok(name.to_string())
}

/// The operator deployed with `make deploy`; dropped, it is undeployed with what the test
/// created, after printing the manager's logs and events when the test failed.
struct Deployed {
    namespace: String,
    /// Where the samples go: the namespace of the current kubeconfig context.
    samples_namespace: String,
}

impl Deployed {
    /// Create the manager's namespace under the "restricted" Pod Security Standard, then
    /// `make install` and `make deploy IMG=image`.
    fn new(image: &str) -> Self {
        let namespace = format!("{PROJECT}-system");
        step("creating the manager's namespace, enforcing the restricted Pod Security Standard");
        if kubectl(&["get", "namespace", &namespace]).is_err() {
            ok(kubectl(&["create", "namespace", &namespace]));
        }
        let restricted = "pod-security.kubernetes.io/enforce=restricted";
        ok(kubectl(&[
            "label",
            "--overwrite",
            "namespace",
            &namespace,
            restricted,
        ]));
        let deployed = Deployed {
            namespace,
            samples_namespace: "default".into(),
        };
        step("installing the CRDs");
        ok(make(&["install"]));
        step("deploying the controller-manager");
        ok(make(&["deploy", &format!("IMG={image}")]));
        deployed
    }

    /// Apply config/samples; the kind and name of every sample.
    fn create_samples(&self) -> Vec<(String, String)> {
        let listed = ok(kubectl(&["kustomize", "config/samples"]));
        if listed.trim().is_empty() {
            return Vec::new();
        }
        ok(kubectl(&[
            "apply",
            "-k",
            "config/samples",
            "-n",
            &self.samples_namespace,
        ]));
        let namespace = self.samples_namespace.as_str();
        let objects = ok(kubectl_json(&[
            "get",
            "-k",
            "config/samples",
            "-n",
            namespace,
        ]));
        let items = objects["items"].as_array().cloned().unwrap_or_default();
        let items = if items.is_empty() {
            vec![objects]
        } else {
            items
        };
        items
            .iter()
            .map(|object| {
                let kind = object["kind"].as_str().unwrap_or_default();
                let group = object["apiVersion"].as_str().unwrap_or_default();
                let name = object["metadata"]["name"].as_str().unwrap_or_default();
                match group.split_once('/') {
                    Some((group, _)) => (format!("{kind}.{group}"), name.to_string()),
                    None => (kind.to_string(), name.to_string()),
                }
            })
            .collect()
    }

    /// Bind the metrics reader role to the manager's `ServiceAccount` and fetch `/metrics`
    /// over HTTPS with its token from a curl pod: the pod's log (curl's `-v` output and the
    /// metrics).
    fn scrape_metrics(&self) -> String {
        let ns = self.namespace.as_str();
        let account = format!("{PROJECT}-controller-manager");
        let binding = format!("{PROJECT}-metrics-binding");
        let role = format!("--clusterrole={PROJECT}-metrics-reader");
        let subject = format!("--serviceaccount={ns}:{account}");
        let _ = kubectl(&[
            "delete",
            "clusterrolebinding",
            &binding,
            "--ignore-not-found",
        ]);
        ok(kubectl(&[
            "create",
            "clusterrolebinding",
            &binding,
            &role,
            &subject,
        ]));
        let token = ok(kubectl(&["create", "token", &account, "-n", ns]));
        let url = self.metrics_url();
        let header = format!("Authorization: Bearer {}", token.trim());
        let overrides = json!({
            "spec": {
                "serviceAccountName": account,
                "containers": [{
                    "name": "curl",
                    "image": "curlimages/curl:latest",
                    "command": ["curl", "-v", "-k", "-H", header, url],
                    "securityContext": {
                        "readOnlyRootFilesystem": true,
                        "allowPrivilegeEscalation": false,
                        "capabilities": { "drop": ["ALL"] },
                        "runAsNonRoot": true,
                        "runAsUser": 1000,
                        "seccompProfile": { "type": "RuntimeDefault" }
                    }
                }]
            }
        });
        let overrides = format!("--overrides={overrides}");
        let image = "--image=curlimages/curl:latest";
        let _ = kubectl(&["delete", "pod", CURL_POD, "-n", ns, "--ignore-not-found"]);
        ok(kubectl(&[
            "run",
            CURL_POD,
            "--restart=Never",
            "-n",
            ns,
            image,
            &overrides,
        ]));
        eventually("the curl pod has finished", TIMEOUT, || {
            let pod = kubectl_json(&["get", "pod", CURL_POD, "-n", ns])?;
            match pod["status"]["phase"].as_str() {
                Some("Succeeded") => Ok(()),
                phase => Err(format!("the pod is {phase:?}")),
            }
        });
        ok(kubectl(&["logs", CURL_POD, "-n", ns]))
    }

    /// The URL of the metrics Service, once it has a ready endpoint.
    fn metrics_url(&self) -> String {
        let ns = self.namespace.as_str();
        let service = format!("{PROJECT}-controller-manager-metrics-service");
        ok(kubectl(&["get", "service", &service, "-n", ns]));
        let selector = format!("kubernetes.io/service-name={service}");
        eventually("the metrics Service has a ready endpoint", TIMEOUT, || {
            let slices = kubectl_json(&["get", "endpointslices", "-l", &selector, "-n", ns])?;
            let endpoints = slices["items"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|slice| slice["endpoints"].as_array().into_iter().flatten());
            let mut ready = endpoints.filter(|endpoint| endpoint["conditions"]["ready"] == true);
            ready.next().map(|_| ()).ok_or_else(|| slices.to_string())
        });
        format!("https://{service}.{ns}.svc.cluster.local:8443/metrics")
    }

    /// What a failed test prints: the manager's logs, the namespace's events and pods.
    fn print_diagnostics(&self) {
        let ns = self.namespace.as_str();
        let selector = "control-plane=controller-manager";
        for args in [
            &["logs", "-l", selector, "-n", ns, "--tail=-1"][..],
            &["get", "events", "-n", ns, "--sort-by=.lastTimestamp"],
            &["describe", "pods", "-n", ns],
            &["logs", CURL_POD, "-n", ns],
        ] {
            match kubectl(args) {
                Ok(output) => eprintln!("kubectl {}:\n{output}", args.join(" ")),
                Err(error) => eprintln!("{error}"),
            }
        }
    }
}

impl Drop for Deployed {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.print_diagnostics();
        }
        step("undeploying: the samples, the metrics binding, the controller-manager and the CRDs");
        let ns = self.samples_namespace.as_str();
        let binding = format!("{PROJECT}-metrics-binding");
        // Errors are printed, not raised: a panic while the test panics would abort.
        for result in [
            kubectl(&[
                "delete",
                "pod",
                CURL_POD,
                "-n",
                &self.namespace,
                "--ignore-not-found",
            ]),
            kubectl(&[
                "delete",
                "-k",
                "config/samples",
                "-n",
                ns,
                "--ignore-not-found",
                "--timeout=2m",
            ]),
            kubectl(&[
                "delete",
                "clusterrolebinding",
                &binding,
                "--ignore-not-found",
            ]),
            make(&["undeploy", "ignore-not-found=true"]),
            make(&["uninstall", "ignore-not-found=true"]),
        ] {
            if let Err(error) = result {
                eprintln!("{error}");
            }
        }
    }
}
