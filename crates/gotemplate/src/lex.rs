//! The lexer: template source to items, with Go's rules for delimiters, trim markers,
//! comments, quoting and number syntax. Positions are byte offsets into the source.

/// What an item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Error,
    Bool,
    Char,
    CharConstant,
    Complex,
    Assign,
    Declare,
    Eof,
    Field,
    Identifier,
    LeftDelim,
    LeftParen,
    Number,
    Pipe,
    RawString,
    RightDelim,
    RightParen,
    Space,
    String,
    Text,
    Variable,
    // Keywords.
    Block,
    Break,
    Continue,
    Dot,
    Define,
    Else,
    End,
    If,
    Nil,
    Range,
    Template,
    With,
}

impl Kind {
    fn is_keyword(self) -> bool {
        matches!(
            self,
            Kind::Block
                | Kind::Break
                | Kind::Continue
                | Kind::Dot
                | Kind::Define
                | Kind::Else
                | Kind::End
                | Kind::If
                | Kind::Nil
                | Kind::Range
                | Kind::Template
                | Kind::With
        )
    }
}

/// One token: its kind, where it starts and its text (or error message). Its line is
/// counted from `pos` only when a parse error needs it.
#[derive(Clone, Debug)]
pub(crate) struct Item<'s> {
    pub kind: Kind,
    pub pos: usize,
    /// The token's text, borrowed from the source (an error's message is owned).
    pub val: std::borrow::Cow<'s, str>,
}

impl std::fmt::Display for Item<'_> {
    /// How Go's parser quotes a token in its messages.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            Kind::Eof => f.write_str("EOF"),
            Kind::Error => f.write_str(&self.val),
            k if k.is_keyword() => write!(f, "<{}>", self.val),
            _ if self.val.chars().count() > 10 => {
                let head: String = self.val.chars().take(10).collect();
                write!(f, "{}...", crate::fmt::quote(&head))
            }
            _ => f.write_str(&crate::fmt::quote(&self.val)),
        }
    }
}

const LEFT_COMMENT: &str = "/*";
const RIGHT_COMMENT: &str = "*/";

pub(crate) fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

fn is_alphanumeric(c: char) -> bool {
    c == '_' || c.is_alphabetic() || c.is_numeric()
}

/// `text.starts_with(prefix)` for the short delimiters, without a call to memcmp.
fn starts_with(text: &str, prefix: &str) -> bool {
    let (text, prefix) = (text.as_bytes(), prefix.as_bytes());
    text.len() >= prefix.len() && prefix.iter().zip(text).all(|(a, b)| a == b)
}

fn keyword(word: &str) -> Option<Kind> {
    Some(match word {
        "." => Kind::Dot,
        "block" => Kind::Block,
        "break" => Kind::Break,
        "continue" => Kind::Continue,
        "define" => Kind::Define,
        "else" => Kind::Else,
        "end" => Kind::End,
        "if" => Kind::If,
        "range" => Kind::Range,
        "nil" => Kind::Nil,
        "template" => Kind::Template,
        "with" => Kind::With,
        _ => return None,
    })
}

/// Options the parser sets: whether `break`/`continue` are keywords (they are not
/// when a function of that name exists) and the delimiters.
pub(crate) struct LexOptions<'a> {
    pub left: &'a str,
    pub right: &'a str,
    pub break_ok: bool,
    pub continue_ok: bool,
}

/// Turn `input` into items. Lexing stops at the first error, which is the last item.
pub(crate) fn lex<'s>(input: &'s str, opts: &LexOptions<'_>) -> Vec<Item<'s>> {
    let mut l = Lexer {
        input,
        opts,
        left: memchr::memmem::Finder::new(opts.left),
        pos: 0,
        start: 0,
        // About one item per eight bytes of a typical chart template.
        items: Vec::with_capacity(input.len() / 8),
        paren_depth: 0,
    };
    l.run();
    l.items
}

