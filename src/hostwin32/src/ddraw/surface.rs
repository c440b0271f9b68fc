//! Surfaces: CreateSurface (primary, flipping chains, off-screen plain), their
//! description, Lock/Unlock, colour keys, palettes, clippers, GetDC, attachment, and
//! the IDirectDrawSurface 1/2/3/4/7 export lists (blits and Flip are in
//! [`super::ops`]).

use super::format::Fmt;
use super::iface::{self, com_exports};
use super::{
    DD_OK, DDERR_DCALREADYCREATED, DDERR_INVALIDCAPS, DDERR_INVALIDOBJECT, DDERR_INVALIDPARAMS,
    DDERR_INVALIDPIXELFORMAT, DDERR_INVALIDRECT, DDERR_NOCLIPPERATTACHED, DDERR_NOCOLORKEY,
    DDERR_NOCOOPERATIVELEVELSET, DDERR_NODC, DDERR_NOEXCLUSIVEMODE, DDERR_NOPALETTEATTACHED,
    DDERR_NOTFOUND, DDERR_NOTLOCKED, DDERR_OUTOFMEMORY, DdErr, DdResult, Inner, Kind, fail, hr,
};
use crate::gdi32::Rect;
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Outcome, Ptr};
use crate::process::Process;
use std::sync::Arc;

pub const DDSD_CAPS: u32 = 0x1;
pub const DDSD_HEIGHT: u32 = 0x2;
pub const DDSD_WIDTH: u32 = 0x4;
pub const DDSD_PITCH: u32 = 0x8;
pub const DDSD_BACKBUFFERCOUNT: u32 = 0x20;
pub const DDSD_LPSURFACE: u32 = 0x800;
pub const DDSD_PIXELFORMAT: u32 = 0x1000;
pub const DDSD_CKDESTOVERLAY: u32 = 0x2000;
pub const DDSD_CKDESTBLT: u32 = 0x4000;
pub const DDSD_CKSRCOVERLAY: u32 = 0x8000;
pub const DDSD_CKSRCBLT: u32 = 0x10000;
pub const DDSD_REFRESHRATE: u32 = 0x40000;

pub const DDSCAPS_BACKBUFFER: u32 = 0x4;
pub const DDSCAPS_COMPLEX: u32 = 0x8;
pub const DDSCAPS_FLIP: u32 = 0x10;
pub const DDSCAPS_FRONTBUFFER: u32 = 0x20;
pub const DDSCAPS_OFFSCREENPLAIN: u32 = 0x40;
pub const DDSCAPS_OVERLAY: u32 = 0x80;
pub const DDSCAPS_PALETTE: u32 = 0x100;
pub const DDSCAPS_PRIMARYSURFACE: u32 = 0x200;
pub const DDSCAPS_SYSTEMMEMORY: u32 = 0x800;
pub const DDSCAPS_TEXTURE: u32 = 0x1000;
pub const DDSCAPS_3DDEVICE: u32 = 0x2000;
pub const DDSCAPS_VIDEOMEMORY: u32 = 0x4000;
pub const DDSCAPS_VISIBLE: u32 = 0x8000;
pub const DDSCAPS_ZBUFFER: u32 = 0x20000;
pub const DDSCAPS_OWNDC: u32 = 0x40000;
pub const DDSCAPS_MIPMAP: u32 = 0x40_0000;
pub const DDSCAPS_LOCALVIDMEM: u32 = 0x1000_0000;

pub const DDCKEY_COLORSPACE: u32 = 0x1;
pub const DDCKEY_DESTBLT: u32 = 0x2;
pub const DDCKEY_DESTOVERLAY: u32 = 0x4;
pub const DDCKEY_SRCBLT: u32 = 0x8;
pub const DDCKEY_SRCOVERLAY: u32 = 0x10;

pub const DDERR_PRIMARYSURFACEALREADYEXISTS: u32 = 0x8876_0234;

/// One surface.
pub struct Surf {
    pub ddraw: u32,
    pub width: u32,
    pub height: u32,
    pub pitch: u32,
    pub fmt: Fmt,
    pub caps: u32,
    /// Guest address of the pixels. A Flip moves these between the surfaces of a
    /// chain; each surface keeps its role (front, back buffer).
    pub bits: u32,
    /// The memory allocated for this surface (what goes back to the address space
    /// when the chain is destroyed; the chain's blocks are freed together).
    pub alloc: u32,
    pub ck_src: Option<(u32, u32)>,
    pub ck_dst: Option<(u32, u32)>,
    /// Overlay colour keys: transparent values of an overlay surface, and the
    /// values of a primary surface where overlays show.
    pub ck_src_overlay: Option<(u32, u32)>,
    pub ck_dst_overlay: Option<(u32, u32)>,
    /// An overlay surface's place on the screen, once UpdateOverlay gave it one.
    pub overlay: Option<super::overlay::Placement>,
    /// Palette and clipper objects attached (each holds one reference on the
    /// interface pointer stored here).
    pub palette: Option<(u32, u32)>,
    pub clipper: Option<(u32, u32)>,
    /// A front buffer's flipping chain, front first (empty for other surfaces).
    pub chain: Vec<u32>,
    /// A back buffer's front buffer: the back buffer lives as long as it does.
    pub root: Option<u32>,
    pub locks: u32,
    /// GetDC's DC and the DIB section over the bits.
    pub dc: Option<(u32, u32)>,
    pub uniqueness: u32,
}

