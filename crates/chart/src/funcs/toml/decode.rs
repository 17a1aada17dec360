//! TOML documents as `BurntSushi/toml` (Helm's `fromToml`) reads them.
//!
//! Helm's decoder accepts a few documents the TOML spec refuses (a dotted key's table
//! defined again later), types an array of tables `[]map[string]interface {}`, and
//! words its errors its own way (`toml: line 1 (last key "a"): unexpected EOF; expected
//! value`), naming the line where its lexer stood and the key its parser was on. So the
//! document is read as that decoder reads it: a lexer with the same states (top level,
//! table names, keys, values, arrays, inline tables, the four kinds of strings, numbers
//! and dates) and the same way of counting lines, then a parser that takes its items in
//! order, reads strings, numbers and dates, and keeps the decoder's record of defined,
//! implicit and array keys, which decides what a key defined twice is.
use std::collections::{BTreeMap, HashMap, HashSet};

use gotemplate::Value;

/// Arrays and inline tables nested in each other, at most. BurntSushi/toml has no bound
/// (Go's stack grows to a gigabyte); here lexing, parsing and the value each recurse once
/// per level on a thread's fixed stack (a test thread's 2 MiB overflowed at 500 levels in
/// an unoptimised build), so deeper documents are refused in the decoder's words, as Go's
/// encoding/json refuses JSON nested past its own bound. A deliberate difference.
const MAX_NESTING: usize = 250;

/// `text` as `BurntSushi/toml` decodes it, or its message when it refuses it.
pub(super) fn decode(text: &str) -> Result<Value, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.chars().take(6).any(|c| c == '\0') {
        return Err(
            "toml: line 1: files cannot contain NULL bytes; probably using UTF-16; TOML files \
             must be UTF-8"
                .into(),
        );
    }
    let mut lexer = Lexer::new(text);
    if let Err(e) = lexer.top() {
        lexer.items.push(Item {
            kind: Kind::Error(e.message),
            line: e.line,
            text: String::new(),
        });
    }
    Parser::default().run(&lexer.items)
}

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Error(String),
    Eof,
    Text,
    /// A literal string, or a multi-line one.
    String,
    /// A basic string, whose escapes the parser reads.
    BasicString,
    MultilineString,
    MultilineLiteral,
    Bool,
    Integer,
    Float,
    Datetime,
    Array,
    ArrayEnd,
    TableStart,
    TableEnd,
    ArrayTableStart,
    ArrayTableEnd,
    KeyStart,
    KeyEnd,
    CommentStart,
    InlineTableStart,
    InlineTableEnd,
}

struct Item {
    kind: Kind,
    line: usize,
    text: String,
}

struct LexError {
    message: String,
    line: usize,
}

type Lexed = Result<(), LexError>;

/// Go's `%q` of a rune (`'x'`, `'\n'`, `'\x00'` for the end of the input).
fn quote_rune(c: Option<char>) -> String {
    let c = c.unwrap_or('\0');
    let quoted = gotemplate::fmt::quote(&c.to_string());
    let inner = match c {
        '"' => "\"",
        '\'' => "\\'",
        _ => &quoted[1..quoted.len() - 1],
    };
    format!("'{inner}'")
}

fn rune_or_eof(c: Option<char>) -> String {
    c.map_or_else(|| "end of file".into(), |c| format!("'{c}'"))
}

fn is_whitespace(c: Option<char>) -> bool {
    matches!(c, Some(' ' | '\t'))
}

fn is_nl(c: Option<char>) -> bool {
    matches!(c, Some('\n' | '\r'))
}

fn is_digit(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_digit())
}

fn is_hex(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_hexdigit())
}

