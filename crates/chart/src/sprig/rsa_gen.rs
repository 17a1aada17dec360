//! RSA key generation that the caller may give up part way.
//!
//! The key makers of [`super::spare_keys`] make keys a render has announced and may not
//! need after all (a certificate nobody reads, a render that ended). A key takes tens of
//! milliseconds of prime search; a maker that keeps searching for a key nobody wants
//! takes a core from whatever runs next. So `keep_going` is asked before every prime
//! candidate, and the search stops when it says so.
//!
//! The primes come from [`super::rsa_primes`] (a faster search than AWS-LC's
//! `RSA_generate_key_ex`, to the same standard); this module makes the key from them the
//! way FIPS 186-5 A.1.1 and Go's crypto/rsa do: e = 65537, n = pq, d above 2^(nlen/2),
//! the CRT values, AWS-LC's own check of the whole key and a pairwise sign-and-verify
//! test. One difference: d = e^-1 mod (p-1)(q-1), as RSA's paper and PKCS #1 allow, where
//! FIPS 186-5, Go 1.26 and AWS-LC reduce it mod lcm(p-1, q-1). The key works the same
//! (private operations use the CRT values, which are equal either way), and it spares the
//! lcm: Go computes it with variable-time steps, and AWS-LC's constant-time one is not
//! exported. Every step on the secret values is constant time: AWS-LC's
//! inversion modulo an even number, and its Montgomery exponentiation for q^-1 mod p.
use std::os::raw::c_uint;

use aws_lc_sys as ffi;

use super::lc::{Owned, der};
use super::rsa_primes::{E, Sieve, Words, bn, montgomery, random_prime};

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

const OUT_OF_MEMORY: Failure = Failure::Failed("out of memory");

/// A new RSA key of `bits` (a multiple of 128 from 1024 to 16384: a larger key takes
/// minutes) as PKCS#8 DER, or [`Failure::Abandoned`] as soon as `keep_going` returns false
/// (it is asked once per prime candidate).
pub fn generate(bits: u32, mut keep_going: impl FnMut() -> bool) -> Result<Vec<u8>, Failure> {
    let bits = usize::try_from(bits).map_err(|_| Failure::Failed("key size out of range"))?;
    if !(1024..=16384).contains(&bits) || bits % 128 != 0 {
        return Err(Failure::Failed(
            "RSA key sizes are multiples of 128 bits from 1024 to 16384",
        ));
    }
    let prime_bits = bits / 2;
    // SAFETY: BN_CTX_new returns an owned object or null.
    let ctx = Owned::new(unsafe { ffi::BN_CTX_new() }, ffi::BN_CTX_free).ok_or(OUT_OF_MEMORY)?;
    let mut sieve = Sieve::new(prime_bits / 64);
    let made = loop {
        let p = random_prime(prime_bits, None, &mut sieve, &ctx, &mut keep_going)?;
        let q = random_prime(prime_bits, Some(&p), &mut sieve, &ctx, &mut keep_going)?;
        match key(&p, &q, bits, &ctx) {
            Ok(None) => {}
            Ok(Some(rsa)) => break pkcs8(rsa),
            Err(failure) => break Err(failure),
        }
    };
    if made.is_err() {
        // SAFETY: clears this thread's AWS-LC error queue of the failure just reported.
        unsafe { ffi::ERR_clear_error() };
    }
    made
}

