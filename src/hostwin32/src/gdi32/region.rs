//! Regions as lists of non-overlapping rectangles, their set operations, and DC
//! clipping (SelectClipRgn, IntersectClipRect, ExcludeClipRect, GetClipBox...).

use super::dc::{self, DrawCtx};
use super::objects::{COMPLEXREGION, NULLREGION, Obj, SIMPLEREGION};
use super::paint::{read_rect, write_rect};
use super::raster::{brush_pixel, with_raster};
use super::surface::Rect;
use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, Ptr, stdcall};
use crate::process::Process;

pub const RGN_AND: u32 = 1;
pub const RGN_OR: u32 = 2;
pub const RGN_XOR: u32 = 3;
pub const RGN_DIFF: u32 = 4;
pub const RGN_COPY: u32 = 5;
const ERROR: u32 = 0;

/// Combines two rectangle sets band by band: the plane is cut at every top and
/// bottom edge; in each band the x-spans of both sets are merged, kept or dropped by
/// `op`, and bands with the same spans as the one above extend its rectangles.
pub fn combine(a: &[Rect], b: &[Rect], op: u32) -> Vec<Rect> {
    let keep = |ina: bool, inb: bool| match op {
        RGN_AND => ina && inb,
        RGN_OR => ina || inb,
        RGN_XOR => ina != inb,
        RGN_DIFF => ina && !inb,
        _ => ina,
    };
    let mut ys: Vec<i32> = Vec::new();
    for r in a.iter().chain(b).filter(|r| !r.is_empty()) {
        ys.extend([r.top, r.bottom]);
    }
    ys.sort_unstable();
    ys.dedup();
    let spans_at = |set: &[Rect], y: i32| -> Vec<(i32, i32)> {
        let mut v: Vec<(i32, i32)> = set
            .iter()
            .filter(|r| !r.is_empty() && r.top <= y && y < r.bottom)
            .map(|r| (r.left, r.right))
            .collect();
        v.sort_unstable();
        let mut m: Vec<(i32, i32)> = Vec::with_capacity(v.len());
        for (l, r) in v {
            match m.last_mut() {
                Some(last) if l <= last.1 => last.1 = last.1.max(r),
                _ => m.push((l, r)),
            }
        }
        m
    };
    let covers = |s: &[(i32, i32)], x: i32| s.iter().any(|&(l, r)| l <= x && x < r);
    let mut out: Vec<Rect> = Vec::new();
    // Rectangles of the previous band, to extend downwards when the spans repeat.
    let mut prev: Vec<usize> = Vec::new();
    for yw in ys.windows(2) {
        let (y0, y1) = (yw[0], yw[1]);
        let (sa, sb) = (spans_at(a, y0), spans_at(b, y0));
        let mut xs: Vec<i32> = sa.iter().chain(&sb).flat_map(|s| [s.0, s.1]).collect();
        xs.sort_unstable();
        xs.dedup();
        let mut spans: Vec<(i32, i32)> = Vec::new();
        for xw in xs.windows(2) {
            let (x0, x1) = (xw[0], xw[1]);
            if keep(covers(&sa, x0), covers(&sb, x0)) {
                match spans.last_mut() {
                    Some(s) if s.1 == x0 => s.1 = x1,
                    _ => spans.push((x0, x1)),
                }
            }
        }
        let same = prev.len() == spans.len()
            && prev
                .iter()
                .zip(&spans)
                .all(|(&i, s)| out[i].left == s.0 && out[i].right == s.1 && out[i].bottom == y0);
        if same {
            for &i in &prev {
                out[i].bottom = y1;
            }
        } else {
            prev.clear();
            for (x0, x1) in spans {
                prev.push(out.len());
                out.push(Rect::new(x0, y0, x1, y1));
            }
        }
    }
    out
}

pub fn region_type(rects: &[Rect]) -> u32 {
    match rects.len() {
        0 => NULLREGION,
        1 => SIMPLEREGION,
        _ => COMPLEXREGION,
    }
}

pub fn bounding_box(rects: &[Rect]) -> Rect {
    let mut it = rects.iter();
    let Some(&first) = it.next() else {
        return Rect::default();
    };
    it.fold(first, |a, r| {
        Rect::new(
            a.left.min(r.left),
            a.top.min(r.top),
            a.right.max(r.right),
            a.bottom.max(r.bottom),
        )
    })
}

