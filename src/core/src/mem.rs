//! Guest memory: one 4 GiB host reservation per process, guest address `ga` at
//! `base + ga`, and a one-byte-per-page permission table that also carries the
//! CODE bit for pages holding decoded code.
//!
//! Every guest access checks the permission table before touching host memory, so a
//! bad guest access becomes a [`Fault`] (a guest exception) and never a host signal.
//! Uncommitted pages are also `PROT_NONE` on the host as a second line of defence.
//!
//! Where the host allows it (Linux: a `memfd` mapped twice), the same bytes are
//! also mapped at a second address, the *protected view*, whose host protection
//! follows the permission table: readable where a guest load may go inline
//! (committed, readable, no guard bit), writable where a guest store may (and no
//! decoded code). The `jit` tier's compiled code accesses guest memory through it
//! without testing the table; an access the table would refuse raises a host
//! fault that `jit::native` turns back into the interpreter's slow path.
//!
//! This is one of the two modules allowed to use `unsafe` (the other is the executor).

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU32, AtomicU64, Ordering};

pub const PAGE_SIZE: u32 = 0x1000;
pub const PAGE_SHIFT: u32 = 12;
const PAGE_COUNT: usize = 1 << 20;
// Every 32-bit address's page index is below PAGE_COUNT (`perm` relies on it).
const _: () = assert!(PAGE_COUNT == 1 << (32 - PAGE_SHIFT));
const RESERVE: usize = 1 << 32;
/// Tail beyond 4 GiB so that an unaligned access at the very top can never reach
/// past the reservation even if a caller forgets the wrap check.
const GUARD: usize = 1 << 16;
/// Bytes of the protected view's reservation (guest space and tail).
pub const VIEW_LEN: usize = RESERVE + GUARD;

/// Per-page permission bits.
pub mod perm {
    pub const READ: u8 = 1;
    pub const WRITE: u8 = 2;
    pub const EXEC: u8 = 4;
    /// Some thread decoded code from this page: stores take the invalidation path.
    pub const CODE: u8 = 8;
    pub const COMMITTED: u8 = 16;
    /// Win32 PAGE_GUARD: the first touch raises a guard-page exception.
    pub const GUARD: u8 = 32;
    /// Derived, never asked for: this page and the next both take an inline load
    /// (committed, readable, no guard bit), so any load of at most a page starting
    /// in this page needs no other test. Compiled code tests this one bit first.
    pub const FAST_READ: u8 = 64;
    /// Derived like `FAST_READ`: this page and the next are both readable,
    /// writable, without guard bit and without decoded code.
    pub const FAST_WRITE: u8 = 128;
    pub const FAST: u8 = FAST_READ | FAST_WRITE;

    /// What a page's own bits allow on the inline paths (`FAST_*` of a page that
    /// is followed by a page allowing as much).
    pub const fn alone(p: u8) -> u8 {
        let r = if p & (READ | GUARD | COMMITTED) == READ | COMMITTED {
            FAST_READ
        } else {
            0
        };
        let w = if p & (READ | WRITE | CODE | GUARD | COMMITTED) == READ | WRITE | COMMITTED {
            FAST_WRITE
        } else {
            0
        };
        r | w
    }
}

/// Guest page protection, as the Win32 layer asks for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prot {
    pub read: bool,
    pub write: bool,
    pub exec: bool,
}

impl Prot {
    pub const NONE: Prot = Prot {
        read: false,
        write: false,
        exec: false,
    };
    pub const R: Prot = Prot {
        read: true,
        write: false,
        exec: false,
    };
    pub const RW: Prot = Prot {
        read: true,
        write: true,
        exec: false,
    };
    pub const RX: Prot = Prot {
        read: true,
        write: false,
        exec: true,
    };
    pub const RWX: Prot = Prot {
        read: true,
        write: true,
        exec: true,
    };

    fn bits(self) -> u8 {
        (if self.read { perm::READ } else { 0 })
            | (if self.write { perm::WRITE } else { 0 })
            | (if self.exec { perm::EXEC } else { 0 })
    }
}

/// What kind of access faulted (Win32 puts this in ExceptionInformation[0]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    Execute,
}

/// A guest access that the page table refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    pub addr: u32,
    pub access: Access,
    /// The page was a PAGE_GUARD page (the guard is now cleared).
    pub guard: bool,
}

impl Fault {
    pub const fn new(addr: u32, access: Access) -> Fault {
        Fault {
            addr,
            access,
            guard: false,
        }
    }
}

/// What a successful store touched: plain data, or a page holding decoded code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wrote {
    Data,
    Code,
}

#[derive(Debug, thiserror::Error)]
pub enum MemError {
    #[error("could not reserve the 4 GiB guest address space: {0}")]
    Reserve(std::io::Error),
    #[error("host mprotect failed at guest {addr:#010x}: {err}")]
    Protect { addr: u32, err: std::io::Error },
    #[error("guest range {addr:#010x}+{len:#x} is not committed")]
    NotCommitted { addr: u32, len: u32 },
}

/// Number of recent code writes kept for other threads to replay.
const CODE_LOG_LEN: usize = 256;

struct CodeLog {
    /// Ring of (epoch, addr, len); the entry for epoch `e` lives at `e % CODE_LOG_LEN`.
    ring: Vec<(u64, u32, u32)>,
}

struct Region {
    base: *mut u8,
    /// The protected view (see the module notes), or null where the host gives
    /// none; `fd` is the memfd both views map (-1 without a view).
    view: *mut u8,
    fd: libc::c_int,
    perms: Box<[AtomicU8]>,
    code_epoch: AtomicU64,
    /// Bumped after every change that can withdraw what [`GuestMemory::fast_page`]
    /// proved for a page (protection, commitment, guard bit, a page newly marked as
    /// code), so a caller holding a proof across many accesses can revalidate it
    /// with one load.
    layout_epoch: AtomicU64,
    code_log: Mutex<CodeLog>,
    /// Executors to tell of a code write (`attention::CODE`).
    watchers: crate::attention::Watchers,
    /// Serialises LOCKed accesses that the host cannot do as one native atomic
    /// (misaligned or page-crossing).
    split_lock: Mutex<()>,
    /// Held by every change of the permission table, so the derived `FAST_*` bits
    /// of a page are computed from its neighbour's final bits.
    perm_lock: Mutex<()>,
}

// SAFETY: `base` points at a private mapping owned by this Region for its whole life;
// all access to the bytes goes through methods that check the permission table, and
// concurrent guest accesses are the guest's own data races (as on real hardware).
unsafe impl Send for Region {}
// SAFETY: see above; shared access is the point (guest threads share memory).
unsafe impl Sync for Region {}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: `base` (and `view`, if any) came from mmap with exactly this
        // length and are unmapped once; `fd` is ours and closed once.
        unsafe {
            libc::munmap(self.base as *mut libc::c_void, RESERVE + GUARD);
            if !self.view.is_null() {
                libc::munmap(self.view as *mut libc::c_void, RESERVE + GUARD);
            }
            if self.fd >= 0 {
                libc::close(self.fd);
            }
        }
    }
}

/// A handle on a process's guest memory. Cloning is cheap; all clones share the bytes.
#[derive(Clone)]
pub struct GuestMemory {
    region: Arc<Region>,
    base: *mut u8,
}

