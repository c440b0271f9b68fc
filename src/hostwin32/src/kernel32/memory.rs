//! KERNEL32 virtual memory: VirtualAlloc/Free/Protect/Query with Win32's
//! reservation (64 KiB) and commitment (page) rules and error codes, PAGE_* <->
//! [`Prot`] mapping including PAGE_GUARD, and the IsBad*Ptr probes.
//!
//! MEM_TOP_DOWN is accepted but addresses are still taken bottom-up.

#![allow(non_snake_case)]
// Win32 signatures are fixed by the API, however many parameters they take.
#![allow(clippy::too_many_arguments)]

use crate::address_space::{GRANULARITY, PageState, USER_MAX, USER_MIN, VmError, round_up};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Ptr, stdcall};
use crate::objects::CURRENT_PROCESS;
use crate::teb::set_last_error;
use winterp_core::mem::{PAGE_SIZE, Prot, perm};

use super::misc::err;

pub const PAGE_NOACCESS: u32 = 0x01;
pub const PAGE_READONLY: u32 = 0x02;
pub const PAGE_READWRITE: u32 = 0x04;
pub const PAGE_WRITECOPY: u32 = 0x08;
pub const PAGE_EXECUTE: u32 = 0x10;
pub const PAGE_EXECUTE_READ: u32 = 0x20;
pub const PAGE_EXECUTE_READWRITE: u32 = 0x40;
pub const PAGE_EXECUTE_WRITECOPY: u32 = 0x80;
pub const PAGE_GUARD: u32 = 0x100;
pub const PAGE_NOCACHE: u32 = 0x200;
pub const PAGE_WRITECOMBINE: u32 = 0x400;

pub const MEM_COMMIT: u32 = 0x1000;
pub const MEM_RESERVE: u32 = 0x2000;
pub const MEM_DECOMMIT: u32 = 0x4000;
pub const MEM_RELEASE: u32 = 0x8000;
pub const MEM_FREE: u32 = 0x1_0000;
pub const MEM_PRIVATE: u32 = 0x2_0000;
pub const MEM_MAPPED: u32 = 0x4_0000;
pub const MEM_RESET: u32 = 0x8_0000;
pub const MEM_TOP_DOWN: u32 = 0x10_0000;
pub const MEM_WRITE_WATCH: u32 = 0x20_0000;
pub const MEM_PHYSICAL: u32 = 0x40_0000;
pub const MEM_IMAGE: u32 = 0x100_0000;
pub const MEM_LARGE_PAGES: u32 = 0x2000_0000;

/// Reservation tag of file-mapping views (VirtualQuery reports MEM_MAPPED).
pub const MAPPING_TAG: &str = "file mapping";
const ERROR_BAD_LENGTH: u32 = 24;

/// A PAGE_* value as protection and guard flag; `None` if it is not exactly one
/// base protection plus the allowed modifiers.
pub fn prot_from_page(p: u32) -> Option<(Prot, bool)> {
    let guard = p & PAGE_GUARD != 0;
    let base = p & !(PAGE_GUARD | PAGE_NOCACHE | PAGE_WRITECOMBINE);
    let prot = match base {
        PAGE_NOACCESS => Prot::NONE,
        PAGE_READONLY => Prot::R,
        PAGE_READWRITE | PAGE_WRITECOPY => Prot::RW,
        PAGE_EXECUTE => Prot {
            read: false,
            write: false,
            exec: true,
        },
        PAGE_EXECUTE_READ => Prot::RX,
        PAGE_EXECUTE_READWRITE | PAGE_EXECUTE_WRITECOPY => Prot::RWX,
        _ => return None,
    };
    // PAGE_NOACCESS takes no modifiers.
    if base == PAGE_NOACCESS && p != PAGE_NOACCESS {
        return None;
    }
    Some((prot, guard))
}

/// The PAGE_* value of a protection.
pub fn page_from_prot(p: Prot) -> u32 {
    match (p.read, p.write, p.exec) {
        (_, true, true) => PAGE_EXECUTE_READWRITE,
        (true, false, true) => PAGE_EXECUTE_READ,
        (false, false, true) => PAGE_EXECUTE,
        (_, true, false) => PAGE_READWRITE,
        (true, false, false) => PAGE_READONLY,
        (false, false, false) => PAGE_NOACCESS,
    }
}

