//! Rust lines inserted into the user's files, laid out the way rustfmt lays them out, so
//! that inserting them never calls for formatting the user's file (which would rewrite
//! the user's own code) and `cargo fmt --check` keeps passing, whatever the names' length.

/// rustfmt's `max_width`.
const MAX_WIDTH: usize = 100;
/// rustfmt's `fn_call_width`: call arguments wider than this go one per line.
const FN_CALL_WIDTH: usize = 60;

/// `callee(args);` as a statement at `indent` spaces.
pub fn call_statement(indent: usize, callee: &str, args: &[&str]) -> String {
    let joined = args.join(", ");
    let one_line = format!("{callee}({joined});");
    if joined.len() <= FN_CALL_WIDTH && indent + one_line.len() <= MAX_WIDTH {
        return one_line;
    }
    let mut out = format!("{callee}(\n");
    for arg in args {
        out.push_str(&format!("    {arg},\n"));
    }
    out.push_str(");");
    out
}

/// `{visibility}use {path}::{items};` at the start of a line (rustfmt's "Mixed" layout:
/// one line if it fits, else the items filled into lines inside the braces).
pub fn use_list(visibility: &str, path: &str, items: &[&str]) -> String {
    let one_line = format!("{visibility}use {path}::{{{}}};", items.join(", "));
    if one_line.len() <= MAX_WIDTH {
        return one_line;
    }
    let mut out = format!("{visibility}use {path}::{{\n");
    let mut line = String::new();
    for item in items {
        let piece = format!("{item},");
        if !line.is_empty() && 4 + line.len() + 1 + piece.len() > MAX_WIDTH {
            out.push_str(&format!("    {line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&piece);
    }
    out.push_str(&format!("    {line}\n}};"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What rustfmt makes of `text`, or `None` when rustfmt is not installed.
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

    /// Every length from short to the longest names allowed, checked against rustfmt.
    #[test]
    fn layouts_match_rustfmt_at_every_length() {
        let mut texts = Vec::new();
        for n in (1..=130).step_by(3) {
            let name = "a".repeat(n);
            let module = "b".repeat(n.min(127));
            let call = call_statement(
                4,
                "manager.add_controller",
                &[
                    &format!("\"{name}\""),
                    &format!("controller::{module}::run"),
                ],
            );
            let indented: String = call.lines().map(|l| format!("    {l}\n")).collect();
            texts.push(format!("fn main() {{\n{indented}}}\n"));
            let kind = format!("K{}", "a".repeat(n.min(62)));
            let spec = format!("{kind}Spec");
            let status = format!("{kind}Status");
            let path = "m".repeat(n.min(66));
            texts.push(format!(
                "{}\n",
                use_list("pub ", &path, &[&kind, &spec, &status])
            ));
        }
        let Some(_) = rustfmt("fn main() {}\n") else {
            eprintln!("notice: rustfmt not found, layouts not compared with it");
            return;
        };
        for text in texts {
            assert_eq!(rustfmt(&text).unwrap(), text);
        }
    }
}
