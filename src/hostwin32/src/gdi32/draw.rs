//! Lines, shapes and pixels: SetPixel/GetPixel, MoveToEx/LineTo, Polyline, Polygon,
//! Rectangle, RoundRect, Ellipse, Arc/Pie/Chord.

use super::dc::{self, DrawCtx, OPAQUE, WINDING};
use super::objects::{
    PS_DASH, PS_DASHDOT, PS_DASHDOTDOT, PS_DOT, PS_INSIDEFRAME, PS_NULL, rgb_to_cr,
};
use super::raster::{self, Raster, with_raster};
use super::surface::Rect;
use crate::hle::{ApiDef, ApiResult, Ctx, Outcome, Ptr, stdcall};
use crate::process::Process;

const CLR_INVALID: u32 = 0xffff_ffff;

// ---- pixels ----------------------------------------------------------------------------

fn set_pixel(proc: &Process, hdc: u32, x: i32, y: i32, color: u32) -> ApiResult<Option<u32>> {
    let Some(d) = dc::resolve(proc, hdc) else {
        return Ok(None);
    };
    let (x, y) = d.to_dev(x, y);
    let c = d.color(color);
    let mut set = None;
    with_raster(proc, &d, Rect::new(x, y, x + 1, y + 1), |r| {
        if r.visible(x, y) {
            r.put(x, y, c);
            set = r.get(x, y);
        }
    })?;
    // A DIB section stores the nearest colour its format holds: read it back.
    if set.is_some() && matches!(d.target, raster::Target::Dib { .. }) {
        set = Some(raster::read_area(proc, &d, Rect::new(x, y, x + 1, y + 1))?[0]);
    }
    Ok(set)
}

pub fn SetPixel(cx: &mut Ctx, hdc: u32, x: i32, y: i32, color: u32) -> ApiResult<u32> {
    Ok(match set_pixel(cx.proc, hdc, x, y, color)? {
        Some(px) => rgb_to_cr(px),
        None => CLR_INVALID,
    })
}

pub fn SetPixelV(cx: &mut Ctx, hdc: u32, x: i32, y: i32, color: u32) -> ApiResult<bool> {
    Ok(set_pixel(cx.proc, hdc, x, y, color)?.is_some())
}

pub fn GetPixel(cx: &mut Ctx, hdc: u32, x: i32, y: i32) -> ApiResult<u32> {
    let Some(d) = dc::resolve(cx.proc, hdc) else {
        return Ok(CLR_INVALID);
    };
    let (x, y) = d.to_dev(x, y);
    if !d.clip.iter().any(|r| r.contains(x, y)) {
        return Ok(CLR_INVALID);
    }
    Ok(rgb_to_cr(
        raster::read_area(cx.proc, &d, Rect::new(x, y, x + 1, y + 1))?[0],
    ))
}

// ---- lines -------------------------------------------------------------------------------

/// The pixels of a line from (x0, y0) to (x1, y1) without the last one, as GDI draws
/// it: Bresenham stepping along the major axis.
pub fn line_points(x0: i32, y0: i32, x1: i32, y1: i32) -> Vec<(i32, i32)> {
    let (dx, dy) = ((x1 - x0).abs(), (y1 - y0).abs());
    let (sx, sy) = ((x1 - x0).signum(), (y1 - y0).signum());
    let mut v = Vec::with_capacity(dx.max(dy) as usize);
    let (mut x, mut y) = (x0, y0);
    if dx >= dy {
        let mut err = 2 * dy - dx;
        for _ in 0..dx {
            v.push((x, y));
            if err > 0 {
                y += sy;
                err -= 2 * dx;
            }
            err += 2 * dy;
            x += sx;
        }
    } else {
        let mut err = 2 * dx - dy;
        for _ in 0..dy {
            v.push((x, y));
            if err > 0 {
                x += sx;
                err -= 2 * dy;
            }
            err += 2 * dx;
            y += sy;
        }
    }
    v
}

