//! KERNEL32 heaps: HeapCreate/HeapAlloc and friends, GlobalAlloc and LocalAlloc.
//!
//! A heap is a set of segments (64 KiB-granular reservations, committed read/write)
//! carved by a best-fit allocator with coalescing. Block bookkeeping lives on the
//! host side (address-ordered and size-ordered free maps, a map of used blocks), so a
//! guest overrun corrupts neighbouring data as on Windows but can never corrupt the
//! allocator. Growable heaps add segments of doubling size (1 MiB for the process
//! heap, up to 16 MiB at a time), so they are not capped; blocks of 512 KiB and more
//! get their own reservation. Blocks are 8-byte aligned and sized in 8-byte units.
//!
//! Rust API for the other DLLs (msvcrt's malloc): [`process_heap`] and the
//! [`Heap::alloc`] / [`Heap::free`] / [`Heap::realloc`] / [`Heap::size`] methods.

#![allow(non_snake_case)]
// Win32 signatures are fixed by the API, however many parameters they take.
#![allow(clippy::too_many_arguments)]

use crate::address_space::round_up;
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Ptr, stdcall};
use crate::process::Process;
use crate::teb::set_last_error;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use winterp_core::mem::{GuestMemory, Prot};

use super::misc::err;

pub const HEAP_NO_SERIALIZE: u32 = 0x1;
pub const HEAP_GROWABLE: u32 = 0x2;
pub const HEAP_GENERATE_EXCEPTIONS: u32 = 0x4;
pub const HEAP_ZERO_MEMORY: u32 = 0x8;
pub const HEAP_REALLOC_IN_PLACE_ONLY: u32 = 0x10;
pub const HEAP_CREATE_ENABLE_EXECUTE: u32 = 0x0004_0000;

/// Blocks at least this large get their own reservation in growable heaps.
pub const LARGE_BLOCK: u32 = 0x8_0000;
/// The largest block a fixed-size heap hands out (documented as "slightly less
/// than 512 KB" for 32-bit processes).
const FIXED_HEAP_MAX_BLOCK: u32 = 0x7_fff8;
const ALIGN: u32 = 8;
/// Bytes at the start of the first segment that no block uses, so the heap handle
/// (the segment base, as on Windows) never equals a block address.
const HEADER: u32 = 0x40;
const PROCESS_HEAP_SEGMENT: u32 = 0x10_0000;
const MIN_SEGMENT: u32 = 0x4_0000;
const MAX_GROWTH: u32 = 0x100_0000;

#[derive(Clone, Copy, Debug)]
struct Used {
    /// Size the caller asked for (HeapSize reports it).
    size: u32,
    /// Bytes the block occupies (multiple of 8).
    span: u32,
}

#[derive(Clone, Copy, Debug)]
struct Large {
    size: u32,
    /// Size of its reservation.
    region: u32,
}

#[derive(Default)]
struct HeapInner {
    /// base -> size.
    segments: BTreeMap<u32, u32>,
    free_by_addr: BTreeMap<u32, u32>,
    free_by_size: BTreeSet<(u32, u32)>,
    used: BTreeMap<u32, Used>,
    large: BTreeMap<u32, Large>,
    next_segment: u32,
    destroyed: bool,
}

/// One Win32 heap.
pub struct Heap {
    /// The HANDLE the guest sees: the base of the first segment.
    pub handle: u32,
    /// Flags given at creation (HEAP_GENERATE_EXCEPTIONS, HEAP_NO_SERIALIZE, ...).
    pub flags: u32,
    /// Zero when the heap grows; otherwise its fixed reserved size.
    pub maximum: u32,
    prot: Prot,
    mem: GuestMemory,
    proc: Weak<Process>,
    inner: Mutex<HeapInner>,
}

impl Heap {
    /// Creates a heap in `proc`'s address space. `initial` and `maximum` as for
    /// HeapCreate (`maximum == 0`: growable).
    pub fn create(proc: &Arc<Process>, flags: u32, initial: u32, maximum: u32) -> ApiResult<Heap> {
        let prot = if flags & HEAP_CREATE_ENABLE_EXECUTE != 0 {
            Prot::RWX
        } else {
            Prot::RW
        };
        let first = if maximum != 0 {
            round_up(maximum.max(initial).max(1), 0x1_0000)
        } else {
            round_up(initial.max(MIN_SEGMENT), 0x1_0000)
        };
        let base = proc
            .vm
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .alloc(None, first, prot, "heap")
            .map_err(|e| ApiError::Other(format!("HeapCreate: {e}")))?;
        let mut inner = HeapInner {
            next_segment: (first.saturating_mul(2)).min(MAX_GROWTH).max(first),
            ..Default::default()
        };
        inner.segments.insert(base, first);
        inner.insert_free(base + HEADER, first - HEADER);
        Ok(Heap {
            handle: base,
            flags,
            maximum,
            prot,
            mem: proc.mem.clone(),
            proc: Arc::downgrade(proc),
            inner: Mutex::new(inner),
        })
    }

