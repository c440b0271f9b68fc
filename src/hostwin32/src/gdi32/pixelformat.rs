//! Pixel formats and SwapBuffers: the GDI32 half of OpenGL's window-system
//! binding. On Windows GDI32 asks the installed OpenGL driver (ICD) for its formats;
//! here the formats are those a 1999 ICD offered on a true-colour desktop (32-bit
//! colour with 8-bit alpha, 24-bit depth with 8-bit stencil or 16-bit depth, and a
//! 16-bit 565 colour format with 16-bit depth; double- and single-buffered; no
//! accumulation or auxiliary buffers). A window's format is kept per HWND, as
//! Windows keeps it: it can be set once.
//!
//! SwapBuffers is served by OPENGL32 (the layer above), which registers itself with
//! [`set_swap_handler`] when it is loaded; without it the DC has no GL drawable.

use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, Ptr, stdcall};
use crate::process::Process;
use crate::teb::set_last_error;
use std::collections::HashMap;
use std::sync::Mutex;

pub const PFD_DOUBLEBUFFER: u32 = 0x1;
pub const PFD_STEREO: u32 = 0x2;
pub const PFD_DRAW_TO_WINDOW: u32 = 0x4;
pub const PFD_DRAW_TO_BITMAP: u32 = 0x8;
pub const PFD_SUPPORT_GDI: u32 = 0x10;
pub const PFD_SUPPORT_OPENGL: u32 = 0x20;
pub const PFD_SWAP_EXCHANGE: u32 = 0x200;
pub const PFD_DEPTH_DONTCARE: u32 = 0x2000_0000;
pub const PFD_DOUBLEBUFFER_DONTCARE: u32 = 0x4000_0000;
pub const PFD_STEREO_DONTCARE: u32 = 0x8000_0000;
pub const PFD_TYPE_RGBA: u8 = 0;
/// sizeof(PIXELFORMATDESCRIPTOR).
pub const PFD_SIZE: u32 = 40;

const ERROR_INVALID_PARAMETER: u32 = 87;
const ERROR_INVALID_PIXEL_FORMAT: u32 = 2000;
const ERROR_INVALID_HANDLE: u32 = 6;

/// One pixel format as DescribePixelFormat reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelFormat {
    pub flags: u32,
    pub color_bits: u8,
    /// (bits, shift) of red, green, blue, alpha.
    pub channels: [(u8, u8); 4],
    pub depth_bits: u8,
    pub stencil_bits: u8,
}

impl PixelFormat {
    pub fn double_buffered(&self) -> bool {
        self.flags & PFD_DOUBLEBUFFER != 0
    }

    /// The PIXELFORMATDESCRIPTOR bytes.
    pub fn descriptor(&self) -> [u8; PFD_SIZE as usize] {
        let mut b = [0u8; PFD_SIZE as usize];
        b[0..2].copy_from_slice(&(PFD_SIZE as u16).to_le_bytes());
        b[2..4].copy_from_slice(&1u16.to_le_bytes());
        b[4..8].copy_from_slice(&self.flags.to_le_bytes());
        b[8] = PFD_TYPE_RGBA;
        b[9] = self.color_bits;
        for (k, (bits, shift)) in self.channels.iter().enumerate() {
            b[10 + 2 * k] = *bits;
            b[11 + 2 * k] = *shift;
        }
        b[23] = self.depth_bits;
        b[24] = self.stencil_bits;
        // cAccumBits..cAccumAlphaBits, cAuxBuffers, iLayerType (PFD_MAIN_PLANE) and
        // the masks are 0.
        b
    }
}

const WINDOW_GL: u32 = PFD_DRAW_TO_WINDOW | PFD_SUPPORT_OPENGL;
const DOUBLE: u32 = WINDOW_GL | PFD_DOUBLEBUFFER | PFD_SWAP_EXCHANGE;
const RGBA8: [(u8, u8); 4] = [(8, 16), (8, 8), (8, 0), (8, 24)];
const RGB565: [(u8, u8); 4] = [(5, 11), (6, 5), (5, 0), (0, 0)];