/// The pixels of [`line_points`] that fall inside `area`, with their index along the
/// line, computed directly for the stretch of the major axis inside `area` (a line
/// with far-away end points costs only its visible part).
pub fn line_points_within(x0: i32, y0: i32, x1: i32, y1: i32, area: Rect) -> Vec<(i64, i32, i32)> {
    let (x0, y0, x1, y1) = (x0 as i64, y0 as i64, x1 as i64, y1 as i64);
    let (dx, dy) = ((x1 - x0).abs(), (y1 - y0).abs());
    let (sx, sy) = ((x1 - x0).signum(), (y1 - y0).signum());
    // Major axis: position = m0 + sm * i; minor: n0 + sn * floor((2*dn*i + dm - 1) / (2*dm)),
    // the closed form of the error-term stepping in `line_points`.
    let (m0, sm, dm, n0, sn, dn, lo, hi) = if dx >= dy {
        (x0, sx, dx, y0, sy, dy, area.left as i64, area.right as i64)
    } else {
        (y0, sy, dy, x0, sx, dx, area.top as i64, area.bottom as i64)
    };
    if dm == 0 {
        return Vec::new();
    }
    // Indices i in [0, dm) with lo <= m0 + sm * i < hi.
    let (i0, i1) = if sm > 0 {
        ((lo - m0).max(0), (hi - m0).min(dm))
    } else {
        ((m0 - hi + 1).max(0), (m0 - lo + 1).min(dm))
    };
    let mut v = Vec::new();
    for i in i0..i1 {
        let m = m0 + sm * i;
        let n = n0 + sn * ((2 * dn * i + dm - 1) / (2 * dm));
        let (x, y) = if dx >= dy { (m, n) } else { (n, m) };
        if area.contains(x as i32, y as i32) {
            v.push((i, x as i32, y as i32));
        }
    }
    v
}

/// On/off run lengths of the styled cosmetic pens (Windows 9x's dash patterns).
fn dash_pattern(style: u32) -> Option<&'static [i32]> {
    match style {
        PS_DASH => Some(&[18, 6]),
        PS_DOT => Some(&[3, 3]),
        PS_DASHDOT => Some(&[9, 6, 3, 6]),
        PS_DASHDOTDOT => Some(&[9, 3, 3, 3, 3, 3]),
        _ => None,
    }
}

/// Strokes a path of device points with the DC's pen and ROP2. `closed` joins the
/// last point to the first.
fn stroke(proc: &Process, d: &DrawCtx, pts: &[(i32, i32)], closed: bool) -> ApiResult<()> {
    if d.pen.style == PS_NULL || pts.is_empty() {
        return Ok(());
    }
    // Wider pens than this are drawn this wide (each pixel stamps a w x w disc).
    let w = d.pen.width.clamp(1, 256);
    let mut path: Vec<(i32, i32)> = pts.to_vec();
    if closed && pts.len() > 1 {
        path.push(pts[0]);
    }
    let (mut minx, mut miny, mut maxx, mut maxy) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
    for &(x, y) in &path {
        minx = minx.min(x);
        miny = miny.min(y);
        maxx = maxx.max(x);
        maxy = maxy.max(y);
    }
    let bounds = Rect::new(minx - w, miny - w, maxx + w + 1, maxy + w + 1);
    let pen = d.color(d.pen.color);
    let bk = d.color(d.a.bk_color);
    let rop2 = d.a.rop2;
    let dashes = if w == 1 {
        dash_pattern(d.pen.style)
    } else {
        None
    };
    with_raster(proc, d, bounds, |r| {
        let plot = |r: &mut Raster, x: i32, y: i32, c: u32| {
            if let Some(old) = r.get(x, y) {
                r.put(x, y, raster::rop2(rop2, c, old));
            }
        };
        let area = r.area();
        let reach = Rect::new(area.left - w, area.top - w, area.right + w, area.bottom + w);
        // Pixels drawn before this segment: styled pens continue their dash pattern
        // from one segment to the next.
        let mut done: i64 = 0;
        for seg in path.windows(2) {
            let (a, b) = (seg[0], seg[1]);
            let n = ((b.0 as i64 - a.0 as i64).abs()).max((b.1 as i64 - a.1 as i64).abs());
            let mut pixels = line_points_within(a.0, a.1, b.0, b.1, reach);
            if w > 1 {
                // Geometric pens have round ends: the end point is covered too.
                if reach.contains(b.0, b.1) {
                    pixels.push((n, b.0, b.1));
                }
                let rad = (w - 1) as f32 / 2.0;
                let lo = -(w / 2);
                let hi = lo + w;
                for (_, x, y) in pixels {
                    for oy in lo..hi {
                        for ox in lo..hi {
                            let (fx, fy) =
                                (ox as f32 - (lo as f32 + rad), oy as f32 - (lo as f32 + rad));
                            if fx * fx + fy * fy <= (rad + 0.5) * (rad + 0.5) {
                                plot(r, x + ox, y + oy, pen);
                            }
                        }
                    }
                }
                continue;
            }
            for (i, x, y) in pixels {
                match dashes {
                    None => plot(r, x, y, pen),
                    Some(p) => {
                        let total: i64 = p.iter().map(|&v| v as i64).sum();
                        let mut t = (done + i) % total;
                        let mut k = 0;
                        while t >= p[k] as i64 {
                            t -= p[k] as i64;
                            k += 1;
                        }
                        if k.is_multiple_of(2) {
                            plot(r, x, y, pen);
                        } else if d.a.bk_mode == OPAQUE {
                            plot(r, x, y, bk);
                        }
                    }
                }
            }
            done += n;
        }
    })
}

