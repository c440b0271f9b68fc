//! Vertex arrays (client state): the pointers, glArrayElement, glDrawArrays and
//! glDrawElements, glInterleavedArrays, and GL_EXT_compiled_vertex_array's
//! lock (the arrays are read from guest memory at each draw, which the extension
//! allows). A draw turns each element into the same commands immediate mode
//! gives (colour, texture coordinates, normal, vertex), so display lists compile
//! the dereferenced values as GL requires.

use super::cmd::Cmd;
use super::consts::*;
use super::state::UNITS;
use crate::hle::{ApiResult, Ctx};
use crate::process::Process;

/// One array's pointer state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Array {
    pub enabled: bool,
    pub size: u32,
    pub ty: u32,
    pub stride: u32,
    pub ptr: u32,
}

impl Array {
    fn elem_size(&self) -> u32 {
        self.size * type_size(self.ty)
    }

    fn address(&self, i: u32) -> u32 {
        let stride = if self.stride == 0 {
            self.elem_size()
        } else {
            self.stride
        };
        self.ptr.wrapping_add(i.wrapping_mul(stride))
    }

    /// Element `i` as floats (normalised for colours when `normalize`).
    fn read(&self, proc: &Process, i: u32, normalize: bool) -> ApiResult<[f32; 4]> {
        let mut b = [0u8; 32];
        let n = self.elem_size() as usize;
        proc.mem.read_bytes(self.address(i), &mut b[..n])?;
        let mut o = [0f32; 4];
        let sz = type_size(self.ty) as usize;
        for k in 0..self.size as usize {
            let x = &b[k * sz..k * sz + sz];
            o[k] = match self.ty {
                GL_UNSIGNED_BYTE if normalize => f32::from(x[0]) / 255.0,
                GL_UNSIGNED_BYTE => f32::from(x[0]),
                GL_BYTE if normalize => (f32::from(x[0] as i8) * 2.0 + 1.0) / 255.0,
                GL_BYTE => f32::from(x[0] as i8),
                GL_UNSIGNED_SHORT if normalize => {
                    f32::from(u16::from_le_bytes([x[0], x[1]])) / 65535.0
                }
                GL_UNSIGNED_SHORT => f32::from(u16::from_le_bytes([x[0], x[1]])),
                GL_SHORT if normalize => {
                    (f32::from(i16::from_le_bytes([x[0], x[1]])) * 2.0 + 1.0) / 65535.0
                }
                GL_SHORT => f32::from(i16::from_le_bytes([x[0], x[1]])),
                GL_INT | GL_UNSIGNED_INT => {
                    let v = u32::from_le_bytes([x[0], x[1], x[2], x[3]]);
                    if normalize {
                        (f64::from(v) / 4294967295.0) as f32
                    } else if self.ty == GL_INT {
                        v as i32 as f32
                    } else {
                        v as f32
                    }
                }
                GL_DOUBLE => {
                    f64::from_le_bytes([x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]]) as f32
                }
                _ => f32::from_le_bytes([x[0], x[1], x[2], x[3]]),
            };
        }
        Ok(o)
    }
}

fn type_size(ty: u32) -> u32 {
    match ty {
        GL_BYTE | GL_UNSIGNED_BYTE => 1,
        GL_SHORT | GL_UNSIGNED_SHORT => 2,
        GL_DOUBLE => 8,
        _ => 4,
    }
}

/// The client arrays of a context.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Arrays {
    pub vertex: Array,
    pub color: Array,
    pub normal: Array,
    pub texcoord: [Array; UNITS],
    /// glLockArraysEXT's (first, count).
    pub locked: Option<(i32, i32)>,
}

/// The commands element `i` gives.
pub fn element(proc: &Process, a: &Arrays, i: u32, out: &mut Vec<Cmd>) -> ApiResult<()> {
    if a.color.enabled {
        let mut c = a.color.read(proc, i, true)?;
        if a.color.size == 3 {
            c[3] = 1.0;
        }
        out.push(Cmd::Color(c));
    }
    for u in 0..UNITS {
        let t = &a.texcoord[u];
        if t.enabled {
            let mut v = t.read(proc, i, false)?;
            if t.size < 4 {
                v[3] = 1.0;
            }
            out.push(Cmd::TexCoord(u, v));
        }
    }
    if a.normal.enabled {
        let n = a.normal.read(proc, i, true)?;
        out.push(Cmd::Normal([n[0], n[1], n[2]]));
    }
    if a.vertex.enabled {
        let mut v = a.vertex.read(proc, i, false)?;
        if a.vertex.size < 4 {
            v[3] = 1.0;
        }
        out.push(Cmd::Vertex(v));
    }
    Ok(())
}

/// The current context's arrays.
pub fn current(cx: &mut Ctx) -> ApiResult<Option<Arrays>> {
    super::with_current(cx, |c, _| Ok(c.arrays))
}

/// Runs `cmds` as immediate-mode calls would.
pub fn run(cx: &mut Ctx, cmds: Vec<Cmd>) -> ApiResult<()> {
    for c in cmds {
        super::submit(cx, c)?;
    }
    Ok(())
}

