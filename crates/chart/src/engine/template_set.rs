//! Parsing every template file of a chart tree into one template set, as Helm does.
use std::collections::BTreeMap;

use gotmpl::{FuncMap, Template, TemplateError, Value};

use super::rewrite::{self, ActionMap};
use super::{Renderable, check};
use crate::error::RenderError;

/// The parsed templates of a render.
pub struct TemplateSet {
    pub set: Template,
    /// Per file: how rewritten positions map back to the file (for error positions).
    pub action_maps: BTreeMap<String, ActionMap>,
    /// Files whose body holds no action (only text, comments and `define`s). gotmpl does
    /// not register such a file under its name; Go would print its text.
    pub static_output: BTreeMap<String, String>,
}

/// Parse `renderables` in order (later `define`s win, as in Go).
pub fn parse_all(renderables: &[Renderable], funcs: &FuncMap) -> Result<TemplateSet, RenderError> {
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
        set,
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
