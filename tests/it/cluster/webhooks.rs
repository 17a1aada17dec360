//! The webhooks `create webhook` scaffolds, called by a real API server: a Rust API
//! `Memcached` with defaulting and validating webhooks on v1, the hub, and a conversion
//! webhook to its spoke v2, each version with a field the other lacks. The project is built,
//! its kustomize manifests (CRD, RBAC) applied, and the operator run as a process with its
//! ServiceAccount's token, serving its webhooks on loopback. Each test registers the generated
//! webhook configurations and the CRD's conversion (paths, rules, policies as generated) for
//! its own namespace, pointed at its operator, in one of the runtime's certificate modes:
//!
//! - cert-manager's layout (`config/default`): this test plays cert-manager, issuing the
//!   `Certificate` the manifests ask for (plus 127.0.0.1, as the API server calls the
//!   operator at `https://127.0.0.1:<port>/<path>`), writing it where `--webhook-cert-path`
//!   reads it, and injecting its CA wherever `cert-manager.io/inject-ca-from` names it;
//! - `config/self-signed`: the operator makes its own CA and writes the `caBundle`s itself,
//!   with the permissions of that layout's role. Its configurations keep calling the
//!   webhook Service, which here is an `ExternalName` for 127.0.0.1 (what kube-proxy would
//!   route to the pod), on the operator's port.
use std::fmt::Debug;
use std::future::Future;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use k8s_openapi::ByteString;
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::core::v1::{Pod, Secret, Service};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use kube::{Resource, ResourceExt};
use rusty_sdk_test_tools::needs;
use serde::de::DeserializeOwned;
use serde::{Deserialize as _, Serialize};
use serde_json::{Value, json};
use tokio::sync::{Mutex, OnceCell};

use super::operator::{Installed, Operator, custom};
use super::{assets, cluster};
use crate::e2e::{built_operator, kustomize, project_dir, run_bin};
use crate::support::scaffold;

const PROJECT: &str = "cluster-webhooks";
const GROUP: &str = "cache.hooks.my.domain";
const CRD: &str = "memcacheds.cache.hooks.my.domain";
const V1: (&str, &str, &str, &str) = (GROUP, "v1", "Memcached", "memcacheds");
const V2: (&str, &str, &str, &str) = (GROUP, "v2", "Memcached", "memcacheds");
/// What the scaffolded defaulting webhook sets, and what its validation says of a name
/// over 63 characters.
const DEFAULTED_LABEL: (&str, &str) = ("app.kubernetes.io/name", "memcached");
const DENIAL: &str = "metadata.name: must be no more than 63 characters";
/// The bound for the API server to pick up a configuration or a CA.
const SETTLE: Duration = Duration::from_secs(60);

/// A CRD has one conversion webhook: the tests that point it at their operator take turns.
static CONVERSION: Mutex<()> = Mutex::const_new(());

/// The project, built and installed, and its manifests as kustomize builds them.
struct Project {
    installed: Installed,
    /// `config/default`, cert-manager's layout.
    default: Vec<Value>,
    /// `config/self-signed`.
    self_signed: Vec<Value>,
}

async fn project() -> &'static Project {
    static PROJECT_ONCE: OnceCell<(tempfile::TempDir, Project)> = OnceCell::const_new();
    let (_, project) = PROJECT_ONCE
        .get_or_init(|| async {
            let (dir, root) = project_dir(PROJECT);
            scaffold(
                dir.path(),
                &root,
                &[
                    "init --plugins rust --domain hooks.my.domain --repo github.com/example/cluster-webhooks",
                    "create api --plugins rust --group cache --version v1 --kind Memcached --resource --controller=false",
                    "create api --plugins rust --group cache --version v2 --kind Memcached --resource --controller=false",
                    "create webhook --group cache --version v1 --kind Memcached --defaulting --programmatic-validation",
                    "create webhook --group cache --version v1 --kind Memcached --conversion --spoke v2",
                ],
            );
            // The versions diverge, as they do once a user changes one: a field only the hub
            // has, and one only the spoke has. The scaffolded conversions are left as they are.
            add_field(&root, "v1", "size", "Option<i32>");
            add_field(&root, "v2", "tier", "Option<String>");
            // `make manifests`: the CRD with both versions and spec.conversion, then RBAC.
            run_bin(&root, "crdgen", &["config/crd/bases"]);
            scaffold(dir.path(), &root, &["generate rbac"]);
            let project = install(&root, CRD).await;
            (dir, project)
        })
        .await;
    project
}

