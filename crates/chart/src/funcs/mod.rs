//! Template functions: the sprig library (`crate::sprig`), then Helm's own functions,
//! which always win.
use std::sync::Arc;

use gotemplate::{FuncMap, TemplateError, Templates, Value};

pub(crate) mod files;
pub mod helm;
pub mod toml;
pub mod yaml_emit;
mod yaml_scalar;

/// Every function a chart template can call: sprig's, then Helm's own, which win.
pub fn all() -> FuncMap {
    let mut funcs = crate::sprig::funcs();
    funcs.extend(helm::funcs());
    funcs
}

/// Give a template set every function, `include` and `tpl` included.
pub fn register(set: &mut Templates) {
    set.funcs(&all());
    helm::register_context_funcs(set);
}

/// Register a closure under `name`.
pub(crate) fn add(
    map: &mut FuncMap,
    name: &str,
    f: impl Fn(&[Value]) -> Result<Value, TemplateError> + Send + Sync + 'static,
) {
    map.insert(name.to_string(), Arc::new(f));
}

/// Argument `i`, or nil when missing.
pub(crate) fn arg(args: &[Value], i: usize) -> &Value {
    args.get(i).unwrap_or(&Value::Nil)
}

/// Go's `fmt.Sprint` of one value, as sprig's `toString`/`strval` does.
pub(crate) use crate::sprig::strval;

/// An integer argument (Helm passes float64 values and int literals).
pub(crate) fn int_arg(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::Uint(u) => i64::try_from(*u).unwrap_or(i64::MAX),
        Value::Float(f) => *f as i64,
        Value::String(s) => s.trim().parse().unwrap_or(0),
        Value::Bool(b) => i64::from(*b),
        _ => 0,
    }
}

pub(crate) fn string(s: impl AsRef<str>) -> Value {
    Value::String(Arc::from(s.as_ref()))
}
