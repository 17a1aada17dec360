//! A real Kubernetes control plane for tests, as controller-runtime's envtest starts one:
//! etcd and kube-apiserver from a folder of binaries (`KUBEBUILDER_ASSETS`), plus
//! kube-controller-manager when that folder has it (namespace deletion, garbage collection
//! and the deletion of `PersistentVolumeClaims` need it; envtest's own binaries lack it).
//!
//! The API server runs as on a cluster: TLS with a CA of its own, client certificates and
//! `ServiceAccount` tokens for authentication, and the RBAC authorizer, so a test can run an
//! operator with exactly the permissions its generated role grants.
//!
//! ```no_run
//! # async fn doc() -> anyhow::Result<()> {
//! use rusty_sdk_runtime::envtest::ControlPlane;
//!
//! let cluster = ControlPlane::shared()?; // one per test binary, started on first use
//! let client = cluster.client().await?; // an admin client for this test's runtime
//! let namespace = cluster.create_namespace(&client, "memcached").await?;
//! # Ok(()) }
//! ```
//!
//! Enabled by the crate's `envtest` feature (a dev-dependency of generated projects).
mod certs;
mod process;
mod testing;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use base64::Engine as _;
use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::runtime::wait::{await_condition, conditions};

use certs::Pki;
use process::{Process, free_port};

pub use testing::{RunningController, crds_in, eventually};

/// The variable naming the folder of binaries, as in controller-runtime's envtest.
pub const ASSETS_ENV: &str = "KUBEBUILDER_ASSETS";

/// How long the API server may take to report ready; two busy cores need about ten seconds.
const START_TIMEOUT: Duration = Duration::from_secs(120);

/// A running control plane; dropping it stops the processes and removes their data.
pub struct ControlPlane {
    server: String,
    ca_cert: String,
    admin_kubeconfig: PathBuf,
    assets: PathBuf,
    has_controller_manager: bool,
    // Dropped first: the keeper stops the processes before their folder goes.
    keeper: Option<Keeper>,
    dir: tempfile::TempDir,
    /// Held locked while this process lives (see [`remove_abandoned`]).
    _owner: std::fs::File,
}

/// The thread that started the processes (their parent-death signal is tied to it) and
/// stops them when told to.
struct Keeper {
    stop: mpsc::Sender<()>,
    thread: std::thread::JoinHandle<()>,
}

impl Drop for ControlPlane {
    fn drop(&mut self) {
        if let Some(keeper) = self.keeper.take() {
            let _ = keeper.stop.send(());
            let _ = keeper.thread.join();
        }
    }
}

/// How a control plane's folder in the temporary directory is named.
const DIR_PREFIX: &str = "rusty-sdk-envtest-";
/// The file a running control plane's process holds locked in its folder.
const OWNER_LOCK: &str = "owner.lock";

/// Lock [`OWNER_LOCK`] in `dir` for as long as the returned file is open. The file is locked
/// under another name and then renamed, so no sweeper ever sees it unlocked.
fn hold_owner_lock(dir: &Path) -> anyhow::Result<std::fs::File> {
    let staging = dir.join(format!("{OWNER_LOCK}.new"));
    let file = std::fs::File::create(&staging)
        .with_context(|| format!("cannot create {}", staging.display()))?;
    file.try_lock()
        .map_err(|e| anyhow::anyhow!("cannot lock {}: {e}", staging.display()))?;
    std::fs::rename(&staging, dir.join(OWNER_LOCK))
        .with_context(|| format!("cannot rename {}", staging.display()))?;
    Ok(file)
}

