//! Release history kept as Helm 4 keeps it (pkg/storage and pkg/storage/driver): one
//! Secret (or `ConfigMap`, when `HELM_DRIVER` selects that driver) per revision, named
//! `sh.helm.release.v1.<name>.v<version>`, labelled `name`, `owner=helm`, `status`,
//! `version` (plus `createdAt` or `modifiedAt` and the release's own labels), holding the
//! encoded record under `release`. The `helm` CLI and this engine read and write the same
//! objects, so either can take the next turn on a release.
use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{Api, DeleteParams, ListParams, ObjectMeta, PostParams};

use super::record::{RecordError, ReleaseRecord, storage_key};

/// The Secret type Helm gives its release Secrets.
const SECRET_TYPE: &str = "helm.sh/release.v1";
/// Labels the drivers set themselves; a release's own labels never include them.
const SYSTEM_LABELS: [&str; 6] = [
    "name",
    "owner",
    "status",
    "version",
    "createdAt",
    "modifiedAt",
];

/// Why release storage failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StorageError {
    #[error(
        "HELM_DRIVER={0:?} is not a storage driver this engine supports: use secret (the default) or configmap"
    )]
    UnknownDriver(String),
    #[error("release {name} revision {version} already exists in namespace {namespace}")]
    AlreadyExists {
        namespace: String,
        name: String,
        version: u32,
    },
    #[error("release {name} revision {version} does not exist in namespace {namespace}")]
    NotFound {
        namespace: String,
        name: String,
        version: u32,
    },
    #[error("{driver} {object} in namespace {namespace}: {source}")]
    Record {
        driver: Driver,
        namespace: String,
        object: String,
        #[source]
        source: RecordError,
    },
    #[error("cannot {action} {driver}s of release {name} in namespace {namespace}: {source}")]
    Api {
        action: &'static str,
        driver: Driver,
        namespace: String,
        name: String,
        #[source]
        source: Box<kube::Error>,
    },
}

/// Where release records live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Driver {
    Secrets,
    ConfigMaps,
}

impl Driver {
    /// The driver `HELM_DRIVER` selects, as Helm chooses it: unset, empty, `secret` or
    /// `secrets` for Secrets, `configmap` or `configmaps` for `ConfigMaps`. Helm's memory
    /// and SQL drivers keep nothing a cluster can share, so they are refused by name.
    pub fn from_env() -> Result<Driver, StorageError> {
        Driver::parse(std::env::var("HELM_DRIVER").as_deref().unwrap_or(""))
    }

    pub fn parse(value: &str) -> Result<Driver, StorageError> {
        match value {
            "" | "secret" | "secrets" => Ok(Driver::Secrets),
            "configmap" | "configmaps" => Ok(Driver::ConfigMaps),
            other => Err(StorageError::UnknownDriver(other.to_string())),
        }
    }
}

impl std::fmt::Display for Driver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Driver::Secrets => "Secret",
            Driver::ConfigMaps => "ConfigMap",
        })
    }
}

/// Release records of one cluster, through one driver.
#[derive(Clone)]
pub(crate) struct Storage {
    client: kube::Client,
    driver: Driver,
}

/// A storage object as read: its name, labels and the encoded record.
struct Stored {
    object: String,
    labels: BTreeMap<String, String>,
    release: Option<Vec<u8>>,
}

impl Stored {
    /// The revision its `version` label names (0 when missing: decoded last).
    fn version(&self) -> u32 {
        self.labels
            .get("version")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }
}

impl Storage {
    pub fn new(client: kube::Client, driver: Driver) -> Storage {
        Storage { client, driver }
    }

    /// Every revision of the release, oldest first. Objects whose record cannot be
    /// decoded are skipped, as Helm's drivers skip them.
    pub async fn history(&self, ns: &str, name: &str) -> Result<Vec<ReleaseRecord>, StorageError> {
        let stored = self
            .list(ns, name, &format!("name={name},owner=helm"))
            .await?;
        Ok(self.decode_all(ns, stored))
    }

    /// One revision, `None` when it does not exist.
    pub async fn get(
        &self,
        ns: &str,
        name: &str,
        version: u32,
    ) -> Result<Option<ReleaseRecord>, StorageError> {
        let key = storage_key(name, version);
        let api_error = |source| self.api_error("read", ns, name, source);
        let stored = match self.driver {
            Driver::Secrets => Api::<Secret>::namespaced(self.client.clone(), ns)
                .get_opt(&key)
                .await
                .map_err(api_error)?
                .map(from_secret),
            Driver::ConfigMaps => Api::<ConfigMap>::namespaced(self.client.clone(), ns)
                .get_opt(&key)
                .await
                .map_err(api_error)?
                .map(from_config_map),
        };
        stored.map(|s| self.decode(ns, s)).transpose()
    }

