//! Parsing every template file of a chart tree into one template set, as Helm does.
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use gotemplate::{FuncMap, Template, TemplateError, Value};

use super::rewrite::{self, ActionMap};
use super::{Renderable, check};
use crate::error::RenderError;
use crate::funcs::{self, TemplateHandle};

/// Template sets already parsed for a chart, by the list of template files they hold
/// (which depends on the subcharts a render enables). Rendering the same chart again
/// skips parsing; the functions of a set refer to that set only, so it can be reused.
#[derive(Clone, Default)]
pub struct RenderCache(Arc<Mutex<HashMap<Vec<String>, Arc<TemplateSet>>>>);

impl std::fmt::Debug for RenderCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RenderCache")
    }
}

impl RenderCache {
    /// The set for `renderables`, parsed on first use.
    pub(super) fn get_or_parse(
        &self,
        renderables: &[Renderable],
    ) -> Result<Arc<TemplateSet>, RenderError> {
        let key: Vec<String> = renderables.iter().map(|r| r.name.clone()).collect();
        let mut cache = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(set) = cache.get(&key) {
            return Ok(set.clone());
        }
        let handle = TemplateHandle::default();
        let set = Arc::new(parse_all(renderables, &funcs::all(&handle))?);
        handle.set(&set.set);
        cache.insert(key, set.clone());
        Ok(set)
    }
}

/// The parsed templates of a render.
pub struct TemplateSet {
    pub set: Arc<Template>,
    /// Per file: how rewritten positions map back to the file (for error positions).
    pub action_maps: BTreeMap<String, ActionMap>,
    /// Files whose body holds no action (only text, comments and `define`s). gotmpl does
    /// not register such a file under its name; Go would print its text.
    pub static_output: BTreeMap<String, String>,
}

/// Parse `renderables` in order (later `define`s win, as in Go).
fn parse_all(renderables: &[Renderable], funcs: &FuncMap) -> Result<TemplateSet, RenderError> {
    let mut set = Template::new("").funcs(funcs.clone());
    let mut action_maps = BTreeMap::new();
    let mut static_output = BTreeMap::new();
    for r in renderables {
        let (source, map) = rewrite::rewrite_with_map(&r.source);
        action_maps.insert(r.name.clone(), map);
        let parsed = Template::new(&r.name)
            .funcs(funcs.clone())
            .parse(&source)
            .map_err(|e| parse_error(&r.name, e))?;
        for def in parsed.templates() {
            if let Some((line, func)) = parsed
                .lookup(def)
                .and_then(|t| check::undefined_function(t, funcs))
            {
                return Err(RenderError::Parse {
                    template: r.name.clone(),
                    line,
                    col: 0,
                    message: format!("function {func:?} not defined"),
                });
            }
            if let Some(tree) = parsed.lookup(def) {
                set = set.add_parse_tree(def, tree.clone());
            }
        }
        if r.render && parsed.lookup(&r.name).is_none() {
            // No actions: the output is the file's text outside its defines.
            let text = parsed.execute_to_string(&Value::Nil).unwrap_or_default();
            static_output.insert(r.name.clone(), text);
        }
    }
    Ok(TemplateSet {
        set: Arc::new(set),
        action_maps,
        static_output,
    })
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
