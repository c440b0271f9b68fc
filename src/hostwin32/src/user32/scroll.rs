//! Standard window scroll bars (WS_HSCROLL / WS_VSCROLL): their per-window state,
//! the USER32 functions that set and read it, their place in the non-client area,
//! their picture and DefWindowProc's answer to a click on them.
//!
//! As on Windows, a bar is visible exactly when its style bit is set: ShowScrollBar
//! and SetScrollInfo toggle WS_HSCROLL / WS_VSCROLL, and [`Wm::window_insets`]
//! takes SM_CXVSCROLL / SM_CYHSCROLL from the client area for each bit set.
//! Scroll bar controls (SB_CTL, the SCROLLBAR class) are not implemented and are
//! reported as such.

use super::msg::send;
use super::window::{put_rect, sys_color_rgb};
use super::wm::{self, WS_HSCROLL, WS_VSCROLL, Wm};
use super::{UR, fin, lock_wm};
use crate::gdi32::Rect;
use crate::gdi32::raster::{Raster, with_surface};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Outcome, Ptr, stdcall};

pub const SB_HORZ: i32 = 0;
pub const SB_VERT: i32 = 1;
pub const SB_CTL: i32 = 2;
pub const SB_BOTH: i32 = 3;

pub const SIF_RANGE: u32 = 0x1;
pub const SIF_PAGE: u32 = 0x2;
pub const SIF_POS: u32 = 0x4;
pub const SIF_DISABLENOSCROLL: u32 = 0x8;
pub const SIF_TRACKPOS: u32 = 0x10;
pub const SIF_ALL: u32 = SIF_RANGE | SIF_PAGE | SIF_POS | SIF_TRACKPOS;

pub const ESB_ENABLE_BOTH: u32 = 0;
pub const ESB_DISABLE_LTUP: u32 = 1;
pub const ESB_DISABLE_RTDN: u32 = 2;
pub const ESB_DISABLE_BOTH: u32 = 3;

pub const HTHSCROLL: u32 = 6;
pub const HTVSCROLL: u32 = 7;

pub const WM_HSCROLL: u32 = 0x0114;
pub const WM_VSCROLL: u32 = 0x0115;

pub const SB_LINEUP: u32 = 0;
pub const SB_LINEDOWN: u32 = 1;
pub const SB_PAGEUP: u32 = 2;
pub const SB_PAGEDOWN: u32 = 3;
pub const SB_ENDSCROLL: u32 = 8;

/// SM_CXVSCROLL and SM_CYHSCROLL (also the arrow buttons' length).
pub const BAR_SIZE: i32 = 16;
/// The thumb never gets shorter than this (Windows' minimum thumb length).
const MIN_THUMB: i32 = 8;

/// ERROR_NO_SCROLLBARS: the window has no such bar.
const ERROR_NO_SCROLLBARS: u32 = 1447;
/// ERROR_INVALID_PARAMETER.
const ERROR_INVALID_PARAMETER: u32 = 87;

/// One bar's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bar {
    pub min: i32,
    pub max: i32,
    pub page: u32,
    pub pos: i32,
    /// Where the thumb is being dragged (the position while no drag is running).
    pub track: i32,
    /// ESB_* arrows disabled.
    pub disabled: u32,
}

impl Default for Bar {
    /// A new bar's range is 0..100 (documented for standard scroll bars).
    fn default() -> Bar {
        Bar {
            min: 0,
            max: 100,
            page: 0,
            pos: 0,
            track: 0,
            disabled: ESB_ENABLE_BOTH,
        }
    }
}

impl Bar {
    /// The highest position: max - max(page - 1, 0).
    pub fn max_pos(&self) -> i32 {
        self.max
            .wrapping_sub((self.page as i32).saturating_sub(1).max(0))
    }

    /// Whether the range leaves nothing to scroll.
    pub fn nothing_to_scroll(&self) -> bool {
        self.min >= self.max_pos()
    }

    fn clamp_pos(&mut self) {
        if self.pos < self.min {
            self.pos = self.min;
        } else if self.pos > self.max_pos() {
            self.pos = self.max_pos().max(self.min);
        }
    }

    /// SetScrollInfo's work on the state: returns whether the range or page changed.
    pub fn set(&mut self, mask: u32, min: i32, max: i32, page: u32, pos: i32) -> bool {
        let before = (self.min, self.max, self.page);
        if mask & SIF_PAGE != 0 {
            self.page = page;
        }
        if mask & SIF_RANGE != 0 {
            // An inverted range or one wider than MAXLONG collapses to 0..0.
            if min > max || (max as i64 - min as i64) >= 0x8000_0000 {
                self.min = 0;
                self.max = 0;
            } else {
                self.min = min;
                self.max = max;
            }
        }
        // The page is never more than the whole range.
        let whole = (self.max as i64 - self.min as i64 + 1) as u64;
        if self.page as u64 > whole {
            self.page = whole as u32;
        }
        if mask & SIF_POS != 0 {
            self.pos = pos;
        }
        self.clamp_pos();
        self.track = self.pos;
        before != (self.min, self.max, self.page)
    }
}

/// A window's two bars, and the COMCTL32 flat scroll bar properties once
/// InitializeFlatSB has run for it.
#[derive(Clone, Debug, Default)]
pub struct Bars {
    pub horz: Option<Bar>,
    pub vert: Option<Bar>,
    pub flat: Option<Vec<(u32, i32)>>,
}

impl Bars {
    pub fn bar(&self, vert: bool) -> Option<&Bar> {
        if vert {
            self.vert.as_ref()
        } else {
            self.horz.as_ref()
        }
    }
    /// The bar, created on demand (each bar's state is made by the first call that
    /// sets something on it).
    pub fn bar_mut(&mut self, vert: bool) -> &mut Bar {
        let b = if vert { &mut self.vert } else { &mut self.horz };
        b.get_or_insert_with(Bar::default)
    }
}

fn style_bit(vert: bool) -> u32 {
    if vert { WS_VSCROLL } else { WS_HSCROLL }
}

