//! The standard controls at a basic level, drawn with GDI32's helpers: BUTTON (push,
//! check box, radio button, group box), STATIC (text, frames; icons and bitmaps are
//! kept but not drawn), EDIT (single and multi-line typing, caret movement, the common
//! EM_ messages), LISTBOX and COMBOBOX (string lists with a selection; the combo box
//! does not drop down: clicks and arrow keys step through its items). Owner-drawn
//! list boxes (LBS_OWNERDRAWFIXED/VARIABLE) ask their parent for item heights
//! (WM_MEASUREITEM), have it draw each item (WM_DRAWITEM), sort items without
//! strings by WM_COMPAREITEM and report deleted items (WM_DELETEITEM).

use super::msg::*;
use super::window::{set_focus, sys_color_rgb};
use super::{UR, lock_wm};
use crate::gdi32::{Rect, paint as gp};
use crate::hle::{ApiDef, Ctx, Outcome, stdcall};

const BN_CLICKED: u32 = 0;
const EN_SETFOCUS: u32 = 0x100;
const EN_KILLFOCUS: u32 = 0x200;
const EN_CHANGE: u32 = 0x300;
const EN_UPDATE: u32 = 0x400;
const LBN_SELCHANGE: u32 = 1;
const LBN_DBLCLK: u32 = 2;
const CBN_SELCHANGE: u32 = 1;
const DLGC_WANTARROWS: u32 = 0x1;
const DLGC_WANTALLKEYS: u32 = 0x4;
const DLGC_HASSETSEL: u32 = 0x8;
const DLGC_DEFPUSHBUTTON: u32 = 0x10;
const DLGC_UNDEFPUSHBUTTON: u32 = 0x20;
const DLGC_RADIOBUTTON: u32 = 0x40;
const DLGC_WANTCHARS: u32 = 0x80;
const DLGC_STATIC: u32 = 0x100;
const DLGC_BUTTON: u32 = 0x2000;
const ITEM_H: i32 = 16;

fn colorref(rgb: u32) -> u32 {
    super::window::rgb_to_colorref(rgb)
}

struct Info {
    style: u32,
    id: u32,
    parent: u32,
    text: String,
    w: i32,
    h: i32,
    enabled: bool,
    focused: bool,
    ctl: super::wm::CtlState,
}

fn info(cx: &Ctx, h: u32) -> Option<Info> {
    let wm = lock_wm(cx.proc);
    let w = wm.win(h)?;
    Some(Info {
        style: w.style,
        id: w.id,
        parent: w.parent,
        text: w.text.clone(),
        w: w.client.width(),
        h: w.client.height(),
        enabled: w.style & super::wm::WS_DISABLED == 0,
        focused: wm.focus == h,
        ctl: w.ctl.clone(),
    })
}

fn with_ctl<R>(cx: &Ctx, h: u32, f: impl FnOnce(&mut super::wm::CtlState) -> R) -> Option<R> {
    lock_wm(cx.proc).win_mut(h).map(|w| f(&mut w.ctl))
}

fn redraw(cx: &Ctx, h: u32) {
    lock_wm(cx.proc).invalidate(h, None, true);
    super::wm::wake_all(cx.proc);
}

fn notify(cx: &mut Ctx, h: u32, code: u32) -> UR<()> {
    if let Some(i) = info(cx, h)
        && i.parent != 0
    {
        send(
            cx,
            i.parent,
            WM_COMMAND,
            (i.id & 0xffff) | (code << 16),
            h,
            true,
        )?;
    }
    Ok(())
}

/// Paints through BeginPaint/EndPaint with the control's font, transparent text.
fn paint(cx: &mut Ctx, h: u32, f: impl FnOnce(&mut Ctx, u32, &Info) -> UR<()>) -> UR<u32> {
    let (ps, esp) = super::stack_alloc(cx, 64);
    let r = (|| -> UR<()> {
        let hdc = super::paint::begin_paint(cx, h, ps)?;
        if let Some(i) = info(cx, h) {
            let font = if i.ctl.font != 0 {
                i.ctl.font
            } else {
                super::call_export(cx, "GDI32.dll", "GetStockObject", &[17])?.unwrap_or(0)
            };
            if font != 0 {
                super::call_export(cx, "GDI32.dll", "SelectObject", &[hdc, font])?;
            }
            super::call_export(cx, "GDI32.dll", "SetBkMode", &[hdc, 1])?;
            let fg = if i.enabled { 0 } else { sys_color_rgb(17) };
            super::call_export(cx, "GDI32.dll", "SetTextColor", &[hdc, colorref(fg)])?;
            f(cx, hdc, &i)?;
        }
        super::paint::end_paint(cx, h, ps)
    })();
    super::stack_free(cx, esp);
    r?;
    Ok(0)
}

fn fill(cx: &Ctx, hdc: u32, r: Rect, rgb: u32) -> UR<()> {
    gp::fill_rect(cx.proc, hdc, r, colorref(rgb))?;
    Ok(())
}

fn common(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    match m {
        WM_SETTEXT => {
            let r = super::window::def_window_proc(cx, h, m, wp, lp, u)?;
            redraw(cx, h);
            Ok(r)
        }
        WM_ENABLE | WM_SETFOCUS | WM_KILLFOCUS => {
            redraw(cx, h);
            Ok(0)
        }
        WM_SETFONT => {
            with_ctl(cx, h, |c| c.font = wp);
            if lp != 0 {
                redraw(cx, h);
            }
            Ok(0)
        }
        WM_GETFONT => Ok(with_ctl(cx, h, |c| c.font).unwrap_or(0)),
        _ => super::window::def_window_proc(cx, h, m, wp, lp, u),
    }
}

// ---- BUTTON -----------------------------------------------------------------------------

const BM_GETCHECK: u32 = 0xf0;
const BM_SETCHECK: u32 = 0xf1;
const BM_GETSTATE: u32 = 0xf2;
const BM_SETSTATE: u32 = 0xf3;
const BM_SETSTYLE: u32 = 0xf4;
const BM_CLICK: u32 = 0xf5;
const BM_GETIMAGE: u32 = 0xf6;
const BM_SETIMAGE: u32 = 0xf7;

fn button_kind(style: u32) -> u32 {
    style & 0xf
}

/// A click: automatic check boxes and radio buttons change state, then BN_CLICKED.
fn button_click(cx: &mut Ctx, h: u32) -> UR<()> {
    let Some(i) = info(cx, h) else { return Ok(()) };
    match button_kind(i.style) {
        3 => {
            with_ctl(cx, h, |c| c.check = (c.check + 1) % 2);
        }
        6 => {
            with_ctl(cx, h, |c| c.check = (c.check + 1) % 3);
        }
        9 => {
            // Automatic radio buttons: this one on, the others of its group off.
            let sibs: Vec<u32> = {
                let wm = lock_wm(cx.proc);
                wm.win(i.parent)
                    .map(|p| p.children.clone())
                    .unwrap_or_default()
            };
            let group = group_of(cx, &sibs, h);
            for s in group {
                let is_radio = lock_wm_class_is(cx, s, "Button")
                    && lock_wm(cx.proc)
                        .win(s)
                        .is_some_and(|w| button_kind(w.style) == 9);
                if is_radio {
                    with_ctl(cx, s, |c| c.check = (s == h) as u32);
                    redraw(cx, s);
                }
            }
        }
        _ => {}
    }
    redraw(cx, h);
    notify(cx, h, BN_CLICKED)
}

fn lock_wm_class_is(cx: &Ctx, h: u32, name: &str) -> bool {
    lock_wm(cx.proc)
        .class_of(h)
        .is_some_and(|c| c.name.eq_ignore_ascii_case(name))
}

/// The controls of `h`'s group (WS_GROUP starts a group) among `sibs`.
pub fn group_of(cx: &Ctx, sibs: &[u32], h: u32) -> Vec<u32> {
    let wm = lock_wm(cx.proc);
    let Some(pos) = sibs.iter().position(|&s| s == h) else {
        return vec![h];
    };
    let is_group = |s: u32| {
        wm.win(s)
            .is_some_and(|w| w.style & super::wm::WS_GROUP != 0)
    };
    let mut start = pos;
    while start > 0 && !is_group(sibs[start]) {
        start -= 1;
    }
    let mut end = pos + 1;
    while end < sibs.len() && !is_group(sibs[end]) {
        end += 1;
    }
    sibs[start..end].to_vec()
}