// SAFETY: the handle only carries the base pointer of a Region kept alive by the Arc.
unsafe impl Send for GuestMemory {}
// SAFETY: as for Region.
unsafe impl Sync for GuestMemory {}

macro_rules! access {
    ($read:ident, $write:ident, $ty:ty, $n:expr) => {
        /// Guest load; faults if any byte is unreadable. Wraps at 4 GiB like the CPU.
        #[inline(always)]
        pub fn $read(&self, addr: u32) -> Result<$ty, Fault> {
            let p = self.perm(addr);
            if p & (perm::READ | perm::GUARD) == perm::READ && in_page(addr, $n) {
                // SAFETY: the page is committed and readable and the access stays inside it.
                Ok(unsafe { (self.base.add(addr as usize) as *const $ty).read_unaligned() })
            } else {
                // No buffer is passed down: a local whose address escapes would stop
                // the calling handler's tail call to the next op.
                decode_slow(self.read_slow_n(addr, $n)).map(|v| v as $ty)
            }
        }

        /// Guest store; faults (writing nothing) if any byte is not writable.
        #[inline(always)]
        pub fn $write(&self, addr: u32, v: $ty) -> Result<Wrote, Fault> {
            let p = self.perm(addr);
            if p & (perm::WRITE | perm::CODE | perm::GUARD) == perm::WRITE && in_page(addr, $n) {
                // SAFETY: the page is committed and writable and the access stays inside it.
                unsafe { (self.base.add(addr as usize) as *mut $ty).write_unaligned(v) };
                Ok(Wrote::Data)
            } else {
                decode_slow(self.write_slow_n(addr, v as u64, $n))
                    .map(|c| if c != 0 { Wrote::Code } else { Wrote::Data })
            }
        }
    };
}

impl GuestMemory {
    /// Reserves the 4 GiB guest space, one private mapping (no protected view).
    /// Nothing is committed yet.
    pub fn new() -> Result<GuestMemory, MemError> {
        GuestMemory::reserve(false)
    }

    /// As [`GuestMemory::new`], with the protected view where the host gives one
    /// (see the module notes): for a process that starts with the `jit` tier on.
    /// Not the default: the shared mapping cost a software-GL program in the
    /// player 13 % of its frame rate (52 against 60 per second), paid by every
    /// program while the tier is off.
    pub fn with_protected_view() -> Result<GuestMemory, MemError> {
        GuestMemory::reserve(true)
    }

    fn reserve(view: bool) -> Result<GuestMemory, MemError> {
        let (p, view, fd) = match two_views().filter(|_| view) {
            Some(v) => v,
            None => {
                // SAFETY: an anonymous PROT_NONE reservation; no existing memory is
                // touched.
                let p = unsafe {
                    libc::mmap(
                        std::ptr::null_mut(),
                        RESERVE + GUARD,
                        libc::PROT_NONE,
                        libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                        -1,
                        0,
                    )
                };
                if p == libc::MAP_FAILED {
                    return Err(MemError::Reserve(std::io::Error::last_os_error()));
                }
                (p as *mut u8, std::ptr::null_mut(), -1)
            }
        };
        let perms: Box<[AtomicU8]> = (0..PAGE_COUNT).map(|_| AtomicU8::new(0)).collect();
        let region = Region {
            base: p,
            view,
            fd,
            perms,
            code_epoch: AtomicU64::new(0),
            layout_epoch: AtomicU64::new(0),
            code_log: Mutex::new(CodeLog {
                ring: vec![(u64::MAX, 0, 0); CODE_LOG_LEN],
            }),
            watchers: Default::default(),
            split_lock: Mutex::new(()),
            perm_lock: Mutex::new(()),
        };
        let base = region.base;
        Ok(GuestMemory {
            region: Arc::new(region),
            base,
        })
    }

    #[inline(always)]
    pub fn perm(&self, addr: u32) -> u8 {
        // SAFETY: `perms` has PAGE_COUNT = 2^20 entries (built in `new`, never
        // resized) and a 32-bit address has 20 page bits.
        unsafe {
            self.region
                .perms
                .get_unchecked((addr >> PAGE_SHIFT) as usize)
        }
        .load(Ordering::Relaxed)
    }

    /// Commits `[addr, addr+len)` (page-rounded) with `prot`, zero-filled if new.
    pub fn commit(&self, addr: u32, len: u32, prot: Prot) -> Result<(), MemError> {
        let (first, last) = page_span(addr, len);
        // Host access first, one mprotect per run of pages not yet committed (a
        // 32 MiB heap block is 8192 pages), then the table that lets guests in.
        let mut page = first;
        while page <= last {
            let committed = |pg: u32| {
                self.region.perms[pg as usize].load(Ordering::Relaxed) & perm::COMMITTED != 0
            };
            if committed(page) {
                page += 1;
                continue;
            }
            let run = page;
            while page <= last && !committed(page) {
                page += 1;
            }
            self.host_protect(run, page - run, libc::PROT_READ | libc::PROT_WRITE)?;
        }
        self.change_pages(first, last, |old| {
            prot.bits() | perm::COMMITTED | (old & perm::CODE)
        });
        self.bump_layout();
        Ok(())
    }

    /// Changes the guest protection of committed pages. Returns the old protection of
    /// the first page, as VirtualProtect does.
    pub fn protect(&self, addr: u32, len: u32, prot: Prot) -> Result<Prot, MemError> {
        let (first, last) = page_span(addr, len);
        for page in first..=last {
            if self.region.perms[page as usize].load(Ordering::Relaxed) & perm::COMMITTED == 0 {
                return Err(MemError::NotCommitted { addr, len });
            }
        }
        let old = self.prot(addr);
        self.change_pages(first, last, |old| {
            prot.bits() | (old & (perm::CODE | perm::COMMITTED))
        });
        self.bump_layout();
        Ok(old)
    }

    /// Marks pages as guard pages (Win32 PAGE_GUARD): first touch faults once.
    pub fn set_guard(&self, addr: u32, len: u32, on: bool) {
        let (first, last) = page_span(addr, len);
        self.change_pages(first, last, |old| {
            if on {
                old | perm::GUARD
            } else {
                old & !perm::GUARD
            }
        });
        self.bump_layout();
    }

    /// Releases pages: contents are dropped and any access faults.
    pub fn decommit(&self, addr: u32, len: u32) -> Result<(), MemError> {
        let (first, last) = page_span(addr, len);
        self.note_code_write(first << PAGE_SHIFT, (last - first + 1) << PAGE_SHIFT);
        self.change_pages(first, last, |_| 0);
        // Before the host protection goes: a holder of a proof sees the change
        // at its next revalidation.
        self.bump_layout();
        // One call each for the whole span (pages that were not committed are
        // PROT_NONE already; dropping and protecting them again changes nothing).
        let pages = last - first + 1;
        // SAFETY: the pages lie inside our reservation (`page_span` stops at the last
        // guest page); dropping their contents is the intent. A shared mapping
        // keeps its bytes in the memfd, so they are punched out of it there.
        unsafe {
            if self.region.fd >= 0 {
                libc::fallocate(
                    self.region.fd,
                    libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                    ((first as usize) << PAGE_SHIFT) as libc::off_t,
                    ((pages as usize) << PAGE_SHIFT) as libc::off_t,
                );
            } else {
                libc::madvise(
                    self.base.add((first as usize) << PAGE_SHIFT) as *mut libc::c_void,
                    (pages as usize) << PAGE_SHIFT,
                    libc::MADV_DONTNEED,
                );
            }
        }
        self.host_protect(first, pages, libc::PROT_NONE)?;
        Ok(())
    }

