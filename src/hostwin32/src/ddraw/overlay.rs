//! Overlay surfaces: a picture the display hardware lays over the primary surface
//! at scan-out, scaled from a source rectangle to a destination rectangle, with
//! source and destination colour keys.
//!
//! The emulated card has one overlay unit in the RGB formats ordinary surfaces have
//! (no FourCC/YUV formats: GetFourCCCodes lists none, as on a card without them).
//! Like hardware, the overlay is not drawn into the primary surface's memory: the
//! display composes it over whatever the screen shows each time a frame is taken
//! ([`composite`]), so a program that reads the primary back does not see it.

use super::format::Fmt;
use super::surface::{DDSCAPS_OVERLAY, this_surface};
use super::{
    DD_OK, DDERR_INVALIDOBJECT, DDERR_INVALIDPARAMS, DDERR_INVALIDRECT, DDERR_NOCOLORKEY, DdErr,
    DdResult, Inner, fail, hr,
};
use crate::display::Frame;
use crate::gdi32::Rect;
use crate::hle::{ApiError, ApiResult, Ctx, Ptr};
use crate::process::Process;
use std::sync::Arc;

pub const DDOVER_HIDE: u32 = 0x200;
pub const DDOVER_KEYDEST: u32 = 0x400;
pub const DDOVER_KEYDESTOVERRIDE: u32 = 0x800;
pub const DDOVER_KEYSRC: u32 = 0x1000;
pub const DDOVER_KEYSRCOVERRIDE: u32 = 0x2000;
pub const DDOVER_SHOW: u32 = 0x4000;
pub const DDOVER_DDFX: u32 = 0x8_0000;
/// The flags this overlay unit understands; others (alpha blending, bob/weave,
/// auto-flip of video ports) are reported by name.
const KNOWN: u32 = DDOVER_HIDE
    | DDOVER_KEYDEST
    | DDOVER_KEYDESTOVERRIDE
    | DDOVER_KEYSRC
    | DDOVER_KEYSRCOVERRIDE
    | DDOVER_SHOW
    | DDOVER_DDFX;

pub const DDERR_OUTOFCAPS: u32 = super::dd_hresult(360);
pub const DDERR_OVERLAYNOTVISIBLE: u32 = super::dd_hresult(577);
pub const DDERR_NOOVERLAYDEST: u32 = super::dd_hresult(578);
pub const DDERR_INVALIDPOSITION: u32 = super::dd_hresult(579);
pub const DDERR_NOTAOVERLAYSURFACE: u32 = super::dd_hresult(580);

/// How many overlays can be visible at once (GetCaps' dwMaxVisibleOverlays).
pub const MAX_VISIBLE: usize = 1;

/// Where an overlay surface is shown (kept on the surface UpdateOverlay was called
/// on; a Flip of its chain changes which pixels that surface holds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub src: Rect,
    /// On the primary surface, i.e. in screen coordinates.
    pub dst: Rect,
    pub visible: bool,
    /// Raw overlay pixel values (inclusive range) that are transparent.
    pub key_src: Option<(u32, u32)>,
    /// Raw primary pixel values (inclusive range) where the overlay shows.
    pub key_dst: Option<(u32, u32)>,
}

/// How many overlays are visible now (GetCaps' dwCurrVisibleOverlays).
pub fn visible_count(g: &Inner) -> usize {
    g.surfaces
        .values()
        .filter(|s| s.overlay.is_some_and(|o| o.visible))
        .count()
}

fn overlay_surface(g: &Inner, this: u32) -> DdResult<u32> {
    let (_, id) = this_surface(g, this)?;
    if g.surfaces[&id].caps & DDSCAPS_OVERLAY == 0 {
        return fail(DDERR_NOTAOVERLAYSURFACE);
    }
    Ok(id)
}

fn read_rect(proc: &Process, p: Ptr) -> DdResult<Option<Rect>> {
    if p.is_null() {
        return Ok(None);
    }
    let v: Vec<i32> = (0..4)
        .map(|k| proc.mem.read_u32(p.0 + 4 * k).map(|x| x as i32))
        .collect::<Result<_, _>>()?;
    Ok(Some(Rect::new(v[0], v[1], v[2], v[3])))
}

