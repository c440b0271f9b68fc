//! NtQuerySystemInformation for the classes task managers and launchers ask: the
//! basic, performance, time-of-day, process, processor-time, handle and cache
//! information of the emulated one-processor machine, in the 32-bit layouts of
//! Windows XP. The process list is KERNEL32's (`kernel32::toolhelp::processes`).

#![allow(non_snake_case)]

use crate::hle::{ApiError, ApiResult, Ctx, Ptr};
use crate::kernel32::toolhelp::processes;

const STATUS_SUCCESS: u32 = 0;
const STATUS_INFO_LENGTH_MISMATCH: u32 = 0xC000_0004;
const STATUS_ACCESS_VIOLATION: u32 = 0xC000_0005;

const PAGE: u32 = winterp_core::mem::PAGE_SIZE;

/// A little-endian structure being filled.
struct Buf(Vec<u8>);

impl Buf {
    fn new(n: usize) -> Buf {
        Buf(vec![0; n])
    }
    fn u16(&mut self, o: usize, v: u16) {
        self.0[o..o + 2].copy_from_slice(&v.to_le_bytes());
    }
    fn u32(&mut self, o: usize, v: u32) {
        self.0[o..o + 4].copy_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, o: usize, v: u64) {
        self.0[o..o + 8].copy_from_slice(&v.to_le_bytes());
    }
}

/// The machine's physical memory in pages (as GlobalMemoryStatus reports it).
fn memory_pages(cx: &Ctx) -> (u32, u32) {
    let m = crate::kernel32::memory::machine_memory(cx.proc.config.deterministic);
    (
        (m.total_phys / PAGE as u64) as u32,
        (m.avail_phys / PAGE as u64) as u32,
    )
}

/// Time since the emulated machine started (this process's start) and the part of
/// it the processor was idle (the time this process did not use), 100 ns units.
fn uptime_and_idle(cx: &Ctx) -> (u64, u64) {
    let up = crate::kernel32::time::micros(cx) * 10;
    let (_, user, kernel) = crate::kernel32::process::process_times(cx);
    (up, up.saturating_sub(user + kernel))
}

/// The bytes this process has reserved in its address space.
fn reserved_bytes(cx: &Ctx) -> u32 {
    let vm = cx.proc.vm.lock().unwrap_or_else(|e| e.into_inner());
    vm.reservations()
        .map(|r| r.size)
        .fold(0u32, u32::saturating_add)
}

/// SYSTEM_BASIC_INFORMATION (44 bytes).
fn basic(cx: &Ctx) -> Vec<u8> {
    let (total, _) = memory_pages(cx);
    let mut b = Buf::new(44);
    // Clock interrupt period: 10 ms in 100 ns units.
    b.u32(4, 100_000);
    b.u32(8, PAGE);
    b.u32(12, total);
    b.u32(16, 1);
    b.u32(20, total);
    b.u32(24, crate::address_space::GRANULARITY);
    b.u32(28, crate::address_space::USER_MIN);
    b.u32(32, crate::address_space::USER_MAX);
    b.u32(36, crate::kernel32::process::SYSTEM_AFFINITY);
    b.0[40] = 1;
    b.0
}

/// SYSTEM_PERFORMANCE_INFORMATION (XP: 0x138 bytes): idle time, the available and
/// committed pages; the I/O, paging and cache counters of a machine that does no
/// such work stay 0.
fn performance(cx: &Ctx) -> Vec<u8> {
    let (total, avail) = memory_pages(cx);
    let (_, idle) = uptime_and_idle(cx);
    let committed = reserved_bytes(cx) / PAGE;
    let mut b = Buf::new(0x138);
    b.u64(0x00, idle);
    b.u32(0x2c, avail);
    b.u32(0x30, committed);
    b.u32(0x34, total);
    b.u32(0x38, committed);
    b.0
}

/// SYSTEM_TIMEOFDAY_INFORMATION (48 bytes): boot time, current time, time-zone bias
/// (UTC: 0) and id.
fn time_of_day(cx: &Ctx) -> Vec<u8> {
    let now = crate::kernel32::time::now_filetime(cx);
    let (up, _) = uptime_and_idle(cx);
    let mut b = Buf::new(48);
    b.u64(0, now.saturating_sub(up));
    b.u64(8, now);
    b.0
}

/// SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION of the one processor (48 bytes):
/// idle, kernel (which includes idle, as on NT) and user time.
fn processor_times(cx: &Ctx) -> Vec<u8> {
    let (up, idle) = uptime_and_idle(cx);
    let mut b = Buf::new(48);
    b.u64(0, idle);
    b.u64(8, idle);
    b.u64(16, up.saturating_sub(idle));
    b.0
}

/// SYSTEM_CACHE_INFORMATION (36 bytes): there is no file cache.
fn cache() -> Vec<u8> {
    vec![0; 36]
}

/// SYSTEM_HANDLE_INFORMATION: this process's handles (16 bytes each).
fn handles(cx: &mut Ctx) -> Vec<u8> {
    let pid = crate::kernel32::createprocess::own_process_id(cx.proc);
    let hs = cx
        .proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .handles();
    let mut b = Buf::new(4 + 16 * hs.len());
    b.u32(0, hs.len() as u32);
    for (k, h) in hs.iter().enumerate() {
        let o = 4 + 16 * k;
        b.u16(o, pid as u16);
        b.u16(o + 6, *h as u16);
        // GrantedAccess: every handle was opened with all rights.
        b.u32(o + 12, 0x001f_ffff);
    }
    b.0
}

