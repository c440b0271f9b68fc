//! Pixel access for drawing: a [`Raster`] is a clipped window onto a target's pixels
//! (a locked surface, or DIB section rows decoded from guest memory and written back
//! afterwards), plus the raster operations (ROP2 and ROP3) and brush sampling.

use super::dc::{DrawCtx, OPAQUE};
use super::dib::{DibFormat, Nearest};
use super::objects::{Brush, cr_to_rgb};
use super::surface::{Rect, SurfaceRef};
use crate::hle::ApiResult;
use crate::process::Process;

/// Where a DC's pixels are.
#[derive(Clone)]
pub enum Target {
    /// Device pixel (x, y) is surface pixel (x + origin.0, y + origin.1); `bounds` is
    /// the drawable part in device coordinates.
    Surface {
        surf: SurfaceRef,
        origin: (i32, i32),
        bounds: Rect,
    },
    /// A DIB section: device pixel (x, y) is picture pixel (x, y) of the guest bits.
    Dib { bits: u32, fmt: DibFormat },
}

/// A clipped view of pixels (0x00RRGGBB) in device coordinates.
pub struct Raster<'a> {
    px: &'a mut [u32],
    stride: usize,
    /// Device coordinates of `px[0]`.
    bx: i32,
    by: i32,
    clip: Vec<Rect>,
    mono: bool,
}

/// Nearest of black and white, for drawing into monochrome bitmaps.
pub fn to_mono(c: u32) -> u32 {
    let (r, g, b) = ((c >> 16) & 0xff, (c >> 8) & 0xff, c & 0xff);
    if r + g + b >= 0x180 { 0xff_ffff } else { 0 }
}

impl Raster<'_> {
    fn index(&self, x: i32, y: i32) -> usize {
        (y - self.by) as usize * self.stride + (x - self.bx) as usize
    }

    pub fn visible(&self, x: i32, y: i32) -> bool {
        self.clip.iter().any(|r| r.contains(x, y))
    }

    /// The pixel at (x, y) if it is inside the clip.
    pub fn get(&self, x: i32, y: i32) -> Option<u32> {
        if self.visible(x, y) {
            Some(self.px[self.index(x, y)])
        } else {
            None
        }
    }

    pub fn put(&mut self, x: i32, y: i32, c: u32) {
        if self.visible(x, y) {
            let i = self.index(x, y);
            self.px[i] = if self.mono { to_mono(c) } else { c & 0xff_ffff };
        }
    }

    /// The part `a..b` of row `y`'s `x0..x1` inside clip rectangle `k`, if any.
    fn run_in(&self, k: usize, y: i32, x0: i32, x1: i32) -> Option<(i32, i32)> {
        let r = self.clip[k];
        let (a, b) = (x0.max(r.left), x1.min(r.right));
        (y >= r.top && y < r.bottom && a < b).then_some((a, b))
    }

    /// Applies `f(x, old) -> new` to the visible pixels of row `y` in `x0..x1`.
    pub fn span(&mut self, y: i32, x0: i32, x1: i32, mut f: impl FnMut(i32, u32) -> u32) {
        for k in 0..self.clip.len() {
            let Some((a, b)) = self.run_in(k, y, x0, x1) else {
                continue;
            };
            for x in a..b {
                let i = self.index(x, y);
                let c = f(x, self.px[i]);
                self.px[i] = if self.mono { to_mono(c) } else { c & 0xff_ffff };
            }
        }
    }

    /// `span` with one colour for every pixel (a solid brush): the colour is
    /// converted for the target once, not per pixel.
    pub fn fill_span(&mut self, y: i32, x0: i32, x1: i32, c: u32) {
        let c = if self.mono { to_mono(c) } else { c & 0xff_ffff };
        for k in 0..self.clip.len() {
            if let Some((a, b)) = self.run_in(k, y, x0, x1) {
                let i = self.index(a, y);
                self.px[i..i + (b - a) as usize].fill(c);
            }
        }
    }

    /// `span` for a plain copy: pixel x of row y becomes `src[x - x0]`, for x in
    /// `x0..x0 + src.len()` (a blit with SRCCOPY and no stretch).
    pub fn copy_span(&mut self, y: i32, x0: i32, src: &[u32]) {
        let x1 = x0.saturating_add(src.len() as i32);
        for k in 0..self.clip.len() {
            let Some((a, b)) = self.run_in(k, y, x0, x1) else {
                continue;
            };
            let i = self.index(a, y);
            let from = &src[(a - x0) as usize..(b - x0) as usize];
            let to = &mut self.px[i..i + from.len()];
            if self.mono {
                to.iter_mut().zip(from).for_each(|(d, &s)| *d = to_mono(s));
            } else {
                to.iter_mut()
                    .zip(from)
                    .for_each(|(d, &s)| *d = s & 0xff_ffff);
            }
        }
    }

    pub fn clip_rects(&self) -> &[Rect] {
        &self.clip
    }

    /// The bounding box of the drawable pixels: loops over a shape's rows and
    /// columns stay inside it, however large the guest's coordinates.
    pub fn area(&self) -> Rect {
        bbox(&self.clip)
    }
}

