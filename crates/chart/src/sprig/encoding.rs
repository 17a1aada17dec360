//! sprig's encodings and checksums: b64enc/b64dec, b32enc/b32dec, sha1sum,
//! sha256sum, sha512sum, adler32sum. Decoders return Go's error text as the result,
//! as sprig does, rather than failing the render.
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gotmpl::FuncMap;
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha512};

use super::args::{add, exact, s, string};

/// Go's base64 decoder skips line breaks; its error names the first bad byte.
fn b64_decode(x: &str) -> String {
    let cleaned: String = x.chars().filter(|c| *c != '\r' && *c != '\n').collect();
    match STANDARD.decode(cleaned.as_bytes()) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(base64::DecodeError::InvalidByte(at, _))
        | Err(base64::DecodeError::InvalidLastSymbol(at, _)) => {
            format!("illegal base64 data at input byte {at}")
        }
        Err(_) => format!(
            "illegal base64 data at input byte {}",
            go_b64_bad_len_offset(&cleaned)
        ),
    }
}

/// Where Go's decoder reports a truncated or badly padded input.
fn go_b64_bad_len_offset(x: &str) -> usize {
    let body = x.trim_end_matches('=').len();
    let full = body - body % 4;
    if body % 4 == 1 {
        full
    } else {
        x.len()
            .min(full + 4)
            .saturating_sub(usize::from(x.ends_with('=')))
    }
}

fn b32_decode(x: &str) -> String {
    let cleaned: String = x.chars().filter(|c| *c != '\r' && *c != '\n').collect();
    match data_encoding::BASE32.decode(cleaned.as_bytes()) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => format!("illegal base32 data at input byte {}", e.position),
    }
}

pub(crate) fn register(m: &mut FuncMap) {
    add(m, "b64enc", |a| {
        Ok(s(STANDARD.encode(string(&exact("b64enc", a, 1)?[0])?)))
    });
    add(m, "b64dec", |a| {
        Ok(s(b64_decode(string(&exact("b64dec", a, 1)?[0])?)))
    });
    add(m, "b32enc", |a| {
        Ok(s(
            data_encoding::BASE32.encode(string(&exact("b32enc", a, 1)?[0])?.as_bytes())
        ))
    });
    add(m, "b32dec", |a| {
        Ok(s(b32_decode(string(&exact("b32dec", a, 1)?[0])?)))
    });
    add(m, "sha1sum", |a| {
        Ok(s(hex::encode(Sha1::digest(string(
            &exact("sha1sum", a, 1)?[0],
        )?))))
    });
    add(m, "sha256sum", |a| {
        Ok(s(hex::encode(Sha256::digest(string(
            &exact("sha256sum", a, 1)?[0],
        )?))))
    });
    add(m, "sha512sum", |a| {
        Ok(s(hex::encode(Sha512::digest(string(
            &exact("sha512sum", a, 1)?[0],
        )?))))
    });
    add(m, "adler32sum", |a| {
        let x = string(&exact("adler32sum", a, 1)?[0])?;
        let mut h = adler2::Adler32::new();
        h.write_slice(x.as_bytes());
        Ok(s(h.checksum().to_string()))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoders_follow_go() {
        assert_eq!(b64_decode("aGVsbG8="), "hello");
        assert_eq!(b64_decode("aGVs\nbG8="), "hello");
        assert_eq!(b64_decode("a$b"), "illegal base64 data at input byte 1");
        assert_eq!(b32_decode("NBSWY3DP"), "hello");
    }
}
