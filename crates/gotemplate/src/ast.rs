//! The parse tree, with Go's node kinds and Go's text for each node (error messages
//! quote nodes as Go prints them).
use std::fmt::{self, Display, Write};
use std::sync::Arc;

/// A parsed template: its name, the file it was parsed from and its body.
#[derive(Debug)]
pub struct Tree {
    pub name: String,
    /// The name of the template whose source this tree came from (for positions).
    pub parse_name: Arc<str>,
    /// That source, to turn byte offsets into line and column.
    pub source: Arc<str>,
    pub root: List,
}

impl Tree {
    /// `NAME:LINE:COL` of byte offset `pos`, as Go's `ErrorContext` prints it.
    pub fn location(&self, pos: usize) -> String {
        let pos = pos.min(self.source.len());
        let text = &self.source.as_bytes()[..pos];
        let line = 1 + memchr::memchr_iter(b'\n', text).count();
        let col = match memchr::memrchr(b'\n', text) {
            Some(nl) => pos - nl - 1,
            None => pos,
        };
        format!("{}:{line}:{col}", self.parse_name)
    }
}

/// Literal text of a template: a range of its source, shared rather than copied.
#[derive(Debug)]
pub struct Text {
    source: Arc<str>,
    range: std::ops::Range<usize>,
}

impl Text {
    /// The text at `range` of `source` (a range of whole characters).
    pub fn new(source: &Arc<str>, range: std::ops::Range<usize>) -> Text {
        debug_assert!(source.get(range.clone()).is_some());
        Text {
            source: Arc::clone(source),
            range,
        }
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.source.get(self.range.clone()).unwrap_or_default()
    }
}

#[derive(Debug, Default)]
pub struct List {
    pub nodes: Vec<Node>,
}

#[derive(Debug)]
pub enum Node {
    Text(Text),
    Action(Action),
    If(Branch),
    With(Branch),
    Range(Branch),
    Template(TemplateCall),
    Break(usize),
    Continue(usize),
}

#[derive(Debug)]
pub struct Action {
    pub pos: usize,
    pub pipe: Pipe,
}

/// `if`, `with` and `range`: a pipeline, a body and an optional else body.
#[derive(Debug)]
pub struct Branch {
    pub pos: usize,
    pub pipe: Pipe,
    pub list: List,
    pub else_list: Option<List>,
}

#[derive(Debug)]
pub struct TemplateCall {
    pub pos: usize,
    pub name: String,
    pub pipe: Option<Pipe>,
}

#[derive(Debug)]
pub struct Pipe {
    pub pos: usize,
    pub is_assign: bool,
    pub decl: Vec<Variable>,
    pub cmds: Vec<Command>,
}

#[derive(Debug)]
pub struct Command {
    pub pos: usize,
    pub args: Vec<Arg>,
}

#[derive(Debug)]
pub struct Variable {
    pub pos: usize,
    /// `$x.a.b` is `["$x", "a", "b"]`.
    pub ident: Vec<String>,
}

/// An operand of a command.
#[derive(Debug)]
pub enum Arg {
    Bool(usize, bool),
    Dot(usize),
    Nil(usize),
    Number(Box<Number>),
    /// The quoted text and its value.
    String(usize, String, Arc<str>),
    Field(usize, Vec<String>),
    Variable(Variable),
    Identifier(usize, String),
    Pipe(Box<Pipe>),
    /// `(pipe).a.b` or `term.a.b`.
    Chain(usize, Box<Arg>, Vec<String>),
}

/// A numeric constant with every interpretation that fits, as Go keeps it.
#[derive(Debug)]
pub struct Number {
    pub pos: usize,
    pub text: String,
    pub int: Option<i64>,
    pub uint: Option<u64>,
    pub float: Option<f64>,
    /// A complex constant (`1i`, `1+0i`): complex128 wherever its value is read as it is.
    pub complex: Option<(f64, f64)>,
}

impl Arg {
    pub fn pos(&self) -> usize {
        match self {
            Arg::Bool(p, _)
            | Arg::Dot(p)
            | Arg::Nil(p)
            | Arg::String(p, _, _)
            | Arg::Field(p, _)
            | Arg::Identifier(p, _)
            | Arg::Chain(p, _, _) => *p,
            Arg::Number(n) => n.pos,
            Arg::Variable(v) => v.pos,
            Arg::Pipe(p) => p.pos,
        }
    }
}

impl Display for Variable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.ident.join("."))
    }
}

impl Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arg::Bool(_, b) => write!(f, "{b}"),
            Arg::Dot(_) => f.write_char('.'),
            Arg::Nil(_) => f.write_str("nil"),
            Arg::Number(n) => f.write_str(&n.text),
            Arg::String(_, quoted, _) => f.write_str(quoted),
            Arg::Field(_, idents) => {
                for i in idents {
                    write!(f, ".{i}")?;
                }
                Ok(())
            }
            Arg::Variable(v) => v.fmt(f),
            Arg::Identifier(_, name) => f.write_str(name),
            Arg::Pipe(p) => p.fmt(f),
            Arg::Chain(_, node, fields) => {
                if let Arg::Pipe(p) = node.as_ref() {
                    write!(f, "({p})")?;
                } else {
                    node.fmt(f)?;
                }
                for field in fields {
                    write!(f, ".{field}")?;
                }
                Ok(())
            }
        }
    }
}

impl Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, arg) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_char(' ')?;
            }
            if let Arg::Pipe(p) = arg {
                write!(f, "({p})")?;
            } else {
                arg.fmt(f)?;
            }
        }
        Ok(())
    }
}

impl Display for Pipe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.decl.is_empty() {
            for (i, v) in self.decl.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                v.fmt(f)?;
            }
            f.write_str(if self.is_assign { " = " } else { " := " })?;
        }
        for (i, c) in self.cmds.iter().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            c.fmt(f)?;
        }
        Ok(())
    }
}

impl Display for List {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for n in &self.nodes {
            n.fmt(f)?;
        }
        Ok(())
    }
}

impl Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let branch = |f: &mut fmt::Formatter<'_>, word: &str, b: &Branch| {
            write!(f, "{{{{{word} {}}}}}{}", b.pipe, b.list)?;
            if let Some(e) = &b.else_list {
                write!(f, "{{{{else}}}}{e}")?;
            }
            f.write_str("{{end}}")
        };
        match self {
            Node::Text(t) => f.write_str(t),
            Node::Action(a) => write!(f, "{{{{{}}}}}", a.pipe),
            Node::If(b) => branch(f, "if", b),
            Node::With(b) => branch(f, "with", b),
            Node::Range(b) => branch(f, "range", b),
            Node::Template(t) => match &t.pipe {
                Some(p) => write!(f, "{{{{template {} {p}}}}}", crate::fmt::quote(&t.name)),
                None => write!(f, "{{{{template {}}}}}", crate::fmt::quote(&t.name)),
            },
            Node::Break(_) => f.write_str("{{break}}"),
            Node::Continue(_) => f.write_str("{{continue}}"),
        }
    }
}

/// Whether a body holds nothing but blank text (Go keeps an existing template rather
/// than replace it with such a body).
pub fn is_empty_tree(list: &List) -> bool {
    list.nodes.iter().all(|n| match n {
        Node::Text(t) => t.trim_matches(|c: char| c.is_whitespace()).is_empty(),
        _ => false,
    })
}
