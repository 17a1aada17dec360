//! Errors as Go's text/template reports them, keeping the chain of wrapped errors that
//! Helm walks to format its messages.
use std::fmt;

#[derive(Debug, Clone)]
pub enum Error {
    /// A function failed; the text is everything Go prints after
    /// `executing "NAME" at <NODE>: ` (e.g. `error calling trunc: ...`, or a type error).
    Exec(String),
    /// A function's error value; the engine prefixes `error calling NAME: `. `source` is
    /// the error it wraps (Go's `%w`), if any.
    Call {
        message: String,
        source: Option<Box<Error>>,
    },
    /// An execution error with Go's whole text (`template: NAME:LINE:COL: executing ...`),
    /// and the error it wraps.
    Template {
        message: String,
        source: Option<Box<Error>>,
    },
    /// A parse error with Go's whole text (`template: NAME:LINE: ...`).
    Parse(String),
}

impl Error {
    /// A function error value with no cause (Go's `errors.New`).
    pub fn call(message: impl Into<String>) -> Self {
        Error::Call {
            message: message.into(),
            source: None,
        }
    }

    /// The texts of this error and of every error it wraps, outermost first, as Go's
    /// `errors.Unwrap` walks them.
    pub fn chain(&self) -> Vec<String> {
        let mut out = vec![self.to_string()];
        let mut next = self.source();
        while let Some(e) = next {
            out.push(e.to_string());
            next = e.source();
        }
        out
    }

    fn source(&self) -> Option<&Error> {
        match self {
            Error::Call { source, .. } | Error::Template { source, .. } => source.as_deref(),
            _ => None,
        }
    }

    /// Whether this is an execution error raised by the engine (Go's `ExecError`).
    pub fn is_exec(&self) -> bool {
        matches!(self, Error::Template { message, .. } if message.starts_with("template: ") && message.contains(": executing "))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Exec(m) | Error::Parse(m) => f.write_str(m),
            Error::Call { message, .. } | Error::Template { message, .. } => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}