pub fn button_proc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    match m {
        WM_PAINT => paint(cx, h, |cx, hdc, i| {
            let r = Rect::new(0, 0, i.w, i.h);
            let kind = button_kind(i.style);
            match kind {
                0 | 1 => {
                    fill(cx, hdc, r, sys_color_rgb(15))?;
                    let mut rr = r;
                    if kind == 1 || i.focused {
                        gp::frame_rect(cx.proc, hdc, rr, 0)?;
                        rr = Rect::new(rr.left + 1, rr.top + 1, rr.right - 1, rr.bottom - 1);
                    }
                    let edge = if i.ctl.pushed {
                        gp::EDGE_SUNKEN
                    } else {
                        gp::EDGE_RAISED
                    };
                    gp::draw_edge_ex(cx.proc, hdc, rr, edge, gp::BF_RECT)?;
                    let t = if i.ctl.pushed { rr.offset(1, 1) } else { rr };
                    gp::draw_text(
                        cx.proc,
                        hdc,
                        &i.text,
                        t,
                        gp::DT_CENTER | gp::DT_VCENTER | gp::DT_SINGLELINE,
                    );
                }
                7 => {
                    fill(cx, hdc, r, sys_color_rgb(15))?;
                    let fr = Rect::new(0, 6, i.w, i.h);
                    gp::draw_edge_ex(cx.proc, hdc, fr, gp::EDGE_ETCHED, gp::BF_RECT)?;
                    if !i.text.is_empty() {
                        let (tw, th) = gp::text_extent(cx.proc, hdc, &i.text);
                        fill(cx, hdc, Rect::new(6, 0, 10 + tw, th), sys_color_rgb(15))?;
                        gp::text_out(cx.proc, hdc, 8, 0, &i.text)?;
                    }
                }
                _ => {
                    fill(cx, hdc, r, sys_color_rgb(15))?;
                    let y = (i.h - 13) / 2;
                    let b = Rect::new(0, y, 13, y + 13);
                    fill(cx, hdc, b, 0xffffff)?;
                    gp::draw_edge_ex(cx.proc, hdc, b, gp::EDGE_SUNKEN, gp::BF_RECT)?;
                    let radio = matches!(kind, 4 | 9);
                    if i.ctl.check == 1 {
                        if radio {
                            fill(cx, hdc, Rect::new(4, y + 4, 9, y + 9), 0)?;
                        } else {
                            for k in 0..5 {
                                fill(
                                    cx,
                                    hdc,
                                    Rect::new(3 + k, y + 5 + k.min(2), 4 + k, y + 8 + k.min(2)),
                                    0,
                                )?;
                                fill(
                                    cx,
                                    hdc,
                                    Rect::new(8 + k.min(1), y + 7 - k, 9 + k.min(1), y + 8 - k),
                                    0,
                                )?;
                            }
                        }
                    } else if i.ctl.check == 2 {
                        fill(cx, hdc, Rect::new(3, y + 3, 10, y + 10), sys_color_rgb(16))?;
                    }
                    let t = Rect::new(17, 0, i.w, i.h);
                    gp::draw_text(cx.proc, hdc, &i.text, t, gp::DT_VCENTER | gp::DT_SINGLELINE);
                }
            }
            Ok(())
        }),
        WM_LBUTTONDOWN | WM_LBUTTONDBLCLK => {
            with_ctl(cx, h, |c| c.pushed = true);
            lock_wm(cx.proc).capture = h;
            set_focus(cx, h)?;
            redraw(cx, h);
            Ok(0)
        }
        WM_LBUTTONUP => {
            let was = with_ctl(cx, h, |c| std::mem::replace(&mut c.pushed, false)).unwrap_or(false);
            {
                let mut wm = lock_wm(cx.proc);
                if wm.capture == h {
                    wm.capture = 0;
                }
            }
            redraw(cx, h);
            let (x, y) = ((lp & 0xffff) as i16 as i32, (lp >> 16) as i16 as i32);
            let inside = info(cx, h).is_some_and(|i| Rect::new(0, 0, i.w, i.h).contains(x, y));
            if was && inside {
                button_click(cx, h)?;
            }
            Ok(0)
        }
        WM_KEYDOWN if wp == 0x20 => {
            with_ctl(cx, h, |c| c.pushed = true);
            redraw(cx, h);
            Ok(0)
        }
        WM_KEYUP if wp == 0x20 => {
            let was = with_ctl(cx, h, |c| std::mem::replace(&mut c.pushed, false)).unwrap_or(false);
            if was {
                button_click(cx, h)?;
            }
            Ok(0)
        }
        BM_CLICK => {
            button_click(cx, h)?;
            Ok(0)
        }
        BM_GETCHECK => Ok(with_ctl(cx, h, |c| c.check).unwrap_or(0)),
        BM_SETCHECK => {
            with_ctl(cx, h, |c| c.check = wp);
            redraw(cx, h);
            Ok(0)
        }
        BM_GETSTATE => Ok(with_ctl(cx, h, |c| c.check | if c.pushed { 4 } else { 0 }).unwrap_or(0)),
        BM_SETSTATE => {
            with_ctl(cx, h, |c| c.pushed = wp != 0);
            redraw(cx, h);
            Ok(0)
        }
        BM_SETSTYLE => {
            if let Some(w) = lock_wm(cx.proc).win_mut(h) {
                w.style = (w.style & !0xffff) | (wp & 0xffff);
            }
            if lp != 0 {
                redraw(cx, h);
            }
            Ok(0)
        }
        BM_GETIMAGE => Ok(with_ctl(cx, h, |c| c.image).unwrap_or(0)),
        BM_SETIMAGE => Ok(with_ctl(cx, h, |c| std::mem::replace(&mut c.image, lp)).unwrap_or(0)),
        WM_GETDLGCODE => {
            let style = info(cx, h).map_or(0, |i| i.style);
            Ok(match button_kind(style) {
                0 => DLGC_BUTTON | DLGC_UNDEFPUSHBUTTON,
                1 => DLGC_BUTTON | DLGC_DEFPUSHBUTTON,
                4 | 9 => DLGC_BUTTON | DLGC_RADIOBUTTON,
                7 => DLGC_STATIC,
                _ => DLGC_BUTTON,
            })
        }
        _ => common(cx, h, m, wp, lp, u),
    }
}

// ---- STATIC -------------------------------------------------------------------------------

const STM_SETICON: u32 = 0x170;
const STM_GETICON: u32 = 0x171;
const STM_SETIMAGE: u32 = 0x172;
const STM_GETIMAGE: u32 = 0x173;

pub fn static_proc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    match m {
        WM_PAINT => paint(cx, h, |cx, hdc, i| {
            let r = Rect::new(0, 0, i.w, i.h);
            let kind = i.style & 0x1f;
            match kind {
                4 => fill(cx, hdc, r, 0)?,
                5 => fill(cx, hdc, r, sys_color_rgb(16))?,
                6 => fill(cx, hdc, r, 0xffffff)?,
                7 => {
                    gp::frame_rect(cx.proc, hdc, r, 0)?;
                }
                8 => {
                    gp::frame_rect(cx.proc, hdc, r, colorref(sys_color_rgb(16)))?;
                }
                9 => {
                    gp::frame_rect(cx.proc, hdc, r, colorref(0xffffff))?;
                }
                0x10..=0x12 => {
                    fill(cx, hdc, r, sys_color_rgb(15))?;
                    gp::draw_edge_ex(cx.proc, hdc, r, gp::EDGE_ETCHED, gp::BF_RECT)?;
                }
                3 => {
                    // SS_ICON: the icon at the system icon size (DI_NORMAL | DI_DEFAULTSIZE).
                    if let Some(img) = super::icon::icon_image(cx.proc, i.ctl.image) {
                        super::icon::draw_icon(cx.proc, hdc, 0, 0, &img, 0, 0, 0, 0xb)?;
                    }
                }
                0xe => {
                    // Bitmaps are not drawn.
                }
                _ => {
                    fill(cx, hdc, r, sys_color_rgb(15))?;
                    let mut f = match kind {
                        1 => gp::DT_CENTER | gp::DT_WORDBREAK,
                        2 => gp::DT_RIGHT | gp::DT_WORDBREAK,
                        0xb | 0xc => gp::DT_SINGLELINE,
                        _ => gp::DT_WORDBREAK,
                    };
                    if i.style & 0x80 != 0 {
                        f |= gp::DT_NOPREFIX;
                    }
                    if i.style & 0x200 != 0 {
                        f |= gp::DT_VCENTER | gp::DT_SINGLELINE;
                    }
                    gp::draw_text(cx.proc, hdc, &i.text, r, f | gp::DT_EXPANDTABS);
                }
            }
            Ok(())
        }),
        STM_SETICON | STM_SETIMAGE => {
            let v = if m == STM_SETICON { wp } else { lp };
            let old = with_ctl(cx, h, |c| std::mem::replace(&mut c.image, v)).unwrap_or(0);
            redraw(cx, h);
            Ok(old)
        }
        STM_GETICON | STM_GETIMAGE => Ok(with_ctl(cx, h, |c| c.image).unwrap_or(0)),
        WM_GETDLGCODE => Ok(DLGC_STATIC),
        WM_NCHITTEST => Ok(if info(cx, h).is_some_and(|i| i.style & 0x100 != 0) {
            1
        } else {
            u32::MAX
        }),
        _ => common(cx, h, m, wp, lp, u),
    }
}

