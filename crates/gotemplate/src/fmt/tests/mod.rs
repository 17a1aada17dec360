//! Go's own output for every case in `oracle_cases.rs` (generated from real Go), plus the
//! pieces that cannot be asked of Go through a template.
mod oracle_cases;

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{format_float, format_float32, quote, sprint, sprint_value, sprintf, sprintln};
use crate::value::{Object, Value};

pub(super) fn i(n: i64) -> Value {
    Value::Int(n)
}
pub(super) fn u(n: u64) -> Value {
    Value::Uint(n)
}
pub(super) fn f(x: f64) -> Value {
    Value::Float(x)
}
pub(super) fn s(x: &str) -> Value {
    Value::string(x)
}
pub(super) fn b(x: bool) -> Value {
    Value::Bool(x)
}
pub(super) fn l(items: Vec<Value>) -> Value {
    Value::from(items)
}
pub(super) fn m(entries: Vec<(&str, Value)>) -> Value {
    let map: BTreeMap<String, Value> = entries
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    Value::from(map)
}

/// Run every case and report all mismatches at once.
fn check<T: std::fmt::Debug>(cases: impl IntoIterator<Item = (T, String, String)>) {
    let mut bad = Vec::new();
    let mut n = 0;
    for (case, got, want) in cases {
        n += 1;
        if got != want {
            bad.push(format!("{case:?}: got {got:?}, want {want:?}"));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {n} cases differ from Go:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn sprintf_matches_go() {
    check(
        oracle_cases::printf()
            .into_iter()
            .map(|(fmt, args, want)| ((fmt, args.clone()), sprintf(fmt, &args), want.to_string())),
    );
}

#[test]
fn sprint_and_sprintln_match_go() {
    check(
        oracle_cases::sprint()
            .into_iter()
            .flat_map(|(args, want, want_ln)| {
                [
                    (("print", args.clone()), sprint(&args), want.to_string()),
                    (
                        ("println", args.clone()),
                        sprintln(&args),
                        want_ln.to_string(),
                    ),
                ]
            }),
    );
}

#[test]
fn quote_matches_go() {
    check(
        oracle_cases::quote()
            .into_iter()
            .map(|(x, want)| (x, quote(x), want.to_string())),
    );
}

/// `strconv.FormatFloat` in the modes `printf` cannot reach (shortest `e` and `f`, `x`
/// with long precision, unknown formats). Expected strings are those of Go's own
/// `strconv` test table.
#[test]
#[expect(
    clippy::unreadable_literal,
    reason = "numbers spelled as Go spells them, beside the text Go prints"
)]
fn format_float_matches_go_strconv_table() {
    let below_1e23 = 99999999999999974834176.0;
    let above_1e23 = 100000000000000008388608.0;
    let cases: Vec<(f64, u8, i32, &str)> = vec![
        (1.0, b'e', 5, "1.00000e+00"),
        (1.0, b'g', -1, "1"),
        (1.0, b'x', 5, "0x1.00000p+00"),
        (1234567.8, b'g', -1, "1.2345678e+06"),
        (1234567.8, b'x', -1, "0x1.2d687cccccccdp+20"),
        (200000.0, b'X', -1, "0X1.86AP+17"),
        (2000000.0, b'g', -1, "2e+06"),
        (400.0, b'g', 2, "4e+02"),
        (0.0004, b'g', 2, "0.0004"),
        (0.00004, b'g', 2, "4e-05"),
        (0.0, b'e', 5, "0.00000e+00"),
        (0.0, b'x', 5, "0x0.00000p+00"),
        (123456700.0, b'g', 5, "1.2346e+08"),
        (123456700.0, b'g', -1, "1.234567e+08"),
        (1e23, b'e', 17, "9.99999999999999916e+22"),
        (1e23, b'f', 17, "99999999999999991611392.00000000000000000"),
        (1e23, b'g', 17, "9.9999999999999992e+22"),
        (1e23, b'e', -1, "1e+23"),
        (1e23, b'f', -1, "100000000000000000000000"),
        (below_1e23, b'e', -1, "9.999999999999997e+22"),
        (below_1e23, b'f', -1, "99999999999999970000000"),
        (above_1e23, b'f', -1, "100000000000000010000000"),
        (above_1e23, b'g', -1, "1.0000000000000001e+23"),
        (5e-324, b'g', -1, "5e-324"),
        (-5e-324, b'g', -1, "-5e-324"),
        (32.0, b'g', 0, "3e+01"),
        (100.0, b'y', -1, "%y"),
        (f64::NAN, b'g', -1, "NaN"),
        (f64::NEG_INFINITY, b'g', -1, "-Inf"),
        (-1.0, b'b', -1, "-4503599627370496p-52"),
        (0.09, b'f', 1, "0.1"),
        (0.05, b'f', 0, "0"),
        (1.5, b'f', 0, "2"),
        (2.2250738585072012e-308, b'g', -1, "2.2250738585072014e-308"),
        (383260575764816448.0, b'f', 0, "383260575764816448"),
        (498484681984085570.0, b'f', -1, "498484681984085570"),
        (-5.8339553793802237e+23, b'g', -1, "-5.8339553793802237e+23"),
        (2.275555555555555, b'x', 0, "0x1p+01"),
        (2.275555555555555, b'x', 16, "0x1.23456789abcde000p+01"),
        (3.999969482421875, b'x', 3, "0x1.000p+02"),
        (3.999969482421875, b'x', 0, "0x1p+02"),
        (-0.0, b'f', -1, "-0"),
        (0.0, b'e', -1, "0e+00"),
        (1.5, b'E', -1, "1.5E+00"),
        (1e-7, b'G', 3, "1E-07"),
    ];
    check(cases.into_iter().map(|(x, fmt, prec, want)| {
        (
            (x, char::from(fmt), prec),
            format_float(x, fmt, prec),
            want.to_string(),
        )
    }));
}

/// `strconv.FormatFloat(x, fmt, prec, 32)`: expected strings printed by Go 1.26's
/// strconv. The float32 nearest 0.1 is "0.1" at 32 bits; `186839.125` lies halfway
/// between the shortest candidates 186839.12 and 186839.13, and Go takes the even one.
#[test]
#[expect(
    clippy::unreadable_literal,
    reason = "numbers spelled as Go spells them, beside the text Go prints"
)]
fn format_float32_matches_go() {
    let tenth = f64::from(0.1_f32);
    let cases: Vec<(f64, u8, i32, &str)> = vec![
        (tenth, b'g', -1, "0.1"),
        (0.1, b'g', -1, "0.1"),
        (1e21, b'g', -1, "1e+21"),
        (16777216.0, b'g', -1, "1.6777216e+07"),
        (16777217.0, b'g', -1, "1.6777216e+07"),
        (5.0, b'g', -1, "5"),
        (1e6, b'g', -1, "1e+06"),
        (0.0001, b'g', -1, "0.0001"),
        (1e-5, b'g', -1, "1e-05"),
        (123456.0, b'g', -1, "123456"),
        (1234567.0, b'g', -1, "1.234567e+06"),
        (186839.125, b'g', -1, "186839.12"),
        (2800147.25, b'g', -1, "2.8001472e+06"),
        (1e39, b'g', -1, "+Inf"),
        (-1e39, b'g', -1, "-Inf"),
        (f64::from(f32::MAX), b'g', -1, "3.4028235e+38"),
        (1e-45, b'g', -1, "1e-45"),
        (1e-46, b'g', -1, "0"),
        (-0.0, b'g', -1, "-0"),
        (f64::NAN, b'g', -1, "NaN"),
        (1.0, b'b', -1, "8388608p-23"),
        (-1.0, b'b', -1, "-8388608p-23"),
        (1e-45, b'b', -1, "1p-149"),
        (1.5, b'e', -1, "1.5e+00"),
        (tenth, b'f', -1, "0.1"),
        (tenth, b'e', 10, "1.0000000149e-01"),
        (tenth, b'x', -1, "0x1.99999ap-04"),
    ];
    check(cases.into_iter().map(|(x, fmt, prec, want)| {
        (
            (x, char::from(fmt), prec),
            format_float32(x, fmt, prec),
            want.to_string(),
        )
    }));
}

