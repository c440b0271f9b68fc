//! Start-up: `__getmainargs` and friends, the exported runtime variables
//! (`_acmdln`, `__argv`, `_environ`, `_fmode`, ...) with their `__p__` accessors,
//! `_initterm`, the floating-point control functions, errno, getenv/_putenv.

#![allow(non_snake_case)]

use super::state::{self, call_guest, k32};
use super::{cmdline, gmem, heap};
use crate::hle::{ApiDef, ApiError, ApiResult, CStrPtr, Ctx, Outcome, Ptr, cdecl, data};
use crate::process::{Process, WinVersion};
use std::sync::Arc;

fn var(cx: &Ctx, name: &str) -> ApiResult<u32> {
    cx.proc.resolve_hle("msvcrt.dll", name)
}

fn zero(_: &Arc<Process>, _: u32) -> ApiResult<()> {
    // Data exports come from fresh zeroed pages.
    Ok(())
}

fn one(proc: &Arc<Process>, a: u32) -> ApiResult<()> {
    proc.mem.write_u32(a, 1)?;
    Ok(())
}

fn version(proc: &Process) -> (u32, u32, u32) {
    match proc.config.version {
        WinVersion::Win95 => (4, 0, 950),
        WinVersion::Win98 => (4, 10, 1998),
        WinVersion::WinMe => (4, 90, 3000),
        WinVersion::Nt4 => (4, 0, 1381),
        WinVersion::Win2000 => (5, 0, 2195),
        WinVersion::WinXp => (5, 1, 2600),
    }
}

fn init_osver(proc: &Arc<Process>, a: u32) -> ApiResult<()> {
    proc.mem.write_u32(a, version(proc).2)?;
    Ok(())
}
fn init_winver(proc: &Arc<Process>, a: u32) -> ApiResult<()> {
    let (ma, mi, _) = version(proc);
    proc.mem.write_u32(a, ma << 8 | mi)?;
    Ok(())
}
fn init_winmajor(proc: &Arc<Process>, a: u32) -> ApiResult<()> {
    proc.mem.write_u32(a, version(proc).0)?;
    Ok(())
}
fn init_winminor(proc: &Arc<Process>, a: u32) -> ApiResult<()> {
    proc.mem.write_u32(a, version(proc).1)?;
    Ok(())
}

/// Builds a guest `char*[]` (NULL-terminated) with the strings in one malloc block.
fn guest_argv(cx: &mut Ctx, items: &[Vec<u8>]) -> ApiResult<u32> {
    let table = 4 * (items.len() as u32 + 1);
    let total = table + items.iter().map(|s| s.len() as u32 + 1).sum::<u32>();
    let p = heap::malloc_raw(cx, total)?;
    if p == 0 {
        return Err(ApiError::Other("__getmainargs: out of memory".into()));
    }
    let mut at = p + table;
    for (k, s) in items.iter().enumerate() {
        cx.proc.mem.write_u32(p + 4 * k as u32, at)?;
        gmem::write_cstr(&cx.proc.mem, at, s)?;
        at += s.len() as u32 + 1;
    }
    cx.proc.mem.write_u32(p + 4 * items.len() as u32, 0)?;
    Ok(p)
}

/// Wide variant of [`guest_argv`].
fn guest_wargv(cx: &mut Ctx, items: &[Vec<u16>]) -> ApiResult<u32> {
    let table = 4 * (items.len() as u32 + 1);
    let total = table + items.iter().map(|s| 2 * (s.len() as u32 + 1)).sum::<u32>();
    let p = heap::malloc_raw(cx, total)?;
    if p == 0 {
        return Err(ApiError::Other("__wgetmainargs: out of memory".into()));
    }
    let mut at = p + table;
    for (k, s) in items.iter().enumerate() {
        cx.proc.mem.write_u32(p + 4 * k as u32, at)?;
        gmem::write_wstr(&cx.proc.mem, at, s)?;
        at += 2 * (s.len() as u32 + 1);
    }
    cx.proc.mem.write_u32(p + 4 * items.len() as u32, 0)?;
    Ok(p)
}

fn check_wildcards(dowildcard: u32, args: &[Vec<u16>]) -> ApiResult<()> {
    let glob = |a: &Vec<u16>| {
        a.iter()
            .any(|&c| c == u16::from(b'*') || c == u16::from(b'?'))
    };
    if dowildcard != 0 && args.iter().skip(1).any(glob) {
        return Err(ApiError::UnimplementedCase(
            "__getmainargs: wildcard expansion of arguments (_dowildcard)".into(),
        ));
    }
    Ok(())
}

