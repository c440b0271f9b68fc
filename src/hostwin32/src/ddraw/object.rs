//! The DirectDraw object: DirectDrawCreate(Ex), DirectDrawEnumerate, and the methods
//! of IDirectDraw, IDirectDraw2, IDirectDraw4 and IDirectDraw7.

use super::iface::{self, com_exports};
use super::{
    DD_OK, DDERR_INVALIDMODE, DDERR_INVALIDOBJECT, DDERR_INVALIDPARAMS, DDERR_NOTFOUND,
    DDERR_UNSUPPORTED, DdErr, DdResult, Inner, Kind, fail, hr,
};
use crate::display::DisplayMode;
use crate::hle::com::{CLASS_E_NOAGGREGATION, Guid};
use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, Ptr, stdcall};
use crate::process::Process;
use std::sync::Arc;

pub const DDSCL_FULLSCREEN: u32 = 0x1;
pub const DDSCL_NORMAL: u32 = 0x8;
pub const DDSCL_EXCLUSIVE: u32 = 0x10;

pub const DDERR_ALREADYINITIALIZED: u32 = 0x8876_0005;
/// CO_E_NOTINITIALIZED, as ddraw.h defines it.
pub const DDERR_NOTINITIALIZED: u32 = 0x8004_01F0;

/// One DirectDraw object.
#[derive(Default)]
pub struct DDraw {
    /// The mode before this object's first SetDisplayMode, put back by
    /// RestoreDisplayMode and when the object goes away.
    pub saved_mode: Option<DisplayMode>,
    /// Made by CoCreateInstance and not yet initialised: every method but
    /// QueryInterface, AddRef, Release and Initialize fails with
    /// DDERR_NOTINITIALIZED.
    pub uninitialised: bool,
}

/// The display modes EnumDisplayModes offers (every size at 8, 16 and 32 bpp).
pub const MODES: &[(u32, u32)] = crate::display::MODES;

fn this_ddraw(g: &Inner, this: u32) -> DdResult<(Kind, u32)> {
    iface::lookup(g, this, iface::is_ddraw).ok_or(DdErr::Hr(DDERR_INVALIDOBJECT))
}

fn new_ddraw(cx: &mut Ctx, kind: Kind, lplpDD: Ptr) -> DdResult<()> {
    if lplpDD.is_null() {
        return fail(DDERR_INVALIDPARAMS);
    }
    let mut g = cx.proc.ddraw.lock();
    let id = g.new_id();
    g.ddraws.insert(id, DDraw::default());
    let p = iface::get(cx.proc, &mut g, id, kind)?;
    if cx.proc.mem.write_u32(lplpDD.0, p).is_err() {
        iface::release_ptr(cx.proc, &mut g, p)?;
        return fail(DDERR_INVALIDPARAMS);
    }
    Ok(())
}

/// There is one display device; whatever GUID a program names (NULL, the
/// DDCREATE_* values, or one DirectDrawEnumerate never offered) gets it.
pub fn DirectDrawCreate(cx: &mut Ctx, _lpGUID: Ptr, lplpDD: Ptr, pUnkOuter: u32) -> ApiResult<u32> {
    if pUnkOuter != 0 {
        return Ok(CLASS_E_NOAGGREGATION);
    }
    hr(new_ddraw(cx, Kind::DDraw(1), lplpDD))
}

pub fn DirectDrawCreateEx(
    cx: &mut Ctx,
    _lpGUID: Ptr,
    lplpDD: Ptr,
    iid: Ptr,
    pUnkOuter: u32,
) -> ApiResult<u32> {
    if pUnkOuter != 0 {
        return Ok(CLASS_E_NOAGGREGATION);
    }
    let Ok(g) = Guid::read(cx.proc, iid.0) else {
        return Ok(DDERR_INVALIDPARAMS);
    };
    // The documentation allows only IID_IDirectDraw7 here.
    if g != iface::IID_IDIRECTDRAW7 {
        return Ok(DDERR_INVALIDPARAMS);
    }
    hr(new_ddraw(cx, Kind::DDraw(7), lplpDD))
}

pub fn DirectDrawCreateClipper(
    cx: &mut Ctx,
    dwFlags: u32,
    lplpDDClipper: Ptr,
    pUnkOuter: u32,
) -> ApiResult<u32> {
    if pUnkOuter != 0 {
        return Ok(CLASS_E_NOAGGREGATION);
    }
    hr(super::clipper::create(cx, dwFlags, lplpDDClipper))
}

const DRIVER_DESCRIPTION: &str = "Primary Display Driver";
const DRIVER_NAME: &str = "display";