    pub fn prot(&self, addr: u32) -> Prot {
        let p = self.perm(addr);
        Prot {
            read: p & perm::READ != 0,
            write: p & perm::WRITE != 0,
            exec: p & perm::EXEC != 0,
        }
    }

    pub fn is_committed(&self, addr: u32) -> bool {
        self.perm(addr) & perm::COMMITTED != 0
    }

    /// Sets the host protection of `pages` pages from page number `first`.
    fn host_protect(&self, first: u32, pages: u32, prot: libc::c_int) -> Result<(), MemError> {
        debug_assert!(first as usize + pages as usize <= PAGE_COUNT);
        // SAFETY: the pages lie inside our reservation (page numbers below 2^20),
        // page aligned.
        let r = unsafe {
            libc::mprotect(
                self.base.add((first as usize) << PAGE_SHIFT) as *mut libc::c_void,
                (pages as usize) << PAGE_SHIFT,
                prot,
            )
        };
        if r != 0 {
            return Err(MemError::Protect {
                addr: first << PAGE_SHIFT,
                err: std::io::Error::last_os_error(),
            });
        }
        Ok(())
    }

    access!(read_u8, write_u8, u8, 1);
    access!(read_u16, write_u16, u16, 2);
    access!(read_u32, write_u32, u32, 4);
    access!(read_u64, write_u64, u64, 8);

    // The slow paths return two plain integers (value, status) so the result comes
    // back in registers: a `Result` returned through a stack slot would make the
    // calling handler's frame escape and cost it its tail call to the next op.
    #[cold]
    #[inline(never)]
    fn read_slow_n(&self, addr: u32, n: usize) -> (u64, u64) {
        let mut b = [0u8; 8];
        match self.read_slow(addr, &mut b[..n]) {
            Ok(()) => (u64::from_le_bytes(b), 0),
            Err(f) => (0, encode_fault(f)),
        }
    }

    /// Returns (1 if the write hit decoded code else 0, status).
    #[cold]
    #[inline(never)]
    fn write_slow_n(&self, addr: u32, v: u64, n: usize) -> (u64, u64) {
        match self.write_slow(addr, &v.to_le_bytes()[..n]) {
            Ok(w) => ((w == Wrote::Code) as u64, 0),
            Err(f) => (0, encode_fault(f)),
        }
    }

    /// An access that crosses a page, wraps at 4 GiB or hits a special page.
    #[cold]
    fn read_slow(&self, addr: u32, out: &mut [u8]) -> Result<(), Fault> {
        for k in 0..out.len() as u32 {
            let a = addr.wrapping_add(k);
            let p = self.perm(a);
            if p & perm::GUARD != 0 {
                self.set_guard(a, 1, false);
                return Err(Fault {
                    addr: a,
                    access: Access::Read,
                    guard: true,
                });
            }
            if p & perm::READ == 0 {
                return Err(Fault::new(a, Access::Read));
            }
        }
        for (k, o) in out.iter_mut().enumerate() {
            let a = addr.wrapping_add(k as u32);
            // SAFETY: every byte's page was checked readable above.
            *o = unsafe { *self.base.add(a as usize) };
        }
        Ok(())
    }

    #[cold]
    fn write_slow(&self, addr: u32, bytes: &[u8]) -> Result<Wrote, Fault> {
        let mut code = false;
        for k in 0..bytes.len() as u32 {
            let a = addr.wrapping_add(k);
            let p = self.perm(a);
            if p & perm::GUARD != 0 {
                self.set_guard(a, 1, false);
                return Err(Fault {
                    addr: a,
                    access: Access::Write,
                    guard: true,
                });
            }
            if p & perm::WRITE == 0 {
                return Err(Fault::new(a, Access::Write));
            }
            code |= p & perm::CODE != 0;
        }
        for (k, b) in bytes.iter().enumerate() {
            let a = addr.wrapping_add(k as u32);
            // SAFETY: every byte's page was checked writable above.
            unsafe { *self.base.add(a as usize) = *b };
        }
        if code {
            self.note_code_write(addr, bytes.len() as u32);
            Ok(Wrote::Code)
        } else {
            Ok(Wrote::Data)
        }
    }

    /// Whether the page holding `addr` takes the access fast path: readable (and for
    /// `write`, writable and free of decoded code) and not a guard page. Loop folds
    /// use it to decide, a page at a time, where they may run their bulk kernels.
    #[inline(always)]
    pub fn fast_page(&self, addr: u32, write: bool) -> bool {
        let p = self.perm(addr);
        if write {
            p & (perm::WRITE | perm::CODE | perm::GUARD) == perm::WRITE
        } else {
            p & (perm::READ | perm::GUARD) == perm::READ
        }
    }

    /// Checks that `[addr, addr+len)` could be written, without writing. Lets
    /// multi-store instructions (PUSHA, ENTER, string ops) fault before any change.
    pub fn probe_write(&self, addr: u32, len: u32) -> Result<(), Fault> {
        self.probe(addr, len, perm::WRITE, Access::Write)
    }

    pub fn probe_read(&self, addr: u32, len: u32) -> Result<(), Fault> {
        self.probe(addr, len, perm::READ, Access::Read)
    }

    fn probe(&self, addr: u32, len: u32, need: u8, access: Access) -> Result<(), Fault> {
        self.probe_span(addr, len as u64, need, access)
    }

    /// Checks every page of `[addr, addr+len)`, wrapping at 4 GiB, for `need` and
    /// for the absence of GUARD. The fault names the first byte that cannot be
    /// touched: `addr` when its own page is refused, else the start of the refused
    /// page.
    fn probe_span(&self, addr: u32, len: u64, need: u8, access: Access) -> Result<(), Fault> {
        if len == 0 {
            return Ok(());
        }
        // The pages the span touches; a span of 4 GiB or more checks every page once.
        let pages = (((addr & 0xfff) as u64 + len + 0xfff) >> PAGE_SHIFT).min(PAGE_COUNT as u64);
        let mut a = addr;
        for k in 0..pages {
            let p = self.perm(a);
            if p & need == 0 || p & perm::GUARD != 0 {
                return Err(Fault::new(if k == 0 { addr } else { a }, access));
            }
            a = (a & !0xfff).wrapping_add(PAGE_SIZE);
        }
        Ok(())
    }

    /// Whether any page of `[addr, addr+len)` (wrapping at 4 GiB) holds decoded code.
    fn span_has_code(&self, addr: u32, len: u64) -> bool {
        let pages = (((addr & 0xfff) as u64 + len + 0xfff) >> PAGE_SHIFT).min(PAGE_COUNT as u64);
        let mut a = addr;
        for _ in 0..pages {
            if self.perm(a) & perm::CODE != 0 {
                return true;
            }
            a = (a & !0xfff).wrapping_add(PAGE_SIZE);
        }
        false
    }

