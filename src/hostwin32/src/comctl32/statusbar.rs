//! The status bar (`msctls_statusbar32`): a row of parts along the parent's bottom
//! (or top, CCS_TOP) edge, each with a text, a drawing type (SBT_*) and an icon, or
//! one "simple" part; it sizes itself from its font when the parent forwards WM_SIZE.
//! Rectangles follow Windows': parts start 2 pixels below the top, 2 pixels apart.

#![allow(non_snake_case)]

use super::ccommon::{self as cc, WM_USER};
use crate::gdi32::{Rect, paint as gp};
use crate::hle::{ApiResult, Ctx, Outcome, Ptr};
use crate::user32::msg::*;
use crate::user32::{UR, read_str};

const SB_SETTEXTA: u32 = WM_USER + 1;
const SB_GETTEXTA: u32 = WM_USER + 2;
const SB_GETTEXTLENGTHA: u32 = WM_USER + 3;
const SB_SETPARTS: u32 = WM_USER + 4;
const SB_GETPARTS: u32 = WM_USER + 6;
const SB_GETBORDERS: u32 = WM_USER + 7;
const SB_SETMINHEIGHT: u32 = WM_USER + 8;
const SB_SIMPLE: u32 = WM_USER + 9;
const SB_GETRECT: u32 = WM_USER + 10;
const SB_SETTEXTW: u32 = WM_USER + 11;
const SB_GETTEXTLENGTHW: u32 = WM_USER + 12;
const SB_GETTEXTW: u32 = WM_USER + 13;
const SB_ISSIMPLE: u32 = WM_USER + 14;
const SB_SETICON: u32 = WM_USER + 15;
const SB_GETICON: u32 = WM_USER + 20;
const SB_SETBKCOLOR: u32 = 0x2001;
const SB_SIMPLEID: u32 = 0xff;
const SBT_NOBORDERS: u32 = 0x100;
const SBT_POPOUT: u32 = 0x200;
const SBT_OWNERDRAW: u32 = 0x1000;
const SBARS_SIZEGRIP: u32 = 0x100;
const SBN_SIMPLEMODECHANGE: u32 = (-880i32) as u32;
const HTBOTTOMRIGHT: u32 = 17;
/// The borders SB_GETBORDERS reports: none left and right, 2 above and below, 2
/// between parts.
const BORDER_V: i32 = 2;
const BORDER_GAP: i32 = 2;
const MAX_PARTS: usize = 256;

#[derive(Clone, Default)]
struct Part {
    right: i32,
    text: String,
    kind: u32,
    icon: u32,
}

struct State {
    parts: Vec<Part>,
    simple: bool,
    simple_part: Part,
    min_height: i32,
    bk: u32,
}

impl Default for State {
    fn default() -> Self {
        State {
            parts: vec![Part {
                right: -1,
                ..Part::default()
            }],
            simple: false,
            simple_part: Part::default(),
            min_height: 0,
            bk: cc::CLR_DEFAULT,
        }
    }
}

fn st<R>(cx: &Ctx, h: u32, f: impl FnOnce(&mut State) -> R) -> R {
    cc::with_state::<State, R>(cx, h, f)
}

/// The bar's height: its text (or SB_SETMINHEIGHT's height) and the borders.
fn height(cx: &mut Ctx, h: u32) -> UR<i32> {
    let fh = cc::font_height(cx, h)?;
    let min = st(cx, h, |s| s.min_height);
    // At least the 20 pixels Windows gives with its 8-point GUI font.
    Ok(min.max((fh + 5).max(18)) + BORDER_V)
}

/// Part `i`'s rectangle in a bar `w` x `hgt`.
fn part_rect(s: &State, i: usize, w: i32, hgt: i32) -> Option<Rect> {
    if s.simple {
        return (i == 0 || i == SB_SIMPLEID as usize).then(|| Rect::new(0, BORDER_V, w, hgt));
    }
    let p = s.parts.get(i)?;
    let left = if i == 0 {
        0
    } else {
        let prev = s.parts[i - 1].right;
        (if prev == -1 { w } else { prev }) + BORDER_GAP
    };
    let right = if p.right == -1 { w } else { p.right };
    Some(Rect::new(left, BORDER_V, right, hgt))
}

fn layout(cx: &mut Ctx, h: u32) -> UR<()> {
    let Some(w) = cc::win(cx, h) else {
        return Ok(());
    };
    let hgt = height(cx, h)?;
    // The status bar goes to the bottom unless told CCS_TOP (0 means bottom here).
    let mut style = w.style;
    if style & 3 == 0 {
        style |= cc::CCS_BOTTOM;
    }
    let w2 = cc::Win { style, ..w };
    if let Some(r) = cc::align_in_parent(cx, &w2, hgt) {
        cc::place(cx, h, r)?;
    }
    Ok(())
}

