//! Painting: update areas, WM_PAINT/WM_ERASEBKGND, BeginPaint/EndPaint, window
//! DCs (through [`crate::gdi32::create_window_dc`]), the USER32 drawing exports
//! (FillRect, DrawText, ...) over GDI32's helpers, and the caret.

use super::msg::*;
use super::window::{put_rect, read_rect};
use super::{UR, fin, lock_wm};

const ERROR_INVALID_WINDOW_HANDLE: u32 = 1400;
use crate::gdi32::{self, Rect, paint as gp};
use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, Ptr, stdcall};

/// Client coordinates of `r` to surface coordinates of `hwnd`'s DC target.
fn dc_for(cx: &Ctx, hwnd: u32, whole: bool, clip: Option<Rect>) -> u32 {
    let t = {
        let wm = lock_wm(cx.proc);
        if hwnd == 0 || hwnd == super::wm::HWND_DESKTOP {
            None
        } else {
            wm.dc_target(hwnd, whole)
        }
    };
    let Some(mut t) = t else {
        // The desktop (or a window without a backing store): a DC that draws nowhere.
        let s = super::wm::new_surface(0, 0);
        return gdi32::create_window_dc(
            cx.proc,
            gdi32::WindowTarget {
                surface: s,
                origin: (0, 0),
                clip: Rect::default(),
                hwnd,
            },
        );
    };
    if let Some(c) = clip {
        let c = c.offset(t.origin.0, t.origin.1);
        t.clip = t.clip.intersect(&c);
        if t.clip.is_empty() {
            t.clip = Rect::default();
        }
    }
    gdi32::create_window_dc(cx.proc, t)
}

/// WM_ERASEBKGND's default: fill the update area with the class brush.
pub fn erase_background(cx: &mut Ctx, hwnd: u32, hdc: u32) -> UR<u32> {
    let (brush, size) = {
        let wm = lock_wm(cx.proc);
        let b = wm.class_of(hwnd).map_or(0, |c| c.background);
        (b, wm.client_size(hwnd))
    };
    if brush == 0 {
        return Ok(0);
    }
    gp::fill_rect_brush(cx.proc, hdc, Rect::new(0, 0, size.0, size.1), brush)?;
    Ok(1)
}

/// Draws the frame of a child window with a border (its non-client area).
fn draw_child_frame(cx: &mut Ctx, hwnd: u32) -> UR<()> {
    let info = {
        let wm = lock_wm(cx.proc);
        wm.win(hwnd)
            .filter(|w| {
                w.parent != 0 && w.client != Rect::new(0, 0, w.rect.width(), w.rect.height())
            })
            .map(|w| (w.style, w.exstyle, w.rect.width(), w.rect.height()))
    };
    let Some((style, ex, w, h)) = info else {
        return Ok(());
    };
    let hdc = dc_for(cx, hwnd, true, None);
    let mut r = Rect::new(0, 0, w, h);
    if ex & super::wm::WS_EX_CLIENTEDGE != 0 {
        gp::draw_edge_ex(cx.proc, hdc, r, gp::EDGE_SUNKEN, gp::BF_RECT)?;
        r = Rect::new(r.left + 2, r.top + 2, r.right - 2, r.bottom - 2);
    } else if ex & super::wm::WS_EX_STATICEDGE != 0 {
        gp::draw_edge_ex(cx.proc, hdc, r, 0x2, gp::BF_RECT)?;
        r = Rect::new(r.left + 1, r.top + 1, r.right - 1, r.bottom - 1);
    }
    if style & super::wm::WS_BORDER != 0 && !r.is_empty() {
        gp::frame_rect(cx.proc, hdc, r, 0)?;
    }
    gdi32::release_window_dc(cx.proc, hdc);
    if ex & super::mdi::WS_EX_MDICHILD != 0 {
        super::mdi::draw_child_caption(cx, hwnd);
    }
    Ok(())
}

/// BeginPaint's work: validates the update area, erases it if needed and fills the
/// PAINTSTRUCT at `ps`; returns the DC (clipped to the update area).
pub fn begin_paint(cx: &mut Ctx, hwnd: u32, ps: u32) -> UR<u32> {
    let (update, erase) = {
        let mut wm = lock_wm(cx.proc);
        let Some(w) = wm.win(hwnd) else {
            return Ok(0);
        };
        let r = (w.update.unwrap_or_default(), w.erase);
        wm.validate(hwnd, None);
        r
    };
    draw_child_frame(cx, hwnd)?;
    let hdc = dc_for(cx, hwnd, false, Some(update));
    let mut f_erase = 0;
    if erase && send(cx, hwnd, WM_ERASEBKGND, hdc, 0, true)? == 0 {
        f_erase = 1;
    }
    if ps != 0 {
        let m = &cx.proc.mem;
        m.write_u32(ps, hdc)?;
        m.write_u32(ps + 4, f_erase)?;
        put_rect(cx, ps + 8, update)?;
        m.write_bytes(ps + 24, &[0u8; 40])?;
    }
    Ok(hdc)
}

pub fn end_paint(cx: &mut Ctx, _hwnd: u32, ps: u32) -> UR<()> {
    if ps != 0 {
        let hdc = cx.proc.mem.read_u32(ps)?;
        gdi32::release_window_dc(cx.proc, hdc);
    }
    Ok(())
}

