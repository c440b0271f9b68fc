//! Icons and cursors with their pictures: loading from RT_GROUP_ICON/RT_GROUP_CURSOR
//! resources (the best entry for the size and the display's depth), the system
//! icons and cursors ([`super::sysicons`]), the constructors (CreateCursor,
//! CreateIcon, CreateIconIndirect, CreateIconFromResource(Ex), CopyIcon),
//! GetIconInfo, DrawIcon/DrawIconEx through GDI32's blitter, and DestroyIcon.
//!
//! An icon is a colour (XOR) image and a 1-bit AND mask of the same size: drawing
//! ANDs the mask onto the screen, then XORs the image (so mask 1 + black keeps the
//! screen, mask 1 + white inverts it, mask 0 paints the colour). A monochrome icon or
//! cursor keeps its XOR image as black and white only, and GetIconInfo hands it out
//! as one double-height mask bitmap, as Windows does.

// Win32 signatures are fixed by the API, however many parameters they take.
#![allow(clippy::too_many_arguments)]

use super::sysicons;
use super::wm::UserObj;
use super::{NameOrId, lock_wm, str_or_atom};
use crate::gdi32::bitmap::{self, Source};
use crate::gdi32::raster;
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Ptr, stdcall};
use crate::process::Process;
use std::sync::Arc;

#[cfg(test)]
mod tests;

const RT_CURSOR: u16 = 1;
const RT_ICON: u16 = 3;
const RT_GROUP_CURSOR: u16 = 12;
const RT_GROUP_ICON: u16 = 14;

pub const LR_MONOCHROME: u32 = 0x0001;
pub const LR_DEFAULTSIZE: u32 = 0x0040;
pub const LR_SHARED: u32 = 0x8000;

const DI_MASK: u32 = 0x1;
const DI_IMAGE: u32 = 0x2;
const DI_NORMAL: u32 = 0x3;
const DI_COMPAT: u32 = 0x4;
const DI_DEFAULTSIZE: u32 = 0x8;

const ERROR_INVALID_PARAMETER: u32 = 87;
const ERROR_RESOURCE_NAME_NOT_FOUND: u32 = 1814;
const ERROR_INVALID_CURSOR_HANDLE: u32 = 1402;

/// SM_CXICON/SM_CYICON and SM_CXCURSOR/SM_CYCURSOR.
const SYSTEM_SIZE: i32 = 32;

/// The ROP3 codes of SRCCOPY, SRCAND and SRCINVERT.
const ROP_SRCCOPY: u8 = 0xcc;
const ROP_SRCAND: u8 = 0x88;
const ROP_SRCINVERT: u8 = 0x66;

/// An icon's or cursor's picture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IconImage {
    pub width: i32,
    pub height: i32,
    /// The hot spot; an icon's is its centre.
    pub hotspot: (i32, i32),
    pub is_icon: bool,
    /// The XOR image holds only black and white and has no colour bitmap of its own.
    pub mono: bool,
    /// The XOR image, rows top first, 0x00RRGGBB. A colour resource of any depth
    /// (1/4/8/16/24/32 bpp) is decoded into it; a 32-bpp image's alpha channel is
    /// not kept (Windows 9x draws such icons through their mask as well).
    pub color: Vec<u32>,
    /// The AND mask, rows top first: true where the screen is kept.
    pub mask: Vec<bool>,
}

impl IconImage {
    /// The picture resized to `w`x`h` by nearest pixel (the mapping GDI32's
    /// StretchBlt uses), with a cursor's hot spot moved along.
    fn scaled(&self, w: i32, h: i32) -> IconImage {
        if (w, h) == (self.width, self.height) {
            return self.clone();
        }
        let xs = nearest(w, self.width);
        let ys = nearest(h, self.height);
        let mut color = Vec::with_capacity((w * h) as usize);
        let mut mask = Vec::with_capacity((w * h) as usize);
        for &sy in &ys {
            for &sx in &xs {
                let i = (sy * self.width + sx) as usize;
                color.push(self.color[i]);
                mask.push(self.mask[i]);
            }
        }
        let hotspot = if self.is_icon {
            (w / 2, h / 2)
        } else {
            (
                self.hotspot.0 * w / self.width.max(1),
                self.hotspot.1 * h / self.height.max(1),
            )
        };
        IconImage {
            width: w,
            height: h,
            hotspot,
            is_icon: self.is_icon,
            mono: self.mono,
            color,
            mask,
        }
    }

    /// The picture turned into black and white (LR_MONOCHROME).
    fn monochrome(mut self) -> IconImage {
        if !self.mono {
            for c in &mut self.color {
                *c = raster::to_mono(*c);
            }
            self.mono = true;
        }
        self
    }

    /// The mask as pixels: white for 1 bits, black for 0 bits.
    fn mask_pixels(&self) -> Vec<u32> {
        self.mask
            .iter()
            .map(|&m| if m { 0xff_ffff } else { 0 })
            .collect()
    }
}

