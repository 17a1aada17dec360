//! Every rule against rustfmt itself, at every name length a user can give (kinds up to
//! 63 characters, paths and strings longer still), at the indentations the templates use.
use std::fmt::Write as _;

use super::*;

/// What rustfmt makes of `text`; `None` when rustfmt is not installed.
fn rustfmt(text: &str) -> Option<String> {
    use std::io::Write;
    let mut child = std::process::Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout", "--quiet"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(text.as_bytes()).ok()?;
    let output = child.wait_with_output().ok()?;
    assert!(output.status.success(), "rustfmt failed on:\n{text}");
    Some(String::from_utf8(output.stdout).unwrap())
}

/// `body` (already indented for `depth` blocks) inside `depth` nested blocks of a function.
fn nested(depth: usize, body: &str) -> String {
    let mut text = String::from("fn f() {\n");
    for level in 1..depth {
        let _ = writeln!(text, "{}{{", pad(level * 4));
    }
    text.push_str(body);
    text.push('\n');
    for level in (1..depth).rev() {
        let _ = writeln!(text, "{}}}", pad(level * 4));
    }
    text.push_str("}\n");
    text
}

/// Compare each case with rustfmt's layout of it.
fn check(cases: Vec<String>) {
    if rustfmt("fn main() {}\n").is_none() {
        eprintln!("notice: rustfmt not found, layouts not compared with it");
        return;
    }
    // One rustfmt run for all the cases (items are laid out independently); one run per
    // case only to show the first that differs.
    let all = cases.join("\n");
    if rustfmt(&all).unwrap() == all {
        return;
    }
    for case in cases {
        let formatted = rustfmt(&case).unwrap();
        assert_eq!(formatted, case, "rustfmt lays this out differently");
    }
    panic!("rustfmt lays the cases out differently together than one by one");
}

fn name(n: usize) -> String {
    format!("K{}", "a".repeat(n.saturating_sub(1)))
}

/// Kinds have at most 63 characters; strings and paths (a group and a domain) go further.
const LENGTHS: std::ops::RangeInclusive<usize> = 1..=130;

fn kind(n: usize) -> String {
    name(n.min(63))
}

#[test]
fn let_with_a_call() {
    let mut cases = Vec::new();
    for n in LENGTHS {
        for depth in [1, 2, 3] {
            let indent = depth * 4;
            let rhs = Rhs::Call {
                callee: format!("Api::<{}>::namespaced", kind(n)),
                args: vec!["ctx.client.clone()".into(), "&namespace".into()],
            };
            let stmt = assign(indent, "let api =", &rhs, ";");
            cases.push(nested(depth, &format!("{}{stmt}", pad(indent))));
            let rhs = Rhs::Call {
                callee: "format!".into(),
                args: vec![
                    format!("\"{} {{}} is being deleted\"", name(n)),
                    "obj.name_any()".into(),
                ],
            };
            let stmt = assign(indent, "let note =", &rhs, ";");
            cases.push(nested(depth, &format!("{}{stmt}", pad(indent))));
        }
    }
    check(cases);
}

#[test]
fn let_with_a_struct_or_an_atom() {
    let mut cases = Vec::new();
    for n in LENGTHS {
        for depth in [1, 2] {
            let indent = depth * 4;
            let rhs = Rhs::Struct {
                name: format!("{}Status", kind(n)),
                fields: vec!["nodes".into(), "conditions".into()],
            };
            let stmt = assign(indent, "let status =", &rhs, ";");
            cases.push(nested(depth, &format!("{}{stmt}", pad(indent))));
            let lead = format!("let objects: Api<{}> =", kind(n));
            let rhs = Rhs::Atom("ctx.scope.namespaced_api(client.clone())".into());
            let stmt = assign(indent, &lead, &rhs, ";");
            cases.push(nested(depth, &format!("{}{stmt}", pad(indent))));
        }
        let rhs = Rhs::Atom(format!("\"{}-controller\"", "k".repeat(n)));
        cases.push(format!(
            "{}\n",
            assign(0, "const FIELD_MANAGER: &str =", &rhs, ";")
        ));
        let rhs = Rhs::Atom(format!(
            "\"/apis/{}/v1/namespaces/testns/x/test\"",
            "g".repeat(n)
        ));
        let stmt = assign(4, "const CR_PATH: &str =", &rhs, ";");
        cases.push(format!("mod tests {{\n    {stmt}\n}}\n"));
    }
    check(cases);
}

#[test]
fn struct_fields_with_a_chain() {
    let mut cases = Vec::new();
    for n in LENGTHS {
        for depth in [1, 3, 5] {
            let indent = depth * 4;
            let rhs = Rhs::Chain {
                // Container names are DNS labels: at most 63 characters.
                base: format!("\"{}\"", "k".repeat(n.min(63))),
                calls: vec![".into()".into()],
            };
            let field = field(indent + 4, "name", &rhs, ",");
            let body = format!(
                "{}let _ = S {{\n{}{field}\n{}image: Some(IMAGE.into()),\n{}}};",
                pad(indent),
                pad(indent + 4),
                pad(indent + 4),
                pad(indent)
            );
            cases.push(nested(depth, &body));
        }
    }
    check(cases);
}