/// Add `field: ty` to the spec of version `version`, after the scaffolded example field.
fn add_field(root: &Path, version: &str, field: &str, ty: &str) {
    let path = root.join(format!("api/src/cache/{version}/memcached.rs"));
    let text = std::fs::read_to_string(&path).unwrap();
    let example = "    pub foo: Option<String>,\n";
    assert!(text.contains(example), "{}:\n{text}", path.display());
    let added = format!(
        "{example}    /// Only {version} has it.\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub {field}: {ty},\n"
    );
    std::fs::write(&path, text.replacen(example, &added, 1)).unwrap();
}

/// Build the project and apply `config/self-signed` (config/default without cert-manager's
/// objects, plus the role of the self-signed mode), all but the webhook configurations, which
/// each test registers for itself, and the webhook Service, which becomes an `ExternalName`
/// for loopback; then wait until the CRD `crd` is established.
async fn install(root: &Path, crd: &str) -> Project {
    let binary = built_operator(root);
    let default = documents(&kustomize(root, "config/default"));
    let self_signed = documents(&kustomize(root, "config/self-signed"));
    let service = webhook_service(&self_signed);
    let applied: Vec<&Value> = self_signed
        .iter()
        .filter(|doc| {
            let kind = doc["kind"].as_str().unwrap_or_default();
            let webhook_service = kind == "Service" && doc["metadata"]["name"] == service.0;
            !kind.ends_with("WebhookConfiguration") && !webhook_service
        })
        .collect();
    kubectl_apply(&json!({"apiVersion": "v1", "kind": "List", "items": applied}));

    let admin = cluster().client().await.unwrap();
    let external: Service = serde_json::from_value(json!({
        "metadata": {"name": service.0, "namespace": service.1},
        "spec": {"type": "ExternalName", "externalName": "127.0.0.1"},
    }))
    .unwrap();
    Api::<Service>::namespaced(admin.clone(), &service.1)
        .create(&PostParams::default(), &external)
        .await
        .unwrap();
    let crds = Api::<CustomResourceDefinition>::all(admin);
    poll("the CRD is established", SETTLE, None, || async {
        let crd = crds.get(crd).await.map_err(|e| e.to_string())?;
        let conditions = crd.status.and_then(|s| s.conditions).unwrap_or_default();
        conditions
            .iter()
            .find(|c| c.type_ == "Established" && c.status == "True")
            .map(|_| ())
            .ok_or_else(|| format!("conditions: {conditions:?}"))
    })
    .await;

    let name = root.file_name().unwrap().to_string_lossy();
    let system_namespace = format!("{name}-system");
    let kubeconfig = cluster()
        .service_account_kubeconfig(&system_namespace, &format!("{name}-controller-manager"))
        .await
        .unwrap_or_else(|e| panic!("{e:#}"));
    Project {
        installed: Installed {
            root: root.to_path_buf(),
            binary,
            system_namespace,
            kubeconfig,
        },
        default,
        self_signed,
    }
}

/// The documents of a multi-document YAML stream.
fn documents(yaml: &str) -> Vec<Value> {
    serde_yaml::Deserializer::from_str(yaml)
        .map(|doc| Value::deserialize(doc).unwrap())
        .filter(|doc| !doc.is_null())
        .collect()
}