/// For each of `n` destination pixels, the source pixel (of `src`) whose area holds
/// the destination pixel's centre.
fn nearest(n: i32, src: i32) -> Vec<i32> {
    (0..n as i64)
        .map(|i| (((2 * i + 1) * src as i64) / (2 * n as i64)) as i32)
        .collect()
}

/// What makes LoadIcon/LoadImage(LR_SHARED) hand out the same handle again: the
/// module, the resource and the size it was made at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedKey {
    module: u32,
    name: String,
    cursor: bool,
    entry: u16,
    size: (i32, i32),
    mono: bool,
}

// ---- handles ------------------------------------------------------------------------

/// Handles of the system icons and cursors (IDI_*, IDC_* = 32512 and up): fixed
/// values outside USER32's object table, so LoadIcon(NULL, ...) always gives the
/// same handle, as on Windows.
pub fn system_handle(id: u16, cursor: bool) -> u32 {
    (if cursor { 0x0002_0000 } else { 0x0002_8000 }) | id as u32
}

/// The (id, is a cursor) of a system icon or cursor handle.
fn system_id(h: u32) -> Option<(u16, bool)> {
    if h >> 16 != 2 {
        return None;
    }
    let low = (h & 0xffff) as u16;
    Some((low & 0x7fff, low & 0x8000 == 0))
}

/// The picture behind an icon or cursor handle.
pub fn icon_image(proc: &Process, h: u32) -> Option<Arc<IconImage>> {
    if let Some((id, cursor)) = system_id(h) {
        return sysicons::image(id, cursor);
    }
    match lock_wm(proc).objs.get(&h) {
        Some(UserObj::Icon { image, .. }) => Some(image.clone()),
        _ => None,
    }
}

fn new_icon(proc: &Process, image: IconImage, shared: Option<SharedKey>) -> u32 {
    lock_wm(proc).alloc_obj(UserObj::Icon {
        image: Arc::new(image),
        shared,
    })
}

fn find_shared(proc: &Process, key: &SharedKey) -> Option<u32> {
    lock_wm(proc).objs.iter().find_map(|(h, o)| match o {
        UserObj::Icon {
            shared: Some(k), ..
        } if k == key => Some(*h),
        _ => None,
    })
}

// ---- resources ----------------------------------------------------------------------

/// One entry of a GRPICONDIR / cursor group directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirEntry {
    pub width: i32,
    pub height: i32,
    pub bits: u16,
    /// The RT_ICON / RT_CURSOR resource id.
    pub id: u16,
}

fn u16_at(b: &[u8], o: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*b.get(o)?, *b.get(o + 1)?]))
}

/// Parses a resource group directory: a 6-byte header (reserved, type 1 for icons
/// or 2 for cursors, count) and 14-byte entries. Icon entries hold byte sizes
/// (0 meaning 256) and a colour count; cursor entries hold word sizes whose height
/// counts both the image and the mask.
pub fn parse_directory(b: &[u8], is_icon: bool) -> Option<Vec<DirEntry>> {
    if u16_at(b, 0)? != 0 || !matches!(u16_at(b, 2)?, 1 | 2) {
        return None;
    }
    let n = u16_at(b, 4)? as usize;
    let mut v = Vec::with_capacity(n);
    for k in 0..n {
        let e = b.get(6 + 14 * k..6 + 14 * (k + 1))?;
        let bits = u16::from_le_bytes([e[6], e[7]]);
        let id = u16::from_le_bytes([e[12], e[13]]);
        let (width, height, bits) = if is_icon {
            let side = |v: u8| if v == 0 { 256 } else { v as i32 };
            // Old resources leave the bit count 0 and give only the colour count.
            let bits = match (bits, e[2]) {
                (0, 2) => 1,
                (0, 16) => 4,
                (0, _) => 8,
                (b, _) => b,
            };
            (side(e[0]), side(e[1]), bits)
        } else {
            let w = u16::from_le_bytes([e[0], e[1]]) as i32;
            let h = u16::from_le_bytes([e[2], e[3]]) as i32;
            (w, if h == 2 * w { w } else { h }, bits)
        };
        v.push(DirEntry {
            width,
            height,
            bits,
            id,
        });
    }
    Some(v)
}