pub fn MoveToEx(cx: &mut Ctx, hdc: u32, x: i32, y: i32, lppt: Ptr) -> ApiResult<bool> {
    let Some(old) = dc::with_attrs(cx.proc, hdc, |a| std::mem::replace(&mut a.pos, (x, y))) else {
        return Ok(false);
    };
    if !lppt.is_null() {
        cx.proc.mem.write_u32(lppt.0, old.0 as u32)?;
        cx.proc.mem.write_u32(lppt.0 + 4, old.1 as u32)?;
    }
    Ok(true)
}

pub fn line_to(proc: &Process, hdc: u32, x: i32, y: i32) -> ApiResult<bool> {
    let Some(d) = dc::resolve(proc, hdc) else {
        return Ok(false);
    };
    let from = d.to_dev(d.a.pos.0, d.a.pos.1);
    let to = d.to_dev(x, y);
    stroke(proc, &d, &[from, to], false)?;
    dc::with_attrs(proc, hdc, |a| a.pos = (x, y));
    Ok(true)
}

pub fn LineTo(cx: &mut Ctx, hdc: u32, x: i32, y: i32) -> ApiResult<bool> {
    line_to(cx.proc, hdc, x, y)
}

fn read_points(proc: &Process, p: u32, n: i32) -> ApiResult<Vec<(i32, i32)>> {
    let n = n.clamp(0, 1 << 20) as u32;
    let mut v = Vec::with_capacity(n as usize);
    for i in 0..n {
        let x = proc.mem.read_u32(p + 8 * i)? as i32;
        let y = proc.mem.read_u32(p + 8 * i + 4)? as i32;
        v.push((x, y));
    }
    Ok(v)
}

pub fn Polyline(cx: &mut Ctx, hdc: u32, apt: Ptr, cpt: i32) -> ApiResult<bool> {
    if cpt < 2 {
        return Ok(false);
    }
    let Some(d) = dc::resolve(cx.proc, hdc) else {
        return Ok(false);
    };
    let pts: Vec<_> = read_points(cx.proc, apt.0, cpt)?
        .into_iter()
        .map(|(x, y)| d.to_dev(x, y))
        .collect();
    stroke(cx.proc, &d, &pts, false)?;
    Ok(true)
}

/// Polyline with the points already read (metafile playback).
pub fn polyline(proc: &Process, hdc: u32, pts: &[(i32, i32)]) -> ApiResult<bool> {
    if pts.len() < 2 {
        return Ok(false);
    }
    let Some(d) = dc::resolve(proc, hdc) else {
        return Ok(false);
    };
    let pts: Vec<_> = pts.iter().map(|&(x, y)| d.to_dev(x, y)).collect();
    stroke(proc, &d, &pts, false)?;
    Ok(true)
}

