//! What the guest shows: the frame the player and the headless runner display.

use super::lock_wm;
use crate::display::Frame;
use crate::gdi32::Rect;
use crate::process::Process;

/// What of a top-level window the frame shows (window coordinates): its client
/// area and, above it, its menu bar (the caption and borders are the host window's).
pub fn frame_rect(wm: &super::wm::Wm, h: u32) -> Rect {
    let Some(w) = wm.win(h) else {
        return Rect::default();
    };
    let c = w.client;
    match super::menubar::bar_of(wm, h) {
        Some(bar) => Rect::new(c.left, bar.rect.top.min(c.top), c.right, c.bottom),
        None => c,
    }
}

/// Screen position of the frame's top-left pixel (frame coordinates are relative to
/// it), for the main window `h`.
pub fn frame_origin(wm: &super::wm::Wm, h: u32) -> (i32, i32) {
    let r = frame_rect(wm, h);
    let (x, y) = wm.window_origin(h);
    (x + r.left, y + r.top)
}

/// The titles of the process's visible top-level windows (what a user sees in
/// their caption bars), bottom of the z-order first.
pub fn visible_titles(proc: &Process) -> Vec<String> {
    super::conwin::sync(proc);
    let wm = lock_wm(proc);
    wm.top
        .iter()
        .rev()
        .filter_map(|&h| wm.win(h))
        .filter(|w| w.style & super::wm::WS_VISIBLE != 0)
        .map(|w| w.text.clone())
        .collect()
}

/// The screen point of the top-left pixel of the frame [`compose_frame`] makes.
pub fn frame_screen_origin(proc: &Process) -> Option<(i32, i32)> {
    let wm = lock_wm(proc);
    let main = wm.main_window()?;
    Some(frame_origin(&wm, main))
}

/// The main window's client area and menu bar (the first visible top-level window
/// of the process), with the process's other visible top-level windows (dialogs,
/// message boxes) and open menus composed on top where they overlap it; `None`
/// while no window is visible.
pub fn compose_frame(proc: &Process) -> Option<Frame> {
    super::conwin::sync(proc);
    let mut wm = lock_wm(proc);
    super::menubar::paint_dirty_bars(&mut wm);
    super::scroll::paint_all(&wm);
    let main = wm.main_window()?;
    let mw = wm.win(main)?;
    let fr = frame_rect(&wm, main);
    let (cw, ch) = (fr.width().max(0), fr.height().max(0));
    let (ox, oy) = frame_origin(&wm, main);
    let mut frame = Frame {
        width: cw as u32,
        height: ch as u32,
        pixels: vec![0; (cw * ch) as usize],
    };
    {
        let s = mw
            .surface
            .as_ref()?
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let c = s.crop(fr);
        blit(&mut frame, &c.pixels, c.width as i32, c.height as i32, 0, 0);
    }
    // Other top-level windows, bottom of the z-order first.
    for &h in wm.top.iter().rev() {
        if h == main {
            continue;
        }
        let Some(w) = wm.win(h) else { continue };
        if w.style & super::wm::WS_VISIBLE == 0 {
            continue;
        }
        let Some(sref) = &w.surface else { continue };
        let mut s = sref.lock().unwrap_or_else(|e| e.into_inner()).clone();
        draw_frame(&mut s, w, h == wm.active);
        let (wx, wy) = wm.window_origin(h);
        blit(
            &mut frame,
            &s.pixels,
            s.width as i32,
            s.height as i32,
            wx - ox,
            wy - oy,
        );
    }
    super::menubar::draw_open_popups(&wm, &mut frame, (ox, oy));
    Some(frame)
}

