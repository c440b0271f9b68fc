//! What the bar controls (status bar, toolbar, rebar, progress bar, up-down, tool
//! tips) share: the window's facts, painting through BeginPaint/EndPaint with the
//! control's font, WM_NOTIFY and WM_COMMAND to the parent, moving the control.

use crate::gdi32::{Rect, paint as gp};
use crate::hle::Ctx;
use crate::user32::msg::{WM_COMMAND, WM_NOTIFY, send};
use crate::user32::{UR, lock_wm};

pub const WM_USER: u32 = 0x400;
pub const CCS_TOP: u32 = 0x1;
pub const CCS_NOMOVEY: u32 = 0x2;
pub const CCS_BOTTOM: u32 = 0x3;
pub const CCS_NORESIZE: u32 = 0x4;
pub const CCS_NOPARENTALIGN: u32 = 0x8;
pub const CCS_NODIVIDER: u32 = 0x40;
pub const CCS_VERT: u32 = 0x80;
pub const CLR_DEFAULT: u32 = 0xff00_0000;
pub const NM_CLICK: u32 = (-2i32) as u32;
pub const NM_RCLICK: u32 = (-5i32) as u32;
pub const NM_RELEASEDCAPTURE: u32 = (-16i32) as u32;
pub const NM_LDOWN: u32 = (-20i32) as u32;
pub const NM_TOOLTIPSCREATED: u32 = (-19i32) as u32;

/// The facts of a control window the bar controls need.
pub struct Win {
    pub style: u32,
    pub exstyle: u32,
    pub id: u32,
    pub parent: u32,
    pub text: String,
    /// Client size.
    pub w: i32,
    pub h: i32,
    /// Window rectangle, in the parent's client coordinates.
    pub rect: Rect,
    pub font: u32,
    pub visible: bool,
}

pub fn win(cx: &Ctx, h: u32) -> Option<Win> {
    let wm = lock_wm(cx.proc);
    let w = wm.win(h)?;
    Some(Win {
        style: w.style,
        exstyle: w.exstyle,
        id: w.id,
        parent: w.parent,
        text: w.text.clone(),
        w: w.client.width(),
        h: w.client.height(),
        rect: w.rect,
        font: w.ctl.font,
        visible: w.style & crate::user32::wm::WS_VISIBLE != 0,
    })
}

/// The client size of window `h` (0 x 0 if it does not exist).
pub fn client_size(cx: &Ctx, h: u32) -> (i32, i32) {
    lock_wm(cx.proc)
        .win(h)
        .map_or((0, 0), |w| (w.client.width(), w.client.height()))
}

pub fn set_font(cx: &Ctx, h: u32, font: u32) {
    if let Some(w) = lock_wm(cx.proc).win_mut(h) {
        w.ctl.font = font;
    }
}

pub fn redraw(cx: &Ctx, h: u32) {
    lock_wm(cx.proc).invalidate(h, None, true);
    crate::user32::wm::wake_all(cx.proc);
}

/// DEFAULT_GUI_FONT, what the common controls draw with until WM_SETFONT.
pub fn gui_font(cx: &mut Ctx) -> UR<u32> {
    Ok(crate::user32::call_export(cx, "GDI32.dll", "GetStockObject", &[17])?.unwrap_or(0))
}

/// Paints through BeginPaint/EndPaint with the control's font (or the GUI font),
/// transparent text in COLOR_BTNTEXT; `f` gets the DC and the client size.
pub fn paint(cx: &mut Ctx, h: u32, f: impl FnOnce(&mut Ctx, u32, &Win) -> UR<()>) -> UR<u32> {
    let (ps, esp) = crate::user32::stack_alloc(cx, 64);
    let r = (|| -> UR<()> {
        let hdc = crate::user32::paint::begin_paint(cx, h, ps)?;
        if hdc != 0
            && let Some(w) = win(cx, h)
        {
            let font = if w.font != 0 { w.font } else { gui_font(cx)? };
            if font != 0 {
                crate::user32::call_export(cx, "GDI32.dll", "SelectObject", &[hdc, font])?;
            }
            crate::user32::call_export(cx, "GDI32.dll", "SetBkMode", &[hdc, 1])?;
            crate::user32::call_export(
                cx,
                "GDI32.dll",
                "SetTextColor",
                &[hdc, gp::sys_color(gp::COLOR_BTNTEXT)],
            )?;
            f(cx, hdc, &w)?;
        }
        crate::user32::paint::end_paint(cx, h, ps)
    })();
    crate::user32::stack_free(cx, esp);
    r?;
    Ok(0)
}

