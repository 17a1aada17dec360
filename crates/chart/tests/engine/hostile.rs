//! Hostile templates: each either renders or fails with a template error that names
//! the limit it hit, in bounded time and memory. None may panic, abort or overflow the
//! stack (a test thread has only 2 MiB of it).
use std::path::Path;

use rusty_sdk_chart::{Chart, RenderOptions, render};

fn render_template(dir: &Path, source: &str) -> Result<String, String> {
    std::fs::create_dir_all(dir.join("templates")).unwrap();
    std::fs::write(
        dir.join("Chart.yaml"),
        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(dir.join("templates/t.yaml"), source).unwrap();
    let chart = Chart::load(dir).map_err(|e| e.to_string())?;
    render(&chart, &serde_json::json!({}), &RenderOptions::default())
        .map(|out| out["c/templates/t.yaml"].clone())
        .map_err(|e| e.to_string())
}

fn fails_with(source: &str, wanted: &str) {
    let dir = tempfile::tempdir().unwrap();
    match render_template(dir.path(), source) {
        Ok(out) => panic!(
            "rendered {} bytes; expected an error with {wanted:?}",
            out.len()
        ),
        Err(e) => assert!(e.contains(wanted), "error {e:?} does not say {wanted:?}"),
    }
}

fn renders(source: &str, wanted: &str) {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(render_template(dir.path(), source).as_deref(), Ok(wanted));
}

#[test]
fn nesting_past_the_parser_bound_is_a_parse_error() {
    let parens = format!("{{{{ {}1{} }}}}", "(".repeat(50_000), ")".repeat(50_000));
    fails_with(&parens, "template nests deeper than 10000 levels");
    let ifs = format!(
        "{}x{}",
        "{{ if true }}".repeat(50_000),
        "{{ end }}".repeat(50_000)
    );
    fails_with(&ifs, "template nests deeper than 10000 levels");
}

#[test]
fn deep_but_bounded_nesting_renders() {
    renders(
        &format!("{{{{ {}1{} }}}}", "(".repeat(5_000), ")".repeat(5_000)),
        "1",
    );
    renders(
        &format!(
            "{}x{}",
            "{{ if true }}".repeat(5_000),
            "{{ end }}".repeat(5_000)
        ),
        "x",
    );
}

#[test]
fn runaway_recursion_stops_with_go_and_helm_messages() {
    fails_with(
        r#"{{ define "r" }}{{ template "r" . }}{{ end }}{{ template "r" . }}"#,
        "exceeded maximum template depth (100000)",
    );
    fails_with(
        r#"{{ define "r" }}{{ include "r" . }}{{ end }}{{ include "r" . }}"#,
        "rendering template has a nested reference name: r: unable to execute template",
    );
    fails_with(
        r#"{{ $t := "{{ tpl $.t . }}" }}{{ tpl $t (dict "t" $t) }}"#,
        "nested reference name: tpl",
    );
}

#[test]
fn endless_loops_and_growth_are_bounded() {
    fails_with(
        "{{ range 1000000000 }}{{ end }}",
        "range runs more than 10000000 iterations",
    );
    fails_with(
        r#"{{ $s := "xxxxxxxxxx" }}{{ range 40 }}{{ $s = print $s $s }}{{ end }}"#,
        "result of print is longer than 64 MiB",
    );
    fails_with(
        "{{ $l := list 1 }}{{ range 40 }}{{ $l = concat $l $l }}{{ end }}",
        "1048576",
    );
    fails_with(
        r#"{{ $x := dict }}{{ range 200000 }}{{ $x = dict "a" $x }}{{ end }}"#,
        "result of dict nests more than 1000 levels deep",
    );
    fails_with(
        "{{ $x := list }}{{ range 200000 }}{{ $x = list $x }}{{ end }}",
        "result of list nests more than 1000 levels deep",
    );
}

#[test]
fn a_map_that_holds_itself_serializes_to_nothing_as_in_helm() {
    // Go's encoding/json reports the cycle; Helm's toYaml and toJson print nothing.
    renders(
        r#"{{ $m := dict }}{{ $_ := set $m "m" $m }}[{{ toYaml $m }}][{{ toJson $m }}]"#,
        "[][]",
    );
}
