//! sprig's other crypto functions: bcrypt, htpasswd, derivePassword, encryptAES,
//! decryptAES, randBytes.
use aes::cipher::{BlockDecryptMut, BlockEncryptMut, KeyIvInit, block_padding::Pkcs7};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gotemplate::{Result, Value};
use hmac::{Hmac, Mac};
use rand_core::{OsRng, RngCore};
use sha2::Sha256;

use super::args::{Function, call_error, exact, int, s, string};

/// Go's bcrypt.GenerateFromPassword with the default cost 10, "$2a$" form.
fn bcrypt_hash(input: &str) -> String {
    match bcrypt::non_truncating_hash(input, 10) {
        Ok(parts) => parts,
        Err(bcrypt::BcryptError::Truncation(_)) => {
            "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes".into()
        }
        Err(e) => format!("failed to encrypt string with bcrypt: {e}"),
    }
    .replacen("$2b$", "$2a$", 1)
}

/// A text's length as the big-endian uint32 the algorithm prefixes it with (a template
/// string never comes near 4 GiB: `bounds`).
fn length32(text: &str) -> [u8; 4] {
    u32::try_from(text.len()).unwrap_or(u32::MAX).to_be_bytes()
}

const SEED: &str = "com.lyndir.masterpassword";

fn templates(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "maximum" => &["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
        "long" => &[
            "CvcvnoCvcvCvcv",
            "CvcvCvcvnoCvcv",
            "CvcvCvcvCvcvno",
            "CvccnoCvcvCvcv",
            "CvccCvcvnoCvcv",
            "CvccCvcvCvcvno",
            "CvcvnoCvccCvcv",
            "CvcvCvccnoCvcv",
            "CvcvCvccCvcvno",
            "CvcvnoCvcvCvcc",
            "CvcvCvcvnoCvcc",
            "CvcvCvcvCvccno",
            "CvccnoCvccCvcv",
            "CvccCvccnoCvcv",
            "CvccCvccCvcvno",
            "CvcvnoCvccCvcc",
            "CvcvCvccnoCvcc",
            "CvcvCvccCvccno",
            "CvccnoCvcvCvcc",
            "CvccCvcvnoCvcc",
            "CvccCvcvCvccno",
        ],
        "medium" => &["CvcnoCvc", "CvcCvcno"],
        "short" => &["Cvcn"],
        "basic" => &["aaanaaan", "aannaaan", "aaannaaa"],
        "pin" => &["nnnn"],
        _ => return None,
    })
}

fn template_chars(c: u8) -> &'static [u8] {
    match c {
        b'V' => b"AEIOU",
        b'C' => b"BCDFGHJKLMNPQRSTVWXYZ",
        b'v' => b"aeiou",
        b'c' => b"bcdfghjklmnpqrstvwxyz",
        b'A' => b"AEIOUBCDFGHJKLMNPQRSTVWXYZ",
        b'a' => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
        b'n' => b"0123456789",
        b'o' => b"@&%?,=[]_:-+*$#!'^~;()/.",
        _ => b"AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
    }
}

/// The Master Password algorithm sprig's derivePassword implements.
fn derive_password(counter: u32, kind: &str, password: &str, user: &str, site: &str) -> String {
    let Some(templates) = templates(kind) else {
        return format!("cannot find password template {kind}");
    };
    let mut salt = SEED.as_bytes().to_vec();
    salt.extend_from_slice(&length32(user));
    salt.extend_from_slice(user.as_bytes());
    let mut key = [0u8; 64];
    let params = match scrypt::Params::new(15, 8, 2, 64) {
        Ok(p) => p,
        Err(e) => return format!("failed to derive password: {e}"),
    };
    if let Err(e) = scrypt::scrypt(password.as_bytes(), &salt, &params, &mut key) {
        return format!("failed to derive password: {e}");
    }
    let mut message = SEED.as_bytes().to_vec();
    message.extend_from_slice(&length32(site));
    message.extend_from_slice(site.as_bytes());
    message.extend_from_slice(&counter.to_be_bytes());
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&key) else {
        return "failed to derive password: bad key".into();
    };
    mac.update(&message);
    let seed = mac.finalize().into_bytes();
    let template = templates[seed[0] as usize % templates.len()];
    template
        .bytes()
        .enumerate()
        .map(|(i, c)| {
            let chars = template_chars(c);
            chars[seed[i + 1] as usize % chars.len()] as char
        })
        .collect()
}

