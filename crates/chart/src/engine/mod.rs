//! Rendering a chart the way Helm's engine does: all templates of the chart tree in one
//! template set, each executed with its chart's objects.
use std::collections::BTreeMap;
use std::sync::Arc;

use gotemplate::{MapRef, Value};

use crate::chart::Chart;
use crate::convert::{string, to_template};
use crate::error::RenderError;

mod errors;
mod objects;
mod options;
mod template_set;

pub(crate) use template_set::RenderCache;

pub(crate) use errors::warn_wrap;
pub use options::{Capabilities, HelmVersion, KubeVersion, Lookup, RenderOptions};

/// One template file of the chart tree with the objects it renders with.
struct Renderable<'c> {
    name: String,
    /// How many `/` the name has (Helm parses deeper paths first).
    depth: usize,
    /// The template's text, borrowed from the chart unless it had to be repaired
    /// (invalid UTF-8).
    source: std::borrow::Cow<'c, str>,
    base_path: String,
    /// The chart's top-level object, one map shared by all templates of the chart
    /// (Helm sets its `Template` entry before running each one).
    top: MapRef,
    /// Partials and library-chart templates are parsed but not rendered.
    render: bool,
}

/// Render a chart with user `values`, as Helm's engine does: dependency processing,
/// value coalescing, values.schema.json validation, then every template.
///
/// # Errors
///
/// In Helm's words: [`RenderError::Schema`] when the values break a values.schema.json,
/// [`RenderError::Parse`] for a template that does not parse, [`RenderError::Execute`]
/// for one that fails while running (`fail`, `required`, a function's error) and for a
/// subchart section of the values that is not a map.
pub fn render(
    chart: &Chart,
    values: &serde_json::Value,
    opts: &RenderOptions,
) -> Result<BTreeMap<String, String>, RenderError> {
    // Keys this render announces and does not take stop being made when it returns.
    let _keys = crate::sprig::spare_keys::RenderKeys::begin();
    crate::dependencies::check_sections(chart, values).map_err(RenderError::Execute)?;
    let chart = crate::dependencies::process(chart, values);
    let merged = helm_values::coalesce_values(&chart, values);
    crate::values::subchart_sections(&chart, &merged, false).map_err(RenderError::Execute)?;
    crate::schema::validate_chart_values(&chart, &merged)?;
    let shared = SharedObjects {
        release: objects::release_object(opts),
        capabilities: objects::capabilities_object(&opts.capabilities),
    };
    let mut renderables = Vec::new();
    collect(
        &chart,
        &to_template(&merged),
        "",
        true,
        &shared,
        &mut renderables,
    );
    // Helm parses deepest paths first and, at equal depth, in reverse name order, so
    // a parent chart's `define` wins over a subchart's.
    renderables.sort_by(|a, b| b.depth.cmp(&a.depth).then_with(|| b.name.cmp(&a.name)));
    let mut set = chart.render_cache.get_or_parse(&renderables)?;
    if let Some(provider) = &opts.lookup {
        // The parsed set is shared by every render of the chart; this render's `lookup`
        // goes into a copy of it (the trees are shared, only the function table is not).
        let mut with_cluster = set.child();
        with_cluster.funcs(&crate::funcs::helm::lookup_funcs(provider.clone()));
        set = Arc::new(with_cluster);
    }
    let mut out = BTreeMap::new();
    for r in renderables.iter().filter(|r| r.render) {
        // Helm's `common.Values`, methods included.
        let fields: MapRef = BTreeMap::from([
            (Arc::from("Name"), string(&r.name)),
            (Arc::from("BasePath"), string(&r.base_path)),
        ])
        .into();
        let template = Value::Map(objects::values_map(&fields));
        r.top.insert(Arc::from("Template"), template);
        let data = Value::Map(r.top.clone());
        let text = set
            .execute(&r.name, &data)
            .map_err(|e| errors::exec_error(&r.name, &e))?;
        out.insert(r.name.clone(), blank_no_value(text));
    }
    Ok(out)
}

/// Helm's workaround for Go printing `<no value>` under missingkey=zero: every
/// occurrence blanked. Most texts have none and are kept as they are.
pub(crate) fn blank_no_value(text: String) -> String {
    if memchr::memmem::find(text.as_bytes(), b"<no value>").is_none() {
        return text;
    }
    text.replace("<no value>", "")
}

/// Gather the templates of `chart` and its subcharts with the objects each renders with;
/// returns `chart`'s own top-level object (its parent's `.Subcharts.<name>`).
///
/// As in Helm, a subchart's `.Values` is the very map its parent sees as
/// `.Values.<subchart>`, and one chart's templates share one `.Values`: a template's
/// `set` on them is seen by the templates rendered after it.
fn collect<'c>(
    chart: &'c Chart,
    values: &Value,
    parent_path: &str,
    is_root: bool,
    shared: &SharedObjects,
    out: &mut Vec<Renderable<'c>>,
) -> Value {
    let path = if parent_path.is_empty() {
        chart.name().to_string()
    } else {
        format!("{parent_path}/charts/{}", chart.name())
    };
    let mut subcharts = BTreeMap::new();
    for sub in &chart.dependencies {
        let sub_values = values.field(sub.name()).unwrap_or(Value::Nil);
        let sub_top = collect(sub, &sub_values, &path, false, shared, out);
        subcharts.insert(Arc::from(sub.name()), sub_top);
    }
    let scoped = match values {
        Value::Map(m) => Value::Map(objects::values_map(m)),
        _ => Value::Map(objects::values_map(&MapRef::default())),
    };
    let top: MapRef = [
        ("Values", scoped),
        ("Release", shared.release.clone()),
        ("Chart", objects::chart_object(&chart.metadata, is_root)),
        ("Capabilities", shared.capabilities.clone()),
        ("Files", objects::files_object(chart)),
        ("Subcharts", Value::Map(MapRef::new(subcharts))),
    ]
    .into_iter()
    .map(|(k, v)| (Arc::from(k), v))
    .collect();
    // The top-level object is itself a common.Values (with its methods).
    let top = objects::values_map(&top);
    let library = chart.metadata.is_library();
    for t in chart.templates.iter() {
        let partial = t
            .name
            .rsplit('/')
            .next()
            .is_some_and(|b| b.starts_with('_'));
        if library && !partial {
            continue;
        }
        let name = format!("{path}/{}", t.name);
        out.push(Renderable {
            depth: name.matches('/').count(),
            name,
            source: match std::str::from_utf8(&t.data) {
                Ok(text) => std::borrow::Cow::Borrowed(text),
                Err(_) => std::borrow::Cow::Owned(t.text()),
            },
            base_path: format!("{path}/templates"),
            top: top.clone(),
            render: !partial,
        });
    }
    Value::Map(top)
}

/// Objects every template of a render shares.
struct SharedObjects {
    release: Value,
    capabilities: Value,
}