fn region(proc: &Process, h: u32) -> Option<Vec<Rect>> {
    match proc.gdi32.lock().objs.get(&h) {
        Some(Obj::Region(r)) => Some(r.clone()),
        _ => None,
    }
}

fn set_region(proc: &Process, h: u32, rects: Vec<Rect>) -> bool {
    match proc.gdi32.lock().objs.get_mut(&h) {
        Some(Obj::Region(r)) => {
            *r = rects;
            true
        }
        _ => false,
    }
}

pub fn new_region(proc: &Process, rects: Vec<Rect>) -> u32 {
    proc.gdi32.lock().add_obj(Obj::Region(rects))
}

fn rect_region(r: Rect) -> Vec<Rect> {
    let r = Rect::new(
        r.left.min(r.right),
        r.top.min(r.bottom),
        r.left.max(r.right),
        r.top.max(r.bottom),
    );
    if r.is_empty() { Vec::new() } else { vec![r] }
}

pub fn CreateRectRgn(cx: &mut Ctx, x1: i32, y1: i32, x2: i32, y2: i32) -> u32 {
    new_region(cx.proc, rect_region(Rect::new(x1, y1, x2, y2)))
}

pub fn CreateRectRgnIndirect(cx: &mut Ctx, lprect: Ptr) -> ApiResult<u32> {
    let r = read_rect(cx.proc, lprect.0)?;
    Ok(new_region(cx.proc, rect_region(r)))
}

/// A region from an inside test, one rectangle per row run. Shapes of more than 16
/// Mpixels are refused (the test runs on every pixel of the box).
fn region_from(bounds: Rect, inside: impl Fn(i32, i32) -> bool) -> ApiResult<Vec<Rect>> {
    if bounds.width() as i64 * bounds.height() as i64 > 1 << 24 {
        return Err(ApiError::UnimplementedCase(format!(
            "a non-rectangular region of {}x{} pixels",
            bounds.width(),
            bounds.height()
        )));
    }
    let mut rows = Vec::new();
    for y in bounds.top..bounds.bottom {
        let mut x = bounds.left;
        while x < bounds.right {
            if inside(x, y) {
                let x0 = x;
                while x < bounds.right && inside(x, y) {
                    x += 1;
                }
                rows.push(Rect::new(x0, y, x, y + 1));
            } else {
                x += 1;
            }
        }
    }
    Ok(combine(&rows, &[], RGN_OR))
}

pub fn CreateEllipticRgn(cx: &mut Ctx, x1: i32, y1: i32, x2: i32, y2: i32) -> ApiResult<u32> {
    let r = Rect::new(x1.min(x2), y1.min(y2), x1.max(x2), y1.max(y2));
    // A region ellipse covers left..right-1 like a drawn one of the same box minus
    // the right/bottom edge.
    let cxf = (r.left + r.right - 1) as f32 / 2.0;
    let cyf = (r.top + r.bottom - 1) as f32 / 2.0;
    let (a, b) = (r.width() as f32 / 2.0, r.height() as f32 / 2.0);
    let rects = region_from(r, |x, y| {
        if a <= 0.0 || b <= 0.0 {
            return false;
        }
        let (dx, dy) = ((x as f32 - cxf) / a, (y as f32 - cyf) / b);
        dx * dx + dy * dy <= 1.0
    })?;
    Ok(new_region(cx.proc, rects))
}

pub fn CreateEllipticRgnIndirect(cx: &mut Ctx, lprect: Ptr) -> ApiResult<u32> {
    let r = read_rect(cx.proc, lprect.0)?;
    CreateEllipticRgn(cx, r.left, r.top, r.right, r.bottom)
}

pub fn CreatePolygonRgn(cx: &mut Ctx, pptl: Ptr, cPoint: i32, iMode: u32) -> ApiResult<u32> {
    let mut pts = Vec::new();
    for i in 0..cPoint.clamp(0, 1 << 16) as u32 {
        pts.push((
            cx.proc.mem.read_u32(pptl.0 + 8 * i)? as i32,
            cx.proc.mem.read_u32(pptl.0 + 8 * i + 4)? as i32,
        ));
    }
    if pts.len() < 3 {
        return Ok(new_region(cx.proc, Vec::new()));
    }
    let bb = bounding_box(
        &pts.iter()
            .map(|&(x, y)| Rect::new(x, y, x + 1, y + 1))
            .collect::<Vec<_>>(),
    );
    let polys = vec![pts];
    let winding = iMode == dc::WINDING;
    let rects = region_from(bb, |x, y| {
        super::draw::polygon_inside(&polys, winding, x, y)
    })?;
    Ok(new_region(cx.proc, rects))
}

