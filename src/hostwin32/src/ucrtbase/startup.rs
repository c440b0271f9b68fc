//! UCRT start-up: what `mainCRTStartup`/`wmainCRTStartup` of a UCRT program call
//! before `main` (argument and environment set-up, app type, onexit tables), and
//! the WinMain command line helpers. The data live in msvcrt's variables
//! (`__argc`, `__wargv`, `_wenviron`, ...) so msvcrt's `__p__` accessors, which
//! ucrtbase exports too, return them.

#![allow(non_snake_case)]

use super::call_export_ret;
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Outcome, Ptr, cdecl};
use crate::msvcrt::state::{self, call_guest, errno, set_errno};
use crate::msvcrt::{heap, startup as crt_startup};

/// `_crt_argv_mode`: 0 none, 1 unexpanded, 2 expanded (wildcards).
const ARGV_EXPANDED: u32 = 2;
const ARGV_MODES: u32 = 3;

fn configure_argv(cx: &mut Ctx, mode: u32, wide: bool) -> ApiResult<i32> {
    if mode >= ARGV_MODES {
        set_errno(cx, errno::EINVAL)?;
        return Ok(errno::EINVAL as i32);
    }
    if mode == 0 {
        return Ok(0);
    }
    // __(w)getmainargs fills the runtime's variables; its out-parameters go to
    // scratch memory.
    let s = state::scratch(cx)?;
    let dowildcard = u32::from(mode == ARGV_EXPANDED);
    let name = if wide {
        "__wgetmainargs"
    } else {
        "__getmainargs"
    };
    let r = call_export_ret(
        cx,
        "msvcrt.dll",
        name,
        &[s, s + 4, s + 8, dowildcard, s + 12],
    )?;
    Ok(r as i32)
}

fn _configure_narrow_argv(cx: &mut Ctx, mode: u32) -> ApiResult<i32> {
    configure_argv(cx, mode, false)
}

fn _configure_wide_argv(cx: &mut Ctx, mode: u32) -> ApiResult<i32> {
    configure_argv(cx, mode, true)
}

fn _initialize_narrow_environment(cx: &mut Ctx) -> ApiResult<i32> {
    crt_startup::environ(cx)?;
    Ok(0)
}

fn _initialize_wide_environment(cx: &mut Ctx) -> ApiResult<i32> {
    crt_startup::wenviron(cx)?;
    Ok(0)
}

/// The environment as it was at start-up (`__initenv`), or the current one if
/// the arguments were never configured (nothing set `__initenv` yet).
fn _get_initial_narrow_environment(cx: &mut Ctx) -> ApiResult<u32> {
    let a = call_export_ret(cx, "msvcrt.dll", "__p___initenv", &[])?;
    match cx.proc.mem.read_u32(a)? {
        0 => crt_startup::environ(cx),
        p => Ok(p),
    }
}

fn _get_initial_wide_environment(cx: &mut Ctx) -> ApiResult<u32> {
    let a = call_export_ret(cx, "msvcrt.dll", "__p___winitenv", &[])?;
    match cx.proc.mem.read_u32(a)? {
        0 => crt_startup::wenviron(cx),
        p => Ok(p),
    }
}

/// Console or GUI: the runtime uses it only to choose where error messages go,
/// and winterp's runtime always writes them to standard error.
fn _set_app_type(_cx: &mut Ctx, _type: u32) {}

fn _set_fmode(cx: &mut Ctx, mode: u32) -> ApiResult<i32> {
    // _O_TEXT or _O_BINARY only.
    if mode != 0x4000 && mode != 0x8000 {
        set_errno(cx, errno::EINVAL)?;
        return Ok(errno::EINVAL as i32);
    }
    let a = call_export_ret(cx, "msvcrt.dll", "__p__fmode", &[])?;
    cx.proc.mem.write_u32(a, mode)?;
    Ok(0)
}

fn _get_fmode(cx: &mut Ctx, pmode: Ptr) -> ApiResult<i32> {
    if pmode.is_null() {
        set_errno(cx, errno::EINVAL)?;
        return Ok(errno::EINVAL as i32);
    }
    let a = call_export_ret(cx, "msvcrt.dll", "__p__fmode", &[])?;
    let v = cx.proc.mem.read_u32(a)?;
    cx.proc.mem.write_u32(pmode.0, v)?;
    Ok(0)
}

/// Where WinMain's `lpCmdLine` starts in a command line: after the program name
/// (quoted or not) and the blanks that follow it.
pub fn winmain_args_start(line: &[u16]) -> usize {
    let (quote, space, tab) = (u16::from(b'"'), u16::from(b' '), u16::from(b'\t'));
    let mut i = 0;
    let mut quoted = false;
    while i < line.len() {
        let c = line[i];
        if c == quote {
            quoted = !quoted;
        } else if !quoted && (c == space || c == tab) {
            break;
        }
        i += 1;
    }
    while i < line.len() && (line[i] == space || line[i] == tab) {
        i += 1;
    }
    i
}

