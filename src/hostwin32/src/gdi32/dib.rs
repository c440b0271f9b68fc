//! Device-independent bitmap formats: BITMAPINFO parsing, colour tables, and the
//! conversion of DIB rows to and from 0x00RRGGBB pixels.

use crate::hle::{ApiError, ApiResult};
use crate::process::Process;
use std::collections::HashMap;

pub const BI_RGB: u32 = 0;
pub const BI_RLE8: u32 = 1;
pub const BI_RLE4: u32 = 2;
pub const BI_BITFIELDS: u32 = 3;
pub const DIB_RGB_COLORS: u32 = 0;
pub const DIB_PAL_COLORS: u32 = 1;

/// The layout of a DIB's pixels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DibFormat {
    pub width: i32,
    /// Rows, always positive; `top_down` says which way they run in memory.
    pub height: i32,
    pub top_down: bool,
    pub bpp: u16,
    pub compression: u32,
    /// Red, green and blue masks for 16 and 32 bpp (the defaults for BI_RGB).
    pub masks: [u32; 3],
    /// The colour table as 0x00RRGGBB (1, 4 and 8 bpp).
    pub colors: Vec<u32>,
}

impl DibFormat {
    /// A BI_RGB format with the default masks and no colour table.
    pub fn new(width: i32, height: i32, top_down: bool, bpp: u16) -> DibFormat {
        DibFormat {
            width,
            height,
            top_down,
            bpp,
            compression: BI_RGB,
            masks: default_masks(bpp),
            colors: Vec::new(),
        }
    }

    /// Bytes per row: DIB rows are padded to 4 bytes.
    pub fn stride(&self) -> usize {
        (self.width.max(0) as usize * self.bpp as usize).div_ceil(32) * 4
    }

    pub fn image_size(&self) -> usize {
        self.stride() * self.height.max(0) as usize
    }

    /// Byte offset of picture row `y` (0 = top) from the start of the bits.
    pub fn row_offset(&self, y: i32) -> usize {
        let row = if self.top_down {
            y
        } else {
            self.height - 1 - y
        };
        row as usize * self.stride()
    }

    /// Pixel `x` of a row, as 0x00RRGGBB.
    pub fn get(&self, row: &[u8], x: usize) -> u32 {
        match self.bpp {
            1 | 4 | 8 => {
                let i = self.index_at(row, x);
                self.colors.get(i as usize).copied().unwrap_or(0)
            }
            16 => {
                let v = u16::from_le_bytes([row[2 * x], row[2 * x + 1]]) as u32;
                self.unpack_masked(v)
            }
            24 => {
                let o = 3 * x;
                (row[o + 2] as u32) << 16 | (row[o + 1] as u32) << 8 | row[o] as u32
            }
            _ => {
                let o = 4 * x;
                let v = u32::from_le_bytes([row[o], row[o + 1], row[o + 2], row[o + 3]]);
                if self.masks == default_masks(32) {
                    v & 0xff_ffff
                } else {
                    self.unpack_masked(v)
                }
            }
        }
    }

    /// The colour-table index of pixel `x` (1, 4, 8 bpp).
    pub fn index_at(&self, row: &[u8], x: usize) -> u8 {
        match self.bpp {
            1 => (row[x / 8] >> (7 - x % 8)) & 1,
            4 => (row[x / 2] >> if x.is_multiple_of(2) { 4 } else { 0 }) & 15,
            _ => row[x],
        }
    }

