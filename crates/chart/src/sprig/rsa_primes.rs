//! The two secret primes of an RSA key, found the way FIPS 186-5 appendix A.1.3 (and Go's
//! crypto/rsa, where Helm's keys come from) finds them: every candidate is drawn afresh
//! from AWS-LC's random generator with its top two bits and its bottom bit set, numbers
//! with a small factor (or one more than a multiple of e) are ruled out by trial division,
//! and what remains is tested by Miller-Rabin with a fresh random base per round, as many
//! rounds as FIPS 186-5 table B.1 asks for the size.
//!
//! This is ours rather than AWS-LC's `RSA_generate_key_ex` because of where that one spends
//! its time (perf, 2048-bit keys): a fifth in trial division by 512 primes one remainder
//! at a time (about 28 µs per candidate), and some two fifths of its modular arithmetic on
//! the two primes found, each tested with at least 16 rounds (FIPS asks 5) that each square
//! to the full bit length. Here trial division by the 1027 odd primes below 2^13 takes
//! about 5 µs per candidate ([`Sieve`]), and a prime costs the rounds FIPS asks for, each
//! squaring at most [`SQUARINGS`] times unless w-1 has more factors of two (see
//! [`MillerRabin::round`]). Keys come about twice as fast, and faster than Go's.
//! The arithmetic is AWS-LC's (Montgomery exponentiation and multiplication, constant time
//! in the candidate); what is done here in Rust on a candidate's words is constant time too.
//! Work on a candidate found composite may take any time: it is thrown away.
use std::os::raw::c_int;
use std::ptr;

use aws_lc_sys as ffi;

use super::lc::Owned;
use super::rsa_gen::Failure;

/// The public exponent of every key made here (what Helm and AWS-LC use).
pub(super) const E: u64 = 65537;

/// Trial division is by the odd primes below this bound. Each prime p saves the candidates
/// it divides (1 in p of those left) a Miller-Rabin round, an exponentiation of a few
/// hundred µs; its cost per candidate is about 5 ns (measured), which the primes up to
/// about 2^13 repay. Unoptimised builds (the tests') run the sieve's loops some fifty times
/// slower, while AWS-LC's C is optimised anyway: there a short sieve keeps keys about as
/// fast as AWS-LC's own.
const SIEVE_BOUND: u32 = if cfg!(debug_assertions) {
    1 << 8
} else {
    1 << 13
};

/// Squarings a Miller-Rabin round on a prime does at least: a round leaks how many it did
/// only when w-1 has more factors of two than this, which a random prime does with
/// probability 2^-64. AWS-LC squares to the full bit length instead (1023 squarings for a
/// 2048-bit key's prime, 16 rounds); Go stops where the round's answer is known.
const SQUARINGS: u32 = 64;

/// Candidates drawn for one prime before giving up: a prime is found after a few hundred;
/// this many failing means the random generator is broken.
const TRIES_PER_BIT: usize = 100;

/// An all-ones mask when `x` is zero, else zero; without a branch.
fn zero_mask(x: u64) -> u64 {
    ((x | x.wrapping_neg()) >> 63).wrapping_sub(1)
}

/// A number of 64-bit words, least significant first, wiped when dropped.
pub(super) struct Words(pub(super) Vec<u64>);

/// Zeroes memory that held a secret, in a way the compiler keeps although the memory is
/// about to be freed.
fn wipe<T: Copy + Default>(secret: &mut [T]) {
    for item in secret {
        // SAFETY: a valid, aligned pointer to an item of the slice.
        unsafe { ptr::write_volatile(item, T::default()) };
    }
}

impl Drop for Words {
    fn drop(&mut self) {
        wipe(&mut self.0);
    }
}

impl Words {
    /// The number as a fresh AWS-LC BIGNUM.
    pub(super) fn to_bn(&self) -> Result<Owned<ffi::BIGNUM>, Failure> {
        let mut bytes: Vec<u8> = self.0.iter().flat_map(|w| w.to_le_bytes()).collect();
        // SAFETY: BN_le2bn reads `bytes.len()` bytes and returns a new BIGNUM or null.
        let bn = unsafe { ffi::BN_le2bn(bytes.as_ptr(), bytes.len(), ptr::null_mut()) };
        wipe(&mut bytes);
        Owned::new(bn, ffi::BN_free).ok_or(OUT_OF_MEMORY)
    }