pub fn PolylineTo(cx: &mut Ctx, hdc: u32, apt: Ptr, cpt: u32) -> ApiResult<bool> {
    let Some(d) = dc::resolve(cx.proc, hdc) else {
        return Ok(false);
    };
    let pts = read_points(cx.proc, apt.0, cpt as i32)?;
    let Some(&last) = pts.last() else {
        return Ok(true);
    };
    let mut dev = vec![d.to_dev(d.a.pos.0, d.a.pos.1)];
    dev.extend(pts.iter().map(|&(x, y)| d.to_dev(x, y)));
    stroke(cx.proc, &d, &dev, false)?;
    dc::with_attrs(cx.proc, hdc, |a| a.pos = last);
    Ok(true)
}

// ---- filled shapes ---------------------------------------------------------------------

/// Fills the pixels for which `inside` holds with the brush (ROP2 applied), then the
/// pixels of `outline` with the pen colour.
fn fill_shape(
    proc: &Process,
    d: &DrawCtx,
    bounds: Rect,
    inside: &dyn Fn(i32, i32) -> bool,
    outline: &dyn Fn(i32, i32) -> bool,
) -> ApiResult<()> {
    let pen = d.color(d.pen.color);
    let has_pen = d.pen.style != PS_NULL;
    let rop2 = d.a.rop2;
    with_raster(proc, d, bounds, |r| {
        let a = bounds.intersect(&r.area());
        for y in a.top..a.bottom {
            for x in a.left..a.right {
                let Some(old) = r.get(x, y) else { continue };
                if has_pen && outline(x, y) {
                    r.put(x, y, raster::rop2(rop2, pen, old));
                } else if inside(x, y)
                    && let Some(b) = raster::brush_pixel(d, &d.brush, x, y)
                {
                    r.put(x, y, raster::rop2(rop2, b, old));
                }
            }
        }
    })
}

fn norm(l: i32, t: i32, r: i32, b: i32) -> Rect {
    Rect::new(l.min(r), t.min(b), l.max(r), t.max(b))
}

fn pen_width(d: &DrawCtx) -> i32 {
    if d.pen.style == PS_NULL {
        0
    } else {
        d.pen.width.max(1)
    }
}

pub fn rectangle(proc: &Process, hdc: u32, l: i32, t: i32, r: i32, b: i32) -> ApiResult<bool> {
    let Some(d) = dc::resolve(proc, hdc) else {
        return Ok(false);
    };
    let rc = d.rect_to_dev(norm(l, t, r, b));
    let w = pen_width(&d);
    // The shape covers left..right-1 and top..bottom-1; a wide pen is centred on
    // that outline unless it is PS_INSIDEFRAME.
    let (outer, inner) = if w <= 1 || d.pen.style == PS_INSIDEFRAME {
        (
            Rect::new(
                rc.left,
                rc.top,
                rc.right - 1 + (w > 0) as i32,
                rc.bottom - 1 + (w > 0) as i32,
            ),
            Rect::new(rc.left + w, rc.top + w, rc.right - w, rc.bottom - w),
        )
    } else {
        let h1 = w / 2;
        let h2 = w - h1;
        (
            Rect::new(
                rc.left - h1,
                rc.top - h1,
                rc.right - 1 + h2,
                rc.bottom - 1 + h2,
            ),
            Rect::new(
                rc.left + h2,
                rc.top + h2,
                rc.right - 1 - h1,
                rc.bottom - 1 - h1,
            ),
        )
    };
    let fill = if w == 0 {
        Rect::new(rc.left, rc.top, rc.right - 1, rc.bottom - 1)
    } else {
        inner
    };
    let bounds = Rect::new(
        outer.left.min(fill.left),
        outer.top.min(fill.top),
        outer.right.max(fill.right),
        outer.bottom.max(fill.bottom),
    );
    fill_shape(proc, &d, bounds, &|x, y| fill.contains(x, y), &|x, y| {
        outer.contains(x, y) && !inner.contains(x, y)
    })?;
    Ok(true)
}

