//! What the display shows of DirectDraw, and the refresh it is paced on.
//!
//! A present (a Flip, a blit into the primary surface, an Unlock or ReleaseDC of
//! it) converts the primary surface's pixels through its palette into a
//! [`Frame`]. In exclusive full-screen mode that frame is the picture
//! ([`fullscreen_frame`]); in windowed mode (DDSCL_NORMAL) the primary is the screen
//! and the part of it under the program's window is copied into the window, whose
//! picture the display composes as usual. Either way the display's present counter
//! and hook see the frame.
//!
//! The refresh: 60 Hz, with vertical blank at the start of each refresh period.
//! Deterministic runs count periods on the virtual clock ([`display::frame_start`]),
//! others on the host clock.

use super::Inner;
use crate::display::{self, Frame};
use crate::gdi32::Rect;
use crate::hle::{ApiResult, Ctx, Outcome};
use crate::process::Process;
use std::sync::{Arc, MutexGuard};

/// The frame DirectDraw shows in exclusive full-screen mode, if it has presented one.
pub fn fullscreen_frame(proc: &Process) -> Option<Frame> {
    let g = proc.ddraw.lock();
    if g.fullscreen() {
        g.latest.clone()
    } else {
        None
    }
}

/// Presents the primary surface. Takes the DirectDraw lock so it can release it
/// before the display's hook runs (the hook may read the display).
pub fn present(
    proc: &Arc<Process>,
    mut g: MutexGuard<'_, Inner>,
    _dirty: Option<Rect>,
) -> ApiResult<()> {
    let Some(id) = g.primary else { return Ok(()) };
    let Some(s) = g.surfaces.get(&id) else {
        return Ok(());
    };
    let mut bytes = vec![0u8; s.size() as usize];
    proc.mem.read_bytes(s.bits, &mut bytes)?;
    let pal = super::surface::palette_of(&g, id);
    let (w, h) = (s.width, s.height);
    let pixels = super::format::surface_to_rgb(
        s.fmt,
        &bytes,
        s.pitch as usize,
        w as usize,
        h as usize,
        &pal,
    );
    let frame = Frame {
        width: w,
        height: h,
        pixels,
    };
    if g.fullscreen() {
        g.latest = Some(frame.clone());
        drop(g);
        // What the screen shows: the primary with the overlays laid over it.
        let mut shown = frame;
        super::overlay::composite(proc, &mut shown, (0, 0));
        display::note_present(proc, &shown);
        return Ok(());
    }
    let hwnd = s
        .clipper
        .and_then(|(cid, _)| g.clippers.get(&cid).map(|c| c.hwnd))
        .filter(|&h| h != 0)
        .unwrap_or(g.coop_hwnd);
    drop(g);
    crate::user32::present::show_on_screen(
        proc,
        hwnd,
        Rect::new(0, 0, w as i32, h as i32),
        &frame.pixels,
    );
    if let Some(shown) = display::current_frame(proc) {
        display::note_present(proc, &shown);
    }
    Ok(())
}

/// Where the beam is: the refresh period and the scan line (`None` in vertical blank).
pub struct Beam {
    pub period: u64,
    pub line: Option<u32>,
}

/// Lines per refresh for a mode of `height` lines (VGA timing: 480 visible of 525).
fn total_lines(height: u32) -> u64 {
    (height as u64 * 525).div_ceil(480).max(height as u64 + 1)
}

/// The refresh clock: (current period, position in it, period length), in
/// instructions of the virtual clock or microseconds of the host clock.
fn clock(cx: &Ctx) -> (u64, u64, u64) {
    if cx.proc.config.deterministic {
        let now = crate::scheduler::virtual_instructions(cx);
        let per = display::frame_start(1);
        let k = now / per;
        // frame_start rounds; find the period whose start is at or before now.
        let k = if display::frame_start(k + 1) <= now {
            k + 1
        } else {
            k
        };
        let start = display::frame_start(k);
        (k, now - start, display::frame_start(k + 1) - start)
    } else {
        let now = cx.proc.host.micros();
        let hz = cx.proc.display.mode().refresh_hz.max(1) as u64;
        let k = now * hz / 1_000_000;
        let start = k * 1_000_000 / hz;
        let next = (k + 1) * 1_000_000 / hz;
        (k, now - start, next - start)
    }
}

pub fn beam(cx: &Ctx) -> Beam {
    let (k, pos, len) = clock(cx);
    let height = cx.proc.display.mode().height;
    let total = total_lines(height);
    let line = pos * total / len.max(1);
    let blank = total - height as u64;
    Beam {
        period: k,
        line: (line >= blank).then(|| (line - blank) as u32),
    }
}

/// Waits until the next vertical blank begins (or, with `end`, ends). Returns
/// `Some(outcome)` while the thread must wait (the API returns it and is called
/// again), `None` once the blank has come.
pub fn wait_vblank(cx: &mut Ctx, end: bool) -> Option<Outcome> {
    let (_, pos, len) = clock(cx);
    let height = cx.proc.display.mode().height;
    let total = total_lines(height);
    let blank_len = len * (total - height as u64) / total;
    let target = if end {
        if pos < blank_len {
            blank_len
        } else {
            len + blank_len
        }
    } else {
        len
    };
    let left = target - pos;
    // Whole milliseconds, rounded up, and at least one: a deterministic thread that
    // is called again after its wait must find that wait (the scheduler keeps it)
    // rather than start a new one.
    let ms = if cx.proc.config.deterministic {
        left.div_ceil(crate::scheduler::INSNS_PER_MS)
    } else {
        left.div_ceil(1000)
    }
    .max(1);
    match crate::scheduler::sleep(cx, ms as u32) {
        Outcome::Return(_) => None,
        o => Some(o),
    }
}