    /// The number with its bit 0 cleared (w-1 for an odd w).
    fn minus_one(&self) -> Words {
        let mut less = Words(self.0.clone());
        less.0[0] &= !1;
        less
    }

    /// How many times two divides the number (its bit length when zero), in constant time.
    fn trailing_zeros(&self) -> u32 {
        let (mut count, mut below) = (0u64, u64::MAX);
        for &word in &self.0 {
            count += u64::from(word.trailing_zeros()) & below;
            below &= zero_mask(word);
        }
        u32::try_from(count).unwrap_or(u32::MAX)
    }

    /// The number shifted right by `shift` bits, in time independent of `shift` (below
    /// 2^16).
    fn shifted_right(&self, shift: u32) -> Words {
        let mut value = Words(self.0.clone());
        let mut step = Words(vec![0; self.0.len()]);
        for bit in 0..16 {
            let by = 1usize << bit;
            let (words, bits) = (by / 64, by % 64);
            for i in 0..value.0.len() {
                let low = value.0.get(i + words).copied().unwrap_or(0);
                let high = value.0.get(i + words + 1).copied().unwrap_or(0);
                step.0[i] = if bits == 0 {
                    low
                } else {
                    (low >> bits) | (high << (64 - bits))
                };
            }
            let take = 0u64.wrapping_sub(u64::from((shift >> bit) & 1));
            for (v, s) in value.0.iter_mut().zip(&step.0) {
                *v = (*v & !take) | (s & take);
            }
        }
        value
    }

    /// Whether |self - other| > 2^(bits-100), where both have `bits` bits (FIPS 186-5
    /// A.1.3 step 5.4); leaks only how far apart the two are at that precision.
    fn far_from(&self, other: &Words, bits: usize) -> bool {
        let mut difference = Vec::with_capacity(self.0.len());
        let mut borrow = 0u64;
        for (&a, &b) in self.0.iter().zip(&other.0) {
            let (d, b1) = a.overflowing_sub(b);
            let (d, b2) = d.overflowing_sub(borrow);
            difference.push(d);
            borrow = u64::from(b1 | b2);
        }
        // Negate when other > self: two's complement under a mask.
        let negate = 0u64.wrapping_sub(borrow);
        let mut carry = borrow;
        for d in &mut difference {
            let (sum, c) = (*d ^ negate).overflowing_add(carry);
            *d = sum;
            carry = u64::from(c);
        }
        // More than 2^(bits-100) when any bit from bits-99 up is set (a bound a hair
        // stricter than FIPS's, which only drops candidates it would also drop).
        let first = bits - 99;
        let mut above = 0u64;
        for (i, d) in difference.iter().enumerate() {
            let lowest = i * 64;
            if lowest + 64 <= first {
                continue;
            }
            above |= if lowest >= first {
                *d
            } else {
                d >> (first - lowest)
            };
        }
        drop(Words(difference));
        above != 0
    }
}

/// Trial division of candidates of one size by the small primes, in constant time: the
/// candidate's 32-bit digits `d_i` times 2^(32 i) mod p, summed for every prime p at once
/// (a loop the compiler vectorises), then each sum reduced mod p by a Barrett reduction.
/// Sums stay below 2^64: digits below 2^32, powers below 2^17, at most 2^14 digits.
pub(super) struct Sieve {
    /// The odd primes below [`SIEVE_BOUND`], then [`E`].
    moduli: Vec<u64>,
    /// The residue that rules a candidate out: 0 (a factor), and 1 for e (e divides w-1,
    /// so e has no inverse mod w-1: FIPS 186-5 A.1.3 step 4.5).
    ruled_out: Vec<u64>,
    /// floor(2^64 / m) for each modulus m.
    reciprocals: Vec<u64>,
    /// 2^(32 i) mod m, digit i's row of one entry per modulus (32 bits, so that the
    /// products are 32 by 32 bits, which vectorise).
    powers: Vec<u32>,
    /// Per-modulus sums, reused between candidates.
    sums: Vec<u64>,
    /// The candidate's 32-bit digits, least significant first.
    digits: Vec<u32>,
    /// Whether the CPU has AVX2, which does four of the sums' products at once.
    avx2: bool,
}