/// The password as an AES-256 key: zero-padded or cut to 32 bytes.
fn aes_key(password: &str) -> [u8; 32] {
    let mut key = [0u8; 32];
    let n = password.len().min(32);
    key[..n].copy_from_slice(&password.as_bytes()[..n]);
    key
}

fn encrypt_aes(password: &str, plain: &str) -> String {
    if plain.is_empty() {
        return String::new();
    }
    let mut iv = [0u8; 16];
    OsRng.fill_bytes(&mut iv);
    let cipher = cbc::Encryptor::<aes::Aes256>::new(&aes_key(password).into(), &iv.into());
    let mut out = iv.to_vec();
    out.extend(cipher.encrypt_padded_vec_mut::<Pkcs7>(plain.as_bytes()));
    STANDARD.encode(out)
}

fn decrypt_aes(password: &str, crypt64: &str) -> std::result::Result<String, String> {
    if crypt64.is_empty() {
        return Ok(String::new());
    }
    let data = STANDARD.decode(crypt64).map_err(|e| e.to_string())?;
    if data.len() < 16 || (data.len() - 16) % 16 != 0 {
        return Err("crypto/cipher: input not full blocks".into());
    }
    let (iv, body) = data.split_at(16);
    let cipher = cbc::Decryptor::<aes::Aes256>::new(&aes_key(password).into(), iv.into());
    let plain = cipher
        .decrypt_padded_vec_mut::<Pkcs7>(body)
        .map_err(|_| "runtime error: slice bounds out of range".to_string())?;
    Ok(String::from_utf8_lossy(&plain).into_owned())
}

/// The family's template functions.
pub(crate) const FUNCTIONS: &[Function] = &[
    Function::string("bcrypt", bcrypt_hash),
    Function::strings2("htpasswd", "func(string, string) string", htpasswd),
    Function::new(
        "derivePassword",
        "func(uint32, string, string, string, string) string",
        derive_password_fn,
    ),
    Function::strings2(
        "encryptAES",
        "func(string, string) (string, error)",
        |key, text| s(encrypt_aes(key, text)),
    ),
    Function::new(
        "decryptAES",
        "func(string, string) (string, error)",
        decrypt_aes_fn,
    ),
    Function::new("randBytes", "func(int) (string, error)", rand_bytes),
];

/// `htpasswd user password`: an Apache htpasswd line, or sprig's message for a user
/// name Apache cannot hold.
fn htpasswd(user: &str, password: &str) -> Value {
    s(if user.contains(':') {
        format!("invalid username: {user}")
    } else {
        format!("{user}:{}", bcrypt_hash(password))
    })
}

fn derive_password_fn(a: &[Value]) -> Result<Value> {
    let a = exact("derivePassword", a, 5)?;
    let counter = u32::try_from(int(&a[0])?)
        .map_err(|_| call_error("derivePassword", "counter must fit in uint32"))?;
    let (kind, password, user, site) = (
        string(&a[1])?,
        string(&a[2])?,
        string(&a[3])?,
        string(&a[4])?,
    );
    Ok(s(derive_password(counter, kind, password, user, site)))
}

fn decrypt_aes_fn(a: &[Value]) -> Result<Value> {
    let a = exact("decryptAES", a, 2)?;
    decrypt_aes(string(&a[0])?, string(&a[1])?)
        .map(s)
        .map_err(|e| call_error("decryptAES", e))
}

fn rand_bytes(a: &[Value]) -> Result<Value> {
    let n = int(&exact("randBytes", a, 1)?[0])?;
    let n = usize::try_from(n)
        .map_err(|_| call_error("randBytes", "runtime error: makeslice: len out of range"))?;
    super::bounds::output("randBytes", n.saturating_mul(4) / 3)?;
    let mut buf = vec![0u8; n];
    OsRng.fill_bytes(&mut buf);
    Ok(Value::String(STANDARD.encode(buf).into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aes_round_trips() {
        let c = encrypt_aes("secretkey", "plaintext");
        assert_eq!(decrypt_aes("secretkey", &c).unwrap(), "plaintext");
        assert_eq!(encrypt_aes("k", ""), "");
    }

    #[test]
    fn bcrypt_uses_go_prefix_and_cost() {
        let h = bcrypt_hash("pw");
        assert!(h.starts_with("$2a$10$") && h.len() == 60, "{h}");
        assert!(bcrypt::verify("pw", &h).unwrap());
    }

    #[test]
    fn derive_password_matches_sprig() {
        // Value from sprig's crypto_test.go.
        assert_eq!(
            derive_password(1, "long", "password", "user", "example.com"),
            "ZedaFaxcZaso9*"
        );
    }
}
