//! A generated operator deployed the way `make deploy` deploys it, but run as a local
//! process: `config/default` applied to the control plane (namespace, CRDs, RBAC,
//! ServiceAccount), then the built binary started with a token of the generated
//! ServiceAccount, so RBAC enforces exactly the role `generate rbac` wrote.
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use kube::api::{Api, DynamicObject};
use kube::discovery::ApiResource;

use super::{assets, cluster};
use crate::e2e::{built_operator, free_port, http_get, kustomize};

/// A scaffolded project built and installed on the control plane.
pub struct Installed {
    pub root: PathBuf,
    pub binary: PathBuf,
    /// `<project>-system`, where the manager's ServiceAccount and Lease live.
    pub system_namespace: String,
    /// A kubeconfig with a token of `<project>-controller-manager`.
    pub kubeconfig: PathBuf,
}

/// Build the project at `root`, apply its `config/default` and get its ServiceAccount's
/// token. The project's folder name is its name, as `init` takes it.
pub async fn install(root: &Path) -> Installed {
    let name = root.file_name().unwrap().to_string_lossy().into_owned();
    let binary = built_operator(root);
    let manifests = kustomize(root, "config/default");
    kubectl_stdin(&["apply", "--server-side", "-f", "-"], &manifests);
    let system_namespace = format!("{name}-system");
    let kubeconfig = cluster()
        .service_account_kubeconfig(&system_namespace, &format!("{name}-controller-manager"))
        .await
        .unwrap_or_else(|e| panic!("{e:#}"));
    Installed {
        root: root.to_path_buf(),
        binary,
        system_namespace,
        kubeconfig,
    }
}

fn kubectl_stdin(args: &[&str], stdin: &str) -> String {
    run_tool("kubectl", args, Some(stdin))
}

/// Run the control plane's helm (the reference Helm) as the admin.
pub fn helm(args: &[&str]) -> String {
    run_tool("helm", args, None)
}

/// A tool of the control plane's folder (kubectl, helm) run as the admin, helm with a home
/// of its own.
pub fn tool_command(tool: &str) -> Command {
    let helm_home = std::env::temp_dir().join("rusty-sdk-cluster-helm");
    let mut command = Command::new(assets().join(tool));
    command
        .env("KUBECONFIG", cluster().admin_kubeconfig())
        .env("HELM_CACHE_HOME", helm_home.join("cache"))
        .env("HELM_CONFIG_HOME", helm_home.join("config"))
        .env("HELM_DATA_HOME", helm_home.join("data"));
    command
}

fn run_tool(tool: &str, args: &[&str], stdin: Option<&str>) -> String {
    let mut child = tool_command(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{tool} could not start: {e}"));
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "`{tool} {}` failed:\n{stdout}{}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// A running operator process; dropping it kills it.
pub struct Operator {
    child: Child,
    log: PathBuf,
}

impl Operator {
    /// Start the installed operator with `args` (say `--namespace=<test namespace>`, so
    /// tests running side by side each have their own operator), and wait until it
    /// reports ready.
    pub fn start(installed: &Installed, args: &[&str]) -> Operator {
        Operator::start_with_env(installed, args, &[])
    }

    /// [`Operator::start`] with more environment variables (say the image a deploy-image
    /// controller reads, which the manager's Deployment sets in a cluster).
    pub fn start_with_env(installed: &Installed, args: &[&str], env: &[(&str, &str)]) -> Operator {
        let health = free_port();
        let log = tempfile::Builder::new()
            .prefix("operator-")
            .suffix(".log")
            .tempfile_in(&installed.root)
            .unwrap()
            .into_temp_path()
            .keep()
            .unwrap();
        let out = std::fs::File::create(&log).unwrap();
        // No helm on PATH: the operator makes releases in process, and a helm it tried
        // to run would fail the test instead of quietly working.
        let path = installed.root.join(".empty-path");
        std::fs::create_dir_all(&path).unwrap();
        // No metrics server unless the test asks for one.
        let metrics = args
            .iter()
            .all(|arg| !arg.starts_with("--metrics-bind-address"))
            .then_some("--metrics-bind-address=0");
        let child = Command::new(&installed.binary)
            .current_dir(&installed.root)
            .arg(format!("--health-probe-bind-address=127.0.0.1:{health}"))
            .args(metrics)
            .args(args)
            .env("KUBECONFIG", &installed.kubeconfig)
            .env("POD_NAMESPACE", &installed.system_namespace)
            .env("POD_NAME", format!("operator-{health}"))
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .env("RUST_LOG", "info")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap();
        let mut operator = Operator { child, log };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(Some(status)) = operator.child.try_wait() {
                panic!("the operator exited with {status}:\n{}", operator.log());
            }
            if http_status(health, "/readyz") == Some(200) {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the operator was not ready in 60s:\n{}",
                operator.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        operator
    }

    /// What the operator has logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// SIGTERM, and require a clean exit within 30 s.
    pub fn stop(mut self) -> String {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "the operator did not stop in 30s after SIGTERM:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(
            status.success(),
            "exit {status} after SIGTERM:\n{}",
            self.log()
        );
        self.log()
    }
}

impl Drop for Operator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The HTTP status of `GET path` on 127.0.0.1:`port`, if it answers.
fn http_status(port: u16, path: &str) -> Option<u16> {
    http_get(port, path)?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// An API for custom resources of `group/version` `kind` (plural `plural`) in `namespace`.
pub fn custom(
    client: &kube::Client,
    namespace: &str,
    (group, version, kind, plural): (&str, &str, &str, &str),
) -> Api<DynamicObject> {
    let gvk = kube::api::GroupVersionKind::gvk(group, version, kind);
    Api::namespaced_with(
        client.clone(),
        namespace,
        &ApiResource::from_gvk_with_plural(&gvk, plural),
    )
}