/// The height of a line of text in the control's font.
pub fn font_height(cx: &mut Ctx, h: u32) -> UR<i32> {
    let font = match win(cx, h) {
        Some(w) if w.font != 0 => w.font,
        _ => gui_font(cx)?,
    };
    let lf = {
        let g = cx.proc.gdi32.lock();
        match g.objs.get(&font) {
            Some(crate::gdi32::objects::Obj::Font(lf)) => Some(lf.clone()),
            _ => None,
        }
    };
    Ok(lf.map_or(13, |lf| crate::gdi32::text::font_info(&lf).height()))
}

/// Width of `s` in the control's font.
pub fn text_width(cx: &mut Ctx, h: u32, s: &str) -> UR<i32> {
    let hdc = crate::user32::call_export(cx, "USER32.dll", "GetDC", &[h])?.unwrap_or(0);
    if hdc == 0 {
        return Ok(0);
    }
    let font = match win(cx, h) {
        Some(w) if w.font != 0 => w.font,
        _ => gui_font(cx)?,
    };
    crate::user32::call_export(cx, "GDI32.dll", "SelectObject", &[hdc, font])?;
    let w = gp::text_extent(cx.proc, hdc, s).0;
    crate::user32::call_export(cx, "USER32.dll", "ReleaseDC", &[h, hdc])?;
    Ok(w)
}

pub fn fill(cx: &Ctx, hdc: u32, r: Rect, colorref: u32) -> UR<()> {
    gp::fill_rect(cx.proc, hdc, r, colorref)?;
    Ok(())
}

/// WM_NOTIFY to `to` from control `h`: an NMHDR followed by `extra` dwords. Returns
/// the parent's answer and the extra dwords as the parent left them.
pub fn notify_to(cx: &mut Ctx, to: u32, h: u32, code: u32, extra: &[u32]) -> UR<(u32, Vec<u32>)> {
    if to == 0 {
        return Ok((0, extra.to_vec()));
    }
    let id = win(cx, h).map_or(0, |w| w.id);
    let size = 12 + 4 * extra.len() as u32;
    let (p, esp) = crate::user32::stack_alloc(cx, size);
    let r = (|| -> UR<(u32, Vec<u32>)> {
        let m = &cx.proc.mem;
        m.write_u32(p, h)?;
        m.write_u32(p + 4, id)?;
        m.write_u32(p + 8, code)?;
        for (k, v) in extra.iter().enumerate() {
            m.write_u32(p + 12 + 4 * k as u32, *v)?;
        }
        let r = send(cx, to, WM_NOTIFY, id, p, true)?;
        let mut out = Vec::with_capacity(extra.len());
        for k in 0..extra.len() as u32 {
            out.push(cx.proc.mem.read_u32(p + 12 + 4 * k)?);
        }
        Ok((r, out))
    })();
    crate::user32::stack_free(cx, esp);
    r
}

/// WM_NOTIFY to the control's parent.
pub fn notify(cx: &mut Ctx, h: u32, code: u32, extra: &[u32]) -> UR<(u32, Vec<u32>)> {
    let parent = win(cx, h).map_or(0, |w| w.parent);
    notify_to(cx, parent, h, code, extra)
}

/// WM_COMMAND to `to` for command `id` from control `h`.
pub fn command(cx: &mut Ctx, to: u32, id: u32, code: u32, h: u32) -> UR<u32> {
    if to == 0 {
        return Ok(0);
    }
    send(cx, to, WM_COMMAND, (id & 0xffff) | (code << 16), h, true)
}