/// The key of the primes `p` and `q` of `bits / 2` bits each, or `None` when its d is
/// too small (FIPS 186-5 A.1.1 step 3: a new pair of primes is needed, which happens with
/// probability about 2^-(bits/2)).
#[allow(
    clippy::many_single_char_names,
    clippy::similar_names,
    reason = "the names FIPS 186-5 gives RSA's values (p, q, n, e, d, dmp1, dmq1)"
)]
fn key(
    p: &Words,
    q: &Words,
    bits: usize,
    ctx: &Owned<ffi::BN_CTX>,
) -> Result<Option<Owned<ffi::RSA>>, Failure> {
    let (mut p, mut q) = (p.to_bn()?, q.to_bn()?);
    let (e, n, phi, d, dmp1, dmq1, iqmp) = (bn()?, bn()?, bn()?, bn()?, bn()?, bn()?, bn()?);
    let (p_minus_1, q_minus_1, p_minus_2) = (bn()?, bn()?, bn()?);
    // SAFETY: valid objects throughout; every result is checked.
    unsafe {
        // p > q, as AWS-LC's keys have it (which one is larger is all this tells).
        if ffi::BN_cmp(p.0, q.0) < 0 {
            std::mem::swap(&mut p, &mut q);
        }
        let ok = |result: std::os::raw::c_int| {
            if result == 1 {
                Ok(())
            } else {
                Err(OUT_OF_MEMORY)
            }
        };
        let not_null = |result: *mut ffi::BIGNUM| {
            if result.is_null() {
                Err(OUT_OF_MEMORY)
            } else {
                Ok(())
            }
        };
        ok(ffi::BN_set_word(e.0, E))?;
        not_null(ffi::BN_copy(p_minus_1.0, p.0))?;
        ok(ffi::BN_clear_bit(p_minus_1.0, 0))?;
        not_null(ffi::BN_copy(q_minus_1.0, q.0))?;
        ok(ffi::BN_clear_bit(q_minus_1.0, 0))?;
        ok(ffi::BN_mul(n.0, p.0, q.0, ctx.0))?;
        ok(ffi::BN_mul(phi.0, p_minus_1.0, q_minus_1.0, ctx.0))?;
        // Inverses modulo an even number are constant time in AWS-LC. e has one: the
        // sieve ruled out primes one more than a multiple of e.
        not_null(ffi::BN_mod_inverse(d.0, e.0, phi.0, ctx.0))?;
        if ffi::BN_num_bits(d.0) as usize <= bits / 2 {
            return Ok(None);
        }
        not_null(ffi::BN_mod_inverse(dmp1.0, e.0, p_minus_1.0, ctx.0))?;
        not_null(ffi::BN_mod_inverse(dmq1.0, e.0, q_minus_1.0, ctx.0))?;
        // q^-1 mod p = q^(p-2) mod p (Fermat), in constant time.
        not_null(ffi::BN_copy(p_minus_2.0, p_minus_1.0))?;
        ok(ffi::BN_sub_word(p_minus_2.0, 1))?;
        let mont_p = montgomery(&p, ctx)?;
        ok(ffi::BN_mod_exp_mont_consttime(
            iqmp.0,
            q.0,
            p_minus_2.0,
            p.0,
            ctx.0,
            mont_p.0,
        ))?;
        // Checks the key whole (n = pq, d e = 1 mod p-1 and q-1, the CRT values).
        let rsa = Owned::new(
            ffi::RSA_new_private_key(n.0, e.0, d.0, p.0, q.0, dmp1.0, dmq1.0, iqmp.0),
            ffi::RSA_free,
        )
        .ok_or(Failure::Failed("the new RSA key failed its check"))?;
        pairwise_test(&rsa)?;
        Ok(Some(rsa))
    }
}

/// Signs a digest with the key and verifies the signature with its public half (the
/// pairwise consistency test FIPS asks of a new key, and Go makes).
fn pairwise_test(rsa: &Owned<ffi::RSA>) -> Result<(), Failure> {
    let digest: [u8; 32] = std::array::from_fn(|i| u8::try_from(i).unwrap_or(0));
    // SAFETY: `rsa` holds a whole key; the signature buffer has RSA_size bytes.
    unsafe {
        let mut signature = vec![0u8; ffi::RSA_size(rsa.0) as usize];
        let mut length: c_uint = 0;
        let signed = ffi::RSA_sign(
            ffi::NID_sha256,
            digest.as_ptr(),
            digest.len(),
            signature.as_mut_ptr(),
            &raw mut length,
            rsa.0,
        ) == 1;
        if signed
            && ffi::RSA_verify(
                ffi::NID_sha256,
                digest.as_ptr(),
                digest.len(),
                signature.as_ptr(),
                length as usize,
                rsa.0,
            ) == 1
        {
            return Ok(());
        }
        ffi::ERR_clear_error();
    }
    Err(Failure::Failed("the new RSA key failed its pairwise test"))
}