/// The document of `kind` named `name` (or the only one of its kind).
fn document<'a>(docs: &'a [Value], kind: &str, name: Option<&str>) -> &'a Value {
    let mut found = docs
        .iter()
        .filter(|doc| doc["kind"] == kind)
        .filter(|doc| name.is_none_or(|name| doc["metadata"]["name"] == name));
    let doc = found.next().unwrap_or_else(|| panic!("no {kind} {name:?}"));
    assert!(found.next().is_none(), "more than one {kind} {name:?}");
    doc
}

/// The Service (name, namespace) the generated webhooks call: every webhook and every CRD's
/// conversion webhook name the same one, and it is among the manifests.
fn webhook_service(docs: &[Value]) -> (String, String) {
    let conversions = docs
        .iter()
        .filter(|doc| doc["kind"] == "CustomResourceDefinition")
        .filter(|crd| crd["spec"]["conversion"]["strategy"] == "Webhook")
        .map(|crd| &crd["spec"]["conversion"]["webhook"]["clientConfig"]);
    let client_configs = webhook_configurations(docs)
        .flat_map(|doc| doc["webhooks"].as_array().unwrap())
        .map(|hook| &hook["clientConfig"])
        .chain(conversions);
    let mut services: Vec<(String, String)> = client_configs
        .map(|config| {
            let service = &config["service"];
            let text = |key: &str| service[key].as_str().unwrap_or_default().to_string();
            assert!(
                config.get("url").is_none() && !text("path").is_empty(),
                "{config:#}"
            );
            (text("name"), text("namespace"))
        })
        .collect();
    services.dedup();
    assert_eq!(services.len(), 1, "{services:?}");
    let service = services.remove(0);
    let doc = document(docs, "Service", Some(&service.0));
    assert_eq!(doc["metadata"]["namespace"], service.1.as_str());
    service
}

fn webhook_configurations(docs: &[Value]) -> impl Iterator<Item = &Value> {
    docs.iter().filter(|doc| {
        doc["kind"] == "MutatingWebhookConfiguration"
            || doc["kind"] == "ValidatingWebhookConfiguration"
    })
}

/// The generated `spec.conversion.webhook.clientConfig` of the CRD.
fn conversion_client_config(docs: &[Value]) -> &Value {
    let crd = document(docs, "CustomResourceDefinition", Some(CRD));
    let conversion = &crd["spec"]["conversion"];
    assert_eq!(conversion["strategy"], "Webhook", "{conversion:#}");
    &conversion["webhook"]["clientConfig"]
}

