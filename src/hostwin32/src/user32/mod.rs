//! USER32.dll: window classes and windows, per-thread message queues, painting,
//! timers, input, resources (strings, icons, menus, accelerators, dialogs) and the
//! standard controls, plus the character functions console programs import (case
//! mapping lives with the code pages in [`crate::kernel32::string`]).
//!
//! One lock ([`State::wm`]) guards every window, class, timer and the input state;
//! it is never held while guest code runs (window procedures are called with the
//! lock released) and never taken while the scheduler's dispatcher lock is held,
//! except by [`wm::Queue`]'s wait check, which takes only its own queue lock.

#![allow(non_snake_case)]

pub mod clipboard;
pub mod controls;
pub mod conwin;
pub mod deferpos;
pub mod dialog;
pub mod displaysettings;
pub mod dpi;
pub mod guires;
pub mod hook;
pub mod hostclass;
pub mod icon;
pub mod input;
pub mod mdi;
pub mod menubar;
pub mod menuinfo;
pub mod msg;
pub mod msgbox;
pub mod paint;
pub mod placement;
pub mod present;
pub mod res;
pub mod scroll;
pub mod subclass;
pub mod sysicons;
pub mod window;
pub mod wm;

#[cfg(test)]
mod tests;

use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, HleDll, Outcome, stdcall};
use crate::kernel32::string::{ANSI_CP, CP_ACP, CP_OEMCP, OEM_CP, user32_string_exports};
use std::sync::{Mutex, MutexGuard};

/// USER32's process-wide state, in [`crate::process::Process::user32`].
#[derive(Default)]
pub struct State {
    pub(crate) wm: Mutex<wm::Wm>,
}

/// The window manager, locked.
pub(crate) fn lock_wm(proc: &crate::process::Process) -> MutexGuard<'_, wm::Wm> {
    proc.user32.wm.lock().unwrap_or_else(|e| e.into_inner())
}

pub const DLL: HleDll = HleDll {
    name: "USER32.dll",
    exports,
    attach: None,
};

/// Why a USER32 operation stopped early: an error, or the thread or process ending
/// (or, in deterministic mode, blocking) inside guest code it called.
#[derive(Debug)]
pub enum Flow {
    Err(ApiError),
    End(Outcome),
}

impl From<ApiError> for Flow {
    fn from(e: ApiError) -> Flow {
        Flow::Err(e)
    }
}

impl From<winterp_core::mem::Fault> for Flow {
    fn from(f: winterp_core::mem::Fault) -> Flow {
        Flow::Err(ApiError::Fault(f.addr))
    }
}

pub type UR<T> = Result<T, Flow>;

/// An API's result from a [`UR`].
pub fn fin<T: Into<u64>>(r: UR<T>) -> ApiResult<Outcome> {
    match r {
        Ok(v) => Ok(Outcome::Return(v.into())),
        Err(Flow::Err(e)) => Err(e),
        Err(Flow::End(o)) => Ok(o),
    }
}

/// Calls guest code (a window, dialog or timer procedure).
pub fn guest(cx: &mut Ctx, f: u32, args: &[u32]) -> UR<u32> {
    use crate::thread::ThreadEnd;
    match cx.thread.call_guest(cx.proc, f, args) {
        Ok(v) => Ok(v),
        Err(ThreadEnd::Exited(c)) => Err(Flow::End(Outcome::ExitThread(c))),
        Err(ThreadEnd::ProcessExit(c)) => Err(Flow::End(Outcome::ExitProcess(c))),
        Err(ThreadEnd::Crashed(report)) => Err(Flow::Err(ApiError::Other(report))),
        Err(ThreadEnd::InstructionLimit) => Err(Flow::End(Outcome::ExitProcess(
            crate::scheduler::ABNORMAL_EXIT,
        ))),
    }
}

/// Calls an export of another HLE DLL (GDI32) from host code.
pub fn call_export(cx: &mut Ctx, dll: &str, name: &str, args: &[u32]) -> UR<Option<u32>> {
    let Some(d) = cx.proc.hle_dll(dll) else {
        return Ok(None);
    };
    let proc = cx.proc.clone();
    let Some(def) = proc.dlls[d].1.iter().find(|e| e.name == name) else {
        return Ok(None);
    };
    let saved = cx.thread.call_nargs;
    cx.thread.call_nargs = args.len() as u32;
    let r = def.call(cx, args);
    cx.thread.call_nargs = saved;
    match r? {
        Outcome::Return(v) => Ok(Some(v as u32)),
        o => Err(Flow::End(o)),
    }
}

