//! Render settings: the release and the cluster capabilities a template sees.

/// Release settings of a render. `Default` is what `helm template` uses.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderOptions {
    pub release_name: String,
    pub namespace: String,
    pub revision: i64,
    pub is_install: bool,
    pub is_upgrade: bool,
    pub capabilities: Capabilities,
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
            api_versions: DEFAULT_API_VERSIONS.iter().map(|s| s.to_string()).collect(),
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
