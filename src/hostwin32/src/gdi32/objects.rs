//! GDI objects (pens, brushes, fonts, bitmaps, palettes, regions), the stock objects,
//! and the generic object calls: GetStockObject, SelectObject, DeleteObject,
//! GetObject, GetCurrentObject and the pen/brush constructors.

use super::Inner;
use super::dib::DibFormat;
use super::surface::{Rect, SurfaceRef};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Ptr, stdcall};
use crate::process::Process;
use std::collections::HashMap;
use std::sync::Arc;

pub const PS_SOLID: u32 = 0;
pub const PS_DASH: u32 = 1;
pub const PS_DOT: u32 = 2;
pub const PS_DASHDOT: u32 = 3;
pub const PS_DASHDOTDOT: u32 = 4;
pub const PS_NULL: u32 = 5;
pub const PS_INSIDEFRAME: u32 = 6;

pub const BS_SOLID: u32 = 0;
pub const BS_NULL: u32 = 1;
pub const BS_HATCHED: u32 = 2;
pub const BS_PATTERN: u32 = 3;
pub const BS_DIBPATTERN: u32 = 5;

// GetObjectType / GetCurrentObject kinds.
pub const OBJ_PEN: u32 = 1;
pub const OBJ_BRUSH: u32 = 2;
pub const OBJ_DC: u32 = 3;
pub const OBJ_PAL: u32 = 5;
pub const OBJ_FONT: u32 = 6;
pub const OBJ_BITMAP: u32 = 7;
pub const OBJ_REGION: u32 = 8;
pub const OBJ_MEMDC: u32 = 10;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pen {
    pub style: u32,
    pub width: i32,
    /// COLORREF.
    pub color: u32,
}

