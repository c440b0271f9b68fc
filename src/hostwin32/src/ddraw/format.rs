//! The pixel formats surfaces can have, their DDPIXELFORMAT and their conversion to
//! 0x00RRGGBB for presentation.

use super::{DDERR_INVALIDPIXELFORMAT, DdResult, fail};
use crate::process::Process;

pub const DDPF_ALPHAPIXELS: u32 = 0x1;
pub const DDPF_FOURCC: u32 = 0x4;
pub const DDPF_PALETTEINDEXED8: u32 = 0x20;
pub const DDPF_RGB: u32 = 0x40;

/// A surface's pixel layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fmt {
    /// 8 bpp, indices into the palette.
    Pal8,
    /// 16 bpp, red in bits 15..11, green 10..5, blue 4..0.
    Rgb565,
    /// 32 bpp, 0x00RRGGBB.
    Xrgb8888,
}

impl Fmt {
    pub fn from_bpp(bpp: u32) -> Option<Fmt> {
        match bpp {
            8 => Some(Fmt::Pal8),
            16 => Some(Fmt::Rgb565),
            32 => Some(Fmt::Xrgb8888),
            _ => None,
        }
    }

    pub fn bpp(self) -> u32 {
        match self {
            Fmt::Pal8 => 8,
            Fmt::Rgb565 => 16,
            Fmt::Xrgb8888 => 32,
        }
    }

    pub fn bytes(self) -> u32 {
        self.bpp() / 8
    }

    /// Bytes per row. Rows are padded to a multiple of 4 bytes, the DIB rule, so the
    /// DIB section GetDC puts over a surface has exactly the surface's layout. (Real
    /// drivers pick their own alignment, and Wine aligns to 8; programs must use the
    /// lPitch they are given, which is what this value is.)
    pub fn pitch(self, width: u32) -> u32 {
        (width * self.bytes()).div_ceil(4) * 4
    }

    /// The bits a raw pixel value keeps (fill colours and colour keys are given in the
    /// surface's format; higher bits are ignored).
    pub fn mask(self) -> u32 {
        match self {
            Fmt::Pal8 => 0xff,
            Fmt::Rgb565 => 0xffff,
            Fmt::Xrgb8888 => 0xffff_ffff,
        }
    }

    /// Writes the DDPIXELFORMAT (32 bytes) at `addr`.
    pub fn write_ddpf(self, proc: &Process, addr: u32) -> DdResult<()> {
        let (flags, masks) = match self {
            Fmt::Pal8 => (DDPF_PALETTEINDEXED8 | DDPF_RGB, [0, 0, 0]),
            Fmt::Rgb565 => (DDPF_RGB, [0xf800, 0x07e0, 0x001f]),
            Fmt::Xrgb8888 => (DDPF_RGB, [0xff_0000, 0x00_ff00, 0x00_00ff]),
        };
        let v = [32, flags, 0, self.bpp(), masks[0], masks[1], masks[2], 0];
        for (k, d) in v.iter().enumerate() {
            proc.mem.write_u32(addr + 4 * k as u32, *d)?;
        }
        Ok(())
    }

    /// The format a DDPIXELFORMAT asks for. Formats other than these three are
    /// refused with DDERR_INVALIDPIXELFORMAT, as a driver that lacks them does.
    pub fn read_ddpf(proc: &Process, addr: u32) -> DdResult<Fmt> {
        let flags = proc.mem.read_u32(addr + 4)?;
        let bits = proc.mem.read_u32(addr + 12)?;
        let r = proc.mem.read_u32(addr + 16)?;
        let g = proc.mem.read_u32(addr + 20)?;
        let b = proc.mem.read_u32(addr + 24)?;
        if flags & DDPF_FOURCC != 0 {
            return fail(DDERR_INVALIDPIXELFORMAT);
        }
        if flags & DDPF_PALETTEINDEXED8 != 0 {
            return Ok(Fmt::Pal8);
        }
        match (bits, r, g, b) {
            (16, 0xf800, 0x07e0, 0x001f) => Ok(Fmt::Rgb565),
            (32, 0xff_0000, 0xff00, 0xff) if flags & DDPF_ALPHAPIXELS == 0 => Ok(Fmt::Xrgb8888),
            _ => fail(DDERR_INVALIDPIXELFORMAT),
        }
    }