impl Surf {
    pub fn size(&self) -> u32 {
        self.pitch * self.height
    }
    pub fn rect(&self) -> Rect {
        Rect::new(0, 0, self.width as i32, self.height as i32)
    }
    pub fn in_video_memory(&self) -> bool {
        self.caps & DDSCAPS_VIDEOMEMORY != 0
    }
}

/// What GetCaps and GetAvailableVidMem report free: the total less what
/// video-memory surfaces take.
pub fn free_video_memory(g: &Inner) -> u32 {
    let used: u64 = g
        .surfaces
        .values()
        .filter(|s| s.in_video_memory())
        .map(|s| s.size() as u64)
        .sum();
    (super::object::VIDEO_MEMORY as u64).saturating_sub(used) as u32
}

/// The surface an interface pointer names, and the interface version.
pub fn this_surface(g: &Inner, this: u32) -> DdResult<(u8, u32)> {
    match iface::lookup(g, this, iface::is_surface) {
        Some((Kind::Surface(v), id)) if g.surfaces.contains_key(&id) => Ok((v, id)),
        _ => fail(DDERR_INVALIDOBJECT),
    }
}

/// The surface behind a pointer the guest passed as an argument (NULL allowed).
pub fn arg_surface(g: &Inner, p: u32) -> DdResult<Option<u32>> {
    if p == 0 {
        return Ok(None);
    }
    this_surface(g, p).map(|(_, id)| Some(id))
}

fn alloc_bits(proc: &Process, size: u32) -> DdResult<u32> {
    proc.vm
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .alloc(
            None,
            size.max(1),
            winterp_core::mem::Prot::RW,
            "DirectDraw surface",
        )
        .map_err(|_| DdErr::Hr(DDERR_OUTOFMEMORY))
}

