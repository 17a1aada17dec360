//! Idempotent insertion above scaffold markers such as `// +rusty:scaffold:controllers` or
//! `# +rusty:scaffold:watch`.
//!
//! A fragment counts as present when its trimmed lines appear, in order and consecutively,
//! in the block between the previous marker (or the start of the file) and this marker.
//! Limiting the search to that block avoids false matches elsewhere in the file.

/// What an edit did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditOutcome {
    Applied,
    AlreadyPresent,
}

/// The marker line was not found.
#[derive(Debug, PartialEq, Eq)]
pub struct MarkerNotFound;

const PREFIX: &str = "+rusty:scaffold:";

/// The marker line as it should appear in a file of this type.
#[expect(
    clippy::case_sensitive_file_extension_comparisons,
    reason = "cargo builds only `.rs` files"
)]
pub fn marker_text(path: &str, name: &str) -> String {
    let comment = if path.ends_with(".rs") { "//" } else { "#" };
    format!("{comment} {PREFIX}{name}")
}

/// If `line` is a scaffold marker, its name. Whitespace and the comment token do not matter,
/// so `#+rusty:scaffold:x` and `# +rusty:scaffold:x` both match.
pub fn marker_name(line: &str) -> Option<&str> {
    let trimmed = line.trim();
    let body = trimmed
        .strip_prefix("//")
        .or_else(|| trimmed.strip_prefix('#'))?
        .trim_start();
    body.strip_prefix(PREFIX).map(str::trim)
}

/// Whether `text` has the marker `name` on a line of its own.
pub fn has_marker(text: &str, name: &str) -> bool {
    text.lines().any(|line| marker_name(line) == Some(name))
}

/// The indentation (in spaces) of the marker `name` in `text`, which code inserted at the
/// marker takes; 4 when absent (the insertion then fails on the missing marker anyway).
pub fn marker_indent(text: &str, name: &str) -> usize {
    text.lines()
        .find(|line| marker_name(line) == Some(name))
        .map_or(4, |line| line.len() - line.trim_start().len())
}

/// Insert `fragment` (lines written without indentation) above the marker `name`, indented
/// like the marker. Returns the new text, or the old text with `AlreadyPresent`.
pub fn insert(
    text: &str,
    name: &str,
    fragment: &str,
) -> Result<(EditOutcome, String), MarkerNotFound> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let marker_at = lines
        .iter()
        .position(|l| marker_name(l) == Some(name))
        .ok_or(MarkerNotFound)?;
    let block_start = lines[..marker_at]
        .iter()
        .rposition(|l| marker_name(l).is_some())
        .map_or(0, |i| i + 1);

    let wanted: Vec<&str> = fragment.lines().map(str::trim).collect();
    let block: Vec<&str> = lines[block_start..marker_at]
        .iter()
        .map(|l| l.trim())
        .collect();
    if contains_window(&block, &wanted) {
        return Ok((EditOutcome::AlreadyPresent, text.to_string()));
    }

    let marker_line = lines[marker_at];
    let indent = &marker_line[..marker_line.len() - marker_line.trim_start().len()];
    // The file's own line ending: a CRLF file stays CRLF.
    let newline = if marker_line.ends_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let at = sorted_position(&lines[block_start..marker_at], &wanted)
        .map_or(marker_at, |i| block_start + i);
    let mut out = String::with_capacity(text.len() + fragment.len() + 16);
    lines[..at].iter().for_each(|l| out.push_str(l));
    for line in fragment.lines() {
        if !line.trim().is_empty() {
            out.push_str(indent);
            out.push_str(line);
        }
        out.push_str(newline);
    }
    lines[at..].iter().for_each(|l| out.push_str(l));
    Ok((EditOutcome::Applied, out))
}

/// Where a one-line `mod x;` fragment goes among the `mod` lines right above the marker:
/// at its sorted place, as rustfmt orders a run of module declarations (byte order), so
/// the file needs no formatting after the insertion. `None` for any other fragment (it goes above the
/// marker).
fn sorted_position(block: &[&str], wanted: &[&str]) -> Option<usize> {
    let [line] = wanted else { return None };
    let name = mod_name(line)?;
    let run_start = block
        .iter()
        .rposition(|l| mod_name(l.trim()).is_none())
        .map_or(0, |i| i + 1);
    let run = &block[run_start..];
    let offset = run
        .iter()
        .position(|l| mod_name(l.trim()).is_some_and(|other| name < other))
        .unwrap_or(run.len());
    Some(run_start + offset)
}

