//! The rebar (`ReBarWindow32`): bands laid out in rows, each with an optional
//! gripper, text and image heading a child window (usually a toolbar or a combo
//! box) that the rebar moves and sizes. A band starts a new row with RBBS_BREAK or
//! when the row is full; the last band of a row takes the rest of its width. The
//! rebar spans its parent's width like the other CCS_* controls and reports a
//! change of its height with RBN_HEIGHTCHANGE.

use super::ccommon::{self as cc, WM_USER};
use super::imagelist;
use crate::gdi32::{Rect, paint as gp};
use crate::hle::Ctx;
use crate::user32::msg::*;
use crate::user32::{UR, read_str};

const RB_INSERTBANDA: u32 = WM_USER + 1;
const RB_DELETEBAND: u32 = WM_USER + 2;
const RB_GETBARINFO: u32 = WM_USER + 3;
const RB_SETBARINFO: u32 = WM_USER + 4;
const RB_SETBANDINFOA: u32 = WM_USER + 6;
const RB_SETPARENT: u32 = WM_USER + 7;
const RB_GETRECT: u32 = WM_USER + 9;
const RB_INSERTBANDW: u32 = WM_USER + 10;
const RB_SETBANDINFOW: u32 = WM_USER + 11;
const RB_GETBANDCOUNT: u32 = WM_USER + 12;
const RB_GETROWCOUNT: u32 = WM_USER + 13;
const RB_GETROWHEIGHT: u32 = WM_USER + 14;
const RB_IDTOINDEX: u32 = WM_USER + 16;
const RB_GETTOOLTIPS: u32 = WM_USER + 17;
const RB_SETTOOLTIPS: u32 = WM_USER + 18;
const RB_SETBKCOLOR: u32 = WM_USER + 19;
const RB_GETBKCOLOR: u32 = WM_USER + 20;
const RB_SETTEXTCOLOR: u32 = WM_USER + 21;
const RB_GETTEXTCOLOR: u32 = WM_USER + 22;
const RB_SIZETORECT: u32 = WM_USER + 23;
const RB_GETBARHEIGHT: u32 = WM_USER + 27;
const RB_GETBANDINFOW: u32 = WM_USER + 28;
const RB_GETBANDINFOA: u32 = WM_USER + 29;
const RB_MINIMIZEBAND: u32 = WM_USER + 30;
const RB_MAXIMIZEBAND: u32 = WM_USER + 31;
const RB_GETBANDBORDERS: u32 = WM_USER + 34;
const RB_SHOWBAND: u32 = WM_USER + 35;
const RB_MOVEBAND: u32 = WM_USER + 39;

const RBBIM_STYLE: u32 = 0x1;
const RBBIM_COLORS: u32 = 0x2;
const RBBIM_TEXT: u32 = 0x4;
const RBBIM_IMAGE: u32 = 0x8;
const RBBIM_CHILD: u32 = 0x10;
const RBBIM_CHILDSIZE: u32 = 0x20;
const RBBIM_SIZE: u32 = 0x40;
const RBBIM_BACKGROUND: u32 = 0x80;
const RBBIM_ID: u32 = 0x100;
const RBBIM_IDEALSIZE: u32 = 0x200;
const RBBIM_LPARAM: u32 = 0x400;
const RBBIM_HEADERSIZE: u32 = 0x800;
const RBBS_BREAK: u32 = 0x1;
const RBBS_CHILDEDGE: u32 = 0x4;
const RBBS_HIDDEN: u32 = 0x8;
const RBBS_VARIABLEHEIGHT: u32 = 0x40;
const RBBS_GRIPPERALWAYS: u32 = 0x80;
const RBBS_NOGRIPPER: u32 = 0x100;
const RBS_BANDBORDERS: u32 = 0x400;
const RBIM_IMAGELIST: u32 = 0x1;
const RBN_HEIGHTCHANGE: u32 = (-831i32) as u32;
const RBN_AUTOSIZE: u32 = (-834i32) as u32;
const RBS_AUTOSIZE: u32 = 0x2000;
/// The gripper's width with its margins.
const GRIPPER: i32 = 10;
/// Space kept around a child with RBBS_CHILDEDGE, above and below.
const CHILD_EDGE: i32 = 2;
/// The border between rows and between bands (RBS_BANDBORDERS).
const SEP: i32 = 2;

