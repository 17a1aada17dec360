//! Parsing a `Printf` format: flags, width, precision, argument indexes, and the
//! error markers Go writes for what goes wrong (`%!(NOVERB)`, `%!d(MISSING)`, ...).
use super::Printer;
use super::format::Flags;
use crate::value::Value;

/// Go's bound on widths and precisions: a `*` operand beyond it is `BADWIDTH`/`BADPREC`,
/// and digits stop being read once the number passes it.
const MAX_NUM: usize = 1_000_000;

/// Parse a decimal number at `s[start..]`: the number, whether there was one, and the
/// index after it. An absurdly long number consumes the whole format, as in Go.
fn parse_num(s: &[u8], start: usize) -> (usize, bool, usize) {
    let mut num = 0usize;
    let mut isnum = false;
    let mut i = start;
    while i < s.len() && s[i].is_ascii_digit() {
        if num > MAX_NUM {
            return (0, false, s.len());
        }
        num = num * 10 + usize::from(s[i] - b'0');
        isnum = true;
        i += 1;
    }
    (num, isnum, i)
}

/// `[n]` at the start of `s`: the zero-based index, the bytes it spans and whether it
/// parsed.
fn parse_arg_number(s: &[u8]) -> (usize, usize, bool) {
    if s.len() < 3 {
        return (0, 1, false);
    }
    for i in 1..s.len() {
        if s[i] == b']' {
            let (n, ok, end) = parse_num(&s[..i], 1);
            if !ok || end != i || n == 0 {
                // `[0]` is a bad index too; report it as out of range below.
                return (usize::MAX, i + 1, ok && end == i);
            }
            return (n - 1, i + 1, true);
        }
    }
    (0, 1, false)
}

/// The operand of a `*` width or precision, consumed if there is one: its value, or
/// `None` when it is missing or not an integer of a sensible size.
fn star_arg(args: &[Value], arg_num: &mut usize) -> Option<i64> {
    let arg = args.get(*arg_num)?;
    *arg_num += 1;
    let n = match arg {
        Value::Int(i) | Value::Int64(i) => *i,
        Value::Uint(u) => i64::try_from(*u).ok()?,
        _ => return None,
    };
    (n.unsigned_abs() <= MAX_NUM as u64).then_some(n)
}

impl Printer {
    fn flags(&mut self) -> &mut Flags {
        &mut self.out.f
    }

    /// An explicit `[n]` at `fmt[i..]`: the argument to use next, the new index, and
    /// whether an index was there.
    fn arg_number(
        &mut self,
        arg_num: usize,
        fmt: &[u8],
        i: usize,
        nargs: usize,
    ) -> (usize, usize, bool) {
        if fmt.len() <= i || fmt[i] != b'[' {
            return (arg_num, i, false);
        }
        self.reordered = true;
        let (index, wid, ok) = parse_arg_number(&fmt[i..]);
        if ok && index < nargs {
            return (index, i + wid, true);
        }
        self.good_arg_num = false;
        (arg_num, i + wid, ok)
    }

    #[expect(
        clippy::too_many_lines,
        reason = "Go's doPrintf, kept in its order (flags, index, width, precision, verb) to read beside it"
    )]
    pub(super) fn do_printf(&mut self, format: &str, args: &[Value]) {
        let fmt = format.as_bytes();
        let end = fmt.len();
        let mut arg_num = 0usize;
        let mut after_index;
        let mut i = 0usize;
        while i < end {
            self.good_arg_num = true;
            let last = i;
            while i < end && fmt[i] != b'%' {
                i += 1;
            }
            if i > last {
                self.out.buf.push_str(&format[last..i]);
            }
            if i >= end {
                break;
            }
            i += 1;
            self.out.f = Flags::default();
            while i < end {
                match fmt[i] {
                    b'#' => self.flags().sharp = true,
                    b'0' => self.flags().zero = true,
                    b'+' => self.flags().plus = true,
                    b'-' => self.flags().minus = true,
                    b' ' => self.flags().space = true,
                    _ => break,
                }
                i += 1;
            }
            (arg_num, i, after_index) = self.arg_number(arg_num, fmt, i, args.len());

            // Width: a number or `*` taking an int operand (negative means `-`).
            if i < end && fmt[i] == b'*' {
                i += 1;
                match star_arg(args, &mut arg_num) {
                    Some(w) => {
                        let f = self.flags();
                        f.wid_present = true;
                        f.wid = usize::try_from(w.unsigned_abs()).unwrap_or(MAX_NUM);
                        if w < 0 {
                            f.minus = true;
                            f.zero = false;
                        }
                    }
                    None => self.out.buf.push_str("%!(BADWIDTH)"),
                }
                after_index = false;
            } else {
                let (w, present, ni) = parse_num(fmt, i);
                i = ni;
                let f = self.flags();
                (f.wid, f.wid_present) = (w, present);
                if after_index && present {
                    self.good_arg_num = false;
                }
            }

            // Precision: `.` then a number (none means 0) or `*`.
            if i + 1 < end && fmt[i] == b'.' {
                i += 1;
                if after_index {
                    self.good_arg_num = false;
                }
                (arg_num, i, after_index) = self.arg_number(arg_num, fmt, i, args.len());
                if i < end && fmt[i] == b'*' {
                    i += 1;
                    // A negative precision is bad, unlike a negative width.
                    match star_arg(args, &mut arg_num).and_then(|p| usize::try_from(p).ok()) {
                        Some(p) => {
                            let f = self.flags();
                            (f.prec, f.prec_present) = (p, true);
                        }
                        _ => self.out.buf.push_str("%!(BADPREC)"),
                    }
                    after_index = false;
                } else {
                    let (p, _, ni) = parse_num(fmt, i);
                    i = ni;
                    let f = self.flags();
                    (f.prec, f.prec_present) = (p, true);
                }
            }

            if !after_index {
                (arg_num, i, _) = self.arg_number(arg_num, fmt, i, args.len());
            }

            if i >= end {
                self.out.buf.push_str("%!(NOVERB)");
                break;
            }
            let verb = format[i..].chars().next().unwrap_or('%');
            i += verb.len_utf8();

            if verb == '%' {
                // A literal percent takes no operand and ignores width and precision.
                self.out.buf.push('%');
            } else if !self.good_arg_num {
                self.bad_arg(verb, "(BADINDEX)");
            } else if arg_num >= args.len() {
                self.bad_arg(verb, "(MISSING)");
            } else {
                if verb == 'v' {
                    let f = self.flags();
                    f.sharp_v = std::mem::take(&mut f.sharp);
                    f.plus_v = std::mem::take(&mut f.plus);
                }
                self.print_arg(&args[arg_num], verb);
                arg_num += 1;
            }
        }

        // Operands left over (unless the format picked operands by index).
        if !self.reordered && arg_num < args.len() {
            self.out.f = Flags::default();
            self.out.buf.push_str("%!(EXTRA ");
            for (k, arg) in args[arg_num..].iter().enumerate() {
                if k > 0 {
                    self.out.buf.push_str(", ");
                }
                self.typed_value(arg);
            }
            self.out.buf.push(')');
        }
    }
}
