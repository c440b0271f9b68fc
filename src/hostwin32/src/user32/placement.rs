//! GetWindowPlacement and SetWindowPlacement: a window's show state and its
//! restored ("normal") rectangle, in the WINDOWPLACEMENT structure (length, flags,
//! showCmd, ptMinPosition, ptMaxPosition, rcNormalPosition: 44 bytes).
//!
//! The normal rectangle is the window's rectangle while it is neither maximized nor
//! minimized, and for a maximized or minimized MDI child the one it is restored to
//! ([`super::mdi`] keeps it). The minimized and maximized positions are not kept:
//! they read as (-1, -1), Windows' answer for positions never set.

#![allow(non_snake_case)]

use super::window::{put_rect, read_rect};
use super::wm;
use super::{fin, lock_wm};
use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, Ptr, stdcall};

const SIZE: u32 = 44;
const SW_SHOWNORMAL: u32 = 1;
const SW_SHOWMINIMIZED: u32 = 2;
const SW_SHOWMAXIMIZED: u32 = 3;

pub fn GetWindowPlacement(cx: &mut Ctx, hWnd: u32, lpwndpl: Ptr) -> ApiResult<bool> {
    if lpwndpl.is_null() {
        crate::teb::set_last_error(cx, 87)?;
        return Ok(false);
    }
    let Some((style, rect)) = lock_wm(cx.proc).win(hWnd).map(|w| (w.style, w.rect)) else {
        crate::teb::set_last_error(cx, 1400)?;
        return Ok(false);
    };
    let cmd = if style & wm::WS_MINIMIZE != 0 {
        SW_SHOWMINIMIZED
    } else if style & wm::WS_MAXIMIZE != 0 {
        SW_SHOWMAXIMIZED
    } else {
        SW_SHOWNORMAL
    };
    let normal = super::mdi::restore_rect(cx, hWnd).unwrap_or(rect);
    let m = &cx.proc.mem;
    let p = lpwndpl.0;
    m.write_u32(p, SIZE)?;
    m.write_u32(p + 4, 0)?;
    m.write_u32(p + 8, cmd)?;
    for k in 0..4 {
        m.write_u32(p + 12 + 4 * k, u32::MAX)?;
    }
    put_rect(cx, p + 28, normal)?;
    Ok(true)
}

pub fn SetWindowPlacement(cx: &mut Ctx, hWnd: u32, lpwndpl: Ptr) -> ApiResult<Outcome> {
    if lpwndpl.is_null() {
        crate::teb::set_last_error(cx, 87)?;
        return Ok(Outcome::Return(0));
    }
    if lock_wm(cx.proc).win(hWnd).is_none() {
        crate::teb::set_last_error(cx, 1400)?;
        return Ok(Outcome::Return(0));
    }
    let cmd = cx.proc.mem.read_u32(lpwndpl.0 + 8)?;
    let normal = read_rect(cx, lpwndpl.0 + 28)?;
    let r = (|| -> super::UR<bool> {
        if super::mdi::set_placement(cx, hWnd, normal, cmd)? {
            return Ok(true);
        }
        let style = lock_wm(cx.proc).win(hWnd).map_or(0, |w| w.style);
        if style & (wm::WS_MAXIMIZE | wm::WS_MINIMIZE) == 0 {
            super::window::set_window_pos(
                cx,
                hWnd,
                0,
                normal.left,
                normal.top,
                normal.width(),
                normal.height(),
                super::window::SWP_NOZORDER | super::window::SWP_NOACTIVATE,
            )?;
        }
        super::window::show_window(cx, hWnd, cmd)?;
        Ok(true)
    })();
    fin(r)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GetWindowPlacement", GetWindowPlacement),
        stdcall("SetWindowPlacement", SetWindowPlacement),
    ]
}
