//! Bitmaps and blits: CreateBitmap, CreateCompatibleBitmap, CreateDIBitmap,
//! CreateDIBSection (bits in guest memory), Get/SetDIBits, SetDIBitsToDevice,
//! StretchDIBits, Get/SetBitmapBits, BitBlt/StretchBlt/PatBlt with any ROP3.

use super::dc::{self, DrawCtx};
use super::dib::{self, DibFormat, Nearest};
use super::objects::{Bitmap, Obj, STOCK_BITMAP, Store, cr_to_rgb};
use super::raster::{self, read_area, with_raster};
use super::surface::Rect;
use super::{Surface, SurfaceRef};
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Dwords, Ptr, stdcall};
use crate::process::Process;

/// A device-dependent bitmap of the display's depth holding `px` (0x00RRGGBB).
pub fn new_ddb(proc: &Process, width: i32, height: i32, bpp: u16, px: Option<Vec<u32>>) -> u32 {
    let (w, h) = (width.max(0) as u32, height.max(0) as u32);
    let mut s = Surface::new(w, h);
    if let Some(p) = px
        && p.len() == s.pixels.len()
    {
        s.pixels = p;
    }
    let surf: SurfaceRef = std::sync::Arc::new(std::sync::Mutex::new(s));
    proc.gdi32.lock().add_obj(Obj::Bitmap(Bitmap {
        width,
        height,
        bpp,
        store: Store::Ddb(surf),
        selected_in: None,
    }))
}

/// An HBITMAP from a packed DIB (BITMAPINFOHEADER, colour table, bits), as RT_BITMAP
/// resources store them: what LoadBitmap and LoadImage(IMAGE_BITMAP) return, a
/// device-dependent bitmap of the display's depth.
pub fn create_bitmap_from_dib(proc: &Process, packed: &[u8]) -> ApiResult<u32> {
    let pal = super::palette::default_palette();
    let info = dib::parse_info(packed, dib::DIB_RGB_COLORS, &pal)?;
    let bits = packed
        .get(info.header_len..)
        .ok_or_else(|| ApiError::Other("packed DIB ends inside its colour table".into()))?;
    let px = dib::decode_image(&info.fmt, bits)?;
    // A two-colour black-and-white DIB loads as a monochrome bitmap (masks keep
    // working with the text/background colour rules); everything else at the
    // display's depth.
    let mono = info.fmt.bpp == 1 && info.fmt.colors == [0, 0xff_ffff];
    let bpp = if mono {
        1
    } else {
        proc.display.mode().bpp as u16
    };
    Ok(new_ddb(
        proc,
        info.fmt.width,
        info.fmt.height,
        bpp,
        Some(px),
    ))
}

/// All pixels of a bitmap (rows top first, 0x00RRGGBB).
pub fn read_bitmap_pixels(proc: &Process, bm: &Bitmap) -> ApiResult<Vec<u32>> {
    match &bm.store {
        Store::Ddb(s) => Ok(s.lock().unwrap_or_else(|e| e.into_inner()).pixels.clone()),
        Store::Dib { bits, fmt, .. } => {
            let mut b = vec![0u8; fmt.image_size()];
            proc.mem.read_bytes(*bits, &mut b)?;
            dib::decode_image(fmt, &b)
        }
    }
}

/// The colour table GDI gives a DIB of `bpp` <= 8 made from a device bitmap
/// (GetDIBits): black and white; the 16 VGA colours; or the 20 static colours around
/// a 6x6x6 colour cube and a grey ramp.
pub fn standard_colors(bpp: u16) -> Vec<u32> {
    match bpp {
        1 => vec![0, 0xff_ffff],
        4 => vec![
            0x000000, 0x800000, 0x008000, 0x808000, 0x000080, 0x800080, 0x008080, 0x808080,
            0xc0c0c0, 0xff0000, 0x00ff00, 0xffff00, 0x0000ff, 0xff00ff, 0x00ffff, 0xffffff,
        ],
        _ => {
            let st: Vec<u32> = super::palette::STATIC_COLORS
                .iter()
                .map(|&c| cr_to_rgb(c))
                .collect();
            let mut v = st[..10].to_vec();
            for r in 0..6u32 {
                for g in 0..6u32 {
                    for b in 0..6u32 {
                        v.push(((r * 51) << 16) | ((g * 51) << 8) | (b * 51));
                    }
                }
            }
            for k in 1..=20u32 {
                let l = k * 255 / 21;
                v.push(l << 16 | l << 8 | l);
            }
            v.extend_from_slice(&st[10..]);
            v
        }
    }
}

/// The row layout of a device-dependent bitmap's bits (Get/SetBitmapBits,
/// CreateBitmap): rows top first, padded to 2 bytes.
fn ddb_format(width: i32, bpp: u16) -> (DibFormat, usize) {
    let mut f = DibFormat::new(width, 1, true, bpp);
    if bpp <= 8 {
        f.colors = standard_colors(bpp);
    }
    if bpp == 16 {
        f.masks = [0xf800, 0x07e0, 0x001f];
    }
    let stride = (width.max(0) as usize * bpp as usize).div_ceil(16) * 2;
    (f, stride)
}

