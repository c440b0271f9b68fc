//! GL commands that display lists can hold, and their execution. Every such GL
//! function decodes its arguments into a [`Cmd`] and hands it to
//! [`super::submit`], which compiles it into the list being built, runs it, or
//! both (GL_COMPILE_AND_EXECUTE), so a display list replays exactly what the
//! functions do.

use super::Context;
use super::consts::*;
use super::matrix::Mat4;
use super::state::{Batch, Device, UNITS};
use crate::glrender::{
    BlendFactor, ClearOp, Compare, Cull, DrawState, Fog, FogMode, PipelineKey, StencilOp,
    StencilState, TexUnit, Topology, Vertex,
};
use crate::hle::{ApiError, ApiResult};
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq)]
pub enum Cmd {
    Begin(u32),
    End,
    Vertex([f32; 4]),
    Color([f32; 4]),
    /// Unit, s t r q.
    TexCoord(usize, [f32; 4]),
    Normal([f32; 3]),
    /// glMaterial: face, pname, values.
    Material(u32, u32, [f32; 4]),
    /// glLight: light, pname, values.
    Light(u32, u32, [f32; 4]),
    /// glLightModel: pname, values.
    LightModel(u32, [f32; 4]),
    /// glColorMaterial: face, mode.
    ColorMaterial(u32, u32),
    Enable(u32),
    Disable(u32),
    MatrixMode(u32),
    LoadIdentity,
    LoadMatrix(Mat4),
    MultMatrix(Mat4),
    PushMatrix,
    PopMatrix,
    /// glFrustum / glOrtho / glRotate with their arguments, multiplied at run time
    /// (invalid arguments are GL_INVALID_VALUE when executed).
    Frustum([f64; 6]),
    Ortho([f64; 6]),
    Rotate([f64; 4]),
    Viewport([i32; 4]),
    DepthRange(f64, f64),
    Scissor([i32; 4]),
    Clear(u32),
    ClearColor([f32; 4]),
    ClearDepth(f64),
    ClearStencil(i32),
    BlendFunc(u32, u32),
    AlphaFunc(u32, f32),
    DepthFunc(u32),
    DepthMask(bool),
    ColorMask([bool; 4]),
    StencilFunc(u32, i32, u32),
    StencilOp(u32, u32, u32),
    StencilMask(u32),
    CullFace(u32),
    FrontFace(u32),
    ShadeModel(u32),
    PolygonOffset(f32, f32),
    PolygonMode(u32, u32),
    /// pname, params (one or four values).
    Fog(u32, [f32; 4]),
    TexEnv(u32, u32, [f32; 4]),
    TexParameter(u32, u32, [f32; 4]),
    BindTexture(u32, u32),
    TexImage2D {
        level: u32,
        internal: u32,
        width: u32,
        height: u32,
        rgba: Arc<Vec<u8>>,
    },
    TexSubImage2D {
        level: u32,
        x: u32,
        y: u32,
        width: u32,
        height: u32,
        rgba: Arc<Vec<u8>>,
    },
    CopyTexImage2D {
        level: u32,
        internal: u32,
        rect: [i32; 4],
    },
    CopyTexSubImage2D {
        level: u32,
        dst: (i32, i32),
        rect: [i32; 4],
    },
    Hint(u32, u32),
    PointSize(f32),
    LineWidth(f32),
    ActiveTexture(u32),
    CallList(u32),
    /// glCallLists' names; the list base is added when it runs.
    CallLists(Arc<Vec<u32>>),
    ListBase(u32),
    DrawBuffer(u32),
    ReadBuffer(u32),
}

impl Cmd {
    /// Whether GL accepts it between glBegin and glEnd.
    fn allowed_in_begin(&self) -> bool {
        matches!(
            self,
            Cmd::End
                | Cmd::Vertex(_)
                | Cmd::Color(_)
                | Cmd::TexCoord(..)
                | Cmd::Normal(_)
                | Cmd::Material(..)
                | Cmd::CallList(_)
                | Cmd::CallLists(_)
        )
    }

    /// Whether it changes state the renderer sees (the overlay's state changes).
    fn is_state_change(&self) -> bool {
        !matches!(
            self,
            Cmd::Begin(_)
                | Cmd::End
                | Cmd::Vertex(_)
                | Cmd::Color(_)
                | Cmd::TexCoord(..)
                | Cmd::Normal(_)
                | Cmd::Clear(_)
                | Cmd::CallList(_)
                | Cmd::CallLists(_)
        )
    }
}

fn unimplemented(what: String) -> ApiError {
    ApiError::UnimplementedCase(format!("OPENGL32: {what}"))
}

/// Hands the pending batch to the renderer.
pub fn flush(c: &mut Context, dev: &mut Device) {
    let Some(b) = c.batch.take() else { return };
    if b.vertices.is_empty() {
        return;
    }
    let (Some(r), Some(d)) = (dev.renderer.as_deref_mut(), c.drawable) else {
        return;
    };
    dev.counting.draw_calls += 1;
    dev.counting.vertices += b.vertices.len() as u64;
    r.draw(d.hwnd, &b.state, &b.vertices);
}

fn compare(f: u32) -> Compare {
    match f {
        GL_NEVER => Compare::Never,
        GL_LESS => Compare::Less,
        GL_EQUAL => Compare::Equal,
        GL_LEQUAL => Compare::LessEqual,
        GL_GREATER => Compare::Greater,
        GL_NOTEQUAL => Compare::NotEqual,
        GL_GEQUAL => Compare::GreaterEqual,
        _ => Compare::Always,
    }
}

fn is_compare(f: u32) -> bool {
    (GL_NEVER..=GL_ALWAYS).contains(&f)
}