fn kubectl_apply(list: &Value) {
    let mut child = Command::new(assets().join("kubectl"))
        .args(["apply", "--server-side", "-f", "-"])
        .env("KUBECONFIG", cluster().admin_kubeconfig())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(list.to_string().as_bytes()).unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "kubectl apply:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Poll `check` every 200 ms until it is `Ok`; after `timeout`, fail with its last error and
/// the operator's log.
async fn poll<T, F, Fut>(
    what: &str,
    timeout: Duration,
    operator: Option<&Operator>,
    mut check: F,
) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, String>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        let last = match check().await {
            Ok(value) => return value,
            Err(last) => last,
        };
        assert!(
            Instant::now() < deadline,
            "{what}: not so after {}s; last: {last}\noperator log:\n{}",
            timeout.as_secs(),
            operator.map(Operator::log).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The webhook configurations a test registered; removed again by [`Registered::remove`].
struct Registered {
    mutating: String,
    validating: String,
}

impl Registered {
    /// Register the generated webhook configurations of `docs` for namespace `ns` only (named
    /// after it), each webhook's `clientConfig` made by `point` from the generated one.
    async fn new(
        admin: &kube::Client,
        docs: &[Value],
        ns: &str,
        point: &impl Fn(&Value) -> Value,
    ) -> Registered {
        let kind = |kind: &str| document(docs, kind, None);
        Registered {
            mutating: register::<MutatingWebhookConfiguration>(
                admin,
                kind("MutatingWebhookConfiguration"),
                ns,
                point,
            )
            .await,
            validating: register::<ValidatingWebhookConfiguration>(
                admin,
                kind("ValidatingWebhookConfiguration"),
                ns,
                point,
            )
            .await,
        }
    }

    async fn remove(self, admin: &kube::Client) {
        let params = DeleteParams::default();
        Api::<MutatingWebhookConfiguration>::all(admin.clone())
            .delete(&self.mutating, &params)
            .await
            .unwrap();
        Api::<ValidatingWebhookConfiguration>::all(admin.clone())
            .delete(&self.validating, &params)
            .await
            .unwrap();
    }
}

async fn register<K>(
    admin: &kube::Client,
    generated: &Value,
    ns: &str,
    point: &impl Fn(&Value) -> Value,
) -> String
where
    K: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned + Serialize,
{
    let mut doc = generated.clone();
    let name = format!("{}-{ns}", generated["metadata"]["name"].as_str().unwrap());
    doc["metadata"]["name"] = json!(name);
    for hook in doc["webhooks"].as_array_mut().unwrap() {
        hook["namespaceSelector"] = json!({"matchLabels": {"kubernetes.io/metadata.name": ns}});
        hook["clientConfig"] = point(&hook["clientConfig"]);
    }
    let object: K = serde_json::from_value(doc).unwrap();
    Api::<K>::all(admin.clone())
        .create(&PostParams::default(), &object)
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    name
}

/// Point the CRD's conversion at the client config `point` makes from the generated one.
async fn point_conversion(admin: &kube::Client, docs: &[Value], point: &impl Fn(&Value) -> Value) {
    let client_config = point(conversion_client_config(docs));
    let crds = Api::<CustomResourceDefinition>::all(admin.clone());
    let mut crd = crds.get(CRD).await.unwrap();
    let webhook = crd
        .spec
        .conversion
        .as_mut()
        .and_then(|c| c.webhook.as_mut())
        .expect("the installed CRD converts with a webhook");
    webhook.client_config = Some(serde_json::from_value(client_config).unwrap());
    crds.replace(CRD, &PostParams::default(), &crd)
        .await
        .unwrap();
}

/// The PEM `ca` as a `caBundle` value (base64).
fn ca_bundle(ca: &str) -> Value {
    serde_json::to_value(ByteString(ca.as_bytes().to_vec())).unwrap()
}

/// A `Memcached` of `version` named `name` with `spec`.
fn memcached(version: &str, name: &str, spec: Value) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": format!("{GROUP}/{version}"),
        "kind": "Memcached",
        "metadata": {"name": name},
        "spec": spec,
    }))
    .unwrap()
}