/// The entry LoadImage / LookupIconIdFromDirectoryEx picks for a `cx`x`cy` request
/// on a display of `depth` bits. A 0 size is the system size with LR_DEFAULTSIZE,
/// otherwise the first entry's. Icons: the entry nearest in size (sum of the width
/// and height differences), then the deepest colour not exceeding the display's
/// (or, if all exceed it, the shallowest). Cursors: the largest not exceeding the
/// request, else the smallest larger one; the deeper of equal sizes.
pub fn best_entry(
    entries: &[DirEntry],
    is_icon: bool,
    cx: i32,
    cy: i32,
    depth: u16,
    flags: u32,
) -> Option<usize> {
    let first = entries.first()?;
    let (mut cx, mut cy) = (cx, cy);
    if flags & LR_DEFAULTSIZE != 0 {
        if cx == 0 {
            cx = SYSTEM_SIZE;
        }
        if cy == 0 {
            cy = SYSTEM_SIZE;
        }
    } else if cx == 0 && cy == 0 {
        (cx, cy) = (first.width, first.height);
    }
    let depth = if flags & LR_MONOCHROME != 0 { 1 } else { depth };
    let better_depth = |new: u16, old: u16| {
        if flags & LR_MONOCHROME != 0 {
            new < old
        } else if (new <= depth) != (old <= depth) {
            new <= depth
        } else if new <= depth {
            new > old
        } else {
            new < old
        }
    };
    if is_icon {
        let diff = |e: &DirEntry| (e.width - cx).abs() + (e.height - cy).abs();
        let best = entries.iter().map(diff).min()?;
        let mut pick: Option<usize> = None;
        for (i, e) in entries.iter().enumerate() {
            if diff(e) == best && pick.is_none_or(|p| better_depth(e.bits, entries[p].bits)) {
                pick = Some(i);
            }
        }
        return pick;
    }
    let mut pick: Option<usize> = None;
    let bigger = |a: &DirEntry, b: &DirEntry| a.width > b.width || a.height > b.height;
    for (i, e) in entries.iter().enumerate() {
        if e.width > cx || e.height > cy {
            continue;
        }
        pick = match pick {
            None => Some(i),
            Some(p) if bigger(e, &entries[p]) => Some(i),
            Some(p)
                if (e.width, e.height) == (entries[p].width, entries[p].height)
                    && better_depth(e.bits, entries[p].bits) =>
            {
                Some(i)
            }
            keep => keep,
        };
    }
    if pick.is_some() {
        return pick;
    }
    for (i, e) in entries.iter().enumerate() {
        pick = match pick {
            None => Some(i),
            Some(p) if bigger(&entries[p], e) => Some(i),
            keep => keep,
        };
    }
    pick
}

/// Decodes an RT_ICON / RT_CURSOR image (a cursor's without its two hot spot words):
/// a BITMAPINFOHEADER whose height counts the XOR image and the AND mask, the colour
/// table, the XOR rows and the 1-bpp mask rows, both bottom-up. `size` 0 keeps the
/// image's own width or height; another size stretches the picture. None when the
/// data is malformed (the API then fails, as Windows does).
pub fn decode(
    data: &[u8],
    is_icon: bool,
    hotspot: (i32, i32),
    size: (i32, i32),
) -> ApiResult<Option<IconImage>> {
    use crate::gdi32::dib::{self, DibFormat};
    if data.starts_with(b"\x89PNG") {
        return Err(ApiError::UnimplementedCase(
            "PNG-compressed icon images (Windows Vista icons)".into(),
        ));
    }
    let Ok(info) = dib::parse_info(data, dib::DIB_RGB_COLORS, &[]) else {
        return Ok(None);
    };
    let (w, h) = (info.fmt.width, info.fmt.height / 2);
    if h == 0 {
        return Ok(None);
    }
    let xor_fmt = DibFormat {
        height: h,
        ..info.fmt.clone()
    };
    let xor_end = info.header_len + xor_fmt.image_size();
    let Some(xor_bits) = data.get(info.header_len..xor_end) else {
        return Ok(None);
    };
    let color = dib::decode_image(&xor_fmt, xor_bits)?;
    let mut mask_fmt = DibFormat::new(w, h, xor_fmt.top_down, 1);
    mask_fmt.colors = vec![0, 0xff_ffff];
    // A resource cut short after its colour image has no mask: all of it is opaque
    // (Windows and Wine accept such icons).
    let mask = match data.get(xor_end..xor_end + mask_fmt.image_size()) {
        Some(bits) => dib::decode_image(&mask_fmt, bits)?
            .into_iter()
            .map(|p| p != 0)
            .collect(),
        None => vec![false; (w * h) as usize],
    };
    // A 1-bpp image whose colours are exactly black then white is a monochrome icon.
    let mono = xor_fmt.bpp == 1 && info.raw_colors == [0, 0x00ff_ffff];
    let image = IconImage {
        width: w,
        height: h,
        hotspot: if is_icon { (w / 2, h / 2) } else { hotspot },
        is_icon,
        mono,
        color,
        mask,
    };
    let (tw, th) = (
        if size.0 == 0 { w } else { size.0 },
        if size.1 == 0 { h } else { size.1 },
    );
    Ok(Some(image.scaled(tw, th)))
}

/// Splits an RT_CURSOR resource into its hot spot and image.
fn cursor_parts(data: &[u8]) -> Option<((i32, i32), &[u8])> {
    Some((
        (u16_at(data, 0)? as i32, u16_at(data, 2)? as i32),
        data.get(4..)?,
    ))
}

fn display_depth(proc: &Process) -> u16 {
    proc.display.mode().bpp as u16
}

