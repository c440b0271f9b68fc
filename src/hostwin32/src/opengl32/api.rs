//! OPENGL32's exports: each GL function decodes its arguments (every by-value
//! and by-pointer form of the attribute functions, with GL's conversions of
//! integer components) into a [`Cmd`] for display lists and execution, or answers
//! a query. Parameters keep the names of the GL headers.

use super::cmd::Cmd;
use super::consts::*;
use super::matrix::Mat4;
use super::state::UNITS;
use super::{arrays, light, lists, query, submit, texture, wgl, with_current};
use crate::hle::{ApiDef, ApiError, ApiResult, Arg, Ctx, Ptr, stdcall};
use crate::process::Process;
use std::sync::Arc;

/// A component type of the attribute functions.
trait Comp: Arg + Copy {
    const SIZE: usize;
    fn from_le(b: &[u8]) -> Self;
    /// The value as a float; `norm`: GL's conversion of integers to [-1, 1] or
    /// [0, 1] (colours and normals).
    fn to_f32(self, norm: bool) -> f32;
}

macro_rules! comp {
    ($t:ty, $size:literal, $from:expr, $norm:expr) => {
        impl Comp for $t {
            const SIZE: usize = $size;
            fn from_le(b: &[u8]) -> Self {
                let f: fn(&[u8]) -> $t = $from;
                f(b)
            }
            fn to_f32(self, norm: bool) -> f32 {
                if norm {
                    let f: fn($t) -> f32 = $norm;
                    f(self)
                } else {
                    self as f32
                }
            }
        }
    };
}

comp!(i8, 1, |b| b[0] as i8, |v| (f32::from(v) * 2.0 + 1.0)
    / 255.0);
comp!(u8, 1, |b| b[0], |v| f32::from(v) / 255.0);
comp!(i16, 2, |b| i16::from_le_bytes([b[0], b[1]]), |v| {
    (f32::from(v) * 2.0 + 1.0) / 65535.0
});
comp!(u16, 2, |b| u16::from_le_bytes([b[0], b[1]]), |v| {
    f32::from(v) / 65535.0
});
comp!(
    i32,
    4,
    |b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]),
    |v| { ((f64::from(v) * 2.0 + 1.0) / 4294967295.0) as f32 }
);
comp!(
    u32,
    4,
    |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
    |v| { (f64::from(v) / 4294967295.0) as f32 }
);
comp!(
    f32,
    4,
    |b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
    |v| v
);
comp!(
    f64,
    8,
    |b| f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
    |v| v as f32
);

fn read_comps<T: Comp>(proc: &Process, p: u32, n: usize, norm: bool) -> ApiResult<Vec<f32>> {
    let mut b = vec![0u8; n * T::SIZE];
    proc.mem.read_bytes(p, &mut b)?;
    Ok(b.chunks_exact(T::SIZE)
        .map(|c| T::from_le(c).to_f32(norm))
        .collect())
}

fn vertex(v: &[f32]) -> Cmd {
    Cmd::Vertex([
        v[0],
        v[1],
        v.get(2).copied().unwrap_or(0.0),
        v.get(3).copied().unwrap_or(1.0),
    ])
}

fn color(v: &[f32]) -> Cmd {
    Cmd::Color([v[0], v[1], v[2], v.get(3).copied().unwrap_or(1.0)])
}

fn tex(unit: usize, v: &[f32]) -> Cmd {
    Cmd::TexCoord(
        unit,
        [
            v[0],
            v.get(1).copied().unwrap_or(0.0),
            v.get(2).copied().unwrap_or(0.0),
            v.get(3).copied().unwrap_or(1.0),
        ],
    )
}

fn texcoord(v: &[f32]) -> Cmd {
    tex(0, v)
}

fn normal(v: &[f32]) -> Cmd {
    Cmd::Normal([v[0], v[1], v[2]])
}

/// The by-value and by-pointer (`v`) forms of an attribute function, one pair per
/// component type: `attr_forms!(vertex, false, (x, y), 2: glVertex2d glVertex2dv f64,
/// ...)` defines glVertex2d(x, y) and glVertex2dv(v) for doubles. `$norm`: integer
/// components are normalised to [-1, 1] / [0, 1] (colours, normals).
macro_rules! attr_forms {
    ($build:ident, $norm:expr, $args:tt, $n:literal: $($name:ident $namev:ident $t:ty),+ $(,)?) => {
        $(
            attr!($name, $build, $t, $norm, $args);
            fn $namev(cx: &mut Ctx, v: Ptr) -> ApiResult<()> {
                let vals = read_comps::<$t>(cx.proc, v.0, $n, $norm)?;
                submit(cx, $build(&vals))
            }
        )+
    };
}
macro_rules! attr {
    ($name:ident, $build:ident, $t:ty, $norm:expr, ($($a:ident),+)) => {
        fn $name(cx: &mut Ctx, $($a: $t),+) -> ApiResult<()> {
            let v = [$(<$t as Comp>::to_f32($a, $norm)),+];
            submit(cx, $build(&v))
        }
    };
}

attr_forms!(vertex, false, (x, y), 2:
    glVertex2d glVertex2dv f64,
    glVertex2f glVertex2fv f32,
    glVertex2i glVertex2iv i32,
    glVertex2s glVertex2sv i16,
);
attr_forms!(vertex, false, (x, y, z), 3:
    glVertex3d glVertex3dv f64,
    glVertex3f glVertex3fv f32,
    glVertex3i glVertex3iv i32,
    glVertex3s glVertex3sv i16,
);
attr_forms!(vertex, false, (x, y, z, w), 4:
    glVertex4d glVertex4dv f64,
    glVertex4f glVertex4fv f32,
    glVertex4i glVertex4iv i32,
    glVertex4s glVertex4sv i16,
);
attr_forms!(color, true, (red, green, blue), 3:
    glColor3b glColor3bv i8,
    glColor3d glColor3dv f64,
    glColor3f glColor3fv f32,
    glColor3i glColor3iv i32,
    glColor3s glColor3sv i16,
    glColor3ub glColor3ubv u8,
    glColor3ui glColor3uiv u32,
    glColor3us glColor3usv u16,
);
attr_forms!(color, true, (red, green, blue, alpha), 4:
    glColor4b glColor4bv i8,
    glColor4d glColor4dv f64,
    glColor4f glColor4fv f32,
    glColor4i glColor4iv i32,
    glColor4s glColor4sv i16,
    glColor4ub glColor4ubv u8,
    glColor4ui glColor4uiv u32,
    glColor4us glColor4usv u16,
);
attr_forms!(texcoord, false, (s), 1:
    glTexCoord1d glTexCoord1dv f64,
    glTexCoord1f glTexCoord1fv f32,
    glTexCoord1i glTexCoord1iv i32,
    glTexCoord1s glTexCoord1sv i16,
);
attr_forms!(texcoord, false, (s, t), 2:
    glTexCoord2d glTexCoord2dv f64,
    glTexCoord2f glTexCoord2fv f32,
    glTexCoord2i glTexCoord2iv i32,
    glTexCoord2s glTexCoord2sv i16,
);
attr_forms!(texcoord, false, (s, t, r), 3:
    glTexCoord3d glTexCoord3dv f64,
    glTexCoord3f glTexCoord3fv f32,
    glTexCoord3i glTexCoord3iv i32,
    glTexCoord3s glTexCoord3sv i16,
);
attr_forms!(texcoord, false, (s, t, r, q), 4:
    glTexCoord4d glTexCoord4dv f64,
    glTexCoord4f glTexCoord4fv f32,
    glTexCoord4i glTexCoord4iv i32,
    glTexCoord4s glTexCoord4sv i16,
);
attr_forms!(normal, true, (nx, ny, nz), 3:
    glNormal3b glNormal3bv i8,
    glNormal3d glNormal3dv f64,
    glNormal3f glNormal3fv f32,
    glNormal3i glNormal3iv i32,
    glNormal3s glNormal3sv i16,
);

/// glRect: a polygon of the four corners (GL 1.1 section 2.9).
fn rect(cx: &mut Ctx, x1: f32, y1: f32, x2: f32, y2: f32) -> ApiResult<()> {
    submit(cx, Cmd::Begin(GL_POLYGON))?;
    for (x, y) in [(x1, y1), (x2, y1), (x2, y2), (x1, y2)] {
        submit(cx, Cmd::Vertex([x, y, 0.0, 1.0]))?;
    }
    submit(cx, Cmd::End)
}

