//! Host input to guest messages and key state: keys go to the focus window's
//! thread as WM_(SYS)KEYDOWN/UP with Windows' lParam bits; the mouse to the capture
//! window or the window under the pointer in client coordinates; plus the key-state,
//! capture and cursor functions.

use super::msg::*;
use super::wm::{self, Msg};
use super::{fin, lock_wm};
use crate::display::{InputEvent, MouseButton};
use crate::gdi32::Rect;
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Outcome, Ptr, stdcall, stdcall_aw};
use crate::kernel32::string::{GuestStr, copy_truncated_a, copy_truncated_w, encode_ansi};
use crate::process::Process;
use std::sync::Arc;

pub const VK_SHIFT: usize = 0x10;
pub const VK_CONTROL: usize = 0x11;
pub const VK_MENU: usize = 0x12;
pub const VK_CAPITAL: usize = 0x14;
pub const VK_F10: usize = 0x79;
pub const MK_LBUTTON: u32 = 1;
pub const MK_RBUTTON: u32 = 2;
pub const MK_SHIFT: u32 = 4;
pub const MK_CONTROL: u32 = 8;
pub const MK_MBUTTON: u32 = 0x10;
const DOUBLE_CLICK_MS: u64 = 500;

/// Updates a key-state table for `vk` going down or up (toggle on each press, and the
/// generic Shift/Ctrl/Alt codes follow their left/right variants).
pub fn apply_key(keys: &mut [u8], vk: usize, down: bool) {
    if vk >= keys.len() {
        return;
    }
    let set = |keys: &mut [u8], k: usize| {
        if down {
            if keys[k] & 0x80 == 0 {
                keys[k] ^= 1;
            }
            keys[k] |= 0x80;
        } else {
            keys[k] &= !0x80;
        }
    };
    set(keys, vk);
    let generic = match vk {
        0xa0 | 0xa1 => Some(VK_SHIFT),
        0xa2 | 0xa3 => Some(VK_CONTROL),
        0xa4 | 0xa5 => Some(VK_MENU),
        _ => None,
    };
    if let Some(g) = generic {
        set(keys, g);
    }
}

fn mk_flags(keys: &[u8; 256]) -> u32 {
    let mut f = 0;
    for (vk, bit) in [
        (0x01, MK_LBUTTON),
        (0x02, MK_RBUTTON),
        (0x04, MK_MBUTTON),
        (VK_SHIFT, MK_SHIFT),
        (VK_CONTROL, MK_CONTROL),
    ] {
        if keys[vk] & 0x80 != 0 {
            f |= bit;
        }
    }
    f
}

fn lohi(a: i32, b: i32) -> u32 {
    (a as u16 as u32) | ((b as u16 as u32) << 16)
}

fn push_input(proc: &Process, wm: &mut wm::Wm, hwnd: u32, m: Msg) {
    let Some(tid) = wm.win(hwnd).map(|w| w.tid) else {
        return;
    };
    let q = wm.queue(tid);
    let mut d = q.lock();
    // Mouse moves coalesce as on Windows: one pending WM_MOUSEMOVE per window.
    if m.message == WM_MOUSEMOVE
        && let Some(last) = d.input.back_mut()
        && last.message == WM_MOUSEMOVE
        && last.hwnd == m.hwnd
    {
        *last = m;
    } else {
        d.input.push_back(m);
    }
    d.wake = true;
    drop(d);
    let _ = proc;
}

