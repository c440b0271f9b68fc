//! Texture objects and images: names, binding, parameters, glTexImage2D /
//! glTexSubImage2D (client pixels unpacked with the glPixelStore state into
//! RGBA8 as the internal format keeps them), glCopyTex(Sub)Image2D.

use super::Context;
use super::consts::*;
use super::state::{Device, MAX_TEXTURE_SIZE, PixelStore, bound_texture};
use crate::glrender::{BaseFormat, TexImage};
use crate::hle::{ApiError, ApiResult};
use crate::process::Process;

/// The base format of an internal format (1..4 and the GL 1.1 sized names).
pub fn base_format(internal: u32) -> Option<BaseFormat> {
    Some(match internal {
        1 | GL_LUMINANCE | 0x803F..=0x8042 => BaseFormat::Luminance,
        2 | GL_LUMINANCE_ALPHA | 0x8043..=0x8048 => BaseFormat::LuminanceAlpha,
        3 | GL_RGB | 0x2A10 | 0x804F..=0x8054 => BaseFormat::Rgb,
        4 | GL_RGBA | 0x8055..=0x805B => BaseFormat::Rgba,
        GL_ALPHA | 0x803B..=0x803E => BaseFormat::Alpha,
        GL_INTENSITY | 0x804A..=0x804D => BaseFormat::Intensity,
        _ => return None,
    })
}

/// Components per pixel of a client pixel format, or None if not a colour format
/// winterp unpacks.
fn components(format: u32) -> Option<usize> {
    Some(match format {
        GL_RED | GL_GREEN | GL_BLUE | GL_ALPHA | GL_LUMINANCE => 1,
        GL_LUMINANCE_ALPHA => 2,
        GL_RGB | GL_BGR_EXT => 3,
        GL_RGBA | GL_BGRA_EXT => 4,
        _ => return None,
    })
}

fn type_size(ty: u32) -> Option<usize> {
    Some(match ty {
        GL_UNSIGNED_BYTE | GL_BYTE => 1,
        GL_UNSIGNED_SHORT | GL_SHORT => 2,
        GL_UNSIGNED_INT | GL_INT | GL_FLOAT => 4,
        _ => return None,
    })
}

/// Bytes from one row's start to the next under `ps` (GL 1.1 section 3.6.3).
pub fn row_stride(ps: &PixelStore, width: u32, comps: usize, size: usize) -> usize {
    let len = if ps.row_length > 0 {
        ps.row_length
    } else {
        width
    } as usize;
    let raw = len * comps * size;
    let a = ps.alignment.max(1) as usize;
    if size >= a { raw } else { raw.div_ceil(a) * a }
}

/// Why client pixels could not be unpacked.
pub enum UnpackError {
    /// A GL error (bad enum or value).
    Gl(u32),
    Api(ApiError),
}

impl From<ApiError> for UnpackError {
    fn from(e: ApiError) -> Self {
        UnpackError::Api(e)
    }
}

/// Reads a client image as RGBA in 0..255 per component (missing colour
/// components 0, missing alpha 255), rows from the first in memory.
pub fn unpack(
    proc: &Process,
    ps: &PixelStore,
    width: u32,
    height: u32,
    format: u32,
    ty: u32,
    ptr: u32,
) -> Result<Vec<u8>, UnpackError> {
    if format == GL_COLOR_INDEX {
        return Err(ApiError::UnimplementedCase(
            "OPENGL32: colour-index texture images (GL_COLOR_INDEX, paletted textures)".into(),
        )
        .into());
    }
    let comps = components(format).ok_or(UnpackError::Gl(GL_INVALID_ENUM))?;
    let size = type_size(ty).ok_or(UnpackError::Gl(GL_INVALID_ENUM))?;
    if ps.swap_bytes && size > 1 {
        return Err(ApiError::UnimplementedCase(
            "OPENGL32: GL_UNPACK_SWAP_BYTES with multi-byte components".into(),
        )
        .into());
    }
    let mut out = vec![0u8; (width * height * 4) as usize];
    if width == 0 || height == 0 {
        return Ok(out);
    }
    if ptr == 0 {
        // A NULL image defines the level with undefined contents.
        return Ok(out);
    }
    let stride = row_stride(ps, width, comps, size);
    let start =
        ptr as usize + ps.skip_rows as usize * stride + ps.skip_pixels as usize * comps * size;
    let row_bytes = width as usize * comps * size;
    let mut row = vec![0u8; row_bytes];
    for y in 0..height as usize {
        let a = start + y * stride;
        proc.mem
            .read_bytes(a as u32, &mut row)
            .map_err(ApiError::from)?;
        for x in 0..width as usize {
            let mut c = [0f32; 4];
            for k in 0..comps {
                let o = (x * comps + k) * size;
                let b = &row[o..o + size];
                c[k] = match ty {
                    GL_UNSIGNED_BYTE => f32::from(b[0]) / 255.0,
                    GL_BYTE => (f32::from(b[0] as i8) * 2.0 + 1.0) / 255.0,
                    GL_UNSIGNED_SHORT => f32::from(u16::from_le_bytes([b[0], b[1]])) / 65535.0,
                    GL_SHORT => (f32::from(i16::from_le_bytes([b[0], b[1]])) * 2.0 + 1.0) / 65535.0,
                    GL_UNSIGNED_INT => {
                        (f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])) / 4294967295.0)
                            as f32
                    }
                    GL_INT => {
                        ((f64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])) * 2.0 + 1.0)
                            / 4294967295.0) as f32
                    }
                    _ => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                };
            }
            let rgba = match format {
                GL_RED => [c[0], 0.0, 0.0, 1.0],
                GL_GREEN => [0.0, c[0], 0.0, 1.0],
                GL_BLUE => [0.0, 0.0, c[0], 1.0],
                GL_ALPHA => [0.0, 0.0, 0.0, c[0]],
                GL_LUMINANCE => [c[0], c[0], c[0], 1.0],
                GL_LUMINANCE_ALPHA => [c[0], c[0], c[0], c[1]],
                GL_RGB => [c[0], c[1], c[2], 1.0],
                GL_BGR_EXT => [c[2], c[1], c[0], 1.0],
                GL_BGRA_EXT => [c[2], c[1], c[0], c[3]],
                _ => c,
            };
            let o = (y * width as usize + x) * 4;
            for k in 0..4 {
                out[o + k] = (rgba[k].clamp(0.0, 1.0) * 255.0).round() as u8;
            }
        }
    }
    Ok(out)
}