    fn lock(&self) -> MutexGuard<'_, HeapInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn growable(&self) -> bool {
        self.maximum == 0
    }

    /// Allocates `size` bytes, zero-filled if `zero`. `Ok(0)` means the heap is
    /// exhausted (HeapAlloc's NULL); `Err` is a host-side failure.
    pub fn alloc(&self, size: u32, zero: bool) -> ApiResult<u32> {
        let mut g = self.lock();
        self.alloc_locked(&mut g, size, zero)
    }

    fn alloc_locked(&self, g: &mut HeapInner, size: u32, zero: bool) -> ApiResult<u32> {
        if g.destroyed {
            return Ok(0);
        }
        if size > 0xffff_0000 {
            return Ok(0);
        }
        let span = round_up(size.max(1), ALIGN);
        if !self.growable() && span > FIXED_HEAP_MAX_BLOCK {
            return Ok(0);
        }
        if self.growable() && span >= LARGE_BLOCK {
            return self.alloc_large(g, size);
        }
        let addr = match g.take_fit(span) {
            Some(a) => a,
            None => {
                if !self.growable() || !self.grow(g, span)? {
                    return Ok(0);
                }
                match g.take_fit(span) {
                    Some(a) => a,
                    None => return Ok(0),
                }
            }
        };
        g.used.insert(addr, Used { size, span });
        if zero {
            self.zero(addr, size)?;
        }
        Ok(addr)
    }

    fn alloc_large(&self, g: &mut HeapInner, size: u32) -> ApiResult<u32> {
        let Some(proc) = self.proc.upgrade() else {
            return Ok(0);
        };
        let region = round_up(size, winterp_core::mem::PAGE_SIZE);
        let r = proc.vm.lock().unwrap_or_else(|e| e.into_inner()).alloc(
            None,
            region,
            self.prot,
            "heap large block",
        );
        match r {
            // Freshly committed pages are zero, so no clearing is needed.
            Ok(a) => {
                g.large.insert(a, Large { size, region });
                Ok(a)
            }
            Err(_) => Ok(0),
        }
    }

    /// Adds a segment big enough for a block of `span` bytes.
    fn grow(&self, g: &mut HeapInner, span: u32) -> ApiResult<bool> {
        let Some(proc) = self.proc.upgrade() else {
            return Ok(false);
        };
        let size = round_up(span, 0x1_0000).max(g.next_segment);
        let r = proc
            .vm
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .alloc(None, size, self.prot, "heap");
        match r {
            Ok(base) => {
                g.segments.insert(base, size);
                g.insert_free(base, size);
                g.next_segment = g.next_segment.saturating_mul(2).min(MAX_GROWTH);
                Ok(true)
            }
            Err(_) => Ok(false),
        }
    }

    fn zero(&self, addr: u32, len: u32) -> ApiResult<()> {
        const CHUNK: u32 = 0x1_0000;
        let zeros = vec![0u8; CHUNK.min(len) as usize];
        let mut off = 0;
        while off < len {
            let n = (len - off).min(CHUNK);
            self.mem.write_bytes(addr + off, &zeros[..n as usize])?;
            off += n;
        }
        Ok(())
    }

    /// Frees a block; false if `ptr` is not a block of this heap.
    pub fn free(&self, ptr: u32) -> bool {
        let mut g = self.lock();
        self.free_locked(&mut g, ptr)
    }

    fn free_locked(&self, g: &mut HeapInner, ptr: u32) -> bool {
        if let Some(u) = g.used.remove(&ptr) {
            g.release_span(ptr, u.span);
            return true;
        }
        if let Some(l) = g.large.remove(&ptr) {
            if let Some(proc) = self.proc.upgrade() {
                let _ = proc
                    .vm
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .release(ptr);
            }
            let _ = l;
            return true;
        }
        false
    }

    /// Size the caller asked for when allocating `ptr`, if it is a block of this heap.
    pub fn size(&self, ptr: u32) -> Option<u32> {
        let g = self.lock();
        g.used
            .get(&ptr)
            .map(|u| u.size)
            .or_else(|| g.large.get(&ptr).map(|l| l.size))
    }

    /// Whether `ptr` is the start of a live block.
    pub fn owns(&self, ptr: u32) -> bool {
        let g = self.lock();
        g.used.contains_key(&ptr) || g.large.contains_key(&ptr)
    }

    /// Resizes a block, moving it unless `in_place_only`. Bytes past the old size
    /// are zeroed if `zero`. `Ok(0)`: not possible (the old block is untouched);
    /// `Err(ApiError::Other)` also if `ptr` is not a block of this heap.
    pub fn realloc(&self, ptr: u32, size: u32, zero: bool, in_place_only: bool) -> ApiResult<u32> {
        let mut g = self.lock();
        if size > 0xffff_0000 {
            return Ok(0);
        }
        let new_span = round_up(size.max(1), ALIGN);
        if let Some(u) = g.used.get(&ptr).copied() {
            let fits_small = !(self.growable() && new_span >= LARGE_BLOCK)
                && (self.growable() || new_span <= FIXED_HEAP_MAX_BLOCK);
            if fits_small && new_span <= u.span {
                if u.span - new_span >= ALIGN {
                    g.release_span(ptr + new_span, u.span - new_span);
                    g.used.insert(
                        ptr,
                        Used {
                            size,
                            span: new_span,
                        },
                    );
                } else {
                    g.used.insert(ptr, Used { size, span: u.span });
                }
                if zero && size > u.size {
                    self.zero(ptr + u.size, size - u.size)?;
                }
                return Ok(ptr);
            }
            if fits_small && g.extend_in_place(ptr, u.span, new_span) {
                g.used.insert(
                    ptr,
                    Used {
                        size,
                        span: new_span,
                    },
                );
                if zero {
                    self.zero(ptr + u.size, size - u.size)?;
                }
                return Ok(ptr);
            }
            if in_place_only {
                return Ok(0);
            }
            return self.move_block(&mut g, ptr, u.size, size, zero);
        }
        if let Some(l) = g.large.get(&ptr).copied() {
            if size <= l.region {
                g.large.insert(
                    ptr,
                    Large {
                        size,
                        region: l.region,
                    },
                );
                if zero && size > l.size {
                    self.zero(ptr + l.size, size - l.size)?;
                }
                return Ok(ptr);
            }
            if in_place_only {
                return Ok(0);
            }
            return self.move_block(&mut g, ptr, l.size, size, zero);
        }
        Err(ApiError::Other(format!(
            "HeapReAlloc: {ptr:#010x} is not a block of heap {:#010x}",
            self.handle
        )))
    }

    fn move_block(
        &self,
        g: &mut HeapInner,
        ptr: u32,
        old: u32,
        size: u32,
        zero: bool,
    ) -> ApiResult<u32> {
        let new = self.alloc_locked(g, size, false)?;
        if new == 0 {
            return Ok(0);
        }
        let keep = old.min(size);
        let mut buf = vec![0u8; keep as usize];
        self.mem.read_bytes(ptr, &mut buf)?;
        self.mem.write_bytes(new, &buf)?;
        if zero && size > old {
            self.zero(new + old, size - old)?;
        }
        self.free_locked(g, ptr);
        Ok(new)
    }

    /// Size of the largest free block (HeapCompact's answer).
    pub fn largest_free(&self) -> u32 {
        let g = self.lock();
        g.free_by_size.iter().next_back().map_or(0, |&(s, _)| s)
    }

    /// Checks the bookkeeping: free and used blocks tile every segment exactly.
    pub fn validate(&self) -> bool {
        let g = self.lock();
        let mut blocks: Vec<(u32, u32)> = g
            .free_by_addr
            .iter()
            .map(|(&a, &s)| (a, s))
            .chain(g.used.iter().map(|(&a, u)| (a, u.span)))
            .collect();
        blocks.sort_unstable();
        let mut it = blocks.into_iter().peekable();
        for (k, (&base, &size)) in g.segments.iter().enumerate() {
            let mut at = if k == 0 { base + HEADER } else { base };
            let end = base as u64 + size as u64;
            while let Some(&(a, s)) = it.peek() {
                if a as u64 >= end {
                    break;
                }
                if a != at {
                    return false;
                }
                at = a + s;
                it.next();
            }
            if at as u64 != end {
                return false;
            }
        }
        it.next().is_none() && g.free_by_size.len() == g.free_by_addr.len()
    }

    /// Releases every segment and large block.
    pub fn destroy(&self) {
        let mut g = self.lock();
        g.destroyed = true;
        let Some(proc) = self.proc.upgrade() else {
            return;
        };
        let mut vm = proc.vm.lock().unwrap_or_else(|e| e.into_inner());
        for &base in g.segments.keys().chain(g.large.keys()) {
            let _ = vm.release(base);
        }
        g.segments.clear();
        g.large.clear();
        g.used.clear();
        g.free_by_addr.clear();
        g.free_by_size.clear();
    }
}

