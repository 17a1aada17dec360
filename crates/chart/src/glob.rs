//! Shell-style glob matching for `.helmignore` and `.Files.Glob`.
//!
//! `*` and `?` never cross `/`; `**` does; `[abc]`, `[a-z]` and `[!a]` are classes.

/// Does `name` match `pattern`?
pub fn matches(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    match_from(&p, &n)
}

fn match_from(p: &[char], n: &[char]) -> bool {
    let Some((&first, rest)) = p.split_first() else {
        return n.is_empty();
    };
    match first {
        '*' if rest.first() == Some(&'*') => {
            let rest = &rest[1..];
            (0..=n.len()).any(|i| match_from(rest, &n[i..]))
        }
        '*' => {
            let mut i = 0;
            loop {
                if match_from(rest, &n[i..]) {
                    return true;
                }
                if i == n.len() || n[i] == '/' {
                    return false;
                }
                i += 1;
            }
        }
        '?' => !n.is_empty() && n[0] != '/' && match_from(rest, &n[1..]),
        '[' => match (n.first(), class_end(rest)) {
            (Some(&c), Some(end)) if c != '/' => {
                in_class(&rest[..end], c) && match_from(&rest[end + 1..], &n[1..])
            }
            (_, None) => n.first() == Some(&'[') && match_from(rest, &n[1..]),
            _ => false,
        },
        '\\' if !rest.is_empty() => n.first() == Some(&rest[0]) && match_from(&rest[1..], &n[1..]),
        c => n.first() == Some(&c) && match_from(rest, &n[1..]),
    }
}

fn class_end(p: &[char]) -> Option<usize> {
    // A ']' right after '[' (or '[!') is a literal member, not the end.
    let start = usize::from(matches!(p.first(), Some('!' | '^')));
    (start + 1..p.len()).find(|&i| p[i] == ']')
}

fn in_class(class: &[char], c: char) -> bool {
    let (negated, body) = match class.first() {
        Some('!' | '^') => (true, &class[1..]),
        _ => (false, class),
    };
    let mut found = false;
    let mut i = 0;
    while i < body.len() {
        if i + 2 < body.len() && body[i + 1] == '-' {
            if body[i] <= c && c <= body[i + 2] {
                found = true;
            }
            i += 3;
        } else {
            if body[i] == c {
                found = true;
            }
            i += 1;
        }
    }
    found != negated
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_stay_within_a_segment_unless_doubled() {
        assert!(matches("files/*.json", "files/a.json"));
        assert!(!matches("files/*.json", "files/sub/a.json"));
        assert!(matches("files/**.json", "files/sub/a.json"));
        assert!(matches("*.sw[op]", "x.swp"));
        assert!(!matches("*.sw[!op]", "x.swp"));
        assert!(matches("?.txt", "a.txt"));
    }
}