/// Converts RGBA texels as the base format keeps them and the renderer reads them
/// (luminance from red, intensity into all four, alpha-only with black colour).
pub fn to_base(rgba: &mut [u8], f: BaseFormat) {
    for p in rgba.chunks_exact_mut(4) {
        let (r, g, b, a) = (p[0], p[1], p[2], p[3]);
        let v = match f {
            BaseFormat::Alpha => [0, 0, 0, a],
            BaseFormat::Luminance => [r, r, r, 255],
            BaseFormat::LuminanceAlpha => [r, r, r, a],
            BaseFormat::Intensity => [r, r, r, r],
            BaseFormat::Rgb => [r, g, b, 255],
            BaseFormat::Rgba => [r, g, b, a],
        };
        p.copy_from_slice(&v);
    }
}

fn unimplemented(what: &str) -> ApiError {
    ApiError::UnimplementedCase(format!("OPENGL32: {what}"))
}

pub fn bind(c: &mut Context, dev: &mut Device, target: u32, name: u32) -> ApiResult<()> {
    if target == GL_TEXTURE_1D {
        return Err(unimplemented("glBindTexture(GL_TEXTURE_1D)"));
    }
    if target != GL_TEXTURE_2D {
        c.s.error(GL_INVALID_ENUM);
        return Ok(());
    }
    let grp = dev.groups.entry(c.share).or_default();
    grp.textures.entry(name).or_default();
    if name >= grp.next_texture {
        grp.next_texture = name + 1;
    }
    c.s.bound[c.s.active_unit] = name;
    Ok(())
}

pub fn parameter(
    c: &mut Context,
    dev: &mut Device,
    target: u32,
    pname: u32,
    v: [f32; 4],
) -> ApiResult<()> {
    if target == GL_TEXTURE_1D {
        return Err(unimplemented("glTexParameter(GL_TEXTURE_1D)"));
    }
    if target != GL_TEXTURE_2D {
        c.s.error(GL_INVALID_ENUM);
        return Ok(());
    }
    let name = c.s.bound[c.s.active_unit];
    let t = bound_texture(&mut dev.groups, c.share, name);
    let e = v[0] as u32;
    let mut bad = false;
    match pname {
        GL_TEXTURE_MIN_FILTER => {
            if matches!(
                e,
                GL_NEAREST
                    | GL_LINEAR
                    | GL_NEAREST_MIPMAP_NEAREST
                    | GL_LINEAR_MIPMAP_NEAREST
                    | GL_NEAREST_MIPMAP_LINEAR
                    | GL_LINEAR_MIPMAP_LINEAR
            ) {
                t.min_filter = e;
            } else {
                bad = true;
            }
        }
        GL_TEXTURE_MAG_FILTER => {
            if matches!(e, GL_NEAREST | GL_LINEAR) {
                t.mag_filter = e;
            } else {
                bad = true;
            }
        }
        GL_TEXTURE_WRAP_S | GL_TEXTURE_WRAP_T => {
            if matches!(e, GL_REPEAT | GL_CLAMP | GL_CLAMP_TO_EDGE) {
                if pname == GL_TEXTURE_WRAP_S {
                    t.wrap_s = e;
                } else {
                    t.wrap_t = e;
                }
            } else {
                bad = true;
            }
        }
        GL_TEXTURE_PRIORITY => t.priority = v[0].clamp(0.0, 1.0),
        GL_TEXTURE_BORDER_COLOR => t.border_color = v.map(|x| x.clamp(0.0, 1.0)),
        _ => bad = true,
    }
    if bad {
        c.s.error(GL_INVALID_ENUM);
    }
    Ok(())
}

