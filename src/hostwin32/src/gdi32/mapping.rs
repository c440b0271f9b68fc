//! Coordinate mapping: mapping modes, window and viewport origins and extents, the
//! world transform (GM_ADVANCED), and LPtoDP/DPtoLP.
//!
//! A DC maps a logical point to a device point by the world transform (identity
//! unless GM_ADVANCED set another) followed by the page transform
//! `dev = (page - window_org) * viewport_ext / window_ext + viewport_org`. Both are
//! composed into one affine matrix ([`matrix`]); every drawing call goes through
//! [`super::dc::DrawCtx::to_dev`], which uses it, and results are rounded to the
//! nearest device unit (halves up), as Windows does.

use super::dc::{Attrs, with_attrs};
use crate::hle::{ApiDef, ApiResult, Ctx, Ptr, stdcall};
use crate::process::Process;

pub const MM_TEXT: u32 = 1;
pub const MM_LOMETRIC: u32 = 2;
pub const MM_HIMETRIC: u32 = 3;
pub const MM_LOENGLISH: u32 = 4;
pub const MM_HIENGLISH: u32 = 5;
pub const MM_TWIPS: u32 = 6;
pub const MM_ISOTROPIC: u32 = 7;
pub const MM_ANISOTROPIC: u32 = 8;

pub const GM_COMPATIBLE: u32 = 1;
pub const GM_ADVANCED: u32 = 2;

const MWT_IDENTITY: u32 = 1;
const MWT_LEFTMULTIPLY: u32 = 2;
const MWT_RIGHTMULTIPLY: u32 = 3;

/// An affine transform as XFORM holds it: `x' = x*m11 + y*m21 + dx`,
/// `y' = x*m12 + y*m22 + dy`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Xform {
    pub m11: f64,
    pub m12: f64,
    pub m21: f64,
    pub m22: f64,
    pub dx: f64,
    pub dy: f64,
}

impl Xform {
    pub const IDENTITY: Xform = Xform {
        m11: 1.0,
        m12: 0.0,
        m21: 0.0,
        m22: 1.0,
        dx: 0.0,
        dy: 0.0,
    };

    pub fn apply(&self, x: f64, y: f64) -> (f64, f64) {
        (
            x * self.m11 + y * self.m21 + self.dx,
            x * self.m12 + y * self.m22 + self.dy,
        )
    }

    /// `self` first, then `next`.
    pub fn then(&self, next: &Xform) -> Xform {
        Xform {
            m11: self.m11 * next.m11 + self.m12 * next.m21,
            m12: self.m11 * next.m12 + self.m12 * next.m22,
            m21: self.m21 * next.m11 + self.m22 * next.m21,
            m22: self.m21 * next.m12 + self.m22 * next.m22,
            dx: self.dx * next.m11 + self.dy * next.m21 + next.dx,
            dy: self.dx * next.m12 + self.dy * next.m22 + next.dy,
        }
    }

    /// Each coefficient rounded to single precision: an XFORM holds FLOATs, and the
    /// DC's transforms are kept as XFORMs, so LPtoDP/DPtoLP round the way they do
    /// with them (a half can come out just below .5 after inverting).
    pub fn single(&self) -> Xform {
        let q = |v: f64| v as f32 as f64;
        Xform {
            m11: q(self.m11),
            m12: q(self.m12),
            m21: q(self.m21),
            m22: q(self.m22),
            dx: q(self.dx),
            dy: q(self.dy),
        }
    }

    pub fn determinant(&self) -> f64 {
        self.m11 * self.m22 - self.m12 * self.m21
    }

    pub fn inverse(&self) -> Option<Xform> {
        let det = self.determinant();
        if det == 0.0 || !det.is_finite() {
            return None;
        }
        let m11 = self.m22 / det;
        let m12 = -self.m12 / det;
        let m21 = -self.m21 / det;
        let m22 = self.m11 / det;
        let (m11, m12, m21, m22) = (
            m11 as f32 as f64,
            m12 as f32 as f64,
            m21 as f32 as f64,
            m22 as f32 as f64,
        );
        Some(
            Xform {
                m11,
                m12,
                m21,
                m22,
                dx: -(self.dx * m11 + self.dy * m21),
                dy: -(self.dx * m12 + self.dy * m22),
            }
            .single(),
        )
    }