/// `nBar` as "is it the vertical bar"; SB_CTL is reported (no SCROLLBAR control).
fn which(api: &str, nBar: i32) -> ApiResult<Option<bool>> {
    match nBar {
        SB_HORZ => Ok(Some(false)),
        SB_VERT => Ok(Some(true)),
        SB_CTL => Err(ApiError::UnimplementedCase(format!(
            "{api} with SB_CTL (scroll bar controls are not implemented)"
        ))),
        _ => Ok(None),
    }
}

/// The state of a window's bar, if it has one (its style bit, or state created by
/// an earlier call); `None` for no window or no bar.
pub fn get(wm: &Wm, hwnd: u32, vert: bool) -> Option<Bar> {
    let w = wm.win(hwnd)?;
    match w.scroll.as_ref().and_then(|b| b.bar(vert)) {
        Some(b) => Some(*b),
        None if w.style & style_bit(vert) != 0 => Some(Bar::default()),
        None => None,
    }
}

/// The window's scroll state, created on demand.
fn bars_mut(wm: &mut Wm, hwnd: u32) -> Option<&mut Bars> {
    let w = wm.win_mut(hwnd)?;
    Some(w.scroll.get_or_insert_with(Default::default))
}

/// Shows or hides bars (the style bits) and, when the client area changed with
/// them, tells the window with WM_SIZE as the frame change does on Windows.
fn show(cx: &mut Ctx, hwnd: u32, horz: Option<bool>, vert: Option<bool>) -> UR<()> {
    let (changed, size, unicode) = {
        let mut wm = lock_wm(cx.proc);
        let Some(w) = wm.win_mut(hwnd) else {
            return Ok(());
        };
        let old = w.style;
        for (b, on) in [(WS_HSCROLL, horz), (WS_VSCROLL, vert)] {
            match on {
                Some(true) => w.style |= b,
                Some(false) => w.style &= !b,
                None => {}
            }
        }
        if w.style == old {
            return Ok(());
        }
        let before = (w.client.width(), w.client.height());
        wm.recalc_client(hwnd);
        let Some(w) = wm.win(hwnd) else {
            return Ok(());
        };
        let after = (w.client.width(), w.client.height());
        let unicode = w.unicode;
        let changed = before != after;
        if changed {
            wm.invalidate(hwnd, None, true);
        }
        (changed, after, unicode)
    };
    if changed {
        let lp = (size.0 as u32 & 0xffff) | ((size.1 as u32 & 0xffff) << 16);
        send(cx, hwnd, super::msg::WM_SIZE, 0, lp, unicode)?;
    }
    Ok(())
}

/// SetScrollInfo for a window bar: returns the new position.
fn set_info(cx: &mut Ctx, hwnd: u32, vert: bool, mask: u32, vals: (i32, i32, u32, i32)) -> UR<i32> {
    let (pos, show_it) = {
        let mut wm = lock_wm(cx.proc);
        let visible = wm.win(hwnd).map(|w| w.style & style_bit(vert) != 0);
        let Some(visible) = visible else {
            return Ok(0);
        };
        let Some(bars) = bars_mut(&mut wm, hwnd) else {
            return Ok(0);
        };
        let b = bars.bar_mut(vert);
        let changed = b.set(mask, vals.0, vals.1, vals.2, vals.3);
        let mut show_it = None;
        if mask & (SIF_RANGE | SIF_PAGE | SIF_DISABLENOSCROLL) != 0 {
            if b.nothing_to_scroll() {
                if mask & SIF_DISABLENOSCROLL != 0 {
                    b.disabled = ESB_DISABLE_BOTH;
                } else if changed && visible {
                    show_it = Some(false);
                }
            } else if mask != SIF_PAGE {
                // A range that scrolls again enables the arrows and shows the bar
                // (a change of the page alone does neither).
                b.disabled = ESB_ENABLE_BOTH;
                if changed && !visible {
                    show_it = Some(true);
                }
            }
        }
        (b.pos, show_it)
    };
    if let Some(on) = show_it {
        if vert {
            show(cx, hwnd, None, Some(on))?;
        } else {
            show(cx, hwnd, Some(on), None)?;
        }
    }
    Ok(pos)
}

pub fn SetScrollInfo(
    cx: &mut Ctx,
    hwnd: u32,
    nBar: i32,
    lpsi: Ptr,
    redraw: bool,
) -> ApiResult<Outcome> {
    let _ = redraw; // the bars are repainted into every frame
    let Some(vert) = which("SetScrollInfo", nBar)? else {
        return Ok(Outcome::Return(0));
    };
    if lpsi.is_null() {
        return Ok(Outcome::Return(0));
    }
    let m = &cx.proc.mem;
    let cb = m.read_u32(lpsi.0)?;
    if cb != 28 && cb != 24 {
        crate::teb::set_last_error(cx, ERROR_INVALID_PARAMETER)?;
        return Ok(Outcome::Return(0));
    }
    let mask = m.read_u32(lpsi.0 + 4)?;
    let vals = (
        m.read_u32(lpsi.0 + 8)? as i32,
        m.read_u32(lpsi.0 + 12)? as i32,
        m.read_u32(lpsi.0 + 16)?,
        m.read_u32(lpsi.0 + 20)? as i32,
    );
    fin(set_info(cx, hwnd, vert, mask, vals).map(|p| p as u32))
}

