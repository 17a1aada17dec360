//! Kubernetes' own kinds: API group, version, kind, plural (the resource name RBAC uses) and
//! scope, for every type of k8s-openapi 0.29 (Kubernetes 1.33). The table is static so the
//! CLI need not link k8s-openapi; the tests check it against the real constants. A kind's
//! module in k8s-openapi, which generated controllers import it from, is here too.

/// Where a kind lives, as k8s-openapi's `Resource::Scope` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Namespaced,
    Cluster,
    /// Only reachable below another object (`pods/eviction`, `deployments/scale`...).
    Subresource,
}
use Scope::{Cluster, Namespaced, Subresource};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuiltinKind {
    /// `""` for the core group.
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    /// The URL path segment; empty for discovery documents that are not stored objects.
    pub plural: &'static str,
    pub scope: Scope,
}

impl BuiltinKind {
    /// Whether RBAC can grant verbs on objects of this kind (a stored top-level resource).
    fn is_object(&self) -> bool {
        self.scope != Subresource && !self.plural.is_empty()
    }
}

const fn builtin(
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    scope: Scope,
) -> BuiltinKind {
    BuiltinKind {
        group,
        version,
        kind,
        plural,
        scope,
    }
}

/// Kinds of Kubernetes' own SIG projects that are installed as CRDs, so not in k8s-openapi,
/// but whose names are fixed (the Gateway API; the starter chart makes an HTTPRoute).
#[rustfmt::skip]
pub static WELL_KNOWN_CRD_KINDS: &[BuiltinKind] = &[
    builtin("gateway.networking.k8s.io", "v1", "GRPCRoute", "grpcroutes", Namespaced),
    builtin("gateway.networking.k8s.io", "v1", "Gateway", "gateways", Namespaced),
    builtin("gateway.networking.k8s.io", "v1", "GatewayClass", "gatewayclasses", Cluster),
    builtin("gateway.networking.k8s.io", "v1", "HTTPRoute", "httproutes", Namespaced),
    builtin("gateway.networking.k8s.io", "v1beta1", "ReferenceGrant", "referencegrants", Namespaced),
];

fn all_kinds() -> impl Iterator<Item = &'static BuiltinKind> {
    BUILTIN_KINDS.iter().chain(WELL_KNOWN_CRD_KINDS)
}

/// Look up a kind by API group and kind. The version only breaks ties: every served version
/// of a kind has the same resource name and scope.
pub fn by_kind(group: &str, version: &str, kind: &str) -> Option<&'static BuiltinKind> {
    let mut candidates =
        all_kinds().filter(|k| k.is_object() && k.group == group && k.kind == kind);
    let first = candidates.next()?;
    Some(
        std::iter::once(first)
            .chain(candidates)
            .find(|k| k.version == version)
            .unwrap_or(first),
    )
}

/// Look up a resource by API group and plural (for markers, which name resources).
pub fn by_plural(group: &str, plural: &str) -> Option<&'static BuiltinKind> {
    all_kinds().find(|k| k.is_object() && k.group == group && k.plural == plural)
}

/// The best guess at a kind's resource name when nothing says it: the lower-case English
/// plural, which is what CRD authors almost always choose.
pub fn guess_plural(kind: &str) -> String {
    crate::model::plural::plural(&kind.to_lowercase())
}