fn bbox(rs: &[Rect]) -> Rect {
    let Some(&first) = rs.first() else {
        return Rect::default();
    };
    rs.iter().skip(1).fold(first, |a, r| {
        Rect::new(
            a.left.min(r.left),
            a.top.min(r.top),
            a.right.max(r.right),
            a.bottom.max(r.bottom),
        )
    })
}

/// Runs `f` on a surface's pixels clipped to `clip` (surface coordinates), for drawing
/// done by the system rather than through a DC: USER32's menu bar and menus, which
/// Windows draws in the non-client area and in windows of its own.
pub fn with_surface(s: &mut super::Surface, clip: Rect, f: impl FnOnce(&mut Raster)) {
    let clip = clip.intersect(&Rect::new(0, 0, s.width as i32, s.height as i32));
    if clip.is_empty() {
        return;
    }
    let stride = s.width as usize;
    let mut r = Raster {
        px: &mut s.pixels,
        stride,
        bx: 0,
        by: 0,
        clip: vec![clip],
        mono: false,
    };
    f(&mut r);
}

/// Runs `f` on the pixels of the DC's target within `bounds` (device coordinates),
/// clipped to the DC's clip. DIB section pixels are read from guest memory first and
/// written back afterwards.
pub fn with_raster(
    proc: &Process,
    dc: &DrawCtx,
    bounds: Rect,
    f: impl FnOnce(&mut Raster),
) -> ApiResult<()> {
    let clip: Vec<Rect> = dc
        .clip
        .iter()
        .map(|r| r.intersect(&bounds))
        .filter(|r| !r.is_empty())
        .collect();
    if clip.is_empty() {
        return Ok(());
    }
    let bbox = bbox(&clip);
    match &dc.target {
        Target::Surface { surf, origin, .. } => {
            let mut s = surf.lock().unwrap_or_else(|e| e.into_inner());
            let sb = Rect::new(
                -origin.0,
                -origin.1,
                s.width as i32 - origin.0,
                s.height as i32 - origin.1,
            );
            let clip: Vec<Rect> = clip
                .iter()
                .map(|r| r.intersect(&sb))
                .filter(|r| !r.is_empty())
                .collect();
            if clip.is_empty() {
                return Ok(());
            }
            let stride = s.width as usize;
            let mut r = Raster {
                px: &mut s.pixels,
                stride,
                bx: -origin.0,
                by: -origin.1,
                clip,
                mono: dc.mono,
            };
            f(&mut r);
        }
        Target::Dib { bits, fmt } => {
            let (w, h) = (bbox.width() as usize, bbox.height() as usize);
            let stride = fmt.stride();
            let mut rows = vec![0u8; stride * h];
            let mut px = vec![0u32; w * h];
            for y in 0..h {
                let row = &mut rows[y * stride..(y + 1) * stride];
                let addr = bits.wrapping_add(fmt.row_offset(bbox.top + y as i32) as u32);
                proc.mem.read_bytes(addr, row)?;
                for x in 0..w {
                    px[y * w + x] = fmt.get(row, bbox.left as usize + x);
                }
            }
            let before = px.clone();
            let mut r = Raster {
                px: &mut px,
                stride: w,
                bx: bbox.left,
                by: bbox.top,
                clip,
                mono: false,
            };
            f(&mut r);
            let mut near = Nearest::default();
            for y in 0..h {
                let row = &mut rows[y * stride..(y + 1) * stride];
                let mut changed = false;
                for x in 0..w {
                    let i = y * w + x;
                    if px[i] != before[i] {
                        fmt.put(row, bbox.left as usize + x, px[i], &mut near);
                        changed = true;
                    }
                }
                if changed {
                    let addr = bits.wrapping_add(fmt.row_offset(bbox.top + y as i32) as u32);
                    proc.mem.write_bytes(addr, row)?;
                }
            }
        }
    }
    Ok(())
}

