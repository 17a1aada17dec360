//! What the release engine needs to know of the live cluster: `.Capabilities` as Helm
//! builds them from discovery, the API resource and scope of every kind a manifest names,
//! and the `lookup` template function reading live objects.
//!
//! Helm discovers afresh for every command; a controller reconciles far more often, so
//! discovery is cached here for a short lifetime ([`DISCOVERY_TTL`]) and shared by every
//! reconcile of a controller. Concurrent callers wait for one discovery instead of each
//! running their own, installing CRDs invalidates the cache at once, and a kind the cache
//! does not know re-runs discovery once before it counts as missing (its CRD may have just
//! been installed by someone else).
//!
//! Renders are synchronous (the chart engine is): [`Cluster::render`] runs one on the
//! blocking pool with a `lookup` that reaches the async client through the runtime's handle.
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use kube::api::{ApiResource, DynamicObject, GetParams, ListParams};
use kube::core::Resource as _;
use rusty_sdk_chart::{Capabilities, Chart, KubeVersion, Lookup, RenderError, RenderOptions};
use serde_json::Value;

use super::ClusterObject;

/// How long one discovery is trusted: a CRD installed by someone else shows up in
/// `.Capabilities` within this time (at once for an object of its kind, see above).
pub const DISCOVERY_TTL: Duration = Duration::from_secs(30);

/// How long one `lookup` may take before it fails the render.
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(30);

/// Why the cluster could not answer, worded as Helm words it where Helm has words for it.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error("could not get server version from Kubernetes: {0}")]
    Version(#[source] kube::Error),
    #[error("could not get apiVersions from Kubernetes: {0}")]
    Discovery(#[source] kube::Error),
    #[error(
        "the API server does not serve aggregated discovery (Kubernetes 1.27 or later is needed)"
    )]
    NoAggregatedDiscovery,
    /// cli-runtime's words (Helm builds its objects with it).
    #[error(
        "resource mapping not found for name: {name:?} namespace: {namespace:?} from \"\": no matches for kind {kind:?} in version {api_version:?}\nensure CRDs are installed first"
    )]
    UnknownKind {
        name: String,
        namespace: String,
        kind: String,
        api_version: String,
    },
    #[error("an object of the manifest has no {field}: {object}")]
    Incomplete { field: &'static str, object: String },
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error("the render stopped before it finished: {0}")]
    RenderTask(String),
}

/// The live cluster as the engine sees it; cheap to clone, clones share one cache.
#[derive(Clone)]
pub struct Cluster {
    inner: Arc<Inner>,
}

struct Inner {
    client: kube::Client,
    ttl: Duration,
    /// Bumped by [`Cluster::invalidate`]: a discovery started before is stale.
    generation: AtomicU64,
    current: Mutex<Option<Arc<Snapshot>>>,
    /// Held while discovering, so that concurrent callers share one discovery.
    refreshing: tokio::sync::Mutex<()>,
}

/// One discovery of the cluster.
struct Snapshot {
    generation: u64,
    taken: Instant,
    capabilities: Capabilities,
    /// Every served group version (`v1`, `apps/v1`).
    group_versions: HashSet<String>,
    /// Top-level resources (no subresources) by (apiVersion, kind).
    kinds: HashMap<(String, String), ServedKind>,
    /// Kinds found missing in this discovery although it was taken after they were
    /// first missed: asking again would not find them either.
    missing: Mutex<HashSet<(String, String)>>,
}

#[derive(Clone, Debug)]
struct ServedKind {
    resource: ApiResource,
    namespaced: bool,
}

/// What discovery says of an apiVersion and kind.
enum Found {
    Kind(ServedKind),
    /// The group version is served, the kind is not.
    NoKind,
    /// The group version itself is not served.
    NoGroupVersion,
}

impl Cluster {
    /// A cluster whose discovery is trusted for [`DISCOVERY_TTL`].
    pub fn new(client: kube::Client) -> Self {
        Self::with_ttl(client, DISCOVERY_TTL)
    }