/// SYSTEM_PROCESS_INFORMATION entries (0xB8 bytes, then 0x40 per thread, then the
/// image name), each NextEntryOffset bytes after the one before; the names point
/// into the caller's buffer at `at`.
fn process_list(cx: &mut Ctx, at: u32) -> Vec<u8> {
    let procs = processes(cx);
    let (created, user, kernel) = crate::kernel32::process::process_times(cx);
    let (up, idle) = uptime_and_idle(cx);
    let boot = crate::kernel32::time::now_filetime(cx).saturating_sub(up);
    let handle_count = cx
        .proc
        .handles
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .len() as u32;
    let reserved = reserved_bytes(cx);
    let running = cx.thread.tid;
    let mut out: Vec<u8> = Vec::new();
    let n = procs.len();
    for (i, p) in procs.into_iter().enumerate() {
        let name: Vec<u16> = p
            .name
            .as_deref()
            .map(|s| s.encode_utf16().collect())
            .unwrap_or_default();
        let threads_at = 0xb8;
        let name_at = threads_at + 0x40 * p.threads.len();
        let size = (name_at + 2 * name.len() + 2 + 7) & !7;
        let mut b = Buf::new(size);
        if i + 1 < n {
            b.u32(0, size as u32);
        }
        b.u32(4, p.threads.len() as u32);
        let (ct, ut, kt) = match (p.own, p.pid) {
            (true, _) => (created, user, kernel),
            // The idle process's kernel time is the processor's idle time.
            (false, 0) => (0, 0, idle),
            _ => (boot, 0, 0),
        };
        b.u64(0x20, ct);
        b.u64(0x28, ut);
        b.u64(0x30, kt);
        if !name.is_empty() {
            let len = (2 * name.len()) as u16;
            b.u16(0x38, len);
            b.u16(0x3a, len + 2);
            b.u32(0x3c, at + (out.len() + name_at) as u32);
        }
        b.u32(0x40, p.base_priority);
        b.u32(0x44, p.pid);
        b.u32(0x48, p.parent);
        if p.own {
            b.u32(0x4c, handle_count);
            // VM_COUNTERS: virtual size and working set as this process reserved.
            b.u32(0x58, reserved);
            b.u32(0x5c, reserved);
            b.u32(0x64, reserved);
            b.u32(0x68, reserved);
        }
        for (k, t) in p.threads.iter().enumerate() {
            let o = threads_at + 0x40 * k;
            b.u64(o + 16, ct);
            b.u32(o + 32, p.pid);
            b.u32(o + 36, *t);
            b.u32(o + 40, p.base_priority);
            b.u32(o + 44, p.base_priority);
            // KTHREAD states: Running (2) for the caller, Waiting (5) otherwise.
            b.u32(o + 52, if p.own && *t == running { 2 } else { 5 });
        }
        for (k, u) in name.iter().enumerate() {
            b.u16(name_at + 2 * k, *u);
        }
        out.extend_from_slice(&b.0);
    }
    out
}

const SYSTEM_BASIC_INFORMATION: u32 = 0;
const SYSTEM_PERFORMANCE_INFORMATION: u32 = 2;
const SYSTEM_TIMEOFDAY_INFORMATION: u32 = 3;
const SYSTEM_PROCESS_INFORMATION: u32 = 5;
const SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION: u32 = 8;
const SYSTEM_HANDLE_INFORMATION: u32 = 16;
const SYSTEM_CACHE_INFORMATION: u32 = 21;

/// The fixed-size classes need exactly their size (the time of day takes any
/// length up to its own and gets that much); the variable ones report the size
/// needed with STATUS_INFO_LENGTH_MISMATCH.
pub fn NtQuerySystemInformation(
    cx: &mut Ctx,
    SystemInformationClass: u32,
    SystemInformation: Ptr,
    SystemInformationLength: u32,
    ReturnLength: Ptr,
) -> ApiResult<u32> {
    let len = SystemInformationLength;
    let at = SystemInformation.0;
    let (data, exact) = match SystemInformationClass {
        SYSTEM_BASIC_INFORMATION => (basic(cx), true),
        SYSTEM_PERFORMANCE_INFORMATION => (performance(cx), false),
        SYSTEM_TIMEOFDAY_INFORMATION => {
            let mut d = time_of_day(cx);
            d.truncate(len as usize);
            (d, false)
        }
        SYSTEM_PROCESS_INFORMATION => (process_list(cx, at), false),
        SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION => (processor_times(cx), false),
        SYSTEM_HANDLE_INFORMATION => (handles(cx), false),
        SYSTEM_CACHE_INFORMATION => (cache(), true),
        c => {
            return Err(ApiError::UnimplementedCase(format!(
                "NtQuerySystemInformation class {c}"
            )));
        }
    };
    let need = data.len() as u32;
    if !ReturnLength.is_null() {
        cx.proc.mem.write_u32(ReturnLength.0, need)?;
    }
    if len < need || (exact && len != need) {
        return Ok(STATUS_INFO_LENGTH_MISMATCH);
    }
    if cx.proc.mem.write_bytes(at, &data).is_err() {
        return Ok(STATUS_ACCESS_VIOLATION);
    }
    Ok(STATUS_SUCCESS)
}