fn is_bare_key_char(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `BurntSushi/toml`'s lexer, state by state: `next` and `backup` move one character and keep
/// the line count as it does (a line break counts once consumed).
struct Lexer {
    chars: Vec<char>,
    pos: usize,
    start: usize,
    line: usize,
    at_eof: bool,
    escaped: bool,
    items: Vec<Item>,
    /// Arrays and inline tables open around the current value.
    nesting: usize,
}

impl Lexer {
    fn new(text: &str) -> Lexer {
        Lexer {
            chars: text.chars().collect(),
            pos: 0,
            start: 0,
            line: 1,
            at_eof: false,
            escaped: false,
            items: Vec::new(),
            nesting: 0,
        }
    }

    fn current(&self) -> String {
        self.chars[self.start.min(self.pos)..self.pos]
            .iter()
            .collect()
    }

    fn emit(&mut self, kind: Kind) {
        let text = self.current();
        self.items.push(Item {
            kind,
            line: self.line,
            text,
        });
        self.start = self.pos;
    }

    fn next(&mut self) -> Result<Option<char>, LexError> {
        let Some(&c) = self.chars.get(self.pos) else {
            self.at_eof = true;
            return Ok(None);
        };
        if c == '\n' {
            self.line += 1;
        }
        let lone_cr = c == '\r' && self.chars.get(self.pos + 1) != Some(&'\n');
        if (c < ' ' && !matches!(c, '\t' | '\r' | '\n')) || c == '\u{7f}' || lone_cr {
            return Err(LexError {
                message: format!(
                    "TOML files cannot contain control characters: '0x{:02x}'",
                    u32::from(c)
                ),
                line: self.line,
            });
        }
        self.pos += 1;
        Ok(Some(c))
    }

    fn backup(&mut self) {
        if self.at_eof {
            self.at_eof = false;
            return;
        }
        self.pos -= 1;
        if self.chars.get(self.pos) == Some(&'\n') {
            self.line -= 1;
        }
    }

    fn accept(&mut self, wanted: char) -> Result<bool, LexError> {
        if self.next()? == Some(wanted) {
            return Ok(true);
        }
        self.backup();
        Ok(false)
    }

    fn peek(&mut self) -> Result<Option<char>, LexError> {
        let c = self.next()?;
        self.backup();
        Ok(c)
    }

    fn ignore(&mut self) {
        self.start = self.pos;
    }

    fn skip_whitespace(&mut self) -> Lexed {
        while is_whitespace(self.next()?) {}
        self.backup();
        self.ignore();
        Ok(())
    }

    /// An error where the lexer stands; at the end of the input, on the last line that
    /// has text.
    fn error(&self, message: impl Into<String>) -> Lexed {
        let mut line = self.line;
        if self.at_eof && self.pos >= 1 && self.chars[self.pos - 1] == '\n' {
            line -= 1;
        }
        Err(LexError {
            message: message.into(),
            line,
        })
    }

    /// An error on the line before (a line break that ends a string or a value).
    fn error_prev_line(&self, message: impl Into<String>) -> Lexed {
        Err(LexError {
            message: message.into(),
            line: self.line - 1,
        })
    }

    fn top(&mut self) -> Lexed {
        loop {
            let c = self.next()?;
            match c {
                _ if is_whitespace(c) || is_nl(c) => self.ignore(),
                Some('#') => self.comment()?,
                Some('[') => {
                    self.table_start()?;
                    if self.top_end()? {
                        return Ok(());
                    }
                }
                None => {
                    if self.pos > self.start {
                        return self.error("unexpected EOF");
                    }
                    self.emit(Kind::Eof);
                    return Ok(());
                }
                Some(_) => {
                    self.backup();
                    self.key_start()?;
                    if self.top_end()? {
                        return Ok(());
                    }
                }
            }
        }
    }

    /// After a top-level item: true at the end of the input.
    fn top_end(&mut self) -> Result<bool, LexError> {
        loop {
            let c = self.next()?;
            match c {
                Some('#') => {
                    self.comment()?;
                    return Ok(false);
                }
                _ if is_whitespace(c) => {}
                _ if is_nl(c) => {
                    self.ignore();
                    return Ok(false);
                }
                None => {
                    self.emit(Kind::Eof);
                    return Ok(true);
                }
                Some(_) => {
                    self.error(format!(
                        "expected a top-level item to end with a newline, comment, or EOF, but \
                         got {} instead",
                        quote_rune(c)
                    ))?;
                }
            }
        }
    }

    fn comment(&mut self) -> Lexed {
        self.ignore();
        self.emit(Kind::CommentStart);
        loop {
            let c = self.next()?;
            if is_nl(c) || c.is_none() {
                self.backup();
                self.emit(Kind::Text);
                return Ok(());
            }
        }
    }

    fn table_start(&mut self) -> Lexed {
        if self.peek()? == Some('[') {
            self.next()?;
            self.emit(Kind::ArrayTableStart);
            self.table_name()?;
            let c = self.next()?;
            if c != Some(']') {
                return self.error(format!(
                    "expected end of table array name delimiter ']', but got {} instead",
                    quote_rune(c)
                ));
            }
            self.emit(Kind::ArrayTableEnd);
        } else {
            self.emit(Kind::TableStart);
            self.table_name()?;
            self.emit(Kind::TableEnd);
        }
        Ok(())
    }

    fn table_name(&mut self) -> Lexed {
        loop {
            self.skip_whitespace()?;
            match self.peek()? {
                Some(']') | None => {
                    return self
                        .error("unexpected end of table name (table names cannot be empty)");
                }
                Some('.') => {
                    return self.error("unexpected table separator (table names cannot be empty)");
                }
                Some('"' | '\'') => {
                    self.ignore();
                    self.quoted_name()?;
                }
                Some(_) => self.bare_name()?,
            }
            self.skip_whitespace()?;
            let c = self.next()?;
            match c {
                Some('.') => self.ignore(),
                Some(']') => return Ok(()),
                _ => {
                    return self.error(format!(
                        "expected '.' or ']' to end table name, but got {} instead",
                        quote_rune(c)
                    ));
                }
            }
        }
    }

    fn bare_name(&mut self) -> Lexed {
        while is_bare_key_char(self.next()?) {}
        self.backup();
        self.emit(Kind::Text);
        Ok(())
    }

    fn quoted_name(&mut self) -> Lexed {
        let c = self.next()?;
        match c {
            Some('"') => {
                self.ignore();
                self.string()
            }
            Some('\'') => {
                self.ignore();
                self.raw_string()
            }
            None => self.error("unexpected EOF; expected value"),
            _ => self.error(format!(
                "expected value but found {} instead",
                quote_rune(c)
            )),
        }
    }

    fn key_start(&mut self) -> Lexed {
        self.skip_whitespace()?;
        match self.peek()? {
            Some('=') | None => return self.error("unexpected '=': key name appears blank"),
            Some('.') => return self.error("unexpected '.': keys cannot start with a '.'"),
            Some('"' | '\'') => self.ignore(),
            Some(_) => {}
        }
        self.emit(Kind::KeyStart);
        loop {
            // A key's name.
            self.skip_whitespace()?;
            match self.peek()? {
                Some('"' | '\'') => {
                    self.ignore();
                    self.quoted_name()?;
                }
                Some('=') | None => return self.error("unexpected '='"),
                Some('.') => return self.error("unexpected '.'"),
                Some(_) => self.bare_name()?,
            }
            // After it.
            self.skip_whitespace()?;
            let c = self.next()?;
            match c {
                None => return self.error("unexpected EOF; expected key separator '='"),
                Some('.') => self.ignore(),
                Some('=') => {
                    self.emit(Kind::KeyEnd);
                    self.ignore();
                    return self.value();
                }
                Some('\n') => {
                    return self.error_prev_line(format!(
                        "expected '.' or '=', but got {} instead",
                        quote_rune(c)
                    ));
                }
                Some(_) => {
                    return self.error(format!(
                        "expected '.' or '=', but got {} instead",
                        quote_rune(c)
                    ));
                }
            }
        }
    }

    fn value(&mut self) -> Lexed {
        let mut c = self.next()?;
        while is_whitespace(c) {
            self.ignore();
            c = self.next()?;
        }
        if is_digit(c) {
            self.backup();
            return self.number_or_date_start();
        }
        match c {
            Some('[') => {
                self.ignore();
                self.emit(Kind::Array);
                return self.nested(Self::array);
            }
            Some('{') => {
                self.ignore();
                self.emit(Kind::InlineTableStart);
                return self.nested(Self::inline_table);
            }
            Some(quote @ ('"' | '\'')) => {
                if self.accept(quote)? {
                    if self.accept(quote)? {
                        self.ignore();
                        return self.multiline_string(quote);
                    }
                    self.backup();
                }
                self.ignore();
                return if quote == '"' {
                    self.string()
                } else {
                    self.raw_string()
                };
            }
            Some('.') => return self.error("floats must start with a digit, not '.'"),
            Some('i' | 'n')
                if (self.accept('n')? && self.accept('f')?)
                    || (self.accept('a')? && self.accept('n')?) =>
            {
                self.emit(Kind::Float);
                return Ok(());
            }
            Some('-' | '+') => return self.decimal_number_start(),
            _ => {}
        }
        match c {
            Some(letter) if letter.is_alphabetic() => {
                self.backup();
                self.bool()
            }
            None => self.error("unexpected EOF; expected value"),
            Some('\n') => self.error_prev_line(format!(
                "expected value but found {} instead",
                quote_rune(c)
            )),
            Some(_) => self.error(format!(
                "expected value but found {} instead",
                quote_rune(c)
            )),
        }
    }

    /// An array or inline table inside the current value, refused past [`MAX_NESTING`].
    fn nested(&mut self, container: fn(&mut Self) -> Lexed) -> Lexed {
        if self.nesting == MAX_NESTING {
            return self.error(format!(
                "arrays and inline tables nested deeper than {MAX_NESTING} levels"
            ));
        }
        self.nesting += 1;
        let lexed = container(self);
        self.nesting -= 1;
        lexed
    }

    fn array(&mut self) -> Lexed {
        loop {
            // Before a value.
            loop {
                let c = self.next()?;
                match c {
                    _ if is_whitespace(c) || is_nl(c) => self.ignore(),
                    Some('#') => self.comment()?,
                    Some(',') => return self.error("unexpected comma"),
                    Some(']') => {
                        self.end(Kind::ArrayEnd);
                        return Ok(());
                    }
                    _ => {
                        self.backup();
                        break;
                    }
                }
            }
            self.value()?;
            // After it.
            loop {
                let c = self.next()?;
                match c {
                    _ if is_whitespace(c) || is_nl(c) => self.ignore(),
                    Some('#') => self.comment()?,
                    Some(',') => {
                        self.ignore();
                        break;
                    }
                    Some(']') => {
                        self.end(Kind::ArrayEnd);
                        return Ok(());
                    }
                    _ => {
                        return self.error(format!(
                            "expected a comma (',') or array terminator (']'), but got {}",
                            rune_or_eof(c)
                        ));
                    }
                }
            }
        }
    }

    fn end(&mut self, kind: Kind) {
        self.ignore();
        self.emit(kind);
    }

    fn inline_table(&mut self) -> Lexed {
        loop {
            // Before a key.
            loop {
                let c = self.next()?;
                match c {
                    _ if is_whitespace(c) || is_nl(c) => self.ignore(),
                    Some('#') => self.comment()?,
                    Some(',') => return self.error("unexpected comma"),
                    Some('}') => {
                        self.end(Kind::InlineTableEnd);
                        return Ok(());
                    }
                    _ => {
                        self.backup();
                        break;
                    }
                }
            }
            self.key_start()?;
            // After its value.
            loop {
                let c = self.next()?;
                match c {
                    _ if is_whitespace(c) || is_nl(c) => self.ignore(),
                    Some('#') => self.comment()?,
                    Some(',') => {
                        self.ignore();
                        self.skip_whitespace()?;
                        if self.peek()? != Some('}') {
                            break;
                        }
                    }
                    Some('}') => {
                        self.end(Kind::InlineTableEnd);
                        return Ok(());
                    }
                    _ => {
                        return self.error(format!(
                            "expected a comma or an inline table terminator '}}', but got {} \
                             instead",
                            rune_or_eof(c)
                        ));
                    }
                }
            }
        }
    }

    fn string(&mut self) -> Lexed {
        loop {
            let c = self.next()?;
            match c {
                None => return self.error("unexpected EOF; expected '\"'"),
                _ if is_nl(c) => return self.error_prev_line("strings cannot contain newlines"),
                Some('\\') => self.escape()?,
                Some('"') => {
                    self.backup();
                    self.escaped = false;
                    self.emit(Kind::BasicString);
                    self.next()?;
                    self.ignore();
                    return Ok(());
                }
                Some(_) => {}
            }
        }
    }

    fn raw_string(&mut self) -> Lexed {
        loop {
            let c = self.next()?;
            match c {
                None => return self.error("unexpected EOF; expected \"'\""),
                _ if is_nl(c) => return self.error_prev_line("strings cannot contain newlines"),
                Some('\'') => {
                    self.backup();
                    self.emit(Kind::String);
                    self.next()?;
                    self.ignore();
                    return Ok(());
                }
                Some(_) => {}
            }
        }
    }

    /// A `"""` or `'''` string; more than five quotes in a row are refused.
    fn multiline_string(&mut self, quote: char) -> Lexed {
        let (three, five, six) = if quote == '"' {
            ("'\"\"\"'", "\"\"\"\"\"", "'\"\"\"\"\"\"'")
        } else {
            ("\"'''\"", "'''''", "\"''''''\"")
        };
        loop {
            let c = self.next()?;
            match c {
                None => return self.error(format!("unexpected EOF; expected {three}")),
                Some('\\') if quote == '"' => {
                    if !is_nl(self.next()?) {
                        self.backup();
                        self.escape()?;
                    }
                }
                Some(q) if q == quote => {
                    if self.accept(quote)? {
                        if self.accept(quote)? {
                            if self.peek()? == Some(quote) {
                                let current = self.current();
                                let escaped_quotes =
                                    quote == '"' && current.ends_with("\\\"\"\"\"\"");
                                if current.ends_with(five) && !escaped_quotes {
                                    return self.error(format!("unexpected {six}"));
                                }
                                self.backup();
                                self.backup();
                                continue;
                            }
                            self.backup();
                            self.backup();
                            self.backup();
                            self.emit(if quote == '"' {
                                Kind::MultilineString
                            } else {
                                Kind::MultilineLiteral
                            });
                            for _ in 0..3 {
                                self.next()?;
                            }
                            self.ignore();
                            return Ok(());
                        }
                        self.backup();
                    }
                }
                Some(_) => {}
            }
        }
    }

    fn escape(&mut self) -> Lexed {
        self.escaped = true;
        let c = self.next()?;
        let digits = match c {
            Some('e' | 'b' | 't' | 'n' | 'f' | 'r' | '"' | ' ' | '\t' | '\\') => return Ok(()),
            Some('x') => (2, "two", 'x'),
            Some('u') => (4, "four", 'u'),
            Some('U') => (8, "eight", 'U'),
            _ => {
                let message = format!("invalid escape in string '\\{}'", c.unwrap_or('\0'));
                return if self.at_eof {
                    self.error_prev_line(message)
                } else {
                    self.error(message)
                };
            }
        };
        for _ in 0..digits.0 {
            if !is_hex(self.next()?) {
                return self.error(format!(
                    "expected {} hexadecimal digits after '\\{}', but got {} instead",
                    digits.1,
                    digits.2,
                    gotemplate::fmt::quote(&self.current())
                ));
            }
        }
        Ok(())
    }

    fn number_or_date_start(&mut self) -> Lexed {
        if self.next()? == Some('0') {
            return self.base_number_or_date();
        }
        self.number_or_date()
    }

    fn number_or_date(&mut self) -> Lexed {
        loop {
            let c = self.next()?;
            match c {
                _ if is_digit(c) => {}
                Some('-' | ':') => return self.datetime(),
                Some('_') => return self.decimal_number(),
                Some('.' | 'e' | 'E') => return self.float(),
                _ => {
                    self.backup();
                    self.emit(Kind::Integer);
                    return Ok(());
                }
            }
        }
    }

    fn datetime(&mut self) -> Lexed {
        loop {
            let c = self.next()?;
            if !(is_digit(c)
                || matches!(c, Some('-' | ':' | 'T' | 't' | ' ' | '.' | 'Z' | 'z' | '+')))
            {
                self.backup();
                let text = self.current().trim().to_string();
                self.items.push(Item {
                    kind: Kind::Datetime,
                    line: self.line,
                    text,
                });
                self.start = self.pos;
                return Ok(());
            }
        }
    }

    fn integer_of(&mut self, digit: fn(char) -> bool) -> Lexed {
        loop {
            let c = self.next()?;
            if !c.is_some_and(|c| digit(c) || c == '_') {
                self.backup();
                self.emit(Kind::Integer);
                return Ok(());
            }
        }
    }

    fn decimal_number(&mut self) -> Lexed {
        loop {
            let c = self.next()?;
            match c {
                _ if is_digit(c) => {}
                Some('.' | 'e' | 'E') => return self.float(),
                Some('_') => {}
                _ => {
                    self.backup();
                    self.emit(Kind::Integer);
                    return Ok(());
                }
            }
        }
    }

    fn decimal_number_start(&mut self) -> Lexed {
        let c = self.next()?;
        match c {
            Some('i') => {
                if !self.accept('n')? || !self.accept('f')? {
                    return self.error(format!("invalid float: '{}'", self.current()));
                }
                self.emit(Kind::Float);
                return Ok(());
            }
            Some('n') => {
                if !self.accept('a')? || !self.accept('n')? {
                    return self.error(format!("invalid float: '{}'", self.current()));
                }
                self.emit(Kind::Float);
                return Ok(());
            }
            Some('0') => {
                if let Some(p @ ('b' | 'o' | 'x')) = self.peek()? {
                    return self.error(format!(
                        "cannot use sign with non-decimal numbers: '{}{p}'",
                        self.current()
                    ));
                }
            }
            Some('.') => return self.error("floats must start with a digit, not '.'"),
            _ => {}
        }
        if is_digit(c) {
            return self.decimal_number();
        }
        self.error(format!("expected a digit but got {}", quote_rune(c)))
    }

    fn base_number_or_date(&mut self) -> Lexed {
        let c = self.next()?;
        let (name, digit): (&str, fn(char) -> bool) = match c {
            _ if is_digit(c) => return self.number_or_date(),
            Some('_') => return self.decimal_number(),
            Some('.' | 'e' | 'E') => return self.float(),
            Some('b') => ("binary", |c| matches!(c, '0' | '1')),
            Some('o') => ("octal", |c| matches!(c, '0'..='7')),
            Some('x') => ("hexadecimal", |c| c.is_ascii_hexdigit()),
            _ => {
                self.backup();
                self.emit(Kind::Integer);
                return Ok(());
            }
        };
        let next = self.peek()?;
        if !next.is_some_and(digit) {
            return self.error(format!(
                "not a {name} number: '{}{}'",
                self.current(),
                next.unwrap_or('\0')
            ));
        }
        self.integer_of(digit)
    }

    fn float(&mut self) -> Lexed {
        loop {
            let c = self.next()?;
            if !(is_digit(c) || matches!(c, Some('_' | '.' | '-' | '+' | 'e' | 'E'))) {
                self.backup();
                self.emit(Kind::Float);
                return Ok(());
            }
        }
    }

    fn bool(&mut self) -> Lexed {
        let mut word = String::new();
        loop {
            match self.next()? {
                Some(c) if c.is_alphabetic() => word.push(c),
                _ => {
                    self.backup();
                    break;
                }
            }
        }
        if word == "true" || word == "false" {
            self.emit(Kind::Bool);
            return Ok(());
        }
        self.error(format!(
            "expected value but found {} instead",
            gotemplate::fmt::quote(&word)
        ))
    }
}

type Table = BTreeMap<String, Node>;

/// What the decoder has put at a key: a table, an array of tables, or a value.
enum Node {
    Table(Table),
    Tables(Vec<Table>),
    Value(Value),
}

fn table_at<'t>(mut table: &'t mut Table, path: &[String]) -> Option<&'t mut Table> {
    for k in path {
        table = match table.get_mut(k)? {
            Node::Table(t) => t,
            Node::Tables(list) => list.last_mut()?,
            Node::Value(_) => return None,
        };
    }
    Some(table)
}