/// sums[j] += digits[i] * powers[i][j] for every digit i and modulus j.
#[allow(
    clippy::inline_always,
    reason = "the AVX2 copy below is compiled for AVX2 only if this body is inlined into it"
)]
#[inline(always)]
fn accumulate(sums: &mut [u64], digits: &[u32], powers: &[u32]) {
    for (&digit, row) in digits.iter().zip(powers.chunks_exact(sums.len())) {
        let digit = u64::from(digit);
        for (sum, &power) in sums.iter_mut().zip(row) {
            *sum += digit * u64::from(power);
        }
    }
}

/// [`accumulate`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn accumulate_avx2(sums: &mut [u64], digits: &[u32], powers: &[u32]) {
    accumulate(sums, digits, powers);
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn accumulate_avx2(sums: &mut [u64], digits: &[u32], powers: &[u32]) {
    accumulate(sums, digits, powers);
}

impl Sieve {
    /// A sieve for numbers of `words` 64-bit words.
    pub(super) fn new(words: usize) -> Sieve {
        let mut moduli = odd_primes_below(SIEVE_BOUND);
        let mut ruled_out = vec![0; moduli.len()];
        moduli.push(E);
        ruled_out.push(1);
        let reciprocals = moduli.iter().map(|m| u64::MAX / m).collect();
        let mut powers = Vec::with_capacity(2 * words * moduli.len());
        let mut row: Vec<u64> = vec![1; moduli.len()];
        for _ in 0..2 * words {
            powers.extend(row.iter().map(|&r| u32::try_from(r).unwrap_or(0)));
            for (r, m) in row.iter_mut().zip(&moduli) {
                *r = (*r << 32) % m;
            }
        }
        let sums = vec![0; moduli.len()];
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::arch::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        Sieve {
            digits: vec![0; 2 * words],
            avx2,
            moduli,
            ruled_out,
            reciprocals,
            powers,
            sums,
        }
    }

    /// Whether `w` has a small factor, or is one more than a multiple of e; the same work
    /// whatever `w` is.
    pub(super) fn rules_out(&mut self, w: &Words) -> bool {
        for (pair, word) in self.digits.chunks_exact_mut(2).zip(&w.0) {
            pair[0] = (word & 0xffff_ffff) as u32;
            pair[1] = (word >> 32) as u32;
        }
        self.sums.fill(0);
        if self.avx2 {
            // SAFETY: the CPU has AVX2 (detected in `new`).
            unsafe { accumulate_avx2(&mut self.sums, &self.digits, &self.powers) };
        } else {
            accumulate(&mut self.sums, &self.digits, &self.powers);
        }
        let mut hit = 0u64;
        for (((&sum, &m), &reciprocal), &target) in self
            .sums
            .iter()
            .zip(&self.moduli)
            .zip(&self.reciprocals)
            .zip(&self.ruled_out)
        {
            // Barrett: the quotient estimate is short by at most one, so sum - q m < 2 m.
            let q =
                u64::try_from((u128::from(sum) * u128::from(reciprocal)) >> 64).unwrap_or(u64::MAX);
            let r = sum - q * m;
            let less = r.wrapping_sub(m);
            let r = less ^ ((r ^ less) & 0u64.wrapping_sub(less >> 63));
            hit |= zero_mask(r ^ target);
        }
        hit != 0
    }
}

/// The odd primes below `bound`, by the sieve of Eratosthenes.
fn odd_primes_below(bound: u32) -> Vec<u64> {
    let n = bound as usize;
    let mut composite = vec![false; n];
    let mut primes = Vec::new();
    for i in 3..n {
        if composite[i] || i % 2 == 0 {
            continue;
        }
        primes.push(i as u64);
        for multiple in (i * i..n).step_by(i) {
            composite[multiple] = true;
        }
    }
    primes
}

const OUT_OF_MEMORY: Failure = Failure::Failed("out of memory");

/// `result` of an AWS-LC call returning 1 on success.
fn ok(result: c_int) -> Result<(), Failure> {
    if result == 1 {
        Ok(())
    } else {
        Err(OUT_OF_MEMORY)
    }
}

/// A fresh, empty BIGNUM.
pub(super) fn bn() -> Result<Owned<ffi::BIGNUM>, Failure> {
    // SAFETY: BN_new returns an owned object or null.
    Owned::new(unsafe { ffi::BN_new() }, ffi::BN_free).ok_or(OUT_OF_MEMORY)
}