/// Remove the folders of control planes whose process is gone. A shared control plane lives
/// in a static, which Rust never drops, and a killed test never drops anything: without
/// this every test run left a few hundred megabytes of etcd data behind. The kernel
/// releases a dead process's lock, so a folder whose lock can be taken is abandoned;
/// folders without a lock file (still starting, or not ours) are left alone.
fn remove_abandoned(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(DIR_PREFIX) {
            continue;
        }
        let Ok(lock) = std::fs::File::open(entry.path().join(OWNER_LOCK)) else {
            continue;
        };
        if lock.try_lock().is_ok() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

static SHARED: OnceLock<Result<ControlPlane, String>> = OnceLock::new();

impl ControlPlane {
    /// The folder `KUBEBUILDER_ASSETS` names, or an error that says how to get one.
    ///
    /// # Errors
    ///
    /// When `KUBEBUILDER_ASSETS` is not set; the message says how to get the binaries.
    pub fn assets() -> anyhow::Result<PathBuf> {
        match std::env::var_os(ASSETS_ENV) {
            Some(dir) if !dir.is_empty() => Ok(PathBuf::from(dir)),
            _ => anyhow::bail!(
                "{ASSETS_ENV} is not set: point it at a folder holding etcd and kube-apiserver (`make setup-envtest` prints one)"
            ),
        }
    }

    /// The control plane every test of this test binary shares, started on first use from
    /// [`ControlPlane::assets`]. Tests keep apart by working in namespaces of their own.
    ///
    /// # Errors
    ///
    /// When the shared control plane did not start: the first start's error, for every test.
    pub fn shared() -> anyhow::Result<&'static ControlPlane> {
        SHARED
            .get_or_init(|| {
                Self::assets()
                    .and_then(|assets| Self::start(&assets))
                    .map_err(|e| format!("{e:#}"))
            })
            .as_ref()
            .map_err(|e| anyhow::anyhow!("{e}"))
    }

    /// Start etcd, kube-apiserver and, when `assets` has it, kube-controller-manager, and
    /// wait until the API server is ready. Blocks; callable from async code.
    ///
    /// # Errors
    ///
    /// When a binary is missing from `assets`, a process cannot start, or the API server is
    /// not ready in time.
    pub fn start(assets: &Path) -> anyhow::Result<ControlPlane> {
        for binary in ["etcd", "kube-apiserver"] {
            anyhow::ensure!(
                assets.join(binary).is_file(),
                "{} has no {binary}: {ASSETS_ENV} must name a folder holding etcd and kube-apiserver",
                assets.display()
            );
        }
        let parent = std::env::temp_dir();
        remove_abandoned(&parent);
        let dir = tempfile::Builder::new()
            .prefix(DIR_PREFIX)
            .tempdir_in(&parent)
            .context("cannot create the control plane's folder")?;
        let owner = hold_owner_lock(dir.path())?;
        let pki = Pki::generate()?;
        pki.write(dir.path())?;
        let port = free_port()?;
        let server = format!("https://127.0.0.1:{port}");
        let admin_kubeconfig = dir.path().join("admin.kubeconfig");
        write_private(
            &admin_kubeconfig,
            &kubeconfig(
                &server,
                &pki.ca_cert,
                &format!(
                    "client-certificate-data: {}\n    client-key-data: {}",
                    base64(&pki.admin_cert),
                    base64(&pki.admin_key)
                ),
            ),
        )?;
        let has_controller_manager = assets.join("kube-controller-manager").is_file();

        let (ready_tx, ready_rx) = mpsc::channel();
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        let plan = Plan {
            assets: assets.to_path_buf(),
            dir: dir.path().to_path_buf(),
            port,
            kubeconfig: admin_kubeconfig.clone(),
            controller_manager: has_controller_manager,
        };
        let thread = std::thread::Builder::new()
            .name("envtest-keeper".into())
            .spawn(move || {
                let processes = match plan.run() {
                    Ok(processes) => {
                        let _ = ready_tx.send(Ok(()));
                        processes
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                // Wait for a stop, or for the control plane's owner to go away.
                let _ = stop_rx.recv();
                for process in processes.into_iter().rev() {
                    process.stop(Duration::from_secs(5));
                }
            })?;
        let keeper = Keeper {
            stop: stop_tx,
            thread,
        };
        let started = ready_rx
            .recv()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("the envtest keeper thread panicked")));
        if let Err(e) = started {
            let _ = keeper.thread.join();
            return Err(e);
        }
        Ok(ControlPlane {
            server,
            ca_cert: pki.ca_cert,
            admin_kubeconfig,
            assets: assets.to_path_buf(),
            has_controller_manager,
            keeper: Some(keeper),
            dir,
            _owner: owner,
        })
    }

    /// The API server's URL, `https://127.0.0.1:<port>`.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The PEM of the CA that signed the API server's certificate.
    pub fn ca_cert(&self) -> &str {
        &self.ca_cert
    }

    /// A kubeconfig file for an admin (group `system:masters`), for kubectl, helm or an
    /// operator run as a process.
    pub fn admin_kubeconfig(&self) -> &Path {
        &self.admin_kubeconfig
    }

    /// The path of a binary in the assets folder (`kubectl`, `helm`, ...).
    pub fn binary(&self, name: &str) -> PathBuf {
        self.assets.join(name)
    }

    /// Whether kube-controller-manager runs: without it namespaces never finish deleting
    /// and owned objects are never garbage-collected, as in controller-runtime's envtest.
    pub fn has_controller_manager(&self) -> bool {
        self.has_controller_manager
    }

    /// A client authenticated as the admin, for the calling async runtime.
    ///
    /// # Errors
    ///
    /// When the admin kubeconfig cannot be read or no client can be built from it.
    pub async fn client(&self) -> anyhow::Result<kube::Client> {
        client_from_file(&self.admin_kubeconfig).await
    }

    /// A kubeconfig authenticated as `ServiceAccount` `namespace/name` with a token from the
    /// `TokenRequest` API, as a pod of that `ServiceAccount` would be: RBAC applies in full.
    /// The account must exist. Returns the file's path.
    ///
    /// # Errors
    ///
    /// When the API server refuses the token request (the account must exist) or the file
    /// cannot be written.
    pub async fn service_account_kubeconfig(
        &self,
        namespace: &str,
        name: &str,
    ) -> anyhow::Result<PathBuf> {
        let admin = self.client().await?;
        let accounts: Api<ServiceAccount> = Api::namespaced(admin, namespace);
        let request = TokenRequest {
            spec: TokenRequestSpec {
                audiences: Vec::new(),
                expiration_seconds: Some(24 * 3600),
                ..TokenRequestSpec::default()
            },
            ..TokenRequest::default()
        };
        let token = accounts
            .create_subresource::<TokenRequest, TokenRequest>(
                "token",
                name,
                &PostParams::default(),
                &request,
            )
            .await
            .with_context(|| format!("cannot get a token for ServiceAccount {namespace}/{name}"))?
            .status
            .context("the TokenRequest came back without a token")?
            .token;
        let path = self
            .dir
            .path()
            .join(format!("sa-{namespace}-{name}.kubeconfig"));
        write_private(
            &path,
            &kubeconfig(&self.server, &self.ca_cert, &format!("token: {token}")),
        )?;
        Ok(path)
    }

    /// A client authenticated as `ServiceAccount` `namespace/name` (see
    /// [`ControlPlane::service_account_kubeconfig`]).
    ///
    /// # Errors
    ///
    /// As [`ControlPlane::service_account_kubeconfig`], or when no client can be built.
    pub async fn service_account_client(
        &self,
        namespace: &str,
        name: &str,
    ) -> anyhow::Result<kube::Client> {
        let path = self.service_account_kubeconfig(namespace, name).await?;
        client_from_file(&path).await
    }

    /// Create a namespace named `<prefix>-<n>`, unique in this test process, and return its
    /// name.
    ///
    /// # Errors
    ///
    /// When the API server refuses the namespace.
    pub async fn create_namespace(
        &self,
        client: &kube::Client,
        prefix: &str,
    ) -> anyhow::Result<String> {
        static NEXT: AtomicU32 = AtomicU32::new(1);
        let name = format!("{prefix}-{}", NEXT.fetch_add(1, Ordering::Relaxed));
        let namespace: Namespace = serde_json::from_value(serde_json::json!({
            "metadata": { "name": name }
        }))?;
        Api::<Namespace>::all(client.clone())
            .create(&PostParams::default(), &namespace)
            .await
            .with_context(|| format!("cannot create namespace {name}"))?;
        Ok(name)
    }

    /// Install the CRDs of the `.yaml` files in `dir` (a project's `config/crd/bases`, see
    /// [`crds_in`]) and wait until each is established. Returns how many there were.
    ///
    /// # Errors
    ///
    /// As [`crds_in`] for `dir`, then as [`ControlPlane::install_crds`].
    pub async fn install_crds_from(
        &self,
        client: &kube::Client,
        dir: impl AsRef<Path>,
    ) -> anyhow::Result<usize> {
        let crds = crds_in(dir.as_ref())?;
        self.install_crds(client, &crds).await?;
        Ok(crds.len())
    }

    /// Apply `crds` (server-side, as their owner) and wait until each is established.
    ///
    /// # Errors
    ///
    /// When the API server refuses a CRD, or one is not established in time.
    pub async fn install_crds(
        &self,
        client: &kube::Client,
        crds: &[CustomResourceDefinition],
    ) -> anyhow::Result<()> {
        let api: Api<CustomResourceDefinition> = Api::all(client.clone());
        let params = PatchParams::apply("envtest").force();
        for crd in crds {
            let name = crd
                .metadata
                .name
                .as_deref()
                .context("a CRD without a name")?;
            api.patch(name, &params, &Patch::Apply(crd))
                .await
                .with_context(|| format!("cannot apply CRD {name}"))?;
        }
        for crd in crds {
            let name = crd.metadata.name.as_deref().unwrap_or_default();
            tokio::time::timeout(
                Duration::from_secs(30),
                await_condition(api.clone(), name, conditions::is_crd_established()),
            )
            .await
            .with_context(|| format!("CRD {name} was not established within 30s"))??;
        }
        Ok(())
    }
}