/// Reserves `size` bytes of guest stack below ESP for data passed to guest code
/// (converted strings, CREATESTRUCT, ...); give the returned ESP to [`stack_free`].
pub fn stack_alloc(cx: &mut Ctx, size: u32) -> (u32, u32) {
    let esp = cx.thread.cpu.regs[winterp_core::cpu::ESP];
    let a = esp.wrapping_sub(size + 16) & !15;
    cx.thread.cpu.regs[winterp_core::cpu::ESP] = a;
    (a, esp)
}

pub fn stack_free(cx: &mut Ctx, saved_esp: u32) {
    cx.thread.cpu.regs[winterp_core::cpu::ESP] = saved_esp;
}

/// A string argument that may be an atom/integer resource (high word zero).
pub fn str_or_atom(cx: &Ctx, p: u32, unicode: bool) -> ApiResult<NameOrId> {
    if p >> 16 == 0 {
        return Ok(NameOrId::Id(p as u16));
    }
    let s = if unicode {
        crate::kernel32::string::read_wstr(cx.proc, p)?
    } else {
        crate::kernel32::string::read_ansi(cx.proc, p)?
    };
    Ok(NameOrId::Name(s))
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NameOrId {
    Name(String),
    Id(u16),
}

/// Reads a guest string in the A or W encoding.
pub fn read_str(cx: &Ctx, p: u32, unicode: bool) -> ApiResult<String> {
    if p == 0 {
        return Ok(String::new());
    }
    if unicode {
        crate::kernel32::string::read_wstr(cx.proc, p)
    } else {
        crate::kernel32::string::read_ansi(cx.proc, p)
    }
}

/// Reads `n` characters (A or W) at `p`; `n < 0` means NUL-terminated.
pub fn read_str_n(cx: &Ctx, p: u32, n: i32, unicode: bool) -> ApiResult<String> {
    if n < 0 {
        return read_str(cx, p, unicode);
    }
    let n = n as u32;
    if unicode {
        let mut b = vec![0u8; 2 * n as usize];
        cx.proc.mem.read_bytes(p, &mut b)?;
        let u: Vec<u16> = b
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        Ok(String::from_utf16_lossy(&u))
    } else {
        let mut b = vec![0u8; n as usize];
        cx.proc.mem.read_bytes(p, &mut b)?;
        Ok(crate::kernel32::string::decode_ansi(&b))
    }
}

/// Length of `s` in the A or W encoding.
pub fn str_len(s: &str, unicode: bool) -> u32 {
    if unicode {
        s.encode_utf16().count() as u32
    } else {
        crate::kernel32::string::encode_ansi(s).len() as u32
    }
}

/// Copies `s` into a buffer of `cap` characters, truncating and NUL-terminating
/// (GetWindowText, WM_GETTEXT, LoadString); returns the characters copied.
pub fn put_str(cx: &Ctx, buf: u32, cap: u32, s: &str, unicode: bool) -> ApiResult<u32> {
    if buf == 0 {
        return Ok(0);
    }
    if unicode {
        let u: Vec<u16> = s.encode_utf16().collect();
        crate::kernel32::string::copy_truncated_w(cx.proc, buf, cap, &u)
    } else {
        let b = crate::kernel32::string::encode_ansi(s);
        crate::kernel32::string::copy_truncated_a(cx.proc, buf, cap, &b)
    }
}

/// Writes `s` NUL-terminated at `p` (guest scratch that is known to be big enough).
pub fn write_str(cx: &Ctx, p: u32, s: &str, unicode: bool) -> ApiResult<()> {
    if unicode {
        let mut u: Vec<u16> = s.encode_utf16().collect();
        u.push(0);
        crate::kernel32::string::write_wide(cx.proc, p, &u)
    } else {
        let mut b = crate::kernel32::string::encode_ansi(s);
        b.push(0);
        cx.proc.mem.write_bytes(p, &b)?;
        Ok(())
    }
}

/// Bytes `s` takes NUL-terminated in the A or W encoding.
pub fn str_bytes(s: &str, unicode: bool) -> u32 {
    (str_len(s, unicode) + 1) * if unicode { 2 } else { 1 }
}

/// The program's module handle (an hInstance of 0 means the program).
pub fn program_base(proc: &crate::process::Process) -> u32 {
    crate::loader::state(proc).program().map_or(0, |i| i.base)
}

// Every code page winterp knows (1252, 437) is single-byte, so one character is one
// byte in the A functions and one UTF-16 unit in the W ones (Windows' CharNextW does
// not step over surrogate pairs either).

pub fn CharNextA(cx: &mut Ctx, lpsz: u32) -> ApiResult<u32> {
    let b = cx.proc.mem.read_u8(lpsz)?;
    Ok(if b == 0 { lpsz } else { lpsz.wrapping_add(1) })
}

pub fn CharNextW(cx: &mut Ctx, lpsz: u32) -> ApiResult<u32> {
    let u = cx.proc.mem.read_u16(lpsz)?;
    Ok(if u == 0 { lpsz } else { lpsz.wrapping_add(2) })
}

pub fn CharPrevA(_cx: &mut Ctx, lpszStart: u32, lpszCurrent: u32) -> u32 {
    if lpszCurrent <= lpszStart {
        lpszStart
    } else {
        lpszCurrent - 1
    }
}

pub fn CharPrevW(_cx: &mut Ctx, lpszStart: u32, lpszCurrent: u32) -> u32 {
    if lpszCurrent <= lpszStart {
        lpszStart
    } else {
        lpszCurrent.wrapping_sub(2).max(lpszStart)
    }
}

fn code_page_known(cp: u32) -> bool {
    matches!(cp, CP_ACP | CP_OEMCP | ANSI_CP | OEM_CP)
}

pub fn CharNextExA(
    cx: &mut Ctx,
    CodePage: u16,
    lpCurrentChar: u32,
    _dwFlags: u32,
) -> ApiResult<u32> {
    if !code_page_known(CodePage as u32) {
        return Err(crate::hle::ApiError::UnimplementedCase(format!(
            "CharNextExA in code page {CodePage}"
        )));
    }
    CharNextA(cx, lpCurrentChar)
}

pub fn CharPrevExA(
    cx: &mut Ctx,
    CodePage: u16,
    lpStart: u32,
    lpCurrentChar: u32,
    _dwFlags: u32,
) -> ApiResult<u32> {
    if !code_page_known(CodePage as u32) {
        return Err(crate::hle::ApiError::UnimplementedCase(format!(
            "CharPrevExA in code page {CodePage}"
        )));
    }
    Ok(CharPrevA(cx, lpStart, lpCurrentChar))
}

fn exports() -> Vec<ApiDef> {
    let mut v = user32_string_exports();
    v.extend([
        stdcall("CharNextA", CharNextA),
        stdcall("CharNextW", CharNextW),
        stdcall("CharPrevA", CharPrevA),
        stdcall("CharPrevW", CharPrevW),
        stdcall("CharNextExA", CharNextExA),
        stdcall("CharPrevExA", CharPrevExA),
        // USER32's, not KERNEL32's, on every Windows version.
        stdcall("SetLastErrorEx", crate::kernel32::process::SetLastErrorEx),
        stdcall(
            "WaitForInputIdle",
            crate::kernel32::createprocess::WaitForInputIdle,
        ),
    ]);
    v.extend(window::exports());
    v.extend(clipboard::exports());
    v.extend(msg::exports());
    v.extend(paint::exports());
    v.extend(paint::rect_exports());
    v.extend(input::exports());
    v.extend(res::exports());
    v.extend(menubar::exports());
    v.extend(menuinfo::exports());
    v.extend(icon::exports());
    v.extend(dialog::exports());
    v.extend(controls::exports());
    v.extend(subclass::exports());
    v.extend(deferpos::exports());
    v.extend(msgbox::exports());
    v.extend(displaysettings::exports());
    v.extend(dpi::exports());
    v.extend(guires::exports());
    v.extend(scroll::exports());
    v.extend(mdi::exports());
    v.extend(hook::exports());
    v.extend(placement::exports());
    v
}

#[cfg(test)]
mod char_tests {
    use super::*;
    use crate::kernel32::misc::test_support::Harness;

    #[test]
    fn next_stops_at_the_terminator() {
        let mut h = Harness::new();
        let s = h.scratch(16);
        h.put_cstr(s, "ab");
        assert_eq!(CharNextA(&mut h.cx(), s).unwrap(), s + 1);
        assert_eq!(CharNextA(&mut h.cx(), s + 2).unwrap(), s + 2);
        h.put_wstr(s, "ab");
        assert_eq!(CharNextW(&mut h.cx(), s).unwrap(), s + 2);
        assert_eq!(CharNextW(&mut h.cx(), s + 4).unwrap(), s + 4);
    }

    #[test]
    fn prev_stops_at_the_start() {
        let mut h = Harness::new();
        assert_eq!(CharPrevA(&mut h.cx(), 0x1000, 0x1003), 0x1002);
        assert_eq!(CharPrevA(&mut h.cx(), 0x1000, 0x1000), 0x1000);
        assert_eq!(CharPrevW(&mut h.cx(), 0x1000, 0x1004), 0x1002);
        assert_eq!(CharPrevW(&mut h.cx(), 0x1000, 0x1000), 0x1000);
        assert_eq!(
            CharPrevExA(&mut h.cx(), CP_OEMCP as u16, 0x1000, 0x1001, 0).unwrap(),
            0x1000
        );
    }
}
