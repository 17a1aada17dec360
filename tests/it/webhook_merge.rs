//! `create webhook` adding a kind of webhook to a kind that has another (issue 13): the new
//! webhook goes in at the scaffold markers of src/webhook/<kind>.rs, without --force, and
//! the rest of the file stays as the user left it; a kind of webhook the kind already has
//! is not scaffolded again.
use crate::support::{assert_refused, read_tree, rusty, transcript};
use crate::webhook::{create_webhook, project, text};

const V1: &str = "--group cache --version v1 --kind Memcached";
const FILE: &str = "src/webhook/memcached.rs";

/// A fresh project in the directory `name` of `dir`.
fn project_in(dir: &std::path::Path, name: &str) -> std::path::PathBuf {
    let dir = dir.join(name);
    std::fs::create_dir(&dir).unwrap();
    project(&dir, "rust")
}

/// The defaulting webhook, then the validating one, is what both at once scaffold: the file,
/// the manifests and PROJECT's record.
#[test]
fn one_webhook_then_the_other_equals_both_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let both = project_in(dir.path(), "both");
    let apart = project_in(dir.path(), "apart");
    create_webhook(
        &both,
        &format!("{V1} --defaulting --programmatic-validation"),
    );
    create_webhook(&apart, &format!("{V1} --defaulting"));
    let output = create_webhook(&apart, &format!("{V1} --programmatic-validation"));
    assert!(!output.contains("force"), "{output}");
    assert!(read_tree(&both) == read_tree(&apart), "{output}");

    // Asking again for what the kind has adds nothing, says so in one line, and succeeds.
    let before = read_tree(&apart);
    let output = create_webhook(
        &apart,
        &format!("{V1} --programmatic-validation --defaulting"),
    );
    assert!(
        output.contains(
            "Memcached (cache/v1) already has its defaulting and validating webhook: nothing to add"
        ),
        "{output}"
    );
    assert!(read_tree(&apart) == before, "{output}");
}

/// The user's edits, in a CRLF file, stay byte for byte; only the new webhook's lines go in,
/// with the file's line ending. Conversion afterwards leaves the file alone.
#[test]
fn adding_a_webhook_keeps_the_users_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path(), "rust");
    create_webhook(&root, &format!("{V1} --defaulting"));
    let edited = text(&root, FILE)
        .replace(
            "    let mut defaulted = object.clone();\n",
            "    let mut defaulted = object.clone();\n    defaulted.spec.foo.get_or_insert_with(|| \"bar\".into());\n",
        )
        .replace('\n', "\r\n");
    std::fs::write(root.join(FILE), &edited).unwrap();

    create_webhook(&root, &format!("{V1} --programmatic-validation"));
    let after = text(&root, FILE);
    assert_eq!(after.matches('\n').count(), after.matches("\r\n").count());
    assert!(after.contains("fn validate_create(object: &Memcached) -> Verdict {\r\n"));
    // Removing the lines that came in gives back the user's file.
    let fresh = project_in(dir.path(), "fresh");
    create_webhook(&fresh, &format!("{V1} --programmatic-validation"));
    let validation: Vec<String> = text(&fresh, FILE).lines().map(String::from).collect();
    let mut rest = String::new();
    let template: Vec<&str> = edited.split_inclusive("\r\n").collect();
    let mut next = 0;
    for line in after.split_inclusive("\r\n") {
        if next < template.len() && line == template[next] {
            rest.push_str(line);
            next += 1;
        } else {
            let bare = line.trim_end_matches("\r\n");
            assert!(
                bare.is_empty() || validation.iter().any(|v| v == bare),
                "a line that is neither the user's nor the validating webhook's: {bare:?}"
            );
        }
    }
    assert_eq!(rest, edited);
    let project_file = text(&root, "PROJECT");
    assert!(
        project_file.contains("    defaulting: true\n    validation: true\n"),
        "{project_file}"
    );

    // Conversion next: no --force, and the admission file is not touched.
    create_webhook(&root, &format!("{V1} --conversion --spoke v2"));
    assert_eq!(text(&root, FILE), after);
    let project_file = text(&root, "PROJECT");
    assert!(
        project_file.contains(
            "    conversion: true\n    defaulting: true\n    spoke:\n    - v2\n    validation: true\n"
        ),
        "{project_file}"
    );
    // Conversion again, after the user mapped the fields: nothing to do, nothing overwritten.
    let spoke = "api/src/cache/v2/memcached_conversion.rs";
    let mapped = format!("{}// mapped\n", text(&root, spoke));
    std::fs::write(root.join(spoke), &mapped).unwrap();
    let before = read_tree(&root);
    let output = create_webhook(&root, &format!("{V1} --conversion --spoke v2"));
    assert!(
        output.contains("already has its conversion webhook: nothing to add"),
        "{output}"
    );
    assert!(read_tree(&root) == before, "{output}");
}