    /// A raw pixel as 0x00RRGGBB. 5- and 6-bit components are widened by repeating
    /// their top bits, so full intensity stays 255 and black stays 0.
    pub fn to_rgb(self, raw: u32, pal: &[u32; 256]) -> u32 {
        match self {
            Fmt::Pal8 => pal_rgb(pal[(raw & 0xff) as usize]),
            Fmt::Rgb565 => rgb565_to_rgb(raw as u16),
            Fmt::Xrgb8888 => raw & 0xff_ffff,
        }
    }
}

/// A PALETTEENTRY (peRed, peGreen, peBlue, peFlags as a little-endian dword) as
/// 0x00RRGGBB.
pub fn pal_rgb(e: u32) -> u32 {
    (e & 0xff) << 16 | (e & 0xff00) | (e >> 16 & 0xff)
}

pub fn rgb565_to_rgb(v: u16) -> u32 {
    let v = v as u32;
    let r = v >> 11 & 0x1f;
    let g = v >> 5 & 0x3f;
    let b = v & 0x1f;
    (r << 3 | r >> 2) << 16 | (g << 2 | g >> 4) << 8 | (b << 3 | b >> 2)
}

/// Converts a whole surface (rows of `pitch` bytes) to 0x00RRGGBB pixels.
pub fn surface_to_rgb(
    fmt: Fmt,
    bytes: &[u8],
    pitch: usize,
    width: usize,
    height: usize,
    pal: &[u32; 256],
) -> Vec<u32> {
    let mut out = Vec::with_capacity(width * height);
    for y in 0..height {
        let row = &bytes[y * pitch..];
        match fmt {
            Fmt::Pal8 => {
                let lut: Vec<u32> = pal.iter().map(|&e| pal_rgb(e)).collect();
                out.extend(row[..width].iter().map(|&i| lut[i as usize]));
            }
            Fmt::Rgb565 => out.extend(
                row[..2 * width]
                    .chunks_exact(2)
                    .map(|c| rgb565_to_rgb(u16::from_le_bytes([c[0], c[1]]))),
            ),
            Fmt::Xrgb8888 => out.extend(
                row[..4 * width]
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) & 0xff_ffff),
            ),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pitch_pads_rows_to_four_bytes() {
        assert_eq!(Fmt::Pal8.pitch(321), 324);
        assert_eq!(Fmt::Rgb565.pitch(321), 644);
        assert_eq!(Fmt::Xrgb8888.pitch(321), 1284);
        assert_eq!(Fmt::Pal8.pitch(320), 320);
    }

    #[test]
    fn rgb565_widens_by_bit_replication() {
        assert_eq!(rgb565_to_rgb(0xffff), 0xff_ffff);
        assert_eq!(rgb565_to_rgb(0xf800), 0xff_0000);
        assert_eq!(rgb565_to_rgb(0x07e0), 0x00_ff00);
        assert_eq!(rgb565_to_rgb(0x001f), 0x00_00ff);
        // r = 0b10000 -> 0b10000100, g = 0b100000 -> 0b10000010.
        assert_eq!(rgb565_to_rgb(0x8400), 0x84_8200);
    }

    #[test]
    fn palette_entries_are_red_green_blue_flags() {
        assert_eq!(pal_rgb(0x0033_2211), 0x11_2233);
        let mut pal = [0u32; 256];
        pal[7] = 0x00ff_8040;
        let px = surface_to_rgb(Fmt::Pal8, &[7, 0, 0, 0], 4, 1, 1, &pal);
        assert_eq!(px, vec![0x40_80ff]);
    }
}