    /// The highest revision, whatever its status (Helm's `Last`).
    pub async fn latest(
        &self,
        ns: &str,
        name: &str,
    ) -> Result<Option<ReleaseRecord>, StorageError> {
        let stored = self
            .list(ns, name, &format!("name={name},owner=helm"))
            .await?;
        Ok(self.decode_newest(ns, stored))
    }

    /// The highest revision with status `deployed` (Helm's `Deployed`).
    pub async fn deployed(
        &self,
        ns: &str,
        name: &str,
    ) -> Result<Option<ReleaseRecord>, StorageError> {
        let selector = format!("name={name},owner=helm,status=deployed");
        let stored = self.list(ns, name, &selector).await?;
        Ok(self.decode_newest(ns, stored))
    }

    /// Store a new revision; one that exists already is [`StorageError::AlreadyExists`].
    pub async fn create(&self, record: &ReleaseRecord) -> Result<(), StorageError> {
        let (ns, name) = (record.namespace.as_str(), record.name.as_str());
        let params = PostParams::default();
        let result = match self.driver {
            Driver::Secrets => Api::<Secret>::namespaced(self.client.clone(), ns)
                .create(&params, &self.secret(record, "createdAt")?)
                .await
                .map(drop),
            Driver::ConfigMaps => Api::<ConfigMap>::namespaced(self.client.clone(), ns)
                .create(&params, &self.config_map(record, "createdAt")?)
                .await
                .map(drop),
        };
        match result {
            Err(kube::Error::Api(status)) if status.is_already_exists() => {
                Err(StorageError::AlreadyExists {
                    namespace: ns.to_string(),
                    name: name.to_string(),
                    version: record.version,
                })
            }
            other => other.map_err(|source| self.api_error("create", ns, name, source)),
        }
    }

    /// Replace a stored revision (a status change, a new description); one that does
    /// not exist is [`StorageError::NotFound`]. Like Helm, the write is unconditional.
    pub async fn update(&self, record: &ReleaseRecord) -> Result<(), StorageError> {
        let (ns, name) = (record.namespace.as_str(), record.name.as_str());
        let key = record.storage_key();
        let params = PostParams::default();
        let result = match self.driver {
            Driver::Secrets => Api::<Secret>::namespaced(self.client.clone(), ns)
                .replace(&key, &params, &self.secret(record, "modifiedAt")?)
                .await
                .map(drop),
            Driver::ConfigMaps => Api::<ConfigMap>::namespaced(self.client.clone(), ns)
                .replace(&key, &params, &self.config_map(record, "modifiedAt")?)
                .await
                .map(drop),
        };
        match result {
            Err(kube::Error::Api(status)) if status.is_not_found() => Err(StorageError::NotFound {
                namespace: ns.to_string(),
                name: name.to_string(),
                version: record.version,
            }),
            other => other.map_err(|source| self.api_error("update", ns, name, source)),
        }
    }

    /// Remove one revision; `false` when it was not there.
    pub async fn delete(&self, ns: &str, name: &str, version: u32) -> Result<bool, StorageError> {
        let key = storage_key(name, version);
        let params = DeleteParams::default();
        let result = match self.driver {
            Driver::Secrets => Api::<Secret>::namespaced(self.client.clone(), ns)
                .delete(&key, &params)
                .await
                .map(drop),
            Driver::ConfigMaps => Api::<ConfigMap>::namespaced(self.client.clone(), ns)
                .delete(&key, &params)
                .await
                .map(drop),
        };
        match result {
            Ok(()) => Ok(true),
            Err(kube::Error::Api(status)) if status.is_not_found() => Ok(false),
            Err(source) => Err(self.api_error("delete", ns, name, source)),
        }
    }

    /// Delete the oldest revisions until at most `keep` remain, never the last deployed
    /// one (Helm's `removeLeastRecent`). Helm's `--history-max N` runs this with
    /// `keep = N - 1` before it stores a new revision; `N = 0` means no limit, and so does
    /// not call it. Returns the revisions deleted.
    pub async fn prune(&self, ns: &str, name: &str, keep: usize) -> Result<Vec<u32>, StorageError> {
        let history = self.history(ns, name).await?;
        if history.len() <= keep {
            return Ok(Vec::new());
        }
        let last_deployed = history
            .iter()
            .rev()
            .find(|r| r.status() == "deployed")
            .map(|r| r.version);
        let excess = history.len() - keep;
        let doomed: Vec<u32> = history
            .iter()
            .map(|r| r.version)
            .filter(|v| Some(*v) != last_deployed)
            .take(excess)
            .collect();
        for version in &doomed {
            self.delete(ns, name, *version).await?;
        }
        Ok(doomed)
    }

