//! The embedded `templates/` folder. Files ending in `.tera` are rendered with tera, strictly:
//! a template that mentions a variable the context lacks is an error, even inside an `if`.
//! Every other file is copied byte for byte.
use include_dir::{Dir, DirEntry, include_dir};
use serde::Serialize;
use tera::{Context, Tera};

use crate::error::{Error, Result};

static TEMPLATES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/templates");

/// One embedded file under a template folder: its output path and how to produce it.
pub struct Source {
    /// Path relative to the folder, with `.tera` removed and `dot-x` turned into `.x`.
    pub output: String,
    name: String,
    raw: &'static [u8],
    is_template: bool,
}

/// The tera context of a template family's typed variables (a struct whose fields are the
/// variables its templates use, such as `WebhookContext`).
///
/// # Errors
///
/// `Error::Internal` when `variables` does not serialize to a map of names to values.
pub fn context(variables: &impl Serialize) -> Result<Context> {
    Context::from_serialize(variables)
        .map_err(|e| Error::Internal(format!("template variables: {e}")))
}

/// Every file under `folder` (e.g. `init/base`), sorted by output path.
pub fn sources(folder: &str) -> Vec<Source> {
    let mut out = Vec::new();
    if let Some(dir) = TEMPLATES.get_dir(folder) {
        collect(dir, folder, &mut out);
    }
    out.sort_by(|a, b| a.output.cmp(&b.output));
    out
}

fn collect(dir: &'static Dir<'static>, folder: &str, out: &mut Vec<Source>) {
    for entry in dir.entries() {
        match entry {
            DirEntry::Dir(d) => collect(d, folder, out),
            DirEntry::File(f) => {
                let name = f.path().to_string_lossy().replace('\\', "/");
                let relative = name
                    .strip_prefix(folder)
                    .unwrap_or(&name)
                    .trim_start_matches('/')
                    .to_string();
                let stem = relative.strip_suffix(".tera");
                let is_template = stem.is_some();
                let output = output_path(stem.unwrap_or(&relative));
                out.push(Source {
                    output,
                    name,
                    raw: f.contents(),
                    is_template,
                });
            }
        }
    }
}

/// `dot-gitignore` -> `.gitignore`, in any path segment.
fn output_path(relative: &str) -> String {
    relative
        .split('/')
        .map(|seg| match seg.strip_prefix("dot-") {
            Some(rest) => format!(".{rest}"),
            None => seg.to_string(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// The text of the embedded template at `path` (relative to `templates/`).
pub fn text(path: &str) -> Result<&'static str> {
    TEMPLATES
        .get_file(path)
        .ok_or_else(|| Error::Internal(format!("template {path} is not embedded")))?
        .contents_utf8()
        .ok_or_else(|| Error::Internal(format!("template {path} is not UTF-8")))
}

/// Renders embedded templates with one tera instance.
pub struct Renderer {
    tera: Tera,
}

impl Default for Renderer {
    fn default() -> Self {
        Self::new()
    }
}

impl Renderer {
    pub fn new() -> Self {
        let mut tera = Tera::new();
        crate::rust_layout::tera::register(&mut tera);
        Renderer { tera }
    }

    /// The bytes of `source`: rendered if it is a template, as embedded otherwise.
    pub fn produce(&mut self, source: &Source, context: &Context) -> Result<Vec<u8>> {
        if !source.is_template {
            return Ok(source.raw.to_vec());
        }
        let text = std::str::from_utf8(source.raw)
            .map_err(|_| Error::Internal(format!("template {} is not UTF-8", source.name)))?;
        self.render_str(&source.name, text, context)
            .map(String::into_bytes)
    }

    /// Render the embedded template at `path` (relative to `templates/`).
    pub fn render(&mut self, path: &str, context: &Context) -> Result<String> {
        self.render_str(path, text(path)?, context)
    }

    fn render_str(&mut self, name: &str, text: &str, context: &Context) -> Result<String> {
        if !self.tera.contains_template(name) {
            self.tera
                .add_raw_template(name, text)
                .map_err(|e| Error::Internal(format!("template {name} does not parse: {e}")))?;
        }
        let used = self
            .tera
            .get_template_variables(name)
            .map_err(|e| Error::Internal(format!("template {name}: {e}")))?;
        let mut undefined: Vec<&str> = used
            .into_iter()
            .filter(|v| !context.contains_key(v))
            .collect();
        if !undefined.is_empty() {
            undefined.sort_unstable();
            return Err(Error::Internal(format!(
                "template {name} uses undefined variable(s): {}",
                undefined.join(", ")
            )));
        }
        self.tera
            .render(name, context)
            .map_err(|e| Error::Internal(format!("template {name} does not render: {e}")))
    }

    /// Add every template of `sources` in one go: tera re-links all the templates it holds
    /// on each addition, so adding `init`'s fifty templates one by one cost more than
    /// rendering them.
    pub fn prepare(&mut self, sources: &[Source]) -> Result<()> {
        let fresh: Vec<(&str, &str)> = sources
            .iter()
            .filter(|s| s.is_template && !self.tera.contains_template(&s.name))
            .map(|s| {
                std::str::from_utf8(s.raw)
                    .map(|text| (s.name.as_str(), text))
                    .map_err(|_| Error::Internal(format!("template {} is not UTF-8", s.name)))
            })
            .collect::<Result<_>>()?;
        self.tera
            .add_raw_templates(fresh)
            .map_err(|e| Error::Internal(format!("templates do not parse: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_prefix_maps_to_hidden_files() {
        assert_eq!(output_path("dot-gitignore"), ".gitignore");
        assert_eq!(
            output_path("a/dot-cargo/config.toml"),
            "a/.cargo/config.toml"
        );
        assert_eq!(output_path("dotted.yaml"), "dotted.yaml");
    }

    #[test]
    fn undefined_variable_is_an_error_even_inside_if() {
        let mut r = Renderer::new();
        let mut ctx = Context::new();
        ctx.insert("a", &1);
        let err = r
            .render_str("t", "{% if missing %}x{% endif %}{{ a }}", &ctx)
            .unwrap_err();
        assert!(
            err.to_string().contains("undefined variable(s): missing"),
            "{err}"
        );
        assert_eq!(r.render_str("u", "{{ a }}\n", &ctx).unwrap(), "1\n");
    }
}