    fn read(proc: &Process, p: u32) -> ApiResult<Xform> {
        let f =
            |i: u32| -> ApiResult<f64> { Ok(f32::from_bits(proc.mem.read_u32(p + 4 * i)?) as f64) };
        Ok(Xform {
            m11: f(0)?,
            m12: f(1)?,
            m21: f(2)?,
            m22: f(3)?,
            dx: f(4)?,
            dy: f(5)?,
        })
    }

    fn write(&self, proc: &Process, p: u32) -> ApiResult<()> {
        for (i, v) in [self.m11, self.m12, self.m21, self.m22, self.dx, self.dy]
            .into_iter()
            .enumerate()
        {
            proc.mem.write_u32(p + 4 * i as u32, (v as f32).to_bits())?;
        }
        Ok(())
    }
}

/// Rounds to the nearest integer, halves towards +infinity.
pub fn round(v: f64) -> i32 {
    let r = (v + 0.5).floor();
    r.clamp(i32::MIN as f64, i32::MAX as f64) as i32
}

/// The page transform of a DC: window to viewport.
pub fn page(a: &Attrs) -> Xform {
    let sx = a.vp_ext.0 as f64 / a.win_ext.0 as f64;
    let sy = a.vp_ext.1 as f64 / a.win_ext.1 as f64;
    Xform {
        m11: sx,
        m12: 0.0,
        m21: 0.0,
        m22: sy,
        dx: a.vp_org.0 as f64 - a.win_org.0 as f64 * sx,
        dy: a.vp_org.1 as f64 - a.win_org.1 as f64 * sy,
    }
    .single()
}

/// Logical to device: the world transform, then the page transform.
pub fn matrix(a: &Attrs) -> Xform {
    a.world.then(&page(a)).single()
}

/// True if logical and device units are the same size and axes (only origins differ):
/// then positions map by integer translation and sizes do not change.
pub fn is_translation(a: &Attrs) -> bool {
    a.win_ext == a.vp_ext && a.world == Xform::IDENTITY
}

pub fn lp_to_dp(a: &Attrs, x: i32, y: i32) -> (i32, i32) {
    if is_translation(a) {
        return (
            x.wrapping_sub(a.win_org.0).wrapping_add(a.vp_org.0),
            y.wrapping_sub(a.win_org.1).wrapping_add(a.vp_org.1),
        );
    }
    let (dx, dy) = matrix(a).apply(x as f64, y as f64);
    (round(dx), round(dy))
}

/// Device to logical; None if the transform cannot be inverted.
pub fn dp_to_lp(a: &Attrs, x: i32, y: i32) -> Option<(i32, i32)> {
    if is_translation(a) {
        return Some((
            x.wrapping_sub(a.vp_org.0).wrapping_add(a.win_org.0),
            y.wrapping_sub(a.vp_org.1).wrapping_add(a.win_org.1),
        ));
    }
    let (lx, ly) = matrix(a).inverse()?.apply(x as f64, y as f64);
    Some((round(lx), round(ly)))
}

/// Device units per logical unit along x and y (magnitudes): how sizes such as
/// font heights and pen widths scale.
pub fn scale(a: &Attrs) -> (f64, f64) {
    let m = matrix(a);
    (m.m11.hypot(m.m12), m.m21.hypot(m.m22))
}

/// A logical length along x in device units (a non-zero length stays at least 1).
pub fn width_to_dev(a: &Attrs, w: i32) -> i32 {
    len_scaled(w, scale(a).0)
}

/// A logical length along y in device units.
pub fn height_to_dev(a: &Attrs, h: i32) -> i32 {
    len_scaled(h, scale(a).1)
}

/// A device length along x in logical units.
pub fn width_to_log(a: &Attrs, w: i32) -> i32 {
    let s = scale(a).0;
    if s == 0.0 { w } else { len_scaled(w, 1.0 / s) }
}

/// A device length along y in logical units.
pub fn height_to_log(a: &Attrs, h: i32) -> i32 {
    let s = scale(a).1;
    if s == 0.0 { h } else { len_scaled(h, 1.0 / s) }
}

fn len_scaled(v: i32, s: f64) -> i32 {
    if s == 1.0 || v == 0 {
        return v;
    }
    let r = round(v.unsigned_abs() as f64 * s).max(1);
    if v < 0 { -r } else { r }
}

/// MulDiv's rounding: the exact quotient rounded half away from zero.
fn mul_div(a: i32, b: i32, c: i32) -> i32 {
    let n = a as i64 * b as i64;
    let c = c as i64;
    let q = (n.abs() * 2 + c.abs()) / (2 * c.abs());
    (if (n < 0) != (c < 0) { -q } else { q }) as i32
}