/// Pixels (rows top first) from device-dependent bitmap bits: rows of `bpp` bits
/// padded to 16 bits.
pub fn decode_ddb_bits(width: i32, height: i32, bpp: u16, bits: &[u8]) -> Vec<u32> {
    let (f, stride) = ddb_format(width, bpp);
    let mut px = vec![0u32; (width.max(0) * height.max(0)) as usize];
    for y in 0..height.max(0) as usize {
        let Some(row) = bits.get(y * stride..(y + 1) * stride) else {
            break;
        };
        for x in 0..width as usize {
            px[y * width as usize + x] = f.get(row, x);
        }
    }
    px
}

fn encode_ddb_bits(width: i32, bpp: u16, px: &[u32], rows: usize) -> Vec<u8> {
    let (f, stride) = ddb_format(width, bpp);
    let mut out = vec![0u8; stride * rows];
    let mut near = Nearest::default();
    for y in 0..rows {
        let row = &mut out[y * stride..(y + 1) * stride];
        for x in 0..width as usize {
            f.put(
                row,
                x,
                px.get(y * width as usize + x).copied().unwrap_or(0),
                &mut near,
            );
        }
    }
    out
}

/// Sizes a device bitmap may have: up to 16384 on a side and 64 Mpixels (256 MiB of
/// host pixels); Windows fails larger requests for lack of memory too.
fn valid_size(w: i32, h: i32) -> bool {
    (1..=16384).contains(&w) && (1..=16384).contains(&h) && (w as i64 * h as i64) <= 1 << 26
}

pub fn CreateBitmap(
    cx: &mut Ctx,
    nWidth: i32,
    nHeight: i32,
    nPlanes: u32,
    nBitCount: u32,
    lpBits: Ptr,
) -> ApiResult<u32> {
    if nWidth == 0 || nHeight == 0 {
        return Ok(STOCK_BITMAP);
    }
    if !valid_size(nWidth, nHeight) || nPlanes != 1 {
        return Ok(0);
    }
    let bpp = match nBitCount {
        1 | 4 | 8 | 16 | 24 | 32 => nBitCount as u16,
        _ => return Ok(0),
    };
    let px = if lpBits.is_null() {
        None
    } else {
        let (_, stride) = ddb_format(nWidth, bpp);
        let mut b = vec![0u8; stride * nHeight as usize];
        cx.proc.mem.read_bytes(lpBits.0, &mut b)?;
        Some(decode_ddb_bits(nWidth, nHeight, bpp, &b))
    };
    Ok(new_ddb(cx.proc, nWidth, nHeight, bpp, px))
}

pub fn CreateBitmapIndirect(cx: &mut Ctx, pbm: Ptr) -> ApiResult<u32> {
    let mut b = [0u8; 24];
    cx.proc.mem.read_bytes(pbm.0, &mut b)?;
    let i = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    let planes = u16::from_le_bytes([b[16], b[17]]) as u32;
    let bpp = u16::from_le_bytes([b[18], b[19]]) as u32;
    CreateBitmap(cx, i(4) as i32, i(8) as i32, planes, bpp, Ptr(i(20)))
}

/// The depth of bitmaps compatible with `hdc`: a memory DC's selected bitmap's (so a
/// fresh memory DC, holding its 1x1 monochrome bitmap, gives monochrome ones, the
/// classic Windows surprise), the display's otherwise.
fn compatible_bpp(proc: &Process, hdc: u32) -> Option<u16> {
    let g = proc.gdi32.lock();
    if hdc == 0 {
        return Some(proc.display.mode().bpp as u16);
    }
    let d = g.dcs.get(&hdc)?;
    if d.is_memory()
        && let Some(Obj::Bitmap(b)) = g.objs.get(&d.a.bitmap)
    {
        return Some(if b.mono() {
            1
        } else {
            proc.display.mode().bpp as u16
        });
    }
    Some(proc.display.mode().bpp as u16)
}

pub fn CreateCompatibleBitmap(cx: &mut Ctx, hdc: u32, cx_: i32, cy: i32) -> u32 {
    let Some(bpp) = compatible_bpp(cx.proc, hdc) else {
        return 0;
    };
    if cx_ == 0 || cy == 0 {
        return STOCK_BITMAP;
    }
    if !valid_size(cx_, cy) {
        return 0;
    }
    new_ddb(cx.proc, cx_, cy, bpp, None)
}

fn dc_palette(proc: &Process, hdc: u32) -> Vec<u32> {
    dc::resolve(proc, hdc)
        .map(|d| d.palette)
        .unwrap_or_else(super::palette::default_palette)
}

/// Reads the bits of a DIB described by `info` (whole image) from guest memory.
fn read_dib_bits(proc: &Process, fmt: &DibFormat, bits: u32) -> ApiResult<Vec<u8>> {
    let mut b = vec![0u8; fmt.image_size()];
    proc.mem.read_bytes(bits, &mut b)?;
    Ok(b)
}

const CBM_INIT: u32 = 4;

