//! `rusty-sdk generate bundle`: an OLM bundle (operator-sdk's `generate bundle`, with its
//! flags, see `flags`) from the kustomize output of config/manifests, on stdin (`make
//! bundle` pipes it) or in the folder of `--input-dir`.
//!
//! The ClusterServiceVersion starts from the user's base,
//! `config/manifests/bases/<package>.clusterserviceversion.yaml` (written on the first run,
//! then never touched), so every field edited there survives regeneration; the install
//! strategy, permissions, owned CRDs, examples and version are filled in from the manifests.
mod csv;
mod flags;
mod webhooks;

use std::fmt::Write as _;
use std::io::IsTerminal;

use serde_json::Value;

use super::bundle_validate::{self, Bundle, Document};
use crate::cli::BundleArgs;
use crate::error::{Error, Result};
use crate::kustomize_output::{self, Object};
use crate::project::Project;
use crate::scaffold::{Policy, Tree};
use crate::session::Session;
use crate::yaml;

pub struct BundleSettings {
    pub package: String,
    /// `--extra-service-accounts`: accounts besides the deployments' whose RBAC the CSV
    /// carries.
    pub extra_service_accounts: Vec<String>,
    pub version: String,
    pub channels: String,
    pub default_channel: String,
    pub output_dir: String,
}

pub fn run(session: &Session, args: &BundleArgs) -> Result<()> {
    let parts = flags::Parts::from_args(args)?;
    let input = flags::input(args)?;
    let kustomize_dir = flags::kustomize_dir(args)?;
    let project = session.load_project()?;
    let package = package(args, &project)?;
    let mut tree = Tree::new(&session.root);
    let base_path = format!("{kustomize_dir}/bases/{package}.clusterserviceversion.yaml");
    let base = read_base(&mut tree, &base_path, &package, &project, parts)?;
    let settings = settings(args, package, &base, &base_path, parts)?;
    let objects = read_objects(session, input, parts)?;
    if parts.manifests {
        extra_service_accounts(&objects, &settings.extra_service_accounts)?;
    }

    let csv = csv::build(&base, &objects, &settings);
    let mut whole = Tree::new(&session.root);
    let bundle = stage_bundle(&mut whole, &csv, &objects, &settings)?;
    // The rules of `bundle validate`, on the files about to be written.
    let findings = bundle_validate::check(&bundle);
    let errors: Vec<String> = findings.errors().map(ToString::to_string).collect();
    if parts.manifests && !errors.is_empty() {
        return Err(Error::invalid(format!(
            "the bundle would not pass OLM's checks: {} (fix {base_path} or config/; nothing was written)",
            errors.join("; ")
        )));
    }
    let printed = take_parts(&mut tree, &whole, parts, &settings.output_dir);
    for manifest in printed {
        session.shell.line(&format!(
            "---\n{}",
            String::from_utf8_lossy(&manifest).trim_end()
        ));
    }
    session.apply(tree, &project).map(|_| ())?;
    if parts.manifests && !parts.stdout && !session.dry_run {
        session.shell.note(&format!(
            "Next: edit {base_path} (description, icon, keywords, install modes...), run `make bundle` again, then:\n$ make bundle-build bundle-push BUNDLE_IMG=<registry>/<bundle-image>:v{}",
            settings.version
        ));
    }
    Ok(())
}

/// The OLM package: --package, else the project's name.
fn package(args: &BundleArgs, project: &Project) -> Result<String> {
    let package = args
        .package
        .clone()
        .or_else(|| project.project_name.clone())
        .unwrap_or_else(|| "operator".into());
    if !crate::model::names::is_dns_label(&package) {
        let from = match &args.package {
            Some(_) => "--package".to_string(),
            None => "projectName in PROJECT (the default package; pass --package)".to_string(),
        };
        return Err(Error::invalid(format!(
            "invalid {from} {}: an OLM package name is a DNS-1123 label (e.g. memcached-operator)",
            crate::model::names::shown(&package)
        )));
    }
    Ok(package)
}