// ---- EDIT ---------------------------------------------------------------------------------

const ES_MULTILINE: u32 = 0x4;
const ES_PASSWORD: u32 = 0x20;
const ES_READONLY: u32 = 0x800;
const ES_NUMBER: u32 = 0x2000;
const EM_GETSEL: u32 = 0xb0;
const EM_SETSEL: u32 = 0xb1;
const EM_GETRECT: u32 = 0xb2;
const EM_SCROLLCARET: u32 = 0xb7;
const EM_GETMODIFY: u32 = 0xb8;
const EM_SETMODIFY: u32 = 0xb9;
const EM_GETLINECOUNT: u32 = 0xba;
const EM_LINEINDEX: u32 = 0xbb;
const EM_LINELENGTH: u32 = 0xc1;
const EM_REPLACESEL: u32 = 0xc2;
const EM_GETLINE: u32 = 0xc4;
const EM_LIMITTEXT: u32 = 0xc5;
const EM_CANUNDO: u32 = 0xc6;
const EM_UNDO: u32 = 0xc7;
const EM_LINEFROMCHAR: u32 = 0xc9;
const EM_SETTABSTOPS: u32 = 0xcb;
const EM_GETFIRSTVISIBLELINE: u32 = 0xce;
const EM_SETREADONLY: u32 = 0xcf;
const EM_SETMARGINS: u32 = 0xd3;
const EM_GETLIMITTEXT: u32 = 0xd5;

fn chars(s: &str) -> Vec<char> {
    s.chars().collect()
}

/// Replaces the selection with `ins` and notifies the parent.
fn edit_replace(cx: &mut Ctx, h: u32, ins: &str, notify_parent: bool) -> UR<()> {
    let Some(i) = info(cx, h) else { return Ok(()) };
    let mut t = chars(&i.text);
    let (a, b) = (
        i.ctl.anchor.min(i.ctl.caret).min(t.len()),
        i.ctl.anchor.max(i.ctl.caret).min(t.len()),
    );
    let room = i.ctl.limit.saturating_sub(t.len() - (b - a));
    let ins: Vec<char> = ins.chars().take(room).collect();
    t.splice(a..b, ins.iter().copied());
    let caret = a + ins.len();
    if let Some(w) = lock_wm(cx.proc).win_mut(h) {
        w.text = t.into_iter().collect();
        w.ctl.caret = caret;
        w.ctl.anchor = caret;
        w.ctl.modified = true;
    }
    redraw(cx, h);
    if notify_parent {
        notify(cx, h, EN_UPDATE)?;
        notify(cx, h, EN_CHANGE)?;
    }
    Ok(())
}

/// Line starts (character indices) of a multi-line text.
fn line_starts(t: &[char]) -> Vec<usize> {
    let mut v = vec![0];
    for (k, &c) in t.iter().enumerate() {
        if c == '\n' {
            v.push(k + 1);
        }
    }
    v
}

fn line_of(starts: &[usize], pos: usize) -> usize {
    starts.iter().rposition(|&s| s <= pos).unwrap_or(0)
}

fn line_len(t: &[char], starts: &[usize], line: usize) -> usize {
    let s = starts[line];
    let mut e = starts.get(line + 1).map_or(t.len(), |&n| n - 1);
    if e > s && t.get(e - 1) == Some(&'\r') {
        e -= 1;
    }
    e - s
}