/// What a test proves once its webhooks are registered and its operator serves them: the
/// API server calls the defaulting webhook (the default is stored), the validating one (an
/// invalid object is refused with the generated message) and the conversion webhook (an
/// object stored in one version reads in every served version, its fields all kept, also
/// after a write through the other version).
async fn webhooks_answer(admin: &kube::Client, ns: &str, operator: &Operator) {
    let v1 = custom(admin, ns, V1);
    let v2 = custom(admin, ns, V2);
    let long = "m".repeat(64);
    let dry_run = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    // The API server reads configurations from a cache: wait until it calls all three.
    poll(
        "the API server calls the webhooks",
        SETTLE,
        Some(operator),
        || async {
            let probe = v2
                .create(&dry_run, &memcached("v2", "probe", json!({})))
                .await
                .map_err(|e| format!("a dry run in v2: {e}"))?;
            if probe.labels().get(DEFAULTED_LABEL.0).map(String::as_str) != Some(DEFAULTED_LABEL.1)
            {
                return Err(format!("not defaulted yet: {:?}", probe.metadata));
            }
            match v1
                .create(&dry_run, &memcached("v1", &long, json!({})))
                .await
            {
                Err(kube::Error::Api(status)) if status.message.contains(DENIAL) => Ok(()),
                other => Err(format!("a name of 64 characters: {other:?}")),
            }
        },
    )
    .await;

    let created = PostParams::default();
    let spec = |cr: &DynamicObject| cr.data["spec"].clone();

    // Defaulting: the label is stored.
    v1.create(&created, &memcached("v1", "defaulted", json!({"foo": "a"})))
        .await
        .unwrap();
    let stored = v1.get("defaulted").await.unwrap();
    assert_eq!(
        stored.labels().get(DEFAULTED_LABEL.0).map(String::as_str),
        Some(DEFAULTED_LABEL.1),
        "{:?}",
        stored.metadata
    );

    // Validation: refused with the generated message, and nothing stored.
    let refused = v1
        .create(&created, &memcached("v1", &long, json!({})))
        .await
        .expect_err("a name of 64 characters is refused");
    match &refused {
        kube::Error::Api(status) => {
            assert!(status.message.contains(DENIAL), "{status:?}");
            assert_eq!(status.code, 422, "{status:?}");
        }
        other => panic!("not the API server's refusal: {other:?}"),
    }
    assert!(v1.get_opt(&long).await.unwrap().is_none());

    // Conversion: created in the spoke v2 (stored as v1), with the field only v2 has.
    v2.create(
        &created,
        &memcached("v2", "from-v2", json!({"foo": "a", "tier": "gold"})),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}\noperator log:\n{}", operator.log()));
    assert_eq!(spec(&v1.get("from-v2").await.unwrap()), json!({"foo": "a"}));
    let read = v2.get("from-v2").await.unwrap();
    assert_eq!(
        spec(&read),
        json!({"foo": "a", "tier": "gold"}),
        "read in v2"
    );
    assert_eq!(
        read.labels().get(DEFAULTED_LABEL.0).map(String::as_str),
        Some(DEFAULTED_LABEL.1),
        "a v2 object is defaulted by the v1 webhook"
    );
    // A write through the hub keeps the spoke's field.
    v1.patch(
        "from-v2",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"foo": "b"}})),
    )
    .await
    .unwrap();
    assert_eq!(
        spec(&v2.get("from-v2").await.unwrap()),
        json!({"foo": "b", "tier": "gold"}),
        "read in v2 after a write in v1"
    );

    // Created in the hub v1 with the field only v1 has, then written through v2.
    v1.create(
        &created,
        &memcached("v1", "from-v1", json!({"foo": "c", "size": 3})),
    )
    .await
    .unwrap();
    assert_eq!(spec(&v2.get("from-v1").await.unwrap()), json!({"foo": "c"}));
    v2.patch(
        "from-v1",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"foo": "d"}})),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}\noperator log:\n{}", operator.log()));
    assert_eq!(
        spec(&v1.get("from-v1").await.unwrap()),
        json!({"foo": "d", "size": 3}),
        "read in v1 after a write in v2"
    );

    // A list converts every object.
    let listed = v2.list(&ListParams::default()).await.unwrap();
    let mut specs: Vec<(String, Value)> = listed
        .items
        .iter()
        .map(|cr| (cr.name_any(), spec(cr)))
        .collect();
    specs.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        specs,
        [
            ("defaulted".to_string(), json!({"foo": "a"})),
            ("from-v1".to_string(), json!({"foo": "d"})),
            ("from-v2".to_string(), json!({"foo": "b", "tier": "gold"})),
        ]
    );
}

/// The operator serving its webhooks for namespace `ns` on a free port, in cert-manager's
/// layout: cert-manager issues the manifests' `Certificate` into the Secret the manager
/// mounts; here, into the folder `--webhook-cert-path` reads (with 127.0.0.1 among its
/// names, as the API server calls the operator on loopback).
struct Served {
    operator: Operator,
    /// The CA that signed the serving certificate (PEM), for the `caBundle`s.
    ca: String,
    port: u16,
    _certs: tempfile::TempDir,
}

