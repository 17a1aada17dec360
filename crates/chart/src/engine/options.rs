//! Render settings: the release, the cluster capabilities a template sees and, when a
//! cluster is at hand, where `lookup` reads objects from.
use std::sync::Arc;

/// Release settings of a render. `Default` is what `helm template` uses: no cluster, so
/// `lookup` finds nothing (Helm's client-side dry run).
#[derive(Clone)]
pub struct RenderOptions {
    pub release_name: String,
    pub namespace: String,
    pub revision: i64,
    pub is_install: bool,
    pub is_upgrade: bool,
    pub capabilities: Capabilities,
    /// The cluster `lookup` reads; `None` renders as `helm template` does, every lookup
    /// an empty map.
    pub lookup: Option<Arc<dyn Lookup>>,
}

/// The cluster behind the `lookup` template function (Helm's engine reads it through a
/// dynamic client). Renders are synchronous: an implementation backed by an async client
/// blocks on it, so renders that look up run on a thread allowed to block.
pub trait Lookup: Send + Sync {
    /// The object `api_version`/`kind` named `name` in `namespace`, as the API server
    /// returns it (a JSON object, integers kept as integers), with Helm's semantics:
    ///
    /// - an empty `name` lists the kind: the list object itself (`apiVersion`, `kind`
    ///   `<Kind>List`, `metadata`, `items`, each item with its `apiVersion` and `kind`),
    ///   across all namespaces when `namespace` is empty;
    /// - `namespace` is ignored for cluster-scoped kinds;
    /// - an object (or kind) that is not there is `{}` (or `null`), not an error, so that
    ///   `if not (lookup ...)` works.
    ///
    /// # Errors
    ///
    /// Any other failure, worded as Helm words it (e.g. `unable to get apiresource from
    /// unstructured: example.com/v1, Kind=Foo: the server could not find the requested
    /// resource`); it fails the render.
    fn lookup(
        &self,
        api_version: &str,
        kind: &str,
        namespace: &str,
        name: &str,
    ) -> Result<serde_json::Value, String>;
}

impl std::fmt::Debug for RenderOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RenderOptions")
            .field("release_name", &self.release_name)
            .field("namespace", &self.namespace)
            .field("revision", &self.revision)
            .field("is_install", &self.is_install)
            .field("is_upgrade", &self.is_upgrade)
            .field("capabilities", &self.capabilities)
            .field("lookup", &self.lookup.as_ref().map(|_| "<cluster>"))
            .finish()
    }
}

/// Equal settings render equally: the same release, capabilities and lookup provider
/// (the same instance; providers have no equality of their own).
impl PartialEq for RenderOptions {
    fn eq(&self, other: &Self) -> bool {
        let same_lookup = match (&self.lookup, &other.lookup) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        self.release_name == other.release_name
            && self.namespace == other.namespace
            && self.revision == other.revision
            && self.is_install == other.is_install
            && self.is_upgrade == other.is_upgrade
            && self.capabilities == other.capabilities
            && same_lookup
    }
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            release_name: "release-name".into(),
            namespace: "default".into(),
            revision: 1,
            is_install: true,
            is_upgrade: false,
            capabilities: Capabilities::default(),
            lookup: None,
        }
    }
}

/// `.Capabilities`. `Default` is Helm 4.2's built-in set (no cluster).
#[derive(Debug, Clone, PartialEq)]
pub struct Capabilities {
    pub kube_version: KubeVersion,
    pub api_versions: Vec<String>,
    pub helm_version: HelmVersion,
}

#[derive(Debug, Clone, PartialEq)]
pub struct KubeVersion {
    pub version: String,
    pub major: String,
    pub minor: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct HelmVersion {
    pub version: String,
    pub git_commit: String,
    pub git_tree_state: String,
    pub go_version: String,
    pub kube_client_version: String,
}

/// Helm's `common.DefaultCapabilities` API versions, in Helm's order.
const DEFAULT_API_VERSIONS: &[&str] = &[
    "v1",
    "admissionregistration.k8s.io/v1",
    "admissionregistration.k8s.io/v1alpha1",
    "admissionregistration.k8s.io/v1beta1",
    "internal.apiserver.k8s.io/v1alpha1",
    "apps/v1",
    "apps/v1beta1",
    "apps/v1beta2",
    "authentication.k8s.io/v1",
    "authentication.k8s.io/v1alpha1",
    "authentication.k8s.io/v1beta1",
    "authorization.k8s.io/v1",
    "authorization.k8s.io/v1beta1",
    "autoscaling/v1",
    "autoscaling/v2",
    "batch/v1",
    "batch/v1beta1",
    "certificates.k8s.io/v1",
    "certificates.k8s.io/v1beta1",
    "certificates.k8s.io/v1alpha1",
    "coordination.k8s.io/v1alpha2",
    "coordination.k8s.io/v1beta1",
    "coordination.k8s.io/v1",
    "discovery.k8s.io/v1",
    "discovery.k8s.io/v1beta1",
    "events.k8s.io/v1",
    "events.k8s.io/v1beta1",
    "extensions/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1",
    "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2",
    "flowcontrol.apiserver.k8s.io/v1beta3",
    "networking.k8s.io/v1",
    "networking.k8s.io/v1beta1",
    "node.k8s.io/v1",
    "node.k8s.io/v1alpha1",
    "node.k8s.io/v1beta1",
    "policy/v1",
    "policy/v1beta1",
    "rbac.authorization.k8s.io/v1",
    "rbac.authorization.k8s.io/v1beta1",
    "rbac.authorization.k8s.io/v1alpha1",
    "resource.k8s.io/v1",
    "resource.k8s.io/v1beta2",
    "resource.k8s.io/v1beta1",
    "resource.k8s.io/v1alpha3",
    "scheduling.k8s.io/v1alpha2",
    "scheduling.k8s.io/v1beta1",
    "scheduling.k8s.io/v1",
    "storage.k8s.io/v1beta1",
    "storage.k8s.io/v1",
    "storage.k8s.io/v1alpha1",
    "storagemigration.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1",
];

impl Default for Capabilities {
    fn default() -> Self {
        Capabilities {
            kube_version: KubeVersion {
                version: "v1.36.0".into(),
                major: "1".into(),
                minor: "36".into(),
            },
            api_versions: DEFAULT_API_VERSIONS
                .iter()
                .map(ToString::to_string)
                .collect(),
            helm_version: HelmVersion {
                version: "v4.2".into(),
                git_commit: String::new(),
                git_tree_state: String::new(),
                go_version: "go1.26.6".into(),
                kube_client_version: "v1.36".into(),
            },
        }
    }
}
