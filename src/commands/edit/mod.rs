//! `rusty-sdk edit --namespaced[=false]`: switch an existing project between a manager that
//! watches every namespace and one scoped to its own (kubebuilder's `edit --namespaced`),
//! leaving the project as `init` (with or without `--namespaced`) would have written it.
//!
//! Only scaffolded text is switched: the `WATCH_NAMESPACE` entry of the manager, the kind of
//! the manager's binding and of the per-API user roles. A file where that text was changed
//! by hand is left alone with a warning saying what to change in it.
//!
//! `edit --plugins` adds what a plugin makes of the project: the operator's Helm chart
//! ([`helm_chart`]) or its Grafana dashboards ([`grafana`]); `edit --license` writes its
//! licence header again ([`license`]).
pub mod grafana;
pub mod helm_chart;
pub mod license;

use std::path::Path;

use crate::cli::EditArgs;
use crate::error::{Error, Result};
use crate::rbac;
use crate::scaffold::Tree;
use crate::session::Session;

const MANAGER: &str = "config/manager/manager.yaml";
const BINDING: &str = "config/rbac/role_binding.yaml";

/// The `WATCH_NAMESPACE` entry of config/manager/manager.yaml: every namespace, then the pod's.
const WATCH_ALL: &str =
    "        # The namespace to watch; empty watches all namespaces. Set it to one namespace
        # (for example with fieldPath metadata.namespace) to scope the operator.
        - name: WATCH_NAMESPACE
          value: \"\"
";
const WATCH_OWN: &str =
    "        # The manager watches only its own namespace (`init --namespaced`); its role is
        # a Role there. A comma-separated list watches several.
        - name: WATCH_NAMESPACE
          valueFrom:
            fieldRef:
              fieldPath: metadata.namespace
";

/// The kind lines that differ between the two forms of the manager's binding.
const BINDING_CLUSTER: [&str; 2] = ["kind: ClusterRoleBinding\n", "  kind: ClusterRole\n"];
const BINDING_OWN: [&str; 2] = ["kind: RoleBinding\n", "  kind: Role\n"];

pub fn run(session: &Session, args: &EditArgs) -> Result<()> {
    if license::asked(args) {
        return license::run(session, args);
    }
    if let Some(multigroup) = args.multigroup {
        if !multigroup {
            return Err(Error::invalid(
                "--multigroup=false asks for kubebuilder's single-group layout, and a Rust project has none: each group is its own module (api/src/<group>/<version>); drop the flag",
            ));
        }
        if args.namespaced.is_none() && args.plugins.is_none() {
            session.load_project()?;
            session.shell.note(
                "Nothing to change: a Rust project always keeps each group in its own module (api/src/<group>/<version>), as kubebuilder's multi-group layout does",
            );
            return Ok(());
        }
    }
    if let Some(plugin) = args.plugins.as_deref() {
        return add_plugin(session, args, plugin);
    }
    let Some(namespaced) = args.namespaced else {
        return Err(Error::invalid(
            "nothing to edit: pass --namespaced (scope the manager to its namespace), --namespaced=false, --plugins=helm/v2-alpha (a Helm chart of the operator), --plugins=grafana/v1-alpha (Grafana dashboards) or --license/--license-file (the licence header)",
        ));
    };
    scope(session, namespaced)
}

/// `edit --plugins`: the operator's Helm chart, or its Grafana dashboards.
fn add_plugin(session: &Session, args: &EditArgs, plugin: &str) -> Result<()> {
    if matches!(
        plugin,
        "autoupdate/v1-alpha" | "autoupdate.kubebuilder.io/v1-alpha"
    ) {
        return Err(Error::invalid(format!(
            "{plugin:?} is kubebuilder's workflow that runs `kubebuilder alpha update` on each release; rusty-sdk writes no such workflow: run `rusty-sdk alpha update` when a new rusty-sdk is out"
        )));
    }
    let grafana = grafana::PLUGIN_KEYS.contains(&plugin);
    if !grafana && !helm_chart::PLUGIN_KEYS.contains(&plugin) {
        return Err(Error::invalid(format!(
            "unknown plugin {plugin:?} for --plugins; `edit` takes helm/v2-alpha (a Helm chart of the operator in dist/chart) or grafana/v1-alpha (Grafana dashboards in grafana/)"
        )));
    }
    if args.namespaced.is_some() {
        return Err(Error::invalid(
            "--plugins and --namespaced are two edits; run them one after the other",
        ));
    }
    if grafana {
        if args.manifests.is_some() || args.output_dir.is_some() {
            return Err(Error::invalid(format!(
                "--manifests and --output-dir belong to helm/v2-alpha; --plugins={plugin} takes neither (its dashboards go to grafana/)"
            )));
        }
        return grafana::run(session);
    }
    helm_chart::run(session, args)
}