pub fn edit_proc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    match m {
        WM_PAINT => paint(cx, h, |cx, hdc, i| {
            let r = Rect::new(0, 0, i.w, i.h);
            let ro = i.style & ES_READONLY != 0 || !i.enabled;
            fill(cx, hdc, r, if ro { sys_color_rgb(15) } else { 0xffffff })?;
            let t: String = if i.style & ES_PASSWORD != 0 {
                "*".repeat(i.text.chars().count())
            } else {
                i.text.clone()
            };
            let tc = chars(&t);
            let lh = gp::text_extent(cx.proc, hdc, "Ay").1.max(1);
            let starts = line_starts(&tc);
            let multi = i.style & ES_MULTILINE != 0;
            let (a, b) = (i.ctl.anchor.min(i.ctl.caret), i.ctl.anchor.max(i.ctl.caret));
            for (ln, &s) in starts.iter().enumerate() {
                if !multi && ln > 0 {
                    break;
                }
                let n = line_len(&tc, &starts, ln);
                let line: String = tc[s..s + n].iter().collect();
                let y = 1 + ln as i32 * lh;
                if y > i.h {
                    break;
                }
                gp::text_out(cx.proc, hdc, 2, y, &line)?;
                // Selection: inverted.
                let (sa, sb) = (a.max(s).min(s + n), b.max(s).min(s + n));
                if sb > sa {
                    let x0 = gp::text_extent(cx.proc, hdc, &tc[s..sa].iter().collect::<String>()).0;
                    let x1 = gp::text_extent(cx.proc, hdc, &tc[s..sb].iter().collect::<String>()).0;
                    gp::invert_rect(cx.proc, hdc, Rect::new(2 + x0, y, 2 + x1, y + lh))?;
                }
            }
            if i.focused {
                let ln = line_of(&starts, i.ctl.caret.min(tc.len()));
                let s = starts[ln];
                let pre: String = tc[s..i.ctl.caret.min(tc.len()).max(s)].iter().collect();
                let x = 2 + gp::text_extent(cx.proc, hdc, &pre).0;
                let y = 1 + ln as i32 * lh;
                fill(cx, hdc, Rect::new(x, y, x + 1, y + lh), 0)?;
            }
            Ok(())
        }),
        WM_CHAR => {
            let Some(i) = info(cx, h) else { return Ok(0) };
            if i.style & ES_READONLY != 0 {
                return Ok(0);
            }
            let c = if u {
                char::from_u32(wp & 0xffff)
            } else {
                crate::kernel32::string::decode_ansi(&[wp as u8])
                    .chars()
                    .next()
            };
            let Some(c) = c else { return Ok(0) };
            match c {
                '\u{8}' => {
                    if i.ctl.anchor == i.ctl.caret && i.ctl.caret > 0 {
                        let t = chars(&i.text);
                        let back = if i.ctl.caret >= 2
                            && t.get(i.ctl.caret - 1) == Some(&'\n')
                            && t.get(i.ctl.caret - 2) == Some(&'\r')
                        {
                            2
                        } else {
                            1
                        };
                        with_ctl(cx, h, |c| c.anchor = c.caret - back);
                    }
                    edit_replace(cx, h, "", true)?;
                }
                '\r' if i.style & ES_MULTILINE != 0 => edit_replace(cx, h, "\r\n", true)?,
                '\t' if i.style & ES_MULTILINE != 0 => edit_replace(cx, h, "\t", true)?,
                c if (c as u32) < 0x20 => {}
                c if i.style & ES_NUMBER != 0 && !c.is_ascii_digit() => {}
                c => edit_replace(cx, h, &c.to_string(), true)?,
            }
            Ok(0)
        }
        WM_KEYDOWN => {
            let Some(i) = info(cx, h) else { return Ok(0) };
            let t = chars(&i.text);
            let q = lock_wm(cx.proc).queue(cx.thread.tid);
            let shift = q.lock().keys.get(0x10).is_some_and(|k| k & 0x80 != 0);
            let starts = line_starts(&t);
            let cur = i.ctl.caret.min(t.len());
            let ln = line_of(&starts, cur);
            let col = cur - starts[ln];
            let new = match wp {
                0x25 => Some(if cur >= 2 && t[cur - 1] == '\n' && t[cur - 2] == '\r' {
                    cur - 2
                } else {
                    cur.saturating_sub(1)
                }),
                0x27 => Some(
                    if cur + 1 < t.len() && t[cur] == '\r' && t[cur + 1] == '\n' {
                        cur + 2
                    } else {
                        (cur + 1).min(t.len())
                    },
                ),
                0x24 => Some(starts[ln]),
                0x23 => Some(starts[ln] + line_len(&t, &starts, ln)),
                0x26 if ln > 0 => Some(starts[ln - 1] + col.min(line_len(&t, &starts, ln - 1))),
                0x28 if ln + 1 < starts.len() => {
                    Some(starts[ln + 1] + col.min(line_len(&t, &starts, ln + 1)))
                }
                0x2e => {
                    if i.style & ES_READONLY == 0 {
                        if i.ctl.anchor == i.ctl.caret && cur < t.len() {
                            let n = if cur + 1 < t.len() && t[cur] == '\r' && t[cur + 1] == '\n' {
                                2
                            } else {
                                1
                            };
                            with_ctl(cx, h, |c| c.anchor = cur + n);
                        }
                        edit_replace(cx, h, "", true)?;
                    }
                    None
                }
                _ => None,
            };
            if let Some(n) = new {
                with_ctl(cx, h, |c| {
                    c.caret = n;
                    if !shift {
                        c.anchor = n;
                    }
                });
                redraw(cx, h);
            }
            Ok(0)
        }
        WM_LBUTTONDOWN => {
            set_focus(cx, h)?;
            let n = info(cx, h).map_or(0, |i| i.text.chars().count());
            with_ctl(cx, h, |c| {
                c.caret = n;
                c.anchor = n;
            });
            redraw(cx, h);
            Ok(0)
        }
        WM_SETFOCUS => {
            redraw(cx, h);
            notify(cx, h, EN_SETFOCUS)?;
            Ok(0)
        }
        WM_KILLFOCUS => {
            redraw(cx, h);
            notify(cx, h, EN_KILLFOCUS)?;
            Ok(0)
        }
        WM_SETTEXT => {
            let r = super::window::def_window_proc(cx, h, m, wp, lp, u)?;
            with_ctl(cx, h, |c| {
                c.caret = 0;
                c.anchor = 0;
                c.modified = false;
            });
            redraw(cx, h);
            // As for typing: EN_UPDATE before the new text is shown, then EN_CHANGE.
            notify(cx, h, EN_UPDATE)?;
            notify(cx, h, EN_CHANGE)?;
            Ok(r)
        }
        WM_GETDLGCODE => {
            let multi = info(cx, h).is_some_and(|i| i.style & ES_MULTILINE != 0);
            Ok(DLGC_WANTCHARS
                | DLGC_HASSETSEL
                | DLGC_WANTARROWS
                | if multi { DLGC_WANTALLKEYS } else { 0 })
        }
        EM_GETSEL => {
            let (a, b) = with_ctl(cx, h, |c| (c.anchor.min(c.caret), c.anchor.max(c.caret)))
                .unwrap_or((0, 0));
            if wp != 0 {
                cx.proc.mem.write_u32(wp, a as u32)?;
            }
            if lp != 0 {
                cx.proc.mem.write_u32(lp, b as u32)?;
            }
            Ok((a as u32 & 0xffff) | ((b as u32 & 0xffff) << 16))
        }
        EM_SETSEL => {
            let n = info(cx, h).map_or(0, |i| i.text.chars().count());
            let (s, e) = (wp as i32, lp as i32);
            let (a, b) = if s < 0 {
                (n, n)
            } else {
                let e = if e < 0 { n } else { (e as usize).min(n) };
                ((s as usize).min(n), e)
            };
            with_ctl(cx, h, |c| {
                c.anchor = a;
                c.caret = b;
            });
            redraw(cx, h);
            Ok(1)
        }
        EM_REPLACESEL => {
            let s = super::read_str(cx, lp, u)?;
            edit_replace(cx, h, &s, true)?;
            Ok(0)
        }
        EM_GETMODIFY => Ok(with_ctl(cx, h, |c| c.modified as u32).unwrap_or(0)),
        EM_SETMODIFY => {
            with_ctl(cx, h, |c| c.modified = wp != 0);
            Ok(0)
        }
        EM_LIMITTEXT => {
            with_ctl(cx, h, |c| {
                c.limit = if wp == 0 { 0x7fff_fffe } else { wp as usize }
            });
            Ok(0)
        }
        EM_GETLIMITTEXT => Ok(with_ctl(cx, h, |c| c.limit as u32).unwrap_or(0)),
        EM_GETLINECOUNT => {
            let t = chars(&info(cx, h).map(|i| i.text).unwrap_or_default());
            Ok(line_starts(&t).len() as u32)
        }
        EM_LINEINDEX => {
            let Some(i) = info(cx, h) else {
                return Ok(u32::MAX);
            };
            let t = chars(&i.text);
            let starts = line_starts(&t);
            let line = if wp == u32::MAX {
                line_of(&starts, i.ctl.caret.min(t.len()))
            } else {
                wp as usize
            };
            Ok(starts.get(line).map_or(u32::MAX, |&s| s as u32))
        }
        EM_LINEFROMCHAR => {
            let Some(i) = info(cx, h) else { return Ok(0) };
            let t = chars(&i.text);
            let pos = if wp == u32::MAX {
                i.ctl.caret
            } else {
                wp as usize
            };
            Ok(line_of(&line_starts(&t), pos.min(t.len())) as u32)
        }
        EM_LINELENGTH => {
            let Some(i) = info(cx, h) else { return Ok(0) };
            let t = chars(&i.text);
            let starts = line_starts(&t);
            let pos = if wp == u32::MAX {
                i.ctl.caret
            } else {
                wp as usize
            };
            let ln = line_of(&starts, pos.min(t.len()));
            Ok(line_len(&t, &starts, ln) as u32)
        }
        EM_GETLINE => {
            let Some(i) = info(cx, h) else { return Ok(0) };
            let t = chars(&i.text);
            let starts = line_starts(&t);
            let ln = wp as usize;
            if ln >= starts.len() {
                return Ok(0);
            }
            let cap = cx.proc.mem.read_u16(lp)? as usize;
            let n = line_len(&t, &starts, ln).min(cap);
            let s: String = t[starts[ln]..starts[ln] + n].iter().collect();
            if u {
                let w: Vec<u16> = s.encode_utf16().collect();
                crate::kernel32::string::write_wide(cx.proc, lp, &w)?;
                Ok(w.len() as u32)
            } else {
                let b = crate::kernel32::string::encode_ansi(&s);
                cx.proc.mem.write_bytes(lp, &b)?;
                Ok(b.len() as u32)
            }
        }
        EM_SETREADONLY => {
            if let Some(w) = lock_wm(cx.proc).win_mut(h) {
                if wp != 0 {
                    w.style |= ES_READONLY;
                } else {
                    w.style &= !ES_READONLY;
                }
            }
            redraw(cx, h);
            Ok(1)
        }
        EM_GETRECT => {
            let (w, hh) = info(cx, h).map_or((0, 0), |i| (i.w, i.h));
            super::window::put_rect(cx, lp, Rect::new(2, 1, w - 2, hh - 1))?;
            Ok(0)
        }
        EM_SCROLLCARET | EM_SETMARGINS | EM_SETTABSTOPS => Ok(1),
        EM_GETFIRSTVISIBLELINE => Ok(0),
        EM_CANUNDO => Ok(0),
        EM_UNDO => Ok(0),
        _ => common(cx, h, m, wp, lp, u),
    }
}

// ---- LISTBOX and COMBOBOX --------------------------------------------------------------