/// LoadIcon, LoadCursor and LoadImage(IMAGE_ICON / IMAGE_CURSOR) from module `h`
/// (0: the system's).
pub fn load(
    cx: &mut Ctx,
    h: u32,
    name: &NameOrId,
    cursor: bool,
    want: (i32, i32),
    flags: u32,
) -> ApiResult<u32> {
    if h == 0 {
        return load_system(cx, name, cursor, want, flags);
    }
    let group_type = if cursor {
        RT_GROUP_CURSOR
    } else {
        RT_GROUP_ICON
    };
    let not_found = |cx: &mut Ctx| -> ApiResult<u32> {
        crate::teb::set_last_error(cx, ERROR_RESOURCE_NAME_NOT_FOUND)?;
        Ok(0)
    };
    let Some(dir) = super::res::resource(cx, h, group_type, name)? else {
        return not_found(cx);
    };
    let Some(entries) = parse_directory(&dir, !cursor) else {
        return not_found(cx);
    };
    let depth = display_depth(cx.proc);
    let Some(pick) = best_entry(&entries, !cursor, want.0, want.1, depth, flags) else {
        return not_found(cx);
    };
    let entry = entries[pick];
    // The size the icon is made at: as asked, the system size with LR_DEFAULTSIZE,
    // else the chosen image's own.
    let size = (
        if want.0 == 0 && flags & LR_DEFAULTSIZE != 0 {
            SYSTEM_SIZE
        } else {
            want.0
        },
        if want.1 == 0 && flags & LR_DEFAULTSIZE != 0 {
            SYSTEM_SIZE
        } else {
            want.1
        },
    );
    let key = SharedKey {
        module: super::res::module(cx, h),
        name: match name {
            NameOrId::Id(i) => format!("#{i}"),
            NameOrId::Name(s) => s.to_uppercase(),
        },
        cursor,
        entry: entry.id,
        size,
        mono: flags & LR_MONOCHROME != 0,
    };
    if flags & LR_SHARED != 0
        && let Some(existing) = find_shared(cx.proc, &key)
    {
        return Ok(existing);
    }
    let image_type = if cursor { RT_CURSOR } else { RT_ICON };
    let Some(data) = super::res::resource(cx, h, image_type, &NameOrId::Id(entry.id))? else {
        return not_found(cx);
    };
    let (hotspot, bits) = if cursor {
        match cursor_parts(&data) {
            Some(p) => p,
            None => return not_found(cx),
        }
    } else {
        ((0, 0), &data[..])
    };
    let Some(mut image) = decode(bits, !cursor, hotspot, size)? else {
        return not_found(cx);
    };
    if flags & LR_MONOCHROME != 0 {
        image = image.monochrome();
    }
    let shared = (flags & LR_SHARED != 0).then_some(key);
    Ok(new_icon(cx.proc, image, shared))
}

/// A system icon or cursor: its fixed handle at the system size, a resized copy at
/// any other.
fn load_system(
    cx: &mut Ctx,
    name: &NameOrId,
    cursor: bool,
    want: (i32, i32),
    flags: u32,
) -> ApiResult<u32> {
    let image = match name {
        NameOrId::Id(id) => sysicons::image(*id, cursor),
        NameOrId::Name(_) => None,
    };
    let (Some(image), NameOrId::Id(id)) = (image, name) else {
        crate::teb::set_last_error(cx, ERROR_RESOURCE_NAME_NOT_FOUND)?;
        return Ok(0);
    };
    let size = (
        if want.0 == 0 { SYSTEM_SIZE } else { want.0 },
        if want.1 == 0 { SYSTEM_SIZE } else { want.1 },
    );
    let mono = flags & LR_MONOCHROME != 0 && !image.mono;
    if size == (SYSTEM_SIZE, SYSTEM_SIZE) && !mono {
        return Ok(system_handle(*id, cursor));
    }
    let key = SharedKey {
        module: 0,
        name: format!("#{id}"),
        cursor,
        entry: *id,
        size,
        mono,
    };
    if flags & LR_SHARED != 0
        && let Some(existing) = find_shared(cx.proc, &key)
    {
        return Ok(existing);
    }
    let mut img = image.scaled(size.0, size.1);
    if mono {
        img = img.monochrome();
    }
    let shared = (flags & LR_SHARED != 0).then_some(key);
    Ok(new_icon(cx.proc, img, shared))
}

pub fn LoadIconA(cx: &mut Ctx, hInstance: u32, lpIconName: u32) -> ApiResult<u32> {
    let n = str_or_atom(cx, lpIconName, false)?;
    load(cx, hInstance, &n, false, (0, 0), LR_SHARED | LR_DEFAULTSIZE)
}
pub fn LoadIconW(cx: &mut Ctx, hInstance: u32, lpIconName: u32) -> ApiResult<u32> {
    let n = str_or_atom(cx, lpIconName, true)?;
    load(cx, hInstance, &n, false, (0, 0), LR_SHARED | LR_DEFAULTSIZE)
}
pub fn LoadCursorA(cx: &mut Ctx, hInstance: u32, lpCursorName: u32) -> ApiResult<u32> {
    let n = str_or_atom(cx, lpCursorName, false)?;
    load(cx, hInstance, &n, true, (0, 0), LR_SHARED | LR_DEFAULTSIZE)
}
pub fn LoadCursorW(cx: &mut Ctx, hInstance: u32, lpCursorName: u32) -> ApiResult<u32> {
    let n = str_or_atom(cx, lpCursorName, true)?;
    load(cx, hInstance, &n, true, (0, 0), LR_SHARED | LR_DEFAULTSIZE)
}