/// A Montgomery context for the odd modulus `m`, set up in constant time.
pub(super) fn montgomery(
    m: &Owned<ffi::BIGNUM>,
    ctx: &Owned<ffi::BN_CTX>,
) -> Result<Owned<ffi::BN_MONT_CTX>, Failure> {
    // SAFETY: valid objects; returns an owned context or null.
    Owned::new(
        unsafe { ffi::BN_MONT_CTX_new_consttime(m.0, ctx.0) },
        ffi::BN_MONT_CTX_free,
    )
    .ok_or(OUT_OF_MEMORY)
}

/// Miller-Rabin rounds for a prime of `bits` bits: FIPS 186-5 table B.1 (the same table
/// AWS-LC and Go use).
fn rounds(bits: usize) -> u32 {
    match bits {
        3747.. => 3,
        1345.. => 4,
        476.. => 5,
        400.. => 6,
        347.. => 7,
        308.. => 8,
        55.. => 27,
        _ => 34,
    }
}

/// One candidate w under Miller-Rabin (FIPS 186-5 B.3.1): w-1 = 2^a m with m odd.
struct MillerRabin<'c> {
    ctx: &'c Owned<ffi::BN_CTX>,
    w: Owned<ffi::BIGNUM>,
    w_minus_one: Owned<ffi::BIGNUM>,
    mont: Owned<ffi::BN_MONT_CTX>,
    m: Owned<ffi::BIGNUM>,
    a: u32,
    /// 1 and w-1 in Montgomery form.
    one: Owned<ffi::BIGNUM>,
    minus_one: Owned<ffi::BIGNUM>,
}

impl<'c> MillerRabin<'c> {
    fn new(w: &Words, ctx: &'c Owned<ffi::BN_CTX>) -> Result<Self, Failure> {
        let w_minus_one = w.minus_one();
        let a = w_minus_one.trailing_zeros();
        let m = w_minus_one.shifted_right(a).to_bn()?;
        let (w_minus_one, w) = (w_minus_one.to_bn()?, w.to_bn()?);
        let mont = montgomery(&w, ctx)?;
        let (one, minus_one) = (bn()?, bn()?);
        // SAFETY: valid objects throughout.
        unsafe {
            ok(ffi::BN_to_montgomery(
                one.0,
                ffi::BN_value_one(),
                mont.0,
                ctx.0,
            ))?;
            ok(ffi::BN_to_montgomery(
                minus_one.0,
                w_minus_one.0,
                mont.0,
                ctx.0,
            ))?;
        }
        Ok(MillerRabin {
            ctx,
            w,
            w_minus_one,
            mont,
            m,
            a,
            one,
            minus_one,
        })
    }

    /// One round with a fresh random base b, 1 < b < w-1: false when b proves w composite.
    ///
    /// z = b^m, then squared up to a-1 times looking for -1. Every step is constant time;
    /// a composite ends the round as soon as that is known (it is thrown away), a possible
    /// prime squares max(a, [`SQUARINGS`]) times, keeping on after -1 under a mask, so
    /// that a's value is not told unless it exceeds [`SQUARINGS`].
    fn round(&self) -> Result<bool, Failure> {
        let (b, z) = (bn()?, bn()?);
        let ctx = self.ctx.0;
        // SAFETY: valid objects throughout; `z` is reduced mod w before each
        // multiplication.
        unsafe {
            // The range rejects out-of-range draws (as FIPS's step 4.2 does), which may
            // take another draw about one time in four: it tells how close w is to the
            // next power of two, no more.
            ok(ffi::BN_rand_range_ex(b.0, 2, self.w_minus_one.0))?;
            ok(ffi::BN_mod_exp_mont_consttime(
                z.0,
                b.0,
                self.m.0,
                self.w.0,
                ctx,
                self.mont.0,
            ))?;
            ok(ffi::BN_to_montgomery(z.0, z.0, self.mont.0, ctx))?;
            let equal = |x: &Owned<ffi::BIGNUM>| {
                0u64.wrapping_sub(u64::from(ffi::BN_equal_consttime(z.0, x.0) == 1))
            };
            let mut possibly_prime = equal(&self.one) | equal(&self.minus_one);
            let squarings = self.a.max(SQUARINGS);
            for j in 1..squarings {
                let at_a = zero_mask(u64::from(j ^ self.a));
                if at_a & !possibly_prime != 0 {
                    // All a-1 squarings done without meeting -1: composite.
                    return Ok(false);
                }
                ok(ffi::BN_mod_mul_montgomery(z.0, z.0, z.0, self.mont.0, ctx))?;
                // -1 counts only before the a-th squaring; after it, only a composite is
                // still looking, and it stopped above.
                possibly_prime |= equal(&self.minus_one);
                if equal(&self.one) & !possibly_prime != 0 {
                    // 1 without -1 before it: a square root of 1 other than ±1.
                    return Ok(false);
                }
            }
            Ok(possibly_prime != 0)
        }
    }
}