struct Lexer<'s, 'o> {
    input: &'s str,
    opts: &'o LexOptions<'o>,
    /// Finds the left delimiter.
    left: memchr::memmem::Finder<'o>,
    pos: usize,
    start: usize,
    items: Vec<Item<'s>>,
    paren_depth: i32,
}

type Step = Result<(), ()>;

impl Lexer<'_, '_> {
    fn rest(&self) -> &str {
        &self.input[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn backup(&mut self, c: Option<char>) {
        if let Some(c) = c {
            self.pos -= c.len_utf8();
        }
    }

    fn accept(&mut self, valid: &str) -> bool {
        match self.peek() {
            Some(c) if valid.contains(c) => {
                self.pos += c.len_utf8();
                true
            }
            _ => false,
        }
    }

    fn accept_run(&mut self, valid: &str) {
        while self.accept(valid) {}
    }

    fn emit_at(&mut self, kind: Kind, start: usize, end: usize) {
        self.items.push(Item {
            kind,
            pos: start,
            val: std::borrow::Cow::Borrowed(&self.input[start..end]),
        });
    }

    fn emit(&mut self, kind: Kind) {
        self.emit_at(kind, self.start, self.pos);
        self.start = self.pos;
    }

    fn error(&mut self, message: String) -> Step {
        self.items.push(Item {
            kind: Kind::Error,
            pos: self.start,
            val: std::borrow::Cow::Owned(message),
        });
        Err(())
    }

    fn run(&mut self) {
        let mut inside = false;
        loop {
            let step = if inside {
                self.inside_action(&mut inside)
            } else {
                self.text(&mut inside)
            };
            if step.is_err() || self.items.last().is_some_and(|i| i.kind == Kind::Eof) {
                return;
            }
        }
    }

    /// `{{- ` trims the text before it: a trim marker is `-` followed by a space.
    fn has_left_trim_marker(s: &str) -> bool {
        let b = s.as_bytes();
        b.len() >= 2 && b[0] == b'-' && is_space(b[1] as char)
    }

    fn has_right_trim_marker(s: &str) -> bool {
        let b = s.as_bytes();
        b.len() >= 2 && is_space(b[0] as char) && b[1] == b'-'
    }

    fn at_right_delim(&self) -> (bool, bool) {
        let rest = self.rest();
        if Self::has_right_trim_marker(rest) && starts_with(&rest[2..], self.opts.right) {
            return (true, true);
        }
        (starts_with(rest, self.opts.right), false)
    }

    fn text(&mut self, inside: &mut bool) -> Step {
        let left = self.opts.left;
        if let Some(x) = self.left.find(self.rest().as_bytes()) {
            if x > 0 {
                self.pos += x;
                let delim_end = self.pos + left.len();
                let trim = if Self::has_left_trim_marker(&self.input[delim_end..]) {
                    let text = &self.input[self.start..self.pos];
                    text.len() - text.trim_end_matches(is_space).len()
                } else {
                    0
                };
                let end = self.pos - trim;
                if end > self.start {
                    self.emit_at(Kind::Text, self.start, end);
                }
                self.start = self.pos;
            }
            return self.left_delim(inside);
        }
        self.pos = self.input.len();
        if self.pos > self.start {
            self.emit(Kind::Text);
        }
        self.emit(Kind::Eof);
        Ok(())
    }

    fn left_delim(&mut self, inside: &mut bool) -> Step {
        self.pos += self.opts.left.len();
        let trim = Self::has_left_trim_marker(self.rest());
        let after_marker = if trim { 2 } else { 0 };
        if self.input[self.pos + after_marker..].starts_with(LEFT_COMMENT) {
            self.pos += after_marker;
            self.start = self.pos;
            return self.comment();
        }
        let (start, end) = (self.start, self.pos);
        self.emit_at(Kind::LeftDelim, start, end);
        self.pos += after_marker;
        self.start = self.pos;
        self.paren_depth = 0;
        *inside = true;
        Ok(())
    }

    fn comment(&mut self) -> Step {
        self.pos += LEFT_COMMENT.len();
        let Some(x) = self.rest().find(RIGHT_COMMENT) else {
            return self.error("unclosed comment".into());
        };
        self.pos += x + RIGHT_COMMENT.len();
        let (delim, trim) = self.at_right_delim();
        if !delim {
            return self.error("comment ends before closing delimiter".into());
        }
        // Comments are dropped: Helm does not ask Go's parser to keep them.
        if trim {
            self.pos += 2;
        }
        self.pos += self.opts.right.len();
        if trim {
            self.skip_leading_space();
        }
        self.start = self.pos;
        Ok(())
    }

    fn skip_leading_space(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start_matches(is_space).len();
    }

    #[expect(
        clippy::unnecessary_wraps,
        reason = "a state of the lexer: every state is a Step (Go's stateFn)"
    )]
    fn right_delim(&mut self, inside: &mut bool) -> Step {
        let (_, trim) = self.at_right_delim();
        if trim {
            self.pos += 2;
            self.start = self.pos;
        }
        self.pos += self.opts.right.len();
        self.emit(Kind::RightDelim);
        if trim {
            self.skip_leading_space();
            self.start = self.pos;
        }
        *inside = false;
        Ok(())
    }