impl HeapInner {
    fn insert_free(&mut self, addr: u32, len: u32) {
        self.free_by_addr.insert(addr, len);
        self.free_by_size.insert((len, addr));
    }

    fn remove_free(&mut self, addr: u32) -> Option<u32> {
        let len = self.free_by_addr.remove(&addr)?;
        self.free_by_size.remove(&(len, addr));
        Some(len)
    }

    /// End of the segment holding `addr`.
    fn segment_bounds(&self, addr: u32) -> (u32, u64) {
        self.segments
            .range(..=addr)
            .next_back()
            .map_or((0, 0), |(&b, &s)| (b, b as u64 + s as u64))
    }

    /// Best fit: the smallest free block of at least `span` bytes, split.
    fn take_fit(&mut self, span: u32) -> Option<u32> {
        let &(len, addr) = self.free_by_size.range((span, 0)..).next()?;
        self.remove_free(addr);
        if len > span {
            self.insert_free(addr + span, len - span);
        }
        Some(addr)
    }

    /// Returns `[addr, addr+len)` to the free maps, merging with free neighbours in
    /// the same segment.
    fn release_span(&mut self, addr: u32, len: u32) {
        let (seg_base, seg_end) = self.segment_bounds(addr);
        let (mut start, mut len) = (addr, len);
        if let Some((&pa, &pl)) = self.free_by_addr.range(..addr).next_back()
            && pa >= seg_base
            && pa + pl == addr
        {
            self.remove_free(pa);
            start = pa;
            len += pl;
        }
        let next = start as u64 + len as u64;
        if next < seg_end
            && let Some(nl) = self.remove_free(next as u32)
        {
            len += nl;
        }
        self.insert_free(start, len);
    }

    /// Grows a used block from `span` to `new_span` by taking from the free block
    /// right after it.
    fn extend_in_place(&mut self, addr: u32, span: u32, new_span: u32) -> bool {
        let next = addr as u64 + span as u64;
        let (_, seg_end) = self.segment_bounds(addr);
        if next >= seg_end {
            return false;
        }
        let next = next as u32;
        let need = new_span - span;
        match self.free_by_addr.get(&next).copied() {
            Some(nl) if nl >= need => {
                self.remove_free(next);
                if nl > need {
                    self.insert_free(next + need, nl - need);
                }
                true
            }
            _ => false,
        }
    }
}

/// Moveable global/local memory: the handle is the address of an 8-byte slot (from
/// the process heap) holding the block's current address, as Windows does, so
/// `*(void **)hMem` works and the handle survives a GlobalReAlloc that moves the
/// block. Fixed memory's handle is the block address itself.
#[derive(Clone, Copy, Debug)]
struct Moveable {
    /// Current block address (0 when discarded or allocated with size 0).
    ptr: u32,
    locks: u32,
    flags: u32,
}

/// The process's heaps and its global/local memory handles.
#[derive(Default)]
pub struct Heaps {
    process: OnceLock<Arc<Heap>>,
    all: Mutex<BTreeMap<u32, Arc<Heap>>>,
    moveable: Mutex<HashMap<u32, Moveable>>,
    /// Block address -> moveable handle (GlobalHandle).
    by_ptr: Mutex<HashMap<u32, u32>>,
}

fn heaps(proc: &Process) -> &Heaps {
    &proc.k32.heaps
}

/// The process heap (GetProcessHeap), created on first use.
pub fn process_heap(proc: &Arc<Process>) -> ApiResult<Arc<Heap>> {
    let h = heaps(proc);
    if let Some(p) = h.process.get() {
        return Ok(p.clone());
    }
    let mut all = h.all.lock().unwrap_or_else(|e| e.into_inner());
    // Re-check under the registry lock so two threads never create two process heaps.
    if let Some(p) = h.process.get() {
        return Ok(p.clone());
    }
    let heap = Arc::new(Heap::create(proc, 0, PROCESS_HEAP_SEGMENT, 0)?);
    all.insert(heap.handle, heap.clone());
    let _ = h.process.set(heap.clone());
    Ok(heap)
}

/// The heap behind a HANDLE.
pub fn heap_by_handle(proc: &Arc<Process>, handle: u32) -> Option<Arc<Heap>> {
    let h = heaps(proc);
    h.all
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&handle)
        .cloned()
}