/// CreateSurface's work: `desc` is a DDSURFACEDESC or DDSURFACEDESC2 (by its dwSize);
/// the new interface pointer (of interface `kind`) goes to `out`.
pub fn create(cx: &mut Ctx, ddraw: u32, kind: Kind, desc: u32, out: Ptr) -> DdResult<()> {
    let proc = cx.proc;
    let size = proc.mem.read_u32(desc)?;
    if (size != 108 && size != 124) || out.is_null() {
        return fail(DDERR_INVALIDPARAMS);
    }
    let flags = proc.mem.read_u32(desc + 4)?;
    // ddsCaps counts whether or not dwFlags has DDSD_CAPS: Windows reads it either
    // way (programs that fill only dwSize and ddsCaps get their primary surface), and
    // caps left 0 are an off-screen surface in video memory.
    let mut caps = proc.mem.read_u32(desc + 104)?;
    let mode = proc.display.mode();
    let primary = caps & DDSCAPS_PRIMARYSURFACE != 0;
    {
        let g = proc.ddraw.lock();
        if g.coop == 0 {
            return fail(DDERR_NOCOOPERATIVELEVELSET);
        }
        // A front or back buffer is made only as part of a flipping chain, and a surface
        // is in system or video memory, not both.
        if caps & (DDSCAPS_FRONTBUFFER | DDSCAPS_BACKBUFFER) != 0
            || caps & (DDSCAPS_SYSTEMMEMORY | DDSCAPS_VIDEOMEMORY)
                == DDSCAPS_SYSTEMMEMORY | DDSCAPS_VIDEOMEMORY
        {
            return fail(DDERR_INVALIDCAPS);
        }
        if primary && g.primary.is_some() {
            return fail(DDERR_PRIMARYSURFACEALREADYEXISTS);
        }
        if primary && caps & DDSCAPS_FLIP != 0 && !g.fullscreen() {
            return fail(DDERR_NOEXCLUSIVEMODE);
        }
        // An overlay is shown over the primary surface, never as it.
        if primary && caps & DDSCAPS_OVERLAY != 0 {
            return fail(DDERR_INVALIDCAPS);
        }
    }
    if caps & (DDSCAPS_ZBUFFER | DDSCAPS_TEXTURE | DDSCAPS_3DDEVICE | DDSCAPS_MIPMAP) != 0 {
        return Err(DdErr::Api(ApiError::UnimplementedCase(format!(
            "IDirectDraw::CreateSurface of a Direct3D surface (ddsCaps {caps:#x})"
        ))));
    }
    let (width, height, fmt) = if primary {
        if flags & (DDSD_WIDTH | DDSD_HEIGHT) != 0 {
            return fail(DDERR_INVALIDPARAMS);
        }
        let fmt = Fmt::from_bpp(mode.bpp).ok_or(DdErr::Hr(DDERR_INVALIDPIXELFORMAT))?;
        (mode.width, mode.height, fmt)
    } else {
        if flags & (DDSD_WIDTH | DDSD_HEIGHT) != DDSD_WIDTH | DDSD_HEIGHT {
            return fail(DDERR_INVALIDPARAMS);
        }
        let w = proc.mem.read_u32(desc + 12)?;
        let h = proc.mem.read_u32(desc + 8)?;
        if w == 0 || h == 0 || w > 16384 || h > 16384 {
            return fail(DDERR_INVALIDPARAMS);
        }
        let fmt = if flags & DDSD_PIXELFORMAT != 0 {
            Fmt::read_ddpf(proc, desc + 72)?
        } else {
            Fmt::from_bpp(mode.bpp).ok_or(DdErr::Hr(DDERR_INVALIDPIXELFORMAT))?
        };
        (w, h, fmt)
    };
    let backs = if caps & DDSCAPS_FLIP != 0 {
        if caps & DDSCAPS_COMPLEX == 0 || flags & DDSD_BACKBUFFERCOUNT == 0 {
            return fail(DDERR_INVALIDCAPS);
        }
        let n = proc.mem.read_u32(desc + 20)?;
        if n == 0 || n > 8 {
            return fail(DDERR_INVALIDPARAMS);
        }
        n
    } else {
        0
    };
    let keys = |o: u32| -> DdResult<(u32, u32)> {
        Ok((
            proc.mem.read_u32(desc + o)?,
            proc.mem.read_u32(desc + o + 4)?,
        ))
    };
    let ck_dst = if flags & DDSD_CKDESTBLT != 0 {
        Some(keys(48)?)
    } else {
        None
    };
    let ck_src = if flags & DDSD_CKSRCBLT != 0 {
        Some(keys(64)?)
    } else {
        None
    };
    let ck_dst_overlay = if flags & DDSD_CKDESTOVERLAY != 0 {
        Some(keys(40)?)
    } else {
        None
    };
    let ck_src_overlay = if flags & DDSD_CKSRCOVERLAY != 0 {
        Some(keys(56)?)
    } else {
        None
    };
    // Surfaces live in video memory unless the program asks for system memory.
    caps |= if caps & DDSCAPS_SYSTEMMEMORY != 0 {
        0
    } else {
        DDSCAPS_VIDEOMEMORY | DDSCAPS_LOCALVIDMEM
    };
    if primary {
        caps |= DDSCAPS_VISIBLE;
        if backs > 0 {
            caps |= DDSCAPS_FRONTBUFFER;
        }
    }
    if fmt == Fmt::Pal8 && primary {
        caps |= DDSCAPS_PALETTE;
    }
    let pitch = fmt.pitch(width);
    let mut g = proc.ddraw.lock();
    let mut ids = Vec::new();
    for k in 0..=backs {
        let bits = alloc_bits(proc, pitch * height)?;
        let id = g.new_id();
        let c = if k == 0 {
            caps
        } else {
            let c = caps & !(DDSCAPS_PRIMARYSURFACE | DDSCAPS_VISIBLE | DDSCAPS_FRONTBUFFER);
            if k == 1 { c | DDSCAPS_BACKBUFFER } else { c }
        };
        g.surfaces.insert(
            id,
            Surf {
                ddraw,
                width,
                height,
                pitch,
                fmt,
                caps: c,
                bits,
                alloc: bits,
                ck_src,
                ck_dst,
                ck_src_overlay,
                ck_dst_overlay,
                overlay: None,
                palette: None,
                clipper: None,
                chain: Vec::new(),
                root: (k > 0).then_some(ids.first().copied().unwrap_or(0)),
                locks: 0,
                dc: None,
                uniqueness: 1,
            },
        );
        ids.push(id);
    }
    let front = ids[0];
    if backs > 0
        && let Some(s) = g.surfaces.get_mut(&front)
    {
        s.chain = ids.clone();
    }
    if primary {
        g.primary = Some(front);
    }
    let p = iface::get(proc, &mut g, front, kind)?;
    if proc.mem.write_u32(out.0, p).is_err() {
        iface::release_ptr(proc, &mut g, p)?;
        return fail(DDERR_INVALIDPARAMS);
    }
    Ok(())
}

/// Frees a surface whose last interface pointer is gone. A back buffer stays while
/// its front buffer lives; a front buffer takes its whole chain with it.
pub fn destroy(proc: &Arc<Process>, g: &mut Inner, id: u32) -> ApiResult<()> {
    let Some(s) = g.surfaces.get(&id) else {
        return Ok(());
    };
    if let Some(r) = s.root
        && g.surfaces.contains_key(&r)
    {
        return Ok(());
    }
    let chain = s.chain.clone();
    let members: Vec<u32> = if chain.is_empty() { vec![id] } else { chain };
    for m in members {
        if m != id {
            iface::drop_all(proc, g, m)?;
        }
        let Some(s) = g.surfaces.remove(&m) else {
            continue;
        };
        if let Some((hdc, hbm)) = s.dc {
            free_dc(proc, hdc, hbm)?;
        }
        for (_, p) in [s.palette, s.clipper].into_iter().flatten() {
            iface::release_ptr(proc, g, p)?;
        }
        proc.vm
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .release(s.alloc)
            .map_err(|e| ApiError::Other(format!("freeing a DirectDraw surface: {e}")))?;
        if g.primary == Some(m) {
            g.primary = None;
        }
    }
    Ok(())
}

