//! go-yaml v2's view of scalars: which strings it would read back as something else
//! (so must be quoted), what its emitter's scalar analysis allows, and its map key order.

use crate::yaml;

pub(super) fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blank_or_end(c: Option<char>) -> bool {
    matches!(c, None | Some(' ' | '\t')) || c.is_some_and(is_break)
}

/// go-yaml's byte-level `is_printable`, per character.
pub(super) fn is_printable(c: char) -> bool {
    let c = c as u32;
    c == 0x0A
        || (0x20..=0x7E).contains(&c)
        || (0xA0..=0xD7FF).contains(&c)
        || ((0xE000..=0xFFFD).contains(&c) && c != 0xFEFF)
}

pub(super) struct Analysis {
    pub block_plain_allowed: bool,
    pub single_quoted_allowed: bool,
    pub block_allowed: bool,
}

/// go-yaml's `yaml_emitter_analyze_scalar`, for the block context.
pub(super) fn analyze(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            block_plain_allowed: false,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let chars: Vec<char> = s.chars().collect();
    let mut block_indicators = s.starts_with("---") || s.starts_with("...");
    let (mut special, mut line_breaks) = (false, false);
    let (mut leading_space, mut leading_break, mut trailing_space, mut trailing_break) =
        (false, false, false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    let last = chars.len() - 1;
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = is_blank_or_end(chars.get(i + 1).copied());
        if i == 0 {
            if "#,[]{}&*!|>'\"%@`".contains(c) {
                block_indicators = true;
            }
            if (c == '?' || c == ':' || c == '-') && followed_by_whitespace {
                block_indicators = true;
            }
        } else if (c == ':' && followed_by_whitespace) || (c == '#' && preceded_by_whitespace) {
            block_indicators = true;
        }
        if !is_printable(c) || c == '\u{FEFF}' {
            special = true;
        }
        if is_break(c) {
            line_breaks = true;
        }
        if c == ' ' {
            leading_space |= i == 0;
            trailing_space |= i == last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            leading_break |= i == 0;
            trailing_break |= i == last;
            space_break |= previous_space;
            previous_break = true;
            previous_space = false;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = c == ' ' || c == '\t' || is_break(c);
    }
    let mut a = Analysis {
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special {
        a = Analysis {
            block_plain_allowed: false,
            single_quoted_allowed: false,
            block_allowed: false,
        };
    }
    if line_breaks || block_indicators {
        a.block_plain_allowed = false;
    }
    a
}

/// Would go-yaml v2 read this plain scalar back as a string (and not a bool, number,
/// null, timestamp or base-60 float)?
pub(super) fn resolves_as_string(s: &str) -> bool {
    const NON_STRINGS: &[&str] = &[
        "", "~", "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
        "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF",
        ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf",
        "-.Inf", "-.INF", "<<",
    ];
    if NON_STRINGS.contains(&s) {
        return false;
    }
    let first = s.chars().next().unwrap_or(' ');
    if !(first.is_ascii_digit() || first == '-' || first == '+' || first == '.') {
        return true;
    }
    let plain = s.replace('_', "");
    // The same number rules the YAML reader applies (crate::yaml), plus the YAML 1.1
    // forms go-yaml v2 also resolves when it writes.
    !(yaml::go_int(&plain).is_some()
        || yaml::is_yaml_float(&plain)
        || is_base60_float(s)
        || is_timestamp(s)
        || is_binary(&plain))
}

/// `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`
fn is_base60_float(s: &str) -> bool {
    let b = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (main, frac) = match b.split_once('.') {
        Some((m, f)) => (m, Some(f)),
        None => (b, None),
    };
    let mut parts = main.split(':');
    let head = parts.next().unwrap_or("");
    let head_ok = head.starts_with(|c: char| c.is_ascii_digit())
        && head.bytes().all(|c| c.is_ascii_digit() || c == b'_');
    let rest: Vec<&str> = parts.collect();
    head_ok
        && !rest.is_empty()
        && rest.iter().all(|p| {
            let bytes = p.as_bytes();
            match bytes.len() {
                1 => bytes[0].is_ascii_digit(),
                2 => (b'0'..=b'5').contains(&bytes[0]) && bytes[1].is_ascii_digit(),
                _ => false,
            }
        })
        && frac.is_none_or(|f| f.bytes().all(|c| c.is_ascii_digit() || c == b'_'))
}

/// go-yaml v2's parseTimestamp: a plain scalar is a timestamp when Go's time.Parse
/// accepts it with one of `2006-1-2T15:4:5.999999999Z07:00` (also with `t`),
/// `2006-1-2 15:4:5.999999999` or `2006-1-2`.
fn is_timestamp(s: &str) -> bool {
    // Up to two digits (Go's 1-or-2-digit fields), within `max`.
    fn field(b: &[u8], i: &mut usize, min: u32, max: u32) -> Option<u32> {
        let start = *i;
        while *i < b.len() && *i - start < 2 && b[*i].is_ascii_digit() {
            *i += 1;
        }
        if *i == start {
            return None;
        }
        let n: u32 = std::str::from_utf8(&b[start..*i]).ok()?.parse().ok()?;
        (min..=max).contains(&n).then_some(n)
    }
    fn expect(b: &[u8], i: &mut usize, c: u8) -> Option<()> {
        (b.get(*i) == Some(&c)).then(|| *i += 1)
    }
    let b = s.as_bytes();
    let parse = || -> Option<()> {
        if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
            return None;
        }
        let year: u32 = std::str::from_utf8(&b[..4]).ok()?.parse().ok()?;
        let mut i = 5;
        let month = field(b, &mut i, 1, 12)?;
        expect(b, &mut i, b'-')?;
        let day = field(b, &mut i, 1, 31)?;
        let leap =
            year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400));
        let days = match month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        if day > days {
            return None;
        }
        if i == b.len() {
            return Some(());
        }
        let sep = b[i];
        if !matches!(sep, b'T' | b't' | b' ') {
            return None;
        }
        i += 1;
        field(b, &mut i, 0, 23)?;
        expect(b, &mut i, b':')?;
        field(b, &mut i, 0, 59)?;
        expect(b, &mut i, b':')?;
        field(b, &mut i, 0, 59)?;
        if i + 1 < b.len() && matches!(b[i], b'.' | b',') && b[i + 1].is_ascii_digit() {
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
        if sep == b' ' {
            return (i == b.len()).then_some(());
        }
        match b.get(i) {
            Some(b'Z') => i += 1,
            Some(b'+' | b'-') => {
                let zone = b.get(i + 1..i + 6)?;
                let ok = zone[..2].iter().all(u8::is_ascii_digit)
                    && zone[2] == b':'
                    && zone[3..].iter().all(u8::is_ascii_digit);
                if !ok {
                    return None;
                }
                i += 6;
            }
            _ => return None,
        }
        (i == b.len()).then_some(())
    };
    parse().is_some()
}

