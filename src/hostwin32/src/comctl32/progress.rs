//! The progress bar (`msctls_progress32`): a position within a range, drawn as
//! blocks (or one smooth bar, PBS_SMOOTH) of the highlight colour in a sunken
//! frame.

use super::ccommon::{self as cc, WM_USER};
use crate::gdi32::{Rect, paint as gp};
use crate::hle::Ctx;
use crate::user32::UR;
use crate::user32::msg::*;

const PBM_SETRANGE: u32 = WM_USER + 1;
const PBM_SETPOS: u32 = WM_USER + 2;
const PBM_DELTAPOS: u32 = WM_USER + 3;
const PBM_SETSTEP: u32 = WM_USER + 4;
const PBM_STEPIT: u32 = WM_USER + 5;
const PBM_SETRANGE32: u32 = WM_USER + 6;
const PBM_GETRANGE: u32 = WM_USER + 7;
const PBM_GETPOS: u32 = WM_USER + 8;
const PBM_SETBARCOLOR: u32 = WM_USER + 9;
const PBM_SETBKCOLOR: u32 = 0x2001;
const PBS_SMOOTH: u32 = 0x1;
const PBS_VERTICAL: u32 = 0x4;

struct State {
    min: i32,
    max: i32,
    pos: i32,
    step: i32,
    bar: u32,
    bk: u32,
}

impl Default for State {
    fn default() -> Self {
        State {
            min: 0,
            max: 100,
            pos: 0,
            step: 10,
            bar: cc::CLR_DEFAULT,
            bk: cc::CLR_DEFAULT,
        }
    }
}

fn st<R>(cx: &Ctx, h: u32, f: impl FnOnce(&mut State) -> R) -> R {
    cc::with_state::<State, R>(cx, h, f)
}

fn lohi(lo: i32, hi: i32) -> u32 {
    (lo as u32 & 0xffff) | (hi as u32) << 16
}

/// Changes the position (clamped to the range) and redraws; returns the old one.
fn set_pos(cx: &Ctx, h: u32, f: impl FnOnce(&State) -> i32) -> u32 {
    let old = st(cx, h, |s| {
        let new = f(s).clamp(s.min.min(s.max), s.max.max(s.min));
        std::mem::replace(&mut s.pos, new)
    });
    cc::redraw(cx, h);
    old as u32
}

fn paint(cx: &mut Ctx, h: u32) -> UR<u32> {
    cc::paint(cx, h, |cx, hdc, w| {
        let (min, max, pos, bar, bk) = st(cx, h, |s| (s.min, s.max, s.pos, s.bar, s.bk));
        let r = Rect::new(0, 0, w.w, w.h);
        let inner = gp::draw_edge_ex(
            cx.proc,
            hdc,
            r,
            gp::BDR_SUNKENOUTER,
            gp::BF_RECT | gp::BF_ADJUST,
        )?
        .unwrap_or(r);
        let bkc = if bk == cc::CLR_DEFAULT {
            gp::sys_color(gp::COLOR_BTNFACE)
        } else {
            bk
        };
        cc::fill(cx, hdc, inner, bkc)?;
        let barc = if bar == cc::CLR_DEFAULT {
            gp::sys_color(gp::COLOR_HIGHLIGHT)
        } else {
            bar
        };
        let span = (max - min).max(1) as i64;
        let done = (pos - min).max(0) as i64;
        let vertical = w.style & PBS_VERTICAL != 0;
        let a = Rect::new(
            inner.left + 1,
            inner.top + 1,
            inner.right - 1,
            inner.bottom - 1,
        );
        let len = if vertical { a.height() } else { a.width() } as i64;
        let filled = (len * done / span) as i32;
        if w.style & PBS_SMOOTH != 0 {
            let f = if vertical {
                Rect::new(a.left, a.bottom - filled, a.right, a.bottom)
            } else {
                Rect::new(a.left, a.top, a.left + filled, a.bottom)
            };
            cc::fill(cx, hdc, f, barc)?;
        } else {
            // Blocks two thirds as long as the bar is thick, 2 pixels apart.
            let thick = if vertical { a.width() } else { a.height() };
            let block = (thick * 2 / 3).max(1);
            let mut o = 0;
            while o < filled {
                let n = block.min(filled - o).min(len as i32 - o);
                let f = if vertical {
                    Rect::new(a.left, a.bottom - o - n, a.right, a.bottom - o)
                } else {
                    Rect::new(a.left + o, a.top, a.left + o + n, a.bottom)
                };
                cc::fill(cx, hdc, f, barc)?;
                o += block + 2;
            }
        }
        Ok(())
    })
}