impl Served {
    fn with_issued_certificate(project: &Project, ns: &str) -> Served {
        let certificate = document(&project.default, "Certificate", None);
        let dns_names: Vec<String> =
            serde_json::from_value(certificate["spec"]["dnsNames"].clone()).unwrap();
        let (ca, cert, key) = issue(dns_names);
        let certs = tempfile::tempdir().unwrap();
        std::fs::write(certs.path().join("tls.crt"), cert).unwrap();
        std::fs::write(certs.path().join("tls.key"), key).unwrap();
        let port = free_port();
        let operator = Operator::start(
            &project.installed,
            &[
                &format!("--namespace={ns}"),
                &format!("--webhook-port={port}"),
                &format!("--webhook-cert-path={}", certs.path().display()),
            ],
        );
        Served {
            operator,
            ca,
            port,
            _certs: certs,
        }
    }
}

/// A CA and a serving certificate it signs for `names` and 127.0.0.1, as PEM:
/// (CA, certificate, key).
fn issue(names: Vec<String>) -> (String, String, String) {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "cert-manager played by a test");
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(names).unwrap();
    params.subject_alt_names.push(rcgen::SanType::IpAddress(
        std::net::Ipv4Addr::LOCALHOST.into(),
    ));
    let cert = params.signed_by(&key, &issuer).unwrap();
    (ca.pem(), cert.pem(), key.serialize_pem())
}

