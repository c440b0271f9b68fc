//! State queries: glGetError, glGetString, glGet{Boolean,Integer,Float,Double}v,
//! glGetTexParameter / glGetTexLevelParameter / glGetTexEnv, and glReadPixels.
//! Every answer comes from the context's state, converted between types as GL
//! 1.1 section 6.1.2 says.

use super::Context;
use super::consts::*;
use super::state::{self, Device, UNITS};
use crate::hle::{ApiError, ApiResult, Ctx};

pub const VENDOR: &str = "winterp";
pub const RENDERER: &str = "winterp OpenGL on wgpu";
pub const VERSION: &str = "1.1.0 winterp";
/// Exactly the extensions implemented.
pub const EXTENSIONS: &str = "GL_ARB_multitexture GL_EXT_bgra GL_EXT_compiled_vertex_array GL_EXT_texture_env_add GL_SGIS_texture_edge_clamp";

/// How a value converts for glGetIntegerv.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Integers and enums: rounded.
    Int,
    /// Colours, depth values and normals: 1.0 is the largest integer.
    Normalized,
    Bool,
}

fn b(v: bool) -> f64 {
    if v { 1.0 } else { 0.0 }
}

fn mat(m: &super::matrix::Mat4) -> Vec<f64> {
    m.0.iter().map(|&v| f64::from(v)).collect()
}