/// glDrawArrays / glDrawElements with the element indices.
pub fn draw(cx: &mut Ctx, mode: u32, indices: impl Iterator<Item = u32>) -> ApiResult<()> {
    let Some(a) = current(cx)? else { return Ok(()) };
    let mut cmds = vec![Cmd::Begin(mode)];
    for i in indices {
        element(cx.proc, &a, i, &mut cmds)?;
    }
    cmds.push(Cmd::End);
    run(cx, cmds)
}

/// Sets one array pointer from the gl*Pointer arguments; GL errors for bad sizes,
/// types or strides.
pub fn set_pointer(
    cx: &mut Ctx,
    which: fn(&mut Arrays, usize) -> &mut Array,
    sizes: &[u32],
    types: &[u32],
    size: u32,
    ty: u32,
    stride: i32,
    ptr: u32,
) -> ApiResult<()> {
    super::with_current(cx, |c, _| {
        if !sizes.contains(&size) || stride < 0 {
            c.s.error(GL_INVALID_VALUE);
            return Ok(());
        }
        if !types.contains(&ty) {
            c.s.error(GL_INVALID_ENUM);
            return Ok(());
        }
        let unit = c.s.client_unit;
        let arr = which(&mut c.arrays, unit);
        arr.size = size;
        arr.ty = ty;
        arr.stride = stride as u32;
        arr.ptr = ptr;
        Ok(())
    })
    .map(|_| ())
}

/// glInterleavedArrays: the formats of GL 1.1 table 2.5 set several pointers and
/// enables at once.
pub fn interleaved(cx: &mut Ctx, format: u32, stride: i32, ptr: u32) -> ApiResult<()> {
    // (texcoord size, colour size + type, normal, vertex size, colour offset,
    // normal offset, vertex offset, whole size)
    const GL_V2F: u32 = 0x2A20;
    const GL_T4F_C4F_N3F_V4F: u32 = 0x2A2D;
    if !(GL_V2F..=GL_T4F_C4F_N3F_V4F).contains(&format) {
        return super::with_current(cx, |c, _| {
            c.s.error(GL_INVALID_ENUM);
            Ok(())
        })
        .map(|_| ());
    }
    let f = 4u32;
    // et, ec, en, st, sc, sv, tc(type), pc, pn, pv, s
    let table: [(bool, bool, bool, u32, u32, u32, u32, u32, u32, u32, u32); 14] = [
        (false, false, false, 0, 0, 2, 0, 0, 0, 0, 2 * f),
        (false, false, false, 0, 0, 3, 0, 0, 0, 0, 3 * f),
        (
            false,
            true,
            false,
            0,
            4,
            2,
            GL_UNSIGNED_BYTE,
            0,
            0,
            4,
            4 + 2 * f,
        ),
        (
            false,
            true,
            false,
            0,
            4,
            3,
            GL_UNSIGNED_BYTE,
            0,
            0,
            4,
            4 + 3 * f,
        ),
        (false, true, false, 0, 3, 3, GL_FLOAT, 0, 0, 3 * f, 6 * f),
        (false, false, true, 0, 0, 3, 0, 0, 0, 3 * f, 6 * f),
        (
            false,
            true,
            true,
            0,
            4,
            3,
            GL_FLOAT,
            0,
            4 * f,
            7 * f,
            10 * f,
        ),
        (true, false, false, 2, 0, 3, 0, 0, 0, 2 * f, 5 * f),
        (true, false, false, 4, 0, 4, 0, 0, 0, 4 * f, 8 * f),
        (
            true,
            true,
            false,
            2,
            4,
            3,
            GL_UNSIGNED_BYTE,
            2 * f,
            0,
            4 + 2 * f,
            4 + 5 * f,
        ),
        (true, true, false, 2, 3, 3, GL_FLOAT, 2 * f, 0, 5 * f, 8 * f),
        (true, false, true, 2, 0, 3, 0, 0, 2 * f, 5 * f, 8 * f),
        (
            true,
            true,
            true,
            2,
            4,
            3,
            GL_FLOAT,
            2 * f,
            6 * f,
            9 * f,
            12 * f,
        ),
        (
            true,
            true,
            true,
            4,
            4,
            4,
            GL_FLOAT,
            4 * f,
            8 * f,
            11 * f,
            15 * f,
        ),
    ];
    let (et, ec, en, st, sc, sv, tc, pc, pn, pv, s) = table[(format - GL_V2F) as usize];
    let stride = if stride == 0 { s } else { stride.max(0) as u32 };
    super::with_current(cx, |c, _| {
        let u = c.s.client_unit;
        let a = &mut c.arrays;
        a.texcoord[u] = Array {
            enabled: et,
            size: st,
            ty: GL_FLOAT,
            stride,
            ptr,
        };
        a.color = Array {
            enabled: ec,
            size: sc,
            ty: tc,
            stride,
            ptr: ptr.wrapping_add(pc),
        };
        a.normal = Array {
            enabled: en,
            size: 3,
            ty: GL_FLOAT,
            stride,
            ptr: ptr.wrapping_add(pn),
        };
        a.vertex = Array {
            enabled: true,
            size: sv,
            ty: GL_FLOAT,
            stride,
            ptr: ptr.wrapping_add(pv),
        };
        Ok(())
    })
    .map(|_| ())
}