pub fn Rectangle(
    cx: &mut Ctx,
    hdc: u32,
    left: i32,
    top: i32,
    right: i32,
    bottom: i32,
) -> ApiResult<bool> {
    rectangle(cx.proc, hdc, left, top, right, bottom)
}

/// Inside test of the ellipse inscribed in `r` (right/bottom exclusive), shrunk by
/// `inset` pixels, at pixel centres.
fn in_ellipse(r: Rect, inset: f32, x: i32, y: i32) -> bool {
    let cx = (r.left + r.right - 1) as f32 / 2.0;
    let cy = (r.top + r.bottom - 1) as f32 / 2.0;
    let a = (r.width() - 1) as f32 / 2.0 + 0.5 - inset;
    let b = (r.height() - 1) as f32 / 2.0 + 0.5 - inset;
    if a <= 0.0 || b <= 0.0 {
        return false;
    }
    let (dx, dy) = ((x as f32 - cx) / a, (y as f32 - cy) / b);
    dx * dx + dy * dy <= 1.0
}

/// The pixels of an inside test within `w` pixels (horizontally or vertically) of its
/// edge: the outline a pen of width `w` draws.
fn edge_of(inside: &dyn Fn(i32, i32) -> bool, w: i32, x: i32, y: i32) -> bool {
    inside(x, y)
        && (1..=w).any(|k| {
            !inside(x - k, y) || !inside(x + k, y) || !inside(x, y - k) || !inside(x, y + k)
        })
}

pub fn Ellipse(
    cx: &mut Ctx,
    hdc: u32,
    left: i32,
    top: i32,
    right: i32,
    bottom: i32,
) -> ApiResult<bool> {
    let Some(d) = dc::resolve(cx.proc, hdc) else {
        return Ok(false);
    };
    let rc = d.rect_to_dev(norm(left, top, right, bottom));
    let w = pen_width(&d);
    let inside = move |x, y| in_ellipse(rc, 0.0, x, y);
    fill_shape(cx.proc, &d, rc, &inside, &|x, y| edge_of(&inside, w, x, y))?;
    Ok(true)
}

pub fn RoundRect(
    cx: &mut Ctx,
    hdc: u32,
    left: i32,
    top: i32,
    right: i32,
    bottom: i32,
    width: i32,
    height: i32,
) -> ApiResult<bool> {
    let Some(d) = dc::resolve(cx.proc, hdc) else {
        return Ok(false);
    };
    let rc = d.rect_to_dev(norm(left, top, right, bottom));
    let (ew, eh) = (width.abs().min(rc.width()), height.abs().min(rc.height()));
    let inside = move |x: i32, y: i32| {
        if !Rect::new(rc.left, rc.top, rc.right - 1, rc.bottom - 1).contains(x, y) {
            return false;
        }
        // In a corner square, the pixel must be inside that corner's ellipse.
        let cxr = if x < rc.left + ew / 2 {
            Some(rc.left)
        } else if x >= rc.right - 1 - ew / 2 {
            Some(rc.right - 1 - ew)
        } else {
            None
        };
        let cyr = if y < rc.top + eh / 2 {
            Some(rc.top)
        } else if y >= rc.bottom - 1 - eh / 2 {
            Some(rc.bottom - 1 - eh)
        } else {
            None
        };
        match (cxr, cyr) {
            (Some(l), Some(t)) => in_ellipse(Rect::new(l, t, l + ew + 1, t + eh + 1), 0.0, x, y),
            _ => true,
        }
    };
    let w = pen_width(&d);
    fill_shape(cx.proc, &d, rc, &inside, &|x, y| edge_of(&inside, w, x, y))?;
    Ok(true)
}

#[derive(Clone, Copy, PartialEq)]
pub enum ArcKind {
    Arc,
    Pie,
    Chord,
}