    /// A cluster whose discovery is trusted for `ttl`.
    pub fn with_ttl(client: kube::Client, ttl: Duration) -> Self {
        Cluster {
            inner: Arc::new(Inner {
                client,
                ttl,
                generation: AtomicU64::new(0),
                current: Mutex::new(None),
                refreshing: tokio::sync::Mutex::new(()),
            }),
        }
    }

    pub fn client(&self) -> &kube::Client {
        &self.inner.client
    }

    /// `.Capabilities` as Helm builds them from discovery: the server's version, and
    /// every served group version followed by every `<group version>/<Kind>` (the kinds
    /// of subresources included). Helm's order is a Go map's, random on every run; this
    /// one is discovery's, so that renders of the same chart are stable.
    ///
    /// # Errors
    ///
    /// [`ClusterError`] when discovery fails.
    pub async fn capabilities(&self) -> Result<Capabilities, ClusterError> {
        Ok(self.snapshot().await?.capabilities.clone())
    }

    /// Forget the cached discovery (after installing CRDs): the next caller discovers
    /// again, and a discovery already under way is not trusted.
    pub fn invalidate(&self) {
        self.inner.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// An object of a manifest resolved against discovery, as Helm's kube client builds
    /// it: a namespaced object without a namespace gets `namespace` (the release's; the
    /// client's default when empty), a cluster-scoped one has none.
    pub(crate) async fn resolve(
        &self,
        mut body: Value,
        namespace: &str,
    ) -> Result<ClusterObject, ClusterError> {
        let field = |body: &Value, path: &[&str]| -> String {
            let mut v = body;
            for key in path {
                v = &v[*key];
            }
            v.as_str().unwrap_or_default().to_string()
        };
        let api_version = field(&body, &["apiVersion"]);
        let kind = field(&body, &["kind"]);
        let name = field(&body, &["metadata", "name"]);
        let own_namespace = field(&body, &["metadata", "namespace"]);
        for (value, what) in [
            (&api_version, "apiVersion"),
            (&kind, "kind"),
            (&name, "metadata.name"),
        ] {
            if value.is_empty() {
                return Err(ClusterError::Incomplete {
                    field: what,
                    object: describe(&api_version, &kind, &name),
                });
            }
        }
        let served = match self.find(&api_version, &kind).await? {
            Found::Kind(served) => served,
            Found::NoKind | Found::NoGroupVersion => {
                return Err(ClusterError::UnknownKind {
                    name,
                    namespace: own_namespace,
                    kind,
                    api_version,
                });
            }
        };
        let namespace = if !served.namespaced {
            None
        } else if !own_namespace.is_empty() {
            Some(own_namespace)
        } else {
            let namespace = if namespace.is_empty() {
                self.inner.client.default_namespace().to_string()
            } else {
                namespace.to_string()
            };
            if let Some(metadata) = body.get_mut("metadata").and_then(Value::as_object_mut) {
                metadata.insert("namespace".into(), Value::String(namespace.clone()));
            }
            Some(namespace)
        };
        Ok(ClusterObject {
            resource: served.resource,
            namespaced: served.namespaced,
            namespace,
            name,
            body,
        })
    }

    /// The `lookup` of renders run on the blocking pool of the runtime this is called on.
    ///
    /// # Panics
    /// When called outside a tokio runtime.
    pub fn lookup(&self) -> ClusterLookup {
        ClusterLookup {
            cluster: self.clone(),
            runtime: tokio::runtime::Handle::current(),
        }
    }

    /// Render `chart` with this cluster's `lookup` (and whatever else `options` says) on
    /// the blocking pool, where `lookup` may wait for the API server.
    ///
    /// # Errors
    ///
    /// [`ClusterError`] when the chart does not render (its templates' own errors included)
    /// or a `lookup` fails.
    pub async fn render(
        &self,
        chart: Arc<Chart>,
        values: Value,
        mut options: RenderOptions,
    ) -> Result<BTreeMap<String, String>, ClusterError> {
        options.lookup = Some(Arc::new(self.lookup()));
        let rendered =
            tokio::task::spawn_blocking(move || rusty_sdk_chart::render(&chart, &values, &options))
                .await
                .map_err(|e| ClusterError::RenderTask(e.to_string()))?;
        Ok(rendered?)
    }

    /// Discovery's word on `api_version`/`kind`, discovering again once when the cached
    /// discovery does not know it.
    async fn find(&self, api_version: &str, kind: &str) -> Result<Found, ClusterError> {
        let key = (api_version.to_string(), kind.to_string());
        let snapshot = self.snapshot().await?;
        if let Some(served) = snapshot.kinds.get(&key) {
            return Ok(Found::Kind(served.clone()));
        }
        let known_missing = lock(&snapshot.missing).contains(&key);
        let snapshot = if known_missing {
            snapshot
        } else {
            self.discover_after(&snapshot).await?
        };
        if let Some(served) = snapshot.kinds.get(&key) {
            return Ok(Found::Kind(served.clone()));
        }
        lock(&snapshot.missing).insert(key);
        Ok(if snapshot.group_versions.contains(api_version) {
            Found::NoKind
        } else {
            Found::NoGroupVersion
        })
    }

    /// The cached discovery if still trusted, else a new one (shared with concurrent
    /// callers).
    async fn snapshot(&self) -> Result<Arc<Snapshot>, ClusterError> {
        if let Some(snapshot) = self.trusted() {
            return Ok(snapshot);
        }
        let _one = self.inner.refreshing.lock().await;
        if let Some(snapshot) = self.trusted() {
            return Ok(snapshot);
        }
        self.discover().await
    }

    /// A discovery newer than `seen`: one another caller made meanwhile, or a new one.
    async fn discover_after(&self, seen: &Arc<Snapshot>) -> Result<Arc<Snapshot>, ClusterError> {
        let _one = self.inner.refreshing.lock().await;
        if let Some(snapshot) = self.trusted()
            && !Arc::ptr_eq(&snapshot, seen)
            && snapshot.taken > seen.taken
        {
            return Ok(snapshot);
        }
        self.discover().await
    }

    fn trusted(&self) -> Option<Arc<Snapshot>> {
        let current = lock(&self.inner.current).clone()?;
        let generation = self.inner.generation.load(Ordering::Acquire);
        (current.generation == generation && current.taken.elapsed() < self.inner.ttl)
            .then_some(current)
    }

    /// Discover now and cache the result. Callers hold `refreshing`.
    async fn discover(&self) -> Result<Arc<Snapshot>, ClusterError> {
        let generation = self.inner.generation.load(Ordering::Acquire);
        let snapshot = Arc::new(Snapshot::take(&self.inner.client, generation).await?);
        *lock(&self.inner.current) = Some(snapshot.clone());
        Ok(snapshot)
    }

    /// Helm's `lookup`: see [`Lookup::lookup`] for the semantics.
    async fn lookup_object(
        &self,
        api_version: &str,
        kind: &str,
        namespace: &str,
        name: &str,
    ) -> Result<Value, String> {
        let (group, version) = parse_group_version(api_version);
        let group_version = if group.is_empty() {
            version.to_string()
        } else {
            format!("{group}/{version}")
        };
        // Go's GroupVersionKind.String(), which Helm's errors print.
        let gvk = format!("{group}/{version}, Kind={kind}");
        let failed = |reason: &dyn std::fmt::Display| {
            format!("unable to get apiresource from unstructured: {gvk}: {reason}")
        };
        if group_version.is_empty() {
            return Err(failed(&"groupVersion shouldn't be empty"));
        }
        let served = match self.find(&group_version, kind).await {
            Ok(Found::Kind(served)) => served,
            // Helm asks for the resource "" and the server answers 404: nothing found.
            // (A list of it is the server's /api document in Helm; nothing here.)
            Ok(Found::NoKind) => return Ok(empty()),
            Ok(Found::NoGroupVersion) => {
                return Err(failed(&"the server could not find the requested resource"));
            }
            Err(e) => return Err(failed(&e)),
        };
        let scope = (served.namespaced && !namespace.is_empty()).then_some(namespace);
        let request = kube::core::Request::new(DynamicObject::url_path(&served.resource, scope));
        let http_request = if name.is_empty() {
            request.list(&ListParams::default())
        } else {
            request.get(name, &GetParams::default())
        }
        .map_err(|e| e.to_string())?;
        match self.inner.client.request::<Value>(http_request).await {
            Ok(object) if name.is_empty() => Ok(typed_items(object)),
            Ok(object) => Ok(object),
            Err(kube::Error::Api(status)) if status.code == 404 => Ok(empty()),
            // Go prints an API error as its message.
            Err(kube::Error::Api(status)) => Err(status.message),
            Err(e) => Err(e.to_string()),
        }
    }
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("ttl", &self.inner.ttl)
            .finish_non_exhaustive()
    }
}

