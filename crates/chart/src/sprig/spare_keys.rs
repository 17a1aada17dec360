//! RSA keys made on every core, as they are needed. A chart that makes certificates
//! (`genCA`, `genSignedCert`, `genPrivateKey`) spends nearly all its render time generating
//! RSA keys, and the time one key takes varies several-fold with the prime search. So keys
//! are made by background makers, up to one per core (at most [`MAKERS`]), racing: a render
//! that needs a key takes the first one any maker finishes, and the slower maker's key
//! serves the next request. A certificate function announces its key as soon as it is
//! called ([`expect`]), before its value is read. Makers run only while keys are wanted
//! (announced, at most [`WANTED`] of a size, or waited for) and not yet made; when a render
//! ends ([`RenderKeys`]) the keys it announced and did not take are no longer wanted, and
//! a maker stops between two prime candidates (not at the end of its key) once nothing
//! is wanted, so nothing is left running to slow whatever the process does next. A key
//! is handed out once.
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};

use rcgen::KeyPair;

use super::rsa_gen;

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
    take_announcement(bits);
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
    if state.expected < WANTED {
        state.expected += 1;
        ANNOUNCED.with(|a| a.borrow_mut().push(bits));
    }
    start_makers(state, bits);
}

thread_local! {
    /// Sizes of the keys announced on this thread and not taken yet, oldest first.
    static ANNOUNCED: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// This thread takes a key of `bits`: one of its announcements is met.
fn take_announcement(bits: usize) {
    ANNOUNCED.with(|a| {
        let mut a = a.borrow_mut();
        if let Some(i) = a.iter().rposition(|b| *b == bits) {
            a.remove(i);
        }
    });
}

/// While alive, the keys announced on this thread belong to one render: when it is
/// dropped, those not taken are no longer wanted, and makers working only for them stop.
pub struct RenderKeys {
    /// Announcements made before this render began (an enclosing render's).
    outer: usize,
}

impl RenderKeys {
    pub fn begin() -> RenderKeys {
        RenderKeys {
            outer: ANNOUNCED.with(|a| a.borrow().len()),
        }
    }
}

impl Drop for RenderKeys {
    fn drop(&mut self) {
        let unmet: Vec<usize> = ANNOUNCED.with(|a| {
            let mut a = a.borrow_mut();
            let from = self.outer.min(a.len());
            a.split_off(from)
        });
        if unmet.is_empty() {
            return;
        }
        let mut guard = keys();
        for bits in unmet {
            let state = of_size(&mut guard, bits);
            state.expected = state.expected.saturating_sub(1);
        }
        CHANGED.notify_all();
    }
}

/// Whether keys of `bits` are still short, for a maker between two prime candidates.
fn still_wanted(bits: usize) -> bool {
    of_size(&mut keys(), bits).short()
}

fn make(bits: usize) -> Result<KeyPair, String> {
    let size = u32::try_from(bits).map_err(|e| e.to_string())?;
    let der = rsa_gen::generate(size, || true).map_err(|e| e.to_string())?;
    KeyPair::try_from(der.as_slice()).map_err(|e| e.to_string())
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

/// Make keys of `bits` while they are short, giving up a key part way when it no longer
/// is. A failure stops the maker: a waiting request then makes its key itself.
fn maker(bits: usize) {
    let size = u32::try_from(bits).unwrap_or(u32::MAX);
    loop {
        let made = rsa_gen::generate(size, || still_wanted(bits));
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
    fn keys_a_render_announced_and_did_not_take_are_abandoned_when_it_ends() {
        // 3072-bit keys: no other test asks for them.
        let render = RenderKeys::begin();
        expect(3072);
        expect(3072);
        drop(render);
        // The makers give up between two prime candidates instead of finishing keys
        // nobody will take (a 3072-bit key takes far longer than the drop above).
        assert_eq!(settle(3072), 0, "no key made after the render ended");
        assert_eq!(of_size(&mut keys(), 3072).expected, 0);
        assert!(ANNOUNCED.with(|a| a.borrow().is_empty()));
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