const LB_ADDSTRING: u32 = 0x180;
const LB_INSERTSTRING: u32 = 0x181;
const LB_DELETESTRING: u32 = 0x182;
const LB_RESETCONTENT: u32 = 0x184;
const LB_SETSEL: u32 = 0x185;
const LB_SETCURSEL: u32 = 0x186;
const LB_GETSEL: u32 = 0x187;
const LB_GETCURSEL: u32 = 0x188;
const LB_GETTEXT: u32 = 0x189;
const LB_GETTEXTLEN: u32 = 0x18a;
const LB_GETCOUNT: u32 = 0x18b;
const LB_SELECTSTRING: u32 = 0x18c;
const LB_GETTOPINDEX: u32 = 0x18e;
const LB_FINDSTRING: u32 = 0x18f;
const LB_GETHORIZONTALEXTENT: u32 = 0x193;
const LB_SETHORIZONTALEXTENT: u32 = 0x194;
const LB_SETTOPINDEX: u32 = 0x197;
const LB_GETITEMRECT: u32 = 0x198;
const LB_GETITEMDATA: u32 = 0x199;
const LB_SETITEMDATA: u32 = 0x19a;
const LB_SETCARETINDEX: u32 = 0x19e;
const LB_GETCARETINDEX: u32 = 0x19f;
const LB_SETITEMHEIGHT: u32 = 0x1a0;
const LB_GETITEMHEIGHT: u32 = 0x1a1;
const LB_FINDSTRINGEXACT: u32 = 0x1a2;
const LB_ITEMFROMPOINT: u32 = 0x1a9;
const CB_ADDSTRING: u32 = 0x143;
const CB_DELETESTRING: u32 = 0x144;
const CB_GETCOUNT: u32 = 0x146;
const CB_GETCURSEL: u32 = 0x147;
const CB_GETLBTEXT: u32 = 0x148;
const CB_GETLBTEXTLEN: u32 = 0x149;
const CB_INSERTSTRING: u32 = 0x14a;
const CB_RESETCONTENT: u32 = 0x14b;
const CB_FINDSTRING: u32 = 0x14c;
const CB_SELECTSTRING: u32 = 0x14d;
const CB_SETCURSEL: u32 = 0x14e;
const CB_SHOWDROPDOWN: u32 = 0x14f;
const CB_GETITEMDATA: u32 = 0x150;
const CB_SETITEMDATA: u32 = 0x151;
const CB_GETITEMHEIGHT: u32 = 0x154;
const CB_GETDROPPEDSTATE: u32 = 0x157;
const CB_FINDSTRINGEXACT: u32 = 0x158;
const LB_ERR: u32 = u32::MAX;

const LBS_SORT: u32 = 0x2;
const LBS_OWNERDRAWFIXED: u32 = 0x10;
const LBS_OWNERDRAWVARIABLE: u32 = 0x20;
const LBS_HASSTRINGS: u32 = 0x40;
const CBS_HASSTRINGS: u32 = 0x200;
/// DRAWITEMSTRUCT and friends: the control types, the action and the states.
const ODT_LISTBOX: u32 = 2;
const ODT_COMBOBOX: u32 = 3;
const ODA_DRAWENTIRE: u32 = 0x1;
const ODA_SELECT: u32 = 0x2;
const ODS_SELECTED: u32 = 0x1;
const ODS_DISABLED: u32 = 0x4;
const ODS_FOCUS: u32 = 0x10;

/// How a LISTBOX or COMBOBOX keeps and draws its items.
#[derive(Clone, Copy)]
struct ListKind {
    combo: bool,
    /// LBS_OWNERDRAWFIXED or LBS_OWNERDRAWVARIABLE (the CBS_ bits are the same).
    owner_draw: bool,
    variable: bool,
    /// Owner-drawn without LBS_HASSTRINGS: an item is the value LB_ADDSTRING passes,
    /// kept as its data, not a string.
    data_items: bool,
}

fn list_kind(cx: &Ctx, h: u32) -> ListKind {
    let wm = lock_wm(cx.proc);
    let combo = wm.class_of(h).is_some_and(|k| k.name == "ComboBox");
    let style = wm.win(h).map_or(0, |w| w.style);
    let has_strings = if combo {
        CBS_HASSTRINGS
    } else {
        LBS_HASSTRINGS
    };
    let owner_draw = style & (LBS_OWNERDRAWFIXED | LBS_OWNERDRAWVARIABLE) != 0;
    ListKind {
        combo,
        owner_draw,
        // A fixed list ignores the variable bit, as Windows does.
        variable: !combo && style & LBS_OWNERDRAWFIXED == 0 && style & LBS_OWNERDRAWVARIABLE != 0,
        data_items: owner_draw && style & has_strings == 0,
    }
}

/// The height of item `k`.
fn item_height(c: &super::wm::CtlState, variable: bool, k: usize) -> i32 {
    let fixed = if c.item_h > 0 { c.item_h } else { ITEM_H };
    if variable {
        c.heights.get(k).copied().unwrap_or(fixed)
    } else {
        fixed
    }
}

/// The top of item `k` in the client area (negative above the top item).
fn item_top(c: &super::wm::CtlState, variable: bool, k: usize) -> i32 {
    let top = c.top.max(0) as usize;
    if k >= top {
        (top..k).map(|j| item_height(c, variable, j)).sum()
    } else {
        -(k..top).map(|j| item_height(c, variable, j)).sum::<i32>()
    }
}

/// The item at client y `y` (at or below the top item), if there is one.
fn item_at(c: &super::wm::CtlState, variable: bool, y: i32) -> Option<usize> {
    let mut at = 0;
    for k in c.top.max(0) as usize..c.items.len() {
        let hk = item_height(c, variable, k);
        if y >= at && y < at + hk {
            return Some(k);
        }
        at += hk;
    }
    None
}

/// WM_MEASUREITEM to the parent for item `item` (with its data); the height it
/// answers (at least 1), or `default` when there is no parent.
fn measure(cx: &mut Ctx, h: u32, kind: ListKind, item: u32, data: u32, default: i32) -> UR<i32> {
    let Some(i) = info(cx, h) else {
        return Ok(default);
    };
    if i.parent == 0 {
        return Ok(default);
    }
    let ctl_type = if kind.combo {
        ODT_COMBOBOX
    } else {
        ODT_LISTBOX
    };
    let (p, esp) = super::stack_alloc(cx, 24);
    let r = (|| -> UR<i32> {
        // MEASUREITEMSTRUCT: CtlType, CtlID, itemID, itemWidth, itemHeight, itemData.
        for (k, v) in [ctl_type, i.id, item, 0, default as u32, data]
            .into_iter()
            .enumerate()
        {
            cx.proc.mem.write_u32(p + 4 * k as u32, v)?;
        }
        send(cx, i.parent, WM_MEASUREITEM, i.id, p, true)?;
        let got = cx.proc.mem.read_u32(p + 16)? as i32;
        Ok(if got > 0 { got } else { 1 })
    })();
    super::stack_free(cx, esp);
    r
}

/// WM_DELETEITEM to the parent for each item about to go (owner-drawn lists, and
/// any item with nonzero data), last first.
fn deleting(cx: &mut Ctx, h: u32, kind: ListKind, items: &[(usize, u32)]) -> UR<()> {
    let Some(i) = info(cx, h) else {
        return Ok(());
    };
    if i.parent == 0 {
        return Ok(());
    }
    let ctl_type = if kind.combo {
        ODT_COMBOBOX
    } else {
        ODT_LISTBOX
    };
    for &(k, data) in items.iter().rev() {
        if !kind.owner_draw && data == 0 {
            continue;
        }
        let (p, esp) = super::stack_alloc(cx, 20);
        let r = (|| -> UR<()> {
            // DELETEITEMSTRUCT: CtlType, CtlID, itemID, hwndItem, itemData.
            for (n, v) in [ctl_type, i.id, k as u32, h, data].into_iter().enumerate() {
                cx.proc.mem.write_u32(p + 4 * n as u32, v)?;
            }
            send(cx, i.parent, WM_DELETEITEM, i.id, p, true)?;
            Ok(())
        })();
        super::stack_free(cx, esp);
        r?;
    }
    Ok(())
}

/// WM_COMPAREITEM to the parent: where a sorted owner-drawn list without strings
/// puts a new item (before the first item the parent says sorts after it); the
/// items are compared in order.
fn sorted_position(cx: &mut Ctx, h: u32, kind: ListKind, data: u32) -> UR<usize> {
    let Some(i) = info(cx, h) else {
        return Ok(0);
    };
    let ctl_type = if kind.combo {
        ODT_COMBOBOX
    } else {
        ODT_LISTBOX
    };
    let n = i.ctl.items.len();
    for k in 0..n {
        let (p, esp) = super::stack_alloc(cx, 32);
        let r = (|| -> UR<i32> {
            // COMPAREITEMSTRUCT: CtlType, CtlID, hwndItem, itemID1, itemData1, itemID2,
            // itemData2, dwLocaleId.
            // The item in the list first, the new one (ID -1) second.
            for (j, v) in [
                ctl_type,
                i.id,
                h,
                k as u32,
                i.ctl.items[k].1,
                u32::MAX,
                data,
                0x409,
            ]
            .into_iter()
            .enumerate()
            {
                cx.proc.mem.write_u32(p + 4 * j as u32, v)?;
            }
            Ok(send(cx, i.parent, WM_COMPAREITEM, i.id, p, true)? as i32)
        })();
        super::stack_free(cx, esp);
        if r? > 0 {
            return Ok(k);
        }
    }
    Ok(n)
}