/// A classic frame and caption bar for a popup composed over the main window (its
/// non-client area is not painted by the guest).
fn draw_frame(s: &mut crate::gdi32::Surface, w: &super::wm::Window, active: bool) {
    let (ww, wh) = (s.width as i32, s.height as i32);
    let mut fill = |r: Rect, c: u32| {
        let r = r.intersect(&Rect::new(0, 0, ww, wh));
        for y in r.top..r.bottom {
            for x in r.left..r.right {
                s.pixels[(y * ww + x) as usize] = c;
            }
        }
    };
    let c = w.client;
    // Border: everything outside the client area but the caption.
    fill(Rect::new(0, 0, ww, c.top), 0xc0c0c0);
    fill(Rect::new(0, c.bottom, ww, wh), 0xc0c0c0);
    fill(Rect::new(0, c.top, c.left, c.bottom), 0xc0c0c0);
    fill(Rect::new(c.right, c.top, ww, c.bottom), 0xc0c0c0);
    fill(Rect::new(0, 0, ww, 1), 0xffffff);
    fill(Rect::new(0, 0, 1, wh), 0xffffff);
    fill(Rect::new(0, wh - 1, ww, wh), 0x000000);
    fill(Rect::new(ww - 1, 0, ww, wh), 0x000000);
    if w.style & super::wm::WS_CAPTION == super::wm::WS_CAPTION {
        let b = c.left.min(super::wm::CX_FRAME);
        let cap = Rect::new(b, b, ww - b, b + super::wm::CY_CAPTION - 1);
        fill(cap, if active { 0x000080 } else { 0x808080 });
    }
}

fn blit(f: &mut Frame, px: &[u32], w: i32, h: i32, dx: i32, dy: i32) {
    let (fw, fh) = (f.width as i32, f.height as i32);
    for y in 0..h {
        let ty = y + dy;
        if ty < 0 || ty >= fh {
            continue;
        }
        let x0 = 0.max(-dx);
        let x1 = w.min(fw - dx);
        if x1 <= x0 {
            continue;
        }
        let src = (y * w + x0) as usize;
        let dst = (ty * fw + x0 + dx) as usize;
        let n = (x1 - x0) as usize;
        f.pixels[dst..dst + n].copy_from_slice(&px[src..src + n]);
    }
}

/// The main window's title.
pub fn main_window_title(proc: &Process) -> Option<String> {
    super::conwin::sync(proc);
    let wm = lock_wm(proc);
    let h = wm.main_window()?;
    wm.win(h).map(|w| w.text.clone())
}

/// Windowed DirectDraw: a top-level window's client area in screen coordinates
/// (`hwnd` 0: the main window), or `None` if there is no such visible window.
pub fn client_on_screen(proc: &Process, hwnd: u32) -> Option<Rect> {
    let wm = lock_wm(proc);
    let h = if hwnd == 0 { wm.main_window()? } else { hwnd };
    let w = wm.win(h)?;
    let (x, y) = wm.client_origin(h);
    Some(Rect::new(
        x,
        y,
        x + w.client.width().max(0),
        y + w.client.height().max(0),
    ))
}

/// Windowed DirectDraw: the primary surface is the screen, so the pixels `px` of
/// screen rectangle `screen` show in a top-level window (`hwnd` 0: the main window)
/// where they overlap its client area: they are copied into its backing store.
pub fn show_on_screen(proc: &Process, hwnd: u32, screen: Rect, px: &[u32]) {
    let wm = lock_wm(proc);
    let Some(h) = (if hwnd == 0 {
        wm.main_window()
    } else {
        Some(hwnd)
    }) else {
        return;
    };
    let Some(w) = wm.win(h) else { return };
    if w.parent != 0 {
        return;
    }
    let Some(sref) = &w.surface else { return };
    let (wx, wy) = wm.window_origin(h);
    // The client area in the window's surface coordinates, and the part of the
    // screen rectangle that falls in it.
    let client = w.client;
    let on_screen = client.offset(wx, wy).intersect(&screen);
    if on_screen.is_empty() || px.len() < (screen.width() * screen.height()).max(0) as usize {
        return;
    }
    let mut s = sref.lock().unwrap_or_else(|e| e.into_inner());
    let sw = s.width as i32;
    let sh = s.height as i32;
    for y in on_screen.top..on_screen.bottom {
        let ty = y - wy;
        if ty < 0 || ty >= sh {
            continue;
        }
        for x in on_screen.left..on_screen.right {
            let tx = x - wx;
            if tx < 0 || tx >= sw {
                continue;
            }
            s.pixels[(ty * sw + tx) as usize] =
                px[((y - screen.top) * screen.width() + (x - screen.left)) as usize];
        }
    }
}
