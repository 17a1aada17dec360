//! `rusty-sdk create api --plugins helm`: an API whose custom resources are reconciled by
//! installing a Helm chart per resource. It stages the chart under `helm-charts/<name>/`,
//! the watches.yaml entry, a CRD whose spec schema comes from the chart's values, a sample
//! CR holding the chart's default values, what every API gets (kustomize entries, roles)
//! and the PROJECT resource with the chart recorded as helm plugin data.
mod crd;
mod remote;
mod sample;
pub mod source;
mod stage;

use std::path::Path;

use rusty_sdk_chart::{Chart, ChartError, RenderError};

use crate::cli::CreateApiArgs;
use crate::error::{Error, Result};
use crate::model::{ApiSpec, Group, Kind, Version};
use crate::project::Project;
use crate::scaffold::Tree;
use crate::session::Session;
use source::{ChartRef, FetchedChart};
pub use stage::stage;

/// Where charts live in a project.
pub const CHARTS_DIR: &str = "helm-charts";
/// operator-sdk's defaults when a chart is given without --group / --version.
pub const DEFAULT_GROUP: &str = "charts";
pub const DEFAULT_VERSION: &str = "v1alpha1";

pub fn run(session: &Session, mut project: Project, args: &CreateApiArgs) -> Result<()> {
    let mut tree = Tree::new(&session.root);
    let spec = stage_api(session, &mut tree, &mut project, args)?;
    super::common::apply(session, tree, &project)?;
    if !session.dry_run {
        session.shell.note(&next_steps(&spec));
    }
    Ok(())
}

/// Check the flags and the chart, then stage every file of the Helm API into `tree` and
/// record it in `project`, writing nothing: `create api` commits the tree, and `init` with
/// `--kind` or `--helm-chart` commits it with the project's base tree as one change.
pub fn stage_api(
    session: &Session,
    tree: &mut Tree,
    project: &mut Project,
    args: &CreateApiArgs,
) -> Result<ApiSpec> {
    let request = Request::from_args(args, &session.root)?;
    warn_if_version_is_ignored(session, &request);
    if let Some(kind) = &request.kind {
        // Known names: refuse an existing API before any download.
        request
            .spec(project, kind.clone())?
            .check_new(project, session.force, true)?;
    }
    let fetched = match (&request.chart, &request.kind) {
        (Some(chart), _) => source::fetch(chart, &session.shell)?,
        (None, Some(kind)) => source::starter(&kind.lower()),
        (None, None) => return Err(neither_kind_nor_chart()),
    };
    let chart = load(&fetched)?;
    // The renders for role.yaml run while the chart is checked and its API staged (the
    // starter's objects are known without them).
    if !fetched.is_starter {
        crate::rbac::ahead::start(&fetched.origin, &fetched.files);
        check_renders(&chart, &fetched.origin, session)?;
    }

    let kind = match &request.kind {
        Some(kind) => kind.clone(),
        None => kind_from_chart(&chart)?,
    };
    let spec = request.spec(project, kind)?;
    spec.check_new(project, session.force, true)?;
    check_chart_folder_is_free(tree, project, &spec, &chart, fetched.is_starter)?;

    let project_dir = session
        .root
        .file_name()
        .map_or_else(|| ".".to_string(), |n| n.to_string_lossy().into_owned());
    stage(tree, &spec, &chart, &fetched, project, &project_dir)?;
    Ok(spec)
}

/// What to do once the API is written.
pub fn next_steps(spec: &ApiSpec) -> String {
    format!(
        "Next: install the CRD and run the operator against your cluster with:\n$ make install run\n\
         then create a {kind} from {sample}; its spec is the chart's values",
        kind = spec.kind,
        sample = spec.sample_path()
    )
}

/// The flags, validated, before anything is read or downloaded; group and version carry
/// operator-sdk's defaults.
struct Request {
    group: Group,
    version: Version,
    kind: Option<Kind>,
    chart: Option<ChartRef>,
    chart_version: Option<String>,
    plural: Option<String>,
    namespaced: bool,
}

impl Request {
    fn from_args(args: &CreateApiArgs, root: &Path) -> Result<Request> {
        if args.helm_chart.is_none() {
            for (flag, value) in [
                ("--helm-chart-repo", &args.helm_chart_repo),
                ("--helm-chart-version", &args.helm_chart_version),
            ] {
                if value.is_some() {
                    return Err(Error::invalid(format!(
                        "value of {flag} can only be used with --helm-chart (the chart to take from that repository)"
                    )));
                }
            }
        }
        if !args.namespaced {
            // The runtime installs each resource's release into the resource's namespace.
            return Err(Error::invalid(
                "--namespaced=false: a Helm API must be namespaced, because each resource's Helm release lives in the resource's namespace; drop the flag",
            ));
        }
        let kind = args.kind.as_deref().map(Kind::parse).transpose()?;
        let chart = args
            .helm_chart
            .as_deref()
            .map(|chart| {
                ChartRef::parse(
                    chart,
                    args.helm_chart_repo.as_deref(),
                    args.helm_chart_version.as_deref(),
                    root,
                )
            })
            .transpose()?;
        if kind.is_none() && chart.is_none() {
            return Err(neither_kind_nor_chart());
        }
        Ok(Request {
            group: Group::parse(args.group.as_deref().unwrap_or(DEFAULT_GROUP))?,
            version: Version::parse(args.version.as_deref().unwrap_or(DEFAULT_VERSION))?,
            kind,
            chart,
            chart_version: args.helm_chart_version.clone(),
            plural: args.plural.clone(),
            namespaced: args.namespaced,
        })
    }

