//! RSA keys made on every core, as they are needed. A chart that makes certificates
//! (`genCA`, `genSignedCert`, `genPrivateKey`) spends nearly all its render time generating
//! RSA keys, and the time one key takes varies several-fold with the prime search. So keys
//! are made by background makers, up to one per core (at most [`MAKERS`]), racing: a render
//! that needs a key takes the first one any maker finishes, and the slower maker's key
//! serves the next request. A certificate function announces its key as soon as it is
//! called ([`expect`]), before its value is read. Makers run only while keys are wanted
//! (announced, at most [`WANTED`] of a size, or waited for) and not yet made, so nothing is
//! left running to slow whatever the process does next; a key is handed out once.
use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};

use rcgen::{KeyPair, RsaKeySize};

/// Keys of one size announced ahead, at most: a chart may call `genCA` dozens of times for
/// values it never reads (`default (genCA ...) ...`).
const WANTED: usize = 2;
/// Makers of one size at once, whatever the core count.
const MAKERS: usize = 2;

/// The keys of one size.
#[derive(Default)]
struct Keys {
    /// PKCS#8 DER of keys made and not handed out.
    ready: Vec<Vec<u8>>,
    /// Makers running now.
    making: usize,
    /// Keys announced and not yet asked for (at most [`WANTED`]).
    expected: usize,
    /// Requests waiting for a key.
    waiting: usize,
}

impl Keys {
    /// Whether the keys made so far leave a request or an announcement without one.
    fn short(&self) -> bool {
        self.ready.len() < self.expected + self.waiting
    }
}

static KEYS: Mutex<Option<HashMap<usize, Keys>>> = Mutex::new(None);
/// Signalled whenever a maker adds a key or stops.
static CHANGED: Condvar = Condvar::new();

fn keys() -> MutexGuard<'static, Option<HashMap<usize, Keys>>> {
    KEYS.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn of_size(guard: &mut Option<HashMap<usize, Keys>>, bits: usize) -> &mut Keys {
    guard
        .get_or_insert_with(HashMap::new)
        .entry(bits)
        .or_default()
}

/// A fresh RSA key of `bits` (2048 or 4096): one made already, else the first one a maker
/// finishes. Where no maker can run (no threads), or the makers failed, the key is made
/// here and its error reported.
pub fn rsa(bits: usize) -> Result<KeyPair, String> {
    let mut guard = keys();
    let state = of_size(&mut guard, bits);
    state.expected = state.expected.saturating_sub(1);
    state.waiting += 1;
    let mut started = false;
    loop {
        let state = of_size(&mut guard, bits);
        if let Some(der) = state.ready.pop() {
            state.waiting -= 1;
            drop(guard);
            return KeyPair::try_from(der.as_slice()).map_err(|e| e.to_string());
        }
        if state.making == 0 {
            // Makers that were started for this request and stopped without a key failed:
            // make it here, where the error reaches the template.
            if started || start_makers(state, bits) == 0 {
                state.waiting -= 1;
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
    let mut guard = keys();
    let state = of_size(&mut guard, bits);
    state.expected = (state.expected + 1).min(WANTED);
    start_makers(state, bits);
}

fn make(bits: usize) -> Result<KeyPair, String> {
    let size = if bits == 4096 {
        RsaKeySize::_4096
    } else {
        RsaKeySize::_2048
    };
    KeyPair::generate_rsa_for(&rcgen::PKCS_RSA_SHA256, size).map_err(|e| e.to_string())
}

/// Start makers of `bits`, up to one per core, while keys are short; returns how many
/// makers run now.
fn start_makers(state: &mut Keys, bits: usize) -> usize {
    // Read once: it consults the cgroup files, and every certificate call gets here.
    static CORES: OnceLock<usize> = OnceLock::new();
    let cores = *CORES
        .get_or_init(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get));
    while state.short() && state.making < cores.min(MAKERS) {
        let spawned = std::thread::Builder::new()
            .name("rsa-keys".into())
            .spawn(move || maker(bits));
        if spawned.is_err() {
            // No thread (a limit of the process): keys are made when asked for.
            break;
        }
        state.making += 1;
    }
    state.making
}

/// Make keys of `bits` while they are short. A failure stops the maker: a waiting request
/// then makes its key itself.
fn maker(bits: usize) {
    loop {
        let made = make(bits).map(|key| key.serialize_der());
        let mut guard = keys();
        let state = of_size(&mut guard, bits);
        let stop = match made {
            Ok(der) => {
                state.ready.push(der);
                !state.short()
            }
            Err(_) => true,
        };
        if stop {
            state.making -= 1;
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

    /// Wait until no maker of `bits` runs; the keys made and not handed out.
    fn settle(bits: usize) -> usize {
        for _ in 0..1000 {
            let mut guard = keys();
            let state = of_size(&mut guard, bits);
            if state.making == 0 {
                return state.ready.len();
            }
            drop(guard);
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        panic!("the {bits}-bit key makers did not stop");
    }

    #[test]
    fn every_key_is_handed_out_once_and_makers_stop_when_none_is_wanted() {
        // Requests from several threads at once, more than the makers.
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
        // Racing makers leave at most one key each beyond what was asked for.
        let left = settle(2048);
        assert!(left <= MAKERS, "{left} keys made beyond the requests");
    }

    #[test]
    fn announced_keys_are_made_ahead_up_to_the_bound() {
        // 4096-bit keys: no other test of this crate asks for them.
        for _ in 0..5 {
            expect(4096);
        }
        let ready = settle(4096);
        assert!(
            (WANTED..=WANTED + MAKERS - 1).contains(&ready),
            "{ready} keys made for {WANTED} wanted"
        );
        let key = rsa(4096).unwrap();
        assert!(key.serialize_der().len() > 2000, "a 4096-bit key");
        // One key is still ready for the one announcement left: no maker starts.
        assert_eq!(settle(4096), ready - 1);
    }
}
