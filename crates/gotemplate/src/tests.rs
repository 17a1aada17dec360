//! Engine behaviour checked against Go's: each expectation is what Go 1.2x's
//! text/template prints for the same template and data.
use super::*;

fn data() -> Value {
    let mut inner = MapEntries::new();
    inner.insert("name".into(), Value::from("web"));
    inner.insert("port".into(), Value::Float(8080.0));
    inner.insert("none".into(), Value::Nil);
    let mut top = MapEntries::new();
    top.insert("Values".into(), Value::from(inner));
    top.insert(
        "list".into(),
        Value::from(vec![Value::from("a"), Value::from("b")]),
    );
    Value::from(top)
}

fn render(src: &str) -> std::result::Result<String, String> {
    let mut t = Templates::new("gotpl");
    t.missing_key(MissingKey::Zero);
    t.parse("t", src).map_err(|e| e.to_string())?;
    t.execute("t", &data()).map_err(|e| e.to_string())
}

fn ok(src: &str, want: &str) {
    assert_eq!(render(src).as_deref(), Ok(want), "template {src:?}");
}

fn err(src: &str, want: &str) {
    assert_eq!(render(src), Err(want.to_string()), "template {src:?}");
}

#[test]
fn text_trim_and_comments() {
    ok("a  {{- 1 -}}  b", "a1b");
    ok("a {{/* c */}} b", "a  b");
    ok("a {{- /* c */ -}} b", "ab");
    ok("a {{- /* c */}} b", "a b");
    ok("x{{-3}}", "x-3");
}

#[test]
fn fields_and_missing_values() {
    ok("{{ .Values.name }}", "web");
    ok("{{ .Values.missing }}", "<no value>");
    err(
        "{{ .Values.missing.x }}",
        "template: t:1:10: executing \"t\" at <.Values.missing.x>: nil pointer evaluating interface {}.x",
    );
    ok("{{ $x := .Values.missing }}{{ $x.y }}", "<no value>");
    err(
        "{{ .Values.name.x }}",
        "template: t:1:10: executing \"t\" at <.Values.name.x>: can't evaluate field x in type interface {}",
    );
}

#[test]
fn control_structures() {
    ok("{{ if .Values.name }}y{{ else }}n{{ end }}", "y");
    ok("{{ if .Values.none }}y{{ else if .list }}l{{ end }}", "l");
    ok(
        "{{ with .Values.missing }}y{{ else with .list }}{{ len . }}{{ end }}",
        "2",
    );
    ok(
        "{{ range $i, $v := .list }}{{ $i }}={{ $v }};{{ end }}",
        "0=a;1=b;",
    );
    ok(
        "{{ range .Values }}{{ . }},{{ end }}",
        "web,<no value>,8080,",
    );
    ok("{{ range 3 }}{{ . }}{{ end }}", "012");
    ok(
        "{{ range .list }}{{ if eq . \"b\" }}{{ break }}{{ end }}{{ . }}{{ end }}",
        "a",
    );
    ok(
        "{{ range .list }}{{ if eq . \"a\" }}{{ continue }}{{ end }}{{ . }}{{ end }}",
        "b",
    );
    ok("{{ range .nothing }}x{{ else }}empty{{ end }}", "empty");
    ok(
        "{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ end }}{{ $x }}",
        "2",
    );
}

#[test]
fn templates_and_blocks() {
    ok(
        "{{ define \"a\" }}A{{ . }}{{ end }}{{ template \"a\" 1 }}",
        "A1",
    );
    ok("{{ block \"b\" . }}B{{ end }}", "B");
    err(
        "{{ template \"zz\" }}",
        "template: t:1:12: executing \"t\" at <{{template \"zz\"}}>: template \"zz\" not defined",
    );
}

#[test]
fn parse_errors_as_go() {
    err("{{ .x ", "template: t:1: unclosed action");
    err("{{ end }}", "template: t:1: unexpected {{end}}");
    err("{{ foo }}", "template: t:1: function \"foo\" not defined");
    err("{{ $x }}", "template: t:1: undefined variable \"$x\"");
    err("{{ if }}{{ end }}", "template: t:1: missing value for if");
    err(
        "{{ 1 | 2 }}",
        "template: t:1: non executable command in pipeline stage 2",
    );
    err("{{ break }}", "template: t:1: {{break}} outside {{range}}");
    err("{{ 0x }}", "template: t:1: illegal number syntax: \"0x\"");
    err("{{ 0xg }}", "template: t:1: bad number syntax: \"0xg\"");
    ok("{{ .Values.name | }}", "web");
}

#[test]
fn numbers_as_go() {
    ok(
        "{{ 0x1F }} {{ 0o17 }} {{ 017 }} {{ 0b101 }} {{ 1_000 }}",
        "31 15 15 5 1000",
    );
    ok("{{ 'a' }} {{ '\\n' }}", "97 10");
    ok("{{ 1e3 }} {{ .5 }}", "1000 0.5");
}

#[test]
fn comparisons_and_logic() {
    ok(
        "{{ and 1 0 2 }} {{ or 0 \"\" \"x\" }} {{ not 0 }}",
        "0 x true",
    );
    ok(
        "{{ eq 1 2 1 }} {{ ne \"a\" \"b\" }} {{ lt 1 2 }} {{ ge 2 2 }}",
        "true true true true",
    );
    err(
        "{{ eq 1 \"a\" }}",
        "template: t:1:3: executing \"t\" at <eq 1 \"a\">: error calling eq: incompatible types for comparison: int and string",
    );
    ok("{{ and 0 .x.y.z }}", "0");
}

#[test]
fn maps_are_shared() {
    let mut t = Templates::new("gotpl");
    let mut funcs = FuncMap::new();
    funcs.insert(
        "set".into(),
        Arc::new(|a: &[Value]| {
            if let (Value::Map(m), Value::String(k)) = (&a[0], &a[1]) {
                m.insert(k.clone(), a[2].clone());
            }
            Ok(a[0].clone())
        }),
    );
    t.funcs(&funcs);
    t.parse("t", "{{ $_ := set .Values \"name\" \"api\" }}")
        .unwrap();
    t.parse("u", "{{ .Values.name }}").unwrap();
    let d = data();
    t.execute("t", &d).unwrap();
    assert_eq!(t.execute("u", &d).unwrap(), "api");
}
