//! GLU quadrics: gluNewQuadric / gluDeleteQuadric, the quadric's draw style,
//! normals, orientation and texture coordinates, and gluSphere, gluCylinder and
//! gluDisk drawn through OPENGL32's immediate mode (so they compile into display
//! lists like any GL call).
//!
//! Each shape is a grid of points (rows from one end to the other, columns around
//! the z axis, the last column closing the seam): GLU_FILL draws a quad strip per
//! pair of rows, ordered so that the outside faces front (GLU_OUTSIDE) or the
//! inside does (GLU_INSIDE, normals reversed); GLU_LINE the rows as loops and
//! the columns as strips; GLU_POINT the points. The sphere's rows run from the
//! +z pole to the -z pole, the cylinder's from z = 0 (base radius) to z = height
//! (top radius), the disk's from the outer radius inwards, in the z = 0 plane.
//! Texture coordinates: s around the axis from 0 to 1, t along the rows (1 at
//! the sphere's +z pole, 0 at the cylinder's base); the disk maps the square
//! around the outer radius onto 0..1. GLU_SILHOUETTE and quadric callbacks are
//! not implemented and report by name.

use crate::hle::{ApiError, ApiResult, Ctx, Ptr};
use crate::opengl32::cmd::Cmd;
use crate::opengl32::consts::*;
use crate::opengl32::submit;
use std::collections::HashMap;
use std::f64::consts::PI;
use std::sync::Mutex;

const GLU_SMOOTH: u32 = 100000;
const GLU_FLAT: u32 = 100001;
const GLU_NONE: u32 = 100002;
const GLU_POINT: u32 = 100010;
const GLU_LINE: u32 = 100011;
const GLU_FILL: u32 = 100012;
const GLU_SILHOUETTE: u32 = 100013;
const GLU_OUTSIDE: u32 = 100020;
const GLU_INSIDE: u32 = 100021;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quadric {
    pub draw_style: u32,
    pub normals: u32,
    pub orientation: u32,
    pub texture: bool,
}

impl Default for Quadric {
    fn default() -> Self {
        Quadric {
            draw_style: GLU_FILL,
            normals: GLU_SMOOTH,
            orientation: GLU_OUTSIDE,
            texture: false,
        }
    }
}

/// The process's quadrics by their address (a block of the process heap, so the
/// program holds a real pointer).
#[derive(Default)]
struct Quadrics {
    map: Mutex<HashMap<u32, Quadric>>,
}

fn get(cx: &Ctx, q: Ptr) -> Option<Quadric> {
    let slot = cx.proc.slot::<Quadrics>();
    let m = slot.map.lock().unwrap_or_else(|e| e.into_inner());
    m.get(&q.0).copied()
}

fn set(cx: &Ctx, q: Ptr, f: impl FnOnce(&mut Quadric)) {
    let slot = cx.proc.slot::<Quadrics>();
    let mut m = slot.map.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(x) = m.get_mut(&q.0) {
        f(x);
    }
}

pub fn gluNewQuadric(cx: &mut Ctx) -> ApiResult<u32> {
    let heap = crate::kernel32::heap::process_heap(cx.proc)?;
    let p = heap.alloc(16, true)?;
    if p != 0 {
        let slot = cx.proc.slot::<Quadrics>();
        let mut m = slot.map.lock().unwrap_or_else(|e| e.into_inner());
        m.insert(p, Quadric::default());
    }
    Ok(p)
}

pub fn gluDeleteQuadric(cx: &mut Ctx, state: Ptr) -> ApiResult<()> {
    let slot = cx.proc.slot::<Quadrics>();
    let known = slot
        .map
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&state.0)
        .is_some();
    if known {
        crate::kernel32::heap::process_heap(cx.proc)?.free(state.0);
    }
    Ok(())
}

pub fn gluQuadricDrawStyle(cx: &mut Ctx, quadObject: Ptr, drawStyle: u32) -> ApiResult<()> {
    if matches!(drawStyle, GLU_POINT | GLU_LINE | GLU_FILL | GLU_SILHOUETTE) {
        set(cx, quadObject, |q| q.draw_style = drawStyle);
    }
    Ok(())
}

pub fn gluQuadricNormals(cx: &mut Ctx, quadObject: Ptr, normals: u32) -> ApiResult<()> {
    if matches!(normals, GLU_SMOOTH | GLU_FLAT | GLU_NONE) {
        set(cx, quadObject, |q| q.normals = normals);
    }
    Ok(())
}

pub fn gluQuadricOrientation(cx: &mut Ctx, quadObject: Ptr, orientation: u32) -> ApiResult<()> {
    if matches!(orientation, GLU_OUTSIDE | GLU_INSIDE) {
        set(cx, quadObject, |q| q.orientation = orientation);
    }
    Ok(())
}