    async fn list(
        &self,
        ns: &str,
        name: &str,
        selector: &str,
    ) -> Result<Vec<Stored>, StorageError> {
        let params = ListParams::default().labels(selector);
        let api_error = |source| self.api_error("list", ns, name, source);
        let stored: Vec<Stored> = match self.driver {
            Driver::Secrets => Api::<Secret>::namespaced(self.client.clone(), ns)
                .list(&params)
                .await
                .map_err(api_error)?
                .items
                .into_iter()
                .map(from_secret)
                .collect(),
            Driver::ConfigMaps => Api::<ConfigMap>::namespaced(self.client.clone(), ns)
                .list(&params)
                .await
                .map_err(api_error)?
                .items
                .into_iter()
                .map(from_config_map)
                .collect(),
        };
        Ok(stored)
    }

    /// The newest record that decodes, decoding only as many as needed: a reconcile reads
    /// the latest revision every period, and each record holds a whole chart.
    fn decode_newest(&self, ns: &str, mut stored: Vec<Stored>) -> Option<ReleaseRecord> {
        stored.sort_by_key(Stored::version);
        while let Some(newest) = stored.pop() {
            match self.decode(ns, newest) {
                Ok(record) => return Some(record),
                Err(error) => {
                    tracing::debug!(%error, "skipping a release record that does not decode");
                }
            }
        }
        None
    }

    fn decode_all(&self, ns: &str, stored: Vec<Stored>) -> Vec<ReleaseRecord> {
        let mut records: Vec<ReleaseRecord> = stored
            .into_iter()
            .filter_map(|s| match self.decode(ns, s) {
                Ok(record) => Some(record),
                Err(error) => {
                    tracing::debug!(%error, "skipping a release record that does not decode");
                    None
                }
            })
            .collect();
        records.sort_by_key(|r| r.version);
        records
    }

    fn decode(&self, ns: &str, stored: Stored) -> Result<ReleaseRecord, StorageError> {
        let error = |source| StorageError::Record {
            driver: self.driver,
            namespace: ns.to_string(),
            object: stored.object.clone(),
            source,
        };
        let data = stored
            .release
            .as_deref()
            .ok_or_else(|| error(RecordError::Stored("it has no `release` key".into())))?;
        let mut record = ReleaseRecord::decode(data).map_err(error)?;
        record.labels = stored
            .labels
            .into_iter()
            .filter(|(k, _)| !SYSTEM_LABELS.contains(&k.as_str()))
            .collect();
        Ok(record)
    }

    /// The object's metadata and encoded record; `stamp` is `createdAt` or `modifiedAt`.
    fn encoded(
        &self,
        record: &ReleaseRecord,
        stamp: &str,
    ) -> Result<(ObjectMeta, String), StorageError> {
        let encoded = record.encode().map_err(|source| StorageError::Record {
            driver: self.driver,
            namespace: record.namespace.clone(),
            object: record.storage_key(),
            source,
        })?;
        let mut labels = record.labels.clone();
        labels.insert(stamp.to_string(), unix_now());
        labels.insert("name".into(), record.name.clone());
        labels.insert("owner".into(), "helm".into());
        labels.insert("status".into(), record.status().to_string());
        labels.insert("version".into(), record.version.to_string());
        let metadata = ObjectMeta {
            name: Some(record.storage_key()),
            namespace: Some(record.namespace.clone()),
            labels: Some(labels),
            ..ObjectMeta::default()
        };
        Ok((metadata, encoded))
    }

    fn secret(&self, record: &ReleaseRecord, stamp: &str) -> Result<Secret, StorageError> {
        let (metadata, encoded) = self.encoded(record, stamp)?;
        Ok(Secret {
            metadata,
            type_: Some(SECRET_TYPE.into()),
            data: Some(BTreeMap::from([(
                "release".to_string(),
                ByteString(encoded.into_bytes()),
            )])),
            ..Secret::default()
        })
    }

    fn config_map(&self, record: &ReleaseRecord, stamp: &str) -> Result<ConfigMap, StorageError> {
        let (metadata, encoded) = self.encoded(record, stamp)?;
        Ok(ConfigMap {
            metadata,
            data: Some(BTreeMap::from([("release".to_string(), encoded)])),
            ..ConfigMap::default()
        })
    }

    fn api_error(
        &self,
        action: &'static str,
        ns: &str,
        name: &str,
        source: kube::Error,
    ) -> StorageError {
        StorageError::Api {
            action,
            driver: self.driver,
            namespace: ns.to_string(),
            name: name.to_string(),
            source: Box::new(source),
        }
    }
}

