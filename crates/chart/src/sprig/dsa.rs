//! `genPrivateKey "dsa"`: a fresh DSA key as Go's sprig makes it (crypto/dsa's
//! `GenerateParameters` with `L2048N256`, then `GenerateKey`), printed as Go prints it: a
//! "DSA PRIVATE KEY" PEM block holding `SEQUENCE { 0, p, q, g, y, x }`.
//!
//! The parameters come from AWS-LC, the crate's one crypto stack: FIPS 186-3 generation
//! of a 2048-bit `p` and a 256-bit `q` (SHA-256 for moduli of 2048 bits) from a random
//! seed, and a private key drawn from its random generator, so every call makes new
//! primes and a new key as Go's does. aws-lc-rs has no DSA API, so this module calls the
//! C library directly (see [`super::lc`]).
use aws_lc_sys as ffi;

use super::lc::{Owned, der};

/// The modulus size Go's sprig asks for (dsa.L2048N256).
const MODULUS_BITS: u32 = 2048;

/// The DER of a new DSA private key in the OpenSSL layout Go's sprig writes.
pub fn private_key_der() -> Result<Vec<u8>, String> {
    // SAFETY: DSA_new returns an owned object or null.
    let dsa = Owned::new(unsafe { ffi::DSA_new() }, ffi::DSA_free).ok_or("dsa: out of memory")?;
    let null = std::ptr::null_mut();
    // SAFETY: `dsa.0` is a valid DSA; no seed (a random one is drawn), no counter, no
    // callback.
    let generated = unsafe {
        ffi::DSA_generate_parameters_ex(
            dsa.0,
            MODULUS_BITS,
            std::ptr::null(),
            0,
            null,
            null.cast(),
            null.cast(),
        )
    };
    // SAFETY: `dsa.0` holds parameters when the call above succeeded.
    if generated != 1 || unsafe { ffi::DSA_generate_key(dsa.0) } != 1 {
        return Err("dsa: generating the parameters or the key failed".into());
    }
    // SAFETY: `dsa.0` holds a whole key; the builder is valid while `der` runs.
    der(|cbb| unsafe { ffi::DSA_marshal_private_key(cbb, dsa.0) })
        .ok_or_else(|| "dsa: encoding the key failed".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The DER elements of a SEQUENCE's contents: (tag, contents) pairs.
    fn elements(mut der: &[u8]) -> Vec<(u8, &[u8])> {
        let mut out = Vec::new();
        while let Some((tag, contents, rest)) = super::super::certs::der_element(der) {
            out.push((tag, contents));
            der = rest;
        }
        out
    }

    fn bits(integer: &[u8]) -> usize {
        let trimmed: Vec<u8> = integer.iter().copied().skip_while(|b| *b == 0).collect();
        trimmed.len() * 8 - trimmed.first().map_or(8, |b| b.leading_zeros() as usize)
    }

    #[test]
    fn keys_have_go_sizes_and_layout_and_are_fresh_each_time() {
        let first = private_key_der().unwrap();
        let (tag, body, rest) = super::super::certs::der_element(&first).unwrap();
        assert_eq!((tag, rest.len()), (0x30, 0), "one SEQUENCE");
        let fields = elements(body);
        assert_eq!(fields.len(), 6, "version, p, q, g, y, x");
        assert!(fields.iter().all(|(tag, _)| *tag == 0x02), "all INTEGERs");
        assert_eq!(fields[0].1, [0], "version 0");
        assert_eq!(bits(fields[1].1), 2048, "p");
        assert_eq!(bits(fields[2].1), 256, "q");
        let second = private_key_der().unwrap();
        let other = elements(super::super::certs::der_element(&second).unwrap().1);
        assert_ne!(fields[1].1, other[1].1, "new parameters each time");
        assert_ne!(fields[5].1, other[5].1, "new private key each time");
    }
}