/// A Go struct value as the engine hands it over (`.Capabilities.KubeVersion`).
struct Version;

impl Object for Version {
    fn type_name(&self) -> &'static str {
        "*common.KubeVersion"
    }
    fn go_string(&self) -> String {
        "v1.20.0".into()
    }
}

/// Objects print as Go prints a Stringer; functions as a func value (address shown as
/// 0x0, since ours has none that is stable).
#[test]
fn objects_and_functions() {
    let obj = Value::Object(Arc::new(Version));
    let func = Value::Function(Arc::new(|_: &[Value]| Ok(Value::Nil)));
    let cases = vec![
        ("%v", obj.clone(), "v1.20.0"),
        ("%10s|", obj.clone(), "   v1.20.0|"),
        ("%q", obj.clone(), "\"v1.20.0\""),
        ("%x", obj.clone(), "76312e32302e30"),
        ("%T", obj.clone(), "*common.KubeVersion"),
        ("%d", obj.clone(), "%!d(*common.KubeVersion=v1.20.0)"),
        ("%v", func.clone(), "0x0"),
        ("%p", func.clone(), "0x0"),
        (
            "%#v",
            func.clone(),
            "(func(...interface {}) (interface {}, error))(0x0)",
        ),
        (
            "%T",
            func.clone(),
            "func(...interface {}) (interface {}, error)",
        ),
        (
            "%s",
            func.clone(),
            "%!s(func(...interface {}) (interface {}, error)=0x0)",
        ),
    ];
    check(
        cases
            .into_iter()
            .map(|(fmt, v, want)| (fmt, sprintf(fmt, &[v]), want.to_string())),
    );
    assert_eq!(sprint_value(&l(vec![obj.clone(), func])), "[v1.20.0 0x0]");
    assert_eq!(sprint(&[obj.clone(), obj]), "v1.20.0 v1.20.0");
}

