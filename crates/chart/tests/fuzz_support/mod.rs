//! Random charts for the fuzz run: templates built from the pieces of Go's template
//! language and Helm's functions (so most of them parse and run far), values files and
//! Chart.yaml files built from YAML pieces, and raw bytes. Shared by `tests/fuzz.rs`
//! (a bounded run in the test suite) and `examples/fuzz_charts.rs` (long runs with
//! figures).
#![allow(dead_code)]

use std::sync::mpsc;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use rusty_sdk_chart::{Chart, ChartFile, RenderOptions, render};

/// Pieces of template text: actions, pipelines, functions, literals and data.
const TEMPLATE_PIECES: &[&str] = &[
    "{{",
    "}}",
    "{{-",
    "-}}",
    "{{ ",
    " }}",
    "if ",
    "else ",
    "else if ",
    "end",
    "range ",
    "with ",
    "define \"t\"",
    "template \"t\" .",
    "block \"b\" .",
    "break",
    "continue",
    "$x",
    "$x := ",
    "$x = ",
    "$i, $v := ",
    "$",
    ".",
    ".Values",
    ".Values.a",
    ".Values.l",
    ".Values.m.k",
    ".Release.Name",
    ".Chart.Name",
    ".Capabilities.KubeVersion",
    ".Files",
    ".Capabilities.APIVersions.Has \"v1\"",
    "(",
    ")",
    "|",
    " ",
    "\n",
    "\"s\"",
    "`raw`",
    "'c'",
    "1",
    "-3",
    "2.5",
    "1e6",
    "0x1F",
    "nil",
    "true",
    "false",
    "include \"t\" .",
    "tpl \"{{ . }}\" .",
    "toYaml",
    "toJson",
    "fromYaml",
    "fromJson",
    "printf \"%v %d\"",
    "print",
    "len",
    "index",
    "slice",
    "eq",
    "lt",
    "and",
    "or",
    "not",
    "default",
    "dict",
    "list",
    "set",
    "get",
    "merge",
    "append",
    "first",
    "rest",
    "keys",
    "pluck",
    "until",
    "seq",
    "add",
    "sub",
    "mul",
    "div",
    "mod",
    "max",
    "int",
    "int64",
    "float64",
    "toString",
    "quote",
    "upper",
    "trunc",
    "repeat",
    "indent",
    "nindent",
    "replace",
    "split",
    "splitList",
    "join",
    "sortAlpha",
    "uniq",
    "regexFindAll",
    "regexReplaceAll",
    "b64enc",
    "sha256sum",
    "semver",
    "semverCompare \">=1\"",
    "typeOf",
    "kindOf",
    "deepCopy",
    "required \"r\"",
    "fail",
    "toStrings",
    "compact",
    "concat",
    "dig \"a\" 1",
    "now",
    "date \"2006\"",
    "genCA \"ca\" 1",
    "ternary",
    "coalesce",
    "empty",
    "lookup",
    "env",
    "{{/* c */}}",
    "é",
    "\u{0}",
    "{{ end }}",
    "{{ else }}",
];

/// Pieces of YAML for values files and Chart.yaml.
const YAML_PIECES: &[&str] = &[
    "a: ",
    "l:",
    "m:",
    "  k: ",
    "- ",
    "1",
    "-1",
    "2.5",
    ".inf",
    "yes",
    "~",
    "null",
    "\"q\"",
    "'s'",
    "&x ",
    "*x",
    "<<: *x",
    "{",
    "}",
    "[",
    "]",
    ",",
    ": ",
    "\n",
    "  ",
    "---\n",
    "#c",
    "|\n  t",
    ">-\n  t",
    "!!str ",
    "? ",
    "name: c",
    "version: 0.1.0",
    "apiVersion: v2",
    "dependencies:",
    "é",
    "\t",
];