fn from_secret(secret: Secret) -> Stored {
    Stored {
        object: secret.metadata.name.unwrap_or_default(),
        labels: secret.metadata.labels.unwrap_or_default(),
        release: secret
            .data
            .and_then(|mut d| d.remove("release"))
            .map(|b| b.0),
    }
}

fn from_config_map(config_map: ConfigMap) -> Stored {
    Stored {
        object: config_map.metadata.name.unwrap_or_default(),
        labels: config_map.metadata.labels.unwrap_or_default(),
        release: config_map
            .data
            .and_then(|mut d| d.remove("release"))
            .map(String::into_bytes),
    }
}

/// Seconds since the epoch, as Helm writes `createdAt` and `modifiedAt`.
fn unix_now() -> String {
    time::OffsetDateTime::now_utc().unix_timestamp().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helm_driver_is_chosen_as_helm_chooses_it() {
        for value in ["", "secret", "secrets"] {
            assert_eq!(Driver::parse(value).unwrap(), Driver::Secrets, "{value:?}");
        }
        for value in ["configmap", "configmaps"] {
            assert_eq!(
                Driver::parse(value).unwrap(),
                Driver::ConfigMaps,
                "{value:?}"
            );
        }
        let error = Driver::parse("sql").unwrap_err().to_string();
        assert!(error.contains("HELM_DRIVER=\"sql\""), "{error}");
    }
}

/// The storage as the cluster suite (tests/it/cluster/helm_storage.rs) drives it against
/// the real `helm` CLI: records as JSON values, so the suite needs none of the engine's
/// types. Not an API.
#[doc(hidden)]
pub mod testing {
    use serde_json::Value;

    use super::{Driver, Storage};
    use crate::helm::engine::record::ReleaseRecord;

    pub struct Records(Storage);

    impl Records {
        /// Storage through the driver `helm_driver` names (as `HELM_DRIVER` would).
        pub fn new(client: kube::Client, helm_driver: &str) -> Result<Records, String> {
            Driver::parse(helm_driver)
                .map(|driver| Records(Storage::new(client, driver)))
                .map_err(|e| e.to_string())
        }

        /// Every revision, oldest first, as this engine re-encodes it.
        pub async fn history_json(&self, ns: &str, name: &str) -> Result<Vec<String>, String> {
            let history = self.0.history(ns, name).await.map_err(|e| e.to_string())?;
            history
                .iter()
                .map(|r| r.to_json().map_err(|e| e.to_string()))
                .collect()
        }

        /// One revision as JSON, with its own labels under `"labels"`.
        pub async fn get(
            &self,
            ns: &str,
            name: &str,
            version: u32,
        ) -> Result<Option<Value>, String> {
            let record = self
                .0
                .get(ns, name, version)
                .await
                .map_err(|e| e.to_string())?;
            record.map(|r| to_value(&r)).transpose()
        }

        /// `(latest, last deployed)` revision numbers.
        pub async fn latest_and_deployed(
            &self,
            ns: &str,
            name: &str,
        ) -> Result<(Option<u32>, Option<u32>), String> {
            let latest = self.0.latest(ns, name).await.map_err(|e| e.to_string())?;
            let deployed = self.0.deployed(ns, name).await.map_err(|e| e.to_string())?;
            Ok((latest.map(|r| r.version), deployed.map(|r| r.version)))
        }

        /// Store a new revision given as JSON (labels under `"labels"`).
        pub async fn create(&self, record: Value) -> Result<(), String> {
            self.0
                .create(&from_value(record)?)
                .await
                .map_err(|e| e.to_string())
        }

        /// Replace a stored revision given as JSON (labels under `"labels"`).
        pub async fn update(&self, record: Value) -> Result<(), String> {
            self.0
                .update(&from_value(record)?)
                .await
                .map_err(|e| e.to_string())
        }

        pub async fn prune(&self, ns: &str, name: &str, keep: usize) -> Result<Vec<u32>, String> {
            self.0
                .prune(ns, name, keep)
                .await
                .map_err(|e| e.to_string())
        }
    }

    fn to_value(record: &ReleaseRecord) -> Result<Value, String> {
        let json = record.to_json().map_err(|e| e.to_string())?;
        let mut value: Value = serde_json::from_str(&json).map_err(|e| e.to_string())?;
        value["labels"] = serde_json::to_value(&record.labels).map_err(|e| e.to_string())?;
        Ok(value)
    }

    fn from_value(mut value: Value) -> Result<ReleaseRecord, String> {
        let labels = value
            .as_object_mut()
            .and_then(|o| o.remove("labels"))
            .unwrap_or_default();
        let mut record: ReleaseRecord = serde_json::from_value(value).map_err(|e| e.to_string())?;
        if !labels.is_null() {
            record.labels = serde_json::from_value(labels).map_err(|e| e.to_string())?;
        }
        Ok(record)
    }
}