pub fn BeginPaint(cx: &mut Ctx, hWnd: u32, lpPaint: Ptr) -> ApiResult<Outcome> {
    fin(begin_paint(cx, hWnd, lpPaint.0))
}

pub fn EndPaint(cx: &mut Ctx, hWnd: u32, lpPaint: Ptr) -> ApiResult<Outcome> {
    fin(end_paint(cx, hWnd, lpPaint.0).map(|_| true))
}

fn invalidate(cx: &mut Ctx, hwnd: u32, r: Option<Rect>, erase: bool) -> bool {
    let mut wm = lock_wm(cx.proc);
    if hwnd == 0 || hwnd == super::wm::HWND_DESKTOP {
        let tops = wm.top.clone();
        for t in tops {
            wm.invalidate(t, None, erase);
        }
    } else if wm.win(hwnd).is_some() {
        wm.invalidate(hwnd, r, erase);
    } else {
        return false;
    }
    drop(wm);
    super::wm::wake_all(cx.proc);
    true
}

pub fn InvalidateRect(cx: &mut Ctx, hWnd: u32, lpRect: Ptr, bErase: bool) -> ApiResult<bool> {
    let r = if lpRect.is_null() {
        None
    } else {
        Some(read_rect(cx, lpRect.0)?)
    };
    Ok(invalidate(cx, hWnd, r, bErase))
}

fn rgn_box(cx: &mut Ctx, hrgn: u32) -> UR<Option<Rect>> {
    if hrgn == 0 {
        return Ok(None);
    }
    let (p, esp) = super::stack_alloc(cx, 16);
    let r = super::call_export(cx, "GDI32.dll", "GetRgnBox", &[hrgn, p]);
    let rect = read_rect(cx, p);
    super::stack_free(cx, esp);
    match r? {
        Some(_) => Ok(Some(rect?)),
        None => Err(super::Flow::Err(crate::hle::ApiError::Unimplemented {
            dll: "GDI32.dll".into(),
            name: "GetRgnBox (for InvalidateRgn)".into(),
        })),
    }
}

/// Regions are approximated by their bounding box.
pub fn InvalidateRgn(cx: &mut Ctx, hWnd: u32, hRgn: u32, bErase: bool) -> ApiResult<Outcome> {
    fin(rgn_box(cx, hRgn).map(|r| invalidate(cx, hWnd, r, bErase)))
}

pub fn ValidateRect(cx: &mut Ctx, hWnd: u32, lpRect: Ptr) -> ApiResult<bool> {
    let r = if lpRect.is_null() {
        None
    } else {
        Some(read_rect(cx, lpRect.0)?)
    };
    lock_wm(cx.proc).validate(hWnd, r);
    Ok(true)
}

pub fn ValidateRgn(cx: &mut Ctx, hWnd: u32, hRgn: u32) -> ApiResult<Outcome> {
    fin(rgn_box(cx, hRgn).map(|r| {
        lock_wm(cx.proc).validate(hWnd, r);
        true
    }))
}

pub fn GetUpdateRect(cx: &mut Ctx, hWnd: u32, lpRect: Ptr, bErase: bool) -> ApiResult<Outcome> {
    let u = lock_wm(cx.proc).win(hWnd).and_then(|w| w.update);
    if !lpRect.is_null() {
        put_rect(cx, lpRect.0, u.unwrap_or_default())?;
    }
    if u.is_some() && bErase {
        let erase = lock_wm(cx.proc).win(hWnd).is_some_and(|w| w.erase);
        if erase {
            let hdc = dc_for(cx, hWnd, false, u);
            let r = send(cx, hWnd, WM_ERASEBKGND, hdc, 0, true);
            gdi32::release_window_dc(cx.proc, hdc);
            if let Err(e) = r {
                return fin::<u32>(Err(e));
            }
            if let Some(w) = lock_wm(cx.proc).win_mut(hWnd) {
                w.erase = false;
            }
        }
    }
    Ok(Outcome::Return(u.is_some() as u64))
}

/// Sends WM_PAINT now to `hwnd` (and children, with `children`) if they need it.
pub fn update_now(cx: &mut Ctx, hwnd: u32, children: bool) -> UR<()> {
    let needs = lock_wm(cx.proc)
        .win(hwnd)
        .is_some_and(|w| w.update.is_some());
    if needs && lock_wm(cx.proc).is_visible(hwnd) {
        send(cx, hwnd, WM_PAINT, 0, 0, true)?;
    }
    if children {
        let kids = lock_wm(cx.proc)
            .win(hwnd)
            .map(|w| w.children.clone())
            .unwrap_or_default();
        for c in kids {
            update_now(cx, c, true)?;
        }
    }
    Ok(())
}

pub fn UpdateWindow(cx: &mut Ctx, hWnd: u32) -> ApiResult<Outcome> {
    if lock_wm(cx.proc).win(hWnd).is_none() {
        return Ok(Outcome::Return(0));
    }
    fin(update_now(cx, hWnd, true).map(|_| true))
}