/// The base CSV the user edits, staged with defaults when the project has none yet.
fn read_base(
    tree: &mut Tree,
    base_path: &str,
    package: &str,
    project: &Project,
    parts: flags::Parts,
) -> Result<Value> {
    Ok(if let Some(text) = tree.read(base_path)? {
        yaml::from_str::<yaml::Value>(&text)
            .map_err(|e| {
                Error::invalid(format!(
                    "{base_path}: not valid YAML ({e}); fix it or delete it to start again"
                ))
            })
            .and_then(|v| {
                serde_json::to_value(v).map_err(|e| Error::invalid(format!("{base_path}: {e}")))
            })?
    } else {
        let display = heck::ToTitleCase::to_title_case(package);
        let base = csv::default_base(package, &display, project.namespaced);
        if parts.manifests && !parts.stdout {
            tree.add(base_path, print(&base)?, Policy::User);
        }
        base
    })
}

/// The bundle's version, channels and folder from the flags and the base CSV, each checked
/// as OLM and Kubernetes will check it.
fn settings(
    args: &BundleArgs,
    package: String,
    base: &Value,
    base_path: &str,
    parts: flags::Parts,
) -> Result<BundleSettings> {
    // As operator-sdk's: the version of the base CSV unless --version sets another.
    let version = match (
        &args.version,
        base.pointer("/spec/version").and_then(Value::as_str),
    ) {
        (Some(version), _) => version.clone(),
        (None, Some(version)) => version.to_string(),
        (None, None) if parts.manifests => {
            return Err(Error::invalid(format!(
                "--version is required: the bundle's semantic version (e.g. --version 0.1.0), as {base_path} has none"
            )));
        }
        // Only the metadata is written, and it holds no version.
        (None, None) => "0.0.0".to_string(),
    };
    if semver::Version::parse(&version).is_err() {
        return Err(Error::invalid(format!(
            "invalid --version {version:?}: a bundle's version is a semantic version (e.g. 0.1.0)"
        )));
    }
    // The CSV is named `<package>.v<version>`, and Kubernetes takes only a DNS-1123
    // subdomain: no build metadata (`+...`), no upper case.
    let csv_name = format!("{package}.v{version}");
    let csv_name_ok =
        csv_name.len() <= 253 && csv_name.split('.').all(crate::model::names::is_dns_label);
    if !csv_name_ok {
        return Err(Error::invalid(format!(
            "invalid --version {}: the CSV would be named {}, which Kubernetes refuses (lower-case letters, digits, '-' and '.'); pass a version without build metadata or upper-case letters (e.g. 0.1.0-rc.1)",
            crate::model::names::shown(&version),
            crate::model::names::shown(&csv_name)
        )));
    }
    let channels = args.channels.clone().unwrap_or_else(|| "alpha".into());
    if let Some(bad) = channels
        .split(',')
        .find(|c| c.is_empty() || c.chars().any(|ch| ch.is_whitespace() || ch.is_control()))
    {
        return Err(Error::invalid(format!(
            "invalid --channels {}: the channel {} is empty or has a space; pass channel names separated by commas alone (e.g. alpha,stable)",
            crate::model::names::shown(&channels),
            crate::model::names::shown(bad)
        )));
    }
    let first = channels.split(',').next().unwrap_or("alpha").to_string();
    let default_channel = args.default_channel.clone().unwrap_or(first);
    if !channels.split(',').any(|c| c == default_channel) {
        return Err(Error::invalid(format!(
            "--default-channel {default_channel:?} is not one of --channels {channels:?}; add it there or pick one of them"
        )));
    }
    Ok(BundleSettings {
        package,
        extra_service_accounts: args.extra_service_accounts.clone(),
        version,
        channels,
        default_channel,
        output_dir: match &args.output_dir {
            Some(dir) => crate::model::names::parse_project_dir("--output-dir", dir)?,
            None => "bundle".into(),
        },
    })
}

/// Each `--extra-service-accounts` name is a service account's, bound by some binding of
/// the manifests: one without is not in the CSV, and OLM would not create it.
fn extra_service_accounts(objects: &[Object], extra: &[String]) -> Result<()> {
    for name in extra {
        if !crate::model::names::is_dns_subdomain(name) {
            return Err(Error::invalid(format!(
                "invalid --extra-service-accounts {}: a service account's name is a DNS-1123 subdomain (lower-case letters, digits, '-' and '.')",
                crate::model::names::shown(name)
            )));
        }
        if !objects.iter().any(|o| csv::bound_to(o, name)) {
            return Err(Error::invalid(format!(
                "--extra-service-accounts {}: no RoleBinding or ClusterRoleBinding of the manifests binds this service account, so the CSV would not carry it; bind it in config/rbac (and list it in its kustomization) or drop the name",
                crate::model::names::shown(name)
            )));
        }
    }
    Ok(())
}

