//! Go's `fmt` printing (`Sprint`, `Sprintln`, `Sprintf`) and the `strconv` pieces it
//! rests on (`FormatFloat`, `Quote`), for template values.
//!
//! Written from the documented behaviour of Go's packages `fmt` and `strconv` and checked
//! against the output of real Go (see `testdata/fmt_oracle.py`). Every value is printed
//! as Go prints the `interface{}` holding it: lists are `[]interface {}`, maps are
//! `map[string]interface {}` with sorted keys, numbers are `int`, `uint64` or `float64`.
mod directive;
mod format;
mod ftoa;
mod isprint;
mod quote;

use format::Fmt;

pub use ftoa::{format_float, format_float32};
pub use quote::quote;

/// Go's `unicode.IsPrint` (what `strconv.Quote` leaves unescaped), exact for the Unicode
/// version of the Go release Helm is built with.
pub fn is_print(c: char) -> bool {
    quote::is_print(u32::from(c))
}

use crate::value::{MapRef, Value};

/// `fmt.Sprint` of one operand (`%v`).
pub fn sprint_value(v: &Value) -> String {
    let mut p = Printer::default();
    p.print_arg(v, 'v');
    p.out.buf
}

/// `fmt.Sprint`: operands in their default format, a space between two operands when
/// neither is a string.
pub fn sprint(args: &[Value]) -> String {
    let mut p = Printer::default();
    let mut prev_string = false;
    for (i, arg) in args.iter().enumerate() {
        let is_string = matches!(arg, Value::String(_));
        if i > 0 && !is_string && !prev_string {
            p.out.buf.push(' ');
        }
        p.print_arg(arg, 'v');
        prev_string = is_string;
    }
    p.out.buf
}

/// `fmt.Sprintln`: operands separated by spaces, then a newline.
pub fn sprintln(args: &[Value]) -> String {
    let mut p = Printer::default();
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            p.out.buf.push(' ');
        }
        p.print_arg(arg, 'v');
    }
    p.out.buf.push('\n');
    p.out.buf
}

/// `fmt.Sprintf`: `format` with its directives replaced by the formatted `args`.
/// Mistakes are reported inline as Go does (`%!d(string=hi)`, `%!d(MISSING)`, ...).
pub fn sprintf(format: &str, args: &[Value]) -> String {
    let mut p = Printer::default();
    p.do_printf(format, args);
    p.out.buf
}

/// One printing job: the output so far and the state of the format being walked.
#[derive(Default)]
struct Printer {
    out: Fmt,
    /// The format used explicit argument indexes (then extra operands are not reported).
    reordered: bool,
    /// The last argument index was valid.
    good_arg_num: bool,
    /// Maps being printed, outermost first, to catch a map that contains itself.
    open_maps: Vec<MapRef>,
    /// How deep inside lists and maps the value being printed is.
    depth: usize,
}

/// Stack left before nested values get a new segment, and the segment's size.
const STACK_RED_ZONE: usize = 64 * 1024;
const STACK_SEGMENT: usize = 1024 * 1024;

impl Printer {
    fn bad_arg(&mut self, verb: char, what: &str) {
        self.out.buf.push_str("%!");
        self.out.buf.push(verb);
        self.out.buf.push_str(what);
    }

    /// `%!verb(type=value)` for a verb that does not apply to the operand.
    fn bad_verb(&mut self, verb: char, arg: &Value) {
        self.out.buf.push_str("%!");
        self.out.buf.push(verb);
        self.out.buf.push('(');
        // Go prints the operand afresh, as at the top level.
        let depth = std::mem::take(&mut self.depth);
        self.typed_value(arg);
        self.depth = depth;
        self.out.buf.push(')');
    }

    /// `type=value` as Go's error markers show an operand, or `<nil>`.
    fn typed_value(&mut self, arg: &Value) {
        if let Value::Nil = arg {
            self.out.buf.push_str("<nil>");
        } else {
            self.out.buf.push_str(&arg.type_name());
            self.out.buf.push('=');
            self.print_value(arg, 'v');
        }
    }

    /// One operand of a directive (Go's `printArg`): `%T` and `%p` first, then by type.
    fn print_arg(&mut self, arg: &Value, verb: char) {
        if let Value::Nil = arg {
            match verb {
                'T' | 'v' => self.out.pad("<nil>"),
                _ => self.bad_verb(verb, arg),
            }
            return;
        }
        match verb {
            'T' => self.out.fmt_s(&arg.type_name()),
            'p' => self.fmt_pointer(arg, 'p'),
            _ => self.print_value(arg, verb),
        }
    }