/// Writes the description of surface `s` into a DDSURFACEDESC(2) (by its dwSize),
/// with `lp_surface` as lpSurface when non-zero (Lock).
fn write_desc(proc: &Process, at: u32, s: &Surf, lp_surface: u32) -> DdResult<()> {
    let size = proc.mem.read_u32(at)?;
    if size != 108 && size != 124 {
        return fail(DDERR_INVALIDPARAMS);
    }
    proc.mem
        .write_bytes(at + 4, &vec![0u8; size as usize - 4])?;
    let mut flags = DDSD_CAPS | DDSD_HEIGHT | DDSD_WIDTH | DDSD_PITCH | DDSD_PIXELFORMAT;
    if lp_surface != 0 {
        flags |= DDSD_LPSURFACE;
        proc.mem.write_u32(at + 36, lp_surface)?;
    }
    if s.chain.len() > 1 {
        flags |= DDSD_BACKBUFFERCOUNT;
        proc.mem.write_u32(at + 20, s.chain.len() as u32 - 1)?;
    }
    if let Some((lo, hi)) = s.ck_dst {
        flags |= DDSD_CKDESTBLT;
        proc.mem.write_u32(at + 48, lo)?;
        proc.mem.write_u32(at + 52, hi)?;
    }
    if let Some((lo, hi)) = s.ck_src {
        flags |= DDSD_CKSRCBLT;
        proc.mem.write_u32(at + 64, lo)?;
        proc.mem.write_u32(at + 68, hi)?;
    }
    if let Some((lo, hi)) = s.ck_dst_overlay {
        flags |= DDSD_CKDESTOVERLAY;
        proc.mem.write_u32(at + 40, lo)?;
        proc.mem.write_u32(at + 44, hi)?;
    }
    if let Some((lo, hi)) = s.ck_src_overlay {
        flags |= DDSD_CKSRCOVERLAY;
        proc.mem.write_u32(at + 56, lo)?;
        proc.mem.write_u32(at + 60, hi)?;
    }
    proc.mem.write_u32(at + 4, flags)?;
    proc.mem.write_u32(at + 8, s.height)?;
    proc.mem.write_u32(at + 12, s.width)?;
    proc.mem.write_u32(at + 16, s.pitch)?;
    s.fmt.write_ddpf(proc, at + 72)?;
    proc.mem.write_u32(at + 104, s.caps)?;
    Ok(())
}

fn GetSurfaceDesc(cx: &mut Ctx, this: u32, lpDDSurfaceDesc: Ptr) -> ApiResult<u32> {
    let g = cx.proc.ddraw.lock();
    hr((|| {
        let (_, id) = this_surface(&g, this)?;
        let s = &g.surfaces[&id];
        write_desc(cx.proc, lpDDSurfaceDesc.0, s, 0)
    })())
}

fn GetPixelFormat(cx: &mut Ctx, this: u32, lpDDPixelFormat: Ptr) -> ApiResult<u32> {
    let g = cx.proc.ddraw.lock();
    hr((|| {
        let (_, id) = this_surface(&g, this)?;
        g.surfaces[&id].fmt.write_ddpf(cx.proc, lpDDPixelFormat.0)
    })())
}

fn GetCaps(cx: &mut Ctx, this: u32, lpDDSCaps: Ptr) -> ApiResult<u32> {
    let g = cx.proc.ddraw.lock();
    hr((|| {
        let (v, id) = this_surface(&g, this)?;
        cx.proc.mem.write_u32(lpDDSCaps.0, g.surfaces[&id].caps)?;
        // DDSCAPS2 (IDirectDrawSurface4 and 7) adds three more dwords.
        if v >= 4 {
            cx.proc.mem.write_bytes(lpDDSCaps.0 + 4, &[0; 12])?;
        }
        Ok(())
    })())
}

/// Lock: the pointer to the rectangle's first pixel (or the surface's) in guest
/// memory, with the description. Nothing else is drawing, so DDLOCK_WAIT never waits.
fn Lock(
    cx: &mut Ctx,
    this: u32,
    lpDestRect: Ptr,
    lpDDSurfaceDesc: Ptr,
    _dwFlags: u32,
    _hEvent: u32,
) -> ApiResult<u32> {
    let mut g = cx.proc.ddraw.lock();
    hr((|| {
        let (_, id) = this_surface(&g, this)?;
        let s = &g.surfaces[&id];
        let mut at = s.bits;
        if !lpDestRect.is_null() {
            let r = super::clipper::read_rect(cx.proc, lpDestRect.0)?;
            if r.is_empty() || r.intersect(&s.rect()) != r {
                return fail(DDERR_INVALIDRECT);
            }
            at += r.top as u32 * s.pitch + r.left as u32 * s.fmt.bytes();
        }
        write_desc(cx.proc, lpDDSurfaceDesc.0, s, at)?;
        if let Some(s) = g.surfaces.get_mut(&id) {
            s.locks += 1;
        }
        Ok(())
    })())
}