/// The extents a metric mapping mode sets: the window extent is the screen's size in
/// the mode's unit, the viewport extent its size in pixels with y pointing up.
fn metric_extents(proc: &Process, mode: u32) -> ((i32, i32), (i32, i32)) {
    let caps = |i| super::dc::device_caps(proc, i);
    let (mm_x, mm_y) = (caps(4), caps(6)); // HORZSIZE, VERTSIZE
    let (res_x, res_y) = (caps(8), caps(10)); // HORZRES, VERTRES
    let win = match mode {
        MM_HIMETRIC => (mm_x * 100, mm_y * 100),
        MM_LOENGLISH => (mul_div(1000, mm_x, 254), mul_div(1000, mm_y, 254)),
        MM_HIENGLISH => (mul_div(10000, mm_x, 254), mul_div(10000, mm_y, 254)),
        MM_TWIPS => (mul_div(14400, mm_x, 254), mul_div(14400, mm_y, 254)),
        // MM_LOMETRIC, and MM_ISOTROPIC starts from it.
        _ => (mm_x * 10, mm_y * 10),
    };
    (win, (res_x, -res_y))
}

/// MM_ISOTROPIC: shrinks one viewport extent so that a logical unit has the same
/// physical size along both axes (the device's pixel aspect counts).
fn fix_isotropic(proc: &Process, a: &mut Attrs) {
    let caps = |i| super::dc::device_caps(proc, i) as f64;
    let xdim = (a.vp_ext.0 as f64 * caps(4) / (caps(8) * a.win_ext.0 as f64)).abs();
    let ydim = (a.vp_ext.1 as f64 * caps(6) / (caps(10) * a.win_ext.1 as f64)).abs();
    let shrink = |v: i32, f: f64| {
        let n = round(v as f64 * f);
        if n == 0 { v.signum() } else { n }
    };
    if xdim > ydim {
        a.vp_ext.0 = shrink(a.vp_ext.0, ydim / xdim);
    } else if ydim > xdim {
        a.vp_ext.1 = shrink(a.vp_ext.1, xdim / ydim);
    }
}

fn scaled_mode(a: &Attrs) -> bool {
    a.map_mode == MM_ISOTROPIC || a.map_mode == MM_ANISOTROPIC
}

// ---- API ---------------------------------------------------------------------------------

pub fn SetMapMode(cx: &mut Ctx, hdc: u32, mode: u32) -> u32 {
    if !(MM_TEXT..=MM_ANISOTROPIC).contains(&mode) {
        return 0;
    }
    let metric = metric_extents(cx.proc, mode);
    with_attrs(cx.proc, hdc, |a| {
        let old = a.map_mode;
        // Re-selecting a scaled mode keeps the extents the program set.
        if mode == old && scaled_mode(a) {
            return old;
        }
        match mode {
            MM_TEXT => {
                a.win_ext = (1, 1);
                a.vp_ext = (1, 1);
            }
            // MM_ANISOTROPIC keeps the extents of the previous mode.
            MM_ANISOTROPIC => {}
            _ => {
                a.win_ext = metric.0;
                a.vp_ext = metric.1;
            }
        }
        a.map_mode = mode;
        old
    })
    .unwrap_or(0)
}

pub fn GetMapMode(cx: &mut Ctx, hdc: u32) -> u32 {
    with_attrs(cx.proc, hdc, |a| a.map_mode).unwrap_or(0)
}

fn put_pair(proc: &Process, p: Ptr, v: (i32, i32)) -> ApiResult<()> {
    if !p.is_null() {
        proc.mem.write_u32(p.0, v.0 as u32)?;
        proc.mem.write_u32(p.0 + 4, v.1 as u32)?;
    }
    Ok(())
}

/// Runs `f` on the DC's attributes and stores the pair it returns (the previous
/// value) at `out`; false for a bad DC or if `f` refuses.
fn update(
    cx: &mut Ctx,
    hdc: u32,
    out: Ptr,
    f: impl FnOnce(&mut Attrs) -> Option<(i32, i32)>,
) -> ApiResult<bool> {
    match with_attrs(cx.proc, hdc, f) {
        Some(Some(prev)) => {
            put_pair(cx.proc, out, prev)?;
            Ok(true)
        }
        _ => Ok(false),
    }
}

