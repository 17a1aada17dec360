//! Source rewriting that lets gotmpl, which has no Go methods, run Helm templates:
//!
//! * method calls on Helm objects become functions taking the object:
//!   `.Files.Get "x"` → `helmFilesGet .Files "x"`, `(…).AsConfig` → `(helmFilesAsConfig (…))`,
//!   `$.Capabilities.APIVersions.Has "v"` → `helmAPIVersionsHas $.Capabilities.APIVersions "v"`;
//! * output actions get `| helmPrint` so numbers print as Go prints them (`1e+06`);
//! * comments become empty actions (gotmpl trims after `{{- /* */}}` where Go does not);
//! * `.Files.Get x | b64enc` reads the file's bytes (binary files are not strings).
//!
//! Only text inside `{{ }}` changes and no line breaks are added, so parse errors keep
//! their line numbers.

mod methods;

const KEYWORDS: &[&str] = &[
    "if", "else", "end", "range", "with", "define", "template", "block", "break", "continue",
];

/// Rewrite a template's source (see the module docs).
pub fn rewrite(src: &str) -> String {
    rewrite_with_map(src).0
}

/// Where each action starts, in the rewritten and in the original source: lets an error
/// position in the rewritten text point back at the chart's own file.
#[derive(Debug, Default, Clone)]
pub struct ActionMap {
    /// (offset in rewritten text, offset in original text, length of the original action)
    starts: Vec<(usize, usize, usize)>,
}

impl ActionMap {
    /// The original action (offset and text including `{{ }}`) containing `offset` of the
    /// rewritten text.
    pub fn original_action<'a>(
        &self,
        original: &'a str,
        offset: usize,
    ) -> Option<(usize, &'a str)> {
        let idx = self.starts.partition_point(|(rew, _, _)| *rew <= offset);
        let (_, orig, len) = *self.starts.get(idx.checked_sub(1)?)?;
        Some((orig, original.get(orig..orig + len)?))
    }
}

/// [`rewrite`] plus the map from rewritten to original action positions.
pub fn rewrite_with_map(src: &str) -> (String, ActionMap) {
    let mut out = String::with_capacity(src.len() + src.len() / 8);
    let mut map = ActionMap::default();
    let mut rest = src;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(len) = action_len(after) else {
            out.push_str(&rest[start..]);
            return (out, map);
        };
        let original_offset = src.len() - rest.len() + start;
        map.starts.push((out.len(), original_offset, len + 4));
        out.push_str("{{");
        out.push_str(&rewrite_action(&after[..len]));
        out.push_str("}}");
        rest = &after[len + 2..];
    }
    out.push_str(rest);
    (out, map)
}

/// Length of the action body up to (not including) its closing `}}`.
fn action_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let trimmed = s.trim_start_matches('-').trim_start();
    if trimmed.starts_with("/*") {
        let close = s.find("*/")?;
        return s[close..].find("}}").map(|i| close + i);
    }
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => i = skip_quoted(b, i, b'"')?,
            b'\'' => i = skip_quoted(b, i, b'\'')?,
            b'`' => i += 1 + s[i + 1..].find('`')?,
            b'}' if b.get(i + 1) == Some(&b'}') => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Index of the closing quote of a literal starting at `i`.
pub(super) fn skip_quoted(b: &[u8], mut i: usize, quote: u8) -> Option<usize> {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == quote => return Some(i),
            b'\n' => return None,
            _ => i += 1,
        }
    }
    None
}

fn rewrite_action(body: &str) -> String {
    // Keep the trim markers `{{- ` and ` -}}` outside the rewritten part.
    let lead = if body.starts_with("- ") || body.starts_with("-\t") || body.starts_with("-\n") {
        1
    } else {
        0
    };
    let trail = if body.len() > lead + 1
        && (body.ends_with(" -") || body.ends_with("\t-") || body.ends_with("\n-"))
    {
        1
    } else {
        0
    };
    let core = &body[lead..body.len() - trail];
    let trimmed = core.trim();
    if trimmed.starts_with("/*") {
        // gotmpl trims after `{{- /* c */}}` as if it were `-}}`; an empty string action
        // trims exactly as the comment should. Newlines are kept for line numbers.
        let newlines = "\n".repeat(core.matches('\n').count());
        return format!(
            "{} \"\"{newlines} {}",
            &body[..lead],
            &body[body.len() - trail..]
        );
    }
    let mut new_core = binary_safe_base64(&methods::rewrite_methods(core));
    if is_output_action(trimmed) {
        let end = new_core.trim_end().len();
        new_core.insert_str(end, " | helmPrint");
    }
    format!(
        "{}{}{}",
        &body[..lead],
        new_core,
        &body[body.len() - trail..]
    )
}