/// Delivers `ev` to the window under the pointer or with the focus.
pub fn inject(proc: &Arc<Process>, ev: InputEvent) {
    let time = wm::now_ms_host(proc);
    let mut wm = lock_wm(proc);
    let main = wm.main_window();
    // Frame coordinates are relative to the main window's menu bar, or its client
    // area if it has none (see present::frame_rect).
    let origin = main.map_or((0, 0), |h| super::present::frame_origin(&wm, h));
    match ev {
        InputEvent::Key {
            vk,
            scancode,
            extended,
            down,
        } => {
            let vk = vk as usize;
            let was_down = wm.keys[vk] & 0x80 != 0;
            let mut keys = wm.keys;
            apply_key(&mut keys, vk, down);
            // Left/right variants arrive as the generic code too.
            wm.keys = keys;
            if down {
                wm.pressed[vk] = true;
            }
            let alt = wm.keys[VK_MENU] & 0x80 != 0;
            let ctrl = wm.keys[VK_CONTROL] & 0x80 != 0;
            let target = if wm.focus != 0 { wm.focus } else { wm.active };
            let target = if target == 0 {
                main.unwrap_or(0)
            } else {
                target
            };
            if target == 0 {
                log::debug!("key {vk:#x} with no window to receive it");
                return;
            }
            if target == super::conwin::console_window(proc) {
                // The console window's keys are the console's input records.
                let shift = wm.keys[VK_SHIFT] & 0x80 != 0;
                let caps = wm.keys[VK_CAPITAL] & 1 != 0;
                let ch = if ctrl || alt {
                    None
                } else {
                    crate::keys::char_for_key(vk as u8, shift, caps)
                };
                // dwControlKeyState: LEFT_ALT_PRESSED, LEFT_CTRL_PRESSED,
                // SHIFT_PRESSED, CAPSLOCK_ON, ENHANCED_KEY.
                let state = (alt as u32) << 1
                    | (ctrl as u32) << 3
                    | (shift as u32) << 4
                    | (caps as u32) << 7
                    | (extended as u32) << 8;
                let rec = crate::kernel32::conscreen::key_record(
                    down,
                    1,
                    vk as u16,
                    scancode & 0xff,
                    ch.map_or(0, |c| c as u16),
                    state,
                );
                drop(wm);
                crate::kernel32::conscreen::push_input(proc, &[rec]);
                return;
            }
            let sys = (alt && !ctrl) || vk == VK_F10 || (vk == VK_MENU && !ctrl) || wm.focus == 0;
            let message = match (down, sys) {
                (true, false) => WM_KEYDOWN,
                (false, false) => WM_KEYUP,
                (true, true) => WM_SYSKEYDOWN,
                (false, true) => WM_SYSKEYUP,
            };
            let mut lp = 1 | ((scancode as u32 & 0xff) << 16);
            if extended {
                lp |= 1 << 24;
            }
            if alt && (down || vk != VK_MENU) {
                lp |= 1 << 29;
            }
            if !down && vk == VK_MENU {
                lp |= 1 << 29;
            }
            if was_down {
                lp |= 1 << 30;
            }
            if !down {
                lp |= 1 << 31 | 1 << 30;
            }
            let pt = wm.cursor;
            push_input(
                proc,
                &mut wm,
                target,
                Msg {
                    hwnd: target,
                    message,
                    wparam: vk as u32,
                    lparam: lp,
                    time: time as u32,
                    pt,
                },
            );
        }
        InputEvent::MouseMove { x, y } => {
            let p = (x + origin.0, y + origin.1);
            wm.cursor = p;
            mouse(proc, &mut wm, WM_MOUSEMOVE, p, time, 0);
        }
        InputEvent::MouseButton { button, down, x, y } => {
            let p = (x + origin.0, y + origin.1);
            wm.cursor = p;
            let (vk, base) = match button {
                MouseButton::Left => (0x01, WM_LBUTTONDOWN),
                MouseButton::Right => (0x02, WM_RBUTTONDOWN),
                MouseButton::Middle => (0x04, WM_MBUTTONDOWN),
            };
            let mut keys = wm.keys;
            apply_key(&mut keys, vk, down);
            wm.keys = keys;
            if down {
                wm.pressed[vk] = true;
            }
            let msg = if down { base } else { base + 1 };
            mouse(proc, &mut wm, msg, p, time, 0);
        }
        InputEvent::Wheel { delta, x, y } => {
            let p = (x + origin.0, y + origin.1);
            let target = if wm.focus != 0 {
                wm.focus
            } else {
                main.unwrap_or(0)
            };
            if target != 0 {
                let wp = (mk_flags(&wm.keys) & 0xffff) | ((delta as i16 as u16 as u32) << 16);
                let cursor = wm.cursor;
                push_input(
                    proc,
                    &mut wm,
                    target,
                    Msg {
                        hwnd: target,
                        message: WM_MOUSEWHEEL,
                        wparam: wp,
                        lparam: lohi(p.0, p.1),
                        time: time as u32,
                        pt: cursor,
                    },
                );
            }
        }
        InputEvent::Focus(gained) => {
            if !gained {
                // Keys held when the player lost focus would otherwise stay down.
                for k in wm.keys.iter_mut() {
                    *k &= !0x80;
                }
            }
        }
        InputEvent::Close => {
            if let Some(h) = main {
                drop(wm);
                post_proc(proc, h, WM_CLOSE, 0, 0, time as u32);
                return;
            }
        }
        // Pads are not window input: display::inject keeps their state for winmm and
        // DirectInput.
        InputEvent::Pad { .. } => {}
    }
    drop(wm);
    wm::wake_all(proc);
}