/// A brush's pattern pixels (0x00RRGGBB), tiled from the device origin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub width: i32,
    pub height: i32,
    pub pixels: Vec<u32>,
    /// A monochrome pattern draws its 0 bits in the text colour and its 1 bits in the
    /// background colour of the DC it is used in.
    pub mono: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Brush {
    Solid(u32),
    Null,
    Hatch { style: u32, color: u32 },
    Pattern(Arc<Pattern>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogFont {
    pub height: i32,
    pub width: i32,
    pub escapement: i32,
    pub orientation: i32,
    pub weight: i32,
    pub italic: u8,
    pub underline: u8,
    pub strikeout: u8,
    pub charset: u8,
    pub out_precision: u8,
    pub clip_precision: u8,
    pub quality: u8,
    pub pitch_and_family: u8,
    pub face: String,
}

impl LogFont {
    pub fn simple(height: i32, weight: i32, pitch_and_family: u8, face: &str) -> LogFont {
        LogFont {
            height,
            width: 0,
            escapement: 0,
            orientation: 0,
            weight,
            italic: 0,
            underline: 0,
            strikeout: 0,
            charset: 0,
            out_precision: 0,
            clip_precision: 0,
            quality: 0,
            pitch_and_family,
            face: face.to_string(),
        }
    }
}

/// Where a bitmap's pixels live.
#[derive(Clone)]
pub enum Store {
    /// A device-dependent bitmap: host pixels (monochrome ones hold only 0 and 0xFFFFFF).
    Ddb(SurfaceRef),
    /// A DIB section: the bits are guest memory at `bits`.
    Dib {
        bits: u32,
        fmt: DibFormat,
        owned: bool,
    },
}

#[derive(Clone)]
pub struct Bitmap {
    pub width: i32,
    pub height: i32,
    /// What the bitmap reports (BITMAP.bmBitsPixel): 1 for monochrome DDBs, the
    /// display depth for compatible ones, the DIB's depth for DIB sections.
    pub bpp: u16,
    pub store: Store,
    /// The memory DC it is selected into (a bitmap can be in one DC at a time).
    pub selected_in: Option<u32>,
}

impl Bitmap {
    pub fn mono(&self) -> bool {
        matches!(self.store, Store::Ddb(_)) && self.bpp == 1
    }
}

pub enum Obj {
    Pen(Pen),
    Brush(Brush),
    Font(LogFont),
    Bitmap(Bitmap),
    /// PALETTEENTRYs as dwords (0xFFBBGGRR, flags in the top byte).
    Palette(Vec<u32>),
    /// A region as a list of non-overlapping rectangles.
    Region(Vec<Rect>),
}

impl Obj {
    pub fn kind(&self) -> u32 {
        match self {
            Obj::Pen(_) => OBJ_PEN,
            Obj::Brush(_) => OBJ_BRUSH,
            Obj::Font(_) => OBJ_FONT,
            Obj::Bitmap(_) => OBJ_BITMAP,
            Obj::Palette(_) => OBJ_PAL,
            Obj::Region(_) => OBJ_REGION,
        }
    }
}

pub const WHITE_BRUSH: u32 = 0;
pub const LTGRAY_BRUSH: u32 = 1;
pub const GRAY_BRUSH: u32 = 2;
pub const DKGRAY_BRUSH: u32 = 3;
pub const BLACK_BRUSH: u32 = 4;
pub const NULL_BRUSH: u32 = 5;
pub const WHITE_PEN: u32 = 6;
pub const BLACK_PEN: u32 = 7;
pub const NULL_PEN: u32 = 8;
pub const OEM_FIXED_FONT: u32 = 10;
pub const ANSI_FIXED_FONT: u32 = 11;
pub const ANSI_VAR_FONT: u32 = 12;
pub const SYSTEM_FONT: u32 = 13;
pub const DEVICE_DEFAULT_FONT: u32 = 14;
pub const DEFAULT_PALETTE: u32 = 15;
pub const SYSTEM_FIXED_FONT: u32 = 16;
pub const DEFAULT_GUI_FONT: u32 = 17;
pub const DC_BRUSH: u32 = 18;
pub const DC_PEN: u32 = 19;

/// The handle of stock object `i` (they sit below every run-time handle).
pub const fn stock(i: u32) -> u32 {
    0x0100_0100 + i * 4
}

/// The brush GetSysColorBrush returns for system colour `i` (0..=30): a stock
/// object, so DeleteObject leaves it alone.
pub const fn sys_color_brush_handle(i: u32) -> u32 {
    0x0100_0180 + i * 4
}

/// The 1x1 monochrome bitmap every new memory DC starts with.
pub const STOCK_BITMAP: u32 = 0x0100_0200;

pub fn is_stock(h: u32) -> bool {
    (stock(0)..=STOCK_BITMAP).contains(&h)
}

pub fn rgb(r: u8, g: u8, b: u8) -> u32 {
    r as u32 | (g as u32) << 8 | (b as u32) << 16
}

/// COLORREF (0x00BBGGRR) to a surface pixel (0x00RRGGBB); the swap is its own inverse.
pub fn cr_to_rgb(cr: u32) -> u32 {
    (cr & 0xff) << 16 | (cr & 0xff00) | (cr >> 16) & 0xff
}

pub fn rgb_to_cr(px: u32) -> u32 {
    cr_to_rgb(px)
}

pub fn add_stock_objects(objs: &mut HashMap<u32, Obj>) {
    let brushes = [
        (WHITE_BRUSH, rgb(255, 255, 255)),
        (LTGRAY_BRUSH, rgb(192, 192, 192)),
        (GRAY_BRUSH, rgb(128, 128, 128)),
        (DKGRAY_BRUSH, rgb(64, 64, 64)),
        (BLACK_BRUSH, 0),
        // The DC brush's colour is the DC's (SetDCBrushColor); white by default.
        (DC_BRUSH, rgb(255, 255, 255)),
    ];
    for (i, c) in brushes {
        objs.insert(stock(i), Obj::Brush(Brush::Solid(c)));
    }
    objs.insert(stock(NULL_BRUSH), Obj::Brush(Brush::Null));
    for i in 0..=30 {
        objs.insert(
            sys_color_brush_handle(i),
            Obj::Brush(Brush::Solid(super::paint::sys_color(i as i32))),
        );
    }
    for (i, style, c) in [
        (WHITE_PEN, PS_SOLID, rgb(255, 255, 255)),
        (BLACK_PEN, PS_SOLID, 0),
        (NULL_PEN, PS_NULL, 0),
        (DC_PEN, PS_SOLID, 0),
    ] {
        objs.insert(
            stock(i),
            Obj::Pen(Pen {
                style,
                width: 1,
                color: c,
            }),
        );
    }
    // Windows 9x's stock fonts, by face and cell height at 96 dpi.
    let fonts = [
        (OEM_FIXED_FONT, LogFont::simple(12, 400, 0x31, "Terminal")),
        (ANSI_FIXED_FONT, LogFont::simple(12, 400, 0x31, "Courier")),
        (
            ANSI_VAR_FONT,
            LogFont::simple(12, 400, 0x22, "MS Sans Serif"),
        ),
        (SYSTEM_FONT, LogFont::simple(16, 700, 0x22, "System")),
        (
            DEVICE_DEFAULT_FONT,
            LogFont::simple(16, 700, 0x22, "System"),
        ),
        (
            SYSTEM_FIXED_FONT,
            LogFont::simple(15, 400, 0x31, "Fixedsys"),
        ),
        (
            DEFAULT_GUI_FONT,
            LogFont::simple(-11, 400, 0x22, "MS Sans Serif"),
        ),
    ];
    for (i, f) in fonts {
        objs.insert(stock(i), Obj::Font(f));
    }
    objs.insert(
        stock(DEFAULT_PALETTE),
        Obj::Palette(super::palette::default_palette()),
    );
    objs.insert(
        STOCK_BITMAP,
        Obj::Bitmap(Bitmap {
            width: 1,
            height: 1,
            bpp: 1,
            store: Store::Ddb(super::Surface::new_ref(1, 1)),
            selected_in: None,
        }),
    );
}

/// The brush a handle names: a brush object, a stock brush, or (as window classes
/// allow) a COLOR_xxx + 1 value standing for that system colour.
pub fn brush_of(g: &Inner, h: u32) -> Option<Brush> {
    match g.objs.get(&h) {
        Some(Obj::Brush(b)) => Some(b.clone()),
        Some(_) => None,
        None if (1..=31).contains(&h) => Some(Brush::Solid(super::paint::sys_color(h as i32 - 1))),
        None => None,
    }
}

// ---- constructors ----------------------------------------------------------------

pub fn GetStockObject(cx: &mut Ctx, i: i32) -> u32 {
    let h = stock(i as u32);
    if (0..=19).contains(&i) && cx.proc.gdi32.lock().objs.contains_key(&h) {
        h
    } else {
        0
    }
}

pub fn CreatePen(cx: &mut Ctx, iStyle: u32, cWidth: i32, color: u32) -> u32 {
    let style = iStyle & 0xf;
    cx.proc.gdi32.lock().add_obj(Obj::Pen(Pen {
        style: if style > PS_INSIDEFRAME {
            PS_SOLID
        } else {
            style
        },
        width: cWidth.max(0),
        color: color & 0x03ff_ffff,
    }))
}

pub fn CreatePenIndirect(cx: &mut Ctx, plpen: Ptr) -> ApiResult<u32> {
    // LOGPEN: style, POINT width (x used), COLORREF.
    let style = cx.proc.mem.read_u32(plpen.0)?;
    let width = cx.proc.mem.read_u32(plpen.0 + 4)? as i32;
    let color = cx.proc.mem.read_u32(plpen.0 + 12)?;
    Ok(CreatePen(cx, style, width, color))
}

pub fn ExtCreatePen(
    cx: &mut Ctx,
    iPenStyle: u32,
    cWidth: u32,
    plbrush: Ptr,
    _cStyle: u32,
    _pstyle: Ptr,
) -> ApiResult<u32> {
    let style = cx.proc.mem.read_u32(plbrush.0)?;
    if style != BS_SOLID {
        return Err(ApiError::UnimplementedCase(format!(
            "ExtCreatePen with brush style {style}"
        )));
    }
    let color = cx.proc.mem.read_u32(plbrush.0 + 4)?;
    Ok(CreatePen(cx, iPenStyle & 0xf, cWidth as i32, color))
}

pub fn CreateSolidBrush(cx: &mut Ctx, color: u32) -> u32 {
    cx.proc
        .gdi32
        .lock()
        .add_obj(Obj::Brush(Brush::Solid(color & 0x03ff_ffff)))
}

pub fn CreateHatchBrush(cx: &mut Ctx, iHatch: i32, color: u32) -> u32 {
    if !(0..=5).contains(&iHatch) {
        return 0;
    }
    cx.proc.gdi32.lock().add_obj(Obj::Brush(Brush::Hatch {
        style: iHatch as u32,
        color,
    }))
}

/// A pattern from a bitmap's pixels (CreatePatternBrush copies them at creation).
fn pattern_from_bitmap(proc: &Process, hbm: u32) -> ApiResult<Option<Pattern>> {
    let bm = match proc.gdi32.lock().objs.get(&hbm) {
        Some(Obj::Bitmap(b)) => b.clone(),
        _ => return Ok(None),
    };
    let px = super::bitmap::read_bitmap_pixels(proc, &bm)?;
    Ok(Some(Pattern {
        width: bm.width,
        height: bm.height,
        pixels: px,
        mono: bm.mono(),
    }))
}

pub fn CreatePatternBrush(cx: &mut Ctx, hbm: u32) -> ApiResult<u32> {
    match pattern_from_bitmap(cx.proc, hbm)? {
        Some(p) => Ok(cx
            .proc
            .gdi32
            .lock()
            .add_obj(Obj::Brush(Brush::Pattern(Arc::new(p))))),
        None => Ok(0),
    }
}

/// A pattern from a packed DIB in guest memory (BS_DIBPATTERN brushes).
fn pattern_from_packed_dib(proc: &Process, addr: u32, usage: u32) -> ApiResult<Pattern> {
    let pal = super::palette::default_palette();
    let info = super::dib::read_info(proc, addr, usage, &pal)?;
    let mut bits = vec![0u8; info.fmt.image_size()];
    proc.mem
        .read_bytes(addr + info.header_len as u32, &mut bits)?;
    let px = super::dib::decode_image(&info.fmt, &bits)?;
    Ok(Pattern {
        width: info.fmt.width,
        height: info.fmt.height,
        pixels: px,
        mono: false,
    })
}

pub fn CreateDIBPatternBrushPt(cx: &mut Ctx, lpPackedDIB: Ptr, iUsage: u32) -> ApiResult<u32> {
    let p = pattern_from_packed_dib(cx.proc, lpPackedDIB.0, iUsage)?;
    Ok(cx
        .proc
        .gdi32
        .lock()
        .add_obj(Obj::Brush(Brush::Pattern(Arc::new(p)))))
}

pub fn CreateBrushIndirect(cx: &mut Ctx, plbrush: Ptr) -> ApiResult<u32> {
    let style = cx.proc.mem.read_u32(plbrush.0)?;
    let color = cx.proc.mem.read_u32(plbrush.0 + 4)?;
    let hatch = cx.proc.mem.read_u32(plbrush.0 + 8)?;
    match style {
        BS_SOLID => Ok(CreateSolidBrush(cx, color)),
        BS_NULL => Ok(stock(NULL_BRUSH)),
        BS_HATCHED => Ok(CreateHatchBrush(cx, hatch as i32, color)),
        BS_PATTERN => CreatePatternBrush(cx, hatch),
        BS_DIBPATTERN => Err(ApiError::UnimplementedCase(
            "CreateBrushIndirect with BS_DIBPATTERN (a global memory handle)".into(),
        )),
        s => Err(ApiError::UnimplementedCase(format!(
            "CreateBrushIndirect with brush style {s}"
        ))),
    }
}

// ---- selection and lifetime --------------------------------------------------------

pub const NULLREGION: u32 = 1;
pub const SIMPLEREGION: u32 = 2;
pub const COMPLEXREGION: u32 = 3;
pub const HGDI_ERROR: u32 = 0xffff_ffff;

pub fn SelectObject(cx: &mut Ctx, hdc: u32, h: u32) -> ApiResult<u32> {
    let mut g = cx.proc.gdi32.lock();
    let kind = match g.objs.get(&h) {
        Some(o) => o.kind(),
        None => return Ok(0),
    };
    if !g.dcs.contains_key(&hdc) {
        return Ok(0);
    }
    match kind {
        OBJ_REGION => {
            drop(g);
            return super::region::select_clip(cx.proc, hdc, Some(h), super::region::RGN_COPY);
        }
        OBJ_PAL => return Ok(0),
        OBJ_BITMAP => {
            let is_mem = g.dcs.get(&hdc).is_some_and(|d| d.is_memory());
            if !is_mem {
                return Ok(0);
            }
            if let Some(Obj::Bitmap(b)) = g.objs.get(&h)
                && b.selected_in.is_some_and(|d| d != hdc)
                && h != STOCK_BITMAP
            {
                // One bitmap, one DC: Windows refuses the second selection.
                return Ok(0);
            }
        }
        _ => {}
    }
    let Some(d) = g.dcs.get_mut(&hdc) else {
        return Ok(0);
    };
    let slot = match kind {
        OBJ_PEN => &mut d.a.pen,
        OBJ_BRUSH => &mut d.a.brush,
        OBJ_FONT => &mut d.a.font,
        _ => &mut d.a.bitmap,
    };
    let old = std::mem::replace(slot, h);
    if kind == OBJ_BITMAP {
        if let Some(Obj::Bitmap(b)) = g.objs.get_mut(&old) {
            b.selected_in = None;
        }
        if let Some(Obj::Bitmap(b)) = g.objs.get_mut(&h)
            && h != STOCK_BITMAP
        {
            b.selected_in = Some(hdc);
        }
    }
    Ok(old)
}

pub fn DeleteObject(cx: &mut Ctx, h: u32) -> ApiResult<bool> {
    delete_object(cx.proc, h)
}

pub fn delete_object(proc: &Process, h: u32) -> ApiResult<bool> {
    let mut g = proc.gdi32.lock();
    if is_stock(h) {
        return Ok(g.objs.contains_key(&h));
    }
    if !g.objs.contains_key(&h) {
        return Ok(false);
    }
    // Windows refuses to delete an object a DC still has selected.
    if g.dcs.values().any(|d| d.a.selects(h)) {
        return Ok(false);
    }
    let o = g.objs.remove(&h);
    drop(g);
    if let Some(Obj::Bitmap(Bitmap {
        store: Store::Dib {
            bits, owned: true, ..
        },
        ..
    })) = o
    {
        proc.vm
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .release(bits)
            .map_err(|e| ApiError::Other(format!("DeleteObject of a DIB section: {e}")))?;
    }
    Ok(true)
}

pub fn GetObjectType(cx: &mut Ctx, h: u32) -> u32 {
    let g = cx.proc.gdi32.lock();
    if let Some(o) = g.objs.get(&h) {
        return o.kind();
    }
    match g.dcs.get(&h) {
        Some(d) if d.is_memory() => OBJ_MEMDC,
        Some(_) => OBJ_DC,
        None => 0,
    }
}

pub fn GetCurrentObject(cx: &mut Ctx, hdc: u32, kind: u32) -> u32 {
    let g = cx.proc.gdi32.lock();
    let Some(d) = g.dcs.get(&hdc) else { return 0 };
    match kind {
        OBJ_PEN => d.a.pen,
        OBJ_BRUSH => d.a.brush,
        OBJ_FONT => d.a.font,
        OBJ_BITMAP => d.a.bitmap,
        OBJ_PAL => d.a.palette,
        _ => 0,
    }
}

/// GetObject's answer for one object (the bytes of its LOGxxx/BITMAP/DIBSECTION).
fn object_bytes(g: &Inner, h: u32, wide: bool) -> Option<Vec<u8>> {
    let mut b = Vec::new();
    let p32 = |b: &mut Vec<u8>, v: u32| b.extend_from_slice(&v.to_le_bytes());
    match g.objs.get(&h)? {
        Obj::Pen(p) => {
            p32(&mut b, p.style);
            p32(&mut b, p.width as u32);
            p32(&mut b, 0);
            p32(&mut b, p.color);
        }
        Obj::Brush(br) => {
            let (style, color, hatch) = match br {
                Brush::Solid(c) => (BS_SOLID, *c, 0),
                Brush::Null => (BS_NULL, 0, 0),
                Brush::Hatch { style, color } => (BS_HATCHED, *color, *style),
                Brush::Pattern(_) => (BS_PATTERN, 0, 0),
            };
            p32(&mut b, style);
            p32(&mut b, color);
            p32(&mut b, hatch);
        }
        Obj::Font(f) => {
            for v in [f.height, f.width, f.escapement, f.orientation, f.weight] {
                p32(&mut b, v as u32);
            }
            b.extend_from_slice(&[
                f.italic,
                f.underline,
                f.strikeout,
                f.charset,
                f.out_precision,
                f.clip_precision,
                f.quality,
                f.pitch_and_family,
            ]);
            if wide {
                let mut n = 0;
                for u in f.face.encode_utf16().take(31) {
                    b.extend_from_slice(&u.to_le_bytes());
                    n += 1;
                }
                b.resize(b.len() + (32 - n) * 2, 0);
            } else {
                let a = crate::kernel32::string::encode_ansi(&f.face);
                let n = a.len().min(31);
                b.extend_from_slice(&a[..n]);
                b.resize(b.len() + 32 - n, 0);
            }
        }
        Obj::Bitmap(bm) => {
            let (width_bytes, bits) = match &bm.store {
                Store::Ddb(_) => (((bm.width as u32 * bm.bpp as u32).div_ceil(16) * 2), 0u32),
                Store::Dib { bits, fmt, .. } => (fmt.stride() as u32, *bits),
            };
            p32(&mut b, 0);
            p32(&mut b, bm.width as u32);
            p32(&mut b, bm.height as u32);
            p32(&mut b, width_bytes);
            b.extend_from_slice(&1u16.to_le_bytes());
            b.extend_from_slice(&bm.bpp.to_le_bytes());
            p32(&mut b, bits);
            if let Store::Dib { fmt, .. } = &bm.store {
                // DIBSECTION: BITMAPINFOHEADER, dsBitfields, dshSection, dsOffset.
                p32(&mut b, 40);
                p32(&mut b, fmt.width as u32);
                p32(
                    &mut b,
                    if fmt.top_down {
                        (-fmt.height) as u32
                    } else {
                        fmt.height as u32
                    },
                );
                b.extend_from_slice(&1u16.to_le_bytes());
                b.extend_from_slice(&fmt.bpp.to_le_bytes());
                p32(&mut b, fmt.compression);
                p32(&mut b, fmt.image_size() as u32);
                p32(&mut b, 0);
                p32(&mut b, 0);
                p32(&mut b, fmt.colors.len() as u32);
                p32(&mut b, 0);
                for m in fmt.masks {
                    p32(
                        &mut b,
                        if fmt.compression == super::dib::BI_BITFIELDS {
                            m
                        } else {
                            0
                        },
                    );
                }
                p32(&mut b, 0);
                p32(&mut b, 0);
            }
        }
        Obj::Palette(p) => {
            b.extend_from_slice(&(p.len() as u16).to_le_bytes());
        }
        Obj::Region(_) => return None,
    }
    Some(b)
}

fn get_object(cx: &mut Ctx, h: u32, c: i32, pv: Ptr, wide: bool) -> ApiResult<i32> {
    let bytes = {
        let g = cx.proc.gdi32.lock();
        match object_bytes(&g, h, wide) {
            Some(b) => b,
            None => return Ok(0),
        }
    };
    if pv.is_null() {
        return Ok(bytes.len() as i32);
    }
    // A DIB section asked for only a BITMAP gets the BITMAP; a short buffer for a
    // LOGFONT gets the part that fits, as Windows copies min(c, size).
    let n = (c.max(0) as usize).min(bytes.len());
    cx.proc.mem.write_bytes(pv.0, &bytes[..n])?;
    Ok(n as i32)
}

pub fn GetObjectA(cx: &mut Ctx, h: u32, c: i32, pv: Ptr) -> ApiResult<i32> {
    get_object(cx, h, c, pv, false)
}

pub fn GetObjectW(cx: &mut Ctx, h: u32, c: i32, pv: Ptr) -> ApiResult<i32> {
    get_object(cx, h, c, pv, true)
}

pub fn UnrealizeObject(cx: &mut Ctx, h: u32) -> bool {
    cx.proc.gdi32.lock().objs.contains_key(&h)
}

pub fn SetDCBrushColor(cx: &mut Ctx, hdc: u32, color: u32) -> u32 {
    let mut g = cx.proc.gdi32.lock();
    match g.dcs.get_mut(&hdc) {
        Some(d) => std::mem::replace(&mut d.a.dc_brush, color),
        None => 0xffff_ffff,
    }
}

pub fn SetDCPenColor(cx: &mut Ctx, hdc: u32, color: u32) -> u32 {
    let mut g = cx.proc.gdi32.lock();
    match g.dcs.get_mut(&hdc) {
        Some(d) => std::mem::replace(&mut d.a.dc_pen, color),
        None => 0xffff_ffff,
    }
}

pub fn GetDCBrushColor(cx: &mut Ctx, hdc: u32) -> u32 {
    let g = cx.proc.gdi32.lock();
    g.dcs.get(&hdc).map(|d| d.a.dc_brush).unwrap_or(0xffff_ffff)
}

pub fn GetDCPenColor(cx: &mut Ctx, hdc: u32) -> u32 {
    let g = cx.proc.gdi32.lock();
    g.dcs.get(&hdc).map(|d| d.a.dc_pen).unwrap_or(0xffff_ffff)
}

/// Used by `dc` when a DC is deleted: its bitmap is free again.
pub fn unselect_bitmap(g: &mut Inner, hbm: u32) {
    if let Some(Obj::Bitmap(b)) = g.objs.get_mut(&hbm) {
        b.selected_in = None;
    }
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("GetStockObject", GetStockObject),
        stdcall("CreatePen", CreatePen),
        stdcall("CreatePenIndirect", CreatePenIndirect),
        stdcall("ExtCreatePen", ExtCreatePen),
        stdcall("CreateSolidBrush", CreateSolidBrush),
        stdcall("CreateHatchBrush", CreateHatchBrush),
        stdcall("CreatePatternBrush", CreatePatternBrush),
        stdcall("CreateDIBPatternBrushPt", CreateDIBPatternBrushPt),
        stdcall("CreateBrushIndirect", CreateBrushIndirect),
        stdcall("SelectObject", SelectObject),
        stdcall("DeleteObject", DeleteObject),
        stdcall("GetObjectType", GetObjectType),
        stdcall("GetCurrentObject", GetCurrentObject),
        stdcall("GetObjectA", GetObjectA),
        stdcall("GetObjectW", GetObjectW),
        stdcall("UnrealizeObject", UnrealizeObject),
        stdcall("SetDCBrushColor", SetDCBrushColor),
        stdcall("SetDCPenColor", SetDCPenColor),
        stdcall("GetDCBrushColor", GetDCBrushColor),
        stdcall("GetDCPenColor", GetDCPenColor),
    ]
}