pub fn CreateDIBitmap(
    cx: &mut Ctx,
    hdc: u32,
    pbmih: Ptr,
    flInit: u32,
    pjBits: Ptr,
    pbmi: Ptr,
    iUsage: u32,
) -> ApiResult<u32> {
    let pal = dc_palette(cx.proc, hdc);
    let head = dib::read_info(cx.proc, pbmih.0, dib::DIB_RGB_COLORS, &pal)?;
    let bpp = if hdc == 0 {
        1
    } else {
        match compatible_bpp(cx.proc, hdc) {
            Some(b) => b,
            None => return Ok(0),
        }
    };
    let (w, h) = (head.fmt.width, head.fmt.height);
    let px = if flInit & CBM_INIT != 0 && !pjBits.is_null() && !pbmi.is_null() {
        let info = dib::read_info(cx.proc, pbmi.0, iUsage, &pal)?;
        let bits = read_dib_bits(cx.proc, &info.fmt, pjBits.0)?;
        let mut px = dib::decode_image(&info.fmt, &bits)?;
        if bpp == 1 {
            px.iter_mut().for_each(|p| *p = raster::to_mono(*p));
        }
        Some(px)
    } else {
        None
    };
    if px.as_ref().is_some_and(|p| p.len() != (w * h) as usize) {
        return Err(ApiError::UnimplementedCase(
            "CreateDIBitmap with a header and bits of different sizes".into(),
        ));
    }
    Ok(new_ddb(cx.proc, w, h, bpp, px))
}

/// CreateDIBSection: the bits are guest memory the program reads and writes directly,
/// and every GDI drawing call on the DC it is selected into goes through them.
pub fn create_dib_section(
    proc: &Process,
    hdc: u32,
    pbmi: u32,
    usage: u32,
) -> ApiResult<(u32, u32)> {
    let pal = dc_palette(proc, hdc);
    let info = dib::read_info(proc, pbmi, usage, &pal)?;
    let size = info.fmt.image_size() as u32;
    let bits = proc
        .vm
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .alloc(
            None,
            size.max(1),
            winterp_core::mem::Prot::RW,
            "DIB section",
        )
        .map_err(|e| ApiError::Other(format!("CreateDIBSection of {size} bytes: {e}")))?;
    let bpp = info.fmt.bpp;
    let h = proc.gdi32.lock().add_obj(Obj::Bitmap(Bitmap {
        width: info.fmt.width,
        height: info.fmt.height,
        bpp,
        store: Store::Dib {
            bits,
            fmt: info.fmt,
            owned: true,
        },
        selected_in: None,
    }));
    Ok((h, bits))
}

pub fn CreateDIBSection(
    cx: &mut Ctx,
    hdc: u32,
    pbmi: Ptr,
    usage: u32,
    ppvBits: Ptr,
    hSection: u32,
    offset: u32,
) -> ApiResult<u32> {
    if hSection != 0 {
        return Err(ApiError::UnimplementedCase(format!(
            "CreateDIBSection on a file mapping (hSection {hSection:#x}, offset {offset})"
        )));
    }
    let (h, bits) = create_dib_section(cx.proc, hdc, pbmi.0, usage)?;
    if !ppvBits.is_null() {
        cx.proc.mem.write_u32(ppvBits.0, bits)?;
    }
    Ok(h)
}

/// The bitmap object behind `h`, if it is one.
pub fn bitmap(proc: &Process, h: u32) -> Option<Bitmap> {
    match proc.gdi32.lock().objs.get(&h) {
        Some(Obj::Bitmap(b)) => Some(b.clone()),
        _ => None,
    }
}

/// Writes all pixels (rows top first) of a bitmap.
pub fn write_bitmap_pixels(proc: &Process, bm: &Bitmap, px: &[u32]) -> ApiResult<()> {
    match &bm.store {
        Store::Ddb(s) => {
            let mut s = s.lock().unwrap_or_else(|e| e.into_inner());
            let n = s.pixels.len().min(px.len());
            let mono = bm.mono();
            for (d, &p) in s.pixels[..n].iter_mut().zip(px) {
                *d = if mono {
                    raster::to_mono(p)
                } else {
                    p & 0xff_ffff
                };
            }
        }
        Store::Dib { bits, fmt, .. } => {
            let b = dib::encode_image(fmt, px);
            proc.mem.write_bytes(*bits, &b)?;
        }
    }
    Ok(())
}

/// Picture rows (top first) that DIB scan lines `start..start+lines` are: scan lines
/// count from the bottom in a bottom-up DIB and from the top in a top-down one.
fn scan_rows(height: i32, top_down: bool, start: u32, lines: u32) -> Vec<(usize, i32)> {
    let mut v = Vec::new();
    for k in 0..lines.min(height.max(0) as u32) {
        let scan = start + k;
        if scan >= height as u32 {
            break;
        }
        let row = if top_down {
            scan as i32
        } else {
            height - 1 - scan as i32
        };
        v.push((k as usize, row));
    }
    v
}

pub fn SetDIBits(
    cx: &mut Ctx,
    hdc: u32,
    hbm: u32,
    start: u32,
    cLines: u32,
    lpBits: Ptr,
    lpbmi: Ptr,
    ColorUse: u32,
) -> ApiResult<i32> {
    let Some(bm) = bitmap(cx.proc, hbm) else {
        return Ok(0);
    };
    let pal = dc_palette(cx.proc, hdc);
    let info = dib::read_info(cx.proc, lpbmi.0, ColorUse, &pal)?;
    let f = &info.fmt;
    // The bits hold `cLines` scan lines of the header's width.
    let band = DibFormat {
        height: cLines.min(f.height as u32) as i32,
        ..f.clone()
    };
    let bits = read_dib_bits(cx.proc, &band, lpBits.0)?;
    let mut px = read_bitmap_pixels(cx.proc, &bm)?;
    let mut n = 0;
    for (k, row) in scan_rows(bm.height, f.top_down, start, band.height as u32) {
        // Scan line k of the band, in the band's own storage order.
        let o = k * band.stride();
        let Some(src) = bits.get(o..o + band.stride()) else {
            break;
        };
        for x in 0..bm.width.min(f.width) as usize {
            px[row as usize * bm.width as usize + x] = f.get(src, x);
        }
        n += 1;
    }
    write_bitmap_pixels(cx.proc, &bm, &px)?;
    Ok(n)
}

