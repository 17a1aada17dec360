//! Helm's `toToml` and `fromToml`, with BurntSushi/toml's layout and words.
//!
//! The encoder writes a table's plain keys before its sub-tables: a map's sorted by key,
//! a Go struct's (`.Capabilities`, a certificate) by field in declaration order under
//! their Go names. Tables are `[a]`, `[a.b]` indented two spaces per level below the
//! top, lists of tables `[[a]]`, a blank line before every top-level table and list of
//! tables (but never at the start of the text), tables inside lists inline
//! (`{a = 1}`), float64 numbers with a decimal point, `time.Time` as a TOML datetime and
//! other Go values that marshal to text (a semver) as strings. A value that is not a
//! table is written on its own (`"x"`, `[1, 2]`).
use std::fmt::Write as _;
use std::sync::Arc;

use gotemplate::Value;

use crate::gofmt;
use crate::sprig::gotime::GoTime;

mod decode;

/// Why a value could not be written as TOML.
#[derive(Debug)]
pub enum TomlError {
    /// The encoder's own error (`toml: cannot encode array with nil element`), which
    /// Helm's `toToml` returns as its text.
    Encode(&'static str),
    /// A nil value at the top, where Go's reflection panics before the encoder looks:
    /// the call fails in Helm too.
    NilValue,
    /// A field that could not be made (a certificate from a CA that is not one): Go's
    /// call that made the value failed already, so the template fails with its error.
    Field(gotemplate::Error),
}

impl std::fmt::Display for TomlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TomlError::Encode(message) => f.write_str(message),
            TomlError::NilValue => f.write_str("reflect: call of reflect.Value.Type on zero Value"),
            TomlError::Field(e) => e.fmt(f),
        }
    }
}

impl TomlError {
    /// The template's error for a call that fails with this.
    pub fn into_template_error(self) -> gotemplate::Error {
        match self {
            TomlError::Field(e) => e,
            other => gotemplate::Error::call(other.to_string()),
        }
    }
}

const NO_KEY: &str = "toml: top-level values must be Go maps or structs";
const NIL_ELEMENT: &str = "toml: cannot encode array with nil element";

/// The TOML text of `v` as Helm's encoder writes it.
///
/// # Errors
///
/// The encoder's refusals (a list of tables at the top, a nil list item), a nil `v`,
/// and a struct field that could not be made.
pub fn to_toml(v: &Value) -> Result<String, TomlError> {
    if matches!(v, Value::Nil) {
        return Err(TomlError::NilValue);
    }
    let mut encoder = Encoder::default();
    encoder.encode(&[], v)?;
    Ok(encoder.out)
}

/// A value's items when it is a list (a `[]byte` is a list of numbers).
fn items(v: &Value) -> Option<Arc<[Value]>> {
    match v {
        Value::List(items) => Some(items.clone()),
        Value::Object(o) => o.as_list(),
        _ => None,
    }
}

/// Whether the encoder leaves `v` out, as it does Go's nil maps, slices and interfaces.
fn is_nil(v: &Value) -> bool {
    match v {
        Value::Nil => true,
        Value::Map(m) => m.is_nil(),
        // A nil slice (`fromYamlArray ""`) is empty and serializes as null.
        Value::Object(o) => {
            o.is_nil()
                || (o.as_list().is_some_and(|items| items.is_empty())
                    && matches!(o.to_data(), Value::Nil))
        }
        _ => false,
    }
}

/// A table's entries in the encoder's order: key, field index (a struct's; a map has
/// none) and value.
struct Entries {
    entries: Vec<(Arc<str>, Option<usize>, Value)>,
}

/// The entries of `v` when it is a TOML table: a map, or a Go struct that does not
/// marshal itself to text (a `time.Time` is a datetime).
fn table_entries(v: &Value) -> Option<Result<Entries, TomlError>> {
    match v {
        Value::Map(m) => Some(Ok(Entries {
            entries: m
                .snapshot()
                .iter()
                .map(|(k, v)| (Arc::clone(k), None, v.clone()))
                .collect(),
        })),
        Value::Object(o) => o.struct_fields().map(|fields| {
            fields
                .into_iter()
                .map(|f| Ok((Arc::from(f.name), Some(f.index), f.value?)))
                .collect::<Result<_, gotemplate::Error>>()
                .map(|entries| Entries { entries })
                .map_err(TomlError::Field)
        }),
        _ => None,
    }
}

/// Whether `v` is a table to the encoder (its TOML type is a hash).
fn is_hash(v: &Value) -> bool {
    match v {
        Value::Map(m) => !m.is_nil(),
        Value::Object(o) => o.struct_fields().is_some(),
        _ => false,
    }
}

