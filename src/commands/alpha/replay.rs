//! PROJECT back into the commands that made it, and running them with any rusty-sdk.
//!
//! Each thing PROJECT records maps to the command that recorded it: the layout and names to
//! `init`, each resource to `create api` (Rust, Helm, deploy-image or a built-in kind),
//! each resource's `webhooks` to `create webhook`, and plugin data to the command that
//! wrote it. The commands run as a separate process, so the same replay drives this
//! rusty-sdk (`alpha generate`) and an older one (`alpha update`'s ancestor), which has no
//! `alpha generate` of its own.
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cli::License;
use crate::error::{Error, Result};
use crate::model::names::{shown, shown_path};
use crate::model::{boilerplate, plugin};
use crate::project::{EXTERNAL_CRD_DIR, EXTERNAL_CRD_KEY, Project, Resource};
use crate::yaml::Value;

/// PROJECT's plugin keys, and what replays each.
const HELM_APIS: &str = "helm.rusty-sdk.dev/v1";
const DEPLOY_IMAGE: &str = plugin::DEPLOY_IMAGE_DATA;
const RBAC: &str = crate::rbac::PLUGIN_KEY;
const OPERATOR_CHART: &str = plugin::HELM_CHART_DATA;
const GRAFANA: &str = plugin::GRAFANA_DATA;
const KNOWN_PLUGINS: [&str; 5] = [HELM_APIS, DEPLOY_IMAGE, RBAC, OPERATOR_CHART, GRAFANA];

/// The command lines that make the project again, in the order they ran.
#[derive(Clone, Debug, Default)]
pub struct Replay {
    pub steps: Vec<Vec<String>>,
    /// Files of the project that a step reads by their path in it and that no command
    /// writes (the operator chart's `--manifests`, `make build-installer`'s output): copied
    /// into the replay after `init`, so that PROJECT records the same path, and left out
    /// of the scaffold.
    pub inputs: Vec<String>,
    /// What PROJECT records but no command can make again from the project (an external
    /// API of a project that does not keep its CRD), each as a sentence naming it.
    pub not_replayed: Vec<String>,
}

/// The commands that made the project in `input` (whose PROJECT is `project`).
pub fn plan(project: &Project, input: &Path) -> Result<Replay> {
    if let Some(unknown) = project
        .plugins
        .keys()
        .filter_map(Value::as_str)
        .find(|key| !KNOWN_PLUGINS.contains(key))
    {
        return Err(Error::Project(format!(
            "PROJECT records plugin {}, which this rusty-sdk cannot replay (it knows {}); use the rusty-sdk that added it, or remove its entry from PROJECT",
            shown(unknown),
            KNOWN_PLUGINS.join(", ")
        )));
    }
    let layout = project.layout()?;
    let mut replay = Replay::default();
    replay.steps.push(init(project, input, layout.short_name()));
    let mut replayed = Vec::new();
    for resource in &project.resources {
        match api(project, resource, input, layout.has_helm() && layout.has_rust()) {
            Some(steps) => {
                replay.steps.extend(steps);
                replayed.push(resource);
            }
            None => replay.not_replayed.push(format!(
                "the external API {} and its webhooks (the project does not keep its CRD in {}/, as projects of an older rusty-sdk do not): their files stay as you have them",
                gvk(resource),
                EXTERNAL_CRD_DIR
            )),
        }
    }
    // Conversion webhooks need their spoke versions' APIs: every API first, as
    // kubebuilder replays them.
    replay
        .steps
        .extend(replayed.into_iter().filter_map(webhook));
    if let Some(namespace) = plugin_str(project, RBAC, "namespace") {
        replay
            .steps
            .push(args(&["generate", "rbac", "--namespace", &namespace]));
    }
    if project.plugins.contains_key(OPERATOR_CHART) {
        // Made from `make build-installer`'s output, which only the user's tree has.
        let manifests = plugin_str(project, OPERATOR_CHART, "manifests")
            .unwrap_or_else(|| "dist/install.yaml".into());
        let output = plugin_str(project, OPERATOR_CHART, "output").unwrap_or_else(|| "dist".into());
        let source = input.join(&manifests);
        if source.is_file() {
            // A path in the project is read there, as the project has it; any other
            // stays the path PROJECT records.
            let given = if is_inside(&manifests) {
                replay.inputs.push(manifests.clone());
                manifests
            } else {
                source.to_string_lossy().into_owned()
            };
            replay.steps.push(vec![
                "edit".into(),
                "--plugins=helm/v2-alpha".into(),
                "--manifests".into(),
                given,
                "--output-dir".into(),
                output,
            ]);
        } else {
            replay.not_replayed.push(format!(
                "the operator's Helm chart (helm/v2-alpha), made from {manifests}, which is missing: run `make build-installer` first"
            ));
        }
    }
    if project.plugins.contains_key(GRAFANA) {
        // The custom dashboard comes from grafana/custom-metrics/config.yaml, yours to
        // edit: the replay makes the default one, and an update keeps yours.
        replay
            .steps
            .push(args(&["edit", "--plugins=grafana/v1-alpha"]));
    }
    Ok(replay)
}