pub fn CombineRgn(cx: &mut Ctx, hrgnDst: u32, hrgnSrc1: u32, hrgnSrc2: u32, iMode: u32) -> u32 {
    let Some(a) = region(cx.proc, hrgnSrc1) else {
        return ERROR;
    };
    let b = if iMode == RGN_COPY {
        Vec::new()
    } else {
        match region(cx.proc, hrgnSrc2) {
            Some(b) => b,
            None => return ERROR,
        }
    };
    if !(RGN_AND..=RGN_COPY).contains(&iMode) {
        return ERROR;
    }
    let r = combine(&a, &b, iMode);
    let t = region_type(&r);
    if set_region(cx.proc, hrgnDst, r) {
        t
    } else {
        ERROR
    }
}

pub fn SetRectRgn(cx: &mut Ctx, hrgn: u32, left: i32, top: i32, right: i32, bottom: i32) -> bool {
    set_region(
        cx.proc,
        hrgn,
        rect_region(Rect::new(left, top, right, bottom)),
    )
}

pub fn OffsetRgn(cx: &mut Ctx, hrgn: u32, x: i32, y: i32) -> u32 {
    let Some(r) = region(cx.proc, hrgn) else {
        return ERROR;
    };
    let r: Vec<Rect> = r.iter().map(|q| q.offset(x, y)).collect();
    let t = region_type(&r);
    set_region(cx.proc, hrgn, r);
    t
}

pub fn PtInRegion(cx: &mut Ctx, hrgn: u32, x: i32, y: i32) -> bool {
    region(cx.proc, hrgn).is_some_and(|r| r.iter().any(|q| q.contains(x, y)))
}

pub fn RectInRegion(cx: &mut Ctx, hrgn: u32, lprect: Ptr) -> ApiResult<bool> {
    let r = read_rect(cx.proc, lprect.0)?;
    Ok(region(cx.proc, hrgn).is_some_and(|rs| rs.iter().any(|q| !q.intersect(&r).is_empty())))
}

pub fn GetRgnBox(cx: &mut Ctx, hrgn: u32, lprc: Ptr) -> ApiResult<u32> {
    let Some(r) = region(cx.proc, hrgn) else {
        return Ok(ERROR);
    };
    write_rect(cx.proc, lprc.0, bounding_box(&r))?;
    Ok(region_type(&r))
}

pub fn EqualRgn(cx: &mut Ctx, hrgn1: u32, hrgn2: u32) -> bool {
    match (region(cx.proc, hrgn1), region(cx.proc, hrgn2)) {
        (Some(a), Some(b)) => combine(&a, &b, RGN_XOR).is_empty(),
        _ => false,
    }
}

/// Paints each rectangle of a region (logical coordinates) with `f`.
fn paint_region(
    proc: &Process,
    hdc: u32,
    hrgn: u32,
    f: impl Fn(&DrawCtx, i32, i32, u32) -> u32,
) -> ApiResult<bool> {
    let (Some(d), Some(rects)) = (dc::resolve(proc, hdc), region(proc, hrgn)) else {
        return Ok(false);
    };
    for r in rects {
        let r = d.rect_to_dev(r);
        with_raster(proc, &d, r, |ras| {
            let r = r.intersect(&ras.area());
            for y in r.top..r.bottom {
                ras.span(y, r.left, r.right, |x, old| f(&d, x, y, old));
            }
        })?;
    }
    Ok(true)
}

pub fn FillRgn(cx: &mut Ctx, hdc: u32, hrgn: u32, hbr: u32) -> ApiResult<bool> {
    let Some(b) = super::objects::brush_of(&cx.proc.gdi32.lock(), hbr) else {
        return Ok(false);
    };
    paint_region(cx.proc, hdc, hrgn, |d, x, y, old| {
        brush_pixel(d, &b, x, y).unwrap_or(old)
    })
}