pub fn GetDIBits(
    cx: &mut Ctx,
    _hdc: u32,
    hbm: u32,
    start: u32,
    cLines: u32,
    lpvBits: Ptr,
    lpbmi: Ptr,
    usage: u32,
) -> ApiResult<i32> {
    let Some(bm) = bitmap(cx.proc, hbm) else {
        return Ok(0);
    };
    let mem = &cx.proc.mem;
    let bitcount = mem.read_u16(lpbmi.0 + 14)?;
    let hsize = mem.read_u32(lpbmi.0)?;
    if hsize < 40 {
        return Err(ApiError::UnimplementedCase(format!(
            "GetDIBits with a {hsize}-byte header"
        )));
    }
    if bitcount == 0 {
        // Fill in the bitmap's own format.
        let (bpp, comp) = match &bm.store {
            Store::Dib { fmt, .. } => (fmt.bpp, fmt.compression),
            Store::Ddb(_) => (bm.bpp, dib::BI_RGB),
        };
        let f = DibFormat::new(bm.width, bm.height, false, bpp);
        mem.write_u32(lpbmi.0 + 4, bm.width as u32)?;
        mem.write_u32(lpbmi.0 + 8, bm.height as u32)?;
        mem.write_u16(lpbmi.0 + 12, 1)?;
        mem.write_u16(lpbmi.0 + 14, bpp)?;
        mem.write_u32(lpbmi.0 + 16, comp)?;
        mem.write_u32(lpbmi.0 + 20, f.image_size() as u32)?;
        for o in [24, 28, 32, 36] {
            mem.write_u32(lpbmi.0 + o, 0)?;
        }
        return Ok(1);
    }
    let width = mem.read_u32(lpbmi.0 + 4)? as i32;
    let height = mem.read_u32(lpbmi.0 + 8)? as i32;
    let comp = mem.read_u32(lpbmi.0 + 16)?;
    if !matches!(bitcount, 1 | 4 | 8 | 16 | 24 | 32) {
        return Ok(0);
    }
    let mut f = DibFormat::new(
        if width > 0 { width } else { bm.width },
        if height != 0 { height.abs() } else { bm.height },
        height < 0,
        bitcount,
    );
    if comp == dib::BI_BITFIELDS && bitcount == 16 {
        f.masks = [0xf800, 0x07e0, 0x001f];
        f.compression = comp;
    } else if comp == dib::BI_BITFIELDS && bitcount == 32 {
        f.compression = comp;
    } else if comp != dib::BI_RGB {
        return Err(ApiError::UnimplementedCase(format!(
            "GetDIBits into compression {comp}"
        )));
    }
    if bitcount <= 8 {
        f.colors = match &bm.store {
            Store::Dib { fmt, .. } if fmt.bpp == bitcount => fmt.colors.clone(),
            _ => standard_colors(bitcount),
        };
    }
    // Header fields GDI fills in, then the colour table or masks.
    mem.write_u32(lpbmi.0 + 20, f.image_size() as u32)?;
    let table = lpbmi.0 + hsize;
    if f.compression == dib::BI_BITFIELDS && hsize == 40 {
        for (i, m) in f.masks.iter().enumerate() {
            mem.write_u32(table + 4 * i as u32, *m)?;
        }
    } else if bitcount <= 8 {
        if usage == dib::DIB_PAL_COLORS {
            for i in 0..f.colors.len() as u32 {
                mem.write_u16(table + 2 * i, i as u16)?;
            }
        } else {
            for (i, c) in f.colors.iter().enumerate() {
                mem.write_u32(table + 4 * i as u32, *c)?;
            }
        }
    }
    if lpvBits.is_null() {
        return Ok(bm.height);
    }
    let px = read_bitmap_pixels(cx.proc, &bm)?;
    let stride = f.stride();
    let mut near = Nearest::default();
    let mut n = 0;
    let mut row_bytes = vec![0u8; stride];
    for (k, row) in scan_rows(f.height, f.top_down, start, cLines) {
        row_bytes.iter_mut().for_each(|b| *b = 0);
        if row < bm.height {
            for x in 0..f.width.min(bm.width) as usize {
                f.put(
                    &mut row_bytes,
                    x,
                    px[row as usize * bm.width as usize + x],
                    &mut near,
                );
            }
        }
        mem.write_bytes(lpvBits.0 + (k * stride) as u32, &row_bytes)?;
        n += 1;
    }
    Ok(n)
}