/// The values of `pname`, or None if GL does not know it (GL_INVALID_ENUM).
pub fn get(c: &Context, dev: &Device, pname: u32) -> Option<(Kind, Vec<f64>)> {
    use Kind::*;
    let s = &c.s;
    let f = |v: f32| f64::from(v);
    if let Some(on) = super::cmd::is_enabled(c, pname) {
        return Some((Bool, vec![b(on)]));
    }
    let fmt = &c.format;
    Some(match pname {
        GL_CURRENT_COLOR => (Normalized, s.color.map(f).to_vec()),
        GL_CURRENT_TEXTURE_COORDS => (Int, s.texcoord[s.active_unit].map(f).to_vec()),
        GL_CURRENT_NORMAL => (Normalized, s.normal.map(f).to_vec()),
        GL_POINT_SIZE => (Int, vec![f(s.point_size)]),
        GL_LINE_WIDTH => (Int, vec![f(s.line_width)]),
        GL_CULL_FACE_MODE => (Int, vec![f64::from(s.cull_face)]),
        GL_FRONT_FACE => (Int, vec![f64::from(s.front_face)]),
        GL_SHADE_MODEL => (Int, vec![f64::from(s.shade_model)]),
        GL_LIGHT_MODEL_AMBIENT => (Normalized, s.lighting.model_ambient.map(f).to_vec()),
        GL_LIGHT_MODEL_LOCAL_VIEWER => (Bool, vec![b(s.lighting.local_viewer)]),
        GL_LIGHT_MODEL_TWO_SIDE => (Bool, vec![b(s.lighting.two_side)]),
        GL_COLOR_MATERIAL_FACE => (Int, vec![f64::from(s.lighting.color_material.0)]),
        GL_COLOR_MATERIAL_PARAMETER => (Int, vec![f64::from(s.lighting.color_material.1)]),
        GL_DEPTH_RANGE => (Normalized, s.depth_range.to_vec()),
        GL_DEPTH_WRITEMASK => (Bool, vec![b(s.depth_mask)]),
        GL_DEPTH_CLEAR_VALUE => (Normalized, vec![s.clear_depth]),
        GL_DEPTH_FUNC => (Int, vec![f64::from(s.depth_func)]),
        GL_STENCIL_CLEAR_VALUE => (Int, vec![f64::from(s.clear_stencil)]),
        GL_STENCIL_FUNC => (Int, vec![f64::from(s.stencil_func.0)]),
        GL_STENCIL_REF => (Int, vec![f64::from(s.stencil_func.1)]),
        GL_STENCIL_VALUE_MASK => (Int, vec![f64::from(s.stencil_func.2 & 0xff)]),
        GL_STENCIL_FAIL => (Int, vec![f64::from(s.stencil_op.0)]),
        GL_STENCIL_PASS_DEPTH_FAIL => (Int, vec![f64::from(s.stencil_op.1)]),
        GL_STENCIL_PASS_DEPTH_PASS => (Int, vec![f64::from(s.stencil_op.2)]),
        GL_STENCIL_WRITEMASK => (Int, vec![f64::from(s.stencil_writemask & 0xff)]),
        GL_MATRIX_MODE => (Int, vec![f64::from(s.matrix_mode)]),
        GL_VIEWPORT => (Int, s.viewport.map(f64::from).to_vec()),
        GL_SCISSOR_BOX => (Int, s.scissor.map(f64::from).to_vec()),
        GL_MODELVIEW_STACK_DEPTH => (Int, vec![s.modelview.items.len() as f64]),
        GL_PROJECTION_STACK_DEPTH => (Int, vec![s.projection.items.len() as f64]),
        GL_TEXTURE_STACK_DEPTH => (Int, vec![s.texture[s.active_unit].items.len() as f64]),
        GL_MODELVIEW_MATRIX => (Int, mat(s.modelview.top())),
        GL_PROJECTION_MATRIX => (Int, mat(s.projection.top())),
        GL_TEXTURE_MATRIX => (Int, mat(s.texture[s.active_unit].top())),
        GL_ALPHA_TEST_FUNC => (Int, vec![f64::from(s.alpha_func.0)]),
        GL_ALPHA_TEST_REF => (Normalized, vec![f(s.alpha_func.1)]),
        GL_BLEND_SRC => (Int, vec![f64::from(s.blend.0)]),
        GL_BLEND_DST => (Int, vec![f64::from(s.blend.1)]),
        GL_COLOR_CLEAR_VALUE => (Normalized, s.clear_color.map(f).to_vec()),
        GL_COLOR_WRITEMASK => (Bool, s.color_mask.map(b).to_vec()),
        GL_DOUBLEBUFFER => (Bool, vec![b(fmt.double_buffered())]),
        GL_DRAW_BUFFER => (Int, vec![f64::from(s.draw_buffer)]),
        GL_READ_BUFFER => (Int, vec![f64::from(s.read_buffer)]),
        GL_FOG_MODE => (Int, vec![f64::from(s.fog_mode)]),
        GL_FOG_DENSITY => (Int, vec![f(s.fog_density)]),
        GL_FOG_START => (Int, vec![f(s.fog_start)]),
        GL_FOG_END => (Int, vec![f(s.fog_end)]),
        GL_FOG_COLOR => (Normalized, s.fog_color.map(f).to_vec()),
        GL_POLYGON_OFFSET_FACTOR => (Int, vec![f(s.polygon_offset.0)]),
        GL_POLYGON_OFFSET_UNITS => (Int, vec![f(s.polygon_offset.1)]),
        GL_TEXTURE_BINDING_2D => (Int, vec![f64::from(s.bound[s.active_unit])]),
        GL_LIST_BASE => (Int, vec![f64::from(s.list_base)]),
        GL_LIST_INDEX => (
            Int,
            vec![c.compiling.as_ref().map_or(0.0, |l| f64::from(l.name))],
        ),
        GL_LIST_MODE => (
            Int,
            vec![c.compiling.as_ref().map_or(0.0, |l| f64::from(l.mode))],
        ),
        GL_PERSPECTIVE_CORRECTION_HINT => (Int, vec![f64::from(s.hints[0])]),
        GL_POINT_SMOOTH_HINT => (Int, vec![f64::from(s.hints[1])]),
        GL_LINE_SMOOTH_HINT => (Int, vec![f64::from(s.hints[2])]),
        GL_POLYGON_SMOOTH_HINT => (Int, vec![f64::from(s.hints[3])]),
        GL_FOG_HINT => (Int, vec![f64::from(s.hints[4])]),
        GL_UNPACK_ALIGNMENT => (Int, vec![f64::from(s.unpack.alignment)]),
        GL_UNPACK_ROW_LENGTH => (Int, vec![f64::from(s.unpack.row_length)]),
        GL_UNPACK_SKIP_ROWS => (Int, vec![f64::from(s.unpack.skip_rows)]),
        GL_UNPACK_SKIP_PIXELS => (Int, vec![f64::from(s.unpack.skip_pixels)]),
        GL_UNPACK_SWAP_BYTES => (Bool, vec![b(s.unpack.swap_bytes)]),
        GL_UNPACK_LSB_FIRST => (Bool, vec![b(s.unpack.lsb_first)]),
        GL_PACK_ALIGNMENT => (Int, vec![f64::from(s.pack.alignment)]),
        GL_PACK_ROW_LENGTH => (Int, vec![f64::from(s.pack.row_length)]),
        GL_PACK_SKIP_ROWS => (Int, vec![f64::from(s.pack.skip_rows)]),
        GL_PACK_SKIP_PIXELS => (Int, vec![f64::from(s.pack.skip_pixels)]),
        GL_PACK_SWAP_BYTES => (Bool, vec![b(s.pack.swap_bytes)]),
        GL_PACK_LSB_FIRST => (Bool, vec![b(s.pack.lsb_first)]),
        GL_MAX_LIST_NESTING => (Int, vec![f64::from(state::MAX_LIST_NESTING)]),
        GL_MAX_LIGHTS => (Int, vec![8.0]),
        GL_MAX_CLIP_PLANES => (Int, vec![6.0]),
        GL_MAX_TEXTURE_SIZE => (Int, vec![f64::from(state::MAX_TEXTURE_SIZE)]),
        GL_MAX_MODELVIEW_STACK_DEPTH => (Int, vec![state::MAX_MODELVIEW_DEPTH as f64]),
        GL_MAX_PROJECTION_STACK_DEPTH => (Int, vec![state::MAX_PROJECTION_DEPTH as f64]),
        GL_MAX_TEXTURE_STACK_DEPTH => (Int, vec![state::MAX_TEXTURE_DEPTH as f64]),
        GL_MAX_VIEWPORT_DIMS => (Int, vec![4096.0, 4096.0]),
        GL_SUBPIXEL_BITS => (Int, vec![4.0]),
        GL_RED_BITS => (Int, vec![f64::from(fmt.channels[0].0)]),
        GL_GREEN_BITS => (Int, vec![f64::from(fmt.channels[1].0)]),
        GL_BLUE_BITS => (Int, vec![f64::from(fmt.channels[2].0)]),
        GL_ALPHA_BITS => (Int, vec![f64::from(fmt.channels[3].0)]),
        GL_DEPTH_BITS => (Int, vec![f64::from(fmt.depth_bits)]),
        GL_STENCIL_BITS => (Int, vec![f64::from(fmt.stencil_bits)]),
        GL_ACTIVE_TEXTURE_ARB => (Int, vec![f64::from(GL_TEXTURE0_ARB) + s.active_unit as f64]),
        GL_CLIENT_ACTIVE_TEXTURE_ARB => {
            (Int, vec![f64::from(GL_TEXTURE0_ARB) + s.client_unit as f64])
        }
        GL_MAX_TEXTURE_UNITS_ARB => (Int, vec![UNITS as f64]),
        // GL_EXT_compiled_vertex_array.
        0x81A8 => (Int, vec![f64::from(c.arrays.locked.map_or(0, |l| l.0))]),
        0x81A9 => (Int, vec![f64::from(c.arrays.locked.map_or(0, |l| l.1))]),
        _ => {
            let _ = dev;
            return None;
        }
    })
}

