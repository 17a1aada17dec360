//! Several controllers for one kind: `create api --controller-name NAME`, kubebuilder's flag.
//! Each controller is its own module under src/controller, with its own name (in metrics,
//! logs, its field manager and its line in main.rs), its own RBAC markers, condition and
//! finalizer, so that two controllers of one kind never take each other's fields. The
//! controller scaffolded without a name, or named after the kind, keeps the kind's module,
//! name and the `Available` condition. PROJECT lists named controllers under
//! `controllers:` as kubebuilder does, the unnamed one turned into the kind's name.
use heck::ToUpperCamelCase;

use crate::error::{Error, Result};
use crate::model::names::shown;
use crate::model::{ApiSpec, Group};
use crate::project::{NamedController, Project, Resource};

/// The controller a `create api` scaffolds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControllerName {
    /// `memcached`, `memcached-backup`: the name in metrics, logs and main.rs.
    pub name: String,
    /// Its module under src/controller.
    pub module: String,
    /// The kind's own controller (no `--controller-name`, or the kind's name).
    pub default: bool,
}

impl ControllerName {
    /// The kind's own controller.
    pub fn of_kind(spec: &ApiSpec) -> ControllerName {
        ControllerName {
            name: spec.api_name(),
            module: spec.controller_module(),
            default: true,
        }
    }

    /// `--controller-name`: a DNS-1035 label, as kubebuilder takes it; the kind's name
    /// stands for its own controller.
    pub fn parse(value: &str, spec: &ApiSpec) -> Result<ControllerName> {
        let valid = value.len() <= 63
            && value.starts_with(|c: char| c.is_ascii_lowercase())
            && !value.ends_with('-')
            && value
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !valid {
            return Err(Error::invalid(format!(
                "invalid --controller-name {}: a DNS-1035 label (at most 63 lower-case letters, digits and '-', starting with a letter, not ending with '-'), e.g. {}-backup",
                shown(value),
                spec.kind.lower()
            )));
        }
        if value == spec.api_name() {
            return Ok(ControllerName::of_kind(spec));
        }
        // A DNS label is a group's spelling too: the same module name rules apply.
        let module = Group::parse(value)?.module();
        Ok(ControllerName {
            name: value.to_string(),
            module,
            default: false,
        })
    }

    /// The condition the controller reports the reconciled generation in.
    pub fn condition(&self) -> String {
        if self.default {
            "Available".into()
        } else {
            format!("{}Available", self.name.to_upper_camel_case())
        }
    }

    /// The finalizer the controller adds when it has cleanup to do.
    pub fn finalizer(&self, group: &str) -> String {
        if self.default {
            format!("{group}/finalizer")
        } else {
            format!("{group}/{}", self.name)
        }
    }
}

/// Whether `controller` may be scaffolded for the kind of `spec`: its name is not another
/// kind's controller's, and the kind does not have it already (unless `force`, which
/// scaffolds it again). Without a name, a kind with named controllers needs one, unless
/// the API itself is scaffolded again (`rescaffold_api`, as kubebuilder allows): that is
/// the kind's own controller.
pub fn check(
    project: &Project,
    spec: &ApiSpec,
    controller: &ControllerName,
    named: bool,
    rescaffold_api: bool,
    force: bool,
) -> Result<()> {
    let this = |r: &Resource| {
        r.group == spec.group.as_str()
            && r.version == spec.version.as_str()
            && r.kind == spec.kind.as_str()
    };
    let shown_kind = |r: &Resource| format!("{} ({}/{})", r.kind, r.group, r.version);
    // A name the user chose must be free; the kinds' own names are as before.
    for other in project.resources.iter().filter(|r| named && !this(r)) {
        let taken = controller_names(other).any(|name| name == controller.name);
        if taken {
            return Err(Error::invalid(format!(
                "--controller-name {} is the controller of {} already; choose another name",
                controller.name,
                shown_kind(other)
            )));
        }
    }
    let Some(entry) = project.resources.iter().find(|r| this(r)) else {
        return Ok(());
    };
    if !named && !rescaffold_api && !entry.controllers.is_empty() {
        let names: Vec<&str> = entry.controllers.iter().map(|c| c.name.as_str()).collect();
        return Err(Error::invalid(format!(
            "{} has named controllers ({}); pass --controller-name to add another, or --controller=false",
            shown_kind(entry),
            names.join(", ")
        )));
    }
    let has = if controller.default {
        entry.controller || entry.controllers.iter().any(|c| c.name == controller.name)
    } else {
        entry.controllers.iter().any(|c| c.name == controller.name)
    };
    if named && has && !force {
        return Err(Error::Project(format!(
            "{} already has the controller {} (src/controller/{}.rs); pass --force to scaffold it again over your edits (nothing was written)",
            shown_kind(entry),
            controller.name,
            controller.module
        )));
    }
    Ok(())
}

