//! Window subclassing as COMCTL32 provides it (SetWindowSubclass, DefSubclassProc):
//! a chain of (procedure, id, reference data) per window, entered through one USER32
//! procedure that calls the newest subclass; DefSubclassProc passes a message to the
//! next older one and finally to the window procedure the chain replaced.

use super::msg::{call_proc, proc_address};
use super::wm::Builtin;
use super::{UR, fin, guest, lock_wm};
use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, stdcall};

/// Calls chain entry `pos` (or the original procedure below 0).
fn call_at(
    cx: &mut Ctx,
    h: u32,
    pos: Option<usize>,
    m: u32,
    wp: u32,
    lp: u32,
    unicode: bool,
) -> UR<u32> {
    let entry = {
        let mut wm = lock_wm(cx.proc);
        let Some(w) = wm.win_mut(h) else { return Ok(0) };
        match pos {
            Some(p) => w.subclasses.get(p).copied().map(|e| {
                w.subclass_pos.push(p);
                Ok(e)
            }),
            None => Some(Err(w.subclass_orig)),
        }
    };
    match entry {
        None => Ok(0),
        Some(Err((orig, ou))) => call_proc(cx, orig, ou, h, m, wp, lp, unicode),
        Some(Ok((f, id, r))) => {
            let res = guest(cx, f, &[h, m, wp, lp, id, r]);
            if let Some(w) = lock_wm(cx.proc).win_mut(h) {
                w.subclass_pos.pop();
            }
            res
        }
    }
}

/// The window procedure of a subclassed window: the newest subclass.
pub fn dispatch(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, unicode: bool) -> UR<u32> {
    let top = lock_wm(cx.proc)
        .win(h)
        .and_then(|w| w.subclasses.len().checked_sub(1));
    call_at(cx, h, top, m, wp, lp, unicode)
}

/// DefSubclassProc: the next older subclass, or the original procedure.
pub fn def_subclass(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32) -> UR<u32> {
    let cur = lock_wm(cx.proc)
        .win(h)
        .and_then(|w| w.subclass_pos.last().copied());
    let next = cur.and_then(|p| p.checked_sub(1));
    call_at(cx, h, next, m, wp, lp, true)
}

pub fn set_subclass(cx: &mut Ctx, h: u32, f: u32, id: u32, r: u32) -> bool {
    let thunk = proc_address(cx, 0x8000_0000 | Builtin::Subclass as u32);
    let mut wm = lock_wm(cx.proc);
    let Some(w) = wm.win_mut(h) else { return false };
    if let Some(e) = w.subclasses.iter_mut().find(|e| e.0 == f && e.1 == id) {
        e.2 = r;
        return true;
    }
    if w.subclasses.is_empty() {
        w.subclass_orig = (w.wndproc, w.unicode);
        w.wndproc = thunk;
        w.unicode = true;
    }
    w.subclasses.push((f, id, r));
    true
}

pub fn remove_subclass(cx: &mut Ctx, h: u32, f: u32, id: u32) -> bool {
    let mut wm = lock_wm(cx.proc);
    let Some(w) = wm.win_mut(h) else { return false };
    let Some(k) = w.subclasses.iter().position(|e| e.0 == f && e.1 == id) else {
        return false;
    };
    w.subclasses.remove(k);
    if w.subclasses.is_empty() {
        (w.wndproc, w.unicode) = w.subclass_orig;
    }
    true
}

pub fn get_subclass(cx: &mut Ctx, h: u32, f: u32, id: u32) -> Option<u32> {
    let wm = lock_wm(cx.proc);
    wm.win(h)?
        .subclasses
        .iter()
        .find(|e| e.0 == f && e.1 == id)
        .map(|e| e.2)
}

pub fn SubclassWndProc(
    cx: &mut Ctx,
    hWnd: u32,
    Msg: u32,
    wParam: u32,
    lParam: u32,
) -> ApiResult<Outcome> {
    fin(dispatch(cx, hWnd, Msg, wParam, lParam, true))
}

pub fn exports() -> Vec<ApiDef> {
    vec![stdcall("SubclassWndProc", SubclassWndProc)]
}