    fn spec(&self, project: &Project, kind: Kind) -> Result<ApiSpec> {
        ApiSpec::new(
            project,
            self.group.clone(),
            self.version.clone(),
            kind,
            self.plural.as_deref(),
            self.namespaced,
        )
    }
}

/// A chart folder belongs to the API that created it: another API copying its chart there
/// would replace that API's chart (or mix two charts' files), so it is refused, naming the
/// owner. The same API re-scaffolded with `--force` may rewrite its own folder.
fn check_chart_folder_is_free(
    tree: &Tree,
    project: &Project,
    spec: &ApiSpec,
    chart: &Chart,
    is_starter: bool,
) -> Result<()> {
    let folder = format!("{CHARTS_DIR}/{}", chart.name());
    let this = (
        spec.qualified_group(),
        spec.version.as_str(),
        spec.kind.as_str(),
    );
    let owner = crate::rbac::helm_apis::helm_apis(tree, project)?
        .into_iter()
        .find(|api| {
            api.chart_dir == folder
                && (api.group.as_str(), api.version.as_str(), api.kind.as_str())
                    != (this.0.as_str(), this.1, this.2)
        });
    let Some(owner) = owner else {
        return Ok(());
    };
    let fix = if is_starter {
        "choose another --kind (the starter chart is named after the kind), or pass --helm-chart with a chart of another name"
    } else {
        "give the chart another name (`name` in its Chart.yaml) so that it gets a folder of its own"
    };
    Err(Error::Project(format!(
        "the chart folder {folder} is the chart of {}/{}, Kind={}; {} cannot share it, since each Helm API's chart is its own to change: {fix} (nothing was written)",
        owner.group,
        owner.version,
        owner.kind,
        spec.display()
    )))
}

/// operator-sdk ignores the version of a local chart or an archive URL; say so.
fn warn_if_version_is_ignored(session: &Session, request: &Request) {
    let fixed = matches!(
        request.chart,
        Some(ChartRef::Local { .. } | ChartRef::ArchiveUrl(_))
    );
    if fixed && request.chart_version.is_some() {
        session.shell.warn(
            "--helm-chart-version is ignored: it selects a version in a repository or registry, not of a local chart or an archive URL",
        );
    }
}

/// operator-sdk's default kind: the chart name in CamelCase (`web-app` -> `WebApp`).
fn kind_from_chart(chart: &Chart) -> Result<Kind> {
    Kind::from_chart_name(chart.name()).map_err(|_| {
        Error::invalid(format!(
            "the chart name {:?} does not make a valid kind; pass --kind (PascalCase, e.g. Memcached)",
            chart.name()
        ))
    })
}

fn neither_kind_nor_chart() -> Error {
    Error::invalid(
        "either --kind or --helm-chart need to be provided: --kind alone scaffolds Helm's starter chart named after the kind",
    )
}

/// Load the fetched files as Helm would, with Helm's checks on Chart.yaml.
fn load(fetched: &FetchedChart) -> Result<Chart> {
    let chart =
        Chart::from_files(&fetched.origin, fetched.files.clone()).map_err(|e| chart_error(&e))?;
    let origin = fetched.origin.display();
    let metadata = chart.metadata();
    for (field, value) in [
        ("apiVersion", &metadata.api_version),
        ("name", &metadata.name),
        ("version", &metadata.version),
    ] {
        if value.trim().is_empty() {
            return Err(Error::invalid(format!(
                "invalid Chart.yaml in {origin}: `{field}` is required; fix the chart's Chart.yaml"
            )));
        }
    }
    let name = chart.name();
    // The name becomes a folder under helm-charts/ and a plain scalar in watches.yaml,
    // where `#`, `: `, a trailing space or a line break would change what it says.
    let plain = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && !name.starts_with(['.', '-'])
        && name.len() <= 200;
    if !plain {
        return Err(Error::invalid(format!(
            "invalid Chart.yaml in {origin}: the chart name {} cannot be a folder name under {CHARTS_DIR}/ and a path in watches.yaml: it may have only letters, digits, '-', '_' and '.' (not first), at most 200; rename the chart (`name` in its Chart.yaml)",
            crate::model::names::shown(name)
        )));
    }
    Ok(chart)
}

fn chart_error(e: &ChartError) -> Error {
    Error::invalid(e.to_string())
}

/// Render the chart once with its defaults, so a template that does not parse is found now
/// (with its file and line) rather than by the operator at run time. Other failures may be
/// values only a real CR supplies (`required`), so they are warnings.
fn check_renders(chart: &Chart, origin: &Path, session: &Session) -> Result<()> {
    let options = rusty_sdk_chart::RenderOptions::default();
    match rusty_sdk_chart::render(chart, &serde_json::json!({}), &options) {
        Ok(_) => Ok(()),
        Err(e @ RenderError::Parse { .. }) => Err(Error::invalid(format!(
            "template parse error in the chart {}: {e}; fix the template and run the command again",
            origin.display()
        ))),
        Err(e) => {
            session.shell.warn(&format!(
                "the chart {} does not render with its default values ({e}); each {} must set what it needs",
                origin.display(),
                chart.name()
            ));
            Ok(())
        }
    }
}
