//! `$VAR` / `${VAR}` expansion with the exact rules of Go's `os.ExpandEnv`, which
//! operator-sdk applies to watches.yaml `overrideValues`.

/// Expand `$NAME`, `${NAME}` and the shell specials (`$1`, `$#`, ...) using `lookup`;
/// unknown variables become empty strings, as in Go.
pub fn expand_env(text: &str, lookup: impl Fn(&str) -> Option<String>) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied_to = 0;
    let mut j = 0;
    while j < bytes.len() {
        if bytes[j] == b'$' && j + 1 < bytes.len() {
            out.push_str(&text[copied_to..j]);
            let (name, width) = shell_name(&text[j + 1..]);
            match (name, width) {
                ("", 0) => out.push('$'), // "$" not followed by a name stays.
                ("", _) => {}             // invalid syntax: Go eats it.
                (name, _) => out.push_str(&lookup(name).unwrap_or_default()),
            }
            j += width;
            copied_to = j + 1;
        }
        j += 1;
    }
    out.push_str(&text[copied_to.min(text.len())..]);
    out
}

fn is_shell_special(byte: u8) -> bool {
    matches!(
        byte,
        b'*' | b'#' | b'$' | b'@' | b'!' | b'?' | b'-' | b'0'..=b'9'
    )
}

fn is_name_byte(byte: u8) -> bool {
    byte == b'_' || byte.is_ascii_alphanumeric()
}

/// The variable name after a `$` and how many bytes it spans (Go's `getShellName`).
fn shell_name(text: &str) -> (&str, usize) {
    let bytes = text.as_bytes();
    if bytes[0] == b'{' {
        if bytes.len() > 2 && is_shell_special(bytes[1]) && bytes[2] == b'}' {
            return (&text[1..2], 3);
        }
        return match text[1..].find('}') {
            Some(0) => ("", 2),
            Some(close) => (&text[1..=close], close + 2),
            None => ("", 1),
        };
    }
    if is_shell_special(bytes[0]) {
        return (&text[0..1], 1);
    }
    let end = bytes
        .iter()
        .position(|b| !is_name_byte(*b))
        .unwrap_or(bytes.len());
    (&text[..end], end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(name: &str) -> Option<String> {
        match name {
            "IMAGE" => Some("quay.io/memcached".into()),
            "TAG" => Some("1.6".into()),
            "1" => Some("one".into()),
            _ => None,
        }
    }

    #[test]
    fn expands_like_go_os_expand_env() {
        let cases = [
            ("$IMAGE:$TAG", "quay.io/memcached:1.6"),
            ("${IMAGE}-x", "quay.io/memcached-x"),
            ("$UNSET", ""),
            ("plain", "plain"),
            ("cost: 5$", "cost: 5$"),
            ("a$ b", "a$ b"),
            ("${}", ""),
            ("${IMAGE", "IMAGE"),
            ("$1st", "onest"),
            ("${1}", "one"),
            ("$$", ""),
            ("é$TAG", "é1.6"),
        ];
        for (input, want) in cases {
            assert_eq!(expand_env(input, lookup), want, "{input}");
        }
    }
}