    /// The pieces of `[addr, addr+len)` that are contiguous on the host: the span
    /// split where it wraps at 4 GiB. Yields (guest address, offset into the span,
    /// length).
    fn pieces(addr: u32, len: usize) -> impl Iterator<Item = (u32, usize, usize)> {
        let mut a = addr;
        let mut done = 0usize;
        std::iter::from_fn(move || {
            if done >= len {
                return None;
            }
            let n = (len - done).min(RESERVE - a as usize);
            let piece = (a, done, n);
            done += n;
            a = a.wrapping_add(n as u32);
            Some(piece)
        })
    }

    /// Copies guest bytes from `addr` (wrapping at 4 GiB) into `out`.
    ///
    /// # Safety
    /// Every page of `[addr, addr+out.len())` must have been probed committed.
    unsafe fn copy_out(&self, addr: u32, out: &mut [u8]) {
        for (a, off, n) in Self::pieces(addr, out.len()) {
            // SAFETY: the caller probed the pages committed (host readable); a piece
            // ends at 4 GiB at the latest, so it stays inside the reservation; `out`
            // is host memory, never part of the reservation.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    self.base.add(a as usize),
                    out.as_mut_ptr().add(off),
                    n,
                )
            };
        }
    }

    /// Copies `bytes` into guest memory at `addr` (wrapping at 4 GiB).
    ///
    /// # Safety
    /// Every page of `[addr, addr+bytes.len())` must have been probed committed.
    unsafe fn copy_in(&self, addr: u32, bytes: &[u8]) {
        for (a, off, n) in Self::pieces(addr, bytes.len()) {
            // SAFETY: as in `copy_out`, with the pages host writable (committed).
            unsafe {
                std::ptr::copy_nonoverlapping(bytes.as_ptr().add(off), self.base.add(a as usize), n)
            };
        }
    }

    /// Reads guest bytes for the host (loader, HLE), honouring only commitment.
    pub fn read_bytes(&self, addr: u32, out: &mut [u8]) -> Result<(), Fault> {
        self.probe_span(addr, out.len() as u64, perm::COMMITTED, Access::Read)?;
        // SAFETY: the whole span was probed committed just above.
        unsafe { self.copy_out(addr, out) };
        Ok(())
    }

    /// Writes guest bytes for the host (loader, HLE, tests), ignoring guest
    /// write protection but not commitment. Decoded code over those bytes is retired.
    pub fn write_bytes(&self, addr: u32, bytes: &[u8]) -> Result<(), Fault> {
        let len = bytes.len() as u64;
        self.probe_span(addr, len, perm::COMMITTED, Access::Write)?;
        let code = self.span_has_code(addr, len);
        // SAFETY: the whole span was probed committed just above.
        unsafe { self.copy_in(addr, bytes) };
        if code {
            self.note_code_write(addr, len as u32);
        }
        Ok(())
    }

    /// `memmove` inside guest memory for the host (HLE): copies `len` bytes from
    /// `src` to `dst`, the ranges may overlap. Faults as reading `src` with
    /// [`GuestMemory::read_bytes`] and then writing `dst` with
    /// [`GuestMemory::write_bytes`] would (the source first; nothing is written
    /// when either faults), and retires decoded code under `dst` the same way.
    pub fn copy_within(&self, dst: u32, src: u32, len: u32) -> Result<(), Fault> {
        self.probe_span(src, len as u64, perm::COMMITTED, Access::Read)?;
        self.probe_span(dst, len as u64, perm::COMMITTED, Access::Write)?;
        if len == 0 {
            return Ok(());
        }
        let code = self.span_has_code(dst, len as u64);
        let fits = |a: u32| a as usize + len as usize <= RESERVE;
        if fits(src) && fits(dst) {
            // SAFETY: both spans were probed committed (host readable and writable)
            // and neither wraps, so each is one host range inside the reservation;
            // `copy` allows them to overlap.
            unsafe {
                std::ptr::copy(
                    self.base.add(src as usize),
                    self.base.add(dst as usize),
                    len as usize,
                )
            };
        } else {
            // A span that wraps at 4 GiB: through a host buffer, which keeps the
            // overlap semantics without splitting the copy by hand.
            let mut tmp = vec![0u8; len as usize];
            // SAFETY: both spans were probed committed above.
            unsafe {
                self.copy_out(src, &mut tmp);
                self.copy_in(dst, &tmp);
            }
        }
        if code {
            self.note_code_write(dst, len);
        }
        Ok(())
    }

    /// `memset` for the host (HLE): `len` bytes at `dst` become `byte`. Faults and
    /// retires code as [`GuestMemory::write_bytes`] of that many bytes would.
    pub fn fill(&self, dst: u32, byte: u8, len: u32) -> Result<(), Fault> {
        self.probe_span(dst, len as u64, perm::COMMITTED, Access::Write)?;
        let code = self.span_has_code(dst, len as u64);
        for (a, _, n) in Self::pieces(dst, len as usize) {
            // SAFETY: the span was probed committed (host writable); a piece stays
            // below 4 GiB, inside the reservation.
            unsafe { std::ptr::write_bytes(self.base.add(a as usize), byte, n) };
        }
        if code {
            self.note_code_write(dst, len);
        }
        Ok(())
    }

    /// Offset of the first `byte` in the at most `max` bytes from `addr` (wrapping
    /// at 4 GiB), or `None` when those bytes hold none. Works a page at a time and
    /// reads no page beyond the one holding the match, so a string that ends just
    /// before an uncommitted page is found without a fault; a page that is reached
    /// and not committed faults as [`GuestMemory::read_bytes`] would (at `addr` or
    /// at the page's first byte).
    pub fn find_byte(&self, addr: u32, byte: u8, max: usize) -> Result<Option<usize>, Fault> {
        let mut a = addr;
        let mut done = 0usize;
        while done < max {
            let n = ((PAGE_SIZE - (a & 0xfff)) as usize).min(max - done);
            self.probe_span(a, n as u64, perm::COMMITTED, Access::Read)?;
            // SAFETY: `[a, a+n)` lies in one page, probed committed (host readable)
            // just above. Another guest thread may store to it meanwhile: that is
            // the guest's own data race, as on hardware (see `Region`).
            let s = unsafe { std::slice::from_raw_parts(self.base.add(a as usize), n) };
            if let Some(k) = s.iter().position(|&b| b == byte) {
                return Ok(Some(done + k));
            }
            done += n;
            a = a.wrapping_add(n as u32);
        }
        Ok(None)
    }

    /// `memcmp` for the host (HLE): compares `len` bytes at `a` with `len` bytes at
    /// `b` as unsigned bytes. Faults as reading all of `a` and then all of `b` with
    /// [`GuestMemory::read_bytes`] would.
    pub fn compare(&self, a: u32, b: u32, len: u32) -> Result<std::cmp::Ordering, Fault> {
        self.probe_span(a, len as u64, perm::COMMITTED, Access::Read)?;
        self.probe_span(b, len as u64, perm::COMMITTED, Access::Read)?;
        const CHUNK: usize = 512;
        let (mut x, mut y) = ([0u8; CHUNK], [0u8; CHUNK]);
        let mut done = 0u32;
        while done < len {
            let n = ((len - done) as usize).min(CHUNK);
            // SAFETY: both spans were probed committed above.
            unsafe {
                self.copy_out(a.wrapping_add(done), &mut x[..n]);
                self.copy_out(b.wrapping_add(done), &mut y[..n]);
            }
            let o = x[..n].cmp(&y[..n]);
            if o.is_ne() {
                return Ok(o);
            }
            done += n as u32;
        }
        Ok(std::cmp::Ordering::Equal)
    }

    /// Reads a NUL-terminated byte string (at most `max` bytes, without the NUL).
    pub fn read_cstr(&self, addr: u32, max: usize) -> Result<Vec<u8>, Fault> {
        let n = self.find_byte(addr, 0, max)?.unwrap_or(max);
        let mut v = vec![0u8; n];
        self.read_bytes(addr, &mut v)?;
        Ok(v)
    }

    // ---- code tracking -------------------------------------------------------------

    /// Marks a page as holding decoded code, so stores to it are reported.
    pub fn mark_code(&self, addr: u32) {
        if self.perm(addr) & perm::CODE != 0 {
            return;
        }
        let page = addr >> PAGE_SHIFT;
        self.change_pages(page, page, |old| old | perm::CODE);
        self.bump_layout();
    }

    /// Applies `f` to the bits of pages `first..=last` and recomputes the derived
    /// `FAST_*` bits of those pages and of the page before (whose bits depend on
    /// `first`). The derived bits that could be withdrawn are cleared before any
    /// page's bits change, and set again only from the changed bits, so compiled
    /// code reading this table without a lock never takes a derived bit that the
    /// change withdrew; readers in between see no derived bit and take the
    /// precise test.
    fn change_pages(&self, first: u32, last: u32, f: impl Fn(u8) -> u8) {
        let _g = self
            .region
            .perm_lock
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let perms = &self.region.perms;
        let lo = first.saturating_sub(1);
        for page in lo..=last {
            perms[page as usize].fetch_and(!perm::FAST, Ordering::SeqCst);
        }
        for page in first..=last {
            let slot = &perms[page as usize];
            let old = slot.load(Ordering::Relaxed);
            slot.store(f(old) & !perm::FAST, Ordering::SeqCst);
        }
        let bits = |page: u32| perms[page as usize].load(Ordering::Relaxed);
        for page in lo..=last {
            let next = if (page as usize) + 1 < PAGE_COUNT {
                perm::alone(bits(page + 1))
            } else {
                0
            };
            let fast = perm::alone(bits(page)) & next;
            if fast != 0 {
                perms[page as usize].fetch_or(fast, Ordering::SeqCst);
            }
        }
        self.sync_view(first, last);
    }

    /// Gives the protected view of pages `first..=last` the host protection
    /// their bits allow (called under `perm_lock`, after the bits changed): one
    /// mprotect per run of pages with the same protection. A failure leaves a
    /// page at most as open as before the change only if it was closing; so
    /// the view is closed whole then (every compiled access faults and runs on
    /// the interpreter, which is exact if slow).
    fn sync_view(&self, first: u32, last: u32) {
        let view = self.region.view;
        if view.is_null() {
            return;
        }
        let perms = &self.region.perms;
        let mut page = first;
        while page <= last {
            let prot = view_prot(perms[page as usize].load(Ordering::Relaxed));
            let run = page;
            while page <= last && view_prot(perms[page as usize].load(Ordering::Relaxed)) == prot {
                page += 1;
            }
            // SAFETY: pages `run..page` lie inside the view's reservation (page
            // numbers below 2^20), page aligned.
            let r = unsafe {
                libc::mprotect(
                    view.add((run as usize) << PAGE_SHIFT) as *mut libc::c_void,
                    ((page - run) as usize) << PAGE_SHIFT,
                    prot,
                )
            };
            if r != 0 {
                eprintln!(
                    "winterp: protected view: mprotect failed at guest {:#010x} ({}); closing the view",
                    run << PAGE_SHIFT,
                    std::io::Error::last_os_error()
                );
                // SAFETY: the whole view reservation, ours.
                unsafe {
                    libc::mprotect(view as *mut libc::c_void, RESERVE + GUARD, libc::PROT_NONE)
                };
                return;
            }
        }
    }

    fn bump_layout(&self) {
        self.region.layout_epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// The layout epoch (see `Region::layout_epoch`): while it is unchanged, a page
    /// [`GuestMemory::fast_page`] accepted still takes the fast path. Returned as the
    /// atomic so a hot loop can keep the reference and pay one load per check.
    #[inline(always)]
    pub fn layout_epoch(&self) -> &AtomicU64 {
        &self.region.layout_epoch
    }

    /// Host address of guest address 0: guest byte `ga` lives at `host_base() + ga`.
    /// Dereferencing is sound only for an access that stays inside a page
    /// [`GuestMemory::fast_page`] accepted (for a store: with `write`) under the
    /// current [`GuestMemory::layout_epoch`]; a store through it is not reported as a
    /// code write, which is why `fast_page(.., true)` refuses pages holding code.
    #[inline(always)]
    pub fn host_base(&self) -> *mut u8 {
        self.base
    }

    /// Host address of guest address 0 in the protected view (see the module
    /// notes), if the host gives one. An access through it that the permission
    /// table would refuse (or a store into a page holding decoded code) raises
    /// a host fault (SIGSEGV) instead of happening; one it would allow touches
    /// the same bytes as [`GuestMemory::host_base`].
    pub fn protected_view(&self) -> Option<*mut u8> {
        (!self.region.view.is_null()).then_some(self.region.view)
    }

    /// Address of the permission table (one byte per 4 KiB page, [`perm`] bits), for
    /// the `jit` tier's inline access path, which tests the same bits as the
    /// accessors above. Valid as long as this memory (any clone) lives.
    pub fn perm_table(&self) -> *const u8 {
        self.region.perms.as_ptr() as *const u8
    }

    /// Records that guest bytes holding decoded code changed; every thread's block
    /// cache replays this at its next block boundary.
    pub fn note_code_write(&self, addr: u32, len: u32) {
        let mut log = self
            .region
            .code_log
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let e = self.region.code_epoch.load(Ordering::Relaxed);
        log.ring[(e % CODE_LOG_LEN as u64) as usize] = (e, addr, len);
        self.region.code_epoch.store(e + 1, Ordering::Release);
        drop(log);
        self.region.watchers.raise(crate::attention::CODE);
    }

    /// `a` is raised (`attention::CODE`) at every code write from now on.
    pub fn watch(&self, a: &std::sync::Arc<crate::attention::Attention>) {
        self.region.watchers.add(a);
    }

    #[inline(always)]
    pub fn code_epoch(&self) -> u64 {
        self.region.code_epoch.load(Ordering::Acquire)
    }

    /// Code writes since `since`, or `None` if the log no longer reaches back that far
    /// (the caller then drops all decoded code).
    pub fn code_writes_since(&self, since: u64, out: &mut Vec<(u32, u32)>) -> Option<u64> {
        let log = self
            .region
            .code_log
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let now = self.region.code_epoch.load(Ordering::Relaxed);
        if now - since > CODE_LOG_LEN as u64 {
            return None;
        }
        for e in since..now {
            let (tag, a, l) = log.ring[(e % CODE_LOG_LEN as u64) as usize];
            if tag != e {
                return None;
            }
            out.push((a, l));
        }
        Some(now)
    }

    // ---- LOCK / XCHG --------------------------------------------------------------

    /// Atomic read-modify-write of `N` bytes (1, 2, 4 or 8) at `addr`: `f` maps the old
    /// value to `Some(new)` (store) or `None` (leave memory alone, as a failed
    /// CMPXCHG does). Returns the old value.
    pub fn atomic_rmw(
        &self,
        addr: u32,
        size: u32,
        mut f: impl FnMut(u64) -> Option<u64>,
    ) -> Result<(u64, Wrote), Fault> {
        // A locked read-modify-write faults as a write access, as x86 reports it.
        self.probe(addr, size, perm::READ, Access::Write)?;
        self.probe(addr, size, perm::WRITE, Access::Write)?;
        let mut code = false;
        if (addr & 0xfff) + size <= 0x1000 {
            code = self.perm(addr) & perm::CODE != 0;
        } else {
            code |= self.perm(addr) & perm::CODE != 0;
            code |= self.perm(addr.wrapping_add(size - 1)) & perm::CODE != 0;
        }
        let aligned = addr.is_multiple_of(size);
        let old = if aligned {
            // SAFETY: the range is committed, readable and writable (checked above),
            // aligned to its size, and lives as long as `self.region`.
            let p = unsafe { self.base.add(addr as usize) };
            macro_rules! cas_loop {
                ($at:ty, $t:ty) => {{
                    // SAFETY: `p` is aligned for `$t` and valid for the region's lifetime.
                    let a = unsafe { <$at>::from_ptr(p as *mut $t) };
                    let mut cur = a.load(Ordering::SeqCst);
                    loop {
                        match f(cur as u64) {
                            None => break cur as u64,
                            Some(n) => match a.compare_exchange_weak(
                                cur,
                                n as $t,
                                Ordering::SeqCst,
                                Ordering::SeqCst,
                            ) {
                                Ok(_) => break cur as u64,
                                Err(c) => cur = c,
                            },
                        }
                    }
                }};
            }
            match size {
                1 => cas_loop!(AtomicU8, u8),
                2 => cas_loop!(AtomicU16, u16),
                4 => cas_loop!(AtomicU32, u32),
                _ => cas_loop!(AtomicU64, u64),
            }
        } else {
            let _g = self
                .region
                .split_lock
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            let mut b = [0u8; 8];
            self.read_bytes(addr, &mut b[..size as usize])?;
            let cur = u64::from_le_bytes(b);
            if let Some(n) = f(cur) {
                let nb = n.to_le_bytes();
                for k in 0..size {
                    // SAFETY: checked writable above; under the split lock.
                    unsafe { *self.base.add(addr.wrapping_add(k) as usize) = nb[k as usize] };
                }
            }
            cur
        };
        if code {
            self.note_code_write(addr, size);
            Ok((old, Wrote::Code))
        } else {
            Ok((old, Wrote::Data))
        }
    }
}