#[derive(Clone, Default, Debug)]
struct Band {
    style: u32,
    fore: u32,
    back: u32,
    text: String,
    image: i32,
    child: u32,
    cx_min: i32,
    cy_min: i32,
    cx: i32,
    bitmap: u32,
    id: u32,
    cy_child: i32,
    cy_max: i32,
    cy_integral: i32,
    cx_ideal: i32,
    lparam: u32,
    header: Option<i32>,
    /// Where layout put it.
    rect: Rect,
    row: usize,
}

#[derive(Default)]
struct State {
    bands: Vec<Band>,
    himl: u32,
    notify: u32,
    tooltips: u32,
    bk: u32,
    fg: u32,
    height: i32,
    rows: Vec<(i32, i32)>,
    laying_out: bool,
}

fn st<R>(cx: &Ctx, h: u32, f: impl FnOnce(&mut State) -> R) -> R {
    cc::with_state::<State, R>(cx, h, f)
}

/// REBARBANDINFO: cbSize, fMask, fStyle, clrFore, clrBack, lpText, cch, iImage,
/// hwndChild, cxMinChild, cyMinChild, cx, hbmBack, wID, then (comctl32 4.71 and
/// later) cyChild, cyMaxChild, cyIntegral, cxIdeal, lParam, cxHeader.
fn apply_info(cx: &Ctx, p: u32, b: &mut Band, u: bool) -> UR<()> {
    let m = &cx.proc.mem;
    let size = m.read_u32(p)?;
    let mask = m.read_u32(p + 4)?;
    let f = |o: u32| m.read_u32(p + o);
    if mask & RBBIM_STYLE != 0 {
        b.style = f(8)?;
    }
    if mask & RBBIM_COLORS != 0 {
        b.fore = f(12)?;
        b.back = f(16)?;
    }
    if mask & RBBIM_TEXT != 0 {
        let t = f(20)?;
        b.text = if t == 0 {
            String::new()
        } else {
            read_str(cx, t, u)?
        };
    }
    if mask & RBBIM_IMAGE != 0 {
        b.image = f(28)? as i32;
    }
    if mask & RBBIM_CHILD != 0 {
        b.child = f(32)?;
    }
    if mask & RBBIM_CHILDSIZE != 0 {
        b.cx_min = f(36)? as i32;
        b.cy_min = f(40)? as i32;
        if size >= 80 {
            b.cy_child = f(56)? as i32;
            b.cy_max = f(60)? as i32;
            b.cy_integral = f(64)? as i32;
        }
    }
    if mask & RBBIM_SIZE != 0 {
        b.cx = f(44)? as i32;
    }
    if mask & RBBIM_BACKGROUND != 0 {
        b.bitmap = f(48)?;
    }
    if mask & RBBIM_ID != 0 {
        b.id = f(52)?;
    }
    if size >= 80 {
        if mask & RBBIM_IDEALSIZE != 0 {
            b.cx_ideal = f(68)? as i32;
        }
        if mask & RBBIM_LPARAM != 0 {
            b.lparam = f(72)?;
        }
        if mask & RBBIM_HEADERSIZE != 0 {
            b.header = Some(f(76)? as i32);
        }
    }
    Ok(())
}