pub fn GetBitmapBits(cx: &mut Ctx, hbit: u32, cb: i32, lpvBits: Ptr) -> ApiResult<i32> {
    let Some(bm) = bitmap(cx.proc, hbit) else {
        return Ok(0);
    };
    let (_, stride) = ddb_format(bm.width, bm.bpp);
    if lpvBits.is_null() {
        return Ok((stride * bm.height as usize) as i32);
    }
    let rows = (cb.max(0) as usize / stride.max(1)).min(bm.height as usize);
    let px = read_bitmap_pixels(cx.proc, &bm)?;
    let b = encode_ddb_bits(bm.width, bm.bpp, &px, rows);
    cx.proc.mem.write_bytes(lpvBits.0, &b)?;
    Ok(b.len() as i32)
}

pub fn SetBitmapBits(cx: &mut Ctx, hbm: u32, cb: u32, pvBits: Ptr) -> ApiResult<i32> {
    let Some(bm) = bitmap(cx.proc, hbm) else {
        return Ok(0);
    };
    let (_, stride) = ddb_format(bm.width, bm.bpp);
    let rows = (cb as usize / stride.max(1)).min(bm.height as usize);
    let mut b = vec![0u8; rows * stride];
    cx.proc.mem.read_bytes(pvBits.0, &mut b)?;
    let new = decode_ddb_bits(bm.width, rows as i32, bm.bpp, &b);
    let mut px = read_bitmap_pixels(cx.proc, &bm)?;
    px[..new.len()].copy_from_slice(&new);
    write_bitmap_pixels(cx.proc, &bm, &px)?;
    Ok(b.len() as i32)
}

// ---- blits ----------------------------------------------------------------------------

/// Source pixels for a blit.
pub struct Source {
    pub w: i32,
    pub h: i32,
    pub px: Vec<u32>,
    pub mono: bool,
    /// The source DC's background colour (a colour-to-monochrome blit makes pixels of
    /// this colour white and all others black).
    pub bk: u32,
}

/// The heart of BitBlt, StretchBlt, PatBlt and the DIB-to-device calls: for each
/// destination pixel of `dst` (device coordinates; negative extents mirror), combine
/// pattern, source (stretched by nearest pixel) and destination with ROP3 `code`.
pub fn blit(
    proc: &Process,
    d: &DrawCtx,
    dst: (i32, i32, i32, i32),
    src: Option<(&Source, (i32, i32, i32, i32))>,
    code: u8,
) -> ApiResult<()> {
    blit_masked(proc, d, dst, src, code, None)
}

/// A mask for MaskBlt: a monochrome source whose (x, y) lines up with the
/// destination's top-left, and the ROP for its 0 pixels.
pub struct Mask<'a> {
    pub bits: &'a Source,
    pub x: i32,
    pub y: i32,
    pub background: u8,
}

/// [`blit`] where a mask chooses between `code` (mask 1) and the mask's background
/// ROP (mask 0) per pixel.
pub fn blit_masked(
    proc: &Process,
    d: &DrawCtx,
    dst: (i32, i32, i32, i32),
    src: Option<(&Source, (i32, i32, i32, i32))>,
    code: u8,
    mask: Option<Mask>,
) -> ApiResult<()> {
    let (dx, dy, dw, dh) = dst;
    if dw == 0 || dh == 0 {
        return Ok(());
    }
    // A negative extent runs back from the origin pixel, which it covers: x 3 with
    // width -3 is x 1..=3 (Windows' rule for mirrored blits).
    let span = |o: i32, n: i32| {
        if n < 0 {
            (o + n + 1, o + 1)
        } else {
            (o, o + n)
        }
    };
    let ((l, rr), (t, b)) = (span(dx, dw), span(dy, dh));
    let r = Rect::new(l, t, rr, b);
    let uses_p = raster::rop_uses_pattern(code)
        || mask
            .as_ref()
            .is_some_and(|m| raster::rop_uses_pattern(m.background));
    let text = cr_to_rgb(d.a.text_color & 0xff_ffff);
    let bkc = cr_to_rgb(d.a.bk_color & 0xff_ffff);
    // Nearest source pixel of each destination column and row (the centre of the
    // destination pixel mapped into the source; negative extents mirror), or -1
    // outside the source.
    let axis = |from: i32, n: i32, dn: i32, s0: i32, sn: i32, lim: i32| -> Vec<i64> {
        let an = dn.unsigned_abs() as i64;
        (from as i64..from as i64 + n as i64)
            .map(|i| {
                let mut si = ((2 * i + 1) * sn.unsigned_abs() as i64) / (2 * an);
                if (dn < 0) != (sn < 0) {
                    si = sn.unsigned_abs() as i64 - 1 - si;
                }
                let v = s0.min(s0.wrapping_add(sn)) as i64 + si;
                if v >= 0 && v < lim as i64 { v } else { -1 }
            })
            .collect()
    };
    with_raster(proc, d, r, |ras| {
        let a = r.intersect(&ras.area());
        if a.is_empty() {
            return;
        }
        let maps = src.map(|(s, (sx, sy, sw, sh))| {
            // Only the visible part of the destination needs a map.
            let xs = axis(a.left - r.left, a.width(), dw, sx, sw, s.w);
            let ys = axis(a.top - r.top, a.height(), dh, sy, sh, s.h);
            (s, xs, ys)
        });
        // SRCCOPY between two colour targets whose columns map onto one run of
        // source columns (no horizontal stretch or mirror: the blit of sprites and
        // back buffers): whole source rows, not a ROP per pixel. The maps say which
        // source row each destination row takes.
        if let Some((s, xs, ys)) = &maps
            && code == 0xcc
            && mask.is_none()
            && !s.mono
            && !d.mono
            && xs.iter().enumerate().all(|(k, &i)| i == xs[0] + k as i64)
            && xs[0] >= 0
            && ys.iter().all(|&j| j >= 0)
        {
            let (i0, n) = (xs[0] as usize, xs.len());
            for (y, &j) in (a.top..a.bottom).zip(ys) {
                let at = j as usize * s.w as usize + i0;
                ras.copy_span(y, a.left, &s.px[at..at + n]);
            }
            return;
        }
        for y in a.top..a.bottom {
            let row = maps
                .as_ref()
                .map(|(s, _, ys)| (s, ys[(y - a.top) as usize]));
            ras.span(y, a.left, a.right, |x, old| {
                let p = if uses_p {
                    raster::brush_pixel(d, &d.brush, x, y).unwrap_or(0)
                } else {
                    0
                };
                let s = match (&maps, row) {
                    (Some((_, xs, _)), Some((s, j))) => {
                        let i = xs[(x - a.left) as usize];
                        let v = if i >= 0 && j >= 0 {
                            s.px[(j * s.w as i64 + i) as usize]
                        } else {
                            0
                        };
                        if s.mono && !d.mono {
                            if v == 0 { text } else { bkc }
                        } else if !s.mono && d.mono {
                            if v == s.bk { 0xff_ffff } else { 0 }
                        } else {
                            v
                        }
                    }
                    _ => 0,
                };
                let c = match &mask {
                    Some(m) => {
                        let (mx, my) = (m.x + (x - r.left), m.y + (y - r.top));
                        let on = mx >= 0
                            && my >= 0
                            && mx < m.bits.w
                            && my < m.bits.h
                            && m.bits.px[(my * m.bits.w + mx) as usize] != 0;
                        if on { code } else { m.background }
                    }
                    None => code,
                };
                raster::rop3(c, p, s, old)
            });
        }
    })
}