/// `lookup` against a [`Cluster`] for synchronous renders: each call runs on the runtime
/// captured when it was made and is waited for with a bound, never blocking the runtime
/// itself (so a render on the wrong thread fails with an error instead of hanging).
#[derive(Clone)]
pub struct ClusterLookup {
    cluster: Cluster,
    runtime: tokio::runtime::Handle,
}

impl Lookup for ClusterLookup {
    fn lookup(
        &self,
        api_version: &str,
        kind: &str,
        namespace: &str,
        name: &str,
    ) -> Result<Value, String> {
        let (done, answer) = std::sync::mpsc::sync_channel(1);
        let cluster = self.cluster.clone();
        let args = [api_version, kind, namespace, name].map(str::to_string);
        self.runtime.spawn(async move {
            let [api_version, kind, namespace, name] = &args;
            let result = tokio::time::timeout(
                LOOKUP_TIMEOUT,
                cluster.lookup_object(api_version, kind, namespace, name),
            )
            .await
            .unwrap_or_else(|_| {
                Err(format!(
                    "the API server did not answer within {LOOKUP_TIMEOUT:?}"
                ))
            });
            let _ = done.send(result);
        });
        // A little longer than the lookup's own bound, which reports its timeout itself.
        match answer.recv_timeout(LOOKUP_TIMEOUT + Duration::from_secs(5)) {
            Ok(result) => result,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(format!(
                "lookup {api_version} {kind} {namespace}/{name} did not finish within {LOOKUP_TIMEOUT:?} (a render must run on the blocking pool)"
            )),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err(format!(
                "lookup {api_version} {kind} {namespace}/{name} stopped: the runtime is shutting down"
            )),
        }
    }
}

