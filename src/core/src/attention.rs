//! One byte per executor that other threads raise when the executor must look up
//! from the code it runs: a halt was asked ([`HALT`]), a tier gate switched
//! ([`TIERS`]), or guest bytes holding decoded code changed ([`CODE`]). The run loop
//! reads the authoritative state (the halt bit, `Tiers::epoch`,
//! `GuestMemory::code_epoch`) at every block boundary as before; what the byte buys
//! is that compiled code (`jit`), which runs many blocks without the run loop,
//! tests one byte at a cycle-closing check where it loaded and compared three
//! words (the halt flag, the gate epoch, the code-write epoch against the one the
//! executor replayed).

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// Stop the run at the next block boundary (`StopReason::Halt`); set and cleared by
/// whoever asked.
pub const HALT: u8 = 1;
/// A gate of the executor's `Tiers` switched; cleared by the run loop.
pub const TIERS: u8 = 2;
/// A code write into the executor's guest memory; cleared by the run loop.
pub const CODE: u8 = 4;

#[derive(Default)]
pub struct Attention(AtomicU8);

impl Attention {
    pub fn new() -> Attention {
        Attention(AtomicU8::new(0))
    }

    /// Asks for a halt (`true`) or withdraws the request: the halt bit alone, as
    /// an `AtomicBool` halt flag is stored.
    pub fn store(&self, halt: bool, o: Ordering) {
        if halt {
            self.0.fetch_or(HALT, o);
        } else {
            self.0.fetch_and(!HALT, o);
        }
    }

    /// Whether a halt is asked.
    #[inline(always)]
    pub fn load(&self, o: Ordering) -> bool {
        self.0.load(o) & HALT != 0
    }

    /// Sets `bits` (after the change they announce is visible).
    pub fn raise(&self, bits: u8) {
        self.0.fetch_or(bits, Ordering::SeqCst);
    }

    /// The byte as it stands (a relaxed load): the run loop reads it once per
    /// block boundary.
    #[inline(always)]
    pub fn bits(&self) -> u8 {
        self.0.load(Ordering::Relaxed)
    }

    /// Clears `bits` (before the state they announce is read again, so a raise
    /// after this stays visible).
    pub fn clear(&self, bits: u8) {
        self.0.fetch_and(!bits, Ordering::AcqRel);
    }

    /// The byte's address, for compiled code's check. Valid while `self` lives.
    pub fn as_ptr(&self) -> *const u8 {
        self.0.as_ptr() as *const u8
    }
}

/// The executors whose byte an event raises (weakly held: one that ended drops out).
#[derive(Default)]
pub struct Watchers(Mutex<Vec<Weak<Attention>>>);

impl Watchers {
    /// Adds `a` unless it is there already.
    pub fn add(&self, a: &Arc<Attention>) {
        let mut v = self.0.lock().unwrap_or_else(|e| e.into_inner());
        v.retain(|w| w.strong_count() > 0);
        if !v.iter().any(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(a))) {
            v.push(Arc::downgrade(a));
        }
    }

    /// Raises `bits` on every live watcher.
    pub fn raise(&self, bits: u8) {
        let v = self.0.lock().unwrap_or_else(|e| e.into_inner());
        for w in v.iter() {
            if let Some(a) = w.upgrade() {
                a.raise(bits);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halt_bit_and_raised_bits_are_independent() {
        let a = Arc::new(Attention::new());
        let ws = Watchers::default();
        ws.add(&a);
        ws.add(&a);
        ws.raise(CODE);
        assert!(!a.load(Ordering::Relaxed));
        a.store(true, Ordering::Relaxed);
        assert!(a.load(Ordering::Relaxed));
        a.clear(CODE | TIERS);
        assert!(a.load(Ordering::Relaxed), "clearing CODE keeps the halt");
        a.store(false, Ordering::Relaxed);
        assert_eq!(a.0.load(Ordering::Relaxed), 0);
        ws.raise(TIERS);
        assert_eq!(
            a.0.load(Ordering::Relaxed),
            TIERS,
            "added once, raised once"
        );
        drop(a);
        ws.raise(CODE);
        assert_eq!(ws.0.lock().unwrap().len(), 1);
        ws.add(&Arc::new(Attention::new()));
        // The dead watcher was dropped when the new one was added.
        assert_eq!(ws.0.lock().unwrap().len(), 1);
    }
}