const RDW_INVALIDATE: u32 = 0x1;
const RDW_ERASE: u32 = 0x4;
const RDW_VALIDATE: u32 = 0x8;
const RDW_ERASENOW: u32 = 0x200;
const RDW_UPDATENOW: u32 = 0x100;

pub fn RedrawWindow(
    cx: &mut Ctx,
    hWnd: u32,
    lprcUpdate: Ptr,
    hrgnUpdate: u32,
    flags: u32,
) -> ApiResult<Outcome> {
    let r = if !lprcUpdate.is_null() {
        Some(read_rect(cx, lprcUpdate.0)?)
    } else {
        match rgn_box(cx, hrgnUpdate) {
            Ok(r) => r,
            Err(e) => return fin::<u32>(Err(e)),
        }
    };
    let hwnd = if hWnd == 0 {
        lock_wm(cx.proc).main_window().unwrap_or(0)
    } else {
        hWnd
    };
    if flags & RDW_INVALIDATE != 0 {
        invalidate(cx, hwnd, r, flags & RDW_ERASE != 0);
    }
    if flags & RDW_VALIDATE != 0 {
        lock_wm(cx.proc).validate(hwnd, r);
    }
    if flags & (RDW_UPDATENOW | RDW_ERASENOW) != 0 {
        return fin(update_now(cx, hwnd, true).map(|_| true));
    }
    Ok(Outcome::Return(1))
}

/// The bounding box of `outer` less `inner` (the part of a scrolled area no bits
/// were scrolled into): a band when `inner` spans `outer` across, else all of
/// `outer` (the update area is one rectangle).
fn uncovered(outer: Rect, inner: Rect) -> Rect {
    let inner = inner.intersect(&outer);
    if inner.is_empty() {
        return outer;
    }
    let across = inner.left <= outer.left && inner.right >= outer.right;
    let down = inner.top <= outer.top && inner.bottom >= outer.bottom;
    let mut r = outer;
    if across {
        if inner.top <= outer.top {
            r.top = inner.bottom;
        } else if inner.bottom >= outer.bottom {
            r.bottom = inner.top;
        }
    } else if down {
        if inner.left <= outer.left {
            r.left = inner.right;
        } else if inner.right >= outer.right {
            r.right = inner.left;
        }
    }
    if r.is_empty() { Rect::default() } else { r }
}

/// ScrollWindow's work: moves the bits of `rect` (default the client area) by
/// (`dx`, `dy`), changing only those inside `clip` (bits scrolled out of it are
/// dropped; what would scroll in from outside it is painted instead: it joins the
/// update area, to be erased, with the rest of the uncovered part). Without `rect` the child windows move too, and so
/// does the pending update area.
fn scroll_window(
    cx: &mut Ctx,
    hwnd: u32,
    dx: i32,
    dy: i32,
    rect: Option<Rect>,
    clip: Option<Rect>,
) -> UR<bool> {
    let (target, client, children) = {
        let wm = lock_wm(cx.proc);
        let Some(w) = wm.win(hwnd) else {
            drop(wm);
            crate::teb::set_last_error(cx, ERROR_INVALID_WINDOW_HANDLE)?;
            return Ok(false);
        };
        let client = Rect::new(0, 0, w.client.width(), w.client.height());
        (wm.dc_target(hwnd, false), client, w.children.clone())
    };
    // Only bits inside the clipping rectangle move, and only to places inside it;
    // what would come from outside it is left to be painted (the update area).
    let clip = clip.map_or(client, |c| c.intersect(&client));
    let area = rect.unwrap_or(client).intersect(&clip);
    let dst = area.offset(dx, dy).intersect(&clip);
    if let Some(t) = target
        && !dst.is_empty()
    {
        let mut s = t.surface.lock().unwrap_or_else(|e| e.into_inner());
        let bounds = Rect::new(0, 0, s.width as i32, s.height as i32);
        let d = dst
            .offset(t.origin.0, t.origin.1)
            .intersect(&t.clip)
            .intersect(&bounds);
        let src = d.offset(-dx, -dy).intersect(&bounds);
        // Copy out first: source and destination overlap.
        let d = src.offset(dx, dy);
        let block = s.crop(src);
        let width = s.width as usize;
        for y in 0..block.height as usize {
            let at = (d.top as usize + y) * width + d.left as usize;
            let row = y * block.width as usize;
            s.pixels[at..at + block.width as usize]
                .copy_from_slice(&block.pixels[row..row + block.width as usize]);
        }
    }
    if rect.is_none() {
        let mut wm = lock_wm(cx.proc);
        if let Some(w) = wm.win_mut(hwnd)
            && let Some(u) = w.update
        {
            let moved = u.offset(dx, dy).intersect(&client);
            w.update = (!moved.is_empty()).then_some(moved);
        }
    }
    let exposed = uncovered(area, dst);
    if !exposed.is_empty() {
        invalidate(cx, hwnd, Some(exposed), true);
    }
    if rect.is_none() {
        use super::window::{SWP_NOACTIVATE, SWP_NOREDRAW, SWP_NOSIZE, SWP_NOZORDER};
        for c in children {
            let Some(r) = lock_wm(cx.proc).win(c).map(|w| w.rect) else {
                continue;
            };
            super::window::set_window_pos(
                cx,
                c,
                0,
                r.left + dx,
                r.top + dy,
                0,
                0,
                SWP_NOZORDER | SWP_NOSIZE | SWP_NOACTIVATE | SWP_NOREDRAW,
            )?;
        }
    }
    Ok(true)
}