/// The process environment block from KERNEL32, without the `=X:` entries the
/// runtime hides.
fn os_environment(cx: &mut Ctx) -> ApiResult<Vec<Vec<u8>>> {
    let block = k32(cx, "GetEnvironmentStringsA", &[])?;
    let mut out = Vec::new();
    if block == 0 {
        return Ok(out);
    }
    let mut p = block;
    loop {
        let s = gmem::read_cstr(&cx.proc.mem, p, 32767)?;
        if s.is_empty() {
            break;
        }
        p += s.len() as u32 + 1;
        if s[0] != b'=' {
            out.push(s);
        }
    }
    k32(cx, "FreeEnvironmentStringsA", &[block])?;
    Ok(out)
}

fn os_wenvironment(cx: &mut Ctx) -> ApiResult<Vec<Vec<u16>>> {
    let block = k32(cx, "GetEnvironmentStringsW", &[])?;
    let mut out = Vec::new();
    if block == 0 {
        return Ok(out);
    }
    let mut p = block;
    loop {
        let s = gmem::read_wstr(&cx.proc.mem, p, 32767)?;
        if s.is_empty() {
            break;
        }
        p += 2 * (s.len() as u32 + 1);
        if s[0] != u16::from(b'=') {
            out.push(s);
        }
    }
    k32(cx, "FreeEnvironmentStringsW", &[block])?;
    Ok(out)
}

/// `_environ`, built from the OS environment on first use.
pub(crate) fn environ(cx: &mut Ctx) -> ApiResult<u32> {
    let a = var(cx, "_environ")?;
    let cur = cx.proc.mem.read_u32(a)?;
    if cur != 0 {
        return Ok(cur);
    }
    let env = os_environment(cx)?;
    let p = guest_argv(cx, &env)?;
    cx.proc.mem.write_u32(a, p)?;
    Ok(p)
}

fn acmdln(cx: &mut Ctx) -> ApiResult<u32> {
    let a = var(cx, "_acmdln")?;
    if cx.proc.mem.read_u32(a)? == 0 {
        let line = k32(cx, "GetCommandLineA", &[])?;
        cx.proc.mem.write_u32(a, line)?;
    }
    Ok(a)
}

fn wcmdln(cx: &mut Ctx) -> ApiResult<u32> {
    let a = var(cx, "_wcmdln")?;
    if cx.proc.mem.read_u32(a)? == 0 {
        let line = k32(cx, "GetCommandLineW", &[])?;
        cx.proc.mem.write_u32(a, line)?;
    }
    Ok(a)
}

fn __getmainargs(
    cx: &mut Ctx,
    argc: Ptr,
    argv: Ptr,
    envp: Ptr,
    dowildcard: u32,
    _startinfo: Ptr,
) -> ApiResult<i32> {
    super::time::start_clock(cx)?;
    let line_ptr = cx.proc.mem.read_u32(acmdln(cx)?)?;
    let line = gmem::read_cstr(&cx.proc.mem, line_ptr, usize::MAX)?;
    let units: Vec<u16> = line.iter().map(|&b| u16::from(b)).collect();
    let args = cmdline::parse(&units);
    check_wildcards(dowildcard, &args)?;
    let args: Vec<Vec<u8>> = args
        .iter()
        .map(|a| a.iter().map(|&u| u as u8).collect())
        .collect();
    let av = guest_argv(cx, &args)?;
    let env = environ(cx)?;
    let mem = &cx.proc.mem;
    mem.write_u32(argc.0, args.len() as u32)?;
    mem.write_u32(argv.0, av)?;
    mem.write_u32(envp.0, env)?;
    mem.write_u32(var(cx, "__argc")?, args.len() as u32)?;
    mem.write_u32(var(cx, "__argv")?, av)?;
    mem.write_u32(var(cx, "__initenv")?, env)?;
    Ok(0)
}

fn __wgetmainargs(
    cx: &mut Ctx,
    argc: Ptr,
    argv: Ptr,
    envp: Ptr,
    dowildcard: u32,
    _startinfo: Ptr,
) -> ApiResult<i32> {
    super::time::start_clock(cx)?;
    let line_ptr = cx.proc.mem.read_u32(wcmdln(cx)?)?;
    let line = gmem::read_wstr(&cx.proc.mem, line_ptr, usize::MAX)?;
    let args = cmdline::parse(&line);
    check_wildcards(dowildcard, &args)?;
    let av = guest_wargv(cx, &args)?;
    let wenv_var = var(cx, "_wenviron")?;
    let mut env = cx.proc.mem.read_u32(wenv_var)?;
    if env == 0 {
        let e = os_wenvironment(cx)?;
        env = guest_wargv(cx, &e)?;
        cx.proc.mem.write_u32(wenv_var, env)?;
    }
    let mem = &cx.proc.mem;
    mem.write_u32(argc.0, args.len() as u32)?;
    mem.write_u32(argv.0, av)?;
    mem.write_u32(envp.0, env)?;
    mem.write_u32(var(cx, "__argc")?, args.len() as u32)?;
    mem.write_u32(var(cx, "__wargv")?, av)?;
    mem.write_u32(var(cx, "__winitenv")?, env)?;
    Ok(0)
}