fn heap_arg(cx: &Ctx, api: &str, hHeap: u32) -> ApiResult<Arc<Heap>> {
    heap_by_handle(cx.proc, hHeap)
        .ok_or_else(|| ApiError::Other(format!("{api}: {hHeap:#010x} is not a heap handle")))
}

fn exceptions_unimplemented(api: &str) -> ApiError {
    ApiError::UnimplementedCase(format!(
        "{api}: HEAP_GENERATE_EXCEPTIONS on failure (STATUS_NO_MEMORY)"
    ))
}

pub fn GetProcessHeap(cx: &mut Ctx) -> ApiResult<u32> {
    Ok(process_heap(cx.proc)?.handle)
}

pub fn HeapCreate(
    cx: &mut Ctx,
    flOptions: u32,
    dwInitialSize: u32,
    dwMaximumSize: u32,
) -> ApiResult<u32> {
    if dwMaximumSize != 0 && dwMaximumSize < dwInitialSize {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    match Heap::create(cx.proc, flOptions, dwInitialSize, dwMaximumSize) {
        Ok(heap) => {
            let handle = heap.handle;
            heaps(cx.proc)
                .all
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(handle, Arc::new(heap));
            Ok(handle)
        }
        Err(_) => {
            set_last_error(cx, err::ERROR_NOT_ENOUGH_MEMORY)?;
            Ok(0)
        }
    }
}

pub fn HeapDestroy(cx: &mut Ctx, hHeap: u32) -> ApiResult<bool> {
    let is_process = heaps(cx.proc)
        .process
        .get()
        .is_some_and(|p| p.handle == hHeap);
    let removed = if is_process {
        None
    } else {
        heaps(cx.proc)
            .all
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&hHeap)
    };
    match removed {
        Some(h) => {
            h.destroy();
            Ok(true)
        }
        None => {
            set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
            Ok(false)
        }
    }
}

pub fn HeapAlloc(cx: &mut Ctx, hHeap: u32, dwFlags: u32, dwBytes: u32) -> ApiResult<u32> {
    let heap = heap_arg(cx, "HeapAlloc", hHeap)?;
    let p = heap.alloc(dwBytes, dwFlags & HEAP_ZERO_MEMORY != 0)?;
    if p == 0 && (dwFlags | heap.flags) & HEAP_GENERATE_EXCEPTIONS != 0 {
        return Err(exceptions_unimplemented("HeapAlloc"));
    }
    Ok(p)
}

pub fn HeapFree(cx: &mut Ctx, hHeap: u32, _dwFlags: u32, lpMem: u32) -> ApiResult<bool> {
    let heap = heap_arg(cx, "HeapFree", hHeap)?;
    if lpMem == 0 {
        return Ok(true);
    }
    if heap.free(lpMem) {
        Ok(true)
    } else {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        Ok(false)
    }
}

pub fn HeapReAlloc(
    cx: &mut Ctx,
    hHeap: u32,
    dwFlags: u32,
    lpMem: u32,
    dwBytes: u32,
) -> ApiResult<u32> {
    let heap = heap_arg(cx, "HeapReAlloc", hHeap)?;
    if !heap.owns(lpMem) {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    let p = heap.realloc(
        lpMem,
        dwBytes,
        dwFlags & HEAP_ZERO_MEMORY != 0,
        dwFlags & HEAP_REALLOC_IN_PLACE_ONLY != 0,
    )?;
    if p == 0 {
        if (dwFlags | heap.flags) & HEAP_GENERATE_EXCEPTIONS != 0 {
            return Err(exceptions_unimplemented("HeapReAlloc"));
        }
        set_last_error(cx, err::ERROR_NOT_ENOUGH_MEMORY)?;
    }
    Ok(p)
}

pub fn HeapSize(cx: &mut Ctx, hHeap: u32, _dwFlags: u32, lpMem: u32) -> ApiResult<u32> {
    let heap = heap_arg(cx, "HeapSize", hHeap)?;
    match heap.size(lpMem) {
        Some(s) => Ok(s),
        None => {
            set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
            Ok(u32::MAX)
        }
    }
}

pub fn HeapValidate(cx: &mut Ctx, hHeap: u32, _dwFlags: u32, lpMem: u32) -> ApiResult<bool> {
    let Some(heap) = heap_by_handle(cx.proc, hHeap) else {
        return Ok(false);
    };
    if lpMem != 0 {
        return Ok(heap.owns(lpMem));
    }
    Ok(heap.validate())
}

pub fn HeapCompact(cx: &mut Ctx, hHeap: u32, _dwFlags: u32) -> ApiResult<u32> {
    let heap = heap_arg(cx, "HeapCompact", hHeap)?;
    Ok(heap.largest_free())
}

/// GlobalCompact and LocalCompact: Win32 has no movable global heap to compact;
/// Windows NT compacts the process heap (which the Global and Local functions
/// allocate from) and answers its largest free block, as HeapCompact does.
pub fn GlobalCompact(cx: &mut Ctx, _dwMinFree: u32) -> ApiResult<u32> {
    Ok(process_heap(cx.proc)?.largest_free())
}

pub fn GetProcessHeaps(cx: &mut Ctx, NumberOfHeaps: u32, ProcessHeaps: Ptr) -> ApiResult<u32> {
    process_heap(cx.proc)?;
    let list: Vec<u32> = heaps(cx.proc)
        .all
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .keys()
        .copied()
        .collect();
    if list.len() as u32 <= NumberOfHeaps {
        for (k, h) in list.iter().enumerate() {
            cx.proc.mem.write_u32(ProcessHeaps.0 + 4 * k as u32, *h)?;
        }
    }
    Ok(list.len() as u32)
}

// ---- GlobalAlloc / LocalAlloc ----------------------------------------------------------
//
// Global and local memory are the same thing on Win32; both come from the process heap.

const GMEM_MOVEABLE: u32 = 0x2;
const GMEM_ZEROINIT: u32 = 0x40;
const GMEM_MODIFY: u32 = 0x80;
const GMEM_DISCARDABLE: u32 = 0x100;
const GMEM_DISCARDED: u32 = 0x4000;
/// Flag bits GlobalAlloc accepts.
const GMEM_VALID_FLAGS: u32 = 0x7f72;

fn global_alloc(cx: &mut Ctx, uFlags: u32, dwBytes: u32) -> ApiResult<u32> {
    if uFlags & !GMEM_VALID_FLAGS != 0 {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    let heap = process_heap(cx.proc)?;
    let zero = uFlags & GMEM_ZEROINIT != 0;
    if uFlags & GMEM_MOVEABLE == 0 {
        let p = heap.alloc(dwBytes, zero)?;
        if p == 0 {
            set_last_error(cx, err::ERROR_NOT_ENOUGH_MEMORY)?;
        }
        return Ok(p);
    }
    let slot = heap.alloc(8, true)?;
    if slot == 0 {
        set_last_error(cx, err::ERROR_NOT_ENOUGH_MEMORY)?;
        return Ok(0);
    }
    let ptr = if dwBytes == 0 {
        0
    } else {
        let p = heap.alloc(dwBytes, zero)?;
        if p == 0 {
            heap.free(slot);
            set_last_error(cx, err::ERROR_NOT_ENOUGH_MEMORY)?;
            return Ok(0);
        }
        p
    };
    cx.proc.mem.write_u32(slot, ptr)?;
    let h = heaps(cx.proc);
    let flags = uFlags & GMEM_DISCARDABLE | if ptr == 0 { GMEM_DISCARDED } else { 0 };
    h.moveable.lock().unwrap_or_else(|e| e.into_inner()).insert(
        slot,
        Moveable {
            ptr,
            locks: 0,
            flags,
        },
    );
    if ptr != 0 {
        h.by_ptr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(ptr, slot);
    }
    Ok(slot)
}

fn moveable(cx: &Ctx, h: u32) -> Option<Moveable> {
    heaps(cx.proc)
        .moveable
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&h)
        .copied()
}

fn set_moveable(cx: &Ctx, h: u32, m: Moveable) {
    heaps(cx.proc)
        .moveable
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(h, m);
}

fn global_free(cx: &mut Ctx, hMem: u32) -> ApiResult<u32> {
    let heap = process_heap(cx.proc)?;
    if let Some(m) = moveable(cx, hMem) {
        let hs = heaps(cx.proc);
        hs.moveable
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&hMem);
        if m.ptr != 0 {
            hs.by_ptr
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&m.ptr);
            heap.free(m.ptr);
        }
        heap.free(hMem);
        return Ok(0);
    }
    if hMem != 0 && heap.free(hMem) {
        return Ok(0);
    }
    set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
    Ok(hMem)
}