pub fn ScrollWindow(
    cx: &mut Ctx,
    hWnd: u32,
    XAmount: i32,
    YAmount: i32,
    lpRect: Ptr,
    lpClipRect: Ptr,
) -> ApiResult<Outcome> {
    let rect = if lpRect.is_null() {
        None
    } else {
        Some(read_rect(cx, lpRect.0)?)
    };
    let clip = if lpClipRect.is_null() {
        None
    } else {
        Some(read_rect(cx, lpClipRect.0)?)
    };
    fin(scroll_window(cx, hWnd, XAmount, YAmount, rect, clip))
}

pub fn GetDC(cx: &mut Ctx, hWnd: u32) -> u32 {
    dc_for(cx, hWnd, false, None)
}

pub fn GetWindowDC(cx: &mut Ctx, hWnd: u32) -> u32 {
    dc_for(cx, hWnd, true, None)
}

pub fn GetDCEx(cx: &mut Ctx, hWnd: u32, hrgnClip: u32, flags: u32) -> ApiResult<Outcome> {
    // DCX_WINDOW = 1; DCX_INTERSECTRGN = 0x80.
    let clip = if flags & 0x80 != 0 {
        match rgn_box(cx, hrgnClip) {
            Ok(r) => r,
            Err(e) => return fin::<u32>(Err(e)),
        }
    } else {
        None
    };
    Ok(Outcome::Return(
        dc_for(cx, hWnd, flags & 1 != 0, clip) as u64
    ))
}

pub fn ReleaseDC(cx: &mut Ctx, _hWnd: u32, hDC: u32) -> bool {
    gdi32::release_window_dc(cx.proc, hDC)
}

// ---- Drawing exports over GDI32's helpers ----------------------------------------------

pub fn FillRect(cx: &mut Ctx, hDC: u32, lprc: Ptr, hbr: u32) -> ApiResult<bool> {
    let r = read_rect(cx, lprc.0)?;
    gp::fill_rect_brush(cx.proc, hDC, r, hbr)
}

pub fn FrameRect(cx: &mut Ctx, hDC: u32, lprc: Ptr, hbr: u32) -> ApiResult<bool> {
    let r = read_rect(cx, lprc.0)?;
    gp::frame_rect_brush(cx.proc, hDC, r, hbr)
}

pub fn InvertRect(cx: &mut Ctx, hDC: u32, lprc: Ptr) -> ApiResult<bool> {
    let r = read_rect(cx, lprc.0)?;
    gp::invert_rect(cx.proc, hDC, r)
}

pub fn DrawFocusRect(cx: &mut Ctx, hDC: u32, lprc: Ptr) -> ApiResult<bool> {
    // A dotted XOR frame on Windows; an inverted one-pixel frame here.
    let r = read_rect(cx, lprc.0)?;
    for e in [
        Rect::new(r.left, r.top, r.right, r.top + 1),
        Rect::new(r.left, r.bottom - 1, r.right, r.bottom),
        Rect::new(r.left, r.top + 1, r.left + 1, r.bottom - 1),
        Rect::new(r.right - 1, r.top + 1, r.right, r.bottom - 1),
    ] {
        gp::invert_rect(cx.proc, hDC, e)?;
    }
    Ok(true)
}

// ---- DrawFrameControl ----------------------------------------------------------------

const DFC_CAPTION: u32 = 1;
const DFC_MENU: u32 = 2;
const DFC_SCROLL: u32 = 3;
const DFC_BUTTON: u32 = 4;
const DFCS_INACTIVE: u32 = 0x100;
const DFCS_PUSHED: u32 = 0x200;
const DFCS_CHECKED: u32 = 0x400;
const DFCS_ADJUSTRECT: u32 = 0x2000;
const DFCS_FLAT: u32 = 0x4000;
const DFCS_MONO: u32 = 0x8000;

/// The glyphs DrawFrameControl draws inside its frames.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Glyph {
    /// A solid triangle pointing up, down, left or right (0..=3).
    Arrow(u32),
    Check,
    Bullet,
    Close,
    Minimize,
    Maximize,
    Restore,
    Help,
}

/// Fills the pixels of a disk of radius `r` around (`cx`, `cy`) row by row.
fn disk(
    proc: &crate::process::Process,
    hdc: u32,
    c: (i32, i32),
    r: i32,
    rgb: u32,
) -> ApiResult<()> {
    for dy in -r..=r {
        let w = (((r * r - dy * dy) as f64).sqrt()).round() as i32;
        gp::fill_rect(
            proc,
            hdc,
            Rect::new(c.0 - w, c.1 + dy, c.0 + w + 1, c.1 + dy + 1),
            rgb,
        )?;
    }
    Ok(())
}