    fn inside_action(&mut self, inside: &mut bool) -> Step {
        let (delim, _) = self.at_right_delim();
        if delim {
            if self.paren_depth == 0 {
                return self.right_delim(inside);
            }
            return self.error("unclosed left paren".into());
        }
        let c = self.next();
        match c {
            None => self.error("unclosed action".into()),
            Some(c) if is_space(c) => {
                self.backup(Some(c));
                self.space()
            }
            Some('=') => {
                self.emit(Kind::Assign);
                Ok(())
            }
            Some(':') => {
                if self.next() != Some('=') {
                    return self.error("expected :=".into());
                }
                self.emit(Kind::Declare);
                Ok(())
            }
            Some('|') => {
                self.emit(Kind::Pipe);
                Ok(())
            }
            Some('"') => self.quote(),
            Some('`') => self.raw_quote(),
            Some('$') => self.field_or_variable(Kind::Variable),
            Some('\'') => self.char_constant(),
            Some('.') => {
                // A '.' followed by a digit is a number (.5).
                match self.peek() {
                    Some(d) if d.is_ascii_digit() => {
                        self.backup(Some('.'));
                        self.number()
                    }
                    _ => self.field_or_variable(Kind::Field),
                }
            }
            Some('+' | '-' | '0'..='9') => {
                self.backup(c);
                self.number()
            }
            Some(c) if is_alphanumeric(c) => {
                self.backup(Some(c));
                self.identifier()
            }
            Some('(') => {
                self.emit(Kind::LeftParen);
                self.paren_depth += 1;
                Ok(())
            }
            Some(')') => {
                // An unmatched `)` is the lexer's error, before the parser sees it.
                self.paren_depth -= 1;
                if self.paren_depth < 0 {
                    return self.error("unexpected right paren".into());
                }
                self.emit(Kind::RightParen);
                Ok(())
            }
            Some(c) if c.is_ascii() && !c.is_ascii_control() => {
                self.emit(Kind::Char);
                Ok(())
            }
            Some(c) => self.error(format!(
                "unrecognized character in action: {}",
                crate::text::rune_u(c)
            )),
        }
    }