/// The description and name strings in guest memory, made once.
fn enum_strings(proc: &Arc<Process>) -> ApiResult<(u32, u32)> {
    let mut g = proc.ddraw.lock();
    if let Some(s) = g.enum_strings {
        return Ok(s);
    }
    let heap = crate::kernel32::heap::process_heap(proc)?;
    let put = |s: &str| -> ApiResult<u32> {
        let a = heap.alloc(s.len() as u32 + 1, true)?;
        proc.mem.write_bytes(a, s.as_bytes())?;
        Ok(a)
    };
    let s = (put(DRIVER_DESCRIPTION)?, put(DRIVER_NAME)?);
    g.enum_strings = Some(s);
    Ok(s)
}

/// Calls the program's callback for the one device (the primary display, GUID NULL).
fn enumerate(cx: &mut Ctx, cb: u32, ctx: u32, with_monitor: bool) -> ApiResult<Outcome> {
    if cb == 0 {
        return Ok(Outcome::Return(DDERR_INVALIDPARAMS as u64));
    }
    let (desc, name) = enum_strings(cx.proc)?;
    let mut args = vec![0, desc, name, ctx];
    if with_monitor {
        args.push(0);
    }
    match crate::msvcrt::state::call_guest(cx, cb, &args)? {
        Ok(_) => Ok(Outcome::Return(DD_OK as u64)),
        Err(o) => Ok(o),
    }
}

pub fn DirectDrawEnumerateA(cx: &mut Ctx, lpCallback: u32, lpContext: u32) -> ApiResult<Outcome> {
    enumerate(cx, lpCallback, lpContext, false)
}

pub fn DirectDrawEnumerateExA(
    cx: &mut Ctx,
    lpCallback: u32,
    lpContext: u32,
    _dwFlags: u32,
) -> ApiResult<Outcome> {
    enumerate(cx, lpCallback, lpContext, true)
}

/// Windows' ddraw.dll never implemented the Unicode enumerations: they return
/// DDERR_UNSUPPORTED without calling the callback (Wine does the same).
pub fn DirectDrawEnumerateW(_cx: &mut Ctx, _lpCallback: u32, _lpContext: u32) -> u32 {
    DDERR_UNSUPPORTED
}

pub fn DirectDrawEnumerateExW(
    _cx: &mut Ctx,
    _lpCallback: u32,
    _lpContext: u32,
    _dwFlags: u32,
) -> u32 {
    DDERR_UNSUPPORTED
}

/// Releases what a DirectDraw object leaves behind: the display mode it set.
pub fn destroy(proc: &Arc<Process>, g: &mut Inner, obj: u32) -> ApiResult<()> {
    if let Some(d) = g.ddraws.remove(&obj)
        && let Some(m) = d.saved_mode
    {
        *proc.display.mode.lock().unwrap_or_else(|e| e.into_inner()) = m;
    }
    if g.ddraws.is_empty() {
        g.coop = 0;
        g.coop_hwnd = 0;
        g.latest = None;
    }
    Ok(())
}

/// Compact: Windows documents it as doing nothing (video memory is never compacted).
fn Compact(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let g = cx.proc.ddraw.lock();
    hr(this_ddraw(&g, this).map(|_| ()))
}

fn CreateClipper(
    cx: &mut Ctx,
    this: u32,
    dwFlags: u32,
    lplpDDClipper: Ptr,
    pUnkOuter: u32,
) -> ApiResult<u32> {
    if pUnkOuter != 0 {
        return Ok(CLASS_E_NOAGGREGATION);
    }
    if this_ddraw(&cx.proc.ddraw.lock(), this).is_err() {
        return Ok(DDERR_INVALIDOBJECT);
    }
    hr(super::clipper::create(cx, dwFlags, lplpDDClipper))
}

fn CreatePalette(
    cx: &mut Ctx,
    this: u32,
    dwFlags: u32,
    lpColorTable: Ptr,
    lplpDDPalette: Ptr,
    pUnkOuter: u32,
) -> ApiResult<u32> {
    if pUnkOuter != 0 {
        return Ok(CLASS_E_NOAGGREGATION);
    }
    if this_ddraw(&cx.proc.ddraw.lock(), this).is_err() {
        return Ok(DDERR_INVALIDOBJECT);
    }
    hr(super::palette::create(
        cx,
        dwFlags,
        lpColorTable,
        lplpDDPalette,
    ))
}

fn CreateSurface(
    cx: &mut Ctx,
    this: u32,
    lpDDSurfaceDesc: Ptr,
    lplpDDSurface: Ptr,
    pUnkOuter: u32,
) -> ApiResult<u32> {
    if pUnkOuter != 0 {
        return Ok(CLASS_E_NOAGGREGATION);
    }
    let kind = match this_ddraw(&cx.proc.ddraw.lock(), this) {
        Ok((Kind::DDraw(v), _)) => Kind::Surface(match v {
            1 | 2 => 1,
            4 => 4,
            _ => 7,
        }),
        _ => return Ok(DDERR_INVALIDOBJECT),
    };
    let dd = cx
        .proc
        .ddraw
        .lock()
        .ifaces
        .get(&this)
        .map(|i| i.obj)
        .unwrap_or(0);
    hr(super::surface::create(
        cx,
        dd,
        kind,
        lpDDSurfaceDesc.0,
        lplpDDSurface,
    ))
}

