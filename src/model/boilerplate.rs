//! The project's licence header, `hack/boilerplate.txt`: written by `init` (from `--license`
//! and `--owner`, or copied from `--license-file` as kubebuilder copies it), and written
//! again by `edit` with the same flags, as kubebuilder's `edit` rewrites its boilerplate.
use std::io::ErrorKind;
use std::path::Path;

use serde::Serialize;

use crate::cli::License;
use crate::error::{Error, Result};
use crate::model::names::shown;
use crate::scaffold::input;
use crate::templates::{self, Renderer};

/// Where the header lives in a project.
pub const FILE: &str = "hack/boilerplate.txt";

/// The template `init` renders it from.
const TEMPLATE: &str = "init/base/hack/boilerplate.txt.tera";

/// The largest licence file taken: a header, not a document.
const MAX_LICENSE_FILE: u64 = 64 * 1024;

#[derive(Serialize)]
struct BoilerplateContext<'a> {
    /// The copyright holder, after `// Copyright `.
    owner: &'a str,
    /// `apache2` or `none`.
    license: &'static str,
}

/// The header for `license` and `owner`, as `init` writes it.
///
/// # Errors
///
/// `Error::Internal` if the embedded template does not render.
pub fn render(license: License, owner: &str) -> Result<String> {
    let context = templates::context(&BoilerplateContext {
        owner,
        license: license_key(license),
    })?;
    Renderer::new().render(TEMPLATE, &context)
}

/// How the templates name `license`.
pub fn license_key(license: License) -> &'static str {
    match license {
        License::Apache2 => "apache2",
        License::None => "none",
    }
}

/// The copyright holder of a header `init` wrote (`// Copyright <owner>.` on its first line).
pub fn owner(header: &str) -> Option<&str> {
    let owner = header.lines().next()?.strip_prefix("// Copyright ")?;
    Some(owner.trim_end().strip_suffix('.').unwrap_or(owner))
}

/// The text of `--license-file`: UTF-8 and Rust comments only (`//` lines or one `/* */`
/// block), as kubebuilder takes only a Go comment block; an empty file is allowed.
///
/// # Errors
///
/// A one-line `Error::Invalid` naming the file and what is wrong with it.
pub fn read_license_file(path: &Path) -> Result<String> {
    let named = shown(&path.to_string_lossy());
    let text = input::read_named_text(path, MAX_LICENSE_FILE).map_err(|e| {
        let what = match e.kind() {
            ErrorKind::InvalidData => "save the header as UTF-8",
            ErrorKind::FileTooLarge => "pass the header alone",
            _ => "pass the file holding your licence header",
        };
        Error::invalid(format!("--license-file {named}: {e}; {what}"))
    })?;
    // One /* */ block: the only `*/` is the one that ends it.
    let trimmed = text.trim();
    let block = trimmed
        .strip_prefix("/*")
        .is_some_and(|rest| rest.find("*/").is_some_and(|end| end + 2 == rest.len()));
    if !block
        && let Some((number, line)) = text
            .lines()
            .enumerate()
            .find(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with("//"))
    {
        return Err(Error::invalid(format!(
            "--license-file {named}: line {} ({}) is not a Rust comment; the header goes above Rust code, so write it as // lines or one /* */ block",
            number + 1,
            shown(line)
        )));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_is_read_back_from_what_init_writes() {
        for license in [License::Apache2, License::None] {
            let header = render(license, "The Kubernetes authors").unwrap();
            assert_eq!(owner(&header), Some("The Kubernetes authors"));
        }
        assert_eq!(owner("/* Copyright X. */"), None);
    }

    #[test]
    fn a_license_file_must_be_rust_comments() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("header.txt");
        for ok in [
            "",
            "// Copyright X.\n//\n// MIT\n",
            "/*\nCopyright X.\n*/\n",
        ] {
            std::fs::write(&file, ok).unwrap();
            assert_eq!(read_license_file(&file).unwrap(), ok);
        }
        // Code between two comment blocks is not one block.
        std::fs::write(&file, "/* Copyright X. */\nfn main() {}\n/* MIT */\n").unwrap();
        let err = read_license_file(&file).unwrap_err().to_string();
        assert!(err.contains("line 1 (\"/* Copyright X. */\")"), "{err}");
        std::fs::write(&file, "// Copyright X.\nMIT licence\n").unwrap();
        let err = read_license_file(&file).unwrap_err().to_string();
        assert!(
            err.contains("line 2 (\"MIT licence\") is not a Rust comment"),
            "{err}"
        );
        let err = read_license_file(&dir.path().join("missing"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("--license-file \""), "{err}");
        std::fs::write(&file, [0xff, 0xfe]).unwrap();
        let err = read_license_file(&file).unwrap_err().to_string();
        assert!(err.contains("not UTF-8"), "{err}");
        std::fs::write(&file, "//\n".repeat(40_000)).unwrap();
        let err = read_license_file(&file).unwrap_err().to_string();
        assert!(err.ends_with("pass the header alone"), "{err}");
        let err = read_license_file(dir.path()).unwrap_err().to_string();
        assert!(err.contains("is a directory"), "{err}");
    }
}
