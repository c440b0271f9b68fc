//! Blt, BltFast and Flip: reading the affected rows out of guest memory, running the
//! kernel of [`super::blit`] for the surface's pixel type, writing the rows back, and
//! presenting when the primary surface changed.

use super::blit::{self, Fx, Img, ImgMut, Key, Pixel};
use super::format::Fmt;
use super::surface::{Surf, arg_surface, this_surface};
use super::{
    DD_OK, DDERR_BLTFASTCANTCLIP, DDERR_INVALIDPARAMS, DDERR_INVALIDRECT, DDERR_NOTFLIPPABLE,
    DdErr, DdResult, Inner, fail, hr,
};
use crate::gdi32::Rect;
use crate::hle::{ApiError, ApiResult, Ctx, Outcome, Ptr};
use crate::process::Process;

pub const DDBLT_ALPHA_ANY: u32 = 0x1ff;
pub const DDBLT_COLORFILL: u32 = 0x400;
pub const DDBLT_DDFX: u32 = 0x800;
pub const DDBLT_DDROPS: u32 = 0x1000;
pub const DDBLT_KEYDEST: u32 = 0x2000;
pub const DDBLT_KEYDESTOVERRIDE: u32 = 0x4000;
pub const DDBLT_KEYSRC: u32 = 0x8000;
pub const DDBLT_KEYSRCOVERRIDE: u32 = 0x10000;
pub const DDBLT_ROP: u32 = 0x20000;
pub const DDBLT_ROTATIONANGLE: u32 = 0x40000;
pub const DDBLT_ZBUFFER_ANY: u32 = 0x00f8_0000;
pub const DDBLT_DEPTHFILL: u32 = 0x0200_0000;

pub const DDBLTFX_ARITHSTRETCHY: u32 = 0x1;
pub const DDBLTFX_MIRRORLEFTRIGHT: u32 = 0x2;
pub const DDBLTFX_MIRRORUPDOWN: u32 = 0x4;
pub const DDBLTFX_NOTEARING: u32 = 0x8;

pub const DDBLTFAST_SRCCOLORKEY: u32 = 0x1;
pub const DDBLTFAST_DESTCOLORKEY: u32 = 0x2;

pub const DDFLIP_NOVSYNC: u32 = 0x8;

const SRCCOPY: u32 = 0x00cc_0020;
const BLACKNESS: u32 = 0x0000_0042;
const WHITENESS: u32 = 0x00ff_0062;

/// A blit's work once its arguments are checked.
struct Job {
    dst_bits: u32,
    dst_pitch: u32,
    fmt: Fmt,
    /// The destination rectangle (the stretch target, before clipping).
    d: Rect,
    /// Where the destination may be written.
    clips: Vec<Rect>,
    what: What,
}

enum What {
    Fill(u32),
    Copy {
        src_bits: u32,
        src_pitch: u32,
        s: Rect,
        lr: bool,
        ud: bool,
        src_key: Option<(u32, u32)>,
        dst_key: Option<(u32, u32)>,
    },
}

fn unimplemented_case<T>(what: String) -> DdResult<T> {
    Err(DdErr::Api(ApiError::UnimplementedCase(what)))
}

/// Reads rows `top..bottom` of a surface's memory.
fn read_rows(proc: &Process, bits: u32, pitch: u32, top: i32, bottom: i32) -> DdResult<Vec<u8>> {
    let mut v = vec![0u8; (pitch as usize) * (bottom - top).max(0) as usize];
    proc.mem.read_bytes(bits + top as u32 * pitch, &mut v)?;
    Ok(v)
}

fn run<P: Pixel>(proc: &Process, j: &Job) -> DdResult<()> {
    let b = P::BYTES;
    let pitch = j.dst_pitch as usize;
    let src = match &j.what {
        What::Copy {
            src_bits,
            src_pitch,
            s,
            ..
        } => Some(read_rows(proc, *src_bits, *src_pitch, s.top, s.bottom)?),
        What::Fill(_) => None,
    };
    for c in &j.clips {
        let c = c.intersect(&j.d);
        if c.is_empty() {
            continue;
        }
        let mut rows = read_rows(proc, j.dst_bits, j.dst_pitch, c.top, c.bottom)?;
        let clip = c.offset(0, -c.top);
        let mut dst = ImgMut {
            data: &mut rows,
            pitch,
        };
        match &j.what {
            What::Fill(color) => blit::fill(&mut dst, clip, P::from_u32(*color)),
            What::Copy {
                src_pitch,
                s,
                lr,
                ud,
                src_key,
                dst_key,
                ..
            } => {
                let fx: Fx<P> = Fx {
                    mirror_lr: *lr,
                    mirror_ud: *ud,
                    src_key: src_key.map(|(lo, hi)| Key::from_u32(lo, hi)),
                    dst_key: dst_key.map(|(lo, hi)| Key::from_u32(lo, hi)),
                };
                let img = Img {
                    data: src.as_deref().unwrap_or(&[]),
                    pitch: *src_pitch as usize,
                };
                blit::copy(
                    &mut dst,
                    j.d.offset(0, -c.top),
                    clip,
                    &img,
                    s.offset(0, -s.top),
                    &fx,
                );
            }
        }
        for y in 0..c.height() as usize {
            let from = y * pitch + c.left as usize * b;
            let to = y * pitch + c.right as usize * b;
            proc.mem.write_bytes(
                j.dst_bits + (c.top as u32 + y as u32) * j.dst_pitch + (c.left as u32) * b as u32,
                &rows[from..to],
            )?;
        }
    }
    Ok(())
}