/// Draws `g` centred in `b` in colour `rgb`.
fn glyph(proc: &crate::process::Process, hdc: u32, b: Rect, g: Glyph, rgb: u32) -> ApiResult<()> {
    let (cx, cy) = ((b.left + b.right) / 2, (b.top + b.bottom) / 2);
    let side = b.width().min(b.height());
    let fill = |r: Rect| gp::fill_rect(proc, hdc, r, rgb).map(|_| ());
    match g {
        Glyph::Arrow(dir) => {
            // Row k from the tip is 2k + 1 pixels wide; the middle row crosses the centre.
            let n = (side / 4).max(2);
            for k in 0..=n {
                let off = k - n / 2;
                let seg = match dir {
                    0 => Rect::new(cx - k, cy + off, cx + k + 1, cy + off + 1),
                    1 => Rect::new(cx - k, cy - off, cx + k + 1, cy - off + 1),
                    2 => Rect::new(cx + off, cy - k, cx + off + 1, cy + k + 1),
                    _ => Rect::new(cx - off, cy - k, cx - off + 1, cy + k + 1),
                };
                fill(seg)?;
            }
        }
        Glyph::Check => {
            // A tick: down from the left to a vertex below the centre, then up to
            // the top right, `t` pixels thick in each column.
            let s = side as f64;
            let (x0, x1, x2) = (
                cx as f64 - 0.3 * s,
                cx as f64 - 0.1 * s,
                cx as f64 + 0.3 * s,
            );
            let (y0, y1, y2) = (cy as f64, cy as f64 + 0.2 * s, cy as f64 - 0.2 * s);
            let t = (side / 10).max(1);
            for x in x0.round() as i32..=x2.round() as i32 {
                let xf = x as f64;
                let y = if xf <= x1 {
                    y0 + (y1 - y0) * (xf - x0) / (x1 - x0)
                } else {
                    y1 + (y2 - y1) * (xf - x1) / (x2 - x1)
                };
                let y = y.round() as i32;
                fill(Rect::new(x, y - t, x + 1, y + t + 1))?;
            }
        }
        Glyph::Bullet => disk(proc, hdc, (cx, cy), (side / 6).max(1), rgb)?,
        Glyph::Close => {
            let n = side / 4;
            for k in -n..=n {
                fill(Rect::new(cx + k - 1, cy + k, cx + k + 1, cy + k + 1))?;
                fill(Rect::new(cx - k - 1, cy + k, cx - k + 1, cy + k + 1))?;
            }
        }
        Glyph::Minimize => {
            let n = side / 4;
            fill(Rect::new(cx - n, cy + n - 1, cx + n, cy + n + 1))?;
        }
        Glyph::Maximize | Glyph::Restore => {
            let n = side / 4;
            let frame = |r: Rect| -> ApiResult<()> {
                fill(Rect::new(r.left, r.top, r.right, r.top + 2))?;
                fill(Rect::new(r.left, r.bottom - 1, r.right, r.bottom))?;
                fill(Rect::new(r.left, r.top, r.left + 1, r.bottom))?;
                fill(Rect::new(r.right - 1, r.top, r.right, r.bottom))
            };
            if g == Glyph::Maximize {
                frame(Rect::new(cx - n, cy - n, cx + n + 1, cy + n + 1))?;
            } else {
                let m = (n * 2 / 3).max(2);
                frame(Rect::new(
                    cx - n + m / 2,
                    cy - n,
                    cx + n + 1,
                    cy + n - m / 2,
                ))?;
                frame(Rect::new(cx - n, cy - n + m, cx + n + 1 - m, cy + n + 1))?;
            }
        }
        Glyph::Help => {
            gp::draw_text(
                proc,
                hdc,
                "?",
                b,
                gp::DT_CENTER | gp::DT_VCENTER | gp::DT_SINGLELINE,
            );
        }
    }
    Ok(())
}