/// Angle of (x, y) around the centre, counter-clockwise on screen, in [0, 2pi).
fn angle(cx: f32, cy: f32, x: f32, y: f32) -> f32 {
    let a = (-(y - cy)).atan2(x - cx);
    if a < 0.0 {
        a + std::f32::consts::TAU
    } else {
        a
    }
}

pub fn arc_shape(cx: &mut Ctx, hdc: u32, a: [i32; 8], kind: ArcKind) -> ApiResult<bool> {
    let Some(d) = dc::resolve(cx.proc, hdc) else {
        return Ok(false);
    };
    let rc = d.rect_to_dev(norm(a[0], a[1], a[2], a[3]));
    let (sx, sy) = d.to_dev(a[4], a[5]);
    let (ex, ey) = d.to_dev(a[6], a[7]);
    let ccx = (rc.left + rc.right - 1) as f32 / 2.0;
    let ccy = (rc.top + rc.bottom - 1) as f32 / 2.0;
    let a0 = angle(ccx, ccy, sx as f32, sy as f32);
    let a1 = angle(ccx, ccy, ex as f32, ey as f32);
    let in_range = move |x: i32, y: i32| {
        let t = angle(ccx, ccy, x as f32, y as f32);
        if a0 <= a1 {
            t >= a0 && t <= a1
        } else {
            t >= a0 || t <= a1
        }
    };
    let w = pen_width(&d);
    let ell = move |x, y| in_ellipse(rc, 0.0, x, y);
    // The chord's line through the arc's end points on the ellipse.
    let pa = (
        ccx + a0.cos() * rc.width() as f32,
        ccy - a0.sin() * rc.height() as f32,
    );
    let pb = (
        ccx + a1.cos() * rc.width() as f32,
        ccy - a1.sin() * rc.height() as f32,
    );
    let beyond_chord = move |x: i32, y: i32| {
        let cross = (pb.0 - pa.0) * (y as f32 - pa.1) - (pb.1 - pa.1) * (x as f32 - pa.0);
        cross <= 0.0
    };
    let inside = move |x: i32, y: i32| {
        ell(x, y)
            && match kind {
                ArcKind::Arc => false,
                ArcKind::Pie => in_range(x, y),
                ArcKind::Chord => beyond_chord(x, y),
            }
    };
    let outline = |x: i32, y: i32| match kind {
        ArcKind::Arc => edge_of(&ell, w, x, y) && in_range(x, y),
        _ => edge_of(&inside, w, x, y),
    };
    fill_shape(cx.proc, &d, rc, &inside, &outline)?;
    Ok(true)
}

pub fn Arc(
    cx: &mut Ctx,
    hdc: u32,
    x1: i32,
    y1: i32,
    x2: i32,
    y2: i32,
    x3: i32,
    y3: i32,
    x4: i32,
    y4: i32,
) -> ApiResult<bool> {
    arc_shape(cx, hdc, [x1, y1, x2, y2, x3, y3, x4, y4], ArcKind::Arc)
}

pub fn Pie(
    cx: &mut Ctx,
    hdc: u32,
    x1: i32,
    y1: i32,
    x2: i32,
    y2: i32,
    x3: i32,
    y3: i32,
    x4: i32,
    y4: i32,
) -> ApiResult<bool> {
    arc_shape(cx, hdc, [x1, y1, x2, y2, x3, y3, x4, y4], ArcKind::Pie)
}

pub fn Chord(
    cx: &mut Ctx,
    hdc: u32,
    x1: i32,
    y1: i32,
    x2: i32,
    y2: i32,
    x3: i32,
    y3: i32,
    x4: i32,
    y4: i32,
) -> ApiResult<bool> {
    arc_shape(cx, hdc, [x1, y1, x2, y2, x3, y3, x4, y4], ArcKind::Chord)
}

