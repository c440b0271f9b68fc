//! BeginDeferWindowPos / DeferWindowPos / EndDeferWindowPos: a list of SetWindowPos
//! calls gathered under an HDWP and carried out together at the end (programs lay
//! out their child windows this way on WM_SIZE, e.g. regedit's tree and list).

use super::{UR, fin};
use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, stdcall};
use std::collections::HashMap;
use std::sync::Mutex;

const ERROR_INVALID_PARAMETER: u32 = 87;
const ERROR_INVALID_WINDOW_HANDLE: u32 = 1400;
const ERROR_INVALID_HANDLE: u32 = 6;
/// HDWP values are handed out from here up, apart from other handle kinds.
const FIRST_HDWP: u32 = 0x00d0_0004;

/// One deferred SetWindowPos.
#[derive(Clone, Copy)]
struct Pos {
    hwnd: u32,
    after: u32,
    x: i32,
    y: i32,
    w: i32,
    h: i32,
    flags: u32,
}

#[derive(Default)]
struct Defer {
    next: u32,
    lists: HashMap<u32, Vec<Pos>>,
}

#[derive(Default)]
struct State(Mutex<Defer>);

fn state(cx: &Ctx) -> std::sync::Arc<State> {
    cx.proc.slot::<State>()
}

fn set_error(cx: &mut Ctx, e: u32) -> UR<()> {
    Ok(crate::teb::set_last_error(cx, e)?)
}

fn begin(cx: &mut Ctx, n: i32) -> UR<u32> {
    if n < 0 {
        set_error(cx, ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    let st = state(cx);
    let mut d = st.0.lock().unwrap_or_else(|e| e.into_inner());
    let h = FIRST_HDWP + 4 * d.next;
    d.next += 1;
    d.lists.insert(h, Vec::with_capacity(n as usize));
    Ok(h)
}

pub fn BeginDeferWindowPos(cx: &mut Ctx, nNumWindows: i32) -> ApiResult<Outcome> {
    fin(begin(cx, nNumWindows))
}

fn defer(cx: &mut Ctx, hdwp: u32, p: Pos) -> UR<u32> {
    if super::lock_wm(cx.proc).win(p.hwnd).is_none() {
        set_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
        return Ok(0);
    }
    let st = state(cx);
    let mut d = st.0.lock().unwrap_or_else(|e| e.into_inner());
    let Some(list) = d.lists.get_mut(&hdwp) else {
        drop(d);
        set_error(cx, ERROR_INVALID_HANDLE)?;
        return Ok(0);
    };
    // A window deferred twice keeps one entry: the later call's position and size
    // replace the earlier ones unless it says SWP_NOMOVE/SWP_NOSIZE.
    if let Some(e) = list.iter_mut().find(|e| e.hwnd == p.hwnd) {
        const SWP_NOSIZE: u32 = 1;
        const SWP_NOMOVE: u32 = 2;
        const SWP_NOZORDER: u32 = 4;
        if p.flags & SWP_NOMOVE == 0 {
            (e.x, e.y) = (p.x, p.y);
            e.flags &= !SWP_NOMOVE;
        }
        if p.flags & SWP_NOSIZE == 0 {
            (e.w, e.h) = (p.w, p.h);
            e.flags &= !SWP_NOSIZE;
        }
        if p.flags & SWP_NOZORDER == 0 {
            e.after = p.after;
            e.flags &= !SWP_NOZORDER;
        }
        e.flags |= p.flags & !(SWP_NOSIZE | SWP_NOMOVE | SWP_NOZORDER);
    } else {
        list.push(p);
    }
    Ok(hdwp)
}

#[allow(clippy::too_many_arguments)]
pub fn DeferWindowPos(
    cx: &mut Ctx,
    hWinPosInfo: u32,
    hWnd: u32,
    hWndInsertAfter: u32,
    x: i32,
    y: i32,
    cx_: i32,
    cy: i32,
    uFlags: u32,
) -> ApiResult<Outcome> {
    let p = Pos {
        hwnd: hWnd,
        after: hWndInsertAfter,
        x,
        y,
        w: cx_,
        h: cy,
        flags: uFlags,
    };
    fin(defer(cx, hWinPosInfo, p))
}

fn end(cx: &mut Ctx, hdwp: u32) -> UR<bool> {
    let list = {
        let st = state(cx);
        let mut d = st.0.lock().unwrap_or_else(|e| e.into_inner());
        d.lists.remove(&hdwp)
    };
    let Some(list) = list else {
        set_error(cx, ERROR_INVALID_HANDLE)?;
        return Ok(false);
    };
    let mut ok = true;
    for p in list {
        ok &= super::window::set_window_pos(cx, p.hwnd, p.after, p.x, p.y, p.w, p.h, p.flags)?;
    }
    Ok(ok)
}

pub fn EndDeferWindowPos(cx: &mut Ctx, hWinPosInfo: u32) -> ApiResult<Outcome> {
    fin(end(cx, hWinPosInfo))
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("BeginDeferWindowPos", BeginDeferWindowPos),
        stdcall("DeferWindowPos", DeferWindowPos),
        stdcall("EndDeferWindowPos", EndDeferWindowPos),
    ]
}