const FAULT_FLAG: u64 = 1 << 63;

fn encode_fault(f: Fault) -> u64 {
    let access = match f.access {
        Access::Read => 0u64,
        Access::Write => 1,
        Access::Execute => 2,
    };
    FAULT_FLAG | (f.guard as u64) << 40 | access << 32 | f.addr as u64
}

#[inline(always)]
fn decode_slow((v, status): (u64, u64)) -> Result<u64, Fault> {
    if status == 0 {
        return Ok(v);
    }
    let access = match (status >> 32) & 0xff {
        0 => Access::Read,
        1 => Access::Write,
        _ => Access::Execute,
    };
    Err(Fault {
        addr: status as u32,
        access,
        guard: (status >> 40) & 1 != 0,
    })
}

/// Whether an access of `n` bytes at `addr` stays inside one page.
#[inline(always)]
const fn in_page(addr: u32, n: u32) -> bool {
    (addr & 0xfff) <= 0x1000 - n
}

fn page_span(addr: u32, len: u32) -> (u32, u32) {
    let first = addr >> PAGE_SHIFT;
    let last = (addr as u64 + len.max(1) as u64 - 1).min(u32::MAX as u64) as u32 >> PAGE_SHIFT;
    (first, last)
}

/// The host protection of a page in the protected view: what the inline paths
/// allow (`perm::alone` without the neighbour).
fn view_prot(bits: u8) -> libc::c_int {
    let a = perm::alone(bits);
    if a & perm::FAST_WRITE != 0 {
        libc::PROT_READ | libc::PROT_WRITE
    } else if a & perm::FAST_READ != 0 {
        libc::PROT_READ
    } else {
        libc::PROT_NONE
    }
}