impl Snapshot {
    async fn take(client: &kube::Client, generation: u64) -> Result<Snapshot, ClusterError> {
        let version = client
            .apiserver_version()
            .await
            .map_err(ClusterError::Version)?;
        let core = client
            .list_core_api_versions_aggregated()
            .await
            .map_err(ClusterError::Discovery)?;
        // A server without aggregated discovery answers with the plain document, which
        // reads as an empty list here.
        if core.items.is_empty() {
            return Err(ClusterError::NoAggregatedDiscovery);
        }
        let apis = client
            .list_api_groups_aggregated()
            .await
            .map_err(ClusterError::Discovery)?;
        let mut group_versions = Vec::new();
        let mut versioned_kinds = Vec::new();
        let mut kinds = HashMap::new();
        for group in core.items.iter().chain(&apis.items) {
            let group_name = group
                .metadata
                .as_ref()
                .and_then(|m| m.name.as_deref())
                .unwrap_or_default();
            for served in &group.versions {
                // client-go leaves out group versions whose discovery is stale.
                if served.freshness.as_deref() == Some("Stale") {
                    continue;
                }
                let version = served.version.as_deref().unwrap_or_default();
                let group_version = if group_name.is_empty() {
                    version.to_string()
                } else {
                    format!("{group_name}/{version}")
                };
                group_versions.push(group_version.clone());
                for resource in &served.resources {
                    let plural = resource.resource.as_deref().unwrap_or_default();
                    let namespaced = resource.scope.as_deref() == Some("Namespaced");
                    if let Some(kind) = kind_of(resource.response_kind.as_ref()) {
                        versioned_kinds.push(format!("{group_version}/{kind}"));
                        let gvk = kube::api::GroupVersionKind::gvk(group_name, version, kind);
                        kinds
                            .entry((group_version.clone(), kind.to_string()))
                            .or_insert_with(|| ServedKind {
                                resource: ApiResource::from_gvk_with_plural(&gvk, plural),
                                namespaced,
                            });
                    }
                    // Subresources count in Helm's list under their own kinds (the
                    // Scale of apps/v1), never as kinds of objects.
                    for sub in &resource.subresources {
                        if let Some(kind) = kind_of(sub.response_kind.as_ref()) {
                            versioned_kinds.push(format!("{group_version}/{kind}"));
                        }
                    }
                }
            }
        }
        let mut seen = HashSet::new();
        let api_versions: Vec<String> = group_versions
            .iter()
            .cloned()
            .chain(versioned_kinds)
            .filter(|v| seen.insert(v.clone()))
            .collect();
        Ok(Snapshot {
            generation,
            taken: Instant::now(),
            capabilities: Capabilities {
                kube_version: KubeVersion {
                    version: version.git_version,
                    major: version.major,
                    minor: version.minor,
                },
                api_versions,
                ..Capabilities::default()
            },
            group_versions: group_versions.into_iter().collect(),
            kinds,
            missing: Mutex::default(),
        })
    }
}

