//! The sprig v3 function library as Helm registers it (`sprig.TxtFuncMap()` without
//! `env` and `expandenv`), as template functions that follow Go's semantics: argument
//! types are checked as Go's template engine checks them, numbers print as Go prints
//! them, and failures read like Go's errors.
//!
//! One difference cannot be helped: our engine has one integer type, so `typeOf`/`kindOf`
//! report sprig's int64 results (add, mul...) as `int`, and its `[]string` results
//! (splitList, keys...) as `[]interface {}`.
//!
//! Helm's own functions (include, tpl, required, fail, lookup, toYaml, toJson,
//! fromJson...) are registered by the engine on top of these, replacing the sprig
//! versions of the same name as Helm does.
use gotemplate::FuncMap;

pub(crate) mod args;
mod bounds;
mod casing;
pub mod cast;
mod certificate;
mod certs;
mod convert;
mod crypto;
mod dates;
mod dicts;
mod dsa;
mod encoding;
pub(crate) mod gotime;
mod layout;
mod lc;
mod lists;
mod math;
mod paths;
mod regex;
mod rsa_gen;
mod rsa_primes;
pub mod semver;
pub(crate) mod spare_keys;
mod standalone;
mod strings;
mod text;
mod urls;

#[cfg(test)]
mod tests;

pub(crate) use args::go_type;
pub(crate) use cast::strval;
pub use certs::KeyReuse;
pub(crate) use convert::{must_to_json, to_json};
pub use dicts::{deep_copy, merge_into};
pub use standalone::execute_standalone;

/// sprig's function families, each a table of [`args::Function`]s: the template name,
/// its Go type and the named function that does the work.
pub(crate) const TABLES: &[&[args::Function]] = &[
    certs::FUNCTIONS,
    convert::FUNCTIONS,
    crypto::FUNCTIONS,
    dates::FUNCTIONS,
    dicts::FUNCTIONS,
    encoding::FUNCTIONS,
    lists::FUNCTIONS,
    math::FUNCTIONS,
    paths::FUNCTIONS,
    regex::FUNCTIONS,
    semver::FUNCTIONS,
    strings::FUNCTIONS,
    urls::FUNCTIONS,
];

/// Every sprig function Helm offers, keyed by its template name.
pub fn funcs() -> FuncMap {
    let mut m = FuncMap::new();
    for table in TABLES {
        args::add_all(&mut m, table);
    }
    m
}
