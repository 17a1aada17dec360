//! The built-in kind table: its lookups, and the table checked against k8s-openapi's own
//! `Resource` constants (k8s-openapi is a dev-dependency only, so the CLI does not link it).
use k8s_openapi::Resource;
use k8s_openapi::{api, apiextensions_apiserver, apimachinery, kube_aggregator};

use super::*;

fn expected<T: Resource>() -> BuiltinKind {
    let scope_type = std::any::type_name::<T::Scope>();
    let scope = if scope_type.ends_with("::NamespaceResourceScope") {
        Scope::Namespaced
    } else if scope_type.ends_with("::ClusterResourceScope") {
        Scope::Cluster
    } else if scope_type.ends_with("::SubResourceScope") {
        Scope::Subresource
    } else {
        panic!("{}: unknown scope type {scope_type}", T::KIND)
    };
    // API_VERSION is "v1" for the core group and "<group>/<version>" for the others.
    let (group, version) = T::API_VERSION
        .rsplit_once('/')
        .unwrap_or(("", T::API_VERSION));
    assert_eq!((group, version), (T::GROUP, T::VERSION), "{}", T::KIND);
    // The module `create api --resource=false --controller` imports the type from.
    if !T::URL_PATH_SEGMENT.is_empty() && !std::any::type_name::<T>().contains("apimachinery") {
        let module = type_path(T::GROUP, T::VERSION);
        // k8s-openapi defines each type under its Kubernetes version (`v1_33`) and
        // re-exports it at the crate root, where the generated code imports it.
        let real = std::any::type_name::<T>().replacen("k8s_openapi::v1_33::", "k8s_openapi::", 1);
        assert!(
            real.starts_with(&format!("{module}::")),
            "{}: {module} vs {real}",
            T::KIND
        );
    }
    BuiltinKind {
        group: T::GROUP,
        version: T::VERSION,
        kind: T::KIND,
        plural: T::URL_PATH_SEGMENT,
        scope,
    }
}

macro_rules! every_resource_type {
    ($($ty:path,)*) => {
        vec![$(expected::<$ty>(),)*]
    };
}

#[test]
#[expect(
    clippy::too_many_lines,
    reason = "the list of every k8s-openapi type, then the checks against it"
)]
fn builtin_table_matches_k8s_openapi() {
    let real = every_resource_type![
        apimachinery::pkg::apis::meta::v1::APIGroup,
        apimachinery::pkg::apis::meta::v1::APIGroupList,
        apimachinery::pkg::apis::meta::v1::APIResourceList,
        apimachinery::pkg::apis::meta::v1::APIVersions,
        api::core::v1::Binding,
        api::core::v1::ComponentStatus,
        api::core::v1::ConfigMap,
        api::core::v1::Endpoints,
        api::core::v1::Event,
        api::core::v1::LimitRange,
        api::core::v1::Namespace,
        api::core::v1::Node,
        api::core::v1::PersistentVolume,
        api::core::v1::PersistentVolumeClaim,
        api::core::v1::Pod,
        api::core::v1::PodTemplate,
        api::core::v1::ReplicationController,
        api::core::v1::ResourceQuota,
        api::core::v1::Secret,
        api::core::v1::Service,
        api::core::v1::ServiceAccount,
        apimachinery::pkg::apis::meta::v1::Status,
        api::admissionregistration::v1::MutatingWebhookConfiguration,
        api::admissionregistration::v1::ValidatingAdmissionPolicy,
        api::admissionregistration::v1::ValidatingAdmissionPolicyBinding,
        api::admissionregistration::v1::ValidatingWebhookConfiguration,
        api::admissionregistration::v1alpha1::MutatingAdmissionPolicy,
        api::admissionregistration::v1alpha1::MutatingAdmissionPolicyBinding,
        api::admissionregistration::v1beta1::ValidatingAdmissionPolicy,
        api::admissionregistration::v1beta1::ValidatingAdmissionPolicyBinding,
        apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition,
        kube_aggregator::pkg::apis::apiregistration::v1::APIService,
        api::apps::v1::ControllerRevision,
        api::apps::v1::DaemonSet,
        api::apps::v1::Deployment,
        api::apps::v1::ReplicaSet,
        api::apps::v1::StatefulSet,
        api::authentication::v1::SelfSubjectReview,
        api::authentication::v1::TokenRequest,
        api::authentication::v1::TokenReview,
        api::authorization::v1::LocalSubjectAccessReview,
        api::authorization::v1::SelfSubjectAccessReview,
        api::authorization::v1::SelfSubjectRulesReview,
        api::authorization::v1::SubjectAccessReview,
        api::autoscaling::v1::HorizontalPodAutoscaler,
        api::autoscaling::v1::Scale,
        api::autoscaling::v2::HorizontalPodAutoscaler,
        api::batch::v1::CronJob,
        api::batch::v1::Job,
        api::certificates::v1::CertificateSigningRequest,
        api::certificates::v1alpha1::ClusterTrustBundle,
        api::certificates::v1beta1::ClusterTrustBundle,
        api::coordination::v1::Lease,
        api::coordination::v1alpha2::LeaseCandidate,
        api::coordination::v1beta1::LeaseCandidate,
        api::discovery::v1::EndpointSlice,
        api::events::v1::Event,
        api::flowcontrol::v1::FlowSchema,
        api::flowcontrol::v1::PriorityLevelConfiguration,
        api::apiserverinternal::v1alpha1::StorageVersion,
        api::networking::v1::IPAddress,
        api::networking::v1::Ingress,
        api::networking::v1::IngressClass,
        api::networking::v1::NetworkPolicy,
        api::networking::v1::ServiceCIDR,
        api::networking::v1beta1::IPAddress,
        api::networking::v1beta1::ServiceCIDR,
        api::node::v1::RuntimeClass,
        api::policy::v1::Eviction,
        api::policy::v1::PodDisruptionBudget,
        api::rbac::v1::ClusterRole,
        api::rbac::v1::ClusterRoleBinding,
        api::rbac::v1::Role,
        api::rbac::v1::RoleBinding,
        api::resource::v1alpha3::DeviceClass,
        api::resource::v1alpha3::DeviceTaintRule,
        api::resource::v1alpha3::ResourceClaim,
        api::resource::v1alpha3::ResourceClaimTemplate,
        api::resource::v1alpha3::ResourceSlice,
        api::resource::v1beta1::DeviceClass,
        api::resource::v1beta1::ResourceClaim,
        api::resource::v1beta1::ResourceClaimTemplate,
        api::resource::v1beta1::ResourceSlice,
        api::resource::v1beta2::DeviceClass,
        api::resource::v1beta2::ResourceClaim,
        api::resource::v1beta2::ResourceClaimTemplate,
        api::resource::v1beta2::ResourceSlice,
        api::scheduling::v1::PriorityClass,
        api::storage::v1::CSIDriver,
        api::storage::v1::CSINode,
        api::storage::v1::CSIStorageCapacity,
        api::storage::v1::StorageClass,
        api::storage::v1::VolumeAttachment,
        api::storage::v1alpha1::VolumeAttributesClass,
        api::storage::v1beta1::VolumeAttributesClass,
        api::storagemigration::v1alpha1::StorageVersionMigration,
    ];
    for kind in &real {
        let entry = BUILTIN_KINDS
            .iter()
            .find(|k| (k.group, k.version, k.kind) == (kind.group, kind.version, kind.kind));
        assert_eq!(
            entry,
            Some(kind),
            "table entry for {}/{} {}",
            kind.group,
            kind.version,
            kind.kind
        );
    }
    assert_eq!(
        BUILTIN_KINDS.len(),
        real.len(),
        "the table has entries that are not k8s-openapi types"
    );
}