/// The texture bound to the active unit, for an image command.
fn target_name(c: &Context) -> u32 {
    c.s.bound[c.s.active_unit]
}

fn size_ok(w: u32, h: u32, level: u32) -> bool {
    w <= MAX_TEXTURE_SIZE
        && h <= MAX_TEXTURE_SIZE
        && w.is_power_of_two()
        && h.is_power_of_two()
        && level < 12
}

pub fn image(
    c: &mut Context,
    dev: &mut Device,
    level: u32,
    internal: u32,
    width: u32,
    height: u32,
    rgba: &[u8],
) -> ApiResult<()> {
    let Some(format) = base_format(internal) else {
        c.s.error(GL_INVALID_VALUE);
        return Ok(());
    };
    if !size_ok(width, height, level) {
        c.s.error(GL_INVALID_VALUE);
        return Ok(());
    }
    super::cmd::flush(c, dev);
    let name = target_name(c);
    let share = c.share;
    let t = bound_texture(&mut dev.groups, share, name);
    let level_k = level as usize;
    if level == 0 && t.format != format {
        // A new base format makes the other levels' texels meaningless.
        t.levels.clear();
    }
    if t.levels.len() <= level_k {
        t.levels.resize(level_k + 1, None);
    }
    t.levels[level_k] = Some((width, height));
    t.format = format;
    t.internal = internal;
    let mut texels = rgba.to_vec();
    to_base(&mut texels, format);
    dev.counting.texture_uploads += 1;
    dev.counting.texture_bytes += texels.len() as u64;
    if let Some(r) = dev.renderer.as_deref_mut() {
        r.tex_image(
            (share, name),
            &TexImage {
                level,
                width,
                height,
                rgba: &texels,
            },
        );
    }
    Ok(())
}

pub fn sub_image(
    c: &mut Context,
    dev: &mut Device,
    level: u32,
    x: u32,
    y: u32,
    width: u32,
    height: u32,
    rgba: &[u8],
) -> ApiResult<()> {
    super::cmd::flush(c, dev);
    let name = target_name(c);
    let share = c.share;
    let t = bound_texture(&mut dev.groups, share, name);
    let Some((lw, lh)) = t.levels.get(level as usize).copied().flatten() else {
        c.s.error(GL_INVALID_OPERATION);
        return Ok(());
    };
    if x + width > lw || y + height > lh {
        c.s.error(GL_INVALID_VALUE);
        return Ok(());
    }
    let format = t.format;
    let mut texels = rgba.to_vec();
    to_base(&mut texels, format);
    dev.counting.texture_uploads += 1;
    dev.counting.texture_bytes += texels.len() as u64;
    if let Some(r) = dev.renderer.as_deref_mut() {
        r.tex_sub_image(
            (share, name),
            level,
            x,
            y,
            &TexImage {
                level,
                width,
                height,
                rgba: &texels,
            },
        );
    }
    Ok(())
}

pub fn copy_image(
    c: &mut Context,
    dev: &mut Device,
    level: u32,
    internal: u32,
    rect: [i32; 4],
) -> ApiResult<()> {
    let (w, h) = (rect[2].max(0) as u32, rect[3].max(0) as u32);
    if base_format(internal).is_none() || !size_ok(w, h, level) {
        c.s.error(GL_INVALID_VALUE);
        return Ok(());
    }
    // Define the level (contents undefined), then copy into it.
    image(
        c,
        dev,
        level,
        internal,
        w,
        h,
        &vec![0u8; (w * h * 4) as usize],
    )?;
    copy_sub_image(c, dev, level, (0, 0), rect)
}

pub fn copy_sub_image(
    c: &mut Context,
    dev: &mut Device,
    level: u32,
    dst: (i32, i32),
    rect: [i32; 4],
) -> ApiResult<()> {
    super::cmd::flush(c, dev);
    let name = target_name(c);
    let share = c.share;
    let t = bound_texture(&mut dev.groups, share, name);
    let Some((lw, lh)) = t.levels.get(level as usize).copied().flatten() else {
        c.s.error(GL_INVALID_OPERATION);
        return Ok(());
    };
    if dst.0 < 0 || dst.1 < 0 || dst.0 + rect[2] > lw as i32 || dst.1 + rect[3] > lh as i32 {
        c.s.error(GL_INVALID_VALUE);
        return Ok(());
    }
    if t.format != BaseFormat::Rgba && t.format != BaseFormat::Rgb {
        return Err(unimplemented(
            "glCopyTexImage2D into a luminance, intensity or alpha texture",
        ));
    }
    let Some(d) = c.drawable else { return Ok(()) };
    dev.counting.texture_uploads += 1;
    if let Some(r) = dev.renderer.as_deref_mut() {
        r.copy_to_texture(
            d.hwnd,
            rect,
            (share, name),
            level,
            (dst.0 as u32, dst.1 as u32),
        )
        .map_err(|e| ApiError::Other(format!("OPENGL32: glCopyTexImage2D: {e}")))?;
    }
    Ok(())
}
