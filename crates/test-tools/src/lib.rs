//! What the test suite needs from the machine, decided when the tests are built
//! (`build.rs`), so that a test whose tool or data is missing is counted as ignored by the
//! test runner, with the reason and how to get it, instead of passing after a notice.
//!
//! ```text
//! #[rusty_sdk_test_tools::needs(kubectl)]
//! #[test]
//! fn the_kustomization_builds() {
//!     let kubectl = rusty_sdk_test_tools::path!(kubectl);
//! }
//! ```
//!
//! Names: see the table in `build.rs`. Under `CI=true` nothing may be missing: the build
//! fails instead.
use proc_macro::{TokenStream, TokenTree};

include!(concat!(env!("OUT_DIR"), "/needs.rs"));

/// Where `name` was found, or why it is missing; `Err` for a name the table lacks.
fn lookup(name: &str) -> Result<Result<&'static str, &'static str>, String> {
    NEEDS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, found)| *found)
        .ok_or_else(|| {
            let known: Vec<&str> = NEEDS.iter().map(|(n, _)| *n).collect();
            format!("unknown need `{name}`; known: {}", known.join(", "))
        })
}

/// The names of `a, b, c`.
fn names(input: TokenStream) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for token in input {
        match token {
            TokenTree::Ident(ident) => out.push(ident.to_string()),
            TokenTree::Punct(p) if p.as_char() == ',' => {}
            other => {
                return Err(format!(
                    "expected names separated by commas, found `{other}`"
                ));
            }
        }
    }
    Ok(out)
}

fn compile_error(message: &str) -> TokenStream {
    format!("::core::compile_error!({message:?});")
        .parse()
        .unwrap()
}

/// Marks the test `#[ignore = "<what> not found: <how to get it>"]` when anything it needs
/// is missing; leaves it as it is otherwise. Put it above `#[test]`.
#[proc_macro_attribute]
pub fn needs(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut missing = Vec::new();
    for name in match names(attr) {
        Ok(names) => names,
        Err(e) => return compile_error(&e),
    } {
        match lookup(&name) {
            Ok(Ok(_)) => {}
            Ok(Err(why)) => missing.push(why),
            Err(e) => return compile_error(&e),
        }
    }
    if missing.is_empty() {
        return item;
    }
    let mut out: TokenStream = format!("#[ignore = {:?}]", missing.join("; "))
        .parse()
        .unwrap();
    out.extend(item);
    out
}

/// What the build found for the one name of a function-like macro.
fn found_for(
    macro_name: &str,
    input: TokenStream,
) -> Result<Result<&'static str, &'static str>, String> {
    match names(input)?.as_slice() {
        [name] => lookup(name),
        _ => Err(format!("{macro_name}! takes one name")),
    }
}

/// The absolute path of a tool or data folder the build found, as a `&'static str`; a
/// test run with `--ignored` although it is missing fails with the reason.
#[proc_macro]
pub fn path(input: TokenStream) -> TokenStream {
    match found_for("path", input) {
        Ok(Ok(path)) => format!("{path:?}"),
        Ok(Err(why)) => format!("::core::option::Option::<&'static str>::None.expect({why:?})"),
        Err(e) => return compile_error(&e),
    }
    .parse()
    .unwrap()
}

/// `Some(path)` of a tool or data folder the build found, `None` when it is missing: for
/// programs (examples) that say so themselves instead of being skipped.
#[proc_macro]
pub fn found(input: TokenStream) -> TokenStream {
    match found_for("found", input) {
        Ok(Ok(path)) => format!("::core::option::Option::Some({path:?})"),
        Ok(Err(_)) => "::core::option::Option::<&'static str>::None".into(),
        Err(e) => return compile_error(&e),
    }
    .parse()
    .unwrap()
}
