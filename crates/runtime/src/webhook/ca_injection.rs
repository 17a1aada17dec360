//! Writing a CA into the `caBundle` of every webhook and CRD conversion that calls a
//! given Service (the self-signed mode's equivalent of cert-manager's CA injector).
use std::fmt::Debug;

use anyhow::Context as _;
use k8s_openapi::ByteString;
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration, WebhookClientConfig,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ListParams, Patch, PatchParams};
use kube::{Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::self_signed::SelfSignedConfig;

/// Objects per page when listing webhook configurations and CRDs (bounded memory on a
/// cluster with many large CRDs).
const PAGE: u32 = 50;

/// Write `ca_bundle` into every webhook and CRD conversion that calls `config`'s Service,
/// where it differs; returns how many objects were patched.
pub(crate) async fn inject_ca(
    client: &Client,
    config: &SelfSignedConfig,
    ca_bundle: &str,
) -> anyhow::Result<usize> {
    let encoded = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, ca_bundle);
    let wanted = ByteString(ca_bundle.as_bytes().to_vec());
    let calls_us = |service: Option<(&str, &str)>| {
        service == Some((config.service.as_str(), config.namespace.as_str()))
    };
    let mut patched = 0;

    patched +=
        inject_into_webhooks::<MutatingWebhookConfiguration>(client, &calls_us, &wanted, &encoded)
            .await?;
    patched += inject_into_webhooks::<ValidatingWebhookConfiguration>(
        client, &calls_us, &wanted, &encoded,
    )
    .await?;
    let mut pages = Pager::<CustomResourceDefinition>::new(client);
    while let Some(page) = pages.next().await? {
        for crd in page {
            if conversion_needs_ca(&crd, &calls_us, &wanted) {
                let patch = json!([{
                    "op": "add",
                    "path": "/spec/conversion/webhook/clientConfig/caBundle",
                    "value": encoded,
                }]);
                apply_json_patch::<CustomResourceDefinition>(client, &crd.name_any(), patch)
                    .await?;
                patched += 1;
            }
        }
    }
    Ok(patched)
}

/// A webhook configuration: its webhooks' names and client configs, in order.
trait WebhookConfiguration: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug {
    fn client_configs(&self) -> Vec<(&str, &WebhookClientConfig)>;
}

impl WebhookConfiguration for MutatingWebhookConfiguration {
    fn client_configs(&self) -> Vec<(&str, &WebhookClientConfig)> {
        let hooks = self.webhooks.iter().flatten();
        hooks.map(|h| (h.name.as_str(), &h.client_config)).collect()
    }
}

impl WebhookConfiguration for ValidatingWebhookConfiguration {
    fn client_configs(&self) -> Vec<(&str, &WebhookClientConfig)> {
        let hooks = self.webhooks.iter().flatten();
        hooks.map(|h| (h.name.as_str(), &h.client_config)).collect()
    }
}

/// Set the `caBundle` of the webhooks of every `K` that call us and lack it; returns how
/// many configurations were patched.
async fn inject_into_webhooks<K: WebhookConfiguration>(
    client: &Client,
    calls_us: &impl Fn(Option<(&str, &str)>) -> bool,
    wanted: &ByteString,
    encoded: &str,
) -> anyhow::Result<usize> {
    let mut patched = 0;
    let mut pages = Pager::<K>::new(client);
    while let Some(page) = pages.next().await? {
        for hooks in page {
            let targets = hooks
                .client_configs()
                .into_iter()
                .map(|(name, client_config)| {
                    let service = client_config.service.as_ref();
                    let service = service.map(|s| (s.name.as_str(), s.namespace.as_str()));
                    (calls_us(service), client_config.ca_bundle.as_ref(), name)
                });
            let targets = targets.collect();
            patched += patch_webhooks(client, &hooks, targets, wanted, encoded).await?;
        }
    }
    Ok(patched)
}

/// The CRD converts through our Service and lacks `wanted` as its `caBundle`.
fn conversion_needs_ca(
    crd: &CustomResourceDefinition,
    calls_us: &impl Fn(Option<(&str, &str)>) -> bool,
    wanted: &ByteString,
) -> bool {
    let Some(client_config) = crd
        .spec
        .conversion
        .as_ref()
        .and_then(|conversion| conversion.webhook.as_ref())
        .and_then(|webhook| webhook.client_config.as_ref())
    else {
        return false;
    };
    let service = client_config.service.as_ref();
    let service = service.map(|s| (s.name.as_str(), s.namespace.as_str()));
    calls_us(service) && client_config.ca_bundle.as_ref() != Some(wanted)
}
/// Patch the `caBundle` of the webhooks (by index) of `hooks` that call us and lack it;
/// each change is guarded by a test of the webhook's name at that index.
async fn patch_webhooks<K>(
    client: &Client,
    hooks: &K,
    targets: Vec<(bool, Option<&ByteString>, &str)>,
    wanted: &ByteString,
    encoded: &str,
) -> anyhow::Result<usize>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug,
{
    let mut ops = Vec::new();
    for (index, (calls_us, current, name)) in targets.into_iter().enumerate() {
        if calls_us && current != Some(wanted) {
            ops.push(
                json!({"op": "test", "path": format!("/webhooks/{index}/name"), "value": name}),
            );
            ops.push(json!({
                "op": "add",
                "path": format!("/webhooks/{index}/clientConfig/caBundle"),
                "value": encoded,
            }));
        }
    }
    if ops.is_empty() {
        return Ok(0);
    }
    apply_json_patch::<K>(client, &hooks.name_any(), Value::Array(ops)).await?;
    Ok(1)
}

async fn apply_json_patch<K>(client: &Client, name: &str, patch: Value) -> anyhow::Result<()>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug,
{
    let patch: json_patch::Patch = serde_json::from_value(patch)?;
    Api::<K>::all(client.clone())
        .patch(name, &PatchParams::default(), &Patch::Json::<()>(patch))
        .await
        .with_context(|| {
            format!(
                "self-signed webhook certificate: cannot set the caBundle of {} {name} (does the manager's role allow patch?)",
                K::kind(&())
            )
        })?;
    Ok(())
}

/// The objects of a cluster-scoped kind, a page at a time.
struct Pager<K: Resource<DynamicType = ()>> {
    api: Api<K>,
    params: ListParams,
    done: bool,
}

impl<K> Pager<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug,
{
    fn new(client: &Client) -> Self {
        Pager {
            api: Api::all(client.clone()),
            params: ListParams::default().limit(PAGE),
            done: false,
        }
    }

    async fn next(&mut self) -> anyhow::Result<Option<Vec<K>>> {
        if self.done {
            return Ok(None);
        }
        let page = self.api.list(&self.params).await.with_context(|| {
            format!(
                "self-signed webhook certificate: cannot list {} (does the manager's role allow list?)",
                K::plural(&())
            )
        })?;
        match page.metadata.continue_ {
            Some(token) if !token.is_empty() => {
                self.params = self.params.clone().continue_token(&token);
            }
            _ => self.done = true,
        }
        Ok(Some(page.items))
    }
}