    /// An element of a list or map, on a stack that grows with the nesting. Printing
    /// stops once the text passes the engine's string bound (values shared many times
    /// over expand beyond memory); the engine then refuses the result.
    fn nested(&mut self, v: &Value, verb: char) {
        if self.out.buf.len() > crate::exec::MAX_STRING {
            return;
        }
        self.depth += 1;
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || self.print_value(v, verb));
        self.depth -= 1;
    }

    /// A value, the operand itself or an element inside a list or map.
    fn print_value(&mut self, v: &Value, verb: char) {
        match v {
            Value::Nil => {
                // A nil element of a list or map, whatever the verb.
                if self.out.f.sharp_v {
                    self.out.buf.push_str("interface {}(nil)");
                } else {
                    self.out.buf.push_str("<nil>");
                }
            }
            Value::Bool(b) => match verb {
                't' | 'v' => self.out.fmt_boolean(*b),
                _ => self.bad_verb(verb, v),
            },
            Value::Int(i) | Value::Int64(i) => self.fmt_integer(i.cast_unsigned(), true, verb, v),
            Value::Uint(u) => self.fmt_integer(*u, false, verb, v),
            Value::Float(x) => self.fmt_float(*x, verb, v),
            Value::Complex(re, im) => self.fmt_complex(*re, *im, verb, v),
            Value::String(s) => self.fmt_string(s, verb, v),
            Value::List(items) => self.fmt_list(&v.type_name(), items, verb),
            Value::Map(m) if self.open_maps.iter().any(|open| open.ptr_eq(m)) => {
                // A map that holds itself (sprig's `set` can do that): Go would recurse
                // until it crashes; we print a marker instead.
                self.bad_arg(verb, "(CYCLE)");
            }
            // Go's %#v of a nil map: `map[string]string(nil)`.
            Value::Map(m) if m.is_nil() && self.out.f.sharp_v => {
                self.out.buf.push_str(&v.type_name());
                self.out.buf.push_str("(nil)");
            }
            Value::Map(m) => {
                let entries = m.snapshot();
                self.open_maps.push(m.clone());
                let sharp_v = self.out.f.sharp_v;
                if sharp_v {
                    self.out.buf.push_str(&v.type_name());
                    self.out.buf.push('{');
                } else {
                    self.out.buf.push_str("map[");
                }
                for (i, (k, val)) in entries.iter().enumerate() {
                    if i > 0 {
                        self.out.buf.push_str(if sharp_v { ", " } else { " " });
                    }
                    // Keys are `string`-typed, values are interfaces.
                    self.fmt_string(k, verb, &Value::String(k.clone()));
                    self.out.buf.push(':');
                    self.nested(val, verb);
                }
                self.out.buf.push(if sharp_v { '}' } else { ']' });
                self.open_maps.pop();
            }
            Value::Function(_) => self.fmt_pointer(v, verb),
            Value::Object(o) => {
                if o.is_nil() {
                    self.print_value(&Value::Nil, verb);
                } else if o.pointer_to_struct() {
                    // Go prints a pointer to a struct as &{fields} at the top and as
                    // its address inside other values.
                    if self.depth > 0 {
                        self.fmt_pointer(v, verb);
                    } else {
                        self.out.buf.push('&');
                        self.out.buf.push_str(&o.go_string());
                    }
                } else if let (Some(bytes), true, 's' | 'q' | 'x' | 'X') =
                    (o.as_bytes(), o.as_list().is_some(), verb)
                {
                    // fmt prints a []byte as the string it holds under these verbs.
                    self.fmt_string(&String::from_utf8_lossy(bytes), verb, v);
                } else if let Some(items) = o.as_list() {
                    // Slice types have no String method: Go prints their elements. fmt
                    // names a `[]byte` argument itself `[]byte`, and as `[]uint8` (its
                    // reflected type) inside other values.
                    let type_name = match o.type_name() {
                        "[]uint8" if self.depth == 0 => "[]byte",
                        other => other,
                    };
                    self.fmt_list(type_name, &items, verb);
                } else if self.out.f.sharp_v {
                    self.out.fmt_s(&o.go_string());
                } else if matches!(verb, 'v' | 's' | 'x' | 'X' | 'q') {
                    // Printed as Go prints a Stringer: its string under the verb.
                    self.fmt_string(&o.go_string(), verb, v);
                } else {
                    self.bad_verb(verb, v);
                }
            }
        }
    }

    fn fmt_list(&mut self, type_name: &str, items: &[Value], verb: char) {
        let sharp_v = self.out.f.sharp_v;
        if sharp_v {
            self.out.buf.push_str(type_name);
            self.out.buf.push('{');
        } else {
            self.out.buf.push('[');
        }
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.out.buf.push_str(if sharp_v { ", " } else { " " });
            }
            self.nested(item, verb);
        }
        self.out.buf.push(if sharp_v { '}' } else { ']' });
    }

    fn fmt_integer(&mut self, u: u64, signed: bool, verb: char, v: &Value) {
        match verb {
            'v' if self.out.f.sharp_v && !signed => self.fmt_0x64(u, true),
            'v' | 'd' => self.out.fmt_integer(u, 10, signed, verb, false),
            'b' => self.out.fmt_integer(u, 2, signed, verb, false),
            'o' | 'O' => self.out.fmt_integer(u, 8, signed, verb, false),
            'x' => self.out.fmt_integer(u, 16, signed, verb, false),
            'X' => self.out.fmt_integer(u, 16, signed, verb, true),
            'c' => self.out.fmt_c(u),
            'q' => self.out.fmt_qc(u),
            'U' => self.out.fmt_unicode(u),
            _ => self.bad_verb(verb, v),
        }
    }

    /// Hex with or without `0x`, whatever the `#` flag says.
    fn fmt_0x64(&mut self, u: u64, leading_0x: bool) {
        let sharp = std::mem::replace(&mut self.out.f.sharp, leading_0x);
        self.out.fmt_integer(u, 16, false, 'v', false);
        self.out.f.sharp = sharp;
    }

    fn fmt_float(&mut self, x: f64, verb: char, v: &Value) {
        match verb {
            'v' => self.out.fmt_float(x, b'g', -1),
            'b' | 'g' | 'G' | 'x' | 'X' => self.out.fmt_float(x, verb as u8, -1),
            'f' | 'e' | 'E' => self.out.fmt_float(x, verb as u8, 6),
            'F' => self.out.fmt_float(x, b'f', 6),
            _ => self.bad_verb(verb, v),
        }
    }

    /// Go's complex128: `(re+imi)`, each part under the verb (width and precision
    /// apply to each), the imaginary part always signed.
    fn fmt_complex(&mut self, re: f64, im: f64, verb: char, v: &Value) {
        if !matches!(
            verb,
            'v' | 'b' | 'g' | 'G' | 'x' | 'X' | 'f' | 'F' | 'e' | 'E'
        ) {
            return self.bad_verb(verb, v);
        }
        let plus = self.out.f.plus;
        self.out.buf.push('(');
        self.fmt_float(re, verb, v);
        self.out.f.plus = true;
        self.fmt_float(im, verb, v);
        self.out.buf.push_str("i)");
        self.out.f.plus = plus;
    }

    fn fmt_string(&mut self, s: &str, verb: char, v: &Value) {
        match verb {
            'v' if self.out.f.sharp_v => self.out.fmt_q(s),
            'v' | 's' => self.out.fmt_s(s),
            'x' => self.out.fmt_sx(s, false),
            'X' => self.out.fmt_sx(s, true),
            'q' => self.out.fmt_q(s),
            _ => self.bad_verb(verb, v),
        }
    }

    /// Maps, lists and functions under `%p` (and functions under any verb): their
    /// address. Functions have no stable address here, so they print as `0x0`.
    fn fmt_pointer(&mut self, v: &Value, verb: char) {
        let addr = match v {
            // Go's map pointer; ours is the current snapshot of the entries.
            Value::Map(m) => std::sync::Arc::as_ptr(&m.snapshot()) as usize as u64,
            Value::List(l) => l.as_ptr() as usize as u64,
            Value::Function(_) => 0,
            Value::Object(o) if o.pointer_to_struct() => {
                std::sync::Arc::as_ptr(o).cast::<u8>() as usize as u64
            }
            _ => return self.bad_verb(verb, v),
        };
        match verb {
            'v' if self.out.f.sharp_v => {
                self.out.buf.push('(');
                self.out.buf.push_str(&v.type_name());
                self.out.buf.push_str(")(");
                self.fmt_0x64(addr, true);
                self.out.buf.push(')');
            }
            'v' | 'p' => {
                let sharp = self.out.f.sharp;
                self.fmt_0x64(addr, !sharp);
            }
            'b' | 'o' | 'd' | 'x' | 'X' => self.fmt_integer(addr, false, verb, v),
            _ => self.bad_verb(verb, v),
        }
    }
}

#[cfg(test)]
mod tests;
