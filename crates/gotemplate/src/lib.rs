//! Go's text/template, written for rusty-sdk from Go's documented semantics and its
//! observable behaviour: the engine behind Helm chart rendering.
//!
//! * `lex` turns source into items (delimiters, trim markers, comments, literals);
//! * `parse` builds trees (`ast`) and rejects what Go rejects, with Go's messages;
//! * `exec` walks a tree over [`Value`]s with Go's rules and errors;
//! * `builtins` are text/template's predefined functions, [`fmt`] Go's fmt printing.
//!
//! It is also the workspace's one home for the Go standard-library rules that templates
//! and their callers rest on: [`fmt`] (`fmt`, `strconv.Quote`, `strconv.FormatFloat` at
//! 64 and 32 bits, `unicode.IsPrint`) and [`duration`] (`time.ParseDuration`, `Duration.String`).
//!
//! A [`Templates`] set holds every parsed template by name, as a Go `*Template` and its
//! associates do: parse once, execute any of them many times.
use std::collections::BTreeMap;
use std::sync::Arc;

mod ast;
mod builtins;
pub mod duration;
mod error;
mod exec;
pub mod fmt;
mod lex;
mod numbers;
mod parse;
mod signature;
mod text;
mod value;

pub use builtins::{html_escape, js_escape, query_escape};
pub use error::Error;
pub use exec::Context;
pub use fmt::is_print;
pub use signature::{GoType, Signature};
pub use text::{go_lossy, rune_u};
pub use value::{
    MapEntries, MapMethods, MapRef, MethodSignatures, Object, StructField, TypedSlice, Value,
    ValueFunc,
};

/// The hash map of names the engine looks up on every call and include: foldhash is
/// several times faster than the default `SipHash` on short keys and, seeded per map,
/// as hard to flood with collisions.
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// The engine's error type under the name the chart crate's functions use.
pub type TemplateError = Error;
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Functions by name, as Go's `template.FuncMap`.
pub type FuncMap = BTreeMap<String, ValueFunc>;

/// A function that needs the running template set (Helm's `include` and `tpl`).
pub type ContextFunc = Arc<dyn Fn(&mut Context<'_, '_>, &[Value]) -> Result<Value> + Send + Sync>;

/// A function of a set and its Go type (either may be declared first).
#[derive(Clone, Default)]
struct FuncEntry {
    func: Option<Func>,
    signature: Option<Arc<Signature>>,
}

#[derive(Clone)]
pub(crate) enum Func {
    Plain(ValueFunc),
    Context(ContextFunc),
}

/// One parsed template, as [`Templates::parse`] returns it.
#[derive(Clone, Debug)]
pub struct Template(Arc<ast::Tree>);

/// What a missing map key yields (Go's `missingkey` option).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MissingKey {
    /// `missingkey=default`/`invalid`: no value (prints `<no value>`).
    #[default]
    Invalid,
    /// `missingkey=zero`: the zero value of the map's element type (Helm's choice).
    Zero,
    /// `missingkey=error`: execution stops.
    Error,
}

/// A set of named templates sharing functions and options.
#[derive(Clone)]
pub struct Templates {
    name: String,
    /// Trees shared with the sets derived from this one ([`Templates::child`]).
    base: Arc<HashMap<String, Arc<ast::Tree>>>,
    /// Trees parsed into this set since it was derived or frozen.
    trees: HashMap<String, Arc<ast::Tree>>,
    /// Functions and their Go types by name, found together by one lookup per call.
    funcs: Arc<HashMap<String, FuncEntry>>,
    pub(crate) missing_key: MissingKey,
    delims: (String, String),
}

impl std::fmt::Debug for Templates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Templates")
            .field("name", &self.name)
            .field("templates", &self.names())
            .finish_non_exhaustive()
    }
}

impl Templates {
    /// An empty set whose root template is called `name` (Helm's is `gotpl`).
    pub fn new(name: &str) -> Self {
        Templates {
            name: name.to_string(),
            base: Arc::default(),
            trees: HashMap::default(),
            funcs: Arc::default(),
            missing_key: MissingKey::Invalid,
            delims: ("{{".into(), "}}".into()),
        }
    }

    /// The root template's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Add functions (later ones replace earlier ones of the same name).
    pub fn funcs(&mut self, funcs: &FuncMap) -> &mut Self {
        let map = Arc::make_mut(&mut self.funcs);
        for (name, f) in funcs {
            map.entry(name.clone()).or_default().func = Some(Func::Plain(f.clone()));
        }
        self
    }

    /// Add a function that reaches the running template set.
    pub fn context_func(&mut self, name: &str, f: ContextFunc) -> &mut Self {
        Arc::make_mut(&mut self.funcs)
            .entry(name.to_string())
            .or_default()
            .func = Some(Func::Context(f));
        self
    }