/// DrawFrameControl's work; `None` for a type or state it does not know (FALSE),
/// else the rectangle DFCS_ADJUSTRECT writes back.
fn draw_frame_control(
    proc: &crate::process::Process,
    hdc: u32,
    r: Rect,
    uType: u32,
    uState: u32,
) -> ApiResult<Option<Rect>> {
    use gp::{
        BF_ADJUST, BF_FLAT, BF_MONO, BF_RECT, BF_SOFT, COLOR_BTNFACE, COLOR_BTNSHADOW,
        COLOR_BTNTEXT, COLOR_WINDOW, EDGE_RAISED, EDGE_SUNKEN, sys_color,
    };
    let kind = uState & 0xff;
    let pushed = uState & DFCS_PUSHED != 0;
    let inactive = uState & DFCS_INACTIVE != 0;
    let look = if uState & DFCS_MONO != 0 {
        BF_MONO
    } else if uState & DFCS_FLAT != 0 {
        BF_FLAT
    } else {
        0
    };
    // A button face with a raised (sunken when pushed) edge two pixels wide.
    let frame = |soft_raised: bool, sunken: bool| -> ApiResult<Rect> {
        gp::fill_rect(proc, hdc, r, sys_color(COLOR_BTNFACE))?;
        let (edge, soft) = match (sunken, soft_raised) {
            (true, _) => (EDGE_SUNKEN, BF_SOFT),
            (false, true) => (EDGE_RAISED, BF_SOFT),
            (false, false) => (EDGE_RAISED, 0),
        };
        let flags = BF_RECT | BF_ADJUST | soft | look;
        Ok(gp::draw_edge_ex(proc, hdc, r, edge, flags)?.unwrap_or(r))
    };
    let adjusted = |inner: Rect| {
        if uState & DFCS_ADJUSTRECT != 0 {
            inner
        } else {
            r
        }
    };
    match uType {
        DFC_BUTTON => match kind {
            // DFCS_BUTTONPUSH
            0x10 => {
                let inner = frame(true, pushed || uState & DFCS_CHECKED != 0)?;
                Ok(Some(adjusted(inner)))
            }
            // DFCS_BUTTONCHECK, RADIOIMAGE, RADIOMASK, RADIO, 3STATE: a square box
            // as large as the rectangle allows, centred; the rectangle stays.
            0 | 1 | 2 | 4 | 8 => {
                let side = r.width().min(r.height());
                let (x, y) = (
                    r.left + (r.width() - side) / 2,
                    r.top + (r.height() - side) / 2,
                );
                let b = Rect::new(x, y, x + side, y + side);
                let back = sys_color(if inactive || pushed {
                    COLOR_BTNFACE
                } else {
                    COLOR_WINDOW
                });
                let mark = sys_color(if inactive || kind == 8 {
                    COLOR_BTNSHADOW
                } else {
                    COLOR_BTNTEXT
                });
                let c = ((b.left + b.right) / 2, (b.top + b.bottom) / 2);
                if matches!(kind, 1 | 2 | 4) {
                    disk(proc, hdc, c, side / 2 - 1, sys_color(COLOR_BTNSHADOW))?;
                    disk(proc, hdc, c, side / 2 - 3, back)?;
                    if uState & DFCS_CHECKED != 0 {
                        disk(proc, hdc, c, (side / 6).max(1), mark)?;
                    }
                } else {
                    gp::fill_rect(proc, hdc, b, back)?;
                    gp::draw_edge_ex(proc, hdc, b, EDGE_SUNKEN, BF_RECT | look)?;
                    if uState & DFCS_CHECKED != 0 {
                        glyph(proc, hdc, b, Glyph::Check, mark)?;
                    }
                }
                Ok(Some(r))
            }
            _ => Ok(None),
        },
        DFC_SCROLL => {
            let dir = match kind {
                0..=3 => kind,
                // DFCS_SCROLLCOMBOBOX: the combo box's down arrow.
                5 => 1,
                8 | 0x10 => {
                    return Err(crate::hle::ApiError::UnimplementedCase(
                        "DrawFrameControl: DFCS_SCROLLSIZEGRIP".into(),
                    ));
                }
                _ => return Ok(None),
            };
            // Pushed: sunken; inactive: raised with the soft edge, as Wine draws them.
            let inner = frame(inactive, pushed)?;
            let b = if pushed { inner.offset(1, 1) } else { inner };
            let colour = sys_color(if inactive {
                COLOR_BTNSHADOW
            } else {
                COLOR_BTNTEXT
            });
            glyph(proc, hdc, b, Glyph::Arrow(dir), colour)?;
            Ok(Some(adjusted(inner)))
        }
        DFC_CAPTION => {
            let g = match kind {
                0 => Glyph::Close,
                1 => Glyph::Minimize,
                2 => Glyph::Maximize,
                3 => Glyph::Restore,
                4 => Glyph::Help,
                _ => return Ok(None),
            };
            let inner = frame(true, pushed)?;
            let b = if pushed { inner.offset(1, 1) } else { inner };
            let colour = sys_color(if inactive {
                COLOR_BTNSHADOW
            } else {
                COLOR_BTNTEXT
            });
            glyph(proc, hdc, b, g, colour)?;
            Ok(Some(adjusted(inner)))
        }
        DFC_MENU => {
            // A black glyph on white, for use as a mask.
            let g = match kind {
                0 | 4 => Glyph::Arrow(3),
                1 => Glyph::Check,
                2 => Glyph::Bullet,
                _ => return Ok(None),
            };
            gp::fill_rect(proc, hdc, r, crate::gdi32::objects::rgb(255, 255, 255))?;
            glyph(proc, hdc, r, g, crate::gdi32::objects::rgb(0, 0, 0))?;
            Ok(Some(r))
        }
        _ => Ok(None),
    }
}

/// DrawFrameControl: the frame controls of buttons, scroll bars, captions and menus
/// in the system colours; FALSE for a type or state it does not define.
pub fn DrawFrameControl(
    cx: &mut Ctx,
    hdc: u32,
    lprc: Ptr,
    uType: u32,
    uState: u32,
) -> ApiResult<bool> {
    if crate::gdi32::dc::resolve(cx.proc, hdc).is_none() {
        return Ok(false);
    }
    let r = read_rect(cx, lprc.0)?;
    match draw_frame_control(cx.proc, hdc, r, uType, uState)? {
        Some(adj) => {
            if uState & DFCS_ADJUSTRECT != 0 {
                put_rect(cx, lprc.0, adj)?;
            }
            Ok(true)
        }
        None => Ok(false),
    }
}