fn fail<T: Default>(cx: &mut Ctx, code: u32) -> ApiResult<T> {
    set_last_error(cx, code)?;
    Ok(T::default())
}

fn page_span(addr: u32, size: u32) -> (u32, u32) {
    let start = addr & !(PAGE_SIZE - 1);
    let end = round_up(addr.saturating_add(size), PAGE_SIZE);
    (start, end - start)
}

pub fn VirtualAlloc(
    cx: &mut Ctx,
    lpAddress: u32,
    dwSize: u32,
    flAllocationType: u32,
    flProtect: u32,
) -> ApiResult<u32> {
    if flAllocationType & (MEM_PHYSICAL | MEM_LARGE_PAGES | MEM_WRITE_WATCH) != 0 {
        return Err(ApiError::UnimplementedCase(format!(
            "VirtualAlloc: allocation type {flAllocationType:#x} (physical, large-page or write-watch memory)"
        )));
    }
    let kind = flAllocationType & !MEM_TOP_DOWN;
    if dwSize == 0 || kind & !(MEM_COMMIT | MEM_RESERVE | MEM_RESET) != 0 || kind == 0 {
        return fail(cx, err::ERROR_INVALID_PARAMETER);
    }
    if kind & MEM_RESET != 0 {
        if kind != MEM_RESET {
            return fail(cx, err::ERROR_INVALID_PARAMETER);
        }
        // The pages' contents become undefined; keeping them is a valid answer.
        let (start, _) = page_span(lpAddress, dwSize);
        if !cx.proc.mem.is_committed(start) {
            return fail(cx, err::ERROR_INVALID_ADDRESS);
        }
        return Ok(start);
    }
    let Some((prot, guard)) = prot_from_page(flProtect) else {
        return fail(cx, err::ERROR_INVALID_PARAMETER);
    };
    if lpAddress != 0 && !(USER_MIN..=USER_MAX).contains(&lpAddress) {
        return fail(cx, err::ERROR_INVALID_PARAMETER);
    }
    let mut vm = cx.proc.vm.lock().unwrap_or_else(|e| e.into_inner());
    let reserve = kind & MEM_RESERVE != 0 || lpAddress == 0;
    let (base, commit_at, commit_len) = if reserve {
        let (base, size) = if lpAddress == 0 {
            (None, round_up(dwSize, PAGE_SIZE))
        } else {
            let b = lpAddress & !(GRANULARITY - 1);
            let end = round_up(lpAddress.saturating_add(dwSize), PAGE_SIZE);
            (Some(b), end - b)
        };
        let r = match vm.reserve(base, size, prot, "VirtualAlloc") {
            Ok(b) => b,
            Err(VmError::Overlap(..)) => {
                drop(vm);
                return fail(cx, err::ERROR_INVALID_ADDRESS);
            }
            Err(_) => {
                drop(vm);
                return fail(cx, err::ERROR_NOT_ENOUGH_MEMORY);
            }
        };
        if lpAddress == 0 {
            (r, r, size)
        } else {
            let (s, l) = page_span(lpAddress, dwSize);
            (r, s, l)
        }
    } else {
        let (s, l) = page_span(lpAddress, dwSize);
        (s, s, l)
    };
    if kind & MEM_COMMIT != 0 {
        let inside = vm
            .reservation(commit_at)
            .is_some_and(|r| commit_at as u64 + commit_len as u64 <= r.base as u64 + r.size as u64);
        if !inside {
            drop(vm);
            return fail(cx, err::ERROR_INVALID_ADDRESS);
        }
        if let Err(e) = vm.commit(commit_at, commit_len, prot) {
            return Err(ApiError::Other(format!("VirtualAlloc: {e}")));
        }
        cx.proc.mem.set_guard(commit_at, commit_len, guard);
        if !reserve {
            return Ok(commit_at);
        }
    }
    Ok(base)
}