// ---- constructors -------------------------------------------------------------------

/// Reads `len` bytes of guest memory at `p`, faulting as Windows would on a bad
/// pointer.
fn read(cx: &Ctx, p: u32, len: usize) -> ApiResult<Vec<u8>> {
    let mut b = vec![0u8; len];
    cx.proc.mem.read_bytes(p, &mut b)?;
    Ok(b)
}

/// CreateCursor / CreateIcon's planes: device-dependent rows, top first, padded to
/// 16 bits, as pixels.
fn ddb_plane(cx: &Ctx, p: u32, w: i32, h: i32, bpp: u16) -> ApiResult<Vec<u32>> {
    let stride = (w as usize * bpp as usize).div_ceil(16) * 2;
    let b = read(cx, p, stride * h as usize)?;
    Ok(bitmap::decode_ddb_bits(w, h, bpp, &b))
}

fn invalid_parameter(cx: &mut Ctx) -> ApiResult<u32> {
    crate::teb::set_last_error(cx, ERROR_INVALID_PARAMETER)?;
    Ok(0)
}

/// Sizes CreateCursor and CreateIcon accept (Windows refuses absurd ones for want of
/// memory; no icon is larger than 256 on a side, cursors up to a few hundred).
fn valid_size(w: i32, h: i32) -> bool {
    (1..=4096).contains(&w) && (1..=4096).contains(&h)
}

/// A monochrome cursor from the program's AND and XOR planes. The owner module
/// mattered only to 16-bit Windows.
pub fn CreateCursor(
    cx: &mut Ctx,
    _hInst: u32,
    xHotSpot: i32,
    yHotSpot: i32,
    nWidth: i32,
    nHeight: i32,
    pvANDPlane: Ptr,
    pvXORPlane: Ptr,
) -> ApiResult<u32> {
    if !valid_size(nWidth, nHeight) || pvANDPlane.is_null() || pvXORPlane.is_null() {
        return invalid_parameter(cx);
    }
    let and = ddb_plane(cx, pvANDPlane.0, nWidth, nHeight, 1)?;
    let xor = ddb_plane(cx, pvXORPlane.0, nWidth, nHeight, 1)?;
    let image = IconImage {
        width: nWidth,
        height: nHeight,
        hotspot: (xHotSpot, yHotSpot),
        is_icon: false,
        mono: true,
        color: xor,
        mask: and.iter().map(|&p| p != 0).collect(),
    };
    Ok(new_icon(cx.proc, image, None))
}

/// An icon from a monochrome AND plane and an XOR plane of `cPlanes` x
/// `cBitsPixel` bits (device-dependent rows); a 1-bit XOR plane makes a
/// monochrome icon. The owner module mattered only to 16-bit Windows.
pub fn CreateIcon(
    cx: &mut Ctx,
    _hInstance: u32,
    nWidth: i32,
    nHeight: i32,
    cPlanes: u8,
    cBitsPixel: u8,
    lpbANDbits: Ptr,
    lpbXORbits: Ptr,
) -> ApiResult<u32> {
    if !valid_size(nWidth, nHeight) || lpbANDbits.is_null() || lpbXORbits.is_null() {
        return invalid_parameter(cx);
    }
    let bpp = match (cPlanes, cBitsPixel) {
        (1, b @ (1 | 4 | 8 | 16 | 24 | 32)) => b as u16,
        (p, b) => {
            return Err(ApiError::UnimplementedCase(format!(
                "CreateIcon with {p} planes of {b} bits"
            )));
        }
    };
    let and = ddb_plane(cx, lpbANDbits.0, nWidth, nHeight, 1)?;
    let xor = ddb_plane(cx, lpbXORbits.0, nWidth, nHeight, bpp)?;
    let image = IconImage {
        width: nWidth,
        height: nHeight,
        hotspot: (nWidth / 2, nHeight / 2),
        is_icon: true,
        mono: bpp == 1,
        color: xor,
        mask: and.iter().map(|&p| p != 0).collect(),
    };
    Ok(new_icon(cx.proc, image, None))
}

/// The pixels of a GDI bitmap, or None if `h` is not one.
fn bitmap_pixels(proc: &Process, h: u32) -> ApiResult<Option<(i32, i32, Vec<u32>)>> {
    let Some(bm) = bitmap::bitmap(proc, h) else {
        return Ok(None);
    };
    let px = bitmap::read_bitmap_pixels(proc, &bm)?;
    Ok(Some((bm.width, bm.height, px)))
}

/// A mask bitmap's pixel as a bit: GDI turns colour into monochrome by comparing
/// with the source's background colour (white in a fresh DC), so only white is 1.
fn mask_bit(p: u32) -> bool {
    p & 0xff_ffff == 0xff_ffff
}

