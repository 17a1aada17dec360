//! Go's `strconv.FormatFloat`, at 64 and at 32 bits.
//!
//! Rust's formatter already produces the digits Go does: `{:e}` is the shortest string
//! that reads back to the same float (Go's precision -1), and `{:.Ne}` / `{:.N}` round
//! the exact binary value half-to-even, as Go's fixed-precision modes do. What differs
//! is the layout (`1e+06` against `1e6`, `%g`'s choice of form), which is done here.
//!
//! At 32 bits (Go's `bitSize` 32, what sigs.k8s.io/yaml uses to put a YAML float into a
//! string field) the value is rounded to a float32 first; its exact value is that of the
//! float64 it widens to, so the fixed-precision digits are the same and only the shortest
//! digits (those that read back as the float32) and the `b` format's mantissa differ.

use std::fmt::Write;

/// Go's `bitSize`: the float whose value is printed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Width {
    F32,
    F64,
}

/// More decimal digits than any float64 has (its exact value has at most 767
/// significant digits and 1074 after the point); Rust's formatter refuses precisions
/// above 65535, Go allows ten million.
const EXACT_DIGITS: usize = 1100;

/// Decimal digits `0.d1d2d3... x 10^dp`, without trailing zeros; no digits for zero.
struct Digits {
    d: Vec<u8>,
    dp: i64,
}

impl Digits {
    /// Parse Rust's `{:e}` output of a non-negative finite float (`1.2345e-7`).
    fn from_exp_form(s: &str) -> Digits {
        let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
        let exp: i64 = exp.parse().unwrap_or(0);
        let mut d: Vec<u8> = mant.bytes().filter(u8::is_ascii_digit).collect();
        while d.last() == Some(&b'0') {
            d.pop();
        }
        if d.is_empty() {
            return Digits { d, dp: 0 };
        }
        Digits { d, dp: exp + 1 }
    }

    /// The shortest digits that read back as `x` (x >= 0, finite, a float32 when `width`
    /// says so) at `width`, nearest to `x`.
    fn shortest(x: f64, width: Width) -> Digits {
        let reads_back = |text: &str| match width {
            Width::F64 => text.parse::<f64>() == Ok(x),
            Width::F32 => text.parse::<f32>().map(f64::from) == Ok(x),
        };
        let shortest = match width {
            Width::F64 => format!("{x:e}"),
            Width::F32 => format!("{:e}", to_f32(x)),
        };
        let mut d = Digits::from_exp_form(&shortest);
        // When `x` lies exactly halfway between two shortest candidates, Rust takes the
        // upper one and Go the one ending in an even digit: move down if Go would.
        let Some(&last) = d.d.last() else { return d };
        if (last - b'0').is_multiple_of(2) {
            return d;
        }
        let mut down = d.d.clone();
        if let Some(l) = down.last_mut() {
            *l -= 1;
        }
        let mut mid = down.clone();
        mid.push(b'5');
        let is_mid = |digits: Digits| digits.d == mid && digits.dp == d.dp;
        // Cheap test first (the rounded digits look like the midpoint), then exactness.
        if !is_mid(Digits::fixed(x, mid.len())) || !is_mid(Digits::fixed(x, EXACT_DIGITS)) {
            return d;
        }
        while down.last() == Some(&b'0') {
            down.pop();
        }
        let text = format!("0.{}e{}", String::from_utf8_lossy(&down), d.dp);
        if !down.is_empty() && reads_back(&text) {
            d.d = down;
        }
        d
    }

    /// `n` significant digits of `x` (x >= 0, finite, n >= 1), correctly rounded.
    fn fixed(x: f64, n: usize) -> Digits {
        // Past EXACT_DIGITS the digits are all zeros; `digit` supplies them.
        Digits::from_exp_form(&format!("{:.*e}", n.min(EXACT_DIGITS) - 1, x))
    }

    fn nd(&self) -> i64 {
        i64::try_from(self.d.len()).expect("at most EXACT_DIGITS digits")
    }

    fn digit(&self, i: i64) -> u8 {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.d.get(i).copied())
            .unwrap_or(b'0')
    }
}

/// `strconv.FormatFloat(f, fmt, prec, 64)` for `fmt` in `b e E f g G x X`; `prec` -1 is
/// the shortest representation that reads back exactly. Any other `fmt` gives `%` and the
/// format letter, as Go does.
pub fn format_float(f: f64, fmt: u8, prec: i32) -> String {
    let mut out = String::new();
    append_float(&mut out, f, fmt, i64::from(prec), Width::F64);
    out
}