/// Unlock/ReleaseDC: `end` ends one access to the surface, answering DD_OK or the
/// error; once it has, the primary surface shows what was written to it.
fn end_access(
    proc: &Arc<Process>,
    this: u32,
    end: impl FnOnce(&mut Surf) -> ApiResult<u32>,
) -> ApiResult<u32> {
    let mut g = proc.ddraw.lock();
    let id = match this_surface(&g, this) {
        Ok((_, id)) => id,
        Err(e) => return hr(Err(e)),
    };
    let Some(s) = g.surfaces.get_mut(&id) else {
        return Ok(DDERR_INVALIDOBJECT);
    };
    let r = end(s)?;
    if r != DD_OK {
        return Ok(r);
    }
    if g.primary == Some(id) {
        super::present::present(proc, g, None)?;
    }
    Ok(DD_OK)
}

/// Unlock; unlocking the primary surface shows what was written to it.
fn Unlock(cx: &mut Ctx, this: u32, _lpRect: Ptr) -> ApiResult<u32> {
    end_access(cx.proc, this, |s| {
        if s.locks == 0 {
            return Ok(DDERR_NOTLOCKED);
        }
        s.locks -= 1;
        s.uniqueness += 1;
        Ok(DD_OK)
    })
}

fn SetColorKey(cx: &mut Ctx, this: u32, dwFlags: u32, lpDDColorKey: Ptr) -> ApiResult<u32> {
    let mut g = cx.proc.ddraw.lock();
    hr((|| {
        let (_, id) = this_surface(&g, this)?;
        let key = if lpDDColorKey.is_null() {
            None
        } else {
            let lo = cx.proc.mem.read_u32(lpDDColorKey.0)?;
            let hi = cx.proc.mem.read_u32(lpDDColorKey.0 + 4)?;
            // Without DDCKEY_COLORSPACE the key is the single low value.
            Some((
                lo,
                if dwFlags & DDCKEY_COLORSPACE != 0 {
                    hi
                } else {
                    lo
                },
            ))
        };
        let s = g
            .surfaces
            .get_mut(&id)
            .ok_or(DdErr::Hr(DDERR_INVALIDOBJECT))?;
        match dwFlags & (DDCKEY_SRCBLT | DDCKEY_DESTBLT | DDCKEY_SRCOVERLAY | DDCKEY_DESTOVERLAY) {
            DDCKEY_SRCBLT => s.ck_src = key,
            DDCKEY_DESTBLT => s.ck_dst = key,
            DDCKEY_SRCOVERLAY => s.ck_src_overlay = key,
            DDCKEY_DESTOVERLAY => s.ck_dst_overlay = key,
            _ => return fail(DDERR_INVALIDPARAMS),
        }
        Ok(())
    })())
}

fn GetColorKey(cx: &mut Ctx, this: u32, dwFlags: u32, lpDDColorKey: Ptr) -> ApiResult<u32> {
    let g = cx.proc.ddraw.lock();
    hr((|| {
        let (_, id) = this_surface(&g, this)?;
        let s = &g.surfaces[&id];
        let key = match dwFlags {
            DDCKEY_SRCBLT => s.ck_src,
            DDCKEY_DESTBLT => s.ck_dst,
            DDCKEY_SRCOVERLAY => s.ck_src_overlay,
            DDCKEY_DESTOVERLAY => s.ck_dst_overlay,
            _ => return fail(DDERR_INVALIDPARAMS),
        };
        let (lo, hi) = key.ok_or(DdErr::Hr(DDERR_NOCOLORKEY))?;
        cx.proc.mem.write_u32(lpDDColorKey.0, lo)?;
        cx.proc.mem.write_u32(lpDDColorKey.0 + 4, hi)?;
        Ok(())
    })())
}

/// The objects a surface holds a reference on: SetPalette/SetClipper attach them,
/// GetPalette/GetClipper hand them out.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Attached {
    Palette,
    Clipper,
}

impl Attached {
    fn is_kind(self) -> fn(Kind) -> bool {
        match self {
            Attached::Palette => iface::is_palette,
            Attached::Clipper => iface::is_clipper,
        }
    }
    /// The (object, interface pointer) the surface holds.
    fn slot(self, s: &mut Surf) -> &mut Option<(u32, u32)> {
        match self {
            Attached::Palette => &mut s.palette,
            Attached::Clipper => &mut s.clipper,
        }
    }
    fn none_attached(self) -> u32 {
        match self {
            Attached::Palette => DDERR_NOPALETTEATTACHED,
            Attached::Clipper => DDERR_NOCLIPPERATTACHED,
        }
    }
}

