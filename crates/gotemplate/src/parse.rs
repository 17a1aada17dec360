//! The parser: items to trees, accepting exactly what Go's text/template/parse accepts
//! and failing with Go's messages (`template: NAME:LINE: ...`).
use std::sync::Arc;

use crate::ast::{
    Action, Arg, Branch, Command, List, Node, Number, Pipe, TemplateCall, Text, Tree, Variable,
    is_empty_tree,
};
use crate::lex::{self, Item, Kind, LexOptions};

/// Why parsing failed: Go's whole message.
#[derive(Debug, Clone)]
pub struct ParseError(pub String);

/// Deepest nesting of parentheses and control structures a template may have; Go's
/// parser recurses too, and only the stack stops it. Far beyond any real template.
const MAX_NESTING: usize = 10_000;
const STACK_RED_ZONE: usize = 128 * 1024;
const STACK_SEGMENT: usize = 2 * 1024 * 1024;

/// Parse `source` as template `name`: the file's own tree (if not empty or new) and
/// every `define`/`block` in it, in the order found.
pub(crate) fn parse(
    name: &str,
    source: &str,
    has_function: &dyn Fn(&str) -> bool,
    delims: (&str, &str),
) -> Result<Vec<Tree>, ParseError> {
    let source: Arc<str> = Arc::from(source);
    let opts = LexOptions {
        left: delims.0,
        right: delims.1,
        break_ok: !has_function("break"),
        continue_ok: !has_function("continue"),
    };
    let items = lex::lex(&source, &opts);
    let mut p = Parser {
        items,
        at: 0,
        parse_name: Arc::from(name),
        source: Arc::clone(&source),
        has_function,
        vars: vec!["$".to_string()],
        range_depth: 0,
        action_pos: None,
        depth: 0,
        trees: Vec::new(),
    };
    let root = p.parse_top()?;
    let mut trees = std::mem::take(&mut p.trees);
    trees.insert(
        0,
        Tree {
            name: name.to_string(),
            parse_name: Arc::clone(&p.parse_name),
            source,
            root,
        },
    );
    Ok(trees)
}

struct Parser<'a> {
    items: Vec<Item<'a>>,
    at: usize,
    parse_name: Arc<str>,
    source: Arc<str>,
    has_function: &'a dyn Fn(&str) -> bool,
    vars: Vec<String>,
    range_depth: usize,
    /// Where the action being parsed starts.
    action_pos: Option<usize>,
    depth: usize,
    /// Templates defined in this source (`define`, `block`).
    trees: Vec<Tree>,
}

type PResult<T> = Result<T, ParseError>;