/// Queues a mouse message for the capture window or the window under `p`.
/// WM_PARENTNOTIFY for a button press in a child window: each ancestor, up to the
/// first window that is not a child or has WS_EX_NOPARENTNOTIFY, hears of it with the
/// point in its own client coordinates. Windows sends it just before the button
/// message is retrieved; here, with no guest thread at hand, it is queued just
/// before the button message on the same input queue, so window procedures see the
/// same order.
fn parent_notify(
    proc: &Process,
    wm: &mut wm::Wm,
    child: u32,
    message: u32,
    p: (i32, i32),
    time: u64,
) {
    let mut h = child;
    while let Some(w) = wm.win(h) {
        if w.style & wm::WS_CHILD == 0 || w.exstyle & wm::WS_EX_NOPARENTNOTIFY != 0 {
            break;
        }
        let (parent, id) = (w.parent, w.id);
        if parent == 0 {
            break;
        }
        let (ox, oy) = wm.client_origin(parent);
        push_input(
            proc,
            wm,
            parent,
            Msg {
                hwnd: parent,
                message: WM_PARENTNOTIFY,
                wparam: (message & 0xffff) | (id << 16),
                lparam: lohi(p.0 - ox, p.1 - oy),
                time: time as u32,
                pt: p,
            },
        );
        h = parent;
    }
}

fn mouse(proc: &Process, wm: &mut wm::Wm, msg: u32, p: (i32, i32), time: u64, _x: u32) {
    let target = if wm.capture != 0 {
        Some(wm.capture)
    } else {
        wm.window_at(p)
    };
    let Some(h) = target else { return };
    let (cx, cy) = wm.client_origin(h);
    let (x, y) = (p.0 - cx, p.1 - cy);
    let Some(w) = wm.win(h) else { return };
    let inside = Rect::new(0, 0, w.client.width(), w.client.height()).contains(x, y);
    if !inside && wm.capture == 0 {
        // Of the non-client area only the menu bar and the scroll bars show in the
        // frame (captions and borders are the host window's). Windows asks the
        // window with WM_NCHITTEST; with no guest thread at hand, DefWindowProc's
        // answer is used.
        let hit = wm.nc_hit_test(h, p);
        if matches!(
            hit,
            super::window::HTMENU | super::scroll::HTHSCROLL | super::scroll::HTVSCROLL
        ) {
            nc_mouse(proc, wm, h, msg, p, time, hit);
        }
        return;
    }
    let mut message = msg;
    if matches!(msg, WM_LBUTTONDOWN | WM_RBUTTONDOWN | WM_MBUTTONDOWN) {
        let dbl = wm
            .class_of(h)
            .is_some_and(|c| c.style & wm::CS_DBLCLKS != 0);
        if dbl
            && let Some((t, lh, lm, lp)) = wm.last_click
            && lh == h
            && lm == msg
            && time.saturating_sub(t) <= DOUBLE_CLICK_MS
            && (lp.0 - p.0).abs() <= 2
            && (lp.1 - p.1).abs() <= 2
        {
            message = msg + 2;
            wm.last_click = None;
        } else {
            wm.last_click = Some((time, h, msg, p));
        }
    }
    if matches!(message, WM_LBUTTONDOWN | WM_RBUTTONDOWN | WM_MBUTTONDOWN) {
        parent_notify(proc, wm, h, message, p, time);
    }
    let wp = mk_flags(&wm.keys);
    push_input(
        proc,
        wm,
        h,
        Msg {
            hwnd: h,
            message,
            wparam: wp,
            lparam: lohi(x, y),
            time: time as u32,
            pt: p,
        },
    );
}

