//! The layouts as template functions, so the templates say which shape a line has and
//! the names decide where rustfmt would break it:
//!
//! - `rs_use(path, items, vis="")`: `use path::{items};`
//! - `rs_fn(head, params, ret="", indent=0)`: a signature up to its `{`
//! - `rs_let(lead, indent=0, end=";", ...)` with `call` and `args`, `value`, or `struct`
//!   and `fields`: `lead rhs;`
//! - `rs_field(name, base, calls, indent, end=",")`: a struct literal's field
//! - `rs_call(callee, args, indent=0, end=";")`: a call, macro or tuple (`callee=""`)
//! - `rs_attr(name, args, indent=0)`: `#[name(args)]`
use serde::Deserialize;
use tera::{Kwargs, State, Tera, TeraResult};

use super::{Rhs, assign, attribute, call, field, signature, use_list};

/// The keyword arguments of every `rs_*` function (each reads the ones it takes).
#[derive(Deserialize)]
struct Options {
    #[serde(default)]
    indent: usize,
    #[serde(default)]
    vis: String,
    #[serde(default)]
    path: String,
    #[serde(default)]
    items: Vec<String>,
    #[serde(default)]
    head: String,
    #[serde(default)]
    params: Vec<String>,
    #[serde(default)]
    ret: String,
    #[serde(default)]
    lead: String,
    end: Option<String>,
    call: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    value: Option<String>,
    #[serde(rename = "struct")]
    struct_name: Option<String>,
    #[serde(default)]
    fields: Vec<String>,
    #[serde(default)]
    name: String,
    #[serde(default)]
    base: String,
    #[serde(default)]
    calls: Vec<String>,
    #[serde(default)]
    callee: String,
}

fn options(kwargs: &Kwargs) -> TeraResult<Options> {
    kwargs.deserialize()
}

fn rhs(args: &Options) -> TeraResult<Rhs> {
    match (&args.call, &args.value, &args.struct_name) {
        (Some(callee), None, None) => Ok(Rhs::Call {
            callee: callee.clone(),
            args: args.args.clone(),
        }),
        (None, Some(value), None) => Ok(Rhs::Atom(value.clone())),
        (None, None, Some(name)) => Ok(Rhs::Struct {
            name: name.clone(),
            fields: args.fields.clone(),
        }),
        _ => Err(tera::Error::message(
            "rs_let takes one of call (with args), value, or struct (with fields)",
        )),
    }
}

/// Make the layout functions available to `tera`'s templates.
pub fn register(tera: &mut Tera) {
    tera.register_function("rs_use", |kwargs: Kwargs, _: &State| {
        let a = options(&kwargs)?;
        let items: Vec<&str> = a.items.iter().map(String::as_str).collect();
        TeraResult::Ok(use_list(&a.vis, &a.path, &items))
    });
    tera.register_function("rs_fn", |kwargs: Kwargs, _: &State| {
        let a = options(&kwargs)?;
        TeraResult::Ok(signature(a.indent, &a.head, &a.params, &a.ret))
    });
    tera.register_function("rs_let", |kwargs: Kwargs, _: &State| {
        let a = options(&kwargs)?;
        let end = a.end.clone().unwrap_or_else(|| ";".into());
        TeraResult::Ok(assign(a.indent, &a.lead, &rhs(&a)?, &end))
    });
    tera.register_function("rs_field", |kwargs: Kwargs, _: &State| {
        let a = options(&kwargs)?;
        let end = a.end.clone().unwrap_or_else(|| ",".into());
        let value = Rhs::Chain {
            base: a.base.clone(),
            calls: a.calls.clone(),
        };
        TeraResult::Ok(field(a.indent, &a.name, &value, &end))
    });
    tera.register_function("rs_call", |kwargs: Kwargs, _: &State| {
        let a = options(&kwargs)?;
        let end = a.end.clone().unwrap_or_else(|| ";".into());
        TeraResult::Ok(call(a.indent, &a.callee, &a.args, &end))
    });
    tera.register_function("rs_attr", |kwargs: Kwargs, _: &State| {
        let a = options(&kwargs)?;
        TeraResult::Ok(attribute(a.indent, &a.name, &a.args))
    });
}