#[needs(control_plane, e2e, kubectl)]
#[tokio::test]
async fn cert_manager_layout_webhooks_are_called_by_the_api_server() {
    let project = project().await;
    let docs = &project.default;
    let _turn = CONVERSION.lock().await;
    let admin = cluster().client().await.unwrap();
    let ns = cluster()
        .create_namespace(&admin, "webhooks-cm")
        .await
        .unwrap();

    let certificate = document(docs, "Certificate", None);
    let dns_names = &certificate["spec"]["dnsNames"];
    let service = webhook_service(docs);
    let service_name = format!("{}.{}.svc", service.0, service.1);
    assert!(
        dns_names.as_array().unwrap().contains(&json!(service_name)),
        "{dns_names}"
    );
    let served = Served::with_issued_certificate(project, &ns);
    let (operator, ca, port) = (&served.operator, &served.ca, served.port);

    // cert-manager's CA injector: the CA of the Certificate `inject-ca-from` names goes into
    // the caBundle of every webhook of the annotated objects.
    let inject_from = format!(
        "{}/{}",
        certificate["metadata"]["namespace"].as_str().unwrap(),
        certificate["metadata"]["name"].as_str().unwrap()
    );
    let annotated = |doc: &Value| {
        assert_eq!(
            doc["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
            inject_from.as_str(),
            "{}",
            doc["metadata"]
        );
    };
    webhook_configurations(docs).for_each(annotated);
    annotated(document(docs, "CustomResourceDefinition", Some(CRD)));
    let point = |generated: &Value| {
        let path = generated["service"]["path"].as_str().unwrap();
        json!({"url": format!("https://127.0.0.1:{port}{path}"), "caBundle": ca_bundle(ca)})
    };
    let registered = Registered::new(&admin, docs, &ns, &point).await;
    point_conversion(&admin, docs, &point).await;

    webhooks_answer(&admin, &ns, operator).await;
    served.operator.stop();
    registered.remove(&admin).await;
}

#[needs(control_plane, e2e, kubectl)]
#[tokio::test]
async fn self_signed_webhooks_inject_their_ca_and_are_called_by_the_api_server() {
    let project = project().await;
    let docs = &project.self_signed;
    let _turn = CONVERSION.lock().await;
    let admin = cluster().client().await.unwrap();
    let ns = cluster()
        .create_namespace(&admin, "webhooks-ss")
        .await
        .unwrap();

    // The generated client configs, without a caBundle, on the operator's port (an
    // ExternalName Service has no port mapping of its own).
    let port = free_port();
    let point = |generated: &Value| {
        let mut config = generated.clone();
        config["service"]["port"] = json!(port);
        config.as_object_mut().unwrap().remove("caBundle");
        config
    };
    let registered = Registered::new(&admin, docs, &ns, &point).await;
    point_conversion(&admin, docs, &point).await;

    let operator = Operator::start(
        &project.installed,
        &[
            &format!("--namespace={ns}"),
            &format!("--webhook-port={port}"),
            "--webhook-cert-mode=self-signed",
        ],
    );
    // The operator's CA, kept in its Secret, is in every caBundle that calls its Service.
    let secret = Api::<Secret>::namespaced(admin.clone(), &project.installed.system_namespace)
        .get(&format!("{PROJECT}-webhook-server-cert"))
        .await
        .unwrap_or_else(|e| panic!("{e}\noperator log:\n{}", operator.log()));
    let ca = secret.data.unwrap()["ca.crt"].clone();
    let mutating = Api::<MutatingWebhookConfiguration>::all(admin.clone())
        .get(&registered.mutating)
        .await
        .unwrap();
    let validating = Api::<ValidatingWebhookConfiguration>::all(admin.clone())
        .get(&registered.validating)
        .await
        .unwrap();
    let bundles = mutating
        .webhooks
        .iter()
        .flatten()
        .map(|hook| hook.client_config.ca_bundle.clone())
        .chain(
            validating
                .webhooks
                .iter()
                .flatten()
                .map(|hook| hook.client_config.ca_bundle.clone()),
        );
    for bundle in bundles {
        assert_eq!(bundle.as_ref(), Some(&ca), "{}", operator.log());
    }
    let crd = Api::<CustomResourceDefinition>::all(admin.clone())
        .get(CRD)
        .await
        .unwrap();
    let conversion = crd.spec.conversion.and_then(|c| c.webhook).unwrap();
    assert_eq!(
        conversion.client_config.and_then(|c| c.ca_bundle).as_ref(),
        Some(&ca),
        "{}",
        operator.log()
    );

    webhooks_answer(&admin, &ns, &operator).await;
    operator.stop();
    registered.remove(&admin).await;
}

const KINDS_PROJECT: &str = "cluster-webhook-kinds";
const DNS_CRD: &str = "dnsendpoints.externaldns.k8s.io";
const DNS_ENDPOINT: (&str, &str, &str, &str) = (
    "externaldns.k8s.io",
    "v1alpha1",
    "DNSEndpoint",
    "dnsendpoints",
);
/// What the scaffolded defaulting webhook of `Pod` sets.
const POD_LABEL: (&str, &str) = ("app.kubernetes.io/name", "pod");

/// A project with webhooks on kinds it does not define (issue 28): a defaulting webhook on
/// the core kind `Pod` (k8s-openapi's type, no controller) and a validating one on
/// external-dns' `DNSEndpoint` (kopium's type, with its watch controller), the latter's
/// CRD installed as its own project would.
async fn kinds_project() -> &'static Project {
    static KINDS_ONCE: OnceCell<(tempfile::TempDir, Project)> = OnceCell::const_new();
    let (_, project) = KINDS_ONCE
        .get_or_init(|| async {
            let (dir, root) = project_dir(KINDS_PROJECT);
            let crd = crate::webhook_kinds::crd_file();
            scaffold(
                dir.path(),
                &root,
                &[
                    &format!("init --plugins rust --domain hooks.my.domain --repo github.com/example/{KINDS_PROJECT}"),
                    &format!("create api --plugins rust --external-api-crd {}", crd.display()),
                    "create webhook --group core --version v1 --kind Pod --defaulting",
                    "create webhook --group externaldns --version v1alpha1 --kind DNSEndpoint --programmatic-validation",
                ],
            );
            let crd = std::fs::read_to_string(&crd).unwrap();
            kubectl_apply(&json!({"apiVersion": "v1", "kind": "List", "items": documents(&crd)}));
            let project = install(&root, DNS_CRD).await;
            (dir, project)
        })
        .await;
    project
}

/// A Pod the API server accepts, named `name`, labelled with `labels`.
fn pod(name: &str, labels: Value) -> Pod {
    serde_json::from_value(json!({
        "metadata": {"name": name, "labels": labels},
        "spec": {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}]},
    }))
    .unwrap()
}