pub fn GetScrollInfo(cx: &mut Ctx, hwnd: u32, nBar: i32, lpsi: Ptr) -> ApiResult<bool> {
    let Some(vert) = which("GetScrollInfo", nBar)? else {
        return Ok(false);
    };
    if lpsi.is_null() {
        return Ok(false);
    }
    let m = &cx.proc.mem;
    let cb = m.read_u32(lpsi.0)?;
    let mask = m.read_u32(lpsi.0 + 4)?;
    if (cb != 28 && cb != 24) || mask & SIF_ALL == 0 {
        return Ok(false);
    }
    let Some(b) = get(&lock_wm(cx.proc), hwnd, vert) else {
        crate::teb::set_last_error(cx, ERROR_NO_SCROLLBARS)?;
        return Ok(false);
    };
    if mask & SIF_RANGE != 0 {
        m.write_u32(lpsi.0 + 8, b.min as u32)?;
        m.write_u32(lpsi.0 + 12, b.max as u32)?;
    }
    if mask & SIF_PAGE != 0 {
        m.write_u32(lpsi.0 + 16, b.page)?;
    }
    if mask & SIF_POS != 0 {
        m.write_u32(lpsi.0 + 20, b.pos as u32)?;
    }
    // nTrackPos exists only in the 28-byte structure.
    if mask & SIF_TRACKPOS != 0 && cb == 28 {
        m.write_u32(lpsi.0 + 24, b.track as u32)?;
    }
    Ok(true)
}

pub fn SetScrollPos(
    cx: &mut Ctx,
    hWnd: u32,
    nBar: i32,
    nPos: i32,
    bRedraw: bool,
) -> ApiResult<Outcome> {
    let _ = bRedraw; // the bars are repainted into every frame
    let Some(vert) = which("SetScrollPos", nBar)? else {
        return Ok(Outcome::Return(0));
    };
    // Unlike the other setters, SetScrollPos does nothing to a window without the bar.
    let Some(old) = get(&lock_wm(cx.proc), hWnd, vert) else {
        crate::teb::set_last_error(cx, ERROR_NO_SCROLLBARS)?;
        return Ok(Outcome::Return(0));
    };
    let r = set_info(cx, hWnd, vert, SIF_POS, (0, 0, 0, nPos));
    fin(r.map(|_| old.pos as u32))
}

pub fn GetScrollPos(cx: &mut Ctx, hWnd: u32, nBar: i32) -> ApiResult<i32> {
    let Some(vert) = which("GetScrollPos", nBar)? else {
        return Ok(0);
    };
    match get(&lock_wm(cx.proc), hWnd, vert) {
        Some(b) => Ok(b.pos),
        None => {
            crate::teb::set_last_error(cx, ERROR_NO_SCROLLBARS)?;
            Ok(0)
        }
    }
}

pub fn SetScrollRange(
    cx: &mut Ctx,
    hWnd: u32,
    nBar: i32,
    nMinPos: i32,
    nMaxPos: i32,
    bRedraw: bool,
) -> ApiResult<Outcome> {
    let _ = bRedraw; // the bars are repainted into every frame
    let Some(vert) = which("SetScrollRange", nBar)? else {
        return Ok(Outcome::Return(0));
    };
    if lock_wm(cx.proc).win(hWnd).is_none() {
        return Ok(Outcome::Return(0));
    }
    if (nMaxPos as i64 - nMinPos as i64) > i32::MAX as i64 {
        crate::teb::set_last_error(cx, ERROR_INVALID_PARAMETER)?;
        return Ok(Outcome::Return(0));
    }
    let r = set_info(cx, hWnd, vert, SIF_RANGE, (nMinPos, nMaxPos, 0, 0));
    fin(r.map(|_| 1u32))
}

pub fn GetScrollRange(
    cx: &mut Ctx,
    hWnd: u32,
    nBar: i32,
    lpMinPos: Ptr,
    lpMaxPos: Ptr,
) -> ApiResult<bool> {
    let Some(vert) = which("GetScrollRange", nBar)? else {
        return Ok(false);
    };
    // A window without the bar reports 0..0.
    let (min, max) = get(&lock_wm(cx.proc), hWnd, vert).map_or((0, 0), |b| (b.min, b.max));
    if !lpMinPos.is_null() {
        cx.proc.mem.write_u32(lpMinPos.0, min as u32)?;
    }
    if !lpMaxPos.is_null() {
        cx.proc.mem.write_u32(lpMaxPos.0, max as u32)?;
    }
    Ok(true)
}

pub fn ShowScrollBar(cx: &mut Ctx, hWnd: u32, wBar: i32, bShow: bool) -> ApiResult<Outcome> {
    if lock_wm(cx.proc).win(hWnd).is_none() {
        return Ok(Outcome::Return(0));
    }
    let (h, v) = match wBar {
        SB_HORZ => (Some(bShow), None),
        SB_VERT => (None, Some(bShow)),
        SB_BOTH => (Some(bShow), Some(bShow)),
        SB_CTL => {
            return Err(ApiError::UnimplementedCase(
                "ShowScrollBar with SB_CTL (scroll bar controls are not implemented)".into(),
            ));
        }
        _ => return Ok(Outcome::Return(0)),
    };
    fin(show(cx, hWnd, h, v).map(|_| 1u32))
}

pub fn EnableScrollBar(cx: &mut Ctx, hWnd: u32, wSBflags: u32, wArrows: u32) -> ApiResult<bool> {
    let which_bars: &[bool] = match wSBflags as i32 {
        SB_HORZ => &[false],
        SB_VERT => &[true],
        SB_BOTH => &[false, true],
        SB_CTL => {
            return Err(ApiError::UnimplementedCase(
                "EnableScrollBar with SB_CTL (scroll bar controls are not implemented)".into(),
            ));
        }
        _ => return Ok(false),
    };
    let mut wm = lock_wm(cx.proc);
    let Some(bars) = bars_mut(&mut wm, hWnd) else {
        return Ok(false);
    };
    // FALSE when nothing changed (the arrows already were in that state).
    let mut changed = false;
    for &v in which_bars {
        let b = bars.bar_mut(v);
        if b.disabled != wArrows & ESB_DISABLE_BOTH {
            b.disabled = wArrows & ESB_DISABLE_BOTH;
            changed = true;
        }
    }
    Ok(changed)
}

const OBJID_VSCROLL: i32 = -5;
const OBJID_HSCROLL: i32 = -6;
const OBJID_CLIENT: i32 = -4;
const STATE_SYSTEM_UNAVAILABLE: u32 = 0x1;
const STATE_SYSTEM_INVISIBLE: u32 = 0x8000;

