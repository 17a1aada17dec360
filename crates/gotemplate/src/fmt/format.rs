//! The low-level formatter behind the verbs: padding, integers, strings and floats under
//! the flags, width and precision of one directive (Go's `fmt/format.go` semantics).
use super::ftoa::{Width, append_float};
use super::quote::{can_backquote, is_print, quote, quote_rune, quote_to_ascii};

/// Flags, width and precision of the directive being printed.
#[derive(Clone, Copy, Default)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "Go's fmtFlags, flag for flag: each is one character of the directive"
)]
pub(super) struct Flags {
    pub wid: usize,
    pub wid_present: bool,
    pub prec: usize,
    pub prec_present: bool,
    pub minus: bool,
    pub plus: bool,
    pub sharp: bool,
    pub space: bool,
    pub zero: bool,
    /// `%+v`: set instead of `plus` for the `v` verb.
    pub plus_v: bool,
    /// `%#v` (Go syntax): set instead of `sharp` for the `v` verb.
    pub sharp_v: bool,
}

/// Output buffer plus the current directive's flags.
#[derive(Default)]
pub(super) struct Fmt {
    pub buf: String,
    pub f: Flags,
}

const LOWER: &[u8; 17] = b"0123456789abcdefx";
const UPPER: &[u8; 17] = b"0123456789ABCDEFX";

pub(super) fn digits(upper: bool) -> &'static [u8; 17] {
    if upper { UPPER } else { LOWER }
}

impl Fmt {
    /// `n` padding characters: zeros only when padding on the left with the `0` flag.
    pub fn write_padding(&mut self, n: usize) {
        let c = if self.f.zero && !self.f.minus {
            '0'
        } else {
            ' '
        };
        self.buf.extend(std::iter::repeat_n(c, n));
    }

    /// Append `s` padded to the width, counted in runes, on the left unless `-`.
    pub fn pad(&mut self, s: &str) {
        if !self.f.wid_present || self.f.wid == 0 {
            self.buf.push_str(s);
            return;
        }
        let width = self.f.wid.saturating_sub(s.chars().count());
        if self.f.minus {
            self.buf.push_str(s);
            self.write_padding(width);
        } else {
            self.write_padding(width);
            self.buf.push_str(s);
        }
    }

    /// Like [`Fmt::pad`] with the `0` flag off, for text that zeros would corrupt.
    fn pad_spaces(&mut self, s: &str) {
        let zero = std::mem::replace(&mut self.f.zero, false);
        self.pad(s);
        self.f.zero = zero;
    }

    pub fn fmt_boolean(&mut self, v: bool) {
        self.pad(if v { "true" } else { "false" });
    }

    /// `U+0078`, or `U+0078 'x'` with `#` when the rune is printable.
    pub fn fmt_unicode(&mut self, u: u64) {
        let prec = if self.f.prec_present && self.f.prec > 4 {
            self.f.prec
        } else {
            4
        };
        let hex = format!("{u:X}");
        let mut s = String::from("U+");
        s.extend(std::iter::repeat_n('0', prec.saturating_sub(hex.len())));
        s.push_str(&hex);
        if self.f.sharp
            && let Some(c) = u32::try_from(u)
                .ok()
                .filter(|&r| is_print(r))
                .and_then(char::from_u32)
        {
            s.push_str(" '");
            s.push(c);
            s.push('\'');
        }
        self.pad_spaces(&s);
    }

    /// A signed or unsigned integer in `base`; `verb` `O` adds the `0o` prefix.
    pub fn fmt_integer(&mut self, u: u64, base: u32, signed: bool, verb: char, upper: bool) {
        // Go passes an int64 as its bits; the sign is the top bit.
        let negative = signed && u.cast_signed() < 0;
        let mut u = if negative {
            u.cast_signed().unsigned_abs()
        } else {
            u
        };
        let dig = digits(upper);
        // Two ways to ask for leading zeros: %.3d and %03d; precision wins and then the
        // padding is spaces.
        let mut prec = 0usize;
        if self.f.prec_present {
            prec = self.f.prec;
            if prec == 0 && u == 0 {
                let zero = std::mem::replace(&mut self.f.zero, false);
                self.write_padding(self.f.wid);
                self.f.zero = zero;
                return;
            }
        } else if self.f.zero && !self.f.minus && self.f.wid_present {
            prec = self.f.wid;
            if negative || self.f.plus || self.f.space {
                prec = prec.saturating_sub(1);
            }
        }
        // Built right to left, then reversed.
        let mut rev: Vec<u8> = Vec::with_capacity(prec.max(24));
        let b = u64::from(base);
        let digit = |d: u64| dig[usize::try_from(d).expect("a digit is below the base")];
        while u >= b {
            rev.push(digit(u % b));
            u /= b;
        }
        rev.push(digit(u));
        while rev.len() < prec {
            rev.push(b'0');
        }
        if self.f.sharp {
            match base {
                2 => rev.extend_from_slice(b"b0"),
                8 if rev.last() != Some(&b'0') => rev.push(b'0'),
                16 => {
                    rev.push(dig[16]);
                    rev.push(b'0');
                }
                _ => {}
            }
        }
        if verb == 'O' {
            rev.extend_from_slice(b"o0");
        }
        if negative {
            rev.push(b'-');
        } else if self.f.plus {
            rev.push(b'+');
        } else if self.f.space {
            rev.push(b' ');
        }
        rev.reverse();
        let s: String = rev.into_iter().map(char::from).collect();
        self.pad_spaces(&s);
    }

