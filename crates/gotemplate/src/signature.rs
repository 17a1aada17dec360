//! Go function signatures. Go's templates learn a function's parameter and result types
//! by reflection and check each argument against its parameter as soon as it is
//! evaluated; a signature written in Go's syntax (`func(int, string) string`) gives this
//! engine the same knowledge, so arity errors, type errors and their positions come
//! out as Go's do, and results carry Go's types (`int64` from sprig's math, `[]string`
//! from `splitList`).
use std::sync::Arc;

/// A Go type as a parameter or result declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoType {
    /// `interface {}`: any value, nil included.
    Any,
    Bool,
    Int,
    Int64,
    Uint32,
    Float64,
    String,
    /// `map[string]interface {}`.
    Map,
    /// `[]interface {}`.
    List,
    /// A slice of a concrete element type (`[]string`, `[]int`), printed by that name.
    Slice(Arc<str>),
    /// Any other type (`time.Time`, `sprig.certificate`, `*semver.Version`), by name.
    Named(Arc<str>),
}

impl GoType {
    fn parse(text: &str) -> GoType {
        match text {
            "interface {}" | "interface{}" | "any" => GoType::Any,
            "bool" => GoType::Bool,
            "int" => GoType::Int,
            "int64" => GoType::Int64,
            "uint32" => GoType::Uint32,
            "float64" => GoType::Float64,
            "string" => GoType::String,
            "map[string]interface {}" | "map[string]any" => GoType::Map,
            "[]interface {}" | "[]any" => GoType::List,
            other if other.starts_with("[]") => GoType::Slice(other.into()),
            other => GoType::Named(other.into()),
        }
    }

    /// The name Go's messages print for the type.
    pub fn name(&self) -> &str {
        match self {
            GoType::Any => "interface {}",
            GoType::Bool => "bool",
            GoType::Int => "int",
            GoType::Int64 => "int64",
            GoType::Uint32 => "uint32",
            GoType::Float64 => "float64",
            GoType::String => "string",
            GoType::Map => "map[string]interface {}",
            GoType::List => "[]interface {}",
            GoType::Slice(name) | GoType::Named(name) => name,
        }
    }

    /// Whether a nil value fits (Go's canBeNil: interfaces, maps, slices, pointers,
    /// funcs).
    pub fn can_be_nil(&self) -> bool {
        match self {
            GoType::Any | GoType::Map | GoType::List | GoType::Slice(_) => true,
            GoType::Named(name) => {
                name.starts_with('*') || name.starts_with("map[") || name.starts_with("func(")
            }
            _ => false,
        }
    }
}

/// A function's parameters and first result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    params: Vec<GoType>,
    variadic: bool,
    result: Option<GoType>,
}

impl Signature {
    /// Parse Go's spelling of a function type: `func(int, ...string) (string, error)`.
    ///
    /// # Errors
    ///
    /// A text that is not `func(...)` with balanced parentheses, a variadic parameter
    /// before the last, or a parameter without a type; the message quotes the text.
    pub fn parse(text: &str) -> Result<Signature, String> {
        let bad = || format!("not a Go function type: {text:?}");
        let rest = text.strip_prefix("func(").ok_or_else(bad)?;
        let close = matching_paren(rest).ok_or_else(bad)?;
        let (params_text, results_text) = (&rest[..close], rest[close + 1..].trim());
        let mut params = Vec::new();
        let mut variadic = false;
        for (i, param) in split_top(params_text).enumerate() {
            if variadic {
                return Err(format!("only the last parameter may be variadic: {text:?}"));
            }
            let param = match param.strip_prefix("...") {
                Some(elem) => {
                    variadic = true;
                    elem
                }
                None => param,
            };
            if param.is_empty() {
                return Err(format!("parameter {} has no type: {text:?}", i + 1));
            }
            params.push(GoType::parse(param));
        }
        let results_text = results_text
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .unwrap_or(results_text);
        let result = split_top(results_text)
            .next()
            .filter(|r| !r.is_empty() && *r != "error")
            .map(GoType::parse);
        Ok(Signature {
            params,
            variadic,
            result,
        })
    }

    /// Number of parameters, the variadic one included.
    pub fn num_in(&self) -> usize {
        self.params.len()
    }

    pub fn is_variadic(&self) -> bool {
        self.variadic
    }

    /// The type argument `i` (0-based) must have, variadic elements included; `None`
    /// past the end of a fixed list.
    pub fn param(&self, i: usize) -> Option<&GoType> {
        match self.params.get(i) {
            Some(t) if !(self.variadic && i + 1 == self.params.len()) => Some(t),
            _ if self.variadic => self.params.last(),
            _ => None,
        }
    }

    /// The first result's type (`None` for a function with no result besides error).
    pub fn result(&self) -> Option<&GoType> {
        self.result.as_ref()
    }
}

/// Byte offset of the `)` closing the list that `text` starts inside of.
fn matching_paren(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' if depth == 0 => return Some(i),
            ')' | ']' | '}' => depth = depth.checked_sub(1)?,
            _ => {}
        }
    }
    None
}

/// The comma-separated items of a type list, trimmed, ignoring commas nested in
/// brackets (`func(map[string]interface {}, ...string)`).
fn split_top(text: &str) -> impl Iterator<Item = &str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                items.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() || !items.is_empty() {
        items.push(last);
    }
    items.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_go_function_types() {
        let sig = Signature::parse("func(int, string) string").unwrap();
        assert_eq!(sig.num_in(), 2);
        assert!(!sig.is_variadic());
        assert_eq!(sig.param(0), Some(&GoType::Int));
        assert_eq!(sig.param(1), Some(&GoType::String));
        assert_eq!(sig.param(2), None);
        assert_eq!(sig.result(), Some(&GoType::String));

        let sig =
            Signature::parse("func(map[string]interface {}, ...string) (bool, error)").unwrap();
        assert!(sig.is_variadic());
        assert_eq!(sig.param(0), Some(&GoType::Map));
        assert_eq!(sig.param(1), Some(&GoType::String));
        assert_eq!(sig.param(7), Some(&GoType::String));
        assert_eq!(sig.result(), Some(&GoType::Bool));

        let sig = Signature::parse("func(string) ([]string, error)").unwrap();
        assert_eq!(sig.result(), Some(&GoType::Slice("[]string".into())));
        assert_eq!(Signature::parse("func()").unwrap().num_in(), 0);
        assert_eq!(
            Signature::parse("func(string) error").unwrap().result(),
            None
        );
    }

    #[test]
    fn refuses_what_is_not_a_function_type() {
        assert!(Signature::parse("int").is_err());
        assert!(Signature::parse("func(int").is_err());
        assert!(Signature::parse("func(...int, string)").is_err());
        assert!(Signature::parse("func(int, ) string").is_err());
    }

    #[test]
    fn nil_fits_only_nillable_types() {
        assert!(GoType::Any.can_be_nil());
        assert!(GoType::Map.can_be_nil());
        assert!(GoType::parse("*semver.Version").can_be_nil());
        assert!(!GoType::String.can_be_nil());
        assert!(!GoType::parse("time.Time").can_be_nil());
    }
}