/// The manifests the bundle is made of: from --input-dir, else piped in.
fn read_objects(
    session: &Session,
    input: Option<(String, Option<String>)>,
    parts: flags::Parts,
) -> Result<Vec<Object>> {
    Ok(match input {
        // The metadata needs no manifests.
        _ if !parts.manifests => Vec::new(),
        Some((dir, crds)) => flags::read_input(&session.root, &dir, crds.as_deref())?,
        None if std::io::stdin().is_terminal() => {
            return Err(Error::invalid(
                "no manifests: pipe them in (`kubectl kustomize config/manifests | rusty-sdk generate bundle --version 0.1.0`, which `make bundle` does) or pass --input-dir DIR",
            ));
        }
        None => kustomize_output::read_stdin("standard input")?,
    })
}

/// Move the parts of the bundle `parts` asks for from `whole` into `tree`; the manifests to
/// print instead, with `--stdout`. Metadata the bundle has stays with `--overwrite=false`.
fn take_parts(tree: &mut Tree, whole: &Tree, parts: flags::Parts, out: &str) -> Vec<Vec<u8>> {
    let keep_metadata = parts.metadata
        && (parts.overwrite || !tree.exists(&format!("{out}/metadata/annotations.yaml")));
    let mut printed = Vec::new();
    for (path, file) in whole.staged() {
        if flags::is_manifest(path, out) {
            if parts.stdout {
                printed.push(file.content.clone());
            } else if parts.manifests {
                tree.add(path, file.content.clone(), file.policy);
            }
        } else if keep_metadata {
            tree.add(path, file.content.clone(), file.policy);
        }
    }
    printed
}

fn print(value: &Value) -> Result<String> {
    yaml::to_string(value).map_err(|e| Error::Internal(format!("cannot print the bundle: {e}")))
}