/// A value as glGetIntegerv returns it.
pub fn to_int(kind: Kind, v: f64) -> i32 {
    match kind {
        Kind::Normalized => {
            let x = (v.clamp(-1.0, 1.0) * 4294967295.0 - 1.0) / 2.0;
            x.round() as i32
        }
        _ => v.round() as i32,
    }
}

/// The address of a glGetString answer (kept in guest memory for the process).
pub fn string(cx: &mut Ctx, name: u32) -> ApiResult<u32> {
    let text = match name {
        GL_VENDOR => VENDOR,
        GL_RENDERER => RENDERER,
        GL_VERSION => VERSION,
        GL_EXTENSIONS => EXTENSIONS,
        _ => {
            super::with_current(cx, |c, _| {
                c.s.error(GL_INVALID_ENUM);
                Ok(())
            })?;
            return Ok(0);
        }
    };
    // Windows answers NULL without a current context.
    if super::with_current(cx, |_, _| Ok(()))?.is_none() {
        return Ok(0);
    }
    let gl = cx.proc.slot::<super::Gl>();
    let mut g = gl.inner.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&a) = g.strings.get(&name) {
        return Ok(a);
    }
    let heap = crate::kernel32::heap::process_heap(cx.proc)?;
    let p = heap.alloc(text.len() as u32 + 1, false)?;
    if p == 0 {
        return Err(ApiError::Other("process heap exhausted".into()));
    }
    let mut bytes = text.as_bytes().to_vec();
    bytes.push(0);
    cx.proc.mem.write_bytes(p, &bytes)?;
    g.strings.insert(name, p);
    Ok(p)
}