/// The pixels of `r` (device coordinates) of a DC's target, row-major; pixels outside
/// the target read as 0.
pub fn read_area(proc: &Process, dc: &DrawCtx, r: Rect) -> ApiResult<Vec<u32>> {
    let (w, h) = (r.width().max(0) as usize, r.height().max(0) as usize);
    let mut out = vec![0u32; w * h];
    let tb = super::dc::target_bounds(&dc.target);
    let vis = r.intersect(&tb);
    if vis.is_empty() {
        return Ok(out);
    }
    match &dc.target {
        Target::Surface { surf, origin, .. } => {
            let s = surf.lock().unwrap_or_else(|e| e.into_inner());
            // The part of `vis` on the surface, copied a row at a time.
            let on = vis.intersect(&Rect::new(
                -origin.0,
                -origin.1,
                s.width as i32 - origin.0,
                s.height as i32 - origin.1,
            ));
            if on.is_empty() {
                return Ok(out);
            }
            let n = on.width() as usize;
            for y in on.top..on.bottom {
                let from =
                    (y + origin.1) as usize * s.width as usize + (on.left + origin.0) as usize;
                let to = (y - r.top) as usize * w + (on.left - r.left) as usize;
                out[to..to + n].copy_from_slice(&s.pixels[from..from + n]);
            }
        }
        Target::Dib { bits, fmt } => {
            let mut row = vec![0u8; fmt.stride()];
            for y in vis.top..vis.bottom {
                let addr = bits.wrapping_add(fmt.row_offset(y) as u32);
                proc.mem.read_bytes(addr, &mut row)?;
                for x in vis.left..vis.right {
                    out[(y - r.top) as usize * w + (x - r.left) as usize] =
                        fmt.get(&row, x as usize);
                }
            }
        }
    }
    Ok(out)
}

/// A binary raster operation (R2_*, 1..=16) on pen colour `p` and destination `d`.
pub fn rop2(mode: u32, p: u32, d: u32) -> u32 {
    // R2_x - 1 is the truth table over (P, D) with P = 0b1100 and D = 0b1010.
    let t = mode.wrapping_sub(1) & 15;
    let mut r = 0;
    for k in 0..4 {
        if t >> k & 1 == 1 {
            let pm = if 0xc >> k & 1 == 1 { p } else { !p };
            let dm = if 0xa >> k & 1 == 1 { d } else { !d };
            r |= pm & dm;
        }
    }
    r & 0xff_ffff
}

/// A ternary raster operation: `code` is the ROP's index byte (bits 16..23 of the
/// DWORD ROP), the truth table over P = 0xF0, S = 0xCC, D = 0xAA.
pub fn rop3(code: u8, p: u32, s: u32, d: u32) -> u32 {
    match code {
        0xcc => return s,
        0xf0 => return p,
        0x00 => return 0,
        0xff => return 0xff_ffff,
        0x66 => return s ^ d,
        0x88 => return s & d,
        0xee => return s | d,
        0x55 => return !d & 0xff_ffff,
        0x5a => return p ^ d,
        _ => {}
    }
    let mut r = 0;
    for k in 0..8 {
        if code >> k & 1 == 1 {
            let pm = if 0xf0 >> k & 1 == 1 { p } else { !p };
            let sm = if 0xcc >> k & 1 == 1 { s } else { !s };
            let dm = if 0xaa >> k & 1 == 1 { d } else { !d };
            r |= pm & sm & dm;
        }
    }
    r & 0xff_ffff
}

pub fn rop_uses_source(code: u8) -> bool {
    ((code >> 2) ^ code) & 0x33 != 0
}

pub fn rop_uses_pattern(code: u8) -> bool {
    ((code >> 4) ^ code) & 0x0f != 0
}