/// A key as `BurntSushi/toml` prints it: its parts joined by dots, quoted where not bare.
fn key_text(parts: &[String]) -> String {
    parts
        .iter()
        .map(|part| {
            if !part.is_empty() && part.chars().all(|c| is_bare_key_char(Some(c))) {
                part.clone()
            } else {
                super::quote(part)
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// `BurntSushi/toml`'s parser, as far as it can refuse a document: the table and key it is in
/// (for the message's "last key"), and its record of keys.
#[derive(Default)]
struct Parser {
    context: Vec<String>,
    current_key: String,
    /// The line of the key or table name being defined.
    key_line: usize,
    root: Table,
    implicit: HashSet<Vec<String>>,
    is_array: HashMap<Vec<String>, bool>,
    next: usize,
}

type Parsed<T> = Result<T, String>;

impl Parser {
    fn fail(&self, line: usize, message: &str) -> String {
        let last_key = if self.current_key.is_empty() {
            key_text(&self.context)
        } else if self.context.is_empty() {
            self.current_key.clone()
        } else {
            format!("{}.{}", key_text(&self.context), self.current_key)
        };
        if last_key.is_empty() {
            format!("toml: line {line}: {message}")
        } else {
            format!(
                "toml: line {line} (last key {}): {message}",
                gotemplate::fmt::quote(&last_key)
            )
        }
    }

    fn item<'i>(&mut self, items: &'i [Item]) -> Parsed<&'i Item> {
        let item = &items[self.next.min(items.len() - 1)];
        self.next += 1;
        match &item.kind {
            Kind::Error(message) => Err(self.fail(item.line, message)),
            _ => Ok(item),
        }
    }

    fn run(mut self, items: &[Item]) -> Parsed<Value> {
        loop {
            let item = self.item(items)?;
            match item.kind {
                Kind::CommentStart => {
                    self.item(items)?;
                }
                Kind::TableStart | Kind::ArrayTableStart => {
                    let array = item.kind == Kind::ArrayTableStart;
                    let key = self.key(items, true)?;
                    self.add_context(&key, array)?;
                    self.set_type("", false);
                }
                Kind::KeyStart => {
                    let outer = self.context.clone();
                    self.key_value(items, false)?;
                    self.context = outer;
                    self.current_key.clear();
                }
                // The end of the input.
                _ => return Ok(table_value(&self.root)),
            }
        }
    }

    /// A key's parts up to the end of the key or table name.
    fn key(&mut self, items: &[Item], table: bool) -> Parsed<Vec<String>> {
        let mut key = Vec::new();
        let first = self.item(items)?;
        self.key_line = first.line;
        let mut part = first;
        while !matches!(
            part.kind,
            Kind::KeyEnd | Kind::TableEnd | Kind::ArrayTableEnd | Kind::Eof
        ) {
            key.push(self.string(part)?);
            part = self.item(items)?;
        }
        if key.is_empty() && !table {
            return Err(self.fail(part.line, "unexpected empty key"));
        }
        Ok(key)
    }

    /// `key = value`, at the top or inside an inline table.
    fn key_value(&mut self, items: &[Item], parent_is_array: bool) -> Parsed<(Vec<String>, Value)> {
        let key = self.key(items, false)?;
        let (last, parents) = key.split_last().unwrap_or((&self.current_key, &[]));
        let last = last.clone();
        self.current_key.clone_from(&last);
        for part in parents {
            let mut implicit = self.context.clone();
            implicit.push(part.clone());
            self.implicit.insert(implicit.clone());
            self.add_context(&implicit, false)?;
        }
        let item = self.item(items)?;
        let value = self.value(items, item, parent_is_array)?;
        let node = match item.kind {
            // The table is in place already, filled by its keys.
            Kind::InlineTableStart => Node::Table(Table::new()),
            _ => Node::Value(value.clone()),
        };
        self.set_value(&last, node)?;
        self.set_type(&last, item.kind == Kind::Array);
        Ok((key, value))
    }

    fn value(&mut self, items: &[Item], item: &Item, parent_is_array: bool) -> Parsed<Value> {
        Ok(match item.kind {
            Kind::Integer => Value::Int64(self.integer(item)?),
            Kind::Float => Value::Float(self.float(item)?),
            Kind::Datetime => self.datetime(item)?,
            Kind::Bool => Value::Bool(item.text == "true"),
            Kind::Array => {
                let key = self.current_key.clone();
                self.set_type(&key, true);
                let mut list = Vec::new();
                loop {
                    let element = self.item(items)?;
                    match element.kind {
                        Kind::ArrayEnd | Kind::Eof => break,
                        Kind::CommentStart => {
                            self.item(items)?;
                        }
                        _ => list.push(self.value(items, element, true)?),
                    }
                }
                Value::List(list.into())
            }
            Kind::InlineTableStart => self.inline_table(items, parent_is_array)?,
            _ => crate::convert::string(&self.string(item)?),
        })
    }

    fn inline_table(&mut self, items: &[Item], parent_is_array: bool) -> Parsed<Value> {
        let mut table = Table::new();
        let (outer_context, outer_key) = (self.context.clone(), self.current_key.clone());
        self.context.push(std::mem::take(&mut self.current_key));
        let context = self.context.clone();
        self.implicit.insert(context.clone());
        self.add_context(&context, parent_is_array)?;
        loop {
            let item = self.item(items)?;
            match item.kind {
                Kind::InlineTableEnd | Kind::Eof => break,
                Kind::CommentStart => {
                    self.item(items)?;
                }
                _ => {
                    let (key, value) = self.key_value(items, false)?;
                    self.context.clone_from(&context);
                    if let Some((last, parents)) = key.split_last()
                        && let Some(at) = inner_table(&mut table, parents)
                    {
                        at.insert(last.clone(), Node::Value(value));
                    }
                }
            }
        }
        self.context = outer_context;
        self.current_key = outer_key;
        Ok(table_value(&table))
    }

    fn set_type(&mut self, key: &str, array: bool) {
        let mut path = self.context.clone();
        if !key.is_empty() {
            path.push(key.to_string());
        }
        if path.is_empty() {
            path.push(String::new());
        }
        self.is_array.insert(path, array);
    }

    fn add_context(&mut self, key: &[String], array: bool) -> Parsed<()> {
        let Some((last, parents)) = key.split_last() else {
            return Ok(());
        };
        for depth in 0..parents.len() {
            let path = &key[..=depth];
            let Some(table) = table_at(&mut self.root, &key[..depth]) else {
                return Ok(());
            };
            if !table.contains_key(&key[depth]) {
                table.insert(key[depth].clone(), Node::Table(Table::new()));
                self.implicit.insert(path.to_vec());
            }
            if matches!(table.get(&key[depth]), Some(Node::Value(_))) {
                let message = format!("Key '{}' was already created as a hash.", key_text(path));
                return Err(self.fail(self.key_line, &message));
            }
        }
        self.context = parents.to_vec();
        if array {
            let Some(table) = table_at(&mut self.root, parents) else {
                return Ok(());
            };
            let entry = table
                .entry(last.clone())
                .or_insert_with(|| Node::Tables(Vec::new()));
            let Node::Tables(list) = entry else {
                let message = format!(
                    "Key '{}' was already created and cannot be used as an array.",
                    key_text(key)
                );
                return Err(self.fail(self.key_line, &message));
            };
            list.push(Table::new());
        } else {
            self.set_value(last, Node::Table(Table::new()))?;
        }
        self.context.push(last.clone());
        Ok(())
    }

    fn set_value(&mut self, key: &str, node: Node) -> Parsed<()> {
        for depth in 0..self.context.len() {
            let parent = table_at(&mut self.root, &self.context[..depth]);
            match parent.and_then(|t| t.get(&self.context[depth])) {
                None => return Ok(()),
                Some(Node::Value(_)) => {
                    let message = format!(
                        "Key '{}' has already been defined.",
                        key_text(&self.context[..=depth])
                    );
                    return Err(self.fail(self.key_line, &message));
                }
                Some(_) => {}
            }
        }
        let mut path = self.context.clone();
        path.push(key.to_string());
        let defined = format!("Key '{}' has already been defined.", key_text(&path));
        let is_array = self.is_array.get(&path).copied().unwrap_or(false);
        let implicit = self.implicit.contains(&path);
        let Some(table) = table_at(&mut self.root, &self.context) else {
            return Ok(());
        };
        if table.contains_key(key) {
            if is_array {
                if !implicit {
                    return Err(self.fail(self.key_line, &defined));
                }
                self.implicit.remove(&path);
                table.insert(key.to_string(), node);
                return Ok(());
            }
            if implicit {
                self.implicit.remove(&path);
                return Ok(());
            }
            return Err(self.fail(self.key_line, &defined));
        }
        table.insert(key.to_string(), node);
        Ok(())
    }

    /// A string item's text: a basic string's escapes read, a multi-line string's first
    /// line break and escaped line breaks left out. Refused: `\ ` outside an escaped line
    /// break and a code point that is no character (`\uD800`).
    fn string(&self, item: &Item) -> Parsed<String> {
        let text = match item.kind {
            Kind::MultilineString | Kind::MultilineLiteral => strip_first_newline(&item.text),
            _ => &item.text,
        };
        let text = match item.kind {
            Kind::BasicString => text.to_string(),
            Kind::MultilineString => strip_escaped_newlines(text),
            _ => return Ok(text.to_string()),
        };
        let mut out = String::with_capacity(text.len());
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            let escape = chars.next().unwrap_or('\\');
            let digits = match escape {
                ' ' | '\t' => {
                    let message = format!("invalid escape: '\\{escape}'");
                    return Err(self.fail(item.line, &message));
                }
                'b' => {
                    out.push('\u{8}');
                    continue;
                }
                't' => {
                    out.push('\t');
                    continue;
                }
                'n' => {
                    out.push('\n');
                    continue;
                }
                'f' => {
                    out.push('\u{c}');
                    continue;
                }
                'r' => {
                    out.push('\r');
                    continue;
                }
                'e' => {
                    out.push('\u{1b}');
                    continue;
                }
                'x' => 2,
                'u' => 4,
                'U' => 8,
                other => {
                    out.push(other);
                    continue;
                }
            };
            let hex: String = chars.by_ref().take(digits).collect();
            let Some(c) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) else {
                let message = format!("Escaped character '\\u{hex}' is not valid UTF-8.");
                return Err(self.fail(item.line, &message));
            };
            out.push(c);
        }
        Ok(out)
    }

    fn integer(&self, item: &Item) -> Parsed<i64> {
        let text = &item.text;
        let quoted = gotemplate::fmt::quote(text);
        if !underscores_ok(text) {
            let message =
                format!("Invalid integer {quoted}: underscores must be surrounded by digits");
            return Err(self.fail(item.line, &message));
        }
        if leading_zero(text) {
            let message = format!("Invalid integer {quoted}: cannot have leading zeroes");
            return Err(self.fail(item.line, &message));
        }
        let digits = text.replace('_', "");
        let (negative, digits) = match digits.strip_prefix('-') {
            Some(rest) => (true, rest.to_string()),
            None => (false, digits.trim_start_matches('+').to_string()),
        };
        let (radix, digits) = match digits.get(..2) {
            Some("0x") => (16, &digits[2..]),
            Some("0o") => (8, &digits[2..]),
            Some("0b") => (2, &digits[2..]),
            _ => (10, &digits[..]),
        };
        let magnitude = u128::from_str_radix(digits, radix).ok();
        let value = magnitude.and_then(|n| {
            let n = i128::try_from(n).ok()?;
            i64::try_from(if negative { -n } else { n }).ok()
        });
        let well_formed = !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix));
        match value {
            Some(value) => Ok(value),
            None if well_formed => {
                let message = format!("{text} is out of range for int64");
                Err(self.fail(item.line, &message))
            }
            None => Ok(0),
        }
    }

    fn float(&self, item: &Item) -> Parsed<f64> {
        let text = &item.text;
        let quoted = gotemplate::fmt::quote(text);
        let parts: Vec<&str> = text
            .split(['.', 'e', 'E'])
            .filter(|p| !p.is_empty())
            .collect();
        if parts.iter().any(|part| !underscores_ok(part)) {
            let message =
                format!("Invalid float {quoted}: underscores must be surrounded by digits");
            return Err(self.fail(item.line, &message));
        }
        if parts.first().is_some_and(|p| leading_zero(p)) {
            let message = format!("Invalid float {quoted}: cannot have leading zeroes");
            return Err(self.fail(item.line, &message));
        }
        let periods_ok = {
            let mut period = false;
            let mut ok = true;
            for c in text.chars() {
                if period && !c.is_ascii_digit() {
                    ok = false;
                    break;
                }
                period = c == '.';
            }
            ok && !period
        };
        if !periods_ok {
            let message =
                format!("Invalid float {quoted}: '.' must be followed by one or more digits");
            return Err(self.fail(item.line, &message));
        }
        let value = text.replace('_', "");
        let value = value.trim_start_matches('+');
        match value {
            "nan" => return Ok(f64::NAN),
            "-nan" => return Ok(-f64::NAN),
            "inf" => return Ok(f64::INFINITY),
            "-inf" => return Ok(f64::NEG_INFINITY),
            _ => {}
        }
        match value.parse::<f64>() {
            Ok(f) if f.is_infinite() => {
                let message = format!("{text} is out of range for float64");
                Err(self.fail(item.line, &message))
            }
            Ok(f) => Ok(f),
            Err(_) => Err(self.fail(item.line, &format!("Invalid float value: {quoted}"))),
        }
    }

    /// A date or time as a Go `time.Time`, as `fromToml` decodes it.
    fn datetime(&self, item: &Item) -> Parsed<Value> {
        let text: String = item
            .text
            .chars()
            .map(|c| match c {
                'z' => 'Z',
                't' | ' ' => 'T',
                c => c,
            })
            .collect();
        if valid_datetime(&text) {
            return Ok(match text.parse::<toml::value::Datetime>() {
                Ok(datetime) => super::go_time(&datetime),
                Err(_) => crate::convert::string(&text),
            });
        }
        let message = format!("invalid datetime: {}", gotemplate::fmt::quote(&text));
        Err(self.fail(item.line, &message))
    }
}

