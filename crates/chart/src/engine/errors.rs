//! Helm's wording of template errors (pkg/engine/engine.go: cleanupParseError and
//! reformatExecErrorMsg), applied to the error chain Go's text/template produces.
use gotemplate::Error;

use crate::error::RenderError;

const WARN_START: &str = "HELM_ERR_START";
const WARN_END: &str = "HELM_ERR_END";

/// Wrap a `fail`/`required` message the way Helm marks it for its error formatting.
pub(crate) fn warn_wrap(message: &str) -> String {
    format!("{WARN_START}{message}{WARN_END}")
}

/// `parse error at (<file>:<line>): <message>` from Go's `template: <file>:<line>: ...`.
pub(crate) fn parse_error(file: &str, e: &Error) -> RenderError {
    let text = e.to_string();
    let tokens: Vec<&str> = text.split(": ").collect();
    if tokens.len() == 1 {
        return RenderError::Execute(format!("parse error in ({file}): {text}"));
    }
    let location = tokens[1];
    let message = tokens[tokens.len() - 1].to_string();
    let (template, line) = match location.rsplit_once(':') {
        Some((t, l)) if l.parse::<usize>().is_ok() => (t.to_string(), l.parse().unwrap_or(0)),
        _ => (location.to_string(), 0),
    };
    RenderError::Parse {
        template,
        line,
        col: 0,
        message,
    }
}

/// One level of Go's error chain as Helm's `TraceableError` reads it.
#[derive(PartialEq)]
struct Traceable {
    location: String,
    message: String,
    executed: String,
}

impl Traceable {
    fn render(&self) -> String {
        let mut s = String::new();
        if !self.location.is_empty() {
            s.push_str(&self.location);
            s.push_str("\n  ");
        }
        if !self.executed.is_empty() {
            s.push_str(&self.executed);
            s.push_str("\n    ");
        }
        if !self.message.is_empty() {
            s.push_str(&self.message);
            s.push('\n');
        }
        s
    }

    fn parse(s: &str) -> Option<Traceable> {
        let rest = s.strip_prefix("template: ")?;
        if rest.starts_with("no template ") {
            return Some(Traceable {
                location: String::new(),
                message: s.to_string(),
                executed: String::new(),
            });
        }
        let cut = |m: &str| m.find(" template:").map_or(m, |i| &m[..i]).to_string();
        if let Some((name, after)) = rest.split_once(": executing ") {
            let after = after.strip_prefix('"')?;
            let end = after.find('"')?;
            let function = &after[..end];
            let at = after[end + 1..].strip_prefix(" at <")?;
            let (location, message) = at.split_once(">: ")?;
            return Some(Traceable {
                location: name.to_string(),
                message: cut(message),
                executed: format!("executing \"{function}\" at <{location}>:"),
            });
        }
        let sep = rest.rfind(": ")?;
        Some(Traceable {
            location: rest[..sep].to_string(),
            message: cut(&rest[sep + 2..]),
            executed: String::new(),
        })
    }
}

/// Helm's message for an execution error of `file`.
pub(crate) fn exec_error(file: &str, e: &Error) -> RenderError {
    let text = e.to_string();
    if !e.is_exec() {
        return RenderError::Execute(text);
    }
    let tokens: Vec<&str> = text.splitn(3, ": ").collect();
    if tokens.len() != 3 {
        return RenderError::Execute(format!("execution error in ({file}): {text}"));
    }
    if let Some(start) = tokens[2].find(WARN_START) {
        let inner = &tokens[2][start + WARN_START.len()..];
        if let Some(end) = inner.rfind(WARN_END) {
            return RenderError::Execute(format!(
                "execution error at ({}): {}",
                tokens[1],
                &inner[..end]
            ));
        }
    }
    let mut levels: Vec<Traceable> = Vec::new();
    for level in e.chain() {
        let Some(t) = Traceable::parse(&level) else {
            return RenderError::Execute(text);
        };
        if levels.last() != Some(&t) {
            levels.push(t);
        }
    }
    let joined: String = levels.iter().map(Traceable::render).collect();
    RenderError::Execute(joined.trim().to_string())
}