fn set_text(cx: &mut Ctx, h: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    let idx = wp & 0xff;
    let kind = wp & 0xff00;
    let text = if kind & SBT_OWNERDRAW != 0 || lp == 0 {
        String::new()
    } else {
        read_str(cx, lp, u)?
    };
    let ok = st(cx, h, |s| {
        let part = if idx == SB_SIMPLEID {
            Some(&mut s.simple_part)
        } else {
            s.parts.get_mut(idx as usize)
        };
        match part {
            Some(p) => {
                let changed = p.text != text || p.kind != kind;
                p.text = text;
                p.kind = kind;
                (true, changed)
            }
            None => (false, false),
        }
    });
    let (ok, changed) = ok;
    if changed {
        cc::redraw(cx, h);
    }
    Ok(ok as u32)
}

fn get_text(cx: &mut Ctx, h: u32, wp: u32, lp: u32, u: bool, copy: bool) -> UR<u32> {
    let p = st(cx, h, |s| {
        if s.simple && wp == 0 {
            Some(s.simple_part.clone())
        } else {
            s.parts.get(wp as usize).cloned()
        }
    });
    let Some(p) = p else { return Ok(0) };
    let len = crate::user32::str_len(&p.text, u);
    if copy && lp != 0 {
        crate::user32::write_str(cx, lp, &p.text, u)?;
    }
    Ok((len & 0xffff) | (p.kind << 16))
}

fn draw_part(cx: &mut Ctx, hdc: u32, r: Rect, p: &Part) -> UR<()> {
    if p.kind & SBT_NOBORDERS == 0 {
        let edge = if p.kind & SBT_POPOUT != 0 {
            gp::BDR_RAISEDINNER
        } else {
            gp::BDR_SUNKENOUTER
        };
        gp::draw_edge_ex(cx.proc, hdc, r, edge, gp::BF_RECT)?;
    }
    let mut x = r.left + 3;
    if p.icon != 0 {
        let sz = (r.height() - 4).clamp(0, 16);
        crate::user32::call_export(
            cx,
            "USER32.dll",
            "DrawIconEx",
            &[
                hdc,
                x as u32,
                (r.top + (r.height() - sz) / 2) as u32,
                p.icon,
                sz as u32,
                sz as u32,
                0,
                0,
                3,
            ],
        )?;
        x += sz + 2;
    }
    if p.kind & SBT_OWNERDRAW == 0 && !p.text.is_empty() {
        // A tab starts centred text, a second one right-aligned text.
        let mut pieces = p.text.splitn(3, '\t');
        let inner = Rect::new(x, r.top + 1, r.right - 3, r.bottom - 1);
        let flags = gp::DT_SINGLELINE | gp::DT_VCENTER | gp::DT_NOPREFIX;
        for (k, fmt) in [gp::DT_LEFT, gp::DT_CENTER, gp::DT_RIGHT]
            .iter()
            .enumerate()
        {
            if let Some(t) = pieces.next()
                && !t.is_empty()
            {
                let _ = k;
                gp::draw_text(cx.proc, hdc, t, inner, flags | fmt);
            }
        }
    }
    Ok(())
}

fn paint(cx: &mut Ctx, h: u32) -> UR<u32> {
    cc::paint(cx, h, |cx, hdc, w| {
        let (bk, simple, parts, sp) = st(cx, h, |s| {
            (s.bk, s.simple, s.parts.clone(), s.simple_part.clone())
        });
        let bg = if bk == cc::CLR_DEFAULT {
            gp::sys_color(gp::COLOR_BTNFACE)
        } else {
            bk
        };
        cc::fill(cx, hdc, Rect::new(0, 0, w.w, w.h), bg)?;
        let s = State {
            parts: parts.clone(),
            simple,
            simple_part: sp.clone(),
            min_height: 0,
            bk,
        };
        if simple {
            let r = Rect::new(0, BORDER_V, w.w, w.h);
            draw_part(cx, hdc, r, &sp)?;
        } else {
            for (i, p) in parts.iter().enumerate() {
                if let Some(r) = part_rect(&s, i, w.w, w.h) {
                    draw_part(cx, hdc, r, p)?;
                }
            }
        }
        if w.style & SBARS_SIZEGRIP != 0 {
            // Three diagonal ridges in the bottom-right corner.
            let (rx, by) = (w.w - 1, w.h - 1);
            for k in 0..3 {
                let o = 3 + 4 * k;
                for d in 0..2 {
                    let c = if d == 0 {
                        gp::sys_color(gp::COLOR_BTNHIGHLIGHT)
                    } else {
                        gp::sys_color(gp::COLOR_BTNSHADOW)
                    };
                    for t in 0..=o + d {
                        let (x, y) = (rx - (o + d) + t, by - t);
                        cc::fill(cx, hdc, Rect::new(x, y, x + 1, y + 1), c)?;
                    }
                }
            }
        }
        Ok(())
    })
}

