//! RSA key generation that the caller may give up part way.
//!
//! The key makers of [`super::spare_keys`] make keys a render has announced and may not
//! need after all (a certificate nobody reads, a render that ended). A key takes tens of
//! milliseconds of prime search; a maker that keeps searching for a key nobody wants
//! takes a core from whatever runs next. AWS-LC's generator asks a callback between
//! candidates, and stops when it says so; aws-lc-rs does not expose that, so this module
//! calls the same C function aws-lc-rs uses (RSA_generate_key_ex, public exponent 65537,
//! the same prime search and checks) with a callback of ours (see [`super::lc`]).
use std::os::raw::{c_int, c_void};

use aws_lc_sys as ffi;

use super::lc::{Owned, der};

/// Why no key came out.
#[derive(Debug, PartialEq)]
pub enum Failure {
    /// `keep_going` said to stop.
    Abandoned,
    /// AWS-LC failed (out of memory, or the prime search gave up).
    Failed(&'static str),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Abandoned => f.write_str("key generation abandoned"),
            Failure::Failed(why) => f.write_str(why),
        }
    }
}

/// The callback AWS-LC calls between prime candidates: 1 to go on, 0 to stop.
unsafe extern "C" fn progress(_event: c_int, _n: c_int, cb: *mut ffi::BN_GENCB) -> c_int {
    // SAFETY: the argument is the `&mut dyn FnMut` that `generate` set and that outlives
    // the generation.
    let keep_going = unsafe { &mut *ffi::BN_GENCB_get_arg(cb).cast::<&mut dyn FnMut() -> bool>() };
    c_int::from(keep_going())
}

/// A new RSA key of `bits` as PKCS#8 DER, or [`Failure::Abandoned`] as soon as
/// `keep_going` returns false (it is asked once per prime candidate).
pub fn generate(bits: u32, mut keep_going: impl FnMut() -> bool) -> Result<Vec<u8>, Failure> {
    let bits = c_int::try_from(bits).map_err(|_| Failure::Failed("key size out of range"))?;
    const OUT_OF_MEMORY: Failure = Failure::Failed("out of memory");
    // SAFETY: each constructor returns an owned object or null.
    let (rsa, e, cb) = unsafe {
        (
            Owned::new(ffi::RSA_new(), ffi::RSA_free).ok_or(OUT_OF_MEMORY)?,
            Owned::new(ffi::BN_new(), ffi::BN_free).ok_or(OUT_OF_MEMORY)?,
            Owned::new(ffi::BN_GENCB_new(), ffi::BN_GENCB_free).ok_or(OUT_OF_MEMORY)?,
        )
    };
    let mut keep_going: &mut dyn FnMut() -> bool = &mut keep_going;
    // SAFETY: the objects are valid; the callback's argument points at `keep_going`,
    // which lives until the end of this function, after the generation returns.
    let generated = unsafe {
        if ffi::BN_set_word(e.0, 65537) != 1 {
            return Err(OUT_OF_MEMORY);
        }
        ffi::BN_GENCB_set(cb.0, Some(progress), (&raw mut keep_going).cast::<c_void>());
        ffi::RSA_generate_key_ex(rsa.0, bits, e.0, cb.0)
    };
    if generated != 1 {
        // SAFETY: clears this thread's AWS-LC error queue of the failure just reported.
        unsafe { ffi::ERR_clear_error() };
        return Err(if keep_going() {
            Failure::Failed("generating an RSA key failed")
        } else {
            Failure::Abandoned
        });
    }
    pkcs8(rsa)
}

/// The key as PKCS#8 DER (what rcgen's KeyPair reads).
fn pkcs8(rsa: Owned<ffi::RSA>) -> Result<Vec<u8>, Failure> {
    // SAFETY: EVP_PKEY_new returns an owned object or null.
    let pkey = Owned::new(unsafe { ffi::EVP_PKEY_new() }, ffi::EVP_PKEY_free)
        .ok_or(Failure::Failed("out of memory"))?;
    // SAFETY: on success the EVP_PKEY takes ownership of the RSA key; on failure it is
    // freed here.
    let rsa = rsa.into_raw();
    if unsafe { ffi::EVP_PKEY_assign_RSA(pkey.0, rsa) } != 1 {
        // SAFETY: not taken by the EVP_PKEY, so still ours.
        unsafe { ffi::RSA_free(rsa) };
        return Err(Failure::Failed("out of memory"));
    }
    // SAFETY: `pkey.0` holds a whole key; the builder is valid while `der` runs.
    der(|cbb| unsafe { ffi::EVP_marshal_private_key(cbb, pkey.0) })
        .ok_or(Failure::Failed("encoding the key failed"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_pkcs8_rsa_of_the_size_asked_and_fresh() {
        let a = generate(2048, || true).unwrap();
        let b = generate(2048, || true).unwrap();
        assert_ne!(a, b);
        let key = aws_lc_rs::rsa::KeyPair::from_pkcs8(&a).unwrap();
        assert_eq!(key.public_modulus_len(), 256, "2048 bits");
        assert!(rcgen::KeyPair::try_from(a.as_slice()).is_ok());
    }

    #[test]
    fn generation_stops_when_told() {
        let mut asked = 0;
        let result = generate(2048, || {
            asked += 1;
            asked < 3
        });
        assert_eq!(result, Err(Failure::Abandoned));
        assert!(asked >= 3, "asked between candidates");
    }
}