fn read_key(proc: &Process, at: u32) -> DdResult<(u32, u32)> {
    Ok((proc.mem.read_u32(at)?, proc.mem.read_u32(at + 4)?))
}

/// IDirectDrawSurface::UpdateOverlay: shows, hides or repositions the overlay on
/// the primary surface.
pub fn UpdateOverlay(
    cx: &mut Ctx,
    this: u32,
    lpSrcRect: Ptr,
    lpDDDestSurface: u32,
    lpDestRect: Ptr,
    dwFlags: u32,
    lpDDOverlayFx: Ptr,
) -> ApiResult<u32> {
    if dwFlags & !KNOWN != 0 {
        return Err(ApiError::UnimplementedCase(format!(
            "IDirectDrawSurface::UpdateOverlay with flags {:#x}",
            dwFlags & !KNOWN
        )));
    }
    let changed = {
        let mut g = cx.proc.ddraw.lock();
        let r = update(
            cx.proc,
            &mut g,
            this,
            lpSrcRect,
            lpDDDestSurface,
            lpDestRect,
            dwFlags,
            lpDDOverlayFx,
        );
        match r {
            Ok(changed) => changed,
            Err(e) => return hr(Err(e)),
        }
    };
    if changed {
        shown_changed(cx.proc);
    }
    Ok(DD_OK)
}

/// UpdateOverlay's checks and bookkeeping; true when what the screen shows changed.
#[allow(clippy::too_many_arguments)]
fn update(
    proc: &Process,
    g: &mut Inner,
    this: u32,
    src: Ptr,
    dest_surface: u32,
    dst: Ptr,
    flags: u32,
    fx: Ptr,
) -> DdResult<bool> {
    let id = overlay_surface(g, this)?;
    let dest =
        super::surface::arg_surface(g, dest_surface)?.ok_or(DdErr::Hr(DDERR_INVALIDPARAMS))?;
    // Overlays are laid over the screen: the destination is the primary surface.
    if g.primary != Some(dest) {
        return fail(DDERR_INVALIDPARAMS);
    }
    if flags & DDOVER_SHOW != 0 && flags & DDOVER_HIDE != 0 {
        return fail(DDERR_INVALIDPARAMS);
    }
    let was_visible = g.surfaces[&id].overlay.is_some_and(|o| o.visible);
    if flags & DDOVER_HIDE != 0 {
        if let Some(o) = g.surfaces.get_mut(&id).and_then(|s| s.overlay.as_mut()) {
            o.visible = false;
        }
        return Ok(was_visible);
    }
    let s = &g.surfaces[&id];
    let d = &g.surfaces[&dest];
    let src = read_rect(proc, src)?.unwrap_or(s.rect());
    let dst = read_rect(proc, dst)?.unwrap_or(d.rect());
    if src.is_empty()
        || src.left < 0
        || src.top < 0
        || src.right > s.width as i32
        || src.bottom > s.height as i32
    {
        return fail(DDERR_INVALIDRECT);
    }
    if dst.is_empty() {
        return fail(DDERR_INVALIDRECT);
    }
    let fx_key = |off: u32| -> DdResult<(u32, u32)> {
        if fx.is_null() {
            return fail(DDERR_INVALIDPARAMS);
        }
        read_key(proc, fx.0 + off)
    };
    let key_src = if flags & DDOVER_KEYSRCOVERRIDE != 0 {
        Some(fx_key(40)?)
    } else if flags & DDOVER_KEYSRC != 0 {
        Some(s.ck_src_overlay.ok_or(DdErr::Hr(DDERR_NOCOLORKEY))?)
    } else {
        None
    };
    let key_dst = if flags & DDOVER_KEYDESTOVERRIDE != 0 {
        Some(fx_key(32)?)
    } else if flags & DDOVER_KEYDEST != 0 {
        Some(d.ck_dst_overlay.ok_or(DdErr::Hr(DDERR_NOCOLORKEY))?)
    } else {
        None
    };
    let visible = flags & DDOVER_SHOW != 0 || was_visible;
    if visible && !was_visible && visible_count(g) >= MAX_VISIBLE {
        return fail(DDERR_OUTOFCAPS);
    }
    let p = Placement {
        src,
        dst,
        visible,
        key_src,
        key_dst,
    };
    let s = g
        .surfaces
        .get_mut(&id)
        .ok_or(DdErr::Hr(DDERR_INVALIDOBJECT))?;
    let changed = visible && s.overlay != Some(p) || was_visible != visible;
    s.overlay = Some(p);
    Ok(changed)
}