fn execute(proc: &Process, j: &Job) -> DdResult<()> {
    match j.fmt {
        Fmt::Pal8 => run::<u8>(proc, j),
        Fmt::Rgb565 => run::<u16>(proc, j),
        Fmt::Xrgb8888 => run::<u32>(proc, j),
    }
}

fn opt_rect(proc: &Process, p: Ptr, whole: Rect) -> DdResult<Rect> {
    if p.is_null() {
        Ok(whole)
    } else {
        super::clipper::read_rect(proc, p.0)
    }
}

fn inside(r: Rect, s: &Surf) -> bool {
    !r.is_empty() && r.intersect(&s.rect()) == r
}

fn key_at(proc: &Process, at: u32) -> DdResult<(u32, u32)> {
    Ok((proc.mem.read_u32(at)?, proc.mem.read_u32(at + 4)?))
}

/// Checks Blt's arguments and describes the work.
fn plan_blt(
    proc: &Process,
    g: &Inner,
    this: u32,
    lpDestRect: Ptr,
    lpDDSrcSurface: u32,
    lpSrcRect: Ptr,
    dwFlags: u32,
    lpDDBltFx: Ptr,
) -> DdResult<(u32, Job)> {
    let (_, did) = this_surface(g, this)?;
    let d = &g.surfaces[&did];
    let unsupported =
        DDBLT_ALPHA_ANY | DDBLT_DDROPS | DDBLT_ROTATIONANGLE | DDBLT_ZBUFFER_ANY | DDBLT_DEPTHFILL;
    if dwFlags & unsupported != 0 {
        return unimplemented_case(format!(
            "IDirectDrawSurface::Blt with alpha, Z, rotation or DirectDraw ROP flags ({dwFlags:#x})"
        ));
    }
    let fx_needed =
        DDBLT_COLORFILL | DDBLT_DDFX | DDBLT_ROP | DDBLT_KEYSRCOVERRIDE | DDBLT_KEYDESTOVERRIDE;
    let fx = lpDDBltFx.0;
    if dwFlags & fx_needed != 0 && (fx == 0 || proc.mem.read_u32(fx)? != 100) {
        return fail(DDERR_INVALIDPARAMS);
    }
    let drect = opt_rect(proc, lpDestRect, d.rect())?;
    if drect.is_empty() {
        return fail(DDERR_INVALIDRECT);
    }
    let clips = match d.clipper {
        Some((cid, _)) => super::clipper::rects(proc, g, cid)
            .unwrap_or_else(|| vec![d.rect()])
            .iter()
            .map(|r| r.intersect(&d.rect()))
            .filter(|r| !r.is_empty())
            .collect(),
        None => {
            if !inside(drect, d) {
                return fail(DDERR_INVALIDRECT);
            }
            vec![drect]
        }
    };
    let mut fill = None;
    if dwFlags & DDBLT_COLORFILL != 0 {
        fill = Some(proc.mem.read_u32(fx + 80)? & d.fmt.mask());
    } else if dwFlags & DDBLT_ROP != 0 {
        match proc.mem.read_u32(fx + 8)? {
            SRCCOPY => {}
            BLACKNESS => fill = Some(0),
            WHITENESS => fill = Some(d.fmt.mask()),
            rop => {
                return unimplemented_case(format!(
                    "IDirectDrawSurface::Blt with raster operation {rop:#x}"
                ));
            }
        }
    }
    let what = match fill {
        Some(c) => What::Fill(c),
        None => {
            let sid = arg_surface(g, lpDDSrcSurface)?.ok_or(DdErr::Hr(DDERR_INVALIDPARAMS))?;
            let s = &g.surfaces[&sid];
            if s.fmt != d.fmt {
                return unimplemented_case(format!(
                    "IDirectDrawSurface::Blt between pixel formats ({:?} to {:?})",
                    s.fmt, d.fmt
                ));
            }
            let srect = opt_rect(proc, lpSrcRect, s.rect())?;
            if !inside(srect, s) {
                return fail(DDERR_INVALIDRECT);
            }
            let (mut lr, mut ud) = (false, false);
            if dwFlags & DDBLT_DDFX != 0 {
                let ddfx = proc.mem.read_u32(fx + 4)?;
                let known = DDBLTFX_ARITHSTRETCHY
                    | DDBLTFX_MIRRORLEFTRIGHT
                    | DDBLTFX_MIRRORUPDOWN
                    | DDBLTFX_NOTEARING;
                if ddfx & !known != 0 {
                    return unimplemented_case(format!(
                        "IDirectDrawSurface::Blt with DDBLTFX effects {ddfx:#x} (rotation, Z)"
                    ));
                }
                lr = ddfx & DDBLTFX_MIRRORLEFTRIGHT != 0;
                ud = ddfx & DDBLTFX_MIRRORUPDOWN != 0;
            }
            // A key the surface does not have keys nothing.
            let src_key = if dwFlags & DDBLT_KEYSRCOVERRIDE != 0 {
                Some(key_at(proc, fx + 92)?)
            } else if dwFlags & DDBLT_KEYSRC != 0 {
                s.ck_src
            } else {
                None
            };
            let dst_key = if dwFlags & DDBLT_KEYDESTOVERRIDE != 0 {
                Some(key_at(proc, fx + 84)?)
            } else if dwFlags & DDBLT_KEYDEST != 0 {
                d.ck_dst
            } else {
                None
            };
            What::Copy {
                src_bits: s.bits,
                src_pitch: s.pitch,
                s: srect,
                lr,
                ud,
                src_key,
                dst_key,
            }
        }
    };
    Ok((
        did,
        Job {
            dst_bits: d.bits,
            dst_pitch: d.pitch,
            fmt: d.fmt,
            d: drect,
            clips,
            what,
        },
    ))
}

