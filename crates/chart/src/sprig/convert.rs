//! sprig's defaults.go and reflect.go: default, empty, coalesce, all, any, ternary,
//! the JSON functions, and Go type inspection (typeOf, kindOf, deepEqual).
use gotemplate::{FuncMap, Value};

use super::args::{add, at_least, boolean, call_error, exact, go_type, s, string};
use super::cast::empty;
use crate::gojson::{self as json, JsonStyle};

pub(crate) fn register(m: &mut FuncMap) {
    add(m, "default", |a| {
        let a = at_least("default", a, 1)?;
        Ok(match a.get(1) {
            Some(given) if !empty(given) => given.clone(),
            _ => a[0].clone(),
        })
    });
    add(m, "empty", |a| {
        Ok(Value::Bool(empty(&exact("empty", a, 1)?[0])))
    });
    add(m, "coalesce", |a| {
        Ok(a.iter().find(|v| !empty(v)).cloned().unwrap_or(Value::Nil))
    });
    add(m, "all", |a| Ok(Value::Bool(a.iter().all(|v| !empty(v)))));
    add(m, "any", |a| Ok(Value::Bool(a.iter().any(|v| !empty(v)))));
    add(m, "ternary", |a| {
        let a = exact("ternary", a, 3)?;
        Ok(if boolean(&a[2])? {
            a[0].clone()
        } else {
            a[1].clone()
        })
    });
    // Helm's engine reports this error as "execution error at (file:line:col): msg".
    add(m, "fail", |a| {
        Err(call_error("fail", string(&exact("fail", a, 1)?[0])?))
    });
    register_json(m);
    add(m, "typeOf", |a| Ok(s(go_type(&exact("typeOf", a, 1)?[0]))));
    add(m, "typeIs", |a| {
        let a = exact("typeIs", a, 2)?;
        Ok(Value::Bool(string(&a[0])? == go_type(&a[1])))
    });
    add(m, "typeIsLike", |a| {
        let a = exact("typeIsLike", a, 2)?;
        let (target, t) = (string(&a[0])?, go_type(&a[1]));
        Ok(Value::Bool(target == t || format!("*{target}") == t))
    });
    add(m, "kindOf", |a| {
        Ok(s(exact("kindOf", a, 1)?[0].kind_name()))
    });
    add(m, "kindIs", |a| {
        let a = exact("kindIs", a, 2)?;
        Ok(Value::Bool(string(&a[0])? == a[1].kind_name()))
    });
    add(m, "deepEqual", |a| {
        let a = exact("deepEqual", a, 2)?;
        Ok(Value::Bool(a[0] == a[1]))
    });
}

fn register_json(m: &mut FuncMap) {
    let styles = [
        ("toJson", "mustToJson", JsonStyle::MARSHAL),
        (
            "toPrettyJson",
            "mustToPrettyJson",
            JsonStyle {
                pretty: true,
                escape_html: true,
            },
        ),
        (
            "toRawJson",
            "mustToRawJson",
            JsonStyle {
                pretty: false,
                escape_html: false,
            },
        ),
    ];
    for (name, must, style) in styles {
        add(m, name, move |a| {
            Ok(s(
                json::encode(&exact(name, a, 1)?[0], style).unwrap_or_default()
            ))
        });
        add(m, must, move |a| {
            let v = &exact(must, a, 1)?[0];
            json::encode(v, style)
                .map(s)
                .ok_or_else(|| call_error(must, json::unsupported(v)))
        });
    }
    add(m, "fromJson", |a| {
        Ok(json::decode(string(&exact("fromJson", a, 1)?[0])?).unwrap_or(Value::Nil))
    });
    add(m, "mustFromJson", |a| {
        json::decode(string(&exact("mustFromJson", a, 1)?[0])?)
            .map_err(|e| call_error("mustFromJson", e))
    });
}
