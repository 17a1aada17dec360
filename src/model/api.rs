//! An API as every command sees it (`create api` with any plugin, `create webhook`, `init`
//! with a first Helm kind): its group, version and kind, the names and paths derived from
//! them, and the rules that keep it from clashing with the APIs PROJECT already has.

use crate::error::{Error, Result};
use crate::model::names::{parse_plural, shown};
use crate::model::{Domain, Group, Kind, Version};
use crate::project::{Project, Resource, ResourceApi};

/// A validated API: group, version, kind and everything derived from them.
#[derive(Clone, Debug)]
pub struct ApiSpec {
    pub domain: Domain,
    pub group: Group,
    pub version: Version,
    pub kind: Kind,
    pub plural: String,
    pub namespaced: bool,
    /// An API created before this one has the same kind in another group: this one's
    /// files, roles and controller then carry the group in their names.
    pub twin: bool,
}

impl ApiSpec {
    /// Validate an API of `project` from its flags: the plural defaults to the kind's.
    ///
    /// # Errors
    ///
    /// `Error::Invalid` when the plural is invalid or a derived name (the group, the
    /// CRD's name or file name) is over its limit; `Error::Invalid` naming PROJECT's
    /// `domain:` when that is not a DNS-1123 subdomain.
    pub fn new(
        project: &Project,
        group: Group,
        version: Version,
        kind: Kind,
        plural: Option<&str>,
        namespaced: bool,
    ) -> Result<Self> {
        let domain = project.domain.as_deref().unwrap_or("my.domain");
        let domain = Domain::parse_from(domain, "fix `domain:` in PROJECT")?;
        let plural = match plural {
            Some(p) => parse_plural(p)?,
            None => kind.plural(),
        };
        // Kinds that differ only in case (`HTTPProxy`, `HttpProxy`) name the same files.
        let twin = project
            .resources
            .iter()
            .take_while(|r| !(r.group == group.as_str() && r.kind == kind.as_str()))
            .any(|r| r.kind.to_lowercase() == kind.lower());
        let spec = ApiSpec {
            domain,
            group,
            version,
            kind,
            plural,
            namespaced,
            twin,
        };
        spec.check_lengths()?;
        Ok(spec)
    }

    /// The group, CRD name and CRD file name must fit Kubernetes' and the file system's
    /// limits; the message names the limit.
    fn check_lengths(&self) -> Result<()> {
        let group = self.qualified_group();
        let crd_name = format!("{}.{group}", self.plural);
        let crd_file = format!("{group}_{}.yaml", self.plural);
        let too_long = [
            ("the API group", group.len(), 253),
            ("the CRD name", crd_name.len(), 253),
            ("the CRD file name", crd_file.len(), 255),
        ]
        .into_iter()
        .find(|(_, len, max)| len > max);
        match too_long {
            Some((what, len, max)) => Err(Error::invalid(format!(
                "{what} for --group {} would have {len} characters, more than the {max} allowed; pass a shorter --group (or --plural, or use a shorter domain in PROJECT)",
                shown(self.group.as_str())
            ))),
            None => Ok(()),
        }
    }

    /// The spec PROJECT's entry `resource` would get, if its names are valid.
    fn of_resource(project: &Project, resource: &Resource) -> Option<ApiSpec> {
        ApiSpec::new(
            project,
            Group::parse(&resource.group).ok()?,
            Version::parse(&resource.version).ok()?,
            Kind::parse(&resource.kind).ok()?,
            resource.plural.as_deref(),
            true,
        )
        .ok()
    }

    /// `memcached`, or `cache-memcached` for a twin: role names and the controller's name.
    pub fn api_name(&self) -> String {
        if self.twin {
            format!("{}-{}", self.group, self.kind.lower())
        } else {
            self.kind.lower()
        }
    }

    /// The Rust module of the controller: `memcached`, or `cache_memcached` for a twin.
    pub fn controller_module(&self) -> String {
        if self.twin {
            format!(
                "{}_{}",
                self.group.module().trim_end_matches('_'),
                self.kind.snake()
            )
        } else {
            self.kind.module()
        }
    }

    /// `cache.my.domain`
    pub fn qualified_group(&self) -> String {
        format!("{}.{}", self.group, self.domain)
    }

