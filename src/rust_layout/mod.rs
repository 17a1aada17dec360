//! Rust laid out the way rustfmt (edition 2024, default configuration) lays it out, for
//! the generated lines whose width depends on the user's names. Everything else in the
//! templates is written formatted; these few shapes choose between rustfmt's one-line and
//! broken layouts here, so a generated project passes `cargo fmt --check` without running
//! rustfmt, whatever the names' length. Each rule is checked against rustfmt at every
//! length in the tests below.
//!
//! A layout is returned without its first line's indentation (the template, or the line
//! it is inserted at, already has it); later lines carry their full indentation.
use std::fmt::Write as _;

/// rustfmt's `max_width`.
pub const MAX_WIDTH: usize = 100;
/// rustfmt's `fn_call_width`: call arguments wider than this go one per line.
pub const FN_CALL_WIDTH: usize = 60;
/// rustfmt's `attr_fn_like_width`, the same for the arguments of an attribute.
pub const ATTR_FN_LIKE_WIDTH: usize = 70;
/// rustfmt's `struct_lit_width`, the same for the fields of a struct literal.
pub const STRUCT_LIT_WIDTH: usize = 18;
/// rustfmt's `chain_width`: a chain wider than this goes one element per line.
pub const CHAIN_WIDTH: usize = 60;

fn pad(indent: usize) -> String {
    " ".repeat(indent)
}

/// Whether `text`, starting at column `column`, stays within the width on every line.
fn fits(column: usize, text: &str) -> bool {
    text.lines()
        .enumerate()
        .all(|(i, line)| if i == 0 { column } else { 0 } + line.chars().count() <= MAX_WIDTH)
}

/// `open items close`: on one line when the items are at most `limit` wide together and
/// the line fits from `column`, else one item per line at `indent + 4`.
fn list(
    indent: usize,
    column: usize,
    open: &str,
    items: &[String],
    close: &str,
    limit: usize,
) -> String {
    let joined = items.join(", ");
    let one_line = format!("{open}{joined}{close}");
    if joined.chars().count() <= limit && fits(column, &one_line) {
        return one_line;
    }
    vertical(indent, open, items, close)
}

/// `open`, one item per line at `indent + 4` with a trailing comma, then `close`.
fn vertical(indent: usize, open: &str, items: &[String], close: &str) -> String {
    let inner = pad(indent + 4);
    let mut out = format!("{open}\n");
    for item in items {
        let _ = writeln!(out, "{inner}{item},");
    }
    let _ = write!(out, "{}{close}", pad(indent));
    out
}

/// An expression on the right of `=` (or after a field name): its layout for a first
/// line starting at `column` with later lines at `indent`.
pub enum Rhs {
    /// Never broken (a literal, a path, a short fixed chain).
    Atom(String),
    /// `callee(args)`, broken as a call.
    Call { callee: String, args: Vec<String> },
    /// `Type { fields }`, broken as a struct literal.
    Struct { name: String, fields: Vec<String> },
    /// `base.method()...`, broken one element per line as a chain.
    Chain { base: String, calls: Vec<String> },
}

impl Rhs {
    fn layout(&self, indent: usize, column: usize, end: &str) -> String {
        match self {
            Rhs::Atom(text) => format!("{text}{end}"),
            Rhs::Call { callee, args } => list(
                indent,
                column,
                &format!("{callee}("),
                args,
                &format!("){end}"),
                FN_CALL_WIDTH,
            ),
            Rhs::Struct { name, fields } => {
                let joined = fields.join(", ");
                let one_line = format!("{name} {{ {joined} }}{end}");
                if joined.chars().count() <= STRUCT_LIT_WIDTH && fits(column, &one_line) {
                    return one_line;
                }
                vertical(indent, &format!("{name} {{"), fields, &format!("}}{end}"))
            }
            Rhs::Chain { base, calls } => {
                let one_line = format!("{base}{}", calls.concat());
                // One call after the base is not held to the chain width.
                let narrow = calls.len() < 2 || one_line.chars().count() <= CHAIN_WIDTH;
                if narrow && fits(column, &format!("{one_line}{end}")) {
                    return format!("{one_line}{end}");
                }
                let inner = pad(indent + 4);
                let mut out = base.clone();
                for call in calls {
                    let _ = write!(out, "\n{inner}{call}");
                }
                out.push_str(end);
                out
            }
        }
    }
}

