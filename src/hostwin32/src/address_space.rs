//! The guest's virtual address space as Win32 sees it: reservations with 64 KiB
//! allocation granularity, page-level commitment and protection, and
//! VirtualQuery-style reports. Backing pages live in [`GuestMemory`].

use std::collections::BTreeMap;
use winterp_core::mem::{GuestMemory, MemError, PAGE_SIZE, Prot};

pub const GRANULARITY: u32 = 0x1_0000;
/// Lowest and highest addresses handed out (Win32 user space on a 2 GiB split).
pub const USER_MIN: u32 = 0x0001_0000;
pub const USER_MAX: u32 = 0x7ffe_ffff;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum VmError {
    #[error("no free address range of {0:#x} bytes")]
    NoSpace(u32),
    #[error("range {0:#010x}+{1:#x} overlaps an existing reservation")]
    Overlap(u32, u32),
    #[error("address {0:#010x} is not inside a reservation")]
    NotReserved(u32),
    #[error("address {0:#010x} is not the base of a reservation")]
    NotBase(u32),
    #[error("host memory error: {0}")]
    Host(String),
}

impl From<MemError> for VmError {
    fn from(e: MemError) -> Self {
        VmError::Host(e.to_string())
    }
}

/// One VirtualAlloc reservation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reservation {
    pub base: u32,
    pub size: u32,
    /// Protection given at reservation time (MEMORY_BASIC_INFORMATION.AllocationProtect).
    pub alloc_prot: Prot,
    /// What owns it (for reports): "image NAME", "heap", "stack", "VirtualAlloc", ...
    pub tag: String,
}

/// State of a page as VirtualQuery reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageState {
    Free,
    Reserved,
    Committed,
}

/// A VirtualQuery answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    pub base: u32,
    pub alloc_base: u32,
    pub alloc_prot: Prot,
    pub size: u32,
    pub state: PageState,
    pub prot: Prot,
}

pub struct AddressSpace {
    mem: GuestMemory,
    res: BTreeMap<u32, Reservation>,
}

impl AddressSpace {
    pub fn new(mem: GuestMemory) -> AddressSpace {
        AddressSpace {
            mem,
            res: BTreeMap::new(),
        }
    }

    pub fn mem(&self) -> &GuestMemory {
        &self.mem
    }

    /// Reserves `size` bytes at `addr` (rounded down to 64 KiB) or, if `None`, at the
    /// lowest free 64 KiB-aligned range at or above `hint`.
    pub fn reserve(
        &mut self,
        addr: Option<u32>,
        size: u32,
        prot: Prot,
        tag: &str,
    ) -> Result<u32, VmError> {
        let size = round_up(size.max(1), PAGE_SIZE);
        let base = match addr {
            Some(a) => {
                let b = a & !(GRANULARITY - 1);
                if b < USER_MIN
                    || b as u64 + size as u64 > USER_MAX as u64 + 1
                    || !self.is_free(b, size)
                {
                    return Err(VmError::Overlap(b, size));
                }
                b
            }
            None => self
                .find_free(USER_MIN, size)
                .ok_or(VmError::NoSpace(size))?,
        };
        self.res.insert(
            base,
            Reservation {
                base,
                size,
                alloc_prot: prot,
                tag: tag.to_string(),
            },
        );
        Ok(base)
    }

    /// Reserves at the lowest free range at or above `hint`.
    pub fn reserve_above(
        &mut self,
        hint: u32,
        size: u32,
        prot: Prot,
        tag: &str,
    ) -> Result<u32, VmError> {
        let size = round_up(size.max(1), PAGE_SIZE);
        let base = self
            .find_free(hint.max(USER_MIN), size)
            .ok_or(VmError::NoSpace(size))?;
        self.reserve(Some(base), size, prot, tag)
    }

    fn is_free(&self, base: u32, size: u32) -> bool {
        let end = base as u64 + size as u64;
        // The reservation starting at or before base must end at or before it...
        if let Some((_, r)) = self.res.range(..=base).next_back()
            && r.base as u64 + r.size as u64 > base as u64
        {
            return false;
        }
        // ...and none may start inside [base, end).
        self.res
            .range(base..)
            .next()
            .is_none_or(|(&b, _)| (b as u64) >= end)
    }

    fn find_free(&self, from: u32, size: u32) -> Option<u32> {
        let mut cand = round_up(from, GRANULARITY) as u64;
        loop {
            if cand + size as u64 > USER_MAX as u64 + 1 {
                return None;
            }
            if self.is_free(cand as u32, size) {
                return Some(cand as u32);
            }
            // Jump past the reservation that blocks us.
            let blocker = self
                .res
                .range(..(cand + size as u64).min(u32::MAX as u64) as u32)
                .next_back()
                .map(|(_, r)| r.base as u64 + r.size as u64)?;
            cand = round_up_u64(blocker.max(cand + 1), GRANULARITY as u64);
        }
    }

    /// The reservation containing `addr`.
    pub fn reservation(&self, addr: u32) -> Option<&Reservation> {
        self.res
            .range(..=addr)
            .next_back()
            .map(|(_, r)| r)
            .filter(|r| (addr as u64) < r.base as u64 + r.size as u64)
    }