fn __set_app_type(_cx: &mut Ctx, _apptype: u32) {}

fn __setusermatherr(_cx: &mut Ctx, _pf: u32) {}

/// `__p__x`: the address of exported variable `_x`.
macro_rules! accessor {
    ($f:ident, $name:literal) => {
        fn $f(cx: &mut Ctx) -> ApiResult<u32> {
            var(cx, $name)
        }
    };
}

accessor!(__p__fmode, "_fmode");
accessor!(__p__commode, "_commode");
accessor!(__p___argc, "__argc");
accessor!(__p___argv, "__argv");
accessor!(__p___wargv, "__wargv");
accessor!(__p___initenv, "__initenv");
accessor!(__p___winitenv, "__winitenv");
accessor!(__p__wenviron, "_wenviron");

fn __p___mb_cur_max(cx: &mut Ctx) -> ApiResult<u32> {
    state::data_var(cx.proc, "__mb_cur_max", one)
}

fn __p__osver(cx: &mut Ctx) -> ApiResult<u32> {
    state::data_var(cx.proc, "_osver", init_osver)
}

fn __p__winver(cx: &mut Ctx) -> ApiResult<u32> {
    state::data_var(cx.proc, "_winver", init_winver)
}

fn __p__winmajor(cx: &mut Ctx) -> ApiResult<u32> {
    state::data_var(cx.proc, "_winmajor", init_winmajor)
}

fn __p__winminor(cx: &mut Ctx) -> ApiResult<u32> {
    state::data_var(cx.proc, "_winminor", init_winminor)
}

fn __p__acmdln(cx: &mut Ctx) -> ApiResult<u32> {
    acmdln(cx)
}

fn __p__wcmdln(cx: &mut Ctx) -> ApiResult<u32> {
    wcmdln(cx)
}

/// `_wenviron`, built from the OS environment on first use (UCRT's
/// `_initialize_wide_environment` needs it before any `__wgetmainargs`).
pub(crate) fn wenviron(cx: &mut Ctx) -> ApiResult<u32> {
    let a = var(cx, "_wenviron")?;
    let cur = cx.proc.mem.read_u32(a)?;
    if cur != 0 {
        return Ok(cur);
    }
    let e = os_wenvironment(cx)?;
    let p = guest_wargv(cx, &e)?;
    cx.proc.mem.write_u32(a, p)?;
    Ok(p)
}

fn __p__environ(cx: &mut Ctx) -> ApiResult<u32> {
    environ(cx)?;
    var(cx, "_environ")
}

fn ___mb_cur_max_func(_cx: &mut Ctx) -> u32 {
    1
}

fn _initterm(cx: &mut Ctx, start: u32, end: u32) -> ApiResult<Outcome> {
    let mut p = start;
    while p < end {
        let f = cx.proc.mem.read_u32(p)?;
        if f != 0
            && let Err(o) = call_guest(cx, f, &[])?
        {
            return Ok(o);
        }
        p += 4;
    }
    Ok(Outcome::Return(0))
}

fn _initterm_e(cx: &mut Ctx, start: u32, end: u32) -> ApiResult<Outcome> {
    let mut p = start;
    while p < end {
        let f = cx.proc.mem.read_u32(p)?;
        if f != 0 {
            match call_guest(cx, f, &[])? {
                Ok(0) => {}
                Ok(r) => return Ok(Outcome::Return(r as u64)),
                Err(o) => return Ok(o),
            }
        }
        p += 4;
    }
    Ok(Outcome::Return(0))
}

// ---- errno -------------------------------------------------------------------------

fn _errno(cx: &mut Ctx) -> ApiResult<u32> {
    Ok(state::thread_data(cx)?.block)
}

fn __doserrno(cx: &mut Ctx) -> ApiResult<u32> {
    Ok(state::thread_data(cx)?.block + 4)
}

// ---- floating-point control --------------------------------------------------------