pub fn GetScrollBarInfo(cx: &mut Ctx, hwnd: u32, idObject: i32, psbi: Ptr) -> ApiResult<bool> {
    let vert = match idObject {
        OBJID_VSCROLL => true,
        OBJID_HSCROLL => false,
        OBJID_CLIENT => {
            return Err(ApiError::UnimplementedCase(
                "GetScrollBarInfo of a scroll bar control (OBJID_CLIENT)".into(),
            ));
        }
        _ => return Ok(false),
    };
    if psbi.is_null() || cx.proc.mem.read_u32(psbi.0)? != 60 {
        crate::teb::set_last_error(cx, ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    let (rect, geo, b, visible) = {
        let wm = lock_wm(cx.proc);
        let Some(w) = wm.win(hwnd) else {
            return Ok(false);
        };
        let b = get(&wm, hwnd, vert).unwrap_or_default();
        let r = bar_rect(w.client, vert);
        let (ox, oy) = wm.window_origin(hwnd);
        let visible = w.style & style_bit(vert) != 0;
        (r.offset(ox, oy), geometry(&b, r, vert), b, visible)
    };
    let m = &cx.proc.mem;
    put_rect(cx, psbi.0 + 4, rect)?;
    m.write_u32(psbi.0 + 20, geo.arrow as u32)?;
    let (t0, t1) = geo.thumb.unwrap_or((0, 0));
    m.write_u32(psbi.0 + 24, t0 as u32)?;
    m.write_u32(psbi.0 + 28, t1 as u32)?;
    m.write_u32(psbi.0 + 32, 0)?;
    let mut st = [0u32; 6];
    if !visible {
        st[0] |= STATE_SYSTEM_INVISIBLE;
    }
    if b.disabled == ESB_DISABLE_BOTH {
        st[0] |= STATE_SYSTEM_UNAVAILABLE;
    }
    if b.disabled & ESB_DISABLE_LTUP != 0 {
        st[1] |= STATE_SYSTEM_UNAVAILABLE;
    }
    if b.disabled & ESB_DISABLE_RTDN != 0 {
        st[5] |= STATE_SYSTEM_UNAVAILABLE;
    }
    if geo.thumb.is_none() {
        st[3] |= STATE_SYSTEM_INVISIBLE;
    }
    for (k, s) in st.iter().enumerate() {
        m.write_u32(psbi.0 + 36 + 4 * k as u32, *s)?;
    }
    Ok(true)
}

// ---- layout, hit-testing and painting ------------------------------------------------

/// Where a window's bar is, in window coordinates, given its client rectangle
/// (the bars lie just right of and below the client area, inside any client edge).
pub fn bar_rect(client: Rect, vert: bool) -> Rect {
    if vert {
        Rect::new(
            client.right,
            client.top,
            client.right + BAR_SIZE,
            client.bottom,
        )
    } else {
        Rect::new(
            client.left,
            client.bottom,
            client.right,
            client.bottom + BAR_SIZE,
        )
    }
}

/// A bar's parts along its length, in pixels from its start: the arrows' length
/// and the thumb's extent (none when there is nothing to scroll, the bar is
/// disabled or it is too short to hold one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub len: i32,
    pub arrow: i32,
    pub thumb: Option<(i32, i32)>,
}

pub fn geometry(b: &Bar, r: Rect, vert: bool) -> Geometry {
    let len = if vert { r.height() } else { r.width() };
    // A bar shorter than two arrows squeezes them.
    let arrow = if len < 2 * BAR_SIZE {
        len / 2
    } else {
        BAR_SIZE
    };
    let pixels = len - 2 * arrow;
    let thumb = if b.disabled == ESB_DISABLE_BOTH || b.nothing_to_scroll() {
        None
    } else {
        let t = if b.page != 0 {
            let whole = b.max as i64 - b.min as i64 + 1;
            ((pixels as i64 * b.page as i64) / whole).max(MIN_THUMB as i64) as i32
        } else {
            BAR_SIZE
        };
        if pixels < t {
            None
        } else {
            let span = b.max_pos() as i64 - b.min as i64;
            let off = if span > 0 {
                ((pixels - t) as i64 * (b.pos as i64 - b.min as i64) / span) as i32
            } else {
                0
            };
            Some((arrow + off, arrow + off + t))
        }
    };
    Geometry { len, arrow, thumb }
}

/// A point's part of a bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    ArrowUp,
    PageUp,
    Thumb,
    PageDown,
    ArrowDown,
}

pub fn part_at(g: &Geometry, at: i32) -> Part {
    if at < g.arrow {
        return Part::ArrowUp;
    }
    if at >= g.len - g.arrow {
        return Part::ArrowDown;
    }
    match g.thumb {
        Some((t0, _)) if at < t0 => Part::PageUp,
        Some((_, t1)) if at >= t1 => Part::PageDown,
        Some(_) => Part::Thumb,
        // Without a thumb the track pages by its halves.
        None if at < g.len / 2 => Part::PageUp,
        None => Part::PageDown,
    }
}

/// WM_NCHITTEST's answer for a window point (window coordinates) on a visible bar.
pub fn hit_test(w: &wm::Window, x: i32, y: i32) -> Option<u32> {
    if w.style & WS_VSCROLL != 0 && bar_rect(w.client, true).contains(x, y) {
        return Some(HTVSCROLL);
    }
    if w.style & WS_HSCROLL != 0 && bar_rect(w.client, false).contains(x, y) {
        return Some(HTHSCROLL);
    }
    None
}

