//! Span and trace ids: random ones from a generator per thread, and a session's root derived
//! from its id.

use std::cell::Cell;
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;

use sha2::{Digest, Sha256};

use super::Context;

thread_local! {
    /// SplitMix64 state, seeded from the process's random hash keys and the thread.
    static STATE: Cell<u64> = Cell::new(seed());
}

fn seed() -> u64 {
    let thread = std::thread::current().id();
    RandomState::new().hash_one(thread)
}

/// The next 64 random bits of this thread's generator (SplitMix64).
fn next() -> u64 {
    STATE
        .try_with(|state| {
            let s = state.get().wrapping_add(0x9E37_79B9_7F4A_7C15);
            state.set(s);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        })
        .unwrap_or_else(|_| seed())
}

/// A new span id: never all zeros (the invalid id).
pub(super) fn span_id() -> [u8; 8] {
    loop {
        let id = next();
        if id != 0 {
            return id.to_be_bytes();
        }
    }
}

/// A new trace id: never all zeros.
pub(super) fn trace_id() -> [u8; 16] {
    let mut id = [0u8; 16];
    id[..8].copy_from_slice(&next().to_be_bytes());
    id[8..].copy_from_slice(&span_id());
    id
}

/// The trace and (virtual) root span of `session`: 16 and 8 bytes of the SHA-256 of its id.
pub fn session_root(session: &str) -> Context {
    let digest = Sha256::digest(session.as_bytes());
    let mut trace = [0u8; 16];
    let mut span = [0u8; 8];
    trace.copy_from_slice(&digest[..16]);
    span.copy_from_slice(&digest[16..24]);
    Context { trace, span }
}