/// The kind of a discovery entry, if it has one (client-go skips entries without).
fn kind_of(kind: Option<&kube::client::DiscoveryGroupVersionKind>) -> Option<&str> {
    kind.and_then(|k| k.kind.as_deref())
        .filter(|k| !k.is_empty())
}

/// Go's schema.ParseGroupVersion as `FromAPIVersionAndKind` uses it: `v1` is the core
/// group, `g/v` a group version, anything else the empty group version.
fn parse_group_version(api_version: &str) -> (&str, &str) {
    match api_version.split_once('/') {
        None => ("", api_version),
        Some((_, rest)) if rest.contains('/') => ("", ""),
        Some((group, version)) => (group, version),
    }
}

/// The items of a list as Go's unstructured decoding gives them: each with the list's
/// apiVersion and its kind (the list's without `List`) when the server sent neither.
fn typed_items(mut list: Value) -> Value {
    let api_version = list["apiVersion"].clone();
    let kind = list["kind"]
        .as_str()
        .map(|k| k.strip_suffix("List").unwrap_or(k).to_string());
    if let (Some(kind), Some(items)) = (kind, list.get_mut("items").and_then(Value::as_array_mut)) {
        for item in items.iter_mut().filter_map(Value::as_object_mut) {
            if !item.contains_key("apiVersion") && !item.contains_key("kind") {
                item.insert("apiVersion".into(), api_version.clone());
                item.insert("kind".into(), Value::String(kind.clone()));
            }
        }
    }
    list
}

fn empty() -> Value {
    Value::Object(serde_json::Map::new())
}

