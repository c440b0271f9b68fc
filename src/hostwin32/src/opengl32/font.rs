//! wglUseFontOutlines: display lists that draw the glyphs of the DC's font as
//! geometry, from the outlines of the bundled TrueType fonts GDI32 realises
//! fonts with (`gdi32::text::glyph_outline`).
//!
//! As documented for Windows: list `listBase + i` draws character `first + i` in
//! a coordinate system where the font's em square is 1.0, the glyph's origin at
//! (0, 0) and its face in the z = 0 plane, then moves the origin to the next
//! glyph with a translation by the glyph's advance. WGL_FONT_LINES draws each
//! contour as a line loop; WGL_FONT_POLYGONS fills the glyph (the contours'
//! nonzero winding) with normal (0, 0, 1) and, with a positive extrusion, adds a
//! back face at z = -extrusion with normal (0, 0, -1) and side walls with
//! normals facing out of the glyph. GLYPHMETRICSFLOAT entries give the black box,
//! its upper-left corner and the advance in the same units.

use super::cmd::Cmd;
use super::consts::*;
use super::matrix::Mat4;
use super::with_current;
use crate::gdi32::text::{Outline, dc_font, glyph_outline};
use crate::hle::{ApiError, ApiResult, Ctx, Ptr};
use crate::kernel32::string::{GuestStr, decode_ansi};
use crate::teb::set_last_error;
use std::sync::Arc;

const WGL_FONT_LINES: i32 = 0;
const WGL_FONT_POLYGONS: i32 = 1;
const ERROR_INVALID_HANDLE: u32 = 6;
const ERROR_INVALID_PARAMETER: u32 = 87;

/// The filled area of closed contours under the nonzero winding rule, as
/// counter-clockwise triangles (three points each): the plane is cut into
/// horizontal slabs at every vertex's y, and within a slab the edges that cross
/// it (which do not cross each other there) bound trapezoids.
pub fn fill(contours: &[Vec<[f32; 2]>]) -> Vec<[f32; 2]> {
    // (lower end, upper end, +1 when the contour runs upwards).
    let mut edges: Vec<([f32; 2], [f32; 2], i32)> = Vec::new();
    let mut ys: Vec<f32> = Vec::new();
    for c in contours {
        for (k, &a) in c.iter().enumerate() {
            let b = c[(k + 1) % c.len()];
            ys.push(a[1]);
            if a[1] < b[1] {
                edges.push((a, b, 1));
            } else if a[1] > b[1] {
                edges.push((b, a, -1));
            }
        }
    }
    ys.sort_by(f32::total_cmp);
    ys.dedup();
    let x_at = |lo: [f32; 2], hi: [f32; 2], y: f32| {
        if y <= lo[1] {
            lo[0]
        } else if y >= hi[1] {
            hi[0]
        } else {
            lo[0] + (y - lo[1]) * (hi[0] - lo[0]) / (hi[1] - lo[1])
        }
    };
    let mut out = Vec::new();
    for w in ys.windows(2) {
        let (y0, y1) = (w[0], w[1]);
        let ym = (y0 + y1) / 2.0;
        // (x at the middle, x at the bottom, x at the top, direction).
        let mut cross: Vec<(f32, f32, f32, i32)> = edges
            .iter()
            .filter(|(lo, hi, _)| lo[1] <= y0 && hi[1] >= y1)
            .map(|&(lo, hi, d)| (x_at(lo, hi, ym), x_at(lo, hi, y0), x_at(lo, hi, y1), d))
            .collect();
        cross.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut winding = 0;
        let mut start = None;
        for e in cross {
            let before = winding;
            winding += e.3;
            if before == 0 && winding != 0 {
                start = Some(e);
            } else if before != 0
                && winding == 0
                && let Some(s) = start.take()
            {
                let (a0, b0, b1, a1) = ([s.1, y0], [e.1, y0], [e.2, y1], [s.2, y1]);
                if b0[0] > a0[0] {
                    out.extend_from_slice(&[a0, b0, b1]);
                }
                if b1[0] > a1[0] {
                    out.extend_from_slice(&[a0, b1, a1]);
                }
            }
        }
    }
    out
}

/// Twice the signed area of the contours (positive when anticlockwise, y up).
fn area2(contours: &[Vec<[f32; 2]>]) -> f32 {
    contours
        .iter()
        .map(|c| {
            (0..c.len())
                .map(|k| {
                    let (a, b) = (c[k], c[(k + 1) % c.len()]);
                    a[0] * b[1] - b[0] * a[1]
                })
                .sum::<f32>()
        })
        .sum()
}

fn v3(p: [f32; 2], z: f32) -> Cmd {
    Cmd::Vertex([p[0], p[1], z, 1.0])
}

