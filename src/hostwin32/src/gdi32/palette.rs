//! Palettes: logical palettes, the system palette, PALETTEINDEX/PALETTERGB colours,
//! nearest-colour queries and DIB colour tables.

use super::dib::nearest_index;
use super::objects::{Obj, cr_to_rgb, rgb_to_cr};
use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, stdcall};
use crate::process::Process;

/// The 20 static colours of the Windows system palette (first 10, last 10), as
/// PALETTEENTRY dwords (0x00BBGGRR).
pub const STATIC_COLORS: [u32; 20] = [
    0x000000, 0x000080, 0x008000, 0x008080, 0x800000, 0x800080, 0x808000, 0xc0c0c0, 0xc0dcc0,
    0xf0caa6, 0xf0fbff, 0xa4a0a0, 0x808080, 0x0000ff, 0x00ff00, 0x00ffff, 0xff0000, 0xff00ff,
    0xffff00, 0xffffff,
];

/// DEFAULT_PALETTE: the 20 static colours.
pub fn default_palette() -> Vec<u32> {
    STATIC_COLORS.to_vec()
}

/// The system palette before any realisation: static colours at 0..10 and 246..256,
/// black in between.
pub fn default_system_palette() -> Vec<u32> {
    let mut p = vec![0u32; 256];
    p[..10].copy_from_slice(&STATIC_COLORS[..10]);
    p[246..].copy_from_slice(&STATIC_COLORS[10..]);
    p
}

/// A COLORREF as a pixel (0x00RRGGBB) given the DC's palette: PALETTEINDEX(i)
/// (0x01000000 | i) is entry i; PALETTERGB (0x02......) and plain RGB are the colour.
pub fn resolve_colorref(cr: u32, palette: &[u32]) -> u32 {
    match cr >> 24 {
        1 => {
            let i = (cr & 0xffff) as usize;
            cr_to_rgb(palette.get(i).copied().unwrap_or(0) & 0xff_ffff)
        }
        _ => cr_to_rgb(cr & 0xff_ffff),
    }
}

/// The palette index nearest to a COLORREF.
pub fn nearest_palette_index(palette: &[u32], cr: u32) -> usize {
    let table: Vec<u32> = palette.iter().map(|&e| cr_to_rgb(e & 0xff_ffff)).collect();
    nearest_index(&table, cr_to_rgb(cr & 0xff_ffff))
}

/// Entries of a palette object.
pub fn palette_entries(proc: &Process, h: u32) -> Option<Vec<u32>> {
    match proc.gdi32.lock().objs.get(&h) {
        Some(Obj::Palette(p)) => Some(p.clone()),
        _ => None,
    }
}

fn with_palette<R>(proc: &Process, h: u32, f: impl FnOnce(&mut Vec<u32>) -> R) -> Option<R> {
    match proc.gdi32.lock().objs.get_mut(&h) {
        Some(Obj::Palette(p)) => Some(f(p)),
        _ => None,
    }
}

fn read_entries(proc: &Process, p: u32, n: u32) -> ApiResult<Vec<u32>> {
    (0..n.min(4096))
        .map(|i| Ok(proc.mem.read_u32(p + 4 * i)?))
        .collect()
}

pub fn CreatePalette(cx: &mut Ctx, plpal: Ptr) -> ApiResult<u32> {
    let version = cx.proc.mem.read_u16(plpal.0)?;
    let n = cx.proc.mem.read_u16(plpal.0 + 2)? as u32;
    if version != 0x300 || n == 0 {
        return Ok(0);
    }
    let e = read_entries(cx.proc, plpal.0 + 4, n)?;
    Ok(cx.proc.gdi32.lock().add_obj(Obj::Palette(e)))
}

pub fn CreateHalftonePalette(cx: &mut Ctx, _hdc: u32) -> u32 {
    let e: Vec<u32> = super::bitmap::standard_colors(8)
        .into_iter()
        .map(rgb_to_cr)
        .collect();
    cx.proc.gdi32.lock().add_obj(Obj::Palette(e))
}

pub fn SelectPalette(cx: &mut Ctx, hdc: u32, hPal: u32, _bForceBkgd: bool) -> u32 {
    let mut g = cx.proc.gdi32.lock();
    if !matches!(g.objs.get(&hPal), Some(Obj::Palette(_))) {
        return 0;
    }
    match g.dcs.get_mut(&hdc) {
        Some(d) => std::mem::replace(&mut d.a.palette, hPal),
        None => 0,
    }
}

/// Maps the DC's palette into the system palette. On a palette (8 bpp) display the
/// entries fill the 236 non-static slots in order; the count of entries mapped is
/// returned either way.
pub fn RealizePalette(cx: &mut Ctx, hdc: u32) -> u32 {
    let pal = cx.proc.display.mode().bpp <= 8;
    let mut g = cx.proc.gdi32.lock();
    let Some(h) = g.dcs.get(&hdc).map(|d| d.a.palette) else {
        return 0xffff_ffff;
    };
    let Some(Obj::Palette(e)) = g.objs.get(&h) else {
        return 0xffff_ffff;
    };
    let e = e.clone();
    if h == super::objects::stock(super::objects::DEFAULT_PALETTE) {
        return 0;
    }
    if pal {
        for (k, c) in e.iter().take(236).enumerate() {
            g.system_palette[10 + k] = c & 0xff_ffff;
        }
    }
    e.len().min(256) as u32
}