pub fn wndproc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    match m {
        WM_CREATE => {
            st(cx, h, |_| ());
            if let Some(w) = cc::win(cx, h)
                && !w.text.is_empty()
            {
                let t = w.text.clone();
                st(cx, h, |s| s.parts[0].text = t);
            }
            layout(cx, h)?;
            Ok(0)
        }
        WM_NCDESTROY => {
            cc::drop_state::<State>(cx, h);
            crate::user32::window::def_window_proc(cx, h, m, wp, lp, u)
        }
        WM_SIZE => {
            layout(cx, h)?;
            Ok(0)
        }
        WM_PAINT => paint(cx, h),
        WM_ERASEBKGND => Ok(1),
        WM_SETFONT => {
            cc::set_font(cx, h, wp);
            layout(cx, h)?;
            if lp != 0 {
                cc::redraw(cx, h);
            }
            Ok(0)
        }
        WM_GETFONT => Ok(cc::win(cx, h).map_or(0, |w| w.font)),
        WM_SETTEXT => {
            let r = crate::user32::window::def_window_proc(cx, h, m, wp, lp, u)?;
            let t = cc::win(cx, h).map(|w| w.text).unwrap_or_default();
            st(cx, h, |s| s.parts[0].text = t);
            cc::redraw(cx, h);
            Ok(r)
        }
        WM_NCHITTEST => {
            let r = crate::user32::window::def_window_proc(cx, h, m, wp, lp, u)?;
            if let Some(w) = cc::win(cx, h)
                && w.style & SBARS_SIZEGRIP != 0
            {
                // The grip sizes the parent: tell it the point is its corner.
                let mut pt = [(lp & 0xffff) as i16 as i32, (lp >> 16) as i16 as i32];
                let wm = crate::user32::lock_wm(cx.proc);
                let (ox, oy) = wm.window_origin(h);
                pt[0] -= ox;
                pt[1] -= oy;
                if pt[0] >= w.rect.width() - w.h && pt[1] >= 0 {
                    return Ok(HTBOTTOMRIGHT);
                }
            }
            Ok(r)
        }
        SB_SETTEXTA => set_text(cx, h, wp, lp, false),
        SB_SETTEXTW => set_text(cx, h, wp, lp, true),
        SB_GETTEXTA => get_text(cx, h, wp, lp, false, true),
        SB_GETTEXTW => get_text(cx, h, wp, lp, true, true),
        SB_GETTEXTLENGTHA => get_text(cx, h, wp, lp, false, false),
        SB_GETTEXTLENGTHW => get_text(cx, h, wp, lp, true, false),
        SB_SETPARTS => {
            let n = wp as usize;
            if n == 0 || n > MAX_PARTS || lp == 0 {
                return Ok(0);
            }
            let mut rights = Vec::with_capacity(n);
            for k in 0..n as u32 {
                rights.push(cx.proc.mem.read_u32(lp + 4 * k)? as i32);
            }
            st(cx, h, |s| {
                s.parts.resize(n, Part::default());
                for (p, r) in s.parts.iter_mut().zip(rights) {
                    p.right = r;
                }
            });
            cc::redraw(cx, h);
            Ok(1)
        }
        SB_GETPARTS => {
            let parts: Vec<i32> = st(cx, h, |s| s.parts.iter().map(|p| p.right).collect());
            if lp != 0 {
                for (k, r) in parts.iter().take(wp as usize).enumerate() {
                    cx.proc.mem.write_u32(lp + 4 * k as u32, *r as u32)?;
                }
            }
            Ok(parts.len() as u32)
        }
        SB_GETBORDERS => {
            if lp == 0 {
                return Ok(0);
            }
            for (k, v) in [0, BORDER_V, BORDER_GAP].iter().enumerate() {
                cx.proc.mem.write_u32(lp + 4 * k as u32, *v as u32)?;
            }
            Ok(1)
        }
        SB_SETMINHEIGHT => {
            st(cx, h, |s| s.min_height = wp as i32);
            Ok(0)
        }
        SB_SIMPLE => {
            st(cx, h, |s| s.simple = wp != 0);
            cc::notify(cx, h, SBN_SIMPLEMODECHANGE, &[])?;
            cc::redraw(cx, h);
            Ok(0)
        }
        SB_ISSIMPLE => Ok(st(cx, h, |s| s.simple) as u32),
        SB_GETRECT => {
            let (w, hgt) = cc::client_size(cx, h);
            let r = st(cx, h, |s| part_rect(s, wp as usize, w, hgt));
            match r {
                Some(r) if lp != 0 => {
                    cc::write_rect(cx, lp, r)?;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
        SB_SETICON => {
            let ok = st(cx, h, |s| {
                let p = if wp == u32::MAX {
                    Some(&mut s.simple_part)
                } else {
                    s.parts.get_mut(wp as usize)
                };
                p.map(|p| p.icon = lp).is_some()
            });
            cc::redraw(cx, h);
            Ok(ok as u32)
        }
        SB_GETICON => Ok(st(cx, h, |s| {
            if wp == u32::MAX {
                s.simple_part.icon
            } else {
                s.parts.get(wp as usize).map_or(0, |p| p.icon)
            }
        })),
        SB_SETBKCOLOR => {
            let old = st(cx, h, |s| std::mem::replace(&mut s.bk, lp));
            cc::redraw(cx, h);
            Ok(old)
        }
        _ => crate::user32::window::def_window_proc(cx, h, m, wp, lp, u),
    }
}

fn create(
    cx: &mut Ctx,
    style: u32,
    text: u32,
    parent: u32,
    id: u32,
    u: bool,
) -> ApiResult<Outcome> {
    let class_name = "msctls_statusbar32";
    let (p, esp) = crate::user32::stack_alloc(cx, 64);
    let r = (|| -> UR<u32> {
        crate::user32::write_str(cx, p, class_name, u)?;
        let a = crate::user32::window::Create {
            exstyle: 0,
            class: crate::user32::NameOrId::Name(class_name.into()),
            class_ptr: p,
            name_ptr: text,
            style,
            x: 0,
            y: 0,
            w: 0,
            h: 0,
            parent,
            menu: id,
            instance: 0,
            param: 0,
            unicode: u,
        };
        crate::user32::window::create_window(cx, a)
    })();
    crate::user32::stack_free(cx, esp);
    crate::user32::fin(r)
}

pub fn CreateStatusWindowA(
    cx: &mut Ctx,
    style: u32,
    lpszText: u32,
    hwndParent: u32,
    wID: u32,
) -> ApiResult<Outcome> {
    create(cx, style, lpszText, hwndParent, wID, false)
}

pub fn CreateStatusWindowW(
    cx: &mut Ctx,
    style: u32,
    lpszText: u32,
    hwndParent: u32,
    wID: u32,
) -> ApiResult<Outcome> {
    create(cx, style, lpszText, hwndParent, wID, true)
}

fn draw_status_text(
    cx: &mut Ctx,
    hdc: u32,
    lprc: Ptr,
    text: u32,
    flags: u32,
    u: bool,
) -> ApiResult<()> {
    if lprc.is_null() {
        return Ok(());
    }
    let r = gp::read_rect(cx.proc, lprc.0)?;
    let t = if text == 0 {
        String::new()
    } else {
        read_str(cx, text, u)?
    };
    let p = Part {
        right: r.right,
        text: t,
        kind: flags & 0xff00,
        icon: 0,
    };
    match draw_part(cx, hdc, r, &p) {
        Ok(()) => Ok(()),
        Err(crate::user32::Flow::Err(e)) => Err(e),
        Err(crate::user32::Flow::End(_)) => Ok(()),
    }
}

pub fn DrawStatusTextA(
    cx: &mut Ctx,
    hDC: u32,
    lprc: Ptr,
    pszText: u32,
    uFlags: u32,
) -> ApiResult<()> {
    draw_status_text(cx, hDC, lprc, pszText, uFlags, false)
}

pub fn DrawStatusTextW(
    cx: &mut Ctx,
    hDC: u32,
    lprc: Ptr,
    pszText: u32,
    uFlags: u32,
) -> ApiResult<()> {
    draw_status_text(cx, hDC, lprc, pszText, uFlags, true)
}

pub fn exports() -> Vec<crate::hle::ApiDef> {
    use crate::hle::stdcall;
    vec![
        crate::user32::hostclass::export("__winterp_StatusWindowProc", wndproc),
        stdcall("CreateStatusWindowA", CreateStatusWindowA).ordinal(6),
        stdcall("CreateStatusWindow", CreateStatusWindowA),
        stdcall("CreateStatusWindowW", CreateStatusWindowW),
        stdcall("DrawStatusTextA", DrawStatusTextA).ordinal(5),
        stdcall("DrawStatusText", DrawStatusTextA),
        stdcall("DrawStatusTextW", DrawStatusTextW),
    ]
}

pub fn class() -> crate::user32::hostclass::HostClass {
    crate::user32::hostclass::HostClass {
        name: "msctls_statusbar32",
        export: "__winterp_StatusWindowProc",
        wndproc,
        style: 0x8 | 0x1 | 0x2, // CS_DBLCLKS | CS_VREDRAW | CS_HREDRAW
        wnd_extra: 0,
        background: 0,
    }
}