/// The commands of one glyph's display list.
pub fn glyph_list(o: &Outline, format: i32, extrusion: f32) -> Vec<Cmd> {
    let mut l = Vec::new();
    if format == WGL_FONT_LINES {
        for c in &o.contours {
            l.push(Cmd::Begin(GL_LINE_LOOP));
            l.extend(c.iter().map(|&p| v3(p, 0.0)));
            l.push(Cmd::End);
        }
    } else if !o.contours.is_empty() {
        let tris = fill(&o.contours);
        l.push(Cmd::Normal([0.0, 0.0, 1.0]));
        l.push(Cmd::Begin(GL_TRIANGLES));
        l.extend(tris.iter().map(|&p| v3(p, 0.0)));
        l.push(Cmd::End);
        if extrusion > 0.0 {
            let z = -extrusion;
            l.push(Cmd::Normal([0.0, 0.0, -1.0]));
            l.push(Cmd::Begin(GL_TRIANGLES));
            for t in tris.chunks_exact(3) {
                l.extend([v3(t[0], z), v3(t[2], z), v3(t[1], z)]);
            }
            l.push(Cmd::End);
            // Filled areas lie to the right of their contours when the outline
            // runs clockwise overall (TrueType's way), to the left otherwise.
            let filled_right = area2(&o.contours) < 0.0;
            l.push(Cmd::Begin(GL_QUADS));
            for c in &o.contours {
                for k in 0..c.len() {
                    let (a, b) = (c[k], c[(k + 1) % c.len()]);
                    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
                    let n = (dx * dx + dy * dy).sqrt();
                    if n == 0.0 {
                        continue;
                    }
                    // Out of the glyph: the side away from the filled area.
                    let (nx, ny) = if filled_right {
                        (-dy / n, dx / n)
                    } else {
                        (dy / n, -dx / n)
                    };
                    l.push(Cmd::Normal([nx, ny, 0.0]));
                    if filled_right {
                        l.extend([v3(a, 0.0), v3(b, 0.0), v3(b, z), v3(a, z)]);
                    } else {
                        l.extend([v3(b, 0.0), v3(a, 0.0), v3(a, z), v3(b, z)]);
                    }
                }
            }
            l.push(Cmd::End);
        }
    }
    l.push(Cmd::MultMatrix(Mat4::translate(
        f64::from(o.advance),
        0.0,
        0.0,
    )));
    l
}

/// GLYPHMETRICSFLOAT: gmfBlackBoxX, gmfBlackBoxY, gmfptGlyphOrigin (x, y),
/// gmfCellIncX, gmfCellIncY.
fn metrics(o: &Outline) -> [f32; 6] {
    match o.bbox {
        Some([x0, y0, x1, y1]) => [x1 - x0, y1 - y0, x0, y1, o.advance, 0.0],
        None => [0.0, 0.0, 0.0, 0.0, o.advance, 0.0],
    }
}

fn use_font_outlines(
    cx: &mut Ctx,
    hdc: u32,
    chars: Vec<char>,
    listBase: u32,
    deviation: f32,
    extrusion: f32,
    format: i32,
    lpgmf: Ptr,
) -> ApiResult<bool> {
    if format != WGL_FONT_LINES && format != WGL_FONT_POLYGONS {
        set_last_error(cx, ERROR_INVALID_PARAMETER)?;
        return Ok(false);
    }
    if format == WGL_FONT_LINES && extrusion != 0.0 {
        return Err(ApiError::UnimplementedCase(
            "OPENGL32: wglUseFontOutlines of WGL_FONT_LINES with an extrusion".into(),
        ));
    }
    let Some(fi) = dc_font(cx.proc, hdc) else {
        set_last_error(cx, ERROR_INVALID_HANDLE)?;
        return Ok(false);
    };
    let mut lists = Vec::with_capacity(chars.len());
    let mut gm = Vec::with_capacity(chars.len() * 24);
    for &c in &chars {
        let mut o = glyph_outline(fi.file, c, deviation.max(0.0)).unwrap_or_default();
        // A LOGFONT with a width stretches the glyphs as text output does.
        if fi.xscale != 1.0 {
            for p in o.contours.iter_mut().flatten() {
                p[0] *= fi.xscale;
            }
            o.advance *= fi.xscale;
            if let Some(b) = &mut o.bbox {
                b[0] *= fi.xscale;
                b[2] *= fi.xscale;
            }
        }
        lists.push(glyph_list(&o, format, extrusion.max(0.0)));
        for v in metrics(&o) {
            gm.extend_from_slice(&v.to_le_bytes());
        }
    }
    let done = with_current(cx, |c, dev| {
        let grp = dev.groups.entry(c.share).or_default();
        for (k, l) in lists.into_iter().enumerate() {
            let name = listBase.wrapping_add(k as u32);
            if name == 0 {
                continue;
            }
            grp.list_names.insert(name);
            grp.lists.insert(name, Arc::new(l));
        }
        Ok(())
    })?;
    if done.is_none() {
        // No current rendering context.
        return Ok(false);
    }
    if lpgmf.0 != 0 {
        cx.proc.mem.write_bytes(lpgmf.0, &gm)?;
    }
    Ok(true)
}

/// The characters `first` .. `first + count` of wglUseFontOutlines: of the ANSI
/// code page for the A form (at most 256), Unicode code points for the W form.
fn font_chars<S: GuestStr>(first: u32, count: u32) -> Vec<char> {
    if S::WIDE {
        (0..count.min(0x10000))
            .map(|k| char::from_u32(first.wrapping_add(k)).unwrap_or('\u{fffd}'))
            .collect()
    } else {
        (0..count.min(256))
            .map(|k| {
                let b = (first.wrapping_add(k) & 0xff) as u8;
                decode_ansi(&[b]).chars().next().unwrap_or(' ')
            })
            .collect()
    }
}

pub fn wglUseFontOutlines<S: GuestStr>(
    cx: &mut Ctx,
    hdc: u32,
    first: u32,
    count: u32,
    listBase: u32,
    deviation: f32,
    extrusion: f32,
    format: i32,
    lpgmf: Ptr,
) -> ApiResult<bool> {
    let chars = font_chars::<S>(first, count);
    use_font_outlines(
        cx, hdc, chars, listBase, deviation, extrusion, format, lpgmf,
    )
}