    /// `config/crd/bases/cache.my.domain_memcacheds.yaml`
    pub fn crd_path(&self) -> String {
        format!(
            "config/crd/bases/{}_{}.yaml",
            self.qualified_group(),
            self.plural
        )
    }

    /// `config/samples/cache_v1_memcached.yaml`
    pub fn sample_path(&self) -> String {
        format!("config/samples/{}", self.sample_file())
    }

    /// `cache_v1_memcached.yaml`, the sample's name in config/samples.
    pub fn sample_file(&self) -> String {
        format!("{}_{}_{}.yaml", self.group, self.version, self.kind.lower())
    }

    /// `cache/v1, Kind=Memcached`, as kubebuilder prints a GVK.
    pub fn display(&self) -> String {
        format!(
            "{}/{}, Kind={}",
            self.qualified_group(),
            self.version,
            self.kind
        )
    }

    /// Refuse to scaffold an API PROJECT already has (unless `force`), and one the
    /// project could not serve next to the APIs it has, naming the API in the way.
    /// `helm` says which plugin this API is for.
    ///
    /// # Errors
    ///
    /// `Error::Project` naming the API in the way: one that would clash with this one, or
    /// this one already in PROJECT without `force`.
    pub fn check_new(&self, project: &Project, force: bool, helm: bool) -> Result<()> {
        let existing = project.find_resource(
            self.group.as_str(),
            self.version.as_str(),
            self.kind.as_str(),
        );
        // A kind Kubernetes or another project defines, recorded by its controller or
        // webhooks: this API would be another kind of the same name in the project's own
        // group, not the one PROJECT has, so --force cannot mean "again".
        if let Some((other, group)) =
            existing.and_then(|other| Some((other, foreign_group(other)?)))
        {
            let whose = if other.is_core() {
                "the kind Kubernetes defines"
            } else {
                "another project's kind"
            };
            return Err(Error::Project(format!(
                "{kind} ({group}/{version}) is in PROJECT as {whose}, and --resource would add a kind of that name to this project's own group ({}); pass --resource=false for a controller of {group}/{version}'s {kind}, or choose another --group or --kind (nothing was written)",
                self.display(),
                kind = other.kind,
                version = other.version,
            )));
        }
        for other in &project.resources {
            if let Some(why) = self.clash(other, project, helm) {
                return Err(Error::Project(format!("{why} (nothing was written)")));
            }
        }
        if existing.is_some() && !force {
            return Err(Error::Project(format!(
                "API already exists: {} is in PROJECT; pass --force to re-scaffold the files this command owns (nothing was written)",
                self.display()
            )));
        }
        Ok(())
    }

    /// Why this API cannot live next to `other`, if it cannot.
    fn clash(&self, other: &Resource, project: &Project, helm: bool) -> Option<String> {
        let same_group = other.group == self.group.as_str()
            && other.domain.as_deref().or(project.domain.as_deref()) == Some(self.domain.as_str());
        let same_kind = other.kind == self.kind.as_str();
        let same_version = other.version == self.version.as_str();
        let other_helm = other.path.is_none() && !other.has_controller();
        let other_name = format!(
            "{}/{}, Kind={}",
            self.qualified_group(),
            other.version,
            other.kind
        );
        if !(same_group && same_kind)
            && let Some(why) = self.shared_name(other, project, helm || other_helm)
        {
            return Some(why);
        }
        if !same_group {
            // The same kind in another group: Rust APIs get names with the group in them;
            // a Helm API shares its chart folder and watches by kind, so it is refused.
            return (same_kind && (helm || other_helm)).then(|| {
                format!(
                    "kind {} is already served by {}/{} in PROJECT, and a Helm API cannot share its kind with another group; choose another --kind",
                    self.kind,
                    other.group,
                    other.version
                )
            });
        }
        if same_kind && other_helm != helm {
            let (this, that) = if helm {
                ("Helm", "Rust")
            } else {
                ("Rust", "Helm")
            };
            return Some(format!(
                "{other_name} is a {that} API in PROJECT; a {this} API of the same group and kind would take over its CRD; choose another --kind or --group"
            ));
        }
        if same_kind && helm && !same_version {
            return Some(format!(
                "{other_name} is already a Helm API in PROJECT; a second version of a Helm kind is not supported (its chart serves one version); use --version {} or choose another --kind",
                other.version
            ));
        }
        let other_plural = other.plural.clone().or_else(|| {
            crate::model::Kind::parse(&other.kind)
                .ok()
                .map(|k| k.plural())
        });
        if !same_kind && other_plural.as_deref() == Some(self.plural.as_str()) {
            return Some(format!(
                "plural {:?} is already the resource name of {other_name} in PROJECT; pass another --plural",
                self.plural
            ));
        }
        if !same_kind && same_version && !helm && !other_helm {
            let (a, b) = (self.kind.as_str(), other.kind.as_str());
            let nested = |long: &str, short: &str| {
                long.strip_prefix(short)
                    .is_some_and(|rest| rest == "Spec" || rest == "Status")
            };
            if nested(a, b) || nested(b, a) {
                return Some(format!(
                    "kind {a} and {other_name} would both define the Rust type {}, since every kind gets <Kind>Spec and <Kind>Status types; choose another --kind",
                    if a.len() > b.len() { a } else { b }
                ));
            }
        }
        None
    }

