//! One object of `dist/install.yaml` as a chart template: printed as YAML with some values
//! replaced by Go template actions. The replaced values are first swapped for unique plain
//! scalars, so the YAML printer lays out everything else, then each marker line is rewritten.
use std::fmt::Write as _;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::yaml;

/// What takes a marker's place.
enum Replacement {
    /// An inline action or text with actions, e.g. `{{ .Release.Namespace }}`.
    Scalar(String),
    /// A block printed from values: `{{- toYaml .Values.X | nindent N }}`.
    Block { values_path: String, list: bool },
}

/// An object on its way to a template.
pub struct Templated {
    object: Value,
    replacements: Vec<Replacement>,
}

impl Templated {
    pub fn new(object: Value) -> Self {
        Templated {
            object,
            replacements: Vec::new(),
        }
    }

    fn marker(&mut self, replacement: Replacement) -> Value {
        self.replacements.push(replacement);
        Value::String(format!(
            "rusty-sdk-template-{}",
            self.replacements.len() - 1
        ))
    }

    /// Every string that names the install namespace (`hc-system`, `hc-system/cert`,
    /// `svc.hc-system.svc`) names the release's instead.
    pub fn release_namespace(&mut self, namespace: &str) {
        let mut object = std::mem::take(&mut self.object);
        self.walk_strings(&mut object, namespace);
        self.object = object;
    }

    fn walk_strings(&mut self, value: &mut Value, namespace: &str) {
        match value {
            Value::String(s) => {
                let swapped = swap_namespace(s, namespace);
                if swapped != *s {
                    *value = self.marker(Replacement::Scalar(swapped));
                }
            }
            Value::Array(items) => items
                .iter_mut()
                .for_each(|v| self.walk_strings(v, namespace)),
            Value::Object(map) => map
                .values_mut()
                .for_each(|v| self.walk_strings(v, namespace)),
            _ => {}
        }
    }

    /// Replace the value at `pointer` (JSON pointer) by an inline action.
    pub fn scalar(&mut self, pointer: &str, action: &str) {
        let marker = self.marker(Replacement::Scalar(action.to_string()));
        if let Some(slot) = self.object.pointer_mut(pointer) {
            *slot = marker;
        }
    }

    /// Replace the list or map at `pointer` by `.Values.<values_path>`, printed as a block.
    pub fn block(&mut self, pointer: &str, values_path: &str) {
        let list = self.object.pointer(pointer).is_some_and(Value::is_array);
        let marker = self.marker(Replacement::Block {
            values_path: values_path.to_string(),
            list,
        });
        if let Some(slot) = self.object.pointer_mut(pointer) {
            *slot = marker;
        }
    }

    /// The template text, wrapped in `{{- if <condition> }}` when one is given.
    pub fn render(&self, condition: Option<&str>) -> Result<String> {
        let text = yaml::to_string(&self.object)
            .map_err(|e| Error::Internal(format!("cannot print a chart object: {e}")))?;
        let mut out = String::new();
        if let Some(condition) = condition {
            let _ = writeln!(out, "{{{{- if {condition} }}}}");
        }
        for line in text.lines() {
            out.push_str(&self.rewrite(line));
            out.push('\n');
        }
        if condition.is_some() {
            out.push_str("{{- end }}\n");
        }
        Ok(out)
    }

    fn rewrite(&self, line: &str) -> String {
        let Some(start) = line.find("rusty-sdk-template-") else {
            return line.to_string();
        };
        let digits: String = line[start + 19..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let Some(replacement) = digits
            .parse::<usize>()
            .ok()
            .and_then(|i| self.replacements.get(i))
        else {
            return line.to_string();
        };
        let marker = format!("rusty-sdk-template-{digits}");
        match replacement {
            Replacement::Scalar(text) => {
                // An action at the start of a scalar must be quoted to stay one string.
                let quoted = if text.starts_with("{{") && !text.ends_with("}}") {
                    format!("\"{text}\"")
                } else {
                    text.clone()
                };
                line.replacen(&marker, &quoted, 1)
            }
            Replacement::Block { values_path, list } => {
                // `key: marker` or `- key: marker`: the key's column sets the indent.
                let head = line[..start].trim_end();
                let key_column = head.len() - head.trim_start_matches([' ', '-']).len();
                let indent = if *list { key_column } else { key_column + 2 };
                format!(
                    "{head}\n{}{{{{- toYaml .Values.{values_path} | nindent {indent} }}}}",
                    " ".repeat(indent)
                )
            }
        }
    }
}

/// `s` with the install namespace swapped for the release's, where it names it.
fn swap_namespace(s: &str, namespace: &str) -> String {
    const RELEASE: &str = "{{ .Release.Namespace }}";
    if s == namespace {
        return RELEASE.to_string();
    }
    if let Some(rest) = s.strip_prefix(&format!("{namespace}/")) {
        return format!("{RELEASE}/{rest}");
    }
    s.replace(&format!(".{namespace}.svc"), &format!(".{RELEASE}.svc"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn namespaces_scalars_and_blocks_become_actions() {
        let mut t = Templated::new(json!({
            "kind": "Deployment",
            "metadata": {"name": "x", "namespace": "ns",
                         "annotations": {"inject": "ns/cert", "dns": "svc.ns.svc"}},
            "spec": {"replicas": 1, "containers": [{"args": ["--a"], "resources": {"limits": {"cpu": "1"}}}]}
        }));
        t.release_namespace("ns");
        t.scalar("/spec/replicas", "{{ .Values.manager.replicas }}");
        t.block("/spec/containers/0/args", "manager.args");
        t.block("/spec/containers/0/resources", "manager.resources");
        let text = t.render(Some(".Values.on")).unwrap();
        assert!(text.starts_with("{{- if .Values.on }}\n"), "{text}");
        assert!(text.ends_with("{{- end }}\n"), "{text}");
        assert!(
            text.contains("  namespace: {{ .Release.Namespace }}\n"),
            "{text}"
        );
        assert!(
            text.contains("inject: \"{{ .Release.Namespace }}/cert\""),
            "{text}"
        );
        assert!(
            text.contains("dns: svc.{{ .Release.Namespace }}.svc"),
            "{text}"
        );
        assert!(
            text.contains("replicas: {{ .Values.manager.replicas }}"),
            "{text}"
        );
        assert!(
            text.contains("  - args:\n    {{- toYaml .Values.manager.args | nindent 4 }}\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "    resources:\n      {{- toYaml .Values.manager.resources | nindent 6 }}\n"
            ),
            "{text}"
        );
    }
}