/// The formats, numbered from 1 in this order.
pub const FORMATS: [PixelFormat; 6] = [
    PixelFormat {
        flags: DOUBLE,
        color_bits: 32,
        channels: RGBA8,
        depth_bits: 24,
        stencil_bits: 8,
    },
    PixelFormat {
        flags: DOUBLE,
        color_bits: 32,
        channels: RGBA8,
        depth_bits: 16,
        stencil_bits: 0,
    },
    PixelFormat {
        flags: WINDOW_GL,
        color_bits: 32,
        channels: RGBA8,
        depth_bits: 24,
        stencil_bits: 8,
    },
    PixelFormat {
        flags: DOUBLE,
        color_bits: 16,
        channels: RGB565,
        depth_bits: 16,
        stencil_bits: 0,
    },
    PixelFormat {
        flags: WINDOW_GL,
        color_bits: 16,
        channels: RGB565,
        depth_bits: 16,
        stencil_bits: 0,
    },
    PixelFormat {
        flags: DOUBLE,
        color_bits: 32,
        channels: RGBA8,
        depth_bits: 0,
        stencil_bits: 0,
    },
];

/// The format `n` (1-based), if there is one.
pub fn format(n: i32) -> Option<PixelFormat> {
    usize::try_from(n - 1)
        .ok()
        .and_then(|k| FORMATS.get(k).copied())
}

/// What a PIXELFORMATDESCRIPTOR asks for.
#[derive(Clone, Copy, Debug, Default)]
pub struct Request {
    pub flags: u32,
    pub pixel_type: u8,
    pub color_bits: u8,
    pub alpha_bits: u8,
    pub depth_bits: u8,
    pub stencil_bits: u8,
}

impl Request {
    pub fn read(proc: &Process, p: u32) -> ApiResult<Request> {
        let mut b = [0u8; PFD_SIZE as usize];
        proc.mem.read_bytes(p, &mut b)?;
        Ok(Request {
            flags: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
            pixel_type: b[8],
            color_bits: b[9],
            alpha_bits: b[16],
            depth_bits: b[23],
            stencil_bits: b[24],
        })
    }
}

/// ChoosePixelFormat's pick: the formats that have every capability asked for
/// (window or bitmap, OpenGL, GDI, double buffering unless "don't care", stereo
/// only when asked), ranked by the documented priorities: colour depth nearest
/// what was asked (or the display's), then alpha, depth and stencil buffers that
/// are at least as deep, the shallowest such; 0 when nothing fits.
pub fn choose(req: &Request, display_bpp: u32) -> i32 {
    if req.pixel_type != PFD_TYPE_RGBA {
        // Colour-index formats are not offered.
        return 0;
    }
    let want_color = if req.color_bits == 0 {
        display_bpp.max(16) as i32
    } else {
        i32::from(req.color_bits)
    };
    let mut best: Option<(i32, (i32, i32, i32, i32, i32))> = None;
    for (k, f) in FORMATS.iter().enumerate() {
        let needs = req.flags
            & (PFD_DRAW_TO_WINDOW | PFD_DRAW_TO_BITMAP | PFD_SUPPORT_GDI | PFD_SUPPORT_OPENGL);
        if f.flags & needs != needs {
            continue;
        }
        if req.flags & PFD_STEREO_DONTCARE == 0 && req.flags & PFD_STEREO != 0 {
            continue;
        }
        let double_mismatch = req.flags & PFD_DOUBLEBUFFER_DONTCARE == 0
            && (req.flags & PFD_DOUBLEBUFFER != 0) != f.double_buffered();
        // A shortfall counts far more than an excess.
        let short = |have: u8, want: u8| -> i32 {
            if have >= want {
                i32::from(have - want)
            } else {
                1000 + i32::from(want - have)
            }
        };
        let depth = if req.flags & PFD_DEPTH_DONTCARE != 0 {
            0
        } else {
            short(f.depth_bits, req.depth_bits)
        };
        let score = (
            i32::from(double_mismatch),
            (i32::from(f.color_bits) - want_color).abs(),
            short(f.channels[3].0, req.alpha_bits),
            depth,
            short(f.stencil_bits, req.stencil_bits),
        );
        if best.is_none_or(|(_, s)| score < s) {
            best = Some((k as i32 + 1, score));
        }
    }
    best.map_or(0, |(n, _)| n)
}