impl<'a> Parser<'a> {
    fn eof_item(&self) -> Item<'a> {
        let pos = self.source.len();
        Item {
            kind: Kind::Eof,
            pos,
            val: std::borrow::Cow::Borrowed(""),
        }
    }

    /// The line of the source that byte `pos` is on.
    fn line_at(&self, pos: usize) -> usize {
        1 + memchr::memchr_iter(b'\n', &self.source.as_bytes()[..pos]).count()
    }

    /// The line of item `i`; past the end, that of the last item (the lexer's EOF).
    fn item_line(&self, i: usize) -> usize {
        self.items
            .get(i)
            .or(self.items.last())
            .map_or(1, |t| self.line_at(t.pos))
    }

    fn next(&mut self) -> Item<'a> {
        let item = self
            .items
            .get(self.at)
            .cloned()
            .unwrap_or_else(|| self.eof_item());
        self.at += 1;
        item
    }

    fn backup(&mut self) {
        self.at -= 1;
    }

    fn peek(&self) -> Item<'a> {
        self.items
            .get(self.at)
            .cloned()
            .unwrap_or_else(|| self.eof_item())
    }

    fn next_non_space(&mut self) -> Item<'a> {
        loop {
            let item = self.next();
            if item.kind != Kind::Space {
                return item;
            }
        }
    }

    fn peek_non_space(&mut self) -> Item<'a> {
        let item = self.next_non_space();
        self.backup();
        item
    }

    /// The line Go reports: that of the last token read.
    fn current_line(&self) -> usize {
        self.item_line(self.at.saturating_sub(1))
    }

    fn error<T>(&self, message: impl std::fmt::Display) -> PResult<T> {
        Err(ParseError(format!(
            "template: {}:{}: {message}",
            self.parse_name,
            self.current_line()
        )))
    }

    fn unexpected<T>(&self, token: &Item, context: &str) -> PResult<T> {
        if token.kind == Kind::Error {
            let mut extra = String::new();
            let action_line = self.action_pos.map(|pos| self.line_at(pos));
            if let Some(action_line) = action_line
                && action_line != self.line_at(token.pos)
            {
                extra = format!(" in action started at {}:{action_line}", self.parse_name);
                if token.val.ends_with(" action") {
                    extra = extra[" in action".len()..].to_string();
                }
            }
            return self.error(format!("{token}{extra}"));
        }
        self.error(format!("unexpected {token} in {context}"))
    }

    fn expect(&mut self, kind: Kind, context: &str) -> PResult<Item<'a>> {
        let token = self.next_non_space();
        if token.kind != kind {
            return self.unexpected(&token, context);
        }
        Ok(token)
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return self.error(format!("template nests deeper than {MAX_NESTING} levels"));
        }
        Ok(())
    }

    fn parse_top(&mut self) -> PResult<List> {
        let mut root = List { nodes: Vec::new() };
        while self.peek().kind != Kind::Eof {
            if self.peek().kind == Kind::LeftDelim {
                let mark = self.at;
                self.next();
                if self.next_non_space().kind == Kind::Define {
                    self.parse_definition()?;
                    continue;
                }
                self.at = mark;
            }
            match self.text_or_action()? {
                Parsed::Node(n) => root.nodes.push(n),
                Parsed::End => return self.error("unexpected {{end}}"),
                Parsed::Else(_) => return self.error("unexpected {{else}}"),
            }
        }
        Ok(root)
    }

    fn template_name(&self, token: &Item, context: &str) -> PResult<String> {
        match token.kind {
            Kind::String | Kind::RawString => match unquote(&token.val) {
                Some(s) => Ok(s),
                None => self.error("invalid syntax"),
            },
            _ => self.unexpected(token, context),
        }
    }

    fn parse_definition(&mut self) -> PResult<()> {
        let context = "define clause";
        let token = self.next_non_space();
        let name = match token.kind {
            Kind::String | Kind::RawString => self.template_name(&token, context)?,
            _ => return self.unexpected(&token, context),
        };
        self.expect(Kind::RightDelim, context)?;
        let saved_vars = std::mem::replace(&mut self.vars, vec!["$".to_string()]);
        let (list, end) = self.item_list()?;
        self.vars = saved_vars;
        if let Parsed::Else(_) = end {
            return self.error(format!("unexpected {{{{else}}}} in {context}"));
        }
        self.add_tree(name, list)
    }

    /// Go's Tree.add: within one parse, a second non-empty definition is an error.
    fn add_tree(&mut self, name: String, root: List) -> PResult<()> {
        if let Some(i) = self.trees.iter().position(|t| t.name == name) {
            if is_empty_tree(&self.trees[i].root) {
                self.trees.remove(i);
            } else if !is_empty_tree(&root) {
                return self.error(format!(
                    "template: multiple definition of template {}",
                    crate::fmt::quote(&name)
                ));
            } else {
                return Ok(());
            }
        }
        self.trees.push(Tree {
            name,
            parse_name: Arc::clone(&self.parse_name),
            source: Arc::clone(&self.source),
            root,
        });
        Ok(())
    }

    fn item_list(&mut self) -> PResult<(List, Parsed)> {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || self.item_list_inner())
    }

    fn item_list_inner(&mut self) -> PResult<(List, Parsed)> {
        self.enter()?;
        let mut list = List { nodes: Vec::new() };
        while self.peek_non_space().kind != Kind::Eof {
            match self.text_or_action()? {
                Parsed::Node(n) => list.nodes.push(n),
                end => {
                    self.depth -= 1;
                    return Ok((list, end));
                }
            }
        }
        self.error("unexpected EOF")
    }

    fn text_or_action(&mut self) -> PResult<Parsed> {
        let token = self.next_non_space();
        match token.kind {
            Kind::Text => {
                let range = token.pos..token.pos + token.val.len();
                Ok(Parsed::Node(Node::Text(Text::new(&self.source, range))))
            }
            Kind::LeftDelim => {
                self.action_pos = Some(token.pos);
                let result = self.action();
                self.action_pos = None;
                result
            }
            _ => self.unexpected(&token, "input"),
        }
    }

    fn action(&mut self) -> PResult<Parsed> {
        let token = self.next_non_space();
        match token.kind {
            Kind::Block => return self.block_control().map(Parsed::Node),
            Kind::Break | Kind::Continue => {
                let word = if token.kind == Kind::Break {
                    "break"
                } else {
                    "continue"
                };
                let next = self.next_non_space();
                if next.kind != Kind::RightDelim {
                    return self.unexpected(&next, &format!("{{{{{word}}}}}"));
                }
                if self.range_depth == 0 {
                    return self.error(format!("{{{{{word}}}}} outside {{{{range}}}}"));
                }
                return Ok(Parsed::Node(if token.kind == Kind::Break {
                    Node::Break(token.pos)
                } else {
                    Node::Continue(token.pos)
                }));
            }
            Kind::Else => return self.else_control(),
            Kind::End => {
                self.expect(Kind::RightDelim, "end")?;
                return Ok(Parsed::End);
            }
            Kind::If => return self.control("if").map(|b| Parsed::Node(Node::If(b))),
            Kind::Range => return self.control("range").map(|b| Parsed::Node(Node::Range(b))),
            Kind::With => return self.control("with").map(|b| Parsed::Node(Node::With(b))),
            Kind::Template => return self.template_control().map(Parsed::Node),
            _ => {}
        }
        self.backup();
        let pos = self.peek().pos;
        let pipe = self.pipeline("command", Kind::RightDelim)?;
        Ok(Parsed::Node(Node::Action(Action { pos, pipe })))
    }

    fn else_control(&mut self) -> PResult<Parsed> {
        let peek = self.peek_non_space();
        if matches!(peek.kind, Kind::If | Kind::With) {
            // `else if`/`else with`: leave the keyword for parse_control.
            return Ok(Parsed::Else(peek.pos));
        }
        let token = self.expect(Kind::RightDelim, "else")?;
        Ok(Parsed::Else(token.pos))
    }

    fn control(&mut self, context: &str) -> PResult<Branch> {
        let vars_mark = self.vars.len();
        let pipe = self.pipeline(context, Kind::RightDelim)?;
        if context == "range" {
            self.range_depth += 1;
        }
        let (list, next) = self.item_list()?;
        if context == "range" {
            self.range_depth -= 1;
        }
        let mut else_list = None;
        if let Parsed::Else(_else_pos) = next {
            let chained = match context {
                "if" => self.peek().kind == Kind::If,
                "with" => self.peek().kind == Kind::With,
                _ => false,
            };
            if chained {
                // {{else if x}} is {{else}}{{if x}}...{{end}}{{end}}: the inner
                // branch consumes the one {{end}}.
                self.next();
                self.enter()?;
                let inner = self.control(context)?;
                self.depth -= 1;
                let node = if context == "if" {
                    Node::If(inner)
                } else {
                    Node::With(inner)
                };
                else_list = Some(List { nodes: vec![node] });
            } else {
                let (list, next) = self.item_list()?;
                if let Parsed::Else(_) = next {
                    return self.error("expected end; found {{else}}");
                }
                else_list = Some(list);
            }
        }
        self.vars.truncate(vars_mark);
        Ok(Branch {
            pos: pipe.pos,
            pipe,
            list,
            else_list,
        })
    }

    fn block_control(&mut self) -> PResult<Node> {
        let context = "block clause";
        let token = self.next_non_space();
        let name = self.template_name(&token, context)?;
        let pipe = self.pipeline(context, Kind::RightDelim)?;
        let saved_vars = std::mem::replace(&mut self.vars, vec!["$".to_string()]);
        let saved_range = std::mem::replace(&mut self.range_depth, 0);
        let (list, end) = self.item_list()?;
        self.vars = saved_vars;
        self.range_depth = saved_range;
        if let Parsed::Else(_) = end {
            return self.error(format!("unexpected {{{{else}}}} in {context}"));
        }
        self.add_tree(name.clone(), list)?;
        Ok(Node::Template(TemplateCall {
            pos: token.pos,
            name,
            pipe: Some(pipe),
        }))
    }

    fn template_control(&mut self) -> PResult<Node> {
        let context = "template clause";
        let token = self.next_non_space();
        let name = self.template_name(&token, context)?;
        let pipe = if self.next_non_space().kind == Kind::RightDelim {
            None
        } else {
            self.backup();
            Some(self.pipeline(context, Kind::RightDelim)?)
        };
        Ok(Node::Template(TemplateCall {
            pos: token.pos,
            name,
            pipe,
        }))
    }

    fn pipeline(&mut self, context: &str, end: Kind) -> PResult<Pipe> {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
            self.pipeline_inner(context, end)
        })
    }

    fn pipeline_inner(&mut self, context: &str, end: Kind) -> PResult<Pipe> {
        self.enter()?;
        let token = self.peek_non_space();
        let mut pipe = Pipe {
            pos: token.pos,
            is_assign: false,
            decl: Vec::new(),
            cmds: Vec::new(),
        };
        // Declarations: `$x :=`, `$x =`, `$i, $v :=` (range only).
        loop {
            let v = self.peek_non_space();
            if v.kind != Kind::Variable {
                break;
            }
            let mark = self.at;
            self.next_non_space();
            let next = self.peek_non_space();
            if matches!(next.kind, Kind::Assign | Kind::Declare) {
                pipe.is_assign = next.kind == Kind::Assign;
                self.next_non_space();
                pipe.decl.push(Variable {
                    pos: v.pos,
                    ident: vec![v.val.to_string()],
                });
                self.vars.push(v.val.to_string());
                break;
            } else if next.kind == Kind::Char && &*next.val == "," {
                self.next_non_space();
                pipe.decl.push(Variable {
                    pos: v.pos,
                    ident: vec![v.val.to_string()],
                });
                self.vars.push(v.val.to_string());
                if context == "range" && pipe.decl.len() < 2 {
                    match self.peek_non_space().kind {
                        Kind::Variable | Kind::RightDelim | Kind::RightParen => continue,
                        _ => return self.error("range can only initialize variables"),
                    }
                }
                return self.error(format!("too many declarations in {context}"));
            }
            // `$x` is an operand, not a declaration.
            self.at = mark;
            break;
        }
        loop {
            let token = self.next_non_space();
            match token.kind {
                k if k == end => {
                    self.check_pipeline(&pipe, context)?;
                    self.depth -= 1;
                    return Ok(pipe);
                }
                Kind::Bool
                | Kind::CharConstant
                | Kind::Complex
                | Kind::Dot
                | Kind::Field
                | Kind::Identifier
                | Kind::Number
                | Kind::Nil
                | Kind::RawString
                | Kind::String
                | Kind::Variable
                | Kind::LeftParen => {
                    self.backup();
                    let cmd = self.command()?;
                    pipe.cmds.push(cmd);
                }
                _ => return self.unexpected(&token, context),
            }
        }
    }

    fn check_pipeline(&self, pipe: &Pipe, context: &str) -> PResult<()> {
        if pipe.cmds.is_empty() {
            return self.error(format!("missing value for {context}"));
        }
        for (i, c) in pipe.cmds.iter().enumerate().skip(1) {
            if matches!(
                c.args[0],
                Arg::Bool(..) | Arg::Dot(_) | Arg::Nil(_) | Arg::Number(_) | Arg::String(..)
            ) {
                return self.error(format!(
                    "non executable command in pipeline stage {}",
                    i + 1
                ));
            }
        }
        Ok(())
    }

    fn command(&mut self) -> PResult<Command> {
        let mut cmd = Command {
            pos: self.peek_non_space().pos,
            args: Vec::new(),
        };
        loop {
            self.peek_non_space();
            if let Some(operand) = self.operand()? {
                cmd.args.push(operand);
            }
            let token = self.next();
            match token.kind {
                Kind::Space => continue,
                Kind::RightDelim | Kind::RightParen => self.backup(),
                Kind::Pipe => {}
                _ => return self.unexpected(&token, "operand"),
            }
            break;
        }
        if cmd.args.is_empty() {
            return self.error("empty command");
        }
        Ok(cmd)
    }

    fn operand(&mut self) -> PResult<Option<Arg>> {
        let Some(node) = self.term()? else {
            return Ok(None);
        };
        if self.peek().kind != Kind::Field {
            return Ok(Some(node));
        }
        let chain_pos = self.peek().pos;
        let mut fields = Vec::new();
        while self.peek().kind == Kind::Field {
            let f = self.next().val;
            fields.push(f[1..].to_string());
        }
        Ok(Some(match node {
            // Go folds .a.b and $x.a into one field/variable node, reporting the
            // position of the chain.
            Arg::Field(_, mut idents) => {
                idents.extend(fields);
                Arg::Field(chain_pos, idents)
            }
            Arg::Variable(mut v) => {
                v.ident.extend(fields);
                v.pos = chain_pos;
                Arg::Variable(v)
            }
            Arg::Bool(..) | Arg::String(..) | Arg::Number(_) | Arg::Nil(_) | Arg::Dot(_) => {
                return self.error(format!(
                    "unexpected . after term {}",
                    crate::fmt::quote(&node.to_string())
                ));
            }
            other => Arg::Chain(chain_pos, Box::new(other), fields),
        }))
    }

    fn term(&mut self) -> PResult<Option<Arg>> {
        let token = self.next_non_space();
        Ok(Some(match token.kind {
            Kind::Identifier => {
                if !(self.has_function)(&token.val) {
                    return self.error(format!(
                        "function {} not defined",
                        crate::fmt::quote(&token.val)
                    ));
                }
                Arg::Identifier(token.pos, token.val.to_string())
            }
            Kind::Dot => Arg::Dot(token.pos),
            Kind::Nil => Arg::Nil(token.pos),
            Kind::Variable => {
                let name = token.val.split('.').next().unwrap_or("");
                if !self.vars.iter().any(|v| v == name) {
                    return self.error(format!("undefined variable {}", crate::fmt::quote(name)));
                }
                Arg::Variable(Variable {
                    pos: token.pos,
                    ident: token.val.split('.').map(str::to_string).collect(),
                })
            }
            Kind::Field => Arg::Field(
                token.pos,
                token.val[1..].split('.').map(str::to_string).collect(),
            ),
            Kind::Bool => Arg::Bool(token.pos, &*token.val == "true"),
            Kind::CharConstant | Kind::Complex | Kind::Number => match number(&token) {
                Ok(n) => Arg::Number(Box::new(n)),
                Err(message) => return self.error(message),
            },
            Kind::LeftParen => Arg::Pipe(Box::new(
                self.pipeline("parenthesized pipeline", Kind::RightParen)?,
            )),
            Kind::String | Kind::RawString => match unquote(&token.val) {
                Some(s) => Arg::String(token.pos, token.val.to_string(), Arc::from(s)),
                None => return self.error("invalid syntax"),
            },
            _ => {
                self.backup();
                return Ok(None);
            }
        }))
    }
}