    /// Give function `name` its Go type (`func(int, string) string`), so that calls
    /// are checked and their results typed as Go's reflection would: the arity before
    /// any argument is evaluated, each argument against its parameter right after it
    /// is evaluated, constants against the parameter's kind. A function without a
    /// signature takes and returns anything.
    ///
    /// # Errors
    ///
    /// [`Error::Exec`] naming the function when `signature` is not a Go function type
    /// ([`Signature::parse`]).
    pub fn declare(&mut self, name: &str, signature: &str) -> Result<&mut Self> {
        let sig = Signature::parse(signature)
            .map_err(|e| Error::Exec(format!("signature of function {name}: {e}")))?;
        Arc::make_mut(&mut self.funcs)
            .entry(name.to_string())
            .or_default()
            .signature = Some(Arc::new(sig));
        Ok(self)
    }

    pub fn missing_key(&mut self, mk: MissingKey) -> &mut Self {
        self.missing_key = mk;
        self
    }

    /// Use other action delimiters (Go's `Delims`).
    pub fn delims(&mut self, left: &str, right: &str) -> &mut Self {
        self.delims = (left.to_string(), right.to_string());
        self
    }

    /// Function `name` and its signature, if it has one.
    pub(crate) fn func(&self, name: &str) -> Option<(&Func, Option<&Signature>)> {
        let entry = self.funcs.get(name)?;
        Some((entry.func.as_ref()?, entry.signature.as_deref()))
    }

    fn has_function(&self, name: &str) -> bool {
        self.funcs.get(name).is_some_and(|e| e.func.is_some()) || builtins::is_builtin(name)
    }

    pub(crate) fn tree(&self, name: &str) -> Option<Arc<ast::Tree>> {
        self.trees
            .get(name)
            .or_else(|| self.base.get(name))
            .cloned()
    }

    /// Move every parsed template into the shared part, so that [`Templates::child`]
    /// costs no copy of them.
    pub fn freeze(&mut self) {
        if self.trees.is_empty() {
            return;
        }
        let base = Arc::make_mut(&mut self.base);
        base.extend(self.trees.drain());
    }

    /// A copy of this set (Go's `Clone`) for parsing more templates into, sharing the
    /// templates parsed so far.
    #[must_use]
    pub fn child(&self) -> Templates {
        self.clone()
    }

    /// Go's `t.New(name).Parse(source)`: parse `source` as template `name`, adding it
    /// and every template it defines to the set. A definition replaces one of the same
    /// name, except that an empty body never replaces a non-empty one.
    ///
    /// Returns the template parsed under `name` itself, which Go executes even when
    /// the set kept an older non-empty one of that name.
    ///
    /// # Errors
    ///
    /// [`Error::Parse`] with Go's message (`template: NAME:LINE: ...`) when `source` does
    /// not parse or defines nothing under `name`.
    pub fn parse(&mut self, name: &str, source: &str) -> Result<Template> {
        let trees = parse::parse(
            name,
            source,
            &|f| self.has_function(f),
            (&self.delims.0, &self.delims.1),
        )
        .map_err(|e| Error::Parse(e.0))?;
        let mut main = None;
        for tree in trees {
            let tree = Arc::new(tree);
            if main.is_none() && tree.name == name {
                main = Some(Template(Arc::clone(&tree)));
            }
            let keep_old = ast::is_empty_tree(&tree.root) && self.tree(&tree.name).is_some();
            if !keep_old {
                self.trees.insert(tree.name.clone(), tree);
            }
        }
        main.ok_or_else(|| Error::Parse(format!("template: {name}: nothing parsed")))
    }

    /// Run a template this set parsed, over `data`.
    ///
    /// # Errors
    ///
    /// What the execution fails with, in Go's words: a function's error, a type error,
    /// a missing key under `missingkey=error`, the execution's limits.
    pub fn execute_parsed(&self, template: &Template, data: &Value) -> Result<String> {
        let shared = exec::Shared::default();
        let run = exec::Run::new(self, &shared);
        exec::execute_tree(&run, &template.0, data)
    }

    /// Whether a template called `name` exists.
    pub fn has(&self, name: &str) -> bool {
        self.tree(name).is_some()
    }

    /// Names of every template in the set.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .trees
            .keys()
            .chain(self.base.keys())
            .map(String::as_str)
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// Go's `ExecuteTemplate`: run template `name` over `data`.
    ///
    /// # Errors
    ///
    /// No template `name` in the set, or what its execution fails with, as
    /// [`Templates::execute_parsed`].
    pub fn execute(&self, name: &str, data: &Value) -> Result<String> {
        let shared = exec::Shared::default();
        let run = exec::Run::new(self, &shared);
        exec::execute_in(&run, name, data)
    }
}

#[cfg(test)]
mod tests;
