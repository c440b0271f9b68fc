//! KERNEL32 calls that Win32 kept from Windows 3.x and that the start-up code of
//! 1990s runtimes still makes: SetHandleCount, the `_l*` file functions (HFILE
//! handles are Win32 file handles), the process priority class, and
//! FlushInstructionCache.

#![allow(non_snake_case)]

use super::file::{CreateFile, ReadFile, SetFilePointer, WriteFile};
use super::misc::{CloseHandle, err};
use crate::hle::{ApiDef, ApiResult, CStrPtr, Ctx, Ptr, stdcall};
use crate::teb::set_last_error;
use winterp_core::cpu::ESP;

const HFILE_ERROR: u32 = 0xffff_ffff;

/// Win32 has no per-process file-handle limit to raise: "this function has no
/// effect and simply returns the value of the uNumber parameter".
pub fn SetHandleCount(_cx: &mut Ctx, uNumber: u32) -> u32 {
    uNumber
}

const GENERIC_READ: u32 = 0x8000_0000;
const GENERIC_WRITE: u32 = 0x4000_0000;
const OPEN_EXISTING: u32 = 3;
const CREATE_ALWAYS: u32 = 2;

/// OF_READ 0, OF_WRITE 1, OF_READWRITE 2 in the low bits; the OF_SHARE_* bits
/// (0x10 exclusive, 0x20 deny write, 0x30 deny read, 0x40 deny none).
fn of_access(mode: u32) -> (u32, u32) {
    let access = match mode & 3 {
        1 => GENERIC_WRITE,
        2 => GENERIC_READ | GENERIC_WRITE,
        _ => GENERIC_READ,
    };
    // FILE_SHARE_READ 1, FILE_SHARE_WRITE 2.
    let share = match mode & 0x70 {
        0x10 => 0,
        0x20 => 1,
        0x30 => 2,
        _ => 3,
    };
    (access, share)
}

pub fn _lopen(cx: &mut Ctx, lpPathName: Ptr, iReadWrite: u32) -> ApiResult<u32> {
    let (access, share) = of_access(iReadWrite);
    CreateFile::<CStrPtr>(cx, lpPathName, access, share, 0, OPEN_EXISTING, 0, 0)
}

/// The attribute argument is 0 normal, 1 read-only, 2 hidden, 4 system: the
/// FILE_ATTRIBUTE_* values of the same bits.
pub fn _lcreat(cx: &mut Ctx, lpPathName: Ptr, iAttribute: u32) -> ApiResult<u32> {
    CreateFile::<CStrPtr>(
        cx,
        lpPathName,
        GENERIC_READ | GENERIC_WRITE,
        3,
        0,
        CREATE_ALWAYS,
        iAttribute & 7,
        0,
    )
}

/// A dword of scratch for ReadFile/WriteFile's byte count: below the caller's
/// stack pointer, which the guest does not use while it waits for this call.
fn scratch(cx: &Ctx) -> Ptr {
    Ptr(cx.thread.cpu.regs[ESP].wrapping_sub(64))
}

pub fn _lread(cx: &mut Ctx, hFile: u32, lpBuffer: Ptr, uBytes: u32) -> ApiResult<u32> {
    let count = scratch(cx);
    if !ReadFile(cx, hFile, lpBuffer, uBytes, count, Ptr(0))? {
        return Ok(HFILE_ERROR);
    }
    Ok(cx.proc.mem.read_u32(count.0)?)
}

pub fn _lwrite(cx: &mut Ctx, hFile: u32, lpBuffer: Ptr, uBytes: u32) -> ApiResult<u32> {
    // _lwrite with 0 bytes truncates the file at the current position.
    if uBytes == 0 {
        return Ok(if super::file::SetEndOfFile(cx, hFile)? {
            0
        } else {
            HFILE_ERROR
        });
    }
    let count = scratch(cx);
    if !WriteFile(cx, hFile, lpBuffer, uBytes, count, Ptr(0))? {
        return Ok(HFILE_ERROR);
    }
    Ok(cx.proc.mem.read_u32(count.0)?)
}

pub fn _llseek(cx: &mut Ctx, hFile: u32, lOffset: i32, iOrigin: u32) -> ApiResult<u32> {
    SetFilePointer(cx, hFile, lOffset, Ptr(0), iOrigin)
}

pub fn _lclose(cx: &mut Ctx, hFile: u32) -> ApiResult<u32> {
    Ok(if CloseHandle(cx, hFile)? {
        0
    } else {
        HFILE_ERROR
    })
}

const NORMAL_PRIORITY_CLASS: u32 = 0x20;
/// IDLE, NORMAL, HIGH, REALTIME, BELOW_NORMAL, ABOVE_NORMAL.
const PRIORITY_CLASSES: [u32; 6] = [0x40, 0x20, 0x80, 0x100, 0x4000, 0x8000];

/// The guest's priority class is recorded and reported back; winterp's host
/// threads keep their own scheduling (a game asking for HIGH gains nothing from
/// starving the emulator's other threads).
pub fn SetPriorityClass(cx: &mut Ctx, hProcess: u32, dwPriorityClass: u32) -> ApiResult<bool> {
    if !is_own_process(cx, hProcess) {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(false);
    }
    if !PRIORITY_CLASSES.contains(&dwPriorityClass) {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    cx.proc
        .k32
        .priority_class
        .store(dwPriorityClass, std::sync::atomic::Ordering::Relaxed);
    Ok(true)
}

pub fn GetPriorityClass(cx: &mut Ctx, hProcess: u32) -> ApiResult<u32> {
    if !is_own_process(cx, hProcess) {
        set_last_error(cx, err::ERROR_INVALID_HANDLE)?;
        return Ok(0);
    }
    let c = cx
        .proc
        .k32
        .priority_class
        .load(std::sync::atomic::Ordering::Relaxed);
    Ok(if c == 0 { NORMAL_PRIORITY_CLASS } else { c })
}

/// GetCurrentProcess's pseudo-handle or an OpenProcess handle of this process.
fn is_own_process(cx: &Ctx, h: u32) -> bool {
    super::createprocess::is_own_process(cx.proc, h)
}

/// Guest code writes are tracked by the executor itself (every write into
/// translated code retires it), so there is no cache to flush.
pub fn FlushInstructionCache(
    cx: &mut Ctx,
    hProcess: u32,
    _lpBaseAddress: Ptr,
    _dwSize: u32,
) -> bool {
    is_own_process(cx, hProcess)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("SetHandleCount", SetHandleCount),
        stdcall("_lopen", _lopen),
        stdcall("_lcreat", _lcreat),
        stdcall("_lread", _lread),
        stdcall("_hread", _lread),
        stdcall("_lwrite", _lwrite),
        stdcall("_hwrite", _lwrite),
        stdcall("_llseek", _llseek),
        stdcall("_lclose", _lclose),
        stdcall("SetPriorityClass", SetPriorityClass),
        stdcall("GetPriorityClass", GetPriorityClass),
        stdcall("FlushInstructionCache", FlushInstructionCache),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn of_modes_map_to_access_and_share() {
        assert_eq!(of_access(0), (GENERIC_READ, 3));
        assert_eq!(of_access(1), (GENERIC_WRITE, 3));
        assert_eq!(of_access(2 | 0x10), (GENERIC_READ | GENERIC_WRITE, 0));
        assert_eq!(of_access(0x20), (GENERIC_READ, 1));
        assert_eq!(of_access(0x30), (GENERIC_READ, 2));
        assert_eq!(of_access(0x40), (GENERIC_READ, 3));
    }
}
