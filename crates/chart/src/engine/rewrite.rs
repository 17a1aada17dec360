//! Source rewriting that lets gotmpl, which has no Go methods, run Helm templates:
//!
//! * method calls on Helm objects become functions taking the object:
//!   `.Files.Get "x"` → `helmFilesGet .Files "x"`, `(…).AsConfig` → `(helmFilesAsConfig (…))`,
//!   `$.Capabilities.APIVersions.Has "v"` → `helmAPIVersionsHas $.Capabilities.APIVersions "v"`;
//! * output actions get `| helmPrint` so numbers print as Go prints them (`1e+06`).
//!
//! Only text inside `{{ }}` changes and no line breaks are added, so parse errors keep
//! their line numbers.

const FILE_METHODS: &[&str] = &["GetBytes", "Get", "Glob", "Lines", "AsConfig", "AsSecrets"];
const KEYWORDS: &[&str] = &[
    "if", "else", "end", "range", "with", "define", "template", "block", "break", "continue",
];

/// Rewrite a template's source (see the module docs).
pub fn rewrite(src: &str) -> String {
    let mut out = String::with_capacity(src.len() + src.len() / 8);
    let mut rest = src;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(len) = action_len(after) else {
            out.push_str(&rest[start..]);
            return out;
        };
        out.push_str("{{");
        out.push_str(&rewrite_action(&after[..len]));
        out.push_str("}}");
        rest = &after[len + 2..];
    }
    out.push_str(rest);
    out
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
fn skip_quoted(b: &[u8], mut i: usize, quote: u8) -> Option<usize> {
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
        return body.to_string();
    }
    let mut new_core = rewrite_methods(core);
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

/// Turn Helm object method calls into function calls, outside string literals.
fn rewrite_methods(core: &str) -> String {
    let mut out = String::with_capacity(core.len() + 32);
    let b = core.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' | b'`' => {
                let end = match b[i] {
                    b'`' => core[i + 1..].find('`').map(|j| i + 1 + j),
                    q => skip_quoted(b, i, q),
                }
                .unwrap_or(b.len() - 1);
                out.push_str(&core[i..=end]);
                i = end + 1;
            }
            b'.' => {
                if let Some((consumed, replaced)) = method_at(core, i, &mut out) {
                    out.push_str(&replaced);
                    i += consumed;
                } else {
                    out.push('.');
                    i += 1;
                }
            }
            _ => {
                let c = core[i..].chars().next().unwrap_or(' ');
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

/// At a `.` in `core[i..]`: recognise `.Files.<M>`, `.Capabilities.APIVersions.Has` and
/// `).As<Config|Secrets>`. The receiver text already copied to `out` is moved into the
/// call. Returns the bytes consumed and the replacement text.
fn method_at(core: &str, i: usize, out: &mut String) -> Option<(usize, String)> {
    let rest = &core[i..];
    if let Some(after) = rest.strip_prefix(".Files.") {
        let method = FILE_METHODS.iter().find(|m| word_at(after, m))?;
        let receiver = take_receiver(out);
        let call = format!("helmFiles{method} {receiver}.Files");
        let consumed = ".Files.".len() + method.len();
        return Some((
            consumed,
            wrap_if_argument(out, &call, method.starts_with("As")),
        ));
    }
    if rest.starts_with(".Capabilities.APIVersions.Has")
        && word_at(&rest[".Capabilities.APIVersions.".len()..], "Has")
    {
        let receiver = take_receiver(out);
        let call = format!("helmAPIVersionsHas {receiver}.Capabilities.APIVersions");
        return Some((".Capabilities.APIVersions.Has".len(), call));
    }
    if out.ends_with(')') {
        for method in ["AsConfig", "AsSecrets"] {
            if rest.len() > method.len() && word_at(&rest[1..], method) {
                let open = matching_open(out)?;
                let group = out.split_off(open);
                return Some((1 + method.len(), format!("(helmFiles{method} {group})")));
            }
        }
    }
    None
}

/// Is `word` at the start of `s`, not followed by more identifier characters?
fn word_at(s: &str, word: &str) -> bool {
    s.starts_with(word)
        && !s[word.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Remove and return the receiver operand just before a `.`: `$`, `$root`, `$.Values` or
/// nothing (dot).
fn take_receiver(out: &mut String) -> String {
    let start = out
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || matches!(c, '_' | '$' | '.'))
        .last()
        .map_or(out.len(), |(i, _)| i);
    out.split_off(start)
}

/// Zero-argument methods used as an argument need parentheses once they are calls.
fn wrap_if_argument(out: &str, call: &str, zero_args: bool) -> String {
    let before = out.trim_end();
    let command_start = before.is_empty()
        || before.ends_with('(')
        || before.ends_with('|')
        || before.ends_with(":=")
        || before.ends_with('=');
    if zero_args && !command_start {
        format!("({call})")
    } else {
        call.to_string()
    }
}

/// Byte index in `s` of the `(` matching its final `)`.
fn matching_open(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
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
        assert_eq!(rewrite("{{/* }} */}}"), "{{/* }} */}}");
        assert_eq!(rewrite("{{ \"}}\" }}"), "{{ \"}}\" | helmPrint }}");
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
            rewrite("{{ \".Files.Get\" }}"),
            "{{ \".Files.Get\" | helmPrint }}"
        );
    }
}
