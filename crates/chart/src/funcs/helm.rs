//! Helm's own template functions: include, tpl, required, fail, lookup and the
//! YAML/JSON converters, plus `helmPrint` (Go's number printing for output actions).
use std::cell::Cell;
use std::sync::{Arc, OnceLock, Weak};

use gotemplate::{FuncMap, Template, TemplateError, Value};

use super::{add, arg, fail, strval, yaml_emit};
use crate::convert;

/// Lets `include` and `tpl` reach the template set they are part of, once it is built.
#[derive(Clone, Default)]
pub struct TemplateHandle(Arc<OnceLock<Weak<Template>>>);

impl TemplateHandle {
    pub fn set(&self, set: &Arc<Template>) {
        // A handle is made for one template set; a second set() keeps the first.
        let _ = self.0.set(Arc::downgrade(set));
    }

    fn get(&self) -> Result<Arc<Template>, gotemplate::TemplateError> {
        self.0
            .get()
            .and_then(Weak::upgrade)
            .ok_or_else(|| fail("include/tpl called outside a chart render"))
    }
}

/// Marks errors from `fail` and `required` (`\u{E000}<function>\u{E000}<message>`), which
/// Helm reports as `execution error at (<file>:<line>:<col>): <message>`.
pub const FAIL_MARK: char = '\u{E000}';

fn user_error(function: &str, message: String) -> gotemplate::TemplateError {
    fail(format!("{FAIL_MARK}{function}{FAIL_MARK}{message}"))
}

/// Helm stops runaway recursion of include/tpl.
const MAX_INCLUDE_DEPTH: usize = 1000;
const STACK_RED_ZONE: usize = 512 * 1024;
const STACK_SEGMENT: usize = 8 * 1024 * 1024;

thread_local! {
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

fn nested<T>(
    name: &str,
    f: impl FnOnce() -> Result<T, gotemplate::TemplateError>,
) -> Result<T, gotemplate::TemplateError> {
    let depth = DEPTH.with(|d| {
        d.set(d.get() + 1);
        d.get()
    });
    let result = if depth > MAX_INCLUDE_DEPTH {
        Err(fail(format!(
            "rendering template has a nested reference name: {name}: unable to execute template"
        )))
    } else {
        // Deep include chains would overflow a thread's stack; grow it on the heap.
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, f)
    };
    DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    result
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

/// How Go's fmt prints Helm's `BuildInfo` struct: its fields in declaration order.
fn build_info_text(v: &Value) -> String {
    let fields = [
        "Version",
        "GitCommit",
        "GitTreeState",
        "GoVersion",
        "KubeClientVersion",
    ]
    .map(|f| v.field(f).map(|x| strval(&x)).unwrap_or_default());
    format!("{{{}}}", fields.join(" "))
}

fn yaml_text(v: &Value) -> String {
    let yaml = yaml_emit::to_yaml(v);
    yaml.strip_suffix('\n').unwrap_or(&yaml).to_string()
}

fn error_map(message: String) -> Value {
    convert::map([("Error", super::string(message))])
}

pub fn funcs(handle: &TemplateHandle) -> FuncMap {
    let mut m = FuncMap::new();
    let h = handle.clone();
    add(&mut m, "include", move |a| {
        let name = strval(arg(a, 0));
        let set = h.get()?;
        nested(&name, || {
            set.execute_template_to_string(&name, arg(a, 1))
                .map(super::string)
                .map_err(|e| fail(format!("error calling include: {e}")))
        })
    });
    let h = handle.clone();
    add(&mut m, "tpl", move |a| {
        let text = template_text(arg(a, 0))?;
        let set = h.get()?;
        nested("tpl", || {
            let parsed = (*set)
                .clone()
                .parse(&crate::engine::rewrite::rewrite(&text))
                .map_err(|e| {
                    fail(format!(
                        "error calling tpl: cannot parse template {text:?}: {e}"
                    ))
                })?;
            let out = parsed
                .execute_to_string(arg(a, 1))
                .map_err(|e| fail(format!("error calling tpl: {e}")))?;
            Ok(super::string(out.replace("<no value>", "")))
        })
    });
    add(&mut m, "required", |a| match arg(a, 1) {
        Value::Nil => Err(user_error("required", strval(arg(a, 0)))),
        Value::String(s) if s.is_empty() => Err(user_error("required", strval(arg(a, 0)))),
        v => Ok(v.clone()),
    });
    add(&mut m, "fail", |a| {
        Err(user_error("fail", strval(arg(a, 0))))
    });
    add(&mut m, "lookup", |_| Ok(convert::map([])));
    add(&mut m, "toYaml", |a| {
        Ok(super::string(yaml_text(arg(a, 0))))
    });
    add(&mut m, "mustToYaml", |a| {
        Ok(super::string(yaml_text(arg(a, 0))))
    });
    add(&mut m, "toYamlPretty", |a| {
        let yaml = yaml_emit::to_yaml_pretty(arg(a, 0));
        Ok(super::string(yaml.strip_suffix('\n').unwrap_or(&yaml)))
    });
    add(&mut m, "toToml", |a| {
        Ok(super::string(super::toml::to_toml(arg(a, 0))))
    });
    add(&mut m, "fromToml", |a| {
        Ok(super::toml::from_toml(&strval(arg(a, 0))))
    });
    // toJson and mustToJson are sprig's (crate::gojson), the same json.Marshal Helm uses.
    add(&mut m, "fromYaml", |a| {
        Ok(match crate::yaml::parse(&strval(arg(a, 0))) {
            Ok(v @ serde_json::Value::Object(_)) => convert::to_template(&v),
            Ok(serde_json::Value::Null) => convert::map([]),
            Ok(_) => error_map("error unmarshaling JSON: cannot unmarshal into a map".into()),
            Err(e) => error_map(e),
        })
    });
    add(&mut m, "fromYamlArray", |a| {
        Ok(match crate::yaml::parse(&strval(arg(a, 0))) {
            Ok(v @ serde_json::Value::Array(_)) => convert::to_template(&v),
            Ok(serde_json::Value::Null) => Value::List(Arc::from([])),
            Ok(_) => Value::List(Arc::from([super::string("cannot unmarshal into an array")])),
            Err(e) => Value::List(Arc::from([super::string(e)])),
        })
    });
    add(&mut m, "fromJson", |a| {
        Ok(
            match serde_json::from_str::<serde_json::Value>(&strval(arg(a, 0))) {
                Ok(v @ serde_json::Value::Object(_)) => convert::to_template(&v),
                Ok(_) => error_map("json: cannot unmarshal into a map".into()),
                Err(e) => error_map(e.to_string()),
            },
        )
    });
    add(&mut m, "fromJsonArray", |a| {
        Ok(
            match serde_json::from_str::<serde_json::Value>(&strval(arg(a, 0))) {
                Ok(v @ serde_json::Value::Array(_)) => convert::to_template(&v),
                Ok(_) => Value::List(Arc::from([super::string(
                    "json: cannot unmarshal into an array",
                )])),
                Err(e) => Value::List(Arc::from([super::string(e.to_string())])),
            },
        )
    });
    add(&mut m, "helmBuildInfo", |a| {
        Ok(super::string(build_info_text(arg(a, 0))))
    });
    add(&mut m, "helmPrint", |a| {
        let v = arg(a, 0);
        Ok(crate::gofmt::sprint_if_different(v).map_or_else(|| v.clone(), super::string))
    });
    m
}