/// The guest space as a memfd mapped twice (the plain view, then the protected
/// view), both `PROT_NONE` to begin with; None where the host cannot (the
/// caller then reserves anonymous memory and the `jit` tier tests the table).
#[cfg(target_os = "linux")]
fn two_views() -> Option<(*mut u8, *mut u8, libc::c_int)> {
    if std::env::var_os("WINTERP_NO_PROTECTED_VIEW").is_some() {
        return None;
    }
    // SAFETY: plain system calls on a descriptor this function owns; the two
    // mappings are new (no existing memory is touched) and are unmapped in
    // `Region::drop`, or here on failure.
    unsafe {
        let fd = libc::memfd_create(c"winterp-guest".as_ptr(), libc::MFD_CLOEXEC);
        if fd < 0 {
            return None;
        }
        if libc::ftruncate(fd, (RESERVE + GUARD) as libc::off_t) != 0 {
            libc::close(fd);
            return None;
        }
        let map = || {
            libc::mmap(
                std::ptr::null_mut(),
                RESERVE + GUARD,
                libc::PROT_NONE,
                libc::MAP_SHARED | libc::MAP_NORESERVE,
                fd,
                0,
            )
        };
        let a = map();
        if a == libc::MAP_FAILED {
            libc::close(fd);
            return None;
        }
        let b = map();
        if b == libc::MAP_FAILED {
            libc::munmap(a, RESERVE + GUARD);
            libc::close(fd);
            return None;
        }
        Some((a as *mut u8, b as *mut u8, fd))
    }
}