    /// Stores 0x00RRGGBB `c` as pixel `x` of a row.
    pub fn put(&self, row: &mut [u8], x: usize, c: u32, near: &mut Nearest) {
        match self.bpp {
            1 | 4 | 8 => {
                let i = near.index(&self.colors, c);
                self.put_index(row, x, i);
            }
            16 => {
                let v = self.pack_masked(c) as u16;
                row[2 * x..2 * x + 2].copy_from_slice(&v.to_le_bytes());
            }
            24 => {
                let o = 3 * x;
                row[o] = c as u8;
                row[o + 1] = (c >> 8) as u8;
                row[o + 2] = (c >> 16) as u8;
            }
            _ => {
                let o = 4 * x;
                let v = if self.masks == default_masks(32) {
                    c & 0xff_ffff
                } else {
                    self.pack_masked(c)
                };
                row[o..o + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
    }

    pub fn put_index(&self, row: &mut [u8], x: usize, i: u8) {
        match self.bpp {
            1 => {
                let b = &mut row[x / 8];
                let bit = 7 - x % 8;
                *b = (*b & !(1 << bit)) | ((i & 1) << bit);
            }
            4 => {
                let b = &mut row[x / 2];
                if x.is_multiple_of(2) {
                    *b = (*b & 0x0f) | (i & 15) << 4;
                } else {
                    *b = (*b & 0xf0) | (i & 15);
                }
            }
            _ => row[x] = i,
        }
    }

    fn unpack_masked(&self, v: u32) -> u32 {
        let ch = |m: u32| expand(v & m, m);
        ch(self.masks[0]) << 16 | ch(self.masks[1]) << 8 | ch(self.masks[2])
    }

    fn pack_masked(&self, c: u32) -> u32 {
        let ch = |m: u32, v8: u32| -> u32 {
            if m == 0 {
                return 0;
            }
            let shift = m.trailing_zeros();
            let bits = (m >> shift).count_ones();
            let v = if bits >= 8 {
                v8 << (bits - 8)
            } else {
                v8 >> (8 - bits)
            };
            (v << shift) & m
        };
        ch(self.masks[0], (c >> 16) & 0xff)
            | ch(self.masks[1], (c >> 8) & 0xff)
            | ch(self.masks[2], c & 0xff)
    }
}

/// An 8-bit channel from a masked field: a 5-bit value v becomes (v << 3) | (v >> 2)
/// as Windows expands 555/565 pixels, so white stays white.
fn expand(v: u32, m: u32) -> u32 {
    if m == 0 {
        return 0;
    }
    let shift = m.trailing_zeros();
    let bits = (m >> shift).count_ones();
    let v = v >> shift;
    if bits >= 8 {
        (v >> (bits - 8)) & 0xff
    } else {
        let mut out = 0u32;
        let mut have = 0;
        while have < 8 {
            out = (out << bits) | v;
            have += bits;
        }
        (out >> (have - 8)) & 0xff
    }
}

pub fn default_masks(bpp: u16) -> [u32; 3] {
    match bpp {
        16 => [0x7c00, 0x03e0, 0x001f],
        24 | 32 => [0xff_0000, 0xff00, 0xff],
        _ => [0; 3],
    }
}

/// Nearest colour-table entry, cached per colour (a blit maps many equal pixels).
#[derive(Default)]
pub struct Nearest {
    cache: HashMap<u32, u8>,
}

impl Nearest {
    pub fn index(&mut self, table: &[u32], c: u32) -> u8 {
        if let Some(&i) = self.cache.get(&c) {
            return i;
        }
        let i = nearest_index(table, c) as u8;
        self.cache.insert(c, i);
        i
    }
}

/// The index of the entry of `table` (0x00RRGGBB) closest to `c` (first one on ties).
pub fn nearest_index(table: &[u32], c: u32) -> usize {
    let mut best = 0;
    let mut best_d = u32::MAX;
    for (i, &t) in table.iter().enumerate() {
        let d = color_distance(t, c);
        if d < best_d {
            best = i;
            best_d = d;
            if d == 0 {
                break;
            }
        }
    }
    best
}

pub fn color_distance(a: u32, b: u32) -> u32 {
    let d = |s: u32| {
        let x = ((a >> s) & 0xff) as i32 - ((b >> s) & 0xff) as i32;
        (x * x) as u32
    };
    d(16) + d(8) + d(0)
}

/// A parsed BITMAPINFO: the format and how many bytes the header and colour table
/// take (where a packed DIB's bits begin).
pub struct Info {
    pub fmt: DibFormat,
    pub header_len: usize,
    /// biSizeImage as given (0 allowed for BI_RGB).
    pub size_image: u32,
    /// Raw colour-table words (RGBQUADs, or u16 palette indices for DIB_PAL_COLORS).
    pub raw_colors: Vec<u32>,
}

fn rd16(b: &[u8], o: usize) -> ApiResult<u16> {
    b.get(o..o + 2)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
        .ok_or_else(|| ApiError::Other("truncated BITMAPINFO".into()))
}

fn rd32(b: &[u8], o: usize) -> ApiResult<u32> {
    b.get(o..o + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        .ok_or_else(|| ApiError::Other("truncated BITMAPINFO".into()))
}

/// Parses a BITMAPINFO (or BITMAPCOREINFO) at the start of `b`. `palette` resolves
/// DIB_PAL_COLORS indices (the DC's selected palette, 0x00BBGGRR entries).
pub fn parse_info(b: &[u8], usage: u32, palette: &[u32]) -> ApiResult<Info> {
    let size = rd32(b, 0)? as usize;
    let (width, height, bpp, compression, clr_used, size_image, entry, mut at);
    if size == 12 {
        width = rd16(b, 4)? as i16 as i32;
        height = rd16(b, 6)? as i16 as i32;
        bpp = rd16(b, 10)?;
        compression = BI_RGB;
        clr_used = 0;
        size_image = 0;
        entry = 3;
        at = 12;
    } else if size >= 40 {
        width = rd32(b, 4)? as i32;
        height = rd32(b, 8)? as i32;
        bpp = rd16(b, 14)?;
        compression = rd32(b, 16)?;
        size_image = rd32(b, 20)?;
        clr_used = rd32(b, 32)?;
        entry = 4;
        at = size;
    } else {
        return Err(ApiError::Other(format!("BITMAPINFO header size {size}")));
    }
    if !matches!(bpp, 1 | 4 | 8 | 16 | 24 | 32) {
        return Err(ApiError::UnimplementedCase(format!(
            "DIB of {bpp} bits per pixel"
        )));
    }
    if width <= 0 || height == 0 || width > 32768 || height.unsigned_abs() > 32768 {
        return Err(ApiError::Other(format!("DIB of {width}x{height} pixels")));
    }
    // 256 MiB of pixels is far beyond any Win9x program's bitmap; larger sizes are
    // corrupt headers, refused before anything is allocated for them.
    if width as u64 * height.unsigned_abs() as u64 * bpp as u64 > 8 << 28 {
        return Err(ApiError::Other(format!(
            "DIB of {width}x{height} pixels at {bpp} bpp is too large"
        )));
    }
    let mut masks = default_masks(bpp);
    match compression {
        BI_RGB => {}
        BI_BITFIELDS if bpp == 16 || bpp == 32 => {
            // V4/V5 headers hold the masks inside the header; a plain 40-byte header is
            // followed by them.
            let mo = if size >= 52 { 40 } else { at };
            masks = [rd32(b, mo)?, rd32(b, mo + 4)?, rd32(b, mo + 8)?];
            if size < 52 {
                at += 12;
            }
        }
        BI_RLE8 | BI_RLE4 => {
            return Err(ApiError::UnimplementedCase(
                "RLE-compressed DIBs (BI_RLE8/BI_RLE4)".into(),
            ));
        }
        c => {
            return Err(ApiError::UnimplementedCase(format!(
                "DIB compression {c} with {bpp} bits per pixel"
            )));
        }
    }
    let ncolors = if bpp <= 8 {
        if clr_used == 0 || clr_used > 1 << bpp {
            1usize << bpp
        } else {
            clr_used as usize
        }
    } else {
        // A colour table beside true-colour bits is only an optimisation hint.
        (clr_used as usize).min(256)
    };
    let mut raw_colors = Vec::with_capacity(ncolors);
    let mut colors = Vec::with_capacity(ncolors);
    let entry_len = if usage == DIB_PAL_COLORS { 2 } else { entry };
    for i in 0..ncolors {
        let o = at + i * entry_len;
        if usage == DIB_PAL_COLORS {
            let idx = rd16(b, o)? as u32;
            raw_colors.push(idx);
            let cr = palette
                .get(idx as usize)
                .copied()
                .unwrap_or_else(|| palette.first().copied().unwrap_or(0));
            colors.push(super::objects::cr_to_rgb(cr));
        } else {
            let bb = b
                .get(o..o + 3)
                .ok_or_else(|| ApiError::Other("truncated DIB colour table".into()))?;
            raw_colors.push(if entry == 4 {
                rd32(b, o)?
            } else {
                bb[0] as u32 | (bb[1] as u32) << 8 | (bb[2] as u32) << 16
            });
            colors.push((bb[2] as u32) << 16 | (bb[1] as u32) << 8 | bb[0] as u32);
        }
    }
    at += ncolors * entry_len;
    if bpp > 8 {
        colors.clear();
    }
    Ok(Info {
        fmt: DibFormat {
            width,
            height: height.abs(),
            top_down: height < 0,
            bpp,
            compression,
            masks,
            colors,
        },
        header_len: at,
        size_image,
        raw_colors,
    })
}

/// Reads and parses a BITMAPINFO from guest memory.
pub fn read_info(proc: &Process, addr: u32, usage: u32, palette: &[u32]) -> ApiResult<Info> {
    let size = proc.mem.read_u32(addr)? as usize;
    if !(size == 12 || (40..=1024).contains(&size)) {
        return Err(ApiError::Other(format!("BITMAPINFO header size {size}")));
    }
    // Header + masks + the largest colour table.
    let mut buf = vec![0u8; size + 12];
    proc.mem.read_bytes(addr, &mut buf)?;
    let bpp = if size == 12 {
        u16::from_le_bytes([buf[10], buf[11]])
    } else {
        u16::from_le_bytes([buf[14], buf[15]])
    };
    let clr_used = if size >= 40 {
        u32::from_le_bytes([buf[32], buf[33], buf[34], buf[35]]).min(256) as usize
    } else {
        0
    };
    let n = if bpp <= 8 {
        1usize << bpp.min(8)
    } else {
        clr_used
    };
    let total = size + 12 + n * 4;
    let mut buf = vec![0u8; total];
    // The colour table may end before our generous read does (e.g. a 2-entry table
    // at the end of a page): read what is readable.
    if proc.mem.read_bytes(addr, &mut buf).is_err() {
        buf.truncate(size + 12);
        proc.mem.read_bytes(addr, &mut buf[..size])?;
        let mut got = size;
        while got < total {
            let mut b = [0u8; 1];
            if proc.mem.read_bytes(addr + got as u32, &mut b).is_err() {
                break;
            }
            if buf.len() <= got {
                buf.push(b[0]);
            } else {
                buf[got] = b[0];
            }
            got += 1;
        }
        buf.truncate(got);
    }
    parse_info(&buf, usage, palette)
}

/// Decodes a whole DIB image (rows top first) into 0x00RRGGBB pixels.
pub fn decode_image(fmt: &DibFormat, bits: &[u8]) -> ApiResult<Vec<u32>> {
    let (w, h) = (fmt.width as usize, fmt.height as usize);
    if bits.len() < fmt.image_size() {
        return Err(ApiError::Other(format!(
            "DIB bits are {} bytes, {w}x{h} at {} bpp needs {}",
            bits.len(),
            fmt.bpp,
            fmt.image_size()
        )));
    }
    let mut out = vec![0u32; w * h];
    for y in 0..h {
        let o = fmt.row_offset(y as i32);
        let row = &bits[o..o + fmt.stride()];
        for x in 0..w {
            out[y * w + x] = fmt.get(row, x);
        }
    }
    Ok(out)
}

/// Encodes pixels (rows top first) into DIB bits of `fmt`.
pub fn encode_image(fmt: &DibFormat, px: &[u32]) -> Vec<u8> {
    let (w, h) = (fmt.width as usize, fmt.height as usize);
    let mut bits = vec![0u8; fmt.image_size()];
    let mut near = Nearest::default();
    let stride = fmt.stride();
    for y in 0..h {
        let o = fmt.row_offset(y as i32);
        let row = &mut bits[o..o + stride];
        for x in 0..w {
            fmt.put(row, x, px.get(y * w + x).copied().unwrap_or(0), &mut near);
        }
    }
    bits
}