fn _get_wide_winmain_command_line(cx: &mut Ctx) -> ApiResult<u32> {
    let p = call_export_ret(cx, "KERNEL32.dll", "GetCommandLineW", &[])?;
    let line = crate::msvcrt::gmem::read_wstr(&cx.proc.mem, p, 32767)?;
    Ok(p + 2 * winmain_args_start(&line) as u32)
}

fn _get_narrow_winmain_command_line(cx: &mut Ctx) -> ApiResult<u32> {
    let p = call_export_ret(cx, "KERNEL32.dll", "GetCommandLineA", &[])?;
    let line: Vec<u16> = crate::msvcrt::gmem::read_cstr(&cx.proc.mem, p, 32767)?
        .into_iter()
        .map(u16::from)
        .collect();
    Ok(p + winmain_args_start(&line) as u32)
}

fn _crt_atexit(cx: &mut Ctx, function: u32) -> ApiResult<i32> {
    Ok(call_export_ret(cx, "msvcrt.dll", "atexit", &[function])? as i32)
}

// ---- onexit tables: { first, last, end } of a malloc'd array of function pointers.

fn _initialize_onexit_table(cx: &mut Ctx, table: Ptr) -> ApiResult<i32> {
    if table.is_null() {
        return Ok(-1);
    }
    let mem = &cx.proc.mem;
    // A table already in use keeps its entries.
    if mem.read_u32(table.0)? != 0 {
        return Ok(0);
    }
    mem.write_u32(table.0 + 4, 0)?;
    mem.write_u32(table.0 + 8, 0)?;
    Ok(0)
}

fn _register_onexit_function(cx: &mut Ctx, table: Ptr, function: u32) -> ApiResult<i32> {
    if table.is_null() {
        return Ok(-1);
    }
    let mem = cx.proc.mem.clone();
    let (first, last, end) = (
        mem.read_u32(table.0)?,
        mem.read_u32(table.0 + 4)?,
        mem.read_u32(table.0 + 8)?,
    );
    let (mut first, mut last, mut end) = (first, last, end);
    if first == 0 || last >= end {
        let used = last.wrapping_sub(first) / 4;
        let cap = if first == 0 { 32 } else { (used * 2).max(32) };
        let p = heap::malloc_raw(cx, cap * 4)?;
        if p == 0 {
            return Ok(-1);
        }
        for k in 0..used {
            let f = mem.read_u32(first + 4 * k)?;
            mem.write_u32(p + 4 * k, f)?;
        }
        if first != 0 {
            heap::free_raw(cx, first)?;
        }
        first = p;
        last = p + 4 * used;
        end = p + 4 * cap;
    }
    mem.write_u32(last, function)?;
    last += 4;
    mem.write_u32(table.0, first)?;
    mem.write_u32(table.0 + 4, last)?;
    mem.write_u32(table.0 + 8, end)?;
    Ok(0)
}

/// Runs the table's functions, last registered first, and empties it.
fn _execute_onexit_table(cx: &mut Ctx, table: Ptr) -> ApiResult<Outcome> {
    if table.is_null() {
        return Ok(Outcome::Return(u32::MAX as u64));
    }
    let mem = cx.proc.mem.clone();
    let first = mem.read_u32(table.0)?;
    let last = mem.read_u32(table.0 + 4)?;
    // The table is emptied first: a function that registers another one starts a
    // fresh table rather than extending the one being run.
    for off in [0, 4, 8] {
        mem.write_u32(table.0 + off, 0)?;
    }
    if first == 0 {
        return Ok(Outcome::Return(0));
    }
    if last < first || !(last - first).is_multiple_of(4) {
        return Err(ApiError::Other(format!(
            "_execute_onexit_table: corrupt table {first:#x}..{last:#x}"
        )));
    }
    let mut p = last;
    while p > first {
        p -= 4;
        let f = mem.read_u32(p)?;
        if f != 0
            && let Err(o) = call_guest(cx, f, &[])?
        {
            return Ok(o);
        }
    }
    heap::free_raw(cx, first)?;
    Ok(Outcome::Return(0))
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        cdecl("_configure_narrow_argv", _configure_narrow_argv),
        cdecl("_configure_wide_argv", _configure_wide_argv),
        cdecl(
            "_initialize_narrow_environment",
            _initialize_narrow_environment,
        ),
        cdecl("_initialize_wide_environment", _initialize_wide_environment),
        cdecl(
            "_get_initial_narrow_environment",
            _get_initial_narrow_environment,
        ),
        cdecl(
            "_get_initial_wide_environment",
            _get_initial_wide_environment,
        ),
        cdecl("_set_app_type", _set_app_type),
        cdecl("_set_fmode", _set_fmode),
        cdecl("_get_fmode", _get_fmode),
        cdecl(
            "_get_wide_winmain_command_line",
            _get_wide_winmain_command_line,
        ),
        cdecl(
            "_get_narrow_winmain_command_line",
            _get_narrow_winmain_command_line,
        ),
        cdecl("_crt_atexit", _crt_atexit),
        cdecl("_initialize_onexit_table", _initialize_onexit_table),
        cdecl("_register_onexit_function", _register_onexit_function),
        cdecl("_execute_onexit_table", _execute_onexit_table),
    ]
}