/// Queues the non-client twin of a mouse message (WM_NCMOUSEMOVE ...) for a point
/// on window `h`'s menu bar or scroll bars: the hit-test code in wParam, the screen
/// point in lParam.
fn nc_mouse(proc: &Process, wm: &mut wm::Wm, h: u32, msg: u32, p: (i32, i32), time: u64, hit: u32) {
    let message = match msg {
        WM_MOUSEMOVE..=WM_MBUTTONDBLCLK => msg - WM_MOUSEMOVE + WM_NCMOUSEMOVE,
        _ => return,
    };
    push_input(
        proc,
        wm,
        h,
        Msg {
            hwnd: h,
            message,
            wparam: hit,
            lparam: lohi(p.0, p.1),
            time: time as u32,
            pt: p,
        },
    );
}

pub fn GetAsyncKeyState(cx: &mut Ctx, vKey: i32) -> u32 {
    let mut wm = lock_wm(cx.proc);
    let k = (vKey & 0xff) as usize;
    let mut r = if wm.keys[k] & 0x80 != 0 { 0x8000 } else { 0 };
    if wm.pressed[k] {
        r |= 1;
        wm.pressed[k] = false;
    }
    r as i16 as i32 as u32
}

pub fn GetKeyState(cx: &mut Ctx, nVirtKey: i32) -> u32 {
    let q = lock_wm(cx.proc).queue(cx.thread.tid);
    let k = q
        .lock()
        .keys
        .get((nVirtKey & 0xff) as usize)
        .copied()
        .unwrap_or(0);
    let mut r: u16 = 0;
    if k & 0x80 != 0 {
        r |= 0xff80;
    }
    if k & 1 != 0 {
        r |= 1;
    }
    r as i16 as i32 as u32
}

pub fn GetKeyboardState(cx: &mut Ctx, lpKeyState: Ptr) -> ApiResult<bool> {
    let q = lock_wm(cx.proc).queue(cx.thread.tid);
    let keys = q.lock().keys.clone();
    cx.proc.mem.write_bytes(lpKeyState.0, &keys)?;
    Ok(true)
}

pub fn SetKeyboardState(cx: &mut Ctx, lpKeyState: Ptr) -> ApiResult<bool> {
    let mut b = vec![0u8; 256];
    cx.proc.mem.read_bytes(lpKeyState.0, &mut b)?;
    let q = lock_wm(cx.proc).queue(cx.thread.tid);
    q.lock().keys = b;
    Ok(true)
}

pub fn SetCapture(cx: &mut Ctx, hWnd: u32) -> ApiResult<Outcome> {
    let prev = std::mem::replace(&mut lock_wm(cx.proc).capture, hWnd);
    if prev != 0 && prev != hWnd {
        return fin(send(cx, prev, WM_CAPTURECHANGED, 0, hWnd, true).map(|_| prev));
    }
    Ok(Outcome::Return(prev as u64))
}

pub fn ReleaseCapture(cx: &mut Ctx) -> ApiResult<Outcome> {
    let prev = std::mem::take(&mut lock_wm(cx.proc).capture);
    if prev != 0 {
        return fin(send(cx, prev, WM_CAPTURECHANGED, 0, 0, true).map(|_| true));
    }
    Ok(Outcome::Return(1))
}

pub fn GetCapture(cx: &mut Ctx) -> u32 {
    lock_wm(cx.proc).capture
}

pub fn GetCursorPos(cx: &mut Ctx, lpPoint: Ptr) -> ApiResult<bool> {
    let (x, y) = lock_wm(cx.proc).cursor;
    cx.proc.mem.write_u32(lpPoint.0, x as u32)?;
    cx.proc.mem.write_u32(lpPoint.0 + 4, y as u32)?;
    Ok(true)
}

/// Moves the guest's pointer (the host pointer stays where it is).
pub fn SetCursorPos(cx: &mut Ctx, X: i32, Y: i32) -> bool {
    let mut wm = lock_wm(cx.proc);
    let (mut x, mut y) = (X, Y);
    if let Some(c) = wm.clip {
        x = x.clamp(c.left, c.right - 1);
        y = y.clamp(c.top, c.bottom - 1);
    }
    wm.cursor = (x, y);
    true
}

pub fn ShowCursor(cx: &mut Ctx, bShow: bool) -> i32 {
    let mut wm = lock_wm(cx.proc);
    wm.cursor_count += if bShow { 1 } else { -1 };
    wm.cursor_count
}

pub fn ClipCursor(cx: &mut Ctx, lpRect: Ptr) -> ApiResult<bool> {
    let r = if lpRect.is_null() {
        None
    } else {
        Some(super::window::read_rect(cx, lpRect.0)?)
    };
    lock_wm(cx.proc).clip = r;
    Ok(true)
}

