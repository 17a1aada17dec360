//! Templates outside charts: helm-operator-plugins runs every watches.yaml `overrideValues`
//! entry through `template.New(key).Funcs(sprig.TxtFuncMap()).Parse(value)` and executes
//! it over nil data (pkg/watches/watches.go). That is the whole sprig library, with the
//! `env` and `expandenv` that Helm takes out for charts, and none of Helm's functions.
use gotemplate::{TemplateError, Templates, Value};

use super::args::{add, exact, s, string};

/// Parse `source` as template `name` and run it over nil data with sprig's functions;
/// `env` and `expandenv` read variables through `getenv` and `expandenv`.
///
/// # Errors
///
/// The template's parse or execution error, worded as Go's.
pub fn execute_standalone(
    name: &str,
    source: &str,
    getenv: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
    expandenv: impl Fn(&str) -> String + Send + Sync + 'static,
) -> Result<String, TemplateError> {
    let mut funcs = super::funcs();
    add(&mut funcs, "env", move |args| {
        let args = exact("env", args, 1)?;
        Ok(s(getenv(string(&args[0])?).unwrap_or_default()))
    });
    add(&mut funcs, "expandenv", move |args| {
        let args = exact("expandenv", args, 1)?;
        Ok(s(expandenv(string(&args[0])?)))
    });
    let mut set = Templates::new(name);
    set.funcs(&funcs);
    crate::funcs::declare_signatures(&mut set);
    for function in ["env", "expandenv"] {
        let _ = set.declare(function, "func(string) string");
    }
    let template = set.parse(name, source)?;
    set.execute_parsed(&template, &Value::Nil)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(source: &str) -> Result<String, String> {
        let getenv = |name: &str| (name == "TAG").then(|| "1.6.29".to_string());
        execute_standalone("image.tag", source, getenv, |text| {
            text.replace("$TAG", "1.6.29")
        })
        .map_err(|e| e.to_string())
    }

    #[test]
    fn sprig_and_the_environment_functions_are_there() {
        assert_eq!(
            run(r#"{{ env "TAG" | default "latest" }}"#).unwrap(),
            "1.6.29"
        );
        assert_eq!(
            run(r#"{{ env "NOPE" | default "latest" }}"#).unwrap(),
            "latest"
        );
        assert_eq!(
            run(r#"{{ expandenv "v$TAG" | upper }}"#).unwrap(),
            "V1.6.29"
        );
        assert_eq!(run("{{ list 1 2 3 | len }}").unwrap(), "3");
        assert_eq!(run("plain").unwrap(), "plain");
    }

    #[test]
    fn helm_functions_are_not_and_errors_name_the_template() {
        let error = run(r#"{{ include "x" . }}"#).unwrap_err();
        assert!(
            error.contains("template: image.tag:1:") && error.contains("\"include\" not defined"),
            "{error}"
        );
        let error = run("{{ if }}").unwrap_err();
        assert!(error.starts_with("template: image.tag:1:"), "{error}");
    }
}