pub fn Blt(
    cx: &mut Ctx,
    this: u32,
    lpDestRect: Ptr,
    lpDDSrcSurface: u32,
    lpSrcRect: Ptr,
    dwFlags: u32,
    lpDDBltFx: Ptr,
) -> ApiResult<u32> {
    let mut g = cx.proc.ddraw.lock();
    let r = plan_blt(
        cx.proc,
        &g,
        this,
        lpDestRect,
        lpDDSrcSurface,
        lpSrcRect,
        dwFlags,
        lpDDBltFx,
    )
    .and_then(|(did, job)| execute(cx.proc, &job).map(|_| did));
    let h = finish(cx, &mut g, r)?.unwrap_or(DD_OK);
    if h == DD_OK && needs_present(&g, this) {
        super::present::present(cx.proc, g, None)?;
    }
    Ok(h)
}

/// The HRESULT of a blit (None: DD_OK), bumping the destination's uniqueness value.
fn finish(_cx: &Ctx, g: &mut Inner, r: DdResult<u32>) -> ApiResult<Option<u32>> {
    match r {
        Ok(did) => {
            if let Some(s) = g.surfaces.get_mut(&did) {
                s.uniqueness += 1;
            }
            Ok(None)
        }
        Err(DdErr::Hr(h)) => Ok(Some(h)),
        Err(DdErr::Api(e)) => Err(e),
    }
}

fn needs_present(g: &Inner, this: u32) -> bool {
    this_surface(g, this).is_ok_and(|(_, id)| g.primary == Some(id))
}