pub fn VirtualFree(cx: &mut Ctx, lpAddress: u32, dwSize: u32, dwFreeType: u32) -> ApiResult<bool> {
    let mut vm = cx.proc.vm.lock().unwrap_or_else(|e| e.into_inner());
    let Some(r) = vm.reservation(lpAddress).cloned() else {
        drop(vm);
        return fail(cx, err::ERROR_INVALID_ADDRESS);
    };
    // Images and winterp's own regions are not VirtualAlloc memory.
    let foreign = r.tag.starts_with("image") || r.tag.starts_with("HLE") || r.tag == MAPPING_TAG;
    match dwFreeType {
        MEM_RELEASE => {
            if dwSize != 0 || foreign {
                drop(vm);
                return fail(cx, err::ERROR_INVALID_PARAMETER);
            }
            if lpAddress != r.base {
                drop(vm);
                return fail(cx, err::ERROR_INVALID_ADDRESS);
            }
            vm.release(r.base)
                .map_err(|e| ApiError::Other(format!("VirtualFree: {e}")))?;
            Ok(true)
        }
        MEM_DECOMMIT => {
            if foreign {
                drop(vm);
                return fail(cx, err::ERROR_INVALID_PARAMETER);
            }
            let (start, len) = if dwSize == 0 {
                if lpAddress != r.base {
                    drop(vm);
                    return fail(cx, err::ERROR_INVALID_ADDRESS);
                }
                (r.base, r.size)
            } else {
                page_span(lpAddress, dwSize)
            };
            if start as u64 + len as u64 > r.base as u64 + r.size as u64 {
                drop(vm);
                return fail(cx, err::ERROR_INVALID_ADDRESS);
            }
            vm.decommit(start, len)
                .map_err(|e| ApiError::Other(format!("VirtualFree: {e}")))?;
            Ok(true)
        }
        _ => {
            drop(vm);
            fail(cx, err::ERROR_INVALID_PARAMETER)
        }
    }
}

/// PAGE_* of a committed page, with PAGE_GUARD if set.
fn page_prot_at(cx: &Ctx, addr: u32) -> u32 {
    let p = page_from_prot(cx.proc.mem.prot(addr));
    if cx.proc.mem.perm(addr) & perm::GUARD != 0 {
        p | PAGE_GUARD
    } else {
        p
    }
}

pub fn VirtualProtect(
    cx: &mut Ctx,
    lpAddress: u32,
    dwSize: u32,
    flNewProtect: u32,
    lpflOldProtect: Ptr,
) -> ApiResult<bool> {
    let Some((prot, guard)) = prot_from_page(flNewProtect) else {
        return fail(cx, err::ERROR_INVALID_PARAMETER);
    };
    if lpflOldProtect.is_null() {
        return fail(cx, err::ERROR_NOACCESS);
    }
    let (start, len) = page_span(lpAddress, dwSize.max(1));
    {
        let vm = cx.proc.vm.lock().unwrap_or_else(|e| e.into_inner());
        let inside = vm
            .reservation(start)
            .is_some_and(|r| start as u64 + len as u64 <= r.base as u64 + r.size as u64);
        let committed =
            (0..len / PAGE_SIZE).all(|k| cx.proc.mem.is_committed(start + k * PAGE_SIZE));
        if !inside || !committed {
            drop(vm);
            return fail(cx, err::ERROR_INVALID_ADDRESS);
        }
    }
    let old = page_prot_at(cx, start);
    cx.proc
        .mem
        .protect(start, len, prot)
        .map_err(|e| ApiError::Other(format!("VirtualProtect: {e}")))?;
    cx.proc.mem.set_guard(start, len, guard);
    cx.proc.mem.write_u32(lpflOldProtect.0, old)?;
    Ok(true)
}

