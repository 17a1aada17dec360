//! Go's regexp syntax (RE2 in Perl mode, as `regexp.Compile` parses it), rewritten into
//! the regex crate's syntax with the same meaning.
//!
//! The two dialects look alike but differ where charts notice: Go's `\d`, `\s`, `\w`
//! and `\b` are ASCII-only (the regex crate's are Unicode), Go accepts `[\w-.]` (a `-`
//! after a class escape is a literal), `\Q...\E`, octal escapes and a `{` that does not
//! start a repeat as a literal, while the regex crate reads `[`, `&&`, `--` and `~~`
//! inside a class as set syntax. Every literal is therefore re-emitted escaped and every
//! class escape spelled out. Patterns Go rejects fail with Go's own message.
use std::fmt::Write;

/// Go's `\d`, `\s`, `\w` bodies (ASCII only).
fn perl_class(c: char) -> Option<(&'static str, bool)> {
    match c {
        'd' => Some(("0-9", false)),
        'D' => Some(("0-9", true)),
        's' => Some(("\\t\\n\\x0C\\r ", false)),
        'S' => Some(("\\t\\n\\x0C\\r ", true)),
        'w' => Some(("0-9A-Za-z_", false)),
        'W' => Some(("0-9A-Za-z_", true)),
        _ => None,
    }
}

/// POSIX class names Go knows inside `[...]`.
const POSIX: [&str; 14] = [
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    out: String,
}

fn err(kind: &str, text: &str) -> String {
    format!("{kind}: `{text}`")
}