#[cfg(test)]
mod timestamp_tests {
    #[test]
    fn go_yaml_timestamps() {
        for yes in [
            "2001-12-14",
            "2001-12-14T21:59:43Z",
            "2001-1-2T3:4:5.5+01:00",
            "2001-12-14 21:59:43.10",
        ] {
            assert!(super::is_timestamp(yes), "{yes}");
        }
        for no in [
            "2006-01-02T15:04:05Z07:00",
            "2001-13-01",
            "2001-02-30",
            "2001-12-14T21:59",
            "20011-12-14",
        ] {
            assert!(!super::is_timestamp(no), "{no}");
        }
    }
}

fn is_binary(s: &str) -> bool {
    let b = s.strip_prefix('-').unwrap_or(s);
    b.strip_prefix("0b")
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|c| c == b'0' || c == b'1'))
}

/// go-yaml v2's map key order: runs of digits compare as numbers, letters sort after
/// other characters.
pub(super) fn key_order(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    let mut i = 0;
    while i < ar.len() && i < br.len() {
        if ar[i] == br[i] {
            i += 1;
            continue;
        }
        let al = ar[i].is_alphabetic();
        let bl = br[i].is_alphabetic();
        if al && bl {
            return ar[i].cmp(&br[i]);
        }
        if al || bl {
            return if bl {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        let (mut an, mut bn): (i128, i128) = (0, 0);
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 && ar[j - 1].is_ascii_digit() {
                j -= 1;
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && ar[ai].is_ascii_digit() {
            an = an
                .saturating_mul(10)
                .saturating_add(i128::from(ar[ai] as u8 - b'0'));
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && br[bi].is_ascii_digit() {
            bn = bn
                .saturating_mul(10)
                .saturating_add(i128::from(br[bi] as u8 - b'0'));
            bi += 1;
        }
        if an != bn {
            return an.cmp(&bn);
        }
        if ai != bi {
            return ai.cmp(&bi);
        }
        return ar[i].cmp(&br[i]);
    }
    ar.len().cmp(&br.len())
}

#[cfg(test)]
mod tests {
    use super::resolves_as_string;

    #[test]
    fn numbers_bools_and_yaml_1_1_forms_are_not_strings() {
        for s in [
            "0x1F",
            "0755",
            "-12",
            "1_000",
            "1e3",
            ".5",
            "1:20",
            "yes",
            "~",
            "2001-12-14",
        ] {
            assert!(!resolves_as_string(s), "{s} should need quoting");
        }
        // strconv.ParseInt rejects a sign after the base prefix, so Go writes these plain.
        for s in ["0x+1", "1.2.3", "v1", "12ab"] {
            assert!(resolves_as_string(s), "{s} should stay plain");
        }
    }
}