/// `strconv.FormatFloat(f, fmt, prec, 32)`: `f` rounded to the nearest float32 (beyond
/// its range, an infinity), then printed as [`format_float`] prints, with `prec` -1 the
/// shortest digits that read back as that float32 (`0.1` stays "0.1", where at 64 bits
/// the float32 nearest 0.1 is "0.10000000149011612").
pub fn format_float32(f: f64, fmt: u8, prec: i32) -> String {
    let mut out = String::new();
    append_float(
        &mut out,
        f64::from(to_f32(f)),
        fmt,
        i64::from(prec),
        Width::F32,
    );
    out
}

/// Go's `float32(f)`: the nearest float32, ties to even, infinite past its range.
#[expect(
    clippy::cast_possible_truncation,
    reason = "rounding to float32 is the point: Go's bitSize 32"
)]
fn to_f32(f: f64) -> f32 {
    f as f32
}

pub(super) fn append_float(out: &mut String, f: f64, fmt: u8, prec: i64, width: Width) {
    if f.is_nan() {
        out.push_str("NaN");
        return;
    }
    if f.is_infinite() {
        out.push_str(if f < 0.0 { "-Inf" } else { "+Inf" });
        return;
    }
    let neg = f.is_sign_negative();
    match fmt {
        b'b' => fmt_b(out, f, width),
        b'x' | b'X' => fmt_x(out, f, fmt, prec),
        b'f' if prec >= 0 => {
            if neg {
                out.push('-');
            }
            let prec = usize::try_from(prec).unwrap_or(usize::MAX);
            let _ = write!(out, "{:.*}", prec.min(EXACT_DIGITS), f.abs());
            out.extend(std::iter::repeat_n('0', prec.saturating_sub(EXACT_DIGITS)));
        }
        b'e' | b'E' | b'f' | b'g' | b'G' => fmt_decimal(out, f.abs(), neg, fmt, prec, width),
        other => {
            out.push('%');
            out.push(char::from(other));
        }
    }
}

/// The decimal formats: `e`, `E`, shortest `f`, `g`, `G`.
fn fmt_decimal(out: &mut String, x: f64, neg: bool, fmt: u8, prec: i64, width: Width) {
    let shortest = prec < 0;
    let mut prec = prec;
    let digs = if shortest {
        let d = Digits::shortest(x, width);
        prec = match fmt {
            b'e' | b'E' => (d.nd() - 1).max(0),
            b'f' => (d.nd() - d.dp).max(0),
            _ => d.nd(),
        };
        d
    } else {
        // Digits::fixed takes no more than EXACT_DIGITS: a precision past usize is as many.
        let wanted = usize::try_from(prec).unwrap_or(usize::MAX);
        match fmt {
            b'e' | b'E' => Digits::fixed(x, wanted.saturating_add(1)),
            _ => {
                if prec == 0 {
                    prec = 1;
                }
                Digits::fixed(x, wanted.max(1))
            }
        }
    };
    match fmt {
        b'e' | b'E' => fmt_e(out, neg, &digs, prec, fmt),
        b'f' => fmt_f(out, neg, &digs, prec),
        _ => {
            // %e is used when the exponent is below -4 or at least the precision (6 for
            // the shortest form); trailing zeros are never shown.
            let mut eprec = prec;
            if eprec > digs.nd() && digs.nd() >= digs.dp {
                eprec = digs.nd();
            }
            if shortest {
                eprec = 6;
            }
            let exp = digs.dp - 1;
            if exp < -4 || exp >= eprec {
                let p = prec.min(digs.nd());
                fmt_e(out, neg, &digs, p - 1, fmt + b'e' - b'g');
            } else {
                let p = if prec > digs.dp { digs.nd() } else { prec };
                fmt_f(out, neg, &digs, (p - digs.dp).max(0));
            }
        }
    }
}

/// `-d.ddddde±dd`
fn fmt_e(out: &mut String, neg: bool, d: &Digits, prec: i64, fmt: u8) {
    if neg {
        out.push('-');
    }
    out.push(char::from(d.digit(0)));
    if prec > 0 {
        out.push('.');
        for i in 1..=prec {
            out.push(char::from(d.digit(i)));
        }
    }
    out.push(char::from(fmt));
    let exp = if d.d.is_empty() { 0 } else { d.dp - 1 };
    out.push(if exp < 0 { '-' } else { '+' });
    let _ = write!(out, "{:02}", exp.abs());
}

