//! Palettes: logical palettes, the system palette, PALETTEINDEX/PALETTERGB colours,
//! nearest-colour queries and DIB colour tables.

use super::dib::nearest_index;
use super::objects::cr_to_rgb;
use crate::hle::ApiDef;

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

pub fn exports() -> Vec<ApiDef> {
    Vec::new()
}
