#!/usr/bin/env python3
"""Expected outputs of Go's fmt for the tests of src/fmt, taken from real Go.

The oracle is helm-python-sdk (PyPI ``helm-python-sdk``, import ``helm_python``),
which bundles Helm's Go template engine as a C library (0.2.2: Helm v4.2.3 built
with Go 1.26). Every case below is rendered as a one-line template of a throwaway
chart (``{{ printf FORMAT ARGS }}``, ``{{ print ARGS }}``, ...), and the rendered
text is written, with the case, to ``src/fmt/tests/oracle_cases.rs``.

Operands: template literals give Go ``int`` (``3``), ``bool`` and ``nil``; strings,
finite floats, lists and maps come from the values map (numbers there are
``float64``); infinities and NaN come from sprig's ``float64 "NaN"``; ``uint64``
from ``(semver "N.0.0").Major``.

Rerun (in a virtualenv with ``pip install helm-python-sdk==0.2.2``):

    python testdata/fmt_oracle.py            # rewrite src/fmt/tests/oracle_cases.rs
    python testdata/fmt_oracle.py --isprint  # also rewrite src/fmt/isprint.rs

``--isprint`` asks Go to ``%q`` every code point and records which ones it
leaves unescaped (Go's ``strconv.IsPrint``).
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
from pathlib import Path

from helm_python import Chart

CRATE = Path(__file__).resolve().parent.parent
CASES_RS = CRATE / "src" / "fmt" / "tests" / "oracle_cases.rs"
ISPRINT_RS = CRATE / "src" / "fmt" / "isprint.rs"


# Operand constructors (tagged so that ints and floats stay apart).
def I(n): return ("i", n)  # noqa: E704,E743
def U(n): return ("u", n)  # noqa: E704
def F(x): return ("f", x)  # noqa: E704
def S(s): return ("s", s)  # noqa: E704
def B(b): return ("b", b)  # noqa: E704
def L(*xs): return ("l", list(xs))  # noqa: E704  elements are JSON values
def M(**kv): return ("m", kv)  # noqa: E704  values are JSON values
NIL = ("nil", None)
INF, NINF, NAN = F(math.inf), F(-math.inf), F(math.nan)


def printf_cases():
    c = []

    def add(fmt, *args):
        c.append((fmt, list(args)))

    # Default formats.
    for v in [I(0), I(-7), I(9223372036854775807), I(-9223372036854775808), U(18446744073709551615),
              U(7), B(True), B(False), S(""), S("hi"), S("日本"), NIL]:
        add("%v", v)
    for x in [0.0, -0.0, 1.0, 3.5, 1e6, 123456.0, 1234567.0, 1e21, 1e20, 1e-5, 1e-4, 0.1, 100.0,
              1.0 / 3, 2.5e-8, 5e-324, 1.7976931348623157e308, 123456789.0, 12345.678, -2.5]:
        add("%v", F(x))
    for v in [INF, NINF, NAN]:
        add("%v", v)
    add("%v", L("a", 1, None, {"k": "v"}))
    add("%v", L())
    add("%v", M(a=1, b=["x", "y"]))
    add("%v", M())
    add("%v", M(z=1, a=2, m={"n": None}))
    add("%v", L(1.5, True, [1, [2]], "s p"))
    # %+v is %v for these values; %#v is Go syntax.
    for v in [I(5), F(1.0), F(2.5), S("s"), NIL, B(True), U(5), L("a", 1), L("a", None, ["b"]),
              M(a=1), M(a="x", b=[1, None], c={}), L()]:
        add("%+v", v)
        add("%#v", v)
    add("%#v", F(1e6))
    add("%#v", F(-0.0))
    add("%T", I(1)); add("%T", F(1)); add("%T", S("")); add("%T", B(True)); add("%T", NIL)
    add("%T", U(1)); add("%T", L()); add("%T", M()); add("%8T|", I(1)); add("%-8T|", S("")); add("%.3T", F(1))
    # Booleans.
    add("%t", B(True)); add("%t", B(False)); add("%6t|", B(True)); add("%-6t|", B(False)); add("%06t", B(True))
    add("%t", I(1)); add("%d", B(True)); add("%s", B(True)); add("%q", B(False))
    # Integers: every verb and flag.
    for v in [I(0), I(42), I(-42), I(255), U(255), I(1 << 40)]:
        for fmt in ["%d", "%+d", "% d", "%5d|", "%-5d|", "%05d", "%.3d", "%8.3d", "%-08d|", "%+05d",
                    "% 05d", "%b", "%o", "%O", "%#o", "%x", "%X", "%#x", "%#X", "%#b", "%08x", "%#08x",
                    "%.0d", "%+.3d"]:
            add(fmt, v)
    add("%5.0d|", I(0)); add("%-5.0d|", I(0)); add("%#.0o", I(0)); add("%#o", I(0)); add("%#x", I(0))
    add("%d", I(-9223372036854775808)); add("%x", I(-9223372036854775808)); add("%b", I(-5))
    add("%x", U(18446744073709551615)); add("%d", U(18446744073709551615)); add("%#v", U(255))
    add("%+d", U(3)); add("% x", I(255)); add("%#O", I(8)); add("%O", I(-8))
    # Characters and code points.
    for v in [I(97), I(0x65E5), I(0x1F600), I(-1), I(0x110000), I(0xD800), I(10), I(0), I(0x7F), I(0xAD)]:
        add("%c", v); add("%q", v); add("%U", v); add("%#U", v)
    add("%+q", I(0x65E5)); add("%5c|", I(97)); add("%-5q|", I(97)); add("%08U", I(97)); add("%.6U", I(97))
    add("%#.6U", I(0x65E5)); add("%10U|", I(97)); add("%-10U|", I(97)); add("%#q", I(97))
    add("%c", U(98)); add("%x", I(39)); add("%q", I(39)); add("%q", I(92)); add("%q", I(34))
    # Strings.
    for fmt in ["%s", "%q", "%x", "%X", "% x", "%#x", "%# x", "%# X", "%8s|", "%-8s|", "%08s", "%.2s",
                "%5.1q", "%.1x", "%10x|", "%-10x|", "%#q", "%+q", "%v", "%#v", "%5.3s|", "%.0s|", "%.10s",
                "%10q|", "%-10q|", "%010q", "%8.2x|"]:
        for s in ["héllo", "ab"]:
            add(fmt, S(s))
    add("%x", S("")); add("%5x|", S("")); add("%q", S("")); add("%d", S("hi")); add("%5d", S("hi"))
    add("%c", S("a")); add("%t", S("a")); add("%e", S("a")); add("%-6s|", S("日本語")); add("%6.2s|", S("日本語"))
    add("%q", S("a\"b\\c\n\t\r\a\b\f\v\x00\x1b\x7f")); add("%q", S("\u00ad\u200b\u2028\ufeff\U000e0001"))
    add("%+q", S("日本\U0001F600é")); add("%q", S("日本\U0001F600é")); add("%#q", S("a`b")); add("%#q", S("tab\there"))
    add("%#q", S("line\nbreak")); add("%#q", S("\ufeff")); add("%#+q", S("é")); add("%s", S("%d"))
    add("%x", S("日")); add("% X", S("日"))
    # Floats.
    for v in [F(3.14159), F(-3.14159), F(0.0), F(-0.0), F(1e6), F(1e21), F(123456.789), F(1e-7),
              F(2.5), F(0.000123), F(100.0)]:
        for fmt in ["%f", "%.2f", "%8.3f|", "%-8.3f|", "%08.3f", "%+.1f", "% .1f", "%e", "%.3e", "%E",
                    "%g", "%.3g", "%G", "%.10g", "%x", "%X", "%.2x", "%b", "%F", "%#g", "%#.3g", "%#f",
                    "%#.0f", "%#e", "%#x", "%+08.2f", "%-+8.2f|", "% 08.2f", "%v", "%.3v", "%10v|"]:
            add(fmt, v)
    for v in [INF, NINF, NAN]:
        for fmt in ["%f", "%08.2f", "%+f", "% f", "%-8f|", "%e", "%g", "%x", "%5.1f|", "%+08f", "%#g"]:
            add(fmt, v)
    for x, fmt in [(0.5, "%.0f"), (1.5, "%.0f"), (2.5, "%.0f"), (0.125, "%.2f"), (0.375, "%.2f"),
                   (1.005, "%.2f"), (2.675, "%.2f"), (9.995, "%.2f"), (999999.5, "%.0f"), (0.05, "%.1f"),
                   (1e100, "%f"), (1e23, "%v"), (1e23, "%.25g"), (5e-324, "%e"), (5e-324, "%.20e"),
                   (1.7976931348623157e308, "%e"), (1.7976931348623157e308, "%x"), (5e-324, "%x"),
                   (1.0, "%.0e"), (9.5, "%.0e"), (0.0001234, "%.2g"), (123456789.0, "%.4g"),
                   (123456.0, "%.6g"), (1234567.0, "%.7g"), (100000.0, "%g"), (1e-4, "%g"),
                   (1e-5, "%G"), (1.0, "%#.0e"), (1.0, "%#.0x"), (1.0, "%.0x"), (1.5, "%.0x"),
                   (2.5, "%.0x"), (1.0, "%#v"), (0.1, "%.30f"), (123.0, "%.1g"), (0.0, "%.0g"),
                   (0.0, "%#.0g"), (0.0, "%#.3g"), (10.0, "%#.1g"), (1e-10, "%#g"), (3.0, "%d"),
                   (3.0, "%s"), (3.0, "%q"), (3.0, "%c"), (3.0, "%t")]:
        add(fmt, F(x))
    # Exactly halfway between two shortest candidates: Go keeps the even last digit.
    add("%v", F(-806115150874966.25)); add("%G", F(-652492396615095.25)); add("%.17g", F(806115150874966.25))
    add("%v", F(0.3)); add("%v", F(2.0 ** 60)); add("%v", F(2.0 ** -1074 * 3))
    # Precisions past the digits a float64 has: the exact value, then zeros.
    add("%.1080f", F(5e-324)); add("%.780e", F(5e-324)); add("%.800g", F(0.1)); add("%#.30g", F(0.1))
    add("%.30e", F(1e23)); add("%.400f", F(1.7976931348623157e308)); add("%.20x", F(0.1)); add("%.20U", I(97))
    # Lists and maps under other verbs: the verb applies to the elements.
    add("%x", L("a", "b")); add("%X", L("ab", 255)); add("%d", L(1, 2)); add("%s", L("a", "b"))
    add("%d", L("a", 1, None)); add("%s", L(1, True)); add("%q", L("a", "b")); add("%5v|", L(1, "a"))
    add("%.1f", L(1, 2.25)); add("%x", M(a="hi")); add("%d", M(k=1)); add("%s", M(k=None)); add("%q", M(k="v"))
    add("%-4v|", M(a=1)); add("%t", L(True, 1)); add("%#x", L("ab")); add("%+d", L(1, -1))
    add("%#v", L(1.5, [None])); add("%p", I(1)); add("%p", NIL); add("%p", S("x")); add("%v", L(["a"], {}))
    # Arguments: indexes, stars, and every error marker.
    add("%[2]d %[1]d", I(1), I(2)); add("%[2]*[1]d", I(12), I(5)); add("%[1]d %d", I(1), I(2))
    add("%[3]d", I(1), I(2)); add("%[0]d", I(1)); add("%[x]d", I(1)); add("%[1]", I(1)); add("%[1", I(1))
    add("%[2]d", I(1)); add("%[1]2d", I(1)); add("%[1].2d", I(1)); add("%.[2]d", I(1), I(2))
    add("%*d", I(5), I(3)); add("%-*d|", I(5), I(3)); add("%*d|", I(-5), I(3)); add("%.*f", I(2), F(3.14159))
    add("%*.*f|", I(8), I(2), F(3.14159)); add("%*d", S("x"), I(3)); add("%.*d", S("x"), I(3))
    add("%.*d", I(-1), I(3)); add("%*d", F(5), I(3)); add("%*d", I(10000000), I(3)); add("%*d"); add("%.*d")
    add("%*d", U(4), I(3)); add("%d"); add("%d %s", I(1)); add("%d", I(1), I(2), S("a")); add("hi", I(1), NIL)
    add("%", I(1)); add("%-", I(1)); add("%5", I(1)); add("%.", I(1)); add("%5.", I(1)); add("%!", I(1))
    add("%z", I(1)); add("%z", S("a")); add("%z", NIL); add("%d", NIL); add("%s", NIL); add("%5v|", NIL)
    add("%-5v|", NIL); add("%#v", NIL); add("%q", NIL); add("%x", NIL); add("%%"); add("%5%"); add("%d%%", I(5))
    add("%ä", I(1)); add("x%dy%sz", I(1), S("a")); add("%v %v", L(1), M(a=1)); add("%[2]d", I(1), I(2), I(3))
    add("%.99999999d", I(1)); add("%99999999d", I(1)); add("%[1]d %[1]d", I(7)); add("%+v %#v", NIL, I(3))
    add("%!d(string=hi)", I(1)); add("%-08.3f|", F(3.14159)); add("%+.3e", F(-1234.5678)); add("%+-5d|", I(3))
    add("% +d", I(3)); add("%0-5d|", I(3)); add("%08s", S("-5")); add("%0.1f", F(-1.25)); add("%010.3e", F(-1.5))
    add("%x", B(True)); add("%6.2f%%", F(99.5)); add("%s=%v", S("k"), F(0.1)); add("%v%v", S("a"), S("b"))
    add("%v", I(1), I(2)); add("%[1]v %v", I(1), I(2))
    return c


def sprint_cases():
    return [
        [I(1), I(2), S("a"), S("b"), I(3), NIL, F(4.5)],
        [S("a"), I(1), S("b")], [I(1), S("a"), I(2)], [], [NIL, NIL], [S(""), S("")], [F(1.0), F(2.0)],
        [L(1, "a"), M(a=1)], [B(True), I(1), B(False)], [S("x"), L()], [U(3), I(-3)],
    ]


def quote_cases():
    return ["", "abc", "a\"b", "back\\slash", "\n\t\r", "\x00\x01\x1f\x7f", "日本語", "\u00a0\u00ad",
            "\u200b\u200e\u2028\u2029", "\ufeff", "\U0001F600", "\U000e0001\U0010ffff", "'single'",
            "\u0378", "a\u0301", "\u3000", "\U0001D400"]


def lit(v, k, values):
    """Template source for operand ``v`` (number ``k``), adding to ``values`` as needed."""
    tag, x = v
    if tag == "i":
        return str(x)
    if tag == "u":
        return f'(semver "{x}.0.0").Major'
    if tag == "b":
        return "true" if x else "false"
    if tag == "nil":
        return "nil"
    if tag == "f" and not math.isfinite(x):
        return '(float64 "%s")' % ("NaN" if math.isnan(x) else "+Inf" if x > 0 else "-Inf")
    values[f"v{k}"] = x if tag != "m" else dict(x)
    return f".Values.v{k}"


def render(templates: list[str], values: dict) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        chart = Path(tmp) / "probe"
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text("apiVersion: v2\nname: probe\nversion: 0.1.0\n")
        for i, t in enumerate(templates):
            (chart / "templates" / f"c{i:05d}.yaml").write_text(t)
        with Chart.load(chart) as ch:
            out = ch.render(values, name="r", namespace="default")
    return [out[f"probe/templates/c{i:05d}.yaml"] for i in range(len(templates))]


def rust_str(s: str) -> str:
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif " " <= ch <= "~":
            out.append(ch)
        elif ch == "\n":
            out.append("\\n")
        else:
            out.append("\\u{%x}" % ord(ch))
    return '"' + "".join(out) + '"'


def rust_float(x: float) -> str:
    if math.isnan(x):
        return "f64::NAN"
    if math.isinf(x):
        return "f64::INFINITY" if x > 0 else "f64::NEG_INFINITY"
    r = repr(x)
    return r if any(c in r for c in ".en") else r + ".0"


def rust_json(x) -> str:
    """A JSON value from the values map, as the engine sees it (numbers are float64)."""
    if x is None:
        return "Value::Nil"
    if isinstance(x, bool):
        return f"b({'true' if x else 'false'})"
    if isinstance(x, (int, float)):
        return f"f({rust_float(float(x))})"
    if isinstance(x, str):
        return f"s({rust_str(x)})"
    if isinstance(x, list):
        return "l(vec![" + ", ".join(rust_json(e) for e in x) + "])"
    return "m(vec![" + ", ".join(f"({rust_str(k)}, {rust_json(v)})" for k, v in x.items()) + "])"


def rust_val(v) -> str:
    tag, x = v
    return {
        "i": lambda: f"i({x})" if x != -(1 << 63) else "i(i64::MIN)",
        "u": lambda: f"u({x})",
        "f": lambda: f"f({rust_float(x)})",
        "s": lambda: f"s({rust_str(x)})",
        "b": lambda: f"b({'true' if x else 'false'})",
        "nil": lambda: "Value::Nil",
        "l": lambda: rust_json(x),
        "m": lambda: rust_json(x),
    }[tag]()


def main(argv: list[str]) -> int:
    values: dict = {}
    templates = []
    pf = printf_cases()
    for n, (fmt, args) in enumerate(pf):
        values[f"fmt{n}"] = fmt
        ops = " ".join(lit(a, f"{n}_{k}", values) for k, a in enumerate(args))
        templates.append(f"{{{{ printf .Values.fmt{n} {ops} }}}}")
    sp = sprint_cases()
    for n, args in enumerate(sp):
        ops = " ".join(lit(a, f"p{n}_{k}", values) for k, a in enumerate(args))
        templates.append(f"{{{{ print {ops} }}}}")
        templates.append(f"{{{{ println {ops} }}}}")
    qc = quote_cases()
    for n, s in enumerate(qc):
        values[f"q{n}"] = s
        templates.append(f'{{{{ printf "%q" .Values.q{n} }}}}')
    out = iter(render(templates, values))

    lines = [
        "//! Generated by `testdata/fmt_oracle.py` from real Go output: do not edit.",
        "#![allow(clippy::approx_constant)]",
        "#![allow(",
        "    clippy::unreadable_literal,",
        "    clippy::too_many_lines,",
        '    reason = "one table per function, its numbers spelled as Go prints them"',
        ")]",
        "use super::{b, f, i, l, m, s, u};",
        "use crate::value::Value;",
        "",
        "/// (format, operands, Go's `fmt.Sprintf`).",
        "#[rustfmt::skip]",
        "pub(super) fn printf() -> Vec<(&'static str, Vec<Value>, &'static str)> {",
        "    vec![",
    ]
    for fmt, args in pf:
        lines.append(f"        ({rust_str(fmt)}, vec![{', '.join(rust_val(a) for a in args)}], {rust_str(next(out))}),")
    lines += ["    ]", "}", "", "/// (operands, Go's `fmt.Sprint`, Go's `fmt.Sprintln`).",
              "#[rustfmt::skip]", "pub(super) fn sprint() -> Vec<(Vec<Value>, &'static str, &'static str)> {", "    vec!["]
    for args in sp:
        a, b_ = next(out), next(out)
        lines.append(f"        (vec![{', '.join(rust_val(x) for x in args)}], {rust_str(a)}, {rust_str(b_)}),")
    lines += ["    ]", "}", "", "/// (string, Go's `strconv.Quote`).",
              "#[rustfmt::skip]", "pub(super) fn quote() -> Vec<(&'static str, &'static str)> {", "    vec!["]
    for s in qc:
        lines.append(f"        ({rust_str(s)}, {rust_str(next(out))}),")
    lines += ["    ]", "}"]
    CASES_RS.write_text("\n".join(lines) + "\n")
    print(f"{len(pf)} printf, {len(sp)} print/println, {len(qc)} quote cases -> {CASES_RS}")

    if "--isprint" in argv:
        write_isprint()
    return 0


def write_isprint() -> None:
    cps = [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and c not in (0x22, 0x5C)]
    body = render(['{{ printf "%q" .Values.s }}'], {"s": "".join(map(chr, cps))})[0][1:-1]
    printable, i, k = [0x22, 0x5C], 0, 0
    while i < len(body):
        if body[i] == "\\":
            i += {"x": 4, "u": 6, "U": 10}.get(body[i + 1], 2)
        else:
            assert ord(body[i]) == cps[k]
            printable.append(cps[k])
            i += 1
        k += 1
    assert k == len(cps)
    ranges: list[list[int]] = []
    for c in sorted(printable):
        if ranges and ranges[-1][1] + 1 == c:
            ranges[-1][1] = c
        else:
            ranges.append([c, c])
    lines = [
        "//! Go's `unicode.IsPrint` (what `strconv.Quote` leaves unescaped), as the Go release",
        "//! behind Helm has it: generated by `testdata/fmt_oracle.py --isprint`, which asks",
        "//! Go to quote every code point. Regenerate when Go moves to a new Unicode version.",
        "",
        "/// Inclusive ranges of printable code points, sorted.",
        "#[rustfmt::skip]",
        "pub(super) const PRINTABLE: &[(u32, u32)] = &[",
    ]
    for n in range(0, len(ranges), 5):
        lines.append("    " + " ".join(f"(0x{a:05X}, 0x{b:05X})," for a, b in ranges[n:n + 5]))
    lines.append("];")
    ISPRINT_RS.write_text("\n".join(lines) + "\n")
    print(f"{len(ranges)} printable ranges -> {ISPRINT_RS}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