fn describe(api_version: &str, kind: &str, name: &str) -> String {
    format!("apiVersion {api_version:?}, kind {kind:?}, name {name:?}")
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use serde_json::json;

    use super::*;

    /// A fake API server serving the version and aggregated discovery: `ConfigMaps`
    /// (namespaced) and Namespaces (cluster-scoped) in v1, plus `example.com/v1` Widgets
    /// once `widgets` is set. Counts discoveries, answers a little late so that callers
    /// overlap.
    #[derive(Clone, Default)]
    struct FakeServer {
        discoveries: Arc<AtomicUsize>,
        widgets: Arc<std::sync::atomic::AtomicBool>,
    }

    impl FakeServer {
        fn client(&self) -> kube::Client {
            let server = self.clone();
            let service = tower::service_fn(move |request: http::Request<kube::client::Body>| {
                let server = server.clone();
                async move {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    let body = server.answer(request.uri().path());
                    let response = http::Response::builder()
                        .status(if body.is_null() { 404 } else { 200 })
                        .header("content-type", "application/json")
                        .body(kube::client::Body::from(body.to_string().into_bytes()));
                    response.map_err(|e| Box::new(e) as Box<dyn std::error::Error + Send + Sync>)
                }
            });
            kube::Client::new(service, "fallback")
        }

        fn discoveries(&self) -> usize {
            self.discoveries.load(Ordering::SeqCst)
        }

        fn answer(&self, path: &str) -> Value {
            let resource = |plural: &str, group: &str, kind: &str, scope: &str| {
                json!({"resource": plural, "scope": scope, "verbs": ["get"],
                       "responseKind": {"group": group, "version": "v1", "kind": kind}})
            };
            match path {
                "/version" => json!({"major": "1", "minor": "34", "gitVersion": "v1.34.4",
                    "gitCommit": "", "gitTreeState": "", "buildDate": "", "goVersion": "",
                    "compiler": "", "platform": ""}),
                "/api" => {
                    self.discoveries.fetch_add(1, Ordering::SeqCst);
                    let mut configmaps = resource("configmaps", "", "ConfigMap", "Namespaced");
                    configmaps["subresources"] = json!([{"subresource": "proxy",
                        "responseKind": {"group": "", "version": "v1", "kind": "ConfigMapProxy"}}]);
                    json!({"kind": "APIGroupDiscoveryList", "items": [{"metadata": {}, "versions": [
                        {"version": "v1", "resources": [configmaps,
                            resource("namespaces", "", "Namespace", "Cluster")]}]}]})
                }
                "/apis" => {
                    let mut items = vec![];
                    if self.widgets.load(Ordering::SeqCst) {
                        items.push(json!({"metadata": {"name": "example.com"}, "versions": [
                            {"version": "v1", "resources": [
                                resource("widgets", "example.com", "Widget", "Namespaced")]},
                            {"version": "v0", "freshness": "Stale", "resources": []}]}));
                    }
                    json!({"kind": "APIGroupDiscoveryList", "items": items})
                }
                _ => Value::Null,
            }
        }
    }

    #[tokio::test]
    async fn capabilities_list_group_versions_then_kinds_subresources_included() {
        let server = FakeServer::default();
        server.widgets.store(true, Ordering::SeqCst);
        let caps = Cluster::new(server.client()).capabilities().await.unwrap();
        assert_eq!(caps.kube_version.version, "v1.34.4");
        assert_eq!(
            (
                caps.kube_version.major.as_str(),
                caps.kube_version.minor.as_str()
            ),
            ("1", "34")
        );
        // The stale example.com/v0 is left out, as client-go leaves it out.
        assert_eq!(
            caps.api_versions,
            [
                "v1",
                "example.com/v1",
                "v1/ConfigMap",
                "v1/ConfigMapProxy",
                "v1/Namespace",
                "example.com/v1/Widget"
            ]
        );
    }

    #[tokio::test]
    async fn concurrent_callers_share_one_discovery_until_invalidated() {
        let server = FakeServer::default();
        let cluster = Cluster::new(server.client());
        let calls = (0..8).map(|_| cluster.capabilities());
        for caps in futures::future::join_all(calls).await {
            caps.unwrap();
        }
        assert_eq!(server.discoveries(), 1);
        cluster.capabilities().await.unwrap();
        assert_eq!(server.discoveries(), 1, "a fresh discovery is reused");
        cluster.invalidate();
        cluster.capabilities().await.unwrap();
        assert_eq!(
            server.discoveries(),
            2,
            "invalidate makes the next caller discover"
        );
    }

    #[tokio::test]
    async fn an_expired_discovery_is_taken_again() {
        let server = FakeServer::default();
        let cluster = Cluster::with_ttl(server.client(), Duration::ZERO);
        cluster.capabilities().await.unwrap();
        cluster.capabilities().await.unwrap();
        assert_eq!(server.discoveries(), 2);
    }

    #[tokio::test]
    async fn an_unknown_kind_rediscovers_once_then_fails_naming_it() {
        let server = FakeServer::default();
        let cluster = Cluster::new(server.client());
        cluster.capabilities().await.unwrap();
        // The CRD arrives after the cached discovery: found through one more discovery.
        server.widgets.store(true, Ordering::SeqCst);
        let widget = json!({"apiVersion": "example.com/v1", "kind": "Widget",
                            "metadata": {"name": "w"}});
        let object = cluster.resolve(widget, "ns").await.unwrap();
        assert_eq!(server.discoveries(), 2);
        assert_eq!(object.resource.plural, "widgets");
        assert_eq!(object.namespace.as_deref(), Some("ns"));

        let gadget = json!({"apiVersion": "example.com/v1", "kind": "Gadget",
                            "metadata": {"name": "g", "namespace": "other"}});
        let error = cluster.resolve(gadget.clone(), "ns").await.unwrap_err();
        assert_eq!(
            error.to_string(),
            "resource mapping not found for name: \"g\" namespace: \"other\" from \"\": no matches for kind \"Gadget\" in version \"example.com/v1\"\nensure CRDs are installed first"
        );
        assert_eq!(server.discoveries(), 3);
        // Missing again in the discovery taken for it: no discovery per object.
        cluster.resolve(gadget, "ns").await.unwrap_err();
        assert_eq!(server.discoveries(), 3);
    }

    #[tokio::test]
    async fn namespaced_objects_get_the_release_namespace_cluster_scoped_ones_none() {
        let server = FakeServer::default();
        let cluster = Cluster::new(server.client());
        let bare = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}});
        let object = cluster.resolve(bare.clone(), "release-ns").await.unwrap();
        assert!(object.namespaced);
        assert_eq!(object.namespace.as_deref(), Some("release-ns"));
        assert_eq!(object.body["metadata"]["namespace"], "release-ns");
        // Without a release namespace, the client's default namespace (Helm's kubeconfig one).
        let object = cluster.resolve(bare, "").await.unwrap();
        assert_eq!(object.namespace.as_deref(), Some("fallback"));

        let own = json!({"apiVersion": "v1", "kind": "ConfigMap",
                         "metadata": {"name": "a", "namespace": "mine"}});
        let object = cluster.resolve(own, "release-ns").await.unwrap();
        assert_eq!(object.namespace.as_deref(), Some("mine"));

        let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "n"}});
        let object = cluster
            .resolve(namespace.clone(), "release-ns")
            .await
            .unwrap();
        assert!(!object.namespaced);
        assert_eq!(object.namespace, None);
        assert_eq!(
            object.body, namespace,
            "a cluster-scoped object is applied as rendered"
        );

        let nameless = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}});
        let error = cluster.resolve(nameless, "ns").await.unwrap_err();
        assert!(error.to_string().contains("no metadata.name"), "{error}");
    }

    #[test]
    fn group_versions_parse_as_go_parses_them() {
        assert_eq!(parse_group_version("v1"), ("", "v1"));
        assert_eq!(parse_group_version("apps/v1"), ("apps", "v1"));
        assert_eq!(parse_group_version(""), ("", ""));
        assert_eq!(parse_group_version("v1/x/y"), ("", ""));
    }

    #[test]
    fn list_items_get_the_kind_and_api_version_of_their_list() {
        let list = json!({
            "apiVersion": "v1", "kind": "ConfigMapList", "metadata": {},
            "items": [{"metadata": {"name": "a"}}, {"apiVersion": "v9", "kind": "K"}]
        });
        let typed = typed_items(list);
        assert_eq!(typed["items"][0]["kind"], "ConfigMap");
        assert_eq!(typed["items"][0]["apiVersion"], "v1");
        assert_eq!(typed["items"][1]["kind"], "K");
    }
}

/// The cluster for the suites on a real control plane (tests/it/cluster/helm_cluster.rs),
/// with errors as text. Not an API.
#[doc(hidden)]
pub mod testing {
    use serde_json::Value;

    pub use super::Cluster;

    /// An object resolved against discovery.
    #[derive(Debug)]
    pub struct Resolved {
        pub resource: kube::api::ApiResource,
        pub namespaced: bool,
        pub namespace: Option<String>,
        pub name: String,
        pub body: Value,
    }

    pub async fn resolve(
        cluster: &Cluster,
        body: Value,
        namespace: &str,
    ) -> Result<Resolved, String> {
        let object = cluster
            .resolve(body, namespace)
            .await
            .map_err(|e| e.to_string())?;
        Ok(Resolved {
            resource: object.resource,
            namespaced: object.namespaced,
            namespace: object.namespace,
            name: object.name,
            body: object.body,
        })
    }
}
