//! Small pieces of Go's text handling the engine's messages need.

/// Go's `%#U` of a rune: `U+0023 '#'`.
pub fn rune_u(c: char) -> String {
    if is_print(c) {
        format!("U+{:04X} '{c}'", c as u32)
    } else {
        format!("U+{:04X}", c as u32)
    }
}

/// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII
/// space. Rust has no general-category API, so this keeps out what Go keeps out:
/// controls, other spaces, format characters, surrogates, private use and
/// non-characters.
pub fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let u = c as u32;
    let format_chars = matches!(u, 0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x180E
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F
        | 0xFEFF | 0xFFF9..=0xFFFB | 0x110BD | 0xE0001 | 0xE0020..=0xE007F);
    let private = matches!(u, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD);
    let nonchar = (u & 0xFFFE) == 0xFFFE || (0xFDD0..=0xFDEF).contains(&u);
    !(format_chars || private || nonchar)
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
}
