//! The control plane itself behaves as a cluster does: RBAC is enforced on ServiceAccount
//! tokens, and a deleted namespace finishes deleting (kube-controller-manager runs).
use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Namespace, ServiceAccount};
use k8s_openapi::api::rbac::v1::{Role, RoleBinding};
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use rusty_sdk_test_tools::needs;
use serde_json::json;

use super::{await_gone, cluster, eventually};

fn object<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> T {
    serde_json::from_value(value).expect("a valid object")
}

#[needs(control_plane)]
#[tokio::test]
async fn a_service_account_may_do_only_what_its_role_grants() {
    let cluster = cluster();
    let admin = cluster.client().await.unwrap();
    let ns = cluster.create_namespace(&admin, "rbac").await.unwrap();
    let pp = PostParams::default();
    Api::<ServiceAccount>::namespaced(admin.clone(), &ns)
        .create(&pp, &object(json!({"metadata": {"name": "reader"}})))
        .await
        .unwrap();
    let reader = cluster.service_account_client(&ns, "reader").await.unwrap();
    let config_maps: Api<ConfigMap> = Api::namespaced(reader, &ns);

    let denied = config_maps.list(&ListParams::default()).await.unwrap_err();
    assert!(
        matches!(&denied, kube::Error::Api(status) if status.code == 403),
        "a ServiceAccount without roles listed ConfigMaps: {denied:?}"
    );

    Api::<Role>::namespaced(admin.clone(), &ns)
        .create(
            &pp,
            &object(json!({
                "metadata": {"name": "read-config-maps"},
                "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["list"]}]
            })),
        )
        .await
        .unwrap();
    Api::<RoleBinding>::namespaced(admin, &ns)
        .create(
            &pp,
            &object(json!({
                "metadata": {"name": "reader"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "read-config-maps"},
                "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": ns}]
            })),
        )
        .await
        .unwrap();
    eventually(
        "the reader lists ConfigMaps once bound",
        Duration::from_secs(10),
        || {
            let config_maps = config_maps.clone();
            async move { config_maps.list(&ListParams::default()).await.ok() }
        },
    )
    .await;
    let still_denied = config_maps
        .delete("anything", &DeleteParams::default())
        .await
        .unwrap_err();
    assert!(
        matches!(&still_denied, kube::Error::Api(status) if status.code == 403),
        "the role grants list only, yet delete was not forbidden: {still_denied:?}"
    );
}

#[needs(control_plane)]
#[tokio::test]
async fn a_deleted_namespace_finishes_deleting() {
    let cluster = cluster();
    assert!(
        cluster.has_controller_manager(),
        "the suite's control plane runs kube-controller-manager"
    );
    let admin = cluster.client().await.unwrap();
    let ns = cluster.create_namespace(&admin, "gone").await.unwrap();
    Api::<ConfigMap>::namespaced(admin.clone(), &ns)
        .create(
            &PostParams::default(),
            &object(json!({"metadata": {"name": "data"}})),
        )
        .await
        .unwrap();
    let namespaces: Api<Namespace> = Api::all(admin);
    namespaces
        .delete(&ns, &DeleteParams::default())
        .await
        .unwrap();
    await_gone(
        &namespaces,
        &ns,
        "the namespace is gone",
        Duration::from_secs(60),
    )
    .await;
}