    #[expect(
        clippy::unnecessary_wraps,
        reason = "a state of the lexer: every state is a Step (Go's stateFn)"
    )]
    fn space(&mut self) -> Step {
        let mut spaces = 0;
        while self.peek().is_some_and(is_space) {
            self.next();
            spaces += 1;
        }
        // A space that starts " -}}" belongs to the closing delimiter.
        let before = &self.input[self.pos - 1..];
        if Self::has_right_trim_marker(before) && before[2..].starts_with(self.opts.right) {
            self.pos -= 1;
            if spaces == 1 {
                return Ok(());
            }
        }
        self.emit(Kind::Space);
        Ok(())
    }

    fn at_terminator(&self) -> bool {
        match self.peek() {
            None | Some('.' | ',' | '|' | ':' | ')' | '(') => true,
            Some(c) if is_space(c) => true,
            _ => starts_with(self.rest(), self.opts.right),
        }
    }

    fn bad_character(&mut self) -> Step {
        let c = self.next().unwrap_or('\0');
        self.error(format!("bad character {}", crate::text::rune_u(c)))
    }

    fn identifier(&mut self) -> Step {
        while self.peek().is_some_and(is_alphanumeric) {
            self.next();
        }
        if !self.at_terminator() {
            return self.bad_character();
        }
        let word = &self.input[self.start..self.pos];
        let kind = match keyword(word) {
            Some(Kind::Break) if !self.opts.break_ok => Kind::Identifier,
            Some(Kind::Continue) if !self.opts.continue_ok => Kind::Identifier,
            Some(k) => k,
            None if word == "true" || word == "false" => Kind::Bool,
            None => Kind::Identifier,
        };
        self.emit(kind);
        Ok(())
    }

    fn field_or_variable(&mut self, kind: Kind) -> Step {
        if self.at_terminator() {
            self.emit(if kind == Kind::Variable {
                Kind::Variable
            } else {
                Kind::Dot
            });
            return Ok(());
        }
        while self.peek().is_some_and(is_alphanumeric) {
            self.next();
        }
        if !self.at_terminator() {
            return self.bad_character();
        }
        self.emit(kind);
        Ok(())
    }

    fn char_constant(&mut self) -> Step {
        loop {
            match self.next() {
                Some('\\') => match self.next() {
                    None | Some('\n') => {
                        return self.error("unterminated character constant".into());
                    }
                    _ => {}
                },
                None | Some('\n') => return self.error("unterminated character constant".into()),
                Some('\'') => break,
                _ => {}
            }
        }
        self.emit(Kind::CharConstant);
        Ok(())
    }

    fn number(&mut self) -> Step {
        if !self.scan_number() {
            return self.error(format!(
                "bad number syntax: {}",
                crate::fmt::quote(&self.input[self.start..self.pos])
            ));
        }
        if matches!(self.peek(), Some('+' | '-')) {
            // A complex constant: 1+2i, no spaces, ends in 'i'.
            if !self.scan_number() || !self.input[..self.pos].ends_with('i') {
                return self.error(format!(
                    "bad number syntax: {}",
                    crate::fmt::quote(&self.input[self.start..self.pos])
                ));
            }
            self.emit(Kind::Complex);
        } else {
            self.emit(Kind::Number);
        }
        Ok(())
    }

    fn scan_number(&mut self) -> bool {
        self.accept("+-");
        let mut digits = "0123456789_";
        if self.accept("0") {
            if self.accept("xX") {
                digits = "0123456789abcdefABCDEF_";
            } else if self.accept("oO") {
                digits = "01234567_";
            } else if self.accept("bB") {
                digits = "01_";
            }
        }
        self.accept_run(digits);
        if self.accept(".") {
            self.accept_run(digits);
        }
        if digits.len() == 11 && self.accept("eE") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        if digits.len() == 23 && self.accept("pP") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        self.accept("i");
        if self.peek().is_some_and(is_alphanumeric) {
            self.next();
            return false;
        }
        true
    }

    fn quote(&mut self) -> Step {
        loop {
            match self.next() {
                Some('\\') => match self.next() {
                    None | Some('\n') => return self.error("unterminated quoted string".into()),
                    _ => {}
                },
                None | Some('\n') => return self.error("unterminated quoted string".into()),
                Some('"') => break,
                _ => {}
            }
        }
        self.emit(Kind::String);
        Ok(())
    }

    fn raw_quote(&mut self) -> Step {
        if let Some(x) = self.rest().find('`') {
            self.pos += x + 1;
            self.emit(Kind::RawString);
            Ok(())
        } else {
            self.pos = self.input.len();
            self.error("unterminated raw quoted string".into())
        }
    }
}