/// Functions with the number of arguments a call gets (the piped value aside).
const FUNCTIONS: &[(&str, usize)] = &[
    ("toYaml", 1),
    ("toJson", 1),
    ("fromYaml", 1),
    ("fromJson", 1),
    ("printf \"%v-%d\"", 2),
    ("print", 2),
    ("len", 1),
    ("index", 2),
    ("slice", 2),
    ("eq", 2),
    ("lt", 2),
    ("and", 2),
    ("or", 2),
    ("not", 1),
    ("default", 2),
    ("dict", 2),
    ("list", 2),
    ("set", 3),
    ("get", 2),
    ("merge", 2),
    ("append", 2),
    ("first", 1),
    ("rest", 1),
    ("keys", 1),
    ("until", 1),
    ("seq", 1),
    ("add", 2),
    ("sub", 2),
    ("mul", 2),
    ("div", 2),
    ("max", 2),
    ("int", 1),
    ("int64", 1),
    ("float64", 1),
    ("toString", 1),
    ("quote", 1),
    ("upper", 1),
    ("trunc", 2),
    ("repeat", 2),
    ("nindent", 2),
    ("replace", 3),
    ("splitList", 2),
    ("join", 2),
    ("sortAlpha", 1),
    ("uniq", 1),
    ("regexFindAll", 3),
    ("b64enc", 1),
    ("sha256sum", 1),
    ("semverCompare", 2),
    ("typeOf", 1),
    ("kindOf", 1),
    ("deepCopy", 1),
    ("toStrings", 1),
    ("compact", 1),
    ("concat", 2),
    ("dig", 3),
    ("ternary", 3),
    ("coalesce", 2),
    ("empty", 1),
    ("include", 2),
    ("tpl", 2),
    ("required", 2),
    ("pluck", 2),
    ("omit", 2),
    ("without", 2),
    ("has", 2),
    ("mustRegexMatch", 2),
    ("htmlDate", 1),
    ("durationRound", 1),
    ("toToml", 1),
];

/// Operands: data, variables and constants.
const OPERANDS: &[&str] = &[
    ".",
    "$",
    ".Values",
    ".Values.a",
    ".Values.a.b",
    ".Values.user",
    ".Values.missing",
    ".Release.Name",
    ".Chart",
    ".Capabilities",
    ".Capabilities.KubeVersion",
    ".Files",
    "$x",
    "$v",
    "$i",
    "\"s\"",
    "\"a: 1\"",
    "\"{{ .Values.a }}\"",
    "\"t\"",
    "`r`",
    "'c'",
    "1",
    "0",
    "-3",
    "2.5",
    "1e6",
    "nil",
    "true",
    "false",
    "(list 1 \"x\" nil)",
    "(dict \"k\" 1)",
    "(.Capabilities.APIVersions.Has \"v1\")",
    "(.Files.Get \"files/x.txt\")",
];

/// A pipeline: commands joined by `|`, arguments nested to a small depth.
fn pipeline() -> BoxedStrategy<String> {
    let operand = proptest::sample::select(OPERANDS).prop_map(str::to_string);
    operand
        .prop_recursive(3, 24, 3, |inner| {
            let call = (
                proptest::sample::select(FUNCTIONS),
                proptest::collection::vec(inner.clone(), 0..3),
            )
                .prop_map(|((name, arity), args)| {
                    let mut call = name.to_string();
                    for arg in args.iter().take(arity) {
                        call.push(' ');
                        call.push_str(arg);
                    }
                    call
                });
            prop_oneof![
                inner.clone().prop_map(|p| format!("({p})")),
                call.clone().prop_map(|c| format!("({c})")),
                (inner, call).prop_map(|(a, c)| format!("({a} | {c})")),
            ]
        })
        .boxed()
}