fn write_info(cx: &mut Ctx, p: u32, b: &Band, u: bool) -> UR<()> {
    let m = &cx.proc.mem;
    let size = m.read_u32(p)?;
    let mask = m.read_u32(p + 4)?;
    let w = |o: u32, v: u32| m.write_u32(p + o, v);
    if mask & RBBIM_STYLE != 0 {
        w(8, b.style)?;
    }
    if mask & RBBIM_COLORS != 0 {
        w(12, b.fore)?;
        w(16, b.back)?;
    }
    if mask & RBBIM_IMAGE != 0 {
        w(28, b.image as u32)?;
    }
    if mask & RBBIM_CHILD != 0 {
        w(32, b.child)?;
    }
    if mask & RBBIM_CHILDSIZE != 0 {
        w(36, b.cx_min as u32)?;
        w(40, b.cy_min as u32)?;
        if size >= 80 {
            w(56, b.cy_child as u32)?;
            w(60, b.cy_max as u32)?;
            w(64, b.cy_integral as u32)?;
        }
    }
    if mask & RBBIM_SIZE != 0 {
        w(44, b.rect.width() as u32)?;
    }
    if mask & RBBIM_BACKGROUND != 0 {
        w(48, b.bitmap)?;
    }
    if mask & RBBIM_ID != 0 {
        w(52, b.id)?;
    }
    if size >= 80 {
        if mask & RBBIM_IDEALSIZE != 0 {
            w(68, b.cx_ideal as u32)?;
        }
        if mask & RBBIM_LPARAM != 0 {
            w(72, b.lparam)?;
        }
        if mask & RBBIM_HEADERSIZE != 0 {
            w(76, b.header.unwrap_or(0) as u32)?;
        }
    }
    if mask & RBBIM_TEXT != 0 {
        let tp = m.read_u32(p + 20)?;
        let cap = m.read_u32(p + 24)?;
        if tp != 0 && cap != 0 {
            crate::user32::put_str(cx, tp, cap, &b.text, u)?;
        }
    }
    Ok(())
}

/// The width of a band's header: gripper, image and text.
fn header_width(cx: &mut Ctx, h: u32, b: &Band, visible_bands: usize, himl: u32) -> UR<i32> {
    if let Some(hw) = b.header {
        return Ok(hw);
    }
    let mut w = 0;
    let gripper =
        b.style & RBBS_NOGRIPPER == 0 && (visible_bands > 1 || b.style & RBBS_GRIPPERALWAYS != 0);
    if gripper {
        w += GRIPPER;
    }
    if b.image >= 0
        && himl != 0
        && let Some((iw, _)) = imagelist::size(cx.proc, himl)
    {
        w += iw + 2;
    }
    if !b.text.is_empty() {
        w += cc::text_width(cx, h, &b.text)? + 4;
    }
    if w > 0 {
        w += 2;
    }
    Ok(w)
}

fn band_height(b: &Band) -> i32 {
    let child = if b.style & RBBS_VARIABLEHEIGHT != 0 && b.cy_child > 0 {
        b.cy_child.max(b.cy_min)
    } else {
        b.cy_min
    };
    child
        + if b.style & RBBS_CHILDEDGE != 0 {
            2 * CHILD_EDGE
        } else {
            0
        }
}

