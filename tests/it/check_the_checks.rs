//! scripts/check-the-checks.sh breaks named source files on purpose and expects a test to
//! fail. A file that moved or a line that changed makes the script stop at its first break,
//! after the whole suite has run; its dry run finds that in a second, here.
use std::process::Command;

#[test]
fn every_deliberate_break_still_applies_to_the_file_it_names() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/check-the-checks.sh");
    let output = Command::new("bash")
        .args([script, "--dry-run"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.lines().count() >= 9, "{stdout}");
}
