//! Regions as lists of rectangles, and DC clipping.

use super::surface::Rect;
use crate::hle::{ApiDef, ApiResult};
use crate::process::Process;

pub const RGN_AND: u32 = 1;
pub const RGN_OR: u32 = 2;
pub const RGN_XOR: u32 = 3;
pub const RGN_DIFF: u32 = 4;
pub const RGN_COPY: u32 = 5;

/// SelectClipRgn/ExtSelectClipRgn: combines the DC's clip with region `h` (device
/// coordinates; None resets the clip). Returns the region type, 0 on error.
pub fn select_clip(proc: &Process, hdc: u32, h: Option<u32>, mode: u32) -> ApiResult<u32> {
    let _ = (proc, hdc, h, mode);
    Ok(0)
}

pub fn region_type(rects: &[Rect]) -> u32 {
    match rects.len() {
        0 => super::objects::NULLREGION,
        1 => super::objects::SIMPLEREGION,
        _ => super::objects::COMPLEXREGION,
    }
}

pub fn exports() -> Vec<ApiDef> {
    Vec::new()
}