#[cfg(not(target_os = "linux"))]
fn two_views() -> Option<(*mut u8, *mut u8, libc::c_int)> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unmapped_and_readonly_fault_without_writing() {
        let m = GuestMemory::new().unwrap();
        assert_eq!(m.read_u32(0x1000), Err(Fault::new(0x1000, Access::Read)));
        m.commit(0x10000, 0x1000, Prot::R).unwrap();
        assert_eq!(m.read_u32(0x10000), Ok(0));
        assert_eq!(
            m.write_u32(0x10000, 5),
            Err(Fault::new(0x10000, Access::Write))
        );
        assert_eq!(m.read_u32(0x10000), Ok(0));
    }

    #[test]
    fn page_crossing_checks_both_pages() {
        let m = GuestMemory::new().unwrap();
        m.commit(0x20000, 0x1000, Prot::RW).unwrap();
        // Second page missing: the store faults at the first byte of that page, and
        // nothing is written to the first page either.
        assert_eq!(
            m.write_u32(0x20ffe, 0xdeadbeef),
            Err(Fault::new(0x21000, Access::Write))
        );
        assert_eq!(m.read_u16(0x20ffe), Ok(0));
        m.commit(0x21000, 0x1000, Prot::RW).unwrap();
        assert_eq!(m.write_u32(0x20ffe, 0xdeadbeef), Ok(Wrote::Data));
        assert_eq!(m.read_u32(0x20ffe), Ok(0xdeadbeef));
        assert_eq!(m.read_u8(0x21001), Ok(0xde));
    }

    #[test]
    fn wraps_at_4gib() {
        let m = GuestMemory::new().unwrap();
        m.commit(0xffff_f000, 0x1000, Prot::RW).unwrap();
        m.commit(0, 0x1000, Prot::RW).unwrap();
        m.write_u32(0xffff_fffe, 0x11223344).unwrap();
        assert_eq!(m.read_u16(0), Ok(0x1122));
        assert_eq!(m.read_u16(0xffff_fffe), Ok(0x3344));
    }

    #[test]
    fn code_writes_are_logged() {
        let m = GuestMemory::new().unwrap();
        m.commit(0x30000, 0x1000, Prot::RWX).unwrap();
        let e0 = m.code_epoch();
        m.write_u8(0x30010, 1).unwrap();
        assert_eq!(m.code_epoch(), e0);
        m.mark_code(0x30000);
        assert_eq!(m.write_u8(0x30010, 2), Ok(Wrote::Code));
        let mut v = Vec::new();
        assert_eq!(m.code_writes_since(e0, &mut v), Some(e0 + 1));
        assert_eq!(v, vec![(0x30010, 1)]);
    }

    #[test]
    fn layout_epoch_moves_when_a_fast_page_proof_could_break() {
        let m = GuestMemory::new().unwrap();
        let e = |m: &GuestMemory| m.layout_epoch().load(Ordering::SeqCst);
        m.commit(0x30000, 0x2000, Prot::RW).unwrap();
        let e0 = e(&m);
        // Data stores and a code mark of an already-marked page change nothing.
        m.write_u8(0x30010, 1).unwrap();
        assert_eq!(e(&m), e0);
        m.mark_code(0x30000);
        let e1 = e(&m);
        assert!(e1 > e0, "a page newly holding code");
        assert!(!m.fast_page(0x30000, true));
        m.mark_code(0x30004);
        assert_eq!(e(&m), e1);
        m.protect(0x31000, 0x1000, Prot::R).unwrap();
        let e2 = e(&m);
        assert!(e2 > e1, "protect");
        m.set_guard(0x31000, 1, true);
        let e3 = e(&m);
        assert!(e3 > e2, "guard");
        m.decommit(0x31000, 0x1000).unwrap();
        assert!(e(&m) > e3, "decommit");
        // SAFETY: 0x30010 is in a committed page; reading it through the base is what
        // the fast path does.
        let b = unsafe { *m.host_base().add(0x30010) };
        assert_eq!(b, 1);
    }

    #[test]
    fn bulk_reads_and_writes_cross_pages_and_fault_at_the_missing_page() {
        let m = GuestMemory::new().unwrap();
        m.commit(0x50000, 0x2000, Prot::R).unwrap();
        let data: Vec<u8> = (0..64u8).collect();
        // Host writes ignore guest protection and cross the page boundary.
        m.write_bytes(0x50fe0, &data).unwrap();
        assert_eq!(m.read_u32(0x50ffe), Ok(0x2120_1f1e));
        let mut back = [0u8; 64];
        m.read_bytes(0x50fe0, &mut back).unwrap();
        assert_eq!(back[..], data[..]);
        // 0x52000 is not committed: the fault names its first byte, and a faulting
        // write changes nothing before it.
        let mut out = [0u8; 0x20];
        assert_eq!(
            m.read_bytes(0x51ff0, &mut out),
            Err(Fault::new(0x52000, Access::Read))
        );
        assert_eq!(
            m.write_bytes(0x51ff0, &[0xaa; 0x20]),
            Err(Fault::new(0x52000, Access::Write))
        );
        assert_eq!(m.read_u32(0x51ff0), Ok(0));
        // A span that starts in an uncommitted page faults at its own first byte.
        assert_eq!(
            m.read_bytes(0x52010, &mut out),
            Err(Fault::new(0x52010, Access::Read))
        );
    }

    #[test]
    fn bulk_access_wraps_at_4gib_and_checks_the_pages_past_the_wrap() {
        let m = GuestMemory::new().unwrap();
        m.commit(0xffff_f000, 0x1000, Prot::RW).unwrap();
        // Page 0 is not committed: the part past the wrap faults at address 0.
        assert_eq!(
            m.write_bytes(0xffff_fffe, &[1, 2, 3, 4]),
            Err(Fault::new(0, Access::Write))
        );
        assert_eq!(m.read_u16(0xffff_fffe), Ok(0));
        let mut b = [0u8; 4];
        assert_eq!(
            m.read_bytes(0xffff_fffe, &mut b),
            Err(Fault::new(0, Access::Read))
        );
        m.commit(0, 0x1000, Prot::RW).unwrap();
        m.write_bytes(0xffff_fffe, &[1, 2, 3, 4]).unwrap();
        assert_eq!(m.read_u16(0), Ok(0x0403));
        m.read_bytes(0xffff_fffe, &mut b).unwrap();
        assert_eq!(b, [1, 2, 3, 4]);
        m.copy_within(0xffff_ffff, 0xffff_fffe, 4).unwrap();
        m.read_bytes(0xffff_fffe, &mut b).unwrap();
        assert_eq!(b, [1, 1, 2, 3]);
        m.fill(0xffff_fffd, 9, 5).unwrap();
        assert_eq!(m.read_u32(0xffff_fffd), Ok(0x0909_0909));
        assert_eq!(m.read_u8(1), Ok(9));
        assert_eq!(m.read_u8(2), Ok(4), "copied there before the fill");
        assert_eq!(m.read_u8(3), Ok(0));
    }

    #[test]
    fn copy_within_moves_overlapping_ranges_and_faults_like_read_then_write() {
        let m = GuestMemory::new().unwrap();
        m.commit(0x60000, 0x2000, Prot::RW).unwrap();
        m.write_bytes(0x60ffc, b"abcdefgh").unwrap();
        // Forward overlap (destination above the source), across the page boundary.
        m.copy_within(0x60ffe, 0x60ffc, 6).unwrap();
        let mut b = [0u8; 10];
        m.read_bytes(0x60ffc, &mut b).unwrap();
        assert_eq!(&b, b"ababcdef\0\0");
        // Backward overlap.
        m.copy_within(0x60ffc, 0x60ffd, 8).unwrap();
        m.read_bytes(0x60ffc, &mut b).unwrap();
        assert_eq!(&b, b"babcdef\0\0\0");
        // The source runs into uncommitted 0x62000: a read fault there, nothing written.
        assert_eq!(
            m.copy_within(0x60000, 0x61ff8, 0x10),
            Err(Fault::new(0x62000, Access::Read))
        );
        assert_eq!(m.read_u32(0x60000), Ok(0));
        // The destination runs into it: a write fault at its first byte, nothing written.
        assert_eq!(
            m.copy_within(0x61ffc, 0x60ffc, 8),
            Err(Fault::new(0x62000, Access::Write))
        );
        assert_eq!(m.read_u32(0x61ffc), Ok(0));
        // Both bad: the source is checked first, as read-then-write would.
        assert_eq!(
            m.copy_within(0x62004, 0x62008, 4),
            Err(Fault::new(0x62008, Access::Read))
        );
        // Guest protection does not matter to the host, commitment does.
        m.protect(0x61000, 0x1000, Prot::R).unwrap();
        m.copy_within(0x61000, 0x60ffc, 4).unwrap();
        assert_eq!(m.read_u32(0x61000), Ok(u32::from_le_bytes(*b"babc")));
        // Nothing to copy touches nothing.
        m.copy_within(0x70000, 0x71000, 0).unwrap();
    }

    #[test]
    fn host_copies_and_fills_over_code_are_logged() {
        let m = GuestMemory::new().unwrap();
        m.commit(0x30000, 0x2000, Prot::RWX).unwrap();
        m.mark_code(0x31000);
        let e0 = m.code_epoch();
        m.copy_within(0x30100, 0x31000, 0x10).unwrap();
        m.fill(0x30200, 0x90, 0x10).unwrap();
        assert_eq!(m.code_epoch(), e0, "no code under the destinations");
        m.copy_within(0x30ff8, 0x30000, 0x10).unwrap();
        m.fill(0x31004, 0x90, 4).unwrap();
        m.write_bytes(0x31008, &[0xcc]).unwrap();
        let mut v = Vec::new();
        assert_eq!(m.code_writes_since(e0, &mut v), Some(e0 + 3));
        assert_eq!(v, vec![(0x30ff8, 0x10), (0x31004, 4), (0x31008, 1)]);
        assert_eq!(m.read_u32(0x31004), Ok(0x9090_9090));
    }

    #[test]
    fn fill_faults_at_the_missing_page_and_writes_nothing() {
        let m = GuestMemory::new().unwrap();
        m.commit(0x80000, 0x1000, Prot::RW).unwrap();
        m.fill(0x80010, 0x5a, 3).unwrap();
        assert_eq!(m.read_u32(0x80010), Ok(0x005a_5a5a));
        assert_eq!(
            m.fill(0x80ff0, 0xff, 0x20),
            Err(Fault::new(0x81000, Access::Write))
        );
        assert_eq!(m.read_u32(0x80ff0), Ok(0));
    }

    #[test]
    fn find_byte_stops_before_an_uncommitted_page_and_faults_only_when_it_must() {
        let m = GuestMemory::new().unwrap();
        m.commit(0x90000, 0x1000, Prot::R).unwrap();
        m.fill(0x90000, b'x', 0x1000).unwrap();
        // A string whose NUL is the last byte before uncommitted 0x91000.
        m.write_bytes(0x90fff, &[0]).unwrap();
        assert_eq!(m.find_byte(0x90ff0, 0, usize::MAX), Ok(Some(0xf)));
        assert_eq!(m.read_cstr(0x90ffc, usize::MAX), Ok(b"xxx".to_vec()));
        // The bound stops the scan before the missing page too.
        m.write_bytes(0x90fff, b"x").unwrap();
        assert_eq!(m.find_byte(0x90ff0, 0, 0x10), Ok(None));
        assert_eq!(m.read_cstr(0x90ffe, 2), Ok(b"xx".to_vec()));
        // No NUL before the missing page: a read fault at its first byte.
        assert_eq!(
            m.find_byte(0x90ff0, 0, usize::MAX),
            Err(Fault::new(0x91000, Access::Read))
        );
        assert_eq!(
            m.read_cstr(0x90ff0, 0x20),
            Err(Fault::new(0x91000, Access::Read))
        );
        // Starting in the missing page faults at the start address.
        assert_eq!(
            m.find_byte(0x91234, 0, 1),
            Err(Fault::new(0x91234, Access::Read))
        );
        assert_eq!(m.find_byte(0x91234, 0, 0), Ok(None));
        // Any byte value, found at the first occurrence.
        m.write_bytes(0x90100, b"abcabc").unwrap();
        assert_eq!(m.find_byte(0x90100, b'c', 6), Ok(Some(2)));
    }

    #[test]
    fn compare_orders_unsigned_bytes_and_faults_on_either_span() {
        use std::cmp::Ordering::*;
        let m = GuestMemory::new().unwrap();
        m.commit(0xa0000, 0x2000, Prot::RW).unwrap();
        let long: Vec<u8> = (0..2000u32).map(|k| (k * 7) as u8).collect();
        m.write_bytes(0xa0100, &long).unwrap();
        m.write_bytes(0xa1000, &long).unwrap();
        assert_eq!(m.compare(0xa0100, 0xa1000, 2000), Ok(Equal));
        // A difference past the first 512-byte chunk; 0x80 sorts above 0x7f.
        m.write_bytes(0xa1000 + 1500, &[0x80]).unwrap();
        m.write_bytes(0xa0100 + 1500, &[0x7f]).unwrap();
        assert_eq!(m.compare(0xa0100, 0xa1000, 2000), Ok(Less));
        assert_eq!(m.compare(0xa1000, 0xa0100, 2000), Ok(Greater));
        assert_eq!(m.compare(0xa1000, 0xa0100, 1500), Ok(Equal));
        // Both spans are checked before any byte is compared, the first one first.
        assert_eq!(
            m.compare(0xa0000, 0xa1ff0, 0x20),
            Err(Fault::new(0xa2000, Access::Read))
        );
        assert_eq!(
            m.compare(0xa1ff0, 0xa2100, 0x20),
            Err(Fault::new(0xa2000, Access::Read))
        );
    }

    #[test]
    fn commit_and_decommit_of_many_pages_at_once() {
        let m = GuestMemory::new().unwrap();
        // A committed page inside the span keeps its contents when the span around
        // it is committed.
        m.commit(0xb4000, 0x1000, Prot::RW).unwrap();
        m.write_u32(0xb4000, 0x1234_5678).unwrap();
        m.commit(0xb0000, 0x10000, Prot::RW).unwrap();
        assert_eq!(m.read_u32(0xb4000), Ok(0x1234_5678));
        m.fill(0xb0000, 0xee, 0x10000).unwrap();
        m.decommit(0xb2000, 0x8000).unwrap();
        assert_eq!(m.read_u8(0xb1fff), Ok(0xee));
        assert_eq!(m.read_u8(0xb2000), Err(Fault::new(0xb2000, Access::Read)));
        assert_eq!(m.read_u8(0xb9fff), Err(Fault::new(0xb9fff, Access::Read)));
        assert_eq!(m.read_u8(0xba000), Ok(0xee));
        m.commit(0xb2000, 0x8000, Prot::RW).unwrap();
        let mut b = vec![0xffu8; 0x8000];
        m.read_bytes(0xb2000, &mut b).unwrap();
        assert!(
            b.iter().all(|&x| x == 0),
            "decommitted pages come back zeroed"
        );
    }

    #[test]
    fn atomic_rmw_counts_across_threads() {
        let m = GuestMemory::new().unwrap();
        m.commit(0x40000, 0x1000, Prot::RW).unwrap();
        let hs: Vec<_> = (0..4)
            .map(|_| {
                let m = m.clone();
                std::thread::spawn(move || {
                    for _ in 0..10000 {
                        m.atomic_rmw(0x40000, 4, |v| Some(v + 1)).unwrap();
                        m.atomic_rmw(0x40fff, 2, |v| Some((v + 1) & 0xffff)).ok();
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(m.read_u32(0x40000), Ok(40000));
    }
}
