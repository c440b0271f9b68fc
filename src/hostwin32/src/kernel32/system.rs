//! KERNEL32 system identity: the computer name, and the WOW64 queries (winterp
//! is a 32-bit Windows, so a process is never running under WOW64).

#![allow(non_snake_case)]

use super::misc::err;
use super::process::expand_env;
use super::string::{read_wstr, write_wide};
use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, WStrPtr, stdcall};
use crate::teb::set_last_error;

const ERROR_BUFFER_OVERFLOW: u32 = 111;

/// The NetBIOS name of the emulated machine (fixed, so runs are reproducible and
/// nothing of the host's identity reaches the program).
pub const COMPUTER_NAME: &str = "WINTERP";

fn computer_name(cx: &mut Ctx, buf: u32, size: u32, wide: bool) -> ApiResult<bool> {
    if size == 0 {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    let cap = cx.proc.mem.read_u32(size)?;
    let len = COMPUTER_NAME.len() as u32;
    if cap <= len || buf == 0 {
        cx.proc.mem.write_u32(size, len + 1)?;
        set_last_error(cx, ERROR_BUFFER_OVERFLOW)?;
        return Ok(false);
    }
    if wide {
        let mut v: Vec<u16> = COMPUTER_NAME.encode_utf16().collect();
        v.push(0);
        write_wide(cx.proc, buf, &v)?;
    } else {
        let mut v = COMPUTER_NAME.as_bytes().to_vec();
        v.push(0);
        cx.proc.mem.write_bytes(buf, &v)?;
    }
    cx.proc.mem.write_u32(size, len)?;
    Ok(true)
}

pub fn GetComputerNameW(cx: &mut Ctx, lpBuffer: Ptr, nSize: Ptr) -> ApiResult<bool> {
    computer_name(cx, lpBuffer.0, nSize.0, true)
}

pub fn GetComputerNameA(cx: &mut Ctx, lpBuffer: Ptr, nSize: Ptr) -> ApiResult<bool> {
    computer_name(cx, lpBuffer.0, nSize.0, false)
}

pub fn IsWow64Process(cx: &mut Ctx, _hProcess: u32, Wow64Process: Ptr) -> ApiResult<bool> {
    if Wow64Process.is_null() {
        set_last_error(cx, err::ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    cx.proc.mem.write_u32(Wow64Process.0, 0)?;
    Ok(true)
}

/// Outside WOW64 there is no redirection to turn off: the call fails as on 32-bit
/// Windows.
pub fn Wow64DisableWow64FsRedirection(cx: &mut Ctx, _OldValue: Ptr) -> ApiResult<bool> {
    set_last_error(cx, err::ERROR_INVALID_FUNCTION)?;
    Ok(false)
}

pub fn Wow64RevertWow64FsRedirection(cx: &mut Ctx, _OlValue: u32) -> ApiResult<bool> {
    set_last_error(cx, err::ERROR_INVALID_FUNCTION)?;
    Ok(false)
}

/// As ExpandEnvironmentStringsA: the size with the NUL (in characters) is
/// returned; nothing is written unless it all fits.
pub fn ExpandEnvironmentStringsW(
    cx: &mut Ctx,
    lpSrc: WStrPtr,
    lpDst: Ptr,
    nSize: u32,
) -> ApiResult<u32> {
    let src = read_wstr(cx.proc, lpSrc.0)?;
    let mut out: Vec<u16> = expand_env(cx.proc, &src).encode_utf16().collect();
    let need = out.len() as u32 + 1;
    if nSize >= need && !lpDst.is_null() {
        out.push(0);
        write_wide(cx.proc, lpDst.0, &out)?;
    }
    Ok(need)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GetComputerNameW", GetComputerNameW),
        stdcall("GetComputerNameA", GetComputerNameA),
        stdcall("IsWow64Process", IsWow64Process),
        stdcall(
            "Wow64DisableWow64FsRedirection",
            Wow64DisableWow64FsRedirection,
        ),
        stdcall(
            "Wow64RevertWow64FsRedirection",
            Wow64RevertWow64FsRedirection,
        ),
        stdcall("ExpandEnvironmentStringsW", ExpandEnvironmentStringsW),
    ]
}