/// What the keeper thread starts.
struct Plan {
    assets: PathBuf,
    dir: PathBuf,
    port: u16,
    kubeconfig: PathBuf,
    controller_manager: bool,
}

impl Plan {
    /// Start every process and wait until the API server is ready; on error, what started
    /// is stopped again.
    fn run(&self) -> anyhow::Result<Vec<Process>> {
        let mut processes = Vec::new();
        let result = self.start_all(&mut processes);
        if result.is_err() {
            for process in processes.drain(..).rev() {
                process.stop(Duration::from_secs(1));
            }
        }
        result.map(|()| processes)
    }

    fn start_all(&self, processes: &mut Vec<Process>) -> anyhow::Result<()> {
        let etcd_client = format!("http://127.0.0.1:{}", free_port()?);
        let etcd_peer = format!("http://127.0.0.1:{}", free_port()?);
        let data = self.dir.join("etcd");
        processes.push(Process::start(
            "etcd",
            &self.assets.join("etcd"),
            &strings(&[
                "--name=envtest",
                &format!("--data-dir={}", data.display()),
                &format!("--listen-client-urls={etcd_client}"),
                &format!("--advertise-client-urls={etcd_client}"),
                &format!("--listen-peer-urls={etcd_peer}"),
                &format!("--initial-advertise-peer-urls={etcd_peer}"),
                &format!("--initial-cluster=envtest={etcd_peer}"),
                // Test data need not survive a power cut; fsync would dominate every write.
                "--unsafe-no-fsync=true",
                "--log-level=warn",
            ]),
            &self.dir,
        )?);

        let dir = self.dir.display();
        processes.push(Process::start(
            "kube-apiserver",
            &self.assets.join("kube-apiserver"),
            &strings(&[
                &format!("--etcd-servers={etcd_client}"),
                "--bind-address=127.0.0.1",
                "--advertise-address=127.0.0.1",
                &format!("--secure-port={}", self.port),
                &format!("--cert-dir={dir}"),
                &format!("--tls-cert-file={dir}/apiserver.crt"),
                &format!("--tls-private-key-file={dir}/apiserver.key"),
                &format!("--client-ca-file={dir}/ca.crt"),
                "--authorization-mode=RBAC",
                "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                &format!("--service-account-key-file={dir}/sa.pub"),
                &format!("--service-account-signing-key-file={dir}/sa.key"),
                // An address range for Service objects, never routed: no traffic goes there.
                "--service-cluster-ip-range=10.0.0.0/24",
                "--allow-privileged=true",
            ])
            .into_iter()
            // Without kube-controller-manager nobody creates the `default` ServiceAccount
            // that this admission plugin requires of every pod.
            .chain(
                (!self.controller_manager)
                    .then(|| "--disable-admission-plugins=ServiceAccount".to_string()),
            )
            .collect::<Vec<_>>(),
            &self.dir,
        )?);
        self.wait_ready(processes)?;

        if self.controller_manager {
            let port = free_port()?;
            processes.push(Process::start(
                "kube-controller-manager",
                &self.assets.join("kube-controller-manager"),
                &strings(&[
                    &format!("--kubeconfig={}", self.kubeconfig.display()),
                    &format!("--authentication-kubeconfig={}", self.kubeconfig.display()),
                    &format!("--authorization-kubeconfig={}", self.kubeconfig.display()),
                    // PersistentVolumeClaims get the `kubernetes.io/pvc-protection` finalizer
                    // from admission; without its controller a deleted claim never goes.
                    "--controllers=namespace-controller,garbage-collector-controller,serviceaccount-controller,persistentvolumeclaim-protection-controller",
                    "--leader-elect=false",
                    "--bind-address=127.0.0.1",
                    &format!("--secure-port={port}"),
                    &format!("--cert-dir={dir}/controller-manager"),
                ]),
                &self.dir,
            )?);
            // It fails fast on bad flags; give it that long before calling the plane ready.
            std::thread::sleep(Duration::from_millis(500));
            if let Some(process) = processes.last_mut() {
                process.check_running()?;
            }
        }
        Ok(())
    }