/// The mask bitmap `mask` (mw x mh pixels) resized to `w`x`h`, as bits.
fn mask_bits(mw: i32, mh: i32, mask: &[u32], w: i32, h: i32) -> Vec<bool> {
    let (xs, ys) = (nearest(w, mw), nearest(h, mh));
    let mut v = Vec::with_capacity((w * h) as usize);
    for &y in &ys {
        for &x in &xs {
            v.push(mask_bit(mask[(y * mw + x) as usize]));
        }
    }
    v
}

/// An icon or cursor from an ICONINFO: with hbmColor the colour image and a mask
/// of its size; without, one monochrome bitmap holding the AND mask above the XOR
/// image. The bitmaps stay the caller's (they are copied).
pub fn CreateIconIndirect(cx: &mut Ctx, piconinfo: Ptr) -> ApiResult<u32> {
    let m = &cx.proc.mem;
    let f_icon = m.read_u32(piconinfo.0)? != 0;
    let hot = (
        m.read_u32(piconinfo.0 + 4)? as i32,
        m.read_u32(piconinfo.0 + 8)? as i32,
    );
    let hbm_mask = m.read_u32(piconinfo.0 + 12)?;
    let hbm_color = m.read_u32(piconinfo.0 + 16)?;
    let Some((mw, mh, mask)) = bitmap_pixels(cx.proc, hbm_mask)? else {
        return invalid_parameter(cx);
    };
    let image = if hbm_color == 0 {
        let h = mh / 2;
        if h == 0 {
            return invalid_parameter(cx);
        }
        let n = (mw * h) as usize;
        IconImage {
            width: mw,
            height: h,
            hotspot: if f_icon { (mw / 2, h / 2) } else { hot },
            is_icon: f_icon,
            mono: true,
            color: mask[n..2 * n]
                .iter()
                .map(|&p| if mask_bit(p) { 0xff_ffff } else { 0 })
                .collect(),
            mask: mask[..n].iter().map(|&p| mask_bit(p)).collect(),
        }
    } else {
        let Some((w, h, color)) = bitmap_pixels(cx.proc, hbm_color)? else {
            return invalid_parameter(cx);
        };
        IconImage {
            width: w,
            height: h,
            hotspot: if f_icon { (w / 2, h / 2) } else { hot },
            is_icon: f_icon,
            mono: false,
            color,
            mask: mask_bits(mw, mh, &mask, w, h),
        }
    };
    Ok(new_icon(cx.proc, image, None))
}

pub fn CopyIcon(cx: &mut Ctx, hIcon: u32) -> ApiResult<u32> {
    let Some(image) = icon_image(cx.proc, hIcon) else {
        crate::teb::set_last_error(cx, ERROR_INVALID_CURSOR_HANDLE)?;
        return Ok(0);
    };
    Ok(new_icon(cx.proc, (*image).clone(), None))
}

/// An icon or cursor from the bytes of one RT_ICON / RT_CURSOR resource (format
/// version 3.0; a cursor's starts with its hot spot).
pub fn CreateIconFromResourceEx(
    cx: &mut Ctx,
    presbits: Ptr,
    dwResSize: u32,
    fIcon: bool,
    dwVer: u32,
    cxDesired: i32,
    cyDesired: i32,
    Flags: u32,
) -> ApiResult<u32> {
    match dwVer {
        0x0003_0000 => {}
        0x0002_0000 => {
            return Err(ApiError::UnimplementedCase(
                "CreateIconFromResourceEx of a Windows 2.x format resource".into(),
            ));
        }
        _ => return invalid_parameter(cx),
    }
    if presbits.is_null() || dwResSize < 4 {
        return invalid_parameter(cx);
    }
    // A resource is at most a few hundred KiB; larger sizes are the caller's
    // over-estimate of a smaller block, so read no further than 1 MiB.
    let data = read(cx, presbits.0, dwResSize.min(1 << 20) as usize)?;
    let (hotspot, bits) = if fIcon {
        ((0, 0), &data[..])
    } else {
        match cursor_parts(&data) {
            Some(p) => p,
            None => return invalid_parameter(cx),
        }
    };
    let system = |v: i32| {
        if v == 0 && Flags & LR_DEFAULTSIZE != 0 {
            SYSTEM_SIZE
        } else {
            v
        }
    };
    let Some(mut image) = decode(bits, fIcon, hotspot, (system(cxDesired), system(cyDesired)))?
    else {
        return invalid_parameter(cx);
    };
    if Flags & LR_MONOCHROME != 0 {
        image = image.monochrome();
    }
    Ok(new_icon(cx.proc, image, None))
}

pub fn CreateIconFromResource(
    cx: &mut Ctx,
    presbits: Ptr,
    dwResSize: u32,
    fIcon: bool,
    dwVer: u32,
) -> ApiResult<u32> {
    CreateIconFromResourceEx(cx, presbits, dwResSize, fIcon, dwVer, 0, 0, LR_DEFAULTSIZE)
}