/// `x` of `mod x;` or `pub mod x;`.
fn mod_name(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("pub ")
        .unwrap_or(line)
        .strip_prefix("mod ")?;
    rest.strip_suffix(';')
        .filter(|name| !name.contains(char::is_whitespace))
}

fn contains_window(haystack: &[&str], needle: &[&str]) -> bool {
    needle.is_empty()
        || haystack.len() >= needle.len() && haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAIN: &str = "fn main() {\n    run();\n    // +rusty:scaffold:controllers\n}\n";

    #[test]
    fn inserts_above_marker_with_its_indentation() {
        let (outcome, text) = insert(MAIN, "controllers", "add(\"a\");\n").unwrap();
        assert_eq!(outcome, EditOutcome::Applied);
        assert_eq!(
            text,
            "fn main() {\n    run();\n    add(\"a\");\n    // +rusty:scaffold:controllers\n}\n"
        );
    }

    #[test]
    fn applying_twice_equals_applying_once() {
        let (_, once) = insert(MAIN, "controllers", "add(\"a\");\nadd(\"b\");\n").unwrap();
        let (outcome, twice) = insert(&once, "controllers", "add(\"a\");\nadd(\"b\");\n").unwrap();
        assert_eq!(outcome, EditOutcome::AlreadyPresent);
        assert_eq!(once, twice);
    }

    #[test]
    fn presence_check_ignores_whitespace_but_not_order() {
        let text = "x:\n  - b\n  - a\n# +rusty:scaffold:list\n";
        let (outcome, _) = insert(text, "list", "- a\n").unwrap();
        assert_eq!(outcome, EditOutcome::AlreadyPresent);
        let (outcome, _) = insert(text, "list", "- a\n- b\n").unwrap();
        assert_eq!(outcome, EditOutcome::Applied);
    }

    #[test]
    fn presence_is_checked_only_above_this_marker() {
        let text = "# +rusty:scaffold:one\n- a\n# +rusty:scaffold:two\n";
        let (outcome, _) = insert(text, "one", "- a\n").unwrap();
        assert_eq!(outcome, EditOutcome::Applied);
        let (outcome, _) = insert(text, "two", "- a\n").unwrap();
        assert_eq!(outcome, EditOutcome::AlreadyPresent);
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let text = "fn main() {\r\n    run();\r\n    // +rusty:scaffold:controllers\r\n}\r\n";
        let (_, out) = insert(text, "controllers", "add(\"a\");\n").unwrap();
        assert_eq!(
            out,
            "fn main() {\r\n    run();\r\n    add(\"a\");\r\n    // +rusty:scaffold:controllers\r\n}\r\n"
        );
    }

    #[test]
    fn a_mod_line_goes_where_rustfmt_sorts_it() {
        let text = "//! doc\n\npub mod apps;\npub mod cache;\npub mod v2;\n// +rusty:scaffold:m\n";
        let put = |name: &str| insert(text, "m", &format!("pub mod {name};\n")).unwrap().1;
        assert!(put("batch").contains("pub mod apps;\npub mod batch;\npub mod cache;"));
        assert!(put("aaa").starts_with("//! doc\n\npub mod aaa;\npub mod apps;"));
        assert!(put("v10").contains("pub mod cache;\npub mod v10;\npub mod v2;"));
        assert!(put("v1").contains("pub mod cache;\npub mod v1;\npub mod v2;"));
        assert!(put("web").contains("pub mod v2;\npub mod web;\n// +rusty"));
        // Other fragments still go right above the marker.
        let (_, out) = insert(text, "m", "pub use x::Y;\n").unwrap();
        assert!(out.ends_with("pub mod v2;\npub use x::Y;\n// +rusty:scaffold:m\n"));
    }

    #[test]
    fn marker_spelling_without_space_matches() {
        let (outcome, text) = insert("#+rusty:scaffold:watch\n", "watch", "- kind: A\n").unwrap();
        assert_eq!(outcome, EditOutcome::Applied);
        assert_eq!(text, "- kind: A\n#+rusty:scaffold:watch\n");
    }

    #[test]
    fn missing_marker_is_reported() {
        assert_eq!(insert("nothing\n", "watch", "x\n"), Err(MarkerNotFound));
        assert_eq!(
            marker_text("src/main.rs", "controllers"),
            "// +rusty:scaffold:controllers"
        );
        assert_eq!(
            marker_text("watches.yaml", "watch"),
            "# +rusty:scaffold:watch"
        );
    }
}