/// DefWindowProc's WM_NCLBUTTONDOWN on a bar: the scroll request for the part
/// pressed, then SB_ENDSCROLL (the button is taken as released at once: there is
/// no auto-repeat while it is held, and dragging the thumb is not implemented, so
/// a press on the thumb requests nothing).
pub fn click(cx: &mut Ctx, hwnd: u32, hit: u32, pt: (i32, i32), unicode: bool) -> UR<()> {
    let vert = hit == HTVSCROLL;
    let req = {
        let wm = lock_wm(cx.proc);
        let Some(w) = wm.win(hwnd) else {
            return Ok(());
        };
        let b = get(&wm, hwnd, vert).unwrap_or_default();
        let r = bar_rect(w.client, vert);
        let (ox, oy) = wm.window_origin(hwnd);
        let g = geometry(&b, r, vert);
        let at = if vert {
            pt.1 - oy - r.top
        } else {
            pt.0 - ox - r.left
        };
        match part_at(&g, at) {
            Part::ArrowUp if b.disabled & ESB_DISABLE_LTUP == 0 => Some(SB_LINEUP),
            Part::ArrowDown if b.disabled & ESB_DISABLE_RTDN == 0 => Some(SB_LINEDOWN),
            Part::PageUp if g.thumb.is_some() => Some(SB_PAGEUP),
            Part::PageDown if g.thumb.is_some() => Some(SB_PAGEDOWN),
            Part::Thumb => {
                log::warn!("scroll bar thumb drag on window {hwnd:#x} is not implemented");
                None
            }
            _ => None,
        }
    };
    if let Some(code) = req {
        let msg = if vert { WM_VSCROLL } else { WM_HSCROLL };
        send(cx, hwnd, msg, code, 0, unicode)?;
        send(cx, hwnd, msg, SB_ENDSCROLL, 0, unicode)?;
    }
    Ok(())
}

fn fill(r: &mut Raster, rc: Rect, c: u32) {
    let a = rc.intersect(&r.area());
    for y in a.top..a.bottom {
        r.span(y, a.left, a.right, |_, _| c);
    }
}

const COLOR_SCROLLBAR: u32 = 0;
const COLOR_3DFACE: u32 = 15;
const COLOR_BTNSHADOW: u32 = 16;
const COLOR_GRAYTEXT: u32 = 17;
const COLOR_BTNTEXT: u32 = 18;
const COLOR_BTNHIGHLIGHT: u32 = 20;
const COLOR_3DDKSHADOW: u32 = 21;
const COLOR_3DLIGHT: u32 = 22;

/// A raised 3D-face button (DFCS_BUTTONPUSH's EDGE_RAISED look).
fn button(r: &mut Raster, b: Rect) {
    let c = sys_color_rgb;
    fill(r, b, c(COLOR_3DFACE));
    fill(
        r,
        Rect::new(b.left, b.top, b.right, b.top + 1),
        c(COLOR_3DLIGHT),
    );
    fill(
        r,
        Rect::new(b.left, b.top, b.left + 1, b.bottom),
        c(COLOR_3DLIGHT),
    );
    let i = Rect::new(b.left + 1, b.top + 1, b.right - 1, b.bottom - 1);
    fill(
        r,
        Rect::new(i.left, i.top, i.right, i.top + 1),
        c(COLOR_BTNHIGHLIGHT),
    );
    fill(
        r,
        Rect::new(i.left, i.top, i.left + 1, i.bottom),
        c(COLOR_BTNHIGHLIGHT),
    );
    fill(
        r,
        Rect::new(i.left, i.bottom - 1, i.right, i.bottom),
        c(COLOR_BTNSHADOW),
    );
    fill(
        r,
        Rect::new(i.right - 1, i.top, i.right, i.bottom),
        c(COLOR_BTNSHADOW),
    );
    fill(
        r,
        Rect::new(b.left, b.bottom - 1, b.right, b.bottom),
        c(COLOR_3DDKSHADOW),
    );
    fill(
        r,
        Rect::new(b.right - 1, b.top, b.right, b.bottom),
        c(COLOR_3DDKSHADOW),
    );
}

/// An arrow button: a small solid triangle pointing `dir` (0 up, 1 down, 2 left,
/// 3 right), grey when disabled.
fn arrow(r: &mut Raster, b: Rect, dir: u32, enabled: bool) {
    button(r, b);
    let col = sys_color_rgb(if enabled {
        COLOR_BTNTEXT
    } else {
        COLOR_GRAYTEXT
    });
    let (cx, cy) = ((b.left + b.right) / 2, (b.top + b.bottom) / 2);
    let n = (b.width().min(b.height()) / 4).max(1);
    for k in 0..n {
        // Row k of the triangle from its tip: 2k+1 pixels wide.
        let (tip_x, tip_y) = match dir {
            0 => (cx, cy - n / 2 + k),
            1 => (cx, cy + n / 2 - k),
            2 => (cx - n / 2 + k, cy),
            _ => (cx + n / 2 - k, cy),
        };
        let seg = if dir < 2 {
            Rect::new(tip_x - k, tip_y, tip_x + k + 1, tip_y + 1)
        } else {
            Rect::new(tip_x, tip_y - k, tip_x + 1, tip_y + k + 1)
        };
        fill(r, seg, col);
    }
}

fn paint_bar(r: &mut Raster, b: &Bar, rect: Rect, vert: bool, off: (i32, i32)) {
    let g = geometry(b, rect, vert);
    let rect = rect.offset(off.0, off.1);
    let along = |a: i32, z: i32| {
        if vert {
            Rect::new(rect.left, rect.top + a, rect.right, rect.top + z)
        } else {
            Rect::new(rect.left + a, rect.top, rect.left + z, rect.bottom)
        }
    };
    fill(r, rect, sys_color_rgb(COLOR_SCROLLBAR));
    let (d0, d1) = if vert { (0, 1) } else { (2, 3) };
    arrow(r, along(0, g.arrow), d0, b.disabled & ESB_DISABLE_LTUP == 0);
    arrow(
        r,
        along(g.len - g.arrow, g.len),
        d1,
        b.disabled & ESB_DISABLE_RTDN == 0,
    );
    if let Some((t0, t1)) = g.thumb {
        button(r, along(t0, t1));
    }
}