/// The list messages LISTBOX and COMBOBOX share, as LB_ numbers; `None` if `m` is not
/// one (the caller handles it).
fn list_op(
    cx: &mut Ctx,
    h: u32,
    m: u32,
    wp: u32,
    lp: u32,
    u: bool,
    sorted: bool,
) -> UR<Option<u32>> {
    let idx = wp as i32;
    let kind = list_kind(cx, h);
    let data_items = kind.data_items;
    let old_sel = info(cx, h).map_or(-1, |i| i.ctl.sel);
    let r = match m {
        LB_ADDSTRING | LB_INSERTSTRING => {
            let (text, data) = if data_items {
                (String::new(), lp)
            } else {
                (super::read_str(cx, lp, u)?, 0)
            };
            let sorted_at = if m == LB_ADDSTRING && sorted && data_items {
                Some(sorted_position(cx, h, kind, lp)?)
            } else {
                None
            };
            let at = with_ctl(cx, h, |c| {
                let at = if let Some(k) = sorted_at {
                    k
                } else if m == LB_ADDSTRING {
                    if sorted {
                        c.items
                            .iter()
                            .position(|(t, _)| t.to_lowercase() > text.to_lowercase())
                            .unwrap_or(c.items.len())
                    } else {
                        c.items.len()
                    }
                } else if idx < 0 || idx as usize > c.items.len() {
                    c.items.len()
                } else {
                    idx as usize
                };
                c.items.insert(at, (text, data));
                if kind.variable {
                    let fixed = item_height(c, false, 0);
                    let k = at.min(c.heights.len());
                    c.heights.insert(k, fixed);
                }
                if c.sel >= at as i32 && c.sel >= 0 {
                    c.sel += 1;
                }
                at
            });
            if let Some(at) = at
                && kind.variable
            {
                let default = with_ctl(cx, h, |c| item_height(c, false, 0)).unwrap_or(ITEM_H);
                let hk = measure(cx, h, kind, at as u32, lp, default)?;
                with_ctl(cx, h, |c| {
                    if let Some(x) = c.heights.get_mut(at) {
                        *x = hk;
                    }
                });
            }
            at.map(|a| a as u32)
        }
        LB_GETTEXT if data_items => {
            let d = with_ctl(cx, h, |c| {
                c.items
                    .get(idx.max(0) as usize)
                    .filter(|_| idx >= 0)
                    .map(|(_, d)| *d)
            })
            .flatten();
            match d {
                Some(d) => {
                    cx.proc.mem.write_u32(lp, d)?;
                    Some(4)
                }
                None => Some(LB_ERR),
            }
        }
        LB_GETTEXTLEN if data_items => with_ctl(cx, h, |c| {
            if idx >= 0 && (idx as usize) < c.items.len() {
                4
            } else {
                LB_ERR
            }
        }),
        LB_DELETESTRING => {
            let gone = with_ctl(cx, h, |c| {
                c.items
                    .get(idx.max(0) as usize)
                    .filter(|_| idx >= 0)
                    .map(|it| it.1)
            })
            .flatten();
            match gone {
                None => Some(LB_ERR),
                Some(data) => {
                    deleting(cx, h, kind, &[(idx as usize, data)])?;
                    with_ctl(cx, h, |c| {
                        if (idx as usize) < c.items.len() {
                            c.items.remove(idx as usize);
                        }
                        if (idx as usize) < c.heights.len() {
                            c.heights.remove(idx as usize);
                        }
                        if c.sel == idx {
                            c.sel = -1;
                        } else if c.sel > idx {
                            c.sel -= 1;
                        }
                        c.items.len() as u32
                    })
                }
            }
        }
        LB_RESETCONTENT => {
            let gone: Vec<(usize, u32)> = with_ctl(cx, h, |c| {
                c.items
                    .iter()
                    .enumerate()
                    .map(|(k, it)| (k, it.1))
                    .collect()
            })
            .unwrap_or_default();
            deleting(cx, h, kind, &gone)?;
            with_ctl(cx, h, |c| {
                c.items.clear();
                c.heights.clear();
                c.sel = -1;
                c.top = 0;
                0
            })
        }
        LB_SETCURSEL => with_ctl(cx, h, |c| {
            if idx < 0 || idx as usize >= c.items.len() {
                c.sel = -1;
                if idx < 0 { 0 } else { LB_ERR }
            } else {
                c.sel = idx;
                idx as u32
            }
        }),
        // The focus item of a single-selection list is its selection, which the
        // caret index does not change.
        LB_SETCARETINDEX => with_ctl(cx, h, |c| {
            if idx < 0 || idx as usize >= c.items.len() {
                LB_ERR
            } else {
                0
            }
        }),
        LB_SETSEL => with_ctl(cx, h, |c| {
            c.sel = if wp != 0 { lp as i32 } else { -1 };
            0
        }),
        LB_GETSEL => with_ctl(cx, h, |c| (c.sel == idx) as u32),
        LB_GETCURSEL => with_ctl(cx, h, |c| c.sel as u32),
        LB_GETCARETINDEX => with_ctl(cx, h, |c| c.sel.max(0) as u32),
        LB_GETCOUNT => with_ctl(cx, h, |c| c.items.len() as u32),
        LB_GETTEXTLEN => with_ctl(cx, h, |c| {
            c.items
                .get(idx.max(0) as usize)
                .filter(|_| idx >= 0)
                .map_or(LB_ERR, |(t, _)| super::str_len(t, u))
        }),
        LB_GETTEXT => {
            let t = with_ctl(cx, h, |c| {
                c.items
                    .get(idx.max(0) as usize)
                    .filter(|_| idx >= 0)
                    .map(|(t, _)| t.clone())
            })
            .flatten();
            match t {
                Some(t) => {
                    super::write_str(cx, lp, &t, u)?;
                    Some(super::str_len(&t, u))
                }
                None => Some(LB_ERR),
            }
        }
        LB_GETITEMDATA => with_ctl(cx, h, |c| {
            c.items
                .get(idx.max(0) as usize)
                .filter(|_| idx >= 0)
                .map_or(LB_ERR, |(_, d)| *d)
        }),
        LB_SETITEMDATA => with_ctl(cx, h, |c| {
            match c.items.get_mut(idx.max(0) as usize).filter(|_| idx >= 0) {
                Some(it) => {
                    it.1 = lp;
                    1
                }
                None => LB_ERR,
            }
        }),
        // An owner-drawn list without strings looks for the item whose data is lParam.
        LB_FINDSTRING | LB_FINDSTRINGEXACT | LB_SELECTSTRING => {
            let s = if data_items {
                String::new()
            } else {
                super::read_str(cx, lp, u)?.to_lowercase()
            };
            let exact = m == LB_FINDSTRINGEXACT;
            with_ctl(cx, h, |c| {
                let n = c.items.len();
                let start = if idx < 0 {
                    0
                } else {
                    (idx as usize + 1) % n.max(1)
                };
                let hit = (0..n).map(|k| (start + k) % n).find(|&k| {
                    if data_items {
                        return c.items[k].1 == lp;
                    }
                    let t = c.items[k].0.to_lowercase();
                    if exact { t == s } else { t.starts_with(&s) }
                });
                match hit {
                    Some(k) => {
                        if m == LB_SELECTSTRING {
                            c.sel = k as i32;
                        }
                        k as u32
                    }
                    None => LB_ERR,
                }
            })
        }
        LB_GETTOPINDEX => with_ctl(cx, h, |c| c.top as u32),
        LB_SETTOPINDEX => with_ctl(cx, h, |c| {
            c.top = idx.max(0);
            0
        }),
        LB_GETITEMHEIGHT => with_ctl(cx, h, |c| {
            let k = if kind.variable {
                idx.max(0) as usize
            } else {
                0
            };
            if kind.variable && k >= c.items.len() {
                LB_ERR
            } else {
                item_height(c, kind.variable, k) as u32
            }
        }),
        LB_SETITEMHEIGHT => with_ctl(cx, h, |c| {
            let hk = (lp & 0xffff) as i32;
            if hk > 255 {
                return LB_ERR;
            }
            if kind.variable {
                match c.heights.get_mut(idx.max(0) as usize).filter(|_| idx >= 0) {
                    Some(x) => *x = hk,
                    None => return LB_ERR,
                }
            } else {
                c.item_h = hk;
            }
            0
        }),
        LB_GETITEMRECT => {
            let width = info(cx, h).map_or(0, |i| i.w);
            let r = with_ctl(cx, h, |c| {
                if idx < 0 || (idx as usize >= c.items.len() && !(idx == 0 && c.items.is_empty())) {
                    return None;
                }
                let top = item_top(c, kind.variable, idx as usize);
                Some(Rect::new(
                    0,
                    top,
                    width,
                    top + item_height(c, kind.variable, idx as usize),
                ))
            })
            .flatten();
            match r {
                Some(r) => {
                    for (k, v) in [r.left, r.top, r.right, r.bottom].into_iter().enumerate() {
                        cx.proc.mem.write_u32(lp + 4 * k as u32, v as u32)?;
                    }
                    Some(1)
                }
                None => Some(LB_ERR),
            }
        }
        // The nearest item to a client point; the high word says it lies outside the
        // client area.
        LB_ITEMFROMPOINT => {
            let (x, y) = ((lp & 0xffff) as i16 as i32, (lp >> 16) as i16 as i32);
            let (w, hgt) = info(cx, h).map_or((0, 0), |i| (i.w, i.h));
            with_ctl(cx, h, |c| {
                let n = c.items.len();
                if n == 0 {
                    return 0x1_0000;
                }
                let k = match item_at(c, kind.variable, y) {
                    Some(k) => k,
                    None if y < 0 => c.top.max(0) as usize,
                    None => n - 1,
                };
                let outside = x < 0 || x >= w || y < 0 || y >= hgt;
                (k as u32 & 0xffff) | ((outside as u32) << 16)
            })
        }
        LB_SETHORIZONTALEXTENT => with_ctl(cx, h, |c| {
            c.extent = wp;
            0
        }),
        LB_GETHORIZONTALEXTENT => with_ctl(cx, h, |c| c.extent),
        _ => return Ok(None),
    };
    if kind.owner_draw && !kind.combo && matches!(m, LB_SETCURSEL | LB_SETSEL | LB_SELECTSTRING) {
        selection_drawn(cx, h, old_sel)?;
        return Ok(Some(r.unwrap_or(LB_ERR)));
    }
    if !matches!(
        m,
        LB_GETSEL
            | LB_GETCURSEL
            | LB_GETCOUNT
            | LB_GETTEXTLEN
            | LB_GETTEXT
            | LB_GETITEMDATA
            | LB_GETTOPINDEX
            | LB_GETITEMHEIGHT
            | LB_FINDSTRING
            | LB_FINDSTRINGEXACT
            | LB_GETITEMRECT
            | LB_ITEMFROMPOINT
            | LB_GETCARETINDEX
            | LB_GETHORIZONTALEXTENT
    ) {
        redraw(cx, h);
    }
    Ok(Some(r.unwrap_or(LB_ERR)))
}