    /// Commits pages inside a reservation (zero-filled when newly committed).
    pub fn commit(&mut self, addr: u32, size: u32, prot: Prot) -> Result<(), VmError> {
        let r = self.reservation(addr).ok_or(VmError::NotReserved(addr))?;
        let end = addr as u64 + size.max(1) as u64;
        if end > r.base as u64 + r.size as u64 {
            return Err(VmError::NotReserved(addr));
        }
        self.mem.commit(addr, size.max(1), prot)?;
        Ok(())
    }

    /// Reserves and commits in one step (VirtualAlloc with MEM_RESERVE|MEM_COMMIT).
    pub fn alloc(
        &mut self,
        addr: Option<u32>,
        size: u32,
        prot: Prot,
        tag: &str,
    ) -> Result<u32, VmError> {
        let base = self.reserve(addr, size, prot, tag)?;
        self.commit(base, size, prot)?;
        Ok(base)
    }

    pub fn decommit(&mut self, addr: u32, size: u32) -> Result<(), VmError> {
        self.reservation(addr).ok_or(VmError::NotReserved(addr))?;
        self.mem.decommit(addr, size.max(1))?;
        Ok(())
    }

    /// Releases a whole reservation (VirtualFree with MEM_RELEASE); `base` must be its start.
    pub fn release(&mut self, base: u32) -> Result<(), VmError> {
        let r = self.res.remove(&base).ok_or(VmError::NotBase(base))?;
        self.mem.decommit(r.base, r.size)?;
        Ok(())
    }

    /// VirtualQuery: the run of pages starting at `addr` that share state and protection.
    pub fn query(&self, addr: u32) -> Region {
        let page = addr & !(PAGE_SIZE - 1);
        match self.reservation(addr) {
            None => {
                // Free run up to the next reservation.
                let next = self
                    .res
                    .range(page..)
                    .next()
                    .map_or(USER_MAX as u64 + 1, |(&b, _)| b as u64);
                Region {
                    base: page,
                    alloc_base: 0,
                    alloc_prot: Prot::NONE,
                    size: next.saturating_sub(page as u64).min(u32::MAX as u64) as u32,
                    state: PageState::Free,
                    prot: Prot::NONE,
                }
            }
            Some(r) => {
                let state_of = |a: u32| {
                    if self.mem.is_committed(a) {
                        PageState::Committed
                    } else {
                        PageState::Reserved
                    }
                };
                let st = state_of(page);
                let pr = if st == PageState::Committed {
                    self.mem.prot(page)
                } else {
                    Prot::NONE
                };
                let end = r.base + (r.size - 1);
                let mut p = page;
                while p < end - (PAGE_SIZE - 1) {
                    let q = p + PAGE_SIZE;
                    let sq = state_of(q);
                    let pq = if sq == PageState::Committed {
                        self.mem.prot(q)
                    } else {
                        Prot::NONE
                    };
                    if sq != st || pq != pr {
                        break;
                    }
                    p = q;
                }
                Region {
                    base: page,
                    alloc_base: r.base,
                    alloc_prot: r.alloc_prot,
                    size: p - page + PAGE_SIZE,
                    state: st,
                    prot: pr,
                }
            }
        }
    }

    pub fn reservations(&self) -> impl Iterator<Item = &Reservation> {
        self.res.values()
    }
}

pub fn round_up(v: u32, to: u32) -> u32 {
    ((v as u64).div_ceil(to as u64) * to as u64).min(u32::MAX as u64) as u32
}

fn round_up_u64(v: u64, to: u64) -> u64 {
    v.div_ceil(to) * to
}

#[cfg(test)]
mod tests {
    use super::*;

    fn space() -> AddressSpace {
        AddressSpace::new(GuestMemory::new().unwrap())
    }

    #[test]
    fn reservations_are_64k_aligned_and_do_not_overlap() {
        let mut s = space();
        let a = s.reserve(None, 0x1234, Prot::RW, "a").unwrap();
        let b = s.reserve(None, 0x1000, Prot::RW, "b").unwrap();
        assert_eq!(a % GRANULARITY, 0);
        assert_eq!(b % GRANULARITY, 0);
        assert!(b >= a + 0x2000);
        assert_eq!(
            s.reserve(Some(a), 0x1000, Prot::RW, "c"),
            Err(VmError::Overlap(a, 0x1000))
        );
        let c = s
            .reserve(Some(0x0040_0000), 0x3000, Prot::RW, "image")
            .unwrap();
        assert_eq!(c, 0x0040_0000);
    }

    #[test]
    fn query_reports_reserved_and_committed_runs() {
        let mut s = space();
        let a = s
            .reserve(Some(0x0100_0000), 0x10000, Prot::RW, "t")
            .unwrap();
        s.commit(a + 0x2000, 0x2000, Prot::RW).unwrap();
        let q = s.query(a);
        assert_eq!(
            (q.state, q.size, q.alloc_base),
            (PageState::Reserved, 0x2000, a)
        );
        let q = s.query(a + 0x2100);
        assert_eq!(
            (q.base, q.state, q.size, q.prot),
            (a + 0x2000, PageState::Committed, 0x2000, Prot::RW)
        );
        let q = s.query(a + 0x4000);
        assert_eq!((q.state, q.size), (PageState::Reserved, 0xc000));
        assert_eq!(s.query(0x0200_0000).state, PageState::Free);
        s.release(a).unwrap();
        assert_eq!(s.query(a).state, PageState::Free);
        assert!(s.commit(a, 0x1000, Prot::RW).is_err());
    }
}