/// `path` is relative and stays inside the folder it is relative to.
fn is_inside(path: &str) -> bool {
    let path = Path::new(path);
    path.components().count() > 0
        && path
            .components()
            .all(|part| matches!(part, std::path::Component::Normal(_)))
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_string()).collect()
}

fn gvk(resource: &Resource) -> String {
    format!("{}/{} {}", resource.group, resource.version, resource.kind)
}

/// `--group G --version V --kind K` of `resource`.
fn gvk_flags(resource: &Resource) -> [String; 6] {
    [
        "--group".into(),
        resource.group.clone(),
        "--version".into(),
        resource.version.clone(),
        "--kind".into(),
        resource.kind.clone(),
    ]
}

fn plugin_str(project: &Project, plugin: &str, key: &str) -> Option<String> {
    project
        .plugins
        .get(plugin)
        .and_then(|data| data.get(key))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// `init`, with the owner and licence read back from hack/boilerplate.txt (PROJECT does
/// not record them): the owner and `--license` of a header `init` wrote from them, else the
/// header itself as `--license-file`.
fn init(project: &Project, input: &Path, layout: &str) -> Vec<String> {
    let mut step = args(&["init", "--plugins", layout]);
    let mut flag = |name: &str, value: &Option<String>| {
        if let Some(value) = value {
            step.extend([format!("--{name}"), value.clone()]);
        }
    };
    flag("domain", &project.domain);
    flag("repo", &project.repo);
    flag("project-name", &project.project_name);
    let header = input.join(boilerplate::FILE);
    if let Ok(text) = read_text(&header) {
        let owner = boilerplate::owner(&text).map(str::to_string);
        let written = |license| {
            owner
                .as_deref()
                .is_some_and(|owner| boilerplate::render(license, owner).ok() == Some(text.clone()))
        };
        if written(License::Apache2) {
            flag("owner", &owner);
        } else if written(License::None) {
            flag("owner", &owner);
            step.extend(args(&["--license", "none"]));
        } else {
            // A header of the user's own (`init --license-file`, or edited since); the
            // licence Cargo.toml declares is `--license`'s.
            step.extend([
                "--license-file".into(),
                header.to_string_lossy().into_owned(),
            ]);
            let declared = if declares_apache(input) {
                "apache2"
            } else {
                "none"
            };
            step.extend(args(&["--license", declared]));
        }
    }
    if project.namespaced {
        step.push("--namespaced".into());
    }
    step
}

/// `replay` with its `init --license-file` (a header of the user's own) replaced by the
/// header's owner, for a rusty-sdk older than the flag, where the user can only have edited
/// the header by hand (the `--license` read from Cargo.toml stays); `None` if it has no
/// such flag.
pub fn without_license_file(replay: &Replay) -> Option<Replay> {
    let mut replay = replay.clone();
    let init = replay.steps.first_mut()?;
    let at = init.iter().position(|arg| arg == "--license-file")?;
    let header = read_text(Path::new(init.get(at + 1)?)).ok()?;
    init.drain(at..at + 2);
    if let Some(owner) = boilerplate::owner(&header) {
        init.extend(["--owner".into(), owner.to_string()]);
    }
    Some(replay)
}

/// The project's Cargo.toml declares the licence `init --license apache2` writes there.
fn declares_apache(input: &Path) -> bool {
    read_text(&input.join("Cargo.toml"))
        .is_ok_and(|text| text.contains("\nlicense = \"Apache-2.0\""))
}

/// The Helm plugin's entry for `resource`, if it is a Helm API.
fn helm_entry<'p>(project: &'p Project, resource: &Resource) -> Option<&'p Value> {
    let list = project
        .plugins
        .get(HELM_APIS)?
        .get("resources")?
        .as_sequence()?;
    list.iter().find(|entry| same_gvk(entry, resource))
}

fn same_gvk(entry: &Value, resource: &Resource) -> bool {
    let field = |key: &str| entry.get(key).and_then(Value::as_str);
    field("group") == Some(&resource.group)
        && field("version") == Some(&resource.version)
        && field("kind") == Some(&resource.kind)
}