/// Reads a source rectangle (device coordinates) from a DC for a blit, as a Source
/// whose (0, 0) is the rectangle's top-left.
fn source_from_dc(proc: &Process, s: &DrawCtx, r: Rect) -> ApiResult<Source> {
    Ok(Source {
        w: r.width(),
        h: r.height(),
        px: read_area(proc, s, r)?,
        mono: s.mono,
        bk: s.color(s.a.bk_color),
    })
}

fn rop_code(rop: u32) -> u8 {
    (rop >> 16) as u8
}

pub fn stretch_blt(
    proc: &Process,
    hdcDest: u32,
    dst: (i32, i32, i32, i32),
    hdcSrc: u32,
    src: (i32, i32, i32, i32),
    rop: u32,
) -> ApiResult<bool> {
    let Some(d) = dc::resolve(proc, hdcDest) else {
        return Ok(false);
    };
    let code = rop_code(rop);
    let ddst = d.extent_to_dev(dst.0, dst.1, dst.2, dst.3);
    if !raster::rop_uses_source(code) {
        blit(proc, &d, ddst, None, code)?;
        return Ok(true);
    }
    let Some(s) = dc::resolve(proc, hdcSrc) else {
        return Ok(false);
    };
    let (sl, st, sw, sh) = s.extent_to_dev(src.0, src.1, src.2, src.3);
    let sr = Rect::new(
        sl.min(sl + sw),
        st.min(st + sh),
        sl.max(sl + sw),
        st.max(st + sh),
    );
    let source = source_from_dc(proc, &s, sr)?;
    // The Source's origin is the rectangle's corner; keep the signs for mirroring.
    let rel = (
        if sw < 0 { -sw } else { 0 },
        if sh < 0 { -sh } else { 0 },
        sw,
        sh,
    );
    blit(proc, &d, ddst, Some((&source, rel)), code)?;
    Ok(true)
}

pub fn BitBlt(
    cx: &mut Ctx,
    hdc: u32,
    x: i32,
    y: i32,
    cx_: i32,
    cy: i32,
    hdcSrc: u32,
    x1: i32,
    y1: i32,
    rop: u32,
) -> ApiResult<bool> {
    stretch_blt(
        cx.proc,
        hdc,
        (x, y, cx_, cy),
        hdcSrc,
        (x1, y1, cx_, cy),
        rop,
    )
}

pub fn StretchBlt(
    cx: &mut Ctx,
    hdcDest: u32,
    xDest: i32,
    yDest: i32,
    wDest: i32,
    hDest: i32,
    hdcSrc: u32,
    xSrc: i32,
    ySrc: i32,
    wSrc: i32,
    hSrc: i32,
    rop: u32,
) -> ApiResult<bool> {
    stretch_blt(
        cx.proc,
        hdcDest,
        (xDest, yDest, wDest, hDest),
        hdcSrc,
        (xSrc, ySrc, wSrc, hSrc),
        rop,
    )
}

pub fn PatBlt(cx: &mut Ctx, hdc: u32, x: i32, y: i32, w: i32, h: i32, rop: u32) -> ApiResult<bool> {
    let code = rop_code(rop);
    if raster::rop_uses_source(code) {
        return Ok(false);
    }
    stretch_blt(cx.proc, hdc, (x, y, w, h), 0, (0, 0, 0, 0), rop)
}