/// `helmFilesGet F X | b64enc` → `helmFilesGetBase64 F X`: the bytes of a binary file do
/// not survive being a template string, so encode them straight from the file.
fn binary_safe_base64(core: &str) -> String {
    let Some(start) = core.find("helmFilesGet ") else {
        return core.to_string();
    };
    let after = &core[start..];
    let Some(pipe) = after.find('|') else {
        return core.to_string();
    };
    let rest = after[pipe + 1..].trim_start();
    let is_b64 = rest
        .strip_prefix("b64enc")
        .is_some_and(|r| r.is_empty() || r.starts_with([' ', '|', ')']));
    // Only a plain call: no nested pipeline, and the `|` not inside a string literal.
    let call_text = &after[..pipe];
    if !is_b64 || call_text.contains('(') || call_text.matches('"').count() % 2 == 1 {
        return core.to_string();
    }
    let call = after[..pipe]
        .trim_end()
        .replacen("helmFilesGet ", "helmFilesGetBase64 ", 1);
    let tail = &rest["b64enc".len()..];
    format!("{}{call}{tail}", &core[..start])
}

fn is_output_action(trimmed: &str) -> bool {
    let first_word: String = trimmed
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if KEYWORDS.contains(&first_word.as_str()) || trimmed.is_empty() {
        return false;
    }
    !is_declaration(trimmed)
}

/// `$x := …`, `$x = …`, `$i, $v := …`
fn is_declaration(trimmed: &str) -> bool {
    if !trimmed.starts_with('$') {
        return false;
    }
    let head: String = trimmed
        .chars()
        .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | ',' | ' ' | '\t'))
        .collect();
    let rest = trimmed[head.len()..].trim_start();
    rest.starts_with(":=") || (rest.starts_with('=') && !rest.starts_with("=="))
}

#[cfg(test)]
mod tests {
    use super::rewrite;

    #[test]
    fn output_actions_print_through_helm_print() {
        assert_eq!(
            rewrite("a {{ .Values.x }} b"),
            "a {{ .Values.x | helmPrint }} b"
        );
        assert_eq!(rewrite("{{- .x -}}"), "{{- .x | helmPrint -}}");
        assert_eq!(
            rewrite("{{ $x := 1 }}{{ if .a }}{{ end }}"),
            "{{ $x := 1 }}{{ if .a }}{{ end }}"
        );
        assert_eq!(rewrite("{{/* }} */}}"), "{{ \"\" }}");
        assert_eq!(rewrite("{{- /* a\nb */}}"), "{{- \"\"\n }}");
        assert_eq!(rewrite("{{- /* c */ -}}"), "{{- \"\" -}}");
        assert_eq!(rewrite("{{ \"}}\" }}"), "{{ \"}}\" | helmPrint }}");
    }

    #[test]
    fn base64_of_a_file_reads_its_bytes() {
        assert_eq!(
            rewrite("{{ .Files.Get \"f.bz2\" | b64enc }}"),
            "{{ helmFilesGetBase64 .Files \"f.bz2\" | helmPrint }}"
        );
        assert_eq!(
            rewrite("{{ .Files.Get $p | b64enc | quote }}"),
            "{{ helmFilesGetBase64 .Files $p | quote | helmPrint }}"
        );
    }

    #[test]
    fn method_calls_become_functions() {
        assert_eq!(
            rewrite("{{ .Files.Get \"a\" }}"),
            "{{ helmFilesGet .Files \"a\" | helmPrint }}"
        );
        assert_eq!(
            rewrite("{{ if $.Capabilities.APIVersions.Has \"v1\" }}"),
            "{{ if helmAPIVersionsHas $.Capabilities.APIVersions \"v1\" }}"
        );
        assert_eq!(
            rewrite("{{ (.Files.Glob \"x/*\").AsConfig | indent 2 }}"),
            "{{ (helmFilesAsConfig (helmFilesGlob .Files \"x/*\")) | indent 2 | helmPrint }}"
        );
        assert_eq!(
            rewrite("{{ .Capabilities.HelmVersion }}"),
            "{{ helmBuildInfo .Capabilities.HelmVersion | helmPrint }}"
        );
        assert_eq!(
            rewrite("{{ printf \"%v\" $.Capabilities.HelmVersion }}"),
            "{{ printf \"%v\" (helmBuildInfo $.Capabilities.HelmVersion) | helmPrint }}"
        );
        assert_eq!(
            rewrite("{{ .Capabilities.HelmVersion.Version }}"),
            "{{ .Capabilities.HelmVersion.Version | helmPrint }}"
        );
        assert_eq!(
            rewrite("{{ \".Files.Get\" }}"),
            "{{ \".Files.Get\" | helmPrint }}"
        );
    }
}