/// Scan-line polygon fill, ALTERNATE (even-odd) or WINDING. As GDI's polygon
/// regions do, a pixel is sampled at its integer coordinate (its top-left corner), not
/// its centre: rows are top-inclusive and bottom-exclusive, spans left-inclusive and
/// right-exclusive, so the fill never reaches outside the pen's Bresenham outline.
pub fn polygon_inside(polys: &[Vec<(i32, i32)>], winding: bool, x: i32, y: i32) -> bool {
    let (px, py) = (x as f64, y as f64);
    let mut wn = 0i32;
    let mut crossings = 0;
    for poly in polys {
        let n = poly.len();
        for i in 0..n {
            let (x0, y0) = (poly[i].0 as f64, poly[i].1 as f64);
            let (x1, y1) = (poly[(i + 1) % n].0 as f64, poly[(i + 1) % n].1 as f64);
            if (y0 <= py) != (y1 <= py) {
                let t = (py - y0) / (y1 - y0);
                let xi = x0 + t * (x1 - x0);
                if xi <= px {
                    crossings += 1;
                    wn += if y1 > y0 { 1 } else { -1 };
                }
            }
        }
    }
    if winding { wn != 0 } else { crossings % 2 == 1 }
}

pub fn polygons(proc: &Process, hdc: u32, polys: Vec<Vec<(i32, i32)>>) -> ApiResult<bool> {
    let Some(d) = dc::resolve(proc, hdc) else {
        return Ok(false);
    };
    let polys: Vec<Vec<(i32, i32)>> = polys
        .into_iter()
        .map(|p| p.into_iter().map(|(x, y)| d.to_dev(x, y)).collect())
        .collect();
    let (mut minx, mut miny, mut maxx, mut maxy) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
    for &(x, y) in polys.iter().flatten() {
        minx = minx.min(x);
        miny = miny.min(y);
        maxx = maxx.max(x);
        maxy = maxy.max(y);
    }
    if minx > maxx {
        return Ok(true);
    }
    let winding = d.a.fill_mode == WINDING;
    let bounds = Rect::new(minx, miny, maxx + 1, maxy + 1);
    fill_shape(
        proc,
        &d,
        bounds,
        &|x, y| polygon_inside(&polys, winding, x, y),
        &|_, _| false,
    )?;
    for p in &polys {
        stroke(proc, &d, p, true)?;
    }
    Ok(true)
}

pub fn Polygon(cx: &mut Ctx, hdc: u32, apt: Ptr, cpt: i32) -> ApiResult<bool> {
    if cpt < 2 {
        return Ok(false);
    }
    let pts = read_points(cx.proc, apt.0, cpt)?;
    polygons(cx.proc, hdc, vec![pts])
}

pub fn PolyPolygon(cx: &mut Ctx, hdc: u32, apt: Ptr, asz: Ptr, csz: i32) -> ApiResult<bool> {
    let mut polys = Vec::new();
    let mut at = apt.0;
    for i in 0..csz.clamp(0, 1 << 16) as u32 {
        let n = cx.proc.mem.read_u32(asz.0 + 4 * i)? as i32;
        polys.push(read_points(cx.proc, at, n)?);
        at = at.wrapping_add(8 * n.max(0) as u32);
    }
    polygons(cx.proc, hdc, polys)
}

const FLOODFILLBORDER: u32 = 0;
const FLOODFILLSURFACE: u32 = 1;