/// `-ddddddd.ddddd`
fn fmt_f(out: &mut String, neg: bool, d: &Digits, prec: i64) {
    if neg {
        out.push('-');
    }
    if d.dp > 0 {
        for i in 0..d.dp {
            out.push(char::from(d.digit(i)));
        }
    } else {
        out.push('0');
    }
    if prec > 0 {
        out.push('.');
        for i in 0..prec {
            out.push(char::from(d.digit(d.dp + i)));
        }
    }
}

/// The layout of a float's bits (Go's `floatInfo`).
struct Layout {
    mant_bits: u32,
    exp_mask: u64,
    bias: i64,
}

impl Width {
    /// The layout of this width's floats and the bits of `f` rounded to it.
    fn bits(self, f: f64) -> (Layout, u64) {
        match self {
            Width::F64 => (
                Layout {
                    mant_bits: 52,
                    exp_mask: 0x7ff,
                    bias: -1023,
                },
                f.to_bits(),
            ),
            Width::F32 => (
                Layout {
                    mant_bits: 23,
                    exp_mask: 0xff,
                    bias: -127,
                },
                u64::from(to_f32(f).to_bits()),
            ),
        }
    }
}

/// Mantissa and binary exponent of a finite float, with the implicit leading bit made
/// explicit (`x = mant * 2^(exp - mant_bits)`).
fn decompose(f: f64, width: Width) -> (u64, i64, u32) {
    let (layout, bits) = width.bits(f);
    let biased = ((bits >> layout.mant_bits) & layout.exp_mask).cast_signed();
    let mut mant = bits & ((1 << layout.mant_bits) - 1);
    let exp = if biased == 0 {
        1 + layout.bias
    } else {
        mant |= 1 << layout.mant_bits;
        biased + layout.bias
    };
    (mant, exp, layout.mant_bits)
}

/// `-ddddp±ddd`: the mantissa and a power of two, with the mantissa of a float32 at 32
/// bits (`1` is `8388608p-23`, at 64 bits `4503599627370496p-52`).
fn fmt_b(out: &mut String, f: f64, width: Width) {
    let (mant, exp, mant_bits) = decompose(f, width);
    let e = exp - i64::from(mant_bits);
    if f.is_sign_negative() {
        out.push('-');
    }
    let _ = write!(out, "{mant}p{}{e}", if e >= 0 { "+" } else { "" });
}

/// `-0x1.yyyyp±dd`: a hexadecimal fraction and a binary exponent; `prec` hex digits after
/// the point, or as many as needed when negative.
fn fmt_x(out: &mut String, f: f64, fmt: u8, prec: i64) {
    // A float32 widens to the same value, printed the same: decomposed at 64 bits.
    let (mut mant, mut exp, _) = decompose(f, Width::F64);
    if mant == 0 {
        exp = 0;
    }
    // Normalise so that the leading 1 (if any) sits at bit 60.
    mant <<= 60 - 52;
    while mant != 0 && mant & (1 << 60) == 0 {
        mant <<= 1;
        exp -= 1;
    }
    if (0..15).contains(&prec) {
        let shift = u32::try_from(prec * 4).expect("prec is in 0..15");
        let extra = (mant << shift) & ((1 << 60) - 1);
        mant >>= 60 - shift;
        // Round half to even on the dropped bits.
        if extra | (mant & 1) > 1 << 59 {
            mant += 1;
        }
        mant <<= 60 - shift;
        if mant & (1 << 61) != 0 {
            mant >>= 1;
            exp += 1;
        }
    }
    let upper = fmt == b'X';
    let hex = |v: u64| {
        let c = char::from_digit((v & 15) as u32, 16).unwrap_or('0');
        if upper { c.to_ascii_uppercase() } else { c }
    };
    if f.is_sign_negative() {
        out.push('-');
    }
    out.push('0');
    out.push(char::from(fmt));
    out.push(if (mant >> 60) & 1 == 1 { '1' } else { '0' });
    mant <<= 4;
    if prec < 0 && mant != 0 {
        out.push('.');
        while mant != 0 {
            out.push(hex(mant >> 60));
            mant <<= 4;
        }
    } else if prec > 0 {
        out.push('.');
        for _ in 0..prec {
            out.push(hex(mant >> 60));
            mant <<= 4;
        }
    }
    out.push(if upper { 'P' } else { 'p' });
    out.push(if exp < 0 { '-' } else { '+' });
    let _ = write!(out, "{:02}", exp.abs());
}
