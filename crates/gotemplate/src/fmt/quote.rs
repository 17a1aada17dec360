//! Go's `strconv` quoting: `Quote`, `QuoteToASCII`, `QuoteRune`, `CanBackquote`.
//!
//! Rust strings are always valid UTF-8, so the `\xHH` escape Go uses for invalid bytes
//! only appears here for control characters below U+0020 and for DEL.
use std::cmp::Ordering;
use std::fmt::Write as _;

use super::isprint::PRINTABLE;

/// Go's `strconv.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII
/// space.
pub fn is_print(r: u32) -> bool {
    PRINTABLE
        .binary_search_by(|&(lo, hi)| {
            if hi < r {
                Ordering::Less
            } else if lo > r {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        })
        .is_ok()
}

/// Append `r` to `out` as it appears inside a Go literal quoted with `quote`.
fn escape_rune(out: &mut String, r: char, quote: char, ascii_only: bool) {
    if r == quote || r == '\\' {
        out.push('\\');
        out.push(r);
        return;
    }
    let printable = is_print(u32::from(r));
    if printable && (!ascii_only || r.is_ascii()) {
        out.push(r);
        return;
    }
    match r {
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{b}' => out.push_str("\\v"),
        c if c < ' ' || c == '\u{7f}' => {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        }
        c if u32::from(c) < 0x10000 => {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        }
        c => {
            let _ = write!(out, "\\U{:08x}", u32::from(c));
        }
    }
}

fn quote_with(s: &str, quote: char, ascii_only: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for r in s.chars() {
        escape_rune(&mut out, r, quote, ascii_only);
    }
    out.push(quote);
    out
}

/// Go's `strconv.Quote`: a double-quoted Go string literal, non-printable runes escaped.
pub fn quote(s: &str) -> String {
    quote_with(s, '"', false)
}

/// Go's `strconv.QuoteToASCII`: like [`quote`], with every non-ASCII rune escaped too.
pub fn quote_to_ascii(s: &str) -> String {
    quote_with(s, '"', true)
}

/// Go's `strconv.QuoteRune` (or `QuoteRuneToASCII`): a single-quoted character literal.
/// A code point that is not a valid rune is shown as U+FFFD, as Go does.
pub fn quote_rune(r: u64, ascii_only: bool) -> String {
    let c = u32::try_from(r)
        .ok()
        .and_then(char::from_u32)
        .unwrap_or(char::REPLACEMENT_CHARACTER);
    let mut buf = [0u8; 4];
    quote_with(c.encode_utf8(&mut buf), '\'', ascii_only)
}

/// Go's `strconv.CanBackquote`: whether `s` fits in a raw string literal on one line.
pub fn can_backquote(s: &str) -> bool {
    s.chars()
        .all(|c| !((c < ' ' && c != '\t') || c == '`' || c == '\u{7f}' || c == '\u{feff}'))
}