/// IDirectDrawSurface::SetOverlayPosition: moves a visible overlay's destination
/// rectangle to (lX, lY) on the screen; it must stay on the screen.
pub fn SetOverlayPosition(cx: &mut Ctx, this: u32, lX: i32, lY: i32) -> ApiResult<u32> {
    let r = {
        let mut g = cx.proc.ddraw.lock();
        (|| {
            let id = overlay_surface(&g, this)?;
            let screen = g
                .primary
                .and_then(|p| g.surfaces.get(&p))
                .map(|p| p.rect())
                .ok_or(DdErr::Hr(DDERR_NOOVERLAYDEST))?;
            let s = g
                .surfaces
                .get_mut(&id)
                .ok_or(DdErr::Hr(DDERR_INVALIDOBJECT))?;
            let o = s.overlay.as_mut().ok_or(DdErr::Hr(DDERR_NOOVERLAYDEST))?;
            if !o.visible {
                return fail(DDERR_OVERLAYNOTVISIBLE);
            }
            let moved = Rect::new(lX, lY, lX + o.dst.width(), lY + o.dst.height());
            if moved.left < 0
                || moved.top < 0
                || moved.right > screen.right
                || moved.bottom > screen.bottom
            {
                return fail(DDERR_INVALIDPOSITION);
            }
            let changed = o.dst != moved;
            o.dst = moved;
            Ok(changed)
        })()
    };
    match r {
        Ok(changed) => {
            if changed {
                shown_changed(cx.proc);
            }
            Ok(DD_OK)
        }
        Err(e) => hr(Err(e)),
    }
}

/// IDirectDrawSurface::GetOverlayPosition: the destination rectangle's top left.
pub fn GetOverlayPosition(cx: &mut Ctx, this: u32, lplX: Ptr, lplY: Ptr) -> ApiResult<u32> {
    let g = cx.proc.ddraw.lock();
    hr((|| {
        let id = overlay_surface(&g, this)?;
        let o = g.surfaces[&id]
            .overlay
            .ok_or(DdErr::Hr(DDERR_NOOVERLAYDEST))?;
        if !o.visible {
            return fail(DDERR_OVERLAYNOTVISIBLE);
        }
        if lplX.is_null() || lplY.is_null() {
            return fail(DDERR_INVALIDPARAMS);
        }
        cx.proc.mem.write_u32(lplX.0, o.dst.left as u32)?;
        cx.proc.mem.write_u32(lplY.0, o.dst.top as u32)?;
        Ok(())
    })())
}

/// The screen changed because an overlay did: the display counts it as a
/// presented frame, as it does a Flip of the primary.
pub fn shown_changed(proc: &Arc<Process>) {
    if let Some(f) = crate::display::current_frame(proc) {
        crate::display::note_present(proc, &f);
    }
}

/// Whether a surface being flipped is a visible overlay (the screen changes).
pub fn is_visible_overlay(g: &Inner, id: u32) -> bool {
    g.surfaces
        .get(&id)
        .is_some_and(|s| s.overlay.is_some_and(|o| o.visible))
}