/// `lead rhs end` as a statement at `indent` (`let x =`, `const X: &str =`, `name:`), with
/// rustfmt's choice of where the right-hand side goes: on the same line when it fits
/// there on one line, else on the next line when it fits there on one line, else broken
/// on the same line when that fits, else broken on the next line.
pub fn assign(indent: usize, lead: &str, rhs: &Rhs, end: &str) -> String {
    let column = indent + lead.chars().count() + 1;
    let same = rhs.layout(indent, column, end);
    if !same.contains('\n') && fits(column, &same) {
        return format!("{lead} {same}");
    }
    let next = rhs.layout(indent + 4, indent + 4, end);
    let next_line = format!("{lead}\n{}{next}", pad(indent + 4));
    if !next.contains('\n') && fits(indent + 4, &next) {
        return next_line;
    }
    if same.contains('\n') && fits(column, &same) {
        return format!("{lead} {same}");
    }
    if !fits(indent + 4, &next) {
        // Nothing fits: rustfmt leaves the statement on one line.
        return format!("{lead} {same}");
    }
    next_line
}

/// `name: rhs end` as a field of a struct literal at `indent`: rustfmt breaks the value
/// itself rather than moving it to the next line.
pub fn field(indent: usize, name: &str, rhs: &Rhs, end: &str) -> String {
    let column = indent + name.chars().count() + 2;
    format!("{name}: {}", rhs.layout(indent, column, end))
}

/// `callee(args)end` as a statement or an expression at `indent` (also macros,
/// `assert!(...)`, and tuples with an empty callee).
pub fn call(indent: usize, callee: &str, args: &[String], end: &str) -> String {
    Rhs::Call {
        callee: callee.to_string(),
        args: args.to_vec(),
    }
    .layout(indent, indent, end)
}

/// A function signature up to its opening brace: `head(params) -> ret {` on one line
/// when it fits, else one parameter per line.
pub fn signature(indent: usize, head: &str, params: &[String], ret: &str) -> String {
    let ret = if ret.is_empty() {
        String::new()
    } else {
        format!(" -> {ret}")
    };
    let one_line = format!("{head}({}){ret} {{", params.join(", "));
    if fits(indent, &one_line) {
        return one_line;
    }
    vertical(indent, &format!("{head}("), params, &format!("){ret} {{"))
}

/// `#[name(args)]` at `indent`. A lone string literal may be as wide as the line allows;
/// broken, the arguments go one per line without a trailing comma.
pub fn attribute(indent: usize, name: &str, args: &[String]) -> String {
    let joined = args.join(", ");
    let one_line = format!("#[{name}({joined})]");
    let lone_literal = args.len() == 1 && args[0].starts_with('"');
    if (lone_literal || joined.chars().count() <= ATTR_FN_LIKE_WIDTH) && fits(indent, &one_line) {
        return one_line;
    }
    let inner = pad(indent + 4);
    let items: Vec<String> = args.iter().map(|arg| format!("{inner}{arg}")).collect();
    format!("#[{name}(\n{}\n{})]", items.join(",\n"), pad(indent))
}

/// `callee(args);` as a statement at `indent` spaces, its later lines indented relative to
/// the first (for lines inserted at a marker, which indents them all).
pub fn call_statement(indent: usize, callee: &str, args: &[&str]) -> String {
    let args: Vec<String> = args.iter().map(ToString::to_string).collect();
    list(0, indent, &format!("{callee}("), &args, ");", FN_CALL_WIDTH)
}

/// `{path}::crd(),` as an element of a vertical list at `indent`: a path too long for
/// the line has rustfmt break the empty argument list. Later lines are relative to the
/// first (for lines inserted at a marker).
pub fn crd_entry(indent: usize, path: &str) -> String {
    let one_line = format!("{path}::crd(),");
    if indent + one_line.len() <= MAX_WIDTH {
        return one_line;
    }
    format!("{path}::crd(\n),")
}

/// `{visibility}use {path}::{items};` at the start of a line (rustfmt's "Mixed" layout:
/// one line if it fits, else the items filled into lines inside the braces).
pub fn use_list(visibility: &str, path: &str, items: &[&str]) -> String {
    // rustfmt drops the braces around a single item.
    if let [item] = items {
        return format!("{visibility}use {path}::{item};");
    }
    let one_line = format!("{visibility}use {path}::{{{}}};", items.join(", "));
    // rustfmt keeps two columns free on a one-line use list.
    if one_line.len() + 2 <= MAX_WIDTH {
        return one_line;
    }
    let mut out = format!("{visibility}use {path}::{{\n");
    let mut line = String::new();
    for item in items {
        let piece = format!("{item},");
        if !line.is_empty() && 4 + line.len() + 1 + piece.len() > MAX_WIDTH {
            let _ = writeln!(out, "    {line}");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&piece);
    }
    let _ = write!(out, "    {line}\n}};");
    out
}

pub mod tera;
#[cfg(test)]
mod tests;
