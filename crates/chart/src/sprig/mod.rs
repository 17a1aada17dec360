//! The sprig function library that Helm charts use (strings, lists, dicts, semver, regex,
//! math, dates, encodings, crypto), as gotmpl functions.
use gotmpl::FuncMap;

/// Every sprig function, keyed by its template name.
pub fn funcs() -> FuncMap {
    FuncMap::new()
}