/// The table at `path` inside an inline table, made where missing.
fn inner_table<'t>(mut table: &'t mut Table, path: &[String]) -> Option<&'t mut Table> {
    for part in path {
        match table
            .entry(part.clone())
            .or_insert_with(|| Node::Table(Table::new()))
        {
            Node::Table(inner) => table = inner,
            _ => return None,
        }
    }
    Some(table)
}

/// A decoded table as a template value: tables are maps, arrays of tables Go's
/// `[]map[string]interface {}` of them.
fn table_value(table: &Table) -> Value {
    let node_value = |node: &Node| match node {
        Node::Table(t) => table_value(t),
        Node::Tables(list) => Value::typed_slice(
            "[]map[string]interface {}",
            list.iter().map(table_value).collect(),
        ),
        Node::Value(v) => v.clone(),
    };
    Value::Map(gotemplate::MapRef::new(
        table
            .iter()
            .map(|(k, node)| (std::sync::Arc::from(k.as_str()), node_value(node)))
            .collect(),
    ))
}

/// A multi-line string without the line break right after its opening quotes.
fn strip_first_newline(s: &str) -> &str {
    s.strip_prefix('\n')
        .or_else(|| s.strip_prefix("\r\n"))
        .unwrap_or(s)
}

/// A multi-line basic string without its escaped line breaks: a backslash, then white
/// space with a line break in it, are left out (`\\` is a backslash, kept).
fn strip_escaped_newlines(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let (mut kept, mut i) = (0, 0);
    while let Some(offset) = s[i..].find('\\') {
        i += offset;
        if bytes.get(i + 1) == Some(&b'\\') {
            i += 2;
            continue;
        }
        let mut j = i + 1;
        while j < bytes.len() && matches!(bytes[j], b' ' | b'\t' | b'\r' | b'\n') {
            j += 1;
        }
        if s[i..j].contains('\n') {
            out.push_str(&s[kept..i]);
            kept = j;
            i = j;
        } else {
            i += 1;
        }
    }
    out.push_str(&s[kept..]);
    out
}