#[test]
fn finds_kinds_by_group_and_kind_whatever_the_version() {
    let hpa = by_kind("autoscaling", "v2", "HorizontalPodAutoscaler").unwrap();
    assert_eq!(
        (hpa.plural, hpa.version),
        ("horizontalpodautoscalers", "v2")
    );
    // A version k8s-openapi does not know still finds the kind.
    let hpa = by_kind("autoscaling", "v2beta2", "HorizontalPodAutoscaler").unwrap();
    assert_eq!(hpa.plural, "horizontalpodautoscalers");
    let pdb = by_kind("policy", "v1", "PodDisruptionBudget").unwrap();
    assert_eq!(
        (pdb.plural, pdb.scope),
        ("poddisruptionbudgets", Namespaced)
    );
    let crd = by_kind("apiextensions.k8s.io", "v1", "CustomResourceDefinition").unwrap();
    assert_eq!(crd.scope, Cluster);
    assert_eq!(by_kind("", "v1", "Endpoints").unwrap().plural, "endpoints");
    let route = by_kind("gateway.networking.k8s.io", "v1", "HTTPRoute").unwrap();
    assert_eq!((route.plural, route.scope), ("httproutes", Namespaced));
}

#[test]
fn kinds_that_are_not_objects_are_not_found() {
    // A Deployment in group "" is not a thing; nor are subresources or discovery documents.
    assert_eq!(by_kind("", "v1", "Deployment"), None);
    assert_eq!(by_kind("autoscaling", "v1", "Scale"), None);
    assert_eq!(by_kind("", "v1", "APIGroupList"), None);
    assert_eq!(
        by_kind("monitoring.coreos.com", "v1", "ServiceMonitor"),
        None
    );
}

#[test]
fn finds_resources_by_plural() {
    assert_eq!(by_plural("", "pods").unwrap().kind, "Pod");
    assert_eq!(by_plural("", "namespaces").unwrap().scope, Cluster);
    assert_eq!(by_plural("apps", "pods"), None);
}

#[test]
fn guessed_plurals_are_lower_case_english() {
    assert_eq!(guess_plural("ServiceMonitor"), "servicemonitors");
    assert_eq!(guess_plural("HTTPRoute"), "httproutes");
    assert_eq!(guess_plural("NetworkPolicy"), "networkpolicies");
    assert_eq!(guess_plural("Ingress"), "ingresses");
}

#[test]
fn table_is_sorted_and_has_no_duplicates() {
    let keys: Vec<_> = BUILTIN_KINDS
        .iter()
        .map(|k| (k.group, k.version, k.kind))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(keys, sorted);
}