/// The resource id of the best image in a group directory (as LoadResource gives
/// it) for the size asked (0: the system size) and the display's depth.
pub fn LookupIconIdFromDirectoryEx(
    cx: &mut Ctx,
    presbits: Ptr,
    fIcon: bool,
    cxDesired: i32,
    cyDesired: i32,
    Flags: u32,
) -> ApiResult<i32> {
    if presbits.is_null() {
        return Ok(0);
    }
    let count = cx.proc.mem.read_u16(presbits.0 + 4)? as usize;
    let b = read(cx, presbits.0, 6 + 14 * count)?;
    let Some(entries) = parse_directory(&b, fIcon) else {
        return Ok(0);
    };
    let depth = display_depth(cx.proc);
    Ok(best_entry(
        &entries,
        fIcon,
        cxDesired,
        cyDesired,
        depth,
        Flags | LR_DEFAULTSIZE,
    )
    .map_or(0, |i| entries[i].id as i32))
}

pub fn LookupIconIdFromDirectory(cx: &mut Ctx, presbits: Ptr, fIcon: bool) -> ApiResult<i32> {
    LookupIconIdFromDirectoryEx(cx, presbits, fIcon, 0, 0, LR_DEFAULTSIZE)
}

// ---- GetIconInfo ---------------------------------------------------------------------

/// Fills ICONINFO with new bitmaps the caller owns: for a colour icon a 1-bpp mask
/// and a colour bitmap compatible with the screen, both its size; for a monochrome
/// one a single 1-bpp bitmap twice as high (AND mask above the XOR image) and no
/// colour bitmap.
pub fn GetIconInfo(cx: &mut Ctx, hIcon: u32, piconinfo: Ptr) -> ApiResult<bool> {
    let Some(img) = icon_image(cx.proc, hIcon) else {
        crate::teb::set_last_error(cx, ERROR_INVALID_CURSOR_HANDLE)?;
        return Ok(false);
    };
    // Check the pointer before any bitmap exists that a fault would leak.
    cx.proc.mem.write_bytes(piconinfo.0, &[0u8; 20])?;
    let (w, h) = (img.width, img.height);
    let (hbm_mask, hbm_color) = if img.mono {
        let mut px = img.mask_pixels();
        px.extend_from_slice(&img.color);
        (bitmap::new_ddb(cx.proc, w, 2 * h, 1, Some(px)), 0)
    } else {
        let mask = bitmap::new_ddb(cx.proc, w, h, 1, Some(img.mask_pixels()));
        let depth = display_depth(cx.proc);
        let color = bitmap::new_ddb(cx.proc, w, h, depth, Some(img.color.clone()));
        (mask, color)
    };
    let fields = [
        img.is_icon as u32,
        img.hotspot.0 as u32,
        img.hotspot.1 as u32,
        hbm_mask,
        hbm_color,
    ];
    let mut b = Vec::with_capacity(20);
    for f in fields {
        b.extend_from_slice(&f.to_le_bytes());
    }
    cx.proc.mem.write_bytes(piconinfo.0, &b)?;
    Ok(true)
}

// ---- drawing --------------------------------------------------------------------------

/// DrawIconEx's work: the AND mask with SRCAND, then the image with SRCINVERT
/// (DI_NORMAL); one of them alone is copied with SRCCOPY. The picture is stretched
/// to `cx`x`cy` (0: its own size, or the system size with DI_DEFAULTSIZE). With a
/// flicker-free brush the icon is composed over the brush off screen and the result
/// copied, so the destination rectangle ends up brush-filled around the icon.
pub fn draw_icon(
    proc: &Process,
    hdc: u32,
    x: i32,
    y: i32,
    img: &IconImage,
    cx: i32,
    cy: i32,
    hbr: u32,
    flags: u32,
) -> ApiResult<bool> {
    let Some(d) = crate::gdi32::dc::resolve(proc, hdc) else {
        return Ok(false);
    };
    let size = |v: i32, own: i32| match v {
        0 if flags & DI_DEFAULTSIZE != 0 => SYSTEM_SIZE,
        0 => own,
        v => v,
    };
    let (w, h) = (size(cx, img.width), size(cy, img.height));
    let (aw, ah) = (w.abs(), h.abs());
    if aw > 4096 || ah > 4096 {
        return Ok(false);
    }
    let pic = img.scaled(aw, ah);
    // Sources are plain colour pixels whose black and white are the mask bits, so
    // the result does not depend on the DC's text and background colours (Windows
    // sets them to black and white around the blits for the same reason).
    let source = |px: Vec<u32>| Source {
        w: aw,
        h: ah,
        px,
        mono: false,
        bk: 0xff_ffff,
    };
    let (dx, dy) = d.to_dev(x, y);
    let dst = (dx, dy, w, h);
    let src = (0, 0, aw, ah);
    let brush = if hbr != 0 {
        crate::gdi32::objects::brush_of(&proc.gdi32.lock(), hbr)
    } else {
        None
    };
    if let Some(b) = brush {
        // The off-screen bitmap is a fresh DC's: the brush pattern starts at its
        // corner, so undo the destination's brush origin.
        let (ox, oy) = d.a.brush_org;
        let mut px: Vec<u32> = (0..ah)
            .flat_map(|j| (0..aw).map(move |i| (i, j)))
            .map(|(i, j)| raster::brush_pixel(&d, &b, i + ox, j + oy).unwrap_or(0))
            .collect();
        for (k, p) in px.iter_mut().enumerate() {
            if flags & DI_MASK != 0 {
                let m = if pic.mask[k] { 0xff_ffff } else { 0 };
                *p = if flags & DI_IMAGE != 0 { *p & m } else { m };
            }
            if flags & DI_IMAGE != 0 {
                *p = if flags & DI_MASK != 0 {
                    *p ^ pic.color[k]
                } else {
                    pic.color[k]
                };
            }
        }
        bitmap::blit(proc, &d, dst, Some((&source(px), src)), ROP_SRCCOPY)?;
        return Ok(true);
    }
    if flags & DI_MASK != 0 {
        let rop = if flags & DI_IMAGE != 0 {
            ROP_SRCAND
        } else {
            ROP_SRCCOPY
        };
        bitmap::blit(proc, &d, dst, Some((&source(pic.mask_pixels()), src)), rop)?;
    }
    if flags & DI_IMAGE != 0 {
        let rop = if flags & DI_MASK != 0 {
            ROP_SRCINVERT
        } else {
            ROP_SRCCOPY
        };
        bitmap::blit(proc, &d, dst, Some((&source(pic.color), src)), rop)?;
    }
    Ok(true)
}