/// Whether `v` is written as a table (a table, or a non-empty list of tables only).
/// Looking at a list fails on a nil item anywhere in it, as the encoder's type check
/// does.
fn is_table(v: &Value) -> Result<bool, TomlError> {
    if is_hash(v) {
        return Ok(true);
    }
    let Some(items) = items(v) else {
        return Ok(false);
    };
    let mut all_tables = !items.is_empty();
    for item in items.iter() {
        if is_nil(item) {
            return Err(TomlError::Encode(NIL_ELEMENT));
        }
        // The type check looks inside nested lists too, for their nil items.
        let table = is_table(item)?;
        all_tables &= table && is_hash(item);
    }
    Ok(all_tables)
}

#[derive(Default)]
struct Encoder {
    out: String,
}

impl Encoder {
    /// A line break, except at the very start of the text.
    fn newline(&mut self) {
        if !self.out.is_empty() {
            self.out.push('\n');
        }
    }

    fn indent(&mut self, key: &[&str]) {
        for _ in 1..key.len() {
            self.out.push_str("  ");
        }
    }

    fn header(&mut self, key: &[&str]) {
        for (i, part) in key.iter().enumerate() {
            if i > 0 {
                self.out.push('.');
            }
            self.out.push_str(&bare_or_quoted(part));
        }
    }

    fn encode(&mut self, key: &[&str], v: &Value) -> Result<(), TomlError> {
        if is_nil(v) {
            return Ok(());
        }
        if let Some(entries) = table_entries(v) {
            return self.table(key, &entries?);
        }
        match items(v) {
            Some(items) if is_table(v)? => {
                if key.is_empty() {
                    return Err(TomlError::Encode(NO_KEY));
                }
                for element in items.iter() {
                    self.newline();
                    self.indent(key);
                    self.out.push_str("[[");
                    self.header(key);
                    self.out.push_str("]]");
                    self.newline();
                    if let Some(entries) = table_entries(element) {
                        self.table_body(key, &entries?, false)?;
                    }
                }
                Ok(())
            }
            _ => self.key_value(key, v, false),
        }
    }

    fn table(&mut self, key: &[&str], entries: &Entries) -> Result<(), TomlError> {
        if key.len() == 1 {
            // A blank line between top-level tables.
            self.newline();
        }
        if !key.is_empty() {
            self.indent(key);
            self.out.push('[');
            self.header(key);
            self.out.push(']');
            self.newline();
        }
        self.table_body(key, entries, false)
    }

    /// A table's entries: plain values first, then tables, each group in the table's
    /// order; nil values are left out. Inline, as `{a = 1, b = {c = 2}}`, with the
    /// encoder's commas: a map's after every entry of a group but its last (and after the
    /// last plain one when tables follow), counting the nil ones left out; a struct's
    /// after every field whose index is not the number of fields less one.
    fn table_body(
        &mut self,
        key: &[&str],
        entries: &Entries,
        inline: bool,
    ) -> Result<(), TomlError> {
        let (mut direct, mut sub) = (Vec::new(), Vec::new());
        for entry in &entries.entries {
            if is_table(&entry.2)? {
                sub.push(entry);
            } else {
                direct.push(entry);
            }
        }
        if inline {
            self.out.push('{');
        }
        let fields = entries.entries.len();
        let trailing_comma = !sub.is_empty();
        for (group, comma_after_last) in [(direct, trailing_comma), (sub, false)] {
            let last = group.len().saturating_sub(1);
            for (i, (k, index, item)) in group.into_iter().enumerate() {
                if is_nil(item) {
                    continue;
                }
                if inline {
                    self.key_value(&[k], item, true)?;
                    let comma = match index {
                        Some(index) => *index + 1 != fields,
                        None => comma_after_last || i != last,
                    };
                    if comma {
                        self.out.push_str(", ");
                    }
                } else {
                    let mut path = key.to_vec();
                    path.push(k);
                    self.encode(&path, item)?;
                }
            }
        }
        if inline {
            self.out.push('}');
        }
        Ok(())
    }

    /// `key = value` on a line of its own (inline: without the line break); a value
    /// without a key (the whole document) is written alone.
    fn key_value(&mut self, key: &[&str], v: &Value, inline: bool) -> Result<(), TomlError> {
        let Some(last) = key.last() else {
            return self.element(v);
        };
        self.indent(key);
        self.out.push_str(&bare_or_quoted(last));
        self.out.push_str(" = ");
        self.element(v)?;
        if !inline {
            self.newline();
        }
        Ok(())
    }

