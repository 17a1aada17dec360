//! Helm's `toYaml` output: sigs.k8s.io/yaml turns the value into JSON and emits it with
//! go-yaml v2. This reproduces that emitter: block style, key order of go-yaml's sort,
//! its quoting choices (YAML 1.1 words such as `yes` quoted) and folding at 80 columns.
use gotmpl::Value;

use crate::gofmt;

const BEST_WIDTH: usize = 80;
const BEST_INDENT: usize = 2;

/// The YAML text go-yaml v2 emits for `v` (with its trailing newline).
pub fn to_yaml(v: &Value) -> String {
    let mut e = Emitter::default();
    e.node(v, 0, Context::Document);
    if !e.out.ends_with('\n') {
        e.out.push('\n');
    }
    e.out
}

#[derive(Clone, Copy, PartialEq)]
enum Context {
    Document,
    MappingValue,
    SequenceItem,
}

struct Emitter {
    out: String,
    column: usize,
    whitespace: bool,
    indention: bool,
}

impl Default for Emitter {
    fn default() -> Self {
        Emitter {
            out: String::new(),
            column: 0,
            whitespace: true,
            indention: true,
        }
    }
}

impl Emitter {
    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_str(&mut self, s: &str) {
        for c in s.chars() {
            self.put(c);
        }
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn write_indent(&mut self, indent: usize) {
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(
        &mut self,
        ind: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        self.put_str(ind);
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    /// Emit a node whose parent collection sits at `indent` (`Document`: -1 in go-yaml).
    fn node(&mut self, v: &Value, indent: usize, ctx: Context) {
        // go-yaml's increase_indent: from -1 a block collection starts at 0, a scalar at 2.
        let scalar_indent = if ctx == Context::Document {
            BEST_INDENT
        } else {
            indent + BEST_INDENT
        };
        match v {
            Value::Map(m) if !m.is_empty() => {
                let map_indent = if ctx == Context::Document {
                    0
                } else {
                    indent + BEST_INDENT
                };
                let mut keys: Vec<&str> = m.keys().map(|k| k.as_ref()).collect();
                keys.sort_by(|a, b| key_order(a, b));
                for key in keys {
                    self.write_indent(map_indent);
                    self.scalar_string(key, map_indent + BEST_INDENT, true);
                    self.write_indicator(":", false, false, false);
                    if let Some(val) = m.get(key) {
                        self.node(val, map_indent, Context::MappingValue);
                    }
                }
            }
            Value::List(items) if !items.is_empty() => {
                // Sequences directly under a mapping key are not indented.
                let seq_indent = match ctx {
                    Context::Document => 0,
                    Context::MappingValue if !self.indention => indent,
                    _ => indent + BEST_INDENT,
                };
                for item in items.iter() {
                    self.write_indent(seq_indent);
                    self.write_indicator("-", true, false, true);
                    self.node(item, seq_indent, Context::SequenceItem);
                }
            }
            Value::Map(_) => self.flow_empty("{", "}"),
            Value::List(_) => self.flow_empty("[", "]"),
            Value::String(s) => self.scalar_string(s, scalar_indent, false),
            other => {
                let text = plain_text(other);
                self.write_plain(&text, scalar_indent, true);
            }
        }
    }

    fn flow_empty(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.write_indicator(close, false, false, false);
    }

    fn scalar_string(&mut self, s: &str, indent: usize, simple_key: bool) {
        let a = analyze(s);
        let mut style = if s.contains('\n') {
            Style::Literal
        } else if resolves_as_string(s) {
            Style::Plain
        } else {
            Style::DoubleQuoted
        };
        if style == Style::Plain && (!a.block_plain_allowed || (s.is_empty() && simple_key)) {
            style = Style::SingleQuoted;
        }
        if style == Style::SingleQuoted && !a.single_quoted_allowed {
            style = Style::DoubleQuoted;
        }
        if style == Style::Literal && (!a.block_allowed || simple_key) {
            style = Style::DoubleQuoted;
        }
        let allow_breaks = !simple_key;
        match style {
            Style::Plain => self.write_plain(s, indent, allow_breaks),
            Style::SingleQuoted => self.write_single_quoted(s, indent, allow_breaks),
            Style::DoubleQuoted => self.write_double_quoted(s, indent, allow_breaks),
            Style::Literal => self.write_literal(s, indent),
        }
    }

    fn write_plain(&mut self, s: &str, indent: usize, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        let chars: Vec<char> = s.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && chars.get(i + 1) != Some(&' ')
                {
                    self.write_indent(indent);
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn write_single_quoted(&mut self, s: &str, indent: usize, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let chars: Vec<char> = s.chars().collect();
        let last = chars.len().saturating_sub(1);
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i != 0
                    && i != last
                    && chars.get(i + 1) != Some(&' ')
                {
                    self.write_indent(indent);
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("'", false, false, false);
    }

    fn write_double_quoted(&mut self, s: &str, indent: usize, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        let chars: Vec<char> = s.chars().collect();
        let last = chars.len().saturating_sub(1);
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if !is_printable(c) || c == '\u{FEFF}' || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                match c {
                    '\0' => self.put('0'),
                    '\u{7}' => self.put('a'),
                    '\u{8}' => self.put('b'),
                    '\t' => self.put('t'),
                    '\n' => self.put('n'),
                    '\u{B}' => self.put('v'),
                    '\u{C}' => self.put('f'),
                    '\r' => self.put('r'),
                    '\u{1B}' => self.put('e'),
                    '"' => self.put('"'),
                    '\\' => self.put('\\'),
                    '\u{85}' => self.put('N'),
                    '\u{A0}' => self.put('_'),
                    '\u{2028}' => self.put('L'),
                    '\u{2029}' => self.put('P'),
                    c if (c as u32) <= 0xFF => self.put_str(&format!("x{:02X}", c as u32)),
                    c if (c as u32) <= 0xFFFF => self.put_str(&format!("u{:04X}", c as u32)),
                    c => self.put_str(&format!("U{:08X}", c as u32)),
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && i != 0 && i != last {
                    self.write_indent(indent);
                    if chars.get(i + 1) == Some(&' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
    }

    fn write_literal(&mut self, s: &str, indent: usize) {
        self.write_indicator("|", true, false, false);
        let chars: Vec<char> = s.chars().collect();
        if chars.first().is_some_and(|c| *c == ' ' || is_break(*c)) {
            self.put_str(&BEST_INDENT.to_string());
        }
        match chars.last() {
            Some(c) if !is_break(*c) => self.put('-'),
            _ if chars.len() == 1 => self.put('+'),
            _ if chars.len() >= 2 && is_break(chars[chars.len() - 2]) => self.put('+'),
            _ => {}
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for &c in &chars {
            if is_break(c) {
                self.put_break();
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent(indent);
                    breaks = false;
                }
                self.put(c);
                self.indention = false;
            }
        }
        self.whitespace = true;
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

fn plain_text(v: &Value) -> String {
    match v {
        Value::Nil | Value::Function(_) => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        // JSON text first (as sigs.k8s.io/yaml does), then go-yaml's own number form.
        Value::Float(f) => {
            let json = gofmt::json_float(*f);
            if json.parse::<i64>().is_ok() || json.parse::<u64>().is_ok() {
                json
            } else if f.is_nan() {
                ".nan".into()
            } else if f.is_infinite() {
                if *f > 0.0 {
                    ".inf".into()
                } else {
                    "-.inf".into()
                }
            } else {
                gofmt::format_float(*f)
            }
        }
        other => other.to_string(),
    }
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blank_or_end(c: Option<char>) -> bool {
    matches!(c, None | Some(' ' | '\t')) || c.is_some_and(is_break)
}

/// go-yaml's byte-level `is_printable`, per character.
fn is_printable(c: char) -> bool {
    let c = c as u32;
    c == 0x0A
        || (0x20..=0x7E).contains(&c)
        || (0xA0..=0xD7FF).contains(&c)
        || ((0xE000..=0xFFFD).contains(&c) && c != 0xFEFF)
}

struct Analysis {
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

/// go-yaml's `yaml_emitter_analyze_scalar`, for the block context.
fn analyze(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            block_plain_allowed: false,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let chars: Vec<char> = s.chars().collect();
    let mut block_indicators = s.starts_with("---") || s.starts_with("...");
    let (mut special, mut line_breaks) = (false, false);
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    let last = chars.len() - 1;
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = is_blank_or_end(chars.get(i + 1).copied());
        if i == 0 {
            if "#,[]{}&*!|>'\"%@`".contains(c) {
                block_indicators = true;
            }
            if (c == '?' || c == ':' || c == '-') && followed_by_whitespace {
                block_indicators = true;
            }
        } else if (c == ':' && followed_by_whitespace) || (c == '#' && preceded_by_whitespace) {
            block_indicators = true;
        }
        if !is_printable(c) || c == '\u{FEFF}' {
            special = true;
        }
        if is_break(c) {
            line_breaks = true;
        }
        if c == ' ' {
            leading_space |= i == 0;
            trailing_space |= i == last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            leading_break |= i == 0;
            trailing_break |= i == last;
            space_break |= previous_space;
            previous_break = true;
            previous_space = false;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = c == ' ' || c == '\t' || is_break(c);
    }
    let mut a = Analysis {
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special {
        a = Analysis {
            block_plain_allowed: false,
            single_quoted_allowed: false,
            block_allowed: false,
        };
    }
    if line_breaks || block_indicators {
        a.block_plain_allowed = false;
    }
    a
}

/// Would go-yaml v2 read this plain scalar back as a string (and not a bool, number,
/// null, timestamp or base-60 float)?
fn resolves_as_string(s: &str) -> bool {
    const NON_STRINGS: &[&str] = &[
        "", "~", "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
        "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF",
        ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF", "<<",
    ];
    if NON_STRINGS.contains(&s) {
        return false;
    }
    let first = s.chars().next().unwrap_or(' ');
    if !(first.is_ascii_digit() || first == '-' || first == '+' || first == '.') {
        return true;
    }
    let plain = s.replace('_', "");
    !(parses_as_go_int(&plain)
        || is_yaml_float(&plain)
        || is_base60_float(s)
        || is_timestamp(s)
        || is_binary(&plain))
}

/// `strconv.ParseInt(s, 0, 64)` / `ParseUint`: decimal, 0x, 0o, 0b, or leading-0 octal.
fn parses_as_go_int(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    if body.is_empty() {
        return false;
    }
    let (digits, radix) =
        if let Some(rest) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            (rest, 16)
        } else if let Some(rest) = body.strip_prefix("0o").or_else(|| body.strip_prefix("0O")) {
            (rest, 8)
        } else if let Some(rest) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
            (rest, 2)
        } else if body.len() > 1 && body.starts_with('0') {
            (&body[1..], 8)
        } else {
            (body, 10)
        };
    !digits.is_empty() && u128::from_str_radix(digits, radix).is_ok_and(|n| n <= u64::MAX as u128)
}

/// go-yaml's float pattern `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_float(s: &str) -> bool {
    let b = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mantissa, exp) = match b.find(['e', 'E']) {
        Some(i) => (&b[..i], Some(&b[i + 1..])),
        None => (b, None),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => digits(frac),
        Some((int, frac)) => digits(int) && (frac.is_empty() || digits(frac)),
        None => digits(mantissa),
    };
    let exp_ok = exp.is_none_or(|e| digits(e.strip_prefix(['-', '+']).unwrap_or(e)));
    mantissa_ok && exp_ok
}

/// `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`
fn is_base60_float(s: &str) -> bool {
    let b = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (main, frac) = match b.split_once('.') {
        Some((m, f)) => (m, Some(f)),
        None => (b, None),
    };
    let mut parts = main.split(':');
    let head = parts.next().unwrap_or("");
    let head_ok = head.starts_with(|c: char| c.is_ascii_digit())
        && head.bytes().all(|c| c.is_ascii_digit() || c == b'_');
    let rest: Vec<&str> = parts.collect();
    head_ok
        && !rest.is_empty()
        && rest.iter().all(|p| {
            let bytes = p.as_bytes();
            match bytes.len() {
                1 => bytes[0].is_ascii_digit(),
                2 => (b'0'..=b'5').contains(&bytes[0]) && bytes[1].is_ascii_digit(),
                _ => false,
            }
        })
        && frac.is_none_or(|f| f.bytes().all(|c| c.is_ascii_digit() || c == b'_'))
}

/// go-yaml reads `2001-12-14` and `2001-12-14T21:59:43Z`-like plain scalars as timestamps.
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 10 {
        return false;
    }
    let date_ok = b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit);
    if !date_ok {
        return false;
    }
    if b.len() == 10 {
        return true;
    }
    // Date and time forms; anything longer that starts with a date and a 'T' or ' '.
    (b[10] == b'T' || b[10] == b't' || b[10] == b' ') && b.len() >= 16 && b[13] == b':'
}

fn is_binary(s: &str) -> bool {
    let b = s.strip_prefix('-').unwrap_or(s);
    b.strip_prefix("0b")
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|c| c == b'0' || c == b'1'))
}

/// go-yaml v2's map key order: runs of digits compare as numbers, letters sort after
/// other characters.
fn key_order(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    let mut i = 0;
    while i < ar.len() && i < br.len() {
        if ar[i] == br[i] {
            i += 1;
            continue;
        }
        let al = ar[i].is_alphabetic();
        let bl = br[i].is_alphabetic();
        if al && bl {
            return ar[i].cmp(&br[i]);
        }
        if al || bl {
            return if bl {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        let (mut an, mut bn): (i128, i128) = (0, 0);
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 && ar[j - 1].is_ascii_digit() {
                j -= 1;
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && ar[ai].is_ascii_digit() {
            an = an
                .saturating_mul(10)
                .saturating_add(i128::from(ar[ai] as u8 - b'0'));
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && br[bi].is_ascii_digit() {
            bn = bn
                .saturating_mul(10)
                .saturating_add(i128::from(br[bi] as u8 - b'0'));
            bi += 1;
        }
        if an != bn {
            return an.cmp(&bn);
        }
        if ai != bi {
            return ai.cmp(&bi);
        }
        return ar[i].cmp(&br[i]);
    }
    ar.len().cmp(&br.len())
}