/// `create api` for one resource, or `None` for one that cannot be made again.
fn api(
    project: &Project,
    resource: &Resource,
    input: &Path,
    hybrid: bool,
) -> Option<Vec<Vec<String>>> {
    let mut step = args(&["create", "api"]);
    let helm = helm_entry(project, resource);
    let plugin = if helm.is_some() { "helm" } else { "rust" };
    if hybrid || helm.is_none() {
        step.extend(args(&["--plugins", plugin]));
    }
    step.extend(gvk_flags(resource));
    if let Some(plural) = &resource.plural {
        step.extend(["--plural".into(), plural.clone()]);
    }
    // What names the kind: each further controller of it starts so.
    let kind_flags = step.clone();
    if let Some(entry) = helm {
        // The chart as the project has it now: the replay needs no network, and a chart
        // from a repository is the same files.
        let chart = entry.get("chart").and_then(Value::as_str);
        if let Some(dir) = chart.map(|chart| input.join(chart)).filter(|d| d.is_dir()) {
            step.extend(["--helm-chart".into(), dir.to_string_lossy().into_owned()]);
        }
        return Some(vec![step]);
    }
    if resource.is_external() {
        step.extend(external_crd(resource, input)?);
        return Some(vec![step]);
    }
    if resource.api.is_none() && !resource.has_controller() {
        // Webhooks only, for a kind Kubernetes defines: `create webhook` makes it all.
        return Some(Vec::new());
    }
    let mut named = resource.controllers.iter().map(|c| c.name.as_str());
    match &resource.api {
        Some(api) => {
            step.push("--resource".into());
            step.push(format!("--controller={}", resource.has_controller()));
            if !api.namespaced {
                step.push("--namespaced=false".into());
            }
        }
        // A controller for a kind Kubernetes defines.
        None => step.extend(args(&["--resource=false", "--controller"])),
    }
    // Named controllers (`--controller-name`): the first with the API, each other one a
    // controller more for the kind.
    let mut steps = Vec::new();
    if let Some(first) = named.next() {
        step.push(format!("--controller-name={first}"));
    }
    step.extend(deploy_image(project, resource));
    steps.push(step);
    for name in named {
        let mut step = kind_flags.clone();
        step.extend(args(&["--resource=false", "--controller"]));
        step.push(format!("--controller-name={name}"));
        steps.push(step);
    }
    Some(steps)
}

/// `--external-api-crd` with the CRD the project keeps for the external `resource` (and
/// `--external-api-domain`, the rest of its API group), or `None` if it keeps none.
fn external_crd(resource: &Resource, input: &Path) -> Option<Vec<String>> {
    let kept = resource
        .extra
        .get(EXTERNAL_CRD_KEY)
        .and_then(Value::as_str)
        // Only a file of the project's own folder for them.
        .filter(|path| {
            Path::new(path).parent() == Some(Path::new(EXTERNAL_CRD_DIR)) && !path.contains("..")
        })?;
    let file = input.join(kept);
    if !file.is_file() {
        return None;
    }
    let mut flags = vec![
        "--external-api-crd".into(),
        file.to_string_lossy().into_owned(),
    ];
    if let Some(domain) = &resource.domain {
        flags.extend(["--external-api-domain".into(), domain.clone()]);
    }
    Some(flags)
}

/// The deploy-image flags recorded for `resource`, if any.
fn deploy_image(project: &Project, resource: &Resource) -> Vec<String> {
    let Some(options) = project
        .plugins
        .get(DEPLOY_IMAGE)
        .and_then(|data| data.get("resources"))
        .and_then(Value::as_sequence)
        .and_then(|list| list.iter().find(|entry| same_gvk(entry, resource)))
        .and_then(|entry| entry.get("options"))
    else {
        return Vec::new();
    };
    let mut flags = Vec::new();
    for (key, flag) in [
        ("image", "--image"),
        ("containerCommand", "--image-container-command"),
        ("containerPort", "--image-container-port"),
        ("runAsUser", "--run-as-user"),
    ] {
        if let Some(value) = options.get(key).and_then(Value::as_str) {
            flags.extend([flag.to_string(), value.to_string()]);
        }
    }
    flags
}