/// SetPalette/SetClipper: attaches the object behind the interface pointer `p` (0
/// detaches), taking a reference on `p` and dropping the one on the pointer it
/// replaces.
fn set_attached(cx: &mut Ctx, this: u32, p: u32, which: Attached) -> ApiResult<u32> {
    let mut g = cx.proc.ddraw.lock();
    hr((|| {
        let (_, id) = this_surface(&g, this)?;
        let new = if p == 0 {
            None
        } else {
            let (_, obj) =
                iface::lookup(&g, p, which.is_kind()).ok_or(DdErr::Hr(DDERR_INVALIDOBJECT))?;
            Some((obj, p))
        };
        // Only an 8-bit surface has palette indices for a palette to give colours to.
        if which == Attached::Palette && new.is_some() && g.surfaces[&id].fmt != Fmt::Pal8 {
            return fail(DDERR_INVALIDPIXELFORMAT);
        }
        if let Some((_, p)) = new
            && let Some(i) = g.ifaces.get_mut(&p)
        {
            i.refs += 1;
        }
        let s = g
            .surfaces
            .get_mut(&id)
            .ok_or(DdErr::Hr(DDERR_INVALIDOBJECT))?;
        let old = std::mem::replace(which.slot(s), new);
        if let Some((_, p)) = old {
            iface::release_ptr(cx.proc, &mut g, p)?;
        }
        Ok(())
    })())
}

/// GetPalette/GetClipper: the attached interface pointer, with a reference for the
/// caller.
fn get_attached(cx: &mut Ctx, this: u32, out: Ptr, which: Attached) -> ApiResult<u32> {
    let mut g = cx.proc.ddraw.lock();
    hr((|| {
        let (_, id) = this_surface(&g, this)?;
        let s = g
            .surfaces
            .get_mut(&id)
            .ok_or(DdErr::Hr(DDERR_INVALIDOBJECT))?;
        let (_, p) = which.slot(s).ok_or(DdErr::Hr(which.none_attached()))?;
        cx.proc.mem.write_u32(out.0, p)?;
        if let Some(i) = g.ifaces.get_mut(&p) {
            i.refs += 1;
        }
        Ok(())
    })())
}

fn SetPalette(cx: &mut Ctx, this: u32, lpDDPalette: u32) -> ApiResult<u32> {
    set_attached(cx, this, lpDDPalette, Attached::Palette)
}

fn GetPalette(cx: &mut Ctx, this: u32, lplpDDPalette: Ptr) -> ApiResult<u32> {
    get_attached(cx, this, lplpDDPalette, Attached::Palette)
}

fn SetClipper(cx: &mut Ctx, this: u32, lpDDClipper: u32) -> ApiResult<u32> {
    set_attached(cx, this, lpDDClipper, Attached::Clipper)
}

fn GetClipper(cx: &mut Ctx, this: u32, lplpDDClipper: Ptr) -> ApiResult<u32> {
    get_attached(cx, this, lplpDDClipper, Attached::Clipper)
}

/// The surface after `id` in its flipping chain (the last back buffer's is the
/// front buffer), if it is in one.
fn next_in_chain(g: &Inner, id: u32) -> Option<u32> {
    let s = g.surfaces.get(&id)?;
    let root = s.root.unwrap_or(id);
    let chain = &g.surfaces.get(&root)?.chain;
    let k = chain.iter().position(|&m| m == id)?;
    (chain.len() > 1).then(|| chain[(k + 1) % chain.len()])
}

fn GetAttachedSurface(
    cx: &mut Ctx,
    this: u32,
    lpDDSCaps: Ptr,
    lplpDDAttachedSurface: Ptr,
) -> ApiResult<u32> {
    let mut g = cx.proc.ddraw.lock();
    hr((|| {
        let (v, id) = this_surface(&g, this)?;
        let want = cx.proc.mem.read_u32(lpDDSCaps.0)?;
        let found = next_in_chain(&g, id)
            .filter(|n| g.surfaces[n].caps & want == want)
            .ok_or(DdErr::Hr(DDERR_NOTFOUND))?;
        let p = iface::get(cx.proc, &mut g, found, Kind::Surface(v))?;
        if cx.proc.mem.write_u32(lplpDDAttachedSurface.0, p).is_err() {
            iface::release_ptr(cx.proc, &mut g, p)?;
            return fail(DDERR_INVALIDPARAMS);
        }
        Ok(())
    })())
}

/// EnumAttachedSurfaces: the next surface of the flipping chain, if any, with its
/// description (the callback gets a reference it must release).
fn EnumAttachedSurfaces(
    cx: &mut Ctx,
    this: u32,
    lpContext: u32,
    lpEnumSurfacesCallback: u32,
) -> ApiResult<Outcome> {
    let (p, desc) = {
        let mut g = cx.proc.ddraw.lock();
        let (v, id) = match this_surface(&g, this) {
            Ok(x) => x,
            Err(e) => return hr(Err(e)).map(|h| Outcome::Return(h as u64)),
        };
        let Some(n) = next_in_chain(&g, id).filter(|&n| n != g.surfaces[&id].root.unwrap_or(0))
        else {
            return Ok(Outcome::Return(DD_OK as u64));
        };
        let size = if v >= 4 { 124 } else { 108 };
        let heap = crate::kernel32::heap::process_heap(cx.proc)?;
        let desc = heap.alloc(size, true)?;
        cx.proc.mem.write_u32(desc, size)?;
        if let Err(DdErr::Api(e)) = write_desc(cx.proc, desc, &g.surfaces[&n], 0) {
            return Err(e);
        }
        (iface::get(cx.proc, &mut g, n, Kind::Surface(v))?, desc)
    };
    let r = crate::msvcrt::state::call_guest(cx, lpEnumSurfacesCallback, &[p, desc, lpContext])?;
    crate::kernel32::heap::process_heap(cx.proc)?.free(desc);
    match r {
        Ok(_) => Ok(Outcome::Return(DD_OK as u64)),
        Err(o) => Ok(o),
    }
}