/// Whether the odd `w` of `bits` bits passes Miller-Rabin with the rounds FIPS asks for.
fn probably_prime(w: &Words, bits: usize, ctx: &Owned<ffi::BN_CTX>) -> Result<bool, Failure> {
    let test = MillerRabin::new(w, ctx)?;
    for _ in 0..rounds(bits) {
        if !test.round()? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A random prime of `bits` bits (a multiple of 64) with e not dividing it minus one and,
/// given `other`, far enough from it; `keep_going` is asked before every candidate and
/// the search is abandoned when it says no.
pub(super) fn random_prime(
    bits: usize,
    other: Option<&Words>,
    sieve: &mut Sieve,
    ctx: &Owned<ffi::BN_CTX>,
    keep_going: &mut dyn FnMut() -> bool,
) -> Result<Words, Failure> {
    let words = bits / 64;
    let mut bytes = vec![0u8; words * 8];
    let mut w = Words(vec![0; words]);
    for _ in 0..TRIES_PER_BIT * bits {
        if !keep_going() {
            return Err(Failure::Abandoned);
        }
        // SAFETY: RAND_bytes fills the buffer it is given.
        ok(unsafe { ffi::RAND_bytes(bytes.as_mut_ptr(), bytes.len()) })?;
        for (word, chunk) in w.0.iter_mut().zip(bytes.chunks_exact(8)) {
            *word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        }
        // Top two bits set: w > 2^(bits-1) √2 (FIPS 186-5 A.1.3 step 4.4) and the
        // product of two such primes has exactly twice the bits. Odd.
        w.0[words - 1] |= 0b11 << 62;
        w.0[0] |= 1;
        if other.is_some_and(|p| !w.far_from(p, bits)) || sieve.rules_out(&w) {
            continue;
        }
        if probably_prime(&w, bits, ctx)? {
            wipe(&mut bytes);
            return Ok(w);
        }
    }
    wipe(&mut bytes);
    Err(Failure::Failed(
        "no prime found: is the random generator broken?",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> Owned<ffi::BN_CTX> {
        // SAFETY: returns an owned object or null.
        Owned::new(unsafe { ffi::BN_CTX_new() }, ffi::BN_CTX_free).unwrap()
    }

    fn random_words(words: usize) -> Words {
        let mut bytes = vec![0u8; words * 8];
        // SAFETY: fills the buffer it is given.
        assert_eq!(
            unsafe { ffi::RAND_bytes(bytes.as_mut_ptr(), bytes.len()) },
            1
        );
        Words(
            bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect(),
        )
    }

    /// `w` mod `m` by AWS-LC (in variable time, which a test may).
    fn remainder(w: &Words, m: u64) -> u64 {
        let bn = w.to_bn().unwrap();
        // SAFETY: a valid BIGNUM.
        unsafe { ffi::BN_mod_word(bn.0, m) }
    }

    /// AWS-LC's own verdict on `w`, with its trial division and Miller-Rabin.
    fn aws_lc_says_prime(w: &Words, ctx: &Owned<ffi::BN_CTX>) -> bool {
        let bn = w.to_bn().unwrap();
        let mut prime = 0;
        // SAFETY: valid objects; no callback.
        let tested =
            unsafe { ffi::BN_primality_test(&raw mut prime, bn.0, 0, ctx.0, 1, ptr::null_mut()) };
        assert_eq!(tested, 1);
        prime == 1
    }

    #[test]
    fn the_sieve_rules_out_exactly_small_factors_and_one_more_than_a_multiple_of_e() {
        for words in [4, 16, 32] {
            let mut sieve = Sieve::new(words);
            for round in 0..300 {
                let mut w = random_words(words);
                // Force some candidates onto the cases the sieve is for.
                match round % 3 {
                    0 => {
                        let bn = w.to_bn().unwrap();
                        let m = [3, 5, 251, 8191, 4099][round % 5];
                        // SAFETY: a valid BIGNUM.
                        let r = unsafe { ffi::BN_mod_word(bn.0, m) };
                        w.0[0] = w.0[0].wrapping_sub(r);
                        if w.0[0] > u64::MAX - m {
                            continue; // the subtraction borrowed
                        }
                    }
                    1 => {
                        let r = remainder(&w, E);
                        if w.0[0] < r {
                            continue;
                        }
                        w.0[0] = w.0[0] - r + 1;
                    }
                    _ => {}
                }
                let expected = sieve.moduli[..sieve.moduli.len() - 1]
                    .iter()
                    .any(|&p| remainder(&w, p) == 0)
                    || remainder(&w, E) == 1;
                assert_eq!(sieve.rules_out(&w), expected, "{:x?}", w.0);
            }
        }
    }

    #[test]
    fn the_sieve_covers_the_odd_primes_below_its_bound_then_e() {
        let sieve = Sieve::new(16);
        let odd_primes: Vec<u64> = (3..u64::from(SIEVE_BOUND))
            .filter(|&n| (2..n).take_while(|d| d * d <= n).all(|d| n % d != 0))
            .collect();
        assert_eq!(sieve.moduli[..sieve.moduli.len() - 1], odd_primes);
        assert_eq!(sieve.moduli.last(), Some(&E));
        assert_eq!(sieve.ruled_out.iter().filter(|&&r| r == 1).count(), 1);
    }

    #[test]
    fn word_arithmetic_matches_aws_lc() {
        let ctx = ctx();
        for _ in 0..200 {
            let mut w = random_words(16);
            w.0[0] |= 1;
            let less = w.minus_one();
            let a = less.trailing_zeros();
            let less_bn = less.to_bn().unwrap();
            // SAFETY: a valid BIGNUM.
            assert_eq!(
                i64::from(a),
                i64::from(unsafe { ffi::BN_count_low_zero_bits(less_bn.0) })
            );
            for shift in [0, 1, 63, 64, 65, 700, 1023, a] {
                let expected = bn().unwrap();
                // SAFETY: valid objects.
                assert_eq!(
                    unsafe {
                        ffi::BN_rshift(expected.0, less_bn.0, c_int::try_from(shift).unwrap())
                    },
                    1
                );
                let ours = less.shifted_right(shift).to_bn().unwrap();
                // SAFETY: valid objects.
                assert_eq!(
                    unsafe { ffi::BN_cmp(ours.0, expected.0) },
                    0,
                    "shift {shift}"
                );
            }
        }
        let _ = ctx;
    }

    #[test]
    fn primes_must_be_more_than_2_to_the_bits_less_100_apart() {
        let bits = 1024;
        let p = random_words(16);
        let near = |delta_bit: usize, up: bool| {
            let mut q = Words(p.0.clone());
            let (word, bit) = (delta_bit / 64, delta_bit % 64);
            let mut carry = 1u64 << bit;
            for x in &mut q.0[word..] {
                let (sum, c) = if up {
                    x.overflowing_add(carry)
                } else {
                    x.overflowing_sub(carry)
                };
                *x = sum;
                carry = u64::from(c);
            }
            q
        };
        assert!(!p.far_from(&p, bits));
        for up in [true, false] {
            assert!(!p.far_from(&near(bits - 101, up), bits), "2^923 apart");
            assert!(!near(bits - 101, up).far_from(&p, bits), "2^923 apart");
            assert!(p.far_from(&near(bits - 99, up), bits), "2^925 apart");
            assert!(near(bits - 99, up).far_from(&p, bits), "2^925 apart");
        }
        assert!(p.far_from(&random_words(16), bits));
    }

    #[test]
    fn miller_rabin_agrees_with_aws_lc() {
        let ctx = ctx();
        let mut primes = 0;
        for _ in 0..3000 {
            let mut w = random_words(4);
            w.0[0] |= 1;
            w.0[3] |= 1 << 63;
            let ours = probably_prime(&w, 256, &ctx).unwrap();
            assert_eq!(ours, aws_lc_says_prime(&w, &ctx), "{:x?}", w.0);
            primes += usize::from(ours);
        }
        // About 2 / ln(2^256) of odd numbers are prime: 34 in 3000.
        assert!(primes > 10, "{primes} primes");
    }

    #[test]
    fn miller_rabin_knows_large_primes_and_their_products() {
        let ctx = ctx();
        // SAFETY: returns a new BIGNUM of the RFC 3526 group's prime, or null.
        let prime = Owned::new(
            unsafe { ffi::BN_get_rfc3526_prime_2048(ptr::null_mut()) },
            ffi::BN_free,
        )
        .unwrap();
        let mut bytes = [0u8; 256];
        // SAFETY: the prime has 2048 bits.
        assert_eq!(
            unsafe { ffi::BN_bn2le_padded(bytes.as_mut_ptr(), 256, prime.0) },
            1
        );
        let words = |b: &[u8]| {
            Words(
                b.chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                    .collect(),
            )
        };
        assert!(probably_prime(&words(&bytes), 2048, &ctx).unwrap());
        // A product of two primes with no small factor.
        let product = bn().unwrap();
        let (p, q) = (
            prime_with_two_adic(128, 1, &ctx),
            prime_with_two_adic(128, 1, &ctx),
        );
        let (p, q) = (p.to_bn().unwrap(), q.to_bn().unwrap());
        // SAFETY: valid objects.
        assert_eq!(unsafe { ffi::BN_mul(product.0, p.0, q.0, ctx.0) }, 1);
        let mut bytes = [0u8; 32];
        // SAFETY: the product has 256 bits at most.
        assert_eq!(
            unsafe { ffi::BN_bn2le_padded(bytes.as_mut_ptr(), 32, product.0) },
            1
        );
        assert!(!probably_prime(&words(&bytes), 256, &ctx).unwrap());
    }

    /// A prime of `bits` bits (top bit set) of the form k 2^`a` + 1, by AWS-LC's test.
    fn prime_with_two_adic(bits: usize, a: u32, ctx: &Owned<ffi::BN_CTX>) -> Words {
        loop {
            let mut w = random_words(bits / 64);
            let (word, bit) = ((a / 64) as usize, a % 64);
            for x in &mut w.0[..word] {
                *x = 0;
            }
            w.0[word] &= !((1u64 << bit) - 1);
            w.0[word] |= 1 << bit; // exactly a factors of two in w-1
            w.0[0] |= 1;
            w.0[bits / 64 - 1] |= 1 << 63;
            if aws_lc_says_prime(&w, ctx) {
                return w;
            }
        }
    }

    #[test]
    fn primes_whose_minus_one_has_more_factors_of_two_than_the_squarings_pass() {
        let ctx = ctx();
        for a in [SQUARINGS - 1, SQUARINGS, SQUARINGS + 1, 100] {
            let w = prime_with_two_adic(256, a, &ctx);
            assert_eq!(w.minus_one().trailing_zeros(), a);
            assert!(probably_prime(&w, 256, &ctx).unwrap(), "a = {a}");
        }
        // And composites of that form fail.
        for _ in 0..50 {
            let mut w = random_words(4);
            w.0[0] = 1;
            w.0[1] &= !0xffff_ffff;
            w.0[1] |= 1 << 32; // w - 1 = k 2^96
            w.0[3] |= 1 << 63;
            assert_eq!(
                probably_prime(&w, 256, &ctx).unwrap(),
                aws_lc_says_prime(&w, &ctx)
            );
        }
    }

    #[test]
    fn random_primes_have_the_bits_asked_and_are_prime() {
        let ctx = ctx();
        let mut sieve = Sieve::new(8);
        let p = random_prime(512, None, &mut sieve, &ctx, &mut || true).unwrap();
        let q = random_prime(512, Some(&p), &mut sieve, &ctx, &mut || true).unwrap();
        for prime in [&p, &q] {
            assert_eq!(prime.0[7] >> 62, 0b11, "top two bits set");
            assert!(aws_lc_says_prime(prime, &ctx));
            assert_ne!(remainder(prime, E), 1, "e divides p-1");
        }
        assert_ne!(p.0, q.0);
    }
}