fn blend_factor(f: u32) -> BlendFactor {
    match f {
        GL_ZERO => BlendFactor::Zero,
        GL_SRC_COLOR => BlendFactor::SrcColor,
        GL_ONE_MINUS_SRC_COLOR => BlendFactor::OneMinusSrcColor,
        GL_DST_COLOR => BlendFactor::DstColor,
        GL_ONE_MINUS_DST_COLOR => BlendFactor::OneMinusDstColor,
        GL_SRC_ALPHA => BlendFactor::SrcAlpha,
        GL_ONE_MINUS_SRC_ALPHA => BlendFactor::OneMinusSrcAlpha,
        GL_DST_ALPHA => BlendFactor::DstAlpha,
        GL_ONE_MINUS_DST_ALPHA => BlendFactor::OneMinusDstAlpha,
        GL_SRC_ALPHA_SATURATE => BlendFactor::SrcAlphaSaturate,
        _ => BlendFactor::One,
    }
}

fn blend_src_ok(f: u32) -> bool {
    matches!(
        f,
        GL_ZERO
            | GL_ONE
            | GL_DST_COLOR
            | GL_ONE_MINUS_DST_COLOR
            | GL_SRC_ALPHA
            | GL_ONE_MINUS_SRC_ALPHA
            | GL_DST_ALPHA
            | GL_ONE_MINUS_DST_ALPHA
            | GL_SRC_ALPHA_SATURATE
    )
}

fn blend_dst_ok(f: u32) -> bool {
    matches!(
        f,
        GL_ZERO
            | GL_ONE
            | GL_SRC_COLOR
            | GL_ONE_MINUS_SRC_COLOR
            | GL_SRC_ALPHA
            | GL_ONE_MINUS_SRC_ALPHA
            | GL_DST_ALPHA
            | GL_ONE_MINUS_DST_ALPHA
    )
}

fn stencil_op(o: u32) -> StencilOp {
    match o {
        GL_ZERO => StencilOp::Zero,
        GL_REPLACE => StencilOp::Replace,
        GL_INCR => StencilOp::Incr,
        GL_DECR => StencilOp::Decr,
        GL_INVERT => StencilOp::Invert,
        _ => StencilOp::Keep,
    }
}

fn stencil_op_ok(o: u32) -> bool {
    matches!(
        o,
        GL_KEEP | GL_ZERO | GL_REPLACE | GL_INCR | GL_DECR | GL_INVERT
    )
}

fn intersect(a: [i32; 4], b: [i32; 4]) -> [i32; 4] {
    let x0 = a[0].max(b[0]);
    let y0 = a[1].max(b[1]);
    let x1 = (a[0] + a[2]).min(b[0] + b[2]);
    let y1 = (a[1] + a[3]).min(b[1] + b[3]);
    [x0, y0, (x1 - x0).max(0), (y1 - y0).max(0)]
}

/// The draw state the current GL state gives primitives of `topology`
/// (`polygons`: they are polygons, so culling and polygon offset apply).
fn draw_state(c: &Context, dev: &Device, topology: Topology, polygons: bool) -> DrawState {
    let s = &c.s;
    let (dw, dh) = c
        .drawable
        .map_or((0, 0), |d| (d.width as i32, d.height as i32));
    let mut scissor = intersect(s.viewport, [0, 0, dw, dh]);
    if s.en.scissor_test {
        scissor = intersect(scissor, s.scissor);
    }
    let has_depth = c.format.depth_bits > 0;
    let has_stencil = c.format.stencil_bits > 0;
    let mut units = [None; UNITS];
    for u in 0..UNITS {
        if !s.en.texture_2d[u] {
            continue;
        }
        let Some(t) = dev
            .groups
            .get(&c.share)
            .and_then(|g| g.textures.get(&s.bound[u]))
        else {
            continue;
        };
        let Some(sampler) = t.sampler() else { continue };
        units[u] = Some(TexUnit {
            tex: (c.share, s.bound[u]),
            format: t.format,
            sampler,
            env: match s.env[u].mode {
                GL_REPLACE => crate::glrender::EnvMode::Replace,
                GL_DECAL => crate::glrender::EnvMode::Decal,
                GL_BLEND => crate::glrender::EnvMode::Blend,
                GL_ADD => crate::glrender::EnvMode::Add,
                _ => crate::glrender::EnvMode::Modulate,
            },
            env_color: s.env[u].color,
            border: t.border_color,
        });
    }
    DrawState {
        pipeline: PipelineKey {
            topology,
            blend: s
                .en
                .blend
                .then(|| (blend_factor(s.blend.0), blend_factor(s.blend.1))),
            depth_test: (s.en.depth_test && has_depth).then(|| compare(s.depth_func)),
            depth_write: s.en.depth_test && has_depth && s.depth_mask,
            stencil: (s.en.stencil_test && has_stencil).then(|| StencilState {
                func: compare(s.stencil_func.0),
                read_mask: s.stencil_func.2 as u8,
                write_mask: s.stencil_writemask as u8,
                fail: stencil_op(s.stencil_op.0),
                depth_fail: stencil_op(s.stencil_op.1),
                pass: stencil_op(s.stencil_op.2),
            }),
            color_mask: s.color_mask,
            cull: (polygons && s.en.cull_face).then_some(match s.cull_face {
                GL_FRONT => Cull::Front,
                GL_FRONT_AND_BACK => Cull::Both,
                _ => Cull::Back,
            }),
            front_ccw: s.front_face == GL_CCW,
            depth_bias: (polygons && s.en.polygon_offset_fill && has_depth)
                .then(|| (s.polygon_offset.0.to_bits(), s.polygon_offset.1.to_bits())),
        },
        scissor,
        stencil_ref: s.stencil_func.1.clamp(0, 255) as u8,
        alpha_test: s
            .en
            .alpha_test
            .then(|| (compare(s.alpha_func.0), s.alpha_func.1)),
        units,
        fog: s.en.fog.then_some(Fog {
            mode: match s.fog_mode {
                GL_LINEAR => FogMode::Linear,
                GL_EXP2 => FogMode::Exp2,
                _ => FogMode::Exp,
            },
            color: s.fog_color,
            density: s.fog_density,
            start: s.fog_start,
            end: s.fog_end,
        }),
    }
}