fn plan_bltfast(
    proc: &Process,
    g: &Inner,
    this: u32,
    dwX: u32,
    dwY: u32,
    lpDDSrcSurface: u32,
    lpSrcRect: Ptr,
    dwTrans: u32,
) -> DdResult<(u32, Job)> {
    let (_, did) = this_surface(g, this)?;
    let d = &g.surfaces[&did];
    if d.clipper.is_some() {
        return fail(DDERR_BLTFASTCANTCLIP);
    }
    let sid = arg_surface(g, lpDDSrcSurface)?.ok_or(DdErr::Hr(DDERR_INVALIDPARAMS))?;
    let s = &g.surfaces[&sid];
    if s.fmt != d.fmt {
        return unimplemented_case(format!(
            "IDirectDrawSurface::BltFast between pixel formats ({:?} to {:?})",
            s.fmt, d.fmt
        ));
    }
    let srect = opt_rect(proc, lpSrcRect, s.rect())?;
    if !inside(srect, s) {
        return fail(DDERR_INVALIDRECT);
    }
    let (x, y) = (dwX as i32, dwY as i32);
    let drect = Rect::new(x, y, x + srect.width(), y + srect.height());
    if dwX > i32::MAX as u32 || dwY > i32::MAX as u32 || !inside(drect, d) {
        return fail(DDERR_INVALIDRECT);
    }
    let src_key = if dwTrans & DDBLTFAST_SRCCOLORKEY != 0 {
        s.ck_src
    } else {
        None
    };
    let dst_key = if dwTrans & DDBLTFAST_DESTCOLORKEY != 0 {
        d.ck_dst
    } else {
        None
    };
    Ok((
        did,
        Job {
            dst_bits: d.bits,
            dst_pitch: d.pitch,
            fmt: d.fmt,
            d: drect,
            clips: vec![drect],
            what: What::Copy {
                src_bits: s.bits,
                src_pitch: s.pitch,
                s: srect,
                lr: false,
                ud: false,
                src_key,
                dst_key,
            },
        },
    ))
}

/// BltFast: an unstretched, unclipped copy to (dwX, dwY); DDBLTFAST_WAIT never has
/// to wait, as blits finish at once.
pub fn BltFast(
    cx: &mut Ctx,
    this: u32,
    dwX: u32,
    dwY: u32,
    lpDDSrcSurface: u32,
    lpSrcRect: Ptr,
    dwTrans: u32,
) -> ApiResult<u32> {
    let mut g = cx.proc.ddraw.lock();
    let r = plan_bltfast(
        cx.proc,
        &g,
        this,
        dwX,
        dwY,
        lpDDSrcSurface,
        lpSrcRect,
        dwTrans,
    )
    .and_then(|(did, job)| execute(cx.proc, &job).map(|_| did));
    let h = finish(cx, &mut g, r)?.unwrap_or(DD_OK);
    if h == DD_OK && needs_present(&g, this) {
        super::present::present(cx.proc, g, None)?;
    }
    Ok(h)
}

/// Flip: waits for the vertical blank (unless DDFLIP_NOVSYNC), then moves the
/// chain's memory one step towards the front (or swaps the front with the override
/// target) and presents.
pub fn Flip(
    cx: &mut Ctx,
    this: u32,
    lpDDSurfaceTargetOverride: u32,
    dwFlags: u32,
) -> ApiResult<Outcome> {
    let ret = |h: u32| Ok(Outcome::Return(h as u64));
    let chain = {
        let g = cx.proc.ddraw.lock();
        let id = match this_surface(&g, this) {
            Ok((_, id)) => id,
            Err(e) => return ret(hr(Err(e))?),
        };
        let chain = g.surfaces[&id].chain.clone();
        if chain.len() < 2 {
            return ret(DDERR_NOTFLIPPABLE);
        }
        let target = match arg_surface(&g, lpDDSurfaceTargetOverride) {
            Ok(t) => t,
            Err(e) => return ret(hr(Err(e))?),
        };
        if target.is_some_and(|t| t == chain[0] || !chain.contains(&t)) {
            return ret(DDERR_INVALIDPARAMS);
        }
        if (dwFlags >> 24) & 0xf > 1 {
            return Err(ApiError::UnimplementedCase(format!(
                "IDirectDrawSurface::Flip with a flip interval ({dwFlags:#x})"
            )));
        }
        match target {
            Some(t) => vec![chain[0], t],
            None => chain,
        }
    };
    if dwFlags & DDFLIP_NOVSYNC == 0
        && let Some(o) = super::present::wait_vblank(cx, false)
    {
        return Ok(o);
    }
    let mut g = cx.proc.ddraw.lock();
    // The chain may have gone while the thread waited.
    if chain.iter().any(|m| !g.surfaces.contains_key(m)) {
        return ret(super::DDERR_INVALIDOBJECT);
    }
    let bits: Vec<u32> = chain.iter().map(|m| g.surfaces[m].bits).collect();
    for (k, m) in chain.iter().enumerate() {
        if let Some(s) = g.surfaces.get_mut(m) {
            s.bits = bits[(k + 1) % bits.len()];
        }
    }
    if g.primary == Some(chain[0]) {
        super::present::present(cx.proc, g, None)?;
    } else if super::overlay::is_visible_overlay(&g, chain[0]) {
        drop(g);
        super::overlay::shown_changed(cx.proc);
    }
    ret(DD_OK)
}