fn push_literal(out: &mut String, c: char) {
    out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    /// An escape that stands for one character (`\n`, `\x41`, `\101`, `\.`), with the
    /// backslash already consumed; `start` is where the backslash was.
    fn char_escape(&mut self, start: usize) -> Result<char, String> {
        let bad = |p: &Self| err("invalid escape sequence", &p.src[start..p.pos]);
        let Some(c) = self.bump() else {
            return Err(err("trailing backslash at end of expression", ""));
        };
        let octal = |c: char| ('0'..='7').contains(&c);
        match c {
            '1'..='7' if !self.peek().is_some_and(octal) => Err(bad(self)),
            '0'..='7' => {
                let mut v = c as u32 - '0' as u32;
                for _ in 0..2 {
                    match self.peek() {
                        Some(d) if octal(d) => {
                            v = v * 8 + (d as u32 - '0' as u32);
                            self.bump();
                        }
                        _ => break,
                    }
                }
                char::from_u32(v).ok_or_else(|| bad(self))
            }
            'x' => {
                let digits = if self.peek() == Some('{') {
                    self.bump();
                    let end = self.rest().find('}').ok_or_else(|| {
                        self.pos = self.src.len();
                        bad(self)
                    })?;
                    let d = &self.rest()[..end];
                    self.pos += end + 1;
                    d
                } else {
                    let d = self.rest().get(..2).unwrap_or(self.rest());
                    self.pos += d.len();
                    if d.len() < 2 {
                        return Err(bad(self));
                    }
                    d
                };
                let ok = !digits.is_empty() && digits.chars().all(|d| d.is_ascii_hexdigit());
                ok.then(|| u32::from_str_radix(digits, 16).ok())
                    .flatten()
                    .and_then(char::from_u32)
                    .ok_or_else(|| bad(self))
            }
            'a' => Ok('\x07'),
            'f' => Ok('\x0C'),
            'n' => Ok('\n'),
            'r' => Ok('\r'),
            't' => Ok('\t'),
            'v' => Ok('\x0B'),
            c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok(c),
            _ => Err(bad(self)),
        }
    }

    /// `\pL`, `\p{Greek}`, `\PN`, with `\p` or `\P` consumed; passed through as written.
    fn unicode_class(&mut self, start: usize) -> Result<String, String> {
        match self.bump() {
            Some('{') => {
                let end = self
                    .rest()
                    .find('}')
                    .ok_or_else(|| err("invalid character class range", &self.src[start..]))?;
                self.pos += end + 1;
            }
            Some(_) => {}
            None => return Err(err("invalid character class range", &self.src[start..])),
        }
        Ok(self.src[start..self.pos].to_string())
    }

    fn class(&mut self) -> Result<(), String> {
        let start = self.pos - 1;
        self.out.push('[');
        if self.rest().starts_with('^') {
            self.bump();
            self.out.push('^');
        }
        let mut first = true;
        loop {
            let missing = || err("missing closing ]", &self.src[start..]);
            let item = self.pos;
            let c = self.peek().ok_or_else(missing)?;
            if c == ']' && !first {
                self.bump();
                break;
            }
            first = false;
            // A POSIX class, `[:alpha:]`.
            if self.rest().starts_with("[:")
                && let Some(end) = self.rest()[2..].find(":]")
            {
                let name = &self.rest()[2..2 + end];
                if !POSIX.contains(&name.trim_start_matches('^')) {
                    return Err(err(
                        "invalid character class range",
                        &self.rest()[..end + 4],
                    ));
                }
                self.out.push_str(&self.rest()[..end + 4]);
                self.pos += end + 4;
                continue;
            }
            self.bump();
            let lo = if c == '\\' {
                match self.peek() {
                    Some(e) if perl_class(e).is_some() => {
                        self.bump();
                        let (body, negated) = perl_class(e).unwrap_or(("", false));
                        if negated {
                            let _ = write!(self.out, "[^{body}]");
                        } else {
                            self.out.push_str(body);
                        }
                        continue;
                    }
                    Some('p' | 'P') => {
                        self.bump();
                        let class = self.unicode_class(item)?;
                        self.out.push_str(&class);
                        continue;
                    }
                    _ => self.char_escape(item)?,
                }
            } else {
                c
            };
            // A range needs a `-` not followed by the closing `]`.
            let mut hi = lo;
            if self.rest().starts_with('-') && !self.rest().starts_with("-]") {
                self.bump();
                let h = self.bump().ok_or_else(missing)?;
                hi = if h == '\\' {
                    self.char_escape(self.pos - 1)?
                } else {
                    h
                };
                if hi < lo {
                    return Err(err(
                        "invalid character class range",
                        &self.src[item..self.pos],
                    ));
                }
            }
            push_literal(&mut self.out, lo);
            if hi != lo {
                self.out.push('-');
                push_literal(&mut self.out, hi);
            }
        }
        self.out.push(']');
        Ok(())
    }

    /// `(?flags)`, `(?flags:`, `(?P<name>`, `(?<name>`, with `(?` consumed.
    fn group_syntax(&mut self, start: usize) -> Result<(), String> {
        // Go reads a name only when something follows the `<`; a bare `(?<` at the
        // end is an unsupported flag.
        let rest = self.rest();
        let named = if rest.starts_with("P<") && rest.len() > 2 {
            Some(2)
        } else if rest.starts_with('<') && rest.len() > 1 {
            Some(1)
        } else {
            None
        };
        if let Some(skip) = named {
            let end = self
                .rest()
                .find('>')
                .ok_or_else(|| err("invalid named capture", &self.src[start..]))?;
            let name = &self.rest()[skip..end];
            self.pos += end + 1;
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(err("invalid named capture", &self.src[start..self.pos]));
            }
            let _ = write!(self.out, "(?P<{name}>");
            return Ok(());
        }
        let (mut sign, mut any) = (false, false);
        loop {
            let c = self.bump();
            let bad = || {
                err(
                    "invalid or unsupported Perl syntax",
                    &self.src[start..self.pos],
                )
            };
            match c {
                Some('i' | 'm' | 's' | 'U') => any = true,
                Some('-') if !sign => {
                    sign = true;
                    any = false;
                }
                // Go accepts `(?:` and `(?)` with no flags; only a `-` must be
                // followed by one.
                Some(c @ (':' | ')')) if any || !sign => {
                    if c == ')' && !any {
                        // `(?)` changes nothing: an empty group.
                        self.out.push_str("(?:)");
                        return Ok(());
                    }
                    self.out.push_str(&self.src[start..self.pos]);
                    return Ok(());
                }
                _ => return Err(bad()),
            }
        }
    }

    /// A repeat `{n}`, `{n,}`, `{n,m}` at the cursor, as (text, valid count); None when
    /// the `{` is a literal.
    fn repeat(&self) -> Option<(&'a str, bool)> {
        let r = self.rest();
        let end = r.find('}')?;
        let body = &r[1..end];
        let (n, m) = match body.split_once(',') {
            Some((n, m)) => (n, (!m.is_empty()).then_some(m)),
            None => (body, Some(body)),
        };
        let num = |d: &str| -> Option<u64> {
            (!d.is_empty() && d.len() <= 8 && d.bytes().all(|b| b.is_ascii_digit()))
                .then(|| d.parse().ok())
                .flatten()
        };
        let lo = num(n)?;
        let hi = match m {
            Some(m) => Some(num(m)?),
            None => None,
        };
        let valid = lo <= 1000 && hi.is_none_or(|h| h <= 1000 && h >= lo);
        Some((&r[..=end], valid))
    }

    fn parse(mut self) -> Result<String, String> {
        let mut depth = 0usize;
        // Whether the previous item can take a repetition operator, and where the
        // previous operator began (for Go's nested-repetition message).
        let mut operand = false;
        let mut last_op: Option<usize> = None;
        while let Some(c) = self.peek() {
            let start = self.pos;
            let op = match c {
                '*' | '+' | '?' => Some(c.len_utf8()),
                '{' => match self.repeat() {
                    Some((text, valid)) => {
                        if !valid {
                            return Err(err("invalid repeat count", text));
                        }
                        Some(text.len())
                    }
                    None => None,
                },
                _ => None,
            };
            if let Some(len) = op {
                let mut end = start + len;
                if self.src[end..].starts_with('?') {
                    end += 1;
                }
                if let Some(prev) = last_op {
                    return Err(err(
                        "invalid nested repetition operator",
                        &self.src[prev..end],
                    ));
                }
                if !operand {
                    return Err(err(
                        "missing argument to repetition operator",
                        &self.src[start..end],
                    ));
                }
                self.out.push_str(&self.src[start..end]);
                self.pos = end;
                last_op = Some(start);
                continue;
            }
            last_op = None;
            operand = true;
            self.bump();
            match c {
                '(' => {
                    depth += 1;
                    operand = false;
                    if self.rest().starts_with('?') {
                        self.bump();
                        let flags_only =
                            !self.rest().starts_with('P') && !self.rest().starts_with('<');
                        self.group_syntax(start)?;
                        if flags_only && self.out.ends_with(')') {
                            depth -= 1;
                        }
                    } else {
                        self.out.push('(');
                    }
                }
                ')' => {
                    if depth == 0 {
                        return Err(err("unexpected )", self.src));
                    }
                    depth -= 1;
                    self.out.push(')');
                }
                '|' => {
                    operand = false;
                    self.out.push('|');
                }
                '[' => self.class()?,
                '.' | '^' | '$' => self.out.push(c),
                '\\' => self.escape(start)?,
                c => push_literal(&mut self.out, c),
            }
        }
        if depth > 0 {
            return Err(err("missing closing )", self.src));
        }
        Ok(self.out)
    }

    /// An escape outside a class, backslash consumed.
    fn escape(&mut self, start: usize) -> Result<(), String> {
        match self.peek() {
            Some(a @ ('A' | 'z')) => {
                self.bump();
                self.out.push('\\');
                self.out.push(a);
            }
            Some(b @ ('b' | 'B')) => {
                self.bump();
                let _ = write!(self.out, "(?-u:\\{b})");
            }
            Some('Q') => {
                self.bump();
                let text = self.rest();
                let (lit, skip) = match text.find("\\E") {
                    Some(i) => (&text[..i], i + 2),
                    None => (text, text.len()),
                };
                for c in lit.chars() {
                    push_literal(&mut self.out, c);
                }
                self.pos += skip;
            }
            Some('p' | 'P') => {
                self.bump();
                let class = self.unicode_class(start)?;
                self.out.push_str(&class);
            }
            Some(e) if perl_class(e).is_some() => {
                self.bump();
                let (body, negated) = perl_class(e).unwrap_or(("", false));
                let caret = if negated { "^" } else { "" };
                let _ = write!(self.out, "[{caret}{body}]");
            }
            _ => {
                let c = self.char_escape(start)?;
                push_literal(&mut self.out, c);
            }
        }
        Ok(())
    }
}