/// Paints the visible bars of every window into its top-level window's surface.
/// Called for each frame: the bars lie in their parent's client area, which the
/// parent's own painting may cover, so they are put back every time.
pub fn paint_all(wm: &Wm) {
    for (&h, w) in &wm.windows {
        if w.style & (WS_HSCROLL | WS_VSCROLL) == 0 || !wm.is_visible(h) {
            continue;
        }
        let top = wm.top_of(h);
        let Some(surface) = wm.win(top).and_then(|t| t.surface.as_ref()) else {
            continue;
        };
        let (tx, ty) = wm.window_origin(top);
        let (wx, wy) = wm.window_origin(h);
        let off = (wx - tx, wy - ty);
        let c = w.client;
        let whole = Rect::new(0, 0, w.rect.width(), w.rect.height()).offset(off.0, off.1);
        let mut s = surface.lock().unwrap_or_else(|e| e.into_inner());
        with_surface(&mut s, whole, |r| {
            for vert in [true, false] {
                if w.style & style_bit(vert) != 0 {
                    let b = get(wm, h, vert).unwrap_or_default();
                    paint_bar(r, &b, bar_rect(c, vert), vert, off);
                }
            }
            if w.style & (WS_HSCROLL | WS_VSCROLL) == WS_HSCROLL | WS_VSCROLL {
                // The square where the two bars meet.
                let sq = Rect::new(c.right, c.bottom, c.right + BAR_SIZE, c.bottom + BAR_SIZE);
                fill(r, sq.offset(off.0, off.1), sys_color_rgb(COLOR_3DFACE));
            }
        });
    }
}

// ---- COMCTL32 flat scroll bars --------------------------------------------------------
//
// Flat scroll bars behave as the standard ones with another look; winterp draws them
// as the standard ones, so the FlatSB_ functions act on the standard bars (what
// Windows does too for a window where InitializeFlatSB has not run) and only the
// WSB_PROP_* values are kept apart, per window.

const WSB_PROP_CYVSCROLL: u32 = 0x1;
const WSB_PROP_CXHSCROLL: u32 = 0x2;
const WSB_PROP_CYHSCROLL: u32 = 0x4;
const WSB_PROP_CXVSCROLL: u32 = 0x8;
const WSB_PROP_CXHTHUMB: u32 = 0x10;
const WSB_PROP_CYVTHUMB: u32 = 0x20;
const WSB_PROP_VBKGCOLOR: u32 = 0x40;
const WSB_PROP_HBKGCOLOR: u32 = 0x80;
const WSB_PROP_VSTYLE: u32 = 0x100;
const WSB_PROP_HSTYLE: u32 = 0x200;
const WSB_PROP_WINSTYLE: u32 = 0x400;
const WSB_PROP_PALETTE: u32 = 0x800;
const WSB_PROP_MASK: u32 = 0xfff;
/// FSB_REGULAR_MODE: the bars look as standard ones (the look winterp draws).
const FSB_REGULAR_MODE: i32 = 0;
/// CLR_DEFAULT: the system colour.
const CLR_DEFAULT: i32 = 0xff00_0000_u32 as i32;

/// The properties a window gets from InitializeFlatSB: the system metrics, the
/// default colours and the regular look.
fn flat_defaults(style: u32) -> Vec<(u32, i32)> {
    vec![
        (WSB_PROP_CYVSCROLL, BAR_SIZE),
        (WSB_PROP_CXHSCROLL, BAR_SIZE),
        (WSB_PROP_CYHSCROLL, BAR_SIZE),
        (WSB_PROP_CXVSCROLL, BAR_SIZE),
        (WSB_PROP_CXHTHUMB, BAR_SIZE),
        (WSB_PROP_CYVTHUMB, BAR_SIZE),
        (WSB_PROP_VBKGCOLOR, CLR_DEFAULT),
        (WSB_PROP_HBKGCOLOR, CLR_DEFAULT),
        (WSB_PROP_VSTYLE, FSB_REGULAR_MODE),
        (WSB_PROP_HSTYLE, FSB_REGULAR_MODE),
        (WSB_PROP_WINSTYLE, style as i32),
        (WSB_PROP_PALETTE, 0),
    ]
}

pub fn InitializeFlatSB(cx: &mut Ctx, hwnd: u32) -> bool {
    let mut wm = lock_wm(cx.proc);
    let Some(style) = wm.win(hwnd).map(|w| w.style) else {
        return false;
    };
    let Some(bars) = bars_mut(&mut wm, hwnd) else {
        return false;
    };
    if bars.flat.is_none() {
        bars.flat = Some(flat_defaults(style));
    }
    true
}

pub fn UninitializeFlatSB(cx: &mut Ctx, hwnd: u32) -> u32 {
    let mut wm = lock_wm(cx.proc);
    if let Some(b) = wm.win_mut(hwnd).and_then(|w| w.scroll.as_mut()) {
        b.flat = None;
    }
    0 // S_OK
}

pub fn FlatSB_SetScrollProp(
    cx: &mut Ctx,
    hwnd: u32,
    index: u32,
    newValue: i32,
    fRedraw: bool,
) -> bool {
    let _ = fRedraw; // the look does not change with the properties
    let mut wm = lock_wm(cx.proc);
    let Some(flat) = wm
        .win_mut(hwnd)
        .and_then(|w| w.scroll.as_mut())
        .and_then(|b| b.flat.as_mut())
    else {
        return false;
    };
    // Several WSB_PROP_ bits may be set at once; each gets the value.
    let mut any = false;
    for (p, v) in flat.iter_mut() {
        if index & *p != 0 {
            *v = newValue;
            any = true;
        }
    }
    any && index & !WSB_PROP_MASK == 0
}

pub fn FlatSB_GetScrollProp(
    cx: &mut Ctx,
    hwnd: u32,
    propIndex: u32,
    pValue: Ptr,
) -> ApiResult<bool> {
    let v = {
        let wm = lock_wm(cx.proc);
        wm.win(hwnd)
            .and_then(|w| w.scroll.as_ref())
            .and_then(|b| b.flat.as_ref())
            .and_then(|f| f.iter().find(|(p, _)| *p == propIndex).map(|&(_, v)| v))
    };
    let Some(v) = v else { return Ok(false) };
    if pValue.is_null() {
        return Ok(false);
    }
    cx.proc.mem.write_u32(pValue.0, v as u32)?;
    Ok(true)
}