/// The key as PKCS#8 DER (what rcgen's `KeyPair` reads).
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
    use std::ptr;

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

    /// The key in `der`, parsed back by AWS-LC.
    fn parse(der: &[u8]) -> Owned<ffi::RSA> {
        let mut at = der.as_ptr();
        // SAFETY: reads at most `der.len()` bytes; returns an owned key or null.
        let pkey = Owned::new(
            unsafe {
                ffi::d2i_AutoPrivateKey(ptr::null_mut(), &raw mut at, der.len().try_into().unwrap())
            },
            ffi::EVP_PKEY_free,
        )
        .expect("a private key");
        // SAFETY: a valid key; returns a new reference to its RSA key or null.
        Owned::new(unsafe { ffi::EVP_PKEY_get1_RSA(pkey.0) }, ffi::RSA_free).expect("RSA")
    }

    /// `x` as a BIGNUM of `words` 64-bit words, for comparisons.
    fn words(x: *const ffi::BIGNUM) -> Words {
        let mut bytes = vec![0u8; 512];
        // SAFETY: a valid BIGNUM of at most 4096 bits.
        assert_eq!(
            unsafe { ffi::BN_bn2le_padded(bytes.as_mut_ptr(), 512, x) },
            1
        );
        Words(
            bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect(),
        )
    }

    #[test]
    #[allow(
        clippy::many_single_char_names,
        reason = "the names FIPS 186-5 gives RSA's values"
    )]
    fn keys_meet_fips_186_5_and_pass_aws_lc_checks() {
        for bits in [2048u32, 3072] {
            let der = generate(bits, || true).unwrap();
            let rsa = parse(&der);
            let half = bits as usize / 2;
            // SAFETY: a whole private key; the getters return borrowed pointers.
            unsafe {
                assert_eq!(ffi::RSA_check_key(rsa.0), 1, "AWS-LC's key check");
                let (mut n, mut e, mut d) = (ptr::null(), ptr::null(), ptr::null());
                ffi::RSA_get0_key(rsa.0, &raw mut n, &raw mut e, &raw mut d);
                let (mut p, mut q) = (ptr::null(), ptr::null());
                ffi::RSA_get0_factors(rsa.0, &raw mut p, &raw mut q);
                assert_eq!(ffi::BN_num_bits(n) as u32, bits);
                assert_eq!(ffi::BN_get_word(e), E);
                assert_eq!(ffi::BN_num_bits(p) as usize, half, "p's size");
                assert_eq!(ffi::BN_num_bits(q) as usize, half, "q's size");
                assert!(ffi::BN_num_bits(d) as usize > half, "d > 2^(nlen/2)");
                let (p, q) = (words(p), words(q));
                assert!(p.0[half / 64 - 1] >> 62 == 0b11 && q.0[half / 64 - 1] >> 62 == 0b11);
                // |p - q| > 2^(nlen/2 - 100): the difference has a bit above that.
                let difference = bn().unwrap();
                let (pb, qb) = (p.to_bn().unwrap(), q.to_bn().unwrap());
                assert_eq!(ffi::BN_sub(difference.0, pb.0, qb.0), 1);
                assert!(ffi::BN_num_bits(difference.0) as usize > half - 100);
                // Both prime, by AWS-LC's own test.
                for prime in [&pb, &qb] {
                    let mut is_prime = 0;
                    assert_eq!(
                        ffi::BN_primality_test(
                            &raw mut is_prime,
                            prime.0,
                            0,
                            ptr::null_mut(),
                            1,
                            ptr::null_mut()
                        ),
                        1
                    );
                    assert_eq!(is_prime, 1);
                }
            }
            pairwise_test(&rsa).unwrap();
        }
    }

    #[test]
    fn sizes_off_the_grid_are_refused() {
        for bits in [0, 512, 2047, 2112, 16512] {
            assert!(
                matches!(generate(bits, || true), Err(Failure::Failed(why)) if why.contains("128 bits")),
                "{bits}"
            );
        }
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
