//! Blit kernels: colour fill and copy (stretched, mirrored, colour-keyed) between
//! pixel rows in byte buffers. Each kernel is generic over the pixel type, so the
//! format is chosen once per blit and the inner loops carry no format switch.

use crate::gdi32::Rect;

/// A pixel of a surface format: 8-bit palette index, 16-bit RGB565, 32-bit XRGB.
pub trait Pixel: Copy + Ord + 'static {
    const BYTES: usize;
    fn load(b: &[u8]) -> Self;
    fn store(self, b: &mut [u8]);
    /// A colour given as a DWORD in the surface's format (fill colours, colour keys).
    fn from_u32(v: u32) -> Self;
}

impl Pixel for u8 {
    const BYTES: usize = 1;
    fn load(b: &[u8]) -> Self {
        b[0]
    }
    fn store(self, b: &mut [u8]) {
        b[0] = self;
    }
    fn from_u32(v: u32) -> Self {
        v as u8
    }
}

impl Pixel for u16 {
    const BYTES: usize = 2;
    fn load(b: &[u8]) -> Self {
        u16::from_le_bytes([b[0], b[1]])
    }
    fn store(self, b: &mut [u8]) {
        b[..2].copy_from_slice(&self.to_le_bytes());
    }
    fn from_u32(v: u32) -> Self {
        v as u16
    }
}

impl Pixel for u32 {
    const BYTES: usize = 4;
    fn load(b: &[u8]) -> Self {
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
    fn store(self, b: &mut [u8]) {
        b[..4].copy_from_slice(&self.to_le_bytes());
    }
    fn from_u32(v: u32) -> Self {
        v
    }
}

/// A DDCOLORKEY: the raw pixel values from `lo` to `hi` inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key<P> {
    pub lo: P,
    pub hi: P,
}

impl<P: Pixel> Key<P> {
    pub fn from_u32(lo: u32, hi: u32) -> Key<P> {
        let (lo, hi) = (P::from_u32(lo), P::from_u32(hi));
        // A key with high below low (programs often leave high 0) is the single value.
        Key { lo, hi: hi.max(lo) }
    }
    fn hit(&self, p: P) -> bool {
        p >= self.lo && p <= self.hi
    }
}

/// How a copy treats pixels.
#[derive(Clone, Copy, Debug)]
pub struct Fx<P> {
    /// DDBLTFX_MIRRORLEFTRIGHT: the source's columns land right to left.
    pub mirror_lr: bool,
    /// DDBLTFX_MIRRORUPDOWN: the source's rows land bottom to top.
    pub mirror_ud: bool,
    /// Source pixels in this range are not copied (DDBLT_KEYSRC).
    pub src_key: Option<Key<P>>,
    /// Only destination pixels in this range are replaced (DDBLT_KEYDEST).
    pub dst_key: Option<Key<P>>,
}

impl<P> Default for Fx<P> {
    fn default() -> Self {
        Fx {
            mirror_lr: false,
            mirror_ud: false,
            src_key: None,
            dst_key: None,
        }
    }
}

/// Pixel rows in a byte buffer: pixel (x, y) starts at `y * pitch + x * BYTES`.
pub struct Img<'a> {
    pub data: &'a [u8],
    pub pitch: usize,
}

pub struct ImgMut<'a> {
    pub data: &'a mut [u8],
    pub pitch: usize,
}

/// Fills `r` (inside the image) with `color`.
pub fn fill<P: Pixel>(dst: &mut ImgMut, r: Rect, color: P) {
    if r.is_empty() {
        return;
    }
    let b = P::BYTES;
    for y in r.top..r.bottom {
        let row = y as usize * dst.pitch;
        let span = &mut dst.data[row + r.left as usize * b..row + r.right as usize * b];
        for px in span.chunks_exact_mut(b) {
            color.store(px);
        }
    }
}

