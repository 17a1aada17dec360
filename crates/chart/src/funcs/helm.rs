//! Helm's own template functions: include, tpl, required, fail, lookup and the
//! YAML/JSON converters, plus `helmPrint` (Go's number printing for output actions).
use std::sync::Arc;

use gotemplate::{Context, Error, FuncMap, TemplateError, Templates, Value};

use super::{Function, add, add_all, arg, strval, yaml_emit};
use crate::convert;
use crate::engine::warn_wrap;
use crate::sprig;

/// Helm stops runaway recursion of include/tpl (pkg/engine/engine.go recursionMaxNums).
const MAX_INCLUDE_DEPTH: usize = 1000;

/// Helm's `include`: run a named template with some data, counting nested calls per
/// name.
fn include(ctx: &mut Context<'_, '_>, a: &[Value]) -> Result<Value, Error> {
    if a.len() != 2 {
        return Err(Error::Exec(format!(
            "wrong number of args for include: want 2 got {}",
            a.len()
        )));
    }
    let name = match &a[0] {
        Value::String(s) => s.to_string(),
        Value::Nil => return Err(Error::Exec("invalid value; expected string".into())),
        other => {
            return Err(Error::Exec(format!(
                "wrong type for value; expected string; got {}",
                other.type_name()
            )));
        }
    };
    if ctx.count(&name, 0) > MAX_INCLUDE_DEPTH {
        return Err(Error::Call {
            message: format!(
                "rendering template has a nested reference name: {name}: unable to execute template"
            ),
            source: Some(Box::new(Error::call("unable to execute template"))),
        });
    }
    ctx.count(&name, 1);
    let result = ctx.execute_template(&name, &a[1]);
    ctx.count(&name, -1);
    result.map(Value::from).map_err(|e| Error::Call {
        message: e.to_string(),
        source: Some(Box::new(e)),
    })
}

/// Helm's `tpl`: parse a string as a template in a copy of the running set (so its
/// defines stay local) and run it with the given data.
fn tpl(ctx: &mut Context<'_, '_>, a: &[Value]) -> Result<Value, Error> {
    if a.len() != 2 {
        return Err(Error::Exec(format!(
            "wrong number of args for tpl: want 2 got {}",
            a.len()
        )));
    }
    let text = template_text(&a[0])?;
    // Helm has no limit here (Go's stack ends a runaway tpl); stop it as include stops.
    if ctx.count("\u{0}tpl", 0) > MAX_INCLUDE_DEPTH {
        return Err(Error::Call {
            message:
                "rendering template has a nested reference name: tpl: unable to execute template"
                    .into(),
            source: Some(Box::new(Error::call("unable to execute template"))),
        });
    }
    ctx.count("\u{0}tpl", 1);
    let result = tpl_run(ctx, &text, &a[1]);
    ctx.count("\u{0}tpl", -1);
    result
}

fn tpl_run(ctx: &mut Context<'_, '_>, text: &str, data: &Value) -> Result<Value, Error> {
    let text = text.to_string();
    let mut set: Templates = ctx.templates().child();
    let name = set.name().to_string();
    let parsed = match set.parse(&name, &text) {
        Ok(parsed) => parsed,
        Err(e) => {
            return Err(Error::Call {
                message: format!(
                    "cannot parse template {}: {e}",
                    gotemplate::fmt::quote(&text)
                ),
                source: Some(Box::new(e)),
            });
        }
    };
    match ctx.execute_in_set(&set, &parsed, data) {
        Ok(out) => Ok(Value::from(crate::engine::blank_no_value(out))),
        Err(e) => Err(Error::Call {
            message: format!(
                "error during tpl function execution for {}: {e}",
                gotemplate::fmt::quote(&text)
            ),
            source: Some(Box::new(e)),
        }),
    }
}

/// Add `include` and `tpl`, which run templates of the set.
pub fn register_context_funcs(set: &mut Templates) {
    set.context_func("include", Arc::new(include));
    set.context_func("tpl", Arc::new(tpl));
}

/// `tpl`'s first parameter is a Go `string`: Go refuses anything else before calling, a
/// missing or null value included (its type is then `interface {}`).
fn template_text(v: &Value) -> Result<String, TemplateError> {
    match v {
        Value::String(s) => Ok(s.to_string()),
        Value::Nil => Err(TemplateError::Exec(
            "wrong type for value; expected string; got interface {}".to_string(),
        )),
        other => Err(TemplateError::Exec(format!(
            "wrong type for value; expected string; got {}",
            crate::sprig::go_type(other)
        ))),
    }
}