/// MEMORY_BASIC_INFORMATION for `addr` (28 bytes), or `None` above user space.
pub fn query(cx: &Ctx, addr: u32) -> Option<[u32; 7]> {
    if addr > USER_MAX {
        return None;
    }
    let vm = cx.proc.vm.lock().unwrap_or_else(|e| e.into_inner());
    let mut q = vm.query(addr);
    let (state, protect, typ) = match q.state {
        PageState::Free => (MEM_FREE, PAGE_NOACCESS, 0),
        PageState::Reserved | PageState::Committed => {
            let tag = vm
                .reservation(addr)
                .map(|r| r.tag.clone())
                .unwrap_or_default();
            let typ = if tag.starts_with("image") {
                MEM_IMAGE
            } else if tag == MAPPING_TAG {
                MEM_MAPPED
            } else {
                MEM_PRIVATE
            };
            if q.state == PageState::Reserved {
                (MEM_RESERVE, 0, typ)
            } else {
                // The address space merges pages by protection only; a guard page
                // differs too, so cut the run where the guard bit changes.
                let g = cx.proc.mem.perm(q.base) & perm::GUARD;
                let mut n = PAGE_SIZE;
                while n < q.size && cx.proc.mem.perm(q.base + n) & perm::GUARD == g {
                    n += PAGE_SIZE;
                }
                q.size = n;
                (MEM_COMMIT, page_prot_at(cx, q.base), typ)
            }
        }
    };
    let alloc_prot = if q.state == PageState::Free {
        0
    } else {
        page_from_prot(q.alloc_prot)
    };
    Some([
        q.base,
        q.alloc_base,
        alloc_prot,
        q.size,
        state,
        protect,
        typ,
    ])
}

pub fn VirtualQuery(cx: &mut Ctx, lpAddress: u32, lpBuffer: Ptr, dwLength: u32) -> ApiResult<u32> {
    if dwLength < 28 {
        return fail(cx, ERROR_BAD_LENGTH);
    }
    let Some(mbi) = query(cx, lpAddress) else {
        return fail(cx, err::ERROR_INVALID_PARAMETER);
    };
    let b: Vec<u8> = mbi.iter().flat_map(|v| v.to_le_bytes()).collect();
    cx.proc.mem.write_bytes(lpBuffer.0, &b)?;
    Ok(28)
}

pub fn VirtualQueryEx(
    cx: &mut Ctx,
    hProcess: u32,
    lpAddress: u32,
    lpBuffer: Ptr,
    dwLength: u32,
) -> ApiResult<u32> {
    if hProcess != CURRENT_PROCESS {
        return fail(cx, err::ERROR_INVALID_HANDLE);
    }
    VirtualQuery(cx, lpAddress, lpBuffer, dwLength)
}

pub fn IsBadReadPtr(cx: &mut Ctx, lp: u32, ucb: u32) -> bool {
    ucb != 0 && (lp == 0 || cx.proc.mem.probe_read(lp, ucb).is_err())
}

pub fn IsBadWritePtr(cx: &mut Ctx, lp: u32, ucb: u32) -> bool {
    ucb != 0 && (lp == 0 || cx.proc.mem.probe_write(lp, ucb).is_err())
}

pub fn IsBadCodePtr(cx: &mut Ctx, lpfn: u32) -> bool {
    lpfn == 0 || cx.proc.mem.probe_read(lpfn, 1).is_err()
}

pub fn IsBadStringPtrA(cx: &mut Ctx, lpsz: u32, ucchMax: u32) -> bool {
    if ucchMax == 0 {
        return false;
    }
    if lpsz == 0 {
        return true;
    }
    for k in 0..ucchMax {
        let a = lpsz.wrapping_add(k);
        if cx.proc.mem.probe_read(a, 1).is_err() {
            return true;
        }
        if cx.proc.mem.read_u8(a).unwrap_or(1) == 0 {
            return false;
        }
    }
    false
}

pub fn IsBadStringPtrW(cx: &mut Ctx, lpsz: u32, ucchMax: u32) -> bool {
    if ucchMax == 0 {
        return false;
    }
    if lpsz == 0 {
        return true;
    }
    for k in 0..ucchMax {
        let a = lpsz.wrapping_add(2 * k);
        if cx.proc.mem.probe_read(a, 2).is_err() {
            return true;
        }
        if cx.proc.mem.read_u16(a).unwrap_or(1) == 0 {
            return false;
        }
    }
    false
}

// ---- GlobalMemoryStatus ---------------------------------------------------------------