/// Balanced template text: actions, conditionals, loops, definitions and text.
fn balanced() -> BoxedStrategy<String> {
    let text =
        proptest::sample::select(&["x", "\n", "- k: ", " ", "é"][..]).prop_map(str::to_string);
    let action = (pipeline(), any::<bool>(), any::<bool>()).prop_map(|(p, l, r)| {
        format!(
            "{{{{{} {p} {}}}}}",
            if l { "-" } else { "" },
            if r { "-" } else { "" }
        )
    });
    let assign = pipeline().prop_map(|p| format!("{{{{ $x := {p} }}}}{{{{ $x = $x }}}}"));
    prop_oneof![text, action, assign]
        .prop_recursive(3, 32, 4, |inner| {
            let body = proptest::collection::vec(inner, 0..4).prop_map(|p| p.concat());
            prop_oneof![
                (pipeline(), body.clone(), body.clone())
                    .prop_map(|(p, a, b)| format!("{{{{ if {p} }}}}{a}{{{{ else }}}}{b}{{{{ end }}}}")),
                (pipeline(), body.clone()).prop_map(|(p, a)| format!(
                    "{{{{ range $i, $v := {p} }}}}{a}{{{{ if $i }}}}{{{{ break }}}}{{{{ end }}}}{{{{ end }}}}"
                )),
                (pipeline(), body.clone())
                    .prop_map(|(p, a)| format!("{{{{ with {p} }}}}{a}{{{{ end }}}}")),
                body.clone().prop_map(|a| format!("{{{{ define \"t\" }}}}{a}{{{{ end }}}}")),
                body,
            ]
        })
        .boxed()
}

/// A template source: mostly well-formed, sometimes loose pieces or raw text.
pub fn template() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => balanced(),
        3 => proptest::collection::vec(proptest::sample::select(TEMPLATE_PIECES), 0..60)
            .prop_map(|p| p.concat()),
        1 => ".{0,200}",
    ]
}

/// A YAML text built from YAML pieces.
pub fn yaml() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(YAML_PIECES), 0..40).prop_map(|p| p.concat())
}

/// A chart: Chart.yaml (mostly valid), values.yaml, two templates and a helper.
pub fn chart_files() -> impl Strategy<Value = Vec<ChartFile>> {
    let chart_yaml = prop_oneof![
        8 => Just("apiVersion: v2\nname: c\nversion: 0.1.0\n".to_string()),
        1 => yaml().prop_map(|y| format!("apiVersion: v2\nname: c\nversion: 0.1.0\n{y}")),
    ];
    let values = prop_oneof![
        8 => Just("a: 1\nl: [1, \"x\", null]\nm: {k: v}\n".to_string()),
        2 => yaml(),
        1 => proptest::collection::vec(any::<u8>(), 0..64)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ];
    (chart_yaml, values, template(), template(), template()).prop_map(|(c, v, t1, t2, h)| {
        let file = |name: &str, text: String| ChartFile {
            name: name.to_string(),
            data: text.into_bytes(),
        };
        vec![
            file("Chart.yaml", c),
            file("values.yaml", v),
            file("templates/a.yaml", t1),
            file("templates/b.yaml", t2),
            file("templates/_helpers.tpl", h),
            file("files/x.txt", "x\n".to_string()),
        ]
    })
}

/// How far a case got.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Outcome {
    LoadError,
    RenderError,
    Rendered,
}

/// What one case did and took, or `None` if it panicked or had not finished within
/// `limit`.
pub fn load_and_render(files: Vec<ChartFile>, limit: Duration) -> Option<(Outcome, Duration)> {
    let (tx, rx) = mpsc::channel();
    // A thread of its own: a panic is caught by the join, a hang by the timeout.
    std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            let start = Instant::now();
            let outcome = match Chart::from_files(std::path::Path::new("fuzz"), files) {
                Err(_) => Outcome::LoadError,
                Ok(chart) => {
                    let values = serde_json::json!({"a": {"b": 2}, "user": [1, 2]});
                    match render(&chart, &values, &RenderOptions::default()) {
                        Ok(_) => Outcome::Rendered,
                        Err(_) => Outcome::RenderError,
                    }
                }
            };
            let _ = tx.send((outcome, start.elapsed()));
        })
        .ok()?;
    rx.recv_timeout(limit).ok()
}

/// Peak resident memory of this process in MiB (Linux), if known.
pub fn peak_rss_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}