/// Underscores only between digits (hex digits count, as in `BurntSushi/toml`).
fn underscores_ok(s: &str) -> bool {
    if matches!(s, "nan" | "+nan" | "-nan" | "inf" | "-inf" | "+inf") {
        return true;
    }
    let mut accept = false;
    for c in s.chars() {
        if c == '_' && !accept {
            return false;
        }
        accept = c.is_ascii_hexdigit();
    }
    accept
}

fn leading_zero(s: &str) -> bool {
    let b = s.as_bytes();
    (b.len() > 1 && b[0] == b'0' && !matches!(b[1], b'b' | b'o' | b'x'))
        || (b.len() > 2 && matches!(b[0], b'-' | b'+') && b[1] == b'0')
}

/// Whether `text` (`t`, `z` and a space already made `T` and `Z`) is one of the date and
/// time forms `BurntSushi/toml` accepts: an RFC 3339 date-time with or without an offset, a
/// date, a time, each with seconds optional in the date-time and time, a fraction after
/// seconds, every field its full width and in range.
fn valid_datetime(text: &str) -> bool {
    let (date, rest) = match text.split_once('T') {
        Some((date, time)) => (Some(date), Some(time)),
        None if text.contains(':') => (None, Some(text)),
        None => (Some(text), None),
    };
    if let Some(date) = date {
        let fields: Vec<&str> = date.split('-').collect();
        let [year, month, day] = fields[..] else {
            return false;
        };
        let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
        if !(digits(year, 4) && digits(month, 2) && digits(day, 2)) {
            return false;
        }
        let parse = |s: &str| s.parse::<u32>().unwrap_or(0);
        let Ok(year) = year.parse::<i32>() else {
            return false;
        };
        if chrono::NaiveDate::from_ymd_opt(year, parse(month), parse(day)).is_none() {
            return false;
        }
    }
    let Some(time) = rest else {
        return true;
    };
    // The offset, only after a date.
    let (clock, offset) = match time.find(['Z', '+', '-']) {
        Some(i) => (&time[..i], Some(&time[i..])),
        None => (time, None),
    };
    if offset.is_some() && date.is_none() {
        return false;
    }
    if let Some(offset) = offset
        && offset != "Z"
    {
        let b = offset.as_bytes();
        let ok = b.len() == 6
            && b[3] == b':'
            && [1, 2, 4, 5].iter().all(|&i| b[i].is_ascii_digit())
            && offset[1..3].parse::<u32>().is_ok_and(|h| h < 24)
            && offset[4..6].parse::<u32>().is_ok_and(|m| m < 60);
        if !ok {
            return false;
        }
    }
    let (clock, fraction) = match clock.split_once('.') {
        Some((clock, fraction)) => (clock, Some(fraction)),
        None => (clock, None),
    };
    if fraction.is_some_and(|f| f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    let fields: Vec<&str> = clock.split(':').collect();
    let two = |s: &str, max: u32| {
        s.len() == 2
            && s.bytes().all(|b| b.is_ascii_digit())
            && s.parse::<u32>().is_ok_and(|n| n < max)
    };
    match fields[..] {
        [h, m] => fraction.is_none() && two(h, 24) && two(m, 60),
        [h, m, s] => two(h, 24) && two(m, 60) && two(s, 60),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_NESTING, decode};

    /// Documents made of TOML's punctuation, keys, numbers, control and multi-byte
    /// characters, in every order a fixed-seed generator gives: each is decoded or
    /// refused, none panics.
    #[test]
    fn no_document_panics() {
        const PIECES: [&str; 24] = [
            "a", "=", " ", "\n", "\"", "'", "[", "]", "{", "}", ",", ".", "\\", "#", "1", "_", "-",
            "0x", "e", "T", ":", "é", "\u{1}", "\r",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..20_000 {
            let mut doc = String::new();
            for _ in 0..seed % 24 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                doc.push_str(PIECES[usize::try_from(seed % 24).unwrap_or(0)]);
            }
            let _ = decode(&doc);
        }
    }

    /// A document nested as deep as allowed decodes on a test thread's 2 MiB stack (in
    /// an unoptimised build, whose frames are the largest); one level more is refused in
    /// one line, and far deeper too, instead of overflowing the stack.
    #[test]
    fn nesting_is_bounded() {
        let nested = |open: &str, inner: &str, close: &str, n: usize| {
            format!("a = {}{inner}{}", open.repeat(n), close.repeat(n))
        };
        for (open, inner, close) in [("[", "1", "]"), ("{x = ", "1", "}"), ("[{x = ", "1", "}]")] {
            let levels = open.matches(['[', '{']).count();
            let deepest = MAX_NESTING / levels;
            assert!(
                decode(&nested(open, inner, close, deepest)).is_ok(),
                "{open}"
            );
            for n in [deepest + 1, 1_000_000] {
                let error = decode(&nested(open, inner, close, n)).unwrap_err();
                let wanted =
                    format!("): arrays and inline tables nested deeper than {MAX_NESTING} levels");
                assert!(
                    error.starts_with("toml: line 1 (last key \"a") && error.ends_with(&wanted),
                    "{error}"
                );
            }
        }
    }

    #[test]
    fn errors_name_the_line_and_the_last_key() {
        assert_eq!(
            decode("a = 1\n[t]\nk = [1,\n 2,,]").err().as_deref(),
            Some("toml: line 4 (last key \"t.k\"): unexpected comma")
        );
        assert_eq!(
            decode("[a]\nb = 1\n[a]").err().as_deref(),
            Some("toml: line 3: Key 'a' has already been defined.")
        );
    }
}