/// What the machine has, in bytes: physical memory total and available, and the
/// page file (reported as the same as physical: there is no separate swap to show).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MachineMemory {
    pub total_phys: u64,
    pub avail_phys: u64,
}

/// The host's memory from `/proc/meminfo`; in deterministic mode (or where that is
/// missing) a fixed 1 GiB machine with 768 MiB free, so runs see the same numbers.
pub(crate) fn machine_memory(deterministic: bool) -> MachineMemory {
    const FIXED: MachineMemory = MachineMemory {
        total_phys: 1 << 30,
        avail_phys: 768 << 20,
    };
    if deterministic {
        return FIXED;
    }
    let Ok(info) = std::fs::read_to_string("/proc/meminfo") else {
        return FIXED;
    };
    let field = |name: &str| {
        info.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
    };
    match (field("MemTotal"), field("MemAvailable")) {
        (Some(total_phys), Some(avail_phys)) => MachineMemory {
            total_phys,
            avail_phys: avail_phys.min(total_phys),
        },
        _ => FIXED,
    }
}

/// Bytes of the user address space not reserved by anything.
fn free_virtual(cx: &Ctx) -> u64 {
    let vm = cx.proc.vm.lock().unwrap_or_else(|e| e.into_inner());
    let used: u64 = vm
        .reservations()
        .filter(|r| r.base >= USER_MIN && r.base <= USER_MAX)
        .map(|r| r.size as u64)
        .sum();
    total_virtual().saturating_sub(used)
}

fn total_virtual() -> u64 {
    USER_MAX as u64 + 1 - USER_MIN as u64
}

fn memory_load(m: &MachineMemory) -> u32 {
    if m.total_phys == 0 {
        return 0;
    }
    (100 - m.avail_phys * 100 / m.total_phys) as u32
}

/// MEMORYSTATUS. Values above 2 GiB are clamped to 0x7fffffff, as Windows does for
/// programs that are not large-address-aware, so 32-bit arithmetic in old programs
/// cannot overflow.
pub fn GlobalMemoryStatus(cx: &mut Ctx, lpBuffer: Ptr) -> ApiResult<()> {
    let m = machine_memory(cx.proc.config.deterministic);
    let clamp = |v: u64| v.min(0x7fff_ffff) as u32;
    let vals = [
        32,
        memory_load(&m),
        clamp(m.total_phys),
        clamp(m.avail_phys),
        clamp(m.total_phys),
        clamp(m.avail_phys),
        clamp(total_virtual()),
        clamp(free_virtual(cx)),
    ];
    for (k, v) in vals.iter().enumerate() {
        cx.proc.mem.write_u32(lpBuffer.0 + 4 * k as u32, *v)?;
    }
    Ok(())
}

