//! Method calls on Helm objects rewritten as function calls (gotmpl has no methods):
//! `.Files.Get "x"` → `helmFilesGet .Files "x"`, `(…).AsConfig` → `(helmFilesAsConfig (…))`,
//! `.Capabilities.APIVersions.Has "v"` → `helmAPIVersionsHas .Capabilities.APIVersions "v"`,
//! a bare `.Capabilities.KubeVersion` → its `.Version` and a bare
//! `.Capabilities.HelmVersion` → `helmBuildInfo .Capabilities.HelmVersion` (Go's struct
//! text; so `toYaml` of it gives that text too, where Go gives its JSON fields).
use super::skip_quoted;

const FILE_METHODS: &[&str] = &["GetBytes", "Get", "Glob", "Lines", "AsConfig", "AsSecrets"];

/// Turn Helm object method calls into function calls, outside string literals.
pub(super) fn rewrite_methods(core: &str) -> String {
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
    // Go prints a KubeVersion through its String method: the version text.
    if let Some(after) = rest.strip_prefix(".Capabilities.KubeVersion")
        && !after.starts_with(|c: char| c == '.' || c.is_alphanumeric() || c == '_')
    {
        let receiver = take_receiver(out);
        let text = format!("{receiver}.Capabilities.KubeVersion.Version");
        return Some((".Capabilities.KubeVersion".len(), text));
    }
    // Go prints Helm's BuildInfo struct as `{v4.2   go1.26.6 v1.36}` (its fields in order).
    if let Some(after) = rest.strip_prefix(".Capabilities.HelmVersion")
        && !after.starts_with(|c: char| c == '.' || c.is_alphanumeric() || c == '_')
    {
        let receiver = take_receiver(out);
        let call = format!("helmBuildInfo {receiver}.Capabilities.HelmVersion");
        return Some((
            ".Capabilities.HelmVersion".len(),
            wrap_if_argument(out, &call, true),
        ));
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
