//! Template functions: the sprig library (`crate::sprig`), then Helm's own functions,
//! which always win.

use gotemplate::{FuncMap, Templates, Value};

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

/// Give a template set every function, `include` and `tpl` included, each with its
/// Go signature.
pub fn register(set: &mut Templates) {
    set.funcs(&all());
    helm::register_context_funcs(set);
    declare_signatures(set);
}

/// Give every chart function its Go signature.
pub(crate) fn declare_signatures(set: &mut Templates) {
    for (name, signature) in all_signatures() {
        // The tables are checked by the test below; a bad entry leaves a function untyped.
        let _ = set.declare(name, signature);
    }
}

/// `(name, Go type)` of every function, in the order Helm's funcMap is built: the sprig
/// families' tables, then Helm's own, whose types replace sprig's for the same name
/// (the later entry wins).
fn all_signatures() -> impl Iterator<Item = (&'static str, &'static str)> {
    tables().flatten()
}

/// The signature tables, each naming a function at most once.
fn tables() -> impl Iterator<Item = Vec<(&'static str, &'static str)>> {
    let functions = crate::sprig::TABLES.iter().chain([&helm::FUNCTIONS]);
    let typed = functions.map(|table| {
        table
            .iter()
            .map(|function| (function.name, function.go_type))
            .collect()
    });
    typed.chain([helm::CONTEXT_FUNCTIONS.to_vec()])
}

/// The registration and argument helpers every function family shares (one set, in
/// `sprig::args`).
pub(crate) use crate::sprig::args::{Function, add, add_all, s as string};

/// Argument `i`, or nil when missing.
pub(crate) fn arg(args: &[Value], i: usize) -> &Value {
    args.get(i).unwrap_or(&Value::Nil)
}

/// Go's `fmt.Sprint` of one value, as sprig's `toString`/`strval` does.
pub(crate) use crate::sprig::strval;

/// An integer argument (Helm passes float64 values and int literals).
#[expect(
    clippy::cast_possible_truncation,
    reason = "a float64 count truncates; Rust saturates where Go's result is undefined"
)]
pub(crate) fn int_arg(v: &Value) -> i64 {
    match v {
        Value::Int(i) | Value::Int64(i) => *i,
        Value::Uint(u) => i64::try_from(*u).unwrap_or(i64::MAX),
        Value::Float(f) => *f as i64,
        Value::String(s) => s.trim().parse().unwrap_or(0),
        Value::Bool(b) => i64::from(*b),
        _ => 0,
    }
}

#[cfg(test)]
mod signature_tests {
    use std::collections::BTreeSet;

    #[test]
    fn every_function_has_exactly_one_valid_signature() {
        let mut declared = BTreeSet::new();
        for table in super::tables() {
            let mut in_table = BTreeSet::new();
            for (name, signature) in table {
                assert!(
                    gotemplate::Signature::parse(signature).is_ok(),
                    "{name}: {signature}"
                );
                assert!(in_table.insert(name), "{name} is declared twice in a table");
                declared.insert(name);
            }
        }
        let all = super::all();
        let mut defined: BTreeSet<&str> = all.keys().map(String::as_str).collect();
        defined.extend(["include", "tpl"]);
        assert_eq!(declared, defined);
    }

    #[test]
    fn helms_functions_replace_sprigs_types() {
        let winner = |name: &str| super::all_signatures().filter(|(n, _)| *n == name).last();
        assert_eq!(
            winner("fromJson"),
            Some(("fromJson", "func(string) map[string]interface {}"))
        );
        assert_eq!(
            winner("mustToJson"),
            Some(("mustToJson", "func(interface {}) string"))
        );
    }
}