pub fn PaintRgn(cx: &mut Ctx, hdc: u32, hrgn: u32) -> ApiResult<bool> {
    paint_region(cx.proc, hdc, hrgn, |d, x, y, old| {
        match brush_pixel(d, &d.brush, x, y) {
            Some(b) => super::raster::rop2(d.a.rop2, b, old),
            None => old,
        }
    })
}

pub fn InvertRgn(cx: &mut Ctx, hdc: u32, hrgn: u32) -> ApiResult<bool> {
    paint_region(cx.proc, hdc, hrgn, |_, _, _, old| !old & 0xff_ffff)
}

pub fn FrameRgn(cx: &mut Ctx, hdc: u32, hrgn: u32, hbr: u32, w: i32, h: i32) -> ApiResult<bool> {
    let Some(rects) = region(cx.proc, hrgn) else {
        return Ok(false);
    };
    // The frame is the region minus the region shrunk by w and h.
    let shrunk = {
        let mut s = rects.clone();
        for (dx, dy) in [(w, 0), (-w, 0), (0, h), (0, -h)] {
            let moved: Vec<Rect> = rects.iter().map(|r| r.offset(dx, dy)).collect();
            s = combine(&s, &moved, RGN_AND);
        }
        s
    };
    let frame = combine(&rects, &shrunk, RGN_DIFF);
    let tmp = new_region(cx.proc, frame);
    let r = FillRgn(cx, hdc, tmp, hbr);
    cx.proc.gdi32.lock().objs.remove(&tmp);
    r
}

// ---- clipping ----------------------------------------------------------------------------

/// SelectClipRgn/ExtSelectClipRgn: combines the DC's clip with region `h` (device
/// coordinates; None with RGN_COPY resets the clip). Returns the new clip's type.
pub fn select_clip(proc: &Process, hdc: u32, h: Option<u32>, mode: u32) -> ApiResult<u32> {
    let rgn = match h {
        Some(h) => match region(proc, h) {
            Some(r) => Some(r),
            None => return Ok(ERROR),
        },
        None => None,
    };
    let Some(d) = dc::resolve(proc, hdc) else {
        return Ok(ERROR);
    };
    let bounds = dc::target_bounds(&d.target);
    let current = d.a.clip.clone().unwrap_or_else(|| vec![bounds]);
    let new = match (mode, rgn) {
        (RGN_COPY, None) => None,
        (RGN_COPY, Some(r)) => Some(r),
        (_, None) => return Ok(ERROR),
        (m, Some(r)) if (RGN_AND..=RGN_DIFF).contains(&m) => Some(combine(&current, &r, m)),
        _ => return Ok(ERROR),
    };
    let visible = match &new {
        Some(r) => combine(r, &[bounds], RGN_AND),
        None => vec![bounds],
    };
    dc::with_attrs(proc, hdc, |a| a.clip = new);
    Ok(region_type(&visible))
}

pub fn SelectClipRgn(cx: &mut Ctx, hdc: u32, hrgn: u32) -> ApiResult<u32> {
    select_clip(cx.proc, hdc, (hrgn != 0).then_some(hrgn), RGN_COPY)
}

pub fn ExtSelectClipRgn(cx: &mut Ctx, hdc: u32, hrgn: u32, mode: u32) -> ApiResult<u32> {
    select_clip(cx.proc, hdc, (hrgn != 0).then_some(hrgn), mode)
}

fn clip_rect_op(proc: &Process, hdc: u32, r: Rect, op: u32) -> u32 {
    let Some(d) = dc::resolve(proc, hdc) else {
        return ERROR;
    };
    let bounds = dc::target_bounds(&d.target);
    let r = d.rect_to_dev(r);
    let current = d.a.clip.clone().unwrap_or_else(|| vec![bounds]);
    let new = combine(&current, &rect_region(r), op);
    let t = region_type(&combine(&new, &[bounds], RGN_AND));
    dc::with_attrs(proc, hdc, |a| a.clip = Some(new));
    t
}

pub fn IntersectClipRect(
    cx: &mut Ctx,
    hdc: u32,
    left: i32,
    top: i32,
    right: i32,
    bottom: i32,
) -> u32 {
    clip_rect_op(cx.proc, hdc, Rect::new(left, top, right, bottom), RGN_AND)
}

