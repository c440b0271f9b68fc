//! Thunk addresses: every imported HLE function gets a 16-byte slot in a reserved
//! guest range that the executor treats as its stop range. Reaching a slot stops the
//! guest; the slot number says which API (or which host sentinel) was reached.

/// Base of the thunk range and its size.
pub const THUNK_BASE: u32 = 0x7fd0_0000;
pub const THUNK_SIZE: u32 = 0x0010_0000;
pub const SLOT: u32 = 16;

/// What a thunk slot stands for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ThunkTarget {
    /// Return address of a host-initiated guest call: the call is complete.
    CallReturn,
    /// Return address of a thread's start routine: the thread exits with EAX.
    ThreadReturn,
    /// Export `index` of HLE DLL `dll`.
    Api { dll: usize, index: usize },
    /// An import no HLE DLL provides: calling it stops the program with a report.
    Missing { dll: String, name: String },
}

pub const CALL_RETURN: u32 = THUNK_BASE;
pub const THREAD_RETURN: u32 = THUNK_BASE + SLOT;

#[derive(Default)]
pub struct ThunkTable {
    slots: Vec<ThunkTarget>,
    /// Slot of each target: a pseudo-module gives every export of a system DLL a
    /// thunk, thousands per process, so the lookup must not be a scan.
    index: std::collections::HashMap<ThunkTarget, usize>,
}

impl ThunkTable {
    pub fn new() -> ThunkTable {
        let slots = vec![ThunkTarget::CallReturn, ThunkTarget::ThreadReturn];
        let index = slots.iter().cloned().zip(0..).collect();
        ThunkTable { slots, index }
    }

    /// The thunk address for `t`, allocating a slot the first time.
    pub fn address_of(&mut self, t: ThunkTarget) -> u32 {
        let k = match self.index.get(&t) {
            Some(&k) => k,
            None => {
                self.slots.push(t.clone());
                self.index.insert(t, self.slots.len() - 1);
                self.slots.len() - 1
            }
        };
        assert!((k as u32) < THUNK_SIZE / SLOT, "thunk range exhausted");
        THUNK_BASE + k as u32 * SLOT
    }

    pub fn target(&self, addr: u32) -> Option<&ThunkTarget> {
        let off = addr.checked_sub(THUNK_BASE)?;
        if off % SLOT != 0 {
            return None;
        }
        self.slots.get((off / SLOT) as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The thread loop recognises `CALL_RETURN` without reading the table (every
    /// guest callback ends there), which holds only while the table keeps it there.
    #[test]
    fn the_fixed_sentinels_are_where_their_constants_say() {
        let mut t = ThunkTable::new();
        t.address_of(ThunkTarget::Api { dll: 0, index: 3 });
        assert_eq!(t.target(CALL_RETURN), Some(&ThunkTarget::CallReturn));
        assert_eq!(t.target(THREAD_RETURN), Some(&ThunkTarget::ThreadReturn));
        assert_eq!(t.address_of(ThunkTarget::CallReturn), CALL_RETURN);
    }
}