/// Helm's `lookup` backed by a cluster: the object (or list) the provider returns, an
/// empty map when there is none, the provider's error as the call's error. Without a
/// provider, [`funcs`] keeps the client-side `lookup` that always finds nothing.
pub(crate) fn lookup_funcs(provider: Arc<dyn crate::engine::Lookup>) -> FuncMap {
    let mut m = FuncMap::new();
    add(&mut m, "lookup", move |a| {
        // The signature has made every argument a string already.
        let text = |i| strval(arg(a, i));
        match provider.lookup(&text(0), &text(1), &text(2), &text(3)) {
            Ok(object @ serde_json::Value::Object(_)) => {
                Ok(convert::unstructured_to_template(&object))
            }
            Ok(_) => Ok(convert::map([])),
            Err(message) => Err(Error::call(message)),
        }
    });
    m
}

fn yaml_text(v: &Value) -> String {
    let yaml = yaml_emit::to_yaml(v);
    yaml.strip_suffix('\n').unwrap_or(&yaml).to_string()
}

fn error_map(message: String) -> Value {
    convert::map([("Error", super::string(message))])
}

/// Helm's own functions (its funcMap and the engine's `required`, `fail` and `lookup`),
/// with their Go types: registered after sprig's, they replace those of the same name.
/// `toJson` and `mustToJson` keep sprig's bodies (the same json.Marshal) under Helm's
/// types. `include` and `tpl` run templates of the set: [`register_context_funcs`].
pub(crate) const FUNCTIONS: &[Function] = &[
    Function::new(
        "required",
        "func(string, interface {}) (interface {}, error)",
        required,
    ),
    Function::new("fail", "func(string) (string, error)", fail),
    Function::total(
        "lookup",
        "func(string, string, string, string) (map[string]interface {}, error)",
        lookup_nothing,
    ),
    Function::total("toYaml", "func(interface {}) string", to_yaml),
    Function::total("mustToYaml", "func(interface {}) string", to_yaml),
    Function::total("toYamlPretty", "func(interface {}) string", to_yaml_pretty),
    Function::new("toToml", "func(interface {}) string", to_toml),
    Function::new("mustToToml", "func(interface {}) string", must_to_toml),
    Function::total(
        "fromToml",
        "func(string) map[string]interface {}",
        from_toml,
    ),
    Function::total(
        "fromYaml",
        "func(string) map[string]interface {}",
        from_yaml_map,
    ),
    Function::total(
        "fromYamlArray",
        "func(string) []interface {}",
        from_yaml_list,
    ),
    Function::total(
        "fromJson",
        "func(string) map[string]interface {}",
        from_json_map,
    ),
    Function::total(
        "fromJsonArray",
        "func(string) []interface {}",
        from_json_list,
    ),
    Function::named("toJson", "func(interface {}) string", sprig::to_json),
    Function::named(
        "mustToJson",
        "func(interface {}) string",
        sprig::must_to_json,
    ),
];

/// The Go types of `include` and `tpl`.
pub(crate) const CONTEXT_FUNCTIONS: &[(&str, &str)] = &[
    ("include", "func(string, interface {}) (string, error)"),
    ("tpl", "func(string, interface {}) (string, error)"),
];

/// Helm's own functions, keyed by template name.
pub fn funcs() -> FuncMap {
    let mut m = FuncMap::new();
    add_all(&mut m, FUNCTIONS);
    m
}

/// `required message value`: the value, or the message as the render's error when it is
/// nil or "".
fn required(a: &[Value]) -> Result<Value, Error> {
    match arg(a, 1) {
        Value::Nil => Err(Error::call(warn_wrap(&strval(arg(a, 0))))),
        Value::String(s) if s.is_empty() => Err(Error::call(warn_wrap(&strval(arg(a, 0))))),
        v => Ok(v.clone()),
    }
}

fn fail(a: &[Value]) -> Result<Value, Error> {
    Err(Error::call(warn_wrap(&strval(arg(a, 0)))))
}

