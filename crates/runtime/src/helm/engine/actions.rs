//! Install, upgrade, rollback and uninstall, in the order of steps Helm 4.2's actions take
//! (pkg/action): the release record is written `pending-*` before any object changes and
//! settled after, hooks run around the object changes, objects the new revision drops are
//! deleted last (unless `helm.sh/resource-policy: keep`), and a failure is recorded as
//! `failed` with Helm's wording.
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use rusty_sdk_chart::{Chart, RenderOptions};
use serde_json::{Map, Value};

use super::apply::{Applier, ApplyMethod, ownership_problem, set_release_metadata};
use super::cluster::Cluster;
use super::hooks::{self, Event};
use super::record::{ChartRecord, GoTime, Info, ReleaseRecord};
use super::record::{HookExecution, HookRecord};
use super::sort::{self, HookSpec, SortOptions, SortedRender};
use super::storage::Storage;
use super::wait;
use super::{ClusterObject, EngineError};

/// How long Helm waits for hooks (and resources, when asked) unless told otherwise.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
/// How many objects are read at once when checking which exist.
const PARALLEL_READS: usize = 8;
/// Helm's wait for CRDs from `crds/` to be established.
const CRD_WAIT: Duration = Duration::from_secs(60);

/// What Helm waits for after changing objects (`--wait`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitStrategy {
    /// Only hooks (Helm 4's default, and the Go helm-operator's behaviour).
    HookOnly,
    /// Every object of the release until it is ready (`--wait=watcher`).
    Watcher,
}

/// What every action needs: the cluster, the release storage and the loaded charts.
pub(crate) struct Context {
    pub client: kube::Client,
    pub storage: Storage,
    pub cluster: Arc<Cluster>,
    pub timeout: Duration,
    pub wait: WaitStrategy,
    /// Take over fields other managers own (the operator's spec is the truth).
    pub force_conflicts: bool,
    charts: Mutex<HashMap<PathBuf, Arc<LoadedChart>>>,
}

/// A chart loaded once per path, with the record Helm stores for it.
pub(crate) struct LoadedChart {
    pub chart: Arc<Chart>,
    pub record: ChartRecord,
}

/// Options of one install or upgrade.
#[derive(Clone, Debug, Default)]
pub(crate) struct ChangeOptions {
    pub disable_hooks: bool,
    pub description: Option<String>,
    pub force: bool,
    pub max_history: Option<u32>,
    pub dry_run: bool,
    /// The release's own labels (upgrades merge them over the previous revision's).
    pub labels: std::collections::BTreeMap<String, String>,
}

impl Context {
    pub fn new(client: kube::Client, storage: Storage, cluster: Arc<Cluster>) -> Self {
        Context {
            client,
            storage,
            cluster,
            timeout: DEFAULT_TIMEOUT,
            wait: WaitStrategy::HookOnly,
            force_conflicts: true,
            charts: Mutex::new(HashMap::new()),
        }
    }

