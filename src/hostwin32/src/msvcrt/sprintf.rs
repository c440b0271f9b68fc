//! The printf/scanf family on strings: sprintf, _snprintf (Microsoft truncation
//! rules), snprintf/vsnprintf (C99 rules), _scprintf, the wide forms and sscanf.

#![allow(non_snake_case)]

use super::gmem::{read_cstr, read_wstr, write_units};
use super::printf::{self, GuestArgs};
use super::scanf::{self, StrInput};
use super::stdio::ScanArgs;
use crate::hle::{ApiResult, CStrPtr, Ctx, Ptr, VarArgs, WStrPtr, cdecl};

fn format(cx: &mut Ctx, fmt: u32, va: u32, wide: bool) -> ApiResult<Vec<u16>> {
    let f = if wide {
        printf::read_wfmt(&cx.proc.mem, fmt)?
    } else {
        printf::read_fmt(&cx.proc.mem, fmt)?
    };
    let mem = cx.proc.mem.clone();
    printf::format(&f, wide, &mut GuestArgs { mem: &mem, ptr: va })
}

/// Stores `units` (narrow: one byte each) at `buf`.
fn store(cx: &mut Ctx, buf: u32, units: &[u16], wide: bool) -> ApiResult<()> {
    // `_snprintf(NULL, 0, ...)` measures; nothing may touch the NULL buffer.
    if units.is_empty() {
        return Ok(());
    }
    if wide {
        write_units(&cx.proc.mem, buf, units)?;
    } else {
        cx.proc.mem.write_bytes(buf, &printf::narrow(units))?;
    }
    Ok(())
}

fn nul(cx: &mut Ctx, at: u32, wide: bool) -> ApiResult<()> {
    if wide {
        cx.proc.mem.write_u16(at, 0)?;
    } else {
        cx.proc.mem.write_u8(at, 0)?;
    }
    Ok(())
}

fn unit(wide: bool) -> u32 {
    if wide { 2 } else { 1 }
}

/// Unbounded: the whole output and a terminator.
fn to_buffer(cx: &mut Ctx, buf: u32, fmt: u32, va: u32, wide: bool) -> ApiResult<i32> {
    let out = format(cx, fmt, va, wide)?;
    store(cx, buf, &out, wide)?;
    nul(cx, buf + unit(wide) * out.len() as u32, wide)?;
    Ok(out.len() as i32)
}

/// Microsoft's `_snprintf`: a terminator only if it fits; -1 when truncated.
fn to_buffer_ms(
    cx: &mut Ctx,
    buf: u32,
    count: u32,
    fmt: u32,
    va: u32,
    wide: bool,
) -> ApiResult<i32> {
    let out = format(cx, fmt, va, wide)?;
    let n = out.len().min(count as usize);
    store(cx, buf, &out[..n], wide)?;
    if out.len() < count as usize {
        nul(cx, buf + unit(wide) * n as u32, wide)?;
    }
    Ok(if out.len() > count as usize {
        -1
    } else {
        out.len() as i32
    })
}

/// C99 `snprintf`: always terminated when `count` > 0; returns the full length.
fn to_buffer_c99(
    cx: &mut Ctx,
    buf: u32,
    count: u32,
    fmt: u32,
    va: u32,
    wide: bool,
) -> ApiResult<i32> {
    let out = format(cx, fmt, va, wide)?;
    if count > 0 {
        let n = out.len().min(count as usize - 1);
        store(cx, buf, &out[..n], wide)?;
        nul(cx, buf + unit(wide) * n as u32, wide)?;
    }
    Ok(out.len() as i32)
}

fn sprintf(cx: &mut Ctx, buffer: Ptr, format: CStrPtr, args: VarArgs) -> ApiResult<i32> {
    to_buffer(cx, buffer.0, format.0, args.0, false)
}
fn vsprintf(cx: &mut Ctx, buffer: Ptr, format: CStrPtr, argptr: u32) -> ApiResult<i32> {
    to_buffer(cx, buffer.0, format.0, argptr, false)
}
fn _snprintf(
    cx: &mut Ctx,
    buffer: Ptr,
    count: u32,
    format: CStrPtr,
    args: VarArgs,
) -> ApiResult<i32> {
    to_buffer_ms(cx, buffer.0, count, format.0, args.0, false)
}
fn _vsnprintf(
    cx: &mut Ctx,
    buffer: Ptr,
    count: u32,
    format: CStrPtr,
    argptr: u32,
) -> ApiResult<i32> {
    to_buffer_ms(cx, buffer.0, count, format.0, argptr, false)
}
fn vsnprintf(
    cx: &mut Ctx,
    buffer: Ptr,
    count: u32,
    format: CStrPtr,
    argptr: u32,
) -> ApiResult<i32> {
    to_buffer_c99(cx, buffer.0, count, format.0, argptr, false)
}
fn _scprintf(cx: &mut Ctx, format: CStrPtr, args: VarArgs) -> ApiResult<i32> {
    Ok(self::format(cx, format.0, args.0, false)?.len() as i32)
}
fn _vscprintf(cx: &mut Ctx, format: CStrPtr, argptr: u32) -> ApiResult<i32> {
    Ok(self::format(cx, format.0, argptr, false)?.len() as i32)
}

