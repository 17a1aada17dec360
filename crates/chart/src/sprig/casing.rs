//! huandu/xstrings' case conversions behind sprig's `snakecase`, `kebabcase` and
//! `camelcase`, word splitting rules included (`HTTPServer` → `http_server`).
use super::text::{lower_rune, upper_rune};

fn is_connector(c: char) -> bool {
    c == '-' || c == '_' || c.is_whitespace()
}

fn is_alphabet(c: char) -> bool {
    c.is_alphabetic()
        && !matches!(c, '\u{4E00}'..='\u{9FCC}' | '\u{3400}'..='\u{4D85}' | '\u{20000}'..='\u{2B81D}')
}

fn is_punct(c: char) -> bool {
    c.is_ascii_punctuation() && !matches!(c, '$' | '+' | '<' | '=' | '>' | '^' | '`' | '|' | '~')
        || (!c.is_ascii() && !c.is_alphanumeric() && !c.is_whitespace() && !c.is_control())
}

/// xstrings.ToCamelCase as sprig's `camelcase` calls it: words joined, each upper-cased
/// at its first letter.
pub fn to_pascal_case(x: &str) -> String {
    let mut chars = x.chars();
    let mut out = String::with_capacity(x.len());
    let mut r0 = None;
    for c in chars.by_ref() {
        if !is_connector(c) {
            r0 = Some(upper_rune(c));
            break;
        }
        out.push(c);
    }
    let Some(mut r0) = r0 else {
        return out;
    };
    for c in chars {
        let r1 = r0;
        r0 = c;
        if is_connector(r0) && is_connector(r1) {
            out.push(r1);
            continue;
        }
        if is_connector(r1) {
            r0 = upper_rune(r0);
        } else {
            out.push(r1);
        }
    }
    out.push(r0);
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Word {
    Invalid,
    Number,
    Upper,
    Alphabet,
    Connector,
    Punct,
    Other,
}

/// xstrings' nextWord: the kind and text of the next word and the rest.
fn next_word(x: &str) -> (Word, &str, &str) {
    let mut it = x.char_indices().peekable();
    let Some((_, first)) = it.next() else {
        return (Word::Invalid, "", "");
    };
    let take_while = |start: usize, pred: &dyn Fn(char) -> bool| -> usize {
        let mut end = start;
        for (i, c) in x[start..].char_indices() {
            if !pred(c) {
                return start + i;
            }
            end = start + i + c.len_utf8();
        }
        end
    };
    let after_first = first.len_utf8();
    let (kind, end) = if is_connector(first) {
        (Word::Connector, take_while(after_first, &is_connector))
    } else if is_punct(first) {
        (Word::Punct, take_while(after_first, &is_punct))
    } else if first.is_uppercase() {
        match x[after_first..].chars().next() {
            Some(c) if c.is_uppercase() => {
                let end = take_while(after_first, &|c| c.is_uppercase());
                // "HTTPServer": the last capital starts the next word.
                match x[end..].chars().next() {
                    Some(next) if is_alphabet(next) => {
                        let last = x[..end].chars().next_back().map_or(0, char::len_utf8);
                        (Word::Upper, end - last)
                    }
                    _ => (Word::Upper, end),
                }
            }
            Some(c) if is_alphabet(c) => (
                Word::Upper,
                take_while(after_first, &|c| is_alphabet(c) && !c.is_uppercase()),
            ),
            _ => (Word::Upper, after_first),
        }
    } else if is_alphabet(first) {
        (
            Word::Alphabet,
            take_while(after_first, &|c| is_alphabet(c) && !c.is_uppercase()),
        )
    } else if first.is_numeric() {
        (Word::Number, take_while(after_first, &char::is_numeric))
    } else {
        (
            Word::Other,
            take_while(after_first, &|c| {
                !(is_connector(c) || is_alphabet(c) || c.is_numeric() || is_punct(c))
            }),
        )
    };
    let _ = it.peek();
    (kind, &x[..end], &x[end..])
}

fn push_lower(out: &mut String, kind: Word, word: &str, connector: char) {
    if kind != Word::Upper && kind != Word::Connector {
        out.push_str(word);
        return;
    }
    for c in word.chars() {
        if is_connector(c) {
            out.push(connector);
        } else if c.is_uppercase() {
            out.push(lower_rune(c));
        } else {
            out.push(c);
        }
    }
}

/// xstrings' camelCaseToLowerCase, behind `snakecase` and `kebabcase`.
pub fn to_snake_case(x: &str, connector: char) -> String {
    if x.is_empty() {
        return String::new();
    }
    let mut out = String::with_capacity(x.len() + 4);
    let (mut wt, mut word, mut remaining) = next_word(x);
    while !remaining.is_empty() {
        if wt != Word::Connector {
            push_lower(&mut out, wt, word, connector);
        }
        let prev = wt;
        let last = word;
        (wt, word, remaining) = next_word(remaining);
        match prev {
            Word::Number => {
                while wt == Word::Alphabet || wt == Word::Number {
                    push_lower(&mut out, wt, word, connector);
                    (wt, word, remaining) = next_word(remaining);
                }
                if !matches!(wt, Word::Invalid | Word::Punct | Word::Connector) {
                    out.push(connector);
                }
            }
            Word::Connector => push_lower(&mut out, prev, last, connector),
            Word::Punct => {}
            _ => {
                if wt != Word::Number {
                    if wt != Word::Connector && wt != Word::Punct {
                        out.push(connector);
                    }
                    continue;
                }
                if remaining.is_empty() {
                    continue;
                }
                let last = word;
                (wt, word, remaining) = next_word(remaining);
                if wt != Word::Alphabet {
                    push_lower(&mut out, Word::Number, last, connector);
                    if wt != Word::Connector && wt != Word::Punct {
                        out.push(connector);
                    }
                    continue;
                }
                out.push(connector);
                push_lower(&mut out, Word::Number, last, connector);
                while wt == Word::Alphabet || wt == Word::Number {
                    push_lower(&mut out, wt, word, connector);
                    (wt, word, remaining) = next_word(remaining);
                }
                if !matches!(wt, Word::Invalid | Word::Connector | Word::Punct) {
                    out.push(connector);
                }
            }
        }
    }
    push_lower(&mut out, wt, word, connector);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_conversions_match_xstrings() {
        assert_eq!(to_snake_case("FirstName", '_'), "first_name");
        assert_eq!(to_snake_case("HTTPServer", '_'), "http_server");
        assert_eq!(to_snake_case("FirstName", '-'), "first-name");
        assert_eq!(to_pascal_case("http_server"), "HttpServer");
    }
}