pub fn gluQuadricTexture(cx: &mut Ctx, quadObject: Ptr, textureCoords: u32) -> ApiResult<()> {
    set(cx, quadObject, |q| q.texture = textureCoords != 0);
    Ok(())
}

/// A point of a shape's grid at (row, column), fractional for facet centres:
/// position, unit normal (outside), texture coordinates.
type Point = ([f64; 3], [f64; 3], [f64; 2]);

fn normalize(v: [f64; 3]) -> [f64; 3] {
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if n > 0.0 { v.map(|x| x / n) } else { v }
}

/// Draws the grid of `rows` x `cols` cells that `at` describes with quadric `q`.
fn draw(
    cx: &mut Ctx,
    q: &Quadric,
    rows: u32,
    cols: u32,
    at: impl Fn(f64, f64) -> Point,
) -> ApiResult<()> {
    let inside = q.orientation == GLU_INSIDE;
    let put = |cx: &mut Ctx, (p, n, t): Point, normal: Option<[f64; 3]>| -> ApiResult<()> {
        if q.normals != GLU_NONE {
            let n = normal.unwrap_or(n);
            let n = if inside { n.map(|x| -x) } else { n };
            submit(cx, Cmd::Normal(n.map(|x| x as f32)))?;
        }
        if q.texture {
            submit(cx, Cmd::TexCoord(0, [t[0] as f32, t[1] as f32, 0.0, 1.0]))?;
        }
        submit(
            cx,
            Cmd::Vertex([p[0] as f32, p[1] as f32, p[2] as f32, 1.0]),
        )
    };
    match q.draw_style {
        GLU_FILL => {
            for i in 0..rows {
                let (a, b) = if inside { (i + 1, i) } else { (i, i + 1) };
                submit(cx, Cmd::Begin(GL_QUAD_STRIP))?;
                for j in 0..=cols {
                    // GLU_FLAT: the normal of the facet this pair closes (the
                    // quad's last vertex decides a flat-shaded colour).
                    let facet = (q.normals == GLU_FLAT).then(|| {
                        let jc = if j == 0 { 0.5 } else { j as f64 - 0.5 };
                        at(i as f64 + 0.5, jc).1
                    });
                    put(cx, at(f64::from(a), f64::from(j)), facet)?;
                    put(cx, at(f64::from(b), f64::from(j)), facet)?;
                }
                submit(cx, Cmd::End)?;
            }
        }
        GLU_LINE => {
            for i in 0..=rows {
                submit(cx, Cmd::Begin(GL_LINE_LOOP))?;
                for j in 0..cols {
                    put(cx, at(f64::from(i), f64::from(j)), None)?;
                }
                submit(cx, Cmd::End)?;
            }
            for j in 0..cols {
                submit(cx, Cmd::Begin(GL_LINE_STRIP))?;
                for i in 0..=rows {
                    put(cx, at(f64::from(i), f64::from(j)), None)?;
                }
                submit(cx, Cmd::End)?;
            }
        }
        GLU_POINT => {
            submit(cx, Cmd::Begin(GL_POINTS))?;
            for i in 0..=rows {
                for j in 0..cols {
                    put(cx, at(f64::from(i), f64::from(j)), None)?;
                }
            }
            submit(cx, Cmd::End)?;
        }
        _ => {
            return Err(ApiError::UnimplementedCase(
                "GLU32: quadrics drawn with GLU_SILHOUETTE".into(),
            ));
        }
    }
    Ok(())
}

/// The angle of column `j` of `cols` (the last column is the first again).
fn angle(j: f64, cols: u32) -> f64 {
    if j >= f64::from(cols) {
        0.0
    } else {
        2.0 * PI * j / f64::from(cols)
    }
}

pub fn gluSphere(cx: &mut Ctx, qobj: Ptr, radius: f64, slices: i32, stacks: i32) -> ApiResult<()> {
    let Some(q) = get(cx, qobj) else {
        return Ok(());
    };
    if slices < 2 || stacks < 1 {
        return Ok(());
    }
    let (cols, rows) = (slices as u32, stacks as u32);
    draw(cx, &q, rows, cols, |i, j| {
        sphere_point(radius, rows, cols, i, j)
    })
}

/// Point (row `i`, column `j`) of a sphere's grid.
fn sphere_point(radius: f64, rows: u32, cols: u32, i: f64, j: f64) -> Point {
    let rho = PI * i / f64::from(rows);
    let theta = angle(j, cols);
    let n = [-theta.sin() * rho.sin(), theta.cos() * rho.sin(), rho.cos()];
    (
        n.map(|x| x * radius),
        n,
        [j / f64::from(cols), 1.0 - i / f64::from(rows)],
    )
}