/// Appends primitives to the pending batch, flushing first when the state differs.
pub fn emit(
    c: &mut Context,
    dev: &mut Device,
    topology: Topology,
    polygons: bool,
    verts: Vec<Vertex>,
) {
    if verts.is_empty() || c.drawable.is_none() {
        return;
    }
    let st = draw_state(c, dev, topology, polygons);
    if c.batch.as_ref().is_some_and(|b| b.state != st) {
        flush(c, dev);
    }
    match &mut c.batch {
        Some(b) => b.vertices.extend(verts),
        None => {
            c.batch = Some(Batch {
                state: st,
                vertices: verts,
            })
        }
    }
}

/// The transform from object coordinates to the drawable's clip space (see the
/// renderer contract): viewport and depth range folded into the projection.
pub fn object_to_clip(c: &Context) -> Mat4 {
    let s = &c.s;
    let (w, h) = c.drawable.map_or((1.0, 1.0), |d| {
        (d.width.max(1) as f64, d.height.max(1) as f64)
    });
    let [vx, vy, vw, vh] = s.viewport.map(f64::from);
    let (n, f) = (s.depth_range[0], s.depth_range[1]);
    let v = Mat4::from_rows([
        [vw / w, 0.0, 0.0, (2.0 * vx + vw) / w - 1.0],
        [0.0, vh / h, 0.0, (2.0 * vy + vh) / h - 1.0],
        [0.0, 0.0, (f - n) / 2.0, (n + f) / 2.0],
        [0.0, 0.0, 0.0, 1.0],
    ]);
    v.mul(s.projection.top()).mul(s.modelview.top())
}

/// Per-primitive transform state, fixed between glBegin and glEnd.
#[derive(Clone, Copy, Debug)]
pub struct Xform {
    pub mvp: Mat4,
    pub modelview: Mat4,
    /// The modelview's inverse, normals' transform, when lighting is on.
    pub normal: Option<Mat4>,
    pub tex: [Option<Mat4>; UNITS],
    pub fog: bool,
}

pub fn xform(c: &Context) -> Xform {
    let s = &c.s;
    Xform {
        mvp: object_to_clip(c),
        modelview: *s.modelview.top(),
        normal: s
            .en
            .lighting
            .then(|| s.modelview.top().inverse().unwrap_or(Mat4([0.0; 16]))),
        tex: [0, 1].map(|u| {
            let t = *s.texture[u].top();
            (t != Mat4::IDENTITY).then_some(t)
        }),
        fog: s.en.fog,
    }
}

/// One vertex through transform, colour and texture-matrix work.
pub fn vertex(c: &Context, x: &Xform, obj: [f32; 4], color: [f32; 4], tc: [[f32; 4]; 2]) -> Vertex {
    let pos = x.mvp.transform(obj);
    let fog = if x.fog {
        x.modelview.transform(obj)[2].abs()
    } else {
        0.0
    };
    let color = match &x.normal {
        Some(inv) => {
            let s = &c.s;
            let n = super::light::eye_normal(inv, s.normal, s.en.normalize);
            super::light::shade(&s.lighting, &s.en.lights, x.modelview.transform(obj), n)
        }
        None => color,
    };
    let mut tex = tc;
    for u in 0..UNITS {
        if let Some(t) = &x.tex[u] {
            tex[u] = t.transform(tc[u]);
        }
    }
    Vertex {
        pos,
        color: color.map(|v| v.clamp(0.0, 1.0)),
        tex,
        fog,
    }
}

/// The polygons of a primitive of `mode` over `n` vertices: each polygon's
/// vertices in order, and its provoking vertex (flat shading's colour).
fn polygons(mode: u32, n: usize) -> Vec<(Vec<usize>, usize)> {
    let mut out = Vec::new();
    match mode {
        GL_TRIANGLES => {
            for i in (0..n / 3 * 3).step_by(3) {
                out.push((vec![i, i + 1, i + 2], i + 2));
            }
        }
        GL_TRIANGLE_STRIP => {
            for i in 0..n.saturating_sub(2) {
                if i % 2 == 0 {
                    out.push((vec![i, i + 1, i + 2], i + 2));
                } else {
                    out.push((vec![i + 1, i, i + 2], i + 2));
                }
            }
        }
        GL_TRIANGLE_FAN => {
            for i in 1..n.saturating_sub(1) {
                out.push((vec![0, i, i + 1], i + 1));
            }
        }
        GL_QUADS => {
            for i in (0..n / 4 * 4).step_by(4) {
                out.push((vec![i, i + 1, i + 2, i + 3], i + 3));
            }
        }
        GL_QUAD_STRIP => {
            let mut i = 0;
            while i + 3 < n {
                out.push((vec![i, i + 1, i + 3, i + 2], i + 3));
                i += 2;
            }
        }
        _ => {
            // GL_POLYGON: its colour under flat shading is the first vertex's.
            if n >= 3 {
                out.push(((0..n).collect(), 0));
            }
        }
    }
    out
}