/// Hatch patterns (HS_HORIZONTAL..HS_DIAGCROSS) as 8 rows of bits, MSB = leftmost.
const HATCHES: [[u8; 8]; 6] = [
    [0, 0, 0, 0xff, 0, 0, 0, 0],
    [0x08; 8],
    [0x80, 0x40, 0x20, 0x10, 0x08, 0x04, 0x02, 0x01],
    [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80],
    [0x08, 0x08, 0x08, 0xff, 0x08, 0x08, 0x08, 0x08],
    [0x81, 0x42, 0x24, 0x18, 0x18, 0x24, 0x42, 0x81],
];

/// A brush's colour at device pixel (x, y) in a DC; None where it paints nothing
/// (a null brush, or a hatch's gaps in TRANSPARENT mode).
pub fn brush_pixel(dc: &DrawCtx, b: &Brush, x: i32, y: i32) -> Option<u32> {
    match b {
        Brush::Solid(c) => Some(dc.color(*c)),
        Brush::Null => None,
        Brush::Hatch { style, color } => {
            let rows = HATCHES.get(*style as usize)?;
            let (bx, by) = (
                (x - dc.a.brush_org.0).rem_euclid(8),
                (y - dc.a.brush_org.1).rem_euclid(8),
            );
            if rows[by as usize] >> (7 - bx) & 1 == 1 {
                Some(dc.color(*color))
            } else if dc.a.bk_mode == OPAQUE {
                Some(dc.color(dc.a.bk_color))
            } else {
                None
            }
        }
        Brush::Pattern(p) => {
            if p.width <= 0 || p.height <= 0 {
                return None;
            }
            let px = (x - dc.a.brush_org.0).rem_euclid(p.width);
            let py = (y - dc.a.brush_org.1).rem_euclid(p.height);
            let c = p.pixels[(py * p.width + px) as usize];
            if p.mono {
                Some(if c == 0 {
                    cr_to_rgb(dc.a.text_color & 0xff_ffff)
                } else {
                    cr_to_rgb(dc.a.bk_color & 0xff_ffff)
                })
            } else {
                Some(c)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two rasters over the same pixels and clip (three rectangles, the rows drawn
    /// running past the clip on both sides), one drawn with `span`, one with the
    /// fast path.
    fn both(mono: bool, fast: impl Fn(&mut Raster, i32), slow: impl Fn(&mut Raster, i32)) {
        let (w, h) = (40usize, 12usize);
        let start: Vec<u32> = (0..w * h)
            .map(|k| (k as u32).wrapping_mul(0x9e37_79b9))
            .collect();
        // Inside the pixels (device x 3..43, y 1..13), as `with_raster` clips.
        let clip = vec![
            Rect::new(7, 2, 19, 9),
            Rect::new(25, 1, 43, 5),
            Rect::new(3, 8, 6, 13),
        ];
        let run = |f: &dyn Fn(&mut Raster, i32)| {
            let mut px = start.clone();
            let mut r = Raster {
                px: &mut px,
                stride: w,
                bx: 3,
                by: 1,
                clip: clip.clone(),
                mono,
            };
            for y in -2..14 {
                f(&mut r, y);
            }
            px
        };
        assert_eq!(run(&fast), run(&slow), "mono {mono}");
    }

    #[test]
    fn fill_span_is_span_with_one_colour() {
        for mono in [false, true] {
            for c in [0x12_3456u32, 0xffff_ffffu32, 0x80_8080, 0] {
                both(
                    mono,
                    |r, y| r.fill_span(y, 2, 38, c),
                    |r, y| r.span(y, 2, 38, |_, _| c),
                );
            }
        }
    }

    #[test]
    fn copy_span_is_span_reading_the_source_row() {
        let src: Vec<u32> = (0..50u32)
            .map(|k| k.wrapping_mul(0x0107_0503) | 0xff00_0000)
            .collect();
        for mono in [false, true] {
            for x0 in [-5, 0, 6, 30] {
                both(
                    mono,
                    |r, y| r.copy_span(y, x0, &src[..33]),
                    |r, y| r.span(y, x0, x0 + 33, |x, _| src[(x - x0) as usize]),
                );
            }
        }
    }
}
