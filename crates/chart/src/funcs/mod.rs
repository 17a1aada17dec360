//! Template functions: the sprig library (`crate::sprig`), then Helm's own functions,
//! which always win.
use std::sync::Arc;

use gotemplate::{FuncMap, TemplateError, Value};

pub mod files;
pub mod helm;
mod printf;
pub mod toml;
pub mod yaml_emit;
mod yaml_scalar;

pub use helm::TemplateHandle;

/// Every function a chart template can call.
pub fn all(handle: &TemplateHandle) -> FuncMap {
    let mut funcs = crate::sprig::funcs();
    funcs.extend(printf::funcs());
    funcs.extend(files::funcs());
    funcs.extend(helm::funcs(handle));
    funcs
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

/// An execution error with `message`.
pub(crate) fn fail(message: impl Into<String>) -> TemplateError {
    TemplateError::Exec(message.into())
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
