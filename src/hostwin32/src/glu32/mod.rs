//! GLU32.dll: the OpenGL utility library as a client of OPENGL32 (the layer
//! below it): matrix helpers (gluPerspective, gluLookAt, gluOrtho2D), mipmap
//! building and image scaling (the SGI GLU's box filters: 2x2 averages rounded
//! half up between levels, area averaging for arbitrary sizes), gluProject /
//! gluUnProject, gluErrorString, and quadrics (`quadric.rs`: spheres,
//! cylinders, disks). Functions not listed report themselves.

#![allow(non_snake_case)]
#![allow(clippy::too_many_arguments)]

mod quadric;

use crate::hle::{ApiDef, ApiError, ApiResult, Ctx, HleDll, Ptr, stdcall};
use crate::opengl32::cmd::Cmd;
use crate::opengl32::consts::*;
use crate::opengl32::matrix::Mat4;
use crate::opengl32::{submit, texture, with_current};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub const DLL: HleDll = HleDll {
    name: "GLU32.dll",
    exports,
    attach: None,
};

pub const GLU_INVALID_ENUM: u32 = 100900;
pub const GLU_INVALID_VALUE: u32 = 100901;
pub const GLU_OUT_OF_MEMORY: u32 = 100902;

/// gluErrorString's text (the same words in Microsoft's and SGI's GLU).
pub fn error_text(code: u32) -> Option<&'static str> {
    Some(match code {
        GL_NO_ERROR => "no error",
        GL_INVALID_ENUM | GLU_INVALID_ENUM => "invalid enumerant",
        GL_INVALID_VALUE | GLU_INVALID_VALUE => "invalid value",
        GL_INVALID_OPERATION => "invalid operation",
        GL_STACK_OVERFLOW => "stack overflow",
        GL_STACK_UNDERFLOW => "stack underflow",
        GL_OUT_OF_MEMORY | GLU_OUT_OF_MEMORY => "out of memory",
        _ => return None,
    })
}

#[derive(Default)]
struct Strings {
    by_code: Mutex<HashMap<u32, u32>>,
}

fn gluErrorString(cx: &mut Ctx, errCode: u32) -> ApiResult<u32> {
    let Some(text) = error_text(errCode) else {
        return Ok(0);
    };
    let slot = cx.proc.slot::<Strings>();
    let mut m = slot.by_code.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&p) = m.get(&errCode) {
        return Ok(p);
    }
    let heap = crate::kernel32::heap::process_heap(cx.proc)?;
    let p = heap.alloc(text.len() as u32 + 1, false)?;
    if p == 0 {
        return Err(ApiError::Other("process heap exhausted".into()));
    }
    let mut b = text.as_bytes().to_vec();
    b.push(0);
    cx.proc.mem.write_bytes(p, &b)?;
    m.insert(errCode, p);
    Ok(p)
}

/// gluPerspective's matrix, or None when it is degenerate (GLU then does nothing).
pub fn perspective(fovy: f64, aspect: f64, z_near: f64, z_far: f64) -> Option<Mat4> {
    let rad = fovy / 2.0 * std::f64::consts::PI / 180.0;
    let dz = z_far - z_near;
    let s = rad.sin();
    if dz == 0.0 || s == 0.0 || aspect == 0.0 {
        return None;
    }
    let cot = rad.cos() / s;
    Some(Mat4::from_rows([
        [cot / aspect, 0.0, 0.0, 0.0],
        [0.0, cot, 0.0, 0.0],
        [0.0, 0.0, -(z_far + z_near) / dz, -2.0 * z_near * z_far / dz],
        [0.0, 0.0, -1.0, 0.0],
    ]))
}