fn global_lock(cx: &mut Ctx, hMem: u32) -> ApiResult<u32> {
    if let Some(mut m) = moveable(cx, hMem) {
        if m.ptr == 0 {
            set_last_error(cx, err::ERROR_DISCARDED)?;
            return Ok(0);
        }
        m.locks = (m.locks + 1).min(0xff);
        set_moveable(cx, hMem, m);
        return Ok(m.ptr);
    }
    if process_heap(cx.proc)?.owns(hMem) {
        return Ok(hMem);
    }
    set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
    Ok(0)
}

fn global_unlock(cx: &mut Ctx, hMem: u32) -> ApiResult<bool> {
    if let Some(mut m) = moveable(cx, hMem) {
        if m.locks == 0 {
            set_last_error(cx, err::ERROR_NOT_LOCKED)?;
            return Ok(false);
        }
        m.locks -= 1;
        set_moveable(cx, hMem, m);
        if m.locks == 0 {
            set_last_error(cx, err::NO_ERROR)?;
            return Ok(false);
        }
        return Ok(true);
    }
    // Fixed memory has no lock count; Windows answers TRUE for it.
    if process_heap(cx.proc)?.owns(hMem) {
        return Ok(true);
    }
    set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
    Ok(false)
}

fn global_size(cx: &mut Ctx, hMem: u32) -> ApiResult<u32> {
    let heap = process_heap(cx.proc)?;
    let ptr = match moveable(cx, hMem) {
        Some(m) if m.ptr == 0 => return Ok(0),
        Some(m) => m.ptr,
        None => hMem,
    };
    match heap.size(ptr) {
        Some(s) => Ok(s),
        None => {
            set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
            Ok(0)
        }
    }
}

fn global_handle(cx: &mut Ctx, pMem: u32) -> ApiResult<u32> {
    if let Some(&h) = heaps(cx.proc)
        .by_ptr
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&pMem)
    {
        return Ok(h);
    }
    if moveable(cx, pMem).is_some() || process_heap(cx.proc)?.owns(pMem) {
        return Ok(pMem);
    }
    set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
    Ok(0)
}

fn global_flags(cx: &mut Ctx, hMem: u32) -> ApiResult<u32> {
    if let Some(m) = moveable(cx, hMem) {
        return Ok(m.flags | m.locks);
    }
    if process_heap(cx.proc)?.owns(hMem) {
        return Ok(0);
    }
    set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
    Ok(0x8000) // GMEM_INVALID_HANDLE
}

