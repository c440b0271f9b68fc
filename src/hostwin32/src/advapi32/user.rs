//! The logged-on user's name (GetUserName). winterp's machine has one user, with
//! a fixed name so runs are reproducible and nothing of the host's identity
//! reaches the program; SHELL32 builds the Windows NT profile folders
//! (`C:\Documents and Settings\<name>`) from the same name.

#![allow(non_snake_case)]

use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, stdcall};
use crate::kernel32::misc::err::ERROR_INVALID_PARAMETER;
use crate::kernel32::string::{encode_ansi, write_wide};
use crate::teb::set_last_error;

/// The user's name; also the registered owner the registry is seeded with.
pub const USER_NAME: &str = "User";

const ERROR_INSUFFICIENT_BUFFER: u32 = 122;

/// `*pcbBuffer` counts characters including the terminating NUL, on the way in
/// (the buffer's size) and out (what was written, or what is needed when
/// the buffer is too small: then FALSE and ERROR_INSUFFICIENT_BUFFER).
fn user_name(cx: &mut Ctx, buf: u32, pcb: u32, wide: bool) -> ApiResult<bool> {
    if pcb == 0 {
        set_last_error(cx, ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    let cap = cx.proc.mem.read_u32(pcb)?;
    let need = USER_NAME.len() as u32 + 1;
    if cap < need || buf == 0 {
        cx.proc.mem.write_u32(pcb, need)?;
        set_last_error(cx, ERROR_INSUFFICIENT_BUFFER)?;
        return Ok(false);
    }
    if wide {
        let w: Vec<u16> = USER_NAME.encode_utf16().chain([0]).collect();
        write_wide(cx.proc, buf, &w)?;
    } else {
        let mut a = encode_ansi(USER_NAME);
        a.push(0);
        cx.proc.mem.write_bytes(buf, &a)?;
    }
    cx.proc.mem.write_u32(pcb, need)?;
    Ok(true)
}

pub fn GetUserNameA(cx: &mut Ctx, lpBuffer: Ptr, pcbBuffer: Ptr) -> ApiResult<bool> {
    user_name(cx, lpBuffer.0, pcbBuffer.0, false)
}

pub fn GetUserNameW(cx: &mut Ctx, lpBuffer: Ptr, pcbBuffer: Ptr) -> ApiResult<bool> {
    user_name(cx, lpBuffer.0, pcbBuffer.0, true)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GetUserNameA", GetUserNameA),
        stdcall("GetUserNameW", GetUserNameW),
    ]
}