pub fn GetPaletteEntries(
    cx: &mut Ctx,
    hpal: u32,
    iStart: u32,
    cEntries: u32,
    pPalEntries: Ptr,
) -> ApiResult<u32> {
    let Some(e) = palette_entries(cx.proc, hpal) else {
        return Ok(0);
    };
    if pPalEntries.is_null() {
        return Ok(e.len() as u32);
    }
    let mut n = 0;
    for k in 0..cEntries {
        let Some(&v) = e.get((iStart + k) as usize) else {
            break;
        };
        cx.proc.mem.write_u32(pPalEntries.0 + 4 * k, v)?;
        n += 1;
    }
    Ok(n)
}

pub fn SetPaletteEntries(
    cx: &mut Ctx,
    hpal: u32,
    iStart: u32,
    cEntries: u32,
    pPalEntries: Ptr,
) -> ApiResult<u32> {
    let v = read_entries(cx.proc, pPalEntries.0, cEntries)?;
    Ok(with_palette(cx.proc, hpal, |e| {
        let mut n = 0;
        for (k, c) in v.into_iter().enumerate() {
            if let Some(slot) = e.get_mut(iStart as usize + k) {
                *slot = c;
                n += 1;
            }
        }
        n
    })
    .unwrap_or(0))
}

/// AnimatePalette: changes the entries marked PC_RESERVED. Pixels already drawn
/// keep their colours: winterp's surfaces hold RGB, not palette indices.
pub fn AnimatePalette(
    cx: &mut Ctx,
    hPal: u32,
    iStartIndex: u32,
    cEntries: u32,
    ppe: Ptr,
) -> ApiResult<bool> {
    let v = read_entries(cx.proc, ppe.0, cEntries)?;
    Ok(with_palette(cx.proc, hPal, |e| {
        for (k, c) in v.into_iter().enumerate() {
            if let Some(slot) = e.get_mut(iStartIndex as usize + k)
                && *slot >> 24 & 1 != 0
            {
                *slot = c;
            }
        }
    })
    .is_some())
}

pub fn ResizePalette(cx: &mut Ctx, hpal: u32, n: u32) -> bool {
    if n == 0 || n > 1024 {
        return false;
    }
    with_palette(cx.proc, hpal, |e| e.resize(n as usize, 0)).is_some()
}

pub fn GetSystemPaletteEntries(
    cx: &mut Ctx,
    hdc: u32,
    iStart: u32,
    cEntries: u32,
    pPalEntries: Ptr,
) -> ApiResult<u32> {
    let sys = {
        let g = cx.proc.gdi32.lock();
        if !g.dcs.contains_key(&hdc) {
            return Ok(0);
        }
        g.system_palette.clone()
    };
    if pPalEntries.is_null() {
        return Ok(sys.len() as u32);
    }
    let mut n = 0;
    for k in 0..cEntries {
        let Some(&v) = sys.get((iStart + k) as usize) else {
            break;
        };
        cx.proc.mem.write_u32(pPalEntries.0 + 4 * k, v)?;
        n += 1;
    }
    Ok(n)
}

pub fn GetSystemPaletteUse(_cx: &mut Ctx, _hdc: u32) -> u32 {
    1 // SYSPAL_STATIC
}

pub fn SetSystemPaletteUse(_cx: &mut Ctx, _hdc: u32, uUse: u32) -> ApiResult<u32> {
    if uUse != 1 {
        return Err(crate::hle::ApiError::UnimplementedCase(format!(
            "SetSystemPaletteUse({uUse}) (only SYSPAL_STATIC)"
        )));
    }
    Ok(1)
}

pub fn GetNearestPaletteIndex(cx: &mut Ctx, h: u32, color: u32) -> u32 {
    match palette_entries(cx.proc, h) {
        Some(e) if !e.is_empty() => nearest_palette_index(&e, color) as u32,
        _ => 0xffff_ffff,
    }
}

/// GetNearestColor: on a palette display the nearest system palette colour; on a
/// true-colour one the colour itself (PALETTEINDEX values resolved).
pub fn GetNearestColor(cx: &mut Ctx, hdc: u32, color: u32) -> u32 {
    let Some(d) = super::dc::resolve(cx.proc, hdc) else {
        return 0xffff_ffff;
    };
    let c = d.color(color);
    if cx.proc.display.mode().bpp <= 8 {
        let sys = cx.proc.gdi32.lock().system_palette.clone();
        let i = nearest_palette_index(&sys, rgb_to_cr(c));
        sys[i] & 0xff_ffff
    } else {
        rgb_to_cr(c)
    }
}

/// Surfaces hold RGB rather than palette indices, so pixels already show the colours
/// they were drawn with: there is nothing to remap.
pub fn UpdateColors(_cx: &mut Ctx, _hdc: u32) -> bool {
    true
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("CreatePalette", CreatePalette),
        stdcall("CreateHalftonePalette", CreateHalftonePalette),
        stdcall("SelectPalette", SelectPalette),
        stdcall("RealizePalette", RealizePalette),
        stdcall("GetPaletteEntries", GetPaletteEntries),
        stdcall("SetPaletteEntries", SetPaletteEntries),
        stdcall("AnimatePalette", AnimatePalette),
        stdcall("ResizePalette", ResizePalette),
        stdcall("GetSystemPaletteEntries", GetSystemPaletteEntries),
        stdcall("GetSystemPaletteUse", GetSystemPaletteUse),
        stdcall("SetSystemPaletteUse", SetSystemPaletteUse),
        stdcall("GetNearestPaletteIndex", GetNearestPaletteIndex),
        stdcall("GetNearestColor", GetNearestColor),
        stdcall("UpdateColors", UpdateColors),
    ]
}