/// Copies source rectangle `s` onto destination rectangle `d`, scaled to fit by
/// nearest neighbour (destination column `i` of `d` takes source column
/// `s.left + i * s.width / d.width`, counted from the right when mirrored), writing
/// only the destination pixels inside `clip`. The whole source is read before the
/// destination is written, so `src` may be a copy of the same rows.
pub fn copy<P: Pixel>(dst: &mut ImgMut, d: Rect, clip: Rect, src: &Img, s: Rect, fx: &Fx<P>) {
    let c = clip.intersect(&d);
    if c.is_empty() || s.is_empty() {
        return;
    }
    let (dw, dh) = (d.width() as i64, d.height() as i64);
    let (sw, sh) = (s.width() as i64, s.height() as i64);
    let b = P::BYTES;
    let cols: Vec<usize> = (c.left..c.right)
        .map(|x| {
            let mut i = (x - d.left) as i64;
            if fx.mirror_lr {
                i = dw - 1 - i;
            }
            (s.left as i64 + i * sw / dw) as usize * b
        })
        .collect();
    let plain = fx.src_key.is_none() && fx.dst_key.is_none() && !fx.mirror_lr && sw == dw;
    for y in c.top..c.bottom {
        let mut j = (y - d.top) as i64;
        if fx.mirror_ud {
            j = dh - 1 - j;
        }
        let sy = (s.top as i64 + j * sh / dh) as usize;
        let srow = &src.data[sy * src.pitch..];
        let drow_at = y as usize * dst.pitch;
        let drow = &mut dst.data[drow_at..];
        if plain {
            let n = cols.len() * b;
            let from = cols[0];
            let to = c.left as usize * b;
            drow[to..to + n].copy_from_slice(&srow[from..from + n]);
            continue;
        }
        for (k, &sx) in cols.iter().enumerate() {
            let p = P::load(&srow[sx..]);
            if fx.src_key.is_some_and(|key| key.hit(p)) {
                continue;
            }
            let at = (c.left as usize + k) * b;
            if let Some(key) = fx.dst_key
                && !key.hit(P::load(&drow[at..]))
            {
                continue;
            }
            p.store(&mut drow[at..]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `w` x `h` image of one pixel type from a row-major list.
    fn img<P: Pixel>(w: usize, px: &[P]) -> (Vec<u8>, usize) {
        let pitch = (w * P::BYTES).div_ceil(4) * 4;
        let h = px.len() / w;
        let mut data = vec![0u8; pitch * h];
        for (k, p) in px.iter().enumerate() {
            p.store(&mut data[(k / w) * pitch + (k % w) * P::BYTES..]);
        }
        (data, pitch)
    }

    fn pixels<P: Pixel>(data: &[u8], pitch: usize, w: usize, h: usize) -> Vec<P> {
        let mut v = Vec::new();
        for y in 0..h {
            for x in 0..w {
                v.push(P::load(&data[y * pitch + x * P::BYTES..]));
            }
        }
        v
    }

    /// `copy` between test images given as (bytes, pitch).
    fn blit<P: Pixel>(
        dst: (&mut [u8], usize),
        d: Rect,
        clip: Rect,
        src: (&[u8], usize),
        s: Rect,
        fx: &Fx<P>,
    ) {
        let mut dst = ImgMut {
            data: dst.0,
            pitch: dst.1,
        };
        let src = Img {
            data: src.0,
            pitch: src.1,
        };
        copy(&mut dst, d, clip, &src, s, fx);
    }

    /// `src` copied with `fx` onto `dst`, both `w` pixels wide and of one size,
    /// unclipped and unscaled: the destination's pixels afterwards.
    fn copy_whole<P: Pixel>(w: usize, src: &[P], dst: &[P], fx: &Fx<P>) -> Vec<P> {
        let (s, sp) = img::<P>(w, src);
        let (mut d, dp) = img::<P>(w, dst);
        let h = dst.len() / w;
        let r = Rect::new(0, 0, w as i32, h as i32);
        blit((&mut d, dp), r, r, (&s, sp), r, fx);
        pixels::<P>(&d, dp, w, h)
    }

    #[test]
    fn fill_covers_exactly_the_rectangle() {
        let (mut d, pitch) = img::<u16>(4, &[0; 12]);
        fill(
            &mut ImgMut {
                data: &mut d,
                pitch,
            },
            Rect::new(1, 1, 3, 3),
            0xf800u16,
        );
        assert_eq!(
            pixels::<u16>(&d, pitch, 4, 3),
            vec![0, 0, 0, 0, 0, 0xf800, 0xf800, 0, 0, 0xf800, 0xf800, 0]
        );
    }

    #[test]
    fn source_colour_key_skips_key_pixels() {
        // Key 5: the 5s of the source leave the destination's 9s showing.
        let fx = Fx {
            src_key: Some(Key::<u8>::from_u32(5, 5)),
            ..Fx::default()
        };
        assert_eq!(
            copy_whole::<u8>(3, &[5, 1, 5, 2, 5, 3], &[9; 6], &fx),
            vec![9, 1, 9, 2, 9, 3]
        );
    }

    #[test]
    fn destination_colour_key_replaces_only_key_pixels() {
        // Destination key 0x001f (blue): only the blue pixels take the source.
        let fx = Fx {
            dst_key: Some(Key::<u16>::from_u32(0x001f, 0x001f)),
            ..Fx::default()
        };
        assert_eq!(
            copy_whole::<u16>(
                2,
                &[0x1111, 0x2222, 0x3333, 0x4444],
                &[0x001f, 0x07e0, 0x07e0, 0x001f],
                &fx
            ),
            vec![0x1111, 0x07e0, 0x07e0, 0x4444]
        );
    }

    #[test]
    fn key_range_covers_low_to_high() {
        let k = Key::<u32>::from_u32(10, 20);
        assert!(k.hit(10) && k.hit(15) && k.hit(20));
        assert!(!k.hit(9) && !k.hit(21));
        // High below low: the single low value.
        let k = Key::<u8>::from_u32(7, 0);
        assert!(k.hit(7) && !k.hit(0));
    }

    #[test]
    fn mirroring_reverses_columns_and_rows() {
        let run = |lr: bool, ud: bool| {
            let fx: Fx<u32> = Fx {
                mirror_lr: lr,
                mirror_ud: ud,
                ..Fx::default()
            };
            copy_whole::<u32>(3, &[1, 2, 3, 4, 5, 6], &[0; 6], &fx)
        };
        assert_eq!(run(true, false), vec![3, 2, 1, 6, 5, 4]);
        assert_eq!(run(false, true), vec![4, 5, 6, 1, 2, 3]);
        assert_eq!(run(true, true), vec![6, 5, 4, 3, 2, 1]);
    }

    #[test]
    fn stretch_doubles_and_halves_by_nearest_neighbour() {
        let (s, sp) = img::<u8>(2, &[1, 2, 3, 4]);
        let (mut d, dp) = img::<u8>(4, &[0; 16]);
        let all = Rect::new(0, 0, 4, 4);
        let src = Rect::new(0, 0, 2, 2);
        blit((&mut d, dp), all, all, (&s, sp), src, &Fx::<u8>::default());
        assert_eq!(
            pixels::<u8>(&d, dp, 4, 4),
            vec![1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4]
        );
        // 4 -> 2 columns: destination column i takes source column 2i.
        let (s, sp) = img::<u8>(4, &[1, 2, 3, 4]);
        let (mut d, dp) = img::<u8>(2, &[0; 2]);
        let all = Rect::new(0, 0, 2, 1);
        let src = Rect::new(0, 0, 4, 1);
        blit((&mut d, dp), all, all, (&s, sp), src, &Fx::<u8>::default());
        assert_eq!(pixels::<u8>(&d, dp, 2, 1), vec![1, 3]);
    }

    #[test]
    fn clipping_keeps_the_unclipped_mapping() {
        // A 2x stretch of [1 2] onto 4 columns, clipped to columns 1..3: the visible
        // pixels are those the full blit would have put there.
        let (s, sp) = img::<u8>(2, &[1, 2]);
        let (mut d, dp) = img::<u8>(4, &[0; 4]);
        blit(
            (&mut d, dp),
            Rect::new(0, 0, 4, 1),
            Rect::new(1, 0, 3, 1),
            (&s, sp),
            Rect::new(0, 0, 2, 1),
            &Fx::<u8>::default(),
        );
        assert_eq!(pixels::<u8>(&d, dp, 4, 1), vec![0, 1, 2, 0]);
    }
}
