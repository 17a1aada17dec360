//! Small pieces of Go's text handling the engine's messages need.

/// Go's `%#U` of a rune: `U+0023 '#'`.
pub fn rune_u(c: char) -> String {
    if crate::fmt::is_print(c) {
        format!("U+{:04X} '{c}'", c as u32)
    } else {
        format!("U+{:04X}", c as u32)
    }
}

/// How Go prints a complex128 constant: `(1+2i)`.
pub fn complex(re: f64, im: f64) -> String {
    let f = |x: f64| crate::fmt::format_float(x, b'g', -1);
    let sign = if im >= 0.0 || im.is_nan() { "+" } else { "" };
    format!("({}{sign}{}i)", f(re), f(im))
}

/// A Go string's bytes as text the way Go reads them rune by rune (`range`, `[]rune`,
/// encoding/json): each byte that is not part of a valid UTF-8 sequence is one U+FFFD,
/// so a multi-byte character cut in two gives one U+FFFD per byte left of it.
/// (Rust's `from_utf8_lossy` gives one U+FFFD per cut sequence.)
pub fn go_lossy(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for _ in chunk.invalid() {
            out.push(char::REPLACEMENT_CHARACTER);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn go_lossy_gives_one_replacement_per_invalid_byte() {
        let ja = "日本".as_bytes();
        assert_eq!(super::go_lossy(&ja[..2]), "\u{FFFD}\u{FFFD}");
        assert_eq!(super::go_lossy(&ja[1..4]), "\u{FFFD}\u{FFFD}\u{FFFD}");
        assert_eq!(super::go_lossy(&ja[..4]), "日\u{FFFD}");
        assert_eq!(super::go_lossy(b"a\xe6b"), "a\u{FFFD}b");
        assert_eq!(super::go_lossy("ok".as_bytes()), "ok");
    }

    /// Go 1.24: `%#U` shows the character only when `unicode.IsPrint` holds; U+0378 is
    /// unassigned, U+1F600 a symbol.
    #[test]
    fn rune_u_shows_only_printable_characters() {
        assert_eq!(super::rune_u('#'), "U+0023 '#'");
        assert_eq!(super::rune_u('\u{378}'), "U+0378");
        assert_eq!(super::rune_u('\u{1F600}'), "U+1F600 '\u{1F600}'");
    }
}