/// Lays the bands out in a bar `width` wide; moves the children, returns the bar's
/// height.
fn layout(cx: &mut Ctx, h: u32, width: i32) -> UR<i32> {
    let Some(w) = cc::win(cx, h) else {
        return Ok(0);
    };
    let (mut bands, himl) = st(cx, h, |s| (s.bands.clone(), s.himl));
    let visible = bands.iter().filter(|b| b.style & RBBS_HIDDEN == 0).count();
    let borders = w.style & RBS_BANDBORDERS != 0;
    let mut headers = Vec::with_capacity(bands.len());
    for b in &bands {
        headers.push(header_width(cx, h, b, visible, himl)?);
    }
    // Rows: (first band, last band) indexes.
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut x = 0;
    for (i, b) in bands.iter().enumerate() {
        if b.style & RBBS_HIDDEN != 0 {
            continue;
        }
        let min = headers[i] + b.cx_min + 4;
        let want = b.cx.max(min);
        let new_row = rows.is_empty()
            || b.style & RBBS_BREAK != 0
            || (x + min > width && rows.last().is_some_and(|r| !r.is_empty()));
        if new_row {
            rows.push(Vec::new());
            x = 0;
        }
        rows.last_mut().expect("a row was pushed").push(i);
        x += want + if borders { SEP } else { 0 };
    }
    let mut y = 0;
    let mut row_info = Vec::new();
    for (ri, row) in rows.iter().enumerate() {
        if ri > 0 {
            y += SEP;
        }
        let rh = row
            .iter()
            .map(|&i| band_height(&bands[i]))
            .max()
            .unwrap_or(0);
        let mut x = 0;
        for (k, &i) in row.iter().enumerate() {
            let b = &bands[i];
            let min = headers[i] + b.cx_min + 4;
            let last = k + 1 == row.len();
            let bw = if last {
                (width - x).max(min)
            } else {
                b.cx.max(min)
            };
            bands[i].rect = Rect::new(x, y, x + bw, y + rh);
            bands[i].row = ri;
            x += bw + if borders { SEP } else { 0 };
        }
        row_info.push((y, rh));
        y += rh;
    }
    // Children: after the header, inside the band's edges.
    for (i, b) in bands.iter().enumerate() {
        if b.child == 0 {
            continue;
        }
        if b.style & RBBS_HIDDEN != 0 {
            crate::user32::call_export(cx, "USER32.dll", "ShowWindow", &[b.child, 0])?;
            continue;
        }
        let edge = b.style & RBBS_CHILDEDGE != 0;
        let left = b.rect.left + headers[i] + if edge { 4 } else { 0 };
        let right = (b.rect.right - if edge { 4 } else { 0 }).max(left);
        let ch = if b.style & RBBS_VARIABLEHEIGHT != 0 {
            b.rect.height() - if edge { 2 * CHILD_EDGE } else { 0 }
        } else {
            b.cy_min
        };
        let top = b.rect.top + (b.rect.height() - ch) / 2;
        cc::place(cx, b.child, Rect::new(left, top, right, top + ch))?;
    }
    st(cx, h, |s| {
        for (d, b) in s.bands.iter_mut().zip(&bands) {
            d.rect = b.rect;
            d.row = b.row;
        }
        s.rows = row_info;
    });
    Ok(y)
}

/// Lays out at the current width and resizes the rebar to its bands' height,
/// telling the parent when that changed.
fn relayout(cx: &mut Ctx, h: u32) -> UR<()> {
    if st(cx, h, |s| std::mem::replace(&mut s.laying_out, true)) {
        return Ok(());
    }
    let r = (|| -> UR<()> {
        let Some(w) = cc::win(cx, h) else {
            return Ok(());
        };
        let width = if w.style & cc::CCS_NORESIZE == 0 && w.parent != 0 {
            cc::client_size(cx, w.parent).0
        } else {
            w.w
        };
        let hgt = layout(cx, h, width)?;
        let border = w.rect.height() - w.h;
        let old = st(cx, h, |s| std::mem::replace(&mut s.height, hgt));
        if let Some(r) = cc::align_in_parent(cx, &w, hgt + border) {
            cc::place(cx, h, r)?;
        }
        cc::redraw(cx, h);
        if old != hgt {
            notify(cx, h, RBN_HEIGHTCHANGE, &[])?;
            if w.style & RBS_AUTOSIZE != 0 {
                let (cw, _) = cc::client_size(cx, h);
                notify(
                    cx,
                    h,
                    RBN_AUTOSIZE,
                    &[1, 0, 0, cw as u32, old as u32, 0, 0, cw as u32, hgt as u32],
                )?;
            }
        }
        Ok(())
    })();
    st(cx, h, |s| s.laying_out = false);
    r
}

fn notify(cx: &mut Ctx, h: u32, code: u32, extra: &[u32]) -> UR<(u32, Vec<u32>)> {
    let to = st(cx, h, |s| s.notify);
    let to = if to != 0 {
        to
    } else {
        cc::win(cx, h).map_or(0, |w| w.parent)
    };
    cc::notify_to(cx, to, h, code, extra)
}

