//! Resolved kinds (plural and scope) of the objects a release contains, cached for the
//! life of the controller so discovery runs once per kind.
use std::collections::HashMap;
use std::sync::Mutex;

use kube::Client;
use kube::api::{ApiResource, GroupVersionKind};
use kube::discovery::{self, Scope};

/// What discovery says about a kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KindInfo {
    pub resource: ApiResource,
    pub namespaced: bool,
}

/// Discovery results by group/version/kind.
#[derive(Default)]
pub(crate) struct KindCache {
    known: Mutex<HashMap<GroupVersionKind, KindInfo>>,
}

impl KindCache {
    /// Record a kind without asking the API server.
    pub fn insert(&self, gvk: GroupVersionKind, info: KindInfo) {
        if let Ok(mut known) = self.known.lock() {
            known.insert(gvk, info);
        }
    }

    fn cached(&self, gvk: &GroupVersionKind) -> Option<KindInfo> {
        self.known.lock().ok()?.get(gvk).cloned()
    }

    /// The kind's resource and scope, from the cache or from discovery.
    pub async fn resolve(
        &self,
        client: &Client,
        gvk: &GroupVersionKind,
    ) -> Result<KindInfo, kube::Error> {
        if let Some(info) = self.cached(gvk) {
            return Ok(info);
        }
        let (resource, capabilities) = discovery::pinned_kind(client, gvk).await?;
        let info = KindInfo {
            resource,
            namespaced: capabilities.scope == Scope::Namespaced,
        };
        self.insert(gvk.clone(), info.clone());
        Ok(info)
    }
}
