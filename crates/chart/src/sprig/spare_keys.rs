//! RSA keys made ahead, on every core. A chart that makes certificates (`genCA`,
//! `genSignedCert`, `genPrivateKey`) spends nearly all its render time generating RSA keys,
//! and the time one key takes varies several-fold with the prime search. So keys are made
//! by background makers, up to one per core (at most [`MAKERS`]), and a render that needs a
//! key takes the first one any maker finishes: two makers racing for the first key wait
//! for the faster search, and the slower one's key serves the next request. A certificate
//! function announces its key as soon as it is called ([`expect`]), before the value is
//! read. At most [`SPARES`] keys of each size wait; makers stop when that many are ready;
//! a key is handed out once.
use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard};

use rcgen::{KeyPair, RsaKeySize};

/// Keys of one size kept ready.
const SPARES: usize = 2;
/// Makers of one size at once, whatever the core count.
const MAKERS: usize = 2;

#[derive(Default)]
struct Spares {
    /// PKCS#8 DER of ready keys, by bit size.
    keys: HashMap<usize, Vec<Vec<u8>>>,
    /// Makers running now, by bit size.
    making: HashMap<usize, usize>,
}

impl Spares {
    fn ready(&self, bits: usize) -> usize {
        self.keys.get(&bits).map_or(0, Vec::len)
    }

    fn making(&self, bits: usize) -> usize {
        self.making.get(&bits).copied().unwrap_or(0)
    }
}

static SPARE_KEYS: Mutex<Option<Spares>> = Mutex::new(None);
/// Signalled whenever a maker adds a key or stops.
static CHANGED: Condvar = Condvar::new();

fn spares() -> MutexGuard<'static, Option<Spares>> {
    SPARE_KEYS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A fresh RSA key of `bits` (2048 or 4096): a spare if one is ready, else the first one
/// a maker finishes. Where no maker can run (no threads), or the makers failed, the key is
/// made here and its error reported.
pub fn rsa(bits: usize) -> Result<KeyPair, String> {
    let mut guard = spares();
    let mut started = false;
    loop {
        let state = guard.get_or_insert_with(Spares::default);
        if let Some(der) = state.keys.get_mut(&bits).and_then(Vec::pop) {
            start_makers(state, bits);
            drop(guard);
            return KeyPair::try_from(der.as_slice()).map_err(|e| e.to_string());
        }
        if state.making(bits) == 0 {
            // Makers that were started for this request and stopped without a key failed:
            // make it here, where the error reaches the template.
            if started || start_makers(state, bits) == 0 {
                drop(guard);
                return make(bits);
            }
            started = true;
        }
        guard = CHANGED
            .wait(guard)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
    }
}

/// A key of `bits` will be asked for soon: start making it now.
pub fn expect(bits: usize) {
    start_makers(spares().get_or_insert_with(Spares::default), bits);
}

fn make(bits: usize) -> Result<KeyPair, String> {
    let size = if bits == 4096 {
        RsaKeySize::_4096
    } else {
        RsaKeySize::_2048
    };
    KeyPair::generate_rsa_for(&rcgen::PKCS_RSA_SHA256, size).map_err(|e| e.to_string())
}

/// Start makers of `bits` until one per core runs or enough keys are ready or coming;
/// returns how many makers run now.
fn start_makers(state: &mut Spares, bits: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    while state.making(bits) < cores.min(MAKERS) && state.ready(bits) + state.making(bits) < SPARES
    {
        let spawned = std::thread::Builder::new()
            .name("spare-rsa-keys".into())
            .spawn(move || maker(bits));
        if spawned.is_err() {
            // No thread (a limit of the process): keys are made when asked for.
            break;
        }
        *state.making.entry(bits).or_default() += 1;
    }
    state.making(bits)
}

/// Make keys of `bits` until, counting the other makers' keys in progress, [`SPARES`] are
/// ready. A failure stops the maker: a waiting request then makes its key itself.
fn maker(bits: usize) {
    loop {
        let made = make(bits).map(|key| key.serialize_der());
        let mut guard = spares();
        let state = guard.get_or_insert_with(Spares::default);
        let stop = match made {
            Ok(der) => {
                state.keys.entry(bits).or_default().push(der);
                state.ready(bits) + state.making(bits) > SPARES
            }
            Err(_) => true,
        };
        if stop {
            *state.making.entry(bits).or_default() -= 1;
        }
        CHANGED.notify_all();
        if stop {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wait until no maker of `bits` runs.
    fn settle(bits: usize) {
        for _ in 0..1000 {
            if spares().as_ref().is_none_or(|s| s.making(bits) == 0) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        panic!("the {bits}-bit key makers did not stop");
    }

    #[test]
    fn every_key_is_handed_out_once_and_spares_stay_bounded() {
        // Requests from several threads at once, more than the spares and makers.
        let keys: Vec<Vec<u8>> = std::thread::scope(|scope| {
            let requests: Vec<_> = (0..6)
                .map(|_| scope.spawn(|| rsa(2048).unwrap().serialize_der()))
                .collect();
            requests.into_iter().map(|r| r.join().unwrap()).collect()
        });
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(a, b, "a key was handed out twice");
            }
        }
        settle(2048);
        let ready = spares().as_ref().map_or(0, |s| s.ready(2048));
        assert!(ready <= SPARES, "{ready} spare keys");
    }

    #[test]
    fn an_expected_key_is_made_ahead_and_the_makers_stop_at_the_bound() {
        // 4096-bit keys: no other test of this crate asks for them.
        expect(4096);
        settle(4096);
        let ready = spares().as_ref().map_or(0, |s| s.ready(4096));
        assert_eq!(ready, SPARES, "expect() fills the spares, no more");
        let key = rsa(4096).unwrap();
        assert!(key.serialize_der().len() > 2000, "a 4096-bit key");
    }
}
