//! The up-down control (`msctls_updown32`): a pair of arrow buttons stepping a
//! position within a range, optionally attached to a buddy window (placed at its
//! right or left edge, which it shortens) whose text shows the position
//! (UDS_SETBUDDYINT). A click asks the parent with UDN_DELTAPOS, then sends it
//! WM_VSCROLL (WM_HSCROLL for UDS_HORZ) with SB_THUMBPOSITION.

#![allow(non_snake_case)]

use super::ccommon::{self as cc, WM_USER};
use crate::gdi32::{Rect, paint as gp};
use crate::hle::{ApiResult, Ctx, Outcome};
use crate::user32::msg::*;
use crate::user32::{UR, lock_wm};

const UDM_SETRANGE: u32 = WM_USER + 101;
const UDM_GETRANGE: u32 = WM_USER + 102;
const UDM_SETPOS: u32 = WM_USER + 103;
const UDM_GETPOS: u32 = WM_USER + 104;
const UDM_SETBUDDY: u32 = WM_USER + 105;
const UDM_GETBUDDY: u32 = WM_USER + 106;
const UDM_SETACCEL: u32 = WM_USER + 107;
const UDM_GETACCEL: u32 = WM_USER + 108;
const UDM_SETBASE: u32 = WM_USER + 109;
const UDM_GETBASE: u32 = WM_USER + 110;
const UDM_SETRANGE32: u32 = WM_USER + 111;
const UDM_GETRANGE32: u32 = WM_USER + 112;
const UDM_SETPOS32: u32 = WM_USER + 113;
const UDM_GETPOS32: u32 = WM_USER + 114;
const UDS_WRAP: u32 = 0x1;
const UDS_SETBUDDYINT: u32 = 0x2;
const UDS_ALIGNRIGHT: u32 = 0x4;
const UDS_ALIGNLEFT: u32 = 0x8;
const UDS_AUTOBUDDY: u32 = 0x10;
const UDS_HORZ: u32 = 0x40;
const UDS_NOTHOUSANDS: u32 = 0x80;
const UDN_DELTAPOS: u32 = (-722i32) as u32;
const SB_THUMBPOSITION: u32 = 4;
const SB_ENDSCROLL: u32 = 8;
const WS_BORDER: u32 = 0x0080_0000;
const WS_EX_CLIENTEDGE: u32 = 0x200;
/// The width of an up-down control created without one (SM_CXVSCROLL on Windows 98).
const DEFAULT_WIDTH: i32 = 16;
/// How far the control overlaps a bordered buddy: the border is shared.
const BUDDY_BORDER: i32 = 2;

struct State {
    lower: i32,
    upper: i32,
    pos: i32,
    buddy: u32,
    base: u32,
    accel: Vec<(u32, u32)>,
    /// The arrow held down: 1 up, -1 down, 0 none.
    pressed: i32,
}

impl Default for State {
    fn default() -> Self {
        State {
            lower: 100,
            upper: 0,
            pos: 0,
            buddy: 0,
            base: 10,
            accel: vec![(0, 1)],
            pressed: 0,
        }
    }
}

fn st<R>(cx: &Ctx, h: u32, f: impl FnOnce(&mut State) -> R) -> R {
    cc::with_state::<State, R>(cx, h, f)
}

fn in_range(s: &State, v: i32) -> i32 {
    v.clamp(s.lower.min(s.upper), s.lower.max(s.upper))
}

fn format_pos(v: i32, base: u32, thousands: bool) -> String {
    if base == 16 {
        return format!("0x{:04X}", v as u32);
    }
    let digits = v.unsigned_abs().to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if thousands && k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0 { format!("-{out}") } else { out }
}

/// Writes the position into the buddy's text (UDS_SETBUDDYINT).
fn update_buddy(cx: &mut Ctx, h: u32) -> UR<()> {
    let Some(w) = cc::win(cx, h) else {
        return Ok(());
    };
    let (buddy, pos, base) = st(cx, h, |s| (s.buddy, s.pos, s.base));
    if buddy == 0 || w.style & UDS_SETBUDDYINT == 0 {
        return Ok(());
    }
    let text = format_pos(pos, base, w.style & UDS_NOTHOUSANDS == 0);
    let (p, esp) = crate::user32::stack_alloc(cx, 64);
    let r = (|| -> UR<()> {
        crate::user32::write_str(cx, p, &text, true)?;
        send(cx, buddy, WM_SETTEXT, 0, p, true)?;
        Ok(())
    })();
    crate::user32::stack_free(cx, esp);
    r
}