pub fn GetClipCursor(cx: &mut Ctx, lpRect: Ptr) -> ApiResult<bool> {
    let m = cx.proc.display.mode();
    let r = lock_wm(cx.proc)
        .clip
        .unwrap_or(Rect::new(0, 0, m.width as i32, m.height as i32));
    super::window::put_rect(cx, lpRect.0, r)?;
    Ok(true)
}

pub fn SetCursor(cx: &mut Ctx, hCursor: u32) -> u32 {
    std::mem::replace(&mut lock_wm(cx.proc).cursor_handle, hCursor)
}

pub fn GetCursor(cx: &mut Ctx) -> u32 {
    lock_wm(cx.proc).cursor_handle
}

pub fn WindowFromPoint(cx: &mut Ctx, x: i32, y: i32) -> u32 {
    lock_wm(cx.proc).window_at((x, y)).unwrap_or(0)
}

pub fn ChildWindowFromPoint(cx: &mut Ctx, hWndParent: u32, x: i32, y: i32) -> u32 {
    let wm = lock_wm(cx.proc);
    let (ox, oy) = wm.client_origin(hWndParent);
    let Some(w) = wm.win(hWndParent) else {
        return 0;
    };
    if !Rect::new(0, 0, w.client.width(), w.client.height()).contains(x, y) {
        return 0;
    }
    for &c in &w.children {
        if wm.win(c).is_some_and(|cw| cw.rect.contains(x, y)) {
            return c;
        }
    }
    let _ = (ox, oy);
    hWndParent
}

pub fn GetDoubleClickTime(_cx: &mut Ctx) -> u32 {
    DOUBLE_CLICK_MS as u32
}

pub fn SwapMouseButton(_cx: &mut Ctx, _fSwap: bool) -> bool {
    false
}

/// The character a key makes on the US layout.
pub fn vk_char(vk: u8, shift: bool, caps: bool) -> Option<u16> {
    let c = match vk {
        b'A'..=b'Z' => {
            if shift ^ caps {
                vk
            } else {
                vk + 32
            }
        }
        b'0'..=b'9' => {
            if shift {
                b")!@#$%^&*("[(vk - b'0') as usize]
            } else {
                vk
            }
        }
        0x20 => b' ',
        0x08 => 8,
        0x09 => 9,
        0x0d => 13,
        0x1b => 27,
        0x60..=0x69 => b'0' + (vk - 0x60),
        0x6a => b'*',
        0x6b => b'+',
        0x6d => b'-',
        0x6e => b'.',
        0x6f => b'/',
        0xba => {
            if shift {
                b':'
            } else {
                b';'
            }
        }
        0xbb => {
            if shift {
                b'+'
            } else {
                b'='
            }
        }
        0xbc => {
            if shift {
                b'<'
            } else {
                b','
            }
        }
        0xbd => {
            if shift {
                b'_'
            } else {
                b'-'
            }
        }
        0xbe => {
            if shift {
                b'>'
            } else {
                b'.'
            }
        }
        0xbf => {
            if shift {
                b'?'
            } else {
                b'/'
            }
        }
        0xc0 => {
            if shift {
                b'~'
            } else {
                b'`'
            }
        }
        0xdb => {
            if shift {
                b'{'
            } else {
                b'['
            }
        }
        0xdc => {
            if shift {
                b'|'
            } else {
                b'\\'
            }
        }
        0xdd => {
            if shift {
                b'}'
            } else {
                b']'
            }
        }
        0xde => {
            if shift {
                b'"'
            } else {
                b'\''
            }
        }
        _ => return None,
    };
    Some(c as u16)
}