pub fn ExcludeClipRect(
    cx: &mut Ctx,
    hdc: u32,
    left: i32,
    top: i32,
    right: i32,
    bottom: i32,
) -> u32 {
    clip_rect_op(cx.proc, hdc, Rect::new(left, top, right, bottom), RGN_DIFF)
}

pub fn OffsetClipRgn(cx: &mut Ctx, hdc: u32, x: i32, y: i32) -> u32 {
    let Some(d) = dc::resolve(cx.proc, hdc) else {
        return ERROR;
    };
    let Some(c) = d.a.clip.clone() else {
        return SIMPLEREGION;
    };
    // The offset is logical; the clip region is kept in device units.
    let m = super::mapping::matrix(&d.a);
    let (x, y) = (
        super::mapping::round(x as f64 * m.m11 + y as f64 * m.m21),
        super::mapping::round(x as f64 * m.m12 + y as f64 * m.m22),
    );
    let moved: Vec<Rect> = c.iter().map(|r| r.offset(x, y)).collect();
    let t = region_type(&moved);
    dc::with_attrs(cx.proc, hdc, |a| a.clip = Some(moved));
    t
}

/// The DC's visible clip in logical coordinates: GetClipBox's answer and type.
pub fn clip_box(proc: &Process, hdc: u32) -> Option<(Rect, u32)> {
    let d = dc::resolve(proc, hdc)?;
    let bb = bounding_box(&d.clip);
    Some((d.rect_to_log(bb), region_type(&d.clip)))
}

pub fn GetClipBox(cx: &mut Ctx, hdc: u32, lprect: Ptr) -> ApiResult<u32> {
    let Some((r, t)) = clip_box(cx.proc, hdc) else {
        return Ok(ERROR);
    };
    write_rect(cx.proc, lprect.0, r)?;
    Ok(t)
}

pub fn GetClipRgn(cx: &mut Ctx, hdc: u32, hrgn: u32) -> i32 {
    let Some(d) = dc::resolve(cx.proc, hdc) else {
        return -1;
    };
    match d.a.clip {
        None => 0,
        Some(c) => {
            if set_region(cx.proc, hrgn, c) {
                1
            } else {
                -1
            }
        }
    }
}

pub fn PtVisible(cx: &mut Ctx, hdc: u32, x: i32, y: i32) -> bool {
    dc::resolve(cx.proc, hdc).is_some_and(|d| {
        let (x, y) = d.to_dev(x, y);
        d.clip.iter().any(|r| r.contains(x, y))
    })
}

pub fn RectVisible(cx: &mut Ctx, hdc: u32, lprect: Ptr) -> ApiResult<bool> {
    let r = read_rect(cx.proc, lprect.0)?;
    Ok(dc::resolve(cx.proc, hdc).is_some_and(|d| {
        let r = d.rect_to_dev(r);
        d.clip.iter().any(|c| !c.intersect(&r).is_empty())
    }))
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("CreateRectRgn", CreateRectRgn),
        stdcall("CreateRectRgnIndirect", CreateRectRgnIndirect),
        stdcall("CreateEllipticRgn", CreateEllipticRgn),
        stdcall("CreateEllipticRgnIndirect", CreateEllipticRgnIndirect),
        stdcall("CreatePolygonRgn", CreatePolygonRgn),
        stdcall("CombineRgn", CombineRgn),
        stdcall("SetRectRgn", SetRectRgn),
        stdcall("OffsetRgn", OffsetRgn),
        stdcall("PtInRegion", PtInRegion),
        stdcall("RectInRegion", RectInRegion),
        stdcall("GetRgnBox", GetRgnBox),
        stdcall("EqualRgn", EqualRgn),
        stdcall("FillRgn", FillRgn),
        stdcall("PaintRgn", PaintRgn),
        stdcall("InvertRgn", InvertRgn),
        stdcall("FrameRgn", FrameRgn),
        stdcall("SelectClipRgn", SelectClipRgn),
        stdcall("ExtSelectClipRgn", ExtSelectClipRgn),
        stdcall("IntersectClipRect", IntersectClipRect),
        stdcall("ExcludeClipRect", ExcludeClipRect),
        stdcall("OffsetClipRgn", OffsetClipRgn),
        stdcall("GetClipBox", GetClipBox),
        stdcall("GetClipRgn", GetClipRgn),
        stdcall("PtVisible", PtVisible),
        stdcall("RectVisible", RectVisible),
    ]
}