    /// Poll `/readyz` as the admin until it answers `ok`, failing early when a process exits.
    fn wait_ready(&self, processes: &mut [Process]) -> anyhow::Result<()> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        runtime.block_on(async {
            let client = client_from_file(&self.kubeconfig).await?;
            let deadline = Instant::now() + START_TIMEOUT;
            loop {
                for process in processes.iter_mut() {
                    process.check_running()?;
                }
                let request = http::Request::get("/readyz").body(Vec::new())?;
                match client.request_text(request).await {
                    Ok(body) if body.trim() == "ok" => return Ok(()),
                    _ if Instant::now() > deadline => {
                        let apiserver = processes.last().map(Process::log_tail);
                        anyhow::bail!(
                            "kube-apiserver was not ready within {}s; its log ends:\n{}",
                            START_TIMEOUT.as_secs(),
                            apiserver.unwrap_or_default()
                        )
                    }
                    _ => tokio::time::sleep(Duration::from_millis(200)).await,
                }
            }
        })
    }
}

async fn client_from_file(path: &Path) -> anyhow::Result<kube::Client> {
    let kubeconfig = Kubeconfig::read_from(path)
        .with_context(|| format!("cannot read kubeconfig {}", path.display()))?;
    let config =
        kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await?;
    Ok(kube::Client::try_from(config)?)
}

