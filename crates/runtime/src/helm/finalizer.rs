//! The `uninstall-helm-release` finalizer, added and removed with guarded JSON patches
//! (a `test` op first, so a concurrent change makes the patch fail instead of clobbering).
use kube::ResourceExt;
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use serde_json::json;

/// Finalizer that makes deletion wait for the Helm release to be uninstalled.
pub const UNINSTALL_FINALIZER: &str = "uninstall-helm-release";

pub(crate) fn has_finalizer(obj: &DynamicObject) -> bool {
    obj.finalizers().iter().any(|f| f == UNINSTALL_FINALIZER)
}

fn json_patch(ops: serde_json::Value) -> Result<Patch<()>, kube::Error> {
    serde_json::from_value(ops)
        .map(Patch::Json)
        .map_err(kube::Error::SerdeError)
}

/// Add the finalizer; returns the object as the API server stored it.
pub(crate) async fn add_finalizer(
    api: &Api<DynamicObject>,
    obj: &DynamicObject,
) -> Result<DynamicObject, kube::Error> {
    let ops = match &obj.metadata.finalizers {
        None => json!([
            {"op": "test", "path": "/metadata/finalizers", "value": null},
            {"op": "add", "path": "/metadata/finalizers", "value": [UNINSTALL_FINALIZER]},
        ]),
        Some(current) => json!([
            {"op": "test", "path": "/metadata/finalizers", "value": current},
            {"op": "add", "path": "/metadata/finalizers/-", "value": UNINSTALL_FINALIZER},
        ]),
    };
    api.patch(&obj.name_any(), &PatchParams::default(), &json_patch(ops)?)
        .await
}

/// Remove the finalizer, keeping any others.
pub(crate) async fn remove_finalizer(
    api: &Api<DynamicObject>,
    obj: &DynamicObject,
) -> Result<(), kube::Error> {
    let current = obj.finalizers();
    let remaining: Vec<&String> = current
        .iter()
        .filter(|f| *f != UNINSTALL_FINALIZER)
        .collect();
    let ops = json!([
        {"op": "test", "path": "/metadata/finalizers", "value": current},
        {"op": "replace", "path": "/metadata/finalizers", "value": remaining},
    ]);
    api.patch(&obj.name_any(), &PatchParams::default(), &json_patch(ops)?)
        .await
        .map(drop)
}
