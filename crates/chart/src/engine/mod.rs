//! Rendering a chart the way Helm's engine does: all templates of the chart tree in one
//! template set, each executed with its chart's objects.
use std::collections::BTreeMap;
use std::sync::Arc;

use gotmpl::{Template, TemplateError, Value};

use crate::convert::{map, string, to_template};
use crate::error::RenderError;
use crate::funcs::{self, TemplateHandle};
use crate::load::Chart;

mod check;
mod objects;
pub(crate) mod rewrite;

/// Release settings of a render. `Default` is what `helm template` uses.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderOptions {
    pub release_name: String,
    pub namespace: String,
    pub revision: i64,
    pub is_install: bool,
    pub is_upgrade: bool,
    pub capabilities: Capabilities,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            release_name: "release-name".into(),
            namespace: "default".into(),
            revision: 1,
            is_install: true,
            is_upgrade: false,
            capabilities: Capabilities::default(),
        }
    }
}

/// `.Capabilities`. `Default` is Helm 4.2's built-in set (no cluster).
#[derive(Debug, Clone, PartialEq)]
pub struct Capabilities {
    pub kube_version: KubeVersion,
    pub api_versions: Vec<String>,
    pub helm_version: HelmVersion,
}

#[derive(Debug, Clone, PartialEq)]
pub struct KubeVersion {
    pub version: String,
    pub major: String,
    pub minor: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct HelmVersion {
    pub version: String,
    pub git_commit: String,
    pub git_tree_state: String,
    pub go_version: String,
    pub kube_client_version: String,
}

/// Helm's `common.DefaultCapabilities` API versions, in Helm's order.
const DEFAULT_API_VERSIONS: &[&str] = &[
    "v1",
    "admissionregistration.k8s.io/v1",
    "admissionregistration.k8s.io/v1alpha1",
    "admissionregistration.k8s.io/v1beta1",
    "internal.apiserver.k8s.io/v1alpha1",
    "apps/v1",
    "apps/v1beta1",
    "apps/v1beta2",
    "authentication.k8s.io/v1",
    "authentication.k8s.io/v1alpha1",
    "authentication.k8s.io/v1beta1",
    "authorization.k8s.io/v1",
    "authorization.k8s.io/v1beta1",
    "autoscaling/v1",
    "autoscaling/v2",
    "batch/v1",
    "batch/v1beta1",
    "certificates.k8s.io/v1",
    "certificates.k8s.io/v1beta1",
    "certificates.k8s.io/v1alpha1",
    "coordination.k8s.io/v1alpha2",
    "coordination.k8s.io/v1beta1",
    "coordination.k8s.io/v1",
    "discovery.k8s.io/v1",
    "discovery.k8s.io/v1beta1",
    "events.k8s.io/v1",
    "events.k8s.io/v1beta1",
    "extensions/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1",
    "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2",
    "flowcontrol.apiserver.k8s.io/v1beta3",
    "networking.k8s.io/v1",
    "networking.k8s.io/v1beta1",
    "node.k8s.io/v1",
    "node.k8s.io/v1alpha1",
    "node.k8s.io/v1beta1",
    "policy/v1",
    "policy/v1beta1",
    "rbac.authorization.k8s.io/v1",
    "rbac.authorization.k8s.io/v1beta1",
    "rbac.authorization.k8s.io/v1alpha1",
    "resource.k8s.io/v1",
    "resource.k8s.io/v1beta2",
    "resource.k8s.io/v1beta1",
    "resource.k8s.io/v1alpha3",
    "scheduling.k8s.io/v1alpha2",
    "scheduling.k8s.io/v1beta1",
    "scheduling.k8s.io/v1",
    "storage.k8s.io/v1beta1",
    "storage.k8s.io/v1",
    "storage.k8s.io/v1alpha1",
    "storagemigration.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1",
];

impl Default for Capabilities {
    fn default() -> Self {
        Capabilities {
            kube_version: KubeVersion {
                version: "v1.36.0".into(),
                major: "1".into(),
                minor: "36".into(),
            },
            api_versions: DEFAULT_API_VERSIONS.iter().map(|s| s.to_string()).collect(),
            helm_version: HelmVersion {
                version: "v4.2".into(),
                git_commit: String::new(),
                git_tree_state: String::new(),
                go_version: "go1.26.6".into(),
                kube_client_version: "v1.36".into(),
            },
        }
    }
}

/// One template file of the chart tree with the objects it renders with.
struct Renderable {
    name: String,
    source: String,
    base_path: String,
    top: BTreeMap<Arc<str>, Value>,
    /// Partials and library-chart templates are parsed but not rendered.
    render: bool,
}

/// Render a chart with user `values`, as Helm's engine does: dependency processing,
/// value coalescing, values.schema.json validation, then every template.
pub fn render(
    chart: &Chart,
    values: &serde_json::Value,
    opts: &RenderOptions,
) -> Result<BTreeMap<String, String>, RenderError> {
    let chart = crate::dependencies::process(chart, values);
    let merged = crate::values::coalesce(&chart, values);
    crate::schema::validate_chart_values(&chart, &merged)?;
    let caps = objects::capabilities_object(&opts.capabilities);
    let release = objects::release_object(opts);
    let mut renderables = Vec::new();
    collect(&chart, &merged, "", true, &caps, &release, &mut renderables);
    // Helm parses deepest paths first and, at equal depth, in reverse name order, so
    // a parent chart's `define` wins over a subchart's.
    renderables.sort_by(|a, b| {
        let (da, db) = (a.name.matches('/').count(), b.name.matches('/').count());
        db.cmp(&da).then_with(|| b.name.cmp(&a.name))
    });
    let handle = TemplateHandle::default();
    let funcs = funcs::all(&handle);
    let mut set = Template::new("").funcs(funcs.clone());
    for r in &renderables {
        let parsed = Template::new(&r.name)
            .funcs(funcs.clone())
            .parse(&rewrite::rewrite(&r.source))
            .map_err(|e| parse_error(&r.name, e))?;
        for def in parsed.templates() {
            if let Some((line, func)) = parsed
                .lookup(def)
                .and_then(|t| check::undefined_function(t, &funcs))
            {
                return Err(RenderError::Parse {
                    template: r.name.clone(),
                    line,
                    col: 0,
                    message: format!("function {func:?} not defined"),
                });
            }
        }
        for def in parsed.templates() {
            if let Some(tree) = parsed.lookup(def) {
                set = set.add_parse_tree(def, tree.clone());
            }
        }
    }
    let set = Arc::new(set);
    handle.set(&set);
    let mut out = BTreeMap::new();
    for r in renderables.iter().filter(|r| r.render) {
        let mut top = r.top.clone();
        top.insert(
            Arc::from("Template"),
            map([
                ("Name", string(&r.name)),
                ("BasePath", string(&r.base_path)),
            ]),
        );
        let text = set
            .execute_template_to_string(&r.name, &Value::Map(Arc::new(top)))
            .map_err(|e| exec_error(&r.name, e))?;
        out.insert(r.name.clone(), text.replace("<no value>", ""));
    }
    Ok(out)
}

fn collect(
    chart: &Chart,
    values: &serde_json::Value,
    parent_path: &str,
    is_root: bool,
    caps: &Value,
    release: &Value,
    out: &mut Vec<Renderable>,
) {
    let path = if parent_path.is_empty() {
        chart.name().to_string()
    } else {
        format!("{parent_path}/charts/{}", chart.name())
    };
    let scoped = match values {
        serde_json::Value::Object(_) => values.clone(),
        _ => serde_json::Value::Object(Default::default()),
    };
    let top: BTreeMap<Arc<str>, Value> = [
        ("Values", to_template(&scoped)),
        ("Release", release.clone()),
        ("Chart", objects::chart_object(&chart.metadata, is_root)),
        ("Capabilities", caps.clone()),
        ("Files", objects::files_object(chart)),
    ]
    .into_iter()
    .map(|(k, v)| (Arc::from(k), v))
    .collect();
    let library = chart.metadata.is_library();
    for t in &chart.templates {
        let partial = t
            .name
            .rsplit('/')
            .next()
            .is_some_and(|b| b.starts_with('_'));
        if library && !partial {
            continue;
        }
        out.push(Renderable {
            name: format!("{path}/{}", t.name),
            source: t.text(),
            base_path: format!("{path}/templates"),
            top: top.clone(),
            render: !partial,
        });
    }
    for sub in &chart.dependencies {
        let sub_values = values
            .get(sub.name())
            .cloned()
            .unwrap_or(serde_json::Value::Null);
        collect(sub, &sub_values, &path, false, caps, release, out);
    }
}

fn parse_error(name: &str, e: TemplateError) -> RenderError {
    match e {
        TemplateError::Parse {
            line, col, message, ..
        }
        | TemplateError::Lex {
            line, col, message, ..
        } => RenderError::Parse {
            template: name.to_string(),
            line,
            col,
            message,
        },
        other => RenderError::Parse {
            template: name.to_string(),
            line: 0,
            col: 0,
            message: other.to_string(),
        },
    }
}

fn exec_error(name: &str, e: TemplateError) -> RenderError {
    let message = match e {
        TemplateError::Exec(m) => m,
        other => other.to_string(),
    };
    RenderError::Execute(format!("template: {name}: executing \"{name}\": {message}"))
}
