//! RSA keys made ahead, on another core. A chart that makes certificates (`genCA`,
//! `genSignedCert`, `genPrivateKey`) spends nearly all its render time generating RSA keys,
//! one after another. Once a render asks for one, a background thread makes the next few
//! while the template goes on, so two cores share the work. At most [`SPARES`] keys of each
//! size wait, one thread makes them and ends when they are made; a key is handed out once.
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use rcgen::{KeyPair, RsaKeySize};

/// Keys of one size kept ready.
const SPARES: usize = 2;

#[derive(Default)]
struct Spares {
    /// PKCS#8 DER of ready keys, by bit size.
    keys: HashMap<usize, Vec<Vec<u8>>>,
    /// Whether a thread is making keys now.
    making: bool,
}

static SPARE_KEYS: Mutex<Option<Spares>> = Mutex::new(None);

fn spares() -> MutexGuard<'static, Option<Spares>> {
    SPARE_KEYS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A fresh RSA key of `bits` (2048 or 4096): a spare if one is ready, else made now.
pub fn rsa(bits: usize) -> Result<KeyPair, String> {
    let spare = spares()
        .get_or_insert_with(Spares::default)
        .keys
        .get_mut(&bits)
        .and_then(Vec::pop);
    refill(bits);
    match spare {
        Some(der) => KeyPair::try_from(der.as_slice()).map_err(|e| e.to_string()),
        None => make(bits),
    }
}

fn make(bits: usize) -> Result<KeyPair, String> {
    let size = if bits == 4096 {
        RsaKeySize::_4096
    } else {
        RsaKeySize::_2048
    };
    KeyPair::generate_rsa_for(&rcgen::PKCS_RSA_SHA256, size).map_err(|e| e.to_string())
}

/// Start the maker thread unless it runs or the spares of `bits` are full.
fn refill(bits: usize) {
    {
        let mut guard = spares();
        let state = guard.get_or_insert_with(Spares::default);
        if state.making || state.keys.get(&bits).map_or(0, Vec::len) >= SPARES {
            return;
        }
        state.making = true;
    }
    let started = std::thread::Builder::new()
        .name("spare-rsa-keys".into())
        .spawn(move || {
            loop {
                let made = make(bits).map(|key| key.serialize_der());
                let mut guard = spares();
                let state = guard.get_or_insert_with(Spares::default);
                let ready = state.keys.entry(bits).or_default();
                // A failure stops the thread: the caller then makes its key itself and
                // reports the error.
                let full = match made {
                    Ok(der) => {
                        ready.push(der);
                        ready.len() >= SPARES
                    }
                    Err(_) => true,
                };
                if full {
                    state.making = false;
                    return;
                }
            }
        });
    if started.is_err() {
        // No thread (a limit of the process): keys are simply made when asked for.
        if let Some(state) = spares().as_mut() {
            state.making = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_is_handed_out_once_and_spares_stay_bounded() {
        let keys: Vec<Vec<u8>> = (0..5).map(|_| rsa(2048).unwrap().serialize_der()).collect();
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(a, b, "a key was handed out twice");
            }
        }
        // Let the maker finish, then check the bound.
        for _ in 0..200 {
            if !spares().as_ref().is_some_and(|s| s.making) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let ready = spares()
            .as_ref()
            .map_or(0, |s| s.keys.get(&2048).map_or(0, Vec::len));
        assert!(ready <= SPARES, "{ready} spare keys");
    }
}
