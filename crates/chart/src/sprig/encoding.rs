//! sprig's encodings and checksums: b64enc/b64dec, b32enc/b32dec, sha1sum,
//! sha256sum, sha512sum, adler32sum. Decoders return Go's error text as the result,
//! as sprig does, rather than failing the render.
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gotemplate::{Result, Value};
use sha1::Sha1;
use sha2::{Digest, Sha256, Sha512};

use super::args::{Function, exact, s, string};

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
        // Four 6-bit values make three bytes: the low 24 bits.
        let [_, b0, b1, b2] = val.to_be_bytes();
        let bytes = [b0, b1, b2];
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

/// The family's template functions.
pub(crate) const FUNCTIONS: &[Function] = &[
    Function::new("b64enc", "func(string) string", b64enc),
    Function::string("b64dec", b64_decode),
    Function::new("b32enc", "func(string) string", b32enc),
    Function::string("b32dec", b32_decode),
    Function::string("sha1sum", |x| hex::encode(Sha1::digest(x))),
    Function::string("sha256sum", |x| hex::encode(Sha256::digest(x))),
    Function::string("sha512sum", |x| hex::encode(Sha512::digest(x))),
    Function::string("adler32sum", adler32sum),
];

fn b64enc(a: &[Value]) -> Result<Value> {
    let arg = &exact("b64enc", a, 1)?[0];
    // A binary file's content is a Go string of raw bytes.
    if let Value::Object(o) = arg
        && let Some(bytes) = o.as_bytes()
    {
        return Ok(s(STANDARD.encode(bytes)));
    }
    let x = string(arg)?;
    super::bounds::output("b64enc", x.len().saturating_mul(4) / 3)?;
    Ok(s(STANDARD.encode(x)))
}

fn b32enc(a: &[Value]) -> Result<Value> {
    let x = string(&exact("b32enc", a, 1)?[0])?;
    super::bounds::output("b32enc", x.len().saturating_mul(8) / 5)?;
    Ok(s(data_encoding::BASE32.encode(x.as_bytes())))
}

fn adler32sum(x: &str) -> String {
    let mut h = adler2::Adler32::new();
    h.write_slice(x.as_bytes());
    h.checksum().to_string()
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