/// Whether a polygon faces the viewer (its window-space winding is the front
/// face's), from its first three vertices with positive w.
fn is_front(c: &Context, v: &[Vertex], poly: &[usize]) -> bool {
    let mut area = 0f32;
    let pts: Vec<(f32, f32)> = poly
        .iter()
        .map(|&i| {
            let p = v[i].pos;
            let w = if p[3] == 0.0 { 1.0 } else { p[3] };
            (p[0] / w, p[1] / w)
        })
        .collect();
    for k in 0..pts.len() {
        let (a, b) = (pts[k], pts[(k + 1) % pts.len()]);
        area += a.0 * b.1 - b.0 * a.1;
    }
    (area > 0.0) == (c.s.front_face == GL_CCW)
}

/// Breaks a primitive of `mode` into the renderer's triangles, lines or points,
/// with flat shading's provoking-vertex colours, and emits it. Polygons drawn in
/// GL_LINE or GL_POINT mode become their edges or vertices (culled here, since
/// the renderer only culls triangles).
pub fn assemble(c: &mut Context, dev: &mut Device, mode: u32, v: &[Vertex]) {
    let flat = c.s.shade_model == GL_FLAT;
    let pick = |i: usize, provoking: usize| {
        let mut x = v[i];
        if flat {
            x.color = v[provoking].color;
        }
        x
    };
    let n = v.len();
    let mut out: Vec<Vertex> = Vec::new();
    let topology = match mode {
        GL_POINTS => {
            out.extend(v.iter().copied());
            Topology::Points
        }
        GL_LINES => {
            for i in (0..n / 2 * 2).step_by(2) {
                out.extend([pick(i, i + 1), pick(i + 1, i + 1)]);
            }
            Topology::Lines
        }
        GL_LINE_STRIP | GL_LINE_LOOP => {
            if n >= 2 {
                for i in 0..n - 1 {
                    out.extend([pick(i, i + 1), pick(i + 1, i + 1)]);
                }
                if mode == GL_LINE_LOOP {
                    out.extend([pick(n - 1, 0), pick(0, 0)]);
                }
            }
            Topology::Lines
        }
        _ => {
            let polys = polygons(mode, n);
            if c.s.polygon_mode == (GL_FILL, GL_FILL) {
                for (p, prov) in &polys {
                    for k in 1..p.len() - 1 {
                        out.extend([pick(p[0], *prov), pick(p[k], *prov), pick(p[k + 1], *prov)]);
                    }
                }
                Topology::Triangles
            } else {
                // Each polygon in the mode of the face it shows.
                let mut lines = Vec::new();
                let mut points = Vec::new();
                let mut fill = Vec::new();
                for (p, prov) in &polys {
                    let front = is_front(c, v, p);
                    if c.s.en.cull_face {
                        let culled = match c.s.cull_face {
                            GL_FRONT => front,
                            GL_BACK => !front,
                            _ => true,
                        };
                        if culled {
                            continue;
                        }
                    }
                    let pm = if front {
                        c.s.polygon_mode.0
                    } else {
                        c.s.polygon_mode.1
                    };
                    match pm {
                        GL_LINE => {
                            for k in 0..p.len() {
                                lines
                                    .extend([pick(p[k], *prov), pick(p[(k + 1) % p.len()], *prov)]);
                            }
                        }
                        GL_POINT => points.extend(p.iter().map(|&i| pick(i, *prov))),
                        _ => {
                            for k in 1..p.len() - 1 {
                                fill.extend([
                                    pick(p[0], *prov),
                                    pick(p[k], *prov),
                                    pick(p[k + 1], *prov),
                                ]);
                            }
                        }
                    }
                }
                // Already culled: draw the filled ones without culling.
                let cull = std::mem::replace(&mut c.s.en.cull_face, false);
                emit(c, dev, Topology::Triangles, true, fill);
                c.s.en.cull_face = cull;
                emit_wide(c, dev, Topology::Lines, lines);
                emit_wide(c, dev, Topology::Points, points);
                return;
            }
        }
    };
    emit_wide(c, dev, topology, out);
}

/// Emits points and lines, as quads when wider than a pixel.
fn emit_wide(c: &mut Context, dev: &mut Device, topology: Topology, out: Vec<Vertex>) {
    match topology {
        Topology::Points if c.s.point_size != 1.0 => {
            let q = widen_points(c, &out, c.s.point_size);
            emit(c, dev, Topology::Triangles, false, q);
        }
        Topology::Lines if c.s.line_width != 1.0 => {
            let q = widen_lines(c, &out, c.s.line_width);
            emit(c, dev, Topology::Triangles, false, q);
        }
        t => emit(c, dev, t, t == Topology::Triangles, out),
    }
}

/// Clip-space size of one pixel along x and y.
fn pixel(c: &Context) -> (f32, f32) {
    c.drawable.map_or((0.0, 0.0), |d| {
        (2.0 / d.width.max(1) as f32, 2.0 / d.height.max(1) as f32)
    })
}

fn quad(a: [Vertex; 4]) -> [Vertex; 6] {
    [a[0], a[1], a[2], a[0], a[2], a[3]]
}

/// Non-antialiased wide points: squares of `size` pixels centred on the point.
fn widen_points(c: &Context, pts: &[Vertex], size: f32) -> Vec<Vertex> {
    let size = size.round().max(1.0);
    let (px, py) = pixel(c);
    let mut out = Vec::with_capacity(pts.len() * 6);
    for p in pts {
        let (dx, dy) = (px * size / 2.0 * p.pos[3], py * size / 2.0 * p.pos[3]);
        let at = |sx: f32, sy: f32| {
            let mut v = *p;
            v.pos[0] += sx * dx;
            v.pos[1] += sy * dy;
            v
        };
        out.extend(quad([
            at(-1.0, -1.0),
            at(1.0, -1.0),
            at(1.0, 1.0),
            at(-1.0, 1.0),
        ]));
    }
    out
}