/// Writes a DDSURFACEDESC(2) for a display mode; `size` is its dwSize.
fn write_mode_desc(proc: &Process, at: u32, size: u32, m: DisplayMode) -> DdResult<()> {
    let fmt = super::format::Fmt::from_bpp(m.bpp).ok_or(DdErr::Hr(DDERR_INVALIDMODE))?;
    proc.mem.write_bytes(at, &vec![0u8; size as usize])?;
    proc.mem.write_u32(at, size)?;
    let flags = super::surface::DDSD_HEIGHT
        | super::surface::DDSD_WIDTH
        | super::surface::DDSD_PITCH
        | super::surface::DDSD_PIXELFORMAT
        | super::surface::DDSD_REFRESHRATE;
    proc.mem.write_u32(at + 4, flags)?;
    proc.mem.write_u32(at + 8, m.height)?;
    proc.mem.write_u32(at + 12, m.width)?;
    proc.mem.write_u32(at + 16, fmt.pitch(m.width))?;
    proc.mem.write_u32(at + 24, m.refresh_hz)?;
    fmt.write_ddpf(proc, at + 72)?;
    Ok(())
}

fn desc_size(kind: Kind) -> u32 {
    match kind {
        Kind::DDraw(1) | Kind::DDraw(2) => 108,
        _ => 124,
    }
}

const DDSD_WIDTH: u32 = 0x4;
const DDSD_HEIGHT: u32 = 0x2;
const DDSD_PIXELFORMAT: u32 = 0x1000;
const DDSD_REFRESHRATE: u32 = 0x40000;

fn EnumDisplayModes(
    cx: &mut Ctx,
    this: u32,
    _dwFlags: u32,
    lpDDSurfaceDesc: Ptr,
    lpContext: u32,
    lpEnumModesCallback: u32,
) -> ApiResult<Outcome> {
    let kind = match this_ddraw(&cx.proc.ddraw.lock(), this) {
        Ok((k, _)) => k,
        Err(_) => return Ok(Outcome::Return(DDERR_INVALIDOBJECT as u64)),
    };
    if lpEnumModesCallback == 0 {
        return Ok(Outcome::Return(DDERR_INVALIDPARAMS as u64));
    }
    // A filter: only modes matching the fields its dwFlags names.
    let mut want = (None, None, None, None);
    if !lpDDSurfaceDesc.is_null() {
        let d = lpDDSurfaceDesc.0;
        let read = |o: u32| cx.proc.mem.read_u32(d + o);
        let (Ok(flags), Ok(h), Ok(w), Ok(rr), Ok(bpp)) =
            (read(4), read(8), read(12), read(24), read(72 + 12))
        else {
            return Ok(Outcome::Return(DDERR_INVALIDPARAMS as u64));
        };
        want = (
            (flags & DDSD_WIDTH != 0).then_some(w),
            (flags & DDSD_HEIGHT != 0).then_some(h),
            (flags & DDSD_PIXELFORMAT != 0).then_some(bpp),
            (flags & DDSD_REFRESHRATE != 0 && rr != 0).then_some(rr),
        );
    }
    let size = desc_size(kind);
    let heap = crate::kernel32::heap::process_heap(cx.proc)?;
    let buf = heap.alloc(size, true)?;
    let mut result = Outcome::Return(DD_OK as u64);
    'modes: for &bpp in &[8u32, 16, 32] {
        for &(w, h) in MODES {
            let m = DisplayMode {
                width: w,
                height: h,
                bpp,
                refresh_hz: 60,
            };
            if want.0.is_some_and(|x| x != w)
                || want.1.is_some_and(|x| x != h)
                || want.2.is_some_and(|x| x != bpp)
                || want.3.is_some_and(|x| x != 60)
            {
                continue;
            }
            if let Err(DdErr::Api(e)) = write_mode_desc(cx.proc, buf, size, m) {
                return Err(e);
            }
            match crate::msvcrt::state::call_guest(cx, lpEnumModesCallback, &[buf, lpContext])? {
                // DDENUMRET_CANCEL
                Ok(0) => break 'modes,
                Ok(_) => {}
                Err(o) => {
                    result = o;
                    break 'modes;
                }
            }
        }
    }
    heap.free(buf);
    Ok(result)
}