/// Served by OPENGL32: presents the GL drawable of a DC.
pub type SwapHandler = fn(&mut Ctx, u32) -> ApiResult<Outcome>;

#[derive(Default)]
pub struct PixelFormats {
    by_window: Mutex<HashMap<u32, i32>>,
    swap: Mutex<Option<SwapHandler>>,
}

/// OPENGL32 serves SwapBuffers from now on.
pub fn set_swap_handler(proc: &Process, h: SwapHandler) {
    *proc
        .slot::<PixelFormats>()
        .swap
        .lock()
        .unwrap_or_else(|e| e.into_inner()) = Some(h);
}

/// The window a DC draws on (0 for memory, screen and metafile DCs), or None if
/// `hdc` is not a DC.
pub fn dc_window(proc: &Process, hdc: u32) -> Option<u32> {
    let g = proc.gdi32.lock();
    let d = g.dcs.get(&hdc)?;
    Some(match &d.kind {
        super::dc::DcKind::Window(w) => w.hwnd,
        _ => 0,
    })
}

/// The pixel format set on the window of `hdc` (0 if none).
pub fn window_format(proc: &Process, hwnd: u32) -> i32 {
    let s = proc.slot::<PixelFormats>();
    let m = s.by_window.lock().unwrap_or_else(|e| e.into_inner());
    m.get(&hwnd).copied().unwrap_or(0)
}

/// Copies a GL drawable's picture (`width` x `height` pixels, 0x00RRGGBB, top row
/// first) onto the window of `hdc` at the DC's origin, within its clip: what a
/// swap shows. False if `hdc` is not a window DC.
pub fn show_in_window_dc(proc: &Process, hdc: u32, width: u32, height: u32, px: &[u32]) -> bool {
    let (surf, origin, clip) = {
        let g = proc.gdi32.lock();
        match g.dcs.get(&hdc).map(|d| &d.kind) {
            Some(super::dc::DcKind::Window(w)) => (w.surface.clone(), w.origin, w.clip),
            _ => return false,
        }
    };
    let mut s = surf.lock().unwrap_or_else(|e| e.into_inner());
    let (sw, sh) = (s.width as i32, s.height as i32);
    let (w, h) = (width as i32, height as i32);
    if px.len() < (width * height) as usize {
        return false;
    }
    for y in 0..h {
        let ty = origin.1 + y;
        if ty < clip.top.max(0) || ty >= clip.bottom.min(sh) {
            continue;
        }
        for x in 0..w {
            let tx = origin.0 + x;
            if tx < clip.left.max(0) || tx >= clip.right.min(sw) {
                continue;
            }
            s.pixels[(ty * sw + tx) as usize] = px[(y * w + x) as usize];
        }
    }
    true
}