    fn element(&mut self, v: &Value) -> Result<(), TomlError> {
        match v {
            Value::String(s) => self.out.push_str(&quote(s)),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) | Value::Int64(i) => self.out.push_str(&i.to_string()),
            Value::Uint(u) => self.out.push_str(&u.to_string()),
            Value::Float(f) => self.out.push_str(&float(*f)),
            v => {
                if let Some(time) = GoTime::from_value(v) {
                    self.out.push_str(&datetime(&time));
                } else if let Some(entries) = table_entries(v) {
                    self.table_body(&[], &entries?, true)?;
                } else if let Some(items) = items(v) {
                    self.out.push('[');
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            self.out.push_str(", ");
                        }
                        self.element(item)?;
                    }
                    self.out.push(']');
                } else {
                    // A Go value that marshals itself to text (a semver).
                    self.out.push_str(&quote(&v.to_string()));
                }
            }
        }
        Ok(())
    }
}

/// A `time.Time` as a TOML datetime: RFC 3339 with as many fractional digits as it
/// has; the local kinds `fromToml` makes (date-times, dates and times without an
/// offset) without their offset.
fn datetime(time: &GoTime) -> String {
    let layout = match time.zone.as_str() {
        "datetime-local" => "2006-01-02T15:04:05.999999999",
        "date-local" => "2006-01-02",
        "time-local" => "15:04:05.999999999",
        _ => "2006-01-02T15:04:05.999999999Z07:00",
    };
    time.format(layout)
}

fn float(f: f64) -> String {
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if f.is_nan() {
        return format!("{sign}nan");
    }
    if f.is_infinite() {
        return format!("{sign}inf");
    }
    let text = gofmt::format_float(f);
    if text.contains(['.', 'e']) {
        text
    } else {
        format!("{text}.0")
    }
}

/// A key as it is when it is made of letters, digits, `_` and `-` only, else quoted.
fn bare_or_quoted(k: &str) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        k.to_string()
    } else {
        quote(k)
    }
}

/// A basic string: quotes, backslashes and control characters escaped (`\b`, `\t`,
/// `\n`, `\f`, `\r` by name, the rest as `\u00XX` in lower-case hex).
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Helm's `fromToml`: a TOML document as `BurntSushi/toml` decodes it into a map
/// (integers are int64, dates Go times, arrays of tables `[]map[string]interface {}`);
/// a document it refuses becomes `{"Error": message}` with its message.
pub fn from_toml(text: &str) -> Value {
    decode::decode(text).unwrap_or_else(|message| {
        crate::convert::map([("Error", crate::convert::string(&message))])
    })
}

/// A TOML date or time as BurntSushi/toml decodes it: a Go `time.Time`. An offset of zero
/// is UTC (Go's Local where Helm runs), another offset a zone without a name (`-0700`);
/// local date-times, dates and times are in zones named `datetime-local`, `date-local`
/// and `time-local` at offset zero, a time alone on 0000-01-01.
fn go_time(d: &toml::value::Datetime) -> Value {
    use chrono::{FixedOffset, NaiveDate, NaiveTime, TimeZone};
    use toml::value::Offset;
    let date = d
        .date
        .map_or((0, 1, 1), |x| (i32::from(x.year), x.month, x.day));
    let time = d
        .time
        .map_or((0, 0, 0, 0), |t| (t.hour, t.minute, t.second, t.nanosecond));
    let (seconds, zone) = match (d.offset, d.date.is_some(), d.time.is_some()) {
        (Some(Offset::Z | Offset::Custom { minutes: 0 }), ..) => (0, "UTC".to_string()),
        (Some(Offset::Custom { minutes }), ..) => {
            let m = i32::from(minutes);
            let sign = if m < 0 { '-' } else { '+' };
            (
                m * 60,
                format!("{sign}{:02}{:02}", m.abs() / 60, m.abs() % 60),
            )
        }
        (None, true, true) => (0, "datetime-local".into()),
        (None, true, false) => (0, "date-local".into()),
        (None, ..) => (0, "time-local".into()),
    };
    let naive =
        NaiveDate::from_ymd_opt(date.0, u32::from(date.1), u32::from(date.2)).and_then(|day| {
            NaiveTime::from_hms_nano_opt(
                u32::from(time.0),
                u32::from(time.1),
                u32::from(time.2),
                time.3,
            )
            .map(|t| day.and_time(t))
        });
    let at = naive.and_then(|n| {
        FixedOffset::east_opt(seconds)?
            .from_local_datetime(&n)
            .single()
    });
    match at {
        Some(at) => crate::sprig::gotime::GoTime { at, zone }.to_value(),
        None => crate::convert::string(&d.to_string()),
    }
}
