//! Window hooks: SetWindowsHookEx, UnhookWindowsHookEx and CallNextHookEx.
//!
//! Of the hook types only WH_CBT is served, and of its events only
//! HCBT_CREATEWND: the hook hears a window's creation (its handle and a
//! CBT_CREATEWND with the CREATESTRUCT) before the window's procedure gets its first
//! message, and a nonzero answer makes CreateWindowEx fail. Programs use it to tie
//! their data to a window whose handle they do not have yet (winefile's MDI
//! children). Installing another type stops with a report by name rather than a
//! hook that would never be called; a WH_CBT hook is logged as hearing only
//! window creation.

#![allow(non_snake_case)]

use super::{UR, fin, guest};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Outcome, stdcall};
use std::sync::Mutex;

const WH_CBT: i32 = 5;
const HCBT_CREATEWND: u32 = 3;

#[derive(Clone, Debug)]
struct Hook {
    handle: u32,
    kind: i32,
    proc_: u32,
    /// The thread it watches; 0: every thread of the process.
    tid: u32,
}

#[derive(Default)]
struct Hooks {
    list: Mutex<(Vec<Hook>, u32)>,
}

fn hooks(cx: &Ctx) -> std::sync::Arc<Hooks> {
    cx.proc.slot::<Hooks>()
}

/// How many hooks the process has set (GetGuiResources counts them).
pub fn count(cx: &Ctx) -> usize {
    hooks(cx)
        .list
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .0
        .len()
}

fn kind_name(k: i32) -> &'static str {
    match k {
        -1 => "WH_MSGFILTER",
        0 => "WH_JOURNALRECORD",
        1 => "WH_JOURNALPLAYBACK",
        2 => "WH_KEYBOARD",
        3 => "WH_GETMESSAGE",
        4 => "WH_CALLWNDPROC",
        5 => "WH_CBT",
        6 => "WH_SYSMSGFILTER",
        7 => "WH_MOUSE",
        9 => "WH_DEBUG",
        10 => "WH_SHELL",
        11 => "WH_FOREGROUNDIDLE",
        12 => "WH_CALLWNDPROCRET",
        13 => "WH_KEYBOARD_LL",
        14 => "WH_MOUSE_LL",
        _ => "an unknown hook type",
    }
}

fn set_hook(cx: &mut Ctx, idHook: i32, lpfn: u32, dwThreadId: u32) -> ApiResult<u32> {
    if idHook != WH_CBT {
        return Err(ApiError::UnimplementedCase(format!(
            "SetWindowsHookEx({}): only WH_CBT hooks (window creation) are served",
            kind_name(idHook)
        )));
    }
    if lpfn == 0 {
        crate::teb::set_last_error(cx, 1427)?; // ERROR_INVALID_FILTER_PROC
        return Ok(0);
    }
    log::info!(
        "SetWindowsHookEx(WH_CBT): the hook hears HCBT_CREATEWND only (not activation, \
         focus, moves or destruction)"
    );
    let h = hooks(cx);
    let mut g = h.list.lock().unwrap_or_else(|e| e.into_inner());
    g.1 += 1;
    let handle = 0x0005_0000 + 4 * g.1;
    // The newest hook is called first.
    g.0.insert(
        0,
        Hook {
            handle,
            kind: idHook,
            proc_: lpfn,
            tid: dwThreadId,
        },
    );
    Ok(handle)
}

pub fn SetWindowsHookExA(
    cx: &mut Ctx,
    idHook: i32,
    lpfn: u32,
    _hmod: u32,
    dwThreadId: u32,
) -> ApiResult<u32> {
    set_hook(cx, idHook, lpfn, dwThreadId)
}

pub fn SetWindowsHookExW(
    cx: &mut Ctx,
    idHook: i32,
    lpfn: u32,
    _hmod: u32,
    dwThreadId: u32,
) -> ApiResult<u32> {
    set_hook(cx, idHook, lpfn, dwThreadId)
}

pub fn UnhookWindowsHookEx(cx: &mut Ctx, hhk: u32) -> ApiResult<bool> {
    let h = hooks(cx);
    let mut g = h.list.lock().unwrap_or_else(|e| e.into_inner());
    let n = g.0.len();
    g.0.retain(|k| k.handle != hhk);
    if g.0.len() == n {
        drop(g);
        crate::teb::set_last_error(cx, 1404)?; // ERROR_INVALID_HOOK_HANDLE
        return Ok(false);
    }
    Ok(true)
}

/// The hooks of `kind` thread `tid` hears, in calling order.
fn chain(cx: &Ctx, kind: i32, tid: u32) -> Vec<Hook> {
    let h = hooks(cx);
    let g = h.list.lock().unwrap_or_else(|e| e.into_inner());
    g.0.iter()
        .filter(|k| k.kind == kind && (k.tid == 0 || k.tid == tid))
        .cloned()
        .collect()
}

/// Passes the event on to the hook after `hhk` in its chain; 0 at the end.
pub fn CallNextHookEx(
    cx: &mut Ctx,
    hhk: u32,
    nCode: i32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    let kind = {
        let h = hooks(cx);
        let g = h.list.lock().unwrap_or_else(|e| e.into_inner());
        g.0.iter().find(|k| k.handle == hhk).map(|k| k.kind)
    };
    let Some(kind) = kind else {
        return Ok(Outcome::Return(0));
    };
    let list = chain(cx, kind, cx.thread.tid);
    let next = list
        .iter()
        .position(|k| k.handle == hhk)
        .and_then(|i| list.get(i + 1))
        .map(|k| k.proc_);
    match next {
        Some(f) => fin(guest(cx, f, &[nCode as u32, wParam, lParam])),
        None => Ok(Outcome::Return(0)),
    }
}

/// WH_CBT's HCBT_CREATEWND for a window being created (`cs`: its CREATESTRUCT);
/// true when a hook refuses the window.
pub fn cbt_create(cx: &mut Ctx, hwnd: u32, cs: u32) -> UR<bool> {
    let list = chain(cx, WH_CBT, cx.thread.tid);
    let Some(first) = list.first() else {
        return Ok(false);
    };
    let (cbt, esp) = super::stack_alloc(cx, 8);
    let r = (|| -> UR<u32> {
        cx.proc.mem.write_u32(cbt, cs)?;
        cx.proc.mem.write_u32(cbt + 4, 0)?;
        guest(cx, first.proc_, &[HCBT_CREATEWND, hwnd, cbt])
    })();
    super::stack_free(cx, esp);
    Ok(r? != 0)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("SetWindowsHookExA", SetWindowsHookExA),
        stdcall("SetWindowsHookExW", SetWindowsHookExW),
        stdcall("UnhookWindowsHookEx", UnhookWindowsHookEx),
        stdcall("CallNextHookEx", CallNextHookEx),
    ]
}
