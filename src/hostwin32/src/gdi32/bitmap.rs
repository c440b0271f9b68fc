//! Bitmaps and blits: CreateBitmap, CreateCompatibleBitmap, CreateDIBitmap,
//! CreateDIBSection (bits in guest memory), Get/SetDIBits, SetDIBitsToDevice,
//! StretchDIBits, Get/SetBitmapBits, BitBlt/StretchBlt/PatBlt with any ROP3.

use super::dib::{self, DibFormat};
use super::objects::{Bitmap, Obj, Store};
use super::{Surface, SurfaceRef};
use crate::hle::{ApiDef, ApiError, ApiResult};
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
    let bpp = proc.display.mode().bpp as u16;
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

#[allow(dead_code)]
fn fmt_of(bm: &Bitmap) -> Option<&DibFormat> {
    match &bm.store {
        Store::Dib { fmt, .. } => Some(fmt),
        Store::Ddb(_) => None,
    }
}

pub fn exports() -> Vec<ApiDef> {
    Vec::new()
}