#[test]
fn calls_macros_and_tuples() {
    let mut cases = Vec::new();
    for n in LENGTHS {
        let args = vec![
            format!(
                "query.contains(\"fieldManager={}-controller\")",
                "k".repeat(n.min(40))
            ),
            "\"{query}\"".into(),
        ];
        cases.push(nested(
            2,
            &format!("{}{}", pad(8), call(8, "assert!", &args, ";")),
        ));
        let tuple = call(
            12,
            "",
            &[
                "\"app.kubernetes.io/managed-by\".to_string()".into(),
                // Project names have at most 63 characters.
                format!("\"{}\".to_string()", "p".repeat(n.min(63))),
            ],
            ",",
        );
        cases.push(nested(
            2,
            &format!(
                "{}let _ = BTreeMap::from([\n{}(\"app.kubernetes.io/instance\".to_string(), name.to_string()),\n{}{tuple}\n{}]);",
                pad(8),
                pad(12),
                pad(12),
                pad(8)
            ),
        ));
        let args = vec![
            "\"test\"".into(),
            format!("{}Spec {{ size }}", name(n.min(63))),
        ];
        let rhs = Rhs::Call {
            callee: format!("{}::new", name(n.min(63))),
            args,
        };
        cases.push(nested(
            2,
            &format!("{}{}", pad(8), assign(8, "let mut obj =", &rhs, ";")),
        ));
    }
    check(cases);
}

#[test]
fn signatures() {
    let mut cases = Vec::new();
    for n in LENGTHS {
        let kind = kind(n);
        for (head, params, ret) in [
            (
                "pub async fn reconcile",
                vec![format!("obj: Arc<{kind}>"), "ctx: Arc<Context>".into()],
                "Result<Action, Error>",
            ),
            (
                "async fn publish",
                vec![
                    "ctx: &Context".into(),
                    format!("obj: &{kind}"),
                    "type_: EventType".into(),
                    "reason: &str".into(),
                    "note: String".into(),
                ],
                "",
            ),
            (
                "pub fn error_policy",
                vec![
                    format!("obj: Arc<{kind}>"),
                    "error: &Error".into(),
                    "ctx: Arc<Context>".into(),
                ],
                "Action",
            ),
        ] {
            cases.push(
                format!("{} todo!() }}\n", signature(0, head, &params, ret))
                    .replace("{ todo!() }", "{\n    todo!()\n}"),
            );
        }
        let sig = signature(4, "fn custom_resource", &["size: i32".into()], &kind);
        cases.push(format!(
            "mod tests {{\n    {sig}\n        todo!()\n    }}\n}}\n"
        ));
    }
    check(cases);
}

#[test]
fn attributes() {
    let mut cases = Vec::new();
    for n in LENGTHS {
        let message = format!(
            "\"{} {{0}} has no uid yet, so no Deployment can point to it\"",
            name(n)
        );
        let attr = attribute(4, "error", &[message]);
        cases.push(format!(
            "enum Error {{\n    {attr}\n    NoUid(String),\n}}\n"
        ));
        let attr = attribute(
            0,
            "command",
            &[format!("name = \"{}\"", "p".repeat(n)), "version".into()],
        );
        cases.push(format!("{attr}\nstruct Args;\n"));
    }
    check(cases);
}

#[test]
fn use_lists_and_call_statements() {
    let mut texts = Vec::new();
    for n in 1..=130 {
        let long = "a".repeat(n);
        let module = "b".repeat(n.min(127));
        let stmt = call_statement(
            4,
            "manager.add_controller",
            &[
                &format!("\"{long}\""),
                &format!("controller::{module}::run"),
            ],
        );
        let indented: String = stmt.lines().flat_map(|l| ["    ", l, "\n"]).collect();
        texts.push(format!("fn main() {{\n{indented}}}\n"));
        let name = kind(n);
        let spec = format!("{name}Spec");
        let status = format!("{name}Status");
        let path = "m".repeat(n.min(66));
        texts.push(format!(
            "{}\n",
            use_list("pub ", &path, &[&name, &spec, &status])
        ));
        // The controller's import: crate, group module and version before the names.
        let path = format!(
            "{}_api::{}::v1",
            "p".repeat(n.min(63)),
            "g".repeat(n.min(63))
        );
        let kind = kind(n);
        texts.push(format!(
            "{}\n",
            use_list("", &path, &[&kind, &format!("{kind}Status")])
        ));
        // An external type's import: one name, no braces.
        texts.push(format!("{}\n", use_list("", &path, &[&kind])));
        let short = kind.chars().take(n % 7 + 1).collect::<String>();
        texts.push(format!(
            "{}\n",
            use_list("", &path, &[&short, &format!("{short}Status")])
        ));
        // A CRD registered in the api crate's list (at 8 columns in the generated lib.rs).
        let entry = crd_entry(8, &format!("{}::v1::{kind}", "g".repeat(n.min(63))));
        let lines: String = entry.lines().flat_map(|l| ["        ", l, "\n"]).collect();
        texts.push(format!(
            "fn crds() -> Vec<Crd> {{\n    vec![\n{lines}        // +rusty:scaffold:crds\n    ]\n}}\n"
        ));
    }
    check(texts);
}