/// glReadPixels' conversion: RGBA8 rows (bottom first) into the client's format
/// and type with the pack state. `existing(n)` gives the client's n bytes the
/// result covers: bytes that belong to no pixel (row padding, skipped pixels and
/// rows) keep their value, as GL leaves them untouched. Err names what is not
/// implemented.
pub fn pack(
    ps: &state::PixelStore,
    rgba: &[u8],
    width: u32,
    height: u32,
    format: u32,
    ty: u32,
    existing: impl FnOnce(usize) -> Vec<u8>,
) -> Result<Vec<u8>, String> {
    // Channel 4 is luminance: R + G + B, clamped (GL 1.1 section 4.3.2).
    let comps: &[usize] = match format {
        GL_RGBA => &[0, 1, 2, 3],
        GL_RGB => &[0, 1, 2],
        GL_BGRA_EXT => &[2, 1, 0, 3],
        GL_BGR_EXT => &[2, 1, 0],
        GL_RED => &[0],
        GL_GREEN => &[1],
        GL_BLUE => &[2],
        GL_ALPHA => &[3],
        GL_LUMINANCE => &[4],
        GL_LUMINANCE_ALPHA => &[4, 3],
        _ => return Err(format!("glReadPixels format {format:#x}")),
    };
    let size = match ty {
        GL_UNSIGNED_BYTE | GL_BYTE => 1,
        GL_UNSIGNED_SHORT | GL_SHORT => 2,
        GL_UNSIGNED_INT | GL_INT | GL_FLOAT => 4,
        _ => return Err(format!("glReadPixels type {ty:#x}")),
    };
    let stride = super::texture::row_stride(ps, width, comps.len(), size);
    let skip = ps.skip_rows as usize * stride + ps.skip_pixels as usize * comps.len() * size;
    let mut out = existing(
        skip + stride * height.saturating_sub(1) as usize + width as usize * comps.len() * size,
    );
    for y in 0..height as usize {
        for x in 0..width as usize {
            let p = &rgba[(y * width as usize + x) * 4..][..4];
            for (k, &ch) in comps.iter().enumerate() {
                let o = skip + y * stride + (x * comps.len() + k) * size;
                let v = if ch == 4 {
                    ((f32::from(p[0]) + f32::from(p[1]) + f32::from(p[2])) / 255.0).min(1.0)
                } else {
                    f32::from(p[ch]) / 255.0
                };
                let b = component_bytes(v, ty);
                out[o..o + size].copy_from_slice(&b);
            }
        }
    }
    Ok(out)
}

/// A component in [0, 1] as GL 1.1 table 2.6 converts it to each type.
fn component_bytes(v: f32, ty: u32) -> Vec<u8> {
    match ty {
        GL_UNSIGNED_BYTE => vec![(v * 255.0).round() as u8],
        GL_BYTE => vec![((v * 255.0 - 1.0) / 2.0).round() as i8 as u8],
        GL_UNSIGNED_SHORT => ((v * 65535.0).round() as u16).to_le_bytes().to_vec(),
        GL_SHORT => (((v * 65535.0 - 1.0) / 2.0).round() as i16)
            .to_le_bytes()
            .to_vec(),
        GL_UNSIGNED_INT => ((f64::from(v) * 4294967295.0).round() as u32)
            .to_le_bytes()
            .to_vec(),
        GL_INT => (((f64::from(v) * 4294967295.0 - 1.0) / 2.0).round() as i32)
            .to_le_bytes()
            .to_vec(),
        _ => v.to_le_bytes().to_vec(),
    }
}