enum Parsed {
    Node(Node),
    End,
    Else(usize),
}

/// Go's strconv.Unquote for the string forms the lexer produces.
pub(crate) fn unquote(s: &str) -> Option<String> {
    if let Some(raw) = s.strip_prefix('`').and_then(|r| r.strip_suffix('`')) {
        return (!raw.contains('`')).then(|| raw.replace('\r', ""));
    }
    let inner = s.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = Vec::with_capacity(inner.len());
    let bytes = inner.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' | b'\n' => return None,
            b'\\' => {
                let (decoded, used) = unquote_escape(&inner[i + 1..], b'"')?;
                out.extend_from_slice(&decoded);
                i += 1 + used;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    // Invalid UTF-8 from \x escapes is kept as Go keeps raw bytes; Rust strings need
    // valid UTF-8, so such bytes become U+FFFD.
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// One escape after a backslash: the bytes it stands for and how many input bytes it used.
fn unquote_escape(s: &str, quote: u8) -> Option<(Vec<u8>, usize)> {
    let b = s.as_bytes();
    let c = *b.first()?;
    let simple = |x: u8| Some((vec![x], 1));
    match c {
        b'a' => simple(7),
        b'b' => simple(8),
        b'f' => simple(12),
        b'n' => simple(b'\n'),
        b'r' => simple(b'\r'),
        b't' => simple(b'\t'),
        b'v' => simple(11),
        b'\\' => simple(b'\\'),
        b'\'' | b'"' if c == quote => simple(c),
        b'x' | b'u' | b'U' => {
            let digits = match c {
                b'x' => 2,
                b'u' => 4,
                _ => 8,
            };
            let hex = s.get(1..1 + digits)?;
            if !hex.bytes().all(|h| h.is_ascii_hexdigit()) {
                return None;
            }
            let code = u32::from_str_radix(hex, 16).ok()?;
            if c == b'x' {
                return Some((vec![u8::try_from(code).ok()?], 1 + digits));
            }
            let ch = char::from_u32(code)?;
            Some((ch.to_string().into_bytes(), 1 + digits))
        }
        b'0'..=b'7' => {
            let oct = s.get(0..3)?;
            if !oct.bytes().all(|o| (b'0'..=b'7').contains(&o)) {
                return None;
            }
            let code = u32::from_str_radix(oct, 8).ok()?;
            Some((vec![u8::try_from(code).ok()?], 3))
        }
        _ => None,
    }
}

/// A number token with Go's interpretations (parse.newNumber).
#[expect(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "Go's float64(i) and int64(f)/uint64(f) conversions, the latter after checks that make them exact"
)]
fn number(token: &Item) -> Result<Number, String> {
    let text: &str = &token.val;
    let mut n = Number {
        pos: token.pos,
        text: text.to_string(),
        int: None,
        uint: None,
        float: None,
        complex: None,
    };
    match token.kind {
        Kind::CharConstant => {
            let inner = &text[1..];
            let (c, used) = if let Some(rest) = inner.strip_prefix('\\') {
                let (bytes, used) =
                    unquote_escape(rest, b'\'').ok_or_else(|| "invalid syntax".to_string())?;
                let c = if bytes.len() == 1 {
                    char::from(bytes[0])
                } else {
                    std::str::from_utf8(&bytes)
                        .ok()
                        .and_then(|s| s.chars().next())
                        .ok_or("invalid syntax")?
                };
                (c, used + 1)
            } else {
                let c = inner.chars().next().ok_or("invalid syntax")?;
                if c == '\'' {
                    return Err("invalid syntax".into());
                }
                (c, c.len_utf8())
            };
            if &inner[used..] != "'" {
                return Err(format!("malformed character constant: {text}"));
            }
            let v = u32::from(c);
            n.int = Some(i64::from(v));
            n.uint = Some(u64::from(v));
            n.float = Some(f64::from(v));
            return Ok(n);
        }
        Kind::Complex => {
            let (re, im) = parse_complex(text).ok_or_else(|| "expected integer".to_string())?;
            set_complex(&mut n, re, im);
            return Ok(n);
        }
        _ => {}
    }
    if let Some(imag) = text.strip_suffix('i')
        && let Some(f) = crate::numbers::parse_float(imag)
    {
        set_complex(&mut n, 0.0, f);
        return Ok(n);
    }
    let u = crate::numbers::parse_uint(text);
    n.uint = u;
    if let Some(i) = crate::numbers::parse_int(text) {
        n.int = Some(i);
        if i == 0 {
            n.uint = Some(0);
        }
    }
    if let Some(i) = n.int {
        n.float = Some(i as f64);
    } else if let Some(u) = n.uint {
        n.float = Some(u as f64);
    } else if let Some(f) = crate::numbers::parse_float(text) {
        if !text.contains(['.', 'e', 'E', 'p', 'P']) {
            return Err(format!("integer overflow: {}", crate::fmt::quote(text)));
        }
        n.float = Some(f);
        if f.fract() == 0.0 && (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
            n.int = Some(f as i64);
        }
        if f.fract() == 0.0 && (0.0..1.844_674_407_370_955_2e19).contains(&f) {
            n.uint = Some(f as u64);
        }
    }
    if n.int.is_none() && n.uint.is_none() && n.float.is_none() {
        return Err(format!(
            "illegal number syntax: {}",
            crate::fmt::quote(text)
        ));
    }
    Ok(n)
}

/// A complex constant stays complex128 where its value is read as it is; without an
/// imaginary part it also serves as a float or integer parameter (Go's simplifyComplex).
#[expect(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "Go's int64(f)/uint64(f) conversions, after checks that make them exact"
)]
fn set_complex(n: &mut Number, re: f64, im: f64) {
    n.complex = Some((re, im));
    if im == 0.0 {
        n.float = Some(re);
        if re.fract() == 0.0 && re.abs() < 9.2e18 {
            n.int = Some(re as i64);
            if re >= 0.0 {
                n.uint = Some(re as u64);
            }
        }
    }
}

fn parse_complex(text: &str) -> Option<(f64, f64)> {
    let body = text.strip_suffix('i')?;
    let split = body
        .char_indices()
        .skip(1)
        .filter(|(i, c)| {
            (*c == '+' || *c == '-') && !matches!(body.as_bytes()[i - 1], b'e' | b'E' | b'p' | b'P')
        })
        .map(|(i, _)| i)
        .last()?;
    let re = crate::numbers::parse_float(&body[..split])?;
    let im = crate::numbers::parse_float(&body[split..])?;
    Some((re, im))
}