/// The position, read back from the buddy's text when it shows it.
fn current_pos(cx: &mut Ctx, h: u32) -> UR<(i32, bool)> {
    let Some(w) = cc::win(cx, h) else {
        return Ok((0, true));
    };
    let (buddy, pos) = st(cx, h, |s| (s.buddy, s.pos));
    if buddy == 0 || w.style & UDS_SETBUDDYINT == 0 {
        return Ok((pos, false));
    }
    let text = lock_wm(cx.proc).win(buddy).map(|b| b.text.replace(',', ""));
    let parsed = text.as_deref().map(str::trim).and_then(|t| {
        if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            i32::from_str_radix(hex, 16).ok()
        } else {
            t.parse::<i32>().ok()
        }
    });
    match parsed {
        Some(v) => {
            let ok = st(cx, h, |s| {
                let inside = in_range(s, v) == v;
                if inside {
                    s.pos = v;
                }
                inside
            });
            Ok((st(cx, h, |s| s.pos), !ok))
        }
        None => Ok((pos, true)),
    }
}

/// Attaches the buddy and, with UDS_ALIGNLEFT/RIGHT, moves the control to its edge.
fn set_buddy(cx: &mut Ctx, h: u32, buddy: u32) -> UR<u32> {
    let old = st(cx, h, |s| std::mem::replace(&mut s.buddy, buddy));
    let Some(w) = cc::win(cx, h) else {
        return Ok(old);
    };
    if buddy == 0 || w.style & (UDS_ALIGNLEFT | UDS_ALIGNRIGHT) == 0 {
        return Ok(old);
    }
    let Some(b) = cc::win(cx, buddy) else {
        return Ok(old);
    };
    let width = if w.rect.width() > 0 {
        w.rect.width()
    } else {
        DEFAULT_WIDTH
    };
    let overlap = if b.style & WS_BORDER != 0 || b.exstyle & WS_EX_CLIENTEDGE != 0 {
        BUDDY_BORDER
    } else {
        0
    };
    let br = b.rect;
    if w.style & UDS_ALIGNRIGHT != 0 {
        let nb = Rect::new(br.left, br.top, br.right - width, br.bottom);
        cc::place(cx, buddy, nb)?;
        let x = nb.right - overlap;
        cc::place(cx, h, Rect::new(x, br.top, x + width, br.bottom))?;
    } else {
        let nb = Rect::new(br.left + width, br.top, br.right, br.bottom);
        cc::place(cx, buddy, nb)?;
        let x = nb.left + overlap - width;
        cc::place(cx, h, Rect::new(x, br.top, x + width, br.bottom))?;
    }
    Ok(old)
}

/// One step up (+1) or down (-1): UDN_DELTAPOS, the new position, the buddy's text
/// and the scroll message to the parent.
fn step(cx: &mut Ctx, h: u32, dir: i32) -> UR<()> {
    let Some(w) = cc::win(cx, h) else {
        return Ok(());
    };
    let (pos, _) = current_pos(cx, h)?;
    let inc = st(cx, h, |s| s.accel.first().map_or(1, |a| a.1 as i32));
    // The position grows towards "upper", whichever way the range runs.
    let (lower, upper) = st(cx, h, |s| (s.lower, s.upper));
    let delta = if upper >= lower {
        dir * inc
    } else {
        -dir * inc
    };
    let (r, out) = cc::notify(cx, h, UDN_DELTAPOS, &[pos as u32, delta as u32])?;
    if r != 0 {
        return Ok(());
    }
    let delta = out[1] as i32;
    let new = pos + delta;
    let new = st(cx, h, |s| {
        let (lo, hi) = (s.lower.min(s.upper), s.lower.max(s.upper));
        let v = if new > hi {
            if w.style & UDS_WRAP != 0 { lo } else { hi }
        } else if new < lo {
            if w.style & UDS_WRAP != 0 { hi } else { lo }
        } else {
            new
        };
        s.pos = v;
        v
    });
    update_buddy(cx, h)?;
    let msg = if w.style & UDS_HORZ != 0 {
        WM_HSCROLL
    } else {
        WM_VSCROLL
    };
    if w.parent != 0 {
        send(
            cx,
            w.parent,
            msg,
            SB_THUMBPOSITION | (new as u32) << 16,
            h,
            true,
        )?;
        send(
            cx,
            w.parent,
            msg,
            SB_ENDSCROLL | (new as u32) << 16,
            h,
            true,
        )?;
    }
    cc::redraw(cx, h);
    Ok(())
}