pub fn FlatSB_SetScrollInfo(
    cx: &mut Ctx,
    hwnd: u32,
    code: i32,
    psi: Ptr,
    fRedraw: bool,
) -> ApiResult<Outcome> {
    SetScrollInfo(cx, hwnd, code, psi, fRedraw)
}

pub fn FlatSB_GetScrollInfo(cx: &mut Ctx, hwnd: u32, code: i32, lpsi: Ptr) -> ApiResult<bool> {
    GetScrollInfo(cx, hwnd, code, lpsi)
}

pub fn FlatSB_SetScrollPos(
    cx: &mut Ctx,
    hwnd: u32,
    code: i32,
    pos: i32,
    fRedraw: bool,
) -> ApiResult<Outcome> {
    SetScrollPos(cx, hwnd, code, pos, fRedraw)
}

pub fn FlatSB_GetScrollPos(cx: &mut Ctx, hwnd: u32, code: i32) -> ApiResult<i32> {
    GetScrollPos(cx, hwnd, code)
}

pub fn FlatSB_SetScrollRange(
    cx: &mut Ctx,
    hwnd: u32,
    code: i32,
    min: i32,
    max: i32,
    fRedraw: bool,
) -> ApiResult<Outcome> {
    SetScrollRange(cx, hwnd, code, min, max, fRedraw)
}

pub fn FlatSB_GetScrollRange(
    cx: &mut Ctx,
    hwnd: u32,
    code: i32,
    lpMinPos: Ptr,
    lpMaxPos: Ptr,
) -> ApiResult<bool> {
    GetScrollRange(cx, hwnd, code, lpMinPos, lpMaxPos)
}

pub fn FlatSB_ShowScrollBar(cx: &mut Ctx, hwnd: u32, code: i32, fShow: bool) -> ApiResult<Outcome> {
    ShowScrollBar(cx, hwnd, code, fShow)
}

pub fn FlatSB_EnableScrollBar(
    cx: &mut Ctx,
    hwnd: u32,
    wSBflags: u32,
    wArrows: u32,
) -> ApiResult<bool> {
    EnableScrollBar(cx, hwnd, wSBflags, wArrows)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("SetScrollInfo", SetScrollInfo),
        stdcall("GetScrollInfo", GetScrollInfo),
        stdcall("SetScrollPos", SetScrollPos),
        stdcall("GetScrollPos", GetScrollPos),
        stdcall("SetScrollRange", SetScrollRange),
        stdcall("GetScrollRange", GetScrollRange),
        stdcall("ShowScrollBar", ShowScrollBar),
        stdcall("EnableScrollBar", EnableScrollBar),
        stdcall("GetScrollBarInfo", GetScrollBarInfo),
    ]
}