/// Every type of k8s-openapi 0.29 (feature `v1_33`) that implements `Resource`, sorted by
/// group, version and kind.
#[rustfmt::skip]
pub static BUILTIN_KINDS: &[BuiltinKind] = &[
    builtin("", "v1", "APIGroup", "", Cluster),
    builtin("", "v1", "APIGroupList", "", Cluster),
    builtin("", "v1", "APIResourceList", "", Cluster),
    builtin("", "v1", "APIVersions", "", Cluster),
    builtin("", "v1", "Binding", "bindings", Namespaced),
    builtin("", "v1", "ComponentStatus", "componentstatuses", Cluster),
    builtin("", "v1", "ConfigMap", "configmaps", Namespaced),
    builtin("", "v1", "Endpoints", "endpoints", Namespaced),
    builtin("", "v1", "Event", "events", Namespaced),
    builtin("", "v1", "LimitRange", "limitranges", Namespaced),
    builtin("", "v1", "Namespace", "namespaces", Cluster),
    builtin("", "v1", "Node", "nodes", Cluster),
    builtin("", "v1", "PersistentVolume", "persistentvolumes", Cluster),
    builtin("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", Namespaced),
    builtin("", "v1", "Pod", "pods", Namespaced),
    builtin("", "v1", "PodTemplate", "podtemplates", Namespaced),
    builtin("", "v1", "ReplicationController", "replicationcontrollers", Namespaced),
    builtin("", "v1", "ResourceQuota", "resourcequotas", Namespaced),
    builtin("", "v1", "Secret", "secrets", Namespaced),
    builtin("", "v1", "Service", "services", Namespaced),
    builtin("", "v1", "ServiceAccount", "serviceaccounts", Namespaced),
    builtin("", "v1", "Status", "status", Subresource),
    builtin("admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration", "mutatingwebhookconfigurations", Cluster),
    builtin("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies", Cluster),
    builtin("admissionregistration.k8s.io", "v1", "ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", Cluster),
    builtin("admissionregistration.k8s.io", "v1", "ValidatingWebhookConfiguration", "validatingwebhookconfigurations", Cluster),
    builtin("admissionregistration.k8s.io", "v1alpha1", "MutatingAdmissionPolicy", "mutatingadmissionpolicies", Cluster),
    builtin("admissionregistration.k8s.io", "v1alpha1", "MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybindings", Cluster),
    builtin("admissionregistration.k8s.io", "v1beta1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies", Cluster),
    builtin("admissionregistration.k8s.io", "v1beta1", "ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", Cluster),
    builtin("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", Cluster),
    builtin("apiregistration.k8s.io", "v1", "APIService", "apiservices", Cluster),
    builtin("apps", "v1", "ControllerRevision", "controllerrevisions", Namespaced),
    builtin("apps", "v1", "DaemonSet", "daemonsets", Namespaced),
    builtin("apps", "v1", "Deployment", "deployments", Namespaced),
    builtin("apps", "v1", "ReplicaSet", "replicasets", Namespaced),
    builtin("apps", "v1", "StatefulSet", "statefulsets", Namespaced),
    builtin("authentication.k8s.io", "v1", "SelfSubjectReview", "selfsubjectreviews", Cluster),
    builtin("authentication.k8s.io", "v1", "TokenRequest", "token", Subresource),
    builtin("authentication.k8s.io", "v1", "TokenReview", "tokenreviews", Cluster),
    builtin("authorization.k8s.io", "v1", "LocalSubjectAccessReview", "localsubjectaccessreviews", Namespaced),
    builtin("authorization.k8s.io", "v1", "SelfSubjectAccessReview", "selfsubjectaccessreviews", Cluster),
    builtin("authorization.k8s.io", "v1", "SelfSubjectRulesReview", "selfsubjectrulesreviews", Cluster),
    builtin("authorization.k8s.io", "v1", "SubjectAccessReview", "subjectaccessreviews", Cluster),
    builtin("autoscaling", "v1", "HorizontalPodAutoscaler", "horizontalpodautoscalers", Namespaced),
    builtin("autoscaling", "v1", "Scale", "scale", Subresource),
    builtin("autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", Namespaced),
    builtin("batch", "v1", "CronJob", "cronjobs", Namespaced),
    builtin("batch", "v1", "Job", "jobs", Namespaced),
    builtin("certificates.k8s.io", "v1", "CertificateSigningRequest", "certificatesigningrequests", Cluster),
    builtin("certificates.k8s.io", "v1alpha1", "ClusterTrustBundle", "clustertrustbundles", Cluster),
    builtin("certificates.k8s.io", "v1beta1", "ClusterTrustBundle", "clustertrustbundles", Cluster),
    builtin("coordination.k8s.io", "v1", "Lease", "leases", Namespaced),
    builtin("coordination.k8s.io", "v1alpha2", "LeaseCandidate", "leasecandidates", Namespaced),
    builtin("coordination.k8s.io", "v1beta1", "LeaseCandidate", "leasecandidates", Namespaced),
    builtin("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", Namespaced),
    builtin("events.k8s.io", "v1", "Event", "events", Namespaced),
    builtin("flowcontrol.apiserver.k8s.io", "v1", "FlowSchema", "flowschemas", Cluster),
    builtin("flowcontrol.apiserver.k8s.io", "v1", "PriorityLevelConfiguration", "prioritylevelconfigurations", Cluster),
    builtin("internal.apiserver.k8s.io", "v1alpha1", "StorageVersion", "storageversions", Cluster),
    builtin("networking.k8s.io", "v1", "IPAddress", "ipaddresses", Cluster),
    builtin("networking.k8s.io", "v1", "Ingress", "ingresses", Namespaced),
    builtin("networking.k8s.io", "v1", "IngressClass", "ingressclasses", Cluster),
    builtin("networking.k8s.io", "v1", "NetworkPolicy", "networkpolicies", Namespaced),
    builtin("networking.k8s.io", "v1", "ServiceCIDR", "servicecidrs", Cluster),
    builtin("networking.k8s.io", "v1beta1", "IPAddress", "ipaddresses", Cluster),
    builtin("networking.k8s.io", "v1beta1", "ServiceCIDR", "servicecidrs", Cluster),
    builtin("node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", Cluster),
    builtin("policy", "v1", "Eviction", "eviction", Subresource),
    builtin("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", Namespaced),
    builtin("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", Cluster),
    builtin("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", Cluster),
    builtin("rbac.authorization.k8s.io", "v1", "Role", "roles", Namespaced),
    builtin("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", Namespaced),
    builtin("resource.k8s.io", "v1alpha3", "DeviceClass", "deviceclasses", Cluster),
    builtin("resource.k8s.io", "v1alpha3", "DeviceTaintRule", "devicetaintrules", Cluster),
    builtin("resource.k8s.io", "v1alpha3", "ResourceClaim", "resourceclaims", Namespaced),
    builtin("resource.k8s.io", "v1alpha3", "ResourceClaimTemplate", "resourceclaimtemplates", Namespaced),
    builtin("resource.k8s.io", "v1alpha3", "ResourceSlice", "resourceslices", Cluster),
    builtin("resource.k8s.io", "v1beta1", "DeviceClass", "deviceclasses", Cluster),
    builtin("resource.k8s.io", "v1beta1", "ResourceClaim", "resourceclaims", Namespaced),
    builtin("resource.k8s.io", "v1beta1", "ResourceClaimTemplate", "resourceclaimtemplates", Namespaced),
    builtin("resource.k8s.io", "v1beta1", "ResourceSlice", "resourceslices", Cluster),
    builtin("resource.k8s.io", "v1beta2", "DeviceClass", "deviceclasses", Cluster),
    builtin("resource.k8s.io", "v1beta2", "ResourceClaim", "resourceclaims", Namespaced),
    builtin("resource.k8s.io", "v1beta2", "ResourceClaimTemplate", "resourceclaimtemplates", Namespaced),
    builtin("resource.k8s.io", "v1beta2", "ResourceSlice", "resourceslices", Cluster),
    builtin("scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", Cluster),
    builtin("storage.k8s.io", "v1", "CSIDriver", "csidrivers", Cluster),
    builtin("storage.k8s.io", "v1", "CSINode", "csinodes", Cluster),
    builtin("storage.k8s.io", "v1", "CSIStorageCapacity", "csistoragecapacities", Namespaced),
    builtin("storage.k8s.io", "v1", "StorageClass", "storageclasses", Cluster),
    builtin("storage.k8s.io", "v1", "VolumeAttachment", "volumeattachments", Cluster),
    builtin("storage.k8s.io", "v1alpha1", "VolumeAttributesClass", "volumeattributesclasses", Cluster),
    builtin("storage.k8s.io", "v1beta1", "VolumeAttributesClass", "volumeattributesclasses", Cluster),
    builtin("storagemigration.k8s.io", "v1alpha1", "StorageVersionMigration", "storageversionmigrations", Cluster),
];

/// `core` for the core group, else the API group's first label.
pub fn short_group(group: &str) -> &str {
    if group.is_empty() {
        "core"
    } else {
        group.split('.').next().unwrap_or(group)
    }
}

/// The module of k8s-openapi that holds the types of `group`/`version`.
pub fn type_path(group: &str, version: &str) -> String {
    match group {
        "" => format!("k8s_openapi::api::core::{version}"),
        "apiextensions.k8s.io" => {
            format!("k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::{version}")
        }
        "apiregistration.k8s.io" => {
            format!("k8s_openapi::kube_aggregator::pkg::apis::apiregistration::{version}")
        }
        "internal.apiserver.k8s.io" => format!("k8s_openapi::api::apiserverinternal::{version}"),
        other => format!("k8s_openapi::api::{}::{version}", short_group(other)),
    }
}

#[cfg(test)]
mod tests;