/// A kubeconfig for `server` trusting `ca_cert`, with `user` the lines of its user entry.
fn kubeconfig(server: &str, ca_cert: &str, user: &str) -> String {
    format!(
        "apiVersion: v1
kind: Config
clusters:
- name: envtest
  cluster:
    server: {server}
    certificate-authority-data: {ca}
users:
- name: envtest
  user:
    {user}
contexts:
- name: envtest
  context:
    cluster: envtest
    user: envtest
current-context: envtest
",
        ca = base64(ca_cert)
    )
}

fn base64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_string()).collect()
}

/// Write a file only its owner can read (keys and tokens).
fn write_private(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    file.write_all(text.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control_plane_folder(parent: &Path, name: &str) -> PathBuf {
        let dir = parent.join(format!("{DIR_PREFIX}{name}"));
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("etcd-data"), "x").unwrap();
        dir
    }

    #[test]
    fn only_folders_whose_owner_is_gone_are_removed() {
        let parent = tempfile::tempdir().unwrap();
        let running = control_plane_folder(parent.path(), "running");
        let _running_owner = hold_owner_lock(&running).unwrap();
        let gone = control_plane_folder(parent.path(), "gone");
        drop(hold_owner_lock(&gone).unwrap());
        let starting = control_plane_folder(parent.path(), "starting");
        let unrelated = parent.path().join("unrelated");
        std::fs::create_dir(&unrelated).unwrap();
        std::fs::write(unrelated.join(OWNER_LOCK), "").unwrap();

        remove_abandoned(parent.path());

        assert!(
            running.join("etcd-data").exists(),
            "a live owner's folder was removed"
        );
        assert!(!gone.exists(), "an abandoned folder was kept");
        assert!(
            starting.exists(),
            "a folder without a lock file was removed"
        );
        assert!(unrelated.exists(), "a folder not named as ours was removed");
    }
}