/// FlipToGDISurface: the surface GDI draws on is the front buffer here (GDI
/// drawing on the screen does not go to a separate surface), so the picture already
/// shows what GDI draws and nothing needs flipping.
fn FlipToGDISurface(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let g = cx.proc.ddraw.lock();
    hr(this_ddraw(&g, this).map(|_| ()))
}

pub const DDCAPS_BLT: u32 = 0x40;
pub const DDCAPS_BLTCOLORFILL: u32 = 0x0400_0000;
pub const DDCAPS_BLTSTRETCH: u32 = 0x200;
pub const DDCAPS_COLORKEY: u32 = 0x0040_0000;
pub const DDCAPS_PALETTE: u32 = 0x8000;
pub const DDCAPS_CANCLIP: u32 = 0x2000_0000;
pub const DDCAPS_CANCLIPSTRETCHED: u32 = 0x4000_0000;
pub const DDCAPS_OVERLAY: u32 = 0x800;
pub const DDCAPS_OVERLAYCANTCLIP: u32 = 0x1000;
pub const DDCAPS_OVERLAYSTRETCH: u32 = 0x4000;
pub const DDCKEYCAPS_DESTOVERLAY: u32 = 0x10;
pub const DDCKEYCAPS_SRCOVERLAY: u32 = 0x2000;
pub const DDFXCAPS_OVERLAYSTRETCHX: u32 = 0x0080_0000;
pub const DDFXCAPS_OVERLAYSTRETCHY: u32 = 0x0200_0000;
/// Overlay stretch factors, x1000: any shrink or growth up to 32 times (the
/// compositor scales by nearest pixel, so there is no hardware limit to report
/// beyond a sane bound).
pub const MIN_OVERLAY_STRETCH: u32 = 1;
pub const MAX_OVERLAY_STRETCH: u32 = 32_000;
pub const DDCAPS2_WIDESURFACES: u32 = 0x1000;
pub const DDCKEYCAPS_DESTBLT: u32 = 0x2;
pub const DDCKEYCAPS_SRCBLT: u32 = 0x200;
pub const DDFXCAPS_BLTMIRRORLEFTRIGHT: u32 = 0x10;
pub const DDFXCAPS_BLTMIRRORUPDOWN: u32 = 0x20;
pub const DDFXCAPS_BLTSTRETCHX: u32 = 0x0020_0000;
pub const DDFXCAPS_BLTSTRETCHY: u32 = 0x0200_0000;
pub const DDPCAPS_8BIT: u32 = 0x4;
pub const DDPCAPS_PRIMARYSURFACE: u32 = 0x10;
/// What GetCaps and GetAvailableVidMem report as video memory: 8 MiB, a common
/// card of the era.
pub const VIDEO_MEMORY: u32 = 8 << 20;

/// Fills a DDCAPS of its own dwSize (316 for DirectX 3, 364 for 5, 380 for 6/7).
fn write_caps(proc: &Process, at: u32, free: u32, visible_overlays: u32) -> DdResult<()> {
    let size = proc.mem.read_u32(at)?;
    if !(316..=380).contains(&size) {
        return fail(DDERR_INVALIDPARAMS);
    }
    proc.mem
        .write_bytes(at + 4, &vec![0u8; size as usize - 4])?;
    let caps = DDCAPS_BLT
        | DDCAPS_BLTCOLORFILL
        | DDCAPS_BLTSTRETCH
        | DDCAPS_COLORKEY
        | DDCAPS_PALETTE
        | DDCAPS_CANCLIP
        | DDCAPS_CANCLIPSTRETCHED
        | DDCAPS_OVERLAY
        | DDCAPS_OVERLAYCANTCLIP
        | DDCAPS_OVERLAYSTRETCH;
    proc.mem.write_u32(at + 4, caps)?;
    proc.mem.write_u32(at + 8, DDCAPS2_WIDESURFACES)?;
    proc.mem.write_u32(
        at + 12,
        DDCKEYCAPS_DESTBLT | DDCKEYCAPS_SRCBLT | DDCKEYCAPS_DESTOVERLAY | DDCKEYCAPS_SRCOVERLAY,
    )?;
    proc.mem.write_u32(
        at + 16,
        DDFXCAPS_BLTMIRRORLEFTRIGHT
            | DDFXCAPS_BLTMIRRORUPDOWN
            | DDFXCAPS_BLTSTRETCHX
            | DDFXCAPS_BLTSTRETCHY
            | DDFXCAPS_OVERLAYSTRETCHX
            | DDFXCAPS_OVERLAYSTRETCHY,
    )?;
    proc.mem
        .write_u32(at + 24, DDPCAPS_8BIT | DDPCAPS_PRIMARYSURFACE)?;
    proc.mem.write_u32(at + 60, VIDEO_MEMORY)?;
    proc.mem.write_u32(at + 64, free)?;
    proc.mem
        .write_u32(at + 68, super::overlay::MAX_VISIBLE as u32)?;
    proc.mem.write_u32(at + 72, visible_overlays)?;
    proc.mem.write_u32(at + 136, MIN_OVERLAY_STRETCH)?;
    proc.mem.write_u32(at + 140, MAX_OVERLAY_STRETCH)?;
    // ddsCaps: the surface kinds there are.
    let scaps = super::surface::DDSCAPS_BACKBUFFER
        | super::surface::DDSCAPS_COMPLEX
        | super::surface::DDSCAPS_FLIP
        | super::surface::DDSCAPS_FRONTBUFFER
        | super::surface::DDSCAPS_OFFSCREENPLAIN
        | super::surface::DDSCAPS_OVERLAY
        | super::surface::DDSCAPS_PALETTE
        | super::surface::DDSCAPS_PRIMARYSURFACE
        | super::surface::DDSCAPS_SYSTEMMEMORY
        | super::surface::DDSCAPS_VIDEOMEMORY
        | super::surface::DDSCAPS_VISIBLE;
    proc.mem.write_u32(at + 132, scaps)?;
    if size >= 380 {
        proc.mem.write_u32(at + 364, scaps)?;
    }
    Ok(())
}