/// `edit --namespaced[=false]`: the manager watches its own namespace, or every one, and
/// its roles and bindings follow.
fn scope(session: &Session, namespaced: bool) -> Result<()> {
    let mut project = session.load_project()?;
    project.namespaced = namespaced;
    let mut tree = Tree::new(&session.root);
    let mut warnings = Vec::new();
    let (from, to) = if namespaced {
        (WATCH_ALL, WATCH_OWN)
    } else {
        (WATCH_OWN, WATCH_ALL)
    };
    switch(&mut tree, MANAGER, &[(from, to)], &mut warnings, || {
        format!(
            "set the manager's WATCH_NAMESPACE {}",
            watch_hint(namespaced)
        )
    })?;
    let (from, to) = if namespaced {
        (BINDING_CLUSTER, BINDING_OWN)
    } else {
        (BINDING_OWN, BINDING_CLUSTER)
    };
    let pairs = [(from[0], to[0]), (from[1], to[1])];
    switch(&mut tree, BINDING, &pairs, &mut warnings, || {
        format!(
            "make it a {} of the {}",
            to[0].trim().trim_start_matches("kind: "),
            to[1].trim().trim_start_matches("kind: ")
        )
    })?;
    for path in user_role_files(&session.root)? {
        let (from, to) = if namespaced {
            ("\nkind: ClusterRole\n", "\nkind: Role\n")
        } else {
            ("\nkind: Role\n", "\nkind: ClusterRole\n")
        };
        switch(&mut tree, &path, &[(from, to)], &mut warnings, || {
            format!("make it a {}", to.trim().trim_start_matches("kind: "))
        })?;
    }
    for warning in warnings
        .iter()
        .chain(&rbac::stage_role(&mut tree, &project)?)
    {
        session.shell.warn(warning);
    }
    session.apply(tree, &project).map(|_| ())
}

fn watch_hint(namespaced: bool) -> &'static str {
    if namespaced {
        "from the pod's namespace (valueFrom.fieldRef.fieldPath: metadata.namespace)"
    } else {
        "to \"\" (every namespace)"
    }
}

/// Replace each `from` with its `to` in `path`. Already switched: nothing to do. Neither
/// found (the file was edited by hand, or is gone): a warning with `hint`.
fn switch(
    tree: &mut Tree,
    path: &str,
    pairs: &[(&str, &str)],
    warnings: &mut Vec<String>,
    hint: impl Fn() -> String,
) -> Result<()> {
    let Some(text) = tree.read(path)? else {
        warnings.push(format!(
            "{path} is missing; {} there if you restore it",
            hint()
        ));
        return Ok(());
    };
    if pairs.iter().all(|(_, to)| text.contains(to)) {
        return Ok(());
    }
    if !pairs
        .iter()
        .all(|(from, _)| text.matches(from).count() == 1)
    {
        warnings.push(format!(
            "{path} was edited by hand and left as it is: {}",
            hint()
        ));
        return Ok(());
    }
    tree.edit(path, |text| {
        Ok(pairs.iter().fold(text.to_string(), |text, (from, to)| {
            text.replacen(from, to, 1)
        }))
    })
}

/// The admin, editor and viewer roles `create api` wrote for each API.
fn user_role_files(root: &Path) -> Result<Vec<String>> {
    let dir = root.join("config/rbac");
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(dir, e)),
    };
    let mut files = Vec::new();
    for entry in entries {
        let name = entry.map_err(|e| Error::io(&dir, e))?.file_name();
        let name = name.to_string_lossy();
        if ["_admin_role.yaml", "_editor_role.yaml", "_viewer_role.yaml"]
            .iter()
            .any(|suffix| name.ends_with(suffix))
        {
            files.push(format!("config/rbac/{name}"));
        }
    }
    files.sort();
    Ok(files)
}