/// msvcrt's `swprintf` is the pre-standard `(buffer, format, ...)`.
fn swprintf(cx: &mut Ctx, buffer: Ptr, format: WStrPtr, args: VarArgs) -> ApiResult<i32> {
    to_buffer(cx, buffer.0, format.0, args.0, true)
}
fn vswprintf(cx: &mut Ctx, buffer: Ptr, format: WStrPtr, argptr: u32) -> ApiResult<i32> {
    to_buffer(cx, buffer.0, format.0, argptr, true)
}
fn _snwprintf(
    cx: &mut Ctx,
    buffer: Ptr,
    count: u32,
    format: WStrPtr,
    args: VarArgs,
) -> ApiResult<i32> {
    to_buffer_ms(cx, buffer.0, count, format.0, args.0, true)
}
fn _vsnwprintf(
    cx: &mut Ctx,
    buffer: Ptr,
    count: u32,
    format: WStrPtr,
    argptr: u32,
) -> ApiResult<i32> {
    to_buffer_ms(cx, buffer.0, count, format.0, argptr, true)
}
fn _scwprintf(cx: &mut Ctx, format: WStrPtr, args: VarArgs) -> ApiResult<i32> {
    Ok(self::format(cx, format.0, args.0, true)?.len() as i32)
}
fn _vscwprintf(cx: &mut Ctx, format: WStrPtr, argptr: u32) -> ApiResult<i32> {
    Ok(self::format(cx, format.0, argptr, true)?.len() as i32)
}

pub(crate) fn scan_string(
    cx: &mut Ctx,
    input: Vec<u16>,
    fmt: u32,
    va: u32,
    wide: bool,
) -> ApiResult<i32> {
    let f = if wide {
        printf::read_wfmt(&cx.proc.mem, fmt)?
    } else {
        printf::read_fmt(&cx.proc.mem, fmt)?
    };
    let mem = cx.proc.mem.clone();
    let mut dst = ScanArgs {
        args: GuestArgs { mem: &mem, ptr: va },
    };
    let mut inp = StrInput { s: &input, pos: 0 };
    scanf::scan(&f, wide, &mut inp, &mut dst)
}

fn sscanf(cx: &mut Ctx, buffer: CStrPtr, format: CStrPtr, args: VarArgs) -> ApiResult<i32> {
    let s: Vec<u16> = read_cstr(&cx.proc.mem, buffer.0, usize::MAX)?
        .into_iter()
        .map(u16::from)
        .collect();
    scan_string(cx, s, format.0, args.0, false)
}

fn swscanf(cx: &mut Ctx, buffer: WStrPtr, format: WStrPtr, args: VarArgs) -> ApiResult<i32> {
    let s = read_wstr(&cx.proc.mem, buffer.0, usize::MAX)?;
    scan_string(cx, s, format.0, args.0, true)
}

pub fn exports() -> Vec<crate::hle::ApiDef> {
    vec![
        cdecl("sprintf", sprintf),
        cdecl("vsprintf", vsprintf),
        cdecl("_snprintf", _snprintf),
        cdecl("_vsnprintf", _vsnprintf),
        cdecl("vsnprintf", vsnprintf),
        cdecl("_scprintf", _scprintf),
        cdecl("_vscprintf", _vscprintf),
        cdecl("swprintf", swprintf),
        cdecl("vswprintf", vswprintf),
        cdecl("_swprintf", swprintf),
        cdecl("_snwprintf", _snwprintf),
        cdecl("_vsnwprintf", _vsnwprintf),
        cdecl("_scwprintf", _scwprintf),
        cdecl("_vscwprintf", _vscwprintf),
        cdecl("sscanf", sscanf),
        cdecl("swscanf", swscanf),
    ]
}