fn GetCaps(cx: &mut Ctx, this: u32, lpDDDriverCaps: Ptr, lpDDHELCaps: Ptr) -> ApiResult<u32> {
    let (free, visible) = {
        let g = cx.proc.ddraw.lock();
        if this_ddraw(&g, this).is_err() {
            return Ok(DDERR_INVALIDOBJECT);
        }
        (
            super::surface::free_video_memory(&g),
            super::overlay::visible_count(&g) as u32,
        )
    };
    if lpDDDriverCaps.is_null() && lpDDHELCaps.is_null() {
        return Ok(DDERR_INVALIDPARAMS);
    }
    for p in [lpDDDriverCaps, lpDDHELCaps] {
        if !p.is_null()
            && let Err(e) = write_caps(cx.proc, p.0, free, visible)
        {
            return hr(Err(e));
        }
    }
    Ok(DD_OK)
}

fn GetDisplayMode(cx: &mut Ctx, this: u32, lpDDSurfaceDesc: Ptr) -> ApiResult<u32> {
    let kind = match this_ddraw(&cx.proc.ddraw.lock(), this) {
        Ok((k, _)) => k,
        Err(_) => return Ok(DDERR_INVALIDOBJECT),
    };
    let m = cx.proc.display.mode();
    let r = (|| {
        let size = cx.proc.mem.read_u32(lpDDSurfaceDesc.0)?;
        if size != 108 && size != 124 {
            return fail(DDERR_INVALIDPARAMS);
        }
        let _ = kind;
        write_mode_desc(cx.proc, lpDDSurfaceDesc.0, size, m)
    })();
    hr(r)
}

/// No four-character-code (YUV, compressed) surface formats are supported.
fn GetFourCCCodes(cx: &mut Ctx, this: u32, lpNumCodes: Ptr, _lpCodes: Ptr) -> ApiResult<u32> {
    if this_ddraw(&cx.proc.ddraw.lock(), this).is_err() {
        return Ok(DDERR_INVALIDOBJECT);
    }
    hr(cx
        .proc
        .mem
        .write_u32(lpNumCodes.0, 0)
        .map(|_| ())
        .map_err(DdErr::from))
}

fn GetGDISurface(cx: &mut Ctx, this: u32, lplpGDIDDSSurface: Ptr) -> ApiResult<u32> {
    let mut g = cx.proc.ddraw.lock();
    let Ok((Kind::DDraw(v), _)) = this_ddraw(&g, this) else {
        return Ok(DDERR_INVALIDOBJECT);
    };
    let Some(p) = g.primary else {
        return Ok(DDERR_NOTFOUND);
    };
    let kind = Kind::Surface(match v {
        1 | 2 => 1,
        4 => 4,
        _ => 7,
    });
    let ptr = iface::get(cx.proc, &mut g, p, kind)?;
    if cx.proc.mem.write_u32(lplpGDIDDSSurface.0, ptr).is_err() {
        iface::release_ptr(cx.proc, &mut g, ptr)?;
        return Ok(DDERR_INVALIDPARAMS);
    }
    Ok(DD_OK)
}

fn GetMonitorFrequency(cx: &mut Ctx, this: u32, lpdwFrequency: Ptr) -> ApiResult<u32> {
    if this_ddraw(&cx.proc.ddraw.lock(), this).is_err() {
        return Ok(DDERR_INVALIDOBJECT);
    }
    let hz = cx.proc.display.mode().refresh_hz;
    hr(cx
        .proc
        .mem
        .write_u32(lpdwFrequency.0, hz)
        .map(|_| ())
        .map_err(DdErr::from))
}