pub fn DrawEdge(cx: &mut Ctx, hdc: u32, qrc: Ptr, edge: u32, grfFlags: u32) -> ApiResult<bool> {
    let r = read_rect(cx, qrc.0)?;
    match gp::draw_edge_ex(cx.proc, hdc, r, edge, grfFlags)? {
        Some(rr) => {
            if grfFlags & gp::BF_ADJUST != 0 {
                put_rect(cx, qrc.0, rr)?;
            }
            Ok(true)
        }
        None => Ok(false),
    }
}

fn draw_text(
    cx: &mut Ctx,
    hdc: u32,
    s: u32,
    n: i32,
    lprc: Ptr,
    fmt: u32,
    unicode: bool,
) -> ApiResult<i32> {
    let text = super::read_str_n(cx, s, n, unicode)?;
    let mut r = read_rect(cx, lprc.0)?;
    let h = gp::draw_text_calc(cx.proc, hdc, &text, &mut r, fmt)?;
    if fmt & gp::DT_CALCRECT != 0 {
        put_rect(cx, lprc.0, r)?;
    }
    Ok(h)
}

pub fn DrawTextA(
    cx: &mut Ctx,
    hdc: u32,
    lpchText: u32,
    cchText: i32,
    lprc: Ptr,
    format: u32,
) -> ApiResult<i32> {
    draw_text(cx, hdc, lpchText, cchText, lprc, format, false)
}
pub fn DrawTextW(
    cx: &mut Ctx,
    hdc: u32,
    lpchText: u32,
    cchText: i32,
    lprc: Ptr,
    format: u32,
) -> ApiResult<i32> {
    draw_text(cx, hdc, lpchText, cchText, lprc, format, true)
}

#[allow(clippy::too_many_arguments)]
pub fn DrawTextExA(
    cx: &mut Ctx,
    hdc: u32,
    t: u32,
    n: i32,
    lprc: Ptr,
    format: u32,
    _p: Ptr,
) -> ApiResult<i32> {
    draw_text(cx, hdc, t, n, lprc, format, false)
}
#[allow(clippy::too_many_arguments)]
pub fn DrawTextExW(
    cx: &mut Ctx,
    hdc: u32,
    t: u32,
    n: i32,
    lprc: Ptr,
    format: u32,
    _p: Ptr,
) -> ApiResult<i32> {
    draw_text(cx, hdc, t, n, lprc, format, true)
}

// ---- Caret ----------------------------------------------------------------------------

pub fn CreateCaret(cx: &mut Ctx, hWnd: u32, _hBitmap: u32, nWidth: i32, nHeight: i32) -> bool {
    lock_wm(cx.proc).caret = Some((hWnd, Rect::new(0, 0, nWidth.max(1), nHeight)));
    true
}
pub fn DestroyCaret(cx: &mut Ctx) -> bool {
    lock_wm(cx.proc).caret.take().is_some()
}
pub fn SetCaretPos(cx: &mut Ctx, X: i32, Y: i32) -> bool {
    let mut wm = lock_wm(cx.proc);
    match &mut wm.caret {
        Some((_, r)) => {
            *r = Rect::new(X, Y, X + r.width(), Y + r.height());
            true
        }
        None => false,
    }
}
pub fn GetCaretPos(cx: &mut Ctx, lpPoint: Ptr) -> ApiResult<bool> {
    let c = lock_wm(cx.proc).caret;
    let (x, y) = c.map_or((0, 0), |(_, r)| (r.left, r.top));
    cx.proc.mem.write_u32(lpPoint.0, x as u32)?;
    cx.proc.mem.write_u32(lpPoint.0 + 4, y as u32)?;
    Ok(c.is_some())
}
/// The caret is not drawn (frames show no blinking caret); Show/Hide only report
/// whether one exists.
pub fn ShowCaret(cx: &mut Ctx, _hWnd: u32) -> bool {
    lock_wm(cx.proc).caret.is_some()
}
pub fn HideCaret(cx: &mut Ctx, _hWnd: u32) -> bool {
    lock_wm(cx.proc).caret.is_some()
}
pub fn GetCaretBlinkTime(_cx: &mut Ctx) -> u32 {
    530
}
pub fn SetCaretBlinkTime(_cx: &mut Ctx, _ms: u32) -> bool {
    true
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("BeginPaint", BeginPaint),
        stdcall("EndPaint", EndPaint),
        stdcall("InvalidateRect", InvalidateRect),
        stdcall("InvalidateRgn", InvalidateRgn),
        stdcall("ValidateRect", ValidateRect),
        stdcall("ValidateRgn", ValidateRgn),
        stdcall("GetUpdateRect", GetUpdateRect),
        stdcall("UpdateWindow", UpdateWindow),
        stdcall("RedrawWindow", RedrawWindow),
        stdcall("ScrollWindow", ScrollWindow),
        stdcall("DrawFrameControl", DrawFrameControl),
        stdcall("GetDC", GetDC),
        stdcall("GetWindowDC", GetWindowDC),
        stdcall("GetDCEx", GetDCEx),
        stdcall("ReleaseDC", ReleaseDC),
        stdcall("FillRect", FillRect),
        stdcall("FrameRect", FrameRect),
        stdcall("InvertRect", InvertRect),
        stdcall("DrawFocusRect", DrawFocusRect),
        stdcall("DrawEdge", DrawEdge),
        stdcall("DrawTextA", DrawTextA),
        stdcall("DrawTextW", DrawTextW),
        stdcall("DrawTextExA", DrawTextExA),
        stdcall("DrawTextExW", DrawTextExW),
        stdcall("CreateCaret", CreateCaret),
        stdcall("DestroyCaret", DestroyCaret),
        stdcall("SetCaretPos", SetCaretPos),
        stdcall("GetCaretPos", GetCaretPos),
        stdcall("ShowCaret", ShowCaret),
        stdcall("HideCaret", HideCaret),
        stdcall("GetCaretBlinkTime", GetCaretBlinkTime),
        stdcall("SetCaretBlinkTime", SetCaretBlinkTime),
    ]
}