/// Non-antialiased wide lines (GL 1.1 section 3.4.2): each segment widened by
/// `width` pixels along the minor axis (vertically for x-major lines).
fn widen_lines(c: &Context, segs: &[Vertex], width: f32) -> Vec<Vertex> {
    let width = width.round().max(1.0);
    let (px, py) = pixel(c);
    let mut out = Vec::with_capacity(segs.len() * 3);
    for pair in segs.chunks_exact(2) {
        let (a, b) = (pair[0], pair[1]);
        let wa = if a.pos[3] == 0.0 { 1.0 } else { a.pos[3] };
        let wb = if b.pos[3] == 0.0 { 1.0 } else { b.pos[3] };
        let dx = (b.pos[0] / wb - a.pos[0] / wa) / px.max(f32::MIN_POSITIVE);
        let dy = (b.pos[1] / wb - a.pos[1] / wa) / py.max(f32::MIN_POSITIVE);
        let (ox, oy) = if dx.abs() >= dy.abs() {
            (0.0, py * width / 2.0)
        } else {
            (px * width / 2.0, 0.0)
        };
        let off = |v: Vertex, s: f32| {
            let mut o = v;
            o.pos[0] += s * ox * v.pos[3];
            o.pos[1] += s * oy * v.pos[3];
            o
        };
        out.extend(quad([off(a, -1.0), off(b, -1.0), off(b, 1.0), off(a, 1.0)]));
    }
    out
}