fn insert_band(cx: &mut Ctx, h: u32, at: u32, p: u32, u: bool) -> UR<u32> {
    if p == 0 {
        return Ok(0);
    }
    let mut b = Band {
        image: -1,
        fore: cc::CLR_DEFAULT,
        back: cc::CLR_DEFAULT,
        ..Band::default()
    };
    apply_info(cx, p, &mut b, u)?;
    adopt(cx, h, b.child)?;
    st(cx, h, |s| {
        let i = if at as i32 == -1 || at as usize > s.bands.len() {
            s.bands.len()
        } else {
            at as usize
        };
        s.bands.insert(i, b);
    });
    relayout(cx, h)?;
    Ok(1)
}

/// A band's child becomes the rebar's child window.
fn adopt(cx: &mut Ctx, h: u32, child: u32) -> UR<()> {
    if child != 0 && cc::win(cx, child).is_some_and(|w| w.parent != h) {
        crate::user32::call_export(cx, "USER32.dll", "SetParent", &[child, h])?;
    }
    Ok(())
}

fn paint(cx: &mut Ctx, h: u32) -> UR<u32> {
    let Some(w) = cc::win(cx, h) else {
        return Ok(0);
    };
    let (bands, himl, bk, rows) = st(cx, h, |s| (s.bands.clone(), s.himl, s.bk, s.rows.clone()));
    let visible = bands.iter().filter(|b| b.style & RBBS_HIDDEN == 0).count();
    let mut headers = Vec::new();
    for b in &bands {
        headers.push(header_width(cx, h, b, visible, himl)?);
    }
    cc::paint(cx, h, |cx, hdc, w2| {
        let bg = if bk == 0 || bk == cc::CLR_DEFAULT {
            gp::sys_color(gp::COLOR_BTNFACE)
        } else {
            bk
        };
        cc::fill(cx, hdc, Rect::new(0, 0, w2.w, w2.h), bg)?;
        let borders = w.style & RBS_BANDBORDERS != 0;
        for (ri, (y, _)) in rows.iter().enumerate() {
            if ri > 0 && borders {
                gp::draw_edge_ex(
                    cx.proc,
                    hdc,
                    Rect::new(0, y - SEP, w2.w, *y),
                    gp::EDGE_ETCHED,
                    gp::BF_TOP,
                )?;
            }
        }
        for (i, b) in bands.iter().enumerate() {
            if b.style & RBBS_HIDDEN != 0 {
                continue;
            }
            let r = b.rect;
            if borders && r.left > 0 {
                gp::draw_edge_ex(
                    cx.proc,
                    hdc,
                    Rect::new(r.left - SEP, r.top, r.left, r.bottom),
                    gp::EDGE_ETCHED,
                    gp::BF_LEFT,
                )?;
            }
            let mut x = r.left + 2;
            let gripper =
                b.style & RBBS_NOGRIPPER == 0 && (visible > 1 || b.style & RBBS_GRIPPERALWAYS != 0);
            if gripper && b.header.is_none() {
                let g = Rect::new(x, r.top + 2, x + 3, r.bottom - 2);
                gp::draw_edge_ex(cx.proc, hdc, g, gp::BDR_RAISEDINNER, gp::BF_RECT)?;
                x += GRIPPER;
            }
            if b.image >= 0
                && himl != 0
                && let Some((iw, ih)) = imagelist::size(cx.proc, himl)
            {
                imagelist::draw(
                    cx.proc,
                    himl,
                    b.image,
                    hdc,
                    x,
                    r.top + (r.height() - ih) / 2,
                    imagelist::ILD_TRANSPARENT,
                )?;
                x += iw + 2;
            }
            if !b.text.is_empty() {
                let tr = Rect::new(x, r.top, r.left + headers[i], r.bottom);
                gp::draw_text(
                    cx.proc,
                    hdc,
                    &b.text,
                    tr,
                    gp::DT_SINGLELINE | gp::DT_VCENTER,
                );
            }
        }
        Ok(())
    })
}