fn normalize(v: [f64; 3]) -> [f64; 3] {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if l == 0.0 {
        v
    } else {
        [v[0] / l, v[1] / l, v[2] / l]
    }
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// gluLookAt's matrix (the rotation, then the translation by -eye).
pub fn look_at(eye: [f64; 3], center: [f64; 3], up: [f64; 3]) -> Mat4 {
    let f = normalize([center[0] - eye[0], center[1] - eye[1], center[2] - eye[2]]);
    let s = normalize(cross(f, up));
    let u = cross(s, f);
    let r = Mat4::from_rows([
        [s[0], s[1], s[2], 0.0],
        [u[0], u[1], u[2], 0.0],
        [-f[0], -f[1], -f[2], 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]);
    r.mul(&Mat4::translate(-eye[0], -eye[1], -eye[2]))
}

fn gluPerspective(cx: &mut Ctx, fovy: f64, aspect: f64, zNear: f64, zFar: f64) -> ApiResult<()> {
    match perspective(fovy, aspect, zNear, zFar) {
        Some(m) => submit(cx, Cmd::MultMatrix(m)),
        None => Ok(()),
    }
}

fn gluLookAt(
    cx: &mut Ctx,
    eyex: f64,
    eyey: f64,
    eyez: f64,
    centerx: f64,
    centery: f64,
    centerz: f64,
    upx: f64,
    upy: f64,
    upz: f64,
) -> ApiResult<()> {
    let m = look_at(
        [eyex, eyey, eyez],
        [centerx, centery, centerz],
        [upx, upy, upz],
    );
    submit(cx, Cmd::MultMatrix(m))
}

fn gluOrtho2D(cx: &mut Ctx, left: f64, right: f64, bottom: f64, top: f64) -> ApiResult<()> {
    submit(cx, Cmd::Ortho([left, right, bottom, top, -1.0, 1.0]))
}

fn read_f64s(cx: &Ctx, p: Ptr, n: usize) -> ApiResult<Vec<f64>> {
    let mut b = vec![0u8; n * 8];
    cx.proc.mem.read_bytes(p.0, &mut b)?;
    Ok(b.chunks_exact(8)
        .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect())
}

fn read_viewport(cx: &Ctx, p: Ptr) -> ApiResult<[f64; 4]> {
    let mut v = [0f64; 4];
    for (k, x) in v.iter_mut().enumerate() {
        *x = f64::from(cx.proc.mem.read_u32(p.0 + 4 * k as u32)? as i32);
    }
    Ok(v)
}

fn mul_vec(m: &[f64], v: [f64; 4]) -> [f64; 4] {
    let mut o = [0f64; 4];
    for r in 0..4 {
        o[r] = m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2] + m[12 + r] * v[3];
    }
    o
}

/// gluProject: object coordinates to window coordinates, or None when w is 0.
pub fn project(obj: [f64; 3], model: &[f64], proj: &[f64], vp: [f64; 4]) -> Option<[f64; 3]> {
    let e = mul_vec(model, [obj[0], obj[1], obj[2], 1.0]);
    let c = mul_vec(proj, e);
    if c[3] == 0.0 {
        return None;
    }
    let n = [c[0] / c[3], c[1] / c[3], c[2] / c[3]];
    Some([
        vp[0] + vp[2] * (n[0] + 1.0) / 2.0,
        vp[1] + vp[3] * (n[1] + 1.0) / 2.0,
        (n[2] + 1.0) / 2.0,
    ])
}

fn write_f64(cx: &Ctx, p: Ptr, v: f64) -> ApiResult<()> {
    cx.proc.mem.write_bytes(p.0, &v.to_le_bytes())?;
    Ok(())
}

fn gluProject(
    cx: &mut Ctx,
    objx: f64,
    objy: f64,
    objz: f64,
    modelMatrix: Ptr,
    projMatrix: Ptr,
    viewport: Ptr,
    winx: Ptr,
    winy: Ptr,
    winz: Ptr,
) -> ApiResult<u32> {
    let m = read_f64s(cx, modelMatrix, 16)?;
    let p = read_f64s(cx, projMatrix, 16)?;
    let vp = read_viewport(cx, viewport)?;
    match project([objx, objy, objz], &m, &p, vp) {
        Some(w) => {
            write_f64(cx, winx, w[0])?;
            write_f64(cx, winy, w[1])?;
            write_f64(cx, winz, w[2])?;
            Ok(1)
        }
        None => Ok(0),
    }
}

fn gluUnProject(
    cx: &mut Ctx,
    winx: f64,
    winy: f64,
    winz: f64,
    modelMatrix: Ptr,
    projMatrix: Ptr,
    viewport: Ptr,
    objx: Ptr,
    objy: Ptr,
    objz: Ptr,
) -> ApiResult<u32> {
    let m = read_f64s(cx, modelMatrix, 16)?;
    let p = read_f64s(cx, projMatrix, 16)?;
    let vp = read_viewport(cx, viewport)?;
    let to32 = |v: &[f64]| {
        let mut a = [0f32; 16];
        for k in 0..16 {
            a[k] = v[k] as f32;
        }
        Mat4(a)
    };
    let Some(inv) = to32(&p).mul(&to32(&m)).inverse() else {
        return Ok(0);
    };
    let n = [
        (winx - vp[0]) / vp[2] * 2.0 - 1.0,
        (winy - vp[1]) / vp[3] * 2.0 - 1.0,
        winz * 2.0 - 1.0,
        1.0,
    ];
    let o = inv.transform(n.map(|x| x as f32));
    if o[3] == 0.0 {
        return Ok(0);
    }
    write_f64(cx, objx, f64::from(o[0] / o[3]))?;
    write_f64(cx, objy, f64::from(o[1] / o[3]))?;
    write_f64(cx, objz, f64::from(o[2] / o[3]))?;
    Ok(1)
}

/// Area-averaging scale of RGBA8 texels (gluScaleImage's box filter).
pub fn scale_rgba(src: &[u8], w: u32, h: u32, nw: u32, nh: u32) -> Vec<u8> {
    let mut out = vec![0u8; (nw * nh * 4) as usize];
    if w == 0 || h == 0 || nw == 0 || nh == 0 {
        return out;
    }
    let sx = f64::from(w) / f64::from(nw);
    let sy = f64::from(h) / f64::from(nh);
    for oy in 0..nh {
        let y0 = f64::from(oy) * sy;
        let y1 = y0 + sy;
        for ox in 0..nw {
            let x0 = f64::from(ox) * sx;
            let x1 = x0 + sx;
            let mut acc = [0f64; 4];
            let mut area = 0f64;
            let mut y = y0.floor();
            while y < y1 {
                let hy = (y + 1.0).min(y1) - y.max(y0);
                let mut x = x0.floor();
                while x < x1 {
                    let wx = (x + 1.0).min(x1) - x.max(x0);
                    let a = wx * hy;
                    let (ix, iy) = ((x as u32).min(w - 1), (y as u32).min(h - 1));
                    let p = ((iy * w + ix) * 4) as usize;
                    for k in 0..4 {
                        acc[k] += f64::from(src[p + k]) * a;
                    }
                    area += a;
                    x += 1.0;
                }
                y += 1.0;
            }
            let o = ((oy * nw + ox) * 4) as usize;
            for k in 0..4 {
                out[o + k] = (acc[k] / area + 0.5).floor().clamp(0.0, 255.0) as u8;
            }
        }
    }
    out
}

/// The next mipmap level: 2x2 (or 2x1 once a side is 1) averages rounded half up.
pub fn halve_rgba(src: &[u8], w: u32, h: u32) -> (Vec<u8>, u32, u32) {
    let nw = (w / 2).max(1);
    let nh = (h / 2).max(1);
    let mut out = vec![0u8; (nw * nh * 4) as usize];
    let at = |x: u32, y: u32, k: usize| u32::from(src[((y * w + x) * 4) as usize + k]);
    for y in 0..nh {
        for x in 0..nw {
            let xs: &[u32] = if w > 1 { &[2 * x, 2 * x + 1] } else { &[0] };
            let ys: &[u32] = if h > 1 { &[2 * y, 2 * y + 1] } else { &[0] };
            let n = (xs.len() * ys.len()) as u32;
            for k in 0..4 {
                let mut s = 0;
                for &yy in ys {
                    for &xx in xs {
                        s += at(xx, yy, k);
                    }
                }
                out[((y * nw + x) * 4) as usize + k] = ((s + n / 2) / n) as u8;
            }
        }
    }
    (out, nw, nh)
}

/// The largest power of two not above `v` (at least 1).
fn floor_pow2(v: u32) -> u32 {
    if v == 0 {
        1
    } else {
        1 << (31 - v.leading_zeros())
    }
}

fn unpack(
    cx: &mut Ctx,
    w: i32,
    h: i32,
    format: u32,
    ty: u32,
    data: Ptr,
) -> ApiResult<Result<Vec<u8>, u32>> {
    let Some(ps) = with_current(cx, |c, _| Ok(c.s.unpack))? else {
        return Ok(Err(GL_INVALID_OPERATION));
    };
    match texture::unpack(cx.proc, &ps, w as u32, h as u32, format, ty, data.0) {
        Ok(v) => Ok(Ok(v)),
        Err(texture::UnpackError::Api(e)) => Err(e),
        Err(texture::UnpackError::Gl(_)) => Ok(Err(GLU_INVALID_ENUM)),
    }
}

fn gluBuild2DMipmaps(
    cx: &mut Ctx,
    target: u32,
    components: i32,
    width: i32,
    height: i32,
    format: u32,
    ty: u32,
    data: Ptr,
) -> ApiResult<u32> {
    if width < 1 || height < 1 {
        return Ok(GLU_INVALID_VALUE);
    }
    if target != GL_TEXTURE_2D {
        return Ok(GLU_INVALID_ENUM);
    }
    let rgba = match unpack(cx, width, height, format, ty, data)? {
        Ok(v) => v,
        Err(e) => return Ok(e),
    };
    let max = crate::opengl32::state::MAX_TEXTURE_SIZE;
    let (mut w, mut h) = (width as u32, height as u32);
    let (nw, nh) = (floor_pow2(w).min(max), floor_pow2(h).min(max));
    let mut img = if (nw, nh) != (w, h) {
        scale_rgba(&rgba, w, h, nw, nh)
    } else {
        rgba
    };
    w = nw;
    h = nh;
    let mut level = 0;
    loop {
        submit(
            cx,
            Cmd::TexImage2D {
                level,
                internal: components as u32,
                width: w,
                height: h,
                rgba: Arc::new(img.clone()),
            },
        )?;
        if w == 1 && h == 1 {
            break;
        }
        let (n, a, b) = halve_rgba(&img, w, h);
        img = n;
        w = a;
        h = b;
        level += 1;
    }
    Ok(0)
}

fn gluScaleImage(
    cx: &mut Ctx,
    format: u32,
    widthin: i32,
    heightin: i32,
    typein: u32,
    datain: Ptr,
    widthout: i32,
    heightout: i32,
    typeout: u32,
    dataout: Ptr,
) -> ApiResult<u32> {
    if widthin < 0 || heightin < 0 || widthout < 0 || heightout < 0 {
        return Ok(GLU_INVALID_VALUE);
    }
    if typeout != GL_UNSIGNED_BYTE {
        return Err(ApiError::UnimplementedCase(format!(
            "GLU32: gluScaleImage to type {typeout:#x} (only GL_UNSIGNED_BYTE)"
        )));
    }
    let rgba = match unpack(cx, widthin, heightin, format, typein, datain)? {
        Ok(v) => v,
        Err(e) => return Ok(e),
    };
    let out = scale_rgba(
        &rgba,
        widthin as u32,
        heightin as u32,
        widthout as u32,
        heightout as u32,
    );
    let Some(ps) = with_current(cx, |c, _| Ok(c.s.pack))? else {
        return Ok(GL_INVALID_OPERATION);
    };
    // `pack` keeps the rows in the order given (the first row in memory first).
    match crate::opengl32::query::pack(
        &ps,
        &out,
        widthout as u32,
        heightout as u32,
        format,
        GL_UNSIGNED_BYTE,
        // Bytes that hold no pixel (row padding) are left as they are.
        |n| {
            let mut b = vec![0u8; n];
            let _ = cx.proc.mem.read_bytes(dataout.0, &mut b);
            b
        },
    ) {
        Ok(b) => {
            cx.proc.mem.write_bytes(dataout.0, &b)?;
            Ok(0)
        }
        Err(_) => Ok(GLU_INVALID_ENUM),
    }
}

fn exports() -> Vec<ApiDef> {
    vec![
        stdcall("gluErrorString", gluErrorString),
        stdcall("gluPerspective", gluPerspective),
        stdcall("gluLookAt", gluLookAt),
        stdcall("gluOrtho2D", gluOrtho2D),
        stdcall("gluProject", gluProject),
        stdcall("gluUnProject", gluUnProject),
        stdcall("gluBuild2DMipmaps", gluBuild2DMipmaps),
        stdcall("gluScaleImage", gluScaleImage),
        stdcall("gluNewQuadric", quadric::gluNewQuadric),
        stdcall("gluDeleteQuadric", quadric::gluDeleteQuadric),
        stdcall("gluQuadricDrawStyle", quadric::gluQuadricDrawStyle),
        stdcall("gluQuadricNormals", quadric::gluQuadricNormals),
        stdcall("gluQuadricOrientation", quadric::gluQuadricOrientation),
        stdcall("gluQuadricTexture", quadric::gluQuadricTexture),
        stdcall("gluSphere", quadric::gluSphere),
        stdcall("gluCylinder", quadric::gluCylinder),
        stdcall("gluDisk", quadric::gluDisk),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perspective_matches_the_frustum_it_describes() {
        // gluPerspective(90, 1, 1, 10) is glFrustum(-1, 1, -1, 1, 1, 10).
        let p = perspective(90.0, 1.0, 1.0, 10.0).unwrap();
        let f = Mat4::frustum(-1.0, 1.0, -1.0, 1.0, 1.0, 10.0).unwrap();
        for k in 0..16 {
            assert!((p.0[k] - f.0[k]).abs() < 1e-6, "{k}");
        }
        assert!(perspective(90.0, 0.0, 1.0, 10.0).is_none());
    }

    #[test]
    fn look_at_moves_the_eye_to_the_origin_looking_down_minus_z() {
        let m = look_at([0.0, 0.0, 5.0], [0.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
        let c = m.transform([0.0, 0.0, 0.0, 1.0]);
        assert!((c[2] + 5.0).abs() < 1e-6);
        let up = m.transform([0.0, 1.0, 5.0, 1.0]);
        assert!((up[1] - 1.0).abs() < 1e-6 && up[2].abs() < 1e-6);
    }

    #[test]
    fn project_maps_into_the_viewport() {
        let id: Vec<f64> = Mat4::IDENTITY.0.iter().map(|&v| f64::from(v)).collect();
        let w = project([0.0, 0.0, 0.0], &id, &id, [0.0, 0.0, 640.0, 480.0]).unwrap();
        assert_eq!(w, [320.0, 240.0, 0.5]);
    }

    #[test]
    fn halving_rounds_half_up() {
        // 2x2 -> 1x1: (1 + 2 + 2 + 2 + 2) / 4 = 1.75 -> 2; (0+0+0+1+2)/4 -> 0.75 -> 1.
        let src = [1, 0, 0, 255, 2, 0, 0, 255, 2, 0, 0, 255, 2, 1, 0, 255];
        let (o, w, h) = halve_rgba(&src, 2, 2);
        assert_eq!((w, h), (1, 1));
        assert_eq!(o, vec![2, 0, 0, 255]);
        // 2x1 -> 1x1 averages two: (10 + 13 + 1) / 2 = 12.
        let (o, _, _) = halve_rgba(&[10, 0, 0, 0, 13, 0, 0, 0], 2, 1);
        assert_eq!(o[0], 12);
    }

    #[test]
    fn scale_averages_areas() {
        // 3x1 -> 2x1: each output covers 1.5 texels.
        let src = [0, 0, 0, 0, 90, 0, 0, 0, 180, 0, 0, 0];
        let o = scale_rgba(&src, 3, 1, 2, 1);
        // (0*1 + 90*0.5) / 1.5 = 30; (90*0.5 + 180*1) / 1.5 = 150.
        assert_eq!((o[0], o[4]), (30, 150));
        assert_eq!(floor_pow2(300), 256);
        assert_eq!(floor_pow2(256), 256);
    }

    #[test]
    fn error_strings() {
        assert_eq!(error_text(GL_INVALID_ENUM), Some("invalid enumerant"));
        assert_eq!(error_text(GLU_OUT_OF_MEMORY), Some("out of memory"));
        assert_eq!(error_text(12345), None);
    }
}