/// Runs one command on the current context.
pub fn exec(c: &mut Context, dev: &mut Device, cmd: &Cmd) -> ApiResult<()> {
    if c.prim.is_some() && !cmd.allowed_in_begin() {
        c.s.error(GL_INVALID_OPERATION);
        return Ok(());
    }
    if cmd.is_state_change() {
        dev.counting.state_changes += 1;
    }
    let s = &mut c.s;
    match *cmd {
        Cmd::Begin(mode) => {
            if mode > GL_POLYGON {
                s.error(GL_INVALID_ENUM);
                return Ok(());
            }
            if s.en.lighting && s.lighting.two_side {
                return Err(unimplemented(
                    "two-sided lighting (GL_LIGHT_MODEL_TWO_SIDE)".into(),
                ));
            }
            c.xf = Some(xform(c));
            c.prim = Some((mode, Vec::new()));
        }
        Cmd::End => match c.prim.take() {
            None => s.error(GL_INVALID_OPERATION),
            Some((mode, verts)) => {
                c.xf = None;
                assemble(c, dev, mode, &verts);
            }
        },
        Cmd::Vertex(p) => {
            let (color, tc) = (s.color, s.texcoord);
            if let (Some(x), Some(_)) = (c.xf, c.prim.as_ref()) {
                let v = vertex(c, &x, p, color, tc);
                if let Some((_, list)) = c.prim.as_mut() {
                    list.push(v);
                }
            }
            // Outside glBegin/glEnd a vertex does nothing (GL leaves it undefined).
        }
        Cmd::Color(col) => {
            s.color = col;
            if s.en.color_material {
                super::light::track_color(&mut s.lighting, col);
            }
        }
        Cmd::Material(face, pname, v) => {
            use super::light;
            match light::faces(face) {
                None => s.error(GL_INVALID_ENUM),
                Some(_) if !light::material_pname_ok(pname) => s.error(GL_INVALID_ENUM),
                Some(which) => {
                    if !light::set_material(&mut s.lighting, which, pname, v) {
                        s.error(GL_INVALID_VALUE);
                    }
                }
            }
        }
        Cmd::Light(l, pname, v) => {
            if !(GL_LIGHT0..GL_LIGHT0 + 8).contains(&l) {
                s.error(GL_INVALID_ENUM);
            } else {
                let mv = *s.modelview.top();
                let light = &mut s.lighting.lights[(l - GL_LIGHT0) as usize];
                if let Err(e) = super::light::set_light(light, &mv, pname, v) {
                    s.error(e);
                }
            }
        }
        Cmd::LightModel(pname, v) => match pname {
            GL_LIGHT_MODEL_AMBIENT => s.lighting.model_ambient = v,
            GL_LIGHT_MODEL_LOCAL_VIEWER => s.lighting.local_viewer = v[0] != 0.0,
            GL_LIGHT_MODEL_TWO_SIDE => s.lighting.two_side = v[0] != 0.0,
            _ => s.error(GL_INVALID_ENUM),
        },
        Cmd::ColorMaterial(face, mode) => {
            if super::light::faces(face).is_none()
                || !matches!(
                    mode,
                    GL_EMISSION | GL_AMBIENT | GL_DIFFUSE | GL_SPECULAR | GL_AMBIENT_AND_DIFFUSE
                )
            {
                s.error(GL_INVALID_ENUM);
            } else {
                s.lighting.color_material = (face, mode);
                if s.en.color_material {
                    let col = s.color;
                    super::light::track_color(&mut s.lighting, col);
                }
            }
        }
        Cmd::TexCoord(u, t) => {
            if u < UNITS {
                s.texcoord[u] = t;
            }
        }
        Cmd::Normal(n) => s.normal = n,
        Cmd::Enable(cap) | Cmd::Disable(cap) => {
            let on = matches!(cmd, Cmd::Enable(_));
            set_cap(c, dev, cap, on)?;
        }
        Cmd::MatrixMode(m) => {
            if matches!(m, GL_MODELVIEW | GL_PROJECTION | GL_TEXTURE) {
                s.matrix_mode = m;
            } else {
                s.error(GL_INVALID_ENUM);
            }
        }
        Cmd::LoadIdentity => *s.stack_mut().top_mut() = Mat4::IDENTITY,
        Cmd::LoadMatrix(m) => *s.stack_mut().top_mut() = m,
        Cmd::MultMatrix(m) => mult(s, Some(m)),
        Cmd::Frustum([l, r, b, t, n, f]) => mult(s, Mat4::frustum(l, r, b, t, n, f)),
        Cmd::Ortho([l, r, b, t, n, f]) => mult(s, Mat4::ortho(l, r, b, t, n, f)),
        Cmd::Rotate([a, x, y, z]) => {
            // A zero axis leaves the matrix as it is (Mesa's behaviour).
            if let Some(m) = Mat4::rotate(a, x, y, z) {
                mult(s, Some(m));
            }
        }
        Cmd::PushMatrix => {
            if !s.stack_mut().push() {
                s.error(GL_STACK_OVERFLOW);
            }
        }
        Cmd::PopMatrix => {
            if !s.stack_mut().pop() {
                s.error(GL_STACK_UNDERFLOW);
            }
        }
        Cmd::Viewport([x, y, w, h]) => {
            if w < 0 || h < 0 {
                s.error(GL_INVALID_VALUE);
            } else {
                s.viewport = [x, y, w.min(4096), h.min(4096)];
            }
        }
        Cmd::DepthRange(n, f) => s.depth_range = [n.clamp(0.0, 1.0), f.clamp(0.0, 1.0)],
        Cmd::Scissor([x, y, w, h]) => {
            if w < 0 || h < 0 {
                s.error(GL_INVALID_VALUE);
            } else {
                s.scissor = [x, y, w, h];
            }
        }
        Cmd::Clear(mask) => clear(c, dev, mask)?,
        Cmd::ClearColor(col) => s.clear_color = col.map(|v| v.clamp(0.0, 1.0)),
        Cmd::ClearDepth(d) => s.clear_depth = d.clamp(0.0, 1.0),
        Cmd::ClearStencil(v) => s.clear_stencil = v,
        Cmd::BlendFunc(a, b) => {
            if blend_src_ok(a) && blend_dst_ok(b) {
                s.blend = (a, b);
            } else {
                s.error(GL_INVALID_ENUM);
            }
        }
        Cmd::AlphaFunc(f, r) => {
            if is_compare(f) {
                s.alpha_func = (f, r.clamp(0.0, 1.0));
            } else {
                s.error(GL_INVALID_ENUM);
            }
        }
        Cmd::DepthFunc(f) => {
            if is_compare(f) {
                s.depth_func = f;
            } else {
                s.error(GL_INVALID_ENUM);
            }
        }
        Cmd::DepthMask(m) => s.depth_mask = m,
        Cmd::ColorMask(m) => s.color_mask = m,
        Cmd::StencilFunc(f, r, m) => {
            if is_compare(f) {
                s.stencil_func = (f, r, m);
            } else {
                s.error(GL_INVALID_ENUM);
            }
        }
        Cmd::StencilOp(a, b, d) => {
            if stencil_op_ok(a) && stencil_op_ok(b) && stencil_op_ok(d) {
                s.stencil_op = (a, b, d);
            } else {
                s.error(GL_INVALID_ENUM);
            }
        }
        Cmd::StencilMask(m) => s.stencil_writemask = m,
        Cmd::CullFace(f) => {
            if matches!(f, GL_FRONT | GL_BACK | GL_FRONT_AND_BACK) {
                s.cull_face = f;
            } else {
                s.error(GL_INVALID_ENUM);
            }
        }
        Cmd::FrontFace(f) => {
            if matches!(f, GL_CW | GL_CCW) {
                s.front_face = f;
            } else {
                s.error(GL_INVALID_ENUM);
            }
        }
        Cmd::ShadeModel(m) => {
            if matches!(m, GL_FLAT | GL_SMOOTH) {
                s.shade_model = m;
            } else {
                s.error(GL_INVALID_ENUM);
            }
        }
        Cmd::PolygonOffset(f, u) => s.polygon_offset = (f, u),
        Cmd::PolygonMode(face, mode) => {
            if !matches!(mode, GL_POINT | GL_LINE | GL_FILL) {
                s.error(GL_INVALID_ENUM);
                return Ok(());
            }
            match face {
                GL_FRONT => s.polygon_mode.0 = mode,
                GL_BACK => s.polygon_mode.1 = mode,
                GL_FRONT_AND_BACK => s.polygon_mode = (mode, mode),
                _ => s.error(GL_INVALID_ENUM),
            }
        }
        Cmd::Fog(pname, v) => match pname {
            GL_FOG_MODE => {
                let m = v[0] as u32;
                if matches!(m, GL_LINEAR | GL_EXP | GL_EXP2) {
                    s.fog_mode = m;
                } else {
                    s.error(GL_INVALID_ENUM);
                }
            }
            GL_FOG_DENSITY => {
                if v[0] < 0.0 {
                    s.error(GL_INVALID_VALUE);
                } else {
                    s.fog_density = v[0];
                }
            }
            GL_FOG_START => s.fog_start = v[0],
            GL_FOG_END => s.fog_end = v[0],
            GL_FOG_COLOR => s.fog_color = v.map(|x| x.clamp(0.0, 1.0)),
            // Colour-index fog has no effect in RGBA mode.
            GL_FOG_INDEX => {}
            _ => s.error(GL_INVALID_ENUM),
        },
        Cmd::TexEnv(target, pname, v) => {
            if target != GL_TEXTURE_ENV {
                s.error(GL_INVALID_ENUM);
                return Ok(());
            }
            let u = s.active_unit;
            match pname {
                GL_TEXTURE_ENV_MODE => {
                    let m = v[0] as u32;
                    if matches!(m, GL_MODULATE | GL_DECAL | GL_BLEND | GL_REPLACE | GL_ADD) {
                        s.env[u].mode = m;
                    } else {
                        s.error(GL_INVALID_ENUM);
                    }
                }
                GL_TEXTURE_ENV_COLOR => s.env[u].color = v.map(|x| x.clamp(0.0, 1.0)),
                _ => s.error(GL_INVALID_ENUM),
            }
        }
        Cmd::TexParameter(target, pname, v) => {
            super::texture::parameter(c, dev, target, pname, v)?;
        }
        Cmd::BindTexture(target, name) => super::texture::bind(c, dev, target, name)?,
        Cmd::TexImage2D {
            level,
            internal,
            width,
            height,
            ref rgba,
        } => super::texture::image(c, dev, level, internal, width, height, rgba)?,
        Cmd::TexSubImage2D {
            level,
            x,
            y,
            width,
            height,
            ref rgba,
        } => super::texture::sub_image(c, dev, level, x, y, width, height, rgba)?,
        Cmd::CopyTexImage2D {
            level,
            internal,
            rect,
        } => super::texture::copy_image(c, dev, level, internal, rect)?,
        Cmd::CopyTexSubImage2D { level, dst, rect } => {
            super::texture::copy_sub_image(c, dev, level, dst, rect)?
        }
        Cmd::Hint(target, mode) => {
            let k = match target {
                GL_PERSPECTIVE_CORRECTION_HINT => 0,
                GL_POINT_SMOOTH_HINT => 1,
                GL_LINE_SMOOTH_HINT => 2,
                GL_POLYGON_SMOOTH_HINT => 3,
                GL_FOG_HINT => 4,
                _ => {
                    s.error(GL_INVALID_ENUM);
                    return Ok(());
                }
            };
            if matches!(mode, GL_DONT_CARE | GL_FASTEST | GL_NICEST) {
                s.hints[k] = mode;
            } else {
                s.error(GL_INVALID_ENUM);
            }
        }
        Cmd::PointSize(v) => {
            if v <= 0.0 {
                s.error(GL_INVALID_VALUE);
            } else {
                s.point_size = v;
            }
        }
        Cmd::LineWidth(v) => {
            if v <= 0.0 {
                s.error(GL_INVALID_VALUE);
            } else {
                s.line_width = v;
            }
        }
        Cmd::ActiveTexture(t) => {
            let u = t.wrapping_sub(GL_TEXTURE0_ARB) as usize;
            if u < UNITS {
                s.active_unit = u;
            } else {
                s.error(GL_INVALID_ENUM);
            }
        }
        Cmd::CallList(name) => super::lists::call(c, dev, name)?,
        Cmd::CallLists(ref names) => super::lists::call_lists(c, dev, names)?,
        Cmd::ListBase(b) => s.list_base = b,
        Cmd::DrawBuffer(b) | Cmd::ReadBuffer(b) => {
            let ok = match b {
                GL_FRONT | GL_FRONT_LEFT => true,
                GL_BACK | GL_BACK_LEFT => c.format.double_buffered(),
                _ => false,
            };
            if !ok {
                s.error(GL_INVALID_OPERATION);
            } else if matches!(cmd, Cmd::DrawBuffer(_)) {
                if matches!(b, GL_FRONT | GL_FRONT_LEFT) && c.format.double_buffered() {
                    return Err(unimplemented(
                        "glDrawBuffer(GL_FRONT) on a double-buffered window".into(),
                    ));
                }
                s.draw_buffer = b;
            } else {
                s.read_buffer = b;
            }
        }
    }
    Ok(())
}