fn GetScanLine(cx: &mut Ctx, this: u32, lpdwScanLine: Ptr) -> ApiResult<u32> {
    if this_ddraw(&cx.proc.ddraw.lock(), this).is_err() {
        return Ok(DDERR_INVALIDOBJECT);
    }
    let b = super::present::beam(cx);
    match b.line {
        Some(l) => hr(cx
            .proc
            .mem
            .write_u32(lpdwScanLine.0, l)
            .map(|_| ())
            .map_err(DdErr::from)),
        None => Ok(super::DDERR_VERTICALBLANKINPROGRESS),
    }
}

fn GetVerticalBlankStatus(cx: &mut Ctx, this: u32, lpbIsInVB: Ptr) -> ApiResult<u32> {
    if this_ddraw(&cx.proc.ddraw.lock(), this).is_err() {
        return Ok(DDERR_INVALIDOBJECT);
    }
    let b = super::present::beam(cx);
    hr(cx
        .proc
        .mem
        .write_u32(lpbIsInVB.0, b.line.is_none() as u32)
        .map(|_| ())
        .map_err(DdErr::from))
}

/// Initialises an object CoCreateInstance made (any device GUID gets the one
/// display, as in DirectDrawCreate); DirectDrawCreate's objects, and objects
/// initialised before, answer DDERR_ALREADYINITIALIZED.
fn Initialize(cx: &mut Ctx, this: u32, _lpGUID: Ptr) -> ApiResult<u32> {
    let mut g = cx.proc.ddraw.lock();
    let Some((_, obj)) = iface::lookup(&g, this, iface::is_ddraw) else {
        return Ok(DDERR_INVALIDOBJECT);
    };
    match g.ddraws.get_mut(&obj) {
        Some(d) if d.uninitialised => {
            d.uninitialised = false;
            Ok(DD_OK)
        }
        _ => Ok(DDERR_ALREADYINITIALIZED),
    }
}

/// CoCreateInstance(CLSID_DirectDraw or CLSID_DirectDraw7, riid): an uninitialised
/// DirectDraw object as the interface `riid` names (E_NOINTERFACE for another).
pub(crate) fn co_create(cx: &mut Ctx, riid: &Guid, ppv: Ptr) -> ApiResult<u32> {
    let kind = if *riid == crate::hle::com::IID_IUNKNOWN {
        Kind::DDraw(1)
    } else {
        match iface::ddraw_kind_of_iid(riid) {
            Some(k) => k,
            None => return Ok(crate::hle::com::E_NOINTERFACE),
        }
    };
    let mut g = cx.proc.ddraw.lock();
    let id = g.new_id();
    g.ddraws.insert(
        id,
        DDraw {
            uninitialised: true,
            ..DDraw::default()
        },
    );
    let p = iface::get(cx.proc, &mut g, id, kind)?;
    if cx.proc.mem.write_u32(ppv.0, p).is_err() {
        iface::release_ptr(cx.proc, &mut g, p)?;
        return Ok(crate::hle::com::E_POINTER);
    }
    Ok(DD_OK)
}

/// Makes a method of an IDirectDraw interface answer DDERR_NOTINITIALIZED while
/// its object waits for Initialize.
fn needs_initialize(def: ApiDef) -> ApiDef {
    let crate::hle::ExportKind::Function { conv, nargs, glue } = def.kind else {
        return def;
    };
    ApiDef {
        kind: crate::hle::ExportKind::Function {
            conv,
            nargs,
            glue: Box::new(move |cx, stack| {
                let this = stack.first().copied().unwrap_or(0);
                let pending = {
                    let g = cx.proc.ddraw.lock();
                    iface::lookup(&g, this, iface::is_ddraw)
                        .and_then(|(_, obj)| g.ddraws.get(&obj))
                        .is_some_and(|d| d.uninitialised)
                };
                if pending {
                    return Ok(Outcome::Return(u64::from(DDERR_NOTINITIALIZED)));
                }
                glue(cx, stack)
            }),
        },
        ..def
    }
}

fn RestoreDisplayMode(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let mut g = cx.proc.ddraw.lock();
    let Ok((_, obj)) = this_ddraw(&g, this) else {
        return Ok(DDERR_INVALIDOBJECT);
    };
    if let Some(d) = g.ddraws.get_mut(&obj)
        && let Some(m) = d.saved_mode.take()
    {
        *cx.proc
            .display
            .mode
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = m;
    }
    Ok(DD_OK)
}