/// Moves and sizes control `h` (parent client coordinates) without activating it.
pub fn place(cx: &mut Ctx, h: u32, r: Rect) -> UR<()> {
    const SWP_NOZORDER: u32 = 0x4;
    const SWP_NOACTIVATE: u32 = 0x10;
    crate::user32::window::set_window_pos(
        cx,
        h,
        0,
        r.left,
        r.top,
        r.width(),
        r.height(),
        SWP_NOZORDER | SWP_NOACTIVATE,
    )?;
    Ok(())
}

/// Where a control with CCS_* `style` and height `height` goes in its parent's client
/// area on WM_SIZE: along the top or bottom edge, full width. None when it keeps its
/// place (CCS_NOPARENTALIGN keeps its position but still gets the width,
/// CCS_NORESIZE keeps everything).
pub fn align_in_parent(cx: &Ctx, w: &Win, height: i32) -> Option<Rect> {
    if w.style & CCS_NORESIZE != 0 {
        return None;
    }
    let (pw, ph) = client_size(cx, w.parent);
    let align = w.style & 3;
    let (x, width) = (0, pw);
    if w.style & CCS_NOPARENTALIGN != 0 {
        return Some(Rect::new(
            w.rect.left,
            w.rect.top,
            w.rect.left + width,
            w.rect.top + height,
        ));
    }
    let y = match align {
        CCS_BOTTOM => ph - height,
        CCS_NOMOVEY => w.rect.top,
        _ => 0,
    };
    Some(Rect::new(x, y, x + width, y + height))
}

/// Reads a RECT.
pub fn read_rect(cx: &Ctx, p: u32) -> UR<Rect> {
    Ok(gp::read_rect(cx.proc, p)?)
}

pub fn write_rect(cx: &Ctx, p: u32, r: Rect) -> UR<()> {
    gp::write_rect(cx.proc, p, r)?;
    Ok(())
}

/// The state of one control, kept in a process slot keyed by window.
pub struct States<T>(pub std::sync::Mutex<std::collections::HashMap<u32, T>>);

impl<T> Default for States<T> {
    fn default() -> Self {
        States(std::sync::Mutex::new(std::collections::HashMap::new()))
    }
}

/// Runs `f` on control `h`'s state of type T (created with Default if missing).
pub fn with_state<T: Default + Send + 'static, R>(
    cx: &Ctx,
    h: u32,
    f: impl FnOnce(&mut T) -> R,
) -> R {
    let s = cx.proc.slot::<States<T>>();
    let mut g = s.0.lock().unwrap_or_else(|e| e.into_inner());
    f(g.entry(h).or_default())
}

/// Drops control `h`'s state of type T (WM_NCDESTROY).
pub fn drop_state<T: Send + 'static>(cx: &Ctx, h: u32) {
    let s = cx.proc.slot::<States<T>>();
    s.0.lock().unwrap_or_else(|e| e.into_inner()).remove(&h);
}

/// Whether the key (virtual-key code) is down in the thread's key state.
pub fn key_down(cx: &Ctx, vk: usize) -> bool {
    let q = lock_wm(cx.proc).queue(cx.thread.tid);
    q.lock().keys.get(vk).is_some_and(|k| k & 0x80 != 0)
}

/// The classes of the bar controls, for COMCTL32's attach.
pub fn classes() -> Vec<crate::user32::hostclass::HostClass> {
    vec![
        super::statusbar::class(),
        super::toolbar::class(),
        super::tooltip::class(),
        super::progress::class(),
        super::updown::class(),
        super::rebar::class(),
        super::comboex::class(),
    ]
}

/// The bar controls' window procedures and functions, for COMCTL32's exports.
pub fn exports() -> Vec<crate::hle::ApiDef> {
    let mut v = super::statusbar::exports();
    v.extend(super::toolbar::exports());
    v.extend(super::tooltip::exports());
    v.extend(super::progress::exports());
    v.extend(super::updown::exports());
    v.extend(super::rebar::exports());
    v.extend(super::comboex::exports());
    v.extend(super::imagelist::exports());
    v
}