// ---- Rectangle arithmetic ----------------------------------------------------------------

fn norm_empty(r: Rect) -> Rect {
    if r.is_empty() { Rect::default() } else { r }
}

pub fn SetRect(cx: &mut Ctx, lprc: Ptr, l: i32, t: i32, r: i32, b: i32) -> ApiResult<bool> {
    put_rect(cx, lprc.0, Rect::new(l, t, r, b))?;
    Ok(true)
}
pub fn SetRectEmpty(cx: &mut Ctx, lprc: Ptr) -> ApiResult<bool> {
    put_rect(cx, lprc.0, Rect::default())?;
    Ok(true)
}
pub fn CopyRect(cx: &mut Ctx, dst: Ptr, src: Ptr) -> ApiResult<bool> {
    let r = read_rect(cx, src.0)?;
    put_rect(cx, dst.0, r)?;
    Ok(true)
}
pub fn IsRectEmpty(cx: &mut Ctx, lprc: Ptr) -> ApiResult<bool> {
    Ok(read_rect(cx, lprc.0)?.is_empty())
}
pub fn EqualRect(cx: &mut Ctx, a: Ptr, b: Ptr) -> ApiResult<bool> {
    Ok(read_rect(cx, a.0)? == read_rect(cx, b.0)?)
}
pub fn IntersectRect(cx: &mut Ctx, dst: Ptr, a: Ptr, b: Ptr) -> ApiResult<bool> {
    let r = norm_empty(read_rect(cx, a.0)?.intersect(&read_rect(cx, b.0)?));
    put_rect(cx, dst.0, r)?;
    Ok(!r.is_empty())
}
pub fn UnionRect(cx: &mut Ctx, dst: Ptr, a: Ptr, b: Ptr) -> ApiResult<bool> {
    let r = super::wm::union(read_rect(cx, a.0)?, read_rect(cx, b.0)?);
    let r = norm_empty(r);
    put_rect(cx, dst.0, r)?;
    Ok(!r.is_empty())
}
pub fn SubtractRect(cx: &mut Ctx, dst: Ptr, a: Ptr, b: Ptr) -> ApiResult<bool> {
    let ra = read_rect(cx, a.0)?;
    let rb = read_rect(cx, b.0)?;
    let i = ra.intersect(&rb);
    let mut r = ra;
    if !i.is_empty() {
        // Only a cut that leaves a rectangle changes it.
        if i.top <= ra.top && i.bottom >= ra.bottom {
            if i.left <= ra.left {
                r.left = i.right.min(ra.right);
            } else if i.right >= ra.right {
                r.right = i.left;
            }
        } else if i.left <= ra.left && i.right >= ra.right {
            if i.top <= ra.top {
                r.top = i.bottom.min(ra.bottom);
            } else if i.bottom >= ra.bottom {
                r.bottom = i.top;
            }
        }
    }
    let r = norm_empty(r);
    put_rect(cx, dst.0, r)?;
    Ok(!r.is_empty())
}
pub fn OffsetRect(cx: &mut Ctx, lprc: Ptr, dx: i32, dy: i32) -> ApiResult<bool> {
    let r = read_rect(cx, lprc.0)?;
    put_rect(cx, lprc.0, r.offset(dx, dy))?;
    Ok(true)
}
pub fn InflateRect(cx: &mut Ctx, lprc: Ptr, dx: i32, dy: i32) -> ApiResult<bool> {
    let r = read_rect(cx, lprc.0)?;
    put_rect(
        cx,
        lprc.0,
        Rect::new(r.left - dx, r.top - dy, r.right + dx, r.bottom + dy),
    )?;
    Ok(true)
}
pub fn PtInRect(cx: &mut Ctx, lprc: Ptr, x: i32, y: i32) -> ApiResult<bool> {
    Ok(read_rect(cx, lprc.0)?.contains(x, y))
}

pub fn rect_exports() -> Vec<ApiDef> {
    vec![
        stdcall("SetRect", SetRect),
        stdcall("SetRectEmpty", SetRectEmpty),
        stdcall("CopyRect", CopyRect),
        stdcall("IsRectEmpty", IsRectEmpty),
        stdcall("EqualRect", EqualRect),
        stdcall("IntersectRect", IntersectRect),
        stdcall("UnionRect", UnionRect),
        stdcall("SubtractRect", SubtractRect),
        stdcall("OffsetRect", OffsetRect),
        stdcall("InflateRect", InflateRect),
        stdcall("PtInRect", PtInRect),
    ]
}