fn dns_endpoint(name: &str) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": "externaldns.k8s.io/v1alpha1",
        "kind": "DNSEndpoint",
        "metadata": {"name": name},
        "spec": {"endpoints": [{"dnsName": "app.example.com", "recordType": "A", "targets": ["192.0.2.1"]}]},
    }))
    .unwrap()
}

#[needs(control_plane, e2e, kubectl)]
#[tokio::test]
async fn webhooks_on_core_and_external_kinds_are_called_by_the_api_server() {
    let project = kinds_project().await;
    let docs = &project.default;
    let admin = cluster().client().await.unwrap();
    let ns = cluster()
        .create_namespace(&admin, "webhook-kinds")
        .await
        .unwrap();

    // The configurations call the real groups: `""` for Pods, external-dns' for DNSEndpoints.
    let rule = |kind: &str| document(docs, kind, None)["webhooks"][0]["rules"][0].clone();
    assert_eq!(
        rule("MutatingWebhookConfiguration")["apiGroups"],
        json!([""])
    );
    assert_eq!(
        rule("MutatingWebhookConfiguration")["resources"],
        json!(["pods"])
    );
    assert_eq!(
        rule("ValidatingWebhookConfiguration")["apiGroups"],
        json!(["externaldns.k8s.io"])
    );

    let served = Served::with_issued_certificate(project, &ns);
    let (operator, ca, port) = (&served.operator, &served.ca, served.port);
    let point = |generated: &Value| {
        let path = generated["service"]["path"].as_str().unwrap();
        json!({"url": format!("https://127.0.0.1:{port}{path}"), "caBundle": ca_bundle(ca)})
    };
    let registered = Registered::new(&admin, docs, &ns, &point).await;

    let pods = Api::<Pod>::namespaced(admin.clone(), &ns);
    let endpoints = custom(&admin, &ns, DNS_ENDPOINT);
    let long = "e".repeat(64);
    let dry_run = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    let label = |pod: &Pod| pod.labels().get(POD_LABEL.0).cloned();
    poll(
        "the API server calls both webhooks",
        SETTLE,
        Some(operator),
        || async {
            let probe = pods
                .create(&dry_run, &pod("probe", json!({})))
                .await
                .map_err(|e| format!("a dry run of a Pod: {e}"))?;
            if label(&probe).as_deref() != Some(POD_LABEL.1) {
                return Err(format!("not defaulted yet: {:?}", probe.metadata));
            }
            match endpoints.create(&dry_run, &dns_endpoint(&long)).await {
                Err(kube::Error::Api(status)) if status.message.contains(DENIAL) => Ok(()),
                other => Err(format!("a DNSEndpoint named with 64 characters: {other:?}")),
            }
        },
    )
    .await;

    // Defaulting on the core kind: the Pod is stored with the label; one that sets it keeps
    // its own value.
    let created = PostParams::default();
    pods.create(&created, &pod("defaulted", json!({})))
        .await
        .unwrap();
    let stored = pods.get("defaulted").await.unwrap();
    assert_eq!(
        label(&stored).as_deref(),
        Some(POD_LABEL.1),
        "{:?}",
        stored.metadata
    );
    pods.create(&created, &pod("labelled", json!({POD_LABEL.0: "mine"})))
        .await
        .unwrap();
    let stored = pods.get("labelled").await.unwrap();
    assert_eq!(label(&stored).as_deref(), Some("mine"));

    // Validation on the external kind: refused as invalid with the generated message and
    // nothing stored; a valid one is created.
    match endpoints.create(&created, &dns_endpoint(&long)).await {
        Err(kube::Error::Api(status)) => {
            assert!(status.message.contains(DENIAL), "{status:?}");
            assert_eq!(status.code, 422, "{status:?}");
        }
        other => panic!("not the API server's refusal: {other:?}"),
    }
    assert!(endpoints.get_opt(&long).await.unwrap().is_none());
    endpoints
        .create(&created, &dns_endpoint("valid"))
        .await
        .unwrap_or_else(|e| panic!("{e}\noperator log:\n{}", operator.log()));

    served.operator.stop();
    registered.remove(&admin).await;
}
