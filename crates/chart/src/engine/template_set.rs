//! Parsing every template file of a chart tree into one template set, as Helm does,
//! once per set of files: renders of the same chart reuse the parsed trees.
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use gotemplate::{MissingKey, Templates};

use super::Renderable;
use super::errors::parse_error;
use crate::error::RenderError;

/// The template set Helm's engine builds for a render: the root template is `gotpl`.
pub(crate) const ROOT_NAME: &str = "gotpl";

/// Template sets already parsed for a chart, by the list of template files they hold
/// (which depends on the subcharts a render enables).
#[derive(Clone, Default)]
pub struct RenderCache(Arc<Mutex<HashMap<Vec<String>, Arc<Templates>>>>);

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
    ) -> Result<Arc<Templates>, RenderError> {
        let key: Vec<String> = renderables.iter().map(|r| r.name.clone()).collect();
        let mut cache = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(set) = cache.get(&key) {
            return Ok(set.clone());
        }
        let set = Arc::new(parse_all(renderables)?);
        cache.insert(key, set.clone());
        Ok(set)
    }
}

/// Parse `renderables` in order (later `define`s win, as in Go).
fn parse_all(renderables: &[Renderable]) -> Result<Templates, RenderError> {
    // Every set starts from one prototype holding the functions, built once per
    // process: a chart's fixed cost is its own parsing, nothing more.
    static PROTOTYPE: std::sync::OnceLock<Templates> = std::sync::OnceLock::new();
    let mut set = PROTOTYPE
        .get_or_init(|| {
            let mut set = Templates::new(ROOT_NAME);
            set.missing_key(MissingKey::Zero);
            crate::funcs::register(&mut set);
            set
        })
        .child();
    for r in renderables {
        set.parse(&r.name, &r.source)
            .map_err(|e| parse_error(&r.name, &e))?;
    }
    set.freeze();
    Ok(set)
}