fn mult(s: &mut super::state::State, m: Option<Mat4>) {
    match m {
        Some(m) => {
            let t = s.stack_mut().top_mut();
            *t = t.mul(&m);
        }
        None => s.error(GL_INVALID_VALUE),
    }
}

fn clear(c: &mut Context, dev: &mut Device, mask: u32) -> ApiResult<()> {
    let known =
        GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT | GL_ACCUM_BUFFER_BIT;
    if mask & !known != 0 {
        c.s.error(GL_INVALID_VALUE);
        return Ok(());
    }
    if mask & GL_ACCUM_BUFFER_BIT != 0 {
        // The pixel formats have no accumulation buffer, so there is nothing to
        // clear (GL clears only buffers that exist).
    }
    flush(c, dev);
    let s = &c.s;
    let op = ClearOp {
        color: (mask & GL_COLOR_BUFFER_BIT != 0).then_some((s.clear_color, s.color_mask)),
        depth: (mask & GL_DEPTH_BUFFER_BIT != 0 && s.depth_mask && c.format.depth_bits > 0)
            .then_some(s.clear_depth as f32),
        stencil: (mask & GL_STENCIL_BUFFER_BIT != 0 && c.format.stencil_bits > 0)
            .then_some((s.clear_stencil as u8, s.stencil_writemask as u8)),
        scissor: s.en.scissor_test.then_some(s.scissor),
    };
    if let (Some(r), Some(d)) = (dev.renderer.as_deref_mut(), c.drawable) {
        r.clear(d.hwnd, &op);
    }
    Ok(())
}

