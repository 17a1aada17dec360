//! sprig's encodings and checksums: b64enc/b64dec, b32enc/b32dec, sha1sum,
//! sha256sum, sha512sum, adler32sum. Decoders return Go's error text as the result,
//! as sprig does, rather than failing the render.
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gotemplate::FuncMap;
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha512};

use super::args::{add, exact, s, string};

fn b64_value(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

fn skip_newlines(src: &[u8], mut si: usize) -> usize {
    while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
        si += 1;
    }
    si
}

/// Go's base64.StdEncoding.DecodeString, quantum by quantum, so that errors name the
/// byte Go names ("illegal base64 data at input byte N"). Line breaks are skipped.
fn go_b64_decode(src: &[u8]) -> Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut si = 0;
    loop {
        let mut buf = [0u8; 4];
        let mut len = 4;
        let mut trailing = None;
        let mut j = 0;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return Ok(out);
                }
                return Err(si - j);
            }
            let c = src[si];
            si += 1;
            if let Some(v) = b64_value(c) {
                buf[j] = v;
                j += 1;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                continue;
            }
            if c != b'=' || j < 2 {
                return Err(si - 1);
            }
            if j == 2 {
                si = skip_newlines(src, si);
                if si == src.len() {
                    return Err(src.len());
                }
                if src[si] != b'=' {
                    return Err(si - 1);
                }
                si += 1;
            }
            si = skip_newlines(src, si);
            if si < src.len() {
                trailing = Some(si);
            }
            len = j;
            break;
        }
        let val = u32::from(buf[0]) << 18
            | u32::from(buf[1]) << 12
            | u32::from(buf[2]) << 6
            | u32::from(buf[3]);
        let bytes = [(val >> 16) as u8, (val >> 8) as u8, val as u8];
        out.extend_from_slice(&bytes[..len - 1]);
        if let Some(at) = trailing {
            return Err(at);
        }
        if len < 4 {
            return Ok(out);
        }
    }
}

fn b64_decode(x: &str) -> String {
    match go_b64_decode(x.as_bytes()) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(at) => format!("illegal base64 data at input byte {at}"),
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
        let arg = &exact("b64enc", a, 1)?[0];
        // A binary file's content is a Go string of raw bytes.
        if let gotemplate::Value::Object(o) = arg
            && let Some(bytes) = o.as_bytes()
        {
            return Ok(s(STANDARD.encode(bytes)));
        }
        let x = string(arg)?;
        super::bounds::output("b64enc", x.len().saturating_mul(4) / 3)?;
        Ok(s(STANDARD.encode(x)))
    });
    add(m, "b64dec", |a| {
        Ok(s(b64_decode(string(&exact("b64dec", a, 1)?[0])?)))
    });
    add(m, "b32enc", |a| {
        let x = string(&exact("b32enc", a, 1)?[0])?;
        super::bounds::output("b32enc", x.len().saturating_mul(8) / 5)?;
        Ok(s(data_encoding::BASE32.encode(x.as_bytes())))
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
        assert_eq!(b64_decode("aGVsbG8"), "illegal base64 data at input byte 4");
        assert_eq!(
            b64_decode("aGVsbA==x"),
            "illegal base64 data at input byte 8"
        );
        assert_eq!(b64_decode("aGk="), "hi");
        assert_eq!(b64_decode(""), "");
        assert_eq!(b32_decode("NBSWY3DP"), "hello");
    }
}