    pub fn applier(&self, method: ApplyMethod, force_replace: bool) -> Applier<'_> {
        Applier {
            client: &self.client,
            method,
            force_conflicts: self.force_conflicts,
            force_replace,
        }
    }

    /// Hooks are created as Helm 4 creates them: by server-side apply.
    #[expect(
        clippy::unused_self,
        reason = "asked of the context, as the other steps' methods are"
    )]
    pub fn method_for_hooks(&self) -> ApplyMethod {
        ApplyMethod::ServerSide
    }

    pub fn chart(&self, path: &Path) -> Result<Arc<LoadedChart>, EngineError> {
        let mut charts = self
            .charts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(loaded) = charts.get(path) {
            return Ok(loaded.clone());
        }
        let chart = Chart::load(path).map_err(|e| EngineError::Chart {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        let record = ChartRecord::from_chart(&chart).map_err(|e| EngineError::Chart {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        let loaded = Arc::new(LoadedChart {
            chart: Arc::new(chart),
            record,
        });
        charts.insert(path.to_path_buf(), loaded.clone());
        Ok(loaded)
    }

    /// The objects of a manifest, resolved against the cluster, in manifest order.
    pub async fn objects_of(
        &self,
        manifest: &str,
        namespace: &str,
    ) -> Result<Vec<ClusterObject>, EngineError> {
        let parsed =
            sort::manifest_objects(manifest).map_err(|e| EngineError::Manifest(e.to_string()))?;
        let mut out = Vec::with_capacity(parsed.len());
        for object in parsed {
            out.push(self.cluster.resolve(object, namespace).await?);
        }
        Ok(out)
    }

    /// Render `chart` for a release with the cluster's Capabilities and `lookup`.
    async fn render(
        &self,
        chart: &LoadedChart,
        values: &Value,
        name: &str,
        namespace: &str,
        revision: u32,
        is_upgrade: bool,
    ) -> Result<SortedRender, EngineError> {
        let options = RenderOptions {
            release_name: name.to_string(),
            namespace: namespace.to_string(),
            revision: i64::from(revision),
            is_install: !is_upgrade,
            is_upgrade,
            capabilities: self.cluster.capabilities().await?,
            ..RenderOptions::default()
        };
        let rendered = self
            .cluster
            .render(chart.chart.clone(), values.clone(), options)
            .await?;
        sort::sort_render(&chart.chart, &rendered, &SortOptions::default())
            .map_err(|e| EngineError::Render(e.to_string()))
    }

    /// Create the CRDs of `crds/` that do not exist yet, never changing existing ones
    /// (Helm's `installCRDs`).
    async fn install_crds(&self, chart: &LoadedChart, values: &Value) -> Result<(), EngineError> {
        let files = sort::crd_files(&chart.chart, values)
            .map_err(|e| EngineError::Render(e.to_string()))?;
        let applier = self.applier(ApplyMethod::ServerSide, false);
        let mut created = Vec::new();
        for object in files.into_iter().flat_map(|file| file.objects) {
            let object = self.cluster.resolve(object, "").await?;
            if applier.get(&object).await?.is_none() {
                applier.create(&object).await?;
                created.push(object);
            }
        }
        if !created.is_empty() {
            wait::wait_ready(&self.client, &created, CRD_WAIT).await?;
            self.cluster.invalidate();
        }
        Ok(())
    }

    /// The objects to write for `manifest`, labelled and annotated as the release's.
    async fn targets(
        &self,
        manifest: &str,
        name: &str,
        namespace: &str,
    ) -> Result<Vec<ClusterObject>, EngineError> {
        let mut objects = self.objects_of(manifest, namespace).await?;
        for object in &mut objects {
            set_release_metadata(&mut object.body, name, namespace);
        }
        Ok(objects)
    }

    /// Objects that exist already and may be adopted (Helm's `existingResourceConflict`).
    async fn check_adoption(
        &self,
        objects: &[&ClusterObject],
        name: &str,
        namespace: &str,
    ) -> Result<usize, EngineError> {
        let applier = self.applier(ApplyMethod::ServerSide, false);
        // Read a few at a time (a release may hold hundreds of objects), errors in order.
        let mut lives = Vec::with_capacity(objects.len());
        for chunk in objects.chunks(PARALLEL_READS) {
            let mut reads = futures::stream::FuturesOrdered::new();
            for object in chunk {
                reads.push_back(applier.get(object));
            }
            while let Some(live) = reads.next().await {
                lives.push(live);
            }
        }
        let mut existing = 0;
        for (object, live) in objects.iter().zip(lives) {
            let Some(live) = live? else { continue };
            existing += 1;
            if let Some(reason) = ownership_problem(&live, name, namespace) {
                return Err(super::apply::ApplyError::Ownership {
                    object: super::apply::describe(object),
                    reason,
                }
                .into());
            }
        }
        Ok(existing)
    }

    /// Write every target (create or update), then delete what `current` had and the
    /// targets do not, unless kept. Returns the objects created.
    async fn update_objects(
        &self,
        current: &[ClusterObject],
        targets: &[ClusterObject],
        method: ApplyMethod,
        force_replace: bool,
        upgrade_client_side_manager: bool,
    ) -> Result<(), EngineError> {
        let applier = self.applier(method, force_replace);
        let originals: HashMap<ObjectKey, &ClusterObject> =
            current.iter().map(|o| (key(o), o)).collect();
        let mut errors = Vec::new();
        // A server-side apply creates or updates alike: no read first, unless a client-side
        // manager's fields must be handed over or the object replaced.
        let read_first =
            method == ApplyMethod::ClientSide || force_replace || upgrade_client_side_manager;
        for target in targets {
            if !read_first {
                if let Err(e) = applier.create(target).await {
                    errors.push(e.to_string());
                }
                continue;
            }
            match applier.get(target).await? {
                None => applier.create(target).await?,
                Some(live) => {
                    let original = originals.get(&key(target)).map(|o| &o.body);
                    if let Err(e) = applier
                        .update(original, &live, target, upgrade_client_side_manager)
                        .await
                    {
                        errors.push(e.to_string());
                    }
                }
            }
        }
        if !errors.is_empty() {
            return Err(EngineError::Update(errors.join(" && ")));
        }
        let wanted: HashSet<ObjectKey> = targets.iter().map(key).collect();
        for gone in current.iter().filter(|o| !wanted.contains(&key(o))) {
            let Some(live) = applier.get(gone).await? else {
                continue;
            };
            if kept(&live) {
                continue;
            }
            if let Err(e) = applier.delete(gone).await {
                errors.push(e.to_string());
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(EngineError::Update(errors.join(" && ")))
        }
    }

    /// Store a new revision, first pruning the history to make room for it as Helm's
    /// `Storage.Create` does (the last deployed revision is always kept).
    async fn create_revision(
        &self,
        record: &ReleaseRecord,
        max_history: Option<u32>,
    ) -> Result<(), EngineError> {
        if let Some(max) = max_history.filter(|max| *max > 0) {
            let keep = usize::try_from(max - 1).unwrap_or(usize::MAX);
            self.storage
                .prune(&record.namespace, &record.name, keep)
                .await?;
        }
        Ok(self.storage.create(record).await?)
    }

    async fn wait_for(&self, objects: &[ClusterObject]) -> Result<(), EngineError> {
        match self.wait {
            WaitStrategy::HookOnly => Ok(()),
            WaitStrategy::Watcher => {
                Ok(wait::wait_ready(&self.client, objects, self.timeout).await?)
            }
        }
    }

    /// Record how an install or upgrade ended: `deployed` with the given (or the usual)
    /// description, or `failed` in Helm's words, and the operation's error is what returns
    /// even when recording the failure fails too.
    async fn settle(
        &self,
        record: &mut ReleaseRecord,
        outcome: Result<(), EngineError>,
        options: &ChangeOptions,
        done: &str,
        failure: impl FnOnce(&EngineError) -> String,
    ) -> Result<(), EngineError> {
        match outcome {
            Ok(()) => {
                let description = options.description.as_deref().unwrap_or(done);
                record.set_status("deployed", description);
                Ok(self.storage.update(record).await?)
            }
            Err(error) => {
                record.set_status("failed", &failure(&error));
                if let Err(e) = self.storage.update(record).await {
                    tracing::warn!(release = %record.name, error = %e, "cannot record the failure");
                }
                Err(error)
            }
        }
    }

    // ----- install -----

    pub async fn install(
        &self,
        name: &str,
        namespace: &str,
        chart_path: &Path,
        values: &Value,
        options: &ChangeOptions,
    ) -> Result<ReleaseRecord, EngineError> {
        let history = self.storage.history(namespace, name).await?;
        if let Some(last) = history.last()
            && !matches!(last.status(), "uninstalled" | "failed")
        {
            return Err(EngineError::NameInUse(name.to_string()));
        }
        let chart = self.chart(chart_path)?;
        // CRDs first, so the render's Capabilities list their APIs.
        if !options.dry_run {
            self.install_crds(&chart, values).await?;
        }
        let render = self
            .render(&chart, values, name, namespace, 1, false)
            .await?;
        let now = GoTime::now();
        let version = history.last().map_or(1, |r| r.version + 1);
        let mut record = ReleaseRecord {
            name: name.to_string(),
            namespace: namespace.to_string(),
            info: Some(Info {
                first_deployed: now,
                last_deployed: now,
                status: "pending-install".into(),
                description: "Initial install underway".into(),
                notes: render.notes.clone(),
                ..Info::default()
            }),
            chart: Some(chart.record.with_dependencies(&chart.chart, values)),
            config: object_of(values),
            manifest: render.manifest.clone(),
            hooks: render.hooks.iter().map(hook_record).collect(),
            version,
            labels: options.labels.clone(),
            apply_method: ApplyMethod::ServerSide.as_record().into(),
        };
        let targets = self.targets(&record.manifest, name, namespace).await?;
        let adopted = self
            .check_adoption(&targets.iter().collect::<Vec<_>>(), name, namespace)
            .await?;
        if options.dry_run {
            record.set_status("pending-install", "Dry run complete");
            return Ok(record);
        }
        // Earlier uninstalled or failed revisions of the name are replaced.
        for old in &history {
            self.storage.delete(namespace, name, old.version).await?;
        }
        self.create_revision(&record, options.max_history).await?;
        let outcome = self
            .perform_install(&mut record, &targets, adopted > 0, options)
            .await;
        let failure = |error: &EngineError| format!("Release {name:?} failed: {error}");
        self.settle(&mut record, outcome, options, "Install complete", failure)
            .await?;
        Ok(record)
    }

    async fn perform_install(
        &self,
        record: &mut ReleaseRecord,
        targets: &[ClusterObject],
        adopting: bool,
        options: &ChangeOptions,
    ) -> Result<(), EngineError> {
        if !options.disable_hooks {
            hooks::run(self, record, Event::PreInstall, self.timeout)
                .await
                .map_err(|e| EngineError::Phase("failed pre-install", Box::new(e)))?;
        }
        self.update_objects(&[], targets, ApplyMethod::ServerSide, false, adopting)
            .await?;
        self.wait_for(targets).await?;
        if !options.disable_hooks {
            hooks::run(self, record, Event::PostInstall, self.timeout)
                .await
                .map_err(|e| EngineError::Phase("failed post-install", Box::new(e)))?;
        }
        Ok(())
    }

    // ----- upgrade -----

    pub async fn upgrade(
        &self,
        name: &str,
        namespace: &str,
        chart_path: &Path,
        values: &Value,
        options: &ChangeOptions,
    ) -> Result<ReleaseRecord, EngineError> {
        let history = self.storage.history(namespace, name).await?;
        let (last, current) = upgrade_base(name, &history)?;
        let chart = self.chart(chart_path)?;
        let revision = last.version + 1;
        let render = self
            .render(&chart, values, name, namespace, revision, true)
            .await?;
        // Helm's `--server-side=auto`: the method the last revision used.
        let method = ApplyMethod::from_record(Some(last.apply_method.as_str()));
        let first_deployed = current.first_deployed();
        let mut upgraded = ReleaseRecord {
            name: name.to_string(),
            namespace: namespace.to_string(),
            info: Some(Info {
                first_deployed,
                last_deployed: GoTime::now(),
                status: "pending-upgrade".into(),
                description: "Preparing upgrade".into(),
                notes: render.notes.clone(),
                ..Info::default()
            }),
            chart: Some(chart.record.with_dependencies(&chart.chart, values)),
            config: object_of(values),
            manifest: render.manifest.clone(),
            hooks: render.hooks.iter().map(hook_record).collect(),
            version: revision,
            labels: {
                let mut labels = last.labels.clone();
                labels.extend(options.labels.clone());
                labels
            },
            apply_method: method.as_record().into(),
        };
        if options.dry_run {
            let description = options.description.as_deref().unwrap_or("Dry run complete");
            upgraded.set_status("pending-upgrade", description);
            return Ok(upgraded);
        }
        let originals = self.objects_of(&current.manifest, namespace).await?;
        let targets = self.targets(&upgraded.manifest, name, namespace).await?;
        let existing: HashSet<ObjectKey> = originals.iter().map(key).collect();
        let new: Vec<&ClusterObject> = targets
            .iter()
            .filter(|o| !existing.contains(&key(o)))
            .collect();
        self.check_adoption(&new, name, namespace).await?;
        self.create_revision(&upgraded, options.max_history).await?;
        let outcome = self
            .apply_upgrade(&mut upgraded, &originals, &targets, method, options)
            .await;
        if outcome.is_ok() {
            let mut superseded = current.clone();
            superseded.set_status_only("superseded");
            self.storage.update(&superseded).await?;
        }
        let failure = |error: &EngineError| format!("Upgrade {name:?} failed: {error}");
        self.settle(&mut upgraded, outcome, options, "Upgrade complete", failure)
            .await?;
        Ok(upgraded)
    }

    /// An upgrade's changes to the cluster once its revision is recorded: the pre-upgrade
    /// hooks, the objects updated from `originals` to `targets`, the wait, the post-upgrade
    /// hooks.
    async fn apply_upgrade(
        &self,
        upgraded: &mut ReleaseRecord,
        originals: &[ClusterObject],
        targets: &[ClusterObject],
        method: ApplyMethod,
        options: &ChangeOptions,
    ) -> Result<(), EngineError> {
        let force_replace = options.force && method == ApplyMethod::ClientSide;
        if !options.disable_hooks {
            hooks::run(self, upgraded, Event::PreUpgrade, self.timeout)
                .await
                .map_err(|e| EngineError::Phase("pre-upgrade hooks failed", Box::new(e)))?;
        }
        self.update_objects(originals, targets, method, force_replace, false)
            .await?;
        self.wait_for(targets).await?;
        if !options.disable_hooks {
            hooks::run(self, upgraded, Event::PostUpgrade, self.timeout)
                .await
                .map_err(|e| EngineError::Phase("post-upgrade hooks failed", Box::new(e)))?;
        }
        Ok(())
    }

    // ----- rollback -----

    pub async fn rollback(
        &self,
        name: &str,
        namespace: &str,
        to: Option<u32>,
        options: &ChangeOptions,
    ) -> Result<ReleaseRecord, EngineError> {
        let history = self.storage.history(namespace, name).await?;
        let Some(current) = history.last().cloned() else {
            return Err(EngineError::NotFound(name.to_string()));
        };
        let wanted = to.unwrap_or(current.version.saturating_sub(1));
        let Some(previous) = history.iter().find(|r| r.version == wanted).cloned() else {
            return Err(EngineError::NoRevision(wanted));
        };
        let method = ApplyMethod::from_record(Some(previous.apply_method.as_str()));
        let first_deployed = current.first_deployed();
        let mut target = ReleaseRecord {
            name: name.to_string(),
            namespace: namespace.to_string(),
            info: Some(Info {
                first_deployed,
                last_deployed: GoTime::now(),
                status: "pending-rollback".into(),
                notes: previous
                    .info
                    .as_ref()
                    .map(|i| i.notes.clone())
                    .unwrap_or_default(),
                description: format!("Rollback to {wanted}"),
                ..Info::default()
            }),
            chart: previous.chart.clone(),
            config: previous.config.clone(),
            manifest: previous.manifest.clone(),
            hooks: previous.hooks.clone(),
            version: current.version + 1,
            labels: previous.labels.clone(),
            apply_method: method.as_record().into(),
        };
        self.create_revision(&target, options.max_history).await?;
        let originals = self.objects_of(&current.manifest, namespace).await?;
        let targets = self.targets(&target.manifest, name, namespace).await?;
        let force_replace = options.force && method == ApplyMethod::ClientSide;
        if !options.disable_hooks {
            hooks::run(self, &mut target, Event::PreRollback, self.timeout).await?;
        }
        if let Err(error) = self
            .update_objects(&originals, &targets, method, force_replace, true)
            .await
        {
            let mut superseded = current.clone();
            superseded.set_status_only("superseded");
            target.set_status("failed", &format!("Rollback {name:?} failed: {error}"));
            self.storage.update(&superseded).await?;
            self.storage.update(&target).await?;
            return Err(error);
        }
        if let Err(error) = self.wait_for(&targets).await {
            target.set_status("failed", &format!("Release {name:?} failed: {error}"));
            self.storage.update(&target).await?;
            return Err(error);
        }
        if !options.disable_hooks {
            hooks::run(self, &mut target, Event::PostRollback, self.timeout).await?;
        }
        for mut deployed in self.storage.history(namespace, name).await? {
            if deployed.status() == "deployed" && deployed.version != target.version {
                deployed.set_status_only("superseded");
                self.storage.update(&deployed).await?;
            }
        }
        target.set_status_only("deployed");
        self.storage.update(&target).await?;
        Ok(target)
    }

    // ----- uninstall -----

    /// Uninstall the release and purge its history; `Ok(None)` when there is none.
    pub async fn uninstall(
        &self,
        name: &str,
        namespace: &str,
        disable_hooks: bool,
        description: Option<&str>,
    ) -> Result<Option<ReleaseRecord>, EngineError> {
        let history = self.storage.history(namespace, name).await?;
        let Some(mut release) = history.last().cloned() else {
            return Ok(None);
        };
        if release.status() != "uninstalled" {
            if let Some(info) = release.info.as_mut() {
                info.status = "uninstalling".into();
                info.deleted = GoTime::now();
                info.description = "Deletion in progress (or silently failed)".into();
            }
            if !disable_hooks {
                hooks::run(self, &mut release, Event::PreDelete, self.timeout).await?;
            }
            self.storage.update(&release).await?;
            let plan = sort::uninstall_plan(&release.manifest).map_err(|e| {
                EngineError::Manifest(format!(
                    "corrupted release record. You must manually delete the resources: {e}"
                ))
            })?;
            let applier = self.applier(ApplyMethod::ServerSide, false);
            if !plan.keep.is_empty() {
                tracing::info!(release = name, kept = %plan.kept_summary(), "objects kept by their resource policy");
            }
            let mut deleted = Vec::new();
            let mut errors = Vec::new();
            for document in &plan.delete {
                let bodies = document
                    .objects()
                    .map_err(|e| EngineError::Manifest(e.to_string()))?;
                for body in bodies {
                    let object = self.cluster.resolve(body, namespace).await?;
                    match applier.delete(&object).await {
                        Ok(()) => deleted.push(object),
                        Err(e) => errors.push(e.to_string()),
                    }
                }
            }
            if !errors.is_empty() {
                return Err(EngineError::Update(errors.join("; ")));
            }
            if self.wait == WaitStrategy::Watcher {
                wait::wait_deleted(&self.client, &deleted, self.timeout).await?;
            }
            if !disable_hooks {
                hooks::run(self, &mut release, Event::PostDelete, self.timeout).await?;
            }
            let description = description.unwrap_or("Uninstallation complete");
            release.set_status("uninstalled", description);
        }
        for old in &history {
            self.storage.delete(namespace, name, old.version).await?;
        }
        Ok(Some(release))
    }
}

/// A rendered hook as the release records it, not run yet.
fn hook_record(hook: &HookSpec) -> HookRecord {
    let names =
        |policies: &[sort::HookPolicy]| policies.iter().map(|p| p.as_str().to_string()).collect();
    HookRecord {
        name: hook.name.clone(),
        kind: hook.kind.clone(),
        path: hook.path.clone(),
        manifest: hook.manifest.clone(),
        events: hook
            .events
            .iter()
            .map(|e| sort::event_name(*e).to_string())
            .collect(),
        last_run: HookExecution::default(),
        weight: hook.weight,
        delete_policies: names(&hook.delete_policies),
        output_log_policies: names(&hook.output_log_policies),
    }
}

fn object_of(values: &Value) -> Map<String, Value> {
    values.as_object().cloned().unwrap_or_default()
}

/// `helm.sh/resource-policy: keep`: Helm never deletes the object.
fn kept(object: &Value) -> bool {
    object
        .pointer("/metadata/annotations/helm.sh~1resource-policy")
        .and_then(Value::as_str)
        == Some("keep")
}

/// Helm's `objectKey`: group, kind, namespace and name identify an object across revisions.
type ObjectKey = (String, String, Option<String>, String);

fn key(object: &ClusterObject) -> ObjectKey {
    (
        object.resource.group.clone(),
        object.resource.kind.clone(),
        object.namespace.clone(),
        object.name.clone(),
    )
}

impl ReleaseRecord {
    /// Helm's `SetStatus`: status and description together.
    pub(crate) fn set_status(&mut self, status: &str, description: &str) {
        let info = self.info.get_or_insert_with(Info::default);
        info.status = status.to_string();
        info.description = description.to_string();
    }

    /// When the release was first deployed (now, for a record without info).
    pub(crate) fn first_deployed(&self) -> GoTime {
        self.info
            .as_ref()
            .map_or_else(GoTime::now, |i| i.first_deployed)
    }

    /// Only the status (superseding keeps the revision's description).
    pub(crate) fn set_status_only(&mut self, status: &str) {
        self.info.get_or_insert_with(Info::default).status = status.to_string();
    }
}

/// The revisions an upgrade starts from, as Helm's upgrade picks them: the latest (whose
/// number the new revision follows) and the one it upgrades (the deployed revision, else
/// a last failed or superseded one). A pending latest revision refuses the upgrade.
fn upgrade_base<'h>(
    name: &str,
    history: &'h [ReleaseRecord],
) -> Result<(&'h ReleaseRecord, ReleaseRecord), EngineError> {
    let Some(last) = history.last() else {
        return Err(EngineError::NoDeployedReleases(name.to_string()));
    };
    if last.status().starts_with("pending-") {
        return Err(EngineError::Pending);
    }
    let current = match last.status() {
        "deployed" => last,
        _ => match history.iter().rev().find(|r| r.status() == "deployed") {
            Some(deployed) => deployed,
            None if matches!(last.status(), "failed" | "superseded") => last,
            None => return Err(EngineError::NoDeployedReleases(name.to_string())),
        },
    };
    Ok((last, current.clone()))
}