pub fn flat_exports() -> Vec<ApiDef> {
    vec![
        stdcall("InitializeFlatSB", InitializeFlatSB),
        stdcall("UninitializeFlatSB", UninitializeFlatSB),
        stdcall("FlatSB_SetScrollInfo", FlatSB_SetScrollInfo),
        stdcall("FlatSB_GetScrollInfo", FlatSB_GetScrollInfo),
        stdcall("FlatSB_SetScrollPos", FlatSB_SetScrollPos),
        stdcall("FlatSB_GetScrollPos", FlatSB_GetScrollPos),
        stdcall("FlatSB_SetScrollRange", FlatSB_SetScrollRange),
        stdcall("FlatSB_GetScrollRange", FlatSB_GetScrollRange),
        stdcall("FlatSB_ShowScrollBar", FlatSB_ShowScrollBar),
        stdcall("FlatSB_EnableScrollBar", FlatSB_EnableScrollBar),
        stdcall("FlatSB_SetScrollProp", FlatSB_SetScrollProp),
        stdcall("FlatSB_GetScrollProp", FlatSB_GetScrollProp),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_is_clamped_to_the_range_less_the_page() {
        let mut b = Bar::default();
        b.set(SIF_RANGE | SIF_PAGE | SIF_POS, 0, 100, 10, 200);
        assert_eq!(b.pos, 91);
        b.set(SIF_POS, 0, 0, 0, -5);
        assert_eq!(b.pos, 0);
        // A page of 0 or 1 leaves the whole range.
        b.set(SIF_PAGE | SIF_POS, 0, 0, 1, 500);
        assert_eq!(b.pos, 100);
        // The page is cut to the whole range.
        b.set(SIF_RANGE | SIF_PAGE, 10, 20, 50, 0);
        assert_eq!((b.page, b.pos), (11, 10));
        assert!(b.nothing_to_scroll());
    }

    #[test]
    fn inverted_range_collapses() {
        let mut b = Bar::default();
        b.set(SIF_RANGE, 5, 1, 0, 0);
        assert_eq!((b.min, b.max), (0, 0));
    }

    #[test]
    fn thumb_moves_with_the_position_and_hit_tests() {
        let mut b = Bar::default();
        b.set(SIF_RANGE | SIF_PAGE | SIF_POS, 0, 99, 10, 0);
        let r = Rect::new(0, 0, 16, 132); // 100 track pixels
        let g = geometry(&b, r, true);
        assert_eq!(g.thumb, Some((16, 26)));
        assert_eq!(part_at(&g, 3), Part::ArrowUp);
        assert_eq!(part_at(&g, 20), Part::Thumb);
        assert_eq!(part_at(&g, 60), Part::PageDown);
        assert_eq!(part_at(&g, 120), Part::ArrowDown);
        b.set(SIF_POS, 0, 0, 0, 90);
        let g = geometry(&b, r, true);
        assert_eq!(g.thumb, Some((106, 116)));
        assert_eq!(part_at(&g, 50), Part::PageUp);
        b.disabled = ESB_DISABLE_BOTH;
        assert_eq!(geometry(&b, r, true).thumb, None);
    }

    use super::super::NameOrId;
    use super::super::window::{self, Create};
    use crate::hle::CStrPtr;
    use crate::kernel32::misc::test_support::Harness;
    use winterp_core::mem::Prot;

    /// A harness with a guest stack and a class whose procedure is DefWindowProcA.
    fn setup() -> Harness {
        let mut h = Harness::new();
        let stack = h
            .proc
            .vm
            .lock()
            .unwrap()
            .alloc(None, 0x10000, Prot::RW, "test stack")
            .unwrap();
        h.thread.cpu.regs[winterp_core::cpu::ESP] = stack + 0xff00;
        let def = h.proc.resolve_hle("USER32.dll", "DefWindowProcA").unwrap();
        let wc = h.scratch(0x100);
        let nm = wc + 0x80;
        h.put_cstr(nm, "ScrollTest");
        let f = [0u32, def, 0, 0, 0, 0, 0, 6, 0, nm];
        for (k, v) in f.iter().enumerate() {
            h.proc.mem.write_u32(wc + 4 * k as u32, *v).unwrap();
        }
        assert_ne!(
            window::RegisterClass::<CStrPtr>(&mut h.cx(), Ptr(wc)).unwrap(),
            0
        );
        h
    }

    fn create(h: &mut Harness, style: u32) -> u32 {
        window::create_window(
            &mut h.cx(),
            Create {
                exstyle: 0,
                class: NameOrId::Name("ScrollTest".into()),
                class_ptr: 0,
                name_ptr: 0,
                style,
                x: 10,
                y: 20,
                w: 200,
                h: 150,
                parent: 0,
                menu: 0,
                instance: 0,
                param: 0,
                unicode: false,
            },
        )
        .unwrap_or_else(|_| panic!("create_window failed"))
    }

    fn client(h: &Harness, hwnd: u32) -> (i32, i32) {
        lock_wm(&h.proc).client_size(hwnd)
    }

    const WS_POPUP: u32 = 0x8000_0000;

    #[test]
    fn bars_shrink_and_grow_the_client_area() {
        let mut h = setup();
        let w = create(&mut h, WS_POPUP | WS_VSCROLL | WS_HSCROLL);
        assert_eq!(client(&h, w), (184, 134));
        ShowScrollBar(&mut h.cx(), w, SB_VERT, false).unwrap();
        assert_eq!(client(&h, w), (200, 134));
        ShowScrollBar(&mut h.cx(), w, SB_BOTH, false).unwrap();
        assert_eq!(client(&h, w), (200, 150));
        // Setting a range that scrolls shows the bar on demand.
        SetScrollRange(&mut h.cx(), w, SB_HORZ, 0, 50, true).unwrap();
        assert_eq!(client(&h, w), (200, 134));
        // ... and one that does not hides it again.
        let si = h.scratch(28);
        for (k, v) in [28u32, SIF_RANGE | SIF_PAGE, 0, 9, 10, 0]
            .iter()
            .enumerate()
        {
            h.proc.mem.write_u32(si + 4 * k as u32, *v).unwrap();
        }
        SetScrollInfo(&mut h.cx(), w, SB_HORZ, Ptr(si), true).unwrap();
        assert_eq!(client(&h, w), (200, 150));
    }

    #[test]
    fn set_and_get_scroll_info() {
        let mut h = setup();
        let w = create(&mut h, WS_POPUP | WS_VSCROLL);
        assert_eq!(GetScrollPos(&mut h.cx(), w, SB_VERT).unwrap(), 0);
        let si = h.scratch(28);
        for (k, v) in [28u32, SIF_ALL, 0, 0, 0, 0, 0].iter().enumerate() {
            h.proc.mem.write_u32(si + 4 * k as u32, *v).unwrap();
        }
        assert!(GetScrollInfo(&mut h.cx(), w, SB_VERT, Ptr(si)).unwrap());
        assert_eq!((h.u32(si + 8), h.u32(si + 12)), (0, 100));
        for (k, v) in [28u32, SIF_RANGE | SIF_PAGE | SIF_POS, 0, 200, 50, 180]
            .iter()
            .enumerate()
        {
            h.proc.mem.write_u32(si + 4 * k as u32, *v).unwrap();
        }
        let r = SetScrollInfo(&mut h.cx(), w, SB_VERT, Ptr(si), true).unwrap();
        assert!(matches!(r, Outcome::Return(151)));
        let r = SetScrollPos(&mut h.cx(), w, SB_VERT, 20, true).unwrap();
        assert!(matches!(r, Outcome::Return(151)));
        assert_eq!(GetScrollPos(&mut h.cx(), w, SB_VERT).unwrap(), 20);
        // No horizontal bar: SetScrollPos does nothing, GetScrollInfo fails.
        let r = SetScrollPos(&mut h.cx(), w, SB_HORZ, 20, true).unwrap();
        assert!(matches!(r, Outcome::Return(0)));
        h.proc.mem.write_u32(si + 4, SIF_ALL).unwrap();
        assert!(!GetScrollInfo(&mut h.cx(), w, SB_HORZ, Ptr(si)).unwrap());
        assert!(matches!(
            SetScrollPos(&mut h.cx(), w, SB_CTL, 0, true),
            Err(ApiError::UnimplementedCase(_))
        ));
    }

    #[test]
    fn hit_test_finds_the_bars() {
        let mut h = setup();
        let w = create(&mut h, WS_POPUP | WS_VSCROLL | WS_HSCROLL);
        let wm = lock_wm(&h.proc);
        // Window at (10, 20), 200x150; client 184x134.
        assert_eq!(wm.nc_hit_test(w, (10 + 190, 20 + 50)), HTVSCROLL);
        assert_eq!(wm.nc_hit_test(w, (10 + 50, 20 + 140)), HTHSCROLL);
        assert_eq!(wm.nc_hit_test(w, (10 + 50, 20 + 50)), 1);
    }
}