/// The names of a PROJECT entry's controllers: its named ones, or the kind's for
/// `controller: true`.
fn controller_names(resource: &Resource) -> impl Iterator<Item = String> + '_ {
    let unnamed = resource.controller.then(|| resource.kind.to_lowercase());
    resource
        .controllers
        .iter()
        .map(|c| c.name.clone())
        .chain(unnamed)
}

/// Record `controller` in the kind's PROJECT entry: `controller: true` for the kind's
/// own controller while it has no named ones; once a named one comes, every controller is
/// listed under `controllers:` (the unnamed one by the kind's name), as kubebuilder does.
pub fn record(resource: &mut Resource, controller: &ControllerName, named: bool) {
    if !named && resource.controllers.is_empty() {
        resource.controller = true;
        return;
    }
    // The kind's own controller scaffolded again next to named ones is listed by name.
    let mut add = |name: &str| {
        if resource.controllers.iter().all(|c| c.name != name) {
            resource.controllers.push(NamedController {
                name: name.to_string(),
                ..NamedController::default()
            });
        }
    };
    if resource.controller {
        add(&resource.kind.to_lowercase());
    }
    add(&controller.name);
    resource.controller = false;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Kind, Version};

    fn project(resources: &str) -> Project {
        Project::parse(&format!(
            "domain: my.domain\nlayout: rust.rusty-sdk.dev/v1\nprojectName: demo\nresources:\n{resources}version: \"3\"\n"
        ))
        .unwrap()
    }

    fn spec(project: &Project, kind: &str) -> ApiSpec {
        ApiSpec::new(
            project,
            Group::parse("crew").unwrap(),
            Version::parse("v1").unwrap(),
            Kind::parse(kind).unwrap(),
            None,
            true,
        )
        .unwrap()
    }

    #[test]
    fn names_are_dns_labels_and_the_kinds_name_is_its_own_controller() {
        let project = project("");
        let spec = spec(&project, "Captain");
        let backup = ControllerName::parse("captain-backup", &spec).unwrap();
        assert_eq!(backup.module, "captain_backup");
        assert_eq!(backup.condition(), "CaptainBackupAvailable");
        assert_eq!(
            backup.finalizer("crew.my.domain"),
            "crew.my.domain/captain-backup"
        );
        let own = ControllerName::parse("captain", &spec).unwrap();
        assert_eq!(own, ControllerName::of_kind(&spec));
        assert_eq!(own.condition(), "Available");
        assert_eq!(
            ControllerName::parse("type", &spec).unwrap().module,
            "type_"
        );
        for bad in ["Captain", "1st", "a_b", "back-", "", &"x".repeat(64)] {
            let err = ControllerName::parse(bad, &spec).unwrap_err().to_string();
            assert!(err.contains("--controller-name"), "{bad}: {err}");
        }
    }

    #[test]
    fn the_unnamed_controller_joins_the_list_when_a_named_one_comes() {
        let project = project(
            "- api: {crdVersion: v1, namespaced: true}\n  controller: true\n  group: crew\n  kind: Captain\n  version: v1\n",
        );
        let spec = spec(&project, "Captain");
        let mut resource = project.resources[0].clone();
        let backup = ControllerName::parse("captain-backup", &spec).unwrap();
        check(&project, &spec, &backup, true, false, false).unwrap();
        record(&mut resource, &backup, true);
        assert!(!resource.controller);
        let names: Vec<&str> = resource
            .controllers
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(names, ["captain", "captain-backup"]);
        // Recorded twice, listed once.
        record(&mut resource, &backup, true);
        assert_eq!(resource.controllers.len(), 2);
    }

    #[test]
    fn a_name_taken_or_missing_is_refused_naming_the_owner() {
        let project = project(
            "- api: {crdVersion: v1, namespaced: true}\n  controllers:\n  - name: captain\n  - name: captain-backup\n  group: crew\n  kind: Captain\n  version: v1\n- api: {crdVersion: v1, namespaced: true}\n  controller: true\n  group: crew\n  kind: Sailor\n  version: v1\n",
        );
        let captain = spec(&project, "Captain");
        let backup = ControllerName::parse("captain-backup", &captain).unwrap();
        let err = check(&project, &captain, &backup, true, false, false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("Captain (crew/v1) already has the controller captain-backup (src/controller/captain_backup.rs)"),
            "{err}"
        );
        check(&project, &captain, &backup, true, false, true).unwrap();
        let err = check(
            &project,
            &captain,
            &ControllerName::of_kind(&captain),
            false,
            false,
            false,
        )
        .unwrap_err()
        .to_string();
        // The API scaffolded again (`--resource`) takes the kind's own controller.
        check(
            &project,
            &captain,
            &ControllerName::of_kind(&captain),
            false,
            true,
            true,
        )
        .unwrap();
        assert!(
            err.contains("has named controllers (captain, captain-backup)"),
            "{err}"
        );
        let sailor = ControllerName::parse("sailor", &captain).unwrap();
        let err = check(&project, &captain, &sailor, true, false, false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("the controller of Sailor (crew/v1)"), "{err}");
    }
}