/// x87 control word -> the runtime's abstract `_MCW_*` form.
pub fn cw_to_abstract(cw: u16) -> u32 {
    let mut a = 0;
    for (x87, abs) in [
        (0x01, 0x10),
        (0x02, 0x8_0000),
        (0x04, 0x08),
        (0x08, 0x04),
        (0x10, 0x02),
        (0x20, 0x01),
    ] {
        if cw & x87 != 0 {
            a |= abs;
        }
    }
    a |= match (cw >> 10) & 3 {
        0 => 0,
        1 => 0x100,
        2 => 0x200,
        _ => 0x300,
    };
    a |= match (cw >> 8) & 3 {
        0 => 0x2_0000,
        2 => 0x1_0000,
        _ => 0,
    };
    if cw & 0x1000 != 0 {
        a |= 0x4_0000;
    }
    a
}

/// The abstract form -> x87 control word bits (reserved bit 6 kept set).
pub fn abstract_to_cw(a: u32) -> u16 {
    let mut cw = 0x40u16;
    for (x87, abs) in [
        (0x01, 0x10),
        (0x02, 0x8_0000),
        (0x04, 0x08),
        (0x08, 0x04),
        (0x10, 0x02),
        (0x20, 0x01),
    ] {
        if a & abs != 0 {
            cw |= x87;
        }
    }
    cw |= match a & 0x300 {
        0 => 0,
        0x100 => 1 << 10,
        0x200 => 2 << 10,
        _ => 3 << 10,
    };
    cw |= match a & 0x3_0000 {
        0x2_0000 => 0,
        0x1_0000 => 2 << 8,
        _ => 3 << 8,
    };
    if a & 0x4_0000 != 0 {
        cw |= 0x1000;
    }
    cw
}

fn _control87(cx: &mut Ctx, new: u32, mask: u32) -> u32 {
    let fpu = &mut cx.thread.cpu.fpu;
    let cur = cw_to_abstract(fpu.cw);
    let next = (cur & !mask) | (new & mask);
    fpu.cw = abstract_to_cw(next);
    cw_to_abstract(fpu.cw)
}

fn _controlfp(cx: &mut Ctx, new: u32, mask: u32) -> u32 {
    // _controlfp leaves the denormal mask alone.
    _control87(cx, new, mask & !0x8_0000)
}

fn status_abstract(sw: u16) -> u32 {
    let mut a = 0;
    for (x87, abs) in [
        (0x01, 0x10),
        (0x02, 0x8_0000),
        (0x04, 0x08),
        (0x08, 0x04),
        (0x10, 0x02),
        (0x20, 0x01),
    ] {
        if sw & x87 != 0 {
            a |= abs;
        }
    }
    a
}

fn _statusfp(cx: &mut Ctx) -> u32 {
    status_abstract(cx.thread.cpu.fpu.sw)
}

fn _clearfp(cx: &mut Ctx) -> u32 {
    let fpu = &mut cx.thread.cpu.fpu;
    let a = status_abstract(fpu.sw);
    // Exception flags, stack fault and the summary/busy bits.
    fpu.sw &= !0x80ff;
    a
}

fn _fpreset(cx: &mut Ctx) {
    let fpu = &mut cx.thread.cpu.fpu;
    fpu.cw = 0x027f;
    fpu.sw &= !0x80ff;
}

// ---- environment ---------------------------------------------------------------------

/// Entries of the guest `_environ` array: (entry address, text).
fn environ_entries(cx: &mut Ctx) -> ApiResult<Vec<(u32, Vec<u8>)>> {
    let arr = environ(cx)?;
    let mut out = Vec::new();
    let mut k = 0;
    loop {
        let p = cx.proc.mem.read_u32(arr + 4 * k)?;
        if p == 0 {
            break;
        }
        out.push((p, gmem::read_cstr(&cx.proc.mem, p, 32767)?));
        k += 1;
    }
    Ok(out)
}

fn name_matches(entry: &[u8], name: &[u8]) -> bool {
    entry.len() > name.len()
        && entry[name.len()] == b'='
        && entry[..name.len()].eq_ignore_ascii_case(name)
}

fn getenv(cx: &mut Ctx, varname: CStrPtr) -> ApiResult<u32> {
    let name = gmem::read_cstr(&cx.proc.mem, varname.0, 32767)?;
    if name.is_empty() {
        return Ok(0);
    }
    Ok(environ_entries(cx)?
        .iter()
        .find(|(_, e)| name_matches(e, &name))
        .map_or(0, |(p, _)| p + name.len() as u32 + 1))
}

