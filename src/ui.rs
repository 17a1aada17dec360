//! What the user sees: cargo-style status lines (a right-aligned verb, then the path),
//! notes, warnings and unified diffs. Colour follows `--color` and `NO_COLOR`.
use std::cell::Cell;
use std::io::{IsTerminal, Write};

use console::Style;
use similar::TextDiff;

use crate::scaffold::{Change, Plan, Status};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

pub struct Shell {
    color: bool,
    quiet: bool,
    verbose: bool,
    /// The first failed write to stdout (a closed pipe, a full disk): later lines are
    /// dropped and the command stops before it writes anything.
    stdout_error: Cell<Option<std::io::ErrorKind>>,
}

impl Shell {
    pub fn new(choice: ColorChoice, quiet: bool, verbose: bool) -> Self {
        let color = match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::stdout().is_terminal()
            }
        };
        Shell {
            color,
            quiet,
            verbose,
            stdout_error: Cell::new(None),
        }
    }

    /// Why stdout could not be written, if it could not.
    pub fn stdout_error(&self) -> Option<std::io::ErrorKind> {
        self.stdout_error.get()
    }

    /// Print one line to stdout, remembering (not panicking on) a failure.
    pub fn line(&self, text: &str) {
        if self.stdout_error.get().is_some() {
            return;
        }
        let mut out = std::io::stdout().lock();
        if let Err(e) = writeln!(out, "{text}").and_then(|()| out.flush()) {
            self.stdout_error.set(Some(e.kind()));
        }
    }

    /// Whether `-q` asked for nothing but errors.
    pub fn is_quiet(&self) -> bool {
        self.quiet
    }

    fn paint(&self, style: Style, text: &str) -> String {
        style.force_styling(self.color).apply_to(text).to_string()
    }

    /// One status line, e.g. `      create  config/rbac/role.yaml`.
    pub fn status(&self, verb: &str, style: Style, message: &str) {
        if self.quiet {
            return;
        }
        let verb = self.paint(style.bold(), &format!("{verb:>12}"));
        self.line(&format!("{verb}  {message}"));
    }

    pub fn note(&self, message: &str) {
        if !self.quiet {
            self.line(message);
        }
    }

    pub fn verbose(&self, message: &str) {
        if self.verbose && !self.quiet {
            self.line(message);
        }
    }

    pub fn warn(&self, message: &str) {
        let label = self.paint(Style::new().yellow().bold(), "warning");
        let _ = writeln!(std::io::stderr(), "{label}: {}", bounded(message));
    }

    pub fn error(&self, message: &str) {
        let label = self.paint(Style::new().red().bold(), "error");
        let _ = writeln!(std::io::stderr(), "{label}: {}", bounded(message));
    }

    /// Print the status of every planned change, and with `diff` a unified diff of each
    /// file that would change.
    pub fn plan(&self, plan: &Plan, diff: bool) {
        for change in &plan.changes {
            let detail = match &change.status {
                Status::Conflict(why) => format!("{} ({why})", change.path),
                _ => change.path.clone(),
            };
            self.status(change.status.verb(), status_style(&change.status), &detail);
            if diff && change.status.writes() {
                self.diff(change);
            }
        }
    }

    fn diff(&self, change: &Change) {
        let old = change
            .before
            .as_deref()
            .map(String::from_utf8_lossy)
            .unwrap_or_default();
        let new = String::from_utf8_lossy(&change.after);
        let text = TextDiff::from_lines(old.as_ref(), new.as_ref());
        let old_name = if change.before.is_some() {
            format!("a/{}", change.path)
        } else {
            "/dev/null".to_string()
        };
        let unified = text
            .unified_diff()
            .header(&old_name, &format!("b/{}", change.path))
            .to_string();
        for line in unified.lines() {
            let style = match line.chars().next() {
                Some('+') if !line.starts_with("+++") => Style::new().green(),
                Some('-') if !line.starts_with("---") => Style::new().red(),
                Some('@') => Style::new().cyan(),
                _ => Style::new(),
            };
            if !self.quiet {
                self.line(&self.paint(style, line));
            }
        }
    }
}

/// A message cut to a readable size: a huge input quoted in it, or a deep template
/// recursion, must not print megabytes. The middle goes, with a count of what went.
pub fn bounded(message: &str) -> std::borrow::Cow<'_, str> {
    const HEAD: usize = 600;
    const TAIL: usize = 200;
    let count = message.chars().count();
    if count <= HEAD + TAIL + 100 {
        return message.into();
    }
    let head: String = message.chars().take(HEAD).collect();
    let tail: String = message.chars().skip(count - TAIL).collect();
    format!(
        "{head} [... {} characters left out ...] {tail}",
        count - HEAD - TAIL
    )
    .into()
}

fn status_style(status: &Status) -> Style {
    match status {
        Status::Create => Style::new().green(),
        Status::Update | Status::Force | Status::Skip => Style::new().yellow(),
        Status::Identical => Style::new().blue(),
        Status::Conflict(_) => Style::new().red(),
    }
}

#[cfg(test)]
mod tests {
    use super::bounded;

    #[test]
    fn long_messages_are_cut_in_the_middle_with_a_count() {
        assert_eq!(bounded("short"), "short");
        let long = format!("start {} end", "x".repeat(80_000));
        let cut = bounded(&long);
        assert!(
            cut.starts_with("start x") && cut.ends_with("x end"),
            "{cut}"
        );
        assert!(cut.contains("[... 79210 characters left out ...]"), "{cut}");
        assert!(cut.len() < 1000);
    }
}