#[test]
fn sprint_value_is_percent_v() {
    for (fmt, args, _) in oracle_cases::printf() {
        if fmt == "%v" && args.len() == 1 {
            assert_eq!(sprint_value(&args[0]), sprintf("%v", &args), "{args:?}");
        }
    }
    let shared = m(vec![("a", i(1))]);
    assert_eq!(format!("{shared}"), "map[a:1]");
}

/// `%p` of a map or list is its address in Go syntax; the same map prints the same.
#[test]
fn pointer_of_map_and_list() {
    let map = m(vec![("a", i(1))]);
    let list = l(vec![i(1)]);
    for v in [&map, &list] {
        let p = sprintf("%p", std::slice::from_ref(v));
        assert!(p.starts_with("0x") && p.len() > 2, "{p}");
        assert!(u64::from_str_radix(&p[2..], 16).is_ok(), "{p}");
        assert_eq!(sprintf("%#p", std::slice::from_ref(v)), p[2..]);
    }
    let alias = map.clone();
    assert_eq!(
        sprintf("%p", &[alias]),
        sprintf("%p", std::slice::from_ref(&map))
    );
}

/// Malformed formats never panic and keep the literal text around the directives.
#[test]
fn malformed_formats_are_total() {
    let alphabet = [
        "%", "[", "]", "*", ".", "1", "9", "-", "#", "d", "v", "ä", "x",
    ];
    let args = [
        i(-3),
        s("é"),
        f(f64::NAN),
        Value::Nil,
        l(vec![u(1)]),
        m(vec![]),
    ];
    let mut count = 0;
    for a in alphabet {
        for b in alphabet {
            for c in alphabet {
                let fmt = format!("<{a}{b}{c}>");
                for n in 0..=args.len() {
                    let out = sprintf(&fmt, &args[..n]);
                    assert!(out.starts_with('<'), "{fmt:?} -> {out:?}");
                    count += 1;
                }
            }
        }
    }
    assert_eq!(count, 13 * 13 * 13 * 7);
    // Go stops reading a width once it passes a million: the directive is then lost.
    assert_eq!(sprintf("%100000000d", &[i(1)]), "%!(NOVERB)%!(EXTRA int=1)");
    assert_eq!(sprintf("%1000001d", &[i(1)]).len(), 1_000_001);
    // Precisions beyond what Rust's formatter accepts (65535) still work, as in Go.
    let zeros = |n: usize| "0".repeat(n);
    let p = |fmt: &str, v: Value| sprintf(fmt, &[v]);
    assert_eq!(p("%.70000f", f(0.1)), p("%.1100f", f(0.1)) + &zeros(68_900));
    let e = p("%.1100e", f(0.1));
    assert_eq!(
        p("%.70000e", f(0.1)),
        e.replace("e-01", &(zeros(68_900) + "e-01"))
    );
    assert_eq!(p("%.70000g", f(0.1)), p("%.1100g", f(0.1)));
    assert_eq!(p("%.70000U", i(97)), format!("U+{}61", zeros(69_998)));
    assert_eq!(p("%.70000d", i(-7)), format!("-{}7", zeros(69_999)));
    assert_eq!(p("%.70000x", f(1.0)), format!("0x1.{}p+00", zeros(70_000)));
    assert_eq!(sprintf("%.1000000f", &[f(1.0)]).len(), 1_000_002);
}