fn select(cx: &mut Ctx, h: u32, sel: i32, code: u32, notify_always: bool) -> UR<()> {
    let old = info(cx, h).map_or(-1, |i| i.ctl.sel);
    let changed = with_ctl(cx, h, |c| {
        let n = c.items.len() as i32;
        if n == 0 {
            return false;
        }
        let s = sel.clamp(0, n - 1);
        let ch = c.sel != s;
        c.sel = s;
        ch
    })
    .unwrap_or(false);
    let kind = list_kind(cx, h);
    if kind.owner_draw && !kind.combo {
        selection_drawn(cx, h, old)?;
    } else {
        redraw(cx, h);
    }
    let notify_on = info(cx, h).is_some_and(|i| notify_always || i.style & 1 != 0);
    if changed && notify_on {
        notify(cx, h, code)?;
    }
    Ok(())
}

/// WM_DRAWITEM to the parent for one item of an owner-drawn list.
fn draw_item(cx: &mut Ctx, h: u32, hdc: u32, i: &Info, k: usize, r: Rect, action: u32) -> UR<()> {
    let mut state = 0;
    if k as i32 == i.ctl.sel {
        state |= ODS_SELECTED;
        if i.focused {
            state |= ODS_FOCUS;
        }
    }
    if !i.enabled {
        state |= ODS_DISABLED;
    }
    let data = i.ctl.items.get(k).map_or(0, |it| it.1);
    let (p, esp) = super::stack_alloc(cx, 48);
    let res = (|| -> UR<()> {
        let m = &cx.proc.mem;
        // DRAWITEMSTRUCT: CtlType, CtlID, itemID, itemAction, itemState, hwndItem, hDC,
        // rcItem, itemData.
        for (n, v) in [ODT_LISTBOX, i.id, k as u32, action, state, h, hdc]
            .into_iter()
            .enumerate()
        {
            m.write_u32(p + 4 * n as u32, v)?;
        }
        for (n, v) in [r.left, r.top, r.right, r.bottom].into_iter().enumerate() {
            m.write_u32(p + 28 + 4 * n as u32, v as u32)?;
        }
        m.write_u32(p + 44, data)?;
        send(cx, i.parent, WM_DRAWITEM, i.id, p, true)?;
        Ok(())
    })();
    super::stack_free(cx, esp);
    res
}

/// An owner-drawn list's WM_PAINT: the background, then WM_DRAWITEM for each
/// visible item, with the control's font selected and the DC otherwise as
/// BeginPaint gives it.
fn paint_owner_drawn(cx: &mut Ctx, h: u32, variable: bool) -> UR<u32> {
    let (ps, esp) = super::stack_alloc(cx, 64);
    let r = (|| -> UR<()> {
        let hdc = super::paint::begin_paint(cx, h, ps)?;
        if let Some(i) = info(cx, h) {
            let font = if i.ctl.font != 0 {
                i.ctl.font
            } else {
                super::call_export(cx, "GDI32.dll", "GetStockObject", &[17])?.unwrap_or(0)
            };
            if font != 0 {
                super::call_export(cx, "GDI32.dll", "SelectObject", &[hdc, font])?;
            }
            fill(cx, hdc, Rect::new(0, 0, i.w, i.h), 0xffffff)?;
            let mut y = 0;
            for k in i.ctl.top.max(0) as usize..i.ctl.items.len() {
                if y >= i.h {
                    break;
                }
                let hk = item_height(&i.ctl, variable, k);
                draw_item(
                    cx,
                    h,
                    hdc,
                    &i,
                    k,
                    Rect::new(0, y, i.w, y + hk),
                    ODA_DRAWENTIRE,
                )?;
                y += hk;
            }
        }
        super::paint::end_paint(cx, h, ps)
    })();
    super::stack_free(cx, esp);
    r?;
    Ok(0)
}

/// A visible owner-drawn list draws a selection change at once: WM_DRAWITEM
/// (ODA_SELECT) for the item that lost it, then for the one that has it, on a DC
/// of its own.
fn selection_drawn(cx: &mut Ctx, h: u32, old: i32) -> UR<()> {
    let kind = list_kind(cx, h);
    let Some(i) = info(cx, h) else {
        return Ok(());
    };
    if !kind.owner_draw || old == i.ctl.sel || !lock_wm(cx.proc).is_visible(h) {
        return Ok(());
    }
    let hdc = super::call_export(cx, "USER32.dll", "GetDC", &[h])?.unwrap_or(0);
    if hdc == 0 {
        return Ok(());
    }
    let font = if i.ctl.font != 0 {
        i.ctl.font
    } else {
        super::call_export(cx, "GDI32.dll", "GetStockObject", &[17])?.unwrap_or(0)
    };
    if font != 0 {
        super::call_export(cx, "GDI32.dll", "SelectObject", &[hdc, font])?;
    }
    for k in [old, i.ctl.sel] {
        if k < 0 || k as usize >= i.ctl.items.len() || k < i.ctl.top {
            continue;
        }
        let top = item_top(&i.ctl, kind.variable, k as usize);
        if top >= i.h {
            continue;
        }
        let r = Rect::new(
            0,
            top,
            i.w,
            top + item_height(&i.ctl, kind.variable, k as usize),
        );
        draw_item(cx, h, hdc, &i, k as usize, r, ODA_SELECT)?;
    }
    super::call_export(cx, "USER32.dll", "ReleaseDC", &[h, hdc])?;
    Ok(())
}