/// Helm's client-side `lookup`, which finds nothing; [`lookup_funcs`] replaces it when
/// a cluster answers.
fn lookup_nothing(_: &[Value]) -> Value {
    convert::map([])
}

/// `toYaml` and `mustToYaml` (Helm's panics on a value YAML cannot hold; ours holds
/// every template value).
fn to_yaml(a: &[Value]) -> Value {
    super::string(yaml_text(arg(a, 0)))
}

fn to_yaml_pretty(a: &[Value]) -> Value {
    let yaml = yaml_emit::to_yaml_pretty(arg(a, 0));
    super::string(yaml.strip_suffix('\n').unwrap_or(&yaml))
}

/// Helm's toToml returns the encoder's error as its text; a nil value panics in Go's
/// reflection first, which the template reports as the call's error.
fn to_toml(a: &[Value]) -> Result<Value, Error> {
    match super::toml::to_toml(arg(a, 0)) {
        Ok(text) => Ok(super::string(text)),
        Err(super::toml::TomlError::Encode(message)) => Ok(super::string(message)),
        Err(e) => Err(e.into_template_error()),
    }
}

/// Helm's mustToToml panics on any error; Go's template recovers it as the call's.
fn must_to_toml(a: &[Value]) -> Result<Value, Error> {
    super::toml::to_toml(arg(a, 0))
        .map(super::string)
        .map_err(super::toml::TomlError::into_template_error)
}

fn from_toml(a: &[Value]) -> Value {
    super::toml::from_toml(&strval(arg(a, 0)))
}

/// `fromYaml`: the document as a map, or a map holding the error under `Error`.
fn from_yaml_map(a: &[Value]) -> Value {
    match from_yaml(&strval(arg(a, 0)), MAP) {
        Ok(v) => v.unwrap_or_else(|| convert::map([])),
        Err(e) => error_map(e),
    }
}

/// `fromYamlArray`: the document as a list, or a list holding the error.
fn from_yaml_list(a: &[Value]) -> Value {
    // sigs.k8s.io/yaml leaves Helm's empty list as it is for a document that is
    // empty or null (json.Unmarshal of `null` would make it nil: fromJsonArray).
    match from_yaml(&strval(arg(a, 0)), LIST) {
        Ok(v) => v.unwrap_or_else(|| Value::List(Arc::from([]))),
        Err(e) => Value::List(Arc::from([super::string(e)])),
    }
}

/// `fromJson`: the document as a map, or a map holding the error under `Error`.
fn from_json_map(a: &[Value]) -> Value {
    match from_json(&strval(arg(a, 0)), MAP) {
        Ok(v) => v.unwrap_or_else(|| convert::map([])),
        Err(e) => error_map(e),
    }
}

/// `fromJsonArray`: the document as a list, or a list holding the error.
fn from_json_list(a: &[Value]) -> Value {
    match from_json(&strval(arg(a, 0)), LIST) {
        Ok(v) => v.unwrap_or_else(|| Value::nil_slice(LIST)),
        Err(e) => Value::List(Arc::from([super::string(e)])),
    }
}

const MAP: &str = "map[string]interface {}";
const LIST: &str = "[]interface {}";

/// json.Unmarshal of `text` into a Go `target` (a map or a list): the value (`None`
/// for null, which leaves the target nil), or Go's error.
fn from_json(text: &str, target: &str) -> Result<Option<Value>, String> {
    if let Some(e) = crate::gojson::type_error(text, target) {
        // A syntax error comes first, as Go checks the whole text before decoding.
        return Err(crate::gojson::decode(text).err().unwrap_or(e));
    }
    let v = crate::gojson::decode(text)?;
    Ok((!matches!(v, Value::Nil)).then_some(v))
}

/// sigs.k8s.io/yaml's Unmarshal into a Go `target`: the YAML turned into JSON, then
/// decoded as [`from_json`] does, each step's error worded as Helm shows it.
fn from_yaml(text: &str, target: &str) -> Result<Option<Value>, String> {
    let doc =
        crate::yaml::parse(text).map_err(|e| format!("error converting YAML to JSON: {e}"))?;
    let json = doc.to_string();
    if let Some(e) = crate::gojson::type_error(&json, target) {
        return Err(format!("error unmarshaling JSON: while decoding JSON: {e}"));
    }
    Ok((!doc.is_null()).then(|| convert::to_template(&doc)))
}