macro_rules! rect_fns {
    ($name:ident, $namev:ident, $t:ty) => {
        fn $name(cx: &mut Ctx, x1: $t, y1: $t, x2: $t, y2: $t) -> ApiResult<()> {
            rect(cx, x1 as f32, y1 as f32, x2 as f32, y2 as f32)
        }
        fn $namev(cx: &mut Ctx, v1: Ptr, v2: Ptr) -> ApiResult<()> {
            let a = read_comps::<$t>(cx.proc, v1.0, 2, false)?;
            let b = read_comps::<$t>(cx.proc, v2.0, 2, false)?;
            rect(cx, a[0], a[1], b[0], b[1])
        }
    };
}
rect_fns!(glRectd, glRectdv, f64);
rect_fns!(glRectf, glRectfv, f32);
rect_fns!(glRecti, glRectiv, i32);
rect_fns!(glRects, glRectsv, i16);

fn glBegin(cx: &mut Ctx, mode: u32) -> ApiResult<()> {
    submit(cx, Cmd::Begin(mode))
}
fn glEnd(cx: &mut Ctx) -> ApiResult<()> {
    submit(cx, Cmd::End)
}
fn glEnable(cx: &mut Ctx, cap: u32) -> ApiResult<()> {
    submit(cx, Cmd::Enable(cap))
}
fn glDisable(cx: &mut Ctx, cap: u32) -> ApiResult<()> {
    submit(cx, Cmd::Disable(cap))
}
fn glIsEnabled(cx: &mut Ctx, cap: u32) -> ApiResult<u32> {
    Ok(with_current(cx, |c, _| {
        Ok(match super::cmd::is_enabled(c, cap) {
            Some(v) => u32::from(v),
            None => {
                c.s.error(GL_INVALID_ENUM);
                0
            }
        })
    })?
    .unwrap_or(0))
}
fn glMatrixMode(cx: &mut Ctx, mode: u32) -> ApiResult<()> {
    submit(cx, Cmd::MatrixMode(mode))
}
fn glLoadIdentity(cx: &mut Ctx) -> ApiResult<()> {
    submit(cx, Cmd::LoadIdentity)
}
fn read_matrix<T: Comp>(cx: &Ctx, m: Ptr) -> ApiResult<Mat4> {
    let v = read_comps::<T>(cx.proc, m.0, 16, false)?;
    let mut a = [0f32; 16];
    a.copy_from_slice(&v);
    Ok(Mat4(a))
}
fn glLoadMatrixf(cx: &mut Ctx, m: Ptr) -> ApiResult<()> {
    let m = read_matrix::<f32>(cx, m)?;
    submit(cx, Cmd::LoadMatrix(m))
}
fn glLoadMatrixd(cx: &mut Ctx, m: Ptr) -> ApiResult<()> {
    let m = read_matrix::<f64>(cx, m)?;
    submit(cx, Cmd::LoadMatrix(m))
}
fn glMultMatrixf(cx: &mut Ctx, m: Ptr) -> ApiResult<()> {
    let m = read_matrix::<f32>(cx, m)?;
    submit(cx, Cmd::MultMatrix(m))
}
fn glMultMatrixd(cx: &mut Ctx, m: Ptr) -> ApiResult<()> {
    let m = read_matrix::<f64>(cx, m)?;
    submit(cx, Cmd::MultMatrix(m))
}
fn glPushMatrix(cx: &mut Ctx) -> ApiResult<()> {
    submit(cx, Cmd::PushMatrix)
}
fn glPopMatrix(cx: &mut Ctx) -> ApiResult<()> {
    submit(cx, Cmd::PopMatrix)
}
fn glOrtho(
    cx: &mut Ctx,
    left: f64,
    right: f64,
    bottom: f64,
    top: f64,
    zNear: f64,
    zFar: f64,
) -> ApiResult<()> {
    submit(cx, Cmd::Ortho([left, right, bottom, top, zNear, zFar]))
}
fn glFrustum(
    cx: &mut Ctx,
    left: f64,
    right: f64,
    bottom: f64,
    top: f64,
    zNear: f64,
    zFar: f64,
) -> ApiResult<()> {
    submit(cx, Cmd::Frustum([left, right, bottom, top, zNear, zFar]))
}
fn glRotated(cx: &mut Ctx, angle: f64, x: f64, y: f64, z: f64) -> ApiResult<()> {
    submit(cx, Cmd::Rotate([angle, x, y, z]))
}
fn glRotatef(cx: &mut Ctx, angle: f32, x: f32, y: f32, z: f32) -> ApiResult<()> {
    submit(cx, Cmd::Rotate([angle, x, y, z].map(f64::from)))
}
fn glTranslated(cx: &mut Ctx, x: f64, y: f64, z: f64) -> ApiResult<()> {
    submit(cx, Cmd::MultMatrix(Mat4::translate(x, y, z)))
}
fn glTranslatef(cx: &mut Ctx, x: f32, y: f32, z: f32) -> ApiResult<()> {
    let [x, y, z] = [x, y, z].map(f64::from);
    submit(cx, Cmd::MultMatrix(Mat4::translate(x, y, z)))
}
fn glScaled(cx: &mut Ctx, x: f64, y: f64, z: f64) -> ApiResult<()> {
    submit(cx, Cmd::MultMatrix(Mat4::scale(x, y, z)))
}
fn glScalef(cx: &mut Ctx, x: f32, y: f32, z: f32) -> ApiResult<()> {
    let [x, y, z] = [x, y, z].map(f64::from);
    submit(cx, Cmd::MultMatrix(Mat4::scale(x, y, z)))
}
fn glViewport(cx: &mut Ctx, x: i32, y: i32, width: i32, height: i32) -> ApiResult<()> {
    submit(cx, Cmd::Viewport([x, y, width, height]))
}
fn glDepthRange(cx: &mut Ctx, zNear: f64, zFar: f64) -> ApiResult<()> {
    submit(cx, Cmd::DepthRange(zNear, zFar))
}
fn glScissor(cx: &mut Ctx, x: i32, y: i32, width: i32, height: i32) -> ApiResult<()> {
    submit(cx, Cmd::Scissor([x, y, width, height]))
}
fn glClear(cx: &mut Ctx, mask: u32) -> ApiResult<()> {
    submit(cx, Cmd::Clear(mask))
}
fn glClearColor(cx: &mut Ctx, red: f32, green: f32, blue: f32, alpha: f32) -> ApiResult<()> {
    submit(cx, Cmd::ClearColor([red, green, blue, alpha]))
}
fn glClearDepth(cx: &mut Ctx, depth: f64) -> ApiResult<()> {
    submit(cx, Cmd::ClearDepth(depth))
}
fn glClearStencil(cx: &mut Ctx, s: i32) -> ApiResult<()> {
    submit(cx, Cmd::ClearStencil(s))
}
fn glBlendFunc(cx: &mut Ctx, sfactor: u32, dfactor: u32) -> ApiResult<()> {
    submit(cx, Cmd::BlendFunc(sfactor, dfactor))
}
fn glAlphaFunc(cx: &mut Ctx, func: u32, r#ref: f32) -> ApiResult<()> {
    submit(cx, Cmd::AlphaFunc(func, r#ref))
}
fn glDepthFunc(cx: &mut Ctx, func: u32) -> ApiResult<()> {
    submit(cx, Cmd::DepthFunc(func))
}
fn glDepthMask(cx: &mut Ctx, flag: u8) -> ApiResult<()> {
    submit(cx, Cmd::DepthMask(flag != 0))
}
fn glColorMask(cx: &mut Ctx, red: u8, green: u8, blue: u8, alpha: u8) -> ApiResult<()> {
    submit(
        cx,
        Cmd::ColorMask([red != 0, green != 0, blue != 0, alpha != 0]),
    )
}
fn glStencilFunc(cx: &mut Ctx, func: u32, r#ref: i32, mask: u32) -> ApiResult<()> {
    submit(cx, Cmd::StencilFunc(func, r#ref, mask))
}
fn glStencilOp(cx: &mut Ctx, fail: u32, zfail: u32, zpass: u32) -> ApiResult<()> {
    submit(cx, Cmd::StencilOp(fail, zfail, zpass))
}
fn glStencilMask(cx: &mut Ctx, mask: u32) -> ApiResult<()> {
    submit(cx, Cmd::StencilMask(mask))
}
fn glCullFace(cx: &mut Ctx, mode: u32) -> ApiResult<()> {
    submit(cx, Cmd::CullFace(mode))
}
fn glFrontFace(cx: &mut Ctx, mode: u32) -> ApiResult<()> {
    submit(cx, Cmd::FrontFace(mode))
}
fn glShadeModel(cx: &mut Ctx, mode: u32) -> ApiResult<()> {
    submit(cx, Cmd::ShadeModel(mode))
}
fn glPolygonOffset(cx: &mut Ctx, factor: f32, units: f32) -> ApiResult<()> {
    submit(cx, Cmd::PolygonOffset(factor, units))
}
fn glPolygonMode(cx: &mut Ctx, face: u32, mode: u32) -> ApiResult<()> {
    submit(cx, Cmd::PolygonMode(face, mode))
}
fn glHint(cx: &mut Ctx, target: u32, mode: u32) -> ApiResult<()> {
    submit(cx, Cmd::Hint(target, mode))
}
fn glPointSize(cx: &mut Ctx, size: f32) -> ApiResult<()> {
    submit(cx, Cmd::PointSize(size))
}
fn glLineWidth(cx: &mut Ctx, width: f32) -> ApiResult<()> {
    submit(cx, Cmd::LineWidth(width))
}
fn glDrawBuffer(cx: &mut Ctx, mode: u32) -> ApiResult<()> {
    submit(cx, Cmd::DrawBuffer(mode))
}
fn glReadBuffer(cx: &mut Ctx, mode: u32) -> ApiResult<()> {
    submit(cx, Cmd::ReadBuffer(mode))
}

/// Parameters whose integer forms are colours (normalised from the int range).
fn is_color_param(pname: u32) -> bool {
    matches!(
        pname,
        GL_FOG_COLOR | GL_TEXTURE_ENV_COLOR | GL_TEXTURE_BORDER_COLOR
    )
}

/// How many values a `v` parameter form reads.
fn param_count(pname: u32) -> usize {
    if is_color_param(pname) { 4 } else { 1 }
}

fn int_params(cx: &Ctx, pname: u32, p: Ptr) -> ApiResult<[f32; 4]> {
    let n = param_count(pname);
    let v = read_comps::<i32>(cx.proc, p.0, n, is_color_param(pname))?;
    let mut o = [0f32; 4];
    o[..n].copy_from_slice(&v);
    Ok(o)
}

fn float_params(cx: &Ctx, pname: u32, p: Ptr) -> ApiResult<[f32; 4]> {
    let n = param_count(pname);
    let v = read_comps::<f32>(cx.proc, p.0, n, false)?;
    let mut o = [0f32; 4];
    o[..n].copy_from_slice(&v);
    Ok(o)
}

fn one(v: f32) -> [f32; 4] {
    [v, 0.0, 0.0, 0.0]
}

fn glFogf(cx: &mut Ctx, pname: u32, param: f32) -> ApiResult<()> {
    submit(cx, Cmd::Fog(pname, one(param)))
}
fn glFogi(cx: &mut Ctx, pname: u32, param: i32) -> ApiResult<()> {
    submit(cx, Cmd::Fog(pname, one(param as f32)))
}
fn glFogfv(cx: &mut Ctx, pname: u32, params: Ptr) -> ApiResult<()> {
    let v = float_params(cx, pname, params)?;
    submit(cx, Cmd::Fog(pname, v))
}
fn glFogiv(cx: &mut Ctx, pname: u32, params: Ptr) -> ApiResult<()> {
    let v = int_params(cx, pname, params)?;
    submit(cx, Cmd::Fog(pname, v))
}
/// The values of a glLight / glMaterial / glLightModel `v` form.
fn light_params<T: Comp>(cx: &Ctx, pname: u32, p: Ptr) -> ApiResult<[f32; 4]> {
    let n = light::param_count(pname);
    let v = read_comps::<T>(cx.proc, p.0, n, light::is_color(pname))?;
    let mut o = [0f32; 4];
    o[..n].copy_from_slice(&v);
    Ok(o)
}

/// A scalar form (glLightf, glMaterialf, glLightModelf) of a vector parameter is
/// GL_INVALID_ENUM.
fn scalar_light_cmd(cx: &mut Ctx, pname: u32, cmd: Cmd) -> ApiResult<()> {
    if light::param_count(pname) > 1 {
        with_current(cx, |c, _| {
            c.s.error(GL_INVALID_ENUM);
            Ok(())
        })?;
        return Ok(());
    }
    submit(cx, cmd)
}

fn glLightf(cx: &mut Ctx, light: u32, pname: u32, param: f32) -> ApiResult<()> {
    scalar_light_cmd(cx, pname, Cmd::Light(light, pname, one(param)))
}
fn glLighti(cx: &mut Ctx, light: u32, pname: u32, param: i32) -> ApiResult<()> {
    scalar_light_cmd(cx, pname, Cmd::Light(light, pname, one(param as f32)))
}
fn glLightfv(cx: &mut Ctx, light: u32, pname: u32, params: Ptr) -> ApiResult<()> {
    let v = light_params::<f32>(cx, pname, params)?;
    submit(cx, Cmd::Light(light, pname, v))
}
fn glLightiv(cx: &mut Ctx, light: u32, pname: u32, params: Ptr) -> ApiResult<()> {
    let v = light_params::<i32>(cx, pname, params)?;
    submit(cx, Cmd::Light(light, pname, v))
}
fn glLightModelf(cx: &mut Ctx, pname: u32, param: f32) -> ApiResult<()> {
    scalar_light_cmd(cx, pname, Cmd::LightModel(pname, one(param)))
}
fn glLightModeli(cx: &mut Ctx, pname: u32, param: i32) -> ApiResult<()> {
    scalar_light_cmd(cx, pname, Cmd::LightModel(pname, one(param as f32)))
}
fn glLightModelfv(cx: &mut Ctx, pname: u32, params: Ptr) -> ApiResult<()> {
    let v = light_params::<f32>(cx, pname, params)?;
    submit(cx, Cmd::LightModel(pname, v))
}
fn glLightModeliv(cx: &mut Ctx, pname: u32, params: Ptr) -> ApiResult<()> {
    let v = light_params::<i32>(cx, pname, params)?;
    submit(cx, Cmd::LightModel(pname, v))
}
fn glMaterialf(cx: &mut Ctx, face: u32, pname: u32, param: f32) -> ApiResult<()> {
    scalar_light_cmd(cx, pname, Cmd::Material(face, pname, one(param)))
}
fn glMateriali(cx: &mut Ctx, face: u32, pname: u32, param: i32) -> ApiResult<()> {
    scalar_light_cmd(cx, pname, Cmd::Material(face, pname, one(param as f32)))
}
fn glMaterialfv(cx: &mut Ctx, face: u32, pname: u32, params: Ptr) -> ApiResult<()> {
    let v = light_params::<f32>(cx, pname, params)?;
    submit(cx, Cmd::Material(face, pname, v))
}
fn glMaterialiv(cx: &mut Ctx, face: u32, pname: u32, params: Ptr) -> ApiResult<()> {
    let v = light_params::<i32>(cx, pname, params)?;
    submit(cx, Cmd::Material(face, pname, v))
}
fn glColorMaterial(cx: &mut Ctx, face: u32, mode: u32) -> ApiResult<()> {
    submit(cx, Cmd::ColorMaterial(face, mode))
}
fn get_light(cx: &mut Ctx, l: u32, pname: u32, params: Ptr, int: bool) -> ApiResult<()> {
    let v = with_current(cx, |c, _| {
        let v = (GL_LIGHT0..GL_LIGHT0 + 8)
            .contains(&l)
            .then(|| light::light_values(&c.s.lighting.lights[(l - GL_LIGHT0) as usize], pname))
            .flatten();
        if v.is_none() {
            c.s.error(GL_INVALID_ENUM);
        }
        Ok(v)
    })?
    .flatten();
    if let Some(v) = v {
        write_params(cx, params, &v, int, light::is_color(pname))?;
    }
    Ok(())
}
fn glGetLightfv(cx: &mut Ctx, light: u32, pname: u32, params: Ptr) -> ApiResult<()> {
    get_light(cx, light, pname, params, false)
}
fn glGetLightiv(cx: &mut Ctx, light: u32, pname: u32, params: Ptr) -> ApiResult<()> {
    get_light(cx, light, pname, params, true)
}
fn get_material(cx: &mut Ctx, face: u32, pname: u32, params: Ptr, int: bool) -> ApiResult<()> {
    let v = with_current(cx, |c, _| {
        let k = match face {
            GL_FRONT => Some(0),
            GL_BACK => Some(1),
            _ => None,
        };
        let v = k.and_then(|k| light::material_values(&c.s.lighting.material[k], pname));
        if v.is_none() {
            c.s.error(GL_INVALID_ENUM);
        }
        Ok(v)
    })?
    .flatten();
    if let Some(v) = v {
        write_params(cx, params, &v, int, light::is_color(pname))?;
    }
    Ok(())
}
fn glGetMaterialfv(cx: &mut Ctx, face: u32, pname: u32, params: Ptr) -> ApiResult<()> {
    get_material(cx, face, pname, params, false)
}
fn glGetMaterialiv(cx: &mut Ctx, face: u32, pname: u32, params: Ptr) -> ApiResult<()> {
    get_material(cx, face, pname, params, true)
}

fn glTexEnvf(cx: &mut Ctx, target: u32, pname: u32, param: f32) -> ApiResult<()> {
    submit(cx, Cmd::TexEnv(target, pname, one(param)))
}
fn glTexEnvi(cx: &mut Ctx, target: u32, pname: u32, param: i32) -> ApiResult<()> {
    submit(cx, Cmd::TexEnv(target, pname, one(param as f32)))
}
fn glTexEnvfv(cx: &mut Ctx, target: u32, pname: u32, params: Ptr) -> ApiResult<()> {
    let v = float_params(cx, pname, params)?;
    submit(cx, Cmd::TexEnv(target, pname, v))
}
fn glTexEnviv(cx: &mut Ctx, target: u32, pname: u32, params: Ptr) -> ApiResult<()> {
    let v = int_params(cx, pname, params)?;
    submit(cx, Cmd::TexEnv(target, pname, v))
}
fn glTexParameterf(cx: &mut Ctx, target: u32, pname: u32, param: f32) -> ApiResult<()> {
    submit(cx, Cmd::TexParameter(target, pname, one(param)))
}
fn glTexParameteri(cx: &mut Ctx, target: u32, pname: u32, param: i32) -> ApiResult<()> {
    submit(cx, Cmd::TexParameter(target, pname, one(param as f32)))
}
fn glTexParameterfv(cx: &mut Ctx, target: u32, pname: u32, params: Ptr) -> ApiResult<()> {
    let v = float_params(cx, pname, params)?;
    submit(cx, Cmd::TexParameter(target, pname, v))
}
fn glTexParameteriv(cx: &mut Ctx, target: u32, pname: u32, params: Ptr) -> ApiResult<()> {
    let v = int_params(cx, pname, params)?;
    submit(cx, Cmd::TexParameter(target, pname, v))
}

fn glBindTexture(cx: &mut Ctx, target: u32, texture: u32) -> ApiResult<()> {
    submit(cx, Cmd::BindTexture(target, texture))
}

fn glGenTextures(cx: &mut Ctx, n: i32, textures: Ptr) -> ApiResult<()> {
    let names = with_current(cx, |c, dev| {
        if n < 0 {
            c.s.error(GL_INVALID_VALUE);
            return Ok(Vec::new());
        }
        let grp = dev.groups.entry(c.share).or_default();
        let mut out = Vec::new();
        let mut k = grp.next_texture.max(1);
        while out.len() < n as usize {
            if let std::collections::hash_map::Entry::Vacant(e) = grp.textures.entry(k) {
                out.push(k);
                e.insert(Default::default());
            }
            k += 1;
        }
        grp.next_texture = k;
        Ok(out)
    })?
    .unwrap_or_default();
    for (i, name) in names.iter().enumerate() {
        cx.proc.mem.write_u32(textures.0 + 4 * i as u32, *name)?;
    }
    Ok(())
}

fn glDeleteTextures(cx: &mut Ctx, n: i32, textures: Ptr) -> ApiResult<()> {
    let names = read_comps::<u32>(cx.proc, textures.0, n.max(0) as usize, false)?;
    with_current(cx, |c, dev| {
        if n < 0 {
            c.s.error(GL_INVALID_VALUE);
            return Ok(());
        }
        super::cmd::flush(c, dev);
        for name in names {
            let name = name as u32;
            if name == 0 {
                continue;
            }
            let gone = dev
                .groups
                .get_mut(&c.share)
                .and_then(|g| g.textures.remove(&name))
                .is_some();
            if gone && let Some(r) = dev.renderer.as_deref_mut() {
                r.delete_texture((c.share, name));
            }
            for u in 0..UNITS {
                if c.s.bound[u] == name {
                    c.s.bound[u] = 0;
                }
            }
        }
        Ok(())
    })
    .map(|_| ())
}

fn glIsTexture(cx: &mut Ctx, texture: u32) -> ApiResult<u32> {
    Ok(with_current(cx, |c, dev| {
        Ok(u32::from(
            texture != 0
                && dev
                    .groups
                    .get(&c.share)
                    .is_some_and(|g| g.textures.contains_key(&texture)),
        ))
    })?
    .unwrap_or(0))
}

fn glAreTexturesResident(cx: &mut Ctx, n: i32, textures: Ptr, residences: Ptr) -> ApiResult<u32> {
    // Every texture lives in the renderer's memory: all are resident, and GL then
    // leaves `residences` untouched.
    let _ = (n, textures, residences, cx);
    Ok(1)
}

fn glPrioritizeTextures(cx: &mut Ctx, n: i32, textures: Ptr, priorities: Ptr) -> ApiResult<()> {
    let names = read_comps::<u32>(cx.proc, textures.0, n.max(0) as usize, false)?;
    let prios = read_comps::<f32>(cx.proc, priorities.0, n.max(0) as usize, false)?;
    with_current(cx, |c, dev| {
        let grp = dev.groups.entry(c.share).or_default();
        for (name, p) in names.iter().zip(prios) {
            if let Some(t) = grp.textures.get_mut(&(*name as u32)) {
                t.priority = p.clamp(0.0, 1.0);
            }
        }
        Ok(())
    })
    .map(|_| ())
}

fn check_tex_target(cx: &mut Ctx, target: u32, what: &str) -> ApiResult<bool> {
    if target == GL_TEXTURE_1D {
        return Err(ApiError::UnimplementedCase(format!(
            "OPENGL32: {what}(GL_TEXTURE_1D)"
        )));
    }
    if target != GL_TEXTURE_2D {
        with_current(cx, |c, _| {
            c.s.error(GL_INVALID_ENUM);
            Ok(())
        })?;
        return Ok(false);
    }
    Ok(true)
}

fn unpack_image(
    cx: &mut Ctx,
    width: i32,
    height: i32,
    format: u32,
    ty: u32,
    pixels: Ptr,
) -> ApiResult<Option<Vec<u8>>> {
    if width < 0 || height < 0 {
        with_current(cx, |c, _| {
            c.s.error(GL_INVALID_VALUE);
            Ok(())
        })?;
        return Ok(None);
    }
    let Some(ps) = with_current(cx, |c, _| Ok(c.s.unpack))? else {
        return Ok(None);
    };
    match texture::unpack(
        cx.proc,
        &ps,
        width as u32,
        height as u32,
        format,
        ty,
        pixels.0,
    ) {
        Ok(v) => Ok(Some(v)),
        Err(texture::UnpackError::Api(e)) => Err(e),
        Err(texture::UnpackError::Gl(e)) => {
            with_current(cx, |c, _| {
                c.s.error(e);
                Ok(())
            })?;
            Ok(None)
        }
    }
}

fn glTexImage2D(
    cx: &mut Ctx,
    target: u32,
    level: i32,
    internalformat: i32,
    width: i32,
    height: i32,
    border: i32,
    format: u32,
    ty: u32,
    pixels: Ptr,
) -> ApiResult<()> {
    if !check_tex_target(cx, target, "glTexImage2D")? {
        return Ok(());
    }
    if border != 0 {
        return Err(ApiError::UnimplementedCase(
            "OPENGL32: glTexImage2D with a texture border".into(),
        ));
    }
    if level < 0 {
        return with_current(cx, |c, _| {
            c.s.error(GL_INVALID_VALUE);
            Ok(())
        })
        .map(|_| ());
    }
    let Some(rgba) = unpack_image(cx, width, height, format, ty, pixels)? else {
        return Ok(());
    };
    submit(
        cx,
        Cmd::TexImage2D {
            level: level as u32,
            internal: internalformat as u32,
            width: width as u32,
            height: height as u32,
            rgba: Arc::new(rgba),
        },
    )
}

fn glTexSubImage2D(
    cx: &mut Ctx,
    target: u32,
    level: i32,
    xoffset: i32,
    yoffset: i32,
    width: i32,
    height: i32,
    format: u32,
    ty: u32,
    pixels: Ptr,
) -> ApiResult<()> {
    if !check_tex_target(cx, target, "glTexSubImage2D")? {
        return Ok(());
    }
    if level < 0 || xoffset < 0 || yoffset < 0 {
        return with_current(cx, |c, _| {
            c.s.error(GL_INVALID_VALUE);
            Ok(())
        })
        .map(|_| ());
    }
    let Some(rgba) = unpack_image(cx, width, height, format, ty, pixels)? else {
        return Ok(());
    };
    submit(
        cx,
        Cmd::TexSubImage2D {
            level: level as u32,
            x: xoffset as u32,
            y: yoffset as u32,
            width: width as u32,
            height: height as u32,
            rgba: Arc::new(rgba),
        },
    )
}

fn glCopyTexImage2D(
    cx: &mut Ctx,
    target: u32,
    level: i32,
    internalformat: u32,
    x: i32,
    y: i32,
    width: i32,
    height: i32,
    border: i32,
) -> ApiResult<()> {
    if !check_tex_target(cx, target, "glCopyTexImage2D")? {
        return Ok(());
    }
    if border != 0 {
        return Err(ApiError::UnimplementedCase(
            "OPENGL32: glCopyTexImage2D with a texture border".into(),
        ));
    }
    submit(
        cx,
        Cmd::CopyTexImage2D {
            level: level.max(0) as u32,
            internal: internalformat,
            rect: [x, y, width, height],
        },
    )
}

fn glCopyTexSubImage2D(
    cx: &mut Ctx,
    target: u32,
    level: i32,
    xoffset: i32,
    yoffset: i32,
    x: i32,
    y: i32,
    width: i32,
    height: i32,
) -> ApiResult<()> {
    if !check_tex_target(cx, target, "glCopyTexSubImage2D")? {
        return Ok(());
    }
    submit(
        cx,
        Cmd::CopyTexSubImage2D {
            level: level.max(0) as u32,
            dst: (xoffset, yoffset),
            rect: [x, y, width, height],
        },
    )
}

fn glPixelStorei(cx: &mut Ctx, pname: u32, param: i32) -> ApiResult<()> {
    with_current(cx, |c, _| {
        let s = &mut c.s;
        let v = param.max(0) as u32;
        let bad_align = !matches!(param, 1 | 2 | 4 | 8);
        match pname {
            GL_UNPACK_ALIGNMENT | GL_PACK_ALIGNMENT if bad_align => s.error(GL_INVALID_VALUE),
            _ if param < 0 => s.error(GL_INVALID_VALUE),
            GL_UNPACK_ALIGNMENT => s.unpack.alignment = v,
            GL_UNPACK_ROW_LENGTH => s.unpack.row_length = v,
            GL_UNPACK_SKIP_ROWS => s.unpack.skip_rows = v,
            GL_UNPACK_SKIP_PIXELS => s.unpack.skip_pixels = v,
            GL_UNPACK_SWAP_BYTES => s.unpack.swap_bytes = v != 0,
            GL_UNPACK_LSB_FIRST => s.unpack.lsb_first = v != 0,
            GL_PACK_ALIGNMENT => s.pack.alignment = v,
            GL_PACK_ROW_LENGTH => s.pack.row_length = v,
            GL_PACK_SKIP_ROWS => s.pack.skip_rows = v,
            GL_PACK_SKIP_PIXELS => s.pack.skip_pixels = v,
            GL_PACK_SWAP_BYTES => s.pack.swap_bytes = v != 0,
            GL_PACK_LSB_FIRST => s.pack.lsb_first = v != 0,
            _ => s.error(GL_INVALID_ENUM),
        }
        Ok(())
    })
    .map(|_| ())
}

fn glPixelStoref(cx: &mut Ctx, pname: u32, param: f32) -> ApiResult<()> {
    glPixelStorei(cx, pname, param.round() as i32)
}

fn glNewList(cx: &mut Ctx, list: u32, mode: u32) -> ApiResult<()> {
    with_current(cx, |c, dev| {
        lists::new_list(c, dev, list, mode);
        Ok(())
    })
    .map(|_| ())
}
fn glEndList(cx: &mut Ctx) -> ApiResult<()> {
    with_current(cx, |c, dev| {
        lists::end_list(c, dev);
        Ok(())
    })
    .map(|_| ())
}
fn glGenLists(cx: &mut Ctx, range: i32) -> ApiResult<u32> {
    Ok(with_current(cx, |c, dev| Ok(lists::gen_lists(c, dev, range)))?.unwrap_or(0))
}
fn glDeleteLists(cx: &mut Ctx, list: u32, range: i32) -> ApiResult<()> {
    with_current(cx, |c, dev| {
        lists::delete_lists(c, dev, list, range);
        Ok(())
    })
    .map(|_| ())
}
fn glIsList(cx: &mut Ctx, list: u32) -> ApiResult<u32> {
    Ok(with_current(cx, |c, dev| Ok(u32::from(lists::is_list(c, dev, list))))?.unwrap_or(0))
}
fn glCallList(cx: &mut Ctx, list: u32) -> ApiResult<()> {
    submit(cx, Cmd::CallList(list))
}
fn glCallLists(cx: &mut Ctx, n: i32, ty: u32, lists_: Ptr) -> ApiResult<()> {
    match lists::read_names(cx.proc, n, ty, lists_.0)? {
        Some(names) => submit(cx, Cmd::CallLists(Arc::new(names))),
        None => with_current(cx, |c, _| {
            c.s.error(GL_INVALID_ENUM);
            Ok(())
        })
        .map(|_| ()),
    }
}
fn glListBase(cx: &mut Ctx, base: u32) -> ApiResult<()> {
    submit(cx, Cmd::ListBase(base))
}

fn glGetError(cx: &mut Ctx) -> ApiResult<u32> {
    Ok(with_current(cx, |c, _| {
        // Inside glBegin/glEnd glGetError is itself an invalid operation.
        if c.prim.is_some() {
            c.s.error(GL_INVALID_OPERATION);
            return Ok(0);
        }
        Ok(std::mem::replace(&mut c.s.error, GL_NO_ERROR))
    })?
    .unwrap_or(0))
}

fn glGetString(cx: &mut Ctx, name: u32) -> ApiResult<u32> {
    query::string(cx, name)
}

/// Runs glGet for `pname`, writing each value with `put`.
fn get_values(cx: &mut Ctx, pname: u32) -> ApiResult<Option<(query::Kind, Vec<f64>)>> {
    Ok(with_current(cx, |c, dev| {
        if c.prim.is_some() {
            c.s.error(GL_INVALID_OPERATION);
            return Ok(None);
        }
        let v = query::get(c, dev, pname);
        if v.is_none() {
            c.s.error(GL_INVALID_ENUM);
        }
        Ok(v)
    })?
    .flatten())
}

fn glGetIntegerv(cx: &mut Ctx, pname: u32, params: Ptr) -> ApiResult<()> {
    if let Some((k, v)) = get_values(cx, pname)? {
        for (i, x) in v.iter().enumerate() {
            cx.proc
                .mem
                .write_u32(params.0 + 4 * i as u32, query::to_int(k, *x) as u32)?;
        }
    }
    Ok(())
}
fn glGetFloatv(cx: &mut Ctx, pname: u32, params: Ptr) -> ApiResult<()> {
    if let Some((_, v)) = get_values(cx, pname)? {
        for (i, x) in v.iter().enumerate() {
            cx.proc
                .mem
                .write_u32(params.0 + 4 * i as u32, (*x as f32).to_bits())?;
        }
    }
    Ok(())
}
fn glGetDoublev(cx: &mut Ctx, pname: u32, params: Ptr) -> ApiResult<()> {
    if let Some((_, v)) = get_values(cx, pname)? {
        for (i, x) in v.iter().enumerate() {
            cx.proc
                .mem
                .write_bytes(params.0 + 8 * i as u32, &x.to_le_bytes())?;
        }
    }
    Ok(())
}
fn glGetBooleanv(cx: &mut Ctx, pname: u32, params: Ptr) -> ApiResult<()> {
    if let Some((_, v)) = get_values(cx, pname)? {
        let b: Vec<u8> = v.iter().map(|&x| u8::from(x != 0.0)).collect();
        cx.proc.mem.write_bytes(params.0, &b)?;
    }
    Ok(())
}

fn write_params(cx: &Ctx, params: Ptr, v: &[f64], int: bool, color: bool) -> ApiResult<()> {
    for (i, x) in v.iter().enumerate() {
        let bits = if !int {
            (*x as f32).to_bits()
        } else if color {
            query::to_int(query::Kind::Normalized, *x) as u32
        } else {
            x.round() as i32 as u32
        };
        cx.proc.mem.write_u32(params.0 + 4 * i as u32, bits)?;
    }
    Ok(())
}

fn get_tex_parameter(
    cx: &mut Ctx,
    target: u32,
    pname: u32,
    params: Ptr,
    int: bool,
) -> ApiResult<()> {
    if !check_tex_target(cx, target, "glGetTexParameter")? {
        return Ok(());
    }
    let v = with_current(cx, |c, dev| {
        let v = query::tex_parameter(c, dev, pname);
        if v.is_none() {
            c.s.error(GL_INVALID_ENUM);
        }
        Ok(v)
    })?
    .flatten();
    if let Some(v) = v {
        write_params(cx, params, &v, int, pname == GL_TEXTURE_BORDER_COLOR)?;
    }
    Ok(())
}
fn glGetTexParameterfv(cx: &mut Ctx, target: u32, pname: u32, params: Ptr) -> ApiResult<()> {
    get_tex_parameter(cx, target, pname, params, false)
}
fn glGetTexParameteriv(cx: &mut Ctx, target: u32, pname: u32, params: Ptr) -> ApiResult<()> {
    get_tex_parameter(cx, target, pname, params, true)
}
fn get_tex_level(
    cx: &mut Ctx,
    target: u32,
    level: i32,
    pname: u32,
    params: Ptr,
    int: bool,
) -> ApiResult<()> {
    if !check_tex_target(cx, target, "glGetTexLevelParameter")? {
        return Ok(());
    }
    let v = with_current(cx, |c, dev| {
        let v = query::tex_level_parameter(c, dev, level.max(0) as u32, pname);
        if v.is_none() {
            c.s.error(GL_INVALID_ENUM);
        }
        Ok(v)
    })?
    .flatten();
    if let Some(v) = v {
        write_params(cx, params, &[v], int, false)?;
    }
    Ok(())
}
fn glGetTexLevelParameterfv(
    cx: &mut Ctx,
    target: u32,
    level: i32,
    pname: u32,
    params: Ptr,
) -> ApiResult<()> {
    get_tex_level(cx, target, level, pname, params, false)
}
fn glGetTexLevelParameteriv(
    cx: &mut Ctx,
    target: u32,
    level: i32,
    pname: u32,
    params: Ptr,
) -> ApiResult<()> {
    get_tex_level(cx, target, level, pname, params, true)
}
fn get_tex_env(cx: &mut Ctx, target: u32, pname: u32, params: Ptr, int: bool) -> ApiResult<()> {
    let v = with_current(cx, |c, _| {
        let e = c.s.env[c.s.active_unit];
        Ok(match (target, pname) {
            (GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE) => Some(vec![f64::from(e.mode)]),
            (GL_TEXTURE_ENV, GL_TEXTURE_ENV_COLOR) => Some(e.color.map(f64::from).to_vec()),
            _ => {
                c.s.error(GL_INVALID_ENUM);
                None
            }
        })
    })?
    .flatten();
    if let Some(v) = v {
        write_params(cx, params, &v, int, pname == GL_TEXTURE_ENV_COLOR)?;
    }
    Ok(())
}
fn glGetTexEnvfv(cx: &mut Ctx, target: u32, pname: u32, params: Ptr) -> ApiResult<()> {
    get_tex_env(cx, target, pname, params, false)
}
fn glGetTexEnviv(cx: &mut Ctx, target: u32, pname: u32, params: Ptr) -> ApiResult<()> {
    get_tex_env(cx, target, pname, params, true)
}

/// The client's `n` bytes at `pixels` that glReadPixels writes over (zeros where
/// they cannot be read; the write then reports the fault).
fn client_bytes(cx: &Ctx, pixels: Ptr, n: usize) -> Vec<u8> {
    let mut b = vec![0u8; n];
    let _ = cx.proc.mem.read_bytes(pixels.0, &mut b);
    b
}

/// glReadPixels of GL_DEPTH_COMPONENT or GL_STENCIL_INDEX: the drawable's depth
/// or stencil buffer through the renderer, converted with the pack state.
fn read_depth_stencil(
    cx: &mut Ctx,
    rect: [i32; 4],
    format: u32,
    ty: u32,
    pixels: Ptr,
) -> ApiResult<()> {
    let [_, _, width, height] = rect;
    if ty == GL_BITMAP && format == GL_STENCIL_INDEX {
        return Err(ApiError::UnimplementedCase(
            "OPENGL32: glReadPixels of GL_STENCIL_INDEX as GL_BITMAP".into(),
        ));
    }
    let got = with_current(cx, |c, dev| {
        if width < 0 || height < 0 {
            c.s.error(GL_INVALID_VALUE);
            return Ok(None);
        }
        if !matches!(
            ty,
            GL_BYTE
                | GL_UNSIGNED_BYTE
                | GL_SHORT
                | GL_UNSIGNED_SHORT
                | GL_INT
                | GL_UNSIGNED_INT
                | GL_FLOAT
        ) {
            c.s.error(GL_INVALID_ENUM);
            return Ok(None);
        }
        // GL 1.1 section 4.3.2: reading a buffer the pixel format does not have.
        let bits = if format == GL_DEPTH_COMPONENT {
            c.format.depth_bits
        } else {
            c.format.stencil_bits
        };
        if c.prim.is_some() || bits == 0 {
            c.s.error(GL_INVALID_OPERATION);
            return Ok(None);
        }
        super::cmd::flush(c, dev);
        let (Some(r), Some(d)) = (dev.renderer.as_deref_mut(), c.drawable) else {
            return Ok(None);
        };
        Ok(Some(if format == GL_DEPTH_COMPONENT {
            (r.read_depth(d.hwnd, rect), Vec::new(), c.s.pack)
        } else {
            (Vec::new(), r.read_stencil(d.hwnd, rect), c.s.pack)
        }))
    })?
    .flatten();
    let Some((depth, stencil, ps)) = got else {
        return Ok(());
    };
    let values = if format == GL_DEPTH_COMPONENT {
        query::Single::Depth(&depth)
    } else {
        query::Single::Stencil(&stencil)
    };
    let client = |n: usize| client_bytes(cx, pixels, n);
    match query::pack_single(&ps, values, width as u32, height as u32, ty, client) {
        Ok(bytes) => cx.proc.mem.write_bytes(pixels.0, &bytes)?,
        Err(what) => return Err(ApiError::UnimplementedCase(format!("OPENGL32: {what}"))),
    }
    Ok(())
}

fn glReadPixels(
    cx: &mut Ctx,
    x: i32,
    y: i32,
    width: i32,
    height: i32,
    format: u32,
    ty: u32,
    pixels: Ptr,
) -> ApiResult<()> {
    if format == GL_COLOR_INDEX {
        return Err(ApiError::UnimplementedCase(
            "OPENGL32: glReadPixels of GL_COLOR_INDEX (the formats are RGBA)".into(),
        ));
    }
    if matches!(format, GL_DEPTH_COMPONENT | GL_STENCIL_INDEX) {
        return read_depth_stencil(cx, [x, y, width, height], format, ty, pixels);
    }
    let got = with_current(cx, |c, dev| {
        if width < 0 || height < 0 {
            c.s.error(GL_INVALID_VALUE);
            return Ok(None);
        }
        if c.prim.is_some() {
            c.s.error(GL_INVALID_OPERATION);
            return Ok(None);
        }
        super::cmd::flush(c, dev);
        let (Some(r), Some(d)) = (dev.renderer.as_deref_mut(), c.drawable) else {
            return Ok(None);
        };
        let rgba = r.read_pixels(d.hwnd, [x, y, width, height]);
        Ok(Some((rgba, c.s.pack)))
    })?
    .flatten();
    let Some((rgba, ps)) = got else { return Ok(()) };
    let client = |n: usize| client_bytes(cx, pixels, n);
    match query::pack(&ps, &rgba, width as u32, height as u32, format, ty, client) {
        Ok(bytes) => cx.proc.mem.write_bytes(pixels.0, &bytes)?,
        Err(what) => {
            if matches!(
                format,
                GL_RGBA
                    | GL_RGB
                    | GL_BGRA_EXT
                    | GL_BGR_EXT
                    | GL_RED
                    | GL_GREEN
                    | GL_BLUE
                    | GL_ALPHA
                    | GL_LUMINANCE
                    | GL_LUMINANCE_ALPHA
            ) && matches!(
                ty,
                GL_BYTE
                    | GL_UNSIGNED_BYTE
                    | GL_SHORT
                    | GL_UNSIGNED_SHORT
                    | GL_INT
                    | GL_UNSIGNED_INT
                    | GL_FLOAT
            ) {
                return Err(ApiError::UnimplementedCase(format!("OPENGL32: {what}")));
            }
            with_current(cx, |c, _| {
                c.s.error(GL_INVALID_ENUM);
                Ok(())
            })?;
        }
    }
    Ok(())
}

fn glFlush(cx: &mut Ctx) -> ApiResult<()> {
    wgl::flush(cx)
}
fn glFinish(cx: &mut Ctx) -> ApiResult<()> {
    wgl::flush(cx)
}

fn client_state(cx: &mut Ctx, array: u32, on: bool) -> ApiResult<()> {
    with_current(cx, |c, _| {
        let u = c.s.client_unit;
        let a = &mut c.arrays;
        match array {
            GL_VERTEX_ARRAY => a.vertex.enabled = on,
            GL_COLOR_ARRAY => a.color.enabled = on,
            GL_NORMAL_ARRAY => a.normal.enabled = on,
            GL_TEXTURE_COORD_ARRAY => a.texcoord[u].enabled = on,
            GL_INDEX_ARRAY | GL_EDGE_FLAG_ARRAY if on => {
                return Err(ApiError::UnimplementedCase(format!(
                    "OPENGL32: glEnableClientState({array:#x}) (index and edge-flag arrays)"
                )));
            }
            GL_INDEX_ARRAY | GL_EDGE_FLAG_ARRAY => {}
            _ => c.s.error(GL_INVALID_ENUM),
        }
        Ok(())
    })
    .map(|_| ())
}
fn glEnableClientState(cx: &mut Ctx, array: u32) -> ApiResult<()> {
    client_state(cx, array, true)
}
fn glDisableClientState(cx: &mut Ctx, array: u32) -> ApiResult<()> {
    client_state(cx, array, false)
}

const SIGNED_TYPES: &[u32] = &[GL_SHORT, GL_INT, GL_FLOAT, GL_DOUBLE];
fn glVertexPointer(cx: &mut Ctx, size: i32, ty: u32, stride: i32, pointer: Ptr) -> ApiResult<()> {
    arrays::set_pointer(
        cx,
        |a, _| &mut a.vertex,
        &[2, 3, 4],
        SIGNED_TYPES,
        size as u32,
        ty,
        stride,
        pointer.0,
    )
}
fn glColorPointer(cx: &mut Ctx, size: i32, ty: u32, stride: i32, pointer: Ptr) -> ApiResult<()> {
    arrays::set_pointer(
        cx,
        |a, _| &mut a.color,
        &[3, 4],
        &[
            GL_BYTE,
            GL_UNSIGNED_BYTE,
            GL_SHORT,
            GL_UNSIGNED_SHORT,
            GL_INT,
            GL_UNSIGNED_INT,
            GL_FLOAT,
            GL_DOUBLE,
        ],
        size as u32,
        ty,
        stride,
        pointer.0,
    )
}
fn glTexCoordPointer(cx: &mut Ctx, size: i32, ty: u32, stride: i32, pointer: Ptr) -> ApiResult<()> {
    arrays::set_pointer(
        cx,
        |a, u| &mut a.texcoord[u],
        &[1, 2, 3, 4],
        SIGNED_TYPES,
        size as u32,
        ty,
        stride,
        pointer.0,
    )
}
fn glNormalPointer(cx: &mut Ctx, ty: u32, stride: i32, pointer: Ptr) -> ApiResult<()> {
    arrays::set_pointer(
        cx,
        |a, _| &mut a.normal,
        &[3],
        &[GL_BYTE, GL_SHORT, GL_INT, GL_FLOAT, GL_DOUBLE],
        3,
        ty,
        stride,
        pointer.0,
    )
}
fn glInterleavedArrays(cx: &mut Ctx, format: u32, stride: i32, pointer: Ptr) -> ApiResult<()> {
    arrays::interleaved(cx, format, stride, pointer.0)
}
fn glArrayElement(cx: &mut Ctx, i: i32) -> ApiResult<()> {
    let Some(a) = arrays::current(cx)? else {
        return Ok(());
    };
    let mut cmds = Vec::new();
    arrays::element(cx.proc, &a, i as u32, &mut cmds)?;
    arrays::run(cx, cmds)
}
fn glDrawArrays(cx: &mut Ctx, mode: u32, first: i32, count: i32) -> ApiResult<()> {
    if count < 0 || first < 0 {
        return with_current(cx, |c, _| {
            c.s.error(GL_INVALID_VALUE);
            Ok(())
        })
        .map(|_| ());
    }
    arrays::draw(cx, mode, first as u32..(first + count) as u32)
}
fn glDrawElements(cx: &mut Ctx, mode: u32, count: i32, ty: u32, indices: Ptr) -> ApiResult<()> {
    let size = match ty {
        GL_UNSIGNED_BYTE => 1,
        GL_UNSIGNED_SHORT => 2,
        GL_UNSIGNED_INT => 4,
        _ => {
            return with_current(cx, |c, _| {
                c.s.error(GL_INVALID_ENUM);
                Ok(())
            })
            .map(|_| ());
        }
    };
    if count < 0 {
        return with_current(cx, |c, _| {
            c.s.error(GL_INVALID_VALUE);
            Ok(())
        })
        .map(|_| ());
    }
    let mut b = vec![0u8; count as usize * size];
    cx.proc.mem.read_bytes(indices.0, &mut b)?;
    let idx: Vec<u32> = b
        .chunks_exact(size)
        .map(|c| match size {
            1 => u32::from(c[0]),
            2 => u32::from(u16::from_le_bytes([c[0], c[1]])),
            _ => u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
        })
        .collect();
    arrays::draw(cx, mode, idx.into_iter())
}
fn glGetPointerv(cx: &mut Ctx, pname: u32, params: Ptr) -> ApiResult<()> {
    let v = with_current(cx, |c, _| {
        let a = &c.arrays;
        Ok(match pname {
            0x808E => Some(a.vertex.ptr),
            0x8090 => Some(a.color.ptr),
            0x808F => Some(a.normal.ptr),
            0x8092 => Some(a.texcoord[c.s.client_unit].ptr),
            _ => {
                c.s.error(GL_INVALID_ENUM);
                None
            }
        })
    })?
    .flatten();
    if let Some(p) = v {
        cx.proc.mem.write_u32(params.0, p)?;
    }
    Ok(())
}

/// GL_MAX_CLIENT_ATTRIB_STACK_DEPTH.
const MAX_CLIENT_ATTRIB_DEPTH: usize = 16;
const GL_CLIENT_PIXEL_STORE_BIT: u32 = 0x1;
const GL_CLIENT_VERTEX_ARRAY_BIT: u32 = 0x2;

fn glPushClientAttrib(cx: &mut Ctx, mask: u32) -> ApiResult<()> {
    with_current(cx, |c, _| {
        if c.client_stack.len() >= MAX_CLIENT_ATTRIB_DEPTH {
            c.s.error(GL_STACK_OVERFLOW);
        } else {
            c.client_stack.push((mask, c.arrays, c.s.unpack, c.s.pack));
        }
        Ok(())
    })
    .map(|_| ())
}

fn glPopClientAttrib(cx: &mut Ctx) -> ApiResult<()> {
    with_current(cx, |c, _| {
        match c.client_stack.pop() {
            None => c.s.error(GL_STACK_UNDERFLOW),
            Some((mask, arrays, unpack, pack)) => {
                if mask & GL_CLIENT_VERTEX_ARRAY_BIT != 0 {
                    // The lock of GL_EXT_compiled_vertex_array is not client
                    // attribute state.
                    let locked = c.arrays.locked;
                    c.arrays = arrays;
                    c.arrays.locked = locked;
                }
                if mask & GL_CLIENT_PIXEL_STORE_BIT != 0 {
                    c.s.unpack = unpack;
                    c.s.pack = pack;
                }
            }
        }
        Ok(())
    })
    .map(|_| ())
}

// GL_ARB_multitexture (through wglGetProcAddress).
fn glActiveTextureARB(cx: &mut Ctx, texture: u32) -> ApiResult<()> {
    submit(cx, Cmd::ActiveTexture(texture))
}
fn glClientActiveTextureARB(cx: &mut Ctx, texture: u32) -> ApiResult<()> {
    with_current(cx, |c, _| {
        let u = texture.wrapping_sub(GL_TEXTURE0_ARB) as usize;
        if u < UNITS {
            c.s.client_unit = u;
        } else {
            c.s.error(GL_INVALID_ENUM);
        }
        Ok(())
    })
    .map(|_| ())
}
fn multi(cx: &mut Ctx, target: u32, v: &[f32]) -> ApiResult<()> {
    let u = target.wrapping_sub(GL_TEXTURE0_ARB) as usize;
    if u >= UNITS {
        return with_current(cx, |c, _| {
            c.s.error(GL_INVALID_ENUM);
            Ok(())
        })
        .map(|_| ());
    }
    submit(cx, tex(u, v))
}
macro_rules! multi_fns {
    ($name:ident, $namev:ident, $t:ty, $n:literal, $($a:ident),+) => {
        fn $name(cx: &mut Ctx, target: u32, $($a: $t),+) -> ApiResult<()> {
            multi(cx, target, &[$($a as f32),+])
        }
        fn $namev(cx: &mut Ctx, target: u32, v: Ptr) -> ApiResult<()> {
            let vals = read_comps::<$t>(cx.proc, v.0, $n, false)?;
            multi(cx, target, &vals)
        }
    };
}
multi_fns!(glMultiTexCoord1fARB, glMultiTexCoord1fvARB, f32, 1, s);
multi_fns!(glMultiTexCoord2fARB, glMultiTexCoord2fvARB, f32, 2, s, t);
multi_fns!(glMultiTexCoord3fARB, glMultiTexCoord3fvARB, f32, 3, s, t, r);
multi_fns!(
    glMultiTexCoord4fARB,
    glMultiTexCoord4fvARB,
    f32,
    4,
    s,
    t,
    r,
    q
);
multi_fns!(glMultiTexCoord2dARB, glMultiTexCoord2dvARB, f64, 2, s, t);
multi_fns!(glMultiTexCoord2iARB, glMultiTexCoord2ivARB, i32, 2, s, t);
multi_fns!(glMultiTexCoord2sARB, glMultiTexCoord2svARB, i16, 2, s, t);

// GL_EXT_compiled_vertex_array.
fn glLockArraysEXT(cx: &mut Ctx, first: i32, count: i32) -> ApiResult<()> {
    with_current(cx, |c, _| {
        if first < 0 || count <= 0 {
            c.s.error(GL_INVALID_VALUE);
        } else if c.arrays.locked.is_some() {
            c.s.error(GL_INVALID_OPERATION);
        } else {
            c.arrays.locked = Some((first, count));
        }
        Ok(())
    })
    .map(|_| ())
}
fn glUnlockArraysEXT(cx: &mut Ctx) -> ApiResult<()> {
    with_current(cx, |c, _| {
        if c.arrays.locked.take().is_none() {
            c.s.error(GL_INVALID_OPERATION);
        }
        Ok(())
    })
    .map(|_| ())
}

/// `ext::NAME` exports, reachable through wglGetProcAddress only.
macro_rules! ext {
    ($v:ident, $($f:ident),+ $(,)?) => {
        $( $v.push(stdcall(concat!("ext::", stringify!($f)), $f)); )+
    };
}
macro_rules! exports {
    ($v:ident, $($f:ident),+ $(,)?) => {
        $( $v.push(stdcall(stringify!($f), $f)); )+
    };
}

#[allow(clippy::vec_init_then_push)]
pub fn exports() -> Vec<ApiDef> {
    let mut v: Vec<ApiDef> = Vec::new();
    exports!(
        v,
        glVertex2d,
        glVertex2f,
        glVertex2i,
        glVertex2s,
        glVertex3d,
        glVertex3f,
        glVertex3i,
        glVertex3s,
        glVertex4d,
        glVertex4f,
        glVertex4i,
        glVertex4s,
        glVertex2dv,
        glVertex2fv,
        glVertex2iv,
        glVertex2sv,
        glVertex3dv,
        glVertex3fv,
        glVertex3iv,
        glVertex3sv,
        glVertex4dv,
        glVertex4fv,
        glVertex4iv,
        glVertex4sv,
    );
    exports!(
        v,
        glColor3b,
        glColor3d,
        glColor3f,
        glColor3i,
        glColor3s,
        glColor3ub,
        glColor3ui,
        glColor3us,
        glColor4b,
        glColor4d,
        glColor4f,
        glColor4i,
        glColor4s,
        glColor4ub,
        glColor4ui,
        glColor4us,
        glColor3bv,
        glColor3dv,
        glColor3fv,
        glColor3iv,
        glColor3sv,
        glColor3ubv,
        glColor3uiv,
        glColor3usv,
        glColor4bv,
        glColor4dv,
        glColor4fv,
        glColor4iv,
        glColor4sv,
        glColor4ubv,
        glColor4uiv,
        glColor4usv,
    );
    exports!(
        v,
        glTexCoord1d,
        glTexCoord1f,
        glTexCoord1i,
        glTexCoord1s,
        glTexCoord2d,
        glTexCoord2f,
        glTexCoord2i,
        glTexCoord2s,
        glTexCoord3d,
        glTexCoord3f,
        glTexCoord3i,
        glTexCoord3s,
        glTexCoord4d,
        glTexCoord4f,
        glTexCoord4i,
        glTexCoord4s,
        glTexCoord1dv,
        glTexCoord1fv,
        glTexCoord1iv,
        glTexCoord1sv,
        glTexCoord2dv,
        glTexCoord2fv,
        glTexCoord2iv,
        glTexCoord2sv,
        glTexCoord3dv,
        glTexCoord3fv,
        glTexCoord3iv,
        glTexCoord3sv,
        glTexCoord4dv,
        glTexCoord4fv,
        glTexCoord4iv,
        glTexCoord4sv,
    );
    exports!(
        v,
        glNormal3b,
        glNormal3d,
        glNormal3f,
        glNormal3i,
        glNormal3s,
        glNormal3bv,
        glNormal3dv,
        glNormal3fv,
        glNormal3iv,
        glNormal3sv,
        glRectd,
        glRectdv,
        glRectf,
        glRectfv,
        glRecti,
        glRectiv,
        glRects,
        glRectsv,
    );
    exports!(
        v,
        glBegin,
        glEnd,
        glEnable,
        glDisable,
        glIsEnabled,
        glMatrixMode,
        glLoadIdentity,
        glLoadMatrixf,
        glLoadMatrixd,
        glMultMatrixf,
        glMultMatrixd,
        glPushMatrix,
        glPopMatrix,
        glOrtho,
        glFrustum,
        glRotated,
        glRotatef,
        glTranslated,
        glTranslatef,
        glScaled,
        glScalef,
        glViewport,
        glDepthRange,
        glScissor,
        glClear,
        glClearColor,
        glClearDepth,
        glClearStencil,
        glBlendFunc,
        glAlphaFunc,
        glDepthFunc,
        glDepthMask,
        glColorMask,
        glStencilFunc,
        glStencilOp,
        glStencilMask,
        glCullFace,
        glFrontFace,
        glShadeModel,
        glPolygonOffset,
        glPolygonMode,
        glHint,
        glPointSize,
        glLineWidth,
        glDrawBuffer,
        glReadBuffer,
        glFogf,
        glFogi,
        glFogfv,
        glFogiv,
        glLightf,
        glLighti,
        glLightfv,
        glLightiv,
        glLightModelf,
        glLightModeli,
        glLightModelfv,
        glLightModeliv,
        glMaterialf,
        glMateriali,
        glMaterialfv,
        glMaterialiv,
        glColorMaterial,
        glGetLightfv,
        glGetLightiv,
        glGetMaterialfv,
        glGetMaterialiv,
        glTexEnvf,
        glTexEnvi,
        glTexEnvfv,
        glTexEnviv,
        glTexParameterf,
        glTexParameteri,
        glTexParameterfv,
        glTexParameteriv,
        glBindTexture,
        glGenTextures,
        glDeleteTextures,
        glIsTexture,
        glAreTexturesResident,
        glPrioritizeTextures,
        glTexImage2D,
        glTexSubImage2D,
        glCopyTexImage2D,
        glCopyTexSubImage2D,
        glPixelStorei,
        glPixelStoref,
        glNewList,
        glEndList,
        glGenLists,
        glDeleteLists,
        glIsList,
        glCallList,
        glCallLists,
        glListBase,
        glGetError,
        glGetString,
        glGetIntegerv,
        glGetFloatv,
        glGetDoublev,
        glGetBooleanv,
        glGetTexParameterfv,
        glGetTexParameteriv,
        glGetTexLevelParameterfv,
        glGetTexLevelParameteriv,
        glGetTexEnvfv,
        glGetTexEnviv,
        glReadPixels,
        glFlush,
        glFinish,
        glEnableClientState,
        glDisableClientState,
        glVertexPointer,
        glColorPointer,
        glTexCoordPointer,
        glNormalPointer,
        glInterleavedArrays,
        glArrayElement,
        glDrawArrays,
        glDrawElements,
        glGetPointerv,
        glPushClientAttrib,
        glPopClientAttrib,
    );
    {
        use wgl::*;
        exports!(
            v,
            wglCreateContext,
            wglMakeCurrent,
            wglDeleteContext,
            wglGetCurrentContext,
            wglGetCurrentDC,
            wglShareLists,
            wglGetProcAddress,
            wglSwapBuffers,
            wglChoosePixelFormat,
            wglDescribePixelFormat,
            wglGetPixelFormat,
            wglSetPixelFormat,
        );
    }
    {
        use super::font::*;
        v.extend(crate::hle::stdcall_aw![wglUseFontOutlines]);
    }
    ext!(
        v,
        glActiveTextureARB,
        glClientActiveTextureARB,
        glMultiTexCoord1fARB,
        glMultiTexCoord1fvARB,
        glMultiTexCoord2fARB,
        glMultiTexCoord2fvARB,
        glMultiTexCoord3fARB,
        glMultiTexCoord3fvARB,
        glMultiTexCoord4fARB,
        glMultiTexCoord4fvARB,
        glMultiTexCoord2dARB,
        glMultiTexCoord2dvARB,
        glMultiTexCoord2iARB,
        glMultiTexCoord2ivARB,
        glMultiTexCoord2sARB,
        glMultiTexCoord2svARB,
        glLockArraysEXT,
        glUnlockArraysEXT,
    );
    // Windows' OPENGL32.dll numbers its exports from 1 in the ASCII order of their
    // names (glLoadIdentity is 165, wglMakeCurrent 357); size-coded intros import
    // by these ordinals.
    let mut names: Vec<&str> = crate::sysexports::dll("opengl32")
        .map(|d| d.exports.iter().map(|e| e.name).collect())
        .unwrap_or_default();
    names.sort_unstable();
    for d in &mut v {
        if let Ok(k) = names.binary_search(&d.name) {
            d.ordinal = u16::try_from(k + 1).ok();
        }
    }
    v
}