    /// A file or Rust module name this API and `other` (another group or kind) would both
    /// get, so that one would overwrite the other: kinds that differ only in case, groups
    /// that differ only in dashes, a controller module or role file named like another's.
    fn shared_name(&self, other: &Resource, project: &Project, helm: bool) -> Option<String> {
        let theirs = ApiSpec::of_resource(project, other)?;
        let other_name = match foreign_group(other) {
            Some(group) => format!("{group}/{}, Kind={}", other.version, other.kind),
            None => theirs.display(),
        };
        let why = if theirs.group != self.group && theirs.group.module() == self.group.module() {
            format!(
                "group {} would share the Rust module {} with group {} of {other_name} in PROJECT",
                self.group,
                self.group.module(),
                theirs.group
            )
        } else if theirs.group == self.group && theirs.kind.lower() == self.kind.lower() {
            format!(
                "kind {} and {other_name} in PROJECT have the same lower-case name {:?}, which names the CRD's singular and the kind's files",
                self.kind,
                self.kind.lower()
            )
        } else if theirs.api_name().replace('-', "_") == self.api_name().replace('-', "_") {
            format!(
                "kind {} would get the role files of {other_name} in PROJECT ({}_admin_role.yaml)",
                self.kind,
                self.api_name().replace('-', "_")
            )
        } else if !helm
            && theirs
                .module_names()
                .iter()
                .any(|m| self.module_names().contains(m))
        {
            format!(
                "kind {} and {other_name} in PROJECT would share a Rust module (controller, webhook or conversion)",
                self.kind
            )
        } else {
            return None;
        };
        Some(format!("{why}; choose another --kind or --group"))
    }

    /// The modules this API's controller, webhooks and conversions may take in
    /// src/controller, src/webhook and next to its type in the api crate.
    fn module_names(&self) -> [String; 4] {
        let controller = self.controller_module();
        let kind = format!(
            "{}::{}::{}",
            self.group.module(),
            self.version,
            self.kind.module()
        );
        [
            format!("{controller}_conversion"),
            controller,
            format!("{kind}_conversion"),
            kind,
        ]
    }

    /// The PROJECT entry for this API.
    pub fn resource(&self, controller: bool, path: Option<String>) -> Resource {
        Resource {
            api: Some(ResourceApi {
                crd_version: Some("v1".into()),
                namespaced: self.namespaced,
                ..ResourceApi::default()
            }),
            controller,
            domain: Some(self.domain.to_string()),
            group: self.group.to_string(),
            kind: self.kind.to_string(),
            path,
            plural: (self.plural != self.kind.plural()).then(|| self.plural.clone()),
            version: self.version.to_string(),
            ..Resource::default()
        }
    }
}

/// The real group of a kind Kubernetes (`apps`, `core`) or another project
/// (`cert-manager.io`) defines, which PROJECT records by its controller or webhooks;
/// `None` for the project's own APIs, whose group carries the project's domain.
fn foreign_group(resource: &Resource) -> Option<String> {
    if resource.is_core() {
        Some(resource.group.clone())
    } else if resource.is_external() {
        Some(resource.recorded_api_group())
    } else {
        None
    }
}
