//! One byte per executor that other threads raise when the executor must look up
//! from the code it runs: a halt was asked ([`HALT`]), a tier gate switched
//! ([`TIERS`]), or guest bytes holding decoded code changed ([`CODE`]). The run loop
//! reads the authoritative state (the halt bit, `Tiers::epoch`,
//! `GuestMemory::code_epoch`) at every block boundary as before; what the byte buys
//! is that compiled code (`jit`), which runs many blocks without the run loop,
//! tests one byte at a cycle-closing check where it loaded and compared three
//! words (the halt flag, the gate epoch, the code-write epoch against the one the
//! executor replayed).
//!
//! Next to the byte sits the *limit*: the count at which compiled code must stop
//! (the run loop's budget end, armed before each entry in the form compiled code
//! counts in, `jit::start_counts`). Every raise
//! zeroes it, so compiled code's one budget comparison at a link or backward edge
//! also sees halts, switches and code writes: one load and compare where the budget
//! compare and the byte test were two (intbench: a tenth of the host instructions
//! retired was the byte test).

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

/// Stop the run at the next block boundary (`StopReason::Halt`); set and cleared by
/// whoever asked.
pub const HALT: u8 = 1;
/// A gate of the executor's `Tiers` switched; cleared by the run loop.
pub const TIERS: u8 = 2;
/// A code write into the executor's guest memory; cleared by the run loop.
pub const CODE: u8 = 4;

#[derive(Default)]
pub struct Attention {
    bits: AtomicU8,
    limit: AtomicU64,
}

impl Attention {
    pub fn new() -> Attention {
        Attention::default()
    }

    /// Asks for a halt (`true`) or withdraws the request: the halt bit alone, as
    /// an `AtomicBool` halt flag is stored.
    pub fn store(&self, halt: bool, o: Ordering) {
        if halt {
            self.bits.fetch_or(HALT, o);
            self.limit.store(0, Ordering::SeqCst);
        } else {
            self.bits.fetch_and(!HALT, o);
        }
    }

    /// Whether a halt is asked.
    #[inline(always)]
    pub fn load(&self, o: Ordering) -> bool {
        self.bits.load(o) & HALT != 0
    }

    /// Sets `bits` (after the change they announce is visible).
    pub fn raise(&self, bits: u8) {
        self.bits.fetch_or(bits, Ordering::SeqCst);
        self.limit.store(0, Ordering::SeqCst);
    }

    /// The byte as it stands (a relaxed load): the run loop reads it once per
    /// block boundary.
    #[inline(always)]
    pub fn bits(&self) -> u8 {
        self.bits.load(Ordering::Relaxed)
    }

    /// Clears `bits` (before the state they announce is read again, so a raise
    /// after this stays visible).
    pub fn clear(&self, bits: u8) {
        self.bits.fetch_and(!bits, Ordering::AcqRel);
    }

    /// Before compiled code runs: sets the limit it checks its budget against to
    /// `end`. False if a bit was raised since the run loop read the byte (the run
    /// loop goes round first). A raise stores the byte before zeroing the limit and
    /// this stores the limit before reading the byte, all sequentially consistent:
    /// either the raise's zero lands after `end` and compiled code sees it, or this
    /// load sees the raised bit. While the limit still holds `end` nothing was
    /// raised since it was armed, and one relaxed load suffices.
    #[inline(always)]
    pub fn arm(&self, end: u64) -> bool {
        if self.limit.load(Ordering::Relaxed) == end {
            return true;
        }
        self.limit.store(end, Ordering::SeqCst);
        self.bits.load(Ordering::SeqCst) == 0
    }

    /// The limit's address, for compiled code's budget check (an aligned 64-bit
    /// load, single-copy atomic on the hosts Cranelift targets, as a `Relaxed`
    /// load). Valid while `self` lives.
    pub fn limit_ptr(&self) -> *const u64 {
        self.limit.as_ptr() as *const u64
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
    fn a_raise_or_a_halt_zeroes_the_armed_limit() {
        let a = Attention::new();
        assert!(a.arm(1000));
        assert_eq!(a.limit.load(Ordering::Relaxed), 1000);
        assert!(a.arm(1000), "armed already");
        a.raise(CODE);
        assert_eq!(a.limit.load(Ordering::Relaxed), 0);
        assert!(!a.arm(1000), "a raised bit the run loop has not read");
        a.clear(CODE);
        assert!(a.arm(1000));
        a.store(true, Ordering::Relaxed);
        assert_eq!(a.limit.load(Ordering::Relaxed), 0);
        assert!(!a.arm(2000));
        a.store(false, Ordering::Relaxed);
        assert!(a.arm(2000));
        assert_eq!(a.limit.load(Ordering::Relaxed), 2000);
    }

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
        assert_eq!(a.bits.load(Ordering::Relaxed), 0);
        ws.raise(TIERS);
        assert_eq!(
            a.bits.load(Ordering::Relaxed),
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