/// The colours GDI sees in an 8-bit surface: its palette, else the primary's, else
/// the system palette.
pub fn palette_of(g: &Inner, id: u32) -> [u32; 256] {
    let pal_of = |sid: u32| {
        let s = g.surfaces.get(&sid)?;
        let root = s.root.unwrap_or(sid);
        let (pid, _) = s.palette.or(g.surfaces.get(&root)?.palette)?;
        g.palettes.get(&pid).map(|p| p.entries)
    };
    if let Some(p) = pal_of(id).or_else(|| g.primary.and_then(pal_of)) {
        return p;
    }
    let mut out = [0u32; 256];
    for (o, e) in out
        .iter_mut()
        .zip(crate::gdi32::palette::default_system_palette())
    {
        *o = e;
    }
    out
}

/// GetDC: a memory DC with a DIB section over the surface's own bits selected, so
/// GDI draws straight into the surface.
fn GetDC(cx: &mut Ctx, this: u32, lphDC: Ptr) -> ApiResult<u32> {
    use crate::gdi32::dib::{BI_BITFIELDS, DibFormat};
    use crate::gdi32::objects::{Bitmap, Obj, Store};
    let mut g = cx.proc.ddraw.lock();
    let r = (|| {
        let (_, id) = this_surface(&g, this)?;
        let s = &g.surfaces[&id];
        if s.dc.is_some() {
            return fail(DDERR_DCALREADYCREATED);
        }
        let mut fmt = DibFormat::new(s.width as i32, s.height as i32, true, s.fmt.bpp() as u16);
        match s.fmt {
            Fmt::Pal8 => {
                fmt.colors = palette_of(&g, id)
                    .iter()
                    .map(|&e| super::format::pal_rgb(e))
                    .collect()
            }
            Fmt::Rgb565 => {
                fmt.compression = BI_BITFIELDS;
                fmt.masks = [0xf800, 0x07e0, 0x001f];
            }
            Fmt::Xrgb8888 => {}
        }
        let bits = s.bits;
        let (w, h) = (s.width as i32, s.height as i32);
        let hdc = crate::gdi32::dc::CreateCompatibleDC(cx, 0);
        if hdc == 0 {
            return fail(DDERR_NODC);
        }
        let hbm = cx.proc.gdi32.lock().add_obj(Obj::Bitmap(Bitmap {
            width: w,
            height: h,
            bpp: fmt.bpp,
            store: Store::Dib {
                bits,
                fmt,
                owned: false,
            },
            selected_in: None,
        }));
        crate::gdi32::objects::SelectObject(cx, hdc, hbm)?;
        cx.proc.mem.write_u32(lphDC.0, hdc).inspect_err(|_| {
            let _ = free_dc(cx.proc, hdc, hbm);
        })?;
        if let Some(s) = g.surfaces.get_mut(&id) {
            s.dc = Some((hdc, hbm));
            s.locks += 1;
        }
        Ok(())
    })();
    hr(r)
}

fn free_dc(proc: &Process, hdc: u32, hbm: u32) -> ApiResult<()> {
    {
        let mut g = proc.gdi32.lock();
        g.dcs.remove(&hdc);
        if let Some(crate::gdi32::objects::Obj::Bitmap(b)) = g.objs.get_mut(&hbm) {
            b.selected_in = None;
        }
    }
    crate::gdi32::objects::delete_object(proc, hbm)?;
    Ok(())
}

fn ReleaseDC(cx: &mut Ctx, this: u32, hDC: u32) -> ApiResult<u32> {
    let proc = cx.proc;
    // Windows releases the surface's DC whatever handle comes with it: programs
    // that pass a stale or missing handle (one pushes no argument at all) go on.
    let _ = hDC;
    end_access(proc, this, |s| match s.dc {
        Some((hdc, hbm)) => {
            s.dc = None;
            s.locks = s.locks.saturating_sub(1);
            s.uniqueness += 1;
            free_dc(proc, hdc, hbm)?;
            Ok(DD_OK)
        }
        _ => Ok(DDERR_INVALIDPARAMS),
    })
}

/// Surfaces are ordinary guest memory here and are never lost.
fn IsLost(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let g = cx.proc.ddraw.lock();
    hr(this_surface(&g, this).map(|_| ()))
}

fn Restore(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let g = cx.proc.ddraw.lock();
    hr(this_surface(&g, this).map(|_| ()))
}

/// Blits finish before Blt returns, so one can always start and none is pending.
fn GetBltStatus(cx: &mut Ctx, this: u32, dwFlags: u32) -> ApiResult<u32> {
    let g = cx.proc.ddraw.lock();
    hr(this_surface(&g, this).and_then(|_| match dwFlags {
        1 | 2 => Ok(()),
        _ => fail(DDERR_INVALIDPARAMS),
    }))
}