pub fn ChoosePixelFormat(cx: &mut Ctx, hdc: u32, ppfd: Ptr) -> ApiResult<i32> {
    if dc_window(cx.proc, hdc).is_none() {
        set_last_error(cx, ERROR_INVALID_HANDLE)?;
        return Ok(0);
    }
    if ppfd.is_null() {
        set_last_error(cx, ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    }
    let req = Request::read(cx.proc, ppfd.0)?;
    let n = choose(&req, cx.proc.display.mode().bpp);
    log::debug!("ChoosePixelFormat({req:?}) = {n}");
    Ok(n)
}

pub fn DescribePixelFormat(
    cx: &mut Ctx,
    hdc: u32,
    iPixelFormat: i32,
    nBytes: u32,
    ppfd: Ptr,
) -> ApiResult<i32> {
    if dc_window(cx.proc, hdc).is_none() {
        set_last_error(cx, ERROR_INVALID_HANDLE)?;
        return Ok(0);
    }
    if ppfd.is_null() {
        // The number of formats.
        return Ok(FORMATS.len() as i32);
    }
    let Some(f) = format(iPixelFormat) else {
        set_last_error(cx, ERROR_INVALID_PARAMETER)?;
        return Ok(0);
    };
    let b = f.descriptor();
    let n = (nBytes as usize).min(b.len());
    cx.proc.mem.write_bytes(ppfd.0, &b[..n])?;
    Ok(FORMATS.len() as i32)
}

pub fn GetPixelFormat(cx: &mut Ctx, hdc: u32) -> ApiResult<i32> {
    match dc_window(cx.proc, hdc) {
        None => {
            set_last_error(cx, ERROR_INVALID_HANDLE)?;
            Ok(0)
        }
        Some(hwnd) => {
            let n = window_format(cx.proc, hwnd);
            if n == 0 {
                set_last_error(cx, ERROR_INVALID_PIXEL_FORMAT)?;
            }
            Ok(n)
        }
    }
}

pub fn SetPixelFormat(cx: &mut Ctx, hdc: u32, format_: i32, ppfd: Ptr) -> ApiResult<bool> {
    // The descriptor is informational (Windows ignores it beyond metafiles).
    let _ = ppfd;
    let Some(hwnd) = dc_window(cx.proc, hdc) else {
        set_last_error(cx, ERROR_INVALID_HANDLE)?;
        return Ok(false);
    };
    if format(format_).is_none() {
        set_last_error(cx, ERROR_INVALID_PIXEL_FORMAT)?;
        return Ok(false);
    }
    let s = cx.proc.slot::<PixelFormats>();
    let mut m = s.by_window.lock().unwrap_or_else(|e| e.into_inner());
    match m.get(&hwnd) {
        // A window's format can be set once; setting the same one again succeeds.
        Some(&old) if old != format_ => {
            drop(m);
            set_last_error(cx, ERROR_INVALID_PIXEL_FORMAT)?;
            Ok(false)
        }
        _ => {
            m.insert(hwnd, format_);
            Ok(true)
        }
    }
}

pub fn SwapBuffers(cx: &mut Ctx, hdc: u32) -> ApiResult<Outcome> {
    let h = *cx
        .proc
        .slot::<PixelFormats>()
        .swap
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    match h {
        Some(h) => h(cx, hdc),
        None => {
            // No OpenGL in the process: the DC has no drawable to swap.
            set_last_error(cx, ERROR_INVALID_PIXEL_FORMAT)?;
            Ok(Outcome::Return(0))
        }
    }
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("ChoosePixelFormat", ChoosePixelFormat),
        stdcall("DescribePixelFormat", DescribePixelFormat),
        stdcall("GetPixelFormat", GetPixelFormat),
        stdcall("SetPixelFormat", SetPixelFormat),
        stdcall("SwapBuffers", SwapBuffers),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(flags: u32, color: u8, depth: u8, stencil: u8) -> Request {
        Request {
            flags,
            color_bits: color,
            depth_bits: depth,
            stencil_bits: stencil,
            ..Request::default()
        }
    }

    #[test]
    fn choose_prefers_what_was_asked() {
        let d = PFD_DRAW_TO_WINDOW | PFD_SUPPORT_OPENGL | PFD_DOUBLEBUFFER;
        // 32-bit double-buffered with 24/8: the first format.
        assert_eq!(choose(&req(d, 32, 24, 8), 32), 1);
        // 16-bit depth without stencil at 32 bits: the second.
        assert_eq!(choose(&req(d, 32, 16, 0), 32), 2);
        // 16-bit colour: the 565 double-buffered format.
        assert_eq!(choose(&req(d, 16, 16, 0), 32), 4);
        // Single-buffered: the third.
        assert_eq!(
            choose(&req(PFD_DRAW_TO_WINDOW | PFD_SUPPORT_OPENGL, 32, 24, 0), 32),
            3
        );
        // Colour 0 takes the display's depth.
        assert_eq!(choose(&req(d, 0, 16, 0), 16), 4);
        // Nothing draws to bitmaps.
        assert_eq!(
            choose(&req(PFD_DRAW_TO_BITMAP | PFD_SUPPORT_OPENGL, 32, 16, 0), 32),
            0
        );
    }

    #[test]
    fn descriptor_layout() {
        let b = FORMATS[0].descriptor();
        assert_eq!(&b[0..4], &[40, 0, 1, 0]);
        assert_eq!(u32::from_le_bytes([b[4], b[5], b[6], b[7]]), 0x225);
        assert_eq!(b[9], 32);
        assert_eq!((b[10], b[11], b[16], b[17]), (8, 16, 8, 24));
        assert_eq!((b[23], b[24]), (24, 8));
    }
}