    /// `s` cut to the precision, counted in runes.
    fn truncate<'a>(&self, s: &'a str) -> &'a str {
        if self.f.prec_present
            && let Some((i, _)) = s.char_indices().nth(self.f.prec)
        {
            return &s[..i];
        }
        s
    }

    pub fn fmt_s(&mut self, s: &str) {
        let s = self.truncate(s);
        self.pad(s);
    }

    /// The bytes of `s` in hex: `% x` separates bytes, `#` adds 0x (per byte with space).
    pub fn fmt_sx(&mut self, s: &str, upper: bool) {
        let dig = digits(upper);
        let bytes = s.as_bytes();
        let length = if self.f.prec_present {
            bytes.len().min(self.f.prec)
        } else {
            bytes.len()
        };
        let mut width = 2 * length;
        if width == 0 {
            if self.f.wid_present {
                self.write_padding(self.f.wid);
            }
            return;
        }
        if self.f.space {
            if self.f.sharp {
                width *= 2;
            }
            width += length - 1;
        } else if self.f.sharp {
            width += 2;
        }
        let pad = if self.f.wid_present {
            self.f.wid.saturating_sub(width)
        } else {
            0
        };
        if !self.f.minus {
            self.write_padding(pad);
        }
        if self.f.sharp {
            self.buf.push('0');
            self.buf.push(char::from(dig[16]));
        }
        for (i, &c) in bytes[..length].iter().enumerate() {
            if self.f.space && i > 0 {
                self.buf.push(' ');
                if self.f.sharp {
                    self.buf.push('0');
                    self.buf.push(char::from(dig[16]));
                }
            }
            self.buf.push(char::from(dig[usize::from(c >> 4)]));
            self.buf.push(char::from(dig[usize::from(c & 0xf)]));
        }
        if self.f.minus {
            self.write_padding(pad);
        }
    }

    /// A double-quoted Go string (backquoted with `#` when possible, ASCII-only with `+`).
    pub fn fmt_q(&mut self, s: &str) {
        let s = self.truncate(s);
        let quoted = if self.f.sharp && can_backquote(s) {
            format!("`{s}`")
        } else if self.f.plus {
            quote_to_ascii(s)
        } else {
            quote(s)
        };
        self.pad(&quoted);
    }

    /// The integer as a character; invalid code points print as U+FFFD.
    pub fn fmt_c(&mut self, c: u64) {
        let ch = u32::try_from(c)
            .ok()
            .and_then(char::from_u32)
            .unwrap_or(char::REPLACEMENT_CHARACTER);
        let mut b = [0u8; 4];
        self.pad(ch.encode_utf8(&mut b));
    }

    /// The integer as a single-quoted Go character literal.
    pub fn fmt_qc(&mut self, c: u64) {
        let q = quote_rune(c, self.f.plus);
        self.pad(&q);
    }

    /// A float in strconv format `verb` with default precision `prec` (overridden by an
    /// explicit one); handles the sign flags, `#` and zero padding after the sign.
    pub fn fmt_float(&mut self, v: f64, verb: u8, prec: i64) {
        let prec = if self.f.prec_present {
            // At most about 10^7 (directive::parse_num).
            i64::try_from(self.f.prec).unwrap_or(i64::MAX)
        } else {
            prec
        };
        let mut num = String::from("+");
        append_float(&mut num, v, verb, prec, Width::F64);
        if num.as_bytes()[1] == b'-' || num.as_bytes()[1] == b'+' {
            num.remove(0);
        }
        if self.f.space && num.starts_with('+') && !self.f.plus {
            num.replace_range(0..1, " ");
        }
        let second = num.as_bytes()[1];
        if second == b'I' || second == b'N' {
            // Infinities and NaN are never zero padded; NaN shows a sign only if asked.
            if second == b'N' && !self.f.space && !self.f.plus {
                num.remove(0);
            }
            self.pad_spaces(&num);
            return;
        }
        if self.f.sharp && verb != b'b' {
            num = sharp_float(&num, verb, prec);
        }
        if self.f.plus || !num.starts_with('+') {
            if self.f.zero && !self.f.minus && self.f.wid_present && self.f.wid > num.len() {
                // Zero padding goes between the sign and the digits.
                let pad = self.f.wid - num.len();
                self.buf.push_str(&num[..1]);
                self.write_padding(pad);
                self.buf.push_str(&num[1..]);
                return;
            }
            self.pad(&num);
            return;
        }
        self.pad(&num[1..]);
    }
}

/// The `#` flag on floats: always a decimal point, and `%#g` keeps its trailing zeros.
fn sharp_float(num: &str, verb: u8, prec: i64) -> String {
    let mut digits: i64 = match verb {
        b'v' | b'g' | b'G' | b'x' => {
            if prec == -1 {
                6
            } else {
                prec
            }
        }
        _ => 0,
    };
    let bytes = num.as_bytes();
    let mut end = bytes.len();
    let mut tail = "";
    let mut has_point = false;
    let mut saw_nonzero = false;
    for i in 1..bytes.len() {
        match bytes[i] {
            b'.' => has_point = true,
            b'p' | b'P' => {
                tail = &num[i..];
                end = i;
                break;
            }
            b'e' | b'E' if verb != b'x' && verb != b'X' => {
                tail = &num[i..];
                end = i;
                break;
            }
            c => {
                if c != b'0' {
                    saw_nonzero = true;
                }
                if saw_nonzero {
                    digits -= 1;
                }
            }
        }
    }
    let mut out = String::from(&num[..end]);
    if !has_point {
        // A lone leading zero counts once as a digit.
        if end == 2 && bytes[1] == b'0' {
            digits -= 1;
        }
        out.push('.');
    }
    while digits > 0 {
        out.push('0');
        digits -= 1;
    }
    out.push_str(tail);
    out
}