/// A DIB in guest memory as a blit source (rows top first). Only scan lines
/// `start..start+lines` are present in `bits`; the others read as black.
fn dib_source(
    proc: &Process,
    hdc: u32,
    bits: u32,
    bmi: u32,
    usage: u32,
    start: u32,
    lines: u32,
) -> ApiResult<(Source, DibFormat)> {
    let pal = dc_palette(proc, hdc);
    let info = dib::read_info(proc, bmi, usage, &pal)?;
    let f = info.fmt;
    let n = lines.min(f.height as u32);
    let band = DibFormat {
        height: n as i32,
        ..f.clone()
    };
    let raw = read_dib_bits(proc, &band, bits)?;
    let mut px = vec![0u32; (f.width * f.height) as usize];
    for (k, row) in scan_rows(f.height, f.top_down, start, n) {
        let o = k * band.stride();
        let src = &raw[o..o + band.stride()];
        for x in 0..f.width as usize {
            px[row as usize * f.width as usize + x] = f.get(src, x);
        }
    }
    Ok((
        Source {
            w: f.width,
            h: f.height,
            px,
            mono: false,
            bk: 0,
        },
        f,
    ))
}

/// A DIB source rectangle's top row: for bottom-up DIBs the y given is counted from
/// the picture's bottom edge (the source origin is the lower-left corner).
fn dib_src_top(f: &DibFormat, ySrc: i32, h: i32) -> i32 {
    if f.top_down {
        ySrc
    } else {
        f.height - ySrc - h
    }
}

fn set_dibits_to_device(cx: &mut Ctx, a: &[u32]) -> ApiResult<u32> {
    let (hdc, xd, yd, w, h, xs, ys, start, lines, bits, bmi, usage) = (
        a[0],
        a[1] as i32,
        a[2] as i32,
        a[3] as i32,
        a[4] as i32,
        a[5] as i32,
        a[6] as i32,
        a[7],
        a[8],
        a[9],
        a[10],
        a[11],
    );
    let Some(d) = dc::resolve(cx.proc, hdc) else {
        return Ok(0);
    };
    let (src, f) = dib_source(cx.proc, hdc, bits, bmi, usage, start, lines)?;
    let top = dib_src_top(&f, ys, h);
    // The destination is a logical point but the size is in device pixels: the
    // bits are copied one to one.
    let (dl, dt) = d.to_dev(xd, yd);
    blit(
        cx.proc,
        &d,
        (dl, dt, w, h),
        Some((&src, (xs, top, w, h))),
        0xcc,
    )?;
    Ok(lines.min(f.height as u32))
}

/// SetDIBitsToDevice's 12 arguments and StretchDIBits' 13 come as plain dwords.
pub fn SetDIBitsToDevice(cx: &mut Ctx, a: Dwords<12>) -> ApiResult<u32> {
    set_dibits_to_device(cx, &a.0)
}

fn stretch_dibits(cx: &mut Ctx, a: &[u32]) -> ApiResult<u32> {
    let (hdc, xd, yd, wd, hd, xs, ys, ws, hs, bits, bmi, usage, rop) = (
        a[0],
        a[1] as i32,
        a[2] as i32,
        a[3] as i32,
        a[4] as i32,
        a[5] as i32,
        a[6] as i32,
        a[7] as i32,
        a[8] as i32,
        a[9],
        a[10],
        a[11],
        a[12],
    );
    let Some(d) = dc::resolve(cx.proc, hdc) else {
        return Ok(0);
    };
    let code = rop_code(rop);
    let (dl, dt, wd, hd) = d.extent_to_dev(xd, yd, wd, hd);
    if !raster::rop_uses_source(code) || bits == 0 {
        blit(cx.proc, &d, (dl, dt, wd, hd), None, code)?;
        return Ok(hd.unsigned_abs());
    }
    let pal = d.palette.clone();
    let info = dib::read_info(cx.proc, bmi, usage, &pal)?;
    let (src, f) = dib_source(cx.proc, hdc, bits, bmi, usage, 0, info.fmt.height as u32)?;
    let top = dib_src_top(&f, ys.min(ys + hs), hs.abs());
    let rel = (xs, top + if hs < 0 { hs.abs() } else { 0 }, ws, hs);
    blit(cx.proc, &d, (dl, dt, wd, hd), Some((&src, rel)), code)?;
    Ok(f.height as u32)
}

pub fn StretchDIBits(cx: &mut Ctx, a: Dwords<13>) -> ApiResult<u32> {
    stretch_dibits(cx, &a.0)
}

/// The DIB section selected into a memory DC.
fn selected_dib(proc: &Process, hdc: u32) -> Option<u32> {
    let g = proc.gdi32.lock();
    let d = g.dcs.get(&hdc)?;
    match g.objs.get(&d.a.bitmap)? {
        Obj::Bitmap(Bitmap {
            store: Store::Dib { .. },
            ..
        }) => Some(d.a.bitmap),
        _ => None,
    }
}