fn global_realloc(cx: &mut Ctx, hMem: u32, dwBytes: u32, uFlags: u32) -> ApiResult<u32> {
    let heap = process_heap(cx.proc)?;
    let zero = uFlags & GMEM_ZEROINIT != 0;
    if let Some(mut m) = moveable(cx, hMem) {
        if uFlags & GMEM_MODIFY != 0 {
            m.flags = (m.flags & !GMEM_DISCARDABLE) | (uFlags & GMEM_DISCARDABLE);
            set_moveable(cx, hMem, m);
            return Ok(hMem);
        }
        let hs = heaps(cx.proc);
        let old = m.ptr;
        let new = if old == 0 {
            if dwBytes == 0 {
                0
            } else {
                heap.alloc(dwBytes, zero)?
            }
        } else if dwBytes == 0 {
            // Size 0 discards a moveable block (only when unlocked).
            if m.locks != 0 {
                return Ok(hMem);
            }
            heap.free(old);
            0
        } else {
            // A locked block may move only if GMEM_MOVEABLE is given again.
            let may_move = m.locks == 0 || uFlags & GMEM_MOVEABLE != 0;
            heap.realloc(old, dwBytes, zero, !may_move)?
        };
        if new == 0 && dwBytes != 0 {
            set_last_error(cx, err::ERROR_NOT_ENOUGH_MEMORY)?;
            return Ok(0);
        }
        let mut by_ptr = hs.by_ptr.lock().unwrap_or_else(|e| e.into_inner());
        if old != 0 {
            by_ptr.remove(&old);
        }
        if new != 0 {
            by_ptr.insert(new, hMem);
        }
        drop(by_ptr);
        m.ptr = new;
        if new == 0 {
            m.flags |= GMEM_DISCARDED;
        } else {
            m.flags &= !GMEM_DISCARDED;
        }
        set_moveable(cx, hMem, m);
        cx.proc.mem.write_u32(hMem, new)?;
        return Ok(hMem);
    }
    if !heap.owns(hMem) {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(0);
    }
    if uFlags & GMEM_MODIFY != 0 {
        return Ok(hMem);
    }
    // Fixed memory moves only when the caller allows it with GMEM_MOVEABLE.
    let p = heap.realloc(hMem, dwBytes, zero, uFlags & GMEM_MOVEABLE == 0)?;
    if p == 0 {
        set_last_error(cx, err::ERROR_NOT_ENOUGH_MEMORY)?;
    }
    Ok(p)
}