/// Lays every visible overlay over `frame`, whose top-left pixel is screen point
/// `origin`. Destination keys compare against the screen's pixel in the primary
/// surface's format (the primary's memory is the screen).
pub fn composite(proc: &Process, frame: &mut Frame, origin: (i32, i32)) {
    let g = proc.ddraw.lock();
    let Some(primary_fmt) = g.primary.and_then(|p| g.surfaces.get(&p)).map(|p| p.fmt) else {
        return;
    };
    let primary_pal = g.primary.map(|p| super::surface::palette_of(&g, p));
    for (&id, s) in g.surfaces.iter() {
        let Some(o) = s.overlay.filter(|o| o.visible) else {
            continue;
        };
        let mut bytes = vec![0u8; s.size() as usize];
        if proc.mem.read_bytes(s.bits, &mut bytes).is_err() {
            log::warn!("DirectDraw overlay {id}: its pixels are not readable");
            continue;
        }
        let pal = super::surface::palette_of(&g, id);
        let (sw, sh) = (o.src.width() as i64, o.src.height() as i64);
        let (dw, dh) = (o.dst.width() as i64, o.dst.height() as i64);
        for dy in 0..dh {
            let fy = o.dst.top as i64 + dy - origin.1 as i64;
            if fy < 0 || fy >= frame.height as i64 {
                continue;
            }
            let sy = o.src.top as i64 + dy * sh / dh;
            for dx in 0..dw {
                let fx = o.dst.left as i64 + dx - origin.0 as i64;
                if fx < 0 || fx >= frame.width as i64 {
                    continue;
                }
                let sx = o.src.left as i64 + dx * sw / dw;
                let raw = raw_pixel(s.fmt, &bytes, s.pitch as usize, sx as usize, sy as usize);
                if o.key_src.is_some_and(|(lo, hi)| (lo..=hi).contains(&raw)) {
                    continue;
                }
                let at = (fy as u32 * frame.width + fx as u32) as usize;
                if let Some((lo, hi)) = o.key_dst {
                    let under = from_rgb(primary_fmt, frame.pixels[at], primary_pal.as_ref());
                    if !(lo..=hi).contains(&under) {
                        continue;
                    }
                }
                frame.pixels[at] = s.fmt.to_rgb(raw, &pal);
            }
        }
    }
}

fn raw_pixel(fmt: Fmt, bytes: &[u8], pitch: usize, x: usize, y: usize) -> u32 {
    let at = y * pitch + x * fmt.bytes() as usize;
    match fmt {
        Fmt::Pal8 => bytes[at] as u32,
        Fmt::Rgb565 => u16::from_le_bytes([bytes[at], bytes[at + 1]]) as u32,
        Fmt::Xrgb8888 => {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        }
    }
}

/// A screen colour as the primary surface stores it. 5- and 6-bit components come
/// back exactly from the widening `Fmt::to_rgb` does; a palette colour is the
/// first entry that has it (none: a value no key range can hold is impossible, so
/// it answers the index past the palette).
fn from_rgb(fmt: Fmt, rgb: u32, pal: Option<&[u32; 256]>) -> u32 {
    let (r, g, b) = (rgb >> 16 & 0xff, rgb >> 8 & 0xff, rgb & 0xff);
    match fmt {
        Fmt::Rgb565 => (r >> 3) << 11 | (g >> 2) << 5 | b >> 3,
        Fmt::Xrgb8888 => rgb & 0xff_ffff,
        Fmt::Pal8 => pal
            .and_then(|p| p.iter().position(|&e| super::format::pal_rgb(e) == rgb))
            .map_or(0x100, |k| k as u32),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screen_colours_map_back_to_the_primary_format_exactly() {
        let pal = [0u32; 256];
        for raw in [0u32, 0xffff, 0xf800, 0x07e0, 0x001f, 0x1234, 0x8410] {
            let rgb = Fmt::Rgb565.to_rgb(raw, &pal);
            assert_eq!(from_rgb(Fmt::Rgb565, rgb, None), raw, "{raw:#x}");
        }
        assert_eq!(from_rgb(Fmt::Xrgb8888, 0x12_3456, None), 0x12_3456);
        let mut p = [0u32; 256];
        p[7] = 0x00_33_22_11; // PALETTEENTRY red 0x11, green 0x22, blue 0x33
        assert_eq!(from_rgb(Fmt::Pal8, 0x11_2233, Some(&p)), 7);
        assert_eq!(from_rgb(Fmt::Pal8, 0x44_4444, Some(&p)), 0x100);
    }
}