/// Deep nesting does not overflow the stack; a map holding itself prints a marker where
/// Go would crash; the same map twice side by side is not a cycle.
#[test]
fn deep_and_cyclic_values() {
    let mut deep = l(vec![]);
    for _ in 0..100_000 {
        deep = l(vec![deep]);
    }
    let out = sprint_value(&deep);
    assert_eq!(out.len(), 2 * 100_001);
    assert!(out.starts_with("[[[") && out.ends_with("]]]"));
    // Dropping a list this deep recurses in `Value`'s own drop glue; not ours to test.
    std::mem::forget(deep);

    let Value::Map(map) = m(vec![("a", i(1))]) else {
        unreachable!()
    };
    map.insert("self".into(), Value::Map(map.clone()));
    assert_eq!(
        sprint_value(&Value::Map(map.clone())),
        "map[a:1 self:%!v(CYCLE)]"
    );
    assert_eq!(
        sprintf("%d", &[Value::Map(map.clone())]),
        "map[%!d(string=a):1 %!d(string=self):%!d(CYCLE)]"
    );
    let inner = m(vec![("k", s("v"))]);
    let twice = l(vec![inner.clone(), m(vec![("x", inner)])]);
    assert_eq!(sprint_value(&twice), "[map[k:v] map[x:map[k:v]]]");
}

#[test]
fn is_print_follows_go() {
    let printable = [
        ' ',
        'a',
        '~',
        '\u{a1}',
        '\u{e9}',
        '\u{65e5}',
        '\u{1f600}',
        '\u{1d400}',
    ];
    for c in printable {
        assert!(super::is_print(c), "{c:?}");
    }
    // Controls, soft hyphen, format characters, unassigned, private use and spaces other
    // than U+0020 are not.
    let not_printable = [
        '\0', '\n', '\u{7f}', '\u{ad}', '\u{200b}', '\u{378}', '\u{e000}', '\u{3000}',
    ];
    for c in not_printable {
        assert!(!super::is_print(c), "{c:?}");
    }
}
