//! Text algorithms sprig takes from Go's strings package, Masterminds/goutils and
//! huandu/xstrings, ported with their exact edge cases.
use super::args::{go_index, go_len};

/// Go's strings.SplitN: an empty separator splits into characters; n < 0 means all
/// parts; n == 0 means none.
pub fn go_split<'a>(x: &'a str, sep: &str, n: i64) -> Vec<&'a str> {
    if n == 0 {
        return Vec::new();
    }
    // A negative n means no limit.
    let limit = usize::try_from(n).unwrap_or(usize::MAX);
    if sep.is_empty() {
        let mut parts = Vec::new();
        let mut rest = x;
        while !rest.is_empty() {
            if parts.len() + 1 == limit {
                parts.push(rest);
                return parts;
            }
            let len = rest.chars().next().map_or(1, char::len_utf8);
            parts.push(&rest[..len]);
            rest = &rest[len..];
        }
        return parts;
    }
    x.splitn(limit, sep).collect()
}

/// Go's strings.Replace(src, old, new, -1); an empty `old` matches between characters
/// exactly as Rust's `str::replace` does.
pub fn go_replace_all(src: &str, old: &str, new: &str) -> String {
    src.replace(old, new)
}

/// unicode.ToUpper on one rune: the simple mapping, so `ß` stays `ß` (Rust's full
/// mapping would give "SS").
pub fn upper_rune(c: char) -> char {
    let mut up = c.to_uppercase();
    match (up.next(), up.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

/// unicode.ToLower on one rune (`İ` lowers to `i`, as in Go).
pub fn lower_rune(c: char) -> char {
    let mut low = c.to_lowercase();
    match (low.next(), low.next()) {
        (Some(l), None) => l,
        (Some(l), Some(_)) if c == '\u{130}' => l,
        _ => c,
    }
}

/// Go's strings.ToUpper.
pub fn go_upper(x: &str) -> String {
    x.chars().map(upper_rune).collect()
}

/// Go's strings.ToLower.
pub fn go_lower(x: &str) -> String {
    x.chars().map(lower_rune).collect()
}

/// Go's strings.Title: upper-case every letter that follows a separator.
pub fn title(x: &str) -> String {
    let mut prev = ' ';
    let mut out = String::with_capacity(x.len());
    for c in x.chars() {
        if is_title_separator(prev) {
            out.push(title_rune(c));
        } else {
            out.push(c);
        }
        prev = c;
    }
    out
}

/// unicode.ToTitle: like upper case except for the four digraphs with a title form.
fn title_rune(c: char) -> char {
    match c {
        'Ǆ' | 'ǅ' | 'ǆ' => 'ǅ',
        'Ǉ' | 'ǈ' | 'ǉ' => 'ǈ',
        'Ǌ' | 'ǋ' | 'ǌ' => 'ǋ',
        'Ǳ' | 'ǲ' | 'ǳ' => 'ǲ',
        other => upper_rune(other),
    }
}

fn is_title_separator(c: char) -> bool {
    if c.is_ascii() {
        return !(c.is_ascii_alphanumeric() || c == '_');
    }
    if c.is_alphanumeric() {
        return false;
    }
    c.is_whitespace()
}

/// goutils.Uncapitalize: lower-case the first letter of each space-separated word.
pub fn untitle(x: &str) -> String {
    let mut prev_space = true;
    x.chars()
        .map(|c| {
            let out = if prev_space { lower_rune(c) } else { c };
            prev_space = c.is_whitespace();
            out
        })
        .collect()
}

/// goutils.Initials: the first byte of each space-separated word.
pub fn initials(x: &str) -> String {
    let mut gap = true;
    let mut out = String::new();
    for c in x.chars() {
        if c.is_whitespace() {
            gap = true;
        } else if gap {
            out.push(c);
            gap = false;
        }
    }
    out
}

/// goutils.SwapCase: upper and title case lower, lower case uppers.
pub fn swapcase(x: &str) -> String {
    x.chars()
        .map(|c| {
            let titlecase = !c.is_uppercase() && !c.is_lowercase() && lower_rune(c) != c;
            if c.is_uppercase() || titlecase {
                lower_rune(c)
            } else if c.is_lowercase() {
                upper_rune(c)
            } else {
                c
            }
        })
        .collect()
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// goutils.AbbreviateFull; `None` where goutils returns an error.
pub fn abbreviate(x: &str, offset: i64, max_width: i64) -> Option<String> {
    if x.is_empty() {
        return Some(String::new());
    }
    if max_width < 4 {
        return None;
    }
    let b = x.as_bytes();
    let len = go_len(b.len());
    if len <= max_width {
        return Some(x.to_string());
    }
    let mut offset = offset.min(len);
    if len - offset < max_width - 3 {
        offset = len - (max_width - 3);
    }
    if offset <= 4 {
        return Some(format!("{}...", lossy(&b[..go_index(max_width - 3)])));
    }
    if max_width < 7 {
        return None;
    }
    if offset + max_width - 3 < len {
        let rest = lossy(&b[go_index(offset)..]);
        return Some(format!("...{}", abbreviate(&rest, 0, max_width - 3)?));
    }
    Some(format!(
        "...{}",
        lossy(&b[go_index(len - (max_width - 3))..])
    ))
}

/// goutils.WrapCustom: break lines at spaces so they fit `width` bytes.
pub fn wrap(x: &str, width: i64, newline: &str, wrap_long_words: bool) -> String {
    if x.is_empty() {
        return String::new();
    }
    let newline = if newline.is_empty() { "\n" } else { newline };
    let width = go_index(width.max(1));
    let b = x.as_bytes();
    let len = b.len();
    let mut offset = 0;
    let mut out: Vec<u8> = Vec::with_capacity(len);
    while len - offset > width {
        if b[offset] == b' ' {
            offset += 1;
            continue;
        }
        let end = (width + offset + 1).min(len);
        let space = b[offset..end].iter().rposition(|c| *c == b' ');
        match space {
            Some(pos) => {
                out.extend_from_slice(&b[offset..offset + pos]);
                out.extend_from_slice(newline.as_bytes());
                offset += pos + 1;
            }
            None if wrap_long_words => {
                out.extend_from_slice(&b[offset..offset + width]);
                out.extend_from_slice(newline.as_bytes());
                offset += width;
            }
            None => {
                let end = width + offset;
                match b[end..].iter().position(|c| *c == b' ') {
                    None => {
                        out.extend_from_slice(&b[offset..]);
                        offset = len;
                    }
                    Some(i) => {
                        out.extend_from_slice(&b[offset..end + i]);
                        out.extend_from_slice(newline.as_bytes());
                        offset = end + i + 1;
                    }
                }
            }
        }
    }
    out.extend_from_slice(&b[offset..]);
    lossy(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_matches_go() {
        assert_eq!(go_split("a,b,c", ",", -1), vec!["a", "b", "c"]);
        assert_eq!(go_split("a,b,c", ",", 2), vec!["a", "b,c"]);
        assert_eq!(go_split("abc", "", -1), vec!["a", "b", "c"]);
        assert_eq!(go_split("", ",", -1), vec![""]);
        assert!(go_split("a", ",", 0).is_empty());
    }

    #[test]
    fn title_and_friends_match_go() {
        assert_eq!(title("hello world-foo_bar"), "Hello World-Foo_bar");
        assert_eq!(untitle("Hello World"), "hello world");
        assert_eq!(initials("First Try"), "FT");
        assert_eq!(swapcase("This Is A.Test"), "tHIS iS a.tEST");
        assert_eq!(go_upper("straße"), "STRAßE");
        assert_eq!(swapcase("ǅ Ab"), "ǆ aB");
        assert_eq!(title("ǆa"), "ǅa");
    }

    #[test]
    fn abbreviate_matches_goutils() {
        assert_eq!(abbreviate("hello world", 0, 5).as_deref(), Some("he..."));
        assert_eq!(
            abbreviate("1234 5678 9123", 5, 10).as_deref(),
            Some("...5678...")
        );
        assert_eq!(abbreviate("abc", 0, 5).as_deref(), Some("abc"));
    }

    #[test]
    fn wrap_matches_goutils() {
        assert_eq!(wrap("Hello World", 5, "\n", false), "Hello\nWorld");
        assert_eq!(wrap("Hello World", 5, "\t", true), "Hello\tWorld");
        assert_eq!(wrap("abcdefghij klm", 4, "\n", true), "abcd\nefgh\nij\nklm");
    }
}