/// TranslateMessage: WM_(SYS)KEYDOWN with a character key posts WM_(SYS)CHAR.
pub fn translate(cx: &mut Ctx, m: &Msg) -> bool {
    if !matches!(m.message, WM_KEYDOWN | WM_SYSKEYDOWN) {
        return false;
    }
    let q = lock_wm(cx.proc).queue(cx.thread.tid);
    let keys = q.lock().keys.clone();
    let down = |k: usize| keys.get(k).is_some_and(|v| v & 0x80 != 0);
    let shift = down(VK_SHIFT);
    let caps = keys.get(VK_CAPITAL).is_some_and(|v| v & 1 != 0);
    let ctrl = down(VK_CONTROL);
    let vk = m.wparam as u8;
    let Some(mut c) = vk_char(vk, shift, caps) else {
        return false;
    };
    if ctrl && !down(VK_MENU) {
        match vk {
            b'A'..=b'Z' => c = (vk - b'A' + 1) as u16,
            0xdb => c = 0x1b,
            0xdc => c = 0x1c,
            0xdd => c = 0x1d,
            0x0d => c = 10,
            0x08 => c = 0x7f,
            _ => return false,
        }
    }
    let msg = if m.message == WM_SYSKEYDOWN {
        WM_SYSCHAR
    } else {
        WM_CHAR
    };
    let q2 = lock_wm(cx.proc).win(m.hwnd).map(|w| w.tid);
    let tid = q2.unwrap_or(cx.thread.tid);
    let q = lock_wm(cx.proc).queue(tid);
    {
        let mut d = q.lock();
        // Ahead of other posted messages: the character belongs to this key press.
        d.posted.push_front(Msg {
            hwnd: m.hwnd,
            message: msg,
            wparam: c as u32,
            lparam: m.lparam,
            time: m.time,
            pt: m.pt,
        });
        d.wake = true;
    }
    wm::wake_all(cx.proc);
    true
}

pub fn TranslateMessage(cx: &mut Ctx, lpMsg: Ptr) -> ApiResult<bool> {
    let m = read_msg(cx, lpMsg.0)?;
    Ok(translate(cx, &m))
}

// ---- keyboard layout ----------------------------------------------------------------------

const MAPVK_VK_TO_VSC: u32 = 0;
const MAPVK_VSC_TO_VK: u32 = 1;
const MAPVK_VK_TO_CHAR: u32 = 2;
const MAPVK_VSC_TO_VK_EX: u32 = 3;
const MAPVK_VK_TO_VSC_EX: u32 = 4;

/// MapVirtualKey's translation in the US layout (crate::keys); 0 where the layout
/// has none, as Windows answers.
fn map_virtual_key(uCode: u32, uMapType: u32) -> ApiResult<u32> {
    let vk = u8::try_from(uCode).ok();
    Ok(match uMapType {
        MAPVK_VK_TO_VSC | MAPVK_VK_TO_VSC_EX => match vk.and_then(crate::keys::scancode) {
            // The _EX form gives extended keys their E0 prefix.
            Some((scan, true)) if uMapType == MAPVK_VK_TO_VSC_EX => 0xe000 | scan as u32,
            Some((scan, _)) => scan as u32,
            None => 0,
        },
        MAPVK_VSC_TO_VK | MAPVK_VSC_TO_VK_EX => {
            // The high byte may carry the E0 or E1 prefix (Windows Vista on).
            let scan = (uCode & 0xff) as u16;
            let vk = match uCode >> 8 {
                0 => crate::keys::layout_vk(scan, false),
                0xe0 => crate::keys::layout_vk(scan, true),
                0xe1 if scan == 0x1d => Some(0x13),
                _ => None,
            };
            match (vk, uMapType) {
                // The plain form does not tell left from right.
                (Some(0xa0 | 0xa1), MAPVK_VSC_TO_VK) => VK_SHIFT as u32,
                (Some(0xa2 | 0xa3), MAPVK_VSC_TO_VK) => VK_CONTROL as u32,
                (Some(0xa4 | 0xa5), MAPVK_VSC_TO_VK) => VK_MENU as u32,
                (Some(v), _) => v as u32,
                (None, _) => 0,
            }
        }
        MAPVK_VK_TO_CHAR => vk
            .and_then(crate::keys::unshifted_char)
            .map_or(0, |c| c as u32),
        _ => {
            return Err(ApiError::UnimplementedCase(format!(
                "MapVirtualKey: map type {uMapType}"
            )));
        }
    })
}

/// MapVirtualKeyA and W: the same answers, since every character of the US layout
/// is ASCII.
pub fn MapVirtualKey(_cx: &mut Ctx, uCode: u32, uMapType: u32) -> ApiResult<u32> {
    map_virtual_key(uCode, uMapType)
}