pub fn SetViewportOrgEx(cx: &mut Ctx, hdc: u32, x: i32, y: i32, lppt: Ptr) -> ApiResult<bool> {
    update(cx, hdc, lppt, |a| {
        Some(std::mem::replace(&mut a.vp_org, (x, y)))
    })
}

pub fn SetWindowOrgEx(cx: &mut Ctx, hdc: u32, x: i32, y: i32, lppt: Ptr) -> ApiResult<bool> {
    update(cx, hdc, lppt, |a| {
        Some(std::mem::replace(&mut a.win_org, (x, y)))
    })
}

pub fn GetViewportOrgEx(cx: &mut Ctx, hdc: u32, lppt: Ptr) -> ApiResult<bool> {
    update(cx, hdc, lppt, |a| Some(a.vp_org))
}

pub fn GetWindowOrgEx(cx: &mut Ctx, hdc: u32, lppt: Ptr) -> ApiResult<bool> {
    update(cx, hdc, lppt, |a| Some(a.win_org))
}

pub fn OffsetViewportOrgEx(cx: &mut Ctx, hdc: u32, dx: i32, dy: i32, lppt: Ptr) -> ApiResult<bool> {
    update(cx, hdc, lppt, |a| {
        let p = a.vp_org;
        a.vp_org = (p.0.wrapping_add(dx), p.1.wrapping_add(dy));
        Some(p)
    })
}

pub fn OffsetWindowOrgEx(cx: &mut Ctx, hdc: u32, dx: i32, dy: i32, lppt: Ptr) -> ApiResult<bool> {
    update(cx, hdc, lppt, |a| {
        let p = a.win_org;
        a.win_org = (p.0.wrapping_add(dx), p.1.wrapping_add(dy));
        Some(p)
    })
}

pub fn GetViewportExtEx(cx: &mut Ctx, hdc: u32, lpsz: Ptr) -> ApiResult<bool> {
    update(cx, hdc, lpsz, |a| Some(a.vp_ext))
}

pub fn GetWindowExtEx(cx: &mut Ctx, hdc: u32, lpsz: Ptr) -> ApiResult<bool> {
    update(cx, hdc, lpsz, |a| Some(a.win_ext))
}

/// Sets the window or viewport extent. Outside MM_ISOTROPIC/MM_ANISOTROPIC the call
/// succeeds without effect (the mode fixes the extents); a zero extent fails.
fn set_ext(
    cx: &mut Ctx,
    hdc: u32,
    new: impl FnOnce((i32, i32)) -> Option<(i32, i32)>,
    out: Ptr,
    viewport: bool,
) -> ApiResult<bool> {
    let proc = cx.proc.clone();
    let r = with_attrs(cx.proc, hdc, |a| {
        let old = if viewport { a.vp_ext } else { a.win_ext };
        if !scaled_mode(a) {
            return Some(old);
        }
        let v = new(old)?;
        if v.0 == 0 || v.1 == 0 {
            return None;
        }
        if viewport {
            a.vp_ext = v;
        } else {
            a.win_ext = v;
        }
        if a.map_mode == MM_ISOTROPIC {
            fix_isotropic(&proc, a);
        }
        Some(old)
    });
    match r {
        Some(Some(old)) => {
            put_pair(cx.proc, out, old)?;
            Ok(true)
        }
        _ => Ok(false),
    }
}

pub fn SetViewportExtEx(cx: &mut Ctx, hdc: u32, x: i32, y: i32, lpsz: Ptr) -> ApiResult<bool> {
    set_ext(cx, hdc, |_| Some((x, y)), lpsz, true)
}

pub fn SetWindowExtEx(cx: &mut Ctx, hdc: u32, x: i32, y: i32, lpsz: Ptr) -> ApiResult<bool> {
    set_ext(cx, hdc, |_| Some((x, y)), lpsz, false)
}

fn scaled(old: (i32, i32), xn: i32, xd: i32, yn: i32, yd: i32) -> Option<(i32, i32)> {
    if xd == 0 || yd == 0 {
        return None;
    }
    Some((
        (old.0 as i64 * xn as i64 / xd as i64) as i32,
        (old.1 as i64 * yn as i64 / yd as i64) as i32,
    ))
}

pub fn ScaleViewportExtEx(
    cx: &mut Ctx,
    hdc: u32,
    xn: i32,
    xd: i32,
    yn: i32,
    yd: i32,
    lpsz: Ptr,
) -> ApiResult<bool> {
    set_ext(cx, hdc, |o| scaled(o, xn, xd, yn, yd), lpsz, true)
}

