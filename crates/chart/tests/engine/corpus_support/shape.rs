//! Matching texts whose random parts differ: the same text around them, and random
//! parts of the same kind. PEM blocks match by block type, bcrypt hashes and UUIDs by
//! format, base64 that decodes to such text by its decoded shape, other base64 by
//! length, and words (passwords, names, timestamps) by length and character class.
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use regex::Regex;

use super::first_difference;

/// Stand-ins for PEM blocks, bcrypt hashes and timestamps, so that what remains can
/// be compared word by word.
fn mask(text: &str) -> String {
    let patterns = [
        (
            r"-----BEGIN ([A-Z ]+)-----[\s\S]*?-----END ([A-Z ]+)-----",
            "<PEM $1>",
        ),
        (r"\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}", "<BCRYPT>"),
        (
            r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
            "<UUID>",
        ),
        (
            r"\d{4}-\d\d-\d\d([T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?)?",
            "<TIME>",
        ),
    ];
    let mut out = text.to_string();
    for (pattern, stand_in) in patterns {
        if let Ok(re) = Regex::new(pattern) {
            out = re.replace_all(&out, stand_in).into_owned();
        }
    }
    out
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=')
}

/// Words (runs of base64 characters) and single other characters.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (is_word_char(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(&text[s..i]);
                out.push(&text[i..i + c.len_utf8()]);
                start = None;
            }
            (false, None) => out.push(&text[i..i + c.len_utf8()]),
            (true, Some(_)) => {}
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

fn decoded_text(word: &str) -> Option<String> {
    if word.len() < 8 || !word.len().is_multiple_of(4) {
        return None;
    }
    let bytes = STANDARD.decode(word).ok()?;
    String::from_utf8(bytes).ok()
}

/// Two differing words of the same kind.
fn same_kind(a: &str, b: &str) -> bool {
    if let (Some(da), Some(db)) = (decoded_text(a), decoded_text(b))
        && (da.contains("-----BEGIN") || db.contains("-----BEGIN") || da.contains("$2"))
    {
        return same_shape(&da, &db).is_ok();
    }
    if a.len() != b.len() {
        return false;
    }
    // Digits stay digits (timestamps, numeric passwords); otherwise letters, digits
    // and base64 punctuation vary, as random alphanumerics do.
    let all_digits = |w: &str| w.chars().all(|c| c.is_ascii_digit());
    all_digits(a) == all_digits(b)
}

/// `Err` with the first place where the shapes part.
pub fn same_shape(helm: &str, ours: &str) -> Result<(), String> {
    if helm == ours {
        return Ok(());
    }
    let (mh, mo) = (mask(helm), mask(ours));
    let (th, to) = (tokens(&mh), tokens(&mo));
    if th.len() != to.len() {
        return first_difference(&mh, &mo).and(Err("different structure".into()));
    }
    for (i, (a, b)) in th.iter().zip(&to).enumerate() {
        // A random part is a value of five or more characters, never a mapping key.
        let random_value = a.len() >= 5 && th.get(i + 1) != Some(&":");
        if a != b
            && !(random_value && is_word_char(a.chars().next().unwrap_or(' ')) && same_kind(a, b))
        {
            let line = mh[..mh.find(a).unwrap_or(0)].matches('\n').count() + 1;
            return Err(format!(
                "near line {line}: helm {a:?}, ours {b:?} (not the same kind)"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_parts_match_by_shape() {
        assert!(
            same_shape(
                "name: x-ab3d9\npw: \"Zk81x\"",
                "name: x-q0pzz\npw: \"aB9xx\""
            )
            .is_ok()
        );
        assert!(same_shape("replicas: 1", "replicas: 2").is_err());
        assert!(same_shape("at: 2026-11-21T14:15:08Z", "at: 2026-11-22T01:02:03Z").is_ok());
        assert!(same_shape("abcde: 1", "fghij: 1").is_err());
        assert!(same_shape("name: x-ab3d9", "name: x-ab3d").is_err());
        assert!(same_shape("a: 1\nb: 2", "a: 1\nc: 2").is_err());
        let pem_a = "-----BEGIN CERTIFICATE-----\nAAAA\nBBBB\n-----END CERTIFICATE-----\n";
        let pem_b = "-----BEGIN CERTIFICATE-----\nCCCC\n-----END CERTIFICATE-----\n";
        assert!(same_shape(pem_a, pem_b).is_ok());
        let key = "-----BEGIN RSA PRIVATE KEY-----\nCCCC\n-----END RSA PRIVATE KEY-----\n";
        assert!(same_shape(pem_a, key).is_err());
        let (ba, bb) = (STANDARD.encode(pem_a), STANDARD.encode(pem_b));
        assert!(same_shape(&format!("tls.crt: {ba}"), &format!("tls.crt: {bb}")).is_ok());
        let (ka, kb) = (STANDARD.encode(key), STANDARD.encode(pem_b));
        assert!(same_shape(&format!("tls.key: {ka}"), &format!("tls.key: {kb}")).is_err());
        let h1 = "admin:$2a$10$abcdefghijklmnopqrstuOabcdefghijklmnopqrstuvwxyz01234";
        let h2 = "admin:$2a$10$zyxwvutsrqponmlkjihgfOzyxwvutsrqponmlkjihgfedcba98765";
        assert!(same_shape(h1, h2).is_ok());
        assert!(same_shape("ts: 20260101120000", "ts: 2026010112000a").is_err());
        let (u1, u2) = (
            "id: \"9cf9fa2a-0b1c-4d2e-8f3a-1234567890ab\"",
            "id: \"9f42e0d1-77aa-4b0c-9e8d-abcdefabcdef\"",
        );
        assert!(same_shape(u1, u2).is_ok());
    }
}