pub fn gluCylinder(
    cx: &mut Ctx,
    qobj: Ptr,
    baseRadius: f64,
    topRadius: f64,
    height: f64,
    slices: i32,
    stacks: i32,
) -> ApiResult<()> {
    let Some(q) = get(cx, qobj) else {
        return Ok(());
    };
    if slices < 2 || stacks < 1 {
        return Ok(());
    }
    let (cols, rows) = (slices as u32, stacks as u32);
    let nz = if height != 0.0 {
        (baseRadius - topRadius) / height
    } else {
        0.0
    };
    draw(cx, &q, rows, cols, |i, j| {
        cylinder_point([baseRadius, topRadius, height, nz], rows, cols, i, j)
    })
}

/// Point (row `i`, column `j`) of a cylinder's grid: `shape` is base radius, top
/// radius, height and the normals' z.
fn cylinder_point(shape: [f64; 4], rows: u32, cols: u32, i: f64, j: f64) -> Point {
    let [base, top, height, nz] = shape;
    let f = i / f64::from(rows);
    let r = base + (top - base) * f;
    let (s, c) = angle(j, cols).sin_cos();
    (
        [s * r, c * r, height * f],
        normalize([s, c, nz]),
        [j / f64::from(cols), f],
    )
}

pub fn gluDisk(
    cx: &mut Ctx,
    qobj: Ptr,
    innerRadius: f64,
    outerRadius: f64,
    slices: i32,
    loops: i32,
) -> ApiResult<()> {
    let Some(q) = get(cx, qobj) else {
        return Ok(());
    };
    if slices < 2 || loops < 1 {
        return Ok(());
    }
    let (cols, rows) = (slices as u32, loops as u32);
    draw(cx, &q, rows, cols, |i, j| {
        let r = outerRadius - (outerRadius - innerRadius) * i / f64::from(rows);
        let theta = angle(j, cols);
        let (s, c) = theta.sin_cos();
        let (x, y) = (s * r, c * r);
        let d = 2.0 * outerRadius;
        let t = if d != 0.0 {
            [0.5 + x / d, 0.5 + y / d]
        } else {
            [0.5, 0.5]
        };
        ([x, y, 0.0], [0.0, 0.0, 1.0], t)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quad GLU_FILL draws for cell (i, j) outside-facing: the quad strip's
    /// vertices (i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1) in GL's order.
    fn quad(at: impl Fn(f64, f64) -> Point, i: f64, j: f64) -> [[f64; 3]; 4] {
        [
            at(i, j).0,
            at(i + 1.0, j).0,
            at(i + 1.0, j + 1.0).0,
            at(i, j + 1.0).0,
        ]
    }

    /// The quad's normal by its winding (counter-clockwise seen from the side it
    /// points to).
    fn winding_normal(q: [[f64; 3]; 4]) -> [f64; 3] {
        let a = [q[2][0] - q[0][0], q[2][1] - q[0][1], q[2][2] - q[0][2]];
        let b = [q[3][0] - q[1][0], q[3][1] - q[1][1], q[3][2] - q[1][2]];
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }

    fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
        a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    }

    #[test]
    fn sphere_points_lie_on_it_and_its_quads_face_out() {
        let at = |i, j| sphere_point(2.0, 8, 12, i, j);
        for (i, j) in [(0.0, 0.0), (3.0, 5.0), (8.0, 11.0), (4.0, 12.0)] {
            let p = at(i, j).0;
            assert!((dot(p, p).sqrt() - 2.0).abs() < 1e-9);
        }
        // Row 0 is the +z pole, row 8 the -z pole; the last column closes the seam.
        assert!((at(0.0, 3.0).0[2] - 2.0).abs() < 1e-9);
        assert!((at(8.0, 3.0).0[2] + 2.0).abs() < 1e-9);
        assert_eq!(at(4.0, 12.0).0, at(4.0, 0.0).0);
        for (i, j) in [(1.0, 0.0), (3.0, 7.0), (6.0, 11.0)] {
            let n = winding_normal(quad(at, i, j));
            let centre = at(i + 0.5, j + 0.5).0;
            assert!(dot(n, centre) > 0.0, "cell ({i}, {j}) faces in");
        }
    }

    #[test]
    fn cylinder_quads_face_out_and_run_base_to_top() {
        let at = |i, j| cylinder_point([1.0, 0.5, 3.0, 0.5 / 3.0], 4, 10, i, j);
        assert_eq!(at(0.0, 0.0).0, [0.0, 1.0, 0.0]);
        let top = at(4.0, 0.0).0;
        assert!((top[1] - 0.5).abs() < 1e-9 && (top[2] - 3.0).abs() < 1e-9);
        for (i, j) in [(0.0, 0.0), (2.0, 5.0), (3.0, 9.0)] {
            let n = winding_normal(quad(at, i, j));
            let c = at(i + 0.5, j + 0.5).0;
            assert!(dot(n, [c[0], c[1], 0.0]) > 0.0, "cell ({i}, {j}) faces in");
        }
    }
}