/// One value per pixel, as glReadPixels reads the depth buffer or the stencil buffer.
pub enum Single<'a> {
    /// Depth values in [0, 1] (GL_DEPTH_COMPONENT: converted as colour components).
    Depth(&'a [f32]),
    /// Stencil indices (GL_STENCIL_INDEX: integer types take the index masked to
    /// their bits, GL 1.1 section 4.3.2; GL_FLOAT the index itself).
    Stencil(&'a [u8]),
}

/// glReadPixels' conversion of depth or stencil values (rows bottom first) into the
/// client's type with the pack state, over the client's bytes as [`pack`]; Err
/// names a type that is not one of GL 1.1's.
pub fn pack_single(
    ps: &state::PixelStore,
    values: Single,
    width: u32,
    height: u32,
    ty: u32,
    existing: impl FnOnce(usize) -> Vec<u8>,
) -> Result<Vec<u8>, String> {
    let size = match ty {
        GL_UNSIGNED_BYTE | GL_BYTE => 1,
        GL_UNSIGNED_SHORT | GL_SHORT => 2,
        GL_UNSIGNED_INT | GL_INT | GL_FLOAT => 4,
        _ => return Err(format!("glReadPixels type {ty:#x}")),
    };
    let stride = super::texture::row_stride(ps, width, 1, size);
    let skip = ps.skip_rows as usize * stride + ps.skip_pixels as usize * size;
    let mut out =
        existing(skip + stride * height.saturating_sub(1) as usize + width as usize * size);
    for y in 0..height as usize {
        for x in 0..width as usize {
            let k = y * width as usize + x;
            let b = match values {
                Single::Depth(d) => component_bytes(d.get(k).copied().unwrap_or(0.0), ty),
                Single::Stencil(st) => {
                    let i = u32::from(st.get(k).copied().unwrap_or(0));
                    match ty {
                        GL_FLOAT => (i as f32).to_le_bytes().to_vec(),
                        GL_BYTE => vec![(i & 0x7f) as u8],
                        GL_UNSIGNED_BYTE => vec![i as u8],
                        GL_SHORT | GL_UNSIGNED_SHORT => (i as u16).to_le_bytes().to_vec(),
                        _ => i.to_le_bytes().to_vec(),
                    }
                }
            };
            let o = skip + y * stride + x * size;
            out[o..o + size].copy_from_slice(&b);
        }
    }
    Ok(out)
}

/// glGetTexParameter(f|i)v values of the bound texture.
pub fn tex_parameter(c: &Context, dev: &Device, pname: u32) -> Option<Vec<f64>> {
    let name = c.s.bound[c.s.active_unit];
    let t = dev
        .groups
        .get(&c.share)
        .and_then(|g| g.textures.get(&name))
        .cloned()
        .unwrap_or_default();
    Some(match pname {
        GL_TEXTURE_MIN_FILTER => vec![f64::from(t.min_filter)],
        GL_TEXTURE_MAG_FILTER => vec![f64::from(t.mag_filter)],
        GL_TEXTURE_WRAP_S => vec![f64::from(t.wrap_s)],
        GL_TEXTURE_WRAP_T => vec![f64::from(t.wrap_t)],
        GL_TEXTURE_PRIORITY => vec![f64::from(t.priority)],
        GL_TEXTURE_BORDER_COLOR => t.border_color.map(f64::from).to_vec(),
        _ => return None,
    })
}

/// glGetTexLevelParameter values.
pub fn tex_level_parameter(c: &Context, dev: &Device, level: u32, pname: u32) -> Option<f64> {
    let name = c.s.bound[c.s.active_unit];
    let t = dev.groups.get(&c.share).and_then(|g| g.textures.get(&name));
    let size = t.and_then(|t| t.levels.get(level as usize).copied().flatten());
    Some(match pname {
        GL_TEXTURE_WIDTH => f64::from(size.map_or(0, |s| s.0)),
        GL_TEXTURE_HEIGHT => f64::from(size.map_or(0, |s| s.1)),
        GL_TEXTURE_INTERNAL_FORMAT => f64::from(match (t, size) {
            (Some(t), Some(_)) => t.internal,
            _ => 1,
        }),
        _ => return None,
    })
}
