//! Helm's `toYaml` output: sigs.k8s.io/yaml turns the value into JSON and emits it with
//! go-yaml v2. This reproduces that emitter: block style, key order of go-yaml's sort,
//! its quoting choices (YAML 1.1 words such as `yes` quoted) and folding at 80 columns.
use gotemplate::Value;

use super::yaml_scalar::{analyze, is_break, is_printable, key_order, resolves_as_string};
use crate::gofmt;

const BEST_WIDTH: usize = 80;
const BEST_INDENT: usize = 2;

/// The YAML text go-yaml v2 emits for `v` (with its trailing newline).
pub fn to_yaml(v: &Value) -> String {
    emit(v, Emitter::default())
}

/// A JSON value printed as Helm's `toYaml` prints it, which is also what Go's
/// `sigs.k8s.io/yaml.Marshal` gives (operator-sdk writes samples that way): keys sorted,
/// go-yaml v2 quoting, long strings folded at 80 columns, numbers as float64.
pub fn json_to_yaml(value: &serde_json::Value) -> String {
    to_yaml(&crate::convert::to_template(value))
}

/// Helm's `toYamlPretty` (go-yaml v3, indent 2): sequences under a key are indented and
/// long lines are not folded.
pub fn to_yaml_pretty(v: &Value) -> String {
    emit(
        v,
        Emitter {
            pretty: true,
            ..Emitter::default()
        },
    )
}

/// Deepest nesting the emitter follows: Go's JSON step (sigs.k8s.io/yaml) reports a
/// cycle past this depth, and Helm's toYaml then prints nothing.
const MAX_LEVEL: u32 = 1000;
/// Largest document the emitter writes (values shared many times over can expand to
/// more than memory holds); past it toYaml prints nothing.
const MAX_OUTPUT: usize = 64 * 1024 * 1024;

fn emit(v: &Value, mut e: Emitter) -> String {
    e.node(v, 0, Context::Document);
    if e.failed {
        return String::new();
    }
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

#[expect(
    clippy::struct_excessive_bools,
    reason = "libyaml's emitter state (whitespace, indention) flag for flag, beside our two"
)]
struct Emitter {
    /// Nesting level of the node being written, and whether a bound was hit.
    level: u32,
    failed: bool,
    pretty: bool,
    out: String,
    column: usize,
    whitespace: bool,
    indention: bool,
}

impl Default for Emitter {
    fn default() -> Self {
        Emitter {
            level: 0,
            failed: false,
            pretty: false,
            out: String::new(),
            column: 0,
            whitespace: true,
            indention: true,
        }
    }
}

impl Emitter {
    fn width(&self) -> usize {
        if self.pretty { usize::MAX } else { BEST_WIDTH }
    }

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
        if self.failed || self.level > MAX_LEVEL || self.out.len() > MAX_OUTPUT {
            self.failed = true;
            return;
        }
        // A nil map is JSON's null.
        if let Value::Map(m) = v
            && m.is_nil()
        {
            return self.node(&Value::Nil, indent, ctx);
        }
        // sigs.k8s.io/yaml goes through JSON, which has no complex numbers.
        if let Value::Complex(..) = v {
            self.failed = true;
            return;
        }
        // A Go struct is marshalled as the JSON it encodes to.
        if let Value::Object(o) = v {
            let data = o.to_data();
            return self.node(&data, indent, ctx);
        }
        self.level += 1;
        self.node_inner(v, indent, ctx);
        self.level -= 1;
    }

    fn node_inner(&mut self, v: &Value, indent: usize, ctx: Context) {
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
                let m = m.snapshot();
                let mut keys: Vec<&str> = m.keys().map(AsRef::as_ref).collect();
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
                    Context::MappingValue if !self.indention && !self.pretty => indent,
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
            // go-yaml v3 prints float64 values itself, without the JSON step.
            Value::Float(f) if self.pretty && f.is_finite() => {
                let text = gofmt::format_float(*f);
                self.write_plain(&text, scalar_indent, true);
            }
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
                    && self.column > self.width()
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
                    && self.column > self.width()
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
                if allow_breaks && !spaces && self.column > self.width() && i != 0 && i != last {
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
        Value::Nil | Value::Function(_) | Value::Complex(..) => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) | Value::Int64(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        // JSON text first (as sigs.k8s.io/yaml does), then go-yaml's own number form.
        // A whole number is re-read as an integer, so -0 prints as 0.
        Value::Float(f) => {
            let json = gofmt::json_float(*f).unwrap_or_default();
            if let Ok(i) = json.parse::<i64>() {
                i.to_string()
            } else if let Ok(u) = json.parse::<u64>() {
                u.to_string()
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