pub fn wndproc(cx: &mut Ctx, h: u32, m: u32, wp: u32, lp: u32, u: bool) -> UR<u32> {
    match m {
        WM_CREATE => {
            let parent = cc::win(cx, h).map_or(0, |w| w.parent);
            st(cx, h, |s| s.notify = parent);
            relayout(cx, h)?;
            Ok(0)
        }
        WM_NCDESTROY => {
            cc::drop_state::<State>(cx, h);
            crate::user32::window::def_window_proc(cx, h, m, wp, lp, u)
        }
        WM_SIZE => {
            relayout(cx, h)?;
            Ok(0)
        }
        WM_PAINT => paint(cx, h),
        WM_ERASEBKGND => Ok(1),
        WM_SETFONT => {
            cc::set_font(cx, h, wp);
            relayout(cx, h)?;
            Ok(0)
        }
        WM_GETFONT => Ok(cc::win(cx, h).map_or(0, |w| w.font)),
        // A band child's notifications and commands go on to the rebar's parent.
        WM_NOTIFY | WM_COMMAND => {
            let to = st(cx, h, |s| s.notify);
            if to != 0 {
                send(cx, to, m, wp, lp, u)
            } else {
                Ok(0)
            }
        }
        RB_INSERTBANDA => insert_band(cx, h, wp, lp, false),
        RB_INSERTBANDW => insert_band(cx, h, wp, lp, true),
        RB_DELETEBAND => {
            let ok = st(cx, h, |s| {
                if (wp as usize) < s.bands.len() {
                    s.bands.remove(wp as usize);
                    true
                } else {
                    false
                }
            });
            relayout(cx, h)?;
            Ok(ok as u32)
        }
        RB_SETBANDINFOA | RB_SETBANDINFOW => {
            let Some(mut b) = st(cx, h, |s| s.bands.get(wp as usize).cloned()) else {
                return Ok(0);
            };
            if lp == 0 {
                return Ok(0);
            }
            apply_info(cx, lp, &mut b, m == RB_SETBANDINFOW)?;
            adopt(cx, h, b.child)?;
            st(cx, h, |s| s.bands[wp as usize] = b);
            relayout(cx, h)?;
            Ok(1)
        }
        RB_GETBANDINFOA | RB_GETBANDINFOW => {
            let Some(b) = st(cx, h, |s| s.bands.get(wp as usize).cloned()) else {
                return Ok(0);
            };
            if lp == 0 {
                return Ok(0);
            }
            write_info(cx, lp, &b, m == RB_GETBANDINFOW)?;
            Ok(1)
        }
        RB_GETBANDCOUNT => Ok(st(cx, h, |s| s.bands.len() as u32)),
        RB_GETROWCOUNT => Ok(st(cx, h, |s| s.rows.len() as u32)),
        RB_GETROWHEIGHT => Ok(st(cx, h, |s| {
            s.bands
                .get(wp as usize)
                .and_then(|b| s.rows.get(b.row))
                .map_or(0, |r| r.1 as u32)
        })),
        RB_GETBARHEIGHT => Ok(st(cx, h, |s| s.height as u32)),
        RB_GETRECT => {
            let r = st(cx, h, |s| s.bands.get(wp as usize).map(|b| b.rect));
            match r {
                Some(r) if lp != 0 => {
                    cc::write_rect(cx, lp, r)?;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
        RB_GETBANDBORDERS => {
            let Some(b) = st(cx, h, |s| s.bands.get(wp as usize).cloned()) else {
                return Ok(0);
            };
            let (himl, n) = st(cx, h, |s| (s.himl, s.bands.len()));
            let hw = header_width(cx, h, &b, n, himl)?;
            if lp != 0 {
                let e = if b.style & RBBS_CHILDEDGE != 0 { 4 } else { 0 };
                cc::write_rect(cx, lp, Rect::new(hw + e, e / 2, e, e / 2))?;
            }
            Ok(1)
        }
        RB_IDTOINDEX => Ok(st(cx, h, |s| {
            s.bands
                .iter()
                .position(|b| b.id == wp)
                .map_or(u32::MAX, |i| i as u32)
        })),
        RB_SHOWBAND => {
            let ok = st(cx, h, |s| match s.bands.get_mut(wp as usize) {
                Some(b) => {
                    if lp != 0 {
                        b.style &= !RBBS_HIDDEN;
                    } else {
                        b.style |= RBBS_HIDDEN;
                    }
                    true
                }
                None => false,
            });
            if ok
                && lp != 0
                && let Some(c) = st(cx, h, |s| s.bands.get(wp as usize).map(|b| b.child))
                && c != 0
            {
                crate::user32::call_export(cx, "USER32.dll", "ShowWindow", &[c, 8])?;
            }
            relayout(cx, h)?;
            Ok(ok as u32)
        }
        RB_MOVEBAND => {
            let ok = st(cx, h, |s| {
                let (a, b) = (wp as usize, lp as usize);
                if a < s.bands.len() && b < s.bands.len() {
                    let band = s.bands.remove(a);
                    s.bands.insert(b, band);
                    true
                } else {
                    false
                }
            });
            relayout(cx, h)?;
            Ok(ok as u32)
        }
        RB_MAXIMIZEBAND | RB_MINIMIZEBAND => {
            let ok = st(cx, h, |s| match s.bands.get_mut(wp as usize) {
                Some(b) => {
                    b.cx = if m == RB_MAXIMIZEBAND {
                        if lp != 0 && b.cx_ideal > 0 {
                            b.cx_ideal
                        } else {
                            i32::MAX / 4
                        }
                    } else {
                        0
                    };
                    true
                }
                None => false,
            });
            relayout(cx, h)?;
            Ok(ok as u32)
        }
        RB_SETBARINFO => {
            if lp == 0 {
                return Ok(0);
            }
            let mask = cx.proc.mem.read_u32(lp + 4)?;
            if mask & RBIM_IMAGELIST != 0 {
                let himl = cx.proc.mem.read_u32(lp + 8)?;
                st(cx, h, |s| s.himl = himl);
                relayout(cx, h)?;
            }
            Ok(1)
        }
        RB_GETBARINFO => {
            if lp == 0 {
                return Ok(0);
            }
            let mask = cx.proc.mem.read_u32(lp + 4)?;
            if mask & RBIM_IMAGELIST != 0 {
                let himl = st(cx, h, |s| s.himl);
                cx.proc.mem.write_u32(lp + 8, himl)?;
            }
            Ok(1)
        }
        RB_SETPARENT => Ok(st(cx, h, |s| std::mem::replace(&mut s.notify, wp))),
        RB_GETTOOLTIPS => Ok(st(cx, h, |s| s.tooltips)),
        RB_SETTOOLTIPS => {
            st(cx, h, |s| s.tooltips = wp);
            Ok(0)
        }
        RB_SETBKCOLOR => {
            let old = st(cx, h, |s| std::mem::replace(&mut s.bk, lp));
            cc::redraw(cx, h);
            Ok(old)
        }
        RB_GETBKCOLOR => Ok(st(cx, h, |s| s.bk)),
        RB_SETTEXTCOLOR => Ok(st(cx, h, |s| std::mem::replace(&mut s.fg, lp))),
        RB_GETTEXTCOLOR => Ok(st(cx, h, |s| s.fg)),
        RB_SIZETORECT => {
            if lp == 0 {
                return Ok(0);
            }
            let r = cc::read_rect(cx, lp)?;
            let old = st(cx, h, |s| s.height);
            let hgt = layout(cx, h, r.width())?;
            st(cx, h, |s| s.height = hgt);
            cc::redraw(cx, h);
            Ok((hgt != old) as u32)
        }
        _ => crate::user32::window::def_window_proc(cx, h, m, wp, lp, u),
    }
}

pub fn exports() -> Vec<crate::hle::ApiDef> {
    vec![crate::user32::hostclass::export(
        "__winterp_ReBarWndProc",
        wndproc,
    )]
}

pub fn class() -> crate::user32::hostclass::HostClass {
    crate::user32::hostclass::HostClass {
        name: "ReBarWindow32",
        export: "__winterp_ReBarWndProc",
        wndproc,
        style: 0x8 | 0x1 | 0x2,
        wnd_extra: 0,
        background: 0,
    }
}