fn arrow(cx: &Ctx, hdc: u32, r: Rect, dir: i32, horz: bool, enabled: bool) -> UR<()> {
    let c = if enabled {
        gp::sys_color(gp::COLOR_BTNTEXT)
    } else {
        gp::sys_color(gp::COLOR_GRAYTEXT)
    };
    let (cxm, cym) = (r.left + r.width() / 2, r.top + r.height() / 2);
    let size = ((if horz { r.height() } else { r.width() }) / 4).clamp(1, 4);
    for k in 0..size {
        let half = k;
        if horz {
            let x = if dir > 0 {
                cxm - size / 2 + k
            } else {
                cxm + size / 2 - k
            };
            cc::fill(cx, hdc, Rect::new(x, cym - half, x + 1, cym + half + 1), c)?;
        } else {
            let y = if dir > 0 {
                cym - size / 2 + k
            } else {
                cym + size / 2 - k
            };
            cc::fill(cx, hdc, Rect::new(cxm - half, y, cxm + half + 1, y + 1), c)?;
        }
    }
    Ok(())
}

fn halves(w: i32, h: i32, horz: bool) -> (Rect, Rect) {
    if horz {
        (Rect::new(w / 2, 0, w, h), Rect::new(0, 0, w / 2, h))
    } else {
        (Rect::new(0, 0, w, h / 2), Rect::new(0, h / 2, w, h))
    }
}

pub fn wndproc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    match m {
        WM_CREATE => {
            st(cx, h, |_| ());
            if let Some(w) = cc::win(cx, h)
                && w.style & UDS_AUTOBUDDY != 0
            {
                // The previous sibling in Z order (the window created before it).
                let prev = {
                    let wm = lock_wm(cx.proc);
                    wm.win(w.parent).and_then(|p| {
                        let i = p.children.iter().position(|&c| c == h)?;
                        p.children.get(i + 1).copied()
                    })
                };
                if let Some(b) = prev {
                    set_buddy(cx, h, b)?;
                }
            }
            Ok(0)
        }
        WM_NCDESTROY => {
            cc::drop_state::<State>(cx, h);
            crate::user32::window::def_window_proc(cx, h, m, wp, lp, u)
        }
        WM_PAINT => cc::paint(cx, h, |cx, hdc, w| {
            let horz = w.style & UDS_HORZ != 0;
            let (up, down) = halves(w.w, w.h, horz);
            let pressed = st(cx, h, |s| s.pressed);
            let enabled = w.style & crate::user32::wm::WS_DISABLED == 0;
            for (r, d) in [(up, 1), (down, -1)] {
                cc::fill(cx, hdc, r, gp::sys_color(gp::COLOR_BTNFACE))?;
                let edge = if pressed == d {
                    gp::EDGE_SUNKEN
                } else {
                    gp::EDGE_RAISED
                };
                gp::draw_edge_ex(cx.proc, hdc, r, edge, gp::BF_RECT)?;
                arrow(cx, hdc, r, d, horz, enabled)?;
            }
            Ok(())
        }),
        WM_ERASEBKGND => Ok(1),
        WM_LBUTTONDOWN => {
            let Some(w) = cc::win(cx, h) else {
                return Ok(0);
            };
            let (x, y) = ((lp & 0xffff) as i16 as i32, (lp >> 16) as i16 as i32);
            let (up, _) = halves(w.w, w.h, w.style & UDS_HORZ != 0);
            let dir = if up.contains(x, y) { 1 } else { -1 };
            st(cx, h, |s| s.pressed = dir);
            step(cx, h, dir)?;
            Ok(0)
        }
        WM_LBUTTONUP => {
            st(cx, h, |s| s.pressed = 0);
            cc::redraw(cx, h);
            Ok(0)
        }
        UDM_SETRANGE => {
            st(cx, h, |s| {
                s.upper = (lp & 0xffff) as i16 as i32;
                s.lower = (lp >> 16) as i16 as i32;
            });
            Ok(0)
        }
        UDM_SETRANGE32 => {
            st(cx, h, |s| {
                s.lower = wp as i32;
                s.upper = lp as i32;
            });
            Ok(0)
        }
        UDM_GETRANGE => Ok(st(cx, h, |s| {
            (s.upper as u32 & 0xffff) | (s.lower as u32) << 16
        })),
        UDM_GETRANGE32 => {
            let (lo, hi) = st(cx, h, |s| (s.lower, s.upper));
            if wp != 0 {
                cx.proc.mem.write_u32(wp, lo as u32)?;
            }
            if lp != 0 {
                cx.proc.mem.write_u32(lp, hi as u32)?;
            }
            Ok(0)
        }
        UDM_SETPOS | UDM_SETPOS32 => {
            let v = if m == UDM_SETPOS {
                (lp & 0xffff) as i16 as i32
            } else {
                lp as i32
            };
            let old = st(cx, h, |s| {
                let v = in_range(s, v);
                std::mem::replace(&mut s.pos, v)
            });
            update_buddy(cx, h)?;
            Ok(if m == UDM_SETPOS {
                old as u32 & 0xffff
            } else {
                old as u32
            })
        }
        UDM_GETPOS => {
            let (p, err) = current_pos(cx, h)?;
            Ok((p as u32 & 0xffff) | if err { 0x1_0000 } else { 0 })
        }
        UDM_GETPOS32 => {
            let (p, err) = current_pos(cx, h)?;
            if lp != 0 {
                cx.proc.mem.write_u32(lp, err as u32)?;
            }
            Ok(p as u32)
        }
        UDM_SETBUDDY => set_buddy(cx, h, wp),
        UDM_GETBUDDY => Ok(st(cx, h, |s| s.buddy)),
        UDM_SETBASE => {
            if wp != 10 && wp != 16 {
                return Ok(0);
            }
            let old = st(cx, h, |s| std::mem::replace(&mut s.base, wp));
            update_buddy(cx, h)?;
            Ok(old)
        }
        UDM_GETBASE => Ok(st(cx, h, |s| s.base)),
        UDM_SETACCEL => {
            if lp == 0 || wp == 0 {
                return Ok(0);
            }
            let mut a = Vec::with_capacity(wp as usize);
            for k in 0..wp.min(64) {
                a.push((
                    cx.proc.mem.read_u32(lp + 8 * k)?,
                    cx.proc.mem.read_u32(lp + 8 * k + 4)?,
                ));
            }
            st(cx, h, |s| s.accel = a);
            Ok(1)
        }
        UDM_GETACCEL => {
            let a = st(cx, h, |s| s.accel.clone());
            if lp != 0 {
                for (k, (sec, inc)) in a.iter().take(wp as usize).enumerate() {
                    cx.proc.mem.write_u32(lp + 8 * k as u32, *sec)?;
                    cx.proc.mem.write_u32(lp + 8 * k as u32 + 4, *inc)?;
                }
            }
            Ok(a.len() as u32)
        }
        _ => crate::user32::window::def_window_proc(cx, h, m, wp, lp, u),
    }
}