pub fn SetDIBColorTable(
    cx: &mut Ctx,
    hdc: u32,
    iStart: u32,
    cEntries: u32,
    prgbq: Ptr,
) -> ApiResult<u32> {
    let Some(h) = selected_dib(cx.proc, hdc) else {
        return Ok(0);
    };
    let mut vals = Vec::new();
    for i in 0..cEntries.min(256) {
        vals.push(cx.proc.mem.read_u32(prgbq.0 + 4 * i)? & 0xff_ffff);
    }
    let mut g = cx.proc.gdi32.lock();
    let Some(Obj::Bitmap(Bitmap {
        store: Store::Dib { fmt, .. },
        ..
    })) = g.objs.get_mut(&h)
    else {
        return Ok(0);
    };
    let mut n = 0;
    for (k, v) in vals.into_iter().enumerate() {
        let i = iStart as usize + k;
        if let Some(slot) = fmt.colors.get_mut(i) {
            // RGBQUAD is blue, green, red: as a little-endian dword that is 0x00RRGGBB.
            *slot = v;
            n += 1;
        }
    }
    Ok(n)
}

pub fn GetDIBColorTable(
    cx: &mut Ctx,
    hdc: u32,
    iStart: u32,
    cEntries: u32,
    prgbq: Ptr,
) -> ApiResult<u32> {
    let Some(h) = selected_dib(cx.proc, hdc) else {
        return Ok(0);
    };
    let colors = match bitmap(cx.proc, h).map(|b| b.store) {
        Some(Store::Dib { fmt, .. }) => fmt.colors,
        _ => return Ok(0),
    };
    let mut n = 0;
    for k in 0..cEntries {
        let Some(&c) = colors.get((iStart + k) as usize) else {
            break;
        };
        cx.proc.mem.write_u32(prgbq.0 + 4 * k, c)?;
        n += 1;
    }
    Ok(n)
}

pub fn GetBitmapDimensionEx(cx: &mut Ctx, hbm: u32, lpSize: Ptr) -> ApiResult<bool> {
    if bitmap(cx.proc, hbm).is_none() {
        return Ok(false);
    }
    cx.proc.mem.write_u32(lpSize.0, 0)?;
    cx.proc.mem.write_u32(lpSize.0 + 4, 0)?;
    Ok(true)
}

/// MaskBlt: ROP `dwRop`'s low index byte applies where the monochrome mask is 1 and
/// its high byte (MAKEROP4's background ROP) where it is 0.
pub fn MaskBlt(
    cx: &mut Ctx,
    hdcDest: u32,
    xDest: i32,
    yDest: i32,
    width: i32,
    height: i32,
    hdcSrc: u32,
    xSrc: i32,
    ySrc: i32,
    hbmMask: u32,
    xMask: i32,
    yMask: i32,
    rop: u32,
) -> ApiResult<bool> {
    let (fore, back) = (rop_code(rop), (rop >> 24) as u8);
    if hbmMask == 0 {
        return stretch_blt(
            cx.proc,
            hdcDest,
            (xDest, yDest, width, height),
            hdcSrc,
            (xSrc, ySrc, width, height),
            rop,
        );
    }
    let Some(mbm) = bitmap(cx.proc, hbmMask) else {
        return Ok(false);
    };
    if !mbm.mono() {
        return Ok(false);
    }
    let Some(d) = dc::resolve(cx.proc, hdcDest) else {
        return Ok(false);
    };
    let mask_src = Source {
        w: mbm.width,
        h: mbm.height,
        px: read_bitmap_pixels(cx.proc, &mbm)?,
        mono: true,
        bk: 0xff_ffff,
    };
    let source = if raster::rop_uses_source(fore) || raster::rop_uses_source(back) {
        let Some(s) = dc::resolve(cx.proc, hdcSrc) else {
            return Ok(false);
        };
        let (sl, st) = s.to_dev(xSrc, ySrc);
        Some(source_from_dc(
            cx.proc,
            &s,
            Rect::new(sl, st, sl + width, st + height),
        )?)
    } else {
        None
    };
    let (dl, dt) = d.to_dev(xDest, yDest);
    let mask = Mask {
        bits: &mask_src,
        x: xMask,
        y: yMask,
        background: back,
    };
    blit_masked(
        cx.proc,
        &d,
        (dl, dt, width, height),
        source.as_ref().map(|s| (s, (0, 0, width, height))),
        fore,
        Some(mask),
    )?;
    Ok(true)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("CreateBitmap", CreateBitmap),
        stdcall("CreateBitmapIndirect", CreateBitmapIndirect),
        stdcall("CreateCompatibleBitmap", CreateCompatibleBitmap),
        stdcall("CreateDiscardableBitmap", CreateCompatibleBitmap),
        stdcall("CreateDIBitmap", CreateDIBitmap),
        stdcall("CreateDIBSection", CreateDIBSection),
        stdcall("SetDIBits", SetDIBits),
        stdcall("GetDIBits", GetDIBits),
        stdcall("GetBitmapBits", GetBitmapBits),
        stdcall("SetBitmapBits", SetBitmapBits),
        stdcall("BitBlt", BitBlt),
        stdcall("StretchBlt", StretchBlt),
        stdcall("MaskBlt", MaskBlt),
        stdcall("PatBlt", PatBlt),
        stdcall("SetDIBitsToDevice", SetDIBitsToDevice),
        stdcall("StretchDIBits", StretchDIBits),
        stdcall("SetDIBColorTable", SetDIBColorTable),
        stdcall("GetDIBColorTable", GetDIBColorTable),
        stdcall("GetBitmapDimensionEx", GetBitmapDimensionEx),
    ]
}