fn _putenv(cx: &mut Ctx, envstring: CStrPtr) -> ApiResult<i32> {
    let s = gmem::read_cstr(&cx.proc.mem, envstring.0, 32767)?;
    let Some(eq) = s.iter().position(|&c| c == b'=').filter(|&e| e > 0) else {
        state::set_errno(cx, state::errno::EINVAL)?;
        return Ok(-1);
    };
    let name = s[..eq].to_vec();
    let remove = eq + 1 == s.len();
    let mut entries: Vec<Vec<u8>> = environ_entries(cx)?
        .into_iter()
        .map(|(_, e)| e)
        .filter(|e| !name_matches(e, &name))
        .collect();
    if !remove {
        entries.push(s.clone());
    }
    let arr = guest_argv(cx, &entries)?;
    let a = var(cx, "_environ")?;
    cx.proc.mem.write_u32(a, arr)?;
    // Keep the OS environment in step, as the runtime does.
    let tmp = heap::malloc_raw(cx, s.len() as u32 + 1)?;
    gmem::write_cstr(&cx.proc.mem, tmp, &s[..eq])?;
    let value = if remove { 0 } else { tmp + eq as u32 + 1 };
    if !remove {
        gmem::write_cstr(&cx.proc.mem, value, &s[eq + 1..])?;
    }
    k32(cx, "SetEnvironmentVariableA", &[tmp, value])?;
    heap::free_raw(cx, tmp)?;
    Ok(0)
}

fn init_lock(_cx: &mut Ctx, _locknum: u32) {}

pub fn exports() -> Vec<ApiDef> {
    vec![
        data("_fmode", 4, zero),
        data("_commode", 4, zero),
        data("__mb_cur_max", 4, one),
        data("__initenv", 4, zero),
        data("__winitenv", 4, zero),
        data("_environ", 4, zero),
        data("_wenviron", 4, zero),
        data("__argc", 4, zero),
        data("__argv", 4, zero),
        data("__wargv", 4, zero),
        data("_acmdln", 4, zero),
        data("_wcmdln", 4, zero),
        data("_osver", 4, init_osver),
        data("_winver", 4, init_winver),
        data("_winmajor", 4, init_winmajor),
        data("_winminor", 4, init_winminor),
        cdecl("__getmainargs", __getmainargs),
        cdecl("__wgetmainargs", __wgetmainargs),
        cdecl("__set_app_type", __set_app_type),
        cdecl("__setusermatherr", __setusermatherr),
        cdecl("__p__fmode", __p__fmode),
        cdecl("__p__commode", __p__commode),
        cdecl("__p___argc", __p___argc),
        cdecl("__p___argv", __p___argv),
        cdecl("__p___wargv", __p___wargv),
        cdecl("__p___initenv", __p___initenv),
        cdecl("__p___winitenv", __p___winitenv),
        cdecl("__p__environ", __p__environ),
        cdecl("__p__wenviron", __p__wenviron),
        cdecl("__p___mb_cur_max", __p___mb_cur_max),
        cdecl("___mb_cur_max_func", ___mb_cur_max_func),
        cdecl("__p__acmdln", __p__acmdln),
        cdecl("__p__wcmdln", __p__wcmdln),
        cdecl("__p__osver", __p__osver),
        cdecl("__p__winver", __p__winver),
        cdecl("__p__winmajor", __p__winmajor),
        cdecl("__p__winminor", __p__winminor),
        cdecl("_initterm", _initterm),
        cdecl("_initterm_e", _initterm_e),
        cdecl("_errno", _errno),
        cdecl("__doserrno", __doserrno),
        cdecl("_control87", _control87),
        cdecl("_controlfp", _controlfp),
        cdecl("_statusfp", _statusfp),
        cdecl("_clearfp", _clearfp),
        cdecl("_fpreset", _fpreset),
        cdecl("getenv", getenv),
        cdecl("_putenv", _putenv),
        // The runtime's internal locks: guest threads calling into the HLE runtime
        // are serialised by its own host locks already.
        cdecl("_lock", init_lock),
        cdecl("_unlock", init_lock),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    // Values from Microsoft's float.h: _MCW_EM masks, _RC_*, _PC_*.
    #[test]
    fn control_word_mapping() {
        // Windows' default: all masked, 53-bit, nearest -> _EM_* all | _PC_53.
        assert_eq!(cw_to_abstract(0x027f), 0x9_001f);
        assert_eq!(abstract_to_cw(0x9_001f), 0x027f);
        // _RC_CHOP | _PC_24, nothing masked.
        assert_eq!(abstract_to_cw(0x2_0300), 0x0c40);
        assert_eq!(cw_to_abstract(0x037f), 0x8_001f);
    }
}