pub fn ScaleWindowExtEx(
    cx: &mut Ctx,
    hdc: u32,
    xn: i32,
    xd: i32,
    yn: i32,
    yd: i32,
    lpsz: Ptr,
) -> ApiResult<bool> {
    set_ext(cx, hdc, |o| scaled(o, xn, xd, yn, yd), lpsz, false)
}

fn transform_points(cx: &mut Ctx, hdc: u32, lppt: Ptr, c: i32, to_dev: bool) -> ApiResult<bool> {
    let Some(a) = with_attrs(cx.proc, hdc, |a| a.clone()) else {
        return Ok(false);
    };
    if !to_dev && !is_translation(&a) && matrix(&a).inverse().is_none() {
        return Ok(false);
    }
    for i in 0..c.max(0) as u32 {
        let p = lppt.0 + i * 8;
        let x = cx.proc.mem.read_u32(p)? as i32;
        let y = cx.proc.mem.read_u32(p + 4)? as i32;
        let (nx, ny) = if to_dev {
            lp_to_dp(&a, x, y)
        } else {
            dp_to_lp(&a, x, y).unwrap_or((x, y))
        };
        cx.proc.mem.write_u32(p, nx as u32)?;
        cx.proc.mem.write_u32(p + 4, ny as u32)?;
    }
    Ok(true)
}

pub fn LPtoDP(cx: &mut Ctx, hdc: u32, lppt: Ptr, c: i32) -> ApiResult<bool> {
    transform_points(cx, hdc, lppt, c, true)
}

pub fn DPtoLP(cx: &mut Ctx, hdc: u32, lppt: Ptr, c: i32) -> ApiResult<bool> {
    transform_points(cx, hdc, lppt, c, false)
}

pub fn GetGraphicsMode(cx: &mut Ctx, hdc: u32) -> u32 {
    with_attrs(cx.proc, hdc, |a| a.graphics_mode).unwrap_or(0)
}

/// Going back to GM_COMPATIBLE keeps the world transform (it only stops
/// SetWorldTransform/ModifyWorldTransform from changing it), as on Windows.
pub fn SetGraphicsMode(cx: &mut Ctx, hdc: u32, mode: u32) -> u32 {
    if mode != GM_COMPATIBLE && mode != GM_ADVANCED {
        return 0;
    }
    with_attrs(cx.proc, hdc, |a| {
        std::mem::replace(&mut a.graphics_mode, mode)
    })
    .unwrap_or(0)
}

pub fn GetWorldTransform(cx: &mut Ctx, hdc: u32, lpxf: Ptr) -> ApiResult<bool> {
    if lpxf.is_null() {
        return Ok(false);
    }
    let Some(w) = with_attrs(cx.proc, hdc, |a| a.world) else {
        return Ok(false);
    };
    w.write(cx.proc, lpxf.0)?;
    Ok(true)
}

/// Only SetWorldTransform needs GM_ADVANCED; ModifyWorldTransform works in either
/// mode (so MWT_IDENTITY can clear a transform after going back to GM_COMPATIBLE).
fn set_world(cx: &mut Ctx, hdc: u32, advanced_only: bool, f: impl FnOnce(Xform) -> Xform) -> bool {
    with_attrs(cx.proc, hdc, |a| {
        if advanced_only && a.graphics_mode != GM_ADVANCED {
            return false;
        }
        let w = f(a.world);
        if w.determinant() == 0.0 || !w.determinant().is_finite() {
            return false;
        }
        a.world = w;
        true
    })
    .unwrap_or(false)
}

pub fn SetWorldTransform(cx: &mut Ctx, hdc: u32, lpxf: Ptr) -> ApiResult<bool> {
    if lpxf.is_null() {
        return Ok(false);
    }
    let x = Xform::read(cx.proc, lpxf.0)?;
    Ok(set_world(cx, hdc, true, |_| x))
}

pub fn ModifyWorldTransform(cx: &mut Ctx, hdc: u32, lpxf: Ptr, mode: u32) -> ApiResult<bool> {
    let x = match mode {
        MWT_IDENTITY => Xform::IDENTITY,
        MWT_LEFTMULTIPLY | MWT_RIGHTMULTIPLY if !lpxf.is_null() => Xform::read(cx.proc, lpxf.0)?,
        _ => return Ok(false),
    };
    Ok(set_world(cx, hdc, false, |w| match mode {
        MWT_IDENTITY => Xform::IDENTITY,
        // Left: the given transform applies first, then the current one.
        MWT_LEFTMULTIPLY => x.then(&w),
        _ => w.then(&x),
    }))
}