/// CreateUpDownControl(dwStyle, x, y, cx, cy, hParent, nID, hInst, hBuddy, nUpper,
/// nLower, nPos).
pub fn CreateUpDownControl(cx: &mut Ctx, a: crate::hle::Dwords<12>) -> ApiResult<Outcome> {
    let a = a.0;
    let name = "msctls_updown32";
    let (p, esp) = crate::user32::stack_alloc(cx, 64);
    let r = (|| -> UR<u32> {
        crate::user32::write_str(cx, p, name, true)?;
        let h = crate::user32::window::create_window(
            cx,
            crate::user32::window::Create {
                exstyle: 0,
                class: crate::user32::NameOrId::Name(name.into()),
                class_ptr: p,
                name_ptr: 0,
                style: a[0],
                x: a[1] as i32,
                y: a[2] as i32,
                w: a[3] as i32,
                h: a[4] as i32,
                parent: a[5],
                menu: a[6],
                instance: a[7],
                param: 0,
                unicode: true,
            },
        )?;
        if h == 0 {
            return Ok(0);
        }
        wndproc(
            cx,
            h,
            UDM_SETRANGE,
            0,
            (a[9] & 0xffff) | (a[10] << 16),
            true,
        )?;
        if a[8] != 0 {
            set_buddy(cx, h, a[8])?;
        }
        wndproc(cx, h, UDM_SETPOS, 0, a[11] & 0xffff, true)?;
        Ok(h)
    })();
    crate::user32::stack_free(cx, esp);
    crate::user32::fin(r)
}

pub fn exports() -> Vec<crate::hle::ApiDef> {
    vec![
        crate::user32::hostclass::export("__winterp_UpDownWndProc", wndproc),
        crate::hle::stdcall("CreateUpDownControl", CreateUpDownControl).ordinal(16),
    ]
}

pub fn class() -> crate::user32::hostclass::HostClass {
    crate::user32::hostclass::HostClass {
        name: "msctls_updown32",
        export: "__winterp_UpDownWndProc",
        wndproc,
        style: 0x8 | 0x1 | 0x2,
        wnd_extra: 0,
        background: 0,
    }
}