/// MapVirtualKeyExA and W in the US layout (0 names the current one).
pub fn MapVirtualKeyEx(_cx: &mut Ctx, uCode: u32, uMapType: u32, dwhkl: u32) -> ApiResult<u32> {
    if dwhkl != 0 && dwhkl != super::displaysettings::HKL_EN_US {
        return Err(ApiError::UnimplementedCase(format!(
            "MapVirtualKeyEx: keyboard layout {dwhkl:#010x} (only US English is installed)"
        )));
    }
    map_virtual_key(uCode, uMapType)
}

/// GetKeyNameText: the layout's name of the key of a keystroke `lParam`, cut to
/// `cchSize - 1` characters and NUL-terminated; the characters copied, 0 for a key
/// without a name (an empty string is stored) or a `cchSize` of 0 (nothing stored).
pub fn GetKeyNameText<S: GuestStr>(
    cx: &mut Ctx,
    lParam: u32,
    lpString: Ptr,
    cchSize: i32,
) -> ApiResult<i32> {
    if cchSize <= 0 {
        return Ok(0);
    }
    let name = crate::keys::key_name(lParam).unwrap_or_default();
    let n = if S::WIDE {
        let units: Vec<u16> = name.encode_utf16().collect();
        copy_truncated_w(cx.proc, lpString.0, cchSize as u32, &units)?
    } else {
        copy_truncated_a(cx.proc, lpString.0, cchSize as u32, &encode_ansi(&name))?
    };
    Ok(n as i32)
}

pub fn exports() -> Vec<ApiDef> {
    let mut v = vec![
        stdcall("MapVirtualKeyA", MapVirtualKey),
        stdcall("MapVirtualKeyW", MapVirtualKey),
        stdcall("MapVirtualKeyExA", MapVirtualKeyEx),
        stdcall("MapVirtualKeyExW", MapVirtualKeyEx),
        stdcall("GetAsyncKeyState", GetAsyncKeyState),
        stdcall("GetKeyState", GetKeyState),
        stdcall("GetKeyboardState", GetKeyboardState),
        stdcall("SetKeyboardState", SetKeyboardState),
        stdcall("SetCapture", SetCapture),
        stdcall("ReleaseCapture", ReleaseCapture),
        stdcall("GetCapture", GetCapture),
        stdcall("GetCursorPos", GetCursorPos),
        stdcall("SetCursorPos", SetCursorPos),
        stdcall("ShowCursor", ShowCursor),
        stdcall("ClipCursor", ClipCursor),
        stdcall("GetClipCursor", GetClipCursor),
        stdcall("SetCursor", SetCursor),
        stdcall("GetCursor", GetCursor),
        stdcall("WindowFromPoint", WindowFromPoint),
        stdcall("ChildWindowFromPoint", ChildWindowFromPoint),
        stdcall("GetDoubleClickTime", GetDoubleClickTime),
        stdcall("SwapMouseButton", SwapMouseButton),
        stdcall("TranslateMessage", TranslateMessage),
    ];
    v.extend(stdcall_aw![GetKeyNameText]);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_virtual_key_ex_types_and_prefixes() {
        // MapVirtualKey's documented map types; the E0/E1 prefixes of the _EX
        // forms as Windows Vista on reads and writes them.
        assert_eq!(map_virtual_key(0x25, MAPVK_VK_TO_VSC).unwrap(), 0x4b);
        assert_eq!(map_virtual_key(0x25, MAPVK_VK_TO_VSC_EX).unwrap(), 0xe04b);
        assert_eq!(map_virtual_key(0x60, MAPVK_VK_TO_VSC).unwrap(), 0x52);
        assert_eq!(map_virtual_key(0x1_0041, MAPVK_VK_TO_VSC).unwrap(), 0);
        assert_eq!(map_virtual_key(0xe01d, MAPVK_VSC_TO_VK_EX).unwrap(), 0xa3);
        assert_eq!(map_virtual_key(0xe01d, MAPVK_VSC_TO_VK).unwrap(), 0x11);
        assert_eq!(map_virtual_key(0xe035, MAPVK_VSC_TO_VK).unwrap(), 0x6f);
        assert_eq!(map_virtual_key(0xe11d, MAPVK_VSC_TO_VK).unwrap(), 0x13);
        assert_eq!(map_virtual_key(0xf01d, MAPVK_VSC_TO_VK).unwrap(), 0);
        assert_eq!(map_virtual_key(0x60, MAPVK_VK_TO_CHAR).unwrap(), '0' as u32);
        assert!(map_virtual_key(0x41, 7).is_err());
    }
}