/// ExtFloodFill: fills with the brush the 4-connected area around (x, y) that is
/// bounded by `color` (FLOODFILLBORDER) or made of `color` (FLOODFILLSURFACE).
pub fn ExtFloodFill(
    cx: &mut Ctx,
    hdc: u32,
    x: i32,
    y: i32,
    color: u32,
    type_: u32,
) -> ApiResult<bool> {
    let Some(d) = dc::resolve(cx.proc, hdc) else {
        return Ok(false);
    };
    if type_ != FLOODFILLBORDER && type_ != FLOODFILLSURFACE {
        return Ok(false);
    }
    let (x, y) = d.to_dev(x, y);
    let c = d.color(color);
    let bounds = super::dc::target_bounds(&d.target);
    let mut filled = false;
    with_raster(cx.proc, &d, bounds, |r| {
        let fillable = |p: u32| {
            if type_ == FLOODFILLBORDER {
                p != c
            } else {
                p == c
            }
        };
        match r.get(x, y) {
            Some(p) if fillable(p) => {}
            _ => return,
        }
        // Pixels are decided on their colour before the fill changes them.
        let w = bounds.width() as usize;
        let mut seen = vec![false; w * bounds.height().max(0) as usize];
        let mut stack = vec![(x, y)];
        let mut area = Vec::new();
        while let Some((px, py)) = stack.pop() {
            if !bounds.contains(px, py) {
                continue;
            }
            let i = (py - bounds.top) as usize * w + (px - bounds.left) as usize;
            if seen[i] {
                continue;
            }
            seen[i] = true;
            match r.get(px, py) {
                Some(p) if fillable(p) => {}
                _ => continue,
            }
            area.push((px, py));
            stack.extend([(px + 1, py), (px - 1, py), (px, py + 1), (px, py - 1)]);
        }
        for (px, py) in area {
            if let (Some(old), Some(b)) = (r.get(px, py), raster::brush_pixel(&d, &d.brush, px, py))
            {
                r.put(px, py, raster::rop2(d.a.rop2, b, old));
            }
        }
        filled = true;
    })?;
    Ok(filled)
}

pub fn FloodFill(cx: &mut Ctx, hdc: u32, x: i32, y: i32, color: u32) -> ApiResult<bool> {
    ExtFloodFill(cx, hdc, x, y, color, FLOODFILLBORDER)
}

/// LineDDA: calls `lpProc(x, y, data)` for every point of the line from
/// (`xStart`, `yStart`) to (`xEnd`, `yEnd`), the end point excluded, stepping one
/// unit along the longer axis (the y axis when both are equal) and moving on the
/// other axis when the error term of the midpoint rule turns positive.
pub fn LineDDA(
    cx: &mut Ctx,
    xStart: i32,
    yStart: i32,
    xEnd: i32,
    yEnd: i32,
    lpProc: u32,
    data: u32,
) -> ApiResult<Outcome> {
    let (dx, dy) = (
        (xEnd as i64 - xStart as i64).abs(),
        (yEnd as i64 - yStart as i64).abs(),
    );
    let (sx, sy) = (
        if xEnd < xStart { -1 } else { 1 },
        if yEnd < yStart { -1 } else { 1 },
    );
    // The major axis advances every step, the minor one when the error is positive.
    let (major, minor) = if dx > dy { (dx, dy) } else { (dy, dx) };
    let mut err = 2 * minor - major;
    let (mut x, mut y) = (xStart, yStart);
    for _ in 0..major {
        if let Err(end) = super::text::call_guest(cx, lpProc, &[x as u32, y as u32, data])? {
            return Ok(end);
        }
        let step_minor = err > 0;
        if step_minor {
            err += 2 * (minor - major);
        } else {
            err += 2 * minor;
        }
        if dx > dy {
            x = x.wrapping_add(sx);
            if step_minor {
                y = y.wrapping_add(sy);
            }
        } else {
            y = y.wrapping_add(sy);
            if step_minor {
                x = x.wrapping_add(sx);
            }
        }
    }
    Ok(Outcome::Return(1))
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("LineDDA", LineDDA),
        stdcall("SetPixel", SetPixel),
        stdcall("SetPixelV", SetPixelV),
        stdcall("GetPixel", GetPixel),
        stdcall("MoveToEx", MoveToEx),
        stdcall("LineTo", LineTo),
        stdcall("Polyline", Polyline),
        stdcall("PolylineTo", PolylineTo),
        stdcall("Rectangle", Rectangle),
        stdcall("Ellipse", Ellipse),
        stdcall("RoundRect", RoundRect),
        stdcall("Arc", Arc),
        stdcall("Pie", Pie),
        stdcall("Chord", Chord),
        stdcall("Polygon", Polygon),
        stdcall("PolyPolygon", PolyPolygon),
        stdcall("ExtFloodFill", ExtFloodFill),
        stdcall("FloodFill", FloodFill),
    ]
}