pub fn wndproc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    match m {
        WM_CREATE => {
            st(cx, h, |_| ());
            Ok(0)
        }
        WM_NCDESTROY => {
            cc::drop_state::<State>(cx, h);
            crate::user32::window::def_window_proc(cx, h, m, wp, lp, u)
        }
        WM_PAINT => paint(cx, h),
        WM_ERASEBKGND => Ok(1),
        WM_SETFONT => {
            cc::set_font(cx, h, wp);
            Ok(0)
        }
        WM_GETFONT => Ok(cc::win(cx, h).map_or(0, |w| w.font)),
        PBM_SETRANGE | PBM_SETRANGE32 => {
            let (lo, hi) = if m == PBM_SETRANGE {
                ((lp & 0xffff) as i32, (lp >> 16) as i32)
            } else {
                (wp as i32, lp as i32)
            };
            let old = st(cx, h, |s| {
                let old = lohi(s.min, s.max);
                s.min = lo;
                s.max = hi;
                s.pos = s.pos.clamp(lo.min(hi), hi.max(lo));
                old
            });
            cc::redraw(cx, h);
            Ok(old)
        }
        PBM_GETRANGE => {
            let (lo, hi) = st(cx, h, |s| (s.min, s.max));
            if lp != 0 {
                cx.proc.mem.write_u32(lp, lo as u32)?;
                cx.proc.mem.write_u32(lp + 4, hi as u32)?;
            }
            Ok(if wp != 0 { lo } else { hi } as u32)
        }
        PBM_SETPOS => Ok(set_pos(cx, h, |_| wp as i32)),
        PBM_DELTAPOS => Ok(set_pos(cx, h, |s| s.pos + wp as i32)),
        PBM_GETPOS => Ok(st(cx, h, |s| s.pos) as u32),
        PBM_SETSTEP => Ok(st(cx, h, |s| std::mem::replace(&mut s.step, wp as i32)) as u32),
        PBM_STEPIT => Ok(set_pos(cx, h, |s| {
            // Past the end it starts over from the beginning.
            let p = s.pos + s.step;
            if p > s.max && s.max > s.min {
                s.min + (p - s.min) % (s.max - s.min)
            } else if p < s.min && s.max > s.min {
                s.max - (s.min - p) % (s.max - s.min)
            } else {
                p
            }
        })),
        PBM_SETBARCOLOR => {
            let old = st(cx, h, |s| std::mem::replace(&mut s.bar, lp));
            cc::redraw(cx, h);
            Ok(old)
        }
        PBM_SETBKCOLOR => {
            let old = st(cx, h, |s| std::mem::replace(&mut s.bk, lp));
            cc::redraw(cx, h);
            Ok(old)
        }
        _ => crate::user32::window::def_window_proc(cx, h, m, wp, lp, u),
    }
}

pub fn exports() -> Vec<crate::hle::ApiDef> {
    vec![crate::user32::hostclass::export(
        "__winterp_ProgressWndProc",
        wndproc,
    )]
}

pub fn class() -> crate::user32::hostclass::HostClass {
    crate::user32::hostclass::HostClass {
        name: "msctls_progress32",
        export: "__winterp_ProgressWndProc",
        wndproc,
        style: 0x1 | 0x2,
        wnd_extra: 0,
        background: 0,
    }
}