/// bundle/manifests, bundle/metadata, the scorecard tests and bundle.Dockerfile; the
/// bundle as `bundle validate` reads it.
fn stage_bundle(
    tree: &mut Tree,
    csv: &Value,
    objects: &[Object],
    s: &BundleSettings,
) -> Result<Bundle> {
    let out = &s.output_dir;
    let mut bundle = Bundle {
        dir: out.clone(),
        annotations: None,
        manifests: Vec::new(),
        // bundle.Dockerfile's labels and annotations.yaml are written from one list.
        dockerfile: None,
        staged_bytes: None,
    };
    let mut stage = |tree: &mut Tree, file: String, object: &Value| -> Result<()> {
        tree.add(&file, print(object)?, Policy::Tool);
        bundle.manifests.push(Document {
            file,
            object: object.clone(),
            documents: 1,
        });
        Ok(())
    };
    stage(
        tree,
        format!("{out}/manifests/{}.clusterserviceversion.yaml", s.package),
        csv,
    )?;
    let accounts = csv::service_accounts(objects, &s.extra_service_accounts);
    for object in objects {
        let (group, version) = match object.object["apiVersion"]
            .as_str()
            .unwrap_or("")
            .split_once('/')
        {
            Some((g, v)) => (g.to_string(), v.to_string()),
            None => (
                String::new(),
                object.object["apiVersion"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            ),
        };
        let kind = object.kind.as_str();
        // OLM creates the CSV's service accounts, their bindings and roles.
        let carried_by_csv = matches!(kind, "Namespace" | "Deployment" | "ClusterServiceVersion")
            || (kind == "ServiceAccount" && accounts.contains(&object.name))
            || accounts.iter().any(|sa| csv::bound_to(object, sa))
            || csv::consumed_role(objects, object, &accounts)
            || csv::owned_kind(objects, &object.object).is_some()
            || webhooks::made_by_olm(objects, object);
        if kind == "Configuration" && group == "scorecard.operatorframework.io" {
            tree.add(
                &format!("{out}/tests/scorecard/config.yaml"),
                print(&object.object)?,
                Policy::Tool,
            );
            continue;
        }
        if carried_by_csv {
            continue;
        }
        let mut manifest = object.object.clone();
        // OLM installs every object into the namespace of the operator group.
        if let Some(meta) = manifest["metadata"].as_object_mut() {
            meta.remove("namespace");
        }
        if kind == "CustomResourceDefinition" {
            webhooks::without_ca_injection(&mut manifest);
        }
        let file = manifest_file(object, &manifest, &group, version);
        stage(tree, format!("{out}/manifests/{file}"), &manifest)?;
    }
    bundle.annotations = Some(stage_metadata(tree, s));
    bundle.staged_bytes = Some(
        tree.staged()
            .iter()
            .filter(|(path, _)| path.starts_with(&format!("{out}/")))
            .map(|(_, file)| bundle_validate::staged_size(&file.content))
            .sum(),
    );
    Ok(bundle)
}

/// The file name of `manifest` (`object` as the bundle carries it) in bundle/manifests, as
/// operator-sdk names it: `<group>_<plural>.yaml` for a CRD, else
/// `<name>_<group>_<version>_<kind>.yaml`.
fn manifest_file(object: &Object, manifest: &Value, group: &str, version: String) -> String {
    let kind = object.kind.as_str();
    if kind == "CustomResourceDefinition" {
        format!(
            "{}_{}.yaml",
            manifest["spec"]["group"].as_str().unwrap_or(""),
            manifest["spec"]["names"]["plural"]
                .as_str()
                .unwrap_or(&object.name)
        )
    } else {
        let api = if group.is_empty() {
            version
        } else {
            format!("{group}_{version}")
        };
        format!("{}_{api}_{}.yaml", object.name, kind.to_lowercase())
    }
}

/// bundle/metadata/annotations.yaml and bundle.Dockerfile, which carries the same labels;
/// the annotations as `bundle validate` reads them.
fn stage_metadata(tree: &mut Tree, s: &BundleSettings) -> Document {
    let out = &s.output_dir;
    let labels = [
        (
            "operators.operatorframework.io.bundle.mediatype.v1",
            "registry+v1",
        ),
        (
            "operators.operatorframework.io.bundle.manifests.v1",
            "manifests/",
        ),
        (
            "operators.operatorframework.io.bundle.metadata.v1",
            "metadata/",
        ),
        (
            "operators.operatorframework.io.bundle.package.v1",
            s.package.as_str(),
        ),
        (
            "operators.operatorframework.io.bundle.channels.v1",
            s.channels.as_str(),
        ),
        (
            "operators.operatorframework.io.bundle.channel.default.v1",
            s.default_channel.as_str(),
        ),
        (
            "operators.operatorframework.io.test.mediatype.v1",
            "scorecard+v1",
        ),
        (
            "operators.operatorframework.io.test.config.v1",
            "tests/scorecard/",
        ),
    ];
    let metadata: serde_json::Map<String, Value> = labels
        .iter()
        .map(|(key, value)| ((*key).to_string(), Value::from(*value)))
        .collect();
    let annotations_document = Document {
        file: format!("{out}/metadata/annotations.yaml"),
        object: serde_json::json!({ "annotations": metadata }),
        documents: 1,
    };
    let mut annotations = String::from("annotations:\n");
    let mut dockerfile = String::from(
        "FROM scratch\n\n# The bundle's metadata, as labels too (metadata/annotations.yaml).\n",
    );
    for (key, value) in labels {
        let _ = writeln!(annotations, "  {key}: {value}");
        let _ = writeln!(dockerfile, "LABEL {key}={value}");
    }
    let _ = writeln!(
        dockerfile,
        "\nCOPY {out}/manifests /manifests/\nCOPY {out}/metadata /metadata/\nCOPY {out}/tests/scorecard /tests/scorecard/"
    );
    tree.add(
        &format!("{out}/metadata/annotations.yaml"),
        annotations,
        Policy::Tool,
    );
    tree.add("bundle.Dockerfile", dockerfile, Policy::Tool);
    annotations_document
}