/// Flips finish before Flip returns.
fn GetFlipStatus(cx: &mut Ctx, this: u32, dwFlags: u32) -> ApiResult<u32> {
    let g = cx.proc.ddraw.lock();
    hr(this_surface(&g, this).and_then(|_| match dwFlags {
        1 | 2 => Ok(()),
        _ => fail(DDERR_INVALIDPARAMS),
    }))
}

fn Initialize(cx: &mut Ctx, this: u32, _lpDD: u32, _lpDDSurfaceDesc: u32) -> ApiResult<u32> {
    let g = cx.proc.ddraw.lock();
    hr(this_surface(&g, this).and_then(|_| fail(super::object::DDERR_ALREADYINITIALIZED)))
}

fn GetDDInterface(cx: &mut Ctx, this: u32, lplpDD: Ptr) -> ApiResult<u32> {
    let mut g = cx.proc.ddraw.lock();
    hr((|| {
        let (_, id) = this_surface(&g, this)?;
        let dd = g.surfaces[&id].ddraw;
        if !g.ddraws.contains_key(&dd) {
            return fail(DDERR_INVALIDOBJECT);
        }
        let p = iface::get(cx.proc, &mut g, dd, Kind::DDraw(1))?;
        if cx.proc.mem.write_u32(lplpDD.0, p).is_err() {
            iface::release_ptr(cx.proc, &mut g, p)?;
            return fail(DDERR_INVALIDPARAMS);
        }
        Ok(())
    })())
}

/// System memory is never paged out from under the program here.
fn PageLock(cx: &mut Ctx, this: u32, _dwFlags: u32) -> ApiResult<u32> {
    let g = cx.proc.ddraw.lock();
    hr(this_surface(&g, this).map(|_| ()))
}

fn GetUniquenessValue(cx: &mut Ctx, this: u32, lpValue: Ptr) -> ApiResult<u32> {
    let g = cx.proc.ddraw.lock();
    hr((|| {
        let (_, id) = this_surface(&g, this)?;
        cx.proc
            .mem
            .write_u32(lpValue.0, g.surfaces[&id].uniqueness)?;
        Ok(())
    })())
}

fn ChangeUniquenessValue(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let mut g = cx.proc.ddraw.lock();
    hr((|| {
        let (_, id) = this_surface(&g, this)?;
        if let Some(s) = g.surfaces.get_mut(&id) {
            s.uniqueness += 1;
        }
        Ok(())
    })())
}

pub fn exports() -> Vec<ApiDef> {
    use super::ops::{Blt, BltFast, Flip};
    macro_rules! surface {
        ($iface:literal) => {
            com_exports!($iface;
                QueryInterface => iface::QueryInterface,
                AddRef => iface::AddRef,
                Release => iface::Release,
                Blt => Blt,
                BltFast => BltFast,
                EnumAttachedSurfaces => EnumAttachedSurfaces,
                Flip => Flip,
                GetAttachedSurface => GetAttachedSurface,
                GetBltStatus => GetBltStatus,
                GetCaps => GetCaps,
                GetClipper => GetClipper,
                GetColorKey => GetColorKey,
                GetDC => GetDC,
                GetFlipStatus => GetFlipStatus,
                GetPalette => GetPalette,
                GetPixelFormat => GetPixelFormat,
                GetSurfaceDesc => GetSurfaceDesc,
                Initialize => Initialize,
                IsLost => IsLost,
                Lock => Lock,
                ReleaseDC => ReleaseDC,
                Restore => Restore,
                SetClipper => SetClipper,
                SetColorKey => SetColorKey,
                SetPalette => SetPalette,
                Unlock => Unlock,
                GetDDInterface => GetDDInterface,
                PageLock => PageLock,
                PageUnlock => PageLock,
                GetUniquenessValue => GetUniquenessValue,
                UpdateOverlay => super::overlay::UpdateOverlay,
                SetOverlayPosition => super::overlay::SetOverlayPosition,
                GetOverlayPosition => super::overlay::GetOverlayPosition,
                ChangeUniquenessValue => ChangeUniquenessValue,
                ;
                AddAttachedSurface(1),
                AddOverlayDirtyRect(1),
                BltBatch(3),
                DeleteAttachedSurface(2),
                EnumOverlayZOrders(3),
                UpdateOverlayDisplay(1),
                UpdateOverlayZOrder(2),
                SetSurfaceDesc(2),
                SetPrivateData(4),
                GetPrivateData(3),
                FreePrivateData(1),
                SetPriority(1),
                GetPriority(1),
                SetLOD(1),
                GetLOD(1),
            )
        };
    }
    let mut v = Vec::new();
    v.extend(surface!("IDirectDrawSurface"));
    v.extend(surface!("IDirectDrawSurface2"));
    v.extend(surface!("IDirectDrawSurface3"));
    v.extend(surface!("IDirectDrawSurface4"));
    v.extend(surface!("IDirectDrawSurface7"));
    v
}