/// `create webhook` for the webhooks PROJECT records on `resource`.
fn webhook(resource: &Resource) -> Option<Vec<String>> {
    let hooks = resource.webhooks.as_ref()?;
    let mut step = args(&["create", "webhook"]);
    step.extend(gvk_flags(resource));
    if hooks.defaulting {
        step.push("--defaulting".into());
    }
    if hooks.validation {
        step.push("--programmatic-validation".into());
    }
    // Custom paths, where the API server already sends the requests.
    for (key, flag) in [
        ("defaultingPath", "--defaulting-path"),
        ("validationPath", "--validation-path"),
    ] {
        if let Some(path) = hooks.extra.get(key).and_then(Value::as_str) {
            step.extend([flag.to_string(), path.to_string()]);
        }
    }
    if hooks.conversion {
        step.push("--conversion".into());
        for spoke in &hooks.spoke {
            step.extend(["--spoke".into(), spoke.clone()]);
        }
    }
    Some(step)
}

/// Run `replay` of the project in `input` with `binary` into `dir` (created by its `init`,
/// after which the replay's inputs are copied from `input`). A failing step is an error
/// naming the binary, the command and the first line of what it said.
pub fn run(binary: &Path, replay: &Replay, input: &Path, dir: &Path) -> Result<()> {
    for (index, step) in replay.steps.iter().enumerate() {
        if index == 1 {
            copy_inputs(&replay.inputs, input, dir)?;
        }
        let output = Command::new(binary)
            .arg("--no-interactive")
            .arg("--quiet")
            .arg("-C")
            .arg(dir)
            .args(step)
            .env("NO_COLOR", "1")
            .output()
            .map_err(|e| {
                Error::invalid(format!(
                    "cannot run {} ({e}); pass --from-binary <path of a rusty-sdk executable>",
                    shown_path(binary)
                ))
            })?;
        if !output.status.success() {
            let said = String::from_utf8_lossy(&output.stderr);
            let first = said.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            return Err(Error::Project(format!(
                "replaying `rusty-sdk {}` with {} failed: {}",
                step.join(" "),
                shown_path(binary),
                first.trim_start_matches("error: ")
            )));
        }
    }
    Ok(())
}

/// Copy each of `inputs` (paths inside the project) from `input` to `dir`.
fn copy_inputs(inputs: &[String], input: &Path, dir: &Path) -> Result<()> {
    for path in inputs {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        std::fs::copy(input.join(path), &target).map_err(|e| Error::io(input.join(path), e))?;
    }
    Ok(())
}

/// A scratch folder for one replay: `<tmp>/<name>`, the name the project's folder has, so
/// that `init` derives the same defaults from it.
pub fn scratch(name: &std::ffi::OsStr) -> Result<(tempfile::TempDir, PathBuf)> {
    let dir = tempfile::Builder::new()
        .prefix("rusty-sdk-replay-")
        .tempdir()
        .map_err(|e| Error::io(std::env::temp_dir(), e))?;
    let root = dir.path().join(name);
    Ok((dir, root))
}

/// A project file's text, read as every project file is: bounded, regular files only.
fn read_text(path: &Path) -> std::io::Result<String> {
    crate::scaffold::input::read_text(path, crate::scaffold::input::PROJECT_FILE_LIMIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_kept(path: &str) -> Resource {
        let mut resource = Resource::default();
        resource
            .extra
            .insert(EXTERNAL_CRD_KEY.into(), Value::String(path.into()));
        resource
    }

    #[test]
    fn only_paths_inside_the_project_are_copied_into_the_replay() {
        assert!(is_inside("dist/install.yaml"));
        assert!(is_inside("install.yaml"));
        for outside in [
            "",
            "/tmp/install.yaml",
            "../install.yaml",
            "dist/../../x",
            "./x",
        ] {
            assert!(!is_inside(outside), "{outside}");
        }
    }

    #[test]
    fn only_a_kept_crd_of_the_projects_own_folder_is_replayed() {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join(EXTERNAL_CRD_DIR);
        std::fs::create_dir_all(&kept).unwrap();
        std::fs::write(kept.join("a.yaml"), "kind: CustomResourceDefinition\n").unwrap();
        std::fs::write(dir.path().join("outside.yaml"), "x").unwrap();
        let good = format!("{EXTERNAL_CRD_DIR}/a.yaml");
        assert!(external_crd(&with_kept(&good), dir.path()).is_some());
        for hostile in [
            "outside.yaml".to_string(),
            "/etc/passwd".to_string(),
            format!("{EXTERNAL_CRD_DIR}/../../outside.yaml"),
            format!("{EXTERNAL_CRD_DIR}/sub/a.yaml"),
            format!("{EXTERNAL_CRD_DIR}/missing.yaml"),
        ] {
            assert!(
                external_crd(&with_kept(&hostile), dir.path()).is_none(),
                "{hostile} was replayed"
            );
        }
    }
}