/// glEnable/glDisable.
fn set_cap(c: &mut Context, _dev: &mut Device, cap: u32, on: bool) -> ApiResult<()> {
    let s = &mut c.s;
    let e = &mut s.en;
    match cap {
        GL_DEPTH_TEST => e.depth_test = on,
        GL_BLEND => e.blend = on,
        GL_ALPHA_TEST => e.alpha_test = on,
        GL_CULL_FACE => e.cull_face = on,
        GL_FOG => e.fog = on,
        GL_STENCIL_TEST => e.stencil_test = on,
        GL_SCISSOR_TEST => e.scissor_test = on,
        GL_POLYGON_OFFSET_FILL => e.polygon_offset_fill = on,
        GL_TEXTURE_2D => e.texture_2d[s.active_unit] = on,
        // Dithering is implementation-dependent in GL; the renderer's 8-bit
        // channels need none.
        GL_DITHER => e.dither = on,
        GL_NORMALIZE => e.normalize = on,
        GL_COLOR_MATERIAL => {
            e.color_material = on;
            // Enabling it takes the current colour at once (GL 1.1 section 2.13.3).
            if on {
                let col = s.color;
                super::light::track_color(&mut s.lighting, col);
            }
        }
        GL_LIGHTING => e.lighting = on,
        l if (GL_LIGHT0..GL_LIGHT0 + 8).contains(&l) => e.lights[(l - GL_LIGHT0) as usize] = on,
        GL_POINT_SMOOTH
        | GL_LINE_SMOOTH
        | GL_POLYGON_SMOOTH
        | GL_LINE_STIPPLE
        | GL_POLYGON_STIPPLE
        | GL_COLOR_LOGIC_OP
        | GL_TEXTURE_1D
        | GL_TEXTURE_GEN_S
        | GL_TEXTURE_GEN_T
        | GL_TEXTURE_GEN_R
        | GL_TEXTURE_GEN_Q
        | GL_AUTO_NORMAL
        | GL_POLYGON_OFFSET_POINT
        | GL_POLYGON_OFFSET_LINE => {
            if on {
                return Err(unimplemented(format!("glEnable({})", cap_name(cap))));
            }
        }
        p if (GL_CLIP_PLANE0..GL_CLIP_PLANE0 + 6).contains(&p) => {
            if on {
                return Err(unimplemented(format!(
                    "glEnable(GL_CLIP_PLANE{})",
                    p - GL_CLIP_PLANE0
                )));
            }
        }
        _ => s.error(GL_INVALID_ENUM),
    }
    Ok(())
}

fn cap_name(cap: u32) -> String {
    match cap {
        GL_POINT_SMOOTH => "GL_POINT_SMOOTH".into(),
        GL_LINE_SMOOTH => "GL_LINE_SMOOTH".into(),
        GL_POLYGON_SMOOTH => "GL_POLYGON_SMOOTH".into(),
        GL_LINE_STIPPLE => "GL_LINE_STIPPLE".into(),
        GL_POLYGON_STIPPLE => "GL_POLYGON_STIPPLE".into(),
        GL_COLOR_LOGIC_OP => "GL_COLOR_LOGIC_OP".into(),
        GL_TEXTURE_1D => "GL_TEXTURE_1D".into(),
        GL_TEXTURE_GEN_S => "GL_TEXTURE_GEN_S".into(),
        GL_TEXTURE_GEN_T => "GL_TEXTURE_GEN_T".into(),
        GL_TEXTURE_GEN_R => "GL_TEXTURE_GEN_R".into(),
        GL_TEXTURE_GEN_Q => "GL_TEXTURE_GEN_Q".into(),
        GL_AUTO_NORMAL => "GL_AUTO_NORMAL".into(),
        GL_POLYGON_OFFSET_POINT => "GL_POLYGON_OFFSET_POINT".into(),
        GL_POLYGON_OFFSET_LINE => "GL_POLYGON_OFFSET_LINE".into(),
        c => format!("{c:#x}"),
    }
}

/// glIsEnabled; None for a capability GL does not know.
pub fn is_enabled(c: &Context, cap: u32) -> Option<bool> {
    let s = &c.s;
    let e = &s.en;
    Some(match cap {
        GL_DEPTH_TEST => e.depth_test,
        GL_BLEND => e.blend,
        GL_ALPHA_TEST => e.alpha_test,
        GL_CULL_FACE => e.cull_face,
        GL_FOG => e.fog,
        GL_STENCIL_TEST => e.stencil_test,
        GL_SCISSOR_TEST => e.scissor_test,
        GL_POLYGON_OFFSET_FILL => e.polygon_offset_fill,
        GL_TEXTURE_2D => e.texture_2d[s.active_unit],
        GL_DITHER => e.dither,
        GL_NORMALIZE => e.normalize,
        GL_COLOR_MATERIAL => e.color_material,
        GL_LIGHTING => e.lighting,
        l if (GL_LIGHT0..GL_LIGHT0 + 8).contains(&l) => e.lights[(l - GL_LIGHT0) as usize],
        GL_VERTEX_ARRAY => c.arrays.vertex.enabled,
        GL_COLOR_ARRAY => c.arrays.color.enabled,
        GL_NORMAL_ARRAY => c.arrays.normal.enabled,
        GL_TEXTURE_COORD_ARRAY => c.arrays.texcoord[s.client_unit].enabled,
        GL_POINT_SMOOTH
        | GL_LINE_SMOOTH
        | GL_POLYGON_SMOOTH
        | GL_LINE_STIPPLE
        | GL_POLYGON_STIPPLE
        | GL_COLOR_LOGIC_OP
        | GL_TEXTURE_1D
        | GL_TEXTURE_GEN_S
        | GL_TEXTURE_GEN_T
        | GL_TEXTURE_GEN_R
        | GL_TEXTURE_GEN_Q
        | GL_AUTO_NORMAL
        | GL_POLYGON_OFFSET_POINT
        | GL_POLYGON_OFFSET_LINE
        | GL_INDEX_ARRAY
        | GL_EDGE_FLAG_ARRAY => false,
        p if (GL_CLIP_PLANE0..GL_CLIP_PLANE0 + 6).contains(&p) => false,
        _ => return None,
    })
}