/// The regex crate's spelling of a Go pattern.
///
/// # Errors
///
/// Go's parse error when Go rejects the pattern (the text after `error parsing regexp: `).
pub fn translate(pattern: &str) -> Result<String, String> {
    Parser {
        src: pattern,
        pos: 0,
        out: String::with_capacity(pattern.len() + 8),
    }
    .parse()
}

/// Go's `Regexp.Expand` of a replacement template: `$1`, `$name`, `${name}`, `$$`; a
/// name is the longest run of letters, digits and `_`, a number has no leading zero,
/// and a malformed `$` is kept as text.
pub fn expand(out: &mut String, template: &str, caps: &regex::Captures<'_>) {
    let mut rest = template;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        rest = &rest[i + 1..];
        if let Some(r) = rest.strip_prefix('$') {
            out.push('$');
            rest = r;
            continue;
        }
        let (braced, body) = match rest.strip_prefix('{') {
            Some(b) => (true, b),
            None => (false, rest),
        };
        let len = body
            .char_indices()
            .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
            .map_or(body.len(), |(i, _)| i);
        let name = &body[..len];
        let closed = !braced || body[len..].starts_with('}');
        if name.is_empty() || !closed {
            out.push('$');
            continue;
        }
        rest = &body[len + usize::from(braced)..];
        let number = (name.bytes().all(|b| b.is_ascii_digit())
            && (name.len() == 1 || !name.starts_with('0'))
            && name.len() <= 8)
            .then(|| name.parse::<usize>().ok())
            .flatten();
        let group = match number {
            Some(n) => caps.get(n),
            None => caps.name(name),
        };
        if let Some(m) = group {
            out.push_str(m.as_str());
        }
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(go: &str, text: &str) -> bool {
        regex::Regex::new(&translate(go).unwrap())
            .unwrap()
            .is_match(text)
    }

    #[test]
    fn class_escapes_are_ascii_and_dash_after_them_is_literal() {
        assert!(matches(r"^[\w-\.]+$", "a-b.c_1"));
        assert!(!matches(r"^[\w-\.]+$", "a b"));
        assert!(!matches(r"^\d+$", "١٢"));
        assert!(!matches(r"^\w$", "é"));
        assert!(!matches(r"^\s$", "\u{a0}"));
        assert!(!matches(r"^\s$", "\u{0b}"));
        assert!(matches(r"^[^\D]$", "7"));
        assert!(matches(r"\bx", "éx"));
    }

    #[test]
    fn go_literals_the_regex_crate_reads_otherwise() {
        assert!(matches(r"^\Qa.b\E+$", "a.bbb"));
        assert!(matches(r"^a{$", "a{"));
        assert!(matches(r"^a{,2}$", "a{,2}"));
        assert!(matches(r"^[\[a]+$", "[a"));
        assert!(matches(r"^[a&&b~~-]+$", "&~-"));
        assert!(matches(r"^\101\0$", "A\0"));
        assert!(matches(r"^\<\_$", "<_"));
        assert!(matches(r"^[]a]+$", "]a"));
        assert!(matches(r"^(?U)a+$", "aaa"));
        assert!(matches(r"^(?:ab)+(?)$", "abab"));
        assert!(matches(
            r"^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?$",
            "v25.1.1-rc.1"
        ));
        assert!(matches(r"^[[:alpha:]]+$", "ab"));
        assert!(!matches("a$", "a\n"));
    }

    #[test]
    fn rejects_what_go_rejects_with_gos_message() {
        for (pattern, message) in [
            ("(", "missing closing ): `(`"),
            ("a)", "unexpected ): `a)`"),
            ("a**", "invalid nested repetition operator: `**`"),
            ("*a", "missing argument to repetition operator: `*`"),
            (r"\1", r"invalid escape sequence: `\1`"),
            (r"\Z", r"invalid escape sequence: `\Z`"),
            ("(?x)a", "invalid or unsupported Perl syntax: `(?x`"),
            ("a{1001}", "invalid repeat count: `{1001}`"),
            ("[z-a]", "invalid character class range: `z-a`"),
            ("[a", "missing closing ]: `[a`"),
            ("a\\", "trailing backslash at end of expression: ``"),
        ] {
            assert_eq!(translate(pattern).unwrap_err(), message, "{pattern}");
        }
    }

    #[test]
    fn expansion_follows_go() {
        let re = regex::Regex::new(&translate("(a)(?P<x>b)").unwrap()).unwrap();
        let caps = re.captures("ab").unwrap();
        let mut out = String::new();
        expand(&mut out, "[$1|${x}|$1x|$01|$$|$!|${1]", &caps);
        assert_eq!(out, "[a|b|||$|$!|${1]");
    }
}