fn SetCooperativeLevel(cx: &mut Ctx, this: u32, hWnd: u32, dwFlags: u32) -> ApiResult<u32> {
    let mut g = cx.proc.ddraw.lock();
    if this_ddraw(&g, this).is_err() {
        return Ok(DDERR_INVALIDOBJECT);
    }
    let exclusive = dwFlags & DDSCL_EXCLUSIVE != 0;
    let full = dwFlags & DDSCL_FULLSCREEN != 0;
    let normal = dwFlags & DDSCL_NORMAL != 0;
    // Exactly one of normal and exclusive; exclusive needs full screen and a window.
    if normal == exclusive || exclusive != full || (exclusive && hWnd == 0) {
        return Ok(DDERR_INVALIDPARAMS);
    }
    g.coop = dwFlags;
    g.coop_hwnd = hWnd;
    Ok(DD_OK)
}

fn set_mode(cx: &mut Ctx, this: u32, w: u32, h: u32, bpp: u32, hz: u32) -> ApiResult<Outcome> {
    let mut g = cx.proc.ddraw.lock();
    let Ok((_, obj)) = this_ddraw(&g, this) else {
        return Ok(Outcome::Return(DDERR_INVALIDOBJECT as u64));
    };
    if !(320..=1024).contains(&w)
        || !(200..=768).contains(&h)
        || super::format::Fmt::from_bpp(bpp).is_none()
        || (hz != 0 && hz != 60)
    {
        return Ok(Outcome::Return(DDERR_INVALIDMODE as u64));
    }
    let new = DisplayMode {
        width: w,
        height: h,
        bpp,
        refresh_hz: 60,
    };
    let old = cx.proc.display.mode();
    if let Some(d) = g.ddraws.get_mut(&obj) {
        d.saved_mode.get_or_insert(old);
    }
    *cx.proc
        .display
        .mode
        .lock()
        .unwrap_or_else(|e| e.into_inner()) = new;
    g.latest = None;
    // In exclusive mode DirectDraw makes its window cover the new screen (Windows
    // moves it to 0,0 at the mode's size, with WM_WINDOWPOSCHANGING/CHANGED, WM_SIZE),
    // so a program that blits to its client rectangle in screen coordinates stays
    // inside the primary surface.
    let hwnd = if g.fullscreen() { g.coop_hwnd } else { 0 };
    drop(g);
    if hwnd != 0 {
        use crate::user32::window::{SWP_NOACTIVATE, SWP_SHOWWINDOW, set_window_pos};
        let r = set_window_pos(
            cx,
            hwnd,
            0,
            0,
            0,
            w as i32,
            h as i32,
            SWP_SHOWWINDOW | SWP_NOACTIVATE,
        );
        if let Err(e) = r {
            return crate::user32::fin::<u32>(Err(e));
        }
    }
    Ok(Outcome::Return(DD_OK as u64))
}

fn SetDisplayMode1(
    cx: &mut Ctx,
    this: u32,
    dwWidth: u32,
    dwHeight: u32,
    dwBPP: u32,
) -> ApiResult<Outcome> {
    set_mode(cx, this, dwWidth, dwHeight, dwBPP, 0)
}

fn SetDisplayMode2(
    cx: &mut Ctx,
    this: u32,
    dwWidth: u32,
    dwHeight: u32,
    dwBPP: u32,
    dwRefreshRate: u32,
    _dwFlags: u32,
) -> ApiResult<Outcome> {
    set_mode(cx, this, dwWidth, dwHeight, dwBPP, dwRefreshRate)
}

pub const DDWAITVB_BLOCKBEGIN: u32 = 1;
pub const DDWAITVB_BLOCKBEGINEVENT: u32 = 2;
pub const DDWAITVB_BLOCKEND: u32 = 4;

fn WaitForVerticalBlank(cx: &mut Ctx, this: u32, dwFlags: u32, _hEvent: u32) -> ApiResult<Outcome> {
    if this_ddraw(&cx.proc.ddraw.lock(), this).is_err() {
        return Ok(Outcome::Return(DDERR_INVALIDOBJECT as u64));
    }
    match dwFlags {
        DDWAITVB_BLOCKBEGIN => {}
        DDWAITVB_BLOCKEND => {}
        DDWAITVB_BLOCKBEGINEVENT => {
            return Err(crate::hle::ApiError::UnimplementedCase(
                "IDirectDraw::WaitForVerticalBlank with DDWAITVB_BLOCKBEGINEVENT".into(),
            ));
        }
        _ => return Ok(Outcome::Return(DDERR_INVALIDPARAMS as u64)),
    }
    let end = dwFlags == DDWAITVB_BLOCKEND;
    if let Some(o) = super::present::wait_vblank(cx, end) {
        return Ok(o);
    }
    Ok(Outcome::Return(DD_OK as u64))
}