/// A webhook file without the markers (scaffolded before them, or edited away) cannot take
/// another webhook: one line says which marker and what to do; --force scaffolds it again.
#[test]
fn a_file_without_the_markers_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = project(dir.path(), "rust");
    create_webhook(&root, &format!("{V1} --defaulting"));
    let bare = text(&root, FILE).replace("    // +rusty:scaffold:webhook-tests\n", "");
    std::fs::write(root.join(FILE), bare).unwrap();
    let before = read_tree(&root);
    let output = rusty(&root)
        .args(["create", "webhook"])
        .args(V1.split_whitespace())
        .arg("--programmatic-validation")
        .output()
        .unwrap();
    assert_refused(
        &output,
        &root,
        "src/webhook/memcached.rs: no `// +rusty:scaffold:webhook-tests` line to add the webhook at",
        &before,
    );
    let output = rusty(&root)
        .args(["create", "webhook"])
        .args(V1.split_whitespace())
        .args(["--programmatic-validation", "--force"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", transcript(&output, &root));
    let forced = text(&root, FILE);
    assert!(
        forced.contains("fn mutate(") && forced.contains("fn validate("),
        "{forced}"
    );
}

/// A spoke added later goes in at the conversion webhook's markers, without --force: a
/// user's line stays where it was, the rest equals both spokes at once, PROJECT lists both,
/// and asking again adds nothing.
#[test]
fn a_spoke_added_later_equals_both_at_once_and_keeps_the_users_edits() {
    let dir = tempfile::tempdir().unwrap();
    let v3 = "create api --plugins rust --group cache --version v3 --kind Memcached --resource --controller=false";
    let both = project_in(dir.path(), "both");
    let apart = project_in(dir.path(), "apart");
    for root in [&both, &apart] {
        crate::support::scaffold(root.parent().unwrap(), root, &[v3]);
    }
    create_webhook(&both, &format!("{V1} --conversion --spoke v2 --spoke v3"));
    create_webhook(&apart, &format!("{V1} --conversion --spoke v2"));
    let webhook = "src/webhook/memcached_conversion.rs";
    let mine = "// the user's note\n";
    let edited = text(&apart, webhook).replacen("use ", &format!("{mine}use "), 1);
    std::fs::write(apart.join(webhook), &edited).unwrap();

    let output = create_webhook(&apart, &format!("{V1} --conversion --spoke v3"));
    assert!(!output.contains("force"), "{output}");
    let after = text(&apart, webhook);
    assert!(after.starts_with(&edited[..edited.find(mine).unwrap() + mine.len()]));
    std::fs::write(apart.join(webhook), after.replacen(mine, "", 1)).unwrap();
    assert!(read_tree(&both) == read_tree(&apart), "{output}");
    let project_file = text(&apart, "PROJECT");
    assert!(
        project_file.contains("    conversion: true\n    spoke:\n    - v2\n    - v3\n"),
        "{project_file}"
    );

    let before = read_tree(&apart);
    let output = create_webhook(&apart, &format!("{V1} --conversion --spoke v3 --spoke v2"));
    assert!(
        output.contains("already has its conversion webhook: nothing to add"),
        "{output}"
    );
    assert!(read_tree(&apart) == before, "{output}");
}