pub fn GlobalAlloc(cx: &mut Ctx, uFlags: u32, dwBytes: u32) -> ApiResult<u32> {
    global_alloc(cx, uFlags, dwBytes)
}
pub fn GlobalFree(cx: &mut Ctx, hMem: u32) -> ApiResult<u32> {
    global_free(cx, hMem)
}
pub fn GlobalLock(cx: &mut Ctx, hMem: u32) -> ApiResult<u32> {
    global_lock(cx, hMem)
}
pub fn GlobalUnlock(cx: &mut Ctx, hMem: u32) -> ApiResult<bool> {
    global_unlock(cx, hMem)
}
pub fn GlobalSize(cx: &mut Ctx, hMem: u32) -> ApiResult<u32> {
    global_size(cx, hMem)
}
pub fn GlobalHandle(cx: &mut Ctx, pMem: u32) -> ApiResult<u32> {
    global_handle(cx, pMem)
}
pub fn GlobalFlags(cx: &mut Ctx, hMem: u32) -> ApiResult<u32> {
    global_flags(cx, hMem)
}
pub fn GlobalReAlloc(cx: &mut Ctx, hMem: u32, dwBytes: u32, uFlags: u32) -> ApiResult<u32> {
    global_realloc(cx, hMem, dwBytes, uFlags)
}
pub fn LocalAlloc(cx: &mut Ctx, uFlags: u32, uBytes: u32) -> ApiResult<u32> {
    global_alloc(cx, uFlags, uBytes)
}
pub fn LocalFree(cx: &mut Ctx, hMem: u32) -> ApiResult<u32> {
    global_free(cx, hMem)
}
pub fn LocalLock(cx: &mut Ctx, hMem: u32) -> ApiResult<u32> {
    global_lock(cx, hMem)
}
pub fn LocalUnlock(cx: &mut Ctx, hMem: u32) -> ApiResult<bool> {
    global_unlock(cx, hMem)
}
pub fn LocalSize(cx: &mut Ctx, hMem: u32) -> ApiResult<u32> {
    global_size(cx, hMem)
}
pub fn LocalHandle(cx: &mut Ctx, pMem: u32) -> ApiResult<u32> {
    global_handle(cx, pMem)
}
pub fn LocalFlags(cx: &mut Ctx, hMem: u32) -> ApiResult<u32> {
    global_flags(cx, hMem)
}
pub fn LocalReAlloc(cx: &mut Ctx, hMem: u32, uBytes: u32, uFlags: u32) -> ApiResult<u32> {
    global_realloc(cx, hMem, uBytes, uFlags)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GetProcessHeap", GetProcessHeap),
        stdcall("GetProcessHeaps", GetProcessHeaps),
        stdcall("HeapCreate", HeapCreate),
        stdcall("HeapDestroy", HeapDestroy),
        stdcall("HeapAlloc", HeapAlloc),
        stdcall("HeapFree", HeapFree),
        stdcall("HeapReAlloc", HeapReAlloc),
        stdcall("HeapSize", HeapSize),
        stdcall("HeapValidate", HeapValidate),
        stdcall("HeapCompact", HeapCompact),
        stdcall("GlobalCompact", GlobalCompact),
        stdcall("LocalCompact", GlobalCompact),
        stdcall("GlobalAlloc", GlobalAlloc),
        stdcall("GlobalFree", GlobalFree),
        stdcall("GlobalLock", GlobalLock),
        stdcall("GlobalUnlock", GlobalUnlock),
        stdcall("GlobalSize", GlobalSize),
        stdcall("GlobalHandle", GlobalHandle),
        stdcall("GlobalFlags", GlobalFlags),
        stdcall("GlobalReAlloc", GlobalReAlloc),
        stdcall("LocalAlloc", LocalAlloc),
        stdcall("LocalFree", LocalFree),
        stdcall("LocalLock", LocalLock),
        stdcall("LocalUnlock", LocalUnlock),
        stdcall("LocalSize", LocalSize),
        stdcall("LocalHandle", LocalHandle),
        stdcall("LocalFlags", LocalFlags),
        stdcall("LocalReAlloc", LocalReAlloc),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel32::misc::test_support::Harness;

    #[test]
    fn blocks_are_aligned_disjoint_and_sized_as_asked() {
        let mut h = Harness::new();
        let ph = GetProcessHeap(&mut h.cx()).unwrap();
        assert_eq!(ph, GetProcessHeap(&mut h.cx()).unwrap());
        let mut blocks = Vec::new();
        for size in [0u32, 1, 7, 8, 9, 100, 4096, 70000] {
            let p = HeapAlloc(&mut h.cx(), ph, 0, size).unwrap();
            assert_ne!(p, 0);
            assert_ne!(p, ph);
            assert_eq!(p % 8, 0);
            assert_eq!(HeapSize(&mut h.cx(), ph, 0, p).unwrap(), size);
            blocks.push((p, size.max(1)));
        }
        blocks.sort();
        for w in blocks.windows(2) {
            assert!(w[0].0 + w[0].1 <= w[1].0, "{w:x?} overlap");
        }
        assert!(HeapValidate(&mut h.cx(), ph, 0, 0).unwrap());
    }

    #[test]
    fn zero_memory_and_reuse_after_free() {
        let mut h = Harness::new();
        let ph = GetProcessHeap(&mut h.cx()).unwrap();
        let p = HeapAlloc(&mut h.cx(), ph, 0, 64).unwrap();
        h.proc.mem.write_bytes(p, &[0xaa; 64]).unwrap();
        assert!(HeapFree(&mut h.cx(), ph, 0, p).unwrap());
        let q = HeapAlloc(&mut h.cx(), ph, HEAP_ZERO_MEMORY, 64).unwrap();
        assert_eq!(q, p, "best fit reuses the freed block");
        let mut b = [1u8; 64];
        h.proc.mem.read_bytes(q, &mut b).unwrap();
        assert_eq!(b, [0u8; 64]);
        // Freeing twice fails with ERROR_INVALID_PARAMETER.
        assert!(HeapFree(&mut h.cx(), ph, 0, q).unwrap());
        assert!(!HeapFree(&mut h.cx(), ph, 0, q).unwrap());
        assert_eq!(h.last_error(), err::ERROR_INVALID_PARAMETER);
        assert_eq!(HeapSize(&mut h.cx(), ph, 0, q).unwrap(), u32::MAX);
    }

    #[test]
    fn freeing_everything_coalesces_back_to_one_block() {
        let h = Harness::new();
        let heap = process_heap(&h.proc).unwrap();
        let before = heap.largest_free();
        let ps: Vec<u32> = (0..200)
            .map(|k| heap.alloc(16 + k * 8, false).unwrap())
            .collect();
        // Free in an interleaved order so both-sided merges happen.
        for p in ps.iter().step_by(2).chain(ps.iter().skip(1).step_by(2)) {
            assert!(heap.free(*p));
        }
        assert!(heap.validate());
        assert_eq!(heap.largest_free(), before);
        assert_eq!(before, PROCESS_HEAP_SEGMENT - HEADER);
    }

    #[test]
    fn growable_heap_is_not_capped_and_large_blocks_get_their_own_region() {
        let h = Harness::new();
        let heap = process_heap(&h.proc).unwrap();
        // 64 MiB in 60 KiB blocks: far beyond the first 1 MiB segment.
        let mut n = 0u64;
        while n < 64 << 20 {
            let p = heap.alloc(60 * 1024, false).unwrap();
            assert_ne!(p, 0);
            n += 60 * 1024;
        }
        assert!(heap.validate());
        let big = heap.alloc(3 << 20, true).unwrap();
        assert_ne!(big, 0);
        let vm = h.proc.vm.lock().unwrap();
        let r = vm.reservation(big).unwrap();
        assert_eq!((r.base, r.tag.as_str()), (big, "heap large block"));
        drop(vm);
        assert_eq!(heap.size(big), Some(3 << 20));
        assert!(heap.free(big));
        assert!(h.proc.vm.lock().unwrap().reservation(big).is_none());
    }

    #[test]
    fn realloc_grows_in_place_when_the_neighbour_is_free_and_moves_otherwise() {
        let mut h = Harness::new();
        let ph = GetProcessHeap(&mut h.cx()).unwrap();
        let a = HeapAlloc(&mut h.cx(), ph, 0, 32).unwrap();
        h.proc.mem.write_bytes(a, &[7u8; 32]).unwrap();
        // Nothing after `a` yet: grows in place, new bytes zeroed on request.
        let a2 = HeapReAlloc(&mut h.cx(), ph, HEAP_ZERO_MEMORY, a, 64).unwrap();
        assert_eq!(a2, a);
        let mut b = [0u8; 64];
        h.proc.mem.read_bytes(a, &mut b).unwrap();
        assert_eq!(&b[..32], &[7u8; 32]);
        assert_eq!(&b[32..], &[0u8; 32]);
        let blocker = HeapAlloc(&mut h.cx(), ph, 0, 8).unwrap();
        assert_eq!(blocker, a + 64);
        // In-place-only growth is refused while the neighbour is in use...
        let r = HeapReAlloc(&mut h.cx(), ph, HEAP_REALLOC_IN_PLACE_ONLY, a, 128).unwrap();
        assert_eq!(r, 0);
        assert_eq!(HeapSize(&mut h.cx(), ph, 0, a).unwrap(), 64);
        // ...and an ordinary realloc moves and keeps the contents.
        let m = HeapReAlloc(&mut h.cx(), ph, 0, a, 128).unwrap();
        assert_ne!(m, a);
        let mut c = [0u8; 64];
        h.proc.mem.read_bytes(m, &mut c).unwrap();
        assert_eq!(c, b);
        // Shrinking stays in place.
        assert_eq!(HeapReAlloc(&mut h.cx(), ph, 0, m, 16).unwrap(), m);
        assert_eq!(HeapSize(&mut h.cx(), ph, 0, m).unwrap(), 16);
        assert!(HeapValidate(&mut h.cx(), ph, 0, 0).unwrap());
    }

    #[test]
    fn fixed_size_heaps_refuse_big_blocks_and_do_not_grow() {
        let mut h = Harness::new();
        let hh = HeapCreate(&mut h.cx(), 0, 0x1000, 0x2_0000).unwrap();
        assert_ne!(hh, 0);
        assert_eq!(HeapAlloc(&mut h.cx(), hh, 0, 0x8_0000).unwrap(), 0);
        let mut total = 0;
        while HeapAlloc(&mut h.cx(), hh, 0, 0x1000).unwrap() != 0 {
            total += 0x1000;
        }
        assert!((0x1_e000..0x2_0000).contains(&total), "{total:#x}");
        assert!(HeapDestroy(&mut h.cx(), hh).unwrap());
        assert!(h.proc.vm.lock().unwrap().reservation(hh).is_none());
        assert!(!HeapDestroy(&mut h.cx(), hh).unwrap());
        assert_eq!(h.last_error(), err::ERROR_INVALID_HANDLE);
        let list = h.scratch(0x1000);
        assert_eq!(GetProcessHeaps(&mut h.cx(), 4, Ptr(list)).unwrap(), 1);
        assert_eq!(h.u32(list), GetProcessHeap(&mut h.cx()).unwrap());
    }

    #[test]
    fn random_workload_keeps_contents_and_bookkeeping() {
        let h = Harness::new();
        let heap = process_heap(&h.proc).unwrap();
        let mut live: Vec<(u32, u32, u8)> = Vec::new();
        let mut seed = 0x1234_5678u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        for step in 0..4000u32 {
            let r = next();
            let tag = (step % 251) as u8;
            if live.is_empty() || r % 3 != 0 {
                let size = if r % 50 == 0 { 600_000 } else { next() % 3000 };
                let p = heap.alloc(size, false).unwrap();
                assert_ne!(p, 0);
                h.proc
                    .mem
                    .write_bytes(p, &vec![tag; size as usize])
                    .unwrap();
                live.push((p, size, tag));
            } else {
                let k = (next() as usize) % live.len();
                let (p, size, t) = live.swap_remove(k);
                let mut b = vec![0u8; size as usize];
                h.proc.mem.read_bytes(p, &mut b).unwrap();
                assert!(b.iter().all(|&x| x == t), "block {p:#x} corrupted");
                if r % 2 == 0 {
                    assert!(heap.free(p));
                } else {
                    let ns = next() % 5000;
                    let q = heap.realloc(p, ns, false, false).unwrap();
                    let keep = size.min(ns) as usize;
                    let mut c = vec![0u8; keep];
                    h.proc.mem.read_bytes(q, &mut c).unwrap();
                    assert!(c.iter().all(|&x| x == t));
                    h.proc.mem.write_bytes(q, &vec![tag; ns as usize]).unwrap();
                    live.push((q, ns, tag));
                }
            }
        }
        assert!(heap.validate());
        let mut spans: Vec<(u32, u32)> = live.iter().map(|&(p, s, _)| (p, s.max(1))).collect();
        spans.sort();
        for w in spans.windows(2) {
            assert!(w[0].0 + w[0].1 <= w[1].0);
        }
    }

    #[test]
    fn global_compact_answers_the_process_heaps_largest_free_block() {
        let mut h = Harness::new();
        let a = GlobalAlloc(&mut h.cx(), 0, 0x2_0000).unwrap();
        let b = GlobalAlloc(&mut h.cx(), 0, 16).unwrap();
        assert_eq!(GlobalFree(&mut h.cx(), a).unwrap(), 0);
        // The freed 128 KiB block is free again.
        assert!(GlobalCompact(&mut h.cx(), 0).unwrap() >= 0x2_0000);
        assert_eq!(GlobalFree(&mut h.cx(), b).unwrap(), 0);
    }

    #[test]
    fn moveable_global_memory_keeps_its_handle() {
        let mut h = Harness::new();
        let hm = GlobalAlloc(&mut h.cx(), GMEM_MOVEABLE | GMEM_ZEROINIT, 100).unwrap();
        assert_ne!(hm, 0);
        assert_eq!(GlobalFlags(&mut h.cx(), hm).unwrap(), 0);
        let p = GlobalLock(&mut h.cx(), hm).unwrap();
        assert_ne!(p, hm);
        // The handle points at the block's address, as on Windows.
        assert_eq!(h.u32(hm), p);
        assert_eq!(GlobalFlags(&mut h.cx(), hm).unwrap(), 1);
        assert_eq!(GlobalHandle(&mut h.cx(), p).unwrap(), hm);
        assert_eq!(GlobalSize(&mut h.cx(), hm).unwrap(), 100);
        h.proc.mem.write_bytes(p, b"hello").unwrap();
        assert!(!GlobalUnlock(&mut h.cx(), hm).unwrap());
        assert_eq!(h.last_error(), err::NO_ERROR);
        assert!(!GlobalUnlock(&mut h.cx(), hm).unwrap());
        assert_eq!(h.last_error(), err::ERROR_NOT_LOCKED);
        // Force a move by growing past a neighbour.
        let _pin = GlobalAlloc(&mut h.cx(), 0, 16).unwrap();
        assert_eq!(
            GlobalReAlloc(&mut h.cx(), hm, 5000, GMEM_MOVEABLE).unwrap(),
            hm
        );
        let p2 = GlobalLock(&mut h.cx(), hm).unwrap();
        assert_eq!(h.u32(hm), p2);
        assert_eq!(h.cstr(p2), "hello");
        assert_eq!(GlobalSize(&mut h.cx(), hm).unwrap(), 5000);
        assert_eq!(GlobalFree(&mut h.cx(), hm).unwrap(), 0);
        assert_eq!(GlobalFree(&mut h.cx(), hm).unwrap(), hm);
        assert_eq!(h.last_error(), err::ERROR_INVALID_HANDLE);
        // Fixed memory: the handle is the pointer.
        let f = LocalAlloc(&mut h.cx(), 0x40, 10).unwrap();
        assert_eq!(LocalLock(&mut h.cx(), f).unwrap(), f);
        assert_eq!(LocalHandle(&mut h.cx(), f).unwrap(), f);
        assert_eq!(LocalSize(&mut h.cx(), f).unwrap(), 10);
        assert_eq!(LocalFree(&mut h.cx(), f).unwrap(), 0);
    }
}