/// Draws at the system icon size (DrawIcon always has, whatever the icon's own size).
pub fn DrawIcon(cx: &mut Ctx, hDC: u32, X: i32, Y: i32, hIcon: u32) -> ApiResult<bool> {
    let Some(img) = icon_image(cx.proc, hIcon) else {
        return Ok(false);
    };
    draw_icon(
        cx.proc,
        hDC,
        X,
        Y,
        &img,
        0,
        0,
        0,
        DI_NORMAL | DI_COMPAT | DI_DEFAULTSIZE,
    )
}

/// `istepIfAniCur` picks a frame of an animated cursor; winterp's cursors have one.
pub fn DrawIconEx(
    cx: &mut Ctx,
    hdc: u32,
    xLeft: i32,
    yTop: i32,
    hIcon: u32,
    cxWidth: i32,
    cyWidth: i32,
    _istepIfAniCur: u32,
    hbrFlickerFreeDraw: u32,
    diFlags: u32,
) -> ApiResult<bool> {
    let Some(img) = icon_image(cx.proc, hIcon) else {
        return Ok(false);
    };
    draw_icon(
        cx.proc,
        hdc,
        xLeft,
        yTop,
        &img,
        cxWidth,
        cyWidth,
        hbrFlickerFreeDraw,
        diFlags,
    )
}

// ---- destruction ----------------------------------------------------------------------

/// Frees an icon or cursor. System icons and shared ones (LoadIcon, LoadCursor,
/// LR_SHARED) are not freed and report success, as on Windows; the cursor on
/// the screen is not freed and the call fails (Windows refuses to destroy it).
pub fn DestroyIcon(cx: &mut Ctx, hIcon: u32) -> ApiResult<bool> {
    if system_id(hIcon).is_some() {
        return Ok(true);
    }
    let mut wm = lock_wm(cx.proc);
    let in_use = wm.cursor_handle == hIcon;
    let shared = match wm.objs.get(&hIcon) {
        Some(UserObj::Icon { shared, .. }) => shared.is_some(),
        _ => {
            drop(wm);
            crate::teb::set_last_error(cx, ERROR_INVALID_CURSOR_HANDLE)?;
            return Ok(false);
        }
    };
    if in_use {
        return Ok(false);
    }
    if !shared {
        wm.objs.remove(&hIcon);
    }
    Ok(true)
}

pub fn DestroyCursor(cx: &mut Ctx, hCursor: u32) -> ApiResult<bool> {
    DestroyIcon(cx, hCursor)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("LoadIconA", LoadIconA),
        stdcall("LoadIconW", LoadIconW),
        stdcall("LoadCursorA", LoadCursorA),
        stdcall("LoadCursorW", LoadCursorW),
        stdcall("CreateCursor", CreateCursor),
        stdcall("CreateIcon", CreateIcon),
        stdcall("CreateIconIndirect", CreateIconIndirect),
        stdcall("CopyIcon", CopyIcon),
        stdcall("CreateIconFromResource", CreateIconFromResource),
        stdcall("CreateIconFromResourceEx", CreateIconFromResourceEx),
        stdcall("LookupIconIdFromDirectory", LookupIconIdFromDirectory),
        stdcall("LookupIconIdFromDirectoryEx", LookupIconIdFromDirectoryEx),
        stdcall("GetIconInfo", GetIconInfo),
        stdcall("DrawIcon", DrawIcon),
        stdcall("DrawIconEx", DrawIconEx),
        stdcall("DestroyIcon", DestroyIcon),
        stdcall("DestroyCursor", DestroyCursor),
    ]
}