/// MEMORYSTATUSEX: dwLength must be 64.
pub fn GlobalMemoryStatusEx(cx: &mut Ctx, lpBuffer: Ptr) -> ApiResult<bool> {
    if cx.proc.mem.read_u32(lpBuffer.0)? != 64 {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    let m = machine_memory(cx.proc.config.deterministic);
    let mem = &cx.proc.mem;
    mem.write_u32(lpBuffer.0 + 4, memory_load(&m))?;
    let vals = [
        m.total_phys,
        m.avail_phys,
        m.total_phys,
        m.avail_phys,
        total_virtual(),
        free_virtual(cx),
        0,
    ];
    for (k, v) in vals.iter().enumerate() {
        cx.proc.mem.write_u64(lpBuffer.0 + 8 + 8 * k as u32, *v)?;
    }
    Ok(true)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GlobalMemoryStatus", GlobalMemoryStatus),
        stdcall("GlobalMemoryStatusEx", GlobalMemoryStatusEx),
        stdcall("VirtualAlloc", VirtualAlloc),
        stdcall("VirtualFree", VirtualFree),
        stdcall("VirtualProtect", VirtualProtect),
        stdcall("VirtualQuery", VirtualQuery),
        stdcall("VirtualQueryEx", VirtualQueryEx),
        stdcall("IsBadReadPtr", IsBadReadPtr),
        stdcall("IsBadWritePtr", IsBadWritePtr),
        stdcall("IsBadCodePtr", IsBadCodePtr),
        stdcall("IsBadStringPtrA", IsBadStringPtrA),
        stdcall("IsBadStringPtrW", IsBadStringPtrW),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel32::misc::test_support::Harness;

    fn mbi(h: &mut Harness, addr: u32) -> [u32; 7] {
        // Spare TEB space: allocating here would take the addresses under test.
        let b = h.thread.teb + 0x800;
        assert_eq!(VirtualQuery(&mut h.cx(), addr, Ptr(b), 28).unwrap(), 28);
        std::array::from_fn(|k| h.u32(b + 4 * k as u32))
    }

    #[test]
    fn reserve_commit_protect_query_free() {
        let mut h = Harness::new();
        let r = VirtualAlloc(&mut h.cx(), 0, 0x30000, MEM_RESERVE, PAGE_READWRITE).unwrap();
        assert_ne!(r, 0);
        assert_eq!(r % 0x10000, 0);
        // BaseAddress is the queried address's page; the run goes to the end.
        assert_eq!(
            mbi(&mut h, r + 0x1234),
            [
                r + 0x1000,
                r,
                PAGE_READWRITE,
                0x2f000,
                MEM_RESERVE,
                0,
                MEM_PRIVATE
            ]
        );
        // Committing inside the reservation returns the page-aligned address.
        let c = VirtualAlloc(&mut h.cx(), r + 0x1100, 0x1000, MEM_COMMIT, PAGE_READWRITE).unwrap();
        assert_eq!(c, r + 0x1000);
        // Two pages: the range [r+0x1100, r+0x2100) touches both.
        assert_eq!(
            mbi(&mut h, r + 0x1000),
            [
                r + 0x1000,
                r,
                PAGE_READWRITE,
                0x2000,
                MEM_COMMIT,
                PAGE_READWRITE,
                MEM_PRIVATE
            ]
        );
        h.proc.mem.write_u32(r + 0x1000, 7).unwrap();
        let old = h.scratch(0x1000);
        assert!(
            VirtualProtect(
                &mut h.cx(),
                r + 0x2000,
                0x10,
                PAGE_READONLY | PAGE_GUARD,
                Ptr(old)
            )
            .unwrap()
        );
        assert_eq!(h.u32(old), PAGE_READWRITE);
        assert_eq!(mbi(&mut h, r + 0x1000)[3], 0x1000);
        assert_eq!(mbi(&mut h, r + 0x2000)[5], PAGE_READONLY | PAGE_GUARD);
        assert!(IsBadReadPtr(&mut h.cx(), r + 0x2000, 4));
        assert!(!IsBadReadPtr(&mut h.cx(), r + 0x1000, 4));
        assert!(IsBadWritePtr(&mut h.cx(), r + 0x3000, 4));
        // Protecting uncommitted pages fails with ERROR_INVALID_ADDRESS.
        assert!(!VirtualProtect(&mut h.cx(), r + 0x3000, 0x10, PAGE_READONLY, Ptr(old)).unwrap());
        assert_eq!(h.last_error(), err::ERROR_INVALID_ADDRESS);
        // Committing outside any reservation fails the same way.
        assert_eq!(
            VirtualAlloc(&mut h.cx(), 0x6000_0000, 0x1000, MEM_COMMIT, PAGE_READWRITE).unwrap(),
            0
        );
        assert_eq!(h.last_error(), err::ERROR_INVALID_ADDRESS);
        // Reserving on top of it fails.
        assert_eq!(
            VirtualAlloc(&mut h.cx(), r, 0x1000, MEM_RESERVE, PAGE_READWRITE).unwrap(),
            0
        );
        assert_eq!(h.last_error(), err::ERROR_INVALID_ADDRESS);
        assert_eq!(
            VirtualAlloc(&mut h.cx(), 0, 0x1000, MEM_COMMIT, 0x3).unwrap(),
            0
        );
        assert_eq!(h.last_error(), err::ERROR_INVALID_PARAMETER);
        // MEM_RELEASE wants size 0 and the base.
        assert!(!VirtualFree(&mut h.cx(), r, 0x1000, MEM_RELEASE).unwrap());
        assert_eq!(h.last_error(), err::ERROR_INVALID_PARAMETER);
        assert!(VirtualFree(&mut h.cx(), r + 0x1000, 0x1000, MEM_DECOMMIT).unwrap());
        assert_eq!(mbi(&mut h, r + 0x1000)[4], MEM_RESERVE);
        assert!(VirtualFree(&mut h.cx(), r, 0, MEM_RELEASE).unwrap());
        let q = mbi(&mut h, r);
        assert_eq!(
            (q[0], q[1], q[2], q[4], q[5], q[6]),
            (r, 0, 0, MEM_FREE, PAGE_NOACCESS, 0)
        );
        assert!(!VirtualFree(&mut h.cx(), r, 0, MEM_RELEASE).unwrap());
        assert_eq!(h.last_error(), err::ERROR_INVALID_ADDRESS);
    }

    #[test]
    fn reserve_and_commit_at_an_address() {
        let mut h = Harness::new();
        let a = VirtualAlloc(
            &mut h.cx(),
            0x0500_1234,
            0x2000,
            MEM_RESERVE | MEM_COMMIT,
            PAGE_EXECUTE_READWRITE,
        )
        .unwrap();
        // The reservation starts at the 64 KiB boundary below.
        assert_eq!(a, 0x0500_0000);
        let q = mbi(&mut h, 0x0500_1000);
        assert_eq!(
            (q[0], q[1], q[2], q[3], q[4], q[5]),
            (
                0x0500_1000,
                a,
                PAGE_EXECUTE_READWRITE,
                0x3000,
                MEM_COMMIT,
                PAGE_EXECUTE_READWRITE
            )
        );
        assert_eq!(mbi(&mut h, a)[4], MEM_RESERVE);
        assert!(!IsBadCodePtr(&mut h.cx(), 0x0500_1000));
        h.put_cstr(0x0500_1000, "abc");
        assert!(!IsBadStringPtrA(&mut h.cx(), 0x0500_1000, 100));
        assert!(IsBadStringPtrA(&mut h.cx(), 0x0500_0ffe, 100));
        assert_eq!(prot_from_page(PAGE_NOACCESS | PAGE_GUARD), None);
        for p in [
            PAGE_NOACCESS,
            PAGE_READONLY,
            PAGE_READWRITE,
            PAGE_EXECUTE,
            PAGE_EXECUTE_READ,
            PAGE_EXECUTE_READWRITE,
        ] {
            assert_eq!(page_from_prot(prot_from_page(p).unwrap().0), p);
        }
    }

    #[test]
    fn memory_status_of_the_deterministic_machine() {
        let mut h = Harness::with_config(|c| c.deterministic = true);
        let b = h.scratch(64);
        GlobalMemoryStatus(&mut h.cx(), Ptr(b)).unwrap();
        let v: Vec<u32> = (0..8).map(|k| h.u32(b + 4 * k)).collect();
        // 768 MiB of 1 GiB free is a load of 25 %; the user address space is the
        // 2 GiB less the 64 KiB at each end that Windows reports (0x7ffe0000).
        assert_eq!(
            &v[..7],
            &[32, 25, 1 << 30, 768 << 20, 1 << 30, 768 << 20, 0x7ffe_0000]
        );
        assert!(
            v[7] < 0x7ffe_0000 && v[7] > 0x7000_0000,
            "free virtual {:#x}",
            v[7]
        );
        h.proc.mem.write_u32(b, 64).unwrap();
        assert!(GlobalMemoryStatusEx(&mut h.cx(), Ptr(b)).unwrap());
        assert_eq!(h.proc.mem.read_u64(b + 8).unwrap(), 1 << 30);
        assert_eq!(h.proc.mem.read_u64(b + 40).unwrap(), 0x7ffe_0000);
        h.proc.mem.write_u32(b, 32).unwrap();
        assert!(!GlobalMemoryStatusEx(&mut h.cx(), Ptr(b)).unwrap());
        assert_eq!(h.last_error(), err::ERROR_INVALID_PARAMETER);
    }
}