pub fn listbox_proc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    let sorted = info(cx, h).is_some_and(|i| i.style & LBS_SORT != 0);
    if let Some(r) = list_op(cx, h, m, wp, lp, u, sorted)? {
        return Ok(r);
    }
    let kind = list_kind(cx, h);
    match m {
        // A fixed owner-drawn list asks its parent for the items' height once, as it
        // is created (item ID -1).
        WM_CREATE if kind.owner_draw && !kind.variable => {
            let hk = measure(cx, h, kind, u32::MAX, 0, ITEM_H)?;
            with_ctl(cx, h, |c| c.item_h = hk);
            super::window::def_window_proc(cx, h, m, wp, lp, u)
        }
        WM_DESTROY => {
            let gone: Vec<(usize, u32)> = with_ctl(cx, h, |c| {
                c.items
                    .iter()
                    .enumerate()
                    .map(|(k, it)| (k, it.1))
                    .collect()
            })
            .unwrap_or_default();
            deleting(cx, h, kind, &gone)?;
            with_ctl(cx, h, |c| {
                c.items.clear();
                c.heights.clear();
            });
            super::window::def_window_proc(cx, h, m, wp, lp, u)
        }
        WM_PAINT if kind.owner_draw => paint_owner_drawn(cx, h, kind.variable),
        WM_PAINT => paint(cx, h, |cx, hdc, i| {
            fill(cx, hdc, Rect::new(0, 0, i.w, i.h), 0xffffff)?;
            let mut y = 0;
            for (k, (t, _)) in i
                .ctl
                .items
                .iter()
                .enumerate()
                .skip(i.ctl.top.max(0) as usize)
            {
                if y > i.h {
                    break;
                }
                let hk = item_height(&i.ctl, false, k);
                let r = Rect::new(0, y, i.w, y + hk);
                y += hk;
                if k as i32 == i.ctl.sel {
                    fill(cx, hdc, r, sys_color_rgb(13))?;
                    super::call_export(
                        cx,
                        "GDI32.dll",
                        "SetTextColor",
                        &[hdc, colorref(0xffffff)],
                    )?;
                } else {
                    super::call_export(cx, "GDI32.dll", "SetTextColor", &[hdc, 0])?;
                }
                gp::draw_text(
                    cx.proc,
                    hdc,
                    t,
                    r.offset(2, 0),
                    gp::DT_SINGLELINE | gp::DT_VCENTER | gp::DT_NOPREFIX,
                );
            }
            Ok(())
        }),
        WM_LBUTTONDOWN | WM_LBUTTONDBLCLK => {
            set_focus(cx, h)?;
            let y = (lp >> 16) as i16 as i32;
            let hit = with_ctl(cx, h, |c| item_at(c, kind.variable, y)).flatten();
            if let Some(k) = hit {
                select(cx, h, k as i32, LBN_SELCHANGE, false)?;
                if m == WM_LBUTTONDBLCLK && info(cx, h).is_some_and(|i| i.style & 1 != 0) {
                    notify(cx, h, LBN_DBLCLK)?;
                }
            }
            Ok(0)
        }
        WM_KEYDOWN => {
            let sel = info(cx, h).map_or(-1, |i| i.ctl.sel);
            match wp {
                0x26 => select(cx, h, sel - 1, LBN_SELCHANGE, false)?,
                0x28 => select(cx, h, sel + 1, LBN_SELCHANGE, false)?,
                0x24 => select(cx, h, 0, LBN_SELCHANGE, false)?,
                0x23 => select(cx, h, i32::MAX, LBN_SELCHANGE, false)?,
                _ => {}
            }
            Ok(0)
        }
        WM_GETDLGCODE => Ok(DLGC_WANTARROWS | DLGC_WANTCHARS),
        _ => common(cx, h, m, wp, lp, u),
    }
}

pub fn combo_proc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    let sorted = info(cx, h).is_some_and(|i| i.style & 0x100 != 0);
    let lb = match m {
        CB_ADDSTRING => Some(LB_ADDSTRING),
        CB_DELETESTRING => Some(LB_DELETESTRING),
        CB_GETCOUNT => Some(LB_GETCOUNT),
        CB_GETCURSEL => Some(LB_GETCURSEL),
        CB_GETLBTEXT => Some(LB_GETTEXT),
        CB_GETLBTEXTLEN => Some(LB_GETTEXTLEN),
        CB_INSERTSTRING => Some(LB_INSERTSTRING),
        CB_RESETCONTENT => Some(LB_RESETCONTENT),
        CB_FINDSTRING => Some(LB_FINDSTRING),
        CB_SELECTSTRING => Some(LB_SELECTSTRING),
        CB_SETCURSEL => Some(LB_SETCURSEL),
        CB_GETITEMDATA => Some(LB_GETITEMDATA),
        CB_SETITEMDATA => Some(LB_SETITEMDATA),
        CB_FINDSTRINGEXACT => Some(LB_FINDSTRINGEXACT),
        CB_GETITEMHEIGHT => Some(LB_GETITEMHEIGHT),
        _ => None,
    };
    if let Some(l) = lb
        && let Some(r) = list_op(cx, h, l, wp, lp, u, sorted)?
    {
        return Ok(r);
    }
    let selected = |cx: &Ctx| {
        info(cx, h).and_then(|i| {
            (i.ctl.sel >= 0)
                .then(|| i.ctl.items.get(i.ctl.sel as usize).map(|t| t.0.clone()))
                .flatten()
        })
    };
    match m {
        WM_PAINT => {
            let text = selected(cx).unwrap_or_default();
            paint(cx, h, move |cx, hdc, i| {
                let r = Rect::new(0, 0, i.w, i.h.min(ITEM_H + 6));
                fill(cx, hdc, r, 0xffffff)?;
                gp::draw_edge_ex(cx.proc, hdc, r, gp::EDGE_SUNKEN, gp::BF_RECT)?;
                let b = Rect::new(r.right - 18, 2, r.right - 2, r.bottom - 2);
                fill(cx, hdc, b, sys_color_rgb(15))?;
                gp::draw_edge_ex(cx.proc, hdc, b, gp::EDGE_RAISED, gp::BF_RECT)?;
                let cxm = (b.left + b.right) / 2;
                for k in 0..4 {
                    fill(
                        cx,
                        hdc,
                        Rect::new(cxm - 3 + k, b.top + 6 + k, cxm + 4 - k, b.top + 7 + k),
                        0,
                    )?;
                }
                if i.focused {
                    fill(
                        cx,
                        hdc,
                        Rect::new(3, 3, b.left - 1, r.bottom - 3),
                        sys_color_rgb(13),
                    )?;
                    super::call_export(
                        cx,
                        "GDI32.dll",
                        "SetTextColor",
                        &[hdc, colorref(0xffffff)],
                    )?;
                }
                gp::draw_text(
                    cx.proc,
                    hdc,
                    &text,
                    Rect::new(4, 0, b.left, r.bottom),
                    gp::DT_SINGLELINE | gp::DT_VCENTER | gp::DT_NOPREFIX,
                );
                Ok(())
            })
        }
        WM_LBUTTONDOWN => {
            set_focus(cx, h)?;
            let (sel, n) = info(cx, h).map_or((-1, 0), |i| (i.ctl.sel, i.ctl.items.len() as i32));
            if n > 0 {
                select(cx, h, (sel + 1) % n, CBN_SELCHANGE, true)?;
            }
            Ok(0)
        }
        WM_KEYDOWN => {
            let sel = info(cx, h).map_or(-1, |i| i.ctl.sel);
            match wp {
                0x26 => select(cx, h, sel - 1, CBN_SELCHANGE, true)?,
                0x28 => select(cx, h, sel + 1, CBN_SELCHANGE, true)?,
                _ => {}
            }
            Ok(0)
        }
        WM_GETTEXT => {
            let t = selected(cx).unwrap_or_default();
            if wp == 0 {
                return Ok(0);
            }
            Ok(super::put_str(cx, lp, wp, &t, u)?)
        }
        WM_GETTEXTLENGTH => Ok(super::str_len(&selected(cx).unwrap_or_default(), u)),
        CB_SHOWDROPDOWN => {
            with_ctl(cx, h, |c| c.dropped = wp != 0);
            Ok(1)
        }
        CB_GETDROPPEDSTATE => Ok(with_ctl(cx, h, |c| c.dropped as u32).unwrap_or(0)),
        WM_GETDLGCODE => Ok(DLGC_WANTARROWS | DLGC_WANTCHARS),
        _ => common(cx, h, m, wp, lp, u),
    }
}

fn api(
    f: fn(&mut Ctx, u32, u32, u32, u32, bool) -> UR<u32>,
) -> impl Fn(&mut Ctx, u32, u32, u32, u32) -> crate::hle::ApiResult<Outcome> + Send + Sync + 'static
{
    move |cx, h, m, wp, lp| super::fin(f(cx, h, m, wp, lp, true))
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("ButtonWndProc", api(button_proc)),
        stdcall("StaticWndProc", api(static_proc)),
        stdcall("EditWndProc", api(edit_proc)),
        stdcall("ListBoxWndProc", api(listbox_proc)),
        stdcall("ComboBoxWndProc", api(combo_proc)),
        stdcall("ScrollBarWndProc", api(super::window::def_window_proc)),
    ]
}