pub fn CombineTransform(cx: &mut Ctx, lpxfOut: Ptr, lpxf1: Ptr, lpxf2: Ptr) -> ApiResult<bool> {
    if lpxfOut.is_null() || lpxf1.is_null() || lpxf2.is_null() {
        return Ok(false);
    }
    let a = Xform::read(cx.proc, lpxf1.0)?;
    let b = Xform::read(cx.proc, lpxf2.0)?;
    a.then(&b).write(cx.proc, lpxfOut.0)?;
    Ok(true)
}

pub fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("SetMapMode", SetMapMode),
        stdcall("GetMapMode", GetMapMode),
        stdcall("SetViewportOrgEx", SetViewportOrgEx),
        stdcall("SetWindowOrgEx", SetWindowOrgEx),
        stdcall("GetViewportOrgEx", GetViewportOrgEx),
        stdcall("GetWindowOrgEx", GetWindowOrgEx),
        stdcall("OffsetViewportOrgEx", OffsetViewportOrgEx),
        stdcall("OffsetWindowOrgEx", OffsetWindowOrgEx),
        stdcall("GetViewportExtEx", GetViewportExtEx),
        stdcall("GetWindowExtEx", GetWindowExtEx),
        stdcall("SetViewportExtEx", SetViewportExtEx),
        stdcall("SetWindowExtEx", SetWindowExtEx),
        stdcall("ScaleViewportExtEx", ScaleViewportExtEx),
        stdcall("ScaleWindowExtEx", ScaleWindowExtEx),
        stdcall("LPtoDP", LPtoDP),
        stdcall("DPtoLP", DPtoLP),
        stdcall("GetGraphicsMode", GetGraphicsMode),
        stdcall("SetGraphicsMode", SetGraphicsMode),
        stdcall("GetWorldTransform", GetWorldTransform),
        stdcall("SetWorldTransform", SetWorldTransform),
        stdcall("ModifyWorldTransform", ModifyWorldTransform),
        stdcall("CombineTransform", CombineTransform),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_undoes_the_transform() {
        let x = Xform {
            m11: 2.0,
            m12: 0.5,
            m21: -1.0,
            m22: 3.0,
            dx: 7.0,
            dy: -4.0,
        };
        let i = x.inverse().unwrap();
        let (a, b) = x.apply(5.0, 9.0);
        let (c, d) = i.apply(a, b);
        // The inverse is kept in single precision, like an XFORM.
        assert!((c - 5.0).abs() < 1e-4 && (d - 9.0).abs() < 1e-4);
    }

    #[test]
    fn mul_div_rounds_half_away_from_zero() {
        assert_eq!(mul_div(1000, 320, 254), 1260);
        assert_eq!(mul_div(-3, 1, 2), -2);
        assert_eq!(mul_div(3, 1, 2), 2);
    }

    #[test]
    fn anisotropic_page_maps_and_rounds() {
        let a = Attrs {
            map_mode: MM_ANISOTROPIC,
            win_ext: (3, 3),
            vp_ext: (2, -2),
            win_org: (1, 1),
            vp_org: (10, 20),
            ..Attrs::default()
        };
        // (4-1)*2/3+10 = 12; (2-1)*-2/3+20 = 19.33 -> 19
        assert_eq!(lp_to_dp(&a, 4, 2), (12, 19));
        // Back: (19-20)*3/-2+1 = 2.5, a half that rounds up.
        assert_eq!(dp_to_lp(&a, 12, 19), Some((4, 3)));
    }

    #[test]
    fn a_half_from_a_single_precision_inverse_rounds_down() {
        // y = (10 + 1) * 7/2 + 9 = 47.5 exactly, but 1/(2/7) in single precision is
        // just under 3.5: Windows (and Wine) answer 47.
        let a = Attrs {
            map_mode: MM_ANISOTROPIC,
            win_ext: (3, 7),
            vp_ext: (5, 2),
            win_org: (-4, 9),
            vp_org: (6, -1),
            ..Attrs::default()
        };
        assert_eq!(dp_to_lp(&a, 10, 10), Some((-2, 47)));
        assert_eq!(lp_to_dp(&a, 10, 10), (29, -1));
    }
}