fn GetAvailableVidMem(
    cx: &mut Ctx,
    this: u32,
    _lpDDSCaps: Ptr,
    lpdwTotal: Ptr,
    lpdwFree: Ptr,
) -> ApiResult<u32> {
    let free = {
        let g = cx.proc.ddraw.lock();
        if this_ddraw(&g, this).is_err() {
            return Ok(DDERR_INVALIDOBJECT);
        }
        super::surface::free_video_memory(&g)
    };
    let r = (|| {
        if !lpdwTotal.is_null() {
            cx.proc.mem.write_u32(lpdwTotal.0, VIDEO_MEMORY)?;
        }
        if !lpdwFree.is_null() {
            cx.proc.mem.write_u32(lpdwFree.0, free)?;
        }
        Ok(())
    })();
    hr(r)
}

/// Surfaces here are never lost (their memory is ordinary guest memory).
fn RestoreAllSurfaces(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let g = cx.proc.ddraw.lock();
    hr(this_ddraw(&g, this).map(|_| ()))
}

/// The device is never lost (nothing else takes the display away).
fn TestCooperativeLevel(cx: &mut Ctx, this: u32) -> ApiResult<u32> {
    let g = cx.proc.ddraw.lock();
    hr(this_ddraw(&g, this).map(|_| ()))
}

fn GetDeviceIdentifier(cx: &mut Ctx, this: u32, pDDDI: Ptr, _dwFlags: u32) -> ApiResult<u32> {
    let kind = match this_ddraw(&cx.proc.ddraw.lock(), this) {
        Ok((k, _)) => k,
        Err(_) => return Ok(DDERR_INVALIDOBJECT),
    };
    // DDDEVICEIDENTIFIER (1064 bytes) or DDDEVICEIDENTIFIER2 (1072, IDirectDraw7).
    let size = if kind == Kind::DDraw(7) { 1072 } else { 1064 };
    let r = (|| {
        cx.proc.mem.write_bytes(pDDDI.0, &vec![0u8; size])?;
        cx.proc.mem.write_bytes(pDDDI.0, DRIVER_NAME.as_bytes())?;
        cx.proc
            .mem
            .write_bytes(pDDDI.0 + 512, DRIVER_DESCRIPTION.as_bytes())?;
        Ok(())
    })();
    hr(r)
}

pub fn exports() -> Vec<ApiDef> {
    let mut v = vec![
        stdcall("DirectDrawCreate", DirectDrawCreate),
        stdcall("DirectDrawCreateEx", DirectDrawCreateEx),
        stdcall("DirectDrawCreateClipper", DirectDrawCreateClipper),
        stdcall("DirectDrawEnumerateA", DirectDrawEnumerateA),
        stdcall("DirectDrawEnumerateW", DirectDrawEnumerateW),
        stdcall("DirectDrawEnumerateExA", DirectDrawEnumerateExA),
        stdcall("DirectDrawEnumerateExW", DirectDrawEnumerateExW),
    ];
    macro_rules! ddraw {
        ($iface:literal, $setmode:expr) => {
            com_exports!($iface;
                QueryInterface => iface::QueryInterface,
                AddRef => iface::AddRef,
                Release => iface::Release,
                Compact => Compact,
                CreateClipper => CreateClipper,
                CreatePalette => CreatePalette,
                CreateSurface => CreateSurface,
                EnumDisplayModes => EnumDisplayModes,
                FlipToGDISurface => FlipToGDISurface,
                GetCaps => GetCaps,
                GetDisplayMode => GetDisplayMode,
                GetFourCCCodes => GetFourCCCodes,
                GetGDISurface => GetGDISurface,
                GetMonitorFrequency => GetMonitorFrequency,
                GetScanLine => GetScanLine,
                GetVerticalBlankStatus => GetVerticalBlankStatus,
                Initialize => Initialize,
                RestoreDisplayMode => RestoreDisplayMode,
                SetCooperativeLevel => SetCooperativeLevel,
                SetDisplayMode => $setmode,
                WaitForVerticalBlank => WaitForVerticalBlank,
                GetAvailableVidMem => GetAvailableVidMem,
                RestoreAllSurfaces => RestoreAllSurfaces,
                TestCooperativeLevel => TestCooperativeLevel,
                GetDeviceIdentifier => GetDeviceIdentifier,
                ;
                DuplicateSurface(2),
                EnumSurfaces(4),
                GetSurfaceFromDC(2),
                StartModeTest(3),
                EvaluateMode(2),
            )
        };
    }
    for methods in [
        ddraw!("IDirectDraw", SetDisplayMode1),
        ddraw!("IDirectDraw2", SetDisplayMode2),
        ddraw!("IDirectDraw4", SetDisplayMode2),
        ddraw!("IDirectDraw7", SetDisplayMode2),
    ] {
        v.extend(methods.into_iter().map(|def| {
            let m = def.name.rsplit("::").next().unwrap_or("");
            if matches!(m, "QueryInterface" | "AddRef" | "Release" | "Initialize") {
                def
            } else {
                needs_initialize(def)
            }
        }));
    }
    v
}
